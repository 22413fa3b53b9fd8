"""Judging in the grader's own process: probes from the secret seed, the kernel's results
loaded as plain data, verdicts (``judging``); the judge's own source files, read once and
checked at the end (``sources``); similar code in a class (``similarity``), with what a notebook
binds to the graded names and the code in it nobody can read (``bindings``)."""
