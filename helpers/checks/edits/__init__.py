"""The reference as an error model: a wrong answer named by the small edit of the reference that
reproduces it on every case of the check. Three rooms: ``operators`` (the edits of a syntax
tree, with their words), ``source`` (the course's reference, built and run on a probe), and
``search`` (the edit that does what the learner's code does)."""

from .operators import Edit, edits, mutant_source, strip_annotations
from .search import distance, explain, mutants, reproducing
from .source import build, has_reference, reference, reference_outcome, reference_source, time_limit

__all__ = [
    "Edit",
    "build",
    "distance",
    "edits",
    "explain",
    "has_reference",
    "mutant_source",
    "mutants",
    "reference",
    "reference_outcome",
    "reference_source",
    "reproducing",
    "strip_annotations",
    "time_limit",
]
