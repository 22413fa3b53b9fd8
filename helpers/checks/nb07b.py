"""Notebook 07b (a GPT on real text): the character tokenizer and the learning-rate schedule
(the sampling filters: nb07b_sampling.py; gradient clipping, the checkpoint and the questions:
nb07b_craft.py).

References are written out in nb07b_reference.py, each with switches for the known mistakes.
"""

from __future__ import annotations

import math
import re

import torch

from .framework import (
    Exercise,
    Fail,
    Probe,
    expect_tensor,
    fmt_shape,
    randint,
    register,
    slips,
)
from .nb07b_reference import decode64, decode_variants, encode64, encode_variants, lr64

# --------------------------------------------------------------------------- tokenizer

VOCAB = "\n !',.:?ATYabcdefghiklmnoprstuvwxyz"  # sorted, as sorted(set(text)) gives it


def _text(gen: torch.Generator, n: int, vocab: str = VOCAB) -> str:
    return "".join(vocab[i] for i in randint(gen, 0, len(vocab), n).tolist())


def _unsorted(gen: torch.Generator, vocab: str = VOCAB) -> str:
    """The characters of ``vocab`` in a random order (a vocab need not be sorted)."""
    return "".join(vocab[i] for i in torch.randperm(len(vocab), generator=gen).tolist())


def only(found: list[str]) -> str | None:
    """The code of the one known mistake that gives the answer, None when none or several do
    (a message must not name a cause the code may not have)."""
    codes = list(dict.fromkeys(found))
    return codes[0] if len(codes) == 1 else None


ENCODE_MISTAKES = {
    "one_based": "the ids start at 1: the id of a character is its index in `vocab`, from 0 "
    "(vocab[0] has id 0).",
    "own_vocab": "the ids come from the text's own characters (sorted(set(text))), not from "
    "`vocab`: a text that lacks some characters of the vocabulary gets other ids. Use "
    "vocab.index(c) (or a dict built once from `vocab`).",
    "code_point": "the ids are the characters' Unicode code points (ord(c)): the id of a "
    "character is its index in `vocab`, vocab.index(c) (or a dict built once from `vocab`).",
    "sorted_vocab": "the ids are indices in sorted(vocab): the id of a character is its index in "
    "`vocab` as given, and a vocab need not be sorted (this one is not), vocab.index(c).",
    "strips_text": "the text was stripped (text.strip()): its leading and trailing whitespace "
    "(spaces, newlines) are characters too, each gets an id; there are len(text) ids.",
    "wrong_order": "the ids follow another order of the characters than vocab's (a set(vocab), "
    "say, has an order of its own): the id of a character is its index in `vocab`, the string "
    "as given, vocab.index(c) or {ch: i for i, ch in enumerate(vocab)}.",
    "empty_text": "the empty text raised {error}: an empty text has no ids, the answer is an "
    "empty LongTensor of shape (0,), torch.tensor([], dtype=torch.long).{stack}",
}


def relabels(got: torch.Tensor, text: str, n: int) -> bool:
    """Whether ``got`` gives each character of ``text`` one id of range(n), another for each
    other character: a consistent code, in another order than the vocab's."""
    ids: dict[str, int] = {}
    for c, i in zip(text, got.tolist()):
        if ids.setdefault(c, i) != i or not 0 <= i < n:
            return False
    return len(set(ids.values())) == len(ids)


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
        cases.append(
            ("a text that starts with a space, ends with a newline", " Tea? Yes.\n", VOCAB)
        )
        unsorted = _unsorted(gen)
        cases.append((f"an unsorted vocab {unsorted!r}", _text(gen, 30, unsorted), unsorted))
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
        variants = encode_variants(text, vocab)
        stripped = variants.get("strips_text")
        if stripped is not None and got.shape == stripped.shape and torch.equal(got, stripped):
            raise Fail(ENCODE_MISTAKES["strips_text"], "strips_text")
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
        code = only([c for c, v in variants.items() if torch.equal(got, v)])
        if code is None and relabels(got, text, len(vocab)):
            code = "wrong_order"
        if code is not None:
            raise Fail(ENCODE_MISTAKES[code], code)
        first = int((got != ref).nonzero()[0, 0])
        raise Fail(
            f"character {first} ({text[first]!r}) got id {int(got[first])}, expected "
            f"{int(ref[first])} (its index in vocab).",
        )

    def explain_error(self, probe, error):
        text, _ = probe.args
        if text:
            return None
        stack = (
            " torch.stack and torch.cat need at least one tensor." if "non-empty" in error else ""
        )
        first = error.split("\n")[0].removeprefix("your code raised ")
        return Fail(ENCODE_MISTAKES["empty_text"].format(error=first, stack=stack), "empty_text")


