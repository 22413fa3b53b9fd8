META = {"exercise": "01.softmax_backward", "correct": True,
        "source": "move dim last, dot products via einsum/matmul, torch.addcmul; back with movedim (kernel-style layout)"}


def softmax_backward(y, grad_y, dim=-1):
    yl, gl = y.movedim(dim, -1), grad_y.movedim(dim, -1)
    dot = (gl.unsqueeze(-2) @ yl.unsqueeze(-1)).squeeze(-1)  # (..., 1)
    out = torch.addcmul(torch.zeros_like(yl), yl, gl - dot)
    return out.movedim(-1, dim)
