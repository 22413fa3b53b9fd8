META = {"exercise": "05.LayerNorm", "cause": "statistics over the sequence and feature dims (-2, -1) instead of the last dim only",
        "keywords": [r"\bdim", r"last", r"feature", r"over", r"position", r"token"]}


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        dims = tuple(range(1, x.dim()))
        mean = x.mean(dims, keepdim=True)
        var = ((x - mean) ** 2).mean(dims, keepdim=True)
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
