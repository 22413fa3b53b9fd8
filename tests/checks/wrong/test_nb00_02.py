"""Wrong versions of the exercises of notebooks 00-02 (issue 12 catalogue)."""

import math

import pytest
import torch

from ._common import make_tests, right, wrong

# one wrong version uses x.T on a batch on purpose
pytestmark = pytest.mark.filterwarnings("ignore:The use of `x.T`:UserWarning")

# ----------------------------------------------------------------------------- 00.relu


def relu_python_max(x):
    return max(x, 0)  # Python's built-in max


def relu_inplace(x):
    x[x < 0] = 0
    return x


RELU = [
    wrong("00.relu", "abs", lambda x: x.abs(), "negative"),
    wrong("00.relu", "negative_part", lambda x: torch.where(x < 0, x, 0.0), "negative"),
    wrong(
        "00.relu",
        "leaky",
        lambda x: torch.where(x > 0, x, 0.01 * x),
        "negative",
    ),
    wrong(
        "00.relu",
        "step",
        lambda x: (x > 0).to(x.dtype),
        "positive",
    ),
    wrong(
        "00.relu",
        "in_place",
        relu_inplace,
        "in place",
    ),
    wrong("00.relu", "float32", lambda x: torch.where(x > 0, x, 0.0).float(), "dtype"),
    wrong(
        "00.relu",
        "python_max",
        relu_python_max,
        "python's max",
    ),
]
RELU_OK = [
    right("00.relu", "mask_multiply", lambda x: x * (x > 0)),
]

# ----------------------------------------------------------------------------- 01.softmax


def softmax_with(shift="amax", dim_used=None, keepdim=True, log=False, cast=None):
    def softmax(x, dim=-1):
        d = dim if dim_used is None else dim_used
        if shift == "amax":
            x = x - x.amax(dim=d, keepdim=True)
        elif shift == "global":
            x = x - x.max()
        elif shift == "mean":
            x = x - x.mean(dim=d, keepdim=True)
        e = x.exp()
        s = e.sum(dim=d, keepdim=keepdim)
        out = (x - s.log()) if log else e / s
        return out.to(cast) if cast else out

    return softmax


SOFTMAX = [
    wrong("01.softmax", "no_shift", softmax_with(shift=None), "max"),
    wrong(
        "01.softmax",
        "mean_shift",
        softmax_with(shift="mean"),
        "max",
    ),
    wrong("01.softmax", "global_max", softmax_with(shift="global"), "dim"),
    wrong("01.softmax", "ignores_dim", softmax_with(dim_used=-1), "dim"),
    wrong(
        "01.softmax",
        "sum_without_keepdim",
        softmax_with(keepdim=False),
        "keepdim",
    ),
    wrong("01.softmax", "log_softmax", softmax_with(log=True), "log"),
    wrong("01.softmax", "float32", softmax_with(cast=torch.float32), "dtype"),
]
SOFTMAX_OK = [
    right(
        "01.softmax",
        "max_values",
        lambda x, dim=-1: (
            (x - x.max(dim, keepdim=True).values).exp()
            / (x - x.max(dim, keepdim=True).values).exp().sum(dim, keepdim=True)
        ),
    ),
]

# ----------------------------------------------------------------------- 01.dot_product_attention


def dpa(transpose="last_two", scale=False, dim=-1, swap=False, weights_first_t=False):
    def dot_product_attention(x):
        xt = x.T if transpose == "all" else x.transpose(-2, -1)
        scores = x @ xt
        if scale:
            scores = scores / math.sqrt(x.size(-1))
        w = scores.softmax(dim)
        z = (w.transpose(-2, -1) if weights_first_t else w) @ x
        return (w, z) if swap else (z, w)

    return dot_product_attention


DPA = [
    wrong(
        "01.dot_product_attention",
        "x.T",
        dpa(transpose="all"),
        "transpose",
    ),
    wrong("01.dot_product_attention", "scaled", dpa(scale=True), "scal"),
    wrong("01.dot_product_attention", "softmax_dim_-2", dpa(dim=-2), "dim"),
    wrong("01.dot_product_attention", "swapped_outputs", dpa(swap=True), "order"),
    wrong("01.dot_product_attention", "weights_transposed", dpa(weights_first_t=True), "row"),
    wrong("01.dot_product_attention", "z_only", lambda x: dpa()(x)[0], "tuple"),
]
DPA_OK = [
    right(
        "01.dot_product_attention",
        "einsum",
        lambda x: (
            torch.einsum(
                "...ij,...jd->...id", torch.einsum("...id,...jd->...ij", x, x).softmax(-1), x
            ),
            torch.einsum("...id,...jd->...ij", x, x).softmax(-1),
        ),
    ),
]

# ---------------------------------------------------------------- 02.scaled_dot_product_attention


