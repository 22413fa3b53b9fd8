META = {'exercise': '06.train_one_epoch',
        'cause': 'never puts the model in training mode (model.train())',
        'keywords': [r'\.eval\(\)', r'\.train\(', r'(left|leaves?|stays?|remains?|comes back|back) in (eval|evaluation|train|training)', r'(puts?|switch\w*|sets?|turns?) (the |your )?(model|module) (in|to|into) eval', r'restor', r'\.training\b', r"(switch|chang|flip)\w* (the )?(caller'?s? )?(model|module)'?s? mode", r'mode (is |was )?(not )?(restored|changed|kept)', r'(not|never) (put|set|switch)\w* (the model )?(in|to|into) train(ing)? mode', r'model\.train\(\)', r'dropout (stays |is )?off'],
        'kind': 'mode/state',
        'single_edit': True}


def train_one_epoch(model, batches, optimizer, loss_fn) -> float:
    total, count = 0.0, 0
    for inputs, targets in batches:
        loss = loss_fn(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
        count += 1
    return total / count
