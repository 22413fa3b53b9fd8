"""Wrong versions of the exercises of notebooks 08-09 (issue 12 catalogue)."""

import math

import torch
import torch.nn.functional as F
from torch import nn

from helpers.blocks.vit import PatchEmbedding, VisionTransformer

from ._common import make_tests, right, wrong

# ------------------------------------------------------------------------- 08.blockwise_attention

BW = "08.blockwise_attention"


def blockwise(rescale_acc=True, rescale_sum=True, normalize=True, scale=True, local_max=False):
    def blockwise_attention(q, k, v, block_size=64):
        s_ = 1.0 / math.sqrt(q.size(-1)) if scale else 1.0
        m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
        l = torch.zeros_like(m)
        acc = torch.zeros(q.shape[:-1] + (v.size(-1),), dtype=q.dtype, device=q.device)
        for start in range(0, k.size(-2), block_size):
            s = q @ k[..., start : start + block_size, :].transpose(-2, -1) * s_
            m_new = (
                s.amax(-1, keepdim=True)
                if local_max
                else torch.maximum(m, s.amax(-1, keepdim=True))
            )
            p = (s - m_new).exp()
            alpha = (m - m_new).exp()
            l = (l * alpha if rescale_sum else l) + p.sum(-1, keepdim=True)
            acc = (acc * alpha if rescale_acc else acc) + p @ v[..., start : start + block_size, :]
            m = m_new
        return acc / l if normalize else acc

    return blockwise_attention


def full_matrix(q, k, v, block_size=64):
    """Exact, but builds the whole (T_q, T_k) score matrix."""
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    p = (s - s.amax(-1, keepdim=True)).exp()
    return p @ v / p.sum(-1, keepdim=True)


def blockwise_split(q, k, v, block_size=64):
    """Correct, written differently: torch.split, logsumexp-free running max."""
    m = l = acc = None
    for k_b, v_b in zip(k.split(block_size, dim=-2), v.split(block_size, dim=-2)):
        s = q @ k_b.mT / q.size(-1) ** 0.5
        m_b = s.amax(-1, keepdim=True)
        m_new = m_b if m is None else torch.maximum(m, m_b)
        p = torch.exp(s - m_new)
        if m is None:
            l, acc = p.sum(-1, keepdim=True), p @ v_b
        else:
            c = torch.exp(m - m_new)
            l, acc = c * l + p.sum(-1, keepdim=True), c * acc + p @ v_b
        m = m_new
    return acc / l


BW_WRONG = [
    wrong(BW, "accumulator_not_rescaled", blockwise(rescale_acc=False), "rescale"),
    wrong(BW, "sum_not_rescaled", blockwise(rescale_sum=False), "rescale"),
    wrong(BW, "not_normalized", blockwise(normalize=False), "divide"),
    wrong(BW, "not_scaled", blockwise(scale=False), "sqrt"),
    wrong(
        BW,
        "block_local_max",
        blockwise(local_max=True),
        "max",
    ),
    wrong(BW, "full_score_matrix", full_matrix, "matrix"),
]
BW_OK = [right(BW, "torch.split", blockwise_split)]

# ----------------------------------------------------------------------------- 08.kv_cache_step

KV = "08.kv_cache_step"


def kv(mistake=""):
    def kv_cache_step(q, k, v, cache=None):
        if cache is not None:
            if mistake == "prepended":
                k, v = torch.cat([k, cache[0]], -2), torch.cat([v, cache[1]], -2)
            elif mistake == "wrong_dim":
                k, v = torch.cat([cache[0], k], -1), torch.cat([cache[1], v], -1)
            elif mistake != "cache_ignored":
                k, v = torch.cat([cache[0], k], -2), torch.cat([cache[1], v], -2)
        scale = 1.0 if mistake == "no_scale" else math.sqrt(q.size(-1))
        w = (q @ k.transpose(-2, -1) / scale).softmax(-1)
        if mistake == "only_first_key":
            w = F.one_hot(torch.zeros(w.shape[:-1], dtype=torch.long), w.size(-1)).to(w)
        new_cache = cache if (mistake == "cache_not_updated" and cache is not None) else (k, v)
        return w @ v, new_cache

    return kv_cache_step


