"""The factories' call into the torch-function mode on top of the stack (the default device).

Mirrors the mode half of `handle_torch_function` (torch/csrc/utils/python_arg_parser.cpp) and
`StashTorchFunctionModeGuard` (torch/csrc/utils/python_torch_function_mode.h): the mode on top
of the stack is popped while its __torch_function__ runs, so the call it makes goes on to the
next mode, and from the last one to the binding itself.

Note [The default device at the binding layer]
torch.set_default_device(device) and `with torch.device(device):` push a DeviceContext
(torch/utils/_device.py), a TorchFunctionMode whose __torch_function__ fills `device=` for the
factories of _device_constructors() when the call left it None. tensortrace has no
__torch_function__ protocol; the only modes it has are those DeviceContexts, and the only calls
they change are those factories. So only the factories' bindings ask for a mode: the binding
parses its arguments first (a bad call raises the error torch's parser raises, device= not
added), then, with a mode on the stack, calls handle_torch_function_mode, as THPVariable_zeros
does `if (_r.has_torch_function()) return handle_torch_function(...)`. Every other function
would pass through a DeviceContext unchanged, and skips the check. Internal code (aten kernels,
the autograd formulas) calls at:: functions, never the bindings, so it is not affected, as in
torch where the mode only sees Python calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensortrace.aten.python_torch_function_tls import pop_stack, push_onto_stack

# torch/utils/_device.py's _device_constructors(), by name: the factories of that set this
# runtime has (no window functions, torch.range, sparse or nested tensors, fft.fftfreq)
DEVICE_CONSTRUCTORS = frozenset(
    {
        "empty",
        "empty_strided",
        "ones",
        "arange",
        "eye",
        "full",
        "linspace",
        "logspace",
        "rand",
        "randn",
        "randint",
        "randperm",
        "tril_indices",
        "triu_indices",
        "zeros",
        "asarray",
        "tensor",
        "as_tensor",
        "scalar_tensor",
        "bartlett_window",
        "blackman_window",
        "hamming_window",
        "hann_window",
        "kaiser_window",
        "fft_fftfreq",  # torch.fft.fftfreq: its binding's name in torch._C._fft
        "fft_rfftfreq",
    }
)


def handle_torch_function_mode(
    func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """Call the top mode's __torch_function__(func, (), args, kwargs) with that mode stashed."""
    mode = pop_stack()
    try:
        return mode.__torch_function__(func, (), args, kwargs)
    finally:
        push_onto_stack(mode)
