META = {'exercise': '05.LayerNorm',
        'correct': True,
        'source': "llm.c's layernorm_forward (mean, xshift, var, rstd = (var + eps) ** -0.5, norm * w + b)"}


class LayerNorm(nn.Module):
    def __init__(self, d_model: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        C = x.size(-1)
        mean = x.sum(-1, keepdim=True) / C
        xshift = x - mean
        var = (xshift ** 2).sum(-1, keepdim=True) / C
        rstd = (var + self.eps) ** -0.5
        norm = xshift * rstd
        return norm * self.weight + self.bias
