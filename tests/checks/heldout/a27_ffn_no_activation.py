META = {"exercise": "05.FeedForward", "cause": "no activation between linear1 and linear2 (the two linears collapse into one)",
        "keywords": [r"activation", r"relu", r"non-?linear", r"gelu"]}


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0, activation="relu"):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.linear2(self.dropout(self.linear1(x)))
