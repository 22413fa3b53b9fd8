META = {'exercise': '05.FeedForward',
        'cause': 'the layers sit in one nn.Sequential (net.0, net.3): the names linear1 and linear2 are missing',
        'keywords': [r'linear1', r'linear2', r'names?', r'attribute', r'state_dict', r'missing', r'Sequential'],
        'kind': 'mode/state',
        'single_edit': False}


class FeedForward(nn.Module):
    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0, activation: str = "relu"):
        super().__init__()
        if activation not in ("relu", "gelu"):
            raise ValueError(f"activation must be 'relu' or 'gelu', got {activation!r}")
        self.net = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU() if activation == "relu" else nn.GELU(),
                                 nn.Dropout(dropout), nn.Linear(d_ff, d_model))

    def forward(self, x):
        return self.net(x)
