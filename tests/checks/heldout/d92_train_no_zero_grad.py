META = {"exercise": "06.train_one_epoch",
        "cause": "never calls optimizer.zero_grad(), so gradients from earlier batches accumulate in .grad",
        "keywords": [r"zero_grad", r"accumulat", r"pile"]}


def train_one_epoch(model, batches, optimizer, loss_fn):
    model.train()
    total, n = 0.0, 0
    for inputs, targets in batches:
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
        n += 1
    return total / n
