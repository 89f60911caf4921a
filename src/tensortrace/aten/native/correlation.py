"""cov and corrcoef.

Mirrors `aten/src/ATen/native/Correlation.cpp`: the input viewed as (variables, observations),
the (weighted) mean of each variable subtracted, `mm(in, in.t())` divided by the normalisation
factor (observations - correction, or its weighted form), and corrcoef as that covariance
divided by the outer product of the standard deviations, clipped to [-1, 1].
"""

from __future__ import annotations

import warnings

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isFloatingType, isIntegralType

SOURCE = "aten/src/ATen/native/Correlation.cpp"
OBSERVATIONS_DIM = 1


def _check_weights(
    w: Tensor, name: str, dtype_ok: bool, dtype_kind: str, num_observations: int
) -> None:
    """cov's checks of fweights and aweights, which differ only in the dtype they accept."""
    TORCH_CHECK(
        w.dim() <= 1,
        f"cov(): expected {name} to have one or fewer dimensions but got {name} with ",
        w.dim(),
        " dimensions",
    )
    TORCH_CHECK(
        dtype_ok,
        f"cov(): expected {name} to have {dtype_kind} dtype but got {name} with ",
        w.scalar_type(),
        " dtype",
    )
    TORCH_CHECK(
        w.numel() == num_observations,
        f"cov(): expected {name} to have the same "
        "numel as there are observations in the input but got ",
        w.numel(),
        " != ",
        num_observations,
    )
    TORCH_CHECK(
        num_observations == 0 or bool(w.min().ge(0).item()),
        f"cov(): {name} cannot be negative",
    )


@native_function(SOURCE, name="cov", legacy="at::native::cov")
def cov(
    self: Tensor,
    correction: int = 1,
    fweights: Tensor | None = None,
    aweights: Tensor | None = None,
) -> Tensor:
    TORCH_CHECK(
        self.dim() <= 2,
        "cov(): expected input to have two or fewer dimensions but got an input with ",
        self.dim(),
        " dimensions",
    )
    TORCH_CHECK(
        self.scalar_type() != ScalarType.Bool, "cov(): bool dtype is not supported for input"
    )
    inp = self.view([1, -1]) if self.dim() < 2 else self
    num_observations = inp.size(OBSERVATIONS_DIM)
    w: Tensor | None = None
    if fweights is not None:
        w = fweights
        _check_weights(
            w, "fweights", isIntegralType(w.scalar_type(), False), "integral", num_observations
        )
    if aweights is not None:
        aw = aweights
        _check_weights(
            aw, "aweights", isFloatingType(aw.scalar_type()), "floating point", num_observations
        )
        w = aw if w is None else w.mul(aw)
    if w is not None:
        w_sum = w.sum()
        TORCH_CHECK(bool(w_sum.ne(0).item()), "cov(): weights sum to zero, can't be normalized")
        avg = inp.mul(w).sum([OBSERVATIONS_DIM]).div(w_sum)
    else:
        w_sum = at.scalar_tensor(num_observations, dtype=ScalarType.Long, device=inp.device())
        avg = inp.sum([OBSERVATIONS_DIM]).div(w_sum)
    if w is not None and correction != 0:
        if aweights is not None:
            norm_factor = w_sum.sub(w.mul(aweights).sum().mul(correction).div(w_sum))
        else:
            norm_factor = w_sum.sub(correction)
    else:
        norm_factor = w_sum.sub(correction)
    if bool(norm_factor.le(0).item()):
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less "
            "than the number of observations.",
            UserWarning,
            stacklevel=4,
        )
        norm_factor.zero_()
    inp = inp.sub(avg.unsqueeze(1))
    c = at.mm(inp, (inp.mul(w) if w is not None else inp).t())
    return at.true_divide(c, norm_factor).squeeze()


@native_function(SOURCE, name="corrcoef", legacy="at::native::corrcoef")
def corrcoef(self: Tensor) -> Tensor:
    TORCH_CHECK(
        self.dim() <= 2,
        "corrcoef(): expected input to have two or fewer dimensions but got an input with ",
        self.dim(),
        " dimensions",
    )
    c = at.cov(self)
    if c.dim() == 0:  # a scalar covariance: nan for nan, inf or 0, else 1
        return c.div(c)
    d = c.diagonal()
    stddev = d.sqrt()
    c = c.div(stddev.view([-1, 1]))
    c = c.div(stddev.view([1, -1]))
    return c.clamp(-1, 1)
