META = {'exercise': '07b.save_checkpoint',
        'correct': True,
        'source': "nanoGPT train.py checkpoint dict (model, optimizer, model_args, iter_num, best_val_loss, config), step under 'step'"}


def save_checkpoint(path, model, optimizer, step):
    raw_model = model
    checkpoint = {
        "model": raw_model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "model_args": {"class": type(raw_model).__name__},
        "step": step,
        "best_val_loss": float("inf"),
        "config": {},
    }
    torch.save(checkpoint, path)
