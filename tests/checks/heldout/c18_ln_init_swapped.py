META = {"exercise": "05.LayerNorm", "cause": "the initial values are swapped: weight starts at zeros and bias at ones, so a fresh LayerNorm outputs all ones", "keywords": [r"init", r"ones", r"zeros"]}


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.zeros(d_model))
        self.bias = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias
