"""Forward AD frees all it allocates, after a success or an error: tangents die with their dual
tensors or when their level is exited (ForwardADLevel holds its ForwardGrads weakly, as
~AutogradMeta clears them in torch), and a failing op inside a level leaves nothing behind.

Every program of test_forward_ad.py, test_forward_ad_nn.py and test_func_jvp.py runs in
tensortrace alone, with the cyclic GC off: reference counting alone must free everything.
"""

from __future__ import annotations

import gc
import math
import warnings

import numpy as np

import tensortrace
from tensortrace.autograd import forward_ad

from . import (
    test_forward_ad,
    test_forward_ad_custom_function,
    test_forward_ad_nn,
    test_func_jvp,
)


def _run(source: str) -> None:
    namespace = {"torch": tensortrace, "np": np, "math": math}
    try:
        exec(source, namespace)
    except (RuntimeError, TypeError, IndexError, ValueError, NotImplementedError):
        pass
    namespace.clear()


def test_every_program_frees_everything() -> None:
    programs = {
        **{f"fwad_{k}": test_forward_ad.PRE + v for k, v in test_forward_ad.PROGRAMS.items()},
        **{f"nn_{k}": test_forward_ad_nn.PRE + v for k, v in test_forward_ad_nn.PROGRAMS.items()},
        **{f"jvp_{k}": test_func_jvp.PRE + v for k, v in test_func_jvp.PROGRAMS.items()},
        **{
            f"fn_{k}": test_forward_ad_custom_function.PRE + v
            for k, v in test_forward_ad_custom_function.PROGRAMS.items()
        },
    }
    gc.disable()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            leaks = []
            for name, source in programs.items():
                start = tensortrace.memory_allocated("cpu")
                _run(source)
                # a program that failed inside `with dual_level()` exited its level on the way out
                assert forward_ad._current_level == -1, name
                if tensortrace.memory_allocated("cpu") != start:
                    leaks.append(name)
    finally:
        gc.enable()
    assert leaks == []


def test_tangent_dies_with_its_dual_tensor() -> None:
    gc.disable()
    try:
        with forward_ad.dual_level():
            x = tensortrace.randn(100)
            start = tensortrace.memory_allocated("cpu")
            d = forward_ad.make_dual(x, tensortrace.randn(100))
            y = (d * 2).exp()
            del d, y
            assert tensortrace.memory_allocated("cpu") == start
    finally:
        gc.enable()
