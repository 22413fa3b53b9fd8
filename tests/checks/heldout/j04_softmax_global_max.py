META = {"exercise": "01.softmax",
        "cause": "subtracts the maximum of the whole tensor instead of the max of each slice along dim, so rows far below the global max underflow to 0/0",
        "keywords": [r"(global|whole|entire|overall).{0,30}max", r"max.{0,40}(each|per).{0,10}(slice|row)", r"underflow", r"nan", r"keepdim"]}


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = (x - x.max()).exp()
    return e / e.sum(dim=dim, keepdim=True)
