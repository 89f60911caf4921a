"""The module backward hooks and the global module hooks free all they allocate, after a
success or an error: each program of test_nn_module_backward_hooks.py and
test_nn_module_global_hooks.py runs in tensortrace alone, and once its namespace is dropped
(and the global hooks cleared) the CPU allocator's memory_allocated must be back where it
started. Reference counting alone frees them: gc stays off, as in test_nn_utils_leaks.py."""

from __future__ import annotations

import gc
import math
import warnings

import numpy as np

import tensortrace
import tensortrace.nn.modules.module_global_hooks as global_hooks

from . import test_nn_module_backward_hooks, test_nn_module_global_hooks

SUITES = {
    "backward": (test_nn_module_backward_hooks.PRE, test_nn_module_backward_hooks.PROGRAMS),
    "global": (test_nn_module_global_hooks.PRE, test_nn_module_global_hooks.PROGRAMS),
}


def _clear_global_hooks() -> None:
    for name, value in vars(global_hooks).items():
        if name.startswith("_global_") and isinstance(value, dict):
            value.clear()
    global_hooks._global_is_full_backward_hook = None


def _run(source: str) -> None:
    namespace = {"torch": tensortrace, "np": np, "math": math}
    try:
        exec(source, namespace)
    except (RuntimeError, TypeError, ValueError):
        pass
    finally:
        _clear_global_hooks()
    namespace.clear()  # the functions a program defines hold the namespace: break that cycle


def test_every_program_frees_everything() -> None:
    gc.collect()
    gc.disable()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            leaks = []
            for suite, (pre, programs) in SUITES.items():
                for name, source in programs.items():
                    start = tensortrace.memory_allocated("cpu")
                    _run(pre + source)
                    if tensortrace.memory_allocated("cpu") != start:
                        leaks.append(f"{suite}.{name}")
    finally:
        gc.enable()
    assert leaks == []
