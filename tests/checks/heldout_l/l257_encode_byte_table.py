META = {'exercise': '07b.encode',
        'cause': 'maps the UTF-8 bytes of the text through a 256-entry byte table: non-ASCII characters become several ids or a KeyError',
        'keywords': [r'non-?ascii', r'utf-?8', r'bytes?', r'unicode', r'multi-?byte', r'256'],
        'kind': 'text',
        'single_edit': False}


def encode(text: str, vocab: str) -> torch.Tensor:
    table = torch.full((256,), -1, dtype=torch.long)
    for i, ch in enumerate(vocab):
        if ord(ch) < 256:
            table[ord(ch)] = i
    data = torch.tensor(list(text.encode("utf-8")), dtype=torch.long)
    return table[data]
