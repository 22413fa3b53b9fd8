"""Notebook 03: its checked questions, as data (helpers/checks/questions.py: a choice
or a number; each wrong choice -> what is wrong with it, the explanation of the right one)."""

QUESTIONS = {
    "03.q_param_count": {
        "title": "the parameters of MultiHeadAttention(256, 8)",
        "answer": 4 * 256**2 + 4 * 256,
        "rel_tol": 1e-9,
        "wrong_numbers": {
            4 * 256**2: "that counts the four weight matrices only: each nn.Linear has a bias "
            "vector of d_model numbers too (bias=True by default).",
            3 * 256**2 + 3 * 256: "that counts q_proj, k_proj and v_proj: out_proj, which mixes "
            "the heads' outputs, is a fourth nn.Linear(d_model, d_model).",
            8 * (4 * 256**2 + 4 * 256): "that gives every head projections of its own of size "
            "(d_model, d_model): the heads share one nn.Linear(d_model, d_model) per projection, "
            "each head reading its d_head = 32 columns of the output.",
            4 * 32 * 32 * 8 + 4 * 256: "that makes each head's projection (d_head, d_head): each "
            "head reads the whole token vector, so its slice of q_proj is (d_model, d_head), and "
            "the H slices side by side are one (d_model, d_model) matrix.",
        },
        "explanation": (
            "4 * 256² + 4 * 256 = 263,168: q_proj, k_proj, v_proj and out_proj are each "
            "nn.Linear(256, 256), 256 * 256 weights and 256 biases; the 8 heads are a reshape of "
            "their outputs, not more parameters."
        ),
    },
    "03.q_heads_params": {
        "title": "what more heads do to the parameter count",
        "answer": "c",
        "choices": {
            "a": "the heads do not each get full-size projections: one nn.Linear(d_model, d_model) "
            "serves all of them, and H heads of size d_model / H fill its d_model outputs.",
            "b": "the projections do not shrink: q_proj is nn.Linear(d_model, d_model) whatever H "
            "is; only the view of its output as (H, d_head) changes.",
            "c": "",
            "d": "the reshape into heads has no parameters of its own: no term grows with H.",
        },
        "explanation": (
            "The count does not depend on H: the four projections are nn.Linear(d_model, d_model) "
            "for any number of heads, and splitting into heads is a view of their outputs. More "
            "heads means smaller heads (d_head = d_model / H), not more parameters."
        ),
    },
}
