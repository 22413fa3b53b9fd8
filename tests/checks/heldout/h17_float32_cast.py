META = {"exercise": "01.softmax_backward",
        "cause": "computes in float32 (casts with .float()) and returns float32 for a float64 input, losing the dtype",
        "keywords": [r"dtype|float64|double|float32|precision"]}


def softmax_backward(y, grad_y, dim=-1):
    y32, g32 = y.float(), grad_y.float()
    s = (g32 * y32).sum(dim=dim, keepdim=True)
    return y32 * (g32 - s)
