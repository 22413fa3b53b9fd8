META = {"exercise": "06.TransformerEncoder", "correct": True,
        "source": "forward via functools-free loop over enumerate, attention_maps passes key and value explicitly; keyword arguments to the blocks"}

from helpers.blocks.layers import LayerNorm, TransformerEncoderBlock
from helpers.blocks.positional import PositionalEncoding


class TransformerEncoder(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len=512, dropout=0.0, norm_first=True):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embedding.weight, std=d_model ** -0.5)
        self.pos_encoding = PositionalEncoding(d_model, max_len, dropout)
        self.layers = nn.ModuleList(
            TransformerEncoderBlock(d_model, num_heads, d_ff, dropout=dropout, norm_first=norm_first)
            for _ in range(num_layers))
        self.norm = LayerNorm(d_model)

    def embed(self, tokens):
        scale = self.d_model ** 0.5
        return self.pos_encoding(scale * self.embedding(tokens))

    def forward(self, tokens, mask=None):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x, mask=mask)
        return self.norm(x)

    @torch.no_grad()
    def attention_maps(self, tokens):
        maps = []
        x = self.embed(tokens)
        for layer in self.layers:
            seen = layer.norm1(x) if layer.norm_first else x  # the input this block's attention sees
            maps.append(layer.self_attn(seen, seen, seen)[1])
            x = layer(x)
        return maps
