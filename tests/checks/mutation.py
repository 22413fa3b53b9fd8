"""Mechanical mutation testing of the checks: mutate each reference one AST site at a time.

    .venv/bin/python -m tests.checks.mutation [--exercise ID ...] [--max N] [--json OUT] [-j N]

For every exercise of tests/checks/mutation_probes.SOURCES the reference (a function or class in
helpers/blocks/, or the solution cell of solutions/*.ipynb) is parsed with `ast`; one mutant is
made per site (binary operator swapped, comparison flipped, number nudged, bool flipped, a call
replaced by its first argument or its receiver or by a sibling (tril/triu, amax/amin, sin/cos ...),
a keyword argument dropped (dim=, keepdim=, device= ...), a statement deleted, a unary minus or
`~` or `not` removed; type hints are left alone). A mutant is kept when it changes the output
of a seeded probe (compared with the reference's); one that raises on the probe is counted as a
crash (not checked), one that gives the same output as equivalent. check() runs on every kept
mutant; the report gives per exercise the mutants that change the output, how many are rejected
and how many get a mistake code.
"""

import argparse
import ast
import contextlib
import copy
import importlib
import io
import json
import linecache
import math
import random
import signal
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from tests.checks.mutation_probes import SOURCES, probe_for, same

ROOT = Path(__file__).resolve().parents[2]
PROBE_SECONDS, CHECK_SECONDS = 20, 120  # generous: the machine may be shared
SWAP = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
    ast.Pow: ast.Mult, ast.MatMult: ast.Mult, ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv,
    ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd,
}  # fmt: skip
FLIP = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In,
}  # fmt: skip
SIBLING = {
    "tril": "triu", "triu": "tril", "sin": "cos", "cos": "sin", "amax": "amin", "max": "min",
    "min": "max", "mean": "sum", "sum": "mean", "relu": "gelu", "gelu": "relu", "exp": "log",
    "softmax": "log_softmax", "maximum": "minimum", "cumsum": "cumprod",
}  # fmt: skip


def reference_source(exercise: str) -> tuple[str, dict]:
    """(source of the reference definition, the namespace it runs in)."""
    kind, where, name = SOURCES[exercise]
    if kind == "module":
        module = importlib.import_module(where)
        tree = ast.parse(Path(module.__file__).read_text())
        node = next(n for n in tree.body if getattr(n, "name", None) == name)
        return ast.get_source_segment(Path(module.__file__).read_text(), node), dict(vars(module))
    ns = {"torch": torch, "nn": nn, "F": F, "math": math}
    cells = json.loads((ROOT / where).read_text())["cells"]
    by_id = {c["metadata"].get("course", {}).get("exercise"): "".join(c["source"]) for c in cells}
    if name == "dot_product_attention":  # the notebook's own softmax is in scope there
        exec(by_id["01.softmax"], ns)
    return by_id[exercise], ns


def _sites(tree: ast.AST):
    """Yield (description, mutate) where mutate(tree_copy) applies one mutation in place."""
    nodes = list(ast.walk(tree))
    for i, node in enumerate(nodes):
        line = getattr(node, "lineno", 0)

        def at(fn, i=i):  # fn(root, node): the same site found again in a copy of the tree
            return lambda t: fn(t, list(ast.walk(t))[i])

        if isinstance(node, ast.BinOp) and type(node.op) in SWAP:
            new = SWAP[type(node.op)]
            yield (
                f"L{line} {type(node.op).__name__} -> {new.__name__}",
                at(lambda _, n, new=new: setattr(n, "op", new())),
            )
        elif isinstance(node, ast.Compare) and type(node.ops[0]) in FLIP:
            new = FLIP[type(node.ops[0])]
            yield (
                f"L{line} {type(node.ops[0]).__name__} -> {new.__name__}",
                at(lambda _, n, new=new: n.ops.__setitem__(0, new())),
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            yield (
                f"L{line} {node.value} -> {not node.value}",
                at(lambda _, n: setattr(n, "value", not n.value)),
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            v = node.value
            new = v + 1 if isinstance(v, int) else (v * 1.5 if v else 1.0)
            yield f"L{line} {v!r} -> {new!r}", at(lambda _, n, new=new: setattr(n, "value", new))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Invert, ast.Not)):
            yield (
                f"L{line} {type(node.op).__name__} removed",
                at(lambda t, n: _replace(t, n, n.operand)),
            )
        elif isinstance(node, ast.Call) and _first(node) is not node:
            what = ast.unparse(node.func)[:30]
            yield f"L{line} call {what}(...) dropped", at(lambda t, n: _replace(t, n, _first(n)))
        if isinstance(node, ast.Call):
            for j, kw in enumerate(node.keywords):
                yield f"L{line} keyword {kw.arg}= dropped", at(lambda _, n, j=j: n.keywords.pop(j))
            name = getattr(node.func, "attr", getattr(node.func, "id", None))
            if name in SIBLING:
                yield f"L{line} {name} -> {SIBLING[name]}", at(lambda _, n: _rename(n, SIBLING))
        if isinstance(node, (ast.FunctionDef, ast.For, ast.If, ast.With, ast.While)):
            for j, stmt in enumerate(node.body):
                if _deletable(stmt):
                    yield f"L{stmt.lineno} statement deleted", at(lambda _, n, j=j: _delete(n, j))


def _first(call: ast.Call) -> ast.expr:
    """A call replaced by what it transforms: x.f(...) -> x, f(a, ...) and self.f(a) -> a."""
    root = call.func
    while isinstance(root, ast.Attribute):
        root = root.value
    namespace = isinstance(root, ast.Name) and root.id in ("torch", "F", "math", "nn", "self")
    if isinstance(call.func, ast.Attribute) and not namespace:
        return call.func.value
    return call.args[0] if call.args else call


