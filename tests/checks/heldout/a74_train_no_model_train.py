META = {"exercise": "06.train_one_epoch", "cause": "model.train() is never called: a model left in eval mode trains without dropout",
        "keywords": [r"model\.train\(\)", r"train(ing)? mode", r"eval"]}


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
