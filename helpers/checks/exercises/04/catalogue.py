"""Notebook 04's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

#: the table's mistakes, edits of references.sinusoidal64: the table exercise's and the
#: module's (whose forward is sinusoidal64 given x)
TABLE = {
    "sin_cos_swapped": {
        "message": "sin and cos are swapped: even columns (0, 2, 4, ...) hold sin, odd columns "
        "hold cos.",
        "wrong": "angle.sin(), angle.cos() -> angle.cos(), angle.sin()",
    },
    "exponent_column_index": {
        "message": "the exponent is wrong: you used the column index j in 10000^(j/d_model); "
        "columns 2i and 2i+1 share one frequency, 10000^(2i/d_model) with i = j // 2 "
        "(torch.arange(0, d_model, 2)).",
        "wrong": "-two_i / d_model -> -j / d_model",
    },
    "exponent_without_2": {
        "message": "the exponent is wrong: 10000^(i/d_model) misses the factor 2; use "
        "10000^(2i/d_model), i.e. torch.arange(0, d_model, 2) / d_model.",
        "wrong": "two_i = 2 * torch.div -> two_i = torch.div",
    },
    "exponent_sign": {
        "message": "the exponent has the wrong sign: positions are *divided* by "
        "10000^(2i/d_model) (frequencies go down with i), not multiplied.",
        "wrong": "-two_i -> two_i",
    },
    "halves_not_interleaved": {
        "message": "sin and cos each fill one half of the columns (one the first half, the "
        "other the second half): this series interleaves them (sin on even columns, cos on "
        "odd).",
        "wrong": [
            "torch.where(j % 2 == 0, angle.sin(), angle.cos()) -> "
            "torch.cat([angle[:, 0::2].sin(), angle[:, 0::2].cos()], -1)",
            "torch.where(j % 2 == 0, angle.sin(), angle.cos()) -> "
            "torch.cat([angle[:, 0::2].cos(), angle[:, 0::2].sin()], -1)",
        ],
    },
    "positions_from_1": {
        "message": "the positions start at 1: the first row is position 0 (sin 0 = 0, cos 0 = "
        "1), torch.arange(max_len).",
        "wrong": "torch.arange(max_len, -> torch.arange(1, max_len + 1,",
    },
    "wrong_base": {  # (base 100 is exponent_without_2: 100^(2i/d) = 10000^(i/d))
        "message": "the base is {base:g}: the angles are pos / 10000^(2i/d_model), base 10000.",
        "wrong": ["10000.0 -> 1000.0", "10000.0 -> 100000.0"],
    },
}

CATALOGUE = {
    "04.sinusoidal_positional_encoding": TABLE,
    "04.PositionalEncoding": TABLE
    | {  # edits of sinusoidal64's x + pe
        "x_scaled": {
            "message": "x is multiplied by sqrt(d_model): in this series the token embedding "
            "does that scaling (notebook 06); PositionalEncoding only adds pe[:T].",
            "wrong": "x.double() + pe -> x.double() * math.sqrt(d_model) + pe",
        },
        "table_only": {
            "message": "the output is the table alone: return x + pe[:T].",
            "wrong": "F.dropout(x.double() + pe, p, training) -> pe.expand_as(x)",
        },
        "pe_not_added": {
            "message": "the output equals the input: add pe[:T] to x.",
            "wrong": "x.double() + pe -> x.double()",
        },
        "pe_subtracted": {
            "message": "the output is x - pe[:T]: add the table, x + pe[:T].",
            "wrong": "x.double() + pe -> x.double() - pe",
        },
        "sliced_by_batch": {
            "message": "pe is sliced by x.size(0), the batch size: the positions run along dim 1 "
            "of x (B, T, d_model), so add self.pe[: x.size(1)]. (The PyTorch tutorial's table "
            "(max_len, 1, d_model) is made for x (T, B, d_model); any layout of pe is fine if "
            "row t is added to position t.)",
            "wrong": (
                "torch.arange(max_len, -> torch.arange(max_len if x is None else len(x),",
                "x.double() + pe -> x.double() + pe[:, None, :]",
            ),
        },
        "dropout_before_adding_pe": {
            "message": "dropout is applied to x before pe is added: apply it to the sum, "
            "self.dropout(x + self.pe[:T]).",
            "wrong": "F.dropout(x.double() + pe, p, training) -> "
            "F.dropout(x.double(), p, training) + pe",
        },
        "dropout_on_pe": {
            "message": "dropout is applied to pe alone: apply it to the sum, self.dropout(x + "
            "self.pe[:T]).",
            "wrong": "F.dropout(x.double() + pe, p, training) -> "
            "x.double() + F.dropout(pe, p, training)",
        },
        "dropout_p_ignored": {
            "message": "dropout does not use the `dropout` argument (this case passes 0.5): "
            "self.dropout = nn.Dropout(dropout).",  # probes.P_IGNORED's words (03, 05)
            "wrong": "pe, p, training) -> pe, 0.1, training)",
        },
    },
    "04.apply_rope": {  # edits of apply_rope.rope64
        "halves_layout": {
            "message": "you rotate the pairs (i, i + d/2), the layout of GPT-NeoX (and of "
            "Llama's Hugging Face code, rotate_half): this exercise uses the interleaved pairs "
            "(2i, 2i+1), x[..., 0::2] with x[..., 1::2], as the notebook's formula and Su et al. "
            "do.",
            "wrong": (
                "a, b = x[..., 0::2], x[..., 1::2] -> a, b = x[..., : d // 2], x[..., d // 2 :]",
                "torch.stack([ra, rb], dim=-1).flatten(-2) -> torch.cat([ra, rb], dim=-1)",
            ),
        },
        "not_interleaved_back": {
            "message": "the pairs are rotated right, but written back as [all rotated even "
            "features, all rotated odd features], as torch.cat([even, odd], dim=-1) gives, and "
            "torch.stack([even, odd], dim=-2).flatten(-2){also}: put each pair back in place, "
            "features 2i and 2i+1, e.g. torch.stack([even, odd], dim=-1).flatten(-2).",
            "wrong": "torch.stack([ra, rb], dim=-1).flatten(-2) -> torch.cat([ra, rb], dim=-1)",
        },
        "exponent_without_2": {
            "message": "the frequencies are wrong: base^(-i/d) misses the factor 2; pair i "
            "turns by base^(-2i/d) per position (2i = torch.arange(0, d, 2)).",
            "wrong": "-2 * i / d -> -i / d",
        },
        "exponent_sign": {
            "message": "the exponent has the wrong sign: the angle is pos * base^(-2i/d) (the "
            "frequencies fall with i), not pos * base^(+2i/d).",
            "wrong": "-2 * i / d -> 2 * i / d",
        },
        "rotation_backwards": {
            "message": "each pair turns the wrong way (by -angle): the rotation of (a, b) by the "
            "angle t is (a cos t - b sin t, a sin t + b cos t).",
            "wrong": "angles.cos(), angles.sin() -> angles.cos(), -angles.sin()",
        },
        "sin_cos_swapped": {
            "message": "sin and cos are swapped: the rotation of (a, b) by the angle t is "
            "(a cos t - b sin t, a sin t + b cos t); at position 0 (t = 0) x must come back "
            "unchanged.",
            "wrong": "angles.cos(), angles.sin() -> angles.sin(), angles.cos()",
        },
        "positions_from_1": {
            "message": "the positions start at 1: the first position along dim -2 is 0 (angle "
            "0, x unchanged), torch.arange(T) with T = x.size(-2).",
            "wrong": "torch.arange(T, -> torch.arange(1, T + 1,",
        },
        "pairs_written_swapped": {
            "message": "each rotated pair is written back in the wrong order, the second "
            "feature first: feature 2i gets a sin t + b cos t and feature 2i+1 gets a cos t - b "
            "sin t (a = x[..., 0::2], b = x[..., 1::2]). Put a cos t - b sin t back at 2i and a "
            "sin t + b cos t at 2i+1: torch.stack([a * cos - b * sin, a * sin + b * cos], "
            "dim=-1).flatten(-2).",
            "wrong": "torch.stack([ra, rb] -> torch.stack([rb, ra]",
        },
        "pairs_read_swapped": {
            "message": "each pair is read in the wrong order, (a, b) = (x[2i+1], x[2i]) (the "
            "same output as writing the rotated pair back swapped and turning it the wrong "
            "way): a is the even feature, x[..., 0::2], and b the odd one, x[..., 1::2].",
            "wrong": "x[..., 0::2], x[..., 1::2] -> x[..., 1::2], x[..., 0::2]",
        },
        "base_ignored": {
            "message": "the `base` argument is ignored: this case passes base={base:g}, and the "
            "frequencies are base^(-2i/d).",
            "wrong": "torch.tensor(base, -> torch.tensor(10000.0,",
        },
        "angles_in_float32": {
            "message": "the angles are computed in float32 although x is float64: make the "
            "positions and frequencies in x's dtype (torch.arange(..., dtype=x.dtype, "
            "device=x.device)), so a float64 input gets float64 accuracy.",
            "wrong": "angles.cos(), angles.sin() -> "
            "angles.float().double().cos(), angles.float().double().sin()",
        },
    },
}
