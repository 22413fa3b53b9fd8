"""The grader's code that runs inside the learner's kernel.

The grader never imports this module in the kernel: it reads this file's source (and the
sources of the check framework) once, when the grader starts, and sends them as text. In the
kernel they are executed into a private namespace and a private copy of the check package
(module names that the notebook never saw), so a notebook that patched ``helpers``,
``helpers.checks`` or ``check`` cannot change how its objects are called. torch itself is
shared with the notebook: a notebook that patched torch can at worst make its own answers
wrong, because every verdict is made in the grader's process, not here.

Protocol, one exercise at a time:
    setup(sources)                 build the private check package from source strings
    grade(exercise_id, target, probes_path, out_path, device, user_ns)
        loads the probes the grader wrote, finds ``target`` in the notebook's namespace,
        calls it on each probe with the check runner, and saves plain data with torch.save:
        {"status": "ran" | "undefined" | "unknown" | "interrupted" | "broken",
         "origin": module name of the target, "outcomes": [{"value", "error", "missing",
         "off_device"}, ...], "error": str}
    Values are tensors, numbers, strings, None, tuples, lists and str-keyed dicts; a value the
    runner could not turn into plain data is {"__unsupported__": "<type name>"}.

Only the standard library and torch are imported here.
"""

PRIVATE_PACKAGE = "__course_grader_checks__"

_state = {}


def setup(sources, package=PRIVATE_PACKAGE, notebooks=None):
    """Make ``package`` from ``sources`` ({short name: (filename, text)}), with the check
    modules of ``notebooks`` (["02", ...]; None = all) and what they import."""
    import importlib.abc
    import importlib.util
    import sys
    import types

    class Loader(importlib.abc.Loader):
        def create_module(self, spec):
            return None

        def exec_module(self, module):
            filename, text = sources[module.__name__.rsplit(".", 1)[1]]
            module.__file__ = filename
            exec(compile(text, filename, "exec"), module.__dict__)

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path=None, target=None):
            if fullname.startswith(package + "."):
                short = fullname[len(package) + 1:]
                if short not in sources:
                    raise ImportError(f"{fullname} is not part of the grader's check package")
                return importlib.util.spec_from_loader(fullname, Loader(), origin=sources[short][0])
            return None

    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        del sys.modules[name]
    pkg = types.ModuleType(package)
    pkg.__path__ = []
    pkg.__package__ = package
    sys.modules[package] = pkg
    finder = Finder()
    sys.meta_path.insert(0, finder)
    try:
        import importlib as _importlib
        import re as _re

        framework = _importlib.import_module(package + ".framework")
        runner = _importlib.import_module(package + ".runner")
        failures = {}
        for short in sorted(sources):
            nb = _re.match(r"^nb(\d\d)(_|$)", short)  # nb05 and nb05_block, nb05_...
            if nb and (notebooks is None or nb.group(1) in notebooks):
                try:  # a broken check module costs only its own exercises
                    _importlib.import_module(f"{package}.{short}")
                except Exception as exc:
                    failures.setdefault(nb.group(1), f"{type(exc).__name__}: {exc}")
    finally:
        sys.meta_path.remove(finder)
    _state.update(framework=framework, runner=runner, failures=failures)


def _encode(value, unsupported):
    if isinstance(value, unsupported):
        return {"__unsupported__": str(value.type_name)}
    if type(value) in (tuple, list):
        return type(value)(_encode(v, unsupported) for v in value)
    if type(value) is dict:
        return {k: _encode(v, unsupported) for k, v in value.items()}
    return value


def grade(exercise_id, target, probes_path, out_path, device, user_ns):
    import torch

    result = {"status": "ran", "origin": "", "outcomes": [], "error": ""}
    try:
        framework, runner = _state["framework"], _state["runner"]
        ex = framework.REGISTRY.get(exercise_id)
        if ex is None:
            result["status"] = "unknown"
            result["error"] = _state["failures"].get(exercise_id.split(".")[0], "")[:500]
        elif target not in user_ns:
            result["status"] = "undefined"
        else:
            candidate = user_ns[target]
            result["origin"] = str(getattr(candidate, "__module__", "") or "")
            probes = torch.load(probes_path, weights_only=False)  # the grader's own file
            dev = torch.device(device)
            for fields in probes:
                probe = framework.Probe(**fields)
                try:
                    outcome = runner.run_probe(ex, probe, candidate, dev)
                    item = {"value": _encode(outcome.value, framework.Unsupported),
                            "error": outcome.error, "missing": bool(outcome.missing),
                            "off_device": bool(outcome.off_device)}
                except KeyboardInterrupt:
                    result["status"] = "interrupted"
                    break
                except BaseException as exc:  # SystemExit and the like, raised by the candidate
                    item = {"value": None, "error": f"your code raised {type(exc).__name__}: {exc}",
                            "missing": False, "off_device": False}
                result["outcomes"].append(item)
                if item["error"] is not None:
                    break  # the grader's judge stops at the first failing case anyway
    except KeyboardInterrupt:
        result["status"] = "interrupted"
    except BaseException as exc:
        result["status"] = "broken"
        result["error"] = f"{type(exc).__name__}: {exc}"[:500]
    torch.save(result, out_path)
