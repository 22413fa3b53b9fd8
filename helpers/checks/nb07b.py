"""Notebook 07b (a GPT on real text): the character tokenizer and the learning-rate schedule
(the sampling filters: nb07b_sampling.py; gradient clipping, the checkpoint and the questions:
nb07b_craft.py).

References are written out in nb07b_reference.py, each with switches for the known mistakes.
"""

from __future__ import annotations

import math

import torch

from .framework import Exercise, Fail, Probe, expect_tensor, fmt_shape, randint, register
from .nb07b_reference import decode64, encode64, lr64

# --------------------------------------------------------------------------- tokenizer

VOCAB = "\n !',.:?ATYabcdefghiklmnoprstuvwxyz"  # sorted, as sorted(set(text)) gives it


def _text(gen: torch.Generator, n: int, vocab: str = VOCAB) -> str:
    return "".join(vocab[i] for i in randint(gen, 0, len(vocab), n).tolist())


ENCODE_MISTAKES = {
    "one_based": "the ids start at 1: the id of a character is its index in `vocab`, from 0 "
    "(vocab[0] has id 0).",
    "own_vocab": "the ids come from the text's own characters (sorted(set(text))), not from "
    "`vocab`: a text that lacks some characters of the vocabulary gets other ids. Use "
    "vocab.index(c) (or a dict built once from `vocab`).",
}


@register
class EncodeCheck(Exercise):
    id = "07b.encode"
    title = "encode text as character ids"
    points = 1.0

    def probes(self, gen):
        cases = [("text = 'attention'", "attention", VOCAB)]
        cases.append(("a random text of 40 characters", _text(gen, 40), VOCAB))
        cases.append(("a text with a newline and punctuation", "Tea? Yes, sir.\nA lot!", VOCAB))
        cases.append(("vocab = 'ab', text = 'b'", "b", "ab"))
        cases.append(("the empty text", "", VOCAB))
        for name, text, vocab in cases:  # no tensor input: the ids are made on the CPU
            yield Probe(name, args=(text, vocab), cpu_only=True)

    def judge(self, probe, out):
        text, vocab = probe.args
        if isinstance(out, list) and all(type(i) is int for i in out):
            raise Fail(
                "the ids are a Python list: return a tensor, torch.tensor(ids, dtype=torch.long).",
                "not_a_tensor",
            )
        got = expect_tensor(out, "the ids")
        ref = encode64(text, vocab)
        if tuple(got.shape) != tuple(ref.shape):
            raise Fail(
                f"the ids have shape {fmt_shape(got.shape)}, expected {fmt_shape(ref.shape)}: one "
                "id per character of the text, a 1-D tensor.",
                "wrong_shape",
            )
        if got.dtype != torch.long:
            raise Fail(
                f"the ids have dtype {got.dtype}: token ids are torch.long (nn.Embedding and "
                "F.cross_entropy take them), torch.tensor(ids, dtype=torch.long).",
                "wrong_dtype",
            )
        if torch.equal(got, ref):
            return
        own = "".join(sorted(set(text)))
        for variant, code in ((encode64(text, vocab, offset=1), "one_based"),
                              (encode64(text, own) if own else None, "own_vocab")):  # fmt: skip
            if variant is not None and torch.equal(got, variant):
                raise Fail(ENCODE_MISTAKES[code], code)
        first = int((got != ref).nonzero()[0, 0])
        raise Fail(
            f"character {first} ({text[first]!r}) got id {int(got[first])}, expected "
            f"{int(ref[first])} (its index in vocab).",
        )


DECODE_MISTAKES = {
    "separator": "the characters are joined with {sep!r} between them: join them with nothing, "
    "''.join(...).",
    "one_based": "each id is read one place off: id i is vocab[i], the ids start at 0.",
}


@register
class DecodeCheck(Exercise):
    id = "07b.decode"
    title = "decode character ids back to text"
    points = 1.0

    def probes(self, gen):
        ids = encode64("attention", VOCAB)
        yield Probe("the ids of 'attention'", args=(ids, VOCAB))
        yield Probe("40 random ids", args=(randint(gen, 0, len(VOCAB), 40), VOCAB))
        yield Probe("ids as a Python list", args=(encode64("Tea? Yes.\n", VOCAB).tolist(), VOCAB))
        yield Probe("no ids", args=(torch.zeros(0, dtype=torch.long), VOCAB))

    def judge(self, probe, out):
        ids, vocab = probe.args
        ids = ids.tolist() if isinstance(ids, torch.Tensor) else list(ids)
        ref = decode64(ids, vocab)
        if isinstance(out, list) and all(isinstance(c, str) for c in out):
            raise Fail("the text is a list of characters: join them, ''.join(...).", "not_a_str")
        if not isinstance(out, str):
            got = "None (did you forget `return`?)" if out is None else type(out).__name__
            raise Fail(f"decode should return a str, got {got}.", "not_a_str")
        if out == ref:
            return
        for sep in (" ", ",", ", ", "\n"):
            if ids and out == decode64(ids, vocab, sep=sep):
                raise Fail(DECODE_MISTAKES["separator"].format(sep=sep), "separator")
        if ids and out in (decode64(ids, vocab, offset=1), decode64(ids, vocab, offset=-1)):
            raise Fail(DECODE_MISTAKES["one_based"], "one_based")
        raise Fail(f"decoded {out[:60]!r}, expected {ref[:60]!r}.")


