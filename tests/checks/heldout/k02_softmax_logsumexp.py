META = {"exercise": "01.softmax", "correct": True, "source": "exp(x - logsumexp) computed by hand with the max shift"}


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    m = x.amax(dim=dim, keepdim=True)
    lse = m + (x - m).exp().sum(dim=dim, keepdim=True).log()
    return (x - lse).exp()