def sdpa(scale="sqrt_dk", mask_mode="fill_-inf", dim=-1, only_out=False, transpose="last_two"):
    def scaled_dot_product_attention(q, k, v, mask=None):
        kt = k.mT if transpose == "last_two" else k.T
        scores = q @ kt
        d = {
            "sqrt_dk": math.sqrt(q.size(-1)),
            "sqrt_dv": math.sqrt(v.size(-1)),
            "dk": q.size(-1),
            "none": 1.0,
        }[scale]
        scores = scores / d
        if mask is not None and mask_mode == "fill_-inf":
            scores = scores.masked_fill(~mask, float("-inf"))
        elif mask is not None and mask_mode == "fill_-1e9":
            scores = scores.masked_fill(~mask, -1e9)
        elif mask is not None and mask_mode == "multiply":
            scores = scores * mask
        elif mask is not None and mask_mode == "fill_0":
            scores = scores.masked_fill(~mask, 0.0)
        elif mask is not None and mask_mode == "inverted":
            scores = scores.masked_fill(mask, float("-inf"))
        elif mask is not None and mask_mode == "where":
            scores = torch.where(mask, scores, float("-inf"))
        w = scores.softmax(dim)
        if mask is not None and mask_mode == "after_softmax":
            w = w * mask
        out = w @ v
        return out if only_out else (out, w)

    return scaled_dot_product_attention


def sdpa_einsum(q, k, v, mask=None):
    """Correct, written differently: einsum and torch.where."""
    scores = torch.einsum("...qd,...kd->...qk", q, k) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = torch.where(mask, scores, float("-inf"))
    weights = scores.softmax(-1)
    return torch.einsum("...qk,...kd->...qd", weights, v), weights


SDPA_ID = "02.scaled_dot_product_attention"
SDPA = [
    wrong(SDPA_ID, "no_scale", sdpa(scale="none"), "sqrt"),
    wrong(SDPA_ID, "scale_by_d_v", sdpa(scale="sqrt_dv"), "d_k"),
    wrong(SDPA_ID, "scale_by_d_k_not_sqrt", sdpa(scale="dk"), "sqrt"),
    wrong(
        SDPA_ID,
        "mask_multiplied",
        sdpa(mask_mode="multiply"),
        "multipl",
    ),
    wrong(
        SDPA_ID,
        "blocked_filled_with_0",
        sdpa(mask_mode="fill_0"),
        "-inf",
    ),
    wrong(SDPA_ID, "mask_inverted", sdpa(mask_mode="inverted"), "inverted"),
    wrong(SDPA_ID, "mask_after_softmax", sdpa(mask_mode="after_softmax"), "after softmax"),
    wrong(SDPA_ID, "softmax_over_queries", sdpa(dim=-2), "keys"),
    wrong(
        SDPA_ID,
        "k.T",
        sdpa(transpose="all"),
        "transpose",
    ),
    wrong(SDPA_ID, "returns_out_only", sdpa(only_out=True), "tuple"),
]
SDPA_OK = [
    right(SDPA_ID, "fill_-1e9", sdpa(mask_mode="fill_-1e9")),
    right(SDPA_ID, "torch.where", sdpa(mask_mode="where")),
    right(SDPA_ID, "einsum", sdpa_einsum),
]

# ----------------------------------------------------------------------------- 02.causal_mask

CM = "02.causal_mask"
CAUSAL = [
    wrong(
        CM,
        "triu",
        lambda T, device=None: torch.ones(T, T, dtype=torch.bool, device=device).triu(),
        "future",
    ),
    wrong(
        CM,
        "no_diagonal",
        lambda T, device=None: torch.ones(T, T, dtype=torch.bool, device=device).tril(-1),
        "diagonal",
    ),
    wrong(CM, "float", lambda T, device=None: torch.ones(T, T, device=device).tril(), "bool"),
    wrong(
        CM,
        "inverted",
        lambda T, device=None: ~torch.ones(T, T, dtype=torch.bool, device=device).tril(),
        "true = may attend",
    ),
    wrong(
        CM,
        "additive_-inf",
        lambda T, device=None: torch.full((T, T), float("-inf"), device=device).triu(1),
        "bool",
    ),
    wrong(
        CM,
        "ignores_device",
        lambda T, device=None: torch.ones(T, T, dtype=torch.bool).tril(),
        "device",
    ),
]
CAUSAL_OK = [
    right(
        CM,
        "arange_compare",
        lambda T, device=None: (
            torch.arange(T, device=device)[:, None] >= torch.arange(T, device=device)
        ),
    ),
]

# ----------------------------------------------------------------------------- 02.padding_mask

PM = "02.padding_mask"
PADDING = [
    wrong(PM, "inverted", lambda tokens, pad_id: (tokens == pad_id)[:, None, None, :], "pad"),
    wrong(PM, "shape_B_T", lambda tokens, pad_id: tokens != pad_id, "expected (2, 1, 1, 5)"),
    wrong(
        PM,
        "shape_B_1_T",
        lambda tokens, pad_id: (tokens != pad_id)[:, None, :],
        "expected (2, 1, 1, 5)",
    ),
    wrong(PM, "query_axis", lambda tokens, pad_id: (tokens != pad_id)[:, None, :, None], "key"),
    wrong(PM, "float", lambda tokens, pad_id: (tokens != pad_id)[:, None, None, :].float(), "bool"),
    wrong(
        PM, "pad_id_0_hard_coded", lambda tokens, pad_id: (tokens != 0)[:, None, None, :], "pad_id"
    ),
]
PADDING_OK = [
    right(PM, "unsqueeze", lambda tokens, pad_id: tokens.ne(pad_id).unsqueeze(1).unsqueeze(2)),
    right(PM, "view", lambda tokens, pad_id: (tokens != pad_id).view(tokens.size(0), 1, 1, -1)),
]

