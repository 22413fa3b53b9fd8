META = {"exercise": "06.train_one_epoch", "correct": True,
        "source": "zero_grad(set_to_none=True) at the top of the loop and a running mean updated incrementally (Welford-style), in the style of the PyTorch 'Optimizing Model Parameters' tutorial"}


def train_one_epoch(model, batches, optimizer, loss_fn):
    model.train()
    mean, count = 0.0, 0
    for inputs, targets in batches:
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        count += 1
        mean += (loss.item() - mean) / count
    return float(mean)
