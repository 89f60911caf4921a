"""torch.fft's n-dimensional transforms (fftn, ifftn, rfftn, irfftn, hfftn, ihfftn and their
two-dimensional forms), fftfreq / rfftfreq and fftshift / ifftshift.

Mirrors the second half of `aten/src/ATen/native/SpectralOps.cpp`:
canonicalize_fft_shape_and_dim_args turns `s` and `dim` into the transformed dims and their
sizes (dims wrapped and unique, `s` of -1 meaning the input's size, dims defaulting to the last
len(s) or to all), and each transform resizes its input and calls one kernel, or for hfftn /
ihfftn a c2c kernel over all but the last dim and a c2r / r2c one over the last. The *2 ops
are the *n ops with dim=(-2, -1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.spectral_ops import (
    SPECTRAL,
    fft_c2c_maybe_out,
    fft_c2r_maybe_out,
    fft_r2c_maybe_out,
    norm_from_string,
    promote_tensor_fft,
    resize_fft_input,
)
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import isComplexType, isFloatingType

Shape = Sequence[int] | None


def canonicalize_fft_shape_and_dim_args(
    input: Tensor, shape: Shape, dim: Shape
) -> tuple[list[int], list[int]]:
    """(shape, dim) of the transform: wrapped unique dims, and each one's signal length."""
    input_dim = input.dim()
    input_sizes = list(input.sizes())
    ret_dim: list[int] = []
    if dim is not None:
        ret_dim = [maybe_wrap_dim(d, input_dim, wrap_scalar=False) for d in dim]
        TORCH_CHECK(len(set(ret_dim)) == len(ret_dim), "FFT dims must be unique")
    if shape is not None:
        TORCH_CHECK(
            dim is None or len(dim) == len(shape),
            "When given, dim and shape arguments must have the same length",
        )
        TORCH_CHECK(
            len(shape) <= input_dim,
            "Got shape with ",
            len(shape),
            " values but input tensor only has ",
            input_dim,
            " dimensions.",
        )
        transform_ndim = len(shape)
        if dim is None:  # the last len(shape) dims
            ret_dim = list(range(input_dim - transform_ndim, input_dim))
        ret_shape = [input_sizes[d] if n == -1 else n for n, d in zip(shape, ret_dim, strict=True)]
    elif dim is None:
        ret_dim = list(range(input_dim))
        ret_shape = input_sizes
    else:
        ret_shape = [input_sizes[d] for d in ret_dim]
    for n in ret_shape:
        TORCH_CHECK(n > 0, "Invalid number of data points (", n, ") specified")
    return ret_shape, ret_dim


def _fftn_c2c(
    function_name: str,
    out: Tensor | None,
    input: Tensor,
    shape: Sequence[int],
    dim: Sequence[int],
    norm_str: str | None,
    forward: bool,
) -> Tensor:
    TORCH_CHECK(
        input.is_complex(),
        function_name,
        " expects a complex input tensor, but got",
        input.scalar_type(),
    )
    x = resize_fft_input(input, dim, shape)
    norm = norm_from_string(norm_str, forward)
    return fft_c2c_maybe_out("fftn", out, x, dim, norm, forward)


def _fftn(
    name: str, out: Tensor | None, self: Tensor, s: Shape, dim: Shape, norm: str | None
) -> Tensor:
    shape, dims = canonicalize_fft_shape_and_dim_args(self, s, dim)
    input = promote_tensor_fft(self, require_complex=True)
    return _fftn_c2c(name, out, input, shape, dims, norm, forward=name == "fftn")


def _rfftn(out: Tensor | None, self: Tensor, s: Shape, dim: Shape, norm_str: str | None) -> Tensor:
    TORCH_CHECK(
        not self.is_complex(),
        "rfftn expects a real-valued input tensor, but got ",
        self.scalar_type(),
    )
    shape, dims = canonicalize_fft_shape_and_dim_args(self, s, dim)
    TORCH_CHECK(len(shape) > 0, "rfftn must transform at least one axis")
    input = promote_tensor_fft(self, require_complex=False)
    x = resize_fft_input(input, dims, shape)
    norm = norm_from_string(norm_str, forward=True)
    return fft_r2c_maybe_out("rfftn", out, x, dims, norm, onesided=True)


def _c2r_shape_and_dims(
    fname: str, self: Tensor, s: Shape, dim: Shape
) -> tuple[list[int], list[int], int]:
    """canonicalize_fft_c2r_shape_and_dim_args: and the output length of the last dim."""
    shape, dims = canonicalize_fft_shape_and_dim_args(self, s, dim)
    TORCH_CHECK(len(shape) > 0, fname, " must transform at least one axis")
    if s is None or s[-1] == -1:  # the default length in the hermitian dim
        last_dim_size = 2 * (self.size(dims[-1]) - 1)
    else:
        last_dim_size = shape[-1]
    TORCH_CHECK(last_dim_size >= 1, "Invalid number of data points (", last_dim_size, ") specified")
    shape[-1] = last_dim_size // 2 + 1  # the input length of the complex-hermitian data
    return shape, dims, last_dim_size


def _irfftn(out: Tensor | None, self: Tensor, s: Shape, dim: Shape, norm_str: str | None) -> Tensor:
    shape, dims, last_dim_size = _c2r_shape_and_dims("irfftn", self, s, dim)
    input = promote_tensor_fft(self, require_complex=True)
    x = resize_fft_input(input, dims, shape)
    norm = norm_from_string(norm_str, forward=False)
    return fft_c2r_maybe_out("irfftn", out, x, dims, norm, last_dim_size)


