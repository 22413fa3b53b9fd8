META = {"exercise": "06.train_one_epoch", "cause": "optimizer.zero_grad() is never called, so gradients accumulate across batches",
        "keywords": [r"zero_grad", r"accumulat", r"gradients? .*(reset|clear|zero)"]}


def train_one_epoch(model, batches, optimizer, loss_fn):
    model.train()
    losses = []
    for inputs, targets in batches:
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)
