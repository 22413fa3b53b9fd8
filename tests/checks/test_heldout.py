"""The held-out set of issue #18: every wrong version is rejected, every public one passes.

tests/checks/heldout/ holds plausible wrong versions (a*.py: set A; c*.py: set C, written later
the same way and measured before it joined the tests; d*.py: set D, issue 29's fresh set, with
its correct alternates e*.py; f*.py: set F, notebook 07b's exercises, with its correct alternates
g*.py; h*.py: set H, the nine ★★★ exercises of 00-09, with its correct alternates i*.py;
j*.py: set J, every other exercise, with its correct alternates k*.py),
written from the notebooks' text by someone who had not read the checks, and correct public
implementations adapted to the contract (p*.py, META["source"] names where they come from)
or correct alternates in another style (q*.py).

Set D, measured on f130f08, before any change made for it (``python -m tests.checks.measure_heldout
FOLDER``): 157 of 162 rejected, 148 with a mistake code, 141 named (87 %); 22 of 22 alternates
passed. Each file defines the candidate under the contract's name and runs in a namespace that
holds torch, nn, F and math, as a notebook cell. Those that fail on main are xfail(strict=True)
with the reason: a fix flips them to XPASS, and then they leave the list.
"""

import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn

HERE = Path(__file__).parent / "heldout"
FILES = sorted(HERE.glob("[acdefghijkpq]*.py"))

# file -> why it fails today (measured with tests/checks/measure_heldout.py, issue #18); none
# since the (max_len, 1, d_model) table of the PyTorch tutorial is judged by its output
FAILS_ON_MAIN: dict[str, str] = {
    "j02_relu_mask_multiply.py": "x * (x > 0) is NaN at -inf only: the checks give relu finite "
    "inputs (the text does not say what -inf or NaN should give), so it passes, by design",
    "j12_sdpa_big_negative.py": "-1e9 for -inf differs only on a row with every key blocked: the "
    "checks give every row a key (the Annotated Transformer's -1e9 passes too, p04), by design",
}


def load(path: Path) -> tuple[dict, object]:
    ns = {"torch": torch, "nn": nn, "F": F, "math": math, "__name__": "heldout"}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    meta = ns["META"]
    return meta, ns[meta.get("name") or meta["exercise"].split(".", 1)[1]]


def _params():
    for path in FILES:
        marks = []
        if path.name in FAILS_ON_MAIN:
            marks = [pytest.mark.xfail(strict=True, reason=FAILS_ON_MAIN[path.name])]
        yield pytest.param(path, id=path.stem, marks=marks)


def test_the_set_is_there():
    wrong = [p for p in FILES if p.name[0] in "acdfhj"]
    public = [p for p in FILES if p.name[0] in "egikpq"]
    assert len(wrong) >= 550 and len(public) >= 100, (len(wrong), len(public))
    count = {c: sum(p.name[0] == c for p in FILES) for c in "fghijk"}
    assert count == {"f": 87, "g": 22, "h": 81, "i": 18, "j": 107, "k": 18}, count
    assert set(FAILS_ON_MAIN) <= {p.name for p in FILES}, "a listed file is gone"


#: file -> its measure (measure_heldout.measure): the bars below read those of test_heldout,
#: which runs first in the same worker (--dist loadfile), instead of checking each file again
MEASURED: dict[str, dict] = {}


def measured(path: Path) -> dict:
    from tests.checks.measure_heldout import measure

    if path.name not in MEASURED:
        MEASURED[path.name] = measure(path)
    return MEASURED[path.name]


@pytest.mark.parametrize("path", list(_params()))
def test_heldout(path):
    row = measured(path)
    if row["correct"]:
        assert row["passed"], f"{row['source']} is correct, rejected: {row['message']}"
    else:
        assert not row["passed"], f"accepted although {row['cause']}"


def test_most_wrong_versions_are_told_their_cause():
    """Issue #18's bar: at least three in four wrong versions get a mistake code and a message
    that matches one of the keywords written with the file (before its messages were seen)."""
    rows = [measured(p) for p in FILES if p.name[0] in "ac"]
    named = [r["file"] for r in rows if r["named"]]
    assert len(named) >= 0.75 * len(rows), sorted({r["file"] for r in rows} - set(named))


def test_set_d_is_told_its_cause():
    """Issue 29's bar on its fresh set: 90 % named (measured 147 of 162 on a loaded machine);
    the test asks 85 %, as a search cut by its time budget on a busy machine names nothing."""
    rows = [measured(p) for p in FILES if p.name[0] == "d"]
    named = [r["file"] for r in rows if r["named"]]
    assert len(named) >= 0.85 * len(rows), sorted({r["file"] for r in rows} - set(named))