def _hfftn(out: Tensor | None, self: Tensor, s: Shape, dim: Shape, norm_str: str | None) -> Tensor:
    shape, dims, last_dim_size = _c2r_shape_and_dims("hfftn", self, s, dim)
    input = promote_tensor_fft(self, require_complex=True)
    x = resize_fft_input(input, dims, shape)
    norm = norm_from_string(norm_str, forward=True)
    tmp = at._fft_c2c(x, dims[:-1], norm, True) if len(dims) > 1 else x
    tmp = tmp.conj()
    return fft_c2r_maybe_out("hfftn", out, tmp, dims[-1:], norm, last_dim_size)


def _ihfftn(out: Tensor | None, self: Tensor, s: Shape, dim: Shape, norm_str: str | None) -> Tensor:
    shape, dims = canonicalize_fft_shape_and_dim_args(self, s, dim)
    TORCH_CHECK(len(shape) > 0, "ihfftn must transform at least one axis")
    input = promote_tensor_fft(self, require_complex=False)
    x = resize_fft_input(input, dims, shape)
    norm = norm_from_string(norm_str, forward=False)
    tmp = at._fft_r2c(x, dims[-1:], norm, True)
    if len(dims) == 1:
        return at.conj_physical(tmp, out=out) if out is not None else tmp.conj()
    tmp = at.conj_physical(tmp)
    return fft_c2c_maybe_out("ihfftn", out, tmp, dims[:-1], norm, False)


_IMPLS: dict[str, Any] = {
    "fft": lambda out, x, s, d, n: _fftn("fftn", out, x, s, d, n),
    "ifft": lambda out, x, s, d, n: _fftn("ifftn", out, x, s, d, n),
    "rfft": _rfftn,
    "irfft": _irfftn,
    "hfft": _hfftn,
    "ihfft": _ihfftn,
}


def _register(op: str) -> None:
    """fft_<op>n / fft_<op>2 (fft_fft2_symint is native::fft_fftn_symint with dim=(-2, -1))."""
    impl = _IMPLS[op]

    def functional(
        self: Tensor, s: Shape = None, dim: Shape = None, norm: str | None = None
    ) -> Tensor:
        return impl(None, self, s, dim, norm)  # type: ignore[no-any-return]

    def out_variant(self: Tensor, s: Shape, dim: Shape, norm: str | None, out: Tensor) -> Tensor:
        impl(out, self, s, dim, norm)
        return out

    def functional2(
        self: Tensor, s: Shape = None, dim: Sequence[int] = (-2, -1), norm: str | None = None
    ) -> Tensor:
        return impl(None, self, s, dim, norm)  # type: ignore[no-any-return]

    def out_variant2(
        self: Tensor, s: Shape, dim: Sequence[int], norm: str | None, out: Tensor
    ) -> Tensor:
        impl(out, self, s, dim, norm)
        return out

    for fn, name in (
        (functional, f"fft_{op}n_symint"),
        (out_variant, f"fft_{op}n_symint_out"),
        (functional2, f"fft_{op}2_symint"),
        (out_variant2, f"fft_{op}2_symint_out"),
    ):
        fn.__name__ = fn.__qualname__ = name
        native_function(SPECTRAL, name=name)(fn)


for _op in _IMPLS:
    _register(_op)


# ---- sample frequencies and shifts -------------------------------------------------------------
@native_function(SPECTRAL)
def fft_fftfreq_out(n: int, d: float, out: Tensor) -> Tensor:
    dtype = out.scalar_type()
    TORCH_CHECK(
        isFloatingType(dtype) or isComplexType(dtype),
        "fftfreq requires a floating point or complex dtype",
    )
    # TODO (torch's): arange doesn't have complex support
    at.arange(n, out=out)
    right_slice = out.slice(0, (n + 1) // 2, 0)
    at.arange(-(n // 2), 0, 1, out=right_slice)
    return out.mul_(1.0 / (n * d))  # slightly faster than div_(n*d)


@native_function(SPECTRAL)
def fft_fftfreq(
    n: int,
    d: float = 1.0,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool | None = None,
) -> Tensor:
    out = at.empty([n], dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return fft_fftfreq_out(n, d, out)


@native_function(SPECTRAL)
def fft_rfftfreq_out(n: int, d: float, out: Tensor) -> Tensor:
    dtype = out.scalar_type()
    TORCH_CHECK(
        isFloatingType(dtype) or isComplexType(dtype),
        "rfftfreq requires a floating point or complex dtype",
    )
    at.arange(n // 2 + 1, out=out)
    return out.mul_(1.0 / (n * d))


@native_function(SPECTRAL)
def fft_rfftfreq(
    n: int,
    d: float = 1.0,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool | None = None,
) -> Tensor:
    out = at.empty([n // 2 + 1], dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return fft_rfftfreq_out(n, d, out)


def _default_alldims(self: Tensor, dim_opt: Shape) -> list[int]:
    if dim_opt is not None:
        return [maybe_wrap_dim(d, self.dim(), wrap_scalar=False) for d in dim_opt]
    return list(range(self.dim()))


@native_function(SPECTRAL)
def fft_fftshift(self: Tensor, dim: Shape = None) -> Tensor:
    dims = _default_alldims(self, dim)
    return at.roll(self, [self.size(d) // 2 for d in dims], dims)


@native_function(SPECTRAL)
def fft_ifftshift(self: Tensor, dim: Shape = None) -> Tensor:
    dims = _default_alldims(self, dim)
    return at.roll(self, [(self.size(d) + 1) // 2 for d in dims], dims)
