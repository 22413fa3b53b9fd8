META = {'exercise': '05.LayerNorm',
        'cause': 'the mean and variance are detached: the gradient misses their paths back to x',
        'keywords': [r'detach', r'no[_ ]grad', r'gradient', r'backward', r'autograd', r'requires_grad', r'\bgrads?\b', r'mean and (the )?var'],
        'kind': 'gradient',
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
        mean, var = mean.detach(), var.detach()
        x = x - mean
        return x / torch.sqrt(var + self.eps) * self.weight + self.bias
