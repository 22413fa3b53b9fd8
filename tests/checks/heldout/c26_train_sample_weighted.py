META = {"exercise": "06.train_one_epoch", "cause": "returns the mean loss per sample (each batch loss weighted by its batch size) instead of the plain mean of the batch losses, which differs when batches have different sizes", "keywords": [r"batch size", r"weight(ed)?", r"per (sample|example)", r"mean of the batch losses|mean over (the )?batches", r"len\(inputs\)|size\(0\)"]}


def train_one_epoch(model, batches, optimizer, loss_fn):
    model.train()
    total, seen = 0.0, 0
    for inputs, targets in batches:
        loss = loss_fn(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * inputs.size(0)
        seen += inputs.size(0)
    return total / seen
