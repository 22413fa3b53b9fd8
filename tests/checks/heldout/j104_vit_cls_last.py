META = {"exercise": "09.VisionTransformer",
        "cause": "appends the CLS token after the patches (and reads the last token), so it gets the last position embedding instead of position 0",
        "keywords": [r"cls", r"first", r"position 0", r"prepend|append", r"last"]}

from helpers.blocks.layers import LayerNorm, TransformerEncoderBlock
from helpers.blocks.vit import PatchEmbedding


class VisionTransformer(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, num_classes, d_model, num_heads, num_layers, d_ff, dropout=0.0):
        super().__init__()
        self.patch_embed = PatchEmbedding(img_size, patch_size, in_channels, d_model)
        n = self.patch_embed.num_patches
        self.cls_token = nn.Parameter(torch.zeros(1, 1, d_model))
        self.pos_embed = nn.Parameter(0.02 * torch.randn(1, n + 1, d_model))
        self.blocks = nn.ModuleList([TransformerEncoderBlock(d_model, num_heads, d_ff, dropout) for _ in range(num_layers)])
        self.norm = LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)


    def embed(self, images):
        x = self.patch_embed(images)
        cls = self.cls_token.expand(x.size(0), -1, -1)
        return torch.cat([x, cls], dim=1) + self.pos_embed


    def forward(self, images):
        x = self.embed(images)
        for b in self.blocks:
            x = b(x)
        return self.head(self.norm(x[:, -1]))


    def attention_maps(self, images):
        x, maps = self.embed(images), []
        for b in self.blocks:
            maps.append(b.self_attn(b.norm1(x))[1])
            x = b(x)
        return maps

