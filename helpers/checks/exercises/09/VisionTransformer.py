"""09.VisionTransformer: the Vision Transformer (its check)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ...framework import (
    Exercise,
    Fail,
    Probe,
    close,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    fmt_shape,
    randn,
    register,
)
from ...mistakes import variants
from ...modules import expect_names, judge_maps, judge_module_info
from ...parts import PartsMixin
from ...probes import P_TRAIN, fixed_drops
from ...references import STACK_MISPLACEMENTS, stack64
from .reference import (
    VIT_MISPLACEMENTS,
    embed64,
    vit64,
    vit_init,
    vit_names,
    vit_state,
)


def vit_as_learner(vit):
    """The module a learner writes of vit64 (or of a wrong program made of it): the course's ViT
    (helpers/blocks/vit.py) whose eval-mode logits are the program's on its weights (its
    gradients the course ViT's; in training mode the course ViT itself)."""
    from ....blocks.vit import VisionTransformer

    class ViT(VisionTransformer):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            names = ("img_size", "patch_size", "in_channels", "num_classes", "d_model",
                     "num_heads", "num_layers", "d_ff")  # fmt: skip
            self.init = dict(zip(names, args)) | kwargs

        def forward(self, images):  # the program's logits, the course ViT's gradients
            course = super().forward(images)
            if self.training:
                return course
            state = {k: t.detach().cpu() for k, t in self.state_dict().items()}
            return course + (vit(self.init, state, images.cpu()).to(course) - course).detach()

    return ViT


