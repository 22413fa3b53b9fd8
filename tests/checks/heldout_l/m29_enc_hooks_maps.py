META = {'exercise': '06.TransformerEncoder',
        'correct': True,
        'source': "attention_maps by forward hooks on each block's self_attn (its own input, whatever norm_first)"}


from helpers.blocks.layers import LayerNorm, TransformerEncoderBlock
from helpers.blocks.positional import PositionalEncoding


class TransformerEncoder(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, num_heads: int, num_layers: int, d_ff: int,
                 max_len: int = 512, dropout: float = 0.0, norm_first: bool = True):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embedding.weight, mean=0.0, std=1.0 / math.sqrt(d_model))
        self.pos_encoding = PositionalEncoding(d_model, max_len, dropout)
        self.layers = nn.ModuleList()
        for _ in range(num_layers):
            self.layers.append(TransformerEncoderBlock(d_model, num_heads, d_ff, dropout, norm_first))
        self.norm = LayerNorm(d_model)

    def embed(self, tokens):
        return self.pos_encoding(self.embedding(tokens) * self.d_model ** 0.5)

    def forward(self, tokens, mask=None):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x, mask=mask)
        return self.norm(x)

    @torch.no_grad()
    def attention_maps(self, tokens):
        maps = []
        hooks = [layer.self_attn.register_forward_hook(lambda module, args, out: maps.append(out[1]))
                 for layer in self.layers]
        try:
            self(tokens)
        finally:
            for hook in hooks:
                hook.remove()
        return maps
