META = {"exercise": "05.LayerNorm", "correct": True,
        "source": "centered second moment with torch.rsqrt and addcmul, as in many hand-written kernels (e.g. the ConvNeXt channels-last LayerNorm)"}


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        xc = x - x.mean(-1, keepdim=True)
        var = (xc * xc).mean(-1, keepdim=True)
        return torch.addcmul(self.bias, xc * torch.rsqrt(var + self.eps), self.weight)
