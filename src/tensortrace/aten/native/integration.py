"""trapezoid and cumulative_trapezoid: the trapezoidal rule along a dim.

Mirrors `aten/src/ATen/native/Integration.cpp`: with a scalar spacing dx,
`(y.sum(dim) - (y.select(dim, 0) + y.select(dim, -1)) * 0.5) * dx`; with sample points x,
`((y[1:] + y[:-1]) * (x[1:] - x[:-1])).sum(dim) / 2` (x viewed to broadcast along dim), and the
running sums of the same terms for cumulative_trapezoid. All composites of traced ops.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.scalar_ops import Scalar
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK, torchCheckFail
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/Integration.cpp"


def _zeros_like_except(y: Tensor, dim: int) -> Tensor:
    sizes = list(y.sizes())
    del sizes[dim]
    return at.zeros(sizes, dtype=y.scalar_type(), device=y.device())


def _x_viewed(name: str, y: Tensor, x: Tensor, dim: int) -> Tensor:
    if x.dim() == 1:
        TORCH_CHECK(
            x.size(0) == y.size(dim), name, ": There must be one `x` value for each sample point"
        )
        new_sizes = [1] * y.dim()
        new_sizes[dim] = x.size(0)
        return x.view(new_sizes)
    if x.dim() < y.dim():
        return x.view([1] * (y.dim() - x.dim()) + list(x.sizes()))
    return x


def _slices(y: Tensor, dim: int) -> Tensor:
    return at.slice(y, dim, 1, None).add(at.slice(y, dim, 0, -1))


def _check_dx(name: str, dx: Scalar) -> float:
    if isinstance(dx, (bool, complex)):
        torchCheckFail(name, ": Currently, we only support dx as a real number.")
    return float(dx)


@native_function(SOURCE, name="trapezoid", legacy="at::native::trapezoid")
def trapezoid(y: Tensor, x: Tensor | None = None, dx: Scalar = 1, dim: int = -1) -> Tensor:
    dim = maybe_wrap_dim(dim, y.dim())
    if y.size(dim) == 0:
        return _zeros_like_except(y, dim)
    if x is None:
        TORCH_CHECK(
            y.scalar_type() != ScalarType.Bool,
            "trapezoid: received a bool input for `y`, but bool is not supported",
        )
        step = _check_dx("trapezoid", dx)
        ends = y.select(dim, 0).add(y.select(dim, -1)).mul(0.5)
        return y.sum([dim]).sub(ends).mul(step)
    TORCH_CHECK(
        y.scalar_type() != ScalarType.Bool and x.scalar_type() != ScalarType.Bool,
        "trapezoid: received a bool input for `x` or `y`, but bool is not supported",
    )
    xv = _x_viewed("trapezoid", y, x, dim)
    dxt = at.slice(xv, dim, 1, None).sub(at.slice(xv, dim, 0, -1))
    return _slices(y, dim).mul(dxt).sum([dim]).div(2.0)


@native_function(SOURCE, name="cumulative_trapezoid", legacy="at::native::cumulative_trapezoid")
def cumulative_trapezoid(
    y: Tensor, x: Tensor | None = None, dx: Scalar = 1, dim: int = -1
) -> Tensor:
    dim = maybe_wrap_dim(dim, y.dim())
    if x is None:
        step = _check_dx("cumulative_trapezoid", dx)
        return _slices(y, dim).mul(step / 2.0).cumsum(dim)
    TORCH_CHECK(
        y.scalar_type() != ScalarType.Bool and x.scalar_type() != ScalarType.Bool,
        "cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not supported",
    )
    xv = _x_viewed("cumulative_trapezoid", y, x, dim)
    dxt = at.slice(xv, dim, 1, None).sub(at.slice(xv, dim, 0, -1))
    return dxt.mul(_slices(y, dim)).cumsum(dim).div(2.0)
