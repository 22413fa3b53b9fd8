"""Every limit of the grader, declared once, and the resource limits a kernel sets on itself
before it runs any of the learner's code.

Standard library only: the cold-start launcher loads this file by path, before anything else.

**The numbers.** ``OPTIONS`` holds what an instructor sets on the command line (flag, default,
unit, help): ``Settings`` (records.py) and ``python -m helpers grade --help`` (cli.py) read
it, the instructor's guide's options table cites it (``tests/grading/test_limits.py`` compares
them). The caps below it are fixed; each module that enforces one imports it from here.

**The memory limit** of a kernel is ``RLIMIT_DATA``, not ``RLIMIT_AS``. Since Linux 4.7
``RLIMIT_DATA`` counts the private writable mappings of a process (heap, anonymous ``mmap``,
thread stacks, the writable data of libraries): the memory a cell can fill. ``RLIMIT_AS``
counts address space, which includes the text of every shared library mapped: importing a CUDA
build of torch maps about 3.1 GB of it (0.6 GB for the CPU wheel) without using that memory,
so an address-space limit failed honest notebooks on CUDA builds. Read-only library text and
``PROT_NONE`` reservations (CUDA's unified address range) are not counted by ``RLIMIT_DATA``;
an allocation beyond the limit fails in the cell that makes it (``MemoryError``, or torch's
"can't allocate memory"). The limit is per process (a process the kernel starts gets its own;
all of a slot's processes share ``SLOT_MEMORY_FACTOR`` times it, cgroup.py). On kernels older
than 4.7 ``RLIMIT_DATA`` counts only the heap (``brk``): large allocations, which glibc makes
with ``mmap``, would not be stopped there.
"""

MiB, GiB = 2**20, 2**30

# the command line's limits: flag -> (Settings field, default in the flag's unit, the unit's
# metavar, the field's units per flag unit, help)
OPTIONS = {
    "--timeout": ("cell_timeout", 120.0, "S", 1, "seconds per cell, and per exercise when grading"),
    "--notebook-timeout": ("total_timeout", 600.0, "S", 1, "seconds for all of a notebook's cells"),
    "--memory": ("memory_bytes", 4.0, "GiB", GiB, "GiB of memory per kernel process "
                 "(RLIMIT_DATA: heap and anonymous mappings, not library code; 0 = no limit)"),
}  # fmt: skip


def settings_values(read) -> dict:
    """{Settings field: value in its unit} from ``read(flag)``, a value in the flag's unit."""
    values = {}
    for flag, (field, _, _, scale, _) in OPTIONS.items():
        value = read(flag)
        values[field] = int(value * scale) if scale != 1 else value
    return values


def default(field: str):
    """The default of the Settings ``field`` an option sets, in the field's unit."""
    return settings_values(lambda flag: OPTIONS[flag][1])[field]


# a kernel
FILE_BYTES = GiB  # the largest file a kernel may write (RLIMIT_FSIZE); 0 = no limit
OUTPUT_CHARS = 2 * MiB  # characters of output kept per submission
# one output message over this is dropped on arrival: ten times the largest output of the series
# (a 400 kB figure in 09); the JSON of one message is parsed in the grader's process, where
# 60 MB of tiny objects ([{}, {}, ...]) took 1.7 GB
MAX_MESSAGE_BYTES = 4 * MiB
IOPUB_QUEUE = 16  # output messages the grader holds at once: 64 MiB at most
MAX_STARTS = 4  # kernels per submission: the first and at most three fresh ones
# the learner's cells, summed over every kernel of one submission, run for at most this times the
# notebook's limit (--notebook-timeout): re-runs cannot make one submission hold its slot for
# MAX_STARTS times the limit (a tester held one 3.3 times; the default bound was ~33 minutes)
CELL_BUDGET = 2.0
PRELOAD_SECONDS = 600.0  # the longest the first spawn waits for the zygote's imports

# a sandbox (a job's slot)
TASKS_MAX = 1024  # per sandbox: a kernel has ~10 threads; tests start 200 sleeping children
SLOT_MEMORY_FACTOR = 2  # all of a slot's processes: this times one kernel's memory limit
SHM_BYTES = 256 * MiB  # its /dev/shm
# its folder, where the grader can mount a tmpfs for it (slot_disk.py): the bytes and files a
# submission may write (an honest notebook writes a few MB in a few hundred files)
SLOT_DISK_BYTES = GiB
SLOT_INODES = 100_000

