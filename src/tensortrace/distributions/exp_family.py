"""ExponentialFamily: the base of Normal and Bernoulli.

Mirrors `torch/distributions/exp_family.py` (only the class itself: its Bregman-divergence
entropy is not used by the subclasses here, which define entropy() themselves).
"""

from __future__ import annotations

from tensortrace.distributions.distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    pass
