"""Chi2(df): mirrors `torch/distributions/chi2.py`, a Gamma(df / 2, 1 / 2)."""

from __future__ import annotations

from typing import Any

from tensortrace.distributions import constraints
from tensortrace.distributions.gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: bool | None = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Chi2:
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)  # type: ignore[return-value]

    @property
    def df(self) -> Any:
        return self.concentration * 2
