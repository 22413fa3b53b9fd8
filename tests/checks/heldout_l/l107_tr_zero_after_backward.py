META = {'exercise': '06.train_one_epoch',
        'cause': 'zero_grad() between backward() and step(): every step sees zero gradients',
        'keywords': [r'zero_grad', r'after (loss\.)?backward', r'(wrong|another|reversed|swapped) order', r'order (is |was )?(wrong|swapped|reversed)', r'out of order', r'zero gradient', r'nothing (is )?learn', r"weights? (do not|don't|never) change"],
        'kind': 'gradient',
        'single_edit': False}


def train_one_epoch(model, batches, optimizer, loss_fn) -> float:
    model.train()
    total, count = 0.0, 0
    for inputs, targets in batches:
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
        total += loss.item()
        count += 1
    return total / count
