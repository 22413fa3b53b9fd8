META = {"exercise": "05.LayerNorm",
        "cause": "stores self.eps but uses the literal 1e-5 in forward, so a different eps argument has no effect",
        "keywords": [r"\beps\b", r"epsilon"]}


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + 1e-5) * self.weight + self.bias
