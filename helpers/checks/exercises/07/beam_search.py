"""Notebook 07, part 3: beam search (07.beam_search, ★★★).

The learner's ``beam_search(model, src, max_len, bos_id, eos_id, beam_size)`` runs on a small
random model the check builds from its seeded generator: float64 weights, ``model(src, tgt)
-> (B, T, vocab_size)`` logits that depend on the source and on the whole prefix (a causal
running mean), with an EOS logit that grows along the sequence so that hypotheses end. The
model is traced into a ``torch.fx.GraphModule``: plain torch classes, so that a grading kernel
unpickles it without importing anything of ``helpers``; it computes on its input's device (the
check passes it as an argument, which no runner moves).

The float64 reference :func:`beam64` decodes one row at a time; its ``variant`` switch gives
the textbook mistakes, named by :data:`BEAM_MISTAKES`. Probes are drawn until every step's
k-th and (k+1)-th candidates and the final two hypotheses differ by ``MARGIN`` (no near ties:
the contract fixes no tie-breaking), and until beam search differs from greedy decoding on a
row (a beam of one candidate would pass otherwise)."""

from __future__ import annotations

import torch
import torch.fx
import torch.nn.functional as F
from torch import nn

from ...framework import Exercise, Fail, Probe, expect_tensor, fmt_shape, randint, register

#: the smallest gap between the scores the contract compares (kept / dropped, best / second)
MARGIN = 1e-3


class TinySeq2Seq(nn.Module):
    """``forward(src (B, S), tgt (B, T)) -> (B, T, V)``: position t sees the source's mean
    embedding and the tokens tgt[:, :t+1] (their running mean and the last one); float64."""

    def __init__(self, gen: torch.Generator, vocab_size: int, eos_id: int, max_len: int,
                 d: int = 6, sharpness: float = 1.2, eos_start: float = -1.5,
                 eos_slope: float = 0.6):  # fmt: skip
        super().__init__()

        def r(*shape):
            return torch.randn(*shape, generator=gen, dtype=torch.float64)

        self.src_emb = nn.Parameter(r(vocab_size, d), requires_grad=False)
        self.tgt_emb = nn.Parameter(r(vocab_size, d), requires_grad=False)
        self.pos = nn.Parameter(r(max_len, d) * 0.5, requires_grad=False)
        self.w = nn.Parameter(r(3 * d, d) / (3 * d) ** 0.5 * 2, requires_grad=False)
        self.out = nn.Parameter(r(d, vocab_size) * sharpness, requires_grad=False)
        bias = torch.zeros(max_len, vocab_size, dtype=torch.float64)
        bias[:, eos_id] = eos_start + eos_slope * torch.arange(max_len, dtype=torch.float64)
        self.bias = nn.Parameter(bias, requires_grad=False)

    def forward(self, src, tgt):  # no annotations: they would be strings in the traced code
        dev, T = tgt.device, tgt.shape[1]
        s = self.src_emb.to(dev)[src].mean(1, keepdim=True)  # (B, 1, d)
        h = self.tgt_emb.to(dev)[tgt] + self.pos.to(dev)[:T]  # (B, T, d)
        # 1, 2, ..., T as a cumsum of ones: torch 2.3's fx cannot trace arange of a traced length
        steps = torch.ones_like(h[..., :1]).cumsum(1)  # (B, T, 1)
        mean = h.cumsum(1) / steps  # the prefix's running mean: causal
        z = torch.tanh(torch.cat([mean, h, s.expand_as(h)], dim=-1) @ self.w.to(dev))
        return z @ self.out.to(dev) + self.bias.to(dev)[:T]


def tiny_model(gen: torch.Generator, vocab_size: int, eos_id: int, max_len: int, **kw):
    """A :class:`TinySeq2Seq` traced into a GraphModule (pickles as torch's own classes)."""
    return traced(TinySeq2Seq(gen, vocab_size, eos_id, max_len, **kw))


def traced(model: TinySeq2Seq) -> torch.fx.GraphModule:
    gm = torch.fx.symbolic_trace(model).eval()
    # called as a plain module (the class is this instance's own): fx's call wrapper prints its
    # own report of an error raised inside, and imports torch._dynamo for it (0.8 s, once). A
    # pickled copy (the grader's) is rebuilt by fx with the wrapper: only this process changes.
    type(gm).__call__ = torch.nn.Module.__call__
    return gm


