"""The kernel side of the checks: what calls a learner's object and returns plain data.

A grading kernel gets this package whole (as text, ``helpers/grading/run.py``), and nothing
else of ``checks/``: no judge, no float64 reference. Its modules import only torch, the
standard library, ``helpers.device`` (the grader ships a private copy) and each other
(tests/test_import_rules.py holds it). Three floors:

1. ``calling`` (the probe; the runners "call", "module" and "module_info"; plain data out)
   and ``fake_gpu`` (a second device on a CPU-only machine);
2. the runners of their own: ``relations`` (props), ``modules`` (devices, sizes, training
   mode), ``parts`` (the module run again with its parts replaced), ``loops`` (a training
   loop, decoding, a trained model's predictions), ``gradients`` (a probe's gradients),
   ``craft`` (gradient clipping and a checkpoint's round trip);
3. ``runner``: the table of runners (``RUNNERS``, with "value": a question's answer as it is)
   and ``run_probe``: one probe -> an Outcome.
"""
