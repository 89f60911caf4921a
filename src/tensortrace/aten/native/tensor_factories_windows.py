"""The window functions: bartlett_window, blackman_window, hamming_window, hann_window and
kaiser_window (torch.stft's windows).

Mirrors `aten/src/ATen/native/TensorFactories.cpp`: window_function_checks (a floating or
complex dtype, a non-negative length; the message prints the TensorOptions), length 0 is empty
and length 1 is ones, a periodic window is the symmetric window of length + 1 without its last
point; each is computed in place on an arange (hann is hamming with alpha = beta = 1/2), and
kaiser_window runs kaiser_window_stub over the arange
(I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (N - 1) / 2; the kernel is in
cpu/unary_special_ops_kernel.py).
"""

from __future__ import annotations

import math
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIterator
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isComplexType, isFloatingType

SOURCE = "aten/src/ATen/native/TensorFactories.cpp"

kaiser_window_stub = DECLARE_DISPATCH("kaiser_window_stub", "aten/src/ATen/native/UnaryOps.h")

# caffe2::TypeMeta::name(), as TensorOptions prints its dtype (GCC's names of the C++ types)
_TYPE_META_NAMES: dict[ScalarType, str] = {
    ScalarType.Byte: "unsigned char",
    ScalarType.Char: "signed char",
    ScalarType.Short: "short int",
    ScalarType.Int: "int",
    ScalarType.Long: "long int",
    ScalarType.Half: "c10::Half",
    ScalarType.Float: "float",
    ScalarType.Double: "double",
    ScalarType.Bool: "bool",
    ScalarType.BFloat16: "c10::BFloat16",
    ScalarType.ComplexHalf: "c10::complex<c10::Half>",
    ScalarType.ComplexFloat: "c10::complex<float>",
    ScalarType.ComplexDouble: "c10::complex<double>",
}


def _options_repr(dtype: ScalarType | None, layout: Any, device: Any, pin_memory: Any) -> str:
    """operator<<(TensorOptions): the fields not given say (default)."""
    dtype_s = (
        f"{_TYPE_META_NAMES[get_default_dtype()]} (default)"
        if dtype is None
        else _TYPE_META_NAMES[dtype]
    )
    device_s = "cpu (default)" if device is None else str(device)
    layout_s = "Strided (default)" if layout is None else "Strided"
    pin_s = "false (default)" if pin_memory is None else str(bool(pin_memory)).lower()
    return (
        f"TensorOptions(dtype={dtype_s}, device={device_s}, layout={layout_s}, "
        f"requires_grad=false (default), pinned_memory={pin_s}, memory_format=(nullopt))"
    )


def window_function_checks(
    function_name: str,
    window_length: int,
    dtype: ScalarType | None,
    layout: Any,
    device: Any,
    pin_memory: Any,
) -> None:
    st = dtype if dtype is not None else get_default_dtype()
    TORCH_CHECK(
        isFloatingType(st) or isComplexType(st),
        function_name,
        " expects floating point dtypes, got: ",
        _options_repr(dtype, layout, device, pin_memory),
    )
    TORCH_CHECK(
        window_length >= 0,
        function_name,
        " requires non-negative window_length, got window_length=",
        window_length,
    )


def _options(dtype: Any, layout: Any, device: Any, pin_memory: Any) -> dict[str, Any]:
    """torch's binding gives a factory the default dtype (scalartypeWithDefault): the arange
    below must not infer an integer one."""
    dtype = get_default_dtype() if dtype is None else dtype
    return {"dtype": dtype, "layout": layout, "device": device, "pin_memory": pin_memory}


def _short(window_length: int, options: dict[str, Any]) -> Tensor | None:
    """Length 0 is empty, length 1 is [1]."""
    if window_length == 0:
        return at.empty([0], **options)  # type: ignore[no-any-return]
    if window_length == 1:
        return at.ones([1], **options)  # type: ignore[no-any-return]
    return None


@native_function(SOURCE)
def bartlett_window(
    window_length: int,
    periodic: bool = True,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
) -> Tensor:
    window_function_checks("bartlett_window", window_length, dtype, layout, device, pin_memory)
    options = _options(dtype, layout, device, pin_memory)
    short = _short(window_length, options)
    if short is not None:
        return short
    if periodic:
        window_length += 1
    window = at.arange(window_length, **options).mul_(2.0 / (window_length - 1))
    first_half_size = ((window_length - 1) >> 1) + 1
    window.narrow(0, first_half_size, window_length - first_half_size).mul_(-1).add_(2)
    return window.narrow(0, 0, window_length - 1) if periodic else window


@native_function(SOURCE)
def blackman_window(
    window_length: int,
    periodic: bool = True,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
) -> Tensor:
    window_function_checks("blackman_window", window_length, dtype, layout, device, pin_memory)
    options = _options(dtype, layout, device, pin_memory)
    short = _short(window_length, options)
    if short is not None:
        return short
    if periodic:
        window_length += 1
    # https://en.wikipedia.org/wiki/Window_function#Blackman_window
    window = at.arange(window_length, **options).mul_(math.pi / (window_length - 1))
    window = window.mul(4).cos_().mul_(0.08).sub(window.mul(2).cos_().mul_(0.5)).add(0.42)
    return window.narrow(0, 0, window_length - 1) if periodic else window


@native_function(SOURCE)
def hamming_window(
    window_length: int,
    periodic: bool = True,
    alpha: float = 0.54,
    beta: float = 0.46,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
) -> Tensor:
    """hamming_window and its .periodic / .periodic_alpha / .periodic_alpha_beta overloads."""
    window_function_checks("hamming_window", window_length, dtype, layout, device, pin_memory)
    options = _options(dtype, layout, device, pin_memory)
    short = _short(window_length, options)
    if short is not None:
        return short
    if periodic:
        window_length += 1
    window = at.arange(window_length, **options)
    window.mul_(math.pi * 2.0 / (window_length - 1)).cos_().mul_(-beta).add_(alpha)
    return window.narrow(0, 0, window_length - 1) if periodic else window


@native_function(SOURCE)
def hann_window(
    window_length: int,
    periodic: bool = True,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
) -> Tensor:
    window_function_checks("hann_window", window_length, dtype, layout, device, pin_memory)
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype, layout, device, pin_memory)


@native_function(SOURCE)
def kaiser_window(
    window_length: int,
    periodic: bool = True,
    beta: float = 12.0,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
) -> Tensor:
    """kaiser_window and its .periodic / .beta overloads."""
    window_function_checks("kaiser_window", window_length, dtype, layout, device, pin_memory)
    options = _options(dtype, layout, device, pin_memory)
    short = _short(window_length, options)
    if short is not None:
        return short
    if periodic:
        window_length += 1
    initial = at.arange(window_length, **options)
    window = at.empty([window_length], **options)
    it = TensorIterator.unary_op(window, initial)
    kaiser_window_stub(it.device_type(), it, window_length, beta)
    return window.narrow(0, 0, window_length - 1) if periodic else window
