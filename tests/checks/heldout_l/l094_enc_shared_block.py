META = {'exercise': '06.TransformerEncoder',
        'cause': '[block] * num_layers: the same block (one set of weights) is used at every layer',
        'keywords': [r'same block', r'shared', r'one set', r'\* ?num_layers', r'distinct', r'same (module|object|weights)', r'tied'],
        'kind': 'mode/state',
        'single_edit': False}


from helpers.blocks.layers import LayerNorm, TransformerEncoderBlock
from helpers.blocks.positional import PositionalEncoding


class TransformerEncoder(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, num_heads: int, num_layers: int, d_ff: int,
                 max_len: int = 512, dropout: float = 0.0, norm_first: bool = True):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embedding.weight, std=d_model ** -0.5)
        self.pos_encoding = PositionalEncoding(d_model, max_len, dropout)
        self.layers = nn.ModuleList([TransformerEncoderBlock(d_model, num_heads, d_ff, dropout, norm_first)] * num_layers)
        self.norm = LayerNorm(d_model)

    def embed(self, tokens):
        return self.pos_encoding(self.embedding(tokens) * math.sqrt(self.d_model))

    def forward(self, tokens, mask=None):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x, mask)
        return self.norm(x)

    @torch.no_grad()
    def attention_maps(self, tokens):
        maps = []
        x = self.embed(tokens)
        for layer in self.layers:
            h = layer.norm1(x) if layer.norm_first else x
            _, weights = layer.self_attn(h)
            maps.append(weights)
            x = layer(x)
        return maps
