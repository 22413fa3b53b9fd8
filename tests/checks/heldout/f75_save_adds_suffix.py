META = {"exercise": "07b.save_checkpoint",
        "cause": "appends \".pt\" to the path: the file is written next to path, and nothing is at path itself",
        "keywords": [r"\.pt|suffix|extension", r"nothing (is )?at|no file at|not (found|written) at|(another|other|different) (file|path)|wrote .* elsewhere"]}


def save_checkpoint(path, model, optimizer, step):
    path = str(path) + ".pt"  # the usual extension of a PyTorch checkpoint
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, path)
