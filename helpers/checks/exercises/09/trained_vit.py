"""09.trained_vit: the trained ViT reaches test accuracy >= 0.95 on the digits (its check)."""

from __future__ import annotations

import math

import torch

from ...framework import REGISTRY, register
from ...mistakes import variants
from ...trained import TrainedModelCheck, divisors
from .reference import vit64, vit_init


@register
class TrainedViTCheck(TrainedModelCheck):
    """The ViT trained in the notebook (the variable ``vit``), judged on images the notebook
    never shows: the 360 test images of ``helpers.data.digits()`` and 360 of its training images
    drawn from the seed, each with its own noise and brightness (``perturbed``; the grader's
    seed is secret). The training images are there so that a model fitted to the test images
    alone fails (a tester's breach). Accuracy >= 0.95, of the answers the learner's weights give
    in the course's ViT (trained.py): the solution reached 0.982-0.997, median 0.989, over 20
    training seeds x 5 draws (0.975-0.994 on the clean test images): the threshold sits below
    that spread (``python bench/heldout_vit.py``).

    The clean images they come from are public, so a lookup of the nearest image would still
    answer well: what makes the grade the trained model's is trained.py's rules (the class's
    own forward runs, the accuracy falls to chance with the weights shuffled, and the weights
    give the answers in the model the notebook builds).
    """

    id = "09.trained_vit"
    title = "the trained ViT reaches test accuracy >= 0.95 on the digits"
    points = 2.0
    grade_target = "vit"
    threshold = 0.95
    contract = {"": "VisionTransformer", "patch_embed": "", "cls_token": "", "pos_embed": ""}
    contract.update({"blocks": "", "norm": "", "head": ""})

    def held_out(self, gen):
        from helpers.data import digits  # judging side only (not in the grader's kernel)

        data = digits()
        n = len(data["y_test"])  # as many training images, drawn: a model fitted to the test
        train = torch.randperm(len(data["y_train"]), generator=gen)[:n]  # images alone fails
        x = torch.cat([data["x_test"], data["x_train"][train]])
        y = torch.cat([data["y_test"], data["y_train"][train]])
        order = torch.randperm(len(y), generator=gen)
        x, y = perturbed(x[order], gen), y[order]
        return f"{n} test and {n} training images of helpers.data.digits(), with noise", x, y

    def accuracy_label(self, targets):
        return f"the accuracy on the {len(targets)} images with noise"

    def weight_runs(self, state, images):
        """The float64 ViT (vit64) with the learner's weights, for every number of heads that
        divides d_model (the weights do not show it), then its known mistakes."""
        d = state["cls_token"].shape[-1]
        _, C, p, _ = state["patch_embed.proj.weight"].shape
        side = math.isqrt(state["pos_embed"].shape[1] - 1)
        layers = len({k.split(".")[1] for k in state if k.startswith("blocks.")})
        d_ff, classes = state["blocks.0.ffn.linear1.weight"].shape[0], state["head.weight"].shape[0]
        inits = [vit_init(side * p, p, C, classes, d, H, layers, d_ff) for H in divisors(d)]

        yield [lambda init=init: vit64(init, state, images) for init in inits]
        mistakes = REGISTRY["09.VisionTransformer"].mistakes  # exercises/09/catalogue.py
        yield [v for init in inits for v, _, _ in variants(mistakes, vit64, (init, state, images))]


def perturbed(images: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """(B, 1, 8, 8) in [0, 1] -> copies whose labels stay clear but which no one has: each
    image's brightness scaled by 0.9 to 1.1, Gaussian noise of 0.05 on every pixel, clamped."""
    scale = 0.9 + 0.2 * torch.rand(len(images), 1, 1, 1, generator=gen)
    noise = 0.05 * torch.randn(images.shape, generator=gen)
    return (images * scale + noise).clamp(0, 1)
