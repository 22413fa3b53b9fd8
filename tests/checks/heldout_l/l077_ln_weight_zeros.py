META = {'exercise': '05.LayerNorm',
        'cause': 'weight starts at zeros instead of ones: the freshly built module outputs only the bias',
        'keywords': [r'init', r'ones', r'zeros', r'weight', r'start'],
        'kind': 'math',
        'single_edit': True}


class LayerNorm(nn.Module):
    def __init__(self, d_model: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.zeros(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        dims = -1
        mean = x.mean(dim=dims, keepdim=True)
        var = x.var(dim=dims, unbiased=False, keepdim=True)
        x = x - mean
        return x / torch.sqrt(var + self.eps) * self.weight + self.bias
