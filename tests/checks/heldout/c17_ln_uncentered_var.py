META = {"exercise": "05.LayerNorm", "cause": "the variance is computed as mean(x**2) around 0, not around the mean (x - mu), so inputs with a nonzero mean are divided by too large a number", "keywords": [r"mean\(x ?\*\* ?2\)|E\[x\^?2\]|x ?\*\* ?2|squares", r"cent(er|re)", r"rms", r"subtract", r"around (the|its) mean"]}


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mu = x.mean(dim=-1, keepdim=True)
        var = (x * x).mean(dim=-1, keepdim=True)
        return (x - mu) / torch.sqrt(var + self.eps) * self.weight + self.bias
