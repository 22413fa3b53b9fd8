META = {"exercise": "06.train_one_epoch",
        "cause": "returns the sum of the batch losses instead of their mean",
        "keywords": [r"mean", r"sum", r"divid", r"number of batches|average"]}


def train_one_epoch(model, batches, optimizer, loss_fn):
    model.train()
    total = 0.0
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total
