META = {"exercise": "06.train_one_epoch",
        "cause": "calls optimizer.zero_grad() between loss.backward() and optimizer.step(), so every step finds zero gradients and nothing is learned",
        "keywords": [r"zero_grad", r"order", r"before (loss\.)?backward", r"between"]}


def train_one_epoch(model, batches, optimizer, loss_fn):
    model.train()
    total, n = 0.0, 0
    for inputs, targets in batches:
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
        total += loss.item()
        n += 1
    return total / n
