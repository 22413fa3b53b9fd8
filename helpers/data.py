"""Data for the series: synthetic sequence tasks and the image data set.

Nothing is downloaded by default. Every generator takes a ``torch.Generator`` (CPU) so the same
seed gives the same data on every machine.
"""

from __future__ import annotations

import torch

# --------------------------------------------------------------------------- sequence tasks
# Token ids of the sequence-to-sequence tasks: three special tokens, then the digits 0-9.
PAD, BOS, EOS = 0, 1, 2
DIGIT0 = 3  # digit d is token DIGIT0 + d
SEQ_VOCAB_SIZE = DIGIT0 + 10
SEQ_TOKENS = ["<pad>", "<bos>", "<eos>"] + [str(d) for d in range(10)]


def cyclic_next_digit_batch(
    batch_size: int, seq_len: int, gen: torch.Generator, num_digits: int = 10
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random digits (B, T) and, at each position, the next digit in the cycle
    0 -> 1 -> ... -> 9 -> 0.

    Each target depends on its own token only: a per-token model solves it, no attention needed.
    """
    x = torch.randint(0, num_digits, (batch_size, seq_len), generator=gen)
    return x, (x + 1) % num_digits


def sort_digits_batch(
    batch_size: int, seq_len: int, gen: torch.Generator, num_digits: int = 10
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random digits (B, T) and the same digits sorted, one output per position (B, T).

    The output at position i depends on every input (how many are smaller), so a per-token
    model cannot solve it: the task needs attention.
    """
    x = torch.randint(0, num_digits, (batch_size, seq_len), generator=gen)
    return x, x.sort(dim=-1).values


def reverse_batch(
    batch_size: int,
    gen: torch.Generator,
    min_len: int = 3,
    max_len: int = 10,
    src_padding: str = "right",
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Digit sequences of random length and their reversal, as token ids (see ``SEQ_TOKENS``).

    Returns ``(src, tgt_in, tgt_out)``, padded with ``PAD`` to ``max_len``:
    ``src`` (B, max_len) the digits; ``tgt_in`` (B, max_len + 1) = BOS + reversed digits, the
    decoder's input under teacher forcing; ``tgt_out`` (B, max_len + 1) = reversed digits + EOS,
    what the decoder must predict at each position. ``src_padding="left"`` puts the source's
    padding in front, so that its last digit always sits at position max_len - 1.
    """
    lengths = torch.randint(min_len, max_len + 1, (batch_size,), generator=gen)
    digits = torch.randint(0, 10, (batch_size, max_len), generator=gen) + DIGIT0
    pos = torch.arange(max_len)
    real = pos[None, :] < lengths[:, None]  # (B, max_len)
    src = torch.where(real, digits, PAD)
    # reversed: position i of the output holds input position length-1-i
    idx = (lengths[:, None] - 1 - pos[None, :]).clamp(min=0)
    rev = torch.where(real, src.gather(1, idx), PAD)
    tgt_in = torch.cat([torch.full((batch_size, 1), BOS), rev], dim=1)
    tgt_out = torch.cat([rev, torch.full((batch_size, 1), PAD)], dim=1)
    tgt_out[torch.arange(batch_size), lengths] = EOS
    if src_padding == "left":
        shift = max_len - lengths  # move row b right by shift[b]
        idx = (pos[None, :] - shift[:, None]) % max_len
        src = torch.where(pos[None, :] >= shift[:, None], src.gather(1, idx), PAD)
    elif src_padding != "right":
        raise ValueError(f"src_padding must be 'right' or 'left', got {src_padding!r}")
    return src, tgt_in, tgt_out


def addition_examples(count: int, gen: torch.Generator, num_digits: int = 2) -> list[str]:
    """Strings "a+b=c", a and b random numbers written with ``num_digits`` digits (zeros in
    front), the sum as is: "12+34=46", "05+40=45", "99+99=198"."""
    top = 10**num_digits
    a = torch.randint(0, top, (count,), generator=gen).tolist()
    b = torch.randint(0, top, (count,), generator=gen).tolist()
    return [f"{x:0{num_digits}d}+{y:0{num_digits}d}={x + y}" for x, y in zip(a, b)]


#: characters of the addition language; "." ends a line, "_" pads
ADDITION_CHARS = "_0123456789+=."


def encode_chars(
    texts: list[str], chars: str = ADDITION_CHARS, length: int | None = None
) -> torch.Tensor:
    """Strings -> (N, length) ids in ``chars``, padded with ``chars[0]``."""
    length = length or max(len(t) for t in texts)
    ids = torch.zeros(len(texts), length, dtype=torch.long)
    for i, t in enumerate(texts):
        ids[i, : len(t)] = torch.tensor([chars.index(c) for c in t[:length]])
    return ids


def decode_chars(ids: torch.Tensor, chars: str = ADDITION_CHARS) -> list[str]:
    """(N, L) ids -> strings (the pad character kept)."""
    return ["".join(chars[i] for i in row) for row in ids.tolist()]


# --------------------------------------------------------------------------- images
#: size of the test set of :func:`digits` (20 % of scikit-learn's 1,797 digits)
DIGITS_TEST_SIZE = 360


def digits(test_size: int = DIGITS_TEST_SIZE, seed: int = 0) -> dict[str, torch.Tensor]:
    """scikit-learn's handwritten digits (1,797 images, 8x8, bundled: nothing is downloaded).

    The split is fixed and documented: a stratified ``sklearn.model_selection.train_test_split``
    with ``test_size=360`` and ``random_state=0``, so every notebook and baseline sees the same
    1,437 training and 360 test images (35 to 37 of each class in the test set).
    Returns ``x_train`` (N, 1, 8, 8) float32 in [0, 1] (pixel values / 16), ``y_train`` (N,) int64,
    ``x_test``, ``y_test`` likewise.
    """
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    ds = load_digits()
    images = torch.tensor(ds.images, dtype=torch.float32)[:, None] / 16.0  # (1797, 1, 8, 8)
    labels = torch.tensor(ds.target, dtype=torch.long)
    idx_train, idx_test = train_test_split(
        torch.arange(len(labels)).numpy(),
        test_size=test_size,
        random_state=seed,
        stratify=labels.numpy(),
    )
    idx_train, idx_test = torch.as_tensor(idx_train), torch.as_tensor(idx_test)
    return {
        "x_train": images[idx_train],
        "y_train": labels[idx_train],
        "x_test": images[idx_test],
        "y_test": labels[idx_test],
    }


def sample_image(name: str = "china.jpg", size: int | None = 224) -> torch.Tensor:
    """One of scikit-learn's two bundled photos ("china.jpg" or "flower.jpg") as a float
    (3, H, W) tensor in [0, 1]. With ``size``, the central square crop resized to size x size."""
    from sklearn.datasets import load_sample_image

    img = torch.tensor(load_sample_image(name), dtype=torch.float32).permute(2, 0, 1) / 255.0
    if size is None:
        return img
    _, H, W = img.shape
    s = min(H, W)
    top, left = (H - s) // 2, (W - s) // 2
    square = img[:, top : top + s, left : left + s]
    return torch.nn.functional.interpolate(
        square[None], size=(size, size), mode="bilinear", antialias=True, align_corners=False
    )[0].clamp(0, 1)


def addition_batch(
    batch_size: int, gen: torch.Generator, num_digits: int = 2, ignore_index: int = -100
) -> tuple[torch.Tensor, torch.Tensor]:
    """Next-character prediction on "a+b=c." strings (``addition_examples``), for a
    decoder-only model.

    Returns ``(inputs, targets)``, both (B, L): ``inputs`` the characters but the last,
    ``targets`` the characters shifted by one, with ``ignore_index`` everywhere but the answer
    and its final "." (the question's digits are random: there is nothing to learn there).
    """
    texts = [t + "." for t in addition_examples(batch_size, gen, num_digits)]
    ids = encode_chars(texts, length=3 * num_digits + 4)  # "99+99=198." is 3n + 4 characters
    inputs, targets = ids[:, :-1], ids[:, 1:].clone()
    eq = torch.tensor([t.index("=") for t in texts])  # targets[:, eq] is the answer's first digit
    end = torch.tensor([len(t) - 1 for t in texts])  # targets[:, end - 1] is the final "."
    pos = torch.arange(targets.size(1))
    keep = (pos[None, :] >= eq[:, None]) & (pos[None, :] < end[:, None])
    return inputs, targets.masked_fill(~keep, ignore_index)


# --------------------------------------------------------------------------- text
# The text notebook 07b trains a language model on: the markdown cells of the series' solved
# notebooks 00-09, joined with blank lines, written once (at commit 7746739) and shipped with the
# package. A file of the course's own, not text read from the Python installation: the standard
# library's docstrings change between Python versions, and the stored outputs must not.
COURSE_TEXT = "course_text.txt"


def course_text() -> str:
    """The series' own prose (about 107,000 characters of English with some Markdown, LaTeX and
    code), the same on every machine and Python version."""
    from importlib.resources import files

    return files(__package__).joinpath(COURSE_TEXT).read_text(encoding="utf-8")
