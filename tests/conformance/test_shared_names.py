"""tensortrace's public names against torch 2.13's: a shared name means what torch means by it.

`import tensortrace as torch` promises that PyTorch code runs unchanged, so no tensortrace-only
API may take a name torch uses (the recorder was once `torch.trace`, which is PyTorch's op: the
sum of a matrix's diagonal). Every public name is either one of torch's, exercised by some
conformance program, or in TENSORTRACE_ONLY, which torch must not have.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import tensortrace

from .harness import check, torch

# The names that are tensortrace's own: the recorder, its data, the CPU allocator's statistics
# and the package's layers. None of them may exist in torch.
TENSORTRACE_ONLY = frozenset(
    {
        "Trace",
        "record",
        "is_tracing",
        "memory_allocated",
        "memory_stats",
        "reset_peak_memory_stats",
        "lift_fresh",
        "aten",
        "c10",
        "csrc",
        "replay",
        "viz",
        "widgets",
        "cli",
        "torchgen",
    }
)

# Shared names that no other conformance program uses, each with a program of its own.
PROGRAMS = {
    # nn.Module's error messages name the offending object's type with it
    "typename": "out = (torch.typename(torch.ones(2)), torch.typename(torch.ones(2).long()), "
    "torch.typename(1), torch.typename('a'), torch.typename(len), "
    "torch.typename(int))",
    # grad modes (autograd's; their own tests are under tests/autograd)
    "no_grad": "x = torch.ones(2, requires_grad=True)\nwith torch.no_grad():\n    y = x * 2\n"
    "out = (y.requires_grad, y.grad_fn)",
    "enable_grad": "x = torch.ones(2, requires_grad=True)\nwith torch.no_grad():\n"
    "    with torch.enable_grad():\n        y = x * 2\n"
    "out = (y.requires_grad, y.grad_fn.name())",
    "set_grad_enabled": "x = torch.ones(2, requires_grad=True)\nwith torch.set_grad_enabled("
    "False):\n    y = x * 2\nout = (y.requires_grad, torch.is_grad_enabled())",
    "is_grad_enabled": "with torch.no_grad():\n    a = torch.is_grad_enabled()\n"
    "out = (a, torch.is_grad_enabled())",
    "inference_mode": "with torch.inference_mode():\n    y = torch.ones(2) * 2\n"
    "out = (y.is_inference(), y.requires_grad)",
    "is_inference_mode_enabled": "with torch.inference_mode():\n"
    "    a = torch.is_inference_mode_enabled()\n"
    "out = (a, torch.is_inference_mode_enabled())",
    "trace": "out = torch.trace(torch.arange(9.).view(3, 3))",
    "abs_": "x = torch.arange(-3., 3.); torch.abs_(x); out = x",
    "addmv": "out = torch.addmv(torch.ones(2), torch.arange(6.).view(2, 3), torch.ones(3))",
    "addmv_": "b = torch.ones(2); torch.addmv_(b, torch.arange(6.).view(2, 3), torch.ones(3), "
    "beta=2, alpha=0.5); out = b",
    "as_strided_": "x = torch.arange(6.); torch.as_strided_(x, (2, 2), (1, 2), 1); out = x",
    "bitwise_and": "out = torch.bitwise_and(torch.arange(8), 5)",
    "bitwise_or": "out = torch.bitwise_or(torch.arange(8), torch.tensor(2))",
    "clamp_max": "out = torch.clamp_max(torch.arange(6.), 2.5)",
    "clamp_max_": "x = torch.arange(6.); torch.clamp_max_(x, 2); out = x",
    "clamp_min": "out = torch.clamp_min(torch.arange(6), 3)",
    "clamp_min_": "x = torch.arange(6.); torch.clamp_min_(x, 2.5); out = x",
    "cos_": "x = torch.arange(4.); torch.cos_(x); out = x",
    "eq": "out = torch.eq(torch.arange(4), torch.tensor([0, 2, 2, 3]))",
    "floor_divide": "out = torch.floor_divide(torch.arange(-4, 4), 3)",
    "get_default_dtype": "out = torch.get_default_dtype()",
    "set_default_dtype": "torch.set_default_dtype(torch.float64); x = torch.zeros(1); "
    "torch.set_default_dtype(torch.float32); out = (x.dtype, "
    "torch.zeros(1).dtype)",
    "gt": "out = torch.gt(torch.arange(4.), 1.5)",
    "le": "out = torch.le(torch.arange(4), torch.tensor(2))",
    "ne": "out = torch.ne(torch.arange(4), 2)",
    "initial_seed": "torch.manual_seed(7); out = torch.initial_seed()",
    "seed": "s = torch.seed(); out = (type(s).__name__, torch.initial_seed() == s)",
    "default_generator": "torch.default_generator.manual_seed(3); "
    "out = torch.default_generator.initial_seed()",
    "is_nonzero": "out = (torch.is_nonzero(torch.tensor([1.5])), "
    "torch.is_nonzero(torch.tensor(0)))",
    "is_tensor": "out = (torch.is_tensor(torch.zeros(1)), torch.is_tensor([1]))",
    "log_": "x = torch.arange(1., 5.); torch.log_(x); out = x",
    "neg": "out = torch.neg(torch.arange(4))",
    "neg_": "x = torch.arange(4.); torch.neg_(x); out = x",
    "nonzero": "out = torch.nonzero(torch.tensor([[0, 1], [2, 0]]))",
    "reciprocal_": "x = torch.arange(1., 5.); torch.reciprocal_(x); out = x",
    "remainder": "out = torch.remainder(torch.arange(-4, 4), 3)",
    "resolve_conj": "out = torch.resolve_conj(torch.arange(3.))",
    "resolve_neg": "out = torch.resolve_neg(torch.arange(3.))",
    "scalar_tensor": "out = torch.scalar_tensor(3)",
    "sigmoid_": "x = torch.arange(4.); torch.sigmoid_(x); out = x",
    "sin_": "x = torch.arange(4.); torch.sin_(x); out = x",
    "sqrt_": "x = torch.arange(4.); torch.sqrt_(x); out = x",
    "tanh_": "x = torch.arange(4.); torch.tanh_(x); out = x",
    "short": "out = (torch.short, torch.arange(3).to(torch.short).dtype)",
    "device": "d = torch.device('cpu'); out = (str(d), d.type, d.index, repr(d))",
    "layout": "out = (str(torch.strided), type(torch.strided).__name__)",
    "strided": "out = (str(torch.zeros(1).layout), str(torch.strided))",
    "memory_format": "out = (str(torch.contiguous_format), type(torch.contiguous_format).__name__)",
    "preserve_format": "out = str(torch.preserve_format)",
    "TypedStorage": "x = torch.arange(4.); s = x.untyped_storage(); "
    "out = (type(s).__name__, s.nbytes())",
    "UntypedStorage": "s = torch.zeros(3, dtype=torch.int16).untyped_storage(); "
    "out = (isinstance(s, torch.UntypedStorage), len(s))",
    "return_types": "r = torch.max(torch.arange(6.).view(2, 3), 1); "
    "out = (type(r).__name__, isinstance(r, torch.return_types.max))",
    "autograd": "out = type(torch.autograd).__name__",
    # torch.accelerator: the emulated device's (tests/cuda/test_accelerator.py); what a CPU
    # build agrees on is the module and that its device-agnostic API exists
    "accelerator": "out = (type(torch.accelerator).__name__, "
    "callable(torch.accelerator.current_accelerator), callable(torch.accelerator.is_available))",
    # torch.cuda: the emulated device's API (tests/cuda); what CPU torch agrees on is its shape
    "cuda": "out = (type(torch.cuda).__name__, torch.cuda.OutOfMemoryError.__name__, "
    "issubclass(torch.cuda.OutOfMemoryError, RuntimeError))",
    "dtype": "out = (isinstance(torch.float32, torch.dtype), str(torch.float32))",
    "acos_": "x = torch.linspace(-0.9, 0.9, 5); torch.acos_(x); out = x",
    "asin_": "x = torch.linspace(-0.9, 0.9, 5); torch.asin_(x); out = x",
    "atan_": "x = torch.linspace(-3., 3., 5); torch.atan_(x); out = x",
    "acosh_": "x = torch.linspace(1., 4., 5); torch.acosh_(x); out = x",
    "atanh_": "x = torch.linspace(-0.9, 0.9, 5); torch.atanh_(x); out = x",
    "cosh_": "x = torch.linspace(-2., 2., 5); torch.cosh_(x); out = x",
    "sinh_": "x = torch.linspace(-2., 2., 5); torch.sinh_(x); out = x",
    "expm1_": "x = torch.linspace(-2., 2., 5); torch.expm1_(x); out = x",
    "log1p_": "x = torch.linspace(0., 2., 5); torch.log1p_(x); out = x",
    "broadcast_tensors": "a, b = torch.broadcast_tensors(torch.arange(3.), torch.ones(2, 1)); "
    "out = (a, b)",
    "functional": "out = type(torch.functional).__name__",
    "serialization": "out = type(torch.serialization).__name__",
}
# PyTorch's sin and cos come from SLEEF, which may differ from libm in the last bit
TOLERANCES = {
    name: 1e-6
    for name in (
        "sin_",
        "cos_",
        "acos_",
        "asin_",
        "atan_",
        "acosh_",
        "atanh_",
        "cosh_",
        "sinh_",
        "expm1_",
        "log1p_",
    )
}

TRACE_PROGRAMS = {
    "float_square": "out = torch.trace(torch.arange(9.).view(3, 3))",
    "method_int_promotes_to_long": "out = torch.arange(12, dtype=torch.int16).view(3, 4).trace()",
    "uint8": "out = torch.full((4, 4), 200, dtype=torch.uint8).trace()",
    "double_non_contiguous": "x = torch.rand(5, 4, dtype=torch.float64).t()[:, ::2]; "
    "out = x.trace()",
    "empty_matrix": "out = torch.trace(torch.ones(0, 3))",
    "wide": "out = torch.trace(torch.arange(10.).view(2, 5))",
    "error_vector": "out = torch.trace(torch.arange(3.))",
    "error_3d": "out = torch.trace(torch.ones(2, 2, 2))",
    "error_bool": "out = torch.trace(torch.ones(2, 2, dtype=torch.bool))",
    "half_accumulates_in_float": "out = torch.full((300, 300), 1.1, dtype=torch.float16).trace()",
    "bfloat16": "out = torch.full((3, 3), 1000.5, dtype=torch.bfloat16).trace()",
    "error_not_a_tensor": "out = torch.trace([[1, 2], [3, 4]])",
}


def _public(module: object) -> set[str]:
    return {name for name in dir(module) if not name.startswith("_")}


def _used_by_conformance_programs() -> set[str]:
    """Every `torch.<name>` and `.<name>(` in the conformance programs' sources (autograd's too)."""
    here = Path(__file__).parent
    files = [*here.glob("test_*.py"), *(here.parent / "autograd").glob("test_*.py")]
    text = "".join(p.read_text() for p in files if p.name != Path(__file__).name)
    return set(re.findall(r"torch\.(\w+)", text)) | set(re.findall(r"\.(\w+)\(", text))


def test_tensortrace_only_names_shadow_nothing_in_torch() -> None:
    assert sorted(TENSORTRACE_ONLY & set(dir(torch))) == []


def test_every_public_name_is_torchs_or_declared_tensortrace_only() -> None:
    unknown = _public(tensortrace) - set(dir(torch)) - TENSORTRACE_ONLY
    assert sorted(unknown) == [], "neither torch's nor declared in TENSORTRACE_ONLY"


def test_every_shared_name_is_checked_against_torch() -> None:
    shared = _public(tensortrace) & set(dir(torch))
    unchecked = shared - _used_by_conformance_programs() - set(PROGRAMS)
    assert sorted(unchecked) == [], "shared with torch but run by no conformance program"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_shared_name(name: str) -> None:
    check(PROGRAMS[name], rtol=TOLERANCES.get(name, 0.0))


@pytest.mark.parametrize("name", sorted(TRACE_PROGRAMS))
def test_trace(name: str) -> None:
    check(TRACE_PROGRAMS[name])


def test_trace_is_traced_like_torch_profiler_records_it() -> None:
    x = tensortrace.eye(3)
    with tensortrace.record() as t:
        tensortrace.trace(x)
    assert t.operator_tree() == [("aten::trace", [("aten::empty", [])])]


def test_the_recorders_old_name_fails_clearly() -> None:
    with pytest.raises(TypeError) as info:
        with tensortrace.trace():
            pass
    message = str(info.value)
    assert message.startswith('trace() missing 1 required positional arguments: "input"')
    assert "tensortrace.record()" in message


def test_a_failed_trace_frees_its_result() -> None:
    before = tensortrace.memory_allocated()
    x = tensortrace.arange(3.0)
    with pytest.raises(RuntimeError, match="expected a matrix"):
        tensortrace.trace(x)
    del x
    assert tensortrace.memory_allocated() == before
