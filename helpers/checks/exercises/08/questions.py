"""Notebook 08: its checked questions, as data (helpers/checks/questions.py: a choice
or a number; each wrong choice -> what is wrong with it, the explanation of the right one)."""

QUESTIONS = {
    "08.q_memory_growth": {
        "title": "how the score matrix grows when T doubles",
        "answer": 4,
        "wrong_numbers": {
            2: "that is linear growth. The score matrix has T rows and T columns, and both double.",
            8: "that is cubic growth, T^3. The score matrix has T rows and T columns: two factors "
            "of T, not three.",
            16: "that is what quadrupling T does (the table below goes 512, 2048, ...). Here T "
            "doubles.",
        },
        "explanation": (
            "4T^2 bytes: (2T)^2 = 4 T^2, twice as many rows and twice as many columns. Quadratic "
            "memory is what makes long contexts expensive, and what sections 2 and 3 avoid."
        ),
    },
    "08.q_kv_step": {
        "title": "the work of one decoding step with a KV cache",
        "answer": "b",
        "choices": {
            "a": "the new query is still compared with every cached key: t dot products of d "
            "numbers, then a weighted sum of t values. That grows with t.",
            "b": "",
            "c": "t^2 is the attention of recomputing everything: t queries against t keys. With "
            "the old keys and values kept, only the new token's query is compared, with t keys.",
            "d": "t d^2 is the projections of every token, which a cache no longer recomputes: "
            "only the new token is projected (d^2, the same at every step).",
        },
        "explanation": (
            "one projection of the new token, O(d^2), the same at every step, and one query "
            "against t cached keys and values, O(t d): linear in t. Without the cache a step costs "
            "O(t d^2 + t^2 d)."
        ),
    },
}
