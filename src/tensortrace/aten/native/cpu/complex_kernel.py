"""The complex kernels: conj_physical, angle, sign / sgn, complex and polar.

Mirrors `aten/src/ATen/native/cpu/UnaryOpsKernel.cpp` (conj_kernel, angle_kernel, sign_kernel,
sgn_kernel) and `cpu/ComplexKernel.cpp` (complex_kernel, polar_kernel), with NumPy expressions in
place of the scalar and Vectorized lambdas.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.complex_ops import (
    angle_stub,
    complex_stub,
    conj_physical_stub,
    polar_stub,
    sgn_stub,
    sign_stub,
)
from tensortrace.aten.native.cpu.loops import cpu_kernel, cpu_kernel_vec
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.opmath_type import to_opmath
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/UnaryOpsKernel.cpp"
COMPLEX_SOURCE = "aten/src/ATen/native/cpu/ComplexKernel.cpp"


def _store(out: np.ndarray, value: np.ndarray) -> None:
    np.copyto(out, value, casting="unsafe")


@traced("kernel", "at::native::conj_kernel", SOURCE, legacy="conj_kernel")
def conj_kernel(it: TensorIteratorBase) -> None:
    cpu_kernel_vec(it, lambda out, a: np.conjugate(a, out=out))


def _angle(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.complex64:
        # std::arg is SLEEF's atan2f (1 ULP); NumPy's float32 arctan2 differs from it by a ULP
        # far more often (NumPy 2.4) than atan2 in double rounded to float does
        return np.angle(a.astype(np.complex128)).astype(np.float32)
    if np.iscomplexobj(a):
        return np.angle(a)  # std::arg: atan2(imag, real)
    # angle_impl of a real: pi for negatives, 0 otherwise, NaN stays NaN
    return np.where(np.isnan(a), a, np.where(a < 0, np.pi, 0.0)).astype(a.dtype)


@traced("kernel", "at::native::angle_kernel", SOURCE, legacy="angle_kernel")
def angle_kernel(it: TensorIteratorBase) -> None:
    cpu_kernel_vec(it, lambda out, a: _store(out, _angle(*to_opmath(a))))


def _sign(a: np.ndarray) -> np.ndarray:
    # (0 < a) - (a < 0): NaN compares false both ways, so its sign is 0
    return (a > 0).astype(a.dtype) - (a < 0).astype(a.dtype)


@traced("kernel", "at::native::sign_kernel", SOURCE, legacy="sign_kernel")
def sign_kernel(it: TensorIteratorBase) -> None:
    if it.dtype() == ScalarType.Bool:
        cpu_kernel(it, lambda out, a: _store(out, a))
        return
    cpu_kernel_vec(it, lambda out, a: _store(out, _sign(*to_opmath(a))))


def _sgn(z: np.ndarray) -> np.ndarray:
    # sgn_impl: 0 for 0, else z / |z| (NaN and infinite parts give NaN, as torch's division does)
    magnitude = np.abs(z)
    safe = np.where(magnitude == 0, 1, magnitude)
    return np.where(magnitude == 0, 0, z / safe).astype(z.dtype)


@traced("kernel", "at::native::sgn_kernel", SOURCE, legacy="sgn_kernel")
def sgn_kernel(it: TensorIteratorBase) -> None:
    cpu_kernel_vec(it, lambda out, a: _store(out, _sgn(a)))


@traced("kernel", "at::native::complex_kernel", COMPLEX_SOURCE, legacy="complex_kernel")
def complex_kernel(it: TensorIteratorBase) -> None:
    def loop(out: np.ndarray, re: np.ndarray, im: np.ndarray) -> None:
        out.real = re
        out.imag = im

    cpu_kernel(it, loop)


@traced("kernel", "at::native::polar_kernel", COMPLEX_SOURCE, legacy="polar_kernel")
def polar_kernel(it: TensorIteratorBase) -> None:
    def loop(out: np.ndarray, magnitude: np.ndarray, theta: np.ndarray) -> None:
        out.real = magnitude * np.cos(theta)
        out.imag = magnitude * np.sin(theta)

    cpu_kernel(it, loop)


REGISTER_DISPATCH(conj_physical_stub, conj_kernel)
REGISTER_DISPATCH(angle_stub, angle_kernel)
REGISTER_DISPATCH(sign_stub, sign_kernel)
REGISTER_DISPATCH(sgn_stub, sgn_kernel)
REGISTER_DISPATCH(complex_stub, complex_kernel)
REGISTER_DISPATCH(polar_stub, polar_kernel)
