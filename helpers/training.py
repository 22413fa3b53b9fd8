"""A small fit loop for the notebooks after the one where the learner writes the loop.

Notebook 06 has the learner write ``train_one_epoch``; from then on notebooks call :func:`fit`::

    from helpers.training import fit
    history = fit(model, data, optimizer, loss_fn, steps=600, device=device)
    plotting.curves({"train": history["loss"]})

A batch is a tuple ``(*inputs, targets)``: the model is called as ``model(*inputs)`` and the
loss as ``loss_fn(outputs, targets)``. So ``(tokens, labels)`` trains an encoder and
``(src, tgt_in, tgt_out)`` trains an encoder-decoder with ``model(src, tgt_in)``.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from .device import to_device as move  # (nested) batches to the device


def _epochs(data: Iterable | Callable[[], Iterable]):
    """Endless stream of epochs: call ``data`` for a fresh iterable each time, or re-iterate it."""
    while True:
        yield data() if callable(data) else data


def fit(
    model: nn.Module,
    data: Iterable | Callable[[], Iterable],
    optimizer: torch.optim.Optimizer,
    loss_fn: Callable[[Any, torch.Tensor], torch.Tensor],
    *,
    steps: int | None = None,
    epochs: int | None = None,
    device: torch.device | str | None = None,
    scheduler: Any = None,
    clip_grad_norm: float | None = None,
    eval_fn: Callable[[nn.Module], dict[str, float]] | None = None,
    eval_every: int | None = None,
    progress: bool = True,
    desc: str = "training",
) -> dict[str, list | float]:
    """Train ``model`` and return its history.

    ``data``: an iterable of batches ``(*inputs, targets)`` (a list, a DataLoader), re-read each
    epoch, or a function that returns a fresh iterable each epoch (on-the-fly synthetic data).
    Give ``steps`` (optimizer steps in all) or ``epochs`` (passes over ``data``).
    ``device``: the model and each batch are moved there (None: leave them where they are).
    ``scheduler``: stepped after every optimizer step. ``clip_grad_norm``: clip the gradient norm.
    ``eval_fn(model) -> {"name": value}``: run in eval mode and ``torch.no_grad()`` every
    ``eval_every`` steps (default: once per epoch) and at the end; the model is put back in
    train mode afterwards.

    Returns a dict: ``loss`` (one float per step), ``epoch_loss`` (mean per epoch, complete
    epochs only), ``eval_step`` and one list per metric of ``eval_fn``, ``seconds`` (wall time),
    ``steps`` (optimizer steps taken).
    """
    if (steps is None) == (epochs is None):
        raise ValueError("give exactly one of steps= or epochs=")
    from tqdm.auto import tqdm

    if device is not None:
        model.to(device)
    stream = _epochs(data)
    first = next(stream)  # the first epoch: its length, when it has one, gives the bar a total
    total = steps if steps is not None or not hasattr(first, "__len__") else epochs * len(first)
    bar = tqdm(total=total, desc=desc, disable=not progress, leave=True)
    run = _Run(model, optimizer, loss_fn, device, scheduler, clip_grad_norm, eval_fn, bar)
    model.train()
    start = time.perf_counter()
    for epoch, batches in enumerate(itertools.chain([first], stream)):
        if epochs is not None and epoch >= epochs:
            break
        run.epoch(batches, steps, eval_every)
        if steps is not None and run.step >= steps:
            break
    bar.close()
    history = run.history
    if eval_fn is not None and (not history["eval_step"] or history["eval_step"][-1] != run.step):
        run.evaluate()
    history["seconds"] = time.perf_counter() - start
    history["steps"] = run.step
    return history


@dataclass
class _Run:
    """One call of :func:`fit`: what it trains with, its history, the steps taken."""

    model: nn.Module
    optimizer: torch.optim.Optimizer
    loss_fn: Callable[[Any, torch.Tensor], torch.Tensor]
    device: torch.device | str | None
    scheduler: Any
    clip_grad_norm: float | None
    eval_fn: Callable[[nn.Module], dict[str, float]] | None
    bar: Any  # tqdm
    history: dict = field(default_factory=lambda: {"loss": [], "epoch_loss": [], "eval_step": []})
    step: int = 0

    def train_step(self, batch) -> float:
        """One optimizer step (and scheduler step) on ``(*inputs, targets)``; its loss."""
        *inputs, targets = move(batch, self.device)
        loss = self.loss_fn(self.model(*inputs), targets)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if self.clip_grad_norm is not None:
            nn.utils.clip_grad_norm_(self.model.parameters(), self.clip_grad_norm)
        self.optimizer.step()
        if self.scheduler is not None:
            self.scheduler.step()
        return loss.item()

    def evaluate(self) -> None:
        """``eval_fn`` in eval mode without gradients, its metrics recorded; train mode after."""
        if self.eval_fn is None:
            return
        self.model.eval()
        with torch.no_grad():
            metrics = self.eval_fn(self.model)
        self.model.train()
        self.history["eval_step"].append(self.step)
        for name, value in metrics.items():
            self.history.setdefault(name, []).append(float(value))

    def epoch(self, batches: Iterable, steps: int | None, eval_every: int | None) -> None:
        """One pass over ``batches``, cut short at ``steps``; a whole pass records its mean
        loss (and, without ``eval_every``, evaluates)."""
        losses = []
        for batch in batches:
            losses.append(self.train_step(batch))
            self.step += 1
            self.history["loss"].append(losses[-1])
            self.bar.update(1)
            if self.step % 10 == 0 or self.step == steps:
                self.bar.set_postfix(loss=f"{losses[-1]:.4f}")
            if eval_every and self.step % eval_every == 0:
                self.evaluate()
            if steps is not None and self.step >= steps:
                break  # stopped inside the epoch: no epoch mean
        else:
            if not losses:
                raise ValueError("the data gave no batches")
            self.history["epoch_loss"].append(sum(losses) / len(losses))
            if not eval_every:
                self.evaluate()


def token_cross_entropy(
    logits: torch.Tensor, targets: torch.Tensor, ignore_index: int = -100
) -> torch.Tensor:
    """Cross-entropy for per-token outputs: logits (B, T, V), targets (B, T); positions whose
    target is ``ignore_index`` (padding) do not count."""
    return F.cross_entropy(
        logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=ignore_index
    )


__all__ = ["fit", "move", "token_cross_entropy"]
