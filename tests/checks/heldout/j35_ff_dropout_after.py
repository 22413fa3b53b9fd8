META = {"exercise": "05.FeedForward",
        "cause": "applies dropout to the output of linear2 instead of between the activation and linear2",
        "keywords": [r"dropout"]}


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0, activation="relu"):
        super().__init__()
        if activation not in ("relu", "gelu"):
            raise ValueError(activation)
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)
        self.activation = F.relu if activation == "relu" else F.gelu

    def forward(self, x):
        return self.dropout(self.linear2(self.activation(self.linear1(x))))
