META = {'exercise': '01.softmax_backward',
        'correct': True,
        'source': "PyTorch's decomposition of _softmax_backward_data (grad_output * output - output * sum(grad_output * output))"}


def softmax_backward(y: torch.Tensor, grad_y: torch.Tensor, dim: int = -1) -> torch.Tensor:
    new_grad_output = grad_y * y
    return new_grad_output - y * torch.sum(new_grad_output, dim=dim, keepdim=True)
