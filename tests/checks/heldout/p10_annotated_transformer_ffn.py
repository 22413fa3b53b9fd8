META = {"exercise": "05.FeedForward", "correct": True,
        "source": "https://github.com/harvardnlp/annotated-transformer/blob/master/the_annotated_transformer.py",
        "adapted": "PositionwiseFeedForward: w_1/w_2 renamed linear1/linear2, activation argument added (relu or gelu)"}


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0, activation="relu"):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)
        self.act = F.relu if activation == "relu" else F.gelu

    def forward(self, x):
        return self.linear2(self.dropout(self.act(self.linear1(x))))
