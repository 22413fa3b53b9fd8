META = {"exercise": "05.LayerNorm",
        "cause": "takes the mean per token but the variance over the whole tensor (x.var(unbiased=False) with no dim), so tokens are not normalized on their own",
        "keywords": [r"last dim", r"per.token|each token", r"dim\s*=\s*-1", r"whole|all (dims|elements)|batch"]}

class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(unbiased=False)
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return x_hat * self.weight + self.bias
