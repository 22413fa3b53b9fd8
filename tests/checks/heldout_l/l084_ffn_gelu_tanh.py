META = {'exercise': '05.FeedForward',
        'cause': 'GELU with the tanh approximation instead of the exact one',
        'keywords': [r'tanh', r'approximat', r'exact'],
        'kind': 'math',
        'single_edit': True}


class FeedForward(nn.Module):
    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0, activation: str = "relu"):
        super().__init__()
        if activation not in ("relu", "gelu"):
            raise ValueError(f"activation must be 'relu' or 'gelu', got {activation!r}")
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)
        self.activation = F.relu if activation == "relu" else (lambda h: F.gelu(h, approximate="tanh"))

    def forward(self, x):
        return self.linear2(self.dropout(self.activation(self.linear1(x))))
