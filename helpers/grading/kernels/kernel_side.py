"""The grader's code that runs inside the learner's kernel.

The grader never imports this module in the kernel: it reads this file's source (and the
sources of the kernel side of the checks, ``helpers/checks/run/``) once, when the grader
starts, and sends them as text. In the kernel they are executed into a private namespace and a
private copy of that package (module names that the notebook never saw), so a notebook that
patched ``helpers``, ``helpers.checks`` or ``check`` cannot change how its objects are called.
torch itself is shared with the notebook: a notebook that patched torch can at worst make its
own answers wrong, because every verdict is made in the grader's process, not here.

Protocol, one exercise at a time:
    setup(sources, references=FOLDER)   build the private package of runners from source strings
    grade(task, target, probes_path, out_path, device, user_ns)
        loads the probes the grader wrote, finds ``target`` in the notebook's namespace,
        calls it on each probe with the runner (``task``: the exercise's {"id", "forbid"}), and
        saves plain data with torch.save:
        {"status": "ran" | "undefined" | "interrupted" | "broken" | "tampered",
         "origin": module name of the target, "reference": the reference it ran, or "",
         "outcomes": [{"value", "error", *Outcome.FLAGS}, ...], "error": str}

While the learner's object runs, a profile hook (``sys.setprofile``) watches for code of the
course's reference version of the same exercise (the function or class named like the target
in a file under ``references``, the ``helpers/blocks`` folder): a thin wrapper around it, a
subclass, or a module holding one runs that code, and "reference" names it. Using other
reference blocks (an earlier notebook's attention inside a later exercise) is allowed.
    Values are tensors, numbers, strings, None, tuples, lists and str-keyed dicts; a value the
    runner could not turn into plain data is {"__unsupported__": "<type name>"}.

Only the standard library and torch are imported here.
"""

PRIVATE_PACKAGE = "__course_grader_checks__"

_state = {}


def setup(sources, package=PRIVATE_PACKAGE, references=None):
    """Make ``package`` from ``sources`` ({short name: (filename, text)}) and load its
    ``runner``; ``references``: the folder of the reference versions to watch for (None: not
    watched)."""
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
                short = fullname[len(package) + 1 :]
                if short not in sources:
                    raise ImportError(f"{fullname} is not part of the grader's check package")
                return importlib.util.spec_from_loader(fullname, Loader(), origin=sources[short][0])
            return None

    # list(): one step under the GIL (a comprehension over sys.modules itself fails with
    # "dictionary changed size during iteration" when a thread of the kernel imports meanwhile)
    for name in [n for n in list(sys.modules) if n == package or n.startswith(package + ".")]:
        del sys.modules[name]
    pkg = types.ModuleType(package)
    pkg.__path__ = []
    pkg.__package__ = package
    sys.modules[package] = pkg
    finder = Finder()
    sys.meta_path.insert(0, finder)
    try:
        import importlib as _importlib

        runner = _importlib.import_module(package + ".runner")
        calling = _importlib.import_module(package + ".calling")
    finally:
        sys.meta_path.remove(finder)
    _state.update(runner=runner, calling=calling, references=references)


def _watch(target, folder):
    """A profile hook noting the first call of ``target``'s reference code (under ``folder``)."""
    import os

    prefix = os.path.join(folder, "")
    hits = []

    def hook(frame, event, arg):
        if event != "call" or hits:
            return
        code = frame.f_code
        qualname = getattr(code, "co_qualname", code.co_name)
        if qualname.split(".")[0] == target and code.co_filename.startswith(prefix):
            module = frame.f_globals.get("__name__", "?")
            hits.append(f"{module}.{qualname.split('.')[0]}")

    return hook, hits


def _run_probes(ex, target, candidate, probes, dev, result):
    """Run the probes (the runner's own way), watching for the reference; fill ``result``."""
    import sys
    import threading

    runner, calling = _state["runner"], _state["calling"]
    watched = _state["references"] is not None
    hook, hits = _watch(target, _state["references"] or "")
    if watched:
        threading.setprofile(hook)
        sys.setprofile(hook)
    try:
        for fields in probes:
            probe = calling.Probe(**fields)
            try:
                outcome = runner.run_probe(ex, probe, candidate, dev)
                item = _item(outcome, calling.Unsupported)
            except KeyboardInterrupt:
                result["status"] = "interrupted"
                break
            except BaseException as exc:  # SystemExit and the like, raised by the candidate
                error = f"your code raised {type(exc).__name__}: {exc}"
                item = _item(runner.Outcome(error=error), calling.Unsupported)
            if watched and sys.getprofile() is not hook:
                result["status"] = "tampered"
                result["error"] = "replaced the grader's profile hook (sys.setprofile)"
                break
            result["outcomes"].append(item)
            if item["error"] is not None:
                break  # the grader's judge stops at the first failing case anyway
    finally:
        if watched:
            sys.setprofile(None)
            threading.setprofile(None)
    result["reference"] = hits[0] if hits else ""


def _item(outcome, unsupported) -> dict:
    item = {"value": _encode(outcome.value, unsupported), "error": outcome.error}
    item.update({flag: bool(getattr(outcome, flag)) for flag in outcome.FLAGS})
    if outcome.on_cpu is not None:  # the probe failed for its device: its run on the CPU
        item["on_cpu"] = _item(outcome.on_cpu, unsupported)
    return item


def _encode(value, unsupported):
    if isinstance(value, unsupported):
        return {"__unsupported__": str(value.type_name)}
    if type(value) in (tuple, list):
        return type(value)(_encode(v, unsupported) for v in value)
    if type(value) is dict:
        return {k: _encode(v, unsupported) for k, v in value.items()}
    return value


def grade(task, target, probes_path, out_path, device, user_ns):
    import torch

    result = {"status": "ran", "origin": "", "reference": "", "outcomes": [], "error": ""}
    try:
        ex = _state["runner"].Task(**task)
        if target not in user_ns:
            result["status"] = "undefined"
        else:
            candidate = user_ns[target]
            result["origin"] = str(getattr(candidate, "__module__", "") or "")
            probes = torch.load(probes_path, weights_only=False)  # the grader's own file
            _run_probes(ex, target, candidate, probes, torch.device(device), result)
    except KeyboardInterrupt:
        result["status"] = "interrupted"
    except BaseException as exc:
        result["status"] = "broken"
        result["error"] = f"{type(exc).__name__}: {exc}"[:500]
    torch.save(result, out_path)
