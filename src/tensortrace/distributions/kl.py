"""kl_divergence(p, q) and register_kl: mirrors `torch/distributions/kl.py`.

The registry maps (type_p, type_q) to a function; a lookup takes the most specific registered
pair by subclass order (_Match), warns when two pairs tie, and memoizes the answer. torch's
table for the distributions this runtime has is registered by kl_same_family.py (KL between
two members of one family) and kl_cross_family.py (between families, the infinite ones
included), kl_continuous_bernoulli.py and kl_pareto.py, imported at the end of this module, as torch
registers its table at import.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from functools import total_ordering
from typing import Any

import tensortrace as torch
from tensortrace.distributions.distribution import Distribution

__all__ = ["kl_divergence", "register_kl"]

inf = float("inf")

# Source of truth mapping a few general (type, type) pairs to functions.
_KL_REGISTRY: dict[tuple[type, type], Callable[..., Any]] = {}
# Memoized version mapping many specific (type, type) pairs to functions.
_KL_MEMOIZE: dict[tuple[type, type], Any] = {}


def register_kl(type_p: type, type_q: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator to register a pairwise function with :meth:`kl_divergence`."""
    if not isinstance(type_p, type) and issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) and issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun: Callable[..., Any]) -> Callable[..., Any]:
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # reset since lookup order may have changed
        return fun

    return decorator


@total_ordering
class _Match:
    __slots__ = ["types"]

    def __init__(self, *types: type) -> None:
        self.types = types

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Match) and self.types == other.types

    def __le__(self, other: _Match) -> bool:
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True

    __hash__ = None  # type: ignore[assignment]


def _dispatch_kl(type_p: type, type_q: type) -> Any:
    """Find the most specific approximate match, assuming single inheritance."""
    matches = [
        (super_p, super_q)
        for super_p, super_q in _KL_REGISTRY
        if issubclass(type_p, super_p) and issubclass(type_q, super_q)
    ]
    if not matches:
        return NotImplemented
    # Check that the left- and right- lexicographic orders agree.
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun = _KL_REGISTRY[left_p, left_q]
    right_fun = _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(
            f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
            f"Please register_kl({left_p.__name__}, {right_q.__name__})",
            RuntimeWarning,
            stacklevel=2,
        )
    return left_fun


def _infinite_like(tensor: Any) -> Any:
    """Helper function for obtaining infinite KL Divergence throughout."""
    return torch.full_like(tensor, inf)


def _x_log_x(tensor: Any) -> Any:
    """x log x, 0 at x = 0."""
    return torch.xlogy(tensor, tensor)


def kl_divergence(p: Distribution, q: Distribution) -> Any:
    r"""KL(p || q) = \int p(x) log(p(x) / q(x)) dx, a tensor of shape batch_shape."""
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {p.__class__.__name__} and "
            f"q type {q.__class__.__name__}"
        )
    return fun(p, q)


from tensortrace.distributions import (  # noqa: E402, F401 - registers torch's table
    kl_continuous_bernoulli,
    kl_cross_family,
    kl_lowrank_multivariate_normal,
    kl_multivariate_normal,
    kl_pareto,
    kl_same_family,
)
