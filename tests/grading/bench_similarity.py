"""Our AST normalisation against copydetect (MOSS-style winnowing) on planted classes.

    python -m tests.grading.bench_similarity [CLASSES]

For each of CLASSES classes of 30 (tests/grading/planted.py, one seed each): whether the
copied pair and the copy of the reference are flagged, and how many honest pairs are, by
each detector at the same threshold (similarity.THRESHOLD of the smaller side's code); then
the time our detector takes for 200 students. copydetect is optional (pip install
copydetect); the grader does not use it.
"""

from __future__ import annotations

import io
import sys
import time

from helpers.grading.judging import similarity as S

from . import planted


def ours(codes: dict) -> set[tuple[str, str]]:
    return {(f.first, f.second) for f in S.find_similar(codes) if f.exercise == planted.SDPA}


def copydetect_pairs(codes: dict) -> set[tuple[str, str]]:
    from copydetect import CodeFingerprint, compare_files

    def fp(code: str, boiler=None):
        # copydetect's defaults: noise threshold 25 characters, guarantee 30 (window 6)
        return CodeFingerprint("x.py", 25, 6, boilerplate=boiler, fp=io.StringIO(code))

    reference, stub = S.course_cells("02")
    boiler = list(fp(stub[planted.SDPA]).hashes)
    prints = {lb: fp(c[planted.SDPA], boiler) for lb, c in codes.items()}
    prints["the reference"] = fp(reference[planted.SDPA], boiler)
    labels = sorted(prints)
    found = set()
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            _, sims, _ = compare_files(prints[a], prints[b])
            if max(sims) >= S.THRESHOLD:
                found.add((a, b) if b != "the reference" else (a, b))
    return {(b, a) if a == "the reference" else (a, b) for a, b in found}


def score(found: set[tuple[str, str]]) -> tuple[bool, bool, int]:
    pair = planted.COPIED_PAIR in found
    ref = (planted.COPIED_REFERENCE, "the reference") in found
    honest = len(found - {planted.COPIED_PAIR, (planted.COPIED_REFERENCE, "the reference")})
    return pair, ref, honest


def main(classes: int = 20) -> None:
    detectors = {"ours (AST)": ours}
    try:
        import copydetect  # noqa: F401

        detectors["copydetect"] = copydetect_pairs
    except ImportError:
        print("copydetect is not installed: only ours")
    for name, detect in detectors.items():
        results = [score(detect(planted.codes(seed))) for seed in range(classes)]
        print(
            f"{name:12s} copied pair {sum(r[0] for r in results)}/{classes}, "
            f"copy of the reference {sum(r[1] for r in results)}/{classes}, "
            f"honest pairs flagged {sum(r[2] for r in results)} in {classes} classes"
        )
    big = {}
    for seed in range(7):
        for label, per_ex in planted.codes(seed).items():
            big[f"c{seed}-{label}"] = per_ex
    big = dict(list(big.items())[:200])
    start = time.perf_counter()
    S.find_similar(big)
    print(f"ours: {len(big)} students, 3 exercises: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
