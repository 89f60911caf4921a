"""torch.fft's one-dimensional transforms: fft, ifft, rfft, irfft, hfft, ihfft (and their out=).

Mirrors `aten/src/ATen/native/SpectralOps.cpp`: the `fft_*` ops are CompositeImplicitAutograd
over three kernels, `_fft_r2c` (real to complex), `_fft_c2r` (complex to real) and `_fft_c2c`
(spectral_ops_mkl.py), so autograd and the trace see those. Inputs are promoted as
promote_type_fft says (integers to the default float, half an error on the CPU), `n` zero-pads
or slices the signal (resize_fft_input) and `norm` is NumPy's ("backward", "ortho",
"forward"), read by direction (norm_from_string). An inverse real-to-complex transform is the
conjugate of the forward one, and a forward complex-to-real one conjugates its input first.
The n-dimensional transforms, fftfreq and fftshift are in spectral_ops_nd.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isComplexType, isFloatingType

SPECTRAL = "aten/src/ATen/native/SpectralOps.cpp"

# fft_norm_mode (SpectralOpsUtils.h)
NONE, BY_ROOT_N, BY_N = 0, 1, 2


def promote_type_fft(type: ScalarType, require_complex: bool, device_is_cuda: bool) -> ScalarType:
    """Integers become the default float; only CUDA transforms half; complex when required."""
    if isComplexType(type):
        return type
    if not isFloatingType(type):
        type = get_default_dtype()
    allowed: tuple[ScalarType, ...] = (ScalarType.Float, ScalarType.Double)
    if device_is_cuda:  # only cuFFT transforms half
        allowed = (ScalarType.Half, *allowed)
    TORCH_CHECK(type in allowed, "Unsupported dtype ", type)
    if not require_complex:
        return type
    return {
        ScalarType.Half: ScalarType.ComplexHalf,
        ScalarType.Float: ScalarType.ComplexFloat,
        ScalarType.Double: ScalarType.ComplexDouble,
    }[type]


def promote_tensor_fft(t: Tensor, require_complex: bool = False) -> Tensor:
    cur_type = t.scalar_type()
    new_type = promote_type_fft(cur_type, require_complex, t.device().is_cuda())
    return t if cur_type == new_type else t.to(new_type)


def norm_from_string(norm: str | None, forward: bool) -> int:
    """NumPy's modes mean a direction: "forward" scales the forward transform by 1/n."""
    if norm is None or norm == "backward":
        return NONE if forward else BY_N
    if norm == "forward":
        return BY_N if forward else NONE
    if norm == "ortho":
        return BY_ROOT_N
    TORCH_CHECK(False, 'Invalid normalization mode: "', norm, '"')
    raise AssertionError  # unreachable: TORCH_CHECK(False) raises


def resize_fft_input(x: Tensor, dims: Sequence[int], sizes: Sequence[int]) -> Tensor:
    """Make x.size(dims[i]) == sizes[i]: zero-pad (one constant_pad_nd) or slice from 0."""
    must_copy = False
    x_sizes = list(x.sizes())
    pad_amount = [0] * (len(x_sizes) * 2)
    for d, size in zip(dims, sizes, strict=True):
        if size == -1:
            continue
        if x_sizes[d] < size:
            must_copy = True
            pad_amount[len(pad_amount) - 2 * d - 1] = size - x_sizes[d]
        if x_sizes[d] > size:
            x = x.slice(d, 0, size)
    # only pad when needed: pad copies the whole tensor
    return at.constant_pad_nd(x, pad_amount) if must_copy else x


def fft_r2c_maybe_out(
    fname: str, out: Tensor | None, input: Tensor, dim: Sequence[int], norm: int, onesided: bool
) -> Tensor:
    if out is not None:
        TORCH_CHECK(
            out.is_complex(), fname, " expects a complex output tensor, but got ", out.scalar_type()
        )
        return at._fft_r2c(input, list(dim), norm, onesided, out=out)
    return at._fft_r2c(input, list(dim), norm, onesided)


def fft_c2r_maybe_out(
    fname: str, out: Tensor | None, input: Tensor, dim: Sequence[int], norm: int, last_dim_size: int
) -> Tensor:
    # the functional variant unless out= is given, so that autograd works
    if out is not None:
        TORCH_CHECK(
            out.is_floating_point(),
            fname,
            " expects a floating point output tensor, but got ",
            out.scalar_type(),
        )
        return at._fft_c2r(input, list(dim), norm, last_dim_size, out=out)
    return at._fft_c2r(input, list(dim), norm, last_dim_size)


def fft_c2c_maybe_out(
    fname: str, out: Tensor | None, input: Tensor, dim: Sequence[int], norm: int, forward: bool
) -> Tensor:
    if out is not None:
        TORCH_CHECK(
            out.is_complex(), fname, " expects a complex output tensor, but got ", out.scalar_type()
        )
        return at._fft_c2c(input, list(dim), norm, forward, out=out)
    return at._fft_c2c(input, list(dim), norm, forward)


