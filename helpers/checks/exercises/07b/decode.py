"""07b.decode: decode character ids back to text (its check)."""

from __future__ import annotations

import re

import torch

from ...framework import Exercise, Fail, Probe, randint, register
from ...mistakes import outputs
from .reference import decode64, encode64
from .vocab import NON_ASCII, VOCAB, _unsorted, beyond_ascii, course_line, only, utf8_message


@register
class DecodeCheck(Exercise):
    id = "07b.decode"
    title = "decode character ids back to text"
    points = 1.0
    reference64 = staticmethod(decode64)

    def probes(self, gen):
        ids = encode64("attention", VOCAB)
        yield Probe("the ids of 'attention'", args=(ids, VOCAB))
        yield Probe("40 random ids", args=(randint(gen, 0, len(VOCAB), 40), VOCAB))
        yield Probe("ids as a Python list", args=(encode64(" Tea? Yes.\n", VOCAB).tolist(), VOCAB))
        yield Probe("no ids", args=(torch.zeros(0, dtype=torch.long), VOCAB))
        unsorted = _unsorted(gen)
        ids = randint(gen, 0, len(unsorted), 30)
        yield Probe(f"30 random ids of an unsorted vocab {unsorted!r}", args=(ids, unsorted))
        line, vocab = course_line()
        yield Probe(f"the ids of a line of the course's text {line!r}, the vocab "
                    "sorted(set(course_text))", args=(encode64(line, vocab), vocab))  # fmt: skip

    def explain_error(self, probe, error):
        ids, vocab = probe.args
        text = decode64(ids.tolist() if isinstance(ids, torch.Tensor) else list(ids), vocab)
        chars = beyond_ascii(text)
        if chars and ("bytes must be in range" in error or "codec can't" in error):
            return Fail(f"{utf8_message(text, **UTF8)}\n   {error}", "utf8_bytes")
        found = re.search(r"'list' object has no attribute '(\w+)'", error)
        if isinstance(ids, list) and found:
            attr = found.group(1) + ("()" if found.group(1) != "shape" else "")
            return self.fail("list_input", attr=attr)
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
        chars = beyond_ascii(ref)
        if (
            chars
            and out != ref
            and out.encode("utf-8", "replace") != ref.encode("utf-8")
            and (
                out == ref.encode("utf-8").decode("latin-1")
                or out == bytes(ord(c) % 256 for c in ref).decode("utf-8", "replace")
            )
        ):
            raise Fail(utf8_message(ref, **UTF8), "utf8_bytes")
        kept = "".join(c for c in ref if ord(c) < 128)
        if chars and (out == kept or out == "".join(c if ord(c) < 128 else "?" for c in ref)):
            raise Fail(NON_ASCII["non_ascii_dropped"].format(
                chars=chars, fix="''.join(vocab[i] for i in ids) keeps them"),
                "non_ascii_dropped")  # fmt: skip
        for sep in (" ", ",", ", ", "\n"):
            if ids and out == sep.join(ref):
                raise self.fail("separator", sep=sep)
        wrong = outputs(self.mistakes, decode64, (ids, vocab))
        if ids and out in wrong.pop("one_based"):
            raise self.fail("one_based")
        code = only([c for c, vs in wrong.items() if out in vs])
        if code is not None:
            raise self.fail(code, zero=vocab[0])
        raise Fail(f"decoded {out[:60]!r}, expected {ref[:60]!r}.")


#: what this exercise's text through UTF-8 bytes does (vocab.NON_ASCII["utf8_bytes"])
UTF8 = {
    "kind": "the decoding",
    "becomes": "cannot be one byte (bytes(...) needs values below 256) or comes back garbled",
    "fix": "''.join(vocab[i] for i in ids)",
}
