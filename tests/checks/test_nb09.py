"""Checks of notebook 09: the solution passes, the stub is 'not implemented', mistakes are named."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from helpers.blocks.layers import TransformerEncoderBlock

from .conftest import stub

# --------------------------------------------------------------------------- patchify


def patchify(images, patch_size):
    B, C, H, W = images.shape
    p = patch_size
    x = images.reshape(B, C, H // p, p, W // p, p)  # (B, C, h, p, w, p)
    x = x.permute(0, 2, 4, 1, 3, 5)  # (B, h, w, C, p, p)
    return x.reshape(B, (H // p) * (W // p), C * p * p)


def patchify_unfold(images, patch_size):  # written differently: Tensor.unfold twice
    p = patch_size
    x = images.unfold(2, p, p).unfold(3, p, p)  # (B, C, h, w, p, p)
    B, C, h, w = x.shape[:4]
    return x.permute(0, 2, 3, 1, 4, 5).reshape(B, h * w, C * p * p)


def test_patchify_solution_passes(run_check):
    r = run_check("09.patchify", patchify)
    assert r.passed and r.points == r.max_points


def test_patchify_written_differently_passes(run_check):
    assert run_check("09.patchify", patchify_unfold).passed


def test_patchify_stub(run_check):
    r = run_check("09.patchify", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


def test_patchify_unfold_is_switched_off(run_check):
    """(The catalogue's mistakes: tests/checks/test_catalogue.py.)"""
    r = run_check("09.patchify", lambda im, p: F.unfold(im, p, stride=p).transpose(1, 2))
    assert not r.passed and "switched off" in r.messages[0], r.messages


# --------------------------------------------------------------------------- patch embedding


class PatchEmbedding(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, d_model, layout="right"):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_channels, d_model, patch_size, patch_size)
        self.layout = layout

    def forward(self, images):
        y = self.proj(images)  # (B, d, h, w)
        if self.layout == "conv":
            return y
        if self.layout == "no_transpose":
            return y.flatten(2)
        return y.flatten(2).transpose(1, 2)


class LinearPatchEmbedding(
    nn.Module
):  # written differently: patchify + the conv weight as a matrix
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__()
        self.patch_size, self.num_patches = patch_size, (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_channels, d_model, patch_size, patch_size)

    def forward(self, images):
        w = self.proj.weight.flatten(1)  # (d, C*p*p)
        return F.linear(patchify(images, self.patch_size), w, self.proj.bias)


def test_embedding_solution_passes(run_check):
    r = run_check("09.PatchEmbedding", PatchEmbedding)
    assert r.passed, r.messages


def test_embedding_written_differently_passes(run_check):
    assert run_check("09.PatchEmbedding", LinearPatchEmbedding).passed


def test_embedding_with_a_wrong_num_patches_is_named(run_check):
    """The ViT reads num_patches to size pos_embed: the attribute the text states is checked."""

    class Unsquared(PatchEmbedding):
        def __init__(self, img_size, patch_size, in_channels, d_model):
            super().__init__(img_size, patch_size, in_channels, d_model)
            self.num_patches = img_size // patch_size

    r = run_check("09.PatchEmbedding", Unsquared)
    assert r.mistake == "09.PatchEmbedding/num_patches", r.messages


def test_embedding_stub(run_check):
    r = run_check("09.PatchEmbedding", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


class LinearProj(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__()
        self.proj = nn.Linear(in_channels * patch_size**2, d_model)

    def forward(self, images):
        return self.proj(patchify(images, 4))


@pytest.mark.parametrize(
    "layout, words",
    [
        ("conv", "flatten the grid and transpose"),
        ("no_transpose", "transpose it to (B, N, d_model)"),
    ],  # the catalogue's mistakes: tests/checks/test_catalogue.py
)
def test_embedding_mistakes(run_check, layout, words):
    def make(*args, **kwargs):
        return PatchEmbedding(*args, **kwargs, layout=layout)

    r = run_check("09.PatchEmbedding", make)
    assert not r.passed
    assert words in r.messages[0], r.messages


def test_embedding_linear_proj_is_named(run_check):
    r = run_check("09.PatchEmbedding", LinearProj)
    assert not r.passed and "nn.Conv2d" in r.messages[0], r.messages


# --------------------------------------------------------------------------- the ViT


class ViT(nn.Module):
    def __init__(
        self,
        img_size,
        patch_size,
        in_channels,
        num_classes,
        d_model,
        num_heads,
        num_layers,
        d_ff,
        dropout=0.0,
        mistake=None,
    ):
        super().__init__()
        N = (img_size // patch_size) ** 2
        self.mistake = mistake
        self.patch_embed = PatchEmbedding(img_size, patch_size, in_channels, d_model)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, d_model))
        self.pos_embed = nn.Parameter(
            torch.zeros(1, N + (0 if mistake == "short_pos" else 1), d_model)
        )
        self.blocks = nn.ModuleList(
            [TransformerEncoderBlock(d_model, num_heads, d_ff, dropout) for _ in range(num_layers)]
        )
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)

    def tokens(self, images):
        x = self.patch_embed(images)  # (B, N, d)
        return torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed

    def forward(self, images):
        x = self.tokens(images)
        for block in self.blocks:
            x = block(x)
        x = self.norm(x)
        if self.mistake == "all_tokens":
            return self.head(x)
        return self.head(x[:, 0])

    def attention_maps(self, images):
        x, maps = self.tokens(images), []
        for block in self.blocks:
            _, w = block.self_attn(block.norm1(x))
            maps.append(w.mean(1) if self.mistake == "avg_heads" else w)
            x = x if self.mistake == "maps_no_block" else block(x)
        return maps


