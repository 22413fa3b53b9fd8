META = {'exercise': '05.FeedForward',
        'correct': True,
        'source': 'activation as nn.ReLU() / nn.GELU() modules, as nn.TransformerEncoderLayer accepts'}


class FeedForward(nn.Module):
    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0, activation: str = "relu"):
        super().__init__()
        acts = {"relu": nn.ReLU, "gelu": nn.GELU}
        if activation not in acts:
            raise ValueError(f"activation must be 'relu' or 'gelu', got {activation!r}")
        self.linear1 = nn.Linear(d_model, d_ff)
        self.act = acts[activation]()
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(d_ff, d_model)

    def forward(self, x):
        h = self.act(self.linear1(x))
        return self.linear2(self.dropout(h))
