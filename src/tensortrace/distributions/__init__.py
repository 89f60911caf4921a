"""torch.distributions: parameterizable probability distributions and sampling functions.

Mirrors `torch/distributions/__init__.py`; each class is in the module named as torch's.
"""

from tensortrace.distributions import constraints, transforms
from tensortrace.distributions.bernoulli import Bernoulli
from tensortrace.distributions.beta import Beta
from tensortrace.distributions.binomial import Binomial
from tensortrace.distributions.categorical import Categorical
from tensortrace.distributions.cauchy import Cauchy
from tensortrace.distributions.chi2 import Chi2
from tensortrace.distributions.constraint_registry import biject_to, transform_to
from tensortrace.distributions.continuous_bernoulli import ContinuousBernoulli
from tensortrace.distributions.dirichlet import Dirichlet
from tensortrace.distributions.distribution import Distribution
from tensortrace.distributions.exp_family import ExponentialFamily
from tensortrace.distributions.exponential import Exponential
from tensortrace.distributions.fishersnedecor import FisherSnedecor
from tensortrace.distributions.gamma import Gamma
from tensortrace.distributions.geometric import Geometric
from tensortrace.distributions.gumbel import Gumbel
from tensortrace.distributions.half_cauchy import HalfCauchy
from tensortrace.distributions.half_normal import HalfNormal
from tensortrace.distributions.independent import Independent
from tensortrace.distributions.inverse_gamma import InverseGamma
from tensortrace.distributions.kl import kl_divergence, register_kl
from tensortrace.distributions.kumaraswamy import Kumaraswamy
from tensortrace.distributions.laplace import Laplace
from tensortrace.distributions.log_normal import LogNormal
from tensortrace.distributions.logistic_normal import LogisticNormal
from tensortrace.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal
from tensortrace.distributions.mixture_same_family import MixtureSameFamily
from tensortrace.distributions.multinomial import Multinomial
from tensortrace.distributions.multivariate_normal import MultivariateNormal
from tensortrace.distributions.negative_binomial import NegativeBinomial
from tensortrace.distributions.normal import Normal
from tensortrace.distributions.one_hot_categorical import (
    OneHotCategorical,
    OneHotCategoricalStraightThrough,
)
from tensortrace.distributions.pareto import Pareto
from tensortrace.distributions.poisson import Poisson
from tensortrace.distributions.relaxed_bernoulli import RelaxedBernoulli
from tensortrace.distributions.relaxed_categorical import RelaxedOneHotCategorical
from tensortrace.distributions.studentT import StudentT
from tensortrace.distributions.transformed_distribution import TransformedDistribution
from tensortrace.distributions.transforms import *  # noqa: F403
from tensortrace.distributions.uniform import Uniform
from tensortrace.distributions.weibull import Weibull

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Cauchy",
    "Chi2",
    "ContinuousBernoulli",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "FisherSnedecor",
    "Gamma",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "InverseGamma",
    "Kumaraswamy",
    "Laplace",
    "LogNormal",
    "LogisticNormal",
    "LowRankMultivariateNormal",
    "MixtureSameFamily",
    "Multinomial",
    "MultivariateNormal",
    "NegativeBinomial",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Pareto",
    "Poisson",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "StudentT",
    "TransformedDistribution",
    "Uniform",
    "Weibull",
    "biject_to",
    "constraints",
    "kl_divergence",
    "register_kl",
    "transform_to",
    "transforms",
]
__all__.extend(transforms.__all__)
