"""arange, linspace and logspace: tensors of evenly spaced values (or powers of them).

Mirrors `aten/src/ATen/native/RangeFactories.cpp` (arange_out, linspace_out: compute the size,
`resize_` the output, run the stub over a nullary TensorIterator) and the functional wrappers of
`aten/src/ATen/native/TensorFactories.cpp` (arange infers int64 when start, end and step are all
integral and no dtype is given; both make an empty tensor and call the out= op, so torch.profiler
shows `aten::arange > aten::empty, aten::arange > aten::resize_`). logspace_out computes its
values in its own loop, as RangeFactories.cpp does: base ** (start + step * i) for the first
half, base ** (end - step * (steps - i - 1)) for the rest, in double (complex: in the type).
"""

from __future__ import annotations

import math
import warnings
from typing import cast

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIterator
from tensortrace.c10.default_dtype import get_default_complex_dtype, get_default_dtype
from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar import Scalar, checked_convert, isIntegral, toDouble
from tensortrace.c10.scalar_type import ScalarType, isComplexType, isFloatingType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/RangeFactories.cpp"
FACTORIES = "aten/src/ATen/native/TensorFactories.cpp"

arange_stub = DECLARE_DISPATCH("arange_stub", "aten/src/ATen/native/RangeFactories.h")
linspace_stub = DECLARE_DISPATCH("linspace_stub", "aten/src/ATen/native/RangeFactories.h")


def _acc_type(st: ScalarType) -> ScalarType:
    """at::acc_type<scalar_t, /*is_cuda=*/false>: double for float/double, float for half
    and bfloat16, int64 for the integral types."""
    if st in (ScalarType.Float, ScalarType.Double):
        return ScalarType.Double
    if st in (ScalarType.Half, ScalarType.BFloat16):
        return ScalarType.Float
    return ScalarType.Long


def _fmt(value: Scalar) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


