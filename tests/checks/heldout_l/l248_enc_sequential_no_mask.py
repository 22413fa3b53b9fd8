META = {'exercise': '06.TransformerEncoder',
        'cause': 'the blocks are chained in an nn.Sequential: forward cannot pass the mask to them',
        'keywords': [r'mask (is )?(not|never|ignored|dropped|missing|unused)', r'(ignor|drop|miss|forg|lose|lost)\w* (the )?(\w+ )?mask', r'without (the |a |its )?mask', r'mask\w* (has )?no effect', r'not pass\w* (on )?(the )?mask', r'padd(ing|ed) (keys?|positions?|tokens?) (get|receive|are attended|is attended|not blocked|still)', r'(ignor|drop|miss)\w* (the )?padding', r'not causal', r'causal(ity)? (is )?(ignored|broken|violat|not)', r'(see|sees|attend\w*|leak\w*|look\w*) (at |to )?(the )?future', r'Sequential'],
        'kind': 'math',
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
        self.layers = nn.Sequential(*[TransformerEncoderBlock(d_model, num_heads, d_ff, dropout, norm_first)
                                      for _ in range(num_layers)])
        self.norm = LayerNorm(d_model)

    def embed(self, tokens):
        return self.pos_encoding(self.embedding(tokens) * math.sqrt(self.d_model))

    def forward(self, tokens, mask=None):
        return self.norm(self.layers(self.embed(tokens)))

    @torch.no_grad()
    def attention_maps(self, tokens):
        maps, x = [], self.embed(tokens)
        for layer in self.layers:
            _, w = layer.self_attn(layer.norm1(x) if layer.norm_first else x)
            maps.append(w)
            x = layer(x)
        return maps
