META = {"exercise": "05.LayerNorm",
        "cause": "uses the unbiased variance (divides by d-1), x.var(-1) with its default correction",
        "keywords": [r"unbiased", r"bias(ed)? variance", r"n ?- ?1|d ?- ?1|bessel|correction"]}


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