# what the grader reads (each in a child process of its own, isolate.py)
MAX_NOTEBOOK_BYTES = 256 * MiB  # a submitted notebook's file, outputs included (cells.py)
MAX_CODE_BYTES = 16 * MiB  # what grading keeps of it: code and metadata, no outputs
MAX_SIBLING_BYTES = 50 * MiB  # a file the course declares, beside a notebook
MAX_ZIP_BYTES = 8 * GiB  # an LMS archive, uncompressed, all members together
MAX_ZIP_MEMBERS = 200_000  # the notebooks (and data, uploaded zips) an archive holds
# kept free where an archive is extracted, for the grading after it: a quarter of the file
# system, at most these (archives.py)
EXTRACT_RESERVE_SHARE, EXTRACT_RESERVE_BYTES, EXTRACT_RESERVE_INODES = 0.25, 256 * MiB, 10_000
READ_MEMORY, READ_SECONDS = GiB, 60.0  # reading one notebook
JUDGE_MEMORY = 768 * MiB  # reading and judging one exercise's results
MAX_RESULT_BYTES = 256 * MiB  # one exercise's results file
MAX_TENSOR_BYTES = 256 * MiB  # the tensor data in it (a deflated record counts inflated)
MAX_REPLY_BYTES = 8 * MiB  # what a child process of the grader may answer
DRAWS_MEMORY, DRAWS_SECONDS = GiB, 600.0  # finding the passing draws of a batch's exercises


def set_limits(memory_bytes: int, file_bytes: int) -> None:
    """Memory (``RLIMIT_DATA``, see above), largest file written, no core files, no POSIX
    message queue (its bytes count against the grader's user, in every sandbox); 0 = no
    limit."""
    try:
        import resource
    except ImportError:  # Windows: no resource limits
        return
    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_DATA, (memory_bytes, memory_bytes))
    if file_bytes > 0:
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if hasattr(resource, "RLIMIT_MSGQUEUE"):
        resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))


# keyctl(2) system call numbers (no libkeyutils needed); other machines: no keyring isolation
KEYCTL = {"x86_64": 250, "aarch64": 219, "ppc64le": 250, "s390x": 250}
JOIN_SESSION_KEYRING, CLEAR, GET_PERSISTENT = 1, 7, 22
THREAD_KEYRING, USER_KEYRING, USER_SESSION_KEYRING = -1, -4, -5


def keyctl(*args: int) -> int:
    """The keyctl system call (-1 where it cannot be made)."""
    import ctypes
    import platform

    number = KEYCTL.get(platform.machine())
    if number is None:
        return -1
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.syscall(number, *[ctypes.c_long(a) for a in args])
    except (OSError, AttributeError):
        return -1


def fresh_keyring() -> None:
    """A new, empty session keyring for this process and what it starts: not the one it was
    started with (the grader's, or the last submission's kernel's)."""
    keyctl(JOIN_SESSION_KEYRING, 0)


def clear_user_keyrings() -> None:
    """Empty the keyrings every process of this user shares (in this user namespace): the user
    and user-session keyrings, and the persistent one (found through this thread's keyring,
    which no forked kernel inherits)."""
    keyctl(CLEAR, USER_KEYRING)
    keyctl(CLEAR, USER_SESSION_KEYRING)
    persistent = keyctl(GET_PERSISTENT, -1, THREAD_KEYRING)
    if persistent > 0:
        keyctl(CLEAR, persistent)


# System calls that make kernel objects counted per user across namespaces (the grader's user,
# in every sandbox and batch alike): keys, inotify and fanotify instances. A kernel needs none;
# POSIX message queues are bounded by RLIMIT_MSGQUEUE above, new namespaces by the sandbox.
# machine: (its seccomp architecture, {name: number}, the first number of another ABI or 0)
SHARED_OBJECTS = {
    "x86_64": (
        0xC000003E,
        {"add_key": 248, "request_key": 249, "keyctl": 250, "inotify_init": 253,
         "inotify_init1": 294, "fanotify_init": 300},
        0x40000000,  # x32 system calls
    ),
    "aarch64": (
        0xC00000B7,
        {"add_key": 217, "request_key": 218, "keyctl": 219, "inotify_init1": 26,
         "fanotify_init": 262},
        0,
    ),
}  # fmt: skip


def forbid_shared_objects() -> bool:
    """A seccomp filter on this process and what it starts: the calls of ``SHARED_OBJECTS``
    (and any call of another ABI) fail with EPERM. False where it cannot be set."""
    import ctypes
    import platform
    import struct

    found = SHARED_OBJECTS.get(platform.machine())
    if found is None:
        return False
    arch, numbers, other_abi = found
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    allow, deny = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EPERM
    prog = [(ld, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, deny), (ld, 0, 0, 0)]
    if other_abi:
        prog += [(jge, 0, 1, other_abi), (ret, 0, 0, deny)]
    calls = sorted(numbers.values())
    prog += [(jeq, len(calls) - i, 0, nr) for i, nr in enumerate(calls)]
    prog += [(ret, 0, 0, allow), (ret, 0, 0, deny)]
    code = b"".join(struct.pack("HBBI", *op) for op in prog)
    buf = ctypes.create_string_buffer(code, len(code))

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = Fprog(len(prog), ctypes.addressof(buf))
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS: required for a filter
            return False
        return libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) == 0  # PR_SET_SECCOMP, FILTER
    except (OSError, AttributeError):
        return False
