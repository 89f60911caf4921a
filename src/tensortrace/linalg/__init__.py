"""torch.linalg: the linear algebra functions (norms, det, svdvals).

Mirrors `torch/linalg/__init__.py`, which binds each `torch._C._linalg.linalg_<op>` as
`torch.linalg.<op>` (vector_norm, matrix_norm, norm, det, svdvals).
"""

from __future__ import annotations

from tensortrace.csrc.python_linalg_functions import LinalgFunctions as _functions  # noqa: N813

globals().update(_functions)

__all__ = sorted(_functions)
