META = {'exercise': '05.LayerNorm',
        'cause': 'RMSNorm: divides by the root mean square without subtracting the mean',
        'keywords': [r'\bmean\b', r'rms', r'centr', r'subtract'],
        'kind': 'math',
        'single_edit': False}


class LayerNorm(nn.Module):
    def __init__(self, d_model: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return x * rms * self.weight + self.bias