def kv_einsum(q, k, v, cache=None):
    """Correct, written differently: einsum."""
    if cache is not None:
        k, v = torch.cat((cache[0], k), dim=2), torch.cat((cache[1], v), dim=2)
    w = torch.einsum("bhqd,bhkd->bhqk", q, k).div(q.shape[-1] ** 0.5).softmax(-1)
    return torch.einsum("bhqk,bhkd->bhqd", w, v), (k, v)


KV_WRONG = [
    wrong(
        KV,
        "cache_not_updated",
        kv("cache_not_updated"),
        "cache",
    ),
    wrong(
        KV,
        "new_token_prepended",
        kv("prepended"),
        "order",
    ),
    wrong(
        KV,
        "concatenated_on_last_dim",
        kv("wrong_dim"),
        "dim=-2",
    ),
    wrong(KV, "cache_ignored", kv("cache_ignored"), "only to the new token"),
    wrong(KV, "no_scale", kv("no_scale"), "sqrt"),
    wrong(
        KV,
        "attends_to_first_key_only",
        kv("only_first_key"),
        "first",
    ),
]
KV_OK = [right(KV, "einsum", kv_einsum)]

# ------------------------------------------------------------------------- 08.sliding_window_mask

SW = "08.sliding_window_mask"


def window(mistake=""):
    def sliding_window_mask(T, window, causal=False, device=None):
        dev = None if mistake == "ignores_device" else device
        i, j = torch.arange(T, device=dev)[:, None], torch.arange(T, device=dev)
        d = (i - j).abs()
        mask = d < window if mistake == "strict" else d <= window
        if mistake == "one_sided_always" or (
            causal and mistake not in ("causal_ignored", "causal_upper")
        ):
            mask = mask & (j <= i)
        if mistake == "causal_upper" and causal:  # keeps the future instead of the past
            mask = mask & (j >= i)
        if mistake == "diagonal_only" and causal:  # both triangles: only j == i is left
            mask = mask & (j <= i) & (j >= i)
        return mask.float() if mistake == "float" else mask

    return sliding_window_mask


def band(T, window, causal=False, device=None):
    """Correct, written differently: tril/triu of ones."""
    ones = torch.ones(T, T, dtype=torch.bool, device=device)
    return ones.triu(-window) & ones.tril(0 if causal else window)


SW_WRONG = [
    wrong(SW, "strict_less", window("strict"), "window"),
    wrong(SW, "causal_ignored", window("causal_ignored"), "causal"),
    wrong(SW, "always_causal", window("one_sided_always"), "causal"),
    wrong(
        SW,
        "causal_keeps_future",
        window("causal_upper"),
        "causal",
    ),
    wrong(SW, "float_mask", window("float"), "bool"),
    wrong(
        SW,
        "ignores_device",
        window("ignores_device"),
        "device",
    ),
]
SW_OK = [right(SW, "band_of_ones", band)]

# ----------------------------------------------------------------------------- 08.linear_attention

LA = "08.linear_attention"


def linear(phi=lambda x: F.elu(x) + 1, normalize=True, causal_num=True, causal_den=True):
    def linear_attention(q, k, v, causal=False):
        pq, pk = phi(q), phi(k)
        scores = pq @ pk.transpose(-2, -1)  # (..., T_q, T_k), fine for a test
        tri = torch.ones(scores.shape[-2:], dtype=torch.bool, device=q.device).tril()
        num_s = scores.masked_fill(~tri, 0) if causal and causal_num else scores
        den_s = scores.masked_fill(~tri, 0) if causal and causal_den else scores
        out = num_s @ v
        return out / den_s.sum(-1, keepdim=True) if normalize else out

    return linear_attention


LA_WRONG = [
    wrong(LA, "relu_feature_map", linear(phi=F.relu), "elu"),
    wrong(LA, "elu_without_plus_1", linear(phi=F.elu), "+ 1"),
    wrong(LA, "exp_feature_map", linear(phi=torch.exp), "elu"),
    wrong(LA, "not_normalized", linear(normalize=False), "not normalized"),
    wrong(LA, "causal_ignored", linear(causal_num=False, causal_den=False), "causal"),
    wrong(LA, "causal_numerator_only", linear(causal_den=False), "denominator"),
    wrong(LA, "causal_tt_matrix", linear(), "without the T x T matrix"),
]
LA_OK = []

# ----------------------------------------------------------------------------- 09.patchify

