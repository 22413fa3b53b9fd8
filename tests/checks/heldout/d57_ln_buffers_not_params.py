META = {"exercise": "05.LayerNorm",
        "cause": "registers weight and bias as buffers (register_buffer) instead of nn.Parameter, so they are not learned (not in parameters(), no gradient)",
        "keywords": [r"Parameter", r"parameters\(\)", r"learn", r"buffer", r"gradient"]}

class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("weight", torch.ones(d_model))
        self.register_buffer("bias", torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, unbiased=False, keepdim=True)
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return x_hat * self.weight + self.bias
