"""Notebook 07: its checked questions, as data (helpers/checks/questions.py: a choice
or a number; each wrong choice -> what is wrong with it, the explanation of the right one)."""

QUESTIONS = {
    "07.q_decoder_positions": {
        "title": "how many target positions greedy decoding processes",
        "answer": 66,
        "wrong_numbers": {
            11: "that is the number of calls (one per new token), or the positions a KV cache "
            "processes (one new position per call). Without a cache, each call runs the decoder "
            "over the whole tgt so far.",
            12: "that is the length of the output. Each call runs the decoder over the whole tgt "
            "so far, and the calls' tgt grow by one token each time.",
            78: "that counts a call with all 12 tokens as input; the last call's input is BOS and "
            "10 digits (11 tokens): it produces EOS, and decoding stops.",
            121: "not every call sees 11 tokens: the first sees BOS alone, the next BOS and one "
            "digit, and so on.",
            144: "not every call sees 12 tokens: the first sees BOS alone, the next BOS and one "
            "digit, and so on.",
            132: "not every call sees 12 tokens: the first sees BOS alone, the next BOS and one "
            "digit, and so on.",
        },
        "explanation": (
            "11 calls produce the 11 tokens after BOS; call t runs the decoder over t positions "
            "(BOS and the t - 1 tokens chosen so far), so 1 + 2 + ... + 11 = 66, quadratic in the "
            "length. A KV cache keeps the keys and values of the earlier positions: 11 positions."
        ),
    },
}
