META = {"exercise": "01.softmax", "correct": True,
        "source": "torch.max(...).values + unsqueeze instead of amax(keepdim=True); division by the sum via reciprocal"}


def softmax(x, dim=-1):
    m = torch.max(x, dim=dim).values.unsqueeze(dim)
    e = torch.exp(x - m)
    return e * e.sum(dim=dim, keepdim=True).reciprocal()
