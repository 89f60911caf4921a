"""addmm's out_dtype overload, which torch 2.13 declares for CUDA only (cuda/Blas.cpp).

torch's CPU build cannot run it, so the CUDA results are compared with torch's addmm computed
in float32 from the same float16 / bfloat16 values (what cuBLAS does: fp32 accumulation, fp32
output), and the CPU call with the dispatcher's error.
"""

from __future__ import annotations

import numpy as np
import pytest

import tensortrace

torch = pytest.importorskip("torch")


def _inputs(dtype: str) -> tuple[list[tensortrace.Tensor], list[object]]:
    tensortrace.manual_seed(0)
    shapes = [(2, 4), (2, 3), (3, 4)]
    ours = [tensortrace.rand(*s, device="cuda").to(getattr(tensortrace, dtype)) for s in shapes]
    theirs = [torch.tensor(t.float().cpu().tolist()).to(getattr(torch, dtype)) for t in ours]
    return ours, theirs


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_inputs_fp32_output(dtype: str) -> None:
    ours, theirs = _inputs(dtype)
    result = tensortrace.addmm(*ours, tensortrace.float32, beta=0.5, alpha=2)
    expected = torch.addmm(*(t.float() for t in theirs), beta=0.5, alpha=2)
    assert result.dtype == tensortrace.float32 and result.device.type == "cuda"
    np.testing.assert_array_equal(np.array(result.cpu().tolist()), expected.numpy())
    out = tensortrace.empty(2, 4, device="cuda")
    assert tensortrace.addmm(*ours, tensortrace.float32, out=out) is out


def test_same_dtype_output_is_addmm() -> None:
    ours, _ = _inputs("float16")
    result = tensortrace.addmm(*ours, tensortrace.float16)
    assert result.dtype == tensortrace.float16
    assert result.cpu().tolist() == tensortrace.addmm(*ours).cpu().tolist()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda a: tensortrace.addmm(*a, tensortrace.float64),
            "out_dtype must be the same as input dtype or fp32 for fp16/bf16 inputs",
        ),
        (
            lambda a: tensortrace.addmm(
                *a, tensortrace.float32, out=tensortrace.empty(2, 4, device="cuda").half()
            ),
            "out_dtype must be the same as the dtype of the provided out tensor",
        ),
        (
            lambda a: tensortrace.addmm(a[0].float(), a[1], a[2], tensortrace.float32),
            "self and mat2 must have the same dtype, but got Float and Half",
        ),
    ],
)
def test_checks(call: object, message: str) -> None:
    ours, _ = _inputs("float16")
    with pytest.raises(RuntimeError) as info:
        call(ours)  # type: ignore[operator]
    assert str(info.value) == message


def test_cpu_has_no_kernel() -> None:
    a = tensortrace.rand(2, 2)
    with pytest.raises(NotImplementedError) as info:
        tensortrace.addmm(a, a, a, tensortrace.float32)
    assert str(info.value).startswith(
        "Could not run 'aten::addmm.dtype' with arguments from the 'CPU' backend."
    )
