"""No wrong causes (issue 29): a mistake's message names a cause only when the learner's code has
it. Held on mutants of the references (tests/checks/mutation.py makes them, one edit each) that a
review found named by a hand-written mistake: each row is one edit, the code its check must give,
and the words its message must not say (the cause that edit does not have, or a claim that is
false of it). Rows where the old message claimed a wrong cause keep it from coming back; rows
where the code was judged right keep the diagnosis from drifting to another mistake.
"""

import ast

import pytest

from helpers.checks import EXERCISES, check, edits
from tests.checks.mutation_probes import SOURCES

# (exercise, the edit as the mutation tool names it, expected mistake code, words it must not say)
WRONG_BEFORE = [
    # centre = b.sum(...): the points are centred, on a point far from them
    ("00.pairwise_sq_dists", "L3 mean -> sum", "cancellation", "subtracts numbers near"),
    # NaN from log(negative), not from exp overflowing on large inputs
    ("01.softmax", "L4 exp -> log", "not_finite", "exp(1000) overflows"),
    # q.size(-2): the number of queries, which equals T_k in the first failing case only; the
    # cases with T_q != T_k refute "scaled by T_k" (issue 39.2): the wrong scale, said as such
    ("02.scaled_dot_product_attention", "L6 1 -> 2", "wrong_scale", "the number of keys:"),
    # divided by d_k once, not by sqrt(d_k) twice
    ("02.attention_backward", "L14 call math.sqrt(...) dropped", "scaled_twice",
     "the scaling is applied twice:"),
    # self.out_proj = d_model: an attribute, but not a layer
    ("03.GroupedQueryAttention", "L21 call nn.Linear(...) dropped", "projection_names",
     "no attribute"),
    # the default bias=False in the signature; every nn.Linear gets bias=bias
    ("03.MultiHeadAttention", "L9 True -> False", "bias_ignored", "with bias=True"),
    # x[..., 2::2] does not line up with x[..., 0::2]; the angles are right
    ("04.apply_rope", "L9 1 -> 2", "angles_shape", "the angles do not broadcast"),
    # x - pe: the table is right, the positions run from 0
    ("04.PositionalEncoding", "L11 Add -> Sub", "pe_subtracted", "positions run from 0"),
    # `activation == "relu"` flipped: the argument is used, the wrong way round
    ("05.FeedForward", "L11 Eq -> NotEq", "activation_ignored", "argument is ignored (acti"),
    # mean = x: x_hat is 0, the loaded weight is not
    ("05.LayerNorm", "L11 call x.mean(...) dropped", "weight_zeros", "initialized to zeros"),
    # x_hat = 1 everywhere: x_hat is wrong, not the affine step
    ("05.LayerNorm", "L13 Div operands swapped", None, "x_hat = (x - mean) / sqrt(var + eps) is "
     "right"),
    # only grad_weight is a mean; grad_bias is right
    ("05.layer_norm_backward", "L11 sum -> mean", "grad_weight_mean", "grad_bias are means"),
    # permute(3, 0, 1, 2): a permute in the wrong order, not a missing one
    ("09.interpolate_pos_embed", "L11 rows.reshape(1, old_h, old_w, d).permute arguments 1,2 "
     "swapped", "no_permute", "the rows were reshaped straight"),
    # permute(0, 3, 2, 1) after the right reshape
    ("09.interpolate_pos_embed", "L11 rows.reshape(1, old_h, old_w, d).permute arguments 3,4 "
     "swapped", "grid_transposed", "Reshape to (1, h, w, d) (not (1, w, h, d)), interpolate"),
    # NaN from log(...) on ordinary scores: the running max starts at -inf here
    ("08.blockwise_attention", "L19 exp -> log", "not_finite", "start the running max at -inf"),
    # the accumulator never updated: the output is 0, the normalisation is right
    ("08.blockwise_attention", "L22 statement deleted", "all_zero", "the normalisation is wrong"),
    # the default causal=True in the signature; the case leaves the flag out
    ("08.sliding_window_mask", "L2 False -> True", "causal_when_not_asked",
     "although causal=False"),
    # loss.backward() left out: optimizer.step() is there
    ("06.train_one_epoch", "L8 call loss.backward(...) dropped", "no_step",
     "call optimizer.step() after"),
    # mu = x: x_hat is 0, the term is there
    ("05.layer_norm_backward", "L5 call x.mean(...) dropped", "no_xhat_term",
     "x_hat) (g = grad_y * weight) is missing"),
    # norm_first passed where dropout belongs: the argument is passed, to the wrong parameter
    ("06.TransformerEncoder", "L24 TransformerEncoderBlock arguments 4,5 swapped",
     "dropout_p_ignored", "the dropout ignores the `dropout` argument"),
    # while tgt.size(0) < max_len: the loop never runs, the output is (B, 1), not [1, eos_id]
    ("07.beam_search", "L13 1 -> 0", "no_token_decoded", "got [1, 2]"),
    # v = k_proj(value): the values through k_proj; keys only because key = value in the case
    ("03.GroupedQueryAttention", "L39 self.v_proj -> self.k_proj", None,
     "the weights multiply the keys:"),
    # torch.stack(..., dim=1): the [evens, odds] layout on a 2-D x only, not a torch.cat
    ("04.apply_rope", "L10 USub removed", "not_interleaved_back",
     "odd features] (torch.cat):"),
    # g.mul_(max_norm * total): the same factor as total / max_norm only when max_norm = 1
    ("07b.clip_grad_norm", "L9 Div -> Mult", "multiplied", "scaled by total / max_norm"),
    # a returned norm of sqrt(numel): one number is some factor of any other
    ("07b.clip_grad_norm", "L6 Mult -> Div", None, "a constant factor is wrong"),
    # per-gradient mean squares: not a constant factor of the norm
    ("07b.clip_grad_norm", "L6 sum -> mean #2", None, "a constant factor is wrong"),
    # t = (step - warmup) * (total - warmup): cos of an even multiple of pi, no floor division
    ("07b.lr_at", "L8 Div -> Mult", None, "t = (step - warmup) // (total - warmup) is floor "
     "(integer) division: t is"),
    # t = (total - warmup) / (step - warmup) = 3 at step 40: cos(3 pi) = -1, min_lr
    ("07b.lr_at", "L8 Div operands swapped", "decay_at_min", "the rate rises"),
    # (min_lr - max_lr): the rate goes below min_lr, named by the edit search
    ("07b.lr_at", "L9 Sub operands swapped", None, "the rate rises"),
    # (per_position * real).sum() // real.sum() = 3.0: not the mean of sequence means (3.003)
    ("06.masked_cross_entropy", "L9 Div -> FloorDiv", None, "mean of each sequence's mean"),
    # x_hat = (mean - x) / ...: not "x_hat is right", its sign is flipped
    ("05.LayerNorm", "L13 Sub operands swapped", "negated", "is right"),
    # x_hat = sqrt(var + eps) / (x - mean): the signs of x - mean, not "x - mean is right"
    ("05.LayerNorm", "L13 Div operands swapped", "wrong_normalization", "is right"),
    # max_lr * (step + 2) / (warmup + 1): equal to a warm-up from min_lr at step 0 only
    ("07b.lr_at", "L5 1 -> 2 #2", None, "starts from min_lr"),
]  # fmt: skip

