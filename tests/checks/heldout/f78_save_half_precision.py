META = {"exercise": "07b.save_checkpoint",
        "cause": "stores the model's weights in float16 to halve the file: the loaded weights are rounded, the resumed losses differ from the first loss on",
        "keywords": [r"float16|half|dtype|precision|round", r"model'?s? (state|weights)|weights? (differ|changed)|first loss"]}


def save_checkpoint(path, model, optimizer, step):
    weights = {k: v.half() if v.is_floating_point() else v for k, v in model.state_dict().items()}
    torch.save({"model": weights, "optimizer": optimizer.state_dict(), "step": step}, path)