PF = "09.patchify"


def patches(order=(0, 2, 4, 1, 3, 5)):
    def patchify(images, patch_size):
        B, C, H, W = images.shape
        p = patch_size
        x = images.reshape(B, C, H // p, p, W // p, p).permute(*order)
        return x.reshape(B, (H // p) * (W // p), C * p * p)

    return patchify


PF_WRONG = [
    wrong(PF, "channels_last_in_patch", patches((0, 2, 4, 3, 5, 1)), "(c, p, p)"),
    wrong(PF, "column_major_patches", patches((0, 4, 2, 1, 3, 5)), "row"),
    wrong(
        PF,
        "plain_reshape",
        lambda images, p: images.reshape(images.size(0), -1, images.size(1) * p * p),
        "reshape",
    ),
    wrong(
        PF,
        "tensor_unfold_not_permuted",
        lambda images, p: (
            images.unfold(2, p, p)
            .unfold(3, p, p)
            .reshape(images.size(0), -1, images.size(1) * p * p)
        ),
        "(c, p, p)",
    ),
    wrong(PF, "patch_rows_and_cols_swapped", patches((0, 2, 4, 1, 5, 3)), "column"),
]
PF_OK = [
    right(
        PF,
        "tensor_unfold",
        lambda images, p: (
            images.unfold(2, p, p)
            .unfold(3, p, p)
            .permute(0, 2, 3, 1, 4, 5)
            .reshape(images.size(0), -1, images.size(1) * p * p)
        ),
    )
]

# ----------------------------------------------------------------------------- 09.PatchEmbedding

PEMB = "09.PatchEmbedding"


class PEmbNoTranspose(PatchEmbedding):
    def forward(self, images):
        return self.proj(images).flatten(2)


class PEmbColumnMajor(PatchEmbedding):
    def forward(self, images):
        return self.proj(images).transpose(2, 3).flatten(2).transpose(1, 2)


class PEmbStride1(PatchEmbedding):
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__(img_size, patch_size, in_channels, d_model)
        self.proj = nn.Conv2d(in_channels, d_model, kernel_size=patch_size, stride=1)


class PEmbNoBias(PatchEmbedding):
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__(img_size, patch_size, in_channels, d_model)
        self.proj = nn.Conv2d(in_channels, d_model, patch_size, patch_size, bias=False)


class PEmbLinear(nn.Module):
    """Linear layer on patchify's output instead of the Conv2d the contract names."""

    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__()
        self.p = patch_size
        self.proj = nn.Linear(in_channels * patch_size**2, d_model)

    def forward(self, images):
        return self.proj(patches()(images, self.p))


class PEmbLazy(PatchEmbedding):
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__(img_size, patch_size, in_channels, d_model)
        self.proj = nn.LazyConv2d(d_model, patch_size, patch_size)


class PEmbPermute(PatchEmbedding):
    """Correct, written differently: permute and reshape."""

    def forward(self, images):
        x = self.proj(images)  # (B, d, h, w)
        return x.permute(0, 2, 3, 1).reshape(x.size(0), -1, x.size(1))


PEMB_WRONG = [
    wrong(PEMB, "no_transpose", PEmbNoTranspose, "transpose"),
    wrong(PEMB, "column_major", PEmbColumnMajor, "row"),
    wrong(
        PEMB,
        "stride_1",
        PEmbStride1,
        "stride",
    ),
    wrong(PEMB, "no_bias", PEmbNoBias, "bias"),
    wrong(PEMB, "linear_not_conv2d", PEmbLinear, "conv2d"),
    wrong(
        PEMB,
        "lazy_conv2d",
        PEmbLazy,
        "construct",
    ),
]
PEMB_OK = [right(PEMB, "permute", PEmbPermute)]

# ----------------------------------------------------------------------------- 09.VisionTransformer

VIT = "09.VisionTransformer"


class ViTVariant(VisionTransformer):
    pooling = "cls"
    cls_at_end = False
    add_pos = True
    final_norm = True

    def embed(self, images):
        x = self.patch_embed(images)
        cls = self.cls_token.expand(x.size(0), -1, -1)
        x = torch.cat([x, cls] if self.cls_at_end else [cls, x], dim=1)
        return self.dropout(x + self.pos_embed if self.add_pos else x)

    def forward(self, images):
        x = self.embed(images)
        for blk in self.blocks:
            x = blk(x)
        x = self.norm(x) if self.final_norm else x
        pooled = {
            "cls": x[:, -1 if self.cls_at_end else 0],
            "mean": x[:, 1:].mean(1),
            "last": x[:, -1],
        }
        return self.head(pooled[self.pooling])


def vit(**changes):
    return type("VisionTransformer", (ViTVariant,), changes)


class ViTPosOnPatchesOnly(VisionTransformer):
    def embed(self, images):
        x = self.patch_embed(images) + self.pos_embed[:, 1:]
        cls = self.cls_token.expand(x.size(0), -1, -1)
        return self.dropout(torch.cat([cls, x], dim=1))


class ViTRepeat(VisionTransformer):
    """Correct, written differently: repeat instead of expand, norm on all tokens."""

    def embed(self, images):
        x = self.patch_embed(images)
        return self.dropout(
            torch.cat([self.cls_token.repeat(x.size(0), 1, 1), x], 1) + self.pos_embed
        )


VIT_WRONG = [
    wrong(VIT, "mean_pooling", vit(pooling="mean"), "cls"),
    wrong(VIT, "head_on_last_token", vit(pooling="last"), "cls"),
    wrong(
        VIT,
        "cls_appended_at_end",
        vit(cls_at_end=True),
        "cls",
    ),
    wrong(VIT, "no_position_embedding", vit(add_pos=False), "pos_embed"),
    wrong(VIT, "no_final_norm", vit(final_norm=False), "norm"),
    wrong(VIT, "pos_embed_skips_cls", ViTPosOnPatchesOnly, "pos_embed"),
]
VIT_OK = [right(VIT, "repeat", ViTRepeat)]

# ----------------------------------------------------------------------------- 09.trained_vit

TV = "09.trained_vit"


class VisionTransformer(nn.Module):
    """The contract's attributes of the trained ViT, for the test double below."""

    def __init__(self):
        super().__init__()
        self.patch_embed, self.blocks, self.norm, self.head = (nn.Identity() for _ in range(4))
        self.cls_token, self.pos_embed = nn.Parameter(torch.zeros(1)), nn.Parameter(torch.zeros(1))


class Memorizer(VisionTransformer):
    """A test double, not a trained model: the label of the nearest image of the public test
    split (the check's noisy copies find their own source)."""

    def __init__(self, shift=0, wrong_first=0, out="logits"):
        super().__init__()
        from helpers.data import digits

        d = digits()  # the test images first: ``wrong_first`` of them get the next class
        self.x = torch.cat([d["x_test"], d["x_train"]]).flatten(1)
        self.y = torch.cat([d["y_test"], d["y_train"]])
        self.y[:wrong_first] = (self.y[:wrong_first] + 1) % 10
        self.shift, self.out = shift, out
        self.dummy = nn.Parameter(torch.zeros(()))

    def forward(self, images):
        nearest = torch.cdist(images.cpu().flatten(1), self.x).argmin(dim=1)
        y = (self.y[nearest] + self.shift) % 10
        return y if self.out == "ids" else F.one_hot(y, 10).float() + self.dummy


TV_WRONG = [
    wrong(TV, "another_model", nn.Sequential(nn.Flatten(), nn.Linear(64, 10)), "not the model"),
    wrong(TV, "labels_off_by_one", Memorizer(shift=1), "near chance"),
    wrong(TV, "forty_wrong", Memorizer(wrong_first=40), "0.9444"),
    wrong(TV, "returns_class_ids", Memorizer(out="ids"), "logits"),
    wrong(TV, "a_function", lambda images: torch.zeros(len(images), 10), "nn.module"),
    wrong(TV, "the_class", Memorizer, "class"),
    # issue 31: a lookup of the public test images is not a trained ViT
    wrong(TV, "lookup", Memorizer(), "weights shuffled"),
]
TV_OK = []

test_wrong_version_fails_with_named_message, test_correct_variant_passes = make_tests(
    BW_WRONG + KV_WRONG + SW_WRONG + LA_WRONG + PF_WRONG + PEMB_WRONG + VIT_WRONG + TV_WRONG,
    BW_OK + KV_OK + SW_OK + LA_OK + PF_OK + PEMB_OK + VIT_OK + TV_OK,
)
