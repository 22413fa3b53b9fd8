META = {'exercise': '06.train_one_epoch',
        'cause': 'the forward pass runs under torch.no_grad(): the loss has no graph to backpropagate',
        'keywords': [r'detach', r'no[_ ]grad', r'gradient', r'backward', r'autograd', r'requires_grad', r'\bgrads?\b'],
        'kind': 'gradient',
        'single_edit': False}


def train_one_epoch(model, batches, optimizer, loss_fn) -> float:
    model.train()
    total, count = 0.0, 0
    for inputs, targets in batches:
        with torch.no_grad():
            outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
        count += 1
    return total / count
