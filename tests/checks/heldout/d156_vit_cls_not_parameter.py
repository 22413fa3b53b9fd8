META = {"exercise": "09.VisionTransformer",
        "cause": "registers cls_token as a buffer (register_buffer) rather than an nn.Parameter, so it is never learned",
        "keywords": [r"Parameter", r"cls_token", r"learn", r"buffer"]}

from helpers.blocks.layers import LayerNorm, TransformerEncoderBlock
from helpers.blocks.vit import PatchEmbedding


class VisionTransformer(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, num_classes, d_model, num_heads, num_layers, d_ff, dropout=0.0):
        super().__init__()
        self.patch_embed = PatchEmbedding(img_size, patch_size, in_channels, d_model)
        num_patches = self.patch_embed.num_patches
        self.register_buffer("cls_token", torch.zeros(1, 1, d_model))
        self.pos_embed = nn.Parameter(0.02 * torch.randn(1, num_patches + 1, d_model))
        self.dropout = nn.Dropout(dropout)
        self.blocks = nn.ModuleList([TransformerEncoderBlock(d_model, num_heads, d_ff, dropout) for _ in range(num_layers)])
        self.norm = LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)

    def embed(self, images):
        x = self.patch_embed(images)  # (B, N, d_model)
        cls = self.cls_token.expand(x.size(0), -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos_embed
        return self.dropout(x)

    def forward(self, images):
        x = self.embed(images)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x)[:, 0])

    def attention_maps(self, images):
        x, maps = self.embed(images), []
        for block in self.blocks:
            _, weights = block.self_attn(block.norm1(x))
            maps.append(weights)
            x = block(x)
        return maps
