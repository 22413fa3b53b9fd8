META = {"exercise": "09.VisionTransformer", "correct": True,
        "source": "timm-style VisionTransformer trimmed: no dropout after pos_embed (the text says it is optional), cls_token.expand + cat, forward_features/forward_head split; equal to the reference in eval mode, and in training mode equal to the reference with its optional embedding dropout removed"}

from helpers.blocks.layers import LayerNorm, TransformerEncoderBlock
from helpers.blocks.vit import PatchEmbedding


class VisionTransformer(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, num_classes, d_model, num_heads, num_layers, d_ff, dropout=0.0):
        super().__init__()
        self.patch_embed = PatchEmbedding(img_size, patch_size, in_channels, d_model)
        n = (img_size // patch_size) ** 2
        self.cls_token = nn.Parameter(torch.zeros(1, 1, d_model))
        self.pos_embed = nn.Parameter(torch.randn(1, n + 1, d_model) * 0.02)
        self.blocks = nn.ModuleList(TransformerEncoderBlock(d_model, num_heads, d_ff, dropout=dropout) for _ in range(num_layers))
        self.norm = LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)

    def embed(self, images):
        x = self.patch_embed(images)
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        return x + self.pos_embed

    def forward_features(self, images):
        x = self.embed(images)
        for blk in self.blocks:
            x = blk(x)
        return self.norm(x)

    def forward(self, images):
        return self.head(self.forward_features(images)[:, 0])

    def attention_maps(self, images):
        maps, x = [], self.embed(images)
        for blk in self.blocks:
            maps.append(blk.self_attn(blk.norm1(x))[1])
            x = blk(x)
        return maps
