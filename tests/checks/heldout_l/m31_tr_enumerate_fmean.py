META = {'exercise': '06.train_one_epoch',
        'correct': True,
        'source': 'enumerate for the count, statistics.fmean-free running mean (Welford update)'}


def train_one_epoch(model, batches, optimizer, loss_fn) -> float:
    model.train()
    mean = 0.0
    for i, (inputs, targets) in enumerate(batches, start=1):
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        mean += (loss.item() - mean) / i
    return mean
