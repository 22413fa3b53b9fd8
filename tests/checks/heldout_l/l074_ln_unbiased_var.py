META = {'exercise': '05.LayerNorm',
        'cause': 'the unbiased variance (divided by d - 1) instead of the biased one',
        'keywords': [r'unbiased', r'biased', r'd ?- ?1', r'bessel', r'correction'],
        'kind': 'math',
        'single_edit': True}


class LayerNorm(nn.Module):
    def __init__(self, d_model: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        dims = -1
        mean = x.mean(dim=dims, keepdim=True)
        var = x.var(dim=dims, unbiased=True, keepdim=True)
        x = x - mean
        return x / torch.sqrt(var + self.eps) * self.weight + self.bias
