"""Trained-model exercises: the learner's trained model predicts held-out inputs in its
kernel, and the judge (here, in the trusted process) compares the accuracy with a threshold."""

from __future__ import annotations

import torch

from .framework import Exercise, Fail, Probe, expect_tensor


def judge_accuracy(
    out, targets: torch.Tensor, threshold: float, what: str, name: str, others=(), model=""
) -> float:
    """Accuracy of the predictions ``out`` against ``targets`` (computed here, in the judging
    process); Fail below ``threshold`` with the accuracy reached, naming the other targets
    (``others``: (tensor, message, code)) the predictions match instead."""
    returned = [  # what predict_argmax returns instead of predictions: (key, code, message)
        ("not_the_model", "not_the_model", f"`{name}` is not the model this exercise builds: "
         f"{{}}. Pass the {model} you trained in this notebook."),
        ("not_a_module", "not_a_module", f"`{name}` should be the trained model, an nn.Module "
         f"instance; got the {{}}. Pass the model you trained, e.g. check(..., {name})."),
        ("output_type", "output_not_tensor", f"`{name}(inputs)` returned a {{}}: it should "
         "return the logits as one tensor."),
        ("not_its_own_code", "not_its_own_code", f"the code that runs in `{name}` is not its "
         "class's: {}. The grade is for the model the notebook trains, run by its own forward."),
    ]  # fmt: skip
    for key, code, message in returned if isinstance(out, dict) else ():
        if key in out:
            raise Fail(message.format(out[key]), code)
    if not isinstance(out, dict) or "predictions" not in out:
        raise Fail(f"`{name}` gave no predictions.", "output_not_tensor")
    got = expect_tensor(out["predictions"], "the predictions")
    if tuple(got.shape) != tuple(targets.shape):
        raise Fail(
            f"the predictions (argmax of the logits' last dimension) have shape "
            f"{tuple(got.shape)}, expected {tuple(targets.shape)}: the model should return "
            f"logits of shape {tuple(targets.shape) + ('num_classes',)}.",
            "prediction_shape",
        )
    accuracy = (got.long() == targets).double().mean().item()
    for other, message, code in others if not accuracy >= threshold else ():
        if (got.long() == other).double().mean().item() >= threshold:
            raise Fail(f"{what} is {accuracy:.4f}: {message}", code)
    chance = 1 / max(int(targets.max()) + 1, 2)
    if accuracy < 2 * chance:
        raise Fail(
            f"{what} is {accuracy:.4f}, near chance ({chance:.2f}): the model has not learned "
            "this task, and training longer will not help. Check the targets the loss compares "
            "the logits with, and that the trained model is the one you pass.",
            "near_chance",
        )
    if not accuracy >= threshold:
        raise Fail(
            f"{what} is {accuracy:.4f}, below the threshold {threshold}: train longer, or "
            "check the model and the training loop.",
            "below_threshold",
        )
    shuffled = expect_tensor(out.get("shuffled"), "the predictions with shuffled weights")
    if tuple(shuffled.shape) == tuple(targets.shape):
        kept = (shuffled.long() == targets).double().mean().item()
        if kept >= SHUFFLED_LIMIT:
            raise Fail(
                f"{what} is {accuracy:.4f}, and still {kept:.4f} with the model's weights "
                "shuffled: the answers do not come from the trained weights. The grade is for "
                "a model whose forward computes its answers from what it learned.",
                "not_from_weights",
            )
    return accuracy


#: the most a trained model may keep of its accuracy with its weights shuffled: a correct one
#: falls to chance (measured on the solutions' models over held-out draws: the sorting model
#: 1.000 -> 0.100-0.115 over 5, the ViT 0.975-0.978 -> 0.053-0.061 over 3 noisy draws), a model
#: that ignores its weights keeps it
SHUFFLED_LIMIT = 0.5