def _strip_annotations(tree: ast.AST) -> ast.AST:
    """Type hints are not behaviour: no mutant is made there."""
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            node.annotation = None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
    return tree


def _rename(call: ast.Call, table: dict) -> None:
    if isinstance(call.func, ast.Attribute):
        call.func.attr = table[call.func.attr]
    else:
        call.func.id = table[call.func.id]


def _deletable(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return False  # docstring
    if isinstance(stmt, ast.Return):
        return False  # a function without its return is a crash, not a mistake to name
    text = ast.unparse(stmt)
    return "super().__init__" not in text and not text.startswith("raise ")


def _delete(node, j):
    del node.body[j]
    if not node.body:
        node.body.append(ast.Pass())


def _replace(root, old, new):
    for parent in ast.walk(root):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
            elif isinstance(value, list):
                for k, item in enumerate(value):
                    if item is old:
                        value[k] = new


def mutant_source(tree: ast.AST, mutate) -> str:
    mutant = copy.deepcopy(tree)
    mutate(mutant)
    return ast.unparse(ast.fix_missing_locations(mutant))


def build(source: str, ns: dict, name: str, tag: str):
    """exec the source in a copy of ns; inspect.getsource works on the result (linecache)."""
    filename = f"<mutant {tag}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    ns = dict(ns)
    exec(compile(source, filename, "exec"), ns)
    return ns[name]


@contextlib.contextmanager
def time_limit(seconds: int):
    """A mutant may loop forever (a deleted `break`, a flipped `<`): raise TimeoutError instead."""

    def expire(*_):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run_probe(exercise, obj, seconds=PROBE_SECONDS):
    try:
        with time_limit(seconds), contextlib.ExitStack() as stack:
            if exercise != "06.train_one_epoch":
                stack.enter_context(torch.no_grad())
            return "ok", probe_for(exercise)(obj)
    except Exception as e:  # noqa: BLE001 - a mutant may raise anything
        return "crash", f"{type(e).__name__}: {e}"[:200]


def judge_mutant(args):
    exercise, desc, source = args
    from helpers import check

    _, ns = reference_source(exercise)
    name = SOURCES[exercise][2]
    obj = build(source, ns, name, desc)
    try:
        with time_limit(CHECK_SECONDS), contextlib.redirect_stdout(io.StringIO()):
            r = check(exercise, obj)
    except TimeoutError as e:  # the check did not come back: not counted as rejected
        return {"site": desc, "passed": None, "mistake": None, "message": f"check: {e}"}
    first = (r.messages or [""])[0][:160]
    return {"site": desc, "passed": bool(r.passed), "mistake": r.mistake, "message": first}


def mutants(exercise: str, max_mutants: int, seed: int = 0):
    """The mutants of one exercise that change the probe's output (capped), and the counts."""
    source, ns = reference_source(exercise)
    name = SOURCES[exercise][2]
    # no time limit for the reference: its first run imports lazily (torch.optim, _dynamo)
    status, expected = run_probe(exercise, build(source, ns, name, "reference"), seconds=0)
    if status != "ok":
        raise RuntimeError(f"{exercise}: the reference fails its own probe: {expected}")
    tree = _strip_annotations(ast.parse(source))
    sites = list(_sites(tree))
    counts = {"sites": len(sites), "equivalent": 0, "crash": 0, "unbuildable": 0}
    changed = []
    for desc, mutate in sites:
        try:
            src = mutant_source(tree, mutate)
            status, out = run_probe(exercise, build(src, ns, name, desc))
        except Exception:  # noqa: BLE001 - a mutant that does not even define the object
            counts["unbuildable"] += 1
            continue
        if status == "crash":
            counts["crash"] += 1
        elif same(out, expected):
            counts["equivalent"] += 1
        else:
            changed.append((exercise, desc, src))
    counts["changed"] = len(changed)
    if len(changed) > max_mutants:  # an even, seeded sample
        changed = random.Random(seed).sample(changed, max_mutants)
    return changed, counts


def run(exercises, max_mutants=40, jobs=1):
    report = {}
    for ex in exercises:
        start = time.time()
        changed, counts = mutants(ex, max_mutants)
        if jobs > 1:
            with Pool(jobs) as pool:
                rows = pool.map(judge_mutant, changed)
        else:
            rows = [judge_mutant(m) for m in changed]
        tested = len(rows)
        rejected = sum(r["passed"] is False for r in rows)
        coded = sum(bool(r["mistake"]) for r in rows if r["passed"] is False)
        report[ex] = dict(counts, tested=tested, rejected=rejected, with_code=coded,
                          seconds=round(time.time() - start, 1), mutants=rows)  # fmt: skip
        print(f"{ex:34} changed {counts['changed']:3} tested {tested:3} rejected {rejected:3} "
              f"({_pct(rejected, tested)}) with a code {coded:3} ({_pct(coded, tested)}) "
              f"[equivalent {counts['equivalent']}, crash {counts['crash']}] "
              f"{report[ex]['seconds']} s", flush=True)  # fmt: skip
    t = sum(r["tested"] for r in report.values())
    rej = sum(r["rejected"] for r in report.values())
    cod = sum(r["with_code"] for r in report.values())
    print(f"{'total':34} tested {t} rejected {rej} ({_pct(rej, t)}) code {cod} ({_pct(cod, t)})")
    return report


def _pct(n, d):
    return f"{100 * n / d:.0f} %" if d else "-"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exercise", nargs="*", default=None, help="ids (default: all)")
    ap.add_argument("--max", type=int, default=40, help="mutants checked per exercise")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("-j", "--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    report = run(args.exercise or list(SOURCES), args.max, args.jobs)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
