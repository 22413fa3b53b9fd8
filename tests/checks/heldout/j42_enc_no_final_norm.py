META = {"exercise": "06.TransformerEncoder",
        "cause": "forward returns the last block output without applying the final LayerNorm self.norm",
        "keywords": [r"final.{0,20}norm", r"self\.norm", r"layer ?norm"]}

from helpers.blocks.layers import LayerNorm, TransformerEncoderBlock
from helpers.blocks.positional import PositionalEncoding


class TransformerEncoder(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len=512, dropout=0.0, norm_first=True):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embedding.weight, std=d_model ** -0.5)
        self.pos_encoding = PositionalEncoding(d_model, max_len, dropout)
        self.layers = nn.ModuleList([TransformerEncoderBlock(d_model, num_heads, d_ff, dropout, norm_first)
                                     for _ in range(num_layers)])
        self.norm = LayerNorm(d_model)


    def embed(self, tokens):
        return self.pos_encoding(self.embedding(tokens) * math.sqrt(self.d_model))


    def forward(self, tokens, mask=None):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x, mask)
        return x


    @torch.no_grad()
    def attention_maps(self, tokens):
        x, maps = self.embed(tokens), []
        for layer in self.layers:
            h = layer.norm1(x) if layer.norm_first else x
            maps.append(layer.self_attn(h)[1])
            x = layer(x)
        return maps

