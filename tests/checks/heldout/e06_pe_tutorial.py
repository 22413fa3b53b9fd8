META = {"exercise": "04.PositionalEncoding", "correct": True,
        "source": "adapted from the PyTorch 'Language Modeling with nn.Transformer' tutorial (table built inline with exp/log, slice via narrow), kept batch-first (B, T, d_model)"}


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return self.dropout(x + self.pe.narrow(0, 0, x.size(1)))
