META = {"exercise": "07b.decode",
        "cause": "strips the decoded text (.strip()): leading/trailing spaces and newlines are lost, decode is no longer the inverse of encode",
        "keywords": [r"strip", r"whitespace|space|newline", r"inverse|round.?trip"]}


def decode(ids, vocab):
    return "".join(vocab[int(i)] for i in ids).strip()