@native_function(FACTORIES, name="arange", legacy="at::native::arange")
def arange(
    end: Scalar,
    start: Scalar = 0,
    step: Scalar = 1,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    set_to_integral_dtype = (
        dtype is None
        and isIntegral(start, True)
        and isIntegral(end, True)
        and isIntegral(step, True)
    )
    result = at.empty(
        [0],
        dtype=ScalarType.Long if set_to_integral_dtype else dtype,
        layout=layout,
        device=device,
        pin_memory=pin_memory,
    )
    return at.arange(start, end, step, out=result)


@native_function(FACTORIES, name="arange_end_out", legacy="at::native::arange_out")
def arange_end_out(end: Scalar, out: Tensor) -> Tensor:
    return at.arange(0, end, 1, out=out)


def compute_arange_size(start: Scalar, end: Scalar, step: Scalar, st: ScalarType) -> int:
    """RangeUtils.h: the checks, then ceil((end - start) / step) (exact for int64)."""
    acc = _acc_type(st)
    # acc is int64_t or double: arange refused complex dtypes before this
    xstart, xend, xstep = (cast(float, checked_convert(v, acc)) for v in (start, end, step))
    TORCH_CHECK(xstep > 0 or xstep < 0, "step must be nonzero")
    TORCH_CHECK(
        math.isfinite(xstart) and math.isfinite(xend),
        "unsupported range: ",
        _fmt(xstart),
        " -> ",
        _fmt(xend),
    )
    TORCH_CHECK(
        (xstep > 0 and xend >= xstart) or (xstep < 0 and xend <= xstart),
        "upper bound and lower bound inconsistent with step sign",
    )
    if st == ScalarType.Long:
        sgn = (xstep > 0) - (xstep < 0)
        # C++ integer division truncates toward zero
        num = xend - xstart + xstep - sgn
        size_d = float(abs(num) // abs(xstep) * (1 if (num >= 0) == (xstep > 0) else -1))
    else:
        size_d = math.ceil((toDouble(end) - toDouble(start)) / toDouble(step))
    TORCH_CHECK(0 <= size_d <= float(2**63 - 1), "invalid size, possible overflow?")
    return int(size_d)


@native_function(SOURCE, name="arange_out", legacy="THTensor_(arange)")
def arange_out(start: Scalar, end: Scalar, step: Scalar = 1, out: Tensor | None = None) -> Tensor:
    assert out is not None
    st = out.scalar_type()
    # AT_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16): no bool, no complex
    TORCH_CHECK_NOT_IMPLEMENTED(
        st != ScalarType.Bool and not isComplexType(st),
        '"arange_cpu" not implemented for \'',
        st,
        "'",
    )
    size = compute_arange_size(start, end, step, st)
    numel = out.numel()
    if numel != size:
        if numel > 0:
            warnings.warn(
                f"The number of elements in the out tensor of shape "
                f"{list(out.sizes())} is {numel} which does not match the computed "
                f"number of elements {size}. Note that this may occur as a result of "
                f"rounding error. The out tensor will be resized to a tensor of shape "
                f"({size},).",
                UserWarning,
                stacklevel=2,
            )
        out.resize_([size])
    if out.is_meta():
        return out
    if size:
        it = TensorIterator.borrowing_nullary_op(out)
        arange_stub(it.device_type(), it, start, size, step)
    return out


def _linspace_scalars(
    start: Scalar | Tensor, end: Scalar | Tensor, name: str = "linspace"
) -> tuple[Scalar, Scalar]:
    """The C++ overloads linspace(Tensor start, Tensor end, ...), (Tensor, Scalar) and
    (Scalar, Tensor) of TensorFactories.cpp / RangeFactories.cpp: 0-dim tensors only, read with
    item(), then the Scalar overload."""
    start_is_tensor, end_is_tensor = isinstance(start, Tensor), isinstance(end, Tensor)
    if start_is_tensor and end_is_tensor:
        start_t, end_t = cast(Tensor, start), cast(Tensor, end)
        TORCH_CHECK(
            start_t.dim() == 0 and end_t.dim() == 0,
            name,
            " only supports 0-dimensional start and end tensors, but got start with ",
            start_t.dim(),
            " dimension(s) and end with ",
            end_t.dim(),
            " dimension(s).",
        )
    elif start_is_tensor:
        start_t = cast(Tensor, start)
        TORCH_CHECK(
            start_t.dim() == 0,
            name,
            " only supports 0-dimensional start and end tensors, but got start with ",
            start_t.dim(),
            " dimension(s).",
        )
    elif end_is_tensor:
        end_t = cast(Tensor, end)
        TORCH_CHECK(
            end_t.dim() == 0,
            name,
            " only supports 0-dimensional start and end tensors, but got end with ",
            end_t.dim(),
            " dimension(s).",
        )
    return (
        cast(Tensor, start).item() if start_is_tensor else cast(Scalar, start),
        cast(Tensor, end).item() if end_is_tensor else cast(Scalar, end),
    )


@native_function(FACTORIES, name="linspace", legacy="at::native::linspace")
def linspace(
    start: Scalar | Tensor,
    end: Scalar | Tensor,
    steps: int,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    if isinstance(start, Tensor) or isinstance(end, Tensor):
        start, end = _linspace_scalars(start, end)
        return at.linspace(
            start, end, steps, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory
        )
    TORCH_CHECK(steps >= 0, "number of steps must be non-negative")
    result = at.empty([steps], dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return at.linspace(start, end, steps, out=result)


@native_function(SOURCE, name="linspace_out", legacy="THTensor_(linspace)")
def linspace_out(
    start: Scalar | Tensor, end: Scalar | Tensor, steps: int, out: Tensor | None = None
) -> Tensor:
    assert out is not None
    if isinstance(start, Tensor) or isinstance(end, Tensor):
        start, end = _linspace_scalars(start, end)
        return cast(Tensor, at.linspace(start, end, steps, out=out))
    TORCH_CHECK(steps >= 0, "number of steps must be non-negative")
    if out.numel() != steps:
        out.resize_([steps])
    if out.is_meta():
        return out
    if steps == 1:
        out.fill_(start)
    elif steps > 1:
        it = TensorIterator.borrowing_nullary_op(out)
        linspace_stub(it.device_type(), it, start, end, steps)
    return out


@native_function(FACTORIES, name="logspace", legacy="at::native::logspace")
def logspace(
    start: Scalar | Tensor,
    end: Scalar | Tensor,
    steps: int,
    base: float = 10.0,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    if isinstance(start, Tensor) or isinstance(end, Tensor):
        start, end = _linspace_scalars(start, end, "logspace")
        return at.logspace(
            start,
            end,
            steps,
            base,
            dtype=dtype,
            layout=layout,
            device=device,
            pin_memory=pin_memory,
        )
    TORCH_CHECK(steps >= 0, "number of steps must be non-negative")
    dtype = linspace_logspace_infer_dtype(start, end, dtype, "torch.logspace()")
    result = at.empty([steps], dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return at.logspace(start, end, steps, base, out=result)


def linspace_logspace_infer_dtype(
    start: Scalar, end: Scalar, dtype: ScalarType | None, fn_name: str
) -> ScalarType:
    """linspace_logspace_infer_options: a complex start or end makes the default complex."""
    if isinstance(start, complex) or isinstance(end, complex):
        default_complex_dtype = get_default_complex_dtype()
        if dtype is None:
            return default_complex_dtype
        TORCH_CHECK(
            isComplexType(dtype),
            fn_name,
            ": inferred dtype ",
            _cpp_type_name(default_complex_dtype),
            " can't be safely cast to passed dtype ",
            dtype,
        )
        return dtype
    return dtype if dtype is not None else get_default_dtype()


def _cpp_type_name(dtype: ScalarType) -> str:
    """How c10 prints a complex dtype's TypeMeta: c10::complex<float>."""
    return "c10::complex<double>" if dtype == ScalarType.ComplexDouble else "c10::complex<float>"


@traced("kernel", "at::native::logspace_out (loop)", SOURCE)
def logspace_loop(r: Tensor, start: Scalar, end: Scalar, steps: int, base: float) -> None:
    out = r.numpy_view()
    st = r.scalar_type()
    i = np.arange(steps)
    halfway = steps // 2
    with np.errstate(all="ignore"):
        if isComplexType(st):
            ctype = out.dtype.type
            b, s0, s1 = ctype(base), ctype(complex(start)), ctype(complex(end))
            step = (s1 - s0) / ctype(steps - 1)
            exponent = np.where(i < halfway, s0 + step * i, s1 - step * (steps - i - 1))
            out[...] = np.power(b, exponent.astype(out.dtype))
            return
        if isFloatingType(st):
            s0 = float(out.dtype.type(start))  # start.to<scalar_t>()
            s1 = float(out.dtype.type(end))
            b = float(base)
        else:  # integral: the base is a float, the exponents truncated to the type
            s0 = int(toDouble(checked_convert(start, st)))  # start.to<scalar_t>()
            s1 = int(toDouble(checked_convert(end, st)))
            b = float(np.float32(base))
        step = (s1 - s0) / (steps - 1)
        exponent = np.where(i < halfway, s0 + step * i, s1 - step * (steps - i - 1))
        out[...] = np.power(np.float64(b), exponent).astype(out.dtype)


@native_function(SOURCE, name="logspace_out", legacy="THTensor_(logspace)")
def logspace_out(
    start: Scalar | Tensor,
    end: Scalar | Tensor,
    steps: int,
    base: float = 10.0,
    out: Tensor | None = None,
) -> Tensor:
    assert out is not None
    if isinstance(start, Tensor) or isinstance(end, Tensor):
        start, end = _linspace_scalars(start, end, "logspace")
        return cast(Tensor, at.logspace(start, end, steps, base, out=out))
    TORCH_CHECK(steps >= 0, "number of steps must be non-negative")
    if out.numel() != steps:
        out.resize_([steps])
    if out.is_meta():
        return out
    r = out if out.is_contiguous() else out.contiguous()
    if steps == 1:
        if isComplexType(r.scalar_type()):
            r.fill_(complex(base) ** complex(start))
        else:
            r.fill_(math.pow(base, toDouble(start)))
    elif steps > 1:
        logspace_loop(r, start, end, steps, base)
    if not out.is_contiguous():
        out.copy_(r)
    return out


__all__ = [
    "arange",
    "arange_out",
    "compute_arange_size",
    "isFloatingType",
    "linspace",
    "linspace_out",
    "logspace",
    "logspace_out",
]
