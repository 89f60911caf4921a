"""torch.linalg: the linear algebra functions (norms, det, svdvals).

Mirrors `torch/linalg/__init__.py`, which binds each `torch._C._linalg.linalg_<op>` as
`torch.linalg.<op>` (vector_norm, matrix_norm, norm, det, svdvals).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tensortrace.csrc.python_linalg_functions import LinalgFunctions as _functions

if TYPE_CHECKING:  # the bindings, copied into globals() below

    def __getattr__(name: str) -> Any: ...


globals().update(_functions)

__all__ = sorted(_functions)
