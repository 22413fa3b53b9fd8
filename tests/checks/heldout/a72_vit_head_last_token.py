META = {"exercise": "09.VisionTransformer", "cause": "the CLS token is prepended but the head reads the last token x[:, -1]",
        "keywords": [r"CLS", r"cls_token", r"first", r"x\[:, ?0\]", r"last"]}
from helpers.blocks import LayerNorm, PatchEmbedding, TransformerEncoderBlock


class VisionTransformer(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, num_classes, d_model, num_heads, num_layers, d_ff, dropout=0.0):
        super().__init__()
        self.patch_embed = PatchEmbedding(img_size, patch_size, in_channels, d_model)
        n = (img_size // patch_size) ** 2
        self.cls_token = nn.Parameter(torch.zeros(1, 1, d_model))
        self.pos_embed = nn.Parameter(torch.randn(1, n + 1, d_model) * 0.02)
        self.blocks = nn.ModuleList([TransformerEncoderBlock(d_model, num_heads, d_ff, dropout) for _ in range(num_layers)])
        self.norm = LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)
        self.dropout = nn.Dropout(dropout)

    def embed(self, images):
        x = self.patch_embed(images)
        x = torch.cat([self.cls_token.expand(x.size(0), -1, -1), x], dim=1) + self.pos_embed
        return self.dropout(x)

    def forward(self, images):
        x = self.embed(images)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.norm(x)[:, -1])

    def attention_maps(self, images):
        x, maps = self.embed(images), []
        for blk in self.blocks:
            maps.append(blk.self_attn(blk.norm1(x))[1])
            x = blk(x)
        return maps
