META = {"exercise": "05.LayerNorm",
        "cause": "detaches the mean and variance (treated as constants), so the gradient with respect to x is wrong (forward unchanged)",
        "keywords": [r"detach", r"gradient", r"backward"]}

class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, unbiased=False, keepdim=True)
        x_hat = (x - mean.detach()) / torch.sqrt(var.detach() + self.eps)
        return x_hat * self.weight + self.bias