class Row:
    """One source row's beams: tokens (K, t), scores (K,), float64."""

    def __init__(self, src_row, K, bos_id, variant):
        self.src, self.variant, self.first, self.stopped = src_row.cpu(), variant, True, False
        self.tok = torch.full((K, 1), bos_id, dtype=torch.long)
        self.score = torch.full((K,), -torch.inf, dtype=torch.float64)
        self.score[0] = 0.0  # one live beam; the others start at -inf
        if variant == "same_as_greedy":
            self.score[:] = 0.0  # K copies of BOS: the top k are k copies of the greedy token

    def step(self, model, eos_id, gaps, histories=None):
        """Extend the beams by one token (every candidate of every beam, top K of them); the
        parents' tokens are taken from ``histories`` where given (another row's beams)."""
        K, variant = self.tok.shape[0], self.variant
        done = self.tok[:, -1] == eos_id
        logits = model(self.src.expand(K, -1), self.tok)[:, -1].double()  # (K, V)
        V = logits.shape[-1]
        step = F.log_softmax(logits, dim=-1)
        if variant == "probs_summed":
            step = step.exp()
        elif variant == "logits_summed":
            step = logits
        if variant != "extend_finished":  # a finished beam: one candidate, itself + eos_id
            eos_step = step[:, eos_id].clone() if variant == "finished_scored" else 0.0
            step = step.masked_fill(done[:, None], -torch.inf)
            step[:, eos_id] = torch.where(done, eos_step, step[:, eos_id])
        if variant == "not_accumulated":
            cand = step.masked_fill(torch.isinf(self.score)[:, None], -torch.inf)
        else:
            cand = self.score[:, None] + step  # (K, V)
        if variant == "independent_beams" and not self.first:
            values, token = cand.max(dim=-1)  # each beam its own best token
            parent = torch.arange(K)
        else:
            values, idx = cand.flatten().sort(descending=True, stable=True)
            if gaps is not None and torch.isfinite(values[K]):
                gaps.append(float(values[K - 1] - values[K]))
            values, idx = values[:K], idx[:K]
            parent, token = idx // V, idx % V
            if variant == "index_swapped_k":  # index = parent * V + token, decoded as if
                parent, token = idx % K, idx // K  # it were token * K + parent
            elif variant == "index_swapped_v":  # (a parent past the last beam: IndexError)
                parent, token = idx % V, idx // V
        history = self.tok if histories is None else histories
        history = history if variant == "history_not_reordered" else history[parent]
        self.tok = torch.cat([history, token[:, None]], dim=1)
        self.score, self.first = values, False

    def best(self, eos_id, max_len, gaps, length=None):
        """The hypothesis of highest score, padded with eos_id to max_len; with ``length`` (a
        key of :data:`LENGTHS`, and an exponent), the score divided by the beam's length."""
        final = self.score
        if length is not None:
            key, alpha = length
            final = self.score / LENGTHS[key](self.tok, eos_id).double().clamp(min=1) ** alpha
        order = final.sort(descending=True, stable=True)
        if gaps is not None and len(final) > 1 and torch.isfinite(order.values[1]):
            gaps.append(float(order.values[0] - order.values[1]))
        best = self.tok[order.indices[-1] if self.variant == "worst_beam" else order.indices[0]]
        return F.pad(best, (0, max_len - best.shape[0]), value=eos_id)


def _ended(tok, eos_id):
    """Each beam's index of its first eos_id, and whether it has one."""
    ended = tok == eos_id
    return ended.long().argmax(1), ended.any(1)


#: the ways to count a beam's length (tokens (K, t), of which BOS is the first): each
#: ``(tokens, eos_id) -> (K,)``. The final choice of a length-normalised search divides by one.
LENGTHS = {
    "the tokens after BOS, up to and with eos_id": lambda tok, eos: torch.where(
        _ended(tok, eos)[1], _ended(tok, eos)[0], tok.shape[1] - 1
    ),
    "the tokens with BOS, up to and with eos_id": lambda tok, eos: torch.where(
        _ended(tok, eos)[1], _ended(tok, eos)[0] + 1, tok.shape[1]
    ),
    "the tokens that are not eos_id": lambda tok, eos: (tok != eos).sum(1),
    "the tokens that are not eos_id, plus one": lambda tok, eos: (tok != eos).sum(1) + 1,
}


#: the exponents of the length (1: the mean log-probability; below 1: a milder penalty)
LENGTH_EXPONENTS = (1.0, 0.6, 0.7, 0.75)


