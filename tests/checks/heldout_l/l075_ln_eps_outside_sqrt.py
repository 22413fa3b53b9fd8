META = {'exercise': '05.LayerNorm',
        'cause': 'eps is added outside the square root: sqrt(var) + eps',
        'keywords': [r'eps (is )?(inside|outside|in the wrong place|added|ignored)', r'sqrt\(var\) ?\+ ?eps', r'sqrt', r'square ?root', r'inside', r'outside'],
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
        var = x.var(dim=dims, unbiased=False, keepdim=True)
        x = x - mean
        return x / (torch.sqrt(var) + self.eps) * self.weight + self.bias
