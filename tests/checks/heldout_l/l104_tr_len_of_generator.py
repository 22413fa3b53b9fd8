META = {'exercise': '06.train_one_epoch',
        'cause': 'divides by len(batches): a generator has no len()',
        'keywords': [r'len\(', r'generator', r'count'],
        'kind': 'type',
        'single_edit': True}


def train_one_epoch(model, batches, optimizer, loss_fn) -> float:
    model.train()
    total, count = 0.0, 0
    for inputs, targets in batches:
        loss = loss_fn(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
        count += 1
    return total / len(batches)
