"""Resource limits a kernel sets on itself before it runs any of the learner's code.

Standard library only: the cold-start launcher loads this file by path, before anything else.

The memory limit is ``RLIMIT_DATA``, not ``RLIMIT_AS``. Since Linux 4.7 ``RLIMIT_DATA`` counts
the private writable mappings of a process (heap, anonymous ``mmap``, thread stacks, the
writable data of libraries): the memory a cell can fill. ``RLIMIT_AS`` counts address space,
which includes the text of every shared library mapped: importing a CUDA build of torch maps
about 3.1 GB of it (0.6 GB for the CPU wheel) without using that memory, so an address-space
limit failed honest notebooks on CUDA builds. Read-only library text and ``PROT_NONE``
reservations (CUDA's unified address range) are not counted by ``RLIMIT_DATA``; an allocation
beyond the limit fails in the cell that makes it (``MemoryError``, or torch's "can't allocate
memory"). The limit is per process (a process the kernel starts gets its own). On kernels
older than 4.7 ``RLIMIT_DATA`` counts only the heap (``brk``): large allocations, which glibc
makes with ``mmap``, would not be stopped there.
"""


def set_limits(memory_bytes: int, file_bytes: int) -> None:
    """Memory (``RLIMIT_DATA``, see above), largest file written, no core files; 0 = no limit."""
    try:
        import resource
    except ImportError:  # Windows: no resource limits
        return
    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_DATA, (memory_bytes, memory_bytes))
    if file_bytes > 0:
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


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
