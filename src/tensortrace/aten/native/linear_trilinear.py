"""Linear.cpp's bilinear and _trilinear: the ops behind nn.Bilinear / F.bilinear.

Mirrors `aten/src/ATen/native/Linear.cpp`. bilinear (CompositeImplicitAutograd) checks dtypes
and sizes, flattens both inputs to 2-D and calls _trilinear(input1, weight, input2,
expand1=[1, 3], expand2=[0], expand3=[1, 2], sumdim=[2, 3]): y[b, o] = sum_ij x1[b, i] W[o, i, j]
x2[b, j], then adds the bias. _trilinear (CompositeExplicitAutograd) unsqueezes each input at
its expand dims, and for every slice k along unroll_dim contracts the first two, then the third,
with sumproduct_pair (the permute + reshape + bmm of einsum), adding the slice into a zeroed
output, whose summed dims it squeezes at the end. Its derivative (_trilinear_backward in
FunctionsManual.cpp) is _trilinear again, with the roles of one expand list and sumdim swapped.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.linear import sumproduct_pair
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.tensor_transformations import dim_list_to_bitset
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import TypeMeta

SOURCE = "aten/src/ATen/native/Linear.cpp"


def _dtype(t: Tensor) -> str:
    """Tensor::dtype(), a caffe2::TypeMeta, printed as its C++ type name."""
    return TypeMeta.fromScalarType(t.scalar_type()).name


@native_function(SOURCE)
def _trilinear(
    i1: Tensor,
    i2: Tensor,
    i3: Tensor,
    expand1: Sequence[int],
    expand2: Sequence[int],
    expand3: Sequence[int],
    sumdim: Sequence[int],
    unroll_dim: int = 1,
) -> Tensor:
    total_dim = i1.dim() + len(expand1)
    TORCH_CHECK(0 <= unroll_dim < total_dim, "unroll_dim must be in [0,", total_dim - 1, "]")
    e1 = dim_list_to_bitset(expand1, total_dim)
    e2 = dim_list_to_bitset(expand2, total_dim)
    e3 = dim_list_to_bitset(expand3, total_dim)
    summed = dim_list_to_bitset(sumdim, total_dim)
    output_size: list[int] = []
    sum_dims_12: list[int] = []
    sum_dims_23: list[int] = []
    unroll_size = -1
    for i in range(total_dim):
        s = 0
        if e1[i]:
            i1 = i1.unsqueeze(i)
        else:
            s = i1.size(i)
        if e2[i]:
            i2 = i2.unsqueeze(i)
        else:
            s = i2.size(i)
        if e3[i]:
            i3 = i3.unsqueeze(i)
            if summed[i] and i != unroll_dim:
                sum_dims_12.append(i)
        else:
            s = i3.size(i)
            if summed[i] and i != unroll_dim:
                sum_dims_23.append(i)
        output_size.append(1 if summed[i] else s)
        if i == unroll_dim:
            unroll_size = s
    slicemul1 = 0 if e1[unroll_dim] else 1
    slicemul2 = 0 if e2[unroll_dim] else 1
    slicemul3 = 0 if e3[unroll_dim] else 1
    output = at.zeros(output_size, dtype=i1.scalar_type(), device=i1.device())
    # if output has zero elements, (at least) one of i1, i2, i3 has zero elements
    if i1.numel() != 0 and i2.numel() != 0 and i3.numel() != 0:
        for k in range(unroll_size):
            buf = sumproduct_pair(
                i1.narrow(unroll_dim, k * slicemul1, 1),
                i2.narrow(unroll_dim, k * slicemul2, 1),
                sum_dims_12,
                True,
            )
            buf = sumproduct_pair(buf, i3.narrow(unroll_dim, k * slicemul3, 1), sum_dims_23, True)
            if not summed[unroll_dim]:
                output.narrow(unroll_dim, k, 1).add_(buf)
            else:
                output.add_(buf)
    for i in range(output.dim() - 1, -1, -1):
        if summed[i]:
            output.squeeze_(i)
    return output


@native_function(SOURCE)
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    if bias is not None and not bias.defined():
        bias = None
    if bias is not None:
        TORCH_CHECK(
            input1.scalar_type()
            == input2.scalar_type()
            == weight.scalar_type()
            == bias.scalar_type(),
            f"All tensors must have the same dtype, got input1: {_dtype(input1)}, input2: "
            f"{_dtype(input2)}, weight: {_dtype(weight)}, bias: {_dtype(bias)}",
        )
    else:
        TORCH_CHECK(
            input1.scalar_type() == input2.scalar_type() == weight.scalar_type(),
            f"All tensors must have the same dtype, got input1: {_dtype(input1)}, input2: "
            f"{_dtype(input2)}, weight: {_dtype(weight)}",
        )
    TORCH_CHECK(
        input1.dim() == input2.dim(),
        "bilinear(): input dimensions do not match: got ",
        input1.dim(),
        " and ",
        input2.dim(),
    )
    for i in range(input1.dim() - 1):
        TORCH_CHECK(
            input1.size(i) == input2.size(i),
            "bilinear(): input batch dimensions do not match at dim ",
            i,
            ": got ",
            input1.size(i),
            " and ",
            input2.size(i),
        )
    TORCH_CHECK(
        input1.size(input1.dim() - 1) == weight.size(1),
        "bilinear(): input1 size does not match weight size: got ",
        input1.size(input1.dim() - 1),
        " but expected ",
        weight.size(1),
    )
    TORCH_CHECK(
        input2.size(input2.dim() - 1) == weight.size(2),
        "bilinear(): input2 size does not match weight size: got ",
        input2.size(input2.dim() - 1),
        " but expected ",
        weight.size(2),
    )
    TORCH_CHECK(
        bias is None or bias.size(0) == weight.size(0),
        "bilinear(): bias size does not match weight size: got ",
        bias.size(0) if bias is not None else 0,
        " but expected ",
        weight.size(0),
    )
    output_size = [*input1.sizes()[:-1], weight.size(0)]
    input1_flattened = input1.reshape([-1, input1.size(-1)])
    input2_flattened = input2.reshape([-1, input2.size(-1)])
    output = at._trilinear(
        input1_flattened, weight, input2_flattened, [1, 3], [0], [1, 2], [2, 3]
    ).reshape(output_size)
    if bias is not None:
        output = at.add(output, bias)
    return output
