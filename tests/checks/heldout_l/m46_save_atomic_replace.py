META = {'exercise': '07b.save_checkpoint',
        'correct': True,
        'source': 'write to a temporary file and os.replace it (atomic save, as training frameworks do)'}


import os


def save_checkpoint(path, model, optimizer, step):
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as f:
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": int(step)}, f)
    os.replace(tmp, path)
