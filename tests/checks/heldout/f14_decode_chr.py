META = {"exercise": "07b.decode",
        "cause": "chr(i), the Unicode character of the id, instead of vocab[i]",
        "keywords": [r"chr\(|code point|unicode", r"vocab\[", r"index in (the )?`?vocab", r"inverse of `?encode"]}


def decode(ids, vocab):
    return "".join(chr(int(i)) for i in ids)
