META = {'exercise': '00.relu',
        'correct': True,
        'source': "torch.maximum against a zero of x's dtype and device"}


def relu(x: torch.Tensor) -> torch.Tensor:
    return torch.maximum(x, x.new_zeros(()))
