META = {"exercise": "06.train_one_epoch",
        "cause": "counts batches with the last enumerate index, so the mean divides by n-1 instead of n",
        "keywords": [r"mean", r"count", r"off.by.one", r"n ?- ?1", r"number of batches", r"divid"]}


def train_one_epoch(model, batches, optimizer, loss_fn):
    model.train()
    total = 0.0
    i = 0
    for i, (inputs, targets) in enumerate(batches):
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / max(i, 1)
