META = {'exercise': '06.train_one_epoch',
        'cause': "weights each batch's loss by its number of samples: the mean over samples, not the mean of the batch losses",
        'keywords': [r'sample', r'batch size', r'weigh', r'mean of the batch', r'per batch'],
        'kind': 'math',
        'single_edit': False}


def train_one_epoch(model, batches, optimizer, loss_fn) -> float:
    model.train()
    total, seen = 0.0, 0
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(inputs)
        seen += len(inputs)
    return total / seen
