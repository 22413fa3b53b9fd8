"""07b.encode: encode text as character ids (its check)."""

from __future__ import annotations

import torch

from ...framework import Exercise, Fail, Probe, expect_tensor, fmt_shape, randint, register
from ...mistakes import outputs
from .reference import encode64
from .vocab import VOCAB, _unsorted, beyond_ascii, course_line, only, utf8_message


def _text(gen: torch.Generator, n: int, vocab: str = VOCAB) -> str:
    return "".join(vocab[i] for i in randint(gen, 0, len(vocab), n).tolist())


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
    reference64 = staticmethod(encode64)

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
        line, vocab = course_line()
        cases.append((f"a line of the course's text {line!r}, the vocab sorted(set(course_text))",
                      line, vocab))  # fmt: skip
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
        found = outputs(self.mistakes, encode64, (text, vocab))
        wrong = {c: [v for v in vs if not torch.equal(v, ref)] for c, vs in found.items()}
        if any(torch.equal(got, v) for v in wrong["strips_text"]):
            raise self.fail("strips_text")
        utf8 = text.encode("utf-8")
        if len(utf8) != len(text) and got.dim() == 1 and len(got) == len(utf8):
            raise Fail(utf8_message(text, **UTF8), "utf8_bytes")
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
        code = only([c for c, vs in wrong.items() if any(torch.equal(got, v) for v in vs)])
        if code is None and relabels(got, text, len(vocab)):
            code = "wrong_order"
        if code is not None:
            raise self.fail(code)
        first = int((got != ref).nonzero()[0, 0])
        raise Fail(
            f"character {first} ({text[first]!r}) got id {int(got[first])}, expected "
            f"{int(ref[first])} (its index in vocab).",
        )

    def explain_error(self, probe, error):
        text, _ = probe.args
        # a key or index that is one byte of a character beyond ASCII: the text went as bytes
        bytes_of = {b for c in beyond_ascii(text) for b in c.encode("utf-8")}
        if any(f"{chr(b)!r}" in error or f"index {b} " in error for b in bytes_of):
            return Fail(f"{utf8_message(text, **UTF8)}\n   {error}", "utf8_bytes")
        if text:
            return None
        stack = (
            " torch.stack and torch.cat need at least one tensor." if "non-empty" in error else ""
        )
        first = error.split("\n")[0].removeprefix("your code raised ")
        return self.fail("empty_text", error=first, stack=stack)


#: what this exercise's text through UTF-8 bytes does (vocab.NON_ASCII["utf8_bytes"])
UTF8 = {
    "kind": "the encoding",
    "becomes": "becomes several ids, or a byte the vocab does not have",
    "fix": "for ch in text: ids.append(stoi[ch])",
}
