"""Notebook 05: its checked questions, as data (helpers/checks/questions.py: a choice
or a number; each wrong choice -> what is wrong with it, the explanation of the right one)."""

D, D_FF = 64, 256

ATTENTION, FFN, NORMS = 4 * D * D + 4 * D, 2 * D * D_FF + D_FF + D, 4 * D

QUESTIONS = {
    "05.q_block_params": {
        "title": "the parameters of one block (d_model=64, d_ff=256)",
        "answer": ATTENTION + FFN + NORMS,
        "rel_tol": 1e-4,
        "wrong_numbers": {
            4 * D * D + 2 * D * D_FF: "that counts the weight matrices alone: every nn.Linear has "
            "a bias too, and each LayerNorm a weight and a bias.",
            ATTENTION + FFN: "the two LayerNorms are missing: each holds a weight and a bias of "
            "d_model numbers.",
            ATTENTION + FFN + 2 * D: "each LayerNorm holds two vectors of d_model numbers, its "
            "weight and its bias.",
            3 * D * D + 3 * D + FFN + NORMS: "attention has four projections, q_proj, k_proj, "
            "v_proj and the output projection out_proj, each d_model x d_model with a bias.",
            ATTENTION + D * D_FF + D_FF + NORMS: "the feed-forward has two matrices, linear1 "
            "(d_model -> d_ff) and linear2 (d_ff -> d_model), each with its bias.",
        },
        "explanation": (
            "49,984 = attention 4 d^2 + 4 d = 16,640 (four d x d projections with biases), "
            "feed-forward 2 d d_ff + d_ff + d = 33,088, and the two LayerNorms 4 d = 256. The "
            "feed-forward holds two thirds of it: the heads split d_model, they add no parameters."
        ),
    },
    "05.q_gradients": {
        "title": "which stack's first layer gets the least gradient",
        "answer": "c",
        "choices": {
            "a": "in pre-LN the residual stream carries the gradient from the loss down to every "
            "block through additions, whose Jacobian is the identity: nothing on the main path "
            "shrinks it.",
            "b": "post-LN's gradient does grow towards the output, as its norms sit on the main "
            "path and rescale what passes through them; but its residual connections still carry "
            "the gradient down, past every sublayer.",
            "c": "",
            "d": "the three stacks differ exactly in what the gradient passes through on its way "
            "down: identities (residuals), LayerNorms, or every sublayer's Jacobian.",
        },
        "explanation": (
            "without residual connections the gradient reaches the first block only through the "
            "Jacobians of all the sublayers above it, one product per layer, and that product "
            "shrinks (here the last layer gets over ten times the first's gradient); the identity "
            "term of x + f(x) is what carries it down in the other two stacks."
        ),
    },
}