def test_vit_solution_passes(run_check):
    r = run_check("09.VisionTransformer", ViT)
    assert r.passed, r.messages


def test_vit_stub(run_check):
    r = run_check("09.VisionTransformer", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


@pytest.mark.parametrize(
    "mistake, words",
    [  # the catalogue's mistakes: tests/checks/test_catalogue.py
        ("all_tokens", "one prediction per token"),
        ("short_pos", "N + 1"),
        ("avg_heads", "keep the heads"),
        ("maps_no_block", "run each block, x = layer(x)"),
    ],
)
def test_vit_mistakes(run_check, mistake, words):
    def make(*args, **kwargs):
        return ViT(*args, **kwargs, mistake=mistake)

    r = run_check("09.VisionTransformer", make)
    assert not r.passed
    assert words in r.messages[0], r.messages


# --------------------------------------------------------------------------- the data split


def test_digits_split_is_fixed_and_stratified():
    from helpers import data

    a, b = data.digits(), data.digits()
    assert a["x_train"].shape == (1437, 1, 8, 8) and a["x_test"].shape == (360, 1, 8, 8)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert 0.0 <= float(a["x_train"].min()) and float(a["x_train"].max()) <= 1.0
    counts = a["y_test"].bincount(minlength=10)
    assert int(counts.min()) >= 35 and int(counts.max()) <= 37


def test_sample_image():
    from helpers import data

    img = data.sample_image("china.jpg", size=64)
    assert img.shape == (3, 64, 64) and img.dtype == torch.float32
    assert 0.0 <= float(img.min()) and float(img.max()) <= 1.0
    assert data.sample_image("flower.jpg", size=None).shape == (3, 427, 640)


# --------------------------------------------------------------------------- the trained ViT


class VisionTransformer(nn.Module):
    """A test double, not a trained model, with the contract's attributes: logits from the
    label of the nearest image of the public test split of helpers.data.digits() (the check's
    noisy copies find their own source); the first ``wrong`` test images get the next class."""

    def __init__(self, wrong=0):
        super().__init__()
        for name in ("patch_embed", "blocks", "norm", "head"):
            setattr(self, name, nn.Identity())
        self.cls_token, self.pos_embed = nn.Parameter(torch.zeros(1)), nn.Parameter(torch.zeros(1))
        from helpers.data import digits

        data = digits()  # the test images first: ``wrong`` of them get the next class
        self.x = torch.cat([data["x_test"], data["x_train"]]).flatten(1)
        self.y = torch.cat([data["y_test"], data["y_train"]])
        self.y[:wrong] = (self.y[:wrong] + 1) % 10
        self.dummy = nn.Parameter(torch.zeros(()))

    def forward(self, images):  # (B, 1, 8, 8) -> (B, 10)
        assert not self.training, "the check should call model.eval()"
        nearest = torch.cdist(images.cpu().flatten(1), self.x).argmin(dim=1)
        return F.one_hot(self.y[nearest], 10).float() + self.dummy


def test_a_lookup_of_the_test_images_is_not_a_trained_vit(run_check):
    """Issue 31: a ViT whose forward looks the answers up (the test split is public) got 2/2.
    The check's images are noisy copies no one has, but the nearest public image still answers
    them: with its weights shuffled it keeps its accuracy, its answers are not from its weights."""
    r = run_check("09.trained_vit", DigitsLookup())
    assert not r.passed and r.mistake == "09.trained_vit/not_from_weights", r.messages


def test_trained_vit_below_threshold_reports_accuracy(run_check):
    r = run_check("09.trained_vit", DigitsLookup(wrong=40))  # 680 / 720 right
    assert not r.passed and r.status == "failed"
    assert (
        "the accuracy on the 720 images with noise is 0.9444, below the threshold 0.95"
        in r.messages[0]
    )


DigitsLookup = VisionTransformer


def test_untrained_vit_fails(run_check):
    from helpers.blocks.vit import VisionTransformer as ViT

    torch.manual_seed(0)
    r = run_check("09.trained_vit", ViT(8, 4, 1, 10, 16, 2, 1, 32))
    assert not r.passed and r.mistake == "09.trained_vit/near_chance", r.messages


def test_the_notebooks_cnn_is_not_the_trained_vit(run_check):
    """Any accurate model is not "the trained ViT" (issue 18): the CNN of the notebook fails."""
    cnn = nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(512, 10)
    )
    r = run_check("09.trained_vit", cnn)
    assert r.mistake == "09.trained_vit/not_the_model", r.messages
    assert "it is a Sequential, not a VisionTransformer" in r.messages[0]


