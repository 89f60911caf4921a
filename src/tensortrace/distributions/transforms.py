"""torch.distributions.transforms: mirrors `torch/distributions/transforms.py`.

The classes live in transform_base.py (Transform and its combinators) and
transforms_bijections.py (the elementwise and simplex maps) and transforms_structural.py
(Cat, Stack, CorrCholesky, CumulativeDistribution); this module gathers them under
torch's module name.
"""

from tensortrace.distributions.transform_base import (
    ComposeTransform,
    IndependentTransform,
    ReshapeTransform,
    Transform,
    _InverseTransform,
    identity_transform,
)
from tensortrace.distributions.transforms_bijections import (
    AbsTransform,
    AffineTransform,
    ExpTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StickBreakingTransform,
    TanhTransform,
)
from tensortrace.distributions.transforms_structural import (
    CatTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    StackTransform,
)

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StackTransform",
    "StickBreakingTransform",
    "TanhTransform",
    "Transform",
    "_InverseTransform",
    "identity_transform",
]