@register
class VisionTransformerCheck(PartsMixin, Exercise):
    parts = (
        ("patch_embed", "09.PatchEmbedding"),
        (r"blocks\.\d+", "05.TransformerEncoderBlock"),
        ("norm", "05.LayerNorm"),
    )
    id = "09.VisionTransformer"
    modes = {"attention_maps": "kept"}
    title = "the Vision Transformer"
    points = 4.0
    kind = "module"
    reference64 = staticmethod(vit64)
    learner = staticmethod(vit_as_learner)

    def probes(self, gen):
        base = vit_init()
        yield Probe(
            "module_info: VisionTransformer(8, 4, 1, 10, d_model=16, 2 heads, 2 layers, d_ff=32)",
            runner="module_info",
            init=base,
        )
        rgb = vit_init(img=12, p=4, C=3, classes=5, d=12, H=3, L=1, d_ff=24)
        fine = vit_init(p=2, d=8, H=2, L=2, d_ff=16, dropout=0.1)
        deep = vit_init(L=3, d=8, d_ff=16, classes=3)
        train = {**fine, "dropout": P_TRAIN}
        for name, init, images, runner, info in (
            ("8x8 images, patch 4 (N = 4), 2 layers, images (3, 1, 8, 8)", base, (3, 1, 8, 8),
             "parts", {}),
            ("12x12 RGB, patch 4 (N = 9), 3 heads, 1 layer, 5 classes, images (2, 3, 12, 12)",
             rgb, (2, 3, 12, 12), "parts", {}),
            ("patch 2 (N = 16), dropout=0.1 in eval mode, images (2, 1, 8, 8)", fine,
             (2, 1, 8, 8), "parts", {}),
            ("3 layers, 3 classes, images (2, 1, 8, 8)", deep, (2, 1, 8, 8), "parts", {}),
            ("attention_maps, 2 layers, images (2, 1, 8, 8)", base, (2, 1, 8, 8), "parts",
             {"method": "attention_maps"}),
            (f"training mode, dropout={P_TRAIN}, patch 2 (N = 16), images (2, 1, 8, 8) (dropout "
             "in the blocks, and optionally on the embedded tokens; the same fixed masks on "
             "both sides)", train, (2, 1, 8, 8), "encoder_train", {}),
        ):  # fmt: skip
            state = vit_state(gen, fine if init is train else init)
            args = (randn(*images, generator=gen),)
            yield Probe(name, runner=runner, init=init, state=state, args=args, info=info)

    def judge_value(self, probe, out):
        if probe.runner == "module_info":
            return judge_module_info(probe, out, "VisionTransformer", self.judge_info)
        if isinstance(out, dict):
            raise Fail("VisionTransformer(...) should build a torch.nn.Module.", "not_a_module")
        init, st, (images,) = probe.init, probe.state, probe.args
        if probe.info.get("method") == "attention_maps":
            T = (init["img_size"] // init["patch_size"]) ** 2 + 1
            shape = (images.shape[0], init["num_heads"], T, T)

            def maps(on):
                return vit64(init, st, images, maps=True, maps_on=on)

            wrong = {"maps_without_norm1": maps("raw"), "maps_on_embedding": maps("embedding")}
            return judge_maps(out, maps("input"), shape, images.dtype, wrong)
        B = images.shape[0]
        got = expect_tensor(out, "the logits")
        if got.dim() == 3 and got.shape[0] == B and got.shape[-1] == init["num_classes"]:
            raise Fail(
                f"the logits have shape {fmt_shape(got.shape)}: one prediction per token. "
                "Classify from the CLS token alone, head(norm(x)[:, 0]).",
                "logits_per_token",
            )
        expect_like(got, (B, init["num_classes"]), images.dtype, "the logits")
        if probe.runner == "encoder_train":
            return self.judge_train(probe, got)
        expect_finite(got, "the logits")

        atol = 1e-4 if images.dtype == torch.float32 else None
        ref, mistakes = vit64(init, st, images), variants(self.mistakes, vit64, (init, st, images))
        expect_close(got, ref, "the logits", atol=atol, mistakes=mistakes)

    def judge_train(self, probe, got):
        """Training mode: dropout in every block; on the embedded tokens (after adding pos_embed)
        or not, as the notebook leaves it open; nowhere else."""
        init, st, (images,) = probe.init, probe.state, probe.args
        st64 = {k: v.double() for k, v in st.items()}

        def ref(skip=(), moved=()):
            drops = fixed_drops(init["dropout"], skip, moved)
            x = embed64(st64, images, init["patch_size"], "patch_embed.proj.")  # (B, N, d)
            x = drops("emb", x) if "before_cls" in drops.moved else x
            cls = st64["cls_token"].expand(x.shape[0], -1, -1)
            x = drops("pos", torch.cat([cls, x], dim=1) + st64["pos_embed"])
            L, H = init["num_layers"], init["num_heads"]
            x = stack64(st64, x, "blocks.", L, H, drops)[:, 0]  # (B, d)
            x = drops("extra", x) if "head" in drops.moved else x
            return F.linear(x, st64["head.weight"], st64["head.bias"])

        if close(got, ref({"pos"}), 1e-4, 1e-4):  # no dropout on the embedded tokens: fine
            return
        mistakes = []
        for s, m, msg, code in VIT_MISPLACEMENTS + STACK_MISPLACEMENTS:
            mistakes += [(lambda s=s, m=m: ref(s, m), msg, code)]
            mistakes += [(lambda s=s, m=m: ref({"pos", *s}, m), msg, code)]
        expect_close(got, ref(), "the logits in training mode", atol=1e-4, mistakes=mistakes)

    def judge_info(self, probe, info):
        init = probe.init
        N, d = (init["img_size"] // init["patch_size"]) ** 2, init["d_model"]
        hints = {
            "patch_embed.proj.weight": "Use self.patch_embed = PatchEmbedding(img_size, "
            "patch_size, in_channels, d_model) from above.",
            "cls_token": "Create self.cls_token = nn.Parameter(torch.zeros(1, 1, d_model)).",
            "pos_embed": "Create self.pos_embed = nn.Parameter(...) of shape (1, N + 1, d_model) "
            f"= (1, {N + 1}, {d}): N patches plus the CLS token.",
            "pos_embed.shape": f"It needs N + 1 = {N + 1} rows: one per patch and one for the "
            "CLS token.",
            "cls_token.shape": "The CLS token is one learned vector, shape (1, 1, d_model) = "
            f"(1, 1, {d}).",
            "blocks.0.self_attn.q_proj.weight": "Use self.blocks = nn.ModuleList(["
            "TransformerEncoderBlock(d_model, num_heads, d_ff, dropout) for _ in "
            "range(num_layers)]) from helpers.blocks.layers.",
            "norm.weight": "Add the final self.norm = LayerNorm(d_model) (or nn.LayerNorm).",
            "head.weight": "Create self.head = nn.Linear(d_model, num_classes).",
        }
        expect_names(info, vit_names(init), "VisionTransformer", hints)
