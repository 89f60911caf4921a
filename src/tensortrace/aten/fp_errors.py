"""NumPy's floating-point error state while a kernel runs: nothing traps, nothing warns.

A C++ kernel computes inf and nan silently (1e38f * 10 is inf, 0/0 is nan); NumPy would warn
("overflow encountered in multiply") unless its error state says "ignore". `np.errstate(all=
"ignore")` sets that state for a block; the kernels every op runs set it themselves instead.

Note [The error state set directly]
np.errstate is a Python context manager: its __init__, __enter__ and __exit__ cost more than the
whole add of two 4x4 tensors. All they do on NumPy 2 is set one context variable to an "ignore
all" object and reset it afterwards, so the hot loops do exactly that:

    token = NUMPY_ERROR_STATE.set(IGNORE_ALL)   # with np.errstate(all="ignore"):
    try:
        ...
    finally:
        NUMPY_ERROR_STATE.reset(token)

two C calls, the same state. A context variable is per thread, as np.errstate's state is: a
parallel_for worker sets its own. On NumPy 1.x (no such variable) the same two calls go
through np.seterr, which is what np.errstate did there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from numpy._core._ufunc_config import _extobj_contextvar  # type: ignore[attr-defined]
    from numpy._core.umath import _make_extobj  # type: ignore[attr-defined]
except ImportError:  # NumPy 1.x
    _extobj_contextvar = None


class _SeterrState:
    """NumPy 1.x: the error state is np.seterr's; set() returns what reset() restores."""

    def set(self, _ignore_all: object) -> dict[str, Any]:
        return dict(np.seterr(all="ignore"))

    def reset(self, token: dict[str, Any]) -> None:
        np.seterr(**token)


if _extobj_contextvar is not None:
    NUMPY_ERROR_STATE: Any = _extobj_contextvar
    IGNORE_ALL: object = _make_extobj(all="ignore")
else:  # pragma: no cover - NumPy 1.x
    NUMPY_ERROR_STATE = _SeterrState()
    IGNORE_ALL = None
