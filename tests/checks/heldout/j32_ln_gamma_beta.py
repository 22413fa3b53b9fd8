META = {"exercise": "05.LayerNorm",
        "cause": "names the parameters gamma and beta instead of weight and bias, so nn.LayerNorm's state_dict does not load",
        "keywords": [r"gamma|beta", r"\bweight\b", r"name", r"state_dict"]}


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.gamma = nn.Parameter(torch.ones(d_model))
        self.beta = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, unbiased=False, keepdim=True)
        return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta
