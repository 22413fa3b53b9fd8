"""Notebook 06's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

CATALOGUE = {
    "06.TransformerEncoder": {  # edits of TransformerEncoder.encoder_ref64
        "embedding_not_scaled": {
            "message": "the embedding is not scaled: multiply it by sqrt(d_model) before adding "
            "the positional encoding.",
            "wrong": "[tokens] * math.sqrt(d) -> [tokens]",
        },
        "embedding_scaled_by_d_model": {
            "message": "the embedding is multiplied by d_model: multiply it by sqrt(d_model), "
            "math.sqrt(self.d_model).",
            "wrong": "math.sqrt(d) -> d",
        },
        "embedding_divided": {
            "message": "the embedding is divided by sqrt(d_model): multiply by it.",
            "wrong": "* math.sqrt(d) -> / math.sqrt(d)",
        },
        "positions_scaled": {
            "message": "the positional encoding is scaled too: scale the embedding by "
            "sqrt(d_model) first, then add the positions, pos_encoding(embedding(tokens) * "
            "sqrt(d_model)).",
            "wrong": (
                "[tokens] * math.sqrt(d) -> [tokens]",
                "x + table -> (x + table) * math.sqrt(d)",
            ),
        },
        "no_positional_encoding": {
            "message": "no positional information: pass the scaled embedding through "
            "self.pos_encoding.",
            "wrong": "x + table -> x",
        },
        "no_final_norm": {
            "message": "the final norm is missing: return self.norm(x) after the last block "
            "(pre-LN blocks leave the residual stream unnormalized).",
            "wrong": "return layer_norm64(x, -> return x  # no final norm: layer_norm64(x,",
        },
        "one_block_repeated": {
            "message": "every depth runs the same block: build num_layers separate blocks, "
            "nn.ModuleList([Block(...) for _ in range(num_layers)]), not [block] * num_layers.",
            "wrong": "for layer in layers: -> for layer in layers[-1:] * len(layers):",
        },
        "blocks_not_run": {
            "message": "the blocks do not run: feed x through each of them, x = layer(x, mask).",
            "wrong": "for layer in layers: -> for layer in []:",
        },
        "only_first_block": {
            "message": "only the first block runs: loop over all of self.layers.",
            "wrong": "for layer in layers: -> for layer in layers[:1]:",
        },
        "only_last_block": {
            "message": "only the last block's output is used: feed each block's output to the "
            "next one, x = layer(x, mask).",
            "wrong": "for layer in layers: -> for layer in layers[-1:]:",
        },
        "mask_ignored": {
            "message": "the mask is ignored: pass it to every block, x = layer(x, mask).",
            "wrong": "mask=mask) -> mask=None)",
        },
        "mask_inverted": {
            "message": "the mask is inverted: True means may attend.",
            "wrong": "mask=mask) -> mask=None if mask is None else ~mask)",
        },
        "post_ln_no_final_norm": {
            "message": "the blocks are post-LN whatever norm_first says, and there is no final "
            "norm (d2l's encoder): pass norm_first to every block, TransformerEncoderBlock(..., "
            "norm_first=norm_first), and return self.norm(x).",
            "wrong": (
                "norm_first=norm_first -> norm_first=False",
                "return layer_norm64(x, -> return x  # no final norm: layer_norm64(x,",
            ),
        },
        "norm_first_ignored": {
            "message": "norm_first is ignored: pass it to every block, "
            "TransformerEncoderBlock(..., norm_first=norm_first).",
            "wrong": "norm_first=norm_first -> norm_first=True",
        },
    },
    "06.masked_cross_entropy": {  # edits of masked_cross_entropy.mce64
        "pad_not_ignored": {
            "message": "the padding positions count in the loss: leave out every position whose "
            "target is pad_id (a mask targets != pad_id), from the sum and from the count.",
            "wrong": "targets != pad_id -> torch.ones_like(targets, dtype=torch.bool)",
        },
        "pad_in_mean": {
            "message": "the padding positions are left out of the sum but counted in the mean: "
            "divide by the number of real tokens, (targets != pad_id).sum(), not by "
            "targets.numel(). Otherwise a batch with more padding gets a smaller loss, and "
            "smaller gradients.",
            "wrong": "/ real.sum() -> / targets.numel()",
        },
        "mean_of_sequence_means": {
            "message": "the loss is the mean of each sequence's mean: average over the real "
            "tokens of the whole batch at once (one sum, one count). Per-sequence means give a "
            "token of a short sequence more weight than a token of a long one.",
            "wrong": "(per_token * real).sum() / real.sum() -> "
            "((per_token * real).reshape(-1, targets.shape[-1]).sum(-1) "
            "/ real.reshape(-1, targets.shape[-1]).sum(-1)).mean()",
        },
        "sum_not_mean": {
            "message": "the loss is the sum over the real tokens: divide by their number, "
            "(targets != pad_id).sum(), so that the loss does not grow with the batch.",
            "wrong": " / real.sum() -> ",
        },
        "pad_id_hardcoded": {
            "message": "the padding id is taken to be {guess} (the case passes pad_id="
            "{pad_id}): use the argument, targets != pad_id.",
            "wrong": "targets != pad_id -> targets != 0",
        },
        "smoothing_ignored": {
            "message": "label_smoothing is ignored (the case passes {eps:g}): the target "
            "distribution is (1 - eps) on the target plus eps / V on every class.",
            "wrong": "(1 - eps) * nll + eps * smooth -> nll",
        },
        "smoothing_others": {
            "message": "the smoothing mass is spread over the V - 1 classes other than the "
            "target: F.cross_entropy spreads eps / V over all V classes, the target included "
            "(loss = (1 - eps) * nll + eps * mean over the classes of -log p).",
            "wrong": "-logp.mean(-1) -> (-logp.sum(-1) - nll) / (logp.shape[-1] - 1)",
        },
        "smoothing_skips_target": {
            "message": "the uniform part leaves out the target class: -log p is summed over the "
            "other V - 1 classes only (then divided by V), so the target's own eps / V share is "
            "missing. F.cross_entropy spreads eps / V over all V classes, the target included: "
            "eps * (-log_probs).mean(-1), the mean over every class.",
            "wrong": "-logp.mean(-1) -> (-logp.sum(-1) - nll) / logp.shape[-1]",
        },
        "smoothing_no_pad": {
            "message": "the smoothing mass is spread over the classes other than the padding "
            "class: F.cross_entropy spreads eps / V over all V classes, pad_id included (what "
            "the model puts on pad_id is pushed down by the softmax anyway).",
            "wrong": "-logp.mean(-1) -> (-logp.sum(-1) + logp[..., pad_id]) / (logp.shape[-1] - 1)",
        },
        "smoothing_sum": {
            "message": "the uniform part is eps times the sum of -log p over the classes: it is "
            "the mean (eps / V on each class), eps * (-log_probs).mean(-1).",
            "wrong": "-logp.mean(-1) -> -logp.sum(-1)",
        },
        "smoothing_no_uniform": {
            "message": "the uniform part of the smoothed target is missing: loss = (1 - eps) * "
            "nll + eps * mean over the classes of -log p.",
            "wrong": "(1 - eps) * nll + eps * smooth -> (1 - eps) * nll",
        },
        "smoothing_full_target": {
            "message": "the target keeps its full weight 1 and the uniform part is added on "
            "top: the smoothed target is (1 - eps) on the target plus eps / V everywhere, so "
            "the nll is weighted by (1 - eps).",
            "wrong": "(1 - eps) * nll -> nll",
        },
        "wrong_dim": {
            "message": "the log-softmax runs over the wrong dim: the classes are the last dim of "
            "the logits, log_softmax(dim=-1).",
            "wrong": "log_softmax(-1) -> log_softmax(1)",
        },
        "gather_dim": {
            "message": "the target's log-probability is picked along dim 1, gather(1, "
            "targets.unsqueeze(1)), which is the class dim only for flat (N, V) logits: with "
            "(B, T, V) logits it picks log_probs[b, targets[b, t], t], a position and a class "
            "mixed up. Pick along the last dim, whatever the leading dims: log_probs.gather(-1, "
            "targets.unsqueeze(-1)).squeeze(-1).",
            "wrong": "gather(-1, targets.unsqueeze(-1)).squeeze(-1) -> "
            "gather(1, targets.unsqueeze(1)).squeeze(1)",
        },
    },
}
