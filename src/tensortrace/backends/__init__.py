"""torch.backends: the switches of the libraries torch's kernels may use (cuDNN, cuBLAS, MKL,
OpenMP, MPS) and what the build has. Mirrors `torch/backends/__init__.py`; the flags live in
at::globalContext() (aten/context.py)."""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

# bare assignment to torch.backends.<cudnn|mkldnn>.enabled and friends may be forbidden (torch's
# test suite does, so that a test cannot forget to undo it): flags() is always allowed
__allow_nonbracketed_mutation_flag = True


def disable_global_flags() -> None:
    global __allow_nonbracketed_mutation_flag
    __allow_nonbracketed_mutation_flag = False


def flags_frozen() -> bool:
    return not __allow_nonbracketed_mutation_flag


@contextmanager
def __allow_nonbracketed_mutation() -> Iterator[None]:
    global __allow_nonbracketed_mutation_flag
    old = __allow_nonbracketed_mutation_flag
    __allow_nonbracketed_mutation_flag = True
    try:
        yield
    finally:
        __allow_nonbracketed_mutation_flag = old


allow_nonbracketed_mutation = __allow_nonbracketed_mutation


class ContextProp:
    """A module attribute that reads and writes a global-context flag."""

    def __init__(self, getter: Callable[[], Any], setter: Callable[[Any], None]) -> None:
        self.getter = getter
        self.setter = setter

    def __get__(self, obj: Any, objtype: Any) -> Any:
        return self.getter()

    def __set__(self, obj: Any, val: Any) -> None:
        if not flags_frozen():
            self.setter(val)
        else:
            raise RuntimeError(
                f"not allowed to set {obj.__name__} flags "
                "after disable_global_flags; please use flags() context manager instead"
            )


class PropModule(types.ModuleType):
    """A module whose class holds ContextProps: `torch.backends.cudnn.enabled = False`."""

    def __init__(self, m: types.ModuleType, name: str) -> None:
        super().__init__(name)
        self.m = m

    def __getattr__(self, attr: str) -> Any:
        return self.m.__getattribute__(attr)


from tensortrace.backends import cpu as cpu  # noqa: E402
from tensortrace.backends import cuda as cuda  # noqa: E402
from tensortrace.backends import cudnn as cudnn  # noqa: E402
from tensortrace.backends import mkl as mkl  # noqa: E402
from tensortrace.backends import mkldnn as mkldnn  # noqa: E402
from tensortrace.backends import mps as mps  # noqa: E402
from tensortrace.backends import openmp as openmp  # noqa: E402
