META = {"exercise": "00.relu",
        "cause": "compares with a float32 CPU zeros tensor, so half/bfloat16 inputs come back as float32 (and on the CPU)",
        "keywords": [r"dtype", r"float32", r"float16|half|bfloat", r"device"]}


def relu(x: torch.Tensor) -> torch.Tensor:
    return torch.maximum(x, torch.zeros(x.shape))
