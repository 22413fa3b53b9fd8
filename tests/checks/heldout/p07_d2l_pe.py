META = {"exercise": "04.PositionalEncoding", "correct": True,
        "source": "https://github.com/d2l-ai/d2l-en/blob/master/chapter_attention-mechanisms-and-transformers/self-attention-and-positional-encoding.md",
        "adapted": "num_hiddens -> d_model, max_len default; P registered as the buffer `pe` (1, max_len, d_model) as the contract names it"}


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        P = torch.zeros((1, max_len, d_model))
        X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(
            10000, torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
        P[:, :, 0::2] = torch.sin(X)
        P[:, :, 1::2] = torch.cos(X)
        self.register_buffer("pe", P)

    def forward(self, X):
        X = X + self.pe[:, : X.shape[1], :].to(X.device)
        return self.dropout(X)
