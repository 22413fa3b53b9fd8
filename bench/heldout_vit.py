"""The threshold of 09.trained_vit, measured: the notebook's ViT trained as in its cells, over
training seeds, scored on the clean test images and on the check's held-out draws (test and
training images with noise, TrainedViTCheck.held_out), with its own answers and with its
weights run in the course's float64 ViT (what the check counts).

    python bench/heldout_vit.py [SEEDS] [DRAWS]      (default 20 seeds x 5 draws: ~2 min on a CPU)
"""

from __future__ import annotations

import math
import statistics
import sys

import torch
import torch.nn.functional as F

from helpers import data, seed_everything
from helpers.blocks.vit import VisionTransformer
from helpers.checks import REGISTRY
from helpers.checks.trained import predict_argmax
from helpers.training import fit

# notebook 09's
CONFIG = {"img_size": 8, "patch_size": 4, "in_channels": 1, "num_classes": 10, "d_model": 64,
          "num_heads": 4, "num_layers": 2, "d_ff": 128, "dropout": 0.0}  # fmt: skip


def trained(seed: int) -> VisionTransformer:
    """Notebook 09's training cells: 20 epochs of AdamW with one-cycle, label smoothing 0.1."""
    gen = seed_everything(seed)
    digits = data.digits()
    x, y = digits["x_train"], digits["y_train"]
    vit, epochs, batch_size = VisionTransformer(**CONFIG), 20, 64
    optimizer = torch.optim.AdamW(vit.parameters(), lr=3e-3, weight_decay=0.05)
    steps = epochs * math.ceil(len(y) / batch_size)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=3e-3, total_steps=steps, pct_start=0.1
    )

    def batches():
        order = torch.randperm(len(y), generator=gen)
        return [(x[i], y[i]) for i in order.split(batch_size)]

    def loss_fn(logits, labels):
        return F.cross_entropy(logits, labels, label_smoothing=0.1)

    fit(vit, batches, optimizer, loss_fn, epochs=epochs, scheduler=scheduler, progress=False)
    return vit.eval()


def main(seeds: int = 20, draws: int = 5) -> None:
    digits = data.digits()
    x, y = digits["x_test"], digits["y_test"]
    check = REGISTRY["09.trained_vit"]
    clean, noisy, weights = [], [], []
    for seed in range(seeds):
        vit = trained(seed)
        with torch.no_grad():
            clean.append((vit(x).argmax(-1) == y).float().mean().item())
        for draw in range(draws):
            _, inputs, targets = check.held_out(torch.Generator().manual_seed(1000 + draw))
            out = predict_argmax(vit, inputs, check.contract)
            noisy.append((out["predictions"] == targets).float().mean().item())
            runs = next(iter(check.weight_runs(out["state"], inputs)))
            best = max(runs, key=lambda r: (r().argmax(-1) == out["predictions"]).sum().item())
            weights.append((best().argmax(-1) == targets).float().mean().item())
    rows = (("clean test images", clean), ("held-out draws", noisy), ("their weights", weights))
    for name, accs in rows:
        print(
            f"{name:18s} n={len(accs):3d}  min {min(accs):.3f}  median "
            f"{statistics.median(accs):.3f}  max {max(accs):.3f}"
        )


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))