# ------------------------------------------------------------- beyond the catalogue (issue 12)


def relu_where_1d_loop(x):
    """Correct, written differently: torch.maximum."""
    return torch.maximum(x, torch.zeros_like(x))


def relu_if(x):
    return x if x > 0 else 0 * x  # Python's `if` on a whole tensor


def softmax_sum_all(x, dim=-1):
    e = (x - x.amax(dim=dim, keepdim=True)).exp()
    return e / e.sum()


def softmax_var_max(x, dim=-1):
    """Correct, written differently: exp(x - logsumexp) by hand."""
    m = x.amax(dim=dim, keepdim=True)
    return torch.exp(x - m - (x - m).exp().sum(dim=dim, keepdim=True).log())


def dpa_no_softmax(x):
    scores = x @ x.transpose(-2, -1)
    return scores @ x, scores


def dpa_bmm_2d(x):
    """Correct, written differently: matmul with mT and F.softmax."""
    w = torch.nn.functional.softmax(x @ x.mT, dim=-1)
    return w @ x, w


def sdpa_in_place_scale(q, k, v, mask=None):
    q /= math.sqrt(q.size(-1))  # changes the caller's q
    scores = q @ k.mT
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    w = scores.softmax(-1)
    return w @ v, w


def sdpa_scaled_after_softmax(q, k, v, mask=None):
    scores = q @ k.mT
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    w = scores.softmax(-1) / math.sqrt(q.size(-1))
    return w @ v, w


def sdpa_mask_added(q, k, v, mask=None):
    scores = q @ k.mT / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores + mask
    w = scores.softmax(-1)
    return w @ v, w


def sdpa_scale_multiplied(q, k, v, mask=None):
    scores = q @ k.mT * math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    w = scores.softmax(-1)
    return w @ v, w


def sdpa_additive_float_mask(q, k, v, mask=None):
    """Correct, written differently: the boolean mask turned into an additive float mask."""
    scores = q @ k.mT / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores + torch.zeros_like(scores).masked_fill(~mask, float("-inf"))
    w = scores.softmax(-1)
    return w @ v, w


def causal_loop(T, device=None):
    """Correct, written differently: a loop, on the device."""
    m = torch.zeros(T, T, dtype=torch.bool, device=device)
    for i in range(T):
        m[i, : i + 1] = True
    return m


def causal_to_device_end(T, device=None):
    """Correct: made on the CPU, moved at the end."""
    return torch.ones(T, T).tril().bool().to(device)


def causal_ignores_device_via_arange(T, device=None):
    i = torch.arange(T)
    return i[:, None] >= i[None, :]


MORE = [
    wrong("00.relu", "python_if", relu_if, "element-wise"),
    wrong("01.softmax", "sum_over_everything", softmax_sum_all, "sum"),
    wrong("01.dot_product_attention", "no_softmax", dpa_no_softmax, "softmax"),
    wrong(SDPA_ID, "scales_q_in_place", sdpa_in_place_scale, "in place"),
    wrong(SDPA_ID, "scaled_after_softmax", sdpa_scaled_after_softmax, "after softmax"),
    wrong(SDPA_ID, "mask_added", sdpa_mask_added, "added"),
    wrong(SDPA_ID, "scale_multiplied", sdpa_scale_multiplied, "multiplied by sqrt(d_k)"),
    wrong(CM, "arange_without_device", causal_ignores_device_via_arange, "device"),
    wrong(
        PM,
        "int_mask",
        lambda tokens, pad_id: (tokens != pad_id)[:, None, None, :].long(),
        "bool",
    ),
    wrong(
        PM,
        "greater_than_pad",
        lambda tokens, pad_id: (tokens > pad_id)[:, None, None, :],
        "the mask is tokens > pad_id",
    ),
]
MORE_OK = [
    right("00.relu", "maximum", relu_where_1d_loop),
    right("01.softmax", "exp_minus_logsumexp_by_hand", softmax_var_max),
    right("01.dot_product_attention", "mT_F.softmax", dpa_bmm_2d),
    right(SDPA_ID, "additive_float_mask", sdpa_additive_float_mask),
    right(CM, "loop_on_device", causal_loop),
    right(CM, "moved_at_the_end", causal_to_device_end),
]

test_wrong_version_fails_with_named_message, test_correct_variant_passes = make_tests(
    RELU + SOFTMAX + DPA + SDPA + CAUSAL + PADDING + MORE,
    RELU_OK + SOFTMAX_OK + DPA_OK + SDPA_OK + CAUSAL_OK + PADDING_OK + MORE_OK,
)
