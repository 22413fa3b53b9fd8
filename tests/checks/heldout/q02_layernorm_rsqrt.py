META = {"exercise": "05.LayerNorm", "correct": True, "source": "var_mean(unbiased=False) in one call, rsqrt, addcmul for the affine part"}


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        var, mean = torch.var_mean(x, dim=-1, unbiased=False, keepdim=True)
        x_hat = (x - mean) * torch.rsqrt(var + self.eps)
        return torch.addcmul(self.bias, x_hat, self.weight)
