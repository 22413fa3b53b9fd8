"""More wrong versions of 08-09 (issue 12): numerically unsafe online softmax, cache and mask
mistakes, code adapted from nanoGPT, vit-pytorch and timm, and ViT dropout placement."""

import math

import torch
import torch.nn.functional as F
from torch import nn

from helpers import check
from helpers.blocks.layers import TransformerEncoderBlock
from helpers.blocks.vit import PatchEmbedding, VisionTransformer

from ._common import make_tests, right, wrong

BW, KV, SW, LA = (
    "08.blockwise_attention",
    "08.kv_cache_step",
    "08.sliding_window_mask",
    "08.linear_attention",
)
PF, PEMB, VIT = "09.patchify", "09.PatchEmbedding", "09.VisionTransformer"

# ------------------------------------------------------------------------------------------ 08


def blocks(mistake):
    def blockwise_attention(q, k, v, block_size=64):
        T_k, scale = k.size(-2), 1 / math.sqrt(q.size(-1))
        stop = T_k - block_size + 1 if mistake == "skip_last" else T_k
        if mistake == "separate":
            outs = []
            for i in range(0, T_k, block_size):
                s = q @ k[..., i : i + block_size, :].mT * scale
                p = (s - s.amax(-1, keepdim=True)).exp()
                outs.append(p / p.sum(-1, keepdim=True) @ v[..., i : i + block_size, :])
            return torch.stack(outs).mean(0)
        l = torch.zeros(q.shape[:-1] + (1,), dtype=q.dtype, device=q.device)
        acc = torch.zeros(q.shape[:-1] + (v.size(-1),), dtype=q.dtype, device=q.device)
        m = torch.full_like(l, -math.inf)
        for i in range(0, stop, block_size):
            s = q @ k[..., i : i + block_size, :].mT * scale
            if mistake == "no_max":  # exp of the raw scores: overflows float32 above ~88
                p, alpha = s.exp(), 1.0
            else:
                m_new = torch.maximum(m, s.amax(-1, keepdim=True))
                p, alpha = (s - m_new).exp(), (m - m_new).exp()
                m = m_new
            l = l * alpha + p.sum(-1, keepdim=True)
            acc = acc * alpha + p @ v[..., i : i + block_size, :]
        return acc / l

    return blockwise_attention


def blocks_with_softmax(q, k, v, block_size=64):
    """torch.softmax on each block: the built-in this exercise replaces (switched off)."""
    return torch.softmax(q @ k.mT / math.sqrt(q.size(-1)), dim=-1) @ v


def kv(mistake):
    def kv_cache_step(q, k, v, cache=None):
        if cache is not None:
            k, v = torch.cat([cache[0], k], dim=-2), torch.cat([cache[1], v], dim=-2)
        d = q.size(-1)
        s = q @ k.mT / (d if mistake == "divided_by_d" else math.sqrt(d))
        if mistake == "tril_in_step":  # a (1, T) causal mask keeps only the first key
            s = s.masked_fill(~torch.ones(s.shape[-2:], dtype=torch.bool).tril(), -math.inf)
        w = s.softmax(dim=-2 if mistake == "softmax_dim" else -1)
        return w @ v, (k, v)

    return kv_cache_step


def window(mistake):
    def sliding_window_mask(T, window, causal=False, device=None):
        i, j = torch.arange(T, device=device)[:, None], torch.arange(T, device=device)
        if mistake == "no_abs":
            keep = i - j <= window
        else:
            keep = (i - j).abs() <= window
        keep = keep & (j <= i) if causal else keep
        if mistake == "diagonal_only" and causal:
            keep = keep & (j >= i)
        if mistake == "additive":  # nanoGPT-style float mask: 0 where allowed, -inf elsewhere
            return torch.zeros(T, T, device=device).masked_fill(~keep, float("-inf"))
        return keep.long() if mistake == "long" else keep

    return sliding_window_mask


def linear(mistake):
    def linear_attention(q, k, v, causal=False):
        phi = (lambda x: x) if mistake == "identity" else (lambda x: F.elu(x) + 1)
        if mistake == "softmax":
            s = q @ k.mT / math.sqrt(q.size(-1))
            if causal:
                s = s.masked_fill(~torch.ones_like(s, dtype=torch.bool).tril(), -math.inf)
            return s.softmax(-1) @ v
        v = phi(v) if mistake == "phi_on_v" else v
        a = phi(q) @ phi(k).mT
        a = a.tril() if causal else a
        return a @ v / a.sum(-1, keepdim=True)

    return linear_attention


W08 = [
    wrong(BW, "no_running_max", blocks("no_max"), "overflow"),
    wrong(BW, "last_short_block_skipped", blocks("skip_last"), "last, shorter block"),
    wrong(BW, "blocks_normalized_separately", blocks("separate"), "normalized on its own"),
    wrong(BW, "torch_softmax", blocks_with_softmax, "switched off"),
    wrong(KV, "scores_divided_by_d", kv("divided_by_d"), "divided by d_k"),
    wrong(KV, "causal_mask_in_the_step", kv("tril_in_step"), "first token"),
    wrong(KV, "softmax_over_queries", kv("softmax_dim"), "dim=-1"),
    wrong(SW, "no_abs", window("no_abs"), "abs("),
    wrong(SW, "causal_diagonal_only", window("diagonal_only"), "itself"),
    wrong(SW, "nanogpt_additive_float_mask", window("additive"), "bool"),
    wrong(SW, "long_mask", window("long"), "bool"),
    wrong(LA, "softmax_attention", linear("softmax"), "softmax attention"),
    wrong(LA, "no_feature_map", linear("identity"), "no feature map"),
    wrong(LA, "feature_map_on_v", linear("phi_on_v"), "applied to v"),
]
R08 = [right(BW, "running_max_written_out", blocks(""))]

