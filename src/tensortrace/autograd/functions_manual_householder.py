"""householder_product_backward: the gradient of linalg.householder_product with respect to
the reflectors and to tau.

The role of `householder_product_backward` of `torch/csrc/autograd/FunctionsManual.cpp`.
Q = H_1 ... H_k E with H_i = I - tau_i v_i v_i^H, E = I[:, :n], and v_i the i-th column of
`input` below the diagonal with a 1 on it. Splitting Q = L_i H_i R_i around each factor
(L_i = H_1 ... H_{i-1}, R_i = H_{i+1} ... H_k E), the gradient reaching H_i is
gH = L_i^H G R_i^H; then, with torch's convention for complex inputs (the conjugate Wirtinger
derivative),
    grad tau_i = -v_i^H gH v_i,    grad v_i = -conj(tau_i) gH v_i - tau_i gH^H v_i,
and the gradient of input is grad v_i's entries below the diagonal (the 1 and the zeros above
it are constants), zero in the columns past k. functions_manual.py imports it into the
formulas' namespace.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.tensor_body import Tensor


def _mH(t: Tensor) -> Tensor:
    return t.transpose(-2, -1).conj()


def householder_product_backward(
    grad: Tensor, result: Tensor, input: Tensor, tau: Tensor
) -> tuple[Tensor, Tensor]:
    m, n, k = input.size(-2), input.size(-1), tau.size(-1)
    options = {"dtype": input.scalar_type(), "device": input.device()}
    if k == 0:
        return at.zeros_like(input), at.zeros_like(tau)
    # the reflectors as columns: unit diagonal, zeros above it
    V = input.narrow(-1, 0, k).tril(-1).add(at.eye(m, k, **options))
    vs = [V.narrow(-1, i, 1) for i in range(k)]
    taus = [tau.narrow(-1, i, 1).unsqueeze(-1) for i in range(k)]
    H = [at.eye(m, **options).sub(taus[i].mul(vs[i].matmul(_mH(vs[i])))) for i in range(k)]
    suffixes = [at.eye(m, n, **options)] * k  # R_i
    for i in range(k - 1, 0, -1):
        suffixes[i - 1] = H[i].matmul(suffixes[i])
    prefix = at.eye(m, **options)  # L_i
    grad_vs, grad_taus = [], []
    for i in range(k):
        gH = _mH(prefix).matmul(grad).matmul(_mH(suffixes[i]))
        v = vs[i]
        grad_taus.append(_mH(v).matmul(gH).matmul(v).neg().squeeze(-1))
        grad_vs.append(taus[i].conj().mul(gH.matmul(v)).add(taus[i].mul(_mH(gH).matmul(v))).neg())
        prefix = prefix.matmul(H[i])
    grad_input = at.cat(grad_vs, -1).tril(-1)
    if n > k:
        grad_input = at.cat([grad_input, input.new_zeros([*input.sizes()[:-1], n - k])], -1)
    return grad_input, at.cat(grad_taus, -1)
