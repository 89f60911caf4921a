"""pad, _pad_enum, constant_pad_nd and _pad_circular.

Mirrors `aten/src/ATen/native/PadNd.cpp`: torch.nn.functional.pad calls torch._C._nn.pad, whose
pad_symint turns the mode string into at::padding_mode and calls _pad_enum; mode 'constant' is
constant_pad_nd (negative pads narrow the input; positive ones make an output filled with the
value and copy the input into its narrowed middle), 'reflect' and 'replicate' are the
reflection_pad / replication_pad ops of padding.py, 'circular' is _pad_circular (slices of the
output copied from the input and from the output itself). `pad` lists (left, right) pairs from
the last dim backwards.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar import Scalar

SOURCE = "aten/src/ATen/native/PadNd.cpp"

# at::padding_mode (aten/src/ATen/PadNd.h)
_MODES = {"reflect": 0, "replicate": 1, "circular": 2, "constant": 3}
_MODE_NAMES = {v: k for k, v in _MODES.items()}


@native_function(SOURCE, name="constant_pad_nd")
def constant_pad_nd(self: Tensor, pad: Sequence[int], value: Scalar = 0) -> Tensor:
    pad = list(pad)
    TORCH_CHECK(len(pad) % 2 == 0, "Length of pad must be even but instead it equals ", len(pad))
    input_sizes = list(self.sizes())
    l_inp = self.dim()
    l_pad = len(pad) // 2
    l_diff = l_inp - l_pad
    TORCH_CHECK(
        l_inp >= l_pad,
        "Length of pad should be no more than twice the number of dimensions of the input. "
        "Pad length is ",
        len(pad),
        "while the input has ",
        l_inp,
        "dimensions.",
    )
    all_pads_non_positive = True
    c_input = self
    for i in range(l_diff, l_inp):
        pad_idx = 2 * (l_inp - i - 1)
        if pad[pad_idx] < 0:
            c_input = c_input.narrow(i, -pad[pad_idx], c_input.size(i) + pad[pad_idx])
        elif pad[pad_idx] != 0:
            all_pads_non_positive = False
        if pad[pad_idx + 1] < 0:
            c_input = c_input.narrow(i, 0, c_input.size(i) + pad[pad_idx + 1])
        elif pad[pad_idx + 1] != 0:
            all_pads_non_positive = False
    # with no positive pad the result is the narrowed input
    if all_pads_non_positive:
        return c_input.clone()
    new_shape = input_sizes[:l_diff]
    for i in range(l_pad):
        pad_idx = len(pad) - (i + 1) * 2
        new_dim = input_sizes[l_diff + i] + pad[pad_idx] + pad[pad_idx + 1]
        TORCH_CHECK(
            new_dim >= 0,
            "The input size ",
            input_sizes[l_diff + i],
            ", plus negative padding ",
            pad[pad_idx],
            " and ",
            pad[pad_idx + 1],
            " resulted in a negative output size, which is invalid. Check dimension ",
            l_diff + i,
            " of your input.",
        )
        new_shape.append(new_dim)
    output = at.empty(new_shape, dtype=self.scalar_type(), device=self.device())
    output.fill_(value)
    c_output = output
    for i in range(l_diff, l_inp):
        pad_idx = 2 * (l_inp - i - 1)
        if pad[pad_idx] > 0:
            c_output = c_output.narrow(i, pad[pad_idx], c_output.size(i) - pad[pad_idx])
        if pad[pad_idx + 1] > 0:
            c_output = c_output.narrow(i, 0, c_output.size(i) - pad[pad_idx + 1])
    c_output.copy_(c_input)
    return output


@native_function(SOURCE, name="_pad_circular_symint")
def _pad_circular_symint(self: Tensor, pad: Sequence[int]) -> Tensor:
    padding = list(pad)
    in_shape = list(self.sizes())
    self_ndim = len(in_shape)
    # number of dimensions that are padded
    ndim = len(padding) // 2
    # number of preceding non-padded dimensions (1 for no-batch-dim case or 2)
    lead = self_ndim - ndim
    TORCH_CHECK(
        lead == 1 or lead == 2,
        "Invalid padding size, expected 1 or 2 non-padded dimensions, which would be "
        "equivalent to padding of length ",
        (self_ndim - 1) * 2,
        " or ",
        (self_ndim - 2) * 2,
        " respectively but got ",
        len(padding),
    )
    out_shape = in_shape[:lead] + [0] * ndim
    for i in range(ndim):
        pad_l = padding[2 * (ndim - i - 1)]
        pad_r = padding[2 * (ndim - i - 1) + 1]
        size = in_shape[lead + i]
        out_shape[lead + i] = size + pad_l + pad_r
        TORCH_CHECK(
            pad_l <= size and pad_r <= size,
            "Padding value causes wrapping around more than once.",
        )
        TORCH_CHECK(
            out_shape[lead + i] >= 0, "Negative padding value is resulting in an empty dimension"
        )
    out = self.new_empty(out_shape)
    # the input goes into the middle of the output
    out_slice, in_slice = out, self
    for i in range(ndim):
        dim = ndim - i + lead - 1
        pad_l, pad_r = padding[2 * i], padding[2 * i + 1]
        out_slice = out_slice.slice(dim, max(pad_l, 0), out_shape[dim] - max(pad_r, 0))
        in_slice = in_slice.slice(dim, max(-pad_l, 0), in_shape[dim] - max(-pad_r, 0))
    out_slice.copy_(in_slice)
    # then the left and the right pads, from the output itself (corners are written twice)
    for i in range(ndim):
        dim = ndim - i + lead - 1
        pad_l, pad_r = padding[2 * i], padding[2 * i + 1]
        if pad_l > 0:
            out_slice = out.slice(dim, 0, pad_l)
            in_slice = out.slice(
                dim, out_shape[dim] - pad_l - max(pad_r, 0), out_shape[dim] - max(pad_r, 0)
            )
            out_slice.copy_(in_slice)
        if pad_r > 0:
            out_slice = out.slice(dim, out_shape[dim] - pad_r, out_shape[dim])
            in_slice = out.slice(dim, max(pad_l, 0), max(pad_l, 0) + pad_r)
            out_slice.copy_(in_slice)
    return out


@native_function(SOURCE, name="_pad_enum_symint")
def _pad_enum_symint(
    self: Tensor, pad: Sequence[int], mode: int, value: float | None = None
) -> Tensor:
    pad = list(pad)
    input_dim = self.dim()
    TORCH_CHECK(len(pad) % 2 == 0, "Padding length must be divisible by 2")
    TORCH_CHECK(
        len(pad) <= input_dim * 2,
        "Padding length should be less than or equal to two times the input dimension but got "
        "padding length ",
        len(pad),
        " and input of dimension ",
        input_dim,
    )
    if mode == _MODES["constant"]:
        return at.constant_pad_nd(self, pad, 0.0 if value is None else value)
    TORCH_CHECK(
        value is None or value == 0,
        'Padding mode "',
        _MODE_NAMES[mode],
        "\" doesn't take in value argument",
    )
    ops = {
        1: (at.reflection_pad1d, at.replication_pad1d),
        2: (at.reflection_pad2d, at.replication_pad2d),
        3: (at.reflection_pad3d, at.replication_pad3d),
    }
    n = len(pad) // 2
    if n in (1, 2, 3) and input_dim in (n + 1, n + 2):
        if mode == _MODES["circular"]:
            return at._pad_circular(self, pad)
        return ops[n][0 if mode == _MODES["reflect"] else 1](self, pad)
    TORCH_CHECK_NOT_IMPLEMENTED(
        False,
        "Padding size ",
        len(pad),
        " is not supported for ",
        input_dim,
        "D input tensor.\nSupported combinations for non-constant padding:\n"
        "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
        "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
        "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)",
    )
    raise AssertionError  # unreachable


@native_function(SOURCE, name="pad_symint")
def pad_symint(
    self: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None
) -> Tensor:
    TORCH_CHECK_NOT_IMPLEMENTED(mode in _MODES, "Unrecognised padding mode ", mode)
    return _pad_enum_symint(self, pad, _MODES[mode], value)
