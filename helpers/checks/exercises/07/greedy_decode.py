"""Notebook 07, part 2: greedy decoding.

Greedy decoding runs on a scripted model the runner builds from the probe: it predicts row b's
script token at position t when the decoder input so far is BOS followed by the script, and a
wrong token otherwise, so reading the wrong position or feeding back the wrong tokens shows."""

from __future__ import annotations

import torch

from ...framework import Exercise, Fail, Probe, expect_tensor, fmt_shape, randint, register
from ...mistakes import outputs
from ...run.loops import scripted_model


def greedy64(model, src, max_len: int, bos_id: int, eos_id: int) -> torch.Tensor:
    """The reference greedy decoding. The catalogue's wrong programs are edits of it
    (exercises/07/catalogue.py)."""
    B = src.shape[0]
    tgt = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    while tgt.shape[1] < max_len:
        logits = model(src, tgt)  # (B, T, V)
        nxt = logits[:, -1].argmax(-1)
        nxt = torch.where(done, torch.full_like(nxt, eos_id), nxt)
        tgt = torch.cat([tgt, nxt[:, None]], dim=1)
        done = done | (nxt == eos_id)
        if done.all():
            break
    return tgt


@register
class GreedyDecodeCheck(Exercise):
    id = "07.greedy_decode"
    modes = {"model": "kept"}
    title = "greedy decoding"
    points = 2.0
    reference64 = staticmethod(greedy64)
    learner = staticmethod(lambda fn: fn)  # on the model's device, as the learner's runs

    def probes(self, gen):
        def case(name, ends, max_len, vocab_size=9, bos_id=1, eos_id=2, S=5):
            B = len(ends)
            choices = torch.tensor([t for t in range(vocab_size) if t not in (bos_id, eos_id)])
            script = choices[randint(gen, 0, len(choices), B, max_len + 2)]
            wrong_id = int(choices[-1])
            script[script == wrong_id] = int(choices[0])  # the wrong token is never scripted
            for b, end in enumerate(ends):  # row b produces eos at output position end
                if end is not None:
                    script[b, end - 1] = eos_id
            src = randint(gen, 3, vocab_size, B, S)
            src[:, 0] = torch.arange(B) + 3  # every row different: the model tells them apart
            spec = {"script": script, "src": src, "vocab_size": vocab_size}
            spec.update(bos_id=bos_id, wrong_id=wrong_id)
            return Probe(
                name, runner="decode", args=(src, max_len, bos_id, eos_id), kwargs={"model": spec}
            )

        yield case("3 rows ending at different steps (eos at 3, 5, 4), max_len=10", [3, 5, 4], 10)
        yield case("one row, eos at step 4, max_len=8", [4], 8)
        yield case("2 rows, one never produces eos: stop at max_len=6", [3, None], 6)
        name = "4 rows, bos_id=0, eos_id=5, vocab_size=11, max_len=12"
        yield case(name, [2, 6, 9, 4], 12, vocab_size=11, bos_id=0, eos_id=5)
        yield case("2 rows, both end at step 7 = max_len", [7, 7], 7)

    def judge(self, probe, out):
        src, max_len, bos_id, eos_id = probe.args
        model = scripted_model(probe.kwargs["model"])
        B = src.shape[0]
        got = expect_tensor(out)
        if got.dtype != torch.long:
            raise Fail(
                f"the output has dtype {got.dtype}: return token ids as a LongTensor "
                "(argmax gives int64).",
                "not_long",
            )
        if got.dim() != 2 or got.shape[0] != B:
            raise Fail(
                f"the output has shape {fmt_shape(got.shape)}, expected (B, L) with B = {B}.",
                "wrong_shape",
            )
        L = got.shape[1]
        if L > max_len:
            raise Fail(
                f"the output has {L} tokens, more than max_len={max_len} (BOS counts): stop "
                "when the sequence has max_len tokens.",
                "longer_than_max_len",
            )
        ref = greedy64(model, src, max_len, bos_id, eos_id)
        if got.shape == ref.shape and torch.equal(got, ref):
            return
        for code, wrongs in outputs(self.mistakes, greedy64, (model, *probe.args)).items():
            if any(got.shape == v.shape and torch.equal(got, v) for v in wrongs):
                raise self.fail(code, bos_id=bos_id)
        if L > 0 and not bool((got[:, 0] == bos_id).all()):
            raise self.fail("no_bos", bos_id=bos_id)
        n = min(L, ref.shape[1])  # a token that differs before either stops: not greedy
        rows = [b for b in range(B) if not torch.equal(got[b, :n], ref[b, :n])]
        for b in rows:  # right up to the row's eos_id: only what follows it differs
            ends = (ref[b] == eos_id).nonzero()
            p = int(ends[0]) + 1 if len(ends) else n
            if p < n and torch.equal(got[b, :p], ref[b, :p]):
                raise Fail(
                    f"row {b} is right up to its eos_id, then goes on with "
                    f"{got[b, p:n].tolist()}: once a row is done, keep appending eos_id "
                    f"({eos_id} here), got {got[b].tolist()}, expected {ref[b].tolist()}.",
                    "pad_after_eos",
                )
        if rows:
            raise Fail(
                f"row {rows[0]} differs from greedy decoding: got {got[rows[0]].tolist()}, "
                f"expected {ref[rows[0]].tolist()}. Each step: logits = model(src, tgt), take "
                "the argmax at the last position, append it to tgt (greedy: the most likely "
                "token, not a sample drawn with torch.multinomial).",
                "not_greedy",
            )
        raise Fail(
            f"the output has shape {fmt_shape(got.shape)}, expected {fmt_shape(ref.shape)}: "
            f"BOS, then one token per step until every row has produced eos_id "
            f"(at most max_len={max_len} tokens).",
            "wrong_length",
        )
