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
    history: dict[str, list | float] = {"loss": [], "epoch_loss": [], "eval_step": []}

    def evaluate(step: int) -> None:
        if eval_fn is None:
            return
        model.eval()
        with torch.no_grad():
            metrics = eval_fn(model)
        model.train()
        history["eval_step"].append(step)
        for name, value in metrics.items():
            history.setdefault(name, []).append(float(value))

    stream = _epochs(data)
    first = next(stream)  # the first epoch: its length, when it has one, gives the bar a total
    total = steps if steps is not None or not hasattr(first, "__len__") else epochs * len(first)
    bar = tqdm(total=total, desc=desc, disable=not progress, leave=True)
    model.train()
    step, epoch, start = 0, 0, time.perf_counter()
    for batches in itertools.chain([first], stream):
        if epochs is not None and epoch >= epochs:
            break
        epoch_losses, finished = [], True
        for batch in batches:
            *inputs, targets = move(batch, device)
            loss = loss_fn(model(*inputs), targets)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if clip_grad_norm is not None:
                nn.utils.clip_grad_norm_(model.parameters(), clip_grad_norm)
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            step += 1
            epoch_losses.append(loss.item())
            history["loss"].append(epoch_losses[-1])
            bar.update(1)
            if step % 10 == 0 or step == steps:
                bar.set_postfix(loss=f"{epoch_losses[-1]:.4f}")
            if eval_every and step % eval_every == 0:
                evaluate(step)
            if steps is not None and step >= steps:
                finished = False  # stopped inside the epoch: no epoch mean
                break
        if not epoch_losses:
            raise ValueError("the data gave no batches")
        epoch += 1
        if finished:
            history["epoch_loss"].append(sum(epoch_losses) / len(epoch_losses))
            if not eval_every:
                evaluate(step)
        if steps is not None and step >= steps:
            break
    bar.close()
    if eval_fn is not None and (not history["eval_step"] or history["eval_step"][-1] != step):
        evaluate(step)
    history["seconds"] = time.perf_counter() - start
    history["steps"] = step
    return history


def token_cross_entropy(
    logits: torch.Tensor, targets: torch.Tensor, ignore_index: int = -100
) -> torch.Tensor:
    """Cross-entropy for per-token outputs: logits (B, T, V), targets (B, T); positions whose
    target is ``ignore_index`` (padding) do not count."""
    return F.cross_entropy(
        logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=ignore_index
    )


__all__ = ["fit", "move", "token_cross_entropy"]
