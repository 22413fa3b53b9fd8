"""Notebook 07b: what the tokenizer's and the schedule's checks share (the vocabulary, the one
known mistake that explains an answer)."""

from __future__ import annotations

import torch

VOCAB = "\n !',.:?ATYabcdefghiklmnoprstuvwxyz"  # sorted, as sorted(set(text)) gives it


def _unsorted(gen: torch.Generator, vocab: str = VOCAB) -> str:
    """The characters of ``vocab`` in a random order (a vocab need not be sorted)."""
    return "".join(vocab[i] for i in torch.randperm(len(vocab), generator=gen).tolist())


def only(found: list[str]) -> str | None:
    """The code of the one known mistake that gives the answer, None when none or several do
    (a message must not name a cause the code may not have)."""
    codes = list(dict.fromkeys(found))
    return codes[0] if len(codes) == 1 else None


def course_line() -> tuple[str, str]:
    """(text, vocab): a line of the course's own text with characters beyond ASCII (an em dash, a
    stopwatch, stars), and the notebook's vocabulary of that text, sorted(set(text)): the text
    notebook 07b tokenizes has 12 such characters, each one id."""
    from ....data import course_text  # judging side only (not in the grader's kernel)

    text = course_text()
    line = next(ln for ln in text.splitlines() if "—" in ln and "★" in ln and "⏱" in ln)
    return line, "".join(sorted(set(text)))


def beyond_ascii(text: str) -> str:
    """The characters of ``text`` beyond ASCII, as the message shows them."""
    return "".join(dict.fromkeys(c for c in text if ord(c) > 127))


#: what iterating over a text's UTF-8 bytes, or keeping its ASCII alone, does (encode and decode)
NON_ASCII = {
    "utf8_bytes": "{kind} goes through the text's UTF-8 bytes, not its characters: each "
    "character beyond ASCII ({chars} here, from the course's own text) is 2 to 4 bytes, so it "
    "{becomes}. A str is a sequence of characters already: {fix}.",
    "non_ascii_dropped": "the characters beyond ASCII ({chars} here, from the course's own "
    "text) are dropped or replaced (an encode('ascii', 'ignore') or a filter): every character "
    "of the vocabulary is text, {fix}.",
}


def utf8_message(text: str, kind: str, becomes: str, fix: str) -> str:
    """NON_ASCII["utf8_bytes"] for ``text``, in the words of encode or decode."""
    return NON_ASCII["utf8_bytes"].format(kind=kind, chars=beyond_ascii(text), becomes=becomes,
                                          fix=fix)  # fmt: skip
