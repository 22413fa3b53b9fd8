META = {"exercise": "00.relu", "correct": True, "source": "torch.where with a 0-d x.new_zeros(()) scalar"}


def relu(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x > 0, x, x.new_zeros(()))
