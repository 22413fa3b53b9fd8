META = {'exercise': '05.LayerNorm',
        'cause': 'weight and bias are plain tensors, not nn.Parameter: they never train and are missing from state_dict()',
        'keywords': [r'regist', r'nn\.Parameter', r'parameters\(\)', r'never train', r'not (a )?param', r'state[_ ]dict', r'ModuleList', r'not learn', r'optimi[sz]er'],
        'kind': 'gradient',
        'single_edit': False}


class LayerNorm(nn.Module):
    def __init__(self, d_model: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.ones(d_model)
        self.bias = torch.zeros(d_model)

    def forward(self, x):
        dims = -1
        mean = x.mean(dim=dims, keepdim=True)
        var = x.var(dim=dims, unbiased=False, keepdim=True)
        x = x - mean
        return x / torch.sqrt(var + self.eps) * self.weight + self.bias