@torch.no_grad()
def beam64(model, src, max_len, bos_id, eos_id, K, variant="right", gaps=None):
    """Beam search, float64, or a known wrong version of it (``variant``): (B, max_len), each
    row's best hypothesis padded with eos_id. The rows step together, as a batch does: the
    search stops when every beam of every row has ended (a variant that changes finished beams
    changes them until then). ``gaps`` collects the score gaps the contract relies on (kept /
    dropped candidate, best / second hypothesis)."""
    rows = search64(model, src, max_len, bos_id, eos_id, K, variant, gaps)
    return torch.stack([r.best(eos_id, max_len, gaps) for r in rows])


@torch.no_grad()
def search64(model, src, max_len, bos_id, eos_id, K, variant="right", gaps=None) -> list[Row]:
    """The search of :func:`beam64`: each row's final beams, before the final choice."""
    rows = [Row(src[b], K, bos_id, variant) for b in range(src.shape[0])]
    for _ in range(max_len - 1):  # each step adds one token (BOS counts towards max_len)
        done = [r.tok[:, -1] == eos_id for r in rows]
        if all(bool(d.all()) for d in done):
            break
        if variant == "stop_first_finished" and any(bool(d.any()) for d in done):
            break
        first_row = rows[0].tok  # parent_no_row_offset: every row's parents are row 0's
        for r, d in zip(rows, done):
            r.stopped = r.stopped or (variant == "stop_first_finished_row" and bool(d.any()))
            frozen = bool(d.all()) and variant not in UNFROZEN
            if not (r.stopped or frozen):  # a row whose beams have all ended stays as it is
                histories = first_row if variant == "parent_no_row_offset" else None
                r.step(model, eos_id, gaps, histories)
    return rows


@torch.no_grad()
def log_prob(model, src_row, tokens, eos_id) -> float:
    """The summed log-probability of ``tokens`` (BOS first) up to and including the first EOS."""
    tokens = tokens.cpu()
    ends = (tokens == eos_id).nonzero()
    n = int(ends[0]) + 1 if len(ends) else tokens.shape[0]
    if n < 2:
        return 0.0
    logp = F.log_softmax(model(src_row[None].cpu(), tokens[None, : n - 1]).double(), -1)[0]
    return float(logp.gather(-1, tokens[1:n, None]).sum())


# variant -> its message; the code is the variant's name
BEAM_MISTAKES = {
    "probs_summed": "the scores add probabilities (softmax) instead of log-probabilities: a "
    "sequence's probability is the product of its tokens' probabilities, so its score is the "
    "sum of their log_softmax.",
    "logits_summed": "the scores add the raw logits instead of log-probabilities: normalise "
    "each step with F.log_softmax(logits[:, -1], dim=-1) before adding (logits of different "
    "beams are on different scales).",
    "not_accumulated": "each candidate's score is only its last token's log-probability: add "
    "the beam's running score, scores[:, :, None] + log_probs.",
    "extend_finished": "finished beams are extended: a beam that ended with eos_id must stay as "
    "it is, with its score unchanged (one candidate: eos_id appended at log-probability 0), "
    "not continue with the model's next tokens.",
    "finished_scored": "finished beams keep paying the log-probability of eos_id at every step: "
    "a finished beam is carried over with its score unchanged (eos_id appended at "
    "log-probability 0, every other token at -inf).",
    "same_as_greedy": "your output is what greedy decoding gives, although beam_size={K}. "
    "Start with one live beam (score 0) and the others at -inf, so that the first step picks k "
    "different tokens, and take the top k over all beam x vocab candidates, (B, k * V), not "
    "each beam's own best token.",
    "independent_beams": "after the first step each beam only keeps its own best token: k "
    "greedy searches side by side. Every step, take the top k over all beam x vocab "
    "candidates together (flatten the scores to (B, k * V)), so a good beam may take several "
    "places.",
    "history_not_reordered": "each new token is appended to the beam in the same place, not to "
    "the beam it came from: gather the histories with the candidates' parent beams, "
    "tgt = torch.cat([tgt[parent], token], dim=-1) (parent = index // vocab_size).",
    "index_swapped_k": "the flat candidate index is decoded the wrong way round: your output "
    "is what parent = index % k, token = index // k gives. The candidates flattened from (k, V) "
    "are numbered index = parent * V + token: parent = index // V, token = index % V.",
    "index_swapped_v": "the flat candidate index is decoded the wrong way round: your output "
    "is what parent = index % V, token = index // V gives. The candidates flattened from (k, V) "
    "are numbered index = parent * V + token: parent = index // V, token = index % V.",
    "worst_beam": "the returned hypothesis is the beam with the lowest score: return the one "
    "with the highest (after sorting in descending order, the first).",
    "stop_first_finished": "decoding stops as soon as one beam has produced eos_id: go on "
    "until every beam has (the finished ones wait with their scores, so that a longer "
    "hypothesis can still win), or until max_len.",
    "parent_no_row_offset": "the parent index lacks the row's offset: in the flattened "
    "(B * k, t) histories, row b's beams are b * k, ..., b * k + k - 1, so the parents are "
    "b * k + index // V. Your output is what taking every row's histories from row 0's beams "
    "gives.",
}


