"""torch.nn.utils.parametrizations.orthogonal: an orthogonal (or unitary) matrix, or batch of
them, parametrized by the matrix exponential or the Cayley map of a skew-symmetric matrix, or by
a product of Householder reflectors.

Mirrors `_is_orthogonal`, `_make_orthogonal`, `_OrthMaps`, `_Orthogonal` and `orthogonal` of
`torch/nn/utils/parametrizations.py` (parametrizations.py re-exports `orthogonal`). With
use_trivialization (the default) the parametrization keeps a `base` buffer B, an orthogonal
n x n matrix, and its forward returns B @ map(X): right_inverse sets B from the assigned matrix
(made orthogonal by QR where it is not, and completed with random columns where it is not
square) and returns -I, the X for which the Householder map gives the identity.
"""

from __future__ import annotations

from enum import Enum, auto
from typing import Any

import tensortrace as torch
from tensortrace.nn.modules.module import Module
from tensortrace.nn.utils import parametrize

Tensor = torch.Tensor


def _is_orthogonal(Q: Any, eps: float | None = None) -> bool:
    n, k = Q.size(-2), Q.size(-1)
    Id = torch.eye(k, dtype=Q.dtype, device=Q.device)
    # A reasonable eps, but not too large
    eps = 10.0 * n * torch.finfo(Q.dtype).eps
    return bool(torch.allclose(Q.mH @ Q, Id, atol=eps))


def _make_orthogonal(A: Any) -> Any:
    """Assume that A is a tall matrix.

    Compute the Q factor s.t. A = QR (A may be complex) and diag(R) is real and non-negative.
    """
    X, tau = torch.geqrf(A)
    Q = torch.linalg.householder_product(X, tau)
    # The diagonal of X is the diagonal of R (which is always real) so we normalise by its signs
    Q *= X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    base: Any

    def __init__(
        self, weight: Any, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True
    ) -> None:
        super().__init__()
        # Note [Householder complex]: the reflectors of a complex matrix leave n(n-1) real
        # parameters where a unitary matrix has n^2, so householder is real only
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Any) -> Any:
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        # Here n > k and X is a tall matrix
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            # We just need n x k - k(k-1)/2 parameters
            X = X.tril()
            if n != k:
                # Embed into a square matrix
                X = torch.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            # A is skew-symmetric (or skew-hermitian)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = torch.matrix_exp(A)
            else:
                # Computes the Cayley retraction (I+A/2)(I-A/2)^{-1}
                Id = torch.eye(n, dtype=A.dtype, device=A.device)
                Q = torch.linalg.solve(torch.add(Id, A, alpha=-0.5), torch.add(Id, A, alpha=0.5))
            # Q is now orthogonal (or unitary) of size (..., n, n)
            if n != k:
                Q = Q[..., :k]
            # Q is now the size of the X (albeit perhaps transposed)
        else:
            # X is real here, as we do not support householder with complex numbers
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = torch.linalg.householder_product(A, tau)
            # The diagonal of X is 1's and -1's: not differentiated through, hence the cast
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    @torch.autograd.no_grad()
    def right_inverse(self, Q: Any) -> Any:
        if Q.shape != self.shape:
            raise ValueError(
                f"Expected a matrix or batch of matrices of shape {self.shape}. "
                f"Got a tensor of shape {Q.shape}."
            )
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        # We always make sure to copy Q in every path
        if not hasattr(self, "base"):
            # Note [right_inverse expm cayley]: without the trivialization only the
            # Householder map has an inverse to implement
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential "
                    "or the Cayley parametrizations when use_trivialization=False."
                )
            # make Q orthogonal via the QR decomposition (Q is real: Note [Householder complex])
            A, tau = torch.geqrf(Q)
            # diag(R) > 0, else an orthogonal Q would also decompose as Q = (-Q)@(-Id): the
            # diagonal of Q is the diagonal of R from the qr decomposition
            A.diagonal(dim1=-2, dim2=-1).sign_()
            # LAPACK returns exactly zero when it does not want to use a particular reflection
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            # We check whether Q is orthogonal
            Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
        else:
            # Complete Q into a full n x n orthogonal matrix
            N = torch.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = torch.cat([Q, N], dim=-1)
            Q = _make_orthogonal(Q)
        self.base = Q
        # -Id: householder(torch.zeros(m, n)) == torch.eye(m, n) (a poor man's eye_like)
        neg_Id = torch.zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(
    module: Module,
    name: str = "weight",
    orthogonal_map: str | None = None,
    *,
    use_trivialization: bool = True,
) -> Module:
    r"""Apply an orthogonal or unitary parametrization to a matrix or a batch of matrices:
    Q^H Q = I_n if m >= n, Q Q^H = I_m if m < n. ``orthogonal_map`` is ``"matrix_exp"``,
    ``"cayley"`` or ``"householder"`` (default: ``"matrix_exp"`` if the matrix is square or
    complex, ``"householder"`` otherwise)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    # We could implement this for 1-dim tensors as the maps on the sphere
    # but I believe it'd bite more people than it'd help
    if weight.ndim < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions."
        )
    if orthogonal_map is None:
        orthogonal_map = (
            "matrix_exp"
            if weight.size(-2) == weight.size(-1) or weight.is_complex()
            else "householder"
        )
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
