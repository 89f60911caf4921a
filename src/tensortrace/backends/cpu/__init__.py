"""torch.backends.cpu. Mirrors `torch/backends/cpu/__init__.py`."""

from __future__ import annotations

import functools
import os

__all__ = ["get_cpu_capability"]

# cpuinfo's flags for each capability ATen's DispatchStub can pick (Note [CPU capability] in
# aten/src/ATen/native/DispatchStub.cpp: AVX512 needs avx512f/bw/dq/vl and fma, AVX2 needs
# avx2 and fma)
_AVX512 = {"avx512f", "avx512bw", "avx512dq", "avx512vl", "fma"}
_AVX2 = {"avx2", "fma"}


@functools.cache
def _cpu_flags() -> frozenset[str]:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def get_cpu_capability() -> str:
    """The CPU capability ATen's vectorized kernels would use here: "AVX512", "AVX2",
    "DEFAULT" (ATEN_CPU_CAPABILITY may lower it, as in torch)."""
    flags = _cpu_flags()
    if _AVX512 <= flags:
        detected = "AVX512"
    elif _AVX2 <= flags:
        detected = "AVX2"
    else:
        detected = "DEFAULT"
    order = ["DEFAULT", "AVX2", "AVX512"]
    wanted = os.environ.get("ATEN_CPU_CAPABILITY", "").upper()
    if wanted in order and order.index(wanted) < order.index(detected):
        return wanted
    return detected
