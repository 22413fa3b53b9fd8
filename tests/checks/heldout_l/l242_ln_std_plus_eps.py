META = {'exercise': '05.LayerNorm',
        'cause': 'divides by x.std() + eps: the unbiased standard deviation, and eps outside the square root',
        'keywords': [r'unbiased', r'\.std\(', r'eps (is )?(inside|outside|in the wrong place|added|ignored)', r'sqrt\(var\) ?\+ ?eps', r'outside', r'd ?- ?1', r'square ?root'],
        'kind': 'math',
        'single_edit': False}


class LayerNorm(nn.Module):
    def __init__(self, d_model: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, keepdim=True)
        return self.weight * (x - mean) / (std + self.eps) + self.bias
