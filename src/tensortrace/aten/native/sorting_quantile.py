"""quantile and nanquantile: interpolate between the sorted values of each slice.

Mirrors the quantile half of `aten/src/ATen/native/Sorting.cpp` (quantile_checks,
quantile_output_shape, quantile_compute and the quantile / nanquantile overloads, all
CompositeImplicitAutograd): the input is sorted along the reduced dim (flattened when dim is
None), q is turned into fractional ranks, the ranks are adjusted by the interpolation mode, and
the values at the ranks below and above are gathered and lerped. Gradients flow through sort,
gather and lerp. quantile returns NaN for a slice holding a NaN (its rank is set to the last
index, where sort puts NaN); nanquantile ranks among the non-NaN values only.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/Sorting.cpp"

INTERPOLATION_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def get_quantile_interpolation_mode(interpolation: str) -> str:
    TORCH_CHECK(
        interpolation in INTERPOLATION_MODES,
        "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
        "but got ",
        interpolation,
    )
    return interpolation


def quantile_checks(self: Tensor, q: Tensor) -> None:
    TORCH_CHECK(self.numel() > 0, "quantile() input tensor must be non-empty")
    TORCH_CHECK(q.dim() <= 1, "quantile() q must be a scalar or 1D tensor")
    TORCH_CHECK(
        self.scalar_type() in (ScalarType.Float, ScalarType.Double),
        "quantile() input tensor must be either float or double dtype",
    )
    TORCH_CHECK(
        self.scalar_type() == q.scalar_type(),
        "quantile() q tensor must be same dtype as the input tensor",
    )
    TORCH_CHECK(
        self.device() == q.device(),
        "quantile() q tensor must be on the same device as the input tensor",
    )


def quantile_output_shape(
    original_dim: int | None, self: Tensor, q: Tensor, keepdim: bool, wrapped_dim: int
) -> list[int]:
    """q's size first (if q is 1-D), then the reduced shape."""
    out_shape: list[int] = []
    if original_dim is not None and self.dim() > 0:
        out_shape = list(self.sizes())
        if keepdim:
            out_shape[wrapped_dim] = 1
        else:
            del out_shape[wrapped_dim]
    elif keepdim:
        out_shape = [1] * self.dim()
    if q.dim() > 0:
        out_shape.insert(0, q.numel())
    return out_shape


def quantile_compute(
    self: Tensor,
    q: Tensor,
    original_dim: int | None,
    interpolation: str,
    ignore_nan: bool,
    wrapped_dim: int,
    out_shape: list[int],
) -> Tensor:
    if self.device().is_cpu():  # only on the CPU: no sync with an accelerator
        all_q_in_range = q.ge(0).logical_and_(q.le(1)).all()
        TORCH_CHECK(bool(all_q_in_range.item()), "quantile() q values must be in the range [0, 1]")
    # flatten, or move the reduced dim last; sort to query the k-th values
    if original_dim is None:
        sorted_ = at.sort(self.flatten())[0]
    elif wrapped_dim == self.dim() - 1:
        sorted_ = at.sort(self)[0]
    else:
        sorted_ = at.sort(self.unsqueeze(-1).transpose(wrapped_dim, -1))[0]
    if q.dim() == 0:  # treat q as 1-D below
        out_shape.insert(0, q.numel())
    # view the input as reduced_size + size of the reduced dim
    in_shape = out_shape[1:] + [0]
    in_shape[-1] = sorted_.size(-1)
    sorted_ = sorted_.view(in_shape)
    TORCH_CHECK(sorted_.size(-1) <= 2**24, "quantile() input tensor is too large")
    # q in [0, 1] -> ranks in [0, reduction size)
    if ignore_nan:
        # ranks among the non-NaN values; all NaN: rank 0, so the quantile is NaN
        ranks = q.mul(sorted_.isnan().logical_not_().sum([-1], True).sub(1))
        ranks.masked_fill_(ranks.lt(0), 0)
    else:
        # a slice holding NaN gets the last rank, where sort put the NaN
        last_index = sorted_.size(-1) - 1
        tl = at.broadcast_tensors([q.mul(last_index), sorted_.isnan().any(-1, True)])
        ranks = at.masked_fill(tl[0], tl[1], last_index)
    if interpolation == "lower":
        ranks.floor_()
    elif interpolation == "higher":
        ranks.ceil_()
    elif interpolation == "nearest":
        ranks.round_()
    ranks_below = ranks.to(ScalarType.Long)
    values_below = sorted_.gather(-1, ranks_below)
    # only linear and midpoint interpolate
    if interpolation in ("linear", "midpoint"):
        weights = (
            at.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks.sub(ranks_below)
        )
        ranks_above = ranks.ceil_().to(ScalarType.Long)
        values_above = sorted_.gather(-1, ranks_above)
        values_below.lerp_(values_above, weights)
    if q.dim() == 0:
        values_below.squeeze_(-1)  # q is a scalar: drop its dim
    else:
        values_below.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)  # q's dim first
    return values_below


