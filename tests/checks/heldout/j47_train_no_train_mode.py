META = {"exercise": "06.train_one_epoch",
        "cause": "never calls model.train(), so a model left in eval mode trains with dropout off",
        "keywords": [r"train\(\)", r"training mode", r"eval", r"dropout"]}


def train_one_epoch(model, batches, optimizer, loss_fn):
    total, count = 0.0, 0
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
        count += 1
    return total / count