class TrainedModelCheck(Exercise):
    """Base of the trained-model exercises: one probe holding held-out inputs and targets.

    A subclass sets ``id``, ``title``, ``points``, ``grade_target`` (the variable holding the
    trained model) and ``threshold``, and writes ``held_out(gen)`` and ``accuracy_label``.
    """

    kind = "trained"
    threshold: float = 1.0
    # the model the exercise builds: attribute path ("" = the model) -> class name ("" = any)
    contract: dict[str, str] = {}

    def other_targets(self, inputs: torch.Tensor) -> list[tuple]:
        """(predictions, message, code) of a model trained on other targets (judging side)."""
        return []

    def held_out(self, gen: torch.Generator) -> tuple[str, torch.Tensor, torch.Tensor]:
        """(case name, inputs, targets), drawn on the judging side only."""
        raise NotImplementedError

    def accuracy_label(self, targets: torch.Tensor) -> str:
        """What the accuracy is measured on, for the message (e.g. "the accuracy on ...")."""
        raise NotImplementedError

    def probes(self, gen):
        name, inputs, targets = self.held_out(gen)
        yield Probe(
            name,
            runner="predict",
            args=(inputs,),
            kwargs={"contract": self.contract},
            info={"targets": targets},
            cpu_only=True,
        )

    def weight_runs(self, state: dict, inputs: torch.Tensor):
        """Stages (lists) of functions giving the logits of the exercise's architecture on
        ``inputs`` with the learner's ``state`` (judging side): first the float64 reference for
        each setting the weights do not show (e.g. the number of heads), then its known
        mistakes. Not overridden: the answers are not compared with the weights'."""
        return iter(())

    def judge(self, probe, out):
        targets, label = probe.info["targets"], self.accuracy_label(probe.info["targets"])
        others = self.other_targets(probe.args[0])
        model = self.contract.get("", "") or "model"
        accuracy = judge_accuracy(
            out, targets, self.threshold, label, self.grade_target, others, model
        )
        state = out.get("state")
        if isinstance(state, dict) and type(self).weight_runs is not TrainedModelCheck.weight_runs:
            weights = from_weights(
                out["predictions"],
                lambda: self.weight_runs(state, probe.args[0]),
                self.grade_target,
                model,
            )
            reached = (weights == targets).double().mean().item()
            if not reached >= self.threshold:
                raise Fail(
                    f"{label} is {accuracy:.4f}, but `{self.grade_target}`'s weights, run in the "
                    f"{model} this exercise builds, reach only {reached:.4f}, below the "
                    f"threshold {self.threshold}: what its forward adds to them does not count. "
                    "Train the model longer, and let its forward be the notebook's computation.",
                    "not_from_weights",
                )


def divisors(n: int) -> list[int]:
    """The numbers of heads a model of width ``n`` can have (the weights do not show it)."""
    return [h for h in range(1, int(n) + 1) if n % h == 0]


#: the share of the held-out inputs on which the exercise's architecture, run with the learner's
#: weights, must give the learner's own answers (the solutions' models: 1.000; float64 against
#: float32 may flip a near tie). The grade then counts the answers of that run, not the forward's
AGREEMENT = 0.9


def from_weights(predictions: torch.Tensor, make_runs, name: str, model: str) -> torch.Tensor:
    """The predictions of the exercise's architecture with the learner's weights: of the first
    stage of ``make_runs()`` (lists of functions giving logits) whose best run agrees with the
    learner's ``predictions`` on AGREEMENT of the inputs, that best run. Fail when none does:
    the answers are not what the trained weights compute in the model the notebook builds (a
    forward that answers from a fingerprint of its weights, or from hand-set weights in
    another computation), or when the weights fit no run."""
    best, fitted, why = 0.0, False, ""
    try:
        stages = [list(stage) for stage in make_runs()]
    except Exception as exc:  # the weights lack what the architecture reads (a name, a shape)
        stages, why = [], f"{type(exc).__name__}: {exc}"[:160]
    for stage in stages:
        chosen, chosen_agree = None, -1.0
        for run in stage:
            try:
                logits = run()
            except Exception as exc:  # the weights do not fit this variant (shapes, names)
                why = why or f"{type(exc).__name__}: {exc}"[:160]
                continue
            fitted = True
            if tuple(logits.shape[:-1]) != tuple(predictions.shape):
                continue
            guess = logits.argmax(dim=-1)
            agree = (guess == predictions).double().mean().item()
            if agree > chosen_agree:
                chosen, chosen_agree = guess, agree
        if chosen is not None and chosen_agree >= AGREEMENT:
            return chosen
        best = max(best, chosen_agree)
    if not fitted:
        raise Fail(
            f"`{name}`'s weights do not fit the {model} this exercise builds ({why}): grade the "
            f"{model} the notebook builds and trains, with its parameters' names and shapes.",
            "not_the_model",
        )
    raise Fail(
        f"`{name}`'s answers are not what its weights compute in the {model} this exercise "
        f"builds: run with the same weights, that model gives the same answer on only "
        f"{best:.0%} of the inputs. The grade is for the {model} the notebook builds, trained, "
        "and run by the computation the notebook writes.",
        "not_from_weights",
    )
