"""torch.linalg: the linear algebra functions (norms, det, svdvals, cross, matmul, inv, solve,
qr, eigh, eigvalsh, svd, and their _ex forms) and LinAlgError.

Mirrors `torch/linalg/__init__.py`, which binds each `torch._C._linalg.linalg_<op>` as
`torch.linalg.<op>`, and `LinAlgError = torch._C._LinAlgError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tensortrace.c10.exception import LinAlgError as LinAlgError
from tensortrace.csrc.python_linalg_functions import LinalgFunctions as _functions

if TYPE_CHECKING:  # the bindings, copied into globals() below

    def __getattr__(name: str) -> Any: ...


globals().update(_functions)

__all__ = sorted([*_functions, "LinAlgError"])
