META = {"exercise": "06.train_one_epoch", "cause": "zero_grad() is called between backward() and step(), so every step uses zero gradients",
        "keywords": [r"zero_grad", r"order", r"before (backward|step)", r"no (update|step|learning)", r"gradients? .*zero"]}


def train_one_epoch(model, batches, optimizer, loss_fn):
    model.train()
    total = 0.0
    n = 0
    for inputs, targets in batches:
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
        total += loss.item()
        n += 1
    return total / n
