"""The torch.<function>s that PyTorch writes in Python: torch.norm, torch.broadcast_tensors.

Mirrors `torch/functional.py`. torch.norm is a thin router onto torch.linalg: 'fro' (or p=None)
over at most two dims is the vector 2-norm, a number p is linalg.vector_norm, and 'nuc' (or
'fro' over more dims) is linalg.matrix_norm.
"""

from __future__ import annotations

from typing import Any

__all__ = ["broadcast_tensors", "norm"]


def broadcast_tensors(*tensors: Any) -> Any:
    """torch.broadcast_tensors(*tensors): _VF.broadcast_tensors on the tuple."""
    from tensortrace.csrc.python_torch_functions import VariableFunctions

    return VariableFunctions["broadcast_tensors"](tensors)


def norm(input: Any, p: Any = "fro", dim: Any = None, keepdim: bool = False,  # noqa: A002
         out: Any = None, dtype: Any = None) -> Any:
    """torch.norm: see the module docstring (and torch's deprecation note: prefer linalg)."""
    from tensortrace import linalg

    _dim = [dim] if isinstance(dim, int) else dim
    kwargs: dict[str, Any] = {"dtype": dtype}
    if out is not None:
        kwargs["out"] = out
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return linalg.vector_norm(input, 2, _dim, keepdim, **kwargs)
        # the nuclear norm, or matrix_norm with arguments that make it raise
        if _dim is None:
            _dim = list(range(input.ndim))
        return linalg.matrix_norm(input, p, _dim, keepdim, **kwargs)
    _p = 2.0 if p is None else p
    return linalg.vector_norm(input, _p, _dim, keepdim, **kwargs)
