"""Generated from solutions/09_vision_transformer.ipynb by `python -m helpers export`: edit the notebook, not this file."""

import torch
from torch import nn

from helpers.blocks.layers import LayerNorm, TransformerEncoderBlock
from helpers.my_blocks import prefer_mine


def patchify(images: torch.Tensor, patch_size: int) -> torch.Tensor:
    """(B, C, H, W) -> (B, N, C*p*p): patches row by row, each flattened in (C, p, p) order."""
    B, C, H, W = images.shape
    p = patch_size
    x = images.reshape(B, C, H // p, p, W // p, p)  # (B, C, H/p, p, W/p, p)
    x = x.permute(0, 2, 4, 1, 3, 5)  # (B, H/p, W/p, C, p, p)
    return x.reshape(B, (H // p) * (W // p), C * p * p)  # (B, N, C*p*p)


class PatchEmbedding(nn.Module):
    """(B, C, H, W) -> (B, N, d_model) with one Conv2d whose kernel and stride are the patch size."""

    def __init__(self, img_size: int, patch_size: int, in_channels: int, d_model: int):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_channels, d_model, kernel_size=patch_size, stride=patch_size)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        x = self.proj(images)  # (B, d_model, H/p, W/p)
        return x.flatten(2).transpose(1, 2)  # (B, N, d_model)


class VisionTransformer(nn.Module):
    """ViT: patch embedding, CLS token, learned position embeddings, pre-LN encoder blocks,
    final LayerNorm, linear head on the CLS token."""

    def __init__(
        self,
        img_size: int,
        patch_size: int,
        in_channels: int,
        num_classes: int,
        d_model: int,
        num_heads: int,
        num_layers: int,
        d_ff: int,
        dropout: float = 0.0,
    ):
        super().__init__()
        self.patch_embed = PatchEmbedding(img_size, patch_size, in_channels, d_model)
        num_patches = (img_size // patch_size) ** 2
        self.cls_token = nn.Parameter(torch.zeros(1, 1, d_model))
        self.pos_embed = nn.Parameter(0.02 * torch.randn(1, num_patches + 1, d_model))
        self.dropout = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(
            [TransformerEncoderBlock(d_model, num_heads, d_ff, dropout) for _ in range(num_layers)]
        )
        self.norm = LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)

    def embed(self, images: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) -> the token sequence (B, N + 1, d_model), CLS first."""
        x = self.patch_embed(images)  # (B, N, d_model)
        cls = self.cls_token.expand(x.size(0), -1, -1)  # (B, 1, d_model)
        x = torch.cat([cls, x], dim=1) + self.pos_embed  # (B, N + 1, d_model)
        return self.dropout(x)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        x = self.embed(images)
        for block in self.blocks:
            x = block(x)  # (B, N + 1, d_model)
        return self.head(self.norm(x[:, 0]))  # (B, num_classes)

    def attention_maps(self, images: torch.Tensor) -> list[torch.Tensor]:
        """One (B, H, N + 1, N + 1) map per layer."""
        x, maps = self.embed(images), []
        for block in self.blocks:
            _, weights = block.self_attn(block.norm1(x))  # (B, H, N + 1, N + 1)
            maps.append(weights)
            x = block(x)
        return maps


__all__ = ["patchify", "PatchEmbedding", "VisionTransformer"]

# Only with HELPERS_BLOCKS=mine: the learner's blocks whose checks passed replace these
# (helpers/my_blocks.py, `python -m helpers export --mine`).
prefer_mine(globals(), notebook="09", exercises=("patchify", "PatchEmbedding", "VisionTransformer"))
