"""Conformance of torch.backends and the deterministic-algorithms switches against torch 2.13.

tensortrace's build differs from torch's CPU wheel in what it has: an (emulated) CUDA device but
no cuDNN, no MKL, no oneDNN. So the flags are compared (their defaults, setting them, the
flags() context manager, the setters' errors), and what the build has is asserted here as
tensortrace's own answer, not torch's."""

from __future__ import annotations

import pytest

import tensortrace

from .harness import check

# each program leaves the global flags as it found them (a `finally:` puts them back)
PROGRAMS = {
    "cudnn_defaults": "c = torch.backends.cudnn\n"
    "out = [c.enabled, c.benchmark, c.deterministic, c.allow_tf32, c.version(), "
    "c.benchmark_limit is None or c.benchmark_limit == 10]",
    "cudnn_set": "c = torch.backends.cudnn\ntry:\n"
    "    c.deterministic = True\n    c.benchmark = False\n    c.enabled = False\n"
    "    c.allow_tf32 = False\n    out = [c.deterministic, c.benchmark, c.enabled, c.allow_tf32]\n"
    "finally:\n    c.deterministic = False\n    c.enabled = True\n    c.allow_tf32 = True",
    "cudnn_flags": "c = torch.backends.cudnn\n"
    "with c.flags(enabled=False, deterministic=True):\n    inside = [c.enabled, c.deterministic]\n"
    "out = [inside, c.enabled, c.deterministic]",
    "err_cudnn_deterministic_type": "torch.backends.cudnn.deterministic = 'yes'",
    "err_cudnn_benchmark_type": "torch.backends.cudnn.benchmark = 1",
    "err_cudnn_allow_tf32_type": "torch.backends.cudnn.allow_tf32 = None",
    "cuda_matmul": "m = torch.backends.cuda.matmul\ntry:\n    a = m.allow_tf32\n"
    "    m.allow_tf32 = True\n    out = [a, m.allow_tf32, "
    "m.allow_fp16_reduced_precision_reduction, m.allow_bf16_reduced_precision_reduction]\n"
    "finally:\n    m.allow_tf32 = False",
    "err_cuda_matmul_type": "torch.backends.cuda.matmul.allow_tf32 = 'no'",
    "err_cuda_matmul_unknown": "out = torch.backends.cuda.matmul.allow_tf64",
    "mps": "out = [torch.backends.mps.is_available(), torch.backends.mps.is_built()]",
    "openmp": "out = torch.backends.openmp.is_available()",
    "mkldnn_flags": "k = torch.backends.mkldnn\ntry:\n    k.enabled = False\n"
    "    out = [k.enabled, k.deterministic]\nfinally:\n    k.enabled = True",
    "cpu_capability": "out = torch.backends.cpu.get_cpu_capability() in "
    "('DEFAULT', 'AVX2', 'AVX512', 'VSX', 'ZVECTOR', 'SVE256')",
    "deterministic": "try:\n    a = torch.are_deterministic_algorithms_enabled()\n"
    "    torch.use_deterministic_algorithms(True)\n"
    "    b = [torch.are_deterministic_algorithms_enabled(), "
    "torch.is_deterministic_algorithms_warn_only_enabled(), torch.get_deterministic_debug_mode()]\n"
    "    torch.use_deterministic_algorithms(True, warn_only=True)\n"
    "    c = [torch.is_deterministic_algorithms_warn_only_enabled(), "
    "torch.get_deterministic_debug_mode()]\n"
    "    torch.set_deterministic_debug_mode('default')\n"
    "    d = [torch.are_deterministic_algorithms_enabled(), torch.get_deterministic_debug_mode()]\n"
    "    torch.set_deterministic_debug_mode(2)\n"
    "    e = torch.get_deterministic_debug_mode()\n"
    "    out = [a, b, c, d, e, torch.randn(3).sum()]\nfinally:\n"
    "    torch.use_deterministic_algorithms(False)",
    "err_deterministic_mode": "torch.use_deterministic_algorithms(1)",
    "err_deterministic_warn_only": "torch.use_deterministic_algorithms(False, warn_only='x')",
    "err_debug_mode_str": "torch.set_deterministic_debug_mode('bogus')",
    "err_debug_mode_int": "torch.set_deterministic_debug_mode(5)",
    "err_debug_mode_type": "torch.set_deterministic_debug_mode(1.5)",
    # a tutorial's reproducibility preamble
    "tutorial_seed_preamble": "torch.manual_seed(0)\ntorch.backends.cudnn.deterministic = True\n"
    "torch.backends.cudnn.benchmark = False\ntry:\n"
    "    out = (torch.randn(2, 3), torch.backends.cudnn.deterministic)\n"
    "finally:\n    torch.backends.cudnn.deterministic = False",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_backends(name: str) -> None:
    check(PROGRAMS[name])


def test_what_this_build_has() -> None:
    """tensortrace's own answers: the emulated CUDA device is built in, cuDNN, MKL, oneDNN and
    MPS are not (torch's CPU wheel has MKL and oneDNN, and no CUDA)."""
    b = tensortrace.backends
    assert b.cuda.is_built() is True
    assert b.cudnn.is_available() is False and b.cudnn.version() is None
    assert b.mkl.is_available() is False
    assert b.mkldnn.is_available() is False
    assert b.openmp.is_available() is True
    assert b.cudnn.is_acceptable(tensortrace.ones(1)) is False
