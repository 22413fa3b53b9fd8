META = {'exercise': '01.softmax',
        'correct': True,
        'source': 'x.max(dim, keepdim=True).values and a reciprocal'}


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    shifted = x - x.max(dim=dim, keepdim=True).values
    e = shifted.exp()
    return e * e.sum(dim=dim, keepdim=True).reciprocal()