#: a variant's code where it is not the variant's name (two forms of one mistake)
CODES = {
    "stop_first_finished_row": "stop_first_finished",
    "index_swapped_k": "index_decoded_swapped",
    "index_swapped_v": "index_decoded_swapped",
}


#: the right search, a final choice by score / length ** alpha (:data:`LENGTHS`)
LENGTH_NORMALISED = (
    "the final choice divides each beam's score by its length: your output is what dividing "
    "by {length} gives. This contract sums log-probabilities without length "
    "normalisation: return the beam of highest summed score."
)


#: the variants that change a row whose beams have all ended (it takes part in every step)
UNFROZEN = ("extend_finished", "finished_scored", "parent_no_row_offset")


@register
class BeamSearchCheck(Exercise):
    id = "07.beam_search"
    modes = {"model": "kept"}
    title = "beam search"
    points = 3.0

    def probes(self, gen):
        def case(name, B, K, max_len, vocab_size=7, bos_id=1, eos_id=2, S=5, open_row=False,
                 cpu_only=True, **kw):  # fmt: skip
            for _ in range(30):  # draw until no near tie, and beams beat greedy on a row
                model = TinySeq2Seq(gen, vocab_size, eos_id, max_len, **kw)  # traced below
                src = randint(gen, 3, vocab_size, B, S)
                gaps = []
                ref = beam64(model, src, max_len, bos_id, eos_id, K, gaps=gaps)
                if gaps and min(gaps) < MARGIN:
                    continue
                if open_row and bool((ref[:, -1] == eos_id).all()):
                    continue  # no best hypothesis still open at max_len
                if K > 1 and torch.equal(ref, beam64(model, src, max_len, bos_id, eos_id, 1)):
                    continue
                break
            args = (traced(model), src, max_len, bos_id, eos_id, K)
            name = f"{name}: {B} rows, beam_size={K}, max_len={max_len}"
            return Probe(name, args=args, cpu_only=cpu_only)

        # the first case on the check's device (fakegpu on a CPU machine): the model computes
        # where src is, and tensors made without device= show; the others on the CPU (fakegpu
        # runs each operation through Python: five cases there took a second)
        yield case("vocab_size=7", 4, 3, 8, cpu_only=False)
        yield case("beam_size=1 is greedy decoding", 2, 1, 8)
        yield case("bos_id=0, eos_id=5, vocab_size=9", 4, 2, 8, vocab_size=9, bos_id=0, eos_id=5)
        yield case("the best hypothesis is still open at max_len", 3, 3, 6, open_row=True,
                   eos_start=-4.0, eos_slope=0.0)  # fmt: skip
        yield case("beam_size = vocab_size = 5", 2, 5, 7, vocab_size=5, S=3)

    def explain_error(self, probe, error):
        if "Expected all tensors to be on the same device" not in error:
            return None
        first = error.splitlines()[0]  # the line below it is the check's model, not your code
        return Fail(
            "your code mixes tensors of two devices: the check runs it on a second device, as a "
            "GPU would, and a tensor your code made is on the CPU (the model computes where the "
            "tgt you give it is). Make tgt, the scores and every other new tensor on "
            f"src.device: torch.full(..., device=src.device).\n   {first}",
            "off_device",
        )

    def judge(self, probe, out):
        model, src, max_len, bos_id, eos_id, K = probe.args
        B = src.shape[0]
        got = expect_tensor(out)
        if got.dtype != torch.long:
            raise Fail(f"the output has dtype {got.dtype}: return token ids as a LongTensor.",
                       "not_long")  # fmt: skip
        if got.dim() != 2 or got.shape[0] != B or got.shape[1] == 0:
            raise Fail(f"the output has shape {fmt_shape(got.shape)}, expected (B, L) with "
                       f"B = {B}: one hypothesis per row of src, BOS first.",
                       "wrong_shape")  # fmt: skip
        if got.shape[1] > max_len:
            raise Fail(f"the output has {got.shape[1]} tokens, more than max_len={max_len} "
                       "(BOS counts).", "longer_than_max_len")  # fmt: skip
        if not bool((got[:, 0] == bos_id).all()):
            raise Fail(f"the output does not start with bos_id ({bos_id} here): return the "
                       "whole decoder sequence, BOS first.", "no_bos")  # fmt: skip
        if got.shape[1] == 1:
            raise Fail(f"the output holds bos_id alone, shape {fmt_shape(got.shape)}: no token "
                       "was decoded. Extend the beams one token per step until every beam has "
                       f"ended in eos_id or the sequences have max_len={max_len} tokens.",
                       "no_token_decoded")  # fmt: skip
        padded = F.pad(got, (0, max_len - got.shape[1]), value=eos_id)
        ref = beam64(model, src, max_len, bos_id, eos_id, K)
        if torch.equal(padded, ref):
            return
        found = []  # (code, message) of every known mistake that gives this output
        for variant, message in BEAM_MISTAKES.items():
            code = CODES.get(variant, variant)
            if code in dict(found):
                continue
            try:
                if not torch.equal(padded, beam64(model, src, max_len, bos_id, eos_id, K, variant)):
                    continue
            except IndexError:  # a variant that indexes past the beams (index_swapped_v)
                continue
            found.append((code, message.format(K=K)))
        if K > 1:  # the right search, another final choice
            rows = search64(model, src, max_len, bos_id, eos_id, K)
            same = [
                (key, a)
                for a in LENGTH_EXPONENTS
                for key in LENGTHS
                if torch.equal(
                    padded, torch.stack([r.best(eos_id, max_len, None, (key, a)) for r in rows])
                )
            ]
            if same:  # named only where one way of counting gives this output
                key, a = same[0]
                how = f"{key}{'' if a == 1 else f' to the power {a}'}"
                how = how if len(same) == 1 else "the length, counted in any of several ways,"
                found.append(("length_normalised", LENGTH_NORMALISED.format(length=how)))
        if found:  # on this case two slips may give the same output: both are named
            also = "".join(
                f"\n   The same output comes from another slip: {m}" for _, m in found[1:2]
            )
            raise Fail(found[0][1] + also, found[0][0])
        for b in range(B):
            ends = (padded[b] == eos_id).nonzero()
            if len(ends) and bool((padded[b, int(ends[0]) :] != eos_id).any()):
                raise Fail(f"row {b} goes on after its eos_id: {got[b].tolist()}. Once a beam "
                           "has produced eos_id it stays finished: only eos_id may follow.",
                           "tokens_after_eos")  # fmt: skip
        b = next(b for b in range(B) if not torch.equal(padded[b], ref[b]))
        mine, best = (
            log_prob(model, src[b], padded[b], eos_id),
            log_prob(model, src[b], ref[b], eos_id),
        )
        greedy = " (with beam_size=1, beam search is greedy decoding)" if K == 1 else ""
        shown = trim(got[b], eos_id)  # as returned; an open row shorter than max_len is read
        if shown != trim(padded[b], eos_id):  # as if eos_id followed (the padding)
            shown = (f"{shown} (open, {len(shown)} tokens, short of max_len={max_len}: read as "
                     f"{trim(padded[b], eos_id)}, padded with eos_id)")  # fmt: skip
        raise Fail(
            f"row {b} differs from beam search{greedy}: got {shown} "
            f"(log-probability {mine:.3f}), expected {trim(ref[b], eos_id)} ({best:.3f}). Each "
            "step: log_softmax of the logits at the last position, added to each beam's score; "
            "a finished beam is carried over unchanged; keep the top k of all beam x vocab "
            "candidates; at the end, the beam with the highest summed log-probability.",
            "not_beam_search",
        )


def trim(row: torch.Tensor, eos_id: int) -> list[int]:
    """The hypothesis up to and including its first eos_id."""
    ends = (row == eos_id).nonzero()
    return row[: int(ends[0]) + 1 if len(ends) else len(row)].tolist()
