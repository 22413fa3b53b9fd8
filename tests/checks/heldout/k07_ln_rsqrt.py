META = {"exercise": "05.LayerNorm", "correct": True, "source": "centered tensor, variance as mean of squares, torch.rsqrt, addcmul-free"}


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        xc = x - x.mean(dim=-1, keepdim=True)
        inv = torch.rsqrt(xc.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return self.bias + self.weight * (xc * inv)
