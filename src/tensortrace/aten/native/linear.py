"""linear: input @ weight.T + bias, the op behind nn.Linear.

Mirrors `aten/src/ATen/native/Linear.cpp`. For a 2D input with a bias it is one fused
addmm(bias, input, weight.t()); for a contiguous input with a bias the batch dims are folded
into rows first (_flatten_nd_linear: view + addmm + view); otherwise it is matmul, plus an
in-place add of the bias. So F.linear records aten::linear > aten::t + aten::addmm, as
torch.profiler shows.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/Linear.cpp"


def _at() -> Any:
    from tensortrace.aten import functions as at

    return at


def _flatten_nd_linear(input: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
    """Fold the batch dims into rows (a view, the input being contiguous), addmm, unfold."""
    sizes = input.sizes()
    flattened_dim = 1
    for s in sizes[:-1]:
        flattened_dim *= s
    # reshape of a contiguous tensor is a view: torch.profiler records just aten::view
    result = _at().addmm(bias, input.view([flattened_dim, sizes[-1]]), weight.t())
    return result.view([*sizes[:-1], result.size(1)])


@native_function(SOURCE)
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    at = _at()
    input_dim = input.dim()
    weight_dim = weight.dim()
    TORCH_CHECK(input_dim != 0 and weight_dim != 0, "both arguments to linear need to be at "
                "least 1D, but they are ", input_dim, "D and ", weight_dim, "D")
    has_bias = bias is not None and bias.defined()
    if input_dim == 2 and has_bias:
        # fused op is marginally faster
        return at.addmm(bias, input, weight.t())
    if has_bias and input.is_contiguous() and (input_dim == 3 or bias.dim() == 1):
        return _flatten_nd_linear(input, weight, bias)
    output = at.matmul(input, weight.t())
    if has_bias:
        output.add_(bias)
    return output