RIGHT = [
    ("01.softmax", "L3 Sub -> Add", "no_shift", ""),
    ("01.softmax", "L3 amax -> amin", "shift_not_max", ""),
    ("01.softmax", "L3 keyword dim= dropped", "global_max", ""),
    ("01.softmax_backward", "L5 call (grad_y * y).sum(...) dropped", "diagonal_only", ""),
    # the default dim=0: the message says the case left dim at its default
    ("01.softmax_backward", "L1 1 -> 0", "dim_ignored", ""),
    ("04.apply_rope", "L10 1 -> 2", "not_interleaved_back", ""),  # stack(dim=-2): always cat's
    ("07b.lr_at", "L9 Add -> Sub #2", "rises", ""),
    ("02.scaled_dot_product_attention", "L9 inf -> 0", "blocked_scores_zero", ""),
    ("02.scaled_dot_product_attention", "L9 Invert removed", "mask_inverted", ""),
    ("03.MultiHeadAttention", "L28 call x.transpose(...) dropped", "merge_without_transpose", ""),
    ("05.TransformerEncoderBlock", "L34 self.norm2 -> self.norm1", "norm1_reused", ""),
    ("06.masked_cross_entropy", "L6 mean -> sum", "smoothing_sum", ""),
    ("07.TransformerDecoderBlock", "L43 Add -> Sub", "residual_subtracted", ""),
    ("07.beam_search", "L10 inf -> 0", "same_as_greedy", ""),
    ("07.beam_search", "L14 1 -> 0", "extend_finished", ""),  # done never true
    ("07.beam_search", "L22 statement deleted", "extend_finished", ""),
    (
        "07.beam_search",
        "L17 call model(src_k, tgt)[:, -1].log_softmax(...) dropped",
        "logits_summed",
        "",
    ),  # fmt: skip
    ("07.beam_search", "L13 Lt -> LtE", "longer_than_max_len", ""),
    # finished beams take any token at no cost: the symptom is named, not a cause
    ("07.beam_search", "L20 inf -> 0", "tokens_after_eos", ""),
    # token = index // V (the parent's number), parent right: not the swapped decode
    ("07.beam_search", "L26 Mod -> FloorDiv", "tokens_after_eos", "the wrong way round"),
    # parent = rows - index // V: other rows' beams, not row 0's
    ("07.beam_search", "L25 Add -> Sub", "not_beam_search", "row 0's beams"),
    ("07.beam_search", "L21 0.0 -> 1.0", "not_beam_search", "length"),
]


def mutant(exercise: str, site: str):
    source, ns = edits.reference_source(EXERCISES[exercise])
    tree = edits.strip_annotations(ast.parse(source))
    found = [e for e in edits.edits(tree) if e.tag == site]
    assert len(found) == 1, f"{exercise}: no single edit {site!r} (the reference changed?)"
    return edits.build(edits.mutant_source(tree, found[0]), ns, SOURCES[exercise][2], site)


@pytest.mark.parametrize(
    "exercise, site, code, wrong_words",
    WRONG_BEFORE + RIGHT,
    ids=[f"{r[0]}:{r[1]}" for r in WRONG_BEFORE + RIGHT],
)
def test_the_message_claims_no_cause_the_edit_lacks(exercise, site, code, wrong_words):
    r = check(exercise, mutant(exercise, site), quiet=True)
    assert not r.passed
    text = "\n".join(r.messages)
    if code is not None:
        assert r.mistake == f"{exercise}/{code}", (r.mistake, text)
    assert not wrong_words or wrong_words not in text, text
