META = {"exercise": "06.train_one_epoch", "cause": "returns the last batch's loss instead of the mean over the batches",
        "keywords": [r"mean", r"average", r"last"]}


def train_one_epoch(model, batches, optimizer, loss_fn):
    model.train()
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
    return loss.item()
