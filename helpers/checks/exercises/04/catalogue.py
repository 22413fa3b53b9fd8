"""Notebook 04's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

from ...probes import P_IGNORED

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
            "message": P_IGNORED[0],
            "wrong": "pe, p, training) -> pe, 0.1, training)",
        },
    },
}
