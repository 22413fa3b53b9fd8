META = {'exercise': '05.FeedForward',
        'cause': 'F.dropout with its default training=True: dropout stays on in eval mode',
        'keywords': [r'dropout (is |was )?(not |never )?(applied|active|used|on|off|missing|ignored|placed|acts|stays|remains)', r'(no|missing|without|skips?|ignor\w*|wrong|extra|never appl\w*|not appl\w*) (the )?dropout', r'dropout (acts |is applied |applied |runs )?(in eval|instead of|before|after|in the wrong place|on the (output|input|weights))', r'(before|after|instead of) (the )?dropout', r'training='],
        'kind': 'mode/state',
        'single_edit': False}


class FeedForward(nn.Module):
    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0, activation: str = "relu"):
        super().__init__()
        if activation not in ("relu", "gelu"):
            raise ValueError(f"activation must be 'relu' or 'gelu', got {activation!r}")
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.p = dropout
        self.activation = F.relu if activation == "relu" else F.gelu

    def forward(self, x):
        return self.linear2(F.dropout(self.activation(self.linear1(x)), self.p))
