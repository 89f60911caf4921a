"""torch.get_num_threads and torch.set_num_threads: the intra-op thread count.

Mirrors `torch/csrc/Module.cpp` (THPModule_getNumThreads, THPModule_setNumThreads): the binding
checks that the argument is an int (THPUtils_checkLong: not a bool) before at::set_num_threads.
"""

from __future__ import annotations

import numbers

from tensortrace.aten import parallel
from tensortrace.c10.exception import TORCH_CHECK


def get_num_threads() -> int:
    """The number of threads used for intra-op parallelism on CPU."""
    return parallel.get_num_threads()


def set_num_threads(nthreads: int) -> None:
    """Sets the number of threads used for intra-op parallelism on CPU."""
    is_long = isinstance(nthreads, numbers.Integral) and not isinstance(nthreads, bool)
    TORCH_CHECK(is_long, "set_num_threads expects an int, but got ", _typename(nthreads))
    value = int(nthreads)
    TORCH_CHECK(value > 0, "set_num_threads expects a positive integer")
    parallel.set_num_threads(value)


def _typename(obj: object) -> str:
    """THPUtils_typename: the type's tp_name ('float', 'numpy.float64')."""
    cls = type(obj)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"