# --------------------------------------------------------------------------- schedule

LR_MISTAKES = {
    "warmup_from_zero": "the warm-up starts at 0 (max_lr * step / warmup): step 0 then takes "
    "no step at all. Use max_lr * (step + 1) / (warmup + 1), which reaches max_lr at step "
    "warmup.",
    "warmup_one_short": "the warm-up reaches max_lr one step early (max_lr * (step + 1) / "
    "warmup): use (step + 1) / (warmup + 1), so that max_lr comes at step warmup, where the "
    "cosine starts.",
    "no_warmup": "there is no warm-up: for step < warmup the rate rises linearly, "
    "max_lr * (step + 1) / (warmup + 1).",
    "progress_from_zero": "the cosine's progress is counted from step 0 (step / total): count "
    "it from the end of the warm-up, (step - warmup) / (total - warmup), so that the decay "
    "starts at max_lr.",
    "progress_over_total": "the cosine's progress is (step - warmup) / total: divide by the "
    "length of the decay, total - warmup, so that it reaches min_lr at step total.",
    "no_floor": "after step total the rate rises again (the cosine goes on past pi): from step "
    "total on it stays at min_lr.",
    "to_zero": "the cosine decays to 0, not to min_lr: min_lr + (max_lr - min_lr) * 0.5 * "
    "(1 + cos(pi * progress)).",
    "min_added": "min_lr is added to the full cosine of max_lr, so the rate starts at max_lr + "
    "min_lr: scale the cosine by max_lr - min_lr.",
    "no_half": "the cosine factor is 1 + cos(...), which starts at 2: multiply it by 0.5, so it "
    "goes from 1 to 0.",
    "linear": "the decay is a straight line: use the cosine, 0.5 * (1 + cos(pi * progress)).",
}

# (warmup, total, max_lr, min_lr) and the steps probed: each phase and both of its ends
SCHEDULES = [
    ((10, 100, 1e-3, 1e-4), (0, 4, 9, 10, 40, 73, 100, 130)),
    ((0, 50, 3e-3, 0.0), (0, 20, 49, 60)),
    ((4, 20, 1.0, 0.1), (3, 4, 12, 20)),
]


@register
class LrAtCheck(Exercise):
    id = "07b.lr_at"
    title = "warm-up and cosine decay"
    points = 2.0

    def probes(self, gen):
        for (warmup, total, max_lr, min_lr), steps in SCHEDULES:
            for step in steps:
                name = (
                    f"step {step} of warmup = {warmup}, total = {total}, max_lr = {max_lr:g}, "
                    f"min_lr = {min_lr:g}"
                )
                yield Probe(name, args=(step, warmup, total, max_lr, min_lr), cpu_only=True)

    def judge(self, probe, out):
        if isinstance(out, torch.Tensor) and out.numel() == 1:
            out = out.item()
        if type(out) not in (int, float):
            got = "None (did you forget `return`?)" if out is None else type(out).__name__
            raise Fail(f"lr_at should return a number (a float), got {got}.", "not_a_number")
        ref = lr64(*probe.args)
        if math.isclose(out, ref, rel_tol=1e-6, abs_tol=1e-12):
            return
        variants = [
            ("warmup_from_zero", {"warm": "from_zero"}),
            ("warmup_one_short", {"warm": "one_short"}),
            ("progress_from_zero", {"progress": "from_zero"}),  # before no_warmup: the same
            ("no_warmup", {"warm": "none"}),  # after the warm-up, where both are wrong
            ("progress_over_total", {"progress": "over_total"}),
            ("no_floor", {"floor": False}),
            ("to_zero", {"shape": "to_zero"}),
            ("min_added", {"shape": "min_added"}),
            ("no_half", {"shape": "no_half"}),
            ("linear", {"shape": "linear"}),
        ]
        for code, switch in variants:
            if math.isclose(out, lr64(*probe.args, **switch), rel_tol=1e-6, abs_tol=1e-12):
                raise Fail(f"got {out:.6g}, expected {ref:.6g}: " + LR_MISTAKES[code], code)
        raise Fail(f"got {out:.6g}, expected {ref:.6g}.")
