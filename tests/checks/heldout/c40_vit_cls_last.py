META = {"exercise": "09.VisionTransformer", "cause": "the CLS token is appended after the patches (position N) and read from the last position, instead of prepended at position 0, so pos_embed[0] goes to a patch", "keywords": [r"cls", r"first|prepend", r"position 0|\[:, ?0\]", r"appended|at the end|last"]}

from helpers.blocks.layers import LayerNorm, TransformerEncoderBlock


class PatchEmbedding(nn.Module):  # mine, from earlier in the notebook
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
        patches = self.patch_embed(images)                      # (B, N, d_model)
        cls = self.cls_token.expand(patches.shape[0], -1, -1)   # (B, 1, d_model)
        return torch.cat([patches, cls], dim=1) + self.pos_embed

    def forward(self, images):
        x = self.embed(images)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x)[:, -1])

    def attention_maps(self, images):
        maps = []
        x = self.embed(images)
        for block in self.blocks:
            maps.append(block.self_attn(block.norm1(x))[1])
            x = block(x)
        return maps