# ------------------------------------------------------------------------------------------ 09


def vit_pytorch_patches(images, p):
    """vit-pytorch's Rearrange('b c (h p1) (w p2) -> b (h w) (p1 p2 c)') written with permute."""
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // p, p, W // p, p).permute(0, 2, 4, 3, 5, 1)
    return x.reshape(B, (H // p) * (W // p), p * p * C)


class VitPytorchPatchEmbedding(nn.Module):
    """vit-pytorch's to_patch_embedding: Rearrange, LayerNorm, Linear, LayerNorm."""

    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__()
        dim = in_channels * patch_size**2
        self.p = patch_size
        self.to_patch_embedding = nn.Sequential(
            nn.LayerNorm(dim), nn.Linear(dim, d_model), nn.LayerNorm(d_model)
        )

    def forward(self, images):
        return self.to_patch_embedding(vit_pytorch_patches(images, self.p))


class TimmPatchEmbed(PatchEmbedding):
    """Correct: timm's PatchEmbed (proj, flatten(2).transpose(1, 2), norm = Identity)."""

    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__(img_size, patch_size, in_channels, d_model)
        self.norm = nn.Identity()

    def forward(self, x):
        return self.norm(self.proj(x).flatten(2).transpose(1, 2))


def vit_with(block_dropout=True, emb_dropout=True, extra=""):
    """The ViT with dropout in its parts or not, or an extra dropout (timm's head_drop...)."""

    class ViT(VisionTransformer):
        def __init__(self, img_size, patch_size, in_channels, num_classes, d_model, num_heads,
                     num_layers, d_ff, dropout=0.0):  # fmt: skip
            super().__init__(img_size, patch_size, in_channels, num_classes, d_model, num_heads,
                             num_layers, d_ff, dropout)  # fmt: skip
            p = dropout if block_dropout else 0.0
            self.blocks = nn.ModuleList(
                [TransformerEncoderBlock(d_model, num_heads, d_ff, p) for _ in range(num_layers)]
            )
            self.drop = nn.Dropout(dropout)

        def embed(self, images):
            x = self.patch_embed(images)
            x = self.drop(x) if extra == "before_cls" else x
            x = torch.cat([self.cls_token.expand(x.size(0), -1, -1), x], 1) + self.pos_embed
            return self.drop(x) if emb_dropout else x

        def forward(self, images):
            x = self.embed(images)
            for block in self.blocks:
                x = block(x)
            x = self.norm(x)[:, 0]
            return self.head(self.drop(x) if extra == "head" else x)

    return ViT


class VitPytorchViT(VisionTransformer):
    """vit-pytorch's ViT forward (pool='cls'), adapted to the contract's names: correct."""

    def forward(self, img):
        x = self.patch_embed(img)
        b, n, _ = x.shape
        cls_tokens = self.cls_token.repeat(b, 1, 1)
        x = torch.cat((cls_tokens, x), dim=1)
        x += self.pos_embed[:, : (n + 1)]
        x = self.dropout(x)
        for block in self.blocks:
            x = block(x)
        x = self.norm(x)
        x = x[:, 0]
        return self.head(x)


W09 = [
    wrong(PF, "vit_pytorch_rearrange_p1_p2_c", vit_pytorch_patches, "(c, p, p)"),
    wrong(PF, "F.unfold", lambda images, p: F.unfold(images, p, stride=p).mT, "switched off"),
    wrong(PEMB, "vit_pytorch_linear_embedding", VitPytorchPatchEmbedding, "conv2d"),
    wrong(VIT, "blocks_without_dropout", vit_with(block_dropout=False), "without dropout"),
    wrong(VIT, "no_dropout", vit_with(False, False), "no dropout"),
    wrong(VIT, "timm_head_drop", vit_with(extra="head"), "before the head"),
    wrong(VIT, "dropout_before_cls", vit_with(extra="before_cls"), "before the cls token"),
]
R09 = [
    right(PEMB, "timm_patch_embed", TimmPatchEmbed),
    right(VIT, "vit_pytorch_cls_pool", VitPytorchViT),
    right(VIT, "no_embedding_dropout", vit_with(emb_dropout=False)),
]

test_wrong_version_fails_with_named_message, test_correct_variant_passes = make_tests(
    W08 + W09, R08 + R09
)


def test_mistake_codes():
    """Mistake codes (issue 13) are stable: the gradebook counts them."""
    cases = [
        (BW, blocks("no_max"), "overflow"),
        (KV, kv("tril_in_step"), "first_key_only"),
        (SW, window("diagonal_only"), "diagonal_only"),
        (PF, vit_pytorch_patches, "channels_last"),
        (VIT, vit_with(extra="head"), "dropout_before_head"),
    ]
    for exercise, candidate, slug in cases:
        result = check(exercise, candidate, quiet=True)
        assert result.mistake == f"{exercise}/{slug}", (result.mistake, result.messages)
