META = {'exercise': '05.LayerNorm',
        'cause': "centres x in place (x -= mean): the caller's tensor is changed",
        'keywords': [r'in[- ]?place', r'mutat', r'(chang|modif|overwr|alter)\w*\W+(\w+\W+){0,4}(input|argument|caller|given)', r'(input|argument|caller)\w*\W+(\w+\W+){0,4}(chang|modif|overwr|alter)'],
        'kind': 'mode/state',
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
        x -= mean
        return x / torch.sqrt(var + self.eps) * self.weight + self.bias
