"""torch.distributions.transforms: mirrors `torch/distributions/transforms.py`.

The classes live in transform_base.py (Transform and its combinators) and
transforms_bijections.py (the elementwise and simplex maps); this module gathers them under
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
    PowerTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StickBreakingTransform,
    TanhTransform,
)

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "ComposeTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StickBreakingTransform",
    "TanhTransform",
    "Transform",
    "_InverseTransform",
    "identity_transform",
]
