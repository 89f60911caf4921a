"""copy_, _to_copy and to(dtype): converting and copying through TensorIterator.

Mirrors `aten/src/ATen/native/Copy.cpp` (copy_, copy_impl, copy_stub) and
`aten/src/ATen/native/TensorConversions.cpp` (_to_copy, to). `to` returns the tensor itself when
nothing would change; otherwise `_to_copy` makes an empty_strided tensor with the source's
strides and copies into it, which is exactly the `aten::to > aten::_to_copy > (aten::empty_strided,
aten::copy_)` tree torch.profiler shows for a type promotion.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.memory_overlap import is_non_overlapping_and_dense
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.tensor_shape_adjoint import TORCH_WARN_ONCE
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorConfig
from tensortrace.c10.cuda import cuda_functions
from tensortrace.c10.device import Device, DeviceType
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/Copy.cpp"
CONVERSIONS = "aten/src/ATen/native/TensorConversions.cpp"

copy_stub = DECLARE_DISPATCH("copy_stub", "aten/src/ATen/native/Copy.h")


@native_function(SOURCE, name="copy_")
def copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    TORCH_CHECK(self.defined(), "self is undefined")
    TORCH_CHECK(src.defined(), "src is undefined")
    if self.is_same(src):
        return self
    # Copies into meta self are OK and just ignored (similar to inplace)
    if self.is_meta():
        shape = infer_size(self.sizes(), src.sizes())
        TORCH_CHECK(
            tuple(self.sizes()) == shape,
            "output with shape ",
            list(self.sizes()),
            " doesn't match the broadcast shape ",
            list(shape),
        )
        return self
    if src.is_meta():
        TORCH_CHECK_NOT_IMPLEMENTED(False, "Cannot copy out of meta tensor; no data!")
    if self.numel() == 0:
        return self
    it = (
        TensorIteratorConfig()
        .add_output(self)
        .add_const_input(src)
        .resize_outputs(False)
        .check_all_same_dtype(False)
        .check_all_same_device(False)
        .build()
    )
    if not self.is_complex() and src.is_complex():
        TORCH_WARN_ONCE("Casting complex values to real discards the imaginary part")
    # a copy that involves the GPU runs the CUDA kernel, whichever side the GPU is on
    device_type = DeviceType.CUDA if src.device().is_cuda() else self.device().type_
    copy_stub(device_type, it, non_blocking)
    return self


@native_function(CONVERSIONS, name="_to_copy")
def _to_copy(
    self: Tensor,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
    non_blocking: bool = False,
    memory_format: str | None = None,
) -> Tensor:
    dtype = dtype if dtype is not None else self.scalar_type()
    device = device if device is not None else self.device()  # self.options().merge_in(...)
    if memory_format in (None, "preserve_format") and is_non_overlapping_and_dense(
        self.sizes(), self.strides()
    ):
        r = at.empty_strided(
            list(self.sizes()),
            list(self.strides()),
            dtype=dtype,
            layout=layout,
            device=device,
            pin_memory=pin_memory,
        )
    else:
        r = at.empty(
            list(self.sizes()), dtype=dtype, layout=layout, device=device, pin_memory=pin_memory
        )
    r.copy_(self, non_blocking)
    return r


def ensure_has_index(device: Device | None) -> Device | None:
    """TensorConversions.cpp's ensure_has_index: a CUDA device without an index is the current
    one (`x.to('cuda')` of a cuda:0 tensor aliases it); the CPU and the meta device keep none."""
    if device is None or not device.is_cuda() or device.has_index():
        return device
    return Device(DeviceType.CUDA, cuda_functions.current_device())


def to_will_alias(
    self: Tensor,
    dtype: ScalarType | None,
    layout: str | None,
    device: Device | None,
    copy: bool,
    memory_format: str | None,
) -> bool:
    """Nothing would change: same dtype, layout and device, no copy asked, any memory format."""
    return (
        (dtype is None or dtype == self.scalar_type())
        and layout in (None, "strided")
        and (device is None or device == self.device())
        and not copy
        # suggest_memory_format() of a strided (not channels-last) tensor is contiguous
        and memory_format in (None, "preserve_format", "contiguous_format")
    )


@native_function(CONVERSIONS, name="to")
def to(
    self: Tensor,
    dtype: ScalarType | None = None,
    non_blocking: bool = False,
    copy: bool = False,
    memory_format: str | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
    other: Tensor | None = None,
) -> Tensor:
    """to.dtype, to.dtype_layout, to.device and to.other (C++ overloads of one to_impl).

    Returns self when to_will_alias, otherwise an _to_copy.
    """
    if other is not None:  # to.other: the other tensor's options
        dtype, layout, device = other.scalar_type(), "strided", other.device()
    device = ensure_has_index(device)
    if to_will_alias(self, dtype, layout, device, copy, memory_format):
        return self
    return at._to_copy(
        self,
        dtype=dtype,
        layout=layout,
        device=device,
        pin_memory=pin_memory,
        non_blocking=non_blocking,
        memory_format=memory_format,
    )
