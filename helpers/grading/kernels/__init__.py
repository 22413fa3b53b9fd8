"""The sandboxed kernel: what confines it (``sandbox``, ``cgroup``, ``separate_user``), the
per-slot process that forks preloaded kernels (``zygote``, over ``pipe``), one kernel under
limits (``kernel``, its environment ``environment``), one submission's kernel in its slot
(``kernel_run``), the job slots of a batch (``slots``), their folders (``scratch``), faults
injected at named points for the tests (``faults``), and what a kernel gets: the grader's code
inside it (``kernel_side``, with the kernel side of the checks, ``helpers/checks/run/``, sent
as text), the package as it sees it (``kernel_view``). No reference reaches it.

Inside a sandbox only ``zygote`` and ``pipe`` of this room are present (``kernel_view``): this
file imports nothing."""
