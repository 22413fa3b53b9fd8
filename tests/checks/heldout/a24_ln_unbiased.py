META = {"exercise": "05.LayerNorm", "cause": "unbiased variance (divides by d_model - 1) instead of the biased one",
        "keywords": [r"unbiased", r"biased", r"n ?- ?1", r"d_model ?- ?1", r"Bessel", r"correction"]}


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        std = torch.sqrt(x.var(-1, keepdim=True) + self.eps)
        return self.weight * (x - mean) / std + self.bias
