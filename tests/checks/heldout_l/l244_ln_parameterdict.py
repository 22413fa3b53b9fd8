META = {'exercise': '05.LayerNorm',
        'cause': 'the parameters sit in an nn.ParameterDict (params.weight, params.bias): the names weight and bias that nn.LayerNorm uses are missing',
        'keywords': [r'(missing|unexpected) keys?', r'\bnames?\b', r'attribute', r'state_dict', r'ParameterDict'],
        'kind': 'mode/state',
        'single_edit': False}


class LayerNorm(nn.Module):
    def __init__(self, d_model: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.params = nn.ParameterDict({"gamma": nn.Parameter(torch.ones(d_model)),
                                        "beta": nn.Parameter(torch.zeros(d_model))})

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + self.eps) * self.params["gamma"] + self.params["beta"]
