META = {"exercise": "01.softmax",
        "cause": "sums the exponentials without keepdim, so the division broadcasts the row sums along the wrong axis (silently wrong for square inputs)",
        "keywords": [r"keepdim", r"broadcast", r"sum.{0,30}(axis|dim)"]}


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = (x - x.amax(dim=dim, keepdim=True)).exp()
    return e / e.sum(dim=dim)
