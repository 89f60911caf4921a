# ruff: noqa: N803, N806 - the names of Convolution.cpp (ggI, ggW, gO, gW, gI)
"""_convolution_double_backward: the derivative of convolution_backward.

Mirrors that function of `aten/src/ATen/native/Convolution.cpp` (CompositeImplicitAutograd):
given the gradients ggI, ggW, ggb flowing into convolution_backward's three results, it
returns the gradients of its inputs grad_output, input and weight, each itself a convolution:
ggO = conv(ggI, w) + conv(i, ggW) + ggb, gW = conv(ggI^T, gO^T) (stride and dilation swapped,
per group, narrowed to the weight), gI = conv_transpose(gO, ggW) (with the output_padding that
restores the input's size). Every term goes through at::convolution, so double backward works
for each backend, and a third derivative too.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.convolution import _expand_param_if_needed
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor

SOURCE = "aten/src/ATen/native/Convolution.cpp"


def _defined(t: Tensor | None) -> bool:
    return t is not None and t.defined()


def _subvariable(var: Tensor, dim: int, groups: int, g: int) -> Tensor:
    n = var.size(dim) // groups
    return var.narrow(dim, n * g, n)


def _narrow_to(t: Tensor, sizes: Sequence[int]) -> Tensor:
    """Narrow each spatial dim of t that is larger than sizes' to its start."""
    for i in range(2, t.dim()):
        if t.size(i) > sizes[i]:
            t = t.narrow(i, 0, sizes[i])
    return t


@native_function(SOURCE)
def _convolution_double_backward(
    ggI: Tensor | None,
    ggW: Tensor | None,
    ggb: Tensor | None,
    gO: Tensor,
    weight: Tensor,
    self: Tensor,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    output_mask: Sequence[bool],
) -> tuple[Tensor, Tensor, Tensor]:
    input = self
    dim = weight.dim() - 2
    stride_ = _expand_param_if_needed(stride, "stride", dim)
    padding_ = _expand_param_if_needed(padding, "padding", dim)
    dilation_ = _expand_param_if_needed(dilation, "dilation", dim)
    output_padding_ = _expand_param_if_needed(output_padding, "output_padding", dim)
    if not transposed and input.dim() > 4:
        # the hack for grouped 3-D convolution (pytorch/pytorch#36355): groups from the channels
        groups = input.size(1) // weight.size(1) if weight.size(1) > 0 else -1

    def conv(
        i: Tensor, w: Tensor, t: bool, s: list[int], d: list[int], op: list[int], g: int
    ) -> Tensor:
        return at.convolution(i, w, None, s, padding_, d, t, op, g)  # type: ignore[no-any-return]

    # ggO = conv(ggI, w) + conv(i, ggW) + ggb
    ggO = Tensor()
    if input.numel() != 0:
        if _defined(ggI):
            assert ggI is not None
            ggO = conv(ggI, weight, transposed, stride_, dilation_, output_padding_, groups)
        if _defined(ggW):
            assert ggW is not None
            term = conv(input, ggW, transposed, stride_, dilation_, output_padding_, groups)
            ggO = ggO.add(term) if ggO.defined() else term
    if _defined(ggb):
        assert ggb is not None
        new_size = [1] * gO.dim()
        new_size[1] = ggb.size(0)
        expanded = ggb.contiguous().view(new_size).expand(list(gO.sizes()))
        ggO = ggO.add(expanded) if ggO.defined() else expanded

    # gW = conv(ggI, gO), batch accumulated through the transposes; groups one at a time
    gW = Tensor()
    if _defined(ggI) and input.numel() != 0:
        assert ggI is not None
        gOt, ggIt = gO.transpose(0, 1), ggI.transpose(0, 1)

        def weight_conv(go_t: Tensor, ggi_t: Tensor) -> Tensor:
            # the stride and dilation swap roles; never transposed, groups handled here
            if transposed:
                return conv(go_t, ggi_t, False, dilation_, stride_, output_padding_, 1)
            return conv(ggi_t, go_t, False, dilation_, stride_, output_padding_, 1)

        if groups == 1:
            gWt = weight_conv(gOt, ggIt)
        else:
            gWt = at.cat(
                [
                    weight_conv(_subvariable(gOt, 0, groups, g), _subvariable(ggIt, 0, groups, g))
                    for g in range(groups)
                ],
                1,
            )
        gW = _narrow_to(gWt.transpose(0, 1), list(weight.sizes()))

    # gI = convT(gO, ggW) if not transposed, conv(gO, ggW) if transposed
    gI = Tensor()
    if _defined(ggW) and input.numel() != 0:
        assert ggW is not None
        if transposed:
            gI = conv(gO, ggW, False, stride_, dilation_, output_padding_, groups)
            gI = _narrow_to(gI, list(input.sizes()))
        else:
            # the output_padding that gives back the input's size
            op = list(output_padding_)
            for i in range(dim):
                expected = (
                    (weight.size(2 + i) - 1) * dilation_[i]
                    - 2 * padding_[i]
                    + (stride_[i] * (gO.size(2 + i) - 1) + 1)
                )
                if expected != input.size(2 + i):
                    op[i] = input.size(2 + i) - expected
            gI = conv(gO, ggW, True, stride_, dilation_, op, groups)
    return ggO, gI, gW
