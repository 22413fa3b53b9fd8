META = {"exercise": "05.LayerNorm",
        "cause": "ignores the eps argument and always uses 1e-5 (shows only with eps != 1e-5)",
        "keywords": [r"eps", r"1e-5|1e-05", r"argument"]}

class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, unbiased=False, keepdim=True)
        x_hat = (x - mean) / torch.sqrt(var + 1e-5)
        return x_hat * self.weight + self.bias
