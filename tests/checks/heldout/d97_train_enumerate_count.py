META = {"exercise": "06.train_one_epoch",
        "cause": "divides by the last index of enumerate (i) instead of the number of batches i + 1: off by one (ZeroDivisionError with one batch)",
        "keywords": [r"off.by.one", r"number of batches", r"count", r"mean", r"enumerate|i \+ 1"]}


def train_one_epoch(model, batches, optimizer, loss_fn):
    model.train()
    total = 0.0
    for i, (inputs, targets) in enumerate(batches):
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / i
