META = {"exercise": "06.train_one_epoch",
        "cause": "sums the loss tensors instead of loss.item(), returning a tensor (holding every graph) instead of a Python float",
        "keywords": [r"float", r"item\(\)", r"tensor"]}


def train_one_epoch(model, batches, optimizer, loss_fn):
    model.train()
    total, count = 0, 0
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total = total + loss
        count += 1
    return total / count
