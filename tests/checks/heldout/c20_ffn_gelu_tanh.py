META = {"exercise": "05.FeedForward", "cause": "uses the tanh approximation of GELU (approximate='tanh') instead of the exact erf GELU of F.gelu", "keywords": [r"tanh", r"approximat", r"exact", r"erf"]}


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0, activation="relu"):
        super().__init__()
        if activation not in ("relu", "gelu"):
            raise ValueError(f"activation must be 'relu' or 'gelu', got {activation!r}")
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)
        self.act_name = activation

    def activation(self, h):
        if self.act_name == "relu":
            return F.relu(h)
        return F.gelu(h, approximate="tanh")   # the GELU of GPT-2 / BERT

    def forward(self, x):
        return self.linear2(self.dropout(self.activation(self.linear1(x))))
