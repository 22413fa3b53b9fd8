META = {'exercise': '07b.load_checkpoint',
        'correct': True,
        'source': "nanoGPT train.py resume (strip '_orig_mod.' prefixes, load_state_dict, optimizer.load_state_dict, iter_num)"}


def load_checkpoint(path, model, optimizer) -> int:
    checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    state_dict = checkpoint["model"]
    unwanted_prefix = "_orig_mod."
    for k, v in list(state_dict.items()):
        if k.startswith(unwanted_prefix):
            state_dict[k[len(unwanted_prefix):]] = state_dict.pop(k)
    model.load_state_dict(state_dict)
    optimizer.load_state_dict(checkpoint["optimizer"])
    iter_num = checkpoint["step"]
    checkpoint = None
    return iter_num
