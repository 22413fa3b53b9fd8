META = {"exercise": "06.train_one_epoch",
        "cause": "accumulates the loss tensors (total += loss) and returns a tensor, not a Python float (keeping every batch's graph alive)",
        "keywords": [r"\.item\(\)", r"float", r"graph"]}


def train_one_epoch(model, batches, optimizer, loss_fn):
    model.train()
    total, n = 0.0, 0
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss
        n += 1
    return total / n
