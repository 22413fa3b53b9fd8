META = {"exercise": "07b.save_checkpoint",
        "cause": "saves step + 1 (\"the next step to run\"): the resumed run skips a step, its batches and learning rates are one off",
        "keywords": [r"step ?\+ ?1|one (step )?(too )?(late|off|ahead)|off by one|next step"]}


def save_checkpoint(path, model, optimizer, step):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "step": step + 1}, path)
