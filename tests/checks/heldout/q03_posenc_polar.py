META = {"exercise": "04.PositionalEncoding", "correct": True, "source": "table built as unit complex numbers with torch.polar and interleaved by view_as_real; forward slices the buffer with narrow"}


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        pos = torch.arange(max_len, dtype=torch.float64)
        freqs = torch.exp(-math.log(10000.0) * torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
        angles = torch.outer(pos, freqs)                                  # (max_len, d_model // 2)
        # e^{i a} = cos a + i sin a; view_as_real gives (..., [cos, sin]); flip to [sin, cos]
        pairs = torch.view_as_real(torch.polar(torch.ones_like(angles), angles)).flip(-1)
        self.register_buffer("pe", pairs.reshape(max_len, d_model).float())
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(x + self.pe.narrow(0, 0, x.shape[-2]))
