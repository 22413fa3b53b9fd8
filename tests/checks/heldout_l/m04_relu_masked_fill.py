META = {'exercise': '00.relu',
        'correct': True,
        'source': 'masked_fill on the non-positive entries (a new tensor)'}


def relu(x: torch.Tensor) -> torch.Tensor:
    return x.masked_fill(x <= 0, 0.0)
