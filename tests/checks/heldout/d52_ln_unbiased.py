META = {"exercise": "05.LayerNorm",
        "cause": "uses the unbiased variance (x.var default, divided by d - 1) instead of the biased one",
        "keywords": [r"unbiased", r"biased", r"d\s*-\s*1|n\s*-\s*1", r"bessel"]}

class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True)
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return x_hat * self.weight + self.bias
