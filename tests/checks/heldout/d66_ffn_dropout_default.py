META = {"exercise": "05.FeedForward",
        "cause": "builds nn.Dropout() with the default p=0.5 instead of the dropout argument, so it drops in training mode even when dropout=0.0",
        "keywords": [r"dropout", r"0\.5", r"\bp\b", r"argument"]}

class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0, activation="relu"):
        super().__init__()
        if activation not in ("relu", "gelu"):
            raise ValueError(f"activation must be 'relu' or 'gelu', got {activation!r}")
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout()
        self.activation = F.relu if activation == "relu" else F.gelu

    def forward(self, x):
        return self.linear2(self.dropout(self.activation(self.linear1(x))))
