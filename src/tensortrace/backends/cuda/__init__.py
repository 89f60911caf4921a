"""torch.backends.cuda: cuBLAS's switches and what the build has.

Mirrors `torch/backends/cuda/__init__.py`. The emulated CUDA device is built in (is_built() is
True, as torch.cuda.is_available() is); it has no cuBLAS, so the matmul flags are only kept.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.context import check_bool, globalContext

__all__ = ["is_built", "matmul", "cuBLASModule", "preferred_linalg_library"]


def is_built() -> bool:
    """Whether this build has CUDA: the emulated device (tensortrace.cuda)."""
    return True


_FLAGS = {
    "allow_tf32": ("allow_tf32_cublas", "set_allow_tf32_cublas"),
    "allow_fp16_reduced_precision_reduction": (
        "allow_fp16_reduction_cublas",
        "set_allow_fp16_reduction_cublas",
    ),
    "allow_bf16_reduced_precision_reduction": (
        "allow_bf16_reduction_cublas",
        "set_allow_bf16_reduction_cublas",
    ),
}


class cuBLASModule:  # noqa: N801 - torch's name
    """`torch.backends.cuda.matmul`: allow_tf32 and the reduced-precision reductions."""

    def __getattr__(self, name: str) -> Any:
        if name in _FLAGS:
            return getattr(globalContext(), _FLAGS[name][0])
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in _FLAGS:
            raise AttributeError("Unknown attribute " + name)
        attr, setter = _FLAGS[name]
        setattr(globalContext(), attr, check_bool(value, setter))


matmul = cuBLASModule()


def preferred_linalg_library(backend: Any = None) -> str:
    """The linear algebra library CUDA ops use; here NumPy's LAPACK on every device."""
    return "Default"
