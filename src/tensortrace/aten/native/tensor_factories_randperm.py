"""randperm: a random permutation of 0..n-1, bit for bit torch's after the same seed.

Mirrors `randperm`, `randperm_out` and `randperm_out_cpu` / `randperm_cpu` of
`aten/src/ATen/native/TensorFactories.cpp`: the functional makes `empty(n)` (int64 unless a
dtype is given) and calls the out= op, which checks n, the generator's device and that n fits
the dtype (`check_supported_max_int_with_precision`), resizes the output, then shuffles under
the generator's lock. For n below 2**32 / 20 the shuffle is the classic Fisher-Yates that swaps
element i with element i + random() % (n - i), one 32-bit draw per step; above it, the
"inside-out" variant with random64() % (i + 1).

`randperm_out_cuda` (Randperm.cu) is this body with the device's generator: Note [CUDA kernels
that run the CPU kernel's code] and Note [The emulated CUDA generator].
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.cpu_generator_impl import CPUGeneratorImpl, getDefaultCPUGenerator
from tensortrace.aten.cuda.cuda_generator_impl import getDefaultCUDAGenerator
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/TensorFactories.cpp"
CUDA_SOURCE = "aten/src/ATen/native/cuda/Randperm.cu"

# AT_DISPATCH_ALL_TYPES_AND2(Half, BFloat16, ...) of randperm_out_cpu
_RANDPERM_TYPES = frozenset(
    {
        ScalarType.Byte,
        ScalarType.Char,
        ScalarType.Short,
        ScalarType.Int,
        ScalarType.Long,
        ScalarType.Float,
        ScalarType.Double,
        ScalarType.Half,
        ScalarType.BFloat16,
    }
)
# the largest n whose values n - 1 a floating dtype holds exactly
_PRECISION = {
    ScalarType.Half: ((1 << 11) + 1, "n cannot be greater than 2049 for Half type."),
    ScalarType.Float: ((1 << 24) + 1, "n cannot be greater than 2^24+1 for Float type."),
    ScalarType.Double: ((1 << 53) + 1, "n cannot be greater than 2^53+1 for Double type."),
}
_SMALL_N = 0xFFFFFFFF // 20  # std::numeric_limits<uint32_t>::max() / 20


@native_function(SOURCE, name="randperm", legacy="at::native::randperm")
def randperm(
    n: int,
    generator: Any = None,
    dtype: ScalarType | None = ScalarType.Long,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    result = at.empty(
        [n],
        dtype=ScalarType.Long if dtype is None else dtype,
        layout=layout,
        device=device,
        pin_memory=pin_memory,
    )
    return at.randperm(n, generator=generator, out=result)  # type: ignore[no-any-return]


@native_function(SOURCE, name="randperm_out", legacy="at::native::randperm_out")
def randperm_out(n: int, out: Tensor | None = None) -> Tensor:
    assert out is not None
    return at.randperm(n, generator=None, out=out)  # type: ignore[no-any-return]


def check_supported_max_int_with_precision(n: int, tensor: Tensor) -> None:
    """n - 1 must fit the dtype (scalar_tensor's conversion raises otherwise), and a floating
    dtype must hold every value up to it exactly."""
    at.scalar_tensor(n - 1 if n > 0 else n, dtype=tensor.scalar_type(), device=tensor.device())
    limit = _PRECISION.get(tensor.scalar_type())
    if limit is not None:
        TORCH_CHECK(n <= limit[0], limit[1])


def _randperm_out(n: int, generator: Any, result: Tensor, default: CPUGeneratorImpl) -> Tensor:
    TORCH_CHECK(n >= 0, "n must be non-negative, got", n)
    if generator is not None:
        gen_device = Device(generator.device_type)
        TORCH_CHECK(
            gen_device.type_ == result.device().type_,
            "Expected a '",
            result.device(),
            "' generator device but found '",
            gen_device,
            "'",
        )
    check_supported_max_int_with_precision(n, result)
    result.resize_([n])
    gen = generator if generator is not None else default
    st = result.scalar_type()
    TORCH_CHECK_NOT_IMPLEMENTED(st in _RANDPERM_TYPES, f"\"randperm\" not implemented for '{st}'")
    with gen.mutex_:
        perm = randperm_cpu(n, gen)
    if n:
        result.numpy_view()[...] = perm
    return result


def randperm_cpu(n: int, generator: CPUGeneratorImpl) -> np.ndarray:
    """The permutation randperm_cpu<scalar_t> writes, as int64."""
    if n < _SMALL_N:
        r = list(range(n))
        draws = generator.random_uint32(n - 1).tolist() if n > 1 else []
        for i, word in enumerate(draws):  # z = generator->random() % (n - i)
            j = word % (n - i) + i
            r[i], r[j] = r[j], r[i]
        return np.array(r, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)  # the no-initialization ("inside-out") Fisher-Yates
    for i in range(n):
        z = generator.random64() % (i + 1)
        out[i] = out[z]
        out[z] = i
    return out


@native_function(SOURCE, name="randperm_out_cpu", legacy="at::native::randperm_out_cpu")
def randperm_out_cpu(n: int, generator: Any = None, out: Tensor | None = None) -> Tensor:
    assert out is not None
    return _randperm_out(n, generator, out, getDefaultCPUGenerator())


@native_function(CUDA_SOURCE, name="randperm_out_cuda", legacy="at::native::randperm_out_cuda")
def randperm_out_cuda(n: int, generator: Any = None, out: Tensor | None = None) -> Tensor:
    assert out is not None
    index = out.device().index_
    default = getDefaultCUDAGenerator(index if index is not None else -1)
    return _randperm_out(n, generator, out, default)
