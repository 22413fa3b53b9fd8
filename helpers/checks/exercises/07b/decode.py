"""07b.decode: decode character ids back to text (its check)."""

from __future__ import annotations

import re

import torch

from ...framework import Exercise, Fail, Probe, randint, register
from .reference import decode64, decode_variants, encode64
from .vocab import NON_ASCII, VOCAB, _unsorted, beyond_ascii, course_line, only, utf8_message

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
            if ids and out == decode64(ids, vocab, sep=sep):
                raise Fail(DECODE_MISTAKES["separator"].format(sep=sep), "separator")
        if ids and out in (decode64(ids, vocab, offset=1), decode64(ids, vocab, offset=-1)):
            raise Fail(DECODE_MISTAKES["one_based"], "one_based")
        code = only([c for c, vs in decode_variants(ids, vocab).items() if out in vs])
        if code is not None:
            raise Fail(DECODE_MISTAKES[code].format(zero=vocab[0]), code)
        raise Fail(f"decoded {out[:60]!r}, expected {ref[:60]!r}.")


#: what this exercise's text through UTF-8 bytes does (vocab.NON_ASCII["utf8_bytes"])
UTF8 = {
    "kind": "the decoding",
    "becomes": "cannot be one byte (bytes(...) needs values below 256) or comes back garbled",
    "fix": "''.join(vocab[i] for i in ids)",
}
