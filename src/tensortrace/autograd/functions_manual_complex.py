"""The helpers of derivatives.yaml's complex formulas, with PyTorch's names.

Mirrors `angle_backward`, `sgn_backward` and `polar_backward` of
`torch/csrc/autograd/FunctionsManual.cpp`: gradients in the conjugate Wirtinger convention
torch uses for complex inputs. functions_manual.py imports them into the formulas' namespace.
"""

from __future__ import annotations

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
