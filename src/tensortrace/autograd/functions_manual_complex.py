"""The helpers of derivatives.yaml's complex formulas, with PyTorch's names.

Mirrors `angle_backward`, `sgn_backward` and `polar_backward` of
`torch/csrc/autograd/FunctionsManual.cpp`: gradients in the conjugate Wirtinger convention
torch uses for complex inputs. functions_manual.py imports them into the formulas' namespace.
"""

from __future__ import annotations

import math

from tensortrace.aten import functions as at
from tensortrace.aten.tensor_body import Tensor


def angle_backward(grad: Tensor, self: Tensor) -> Tensor:
    if self.is_complex():
        return at.where(
            self.eq(0.0),
            at.zeros([], dtype=self.scalar_type(), device=self.device()),
            grad.mul(self).div(self.abs().pow(2)).mul(1j),
        )
    return at.zeros_like(self, memory_format="preserve_format")


def sgn_backward(x: Tensor, gx: Tensor, sgn: Tensor) -> Tensor:
    """(gx - sgn * Re(gx * conj(sgn))) / |x|, and 0 where x is 0."""
    abs_ = x.abs()
    return gx.sub(sgn.mul(at.real(gx.mul(sgn.conj())))).div(abs_).masked_fill_(abs_.eq(0.0), 0.0)


def polar_backward(grad: Tensor, result: Tensor) -> tuple[Tensor, Tensor]:
    grad_conj = grad.conj()
    grad_abs = at.real(grad_conj.mul(at.sgn(result)))
    grad_angle = at.real(grad_conj.mul(result.mul(1j)))
    return grad_abs, grad_angle


def fft_r2c_backward(
    grad: Tensor, dim: list[int], normalization: int, onesided: bool, last_dim_size: int
) -> Tensor:
    """A onesided R2C transform is a C2C one that drops half its output: the gradient fills
    that half with zeros, runs the inverse C2C transform and keeps the real part."""
    if not onesided:
        return at.real(at._fft_c2c(grad, dim, normalization, False))
    half_sizes = list(grad.sizes())
    last_dim = dim[-1]
    new_grad_shape = list(half_sizes)
    new_grad_shape[last_dim] = last_dim_size
    zero_length = last_dim_size - grad.size(last_dim)
    complex_full_grad = grad.new_zeros(new_grad_shape) if zero_length > 0 else grad
    if zero_length > 0:
        complex_full_grad.slice(last_dim, 0, half_sizes[last_dim]).copy_(grad)
    return at.real(at._fft_c2c(complex_full_grad, dim, normalization, False))


def fft_c2r_backward(grad: Tensor, dim: list[int], normalization: int) -> Tensor:
    """A C2R transform fills the other half by conjugate symmetry before an inverse C2C one:
    the gradient is the onesided R2C transform, with the entries whose mirror image fell
    outside the onesided range (1 .. n - (n/2 + 1)) doubled."""
    gi = at._fft_r2c(grad, dim, normalization, True)
    double_length = grad.size(dim[-1]) - gi.size(dim[-1])
    if double_length > 0:  # also covers a signal of size zero
        gi.narrow(dim[-1], 1, double_length).mul_(2)
    return gi


def log1p_backward(grad: Tensor, self: Tensor) -> Tensor:
    return grad.div(self.add(1).conj())


def sinc_backward(grad: Tensor, self: Tensor) -> Tensor:
    """d/dx sin(pi x)/(pi x) = (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at 0."""
    self_pi = self.mul(math.pi)
    self_squared_pi = self.mul(self).mul(math.pi)
    out = grad.mul(self_pi.mul(self_pi.cos()).sub(self_pi.sin())).div(self_squared_pi.conj())
    zero = at.zeros([], dtype=grad.scalar_type(), device=grad.device())  # grad.options()
    return at.where(self_squared_pi.eq(0.0), zero, out)
