"""The matrix exponential: linalg.matrix_exp / torch.matrix_exp and matrix_exp_backward.

Mirrors `aten/src/ATen/native/LinearAlgebra.cpp`: linalg_matrix_exp and mexp / mexp_impl, after
Bader, Blanes and Casas, "Computing the Matrix Exponential with an Optimized Taylor Polynomial
Approximation" (Mathematics 2019): each matrix of the batch gets the Taylor polynomial of degree
1, 2, 4, 8, 12 or 18 that its 1-norm allows (thresholds `thetas` per precision), evaluated
with few products (compute_T1 ... compute_T18 and their coefficients), and above the last
threshold a scaling by 2^-s and s squarings. Here the polynomials are evaluated with NumPy in
the input's precision, one kernel frame per call, where torch calls matmul per product.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.batch_linear_algebra import squareCheckInputs
from tensortrace.aten.native.linalg_norms import checkFloatingOrComplex
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/LinearAlgebra.cpp"

THETAS_FLOAT = (
    1.192092800768788e-07,  # deg 1
    5.978858893805233e-04,  # deg 2
    5.116619363445086e-02,  # deg 4
    5.800524627688768e-01,  # deg 8
    1.461661507209034e00,  # deg 12
    3.010066362817634e00,  # deg 18
)
THETAS_DOUBLE = (
    2.220446049250313e-16,
    2.580956802971767e-08,
    3.397168839976962e-04,
    4.991228871115323e-02,
    2.996158913811580e-01,
    1.090863719290036e00,
)
SQRT_177 = 0.1330413469565007072504e2
X3 = 2.0 / 3.0
X1 = X3 * ((1.0 + SQRT_177) / 88.0)
X2 = X3 * ((1.0 + SQRT_177) / 352.0)
X4 = (-271.0 + 29.0 * SQRT_177) / (315.0 * X3)
X5 = (-11.0 + 11.0 * SQRT_177) / (1260.0 * X3)
X6 = (-99.0 + 11.0 * SQRT_177) / (5040.0 * X3)
X7 = (89.0 - SQRT_177) / (5040.0 * X3)
Y2 = (857.0 - 58.0 * SQRT_177) / 630.0
B12 = (
    (9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
    (
        5.31597895759871264183,
        1.19926790417132231573,
        0.01179296240992997031,
        0.01108844528519167989,
    ),
    (
        0.18188869982170434744,
        0.05502798439925399070,
        0.09351590770535414968,
        0.00610700528898058230,
    ),
    (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359),
)
B18 = (
    (
        0.0,
        -1.00365581030144618291e-01,
        -8.02924648241156932449e-03,
        -8.92138498045729985177e-04,
        0.0,
    ),
    (
        0.0,
        3.97849749499645077844e-01,
        1.36783778460411720168e00,
        4.98289622525382669416e-01,
        -6.37898194594723280150e-04,
    ),
    (
        -1.09676396052962061844e01,
        1.68015813878906206114e00,
        5.71779846478865511061e-02,
        -6.98210122488052056106e-03,
        3.34975017086070470649e-05,
    ),
    (
        -9.04316832390810593223e-02,
        -6.76404519071381882256e-02,
        6.75961301770459654925e-02,
        2.95552570429315521194e-02,
        -1.39180257516060693404e-05,
    ),
    (
        0.0,
        0.0,
        -9.23364619367118555360e-02,
        -1.69364939002081722752e-02,
        -1.40086798182036094347e-05,
    ),
)


def _powers(a: np.ndarray, count: int) -> list[np.ndarray]:
    """_fill_matrix_powers: I, A, A^2, A^3, A^6 (the first `count`)."""
    eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
    out = [eye, a]
    if count > 2:
        out.append(a @ a)
    if count > 3:
        out.append(a @ out[2])
    if count > 4:
        out.append(out[3] @ out[3])
    return out[:count]


def _combination(As: list[np.ndarray], coefficients: tuple[float, ...]) -> np.ndarray:
    """_compute_linear_combination of one row of coefficients."""
    real = np.empty(0, As[0].dtype).real.dtype
    c = np.asarray(coefficients, dtype=real)
    return sum((ci * Ai for ci, Ai in zip(c, As)), np.zeros_like(As[0]))


def compute_T(degree: int, a: np.ndarray) -> np.ndarray:
    """The Taylor polynomial of the given degree, evaluated as compute_T<degree> does."""
    if degree == 1:
        eye, A = _powers(a, 2)
        return eye + A
    if degree == 2:
        eye, A, A2 = _powers(a, 3)
        return eye + A + A2 / 2
    if degree == 4:
        As = _powers(a, 3)
        tail = As[2] @ _combination(As, (1 / 2.0, 1 / 6.0, 1 / 24.0))
        return _combination([*As, tail], (1.0, 1.0, 0.0, 1.0))
    if degree == 8:
        As = _powers(a, 3)
        A4 = As[2] @ _combination(As[1:3], (X1, X2))
        A8 = _combination([As[2], A4], (X3, 1.0)) @ _combination([*As, A4], (X4, X5, X6, X7))
        return _combination([*As, A4, A8], (1.0, 1.0, Y2, 0.0, 1.0))
    if degree == 12:
        As = _powers(a, 4)
        Bs = [_combination(As, row) for row in B12]
        Bs[2] = Bs[2] + Bs[3] @ Bs[3]  # A6
        return Bs[0] + (Bs[1] + Bs[2]) @ Bs[2]
    As = _powers(a, 5)
    Bs = [_combination(As, row) for row in B18]
    Bs[3] = Bs[3] + Bs[0] @ Bs[4]  # A9
    return Bs[1] + (Bs[2] + Bs[3]) @ Bs[3]


def _T18_scale_square(a: np.ndarray, norm: np.ndarray, theta: float) -> np.ndarray:
    """exp(A) = exp(A / 2^s)^(2^s), s the least that brings the norm under theta."""
    with np.errstate(divide="ignore"):
        s = np.maximum(0.0, np.ceil(np.log2(norm / theta))).astype(np.int64)
    scaled = a / (2.0**s)[:, None, None].astype(a.real.dtype)
    mexp = compute_T(18, scaled)
    for i in range(mexp.shape[0]):
        for _ in range(int(s[i])):
            mexp[i] = mexp[i] @ mexp[i]
    return mexp


@traced("kernel", "at::native::(anonymous)::mexp_impl", SOURCE, legacy="mexp")
def mexp_kernel(a: Tensor, result: Tensor) -> None:
    x = np.ascontiguousarray(a.numpy_view()).reshape(-1, a.size(-2), a.size(-1))
    single = x.real.dtype == np.float32
    thetas = THETAS_FLOAT if single else THETAS_DOUBLE
    norm = np.abs(x).sum(-2).max(-1)  # operator_1_norm: the largest column sum
    res = np.empty_like(x)
    lower = -1.0
    for degree, theta in zip((1, 2, 4, 8, 12), thetas):
        idx = np.nonzero((lower < norm) & (norm <= theta))[0]
        if idx.size:
            res[idx] = compute_T(degree, x[idx])
        lower = theta
    idx = np.nonzero(norm >= thetas[-2])[0]
    if idx.size:
        res[idx] = _T18_scale_square(x[idx], norm[idx], thetas[-1])
    result.numpy_view()[...] = res.reshape(result.numpy_view().shape)


@native_function(SOURCE, name="linalg_matrix_exp", legacy="at::native::linalg_matrix_exp")
def linalg_matrix_exp(self: Tensor) -> Tensor:
    a = self
    squareCheckInputs(a, "linalg.matrix_exp")
    checkFloatingOrComplex(a, "linalg.matrix_exp")
    n = a.size(-1)
    if n == 0:
        return a.clone()
    if n == 1:
        return a.exp()
    result = at.empty(list(a.sizes()), dtype=a.scalar_type(), device=a.device())
    mexp_kernel(a, result)
    return result


@native_function(SOURCE, name="matrix_exp", legacy="at::native::matrix_exp")
def matrix_exp(self: Tensor) -> Tensor:
    return at.linalg_matrix_exp(self)  # type: ignore[no-any-return]


@native_function(SOURCE, name="matrix_exp_backward", legacy="at::native::matrix_exp_backward")
def matrix_exp_backward(self: Tensor, grad: Tensor) -> Tensor:
    """backward_analytic_function_of_a_matrix: exp([[A^H, G], [0, A^H]])'s upper-right block."""
    a_h = self.mH()
    n = a_h.size(-1)
    sizes = list(a_h.sizes())
    sizes[-2] *= 2
    sizes[-1] *= 2
    meta_grad = at.zeros(sizes, dtype=grad.scalar_type(), device=grad.device())
    meta_grad.narrow(-2, 0, n).narrow(-1, 0, n).copy_(a_h)
    meta_grad.narrow(-2, n, n).narrow(-1, n, n).copy_(a_h)
    meta_grad.narrow(-2, 0, n).narrow(-1, n, n).copy_(grad)
    return meta_grad.matrix_exp().narrow(-2, 0, n).narrow(-1, n, n)  # type: ignore[no-any-return]
