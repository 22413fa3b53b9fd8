META = {"exercise": "05.LayerNorm",
        "cause": "adds the bias before multiplying by the weight ((x_hat + bias) * weight instead of x_hat * weight + bias)",
        "keywords": [r"bias", r"shift", r"beta|gamma", r"before (the )?scal|scale and shift"]}

class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, unbiased=False, keepdim=True)
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return (x_hat + self.bias) * self.weight
