META = {"exercise": "05.LayerNorm",
        "cause": "computes the statistics in float32 (x.float()) for stability and casts back, so float64 inputs lose precision",
        "keywords": [r"float64", r"float32", r"precision", r"dtype", r"double"]}

class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        dtype = x.dtype
        x = x.float()
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, unbiased=False, keepdim=True)
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return x_hat.to(dtype) * self.weight + self.bias
