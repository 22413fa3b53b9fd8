META = {'exercise': '05.LayerNorm',
        'correct': True,
        'source': 'torch.var_mean(correction=0) and torch.rsqrt'}


class LayerNorm(nn.Module):
    def __init__(self, d_model: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        var, mean = torch.var_mean(x, dim=-1, keepdim=True, correction=0)
        return torch.addcmul(self.bias, (x - mean) * torch.rsqrt(var + self.eps), self.weight)
