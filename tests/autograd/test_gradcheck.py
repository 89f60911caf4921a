"""Every derivative formula against finite differences, in float64 (torch.autograd.gradcheck).

Inputs are kept away from the points where an op is not differentiable (ties of max/min/clamp,
zero of abs/relu), as torch's own OpInfo samples are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import tensortrace as torch
from tensortrace.autograd import GradcheckError, gradcheck


def t(*shape: int, lo: float = -1.0, hi: float = 1.0) -> Any:
    """Distinct, well-spread float64 values in (lo, hi), requiring grad."""
    n = 1
    for s in shape:
        n *= s
    values = torch.linspace(lo, hi, n + 2, dtype=torch.float64)[1:-1]
    perm = torch.tensor([(7 * i + 3) % n for i in range(n)])
    return values[perm].reshape(shape).clone().requires_grad_()


CASES: dict[str, tuple[Callable[..., Any], Callable[[], tuple[Any, ...]]]] = {
    "add": (lambda a, b: a + b * 2, lambda: (t(2, 3), t(3))),
    "sub_alpha": (lambda a, b: torch.sub(a, b, alpha=3), lambda: (t(2, 3), t(2, 1))),
    "mul": (lambda a, b: a * b, lambda: (t(2, 3), t(2, 3))),
    "div": (lambda a, b: a / b, lambda: (t(2, 3), t(2, 3, lo=1.0, hi=2.0))),
    "rsub": (lambda a: 2 - a, lambda: (t(3),)),
    "pow_scalar": (lambda a: a**3, lambda: (t(4),)),
    "pow_tensor": (lambda a, b: a**b, lambda: (t(4, lo=0.5, hi=2.0), t(4))),
    "rpow": (lambda a: 2**a, lambda: (t(4),)),
    "exp": (lambda a: a.exp(), lambda: (t(5),)),
    "log": (lambda a: a.log(), lambda: (t(5, lo=0.5, hi=3.0),)),
    "sqrt": (lambda a: a.sqrt(), lambda: (t(5, lo=0.5, hi=3.0),)),
    "sin_cos": (lambda a: a.sin() * a.cos(), lambda: (t(5),)),
    "tanh": (lambda a: a.tanh(), lambda: (t(5),)),
    "sigmoid": (lambda a: a.sigmoid(), lambda: (t(5),)),
    "relu": (lambda a: a.relu(), lambda: (t(6),)),
    "abs": (lambda a: a.abs(), lambda: (t(6),)),
    "neg_reciprocal": (lambda a: (-a).reciprocal(), lambda: (t(4, lo=1.0, hi=2.0),)),
    "maximum": (lambda a, b: torch.maximum(a, b), lambda: (t(5), t(5, lo=-0.77, hi=0.83))),
    "minimum": (lambda a, b: torch.minimum(a, b), lambda: (t(5), t(5, lo=-0.77, hi=0.83))),
    "clamp": (lambda a: a.clamp(-0.33, 0.41), lambda: (t(6),)),
    "where": (lambda a, b: torch.where(a > 0, a, b), lambda: (t(6), t(6))),
    "masked_fill": (lambda a: a.masked_fill(a > 0.2, 0.5), lambda: (t(6),)),
    "sum_dim": (lambda a: a.sum(1), lambda: (t(2, 3),)),
    "mean_keepdim": (lambda a: a.mean(0, keepdim=True), lambda: (t(3, 2),)),
    "prod": (lambda a: a.prod(), lambda: (t(4),)),
    "prod_dim": (lambda a: a.prod(1), lambda: (t(2, 3),)),
    "max": (lambda a: a.max(), lambda: (t(5),)),
    "max_dim": (lambda a: a.max(1)[0], lambda: (t(2, 3),)),
    "min_dim_keepdim": (lambda a: a.min(0, keepdim=True)[0], lambda: (t(3, 2),)),
    "var": (lambda a: a.var(1), lambda: (t(2, 4),)),
    "std": (lambda a: a.std(), lambda: (t(5),)),
    "cumsum": (lambda a: a.cumsum(1), lambda: (t(2, 3),)),
    "mm": (lambda a, b: a.mm(b), lambda: (t(2, 3), t(3, 2))),
    "bmm": (lambda a, b: a.bmm(b), lambda: (t(2, 2, 3), t(2, 3, 2))),
    "mv": (lambda a, v: a.mv(v), lambda: (t(2, 3), t(3))),
    "dot": (lambda a, b: a.dot(b), lambda: (t(3), t(3))),
    "matmul": (lambda a, b: a @ b, lambda: (t(2, 2, 3), t(3, 2))),
    "addmm": (
        lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2),
        lambda: (t(2), t(2, 3), t(3, 2)),
    ),
    "addmv": (lambda c, a, v: torch.addmv(c, a, v), lambda: (t(2), t(2, 3), t(3))),
    "select_slice": (lambda a: a[1] * a[:, 1:].sum(), lambda: (t(3, 3),)),
    "t_permute": (lambda a: a.t().permute(1, 0) * a, lambda: (t(2, 3),)),
    "view_expand": (lambda a: a.view(6).expand(2, 6), lambda: (t(2, 3),)),
    "squeeze_unsqueeze": (lambda a: a.unsqueeze(0).squeeze(), lambda: (t(3, 1),)),
    "diagonal": (lambda a: a.diagonal(), lambda: (t(3, 3),)),
    "as_strided": (lambda a: a.as_strided((3, 2), (1, 1)), lambda: (t(4),)),
    "split_unbind": (lambda a: a.split(2)[1] * a.unbind()[0][0], lambda: (t(4, 2),)),
    "index": (lambda a: a[torch.tensor([2, 0, 2])], lambda: (t(3, 2),)),
    "cat_stack": (lambda a, b: torch.cat([a, torch.stack([b, b])]), lambda: (t(1, 3), t(3))),
    "to_dtype": (lambda a: a.to(torch.float64) * a, lambda: (t(3),)),
    "inplace_view": (lambda a: _inplace_view(a), lambda: (t(2, 3),)),
    "setitem": (lambda a, b: _setitem(a, b), lambda: (t(2, 3), t(3))),
}


def _inplace_view(a: Any) -> Any:
    b = a * 1
    b[0].mul_(a[1])
    return b


def _setitem(a: Any, b: Any) -> Any:
    c = a * 1
    c[1] = b.exp()
    return c


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name: str) -> None:
    fn, make = CASES[name]
    assert gradcheck(fn, make())


def test_gradcheck_catches_a_wrong_formula(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: tanh's formula, broken on purpose, is caught."""
    from tensortrace.autograd.generated import functions

    monkeypatch.setattr(functions, "tanh_backward", lambda grad, result: grad.mul(result))
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradcheck(lambda x: x.tanh(), (t(3),))
    assert not gradcheck(lambda x: x.tanh(), (t(3),), raise_exception=False)
