META = {"exercise": "05.LayerNorm", "cause": "eps added to the standard deviation (outside the square root) instead of to the variance",
        "keywords": [r"eps", r"square root", r"sqrt"]}


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, unbiased=False, keepdim=True)
        return self.weight * (x - mean) / (std + self.eps) + self.bias
