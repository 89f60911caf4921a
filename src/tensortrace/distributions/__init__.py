"""torch.distributions: the distributions tutorials use (Normal, Uniform, Bernoulli, Categorical).

Mirrors `torch/distributions/__init__.py`; each class is in the module named as torch's.
"""

from tensortrace.distributions import constraints
from tensortrace.distributions.bernoulli import Bernoulli
from tensortrace.distributions.categorical import Categorical
from tensortrace.distributions.distribution import Distribution
from tensortrace.distributions.exp_family import ExponentialFamily
from tensortrace.distributions.normal import Normal
from tensortrace.distributions.uniform import Uniform

__all__ = [
    "Bernoulli",
    "Categorical",
    "Distribution",
    "ExponentialFamily",
    "Normal",
    "Uniform",
    "constraints",
]