def quantile_out_impl(
    out: Tensor,
    self: Tensor,
    q: Tensor,
    dim: int | None,
    keepdim: bool,
    interpolation: str,
    ignore_nan: bool,
) -> Tensor:
    quantile_checks(self, q)
    TORCH_CHECK(
        self.scalar_type() == out.scalar_type(),
        "quantile() out tensor must be same dtype as the input tensor",
    )
    TORCH_CHECK(
        self.device() == out.device(),
        "quantile() out tensor must be on the same device as the input tensor",
    )
    wrapped_dim = maybe_wrap_dim(0 if dim is None else dim, self.dim())
    out_shape = quantile_output_shape(dim, self, q, keepdim, wrapped_dim)
    resize_output(out, out_shape)
    mode = get_quantile_interpolation_mode(interpolation)
    result = quantile_compute(self, q, dim, mode, ignore_nan, wrapped_dim, out_shape)
    out.copy_(result)
    return out


def quantile_impl(
    self: Tensor, q: Tensor, dim: int | None, keepdim: bool, interpolation: str, ignore_nan: bool
) -> Tensor:
    quantile_checks(self, q)
    wrapped_dim = maybe_wrap_dim(0 if dim is None else dim, self.dim())
    out_shape = quantile_output_shape(dim, self, q, keepdim, wrapped_dim)
    mode = get_quantile_interpolation_mode(interpolation)
    return quantile_compute(self, q, dim, mode, ignore_nan, wrapped_dim, out_shape)


def _q_tensor(self: Tensor, q: float) -> Tensor:
    """The float overloads: check q, then wrap it as a 0-dim tensor of self's options."""
    TORCH_CHECK(0 <= q <= 1, "quantile() q must be in the range [0, 1] but got ", q)
    return at.scalar_tensor(q, dtype=self.scalar_type(), device=self.device())


@native_function(SOURCE, name="quantile")
def quantile(
    self: Tensor,
    q: Tensor | float,
    dim: int | None = None,
    keepdim: bool = False,
    interpolation: str = "linear",
) -> Tensor:
    if not isinstance(q, Tensor):
        return at.quantile(self, _q_tensor(self, q), dim, keepdim, interpolation=interpolation)
    return quantile_impl(self, q, dim, keepdim, interpolation, False)


@native_function(SOURCE, name="quantile_out")
def quantile_out(
    self: Tensor,
    q: Tensor | float,
    dim: int | None,
    keepdim: bool,
    interpolation: str,
    out: Tensor,
) -> Tensor:
    if not isinstance(q, Tensor):
        q_tensor = _q_tensor(self, q)
        return at.quantile(self, q_tensor, dim, keepdim, interpolation=interpolation, out=out)
    return quantile_out_impl(out, self, q, dim, keepdim, interpolation, False)


@native_function(SOURCE, name="nanquantile")
def nanquantile(
    self: Tensor,
    q: Tensor | float,
    dim: int | None = None,
    keepdim: bool = False,
    interpolation: str = "linear",
) -> Tensor:
    if not isinstance(q, Tensor):
        return at.nanquantile(self, _q_tensor(self, q), dim, keepdim, interpolation=interpolation)
    return quantile_impl(self, q, dim, keepdim, interpolation, True)


@native_function(SOURCE, name="nanquantile_out")
def nanquantile_out(
    self: Tensor,
    q: Tensor | float,
    dim: int | None,
    keepdim: bool,
    interpolation: str,
    out: Tensor,
) -> Tensor:
    if not isinstance(q, Tensor):
        q_tensor = _q_tensor(self, q)
        return at.nanquantile(self, q_tensor, dim, keepdim, interpolation=interpolation, out=out)
    return quantile_out_impl(out, self, q, dim, keepdim, interpolation, True)
