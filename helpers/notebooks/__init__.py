"""Maintainer tools for the notebooks (``python -m helpers student|export|execute|bench``).

    common.py   markers, paths, reading and numbering notebooks
    kernel.py   the one nbclient driver: a notebook top to bottom in a fresh kernel
    student.py  solutions/ -> notebooks/ (solution regions become TODOs)
    export.py   solutions' ``#| export`` cells -> helpers/blocks/
    execute.py  run solved notebooks and store their outputs
    bench.py    runtime budget: time solved notebooks, write bench/

Each subcommand module has ``add_arguments(parser)`` and ``run(args) -> int`` (the exit status).
"""
