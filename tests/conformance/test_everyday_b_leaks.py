"""The everyday APIs of issue #15 (part B) free all they allocate, after a success or an error.

Every program of test_everyday_b.py runs in tensortrace alone; once its namespace is dropped
the CPU allocator's memory_allocated must be back where it started. All programs run in one
test (a gc.collect per program would cost more than the programs); a leak names its program.
"""

from __future__ import annotations

import gc
import math
import warnings

import numpy as np

import tensortrace

from .test_everyday_b import CLOSE, PROGRAMS


def _run(source: str) -> None:
    namespace = {"torch": tensortrace, "np": np, "math": math}
    try:
        exec(source, namespace)
    except (RuntimeError, TypeError, IndexError, ValueError, NotImplementedError):
        pass
    namespace.clear()


def test_every_program_frees_everything() -> None:
    programs = {**PROGRAMS, **CLOSE}
    gc.disable()  # reference counting alone must free everything: no cycles
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            leaks = []
            for name, source in programs.items():
                start = tensortrace.memory_allocated("cpu")
                _run(source)
                if tensortrace.memory_allocated("cpu") != start:
                    leaks.append(name)
    finally:
        gc.enable()
    assert leaks == []