def fft_c2r(
    function_name: str,
    out: Tensor | None,
    input: Tensor,
    n_opt: int | None,
    unwrapped_dim: int,
    norm_str: str | None,
    forward: bool,
) -> Tensor:
    """Complex to real FFT."""
    TORCH_CHECK(
        out is None or out.is_floating_point(),
        function_name,
        " expects a floating point output tensor, but got ",
        None if out is None else out.scalar_type(),
    )
    input = promote_tensor_fft(input, require_complex=True)
    dim = maybe_wrap_dim(unwrapped_dim, input.dim(), wrap_scalar=False)
    n = n_opt if n_opt is not None else 2 * (input.size(dim) - 1)
    TORCH_CHECK(n >= 1, "Invalid number of data points (", n, ") specified")
    if n_opt is not None:
        input = resize_fft_input(input, [dim], [n // 2 + 1])
    norm = norm_from_string(norm_str, forward)
    if forward:
        # FIXME (torch's): _fft does not support complex_output=false with inverse=false
        input = input.conj()
    return fft_c2r_maybe_out(function_name, out, input, [dim], norm, n)


def fft_r2c(
    function_name: str,
    out: Tensor | None,
    input: Tensor,
    n_opt: int | None,
    unwrapped_dim: int,
    norm_str: str | None,
    forward: bool,
    onesided: bool,
) -> Tensor:
    """Real to complex FFT."""
    TORCH_CHECK(
        not input.is_complex(),
        function_name,
        " expects a real input tensor, but got ",
        input.scalar_type(),
    )
    TORCH_CHECK(
        out is None or out.is_complex(),
        function_name,
        " expects a complex output tensor, but got ",
        None if out is None else out.scalar_type(),
    )
    input = promote_tensor_fft(input)
    dim = maybe_wrap_dim(unwrapped_dim, input.dim(), wrap_scalar=False)
    n = n_opt if n_opt is not None else input.size(dim)
    TORCH_CHECK(n >= 1, "Invalid number of data points (", n, ") specified")
    if n_opt is not None:
        input = resize_fft_input(input, [dim], [n])
    norm = norm_from_string(norm_str, forward)
    if out is not None and forward:
        ret = at._fft_r2c(input, [dim], norm, onesided, out=out)
    else:
        ret = at._fft_r2c(input, [dim], norm, onesided)
    if not forward:
        # FIXME (torch's): _fft_r2c doesn't support native r2c IFFT
        return at.conj_physical(ret, out=out) if out is not None else ret.conj()
    return ret


def fft_c2c(
    function_name: str,
    out: Tensor | None,
    input: Tensor,
    n_opt: int | None,
    unwrapped_dim: int,
    norm_str: str | None,
    forward: bool,
) -> Tensor:
    """Complex to complex FFT."""
    TORCH_CHECK(
        input.is_complex(),
        function_name,
        " expects a complex input tensor, but got ",
        input.scalar_type(),
    )
    dim = maybe_wrap_dim(unwrapped_dim, input.dim(), wrap_scalar=False)
    n = n_opt if n_opt is not None else input.size(dim)
    TORCH_CHECK(n >= 1, "Invalid number of data points (", n, ") specified")
    if n_opt is not None:
        input = resize_fft_input(input, [dim], [n])
    norm = norm_from_string(norm_str, forward)
    return fft_c2c_maybe_out(function_name, out, input, [dim], norm, forward)


# ---- the ops (torch.fft.fft is NumPy's numpy.fft.fft) -----------------------------------------
def _fft_or_ifft(
    name: str, out: Tensor | None, self: Tensor, n: int | None, dim: int, norm: str | None
) -> Tensor:
    forward = name == "fft"
    if self.is_complex():
        return fft_c2c(name, out, self, n, dim, norm, forward)
    return fft_r2c(name, out, self, n, dim, norm, forward, onesided=False)


@native_function(SPECTRAL)
def fft_fft_symint(
    self: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None
) -> Tensor:
    return _fft_or_ifft("fft", None, self, n, dim, norm)


@native_function(SPECTRAL)
def fft_fft_symint_out(
    self: Tensor, n: int | None, dim: int, norm: str | None, out: Tensor
) -> Tensor:
    _fft_or_ifft("fft", out, self, n, dim, norm)
    return out


@native_function(SPECTRAL)
def fft_ifft_symint(
    self: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None
) -> Tensor:
    return _fft_or_ifft("ifft", None, self, n, dim, norm)


@native_function(SPECTRAL)
def fft_ifft_symint_out(
    self: Tensor, n: int | None, dim: int, norm: str | None, out: Tensor
) -> Tensor:
    _fft_or_ifft("ifft", out, self, n, dim, norm)
    return out


@native_function(SPECTRAL)
def fft_rfft_symint(
    self: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None
) -> Tensor:
    return fft_r2c("rfft", None, self, n, dim, norm, forward=True, onesided=True)


@native_function(SPECTRAL)
def fft_rfft_symint_out(
    self: Tensor, n: int | None, dim: int, norm: str | None, out: Tensor
) -> Tensor:
    fft_r2c("rfft", out, self, n, dim, norm, forward=True, onesided=True)
    return out


@native_function(SPECTRAL)
def fft_irfft_symint(
    self: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None
) -> Tensor:
    return fft_c2r("irfft", None, self, n, dim, norm, forward=False)


@native_function(SPECTRAL)
def fft_irfft_symint_out(
    self: Tensor, n: int | None, dim: int, norm: str | None, out: Tensor
) -> Tensor:
    fft_c2r("irfft", out, self, n, dim, norm, forward=False)
    return out


@native_function(SPECTRAL)
def fft_hfft_symint(
    self: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None
) -> Tensor:
    return fft_c2r("hfft", None, self, n, dim, norm, forward=True)


@native_function(SPECTRAL)
def fft_hfft_symint_out(
    self: Tensor, n: int | None, dim: int, norm: str | None, out: Tensor
) -> Tensor:
    fft_c2r("hfft", out, self, n, dim, norm, forward=True)
    return out


@native_function(SPECTRAL)
def fft_ihfft_symint(
    self: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None
) -> Tensor:
    return fft_r2c("ihfft", None, self, n, dim, norm, forward=False, onesided=True)


@native_function(SPECTRAL)
def fft_ihfft_symint_out(
    self: Tensor, n: int | None, dim: int, norm: str | None, out: Tensor
) -> Tensor:
    fft_r2c("ihfft", out, self, n, dim, norm, forward=False, onesided=True)
    return out