@pytest.mark.parametrize(
    "candidate, words",
    [
        (DigitsLookup, "got the class VisionTransformer"),
        (lambda images: torch.zeros(len(images), 10), "should be the trained model, an nn.Module"),
    ],
)
def test_trained_vit_not_a_module(run_check, candidate, words):
    r = run_check("09.trained_vit", candidate)
    assert not r.passed and words in r.messages[0], r.messages


def test_trained_vit_wrong_output_shape(run_check):
    class Flat(VisionTransformer):
        def forward(self, images):
            return images.flatten()  # one vector for the batch

    r = run_check("09.trained_vit", Flat())
    assert not r.passed and "expected (720,)" in r.messages[0], r.messages


def test_the_held_out_images_are_new_each_seed_and_keep_their_labels():
    """Issue 31: the ViT is judged on images the notebook does not ship: noisy copies of the
    test split and of as many training images, drawn from the seed (the grader's is secret),
    labels those of their sources (a model fitted to the test images alone fails)."""
    from helpers.checks import REGISTRY
    from helpers.data import digits

    data = digits()
    ex = REGISTRY["09.trained_vit"]
    shipped = torch.cat([data["x_test"], data["x_train"]]).flatten(1)
    labels = torch.cat([data["y_test"], data["y_train"]])
    draws = [ex.held_out(torch.Generator().manual_seed(s)) for s in (1, 2)]
    for _, x, y in draws:
        assert x.shape == (720, 1, 8, 8) and 0 <= float(x.min()) and float(x.max()) <= 1
        nearest = torch.cdist(x.flatten(1), shipped).min(dim=1)
        assert nearest.values.min() > 0.1  # none shipped
        assert torch.equal(labels[nearest.indices], y)  # each the label of its source
        assert (nearest.indices < 360).sum() == 360  # all the test images, and 360 others
    assert not torch.equal(draws[0][1], draws[1][1])


def _vit(seed=0):
    from helpers.blocks.vit import VisionTransformer as ViT

    torch.manual_seed(seed)
    return ViT(8, 4, 1, 10, 64, 4, 2, 128)


@pytest.fixture(scope="module")
def trained_vit():
    """Notebook 09's ViT trained as the notebook trains it, briefly (8 epochs: ~2 s)."""
    from helpers.data import digits
    from helpers.training import fit

    data, vit, gen = digits(), _vit(), torch.Generator().manual_seed(0)
    x, y = data["x_train"], data["y_train"]
    optimizer = torch.optim.AdamW(vit.parameters(), lr=3e-3, weight_decay=0.05)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-3, total_steps=8 * 23)

    def batches():
        return [(x[i], y[i]) for i in torch.randperm(len(y), generator=gen).split(64)]

    fit(vit, batches, optimizer, F.cross_entropy, epochs=8, scheduler=scheduler, progress=False)
    return vit.eval()


def test_the_notebooks_vit_trained_passes(run_check, trained_vit):
    r = run_check("09.trained_vit", trained_vit)
    assert r.passed, r.messages


def test_answers_from_a_fingerprint_of_the_weights_are_not_the_trained_vits(run_check):
    """Issue 31 (a tester's breach): the notebook's ViT, never trained, whose own forward looks
    up the nearest public test image while its weights are untouched and runs honestly
    otherwise: shuffled, it falls to chance. Run with the same weights, the ViT answers
    otherwise."""
    from helpers.data import digits

    class Fingerprinted(type(_vit())):
        def __init__(self):
            super().__init__(8, 4, 1, 10, 64, 4, 2, 128)
            self.mark = self.head.weight.detach().clone()
            data = digits()
            self.x, self.y = data["x_test"].flatten(1), data["y_test"]

        def forward(self, images):
            if torch.equal(self.head.weight, self.mark):
                nearest = torch.cdist(images.flatten(1), self.x).argmin(dim=1)
                return F.one_hot(self.y[nearest], 10).float()
            return super().forward(images)

    r = run_check("09.trained_vit", Fingerprinted())
    assert not r.passed and r.mistake == "09.trained_vit/not_from_weights", r.messages
    assert "same answer on only" in r.messages[0]


# tested in tests/checks/test_nb09_pos_embed.py: "09.interpolate_pos_embed", "09.q_patch_params",
# "09.q_baselines"
