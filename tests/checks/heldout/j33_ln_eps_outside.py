META = {"exercise": "05.LayerNorm",
        "cause": "adds eps to the standard deviation (outside the square root) instead of to the variance",
        "keywords": [r"\beps\b", r"sqrt", r"square root", r"outside|inside"]}


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, unbiased=False, keepdim=True)
        return (x - mean) / (std + self.eps) * self.weight + self.bias
