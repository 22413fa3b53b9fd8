"""``python -m helpers grade merge OUT.csv PART.csv ...``: the gradebooks of shards made one."""

from __future__ import annotations

import argparse
import sys

from .books import outputs


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Merge the gradebooks of shards (--shard K/N) into one, in the order one unsharded "
        "run writes."
    )
    p.add_argument("out", help="the merged gradebook")
    p.add_argument("parts", nargs="+", metavar="PART", help="the shards' gradebooks")
    outputs.add_arguments(p)
    p.add_argument(
        "--similarity-from",
        nargs="+",
        metavar="SUBMISSION",
        help="the submissions (folders, zips) graded: the report gets its similar-code section",
    )


def run(args: argparse.Namespace) -> int:
    from .books.gradebook import read_record
    from .books.shard import merge

    outputs.check_arguments(args)
    n = merge(args.out, args.parts)
    print(f"merged {len(args.parts)} gradebooks, {n} rows -> {args.out}")
    if read_record(args.out) is None:
        print(
            "warning: the parts have no record (older gradebooks): nothing says whether "
            "a shard is missing",
            file=sys.stderr,
        )
    similar = None
    if args.similarity_from and args.report:
        from .reading.archives import expanded

        with expanded(args.similarity_from) as paths:
            similar = outputs.code_similarity(paths, args.out)
    outputs.write_outputs(args.out, args, similar)
    return 0
