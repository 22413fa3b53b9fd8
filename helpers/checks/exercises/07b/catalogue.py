"""Notebook 07b's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

CATALOGUE = {
    "07b.lr_at": {  # edits of reference.lr64, in the order the judge tries them
        "warmup_from_zero": {
            "message": "the warm-up starts at 0 (max_lr * step / warmup): step 0 then takes no "
            "step at all. Use max_lr * (step + 1) / (warmup + 1), which reaches max_lr at step "
            "warmup.",
            "wrong": "max_lr * (step + 1) / (warmup + 1) -> max_lr * step / warmup",
        },
        "warmup_one_short": {
            "message": "the warm-up reaches max_lr one step early (max_lr * (step + 1) / "
            "warmup): use (step + 1) / (warmup + 1), so that max_lr comes at step warmup, where "
            "the cosine starts.",
            "wrong": "/ (warmup + 1) -> / warmup",
        },
        "progress_from_zero": {  # before no_warmup: the same after the warm-up
            "message": "the cosine's progress is counted from step 0 (step / total): count it "
            "from the end of the warm-up, (step - warmup) / (total - warmup), so that the decay "
            "starts at max_lr.",
            "wrong": "t = (step - warmup) / (total - warmup) -> t = step / total",
        },
        "no_warmup": {
            "message": "there is no warm-up: for step < warmup the rate rises linearly, max_lr * "
            "(step + 1) / (warmup + 1).",
            "wrong": (
                "if step < warmup: -> if False:",
                "t = (step - warmup) / (total - warmup) -> t = step / total",
            ),
        },
        "progress_over_total": {
            "message": "the cosine's progress is (step - warmup) / total: divide by the length of "
            "the decay, total - warmup, so that it reaches min_lr at step total.",
            "wrong": "/ (total - warmup) -> / total",
        },
        "no_floor": {
            "message": "after step total the rate rises again (the cosine goes on past pi): from "
            "step total on it stays at min_lr.",
            "wrong": "if step > total: -> if False:",
        },
        "to_zero": {
            "message": "the cosine decays to 0, not to min_lr: min_lr + (max_lr - min_lr) * 0.5 "
            "* (1 + cos(pi * progress)).",
            "wrong": "return min_lr + (max_lr - min_lr) * cos -> return max_lr * cos",
        },
        "min_added": {
            "message": "min_lr is added to the full cosine of max_lr, so the rate starts at "
            "max_lr + min_lr: scale the cosine by max_lr - min_lr.",
            "wrong": "(max_lr - min_lr) * cos -> max_lr * cos",
        },
        "no_half": {
            "message": "the cosine factor is 1 + cos(...), which starts at 2: multiply it by "
            "0.5, so it goes from 1 to 0.",
            "wrong": "(max_lr - min_lr) * cos -> (max_lr - min_lr) * 2 * cos",
        },
        "linear": {
            "message": "the decay is a straight line: use the cosine, 0.5 * (1 + cos(pi * "
            "progress)).",
            "wrong": "(max_lr - min_lr) * cos -> (max_lr - min_lr) * (1 - t)",
        },
        "no_pi": {
            "message": "the cosine's argument has no pi: cos(t) covers 1 radian of the cosine "
            "and ends far above min_lr at step total. Use cos(pi * t), from cos 0 = 1 to cos pi "
            "= -1, half a cosine.",
            "wrong": "math.cos(math.pi * t) -> math.cos(t)",
        },
        "rises": {
            "message": "the rate rises from min_lr to max_lr during the decay, as a cosine "
            "factor of 0.5 * (1 - cos(pi * t)) does (from 0 up to 1), or a t that runs "
            "backwards: use t = (step - warmup) / (total - warmup) and 1 + cos(pi * t), which "
            "starts at max_lr at step warmup and falls.",
            "wrong": "(max_lr - min_lr) * cos -> (max_lr - min_lr) * (1 - cos)",
        },
        "floor_division": {
            "message": "t = (step - warmup) // (total - warmup) is floor (integer) division: t "
            "is 0 at every step of the decay but the last, so the rate stays at max_lr. Use / "
            "for t.",
            "wrong": "(step - warmup) / (total - warmup) -> (step - warmup) // (total - warmup)",
        },
        "warmup_from_min_lr": {
            "message": "the warm-up starts from min_lr: it rises from 0, max_lr * (step + 1) / "
            "(warmup + 1) (min_lr is the floor the decay ends at).",
            "wrong": "return max_lr * (step + 1) -> return min_lr + (max_lr - min_lr) * (step + 1)",
        },
        # a decay that does not move, at either end: said from the number alone
        "decay_at_max": {
            "message": "the rate is still max_lr here, inside the decay (t is 0 at this step, or "
            "the cosine is 1): t = (step - warmup) / (total - warmup) and 0.5 * (1 + cos(pi * "
            "t)) bring it from max_lr at step warmup down to min_lr at step total.",
        },
        "decay_at_min": {
            "message": "the rate is already min_lr here, inside the decay (t is 1 at this step, "
            "or the cosine is 0, or max_lr - min_lr is lost): t = (step - warmup) / (total - "
            "warmup) and 0.5 * (1 + cos(pi * t)) bring it from max_lr at step warmup down to "
            "min_lr at step total.",
            "example": "t = (step - warmup) / (total - warmup) -> t = 1.0",
        },
        "divides_by_warmup": {
            "message": "with warmup = 0 (no warm-up) your code divides by zero: compute anything "
            "divided by warmup only inside the `step < warmup` branch, which warmup = 0 never "
            "enters.",
            "example": "if step < warmup: -> ramp = step / warmup\n    if step < warmup:",
        },
    },
    "07b.encode": {  # edits of reference.encode64
        "one_based": {
            "message": "the ids start at 1: the id of a character is its index in `vocab`, from "
            "0 (vocab[0] has id 0).",
            "wrong": "vocab.index(c) -> vocab.index(c) + 1",
        },
        "own_vocab": {
            "message": "the ids come from the text's own characters (sorted(set(text))), not "
            "from `vocab`: a text that lacks some characters of the vocabulary gets other ids. "
            "Use vocab.index(c) (or a dict built once from `vocab`).",
            "wrong": "vocab.index(c) -> ''.join(sorted(set(text))).index(c)",
        },
        "code_point": {
            "message": "the ids are the characters' Unicode code points (ord(c)): the id of a "
            "character is its index in `vocab`, vocab.index(c) (or a dict built once from "
            "`vocab`).",
            "wrong": "vocab.index(c) -> ord(c)",
        },
        "sorted_vocab": {
            "message": "the ids are indices in sorted(vocab): the id of a character is its index "
            "in `vocab` as given, and a vocab need not be sorted (this one is not), "
            "vocab.index(c).",
            "wrong": "vocab.index(c) -> ''.join(sorted(vocab)).index(c)",
        },
        "strips_text": {
            "message": "the text was stripped (text.strip()): its leading and trailing "
            "whitespace (spaces, newlines) are characters too, each gets an id; there are "
            "len(text) ids.",
            "wrong": "for c in text] -> for c in text.strip()]",
        },
        "wrong_order": {
            "message": "the ids follow another order of the characters than vocab's (a "
            "set(vocab), say, has an order of its own): the id of a character is its index in "
            "`vocab`, the string as given, vocab.index(c) or {{ch: i for i, ch in "
            "enumerate(vocab)}}.",
            "example": "vocab.index(c) -> vocab[::-1].index(c)",
        },
        "empty_text": {
            "message": "the empty text raised {error}: an empty text has no ids, the answer is "
            "an empty LongTensor of shape (0,), torch.tensor([], dtype=torch.long).{stack}",
            "example": "return torch.tensor(ids, dtype=torch.long) -> "
            "return torch.stack([torch.tensor(i) for i in ids])",
        },
    },
    "07b.decode": {  # edits of reference.decode64
        "separator": {
            "message": "the characters are joined with {sep!r} between them: join them with "
            "nothing, ''.join(...).",
            "example": 'return "".join(chars) -> return " ".join(chars)',
        },
        "one_based": {
            "message": "each id is read one place off: id i is vocab[i], the ids start at 0.",
            "wrong": [
                "vocab[i] for i in ids -> vocab[(i - 1) % len(vocab)] for i in ids",
                "vocab[i] for i in ids -> vocab[(i + 1) % len(vocab)] for i in ids",
            ],
        },
        "strips_text": {
            "message": "the decoded text is stripped (.strip()): leading and trailing spaces and "
            "newlines are characters of the text too, and decode is the inverse of encode: keep "
            "every character.",
            "wrong": 'return "".join(chars) -> return "".join(chars).strip()',
        },
        "code_point": {
            "message": "chr(i) is the Unicode character with code point i, not the "
            "vocabulary's: id i is vocab[i], the character at index i in vocab.",
            "wrong": "vocab[i] for i in ids -> chr(i) for i in ids",
        },
        "unique": {
            "message": "each id is decoded once (torch.unique, or a set): repeated ids are "
            "dropped and the order is lost. Decode every id, in the order given.",
            "wrong": [
                "vocab[i] for i in ids] -> vocab[i] for i in sorted(set(ids))]",
                "vocab[i] for i in ids] -> vocab[i] for i in dict.fromkeys(ids)]",
            ],
        },
        "sorted_vocab": {
            "message": "the ids are looked up in sorted(vocab): look each id up in vocab as "
            "given, vocab[i] (this vocab is not sorted; the notebook's happens to be).",
            "wrong": "vocab[i] for i in ids -> ''.join(sorted(vocab))[i] for i in ids",
        },
        "skips_zero": {
            "message": "id 0 is skipped, as if it were padding: it is vocab[0] ({zero!r} here), "
            "the first character of the vocabulary. Decode every id.",
            "wrong": "vocab[i] for i in ids] -> vocab[i] for i in ids if i != 0]",
        },
        "list_input": {
            "message": "ids is a plain Python list of ints here (decode takes a 1-D tensor or a "
            "list), and a list has no .{attr}: iterate over ids directly, int(i) turns a 0-d "
            "tensor or an int into an int.",
            "example": "int(i) for i in ids] -> int(i) for i in ids.tolist()]",
        },
    },
    "07b.temperature_probs": {  # edits of reference.temperature64
        "multiplied": {
            "message": "the logits are multiplied by the temperature: divide them, "
            "softmax(logits / temperature), so that a low temperature sharpens the distribution.",
            "wrong": "x / temperature -> x * temperature",
        },
        "ignored": {
            "message": "the temperature is ignored: softmax(logits / temperature).",
            "wrong": "x / temperature -> x",
        },
        "logits": {
            "message": "the output is logits / temperature, not probabilities: apply softmax over "
            "the last dim.",
            "wrong": "return scaled.softmax(-1) -> return scaled",
        },
        "log_softmax": {
            "message": "the output is log-probabilities (log_softmax): return the probabilities, "
            "softmax.",
            "wrong": "scaled.softmax -> scaled.log_softmax",
        },
        "wrong_dim": {
            "message": "the softmax runs over the wrong dim: each row of the vocabulary (the last "
            "dim, dim=-1) must sum to 1.",
            "wrong": "softmax(-1) -> softmax(0)",
        },
        # temperature 0: told apart from each other before the rest (greedy_mistake)
        "ties": {
            "message": "with temperature 0 a row whose largest logit ties gets a 1 at each tied "
            "logit (the row sums to more than 1), as logits == max gives: greedy is one-hot, a "
            "single 1 at the first of the largest logits, as argmax returns "
            "(F.one_hot(logits.argmax(-1), V)).",
            "wrong": "return torch.nn.functional.one_hot(first, x.size(-1)).double() -> "
            "return (x == x.amax(-1, keepdim=True)).double()",
        },
        "tie_last": {
            "message": "with temperature 0 and a tie for the largest logit, the 1 is at the last "
            "of the tied logits: greedy takes the first of them, as argmax returns.",
            "wrong": "first = x.argmax(-1) -> first = x.size(-1) - 1 - x.flip(-1).argmax(-1)",
        },
        "global_max": {
            "message": "with temperature 0 the 1 goes where a logit equals the largest of the "
            "whole tensor (logits.max()), not of each row: the other rows are all zeros and sum "
            "to 0. Take the argmax of each row, logits.argmax(dim=-1).",
            "wrong": "return torch.nn.functional.one_hot(first, x.size(-1)).double() -> "
            "return (x == x.max()).double()",
        },
        "split": {
            "message": "with temperature 0 row {row} is not one-hot: its mass is split ({values}) "
            "over logits that tie or nearly tie for the largest, as a tiny temperature (an "
            "epsilon such as 1e-6) does. Temperature 0 is greedy by definition: a single 1 at "
            "the argmax (the first of tied logits), F.one_hot(logits.argmax(-1), V).",
            "example": (
                "if temperature == 0: -> if False:",
                "x / temperature -> x / max(temperature, 1e-6)",
            ),
        },
        "overflow": {
            "message": "the probabilities contain {bad}: exp(logits / temperature) overflows to "
            "inf (logits / temperature reach {top:.0f} here, exp overflows above {limit:.0f} in "
            "{dtype}) and inf / inf is NaN. Subtract each row's max before exp (the softmax does "
            "not change), or use F.softmax / torch.softmax, which do it for you.",
            "example": (
                "x = logits.double() -> x = logits",
                "return scaled.softmax(-1) -> return scaled.exp() / scaled.exp().sum(-1, True)",
            ),
        },
        "index_not_one_hot": {
            "message": "with temperature 0 the output is the argmax's index: return a "
            "distribution, a one-hot row with 1 at the argmax (F.one_hot(logits.argmax(-1), "
            "V).to(dtype)).",
            "example": "return torch.nn.functional.one_hot(first, x.size(-1)).double() -> "
            "return first",
        },
        "zero_temperature_nan": {
            "message": "with temperature 0 the output is NaN (logits / 0): temperature 0 means "
            "greedy, a one-hot row with 1 at the argmax of each row.",
            "example": "if temperature == 0: -> if False:",
        },
    },
    "07b.top_k_filter": {  # edits of reference.top_k64
        "strict": {
            "message": "the k-th largest logit is removed too, so fewer than k are left: keep "
            "every logit >= the k-th largest (remove logits < it, not <=), with k = min(k, "
            "vocabulary size).",
            "wrong": "x < kth -> x <= kth",
        },
        "k_plus_one": {
            "message": "k + 1 logits are kept: keep the k largest (the k-th largest is "
            "torch.topk(logits, k).values[..., -1:]).",
            "wrong": "min(k, -> min(k + 1,",
        },
        "smallest": {
            "message": "the k smallest logits are kept: keep the k largest.",
            "wrong": ("dim=-1) -> dim=-1, largest=False)", "x < kth -> x > kth"),
        },
        "exactly_k": {
            "message": "with a tie at the k-th largest value only some of the tied logits are "
            "kept (the indices torch.topk returns): keep every logit >= the k-th largest, ties "
            "included.",
            "wrong": "x.masked_fill(x < kth, -> x.masked_fill(torch.ones_like(x, dtype=bool)"
            ".scatter(-1, x.topk(kk, dim=-1).indices, False),",
        },
        "kth_smallest": {
            "message": "the threshold is the k-th smallest logit of the row (torch.kthvalue "
            "counts from the smallest, and so does an ascending sort's [k - 1]), not the k-th "
            "largest: far too many logits stay. Use torch.topk(logits, k).values[..., -1:], or a "
            "descending sort.",
            "wrong": "x.topk(kk, dim=-1).values[..., -1:] -> x.kthvalue(kk, -1, True).values",
        },
        "wrong_dim": {
            "message": "the logits kept are those a filter over the wrong dim (dim 0) keeps: "
            "keep the k largest of each row of the vocabulary, the last dim.",
            "wrong": ("x.size(-1) -> x.size(0)", "dim=-1).values[..., -1:] -> dim=0).values[-1:]"),
        },
        "whole_batch": {
            "message": "one threshold for the whole batch (the k-th largest of all the logits, "
            "flattened): filter each row on its own, torch.topk(logits, k, dim=-1), so that "
            "every row keeps its k largest.",
            "wrong": (
                "x.size(-1) -> x.numel()",
                "x.topk(kk, dim=-1).values[..., -1:] -> x.flatten().topk(kk).values[-1]",
            ),
        },
        "not_column": {
            "message": "the k-th largest of each row has shape (...,), not a column (..., 1): "
            "compared with the logits it broadcasts along the vocabulary, and each logit meets "
            "another row's threshold. Keep the last dim, values[..., -1:] (or keepdim=True).",
            "wrong": "values[..., -1:] -> values[..., -1]",
        },
        "k_larger_than_vocab": {
            "message": "k = {k} is larger than the vocabulary ({V}) and torch.topk raised: use "
            "k = min(k, logits.size(-1)); then every logit is kept.",
            "example": "kk = min(k, x.size(-1)) -> kk = k",
        },
    },
    "07b.top_p_filter": {  # edits of reference.top_p64
        "drops_crossing": {
            "message": "the token whose probability carries the total past p is removed: keep "
            "it. The nucleus is the smallest set whose probability reaches p (so it always holds "
            "the most likely token); remove a token when the probability of the tokens before "
            "it is >= p, (cum - probs) >= p.",
            "wrong": "cum - probs >= p -> cum > p",
        },
        "inverted": {
            "message": "the mask is inverted: the most likely tokens are removed and the tail is "
            "kept.",
            "wrong": "cum - probs >= p -> cum - probs < p",
        },
        "on_logits": {
            "message": "the cumulative sum runs over the sorted logits: sum the probabilities, "
            "softmax of the sorted logits.",
            "wrong": "probs = sorted_x.softmax(-1) -> probs = sorted_x",
        },
        "strict": {
            "message": "a token is kept although the probability of the tokens before it "
            "already equals p exactly: remove it when that mass reaches p, (cum - probs) >= p, "
            "not > p. The nucleus is the smallest set reaching p; here one token too many stays.",
            "wrong": "cum - probs >= p -> cum - probs > p",
        },
        "ascending": {
            "message": "the tokens kept are those a row sorted ascending keeps (the least likely "
            "summed first and kept, the most likely removed): sort descending, "
            "logits.sort(dim=-1, descending=True), sum the probabilities with cumsum, and remove "
            "a token once the mass before it reaches p.",
            "wrong": "descending=True -> descending=False",
        },
        "no_sort": {
            "message": "the probabilities are summed in the vocabulary's order, not sorted: the "
            "kept tokens are the first of the vocabulary, not the most likely. Sort each row "
            "descending first, then put each logit back at its token's position.",
            "wrong": "x.sort(dim=-1, descending=True) -> "
            "(x, torch.arange(x.size(-1)).expand(x.shape))",
        },
        "mask_not_unsorted": {
            "message": "the removal mask is built in sorted order and applied to the logits in "
            "their own order: its positions are ranks, not tokens. Apply it to the sorted logits "
            "and put them back with scatter(-1, indices, ...) (or scatter the mask back first).",
            "wrong": "return x.scatter(-1, idx, kept) -> return x.masked_fill(remove, -math.inf)",
        },
        "wrong_dim": {
            "message": "the filter works over the wrong dim: sort, softmax and sum over the last "
            "dim (the vocabulary) of each row.",
            "wrong": (
                "sort(dim=-1 -> sort(dim=0",
                "softmax(-1) -> softmax(0)",
                "cumsum(-1) -> cumsum(0)",
                "scatter(-1 -> scatter(0",
            ),
        },
        "softmax_dim": {
            "message": "the softmax of the sorted logits runs over the wrong dim (dim 0, across "
            "the rows): each row's probabilities come from its own logits, softmax(dim=-1).",
            "wrong": "softmax(-1) -> softmax(0)",
        },
        "not_unsorted": {
            "message": "the result is in sorted order: put each logit back at its token's place "
            "(scatter with the sort's indices, or index with their argsort).",
            "wrong": "return x.scatter(-1, idx, kept) -> return kept",
        },
        "gather_not_scatter": {
            "message": "the sorted logits are put back with gather(-1, indices), which sorts "
            "them once more: use scatter(-1, indices, ...), the inverse permutation.",
            "wrong": "return x.scatter(-1, idx, kept) -> return kept.gather(-1, idx)",
        },
    },
    "07b.clip_grad_norm": {  # edits of reference.clip64
        "per_parameter": {
            "message": "each gradient is clipped by its own norm: the norm is global, one number "
            "for all the gradients together (the root of the sum of every gradient's squares), "
            "and when it exceeds max_norm every gradient is scaled by the same max_norm / (total "
            "+ 1e-6), which keeps the direction of the whole step.",
            "wrong": "gs = [g * coef for g in gs] -> "
            "gs = [g * (max_norm / (g.norm() + 1e-6)) if g.norm() > max_norm else g for g in gs]",
        },
        "scales_up": {
            "message": "the gradients are scaled though their norm is below max_norm: small "
            "gradients grew to max_norm. Scale only when total > max_norm; below it, leave them "
            "as they are.",
            "wrong": "if total > max_norm: -> if True:",
        },
        "inverted": {
            "message": "the gradients are scaled by total / max_norm, which makes a large "
            "gradient larger: the factor is max_norm / (total + 1e-6).",
            "wrong": "coef = max_norm / (total + 1e-6) -> coef = (total + 1e-6) / max_norm",
        },
        "multiplied": {
            "message": "the gradients are scaled by max_norm * total, which makes a large "
            "gradient larger: divide, the factor is max_norm / (total + 1e-6).",
            "wrong": "coef = max_norm / (total + 1e-6) -> coef = max_norm * (total + 1e-6)",
        },
        # max_norm = 1: the two above give the same gradients, so neither is named (the judge
        # says this one with inverted's program)
        "scaled_by_total": {
            "message": "the gradients are scaled by total (+ 1e-6), which makes a large gradient "
            "larger: with max_norm = 1 here, total / max_norm gives this, and max_norm * total "
            "too. The factor is max_norm / (total + 1e-6).",
        },
        "not_written_back": {
            "message": "the norm is above max_norm but the gradients are unchanged: nothing "
            "scaled p.grad (a scaling left out, a factor of 1, or a local `g = g * coef`, which "
            "makes a new tensor and leaves p.grad as it was). Scale p.grad itself, "
            "p.grad.mul_(coef) (or p.grad = p.grad * coef).",
            "wrong": "if total > max_norm: -> if False:",
        },
        # the learner's own loop read a generator twice: said from what the judge sees
        "generator_consumed": {
            "message": "with `parameters` a generator, as model.parameters() is, {what}: a "
            "generator can be read once, and the second loop over it finds nothing. Make it a "
            "list first, parameters = list(parameters).",
        },
        "norm_after": {
            "message": "the returned norm is the one after clipping (max_norm when it clipped): "
            "return the norm before clipping, which the training loop records to see how often "
            "clipping acts.",
            "wrong": "return total, gs -> return total.clamp(max=max_norm), gs",
        },
        "sum_of_norms": {
            "message": "the returned norm is the sum of the gradients' norms: the global norm is "
            "the root of the sum of squares, sqrt(sum over p of (p.grad ** 2).sum()), the norm "
            "of all the gradients as one long vector.",
            "wrong": "torch.sqrt(sum((g * g).sum() for g in gs)) -> sum(g.norm() for g in gs)",
        },
        "no_sqrt": {
            "message": "the returned norm is the sum of squares, without its square root.",
            "wrong": "torch.sqrt(sum((g * g).sum() for g in gs)) -> sum((g * g).sum() for g in gs)",
        },
    },
    # what the kernel found wrong with the saved file (save_checkpoint.PROBLEMS): said, not
    # recomputed
    "07b.save_checkpoint": {
        "no_file": {
            "message": "nothing was written at `path` (the folder holds {found}): "
            "torch.save(checkpoint, path), with the path you are given.",
        },
        "pickled_objects": {
            "message": "torch.load(path, weights_only=True) refuses the file, which holds "
            "{held}: objects were pickled (the model, the optimizer), which only "
            "weights_only=False reads, and it runs whatever code the file names. Save the "
            "state_dict()s: {{'model': model.state_dict(), 'optimizer': optimizer.state_dict(), "
            "'step': step}}.",
        },
        "not_a_dict": {
            "message": "the file holds a {kind}: save one dict, {{'model': model.state_dict(), "
            "'optimizer': optimizer.state_dict(), 'step': step}}.",
        },
        "no_optimizer": {
            "message": "the checkpoint has no 'optimizer' (its keys: {keys}): without AdamW's "
            "state (two running averages per parameter, its step count) the resumed run differs "
            "from its second step on. Save optimizer.state_dict() under 'optimizer'.",
        },
        "step_lost": {
            "message": "the checkpoint has no 'step' (its keys: {keys}): the step fixes the "
            "learning rate and the batches of the resumed run. Save it under 'step'.",
        },
        "wrong_keys": {
            "message": "the checkpoint's keys are {keys}: the course's load reads 'model', "
            "'optimizer' and 'step' (model.state_dict(), optimizer.state_dict(), the step).",
        },
        "model_not_a_state_dict": {
            "message": "model.load_state_dict(checkpoint['model']) fails on what was saved: save "
            "model.state_dict() there, every parameter and buffer by name (parameters() and "
            "named_parameters() leave out the buffers, such as a batch norm's running "
            "statistics).\n   {error}",
        },
        "optimizer_not_a_state_dict": {
            "message": "optimizer.load_state_dict(checkpoint['optimizer']) fails on what was "
            "saved: save optimizer.state_dict() there.\n   {error}",
        },
    },
}
