META = {"exercise": "06.train_one_epoch",
        "cause": "divides by len(batches), which a generator does not have (TypeError); the text says to count the batches as you go",
        "keywords": [r"len\(", r"generator", r"count"]}


def train_one_epoch(model, batches, optimizer, loss_fn):
    model.train()
    total = 0.0
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(batches)
