"""Notebook 07's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

CATALOGUE = {
    "07.greedy_decode": {  # edits of greedy_decode.greedy64
        "no_bos": {
            "message": "the output does not start with bos_id: return the whole decoder "
            "sequence, BOS first ({bos_id} here).",
            "wrong": "return tgt -> return tgt[:, 1:]",
        },
        "first_position": {
            "message": "the next token is read at the wrong position: the prediction for the "
            "next token is at the last position, logits[:, -1].",
            "wrong": "logits[:, -1] -> logits[:, 0]",
        },
        "stop_first": {
            "message": "decoding stopped when the first row produced eos_id: stop only once "
            "every row has (keep a `done` flag per row).",
            "wrong": "done.all() -> done.any()",
        },
        "never_stop": {
            "message": "decoding never stops early: stop once every row has produced eos_id "
            "(done.all()), not at max_len.",
            "wrong": "if done.all(): -> if False:",
        },
        "no_force_eos": {
            "message": "a row that has produced eos_id goes on with other tokens: once a row is "
            "done, keep appending eos_id to it.",
            "wrong": "nxt = torch.where(done, torch.full_like(nxt, eos_id), nxt) -> pass",
        },
        "eos_ignored": {
            "message": "eos_id is never looked at: a row that has produced eos_id goes on with "
            "other tokens, and decoding runs to max_len. Keep appending eos_id to finished rows "
            "and stop once every row has produced it (done.all()).",
            "wrong": (
                "nxt = torch.where(done, torch.full_like(nxt, eos_id), nxt) -> pass",
                "if done.all(): -> if False:",
            ),
        },
    },
}
