"""A structured op's functional wrapper starts its outputs as the one shared undefined Tensor
(Note [A functional wrapper's undefined outputs] in aten/codegen.py): set_output_raw_strided
puts each output in its place, and the shared Tensor stays undefined, whatever ran or failed."""

from __future__ import annotations

import pytest

import tensortrace as torch
from tensortrace.aten.generated import register_cpu_kernels
from tensortrace.aten.tensor_body import _NULL_IMPL
from tensortrace.aten.tensor_iterator_operands import UNDEFINED_TENSOR


def test_the_generated_functional_wrappers_list_the_shared_undefined_tensor() -> None:
    wrapper = register_cpu_kernels.wrapper_CPU_sum_dim_IntList
    source = wrapper.__wrapped__.__code__  # its own code, even while a trace swapped it
    assert "UNDEFINED_TENSOR" in source.co_names
    assert "Tensor" not in source.co_names  # no Tensor() per call


def test_the_shared_undefined_tensor_stays_undefined() -> None:
    a = torch.rand(3, 4)
    results = [a.sum(), a + a, a.sum(0), torch.max(a, 1).values, a.mean(1, keepdim=True)]
    with pytest.raises(RuntimeError):
        torch.rand(3) + torch.rand(4)  # a meta function that fails after its wrapper began
    with torch.no_grad():
        a.sum()
    assert UNDEFINED_TENSOR.impl_ is _NULL_IMPL
    assert not UNDEFINED_TENSOR.defined()
    # every functional call made its own output
    impls = {id(r.cdata.unsafeGetTensorImpl()) for r in results}
    assert len(impls) == len(results)
    assert float(results[0]) == pytest.approx(float(a.sum(0).sum()))


def test_a_traced_functional_call_leaves_it_undefined() -> None:
    from tensortrace.trace import record

    a = torch.rand(2, 3)
    with record():
        a.sum()
        a * a
    assert UNDEFINED_TENSOR.impl_ is _NULL_IMPL
