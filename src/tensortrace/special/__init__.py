"""torch.special: the special functions (erf and its relatives, the gamma family, the Bessel
functions, ndtr / ndtri / log_ndtr, entr, logit / expit, xlogy / xlog1py, zeta...) and the
softmax / logsumexp aliases.

Mirrors `torch/special/__init__.py`, which binds each `torch._C._special.special_<op>` as
`torch.special.<op>`: the functions are the generated bindings of the `python_module: special`
ops of native_functions.yaml (aten/native/special_aliases.py and the kernels of the new ones).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tensortrace.csrc import python_special_functions as _bindings

if TYPE_CHECKING:  # the bindings, copied into globals() below

    def __getattr__(name: str) -> Any: ...


globals().update(_bindings.SpecialFunctions)

__all__ = sorted(_bindings.SpecialFunctions)
