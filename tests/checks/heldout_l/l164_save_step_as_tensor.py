META = {'exercise': '07b.save_checkpoint',
        'cause': 'saves the step as a tensor, not an int',
        'keywords': [r'\bint\b', r'(not|instead of|rather than) an? (python |0-d )?(float|tensor|int|str|string|list)', r'(returns?|returned|got|is) an? (python |0-d )?(float|tensor|int|list|str|string)', r'python (float|int|list)', r'(wrong|return) type', r'type (is|was|should be)'],
        'kind': 'type',
        'single_edit': True}


def save_checkpoint(path, model, optimizer, step):
    checkpoint = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": torch.tensor(step)}
    torch.save(checkpoint, path)
