META = {'exercise': '06.train_one_epoch',
        'cause': "optimizer.step() before loss.backward(): each step uses no gradient (or the previous batch's)",
        'keywords': [r'step\(\) before', r'before (loss\.)?backward', r'(wrong|another|reversed|swapped) order', r'order (is |was )?(wrong|swapped|reversed)', r'out of order', r'backward'],
        'kind': 'gradient',
        'single_edit': False}


def train_one_epoch(model, batches, optimizer, loss_fn) -> float:
    model.train()
    total, count = 0.0, 0
    for inputs, targets in batches:
        loss = loss_fn(model(inputs), targets)
        optimizer.zero_grad()
        optimizer.step()
        loss.backward()
        total += loss.item()
        count += 1
    return total / count
