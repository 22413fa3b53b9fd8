META = {'exercise': '09.VisionTransformer',
        'cause': 'attention_maps switches the model to eval mode and leaves it there',
        'keywords': [r'\.eval\(\)', r'\.train\(', r'(left|leaves?|stays?|remains?|comes back|back) in (eval|evaluation|train|training)', r'(puts?|switch\w*|sets?|turns?) (the |your )?(model|module) (in|to|into) eval', r'restor', r'\.training\b', r"(switch|chang|flip)\w* (the )?(caller'?s? )?(model|module)'?s? mode", r'mode (is |was )?(not )?(restored|changed|kept)', r'leaves?'],
        'kind': 'mode/state',
        'single_edit': True}


from helpers.blocks.layers import LayerNorm, TransformerEncoderBlock


class PatchEmbedding(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_channels, d_model, patch_size, stride=patch_size)

    def forward(self, images):
        return self.proj(images).flatten(2).transpose(1, 2)


class VisionTransformer(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, num_classes, d_model, num_heads, num_layers,
                 d_ff, dropout=0.0):
        super().__init__()
        self.patch_embed = PatchEmbedding(img_size, patch_size, in_channels, d_model)
        N = self.patch_embed.num_patches
        self.cls_token = nn.Parameter(torch.zeros(1, 1, d_model))
        self.pos_embed = nn.Parameter(0.02 * torch.randn(1, N + 1, d_model))
        self.blocks = nn.ModuleList([TransformerEncoderBlock(d_model, num_heads, d_ff, dropout)
                                     for _ in range(num_layers)])
        self.norm = LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)

    def embed(self, images):
        x = self.patch_embed(images)
        cls = self.cls_token.expand(x.size(0), -1, -1)
        return torch.cat([cls, x], dim=1) + self.pos_embed

    def forward(self, images):
        x = self.embed(images)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x)[:, 0])

    def attention_maps(self, images):
        self.eval()
        maps = []
        x = self.embed(images)
        for block in self.blocks:
            _, weights = block.self_attn(block.norm1(x))
            maps.append(weights)
            x = block(x)
        return maps
