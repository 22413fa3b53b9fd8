META = {'exercise': '06.train_one_epoch',
        'cause': "total += loss (not loss.item()): returns a tensor and keeps every batch's graph",
        'keywords': [r'item\(\)', r'(not|instead of|rather than) an? (python |0-d )?(float|tensor|int|str|string|list)', r'(returns?|returned|got|is) an? (python |0-d )?(float|tensor|int|list|str|string)', r'python (float|int|list)', r'\bfloat\b(?!\()', r'graph'],
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
        total += loss
        count += 1
    return total / count
