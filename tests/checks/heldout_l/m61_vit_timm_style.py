META = {'exercise': '09.VisionTransformer',
        'correct': True,
        'source': "timm VisionTransformer (_pos_embed with pos_drop, forward_features, forward_head with global_pool='token')"}


from helpers.blocks.layers import LayerNorm, TransformerEncoderBlock


class PatchEmbedding(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_channels, d_model, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


class VisionTransformer(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, num_classes, d_model, num_heads, num_layers,
                 d_ff, dropout=0.0):
        super().__init__()
        self.patch_embed = PatchEmbedding(img_size, patch_size, in_channels, d_model)
        num_patches = self.patch_embed.num_patches
        self.cls_token = nn.Parameter(torch.zeros(1, 1, d_model))
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, d_model) * .02)
        self.pos_drop = nn.Dropout(p=dropout)
        self.blocks = nn.ModuleList([TransformerEncoderBlock(d_model, num_heads, d_ff, dropout)
                                     for _ in range(num_layers)])
        self.norm = LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)

    def _pos_embed(self, x):
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1)
        x = x + self.pos_embed
        return self.pos_drop(x)

    def embed(self, images):
        return self._pos_embed(self.patch_embed(images))

    def forward_features(self, x):
        x = self.embed(x)
        for blk in self.blocks:
            x = blk(x)
        return self.norm(x)

    def forward_head(self, x):
        return self.head(x[:, 0])

    def forward(self, images):
        return self.forward_head(self.forward_features(images))

    def attention_maps(self, images):
        x = self.embed(images)
        maps = []
        for blk in self.blocks:
            maps.append(blk.self_attn(blk.norm1(x))[1])
            x = blk(x)
        return maps
