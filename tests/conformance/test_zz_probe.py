import torch


def test_probe() -> None:
    import torch.autograd.forward_ad as fw
    stack = torch._C._functorch.peek_interpreter_stack()
    print("\nPROBE level", fw._current_level, "stack", stack, "fwd", torch._C._is_fwd_grad_enabled())
    x = torch.tensor([1.0, 2.0])
    print("PROBE grad", torch.func.grad(lambda t: (t * t).sum())(x))
