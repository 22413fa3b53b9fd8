"""06.trained_encoder: the trained sorting model reaches token accuracy >= 0.99 (its check)."""

from __future__ import annotations

import torch.nn.functional as F

from ...framework import register
from ...trained import TrainedModelCheck, divisors


@register
class TrainedEncoderCheck(TrainedModelCheck):
    """The sorting model trained in the notebook (the variable ``model``), judged on fresh
    sequences of 8 digits from ``helpers.data.sort_digits_batch``: token accuracy >= 0.99, the
    notebook's own target. The grader draws its sequences from its secret seed."""

    id = "06.trained_encoder"
    title = "the trained sorting model reaches token accuracy >= 0.99"
    points = 2.0
    grade_target = "model"
    threshold = 0.99
    contract = {"": "TokenClassifier", "encoder": "TransformerEncoder", "head": ""}
    count, seq_len = 1000, 8

    def held_out(self, gen):
        from helpers.data import sort_digits_batch  # judging side only (not in the grader's kernel)

        x, y = sort_digits_batch(self.count, self.seq_len, gen)
        return f"{self.count} fresh sequences of {self.seq_len} digits", x, y

    def accuracy_label(self, targets):
        return f"the token accuracy on {self.count} fresh sequences"

    def weight_runs(self, state, tokens):
        """The float64 encoder (encoder64) with the learner's weights and its linear head, for
        every number of heads that divides d_model and both norm_first (the weights show
        neither), then the encoder's known mistakes."""
        from ...references import sinusoidal64, substate
        from .reference import encoder64, encoder_variants

        enc, (w, b) = substate(state, "encoder."), (state["head.weight"], state["head.bias"])
        vocab, d = enc["embedding.weight"].shape
        table = enc.get("pos_encoding.pe")  # the learner's own table, as the model used it
        T = tokens.shape[-1]
        if table is None or table.numel() < T * d or table.numel() % d:
            table = sinusoidal64(T, d).float()
        enc["pos_encoding.pe"] = table.reshape(-1, d)
        layers = len({k.split(".")[1] for k in enc if k.startswith("layers.")})
        d_ff = enc["layers.0.ffn.linear1.weight"].shape[0]
        settings = [
            ({"vocab_size": vocab, "d_model": d, "num_heads": H, "num_layers": layers,
              "d_ff": d_ff}, norm_first)
            for norm_first in (True, False) for H in divisors(d)
        ]  # fmt: skip

        def head(encode):
            return lambda: F.linear(encode(), w.double(), b.double())

        yield [
            head(lambda init=init, nf=norm_first: encoder64(init, enc, tokens, norm_first=nf))
            for init, norm_first in settings
        ]
        yield [
            head(variant)
            for init, norm_first in settings
            for variant, _, _ in encoder_variants(init, enc, tokens, None, norm_first)
        ]

    def other_targets(self, inputs):
        return [
            (inputs, "the model copies its input: it was trained with the inputs as targets, "
             "the sorted sequence is the target.", "trained_on_inputs"),
            (inputs.sort(-1, descending=True).values, "the model sorts in descending order: "
             "the targets are the digits in ascending order.", "sorted_descending"),
        ]  # fmt: skip
