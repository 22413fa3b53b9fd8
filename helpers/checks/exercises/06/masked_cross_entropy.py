"""Notebook 06, part 3: the token loss with padding and label smoothing
(``06.masked_cross_entropy``).

The reference (``mce64``) is PyTorch's own ``F.cross_entropy(..., ignore_index=pad_id,
label_smoothing=...)`` written out in float64; the known mistakes (exercises/06/catalogue.py) are
edits of it. PyTorch spreads the smoothing mass over all V classes, the padding
class included, and averages over the real (non-padding) tokens of the whole batch."""

from __future__ import annotations

import re

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    close,
    expect_finite,
    expect_tensor,
    fmt_shape,
    randint,
    randn,
    register,
    tolerances,
)
from ...mistakes import variants


def mce64(logits, targets, pad_id: int, label_smoothing: float = 0.0) -> torch.Tensor:
    """The reference, float64: F.cross_entropy(..., ignore_index=pad_id, label_smoothing=eps)."""
    logp, eps = logits.double().log_softmax(-1), label_smoothing  # (..., V)
    nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)  # (...)
    smooth = -logp.mean(-1)  # eps / V on every class, the target's included
    per_token = (1 - eps) * nll + eps * smooth
    real = targets != pad_id
    return (per_token * real).sum() / real.sum()


UNSTABLE = (
    "With large logits, softmax(x).log() underflows to log(0) = -inf: use x.log_softmax(-1) "
    "(or x - x.logsumexp(-1, keepdim=True)), which never takes the log of a rounded 0."
)


@register
class MaskedCrossEntropyCheck(Exercise):
    id = "06.masked_cross_entropy"
    title = "the token loss with padding and label smoothing"
    points = 2.0
    reference64 = staticmethod(mce64)
    forbid = (
        "torch.nn.functional.cross_entropy",
        "torch.nn.functional.nll_loss",
        "torch.nn.CrossEntropyLoss.forward",
        "torch.nn.NLLLoss.forward",
        "aten.nll_loss_forward",
        "aten.nll_loss2d_forward",
        "aten.nll_loss_nd",
        "aten.cross_entropy_loss",
    )

    def probes(self, gen):
        for name, shape, pad_id, eps, ends, scale, dtype in [
            ("logits (2, 5, 7), pad_id=0, rows padded from 3 and 5 on", (2, 5, 7), 0, 0.0,
             (3, 5), 2.0, torch.float32),
            ("logits (3, 4, 6), pad_id=5 (the last class), label_smoothing=0.1", (3, 4, 6), 5,
             0.1, (4, 2, 3), 2.0, torch.float32),
            ("logits (8, 5) and targets (8,) (flat), pad_id=2, label_smoothing=0.2", (8, 5), 2,
             0.2, None, 1.5, torch.float32),
            ("logits (2, 6, 5), float64, pad_id=0, label_smoothing=0.1", (2, 6, 5), 0, 0.1,
             (6, 2), 2.0, torch.float64),
            ("logits (2, 4, 6) * 100 (large logits), pad_id=1, label_smoothing=0.1", (2, 4, 6), 1,
             0.1, (4, 3), 100.0, torch.float32),
        ]:  # fmt: skip
            V = shape[-1]
            logits = scale * randn(*shape, generator=gen, dtype=dtype)
            targets = randint(gen, 0, V - 1, *shape[:-1])
            targets = targets + (targets >= pad_id).long()  # every class but pad_id
            if ends is None:  # flat: a few pads in the middle
                targets[1] = targets[4] = pad_id
            else:
                for b, end in enumerate(ends):
                    targets[b, end:] = pad_id
            if pad_id:  # a real token of class 0: a mask hard-coded to pad 0 drops it
                targets.view(-1)[0] = 0
            kwargs = {"label_smoothing": eps} if eps else {}
            yield Probe(name, (logits, targets, pad_id), kwargs, info={"large": scale > 10})

    def explain_error(self, probe, error):
        logits, targets, _ = probe.args
        found = re.search(r"index (\d+) is out of bounds for dimension 1 with size (\d+)", error)
        if logits.dim() != 3 or not found:
            return None
        index, size = int(found[1]), int(found[2])
        T = logits.shape[1]
        if size != T or index < T or not (targets == index).any():
            return None
        return Fail(
            f"a target id, {index}, was used as an index along dim 1, the positions (size T = "
            f"{T}), as gather(1, targets.unsqueeze(1)) does: dim 1 holds the classes only for "
            "flat (N, V) logits. With (B, T, V) logits pick the target's log-probability along "
            "the last dim, whatever the leading dims: log_probs.gather(-1, "
            "targets.unsqueeze(-1)).squeeze(-1).\n   " + error,
            "gather_dim",
        )

    def judge(self, probe, out):
        logits, targets, pad_id = probe.args
        eps = probe.kwargs.get("label_smoothing", 0.0)
        got = expect_tensor(out, "the loss")
        if got.dim() != 0:
            raise Fail(
                f"the loss has shape {fmt_shape(got.shape)}: it is one number, a 0-dim tensor "
                "(the mean over the real tokens), which loss.backward() can start from.",
                "not_a_scalar",
            )
        if got.dtype != logits.dtype:
            raise Fail(f"the loss has dtype {got.dtype}, expected {logits.dtype} (the logits').",
                       "wrong_dtype")  # fmt: skip
        expect_finite(got, "the loss", hint=UNSTABLE if probe.info.get("large") else "")

        fields = {"guess": 0, "pad_id": pad_id, "eps": eps}
        mistakes = variants(self.mistakes, mce64, (logits, targets, pad_id, eps), fields=fields)
        # not expect_close: its diagnosis by property would call any wrong number "a constant
        # factor" of the right one (a scalar is always some factor of another)
        atol, rtol = tolerances(got.dtype)
        atol = max(atol, 1e-5) if logits.dtype == torch.float32 else atol
        ref = mce64(logits, targets, pad_id, eps)
        if close(got, ref, atol, rtol):
            return
        # the nearest of the variants that match: one number can fall within the tolerance of
        # a second variant by chance (06's h63 matched smoothing_ignored at 3 seeds in 40 too)
        matches = []
        for variant, message, code in mistakes:
            try:
                wrong = variant()
            except RuntimeError:  # a variant that does not run on this case (gather_dim)
                continue
            # at the check's own tolerance: a looser one let a floor division's 3.0 match the
            # mean of sequence means, 3.003 (one number is close to another by chance)
            if wrong is not None and close(got, wrong, atol, rtol):
                matches.append((abs(got.double() - wrong).item(), message, code))
        if matches:
            # near-ties (variants equal on this case, up to float64 rounding): the first listed
            best = min(m[0] for m in matches) + 1e-6 * max(1.0, abs(got.item()))
            _, message, code = next(m for m in matches if m[0] <= best)
            raise Fail(message, code)
        raise Fail(
            f"the loss is {got.item():.6g}, expected {ref.item():.6g} (what F.cross_entropy "
            f"gives with ignore_index={pad_id}, label_smoothing={eps:g}). Check each step on a "
            "small case: log_probs = logits.log_softmax(-1); the target's -log_probs, picked "
            "with gather along the last dim; the mean of -log_probs over the classes; the mask "
            "targets != pad_id."
        )
