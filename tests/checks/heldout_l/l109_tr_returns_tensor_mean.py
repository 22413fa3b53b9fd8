META = {'exercise': '06.train_one_epoch',
        'cause': 'collects the losses and returns torch.tensor(losses).mean(): a tensor, not a float',
        'keywords': [r'\bfloat\b(?!\()', r'(not|instead of|rather than) an? (python |0-d )?(float|tensor|int|str|string|list)', r'(returns?|returned|got|is) an? (python |0-d )?(float|tensor|int|list|str|string)', r'python (float|int|list)', r'item\(\)', r'(wrong|return) type', r'type (is|was|should be)'],
        'kind': 'type',
        'single_edit': False}


def train_one_epoch(model, batches, optimizer, loss_fn) -> float:
    model.train()
    losses = []
    for inputs, targets in batches:
        loss = loss_fn(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return torch.tensor(losses).mean()
