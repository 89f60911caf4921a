"""igamma / igammac (the regularized lower and upper incomplete gamma functions P(a, x) and
Q(a, x)), with torch.special's gammainc / gammaincc over them.

Mirrors `aten/src/ATen/native/BinaryOps.cpp`: igamma and igammac are structured binary float ops
(TORCH_META_FUNC build_borrowing_binary_op: integer inputs reach the kernel and are refused) over
igamma_stub / igammac_stub; special_gammainc / special_gammaincc are CompositeImplicitAutograd
calls of them. The kernels (cpu/BinaryOpsKernel.cpp's igamma_kernel / igammac_kernel) run
Math.h's calc_igamma / calc_igammac (math_igamma.py) per element.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.cpu.loops import cpu_kernel
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH, REGISTER_DISPATCH, DispatchStub
from tensortrace.aten.native.math_igamma import calc_igamma, calc_igammac
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import isFloatingType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/BinaryOps.cpp"
HEADER = "aten/src/ATen/native/BinaryOps.h"
KERNELS = "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp"
FUNCTIONS = {"igamma": calc_igamma, "igammac": calc_igammac}
STUBS: dict[str, DispatchStub] = {
    name: DECLARE_DISPATCH(f"{name}_stub", HEADER) for name in FUNCTIONS
}


def _register(name: str) -> None:
    stub, fn = STUBS[name], FUNCTIONS[name]

    def meta(it: TensorIteratorBase, self: Tensor, other: Tensor) -> None:
        it.build_borrowing_binary_op(it.maybe_get_output(), self, other)

    def impl(it: TensorIteratorBase, self: Tensor, other: Tensor, out: Tensor) -> None:
        stub(it.device_type(), it)

    def kernel(it: TensorIteratorBase) -> None:
        dtype = it.common_dtype()
        AT_DISPATCH_CHECK(f"{name}_cpu", dtype, isFloatingType(dtype))

        def loop(out: np.ndarray, a: np.ndarray, x: np.ndarray) -> None:
            # in double, rounded to the dtype (Math.h's float overload rounds the same way
            # up to the last bits)
            aa, xx = np.broadcast_arrays(a.astype(np.float64), x.astype(np.float64))
            flat = [fn(float(p), float(q)) for p, q in zip(aa.ravel(), xx.ravel())]
            out[...] = np.asarray(flat, dtype=np.float64).reshape(aa.shape).astype(out.dtype)

        cpu_kernel(it, loop)

    meta_function(name, SOURCE)(meta)
    impl_function(f"{name}_out", SOURCE, legacy=f"at::native::{name}_out")(impl)
    kernel.__name__ = kernel.__qualname__ = f"{name}_kernel"
    REGISTER_DISPATCH(
        stub,
        traced("kernel", f"at::native::{name}_kernel", KERNELS, legacy=f"{name}_kernel")(kernel),
    )


for _name in FUNCTIONS:
    _register(_name)


@native_function(SOURCE)
def special_gammainc(self: Tensor, other: Tensor) -> Tensor:
    return at.igamma(self, other)  # type: ignore[no-any-return]


@native_function(SOURCE)
def special_gammainc_out(self: Tensor, other: Tensor, out: Tensor) -> Tensor:
    return at.igamma(self, other, out=out)  # type: ignore[no-any-return]


@native_function(SOURCE)
def special_gammaincc(self: Tensor, other: Tensor) -> Tensor:
    return at.igammac(self, other)  # type: ignore[no-any-return]


@native_function(SOURCE)
def special_gammaincc_out(self: Tensor, other: Tensor, out: Tensor) -> Tensor:
    return at.igammac(self, other, out=out)  # type: ignore[no-any-return]
