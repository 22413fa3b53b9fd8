"""A class of 30 for the similarity report: honest solutions of notebook 02 built from
independent choices (how to transpose, scale, mask, normalise; names; comments; helper
variables), no two alike, and two planted cases: student 07 copies student 03 (other names,
comments and layout), student 12 copies the course's reference (the same disguises)."""

from __future__ import annotations

import itertools
import random
import re

SDPA, CAUSAL, PADDING = "02.scaled_dot_product_attention", "02.causal_mask", "02.padding_mask"
HEAD = (
    "def scaled_dot_product_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,\n"
    "                                 mask: torch.Tensor | None = None)"
    " -> tuple[torch.Tensor, torch.Tensor]:\n"
)
CAUSAL_HEAD = (
    "def causal_mask(T: int, device: torch.device | str | None = None) -> torch.Tensor:\n    "
)
PADDING_HEAD = "def padding_mask(tokens: torch.Tensor, pad_id: int) -> torch.Tensor:\n    "
TRANSPOSE = [
    "{k}.transpose(-2, -1)",
    "{k}.mT",
    "{k}.transpose(-1, -2)",
    "torch.swapaxes({k}, -1, -2)",
]
SCALE = [
    "{s} = {q} @ {kt} / math.sqrt({q}.size(-1))",
    "{s} = torch.matmul({q}, {kt}) * {q}.shape[-1] ** -0.5",
    "{d} = {q}.shape[-1]\n    {s} = ({q} @ {kt}) / {d} ** 0.5",
    "{s} = torch.einsum('...id,...jd->...ij', {q}, {k}) / math.sqrt({q}.size(-1))",
]
MASK = [
    "if mask is not None:\n        {s} = {s}.masked_fill(~mask, float('-inf'))",
    "if mask is not None:\n        {s} = torch.where(mask, {s}, torch.full_like({s}, -1e9))",
    "if mask is not None:\n        {s} = {s}.masked_fill(mask == 0, -torch.inf)",
]
SOFTMAX = [
    "{w} = torch.softmax({s}, dim=-1)",
    "{w} = {s}.softmax(-1)",
    "{e} = ({s} - {s}.amax(-1, keepdim=True)).exp()\n    {w} = {e} / {e}.sum(-1, keepdim=True)",
]
OUT = ["return {w} @ v, {w}", "{o} = torch.matmul({w}, v)\n    return {o}, {w}"]
NAMES = [
    {
        "q": "q",
        "k": "k",
        "s": "scores",
        "w": "weights",
        "d": "d_k",
        "e": "ex",
        "o": "out",
        "kt": "kt",
    },
    {
        "q": "q",
        "k": "k",
        "s": "att",
        "w": "attn",
        "d": "dim",
        "e": "exp_s",
        "o": "result",
        "kt": "k_t",
    },
    {"q": "q", "k": "k", "s": "logits", "w": "p", "d": "d", "e": "z", "o": "y", "kt": "keys_t"},
]
CAUSALS = [
    "return torch.ones(T, T, dtype=torch.bool, device=device).tril()",
    "return torch.tril(torch.ones(T, T, device=device)).bool()",
    "i = torch.arange(T, device=device)\n    return i[:, None] >= i[None, :]",
]
PADDINGS = [
    "return (tokens != pad_id)[:, None, None, :]",
    "return tokens.ne(pad_id).unsqueeze(1).unsqueeze(2)",
    "m = tokens != pad_id\n    return m.view(m.size(0), 1, 1, m.size(1))",
]


def sdpa(t: int, sc: int, ma: int, so: int, out: int, names: dict, comment: str, temp: bool) -> str:
    kt = TRANSPOSE[t].format(**names)
    body = [SCALE[sc].format(**{**names, "kt": kt})]
    if temp and "einsum" not in body[0]:  # a helper variable for kᵀ
        body = [f"{names['kt']} = {kt}", SCALE[sc].format(**{**names, "kt": names["kt"]})]
    body += [MASK[ma].format(**names), SOFTMAX[so].format(**names), OUT[out].format(**names)]
    return HEAD + f"    # {comment}\n    " + "\n    ".join(body) + "\n"


def disguise(code: str, names: dict, other: dict) -> str:
    """Another student's names, another comment, other blank lines and spacing."""
    for key in ("kt", "s", "w", "d", "e", "o"):
        code = re.sub(rf"\b{names[key]}\b(?!\()", other[key], code)
    code = code.replace("    # ", "    # my own work: ").replace("\n    ", "\n\n    ")
    return code.replace(" @ ", "@").replace(", dim=-1", ",dim=-1")


def reference_sdpa() -> str:
    from helpers.grading.judging.similarity import course_cells

    return course_cells("02")[0][SDPA]


def codes(seed: int = 0) -> dict[str, dict[str, str]]:
    """label -> {exercise: code}, with students 07 (copies 03) and 12 (the reference)."""
    rng = random.Random(seed)
    combos = list(itertools.product(range(4), range(4), range(3), range(3), range(2)))
    combos = [c for c in combos if not (c[1] == 3 and c[0])]  # einsum: no transpose to vary
    rng.shuffle(combos)
    out = {}
    for i in range(30):
        names = NAMES[i % 3]
        comment = rng.choice(
            ["scores, mask, softmax", "attention", "step by step", "as in the text"]
        )
        out[f"student{i:02d}/02_attention.ipynb"] = {
            SDPA: sdpa(*combos[i], names, comment, temp=rng.random() < 0.5),
            CAUSAL: CAUSAL_HEAD + CAUSALS[i % 3] + "\n",
            PADDING: PADDING_HEAD + PADDINGS[(i // 3) % 3] + "\n",
        }
    src = out["student03/02_attention.ipynb"]
    out["student07/02_attention.ipynb"] = {
        **src,
        SDPA: disguise(src[SDPA], NAMES[0], NAMES[1]),
    }
    ref = reference_sdpa()
    ref_names = NAMES[0]
    out["student12/02_attention.ipynb"][SDPA] = disguise(ref, ref_names, NAMES[2])
    return out


COPIED_PAIR = ("student03/02_attention.ipynb", "student07/02_attention.ipynb")
COPIED_REFERENCE = "student12/02_attention.ipynb"
