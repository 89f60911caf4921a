"""at::globalContext(): the process-wide switches the torch.backends flags read and write.

Mirrors `aten/src/ATen/Context.h` (Context::deterministicAlgorithms, userEnabledCuDNN,
benchmarkCuDNN, deterministicCuDNN, allowTF32CuDNN, allowTF32CuBLAS, float32MatmulPrecision).
The emulated CUDA device has no cuDNN or cuBLAS: the flags are kept, as torch keeps them on a
build without them, and change no kernel here.
"""

from __future__ import annotations

from typing import Any


class Context:
    def __init__(self) -> None:
        self.deterministic_algorithms = False
        self.deterministic_algorithms_warn_only = False
        self.user_enabled_cudnn = True
        self.benchmark_cudnn = False
        self.benchmark_limit_cudnn = 10
        self.deterministic_cudnn = False
        self.allow_tf32_cudnn = True
        self.allow_tf32_cublas = False
        self.allow_fp16_reduction_cublas = True
        self.allow_bf16_reduction_cublas = True
        self.user_enabled_mkldnn = True
        self.deterministic_mkldnn = False
        self.float32_matmul_precision = "highest"

    def setDeterministicAlgorithms(self, b: bool, warn_only: bool) -> None:  # noqa: N802
        self.deterministic_algorithms = b
        self.deterministic_algorithms_warn_only = warn_only


_global_context = Context()


def globalContext() -> Context:  # noqa: N802 - at::globalContext()
    return _global_context


def check_bool(value: Any, setter: str) -> bool:
    """The `set_*` bindings' THPUtils_checkBool: a bool, or their RuntimeError."""
    if not isinstance(value, bool):
        raise RuntimeError(f"{setter} expects a bool, but got {type(value).__name__}")
    return value
