"""vmap, grad, vjp and jacrev free all they allocate, after a success or an error.

Every program of test_func_vmap.py and test_func_grad.py runs in tensortrace alone; once its
namespace is dropped the CPU allocator's memory_allocated must be back where it started (a
BatchedTensorImpl holds its value and a reference to the value's storage: both must go, and the
vmap level stack must be empty again after an error inside vmap).
"""

from __future__ import annotations

import gc
import warnings

import tensortrace
from tensortrace.aten.functorch import dynamic_layer
from tensortrace.c10.dispatch_key import DispatchKey
from tensortrace.c10.local_dispatch_key_set import tls_local_dispatch_key_set

from .test_func_grad import PRE as GRAD_PRE
from .test_func_grad import PROGRAMS as GRAD_PROGRAMS
from .test_func_vmap import PRE as VMAP_PRE
from .test_func_vmap import PROGRAMS as VMAP_PROGRAMS


def _run(source: str) -> None:
    namespace = {"torch": tensortrace}
    try:
        exec(source, namespace)
    except (RuntimeError, TypeError, IndexError, ValueError, NotImplementedError):
        pass
    namespace.clear()


def test_every_program_frees_everything() -> None:
    programs = {
        **{f"vmap/{k}": VMAP_PRE + v for k, v in VMAP_PROGRAMS.items()},
        **{f"grad/{k}": GRAD_PRE + v for k, v in GRAD_PROGRAMS.items() if "tutorial" not in k},
    }
    leaks = []
    gc.disable()  # reference counting alone must free everything: no cycles
    try:
        _run_all(programs, leaks)
    finally:
        gc.enable()
    assert leaks == []


def _run_all(programs: dict[str, str], leaks: list[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, source in programs.items():
            start = tensortrace.memory_allocated("cpu")
            _run(source)
            if tensortrace.memory_allocated("cpu") != start:
                leaks.append(name)
            if dynamic_layer._stack or tls_local_dispatch_key_set().included_.has(
                DispatchKey.FuncTorchVmapMode
            ):
                leaks.append(f"{name} (vmap level stack)")