DECODE_MISTAKES = {
    "separator": "the characters are joined with {sep!r} between them: join them with nothing, "
    "''.join(...).",
    "one_based": "each id is read one place off: id i is vocab[i], the ids start at 0.",
    "strips_text": "the decoded text is stripped (.strip()): leading and trailing spaces and "
    "newlines are characters of the text too, and decode is the inverse of encode: keep every "
    "character.",
    "code_point": "chr(i) is the Unicode character with code point i, not the vocabulary's: id "
    "i is vocab[i], the character at index i in vocab.",
    "unique": "each id is decoded once (torch.unique, or a set): repeated ids are dropped and "
    "the order is lost. Decode every id, in the order given.",
    "sorted_vocab": "the ids are looked up in sorted(vocab): look each id up in vocab as given, "
    "vocab[i] (this vocab is not sorted; the notebook's happens to be).",
    "skips_zero": "id 0 is skipped, as if it were padding: it is vocab[0] ({zero!r} here), the "
    "first character of the vocabulary. Decode every id.",
    "list_input": "ids is a plain Python list of ints here (decode takes a 1-D tensor or a "
    "list), and a list has no .{attr}: iterate over ids directly, int(i) turns a 0-d tensor "
    "or an int into an int.",
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
        yield Probe("ids as a Python list", args=(encode64(" Tea? Yes.\n", VOCAB).tolist(), VOCAB))
        yield Probe("no ids", args=(torch.zeros(0, dtype=torch.long), VOCAB))
        unsorted = _unsorted(gen)
        ids = randint(gen, 0, len(unsorted), 30)
        yield Probe(f"30 random ids of an unsorted vocab {unsorted!r}", args=(ids, unsorted))

    def explain_error(self, probe, error):
        ids, _ = probe.args
        found = re.search(r"'list' object has no attribute '(\w+)'", error)
        if isinstance(ids, list) and found:
            attr = found.group(1) + ("()" if found.group(1) != "shape" else "")
            return Fail(DECODE_MISTAKES["list_input"].format(attr=attr), "list_input")
        return None

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
        code = only([c for c, vs in decode_variants(ids, vocab).items() if out in vs])
        if code is not None:
            raise Fail(DECODE_MISTAKES[code].format(zero=vocab[0]), code)
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
    "no_pi": "the cosine's argument has no pi: cos(t) covers 1 radian of the cosine and ends "
    "far above min_lr at step total. Use cos(pi * t), from cos 0 = 1 to cos pi = -1, half a "
    "cosine.",
    "rises": "the rate rises from min_lr to max_lr during the decay, as a cosine factor of "
    "0.5 * (1 - cos(pi * t)) does (from 0 up to 1), or a t that runs backwards: use "
    "t = (step - warmup) / (total - warmup) and 1 + cos(pi * t), which starts at max_lr at "
    "step warmup and falls.",
    "floor_division": "t = (step - warmup) // (total - warmup) is floor (integer) division: t is "
    "0 at every step of the decay but the last, so the rate stays at max_lr. Use / for t.",
    "decay_at_max": "the rate is still max_lr here, inside the decay (t is 0 at this step, or "
    "the cosine is 1): t = (step - warmup) / (total - warmup) and 0.5 * (1 + cos(pi * t)) bring "
    "it from max_lr at step warmup down to min_lr at step total.",
    "decay_at_min": "the rate is already min_lr here, inside the decay (t is 1 at this step, or "
    "the cosine is 0, or max_lr - min_lr is lost): t = (step - warmup) / (total - warmup) and "
    "0.5 * (1 + cos(pi * t)) bring it from max_lr at step warmup down to min_lr at step total.",
    "warmup_from_min_lr": "the warm-up starts from min_lr: it rises from 0, max_lr * (step + 1) "
    "/ (warmup + 1) (min_lr is the floor the decay ends at).",
    "divides_by_warmup": "with warmup = 0 (no warm-up) your code divides by zero: compute "
    "anything divided by warmup only inside the `step < warmup` branch, which warmup = 0 never "
    "enters.",
}

LR_FORMULA = (
    "The schedule: max_lr * (step + 1) / (warmup + 1) for step < warmup, then min_lr + "
    "(max_lr - min_lr) * 0.5 * (1 + cos(pi * t)) with t = (step - warmup) / (total - warmup), "
    "and min_lr after step total."
)

# (warmup, total, max_lr, min_lr) and the steps probed: each phase and both of its ends
SCHEDULES = [
    # step 4 before 0 and 40 before 10: min_lr = max_lr / 10 makes several slips agree at
    # steps 0 and 10 (a warm-up from min_lr and one a step ahead; a rising cosine and a flat one)
    ((10, 100, 1e-3, 1e-4), (4, 0, 9, 40, 10, 73, 100, 130)),
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
            ("no_pi", {"shape": "no_pi"}),
            ("rises", {"shape": "rises"}),
            ("floor_division", {"progress": "floor_div"}),
            ("warmup_from_min_lr", {"warm": "from_min_lr"}),
        ]
        step, warmup, total, max_lr, min_lr = probe.args
        values = [(code, lr64(*probe.args, **switch)) for code, switch in variants]
        if warmup <= step <= total:  # a decay that does not move, at either end
            values += [("decay_at_max", max_lr), ("decay_at_min", min_lr)]
        found = [c for c, v in values if not math.isclose(v, ref, rel_tol=1e-6, abs_tol=1e-12)
                 and math.isclose(out, v, rel_tol=1e-6, abs_tol=1e-12)]  # fmt: skip
        if "progress_from_zero" in found and step >= warmup:  # the warm-up passed before
            found = [c for c in found if c != "no_warmup"]
        found = list(dict.fromkeys(found))
        if len(found) == 1:
            raise Fail(f"got {out:.6g}, expected {ref:.6g}: " + LR_MISTAKES[found[0]], found[0])
        if found:  # one number, several slips that give it: said as such, none named
            heads = slips(found, LR_MISTAKES)
            raise Fail(
                f"got {out:.6g}, expected {ref:.6g}: this is what each of these gives at this "
                f"step: {heads}. {LR_FORMULA}"
            )
        raise Fail(f"got {out:.6g}, expected {ref:.6g}.")

    def explain_error(self, probe, error):
        warmup = probe.args[1]
        if warmup == 0 and ("ZeroDivisionError" in error or "division by zero" in error):
            return Fail(LR_MISTAKES["divides_by_warmup"], "divides_by_warmup")
        return None