def test_set_f_is_told_its_cause():
    """Set F, notebook 07b's 87 wrong versions (and 22 alternates), measured with
    ``python -m tests.checks.measure_heldout FOLDER``: by its tester before 1d9f971, 80 of 87
    rejected, 59 with a mistake code, 55 named; on ec383a4 (the checkpoint checks sharpened
    for it), 81 rejected, 62 coded, 60 named (69 %); 22 of 22 alternates passed each time.
    After the cases and known mistakes added for it (an unsorted vocab, whitespace at both ends
    of a text, ties at temperature 0, logits that overflow exp, a mass before a token equal to
    p, ...): 87 rejected, 87 coded, 87 named, none by the edit search; 22 of 22 passed. The
    test asks 80 of 87 (92 %), a margin for a loaded machine."""
    rows = [measured(p) for p in FILES if p.name[0] == "f"]
    named = [r["file"] for r in rows if r["named"]]
    assert len(named) >= 80, sorted({r["file"] for r in rows} - set(named))


def test_set_h_is_told_its_cause():
    """Set H, the nine ★★★ exercises of notebooks 00-09 (81 wrong versions, 18 alternates),
    written from the student notebooks by a tester who had not read the checks. Measured on
    7547c3c, before any change for it: 81 of 81 rejected, 73 with a mistake code, 68 named
    (84 %); 18 of 18 alternates passed. After the slips it found were added (f703d78, f7ec99d and
    07.beam_search's): see the issue's note. The test asks 76 of 81 (94 %), a margin for a
    loaded machine."""
    rows = [measured(p) for p in FILES if p.name[0] == "h"]
    named = [r["file"] for r in rows if r["named"]]
    assert len(named) >= 76, sorted({r["file"] for r in rows} - set(named))


def test_set_j_is_told_its_cause():
    """Set J, every exercise not in set H (107 wrong versions, 18 alternates), written from the
    student notebooks by a tester who had not read the checks, measured on 9ee0c4a before any
    change for it: 105 of 107 rejected (the two others are FAILS_ON_MAIN's, accepted by design),
    104 with a code, 103 named (96 %), none told a wrong cause (each read); 18 of 18 passed.
    The test asks 96 of 107 (90 %), a margin for a loaded machine."""
    rows = [measured(p) for p in FILES if p.name[0] == "j"]
    named = [r["file"] for r in rows if r["named"]]
    assert len(named) >= 96, sorted({r["file"] for r in rows} - set(named))


#: wrong versions told a mistake in other words than the keywords written with them: each message
#: was read against the version (issue 29's review) and its claim is true of it
OTHER_WORDS = {
    "c07_padding_query_axis.py": "the (B, 1, T, 1) shape; the tokens belong on the key axis",
    "c17_ln_uncentered_var.py": "centred as x - mean, x_hat's spread is off: the variance to use",
    "c26_train_sample_weighted.py": "the value returned is not the mean of the batch losses",
    "d119_bw_alpha_inverted.py": "NaN where the reference has none; the rescale exp(m_old - m_new)",
    "d128_kv_old_cache_returned.py": "the cache is never extended: return the concatenated one",
    "d160_vit_maps_not_advanced.py": "layer 1's map is computed on the embedding: run each block",
    "d161_vit_shared_block.py": "blocks.1's parameters are missing: one block repeated",
    "d25_mha_cross_projects_query.py": "the keys come from `query` (and so do the values)",
    "d79_blk_parallel_sublayers.py": "norm2's input is x, not x + self_attn(...)",
    "j86_blockwise_full_scores.py": "a tensor as large as the whole score matrix was made",
}


def test_no_message_names_a_cause_the_version_does_not_have():
    """Issue 29: a wrong version told a mistake by a hand-written message (a code that is not the
    error model's) is told its own: the message matches a keyword written with the version
    before its messages were seen, or was read and found to say it in other words (OTHER_WORDS).
    The error model's messages (``edit_*``) need no list: the edit they name reproduces the
    version's outputs on every case. A new message that names a cause neither way fails here
    until someone reads it against the version."""
    rows = [measured(p) for p in FILES if p.name[0] in "acdfhj"]
    unread = [
        f"{r['file']}: {r['mistake']}: {r['message'][:160]}"
        for r in rows
        if r["mistake"] and not r["named"] and r["file"] not in OTHER_WORDS
        if not r["mistake"].split("/", 1)[1].startswith("edit_")
    ]
    assert not unread, "\n".join(unread)
