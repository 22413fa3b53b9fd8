META = {'exercise': '06.train_one_epoch',
        'cause': 'never calls optimizer.zero_grad(): gradients of every past batch pile up',
        'keywords': [r'zero_grad', r'accumulat', r'pile', r'previous batch', r'\.grad\b'],
        'kind': 'gradient',
        'single_edit': True}


def train_one_epoch(model, batches, optimizer, loss_fn) -> float:
    model.train()
    total, count = 0.0, 0
    for inputs, targets in batches:
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
        count += 1
    return total / count
