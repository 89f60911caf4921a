"""Conformance of NumPy scalars as Scalars (PythonArgs::scalar_slow / tensor_slow, Note [NumPy
scalars as Scalars]) and inside torch.tensor's data (store_scalar, infer_scalar_type), and of
0-d arrays inside a sequence (which torch 2.13 refuses: `len() of unsized object`)."""

from __future__ import annotations

import pytest

from .harness import check

# every kind of NumPy scalar: the integers (signed, unsigned, one past int64), the floats
# (longdouble included), both complex sizes, and np.bool_
SCALARS = {
    "int8": "np.int8(-3)",
    "uint8": "np.uint8(200)",
    "int16": "np.int16(7)",
    "int32": "np.int32(7)",
    "int64": "np.int64(7)",
    "uint64": "np.uint64(5)",
    "uint64_past_int64": "np.uint64(2**63 + 5)",
    "float16": "np.float16(1.5)",
    "float32": "np.float32(2.5)",
    "float64": "np.float64(3.25)",
    "longdouble": "np.longdouble(1.5)",
    "complex64": "np.complex64(1 + 2j)",
    "complex128": "np.complex128(1 - 2j)",
    "bool": "np.bool_(True)",
}

# each program runs with `v` one of SCALARS; a failing call leaves its error text in the list
# (the same type and message in both libraries), so one program covers every use
USES = (
    "torch.full((2,), v)",
    "torch.zeros(2, dtype=torch.int64).fill_(v)",
    "torch.zeros(2, dtype=torch.complex64).fill_(v)",
    "torch.zeros(2).add(torch.ones(2), alpha=v)",
    "torch.ones(2, dtype=torch.int32) + v",
    "torch.ones(2) * v",
    "v * torch.ones(2, dtype=torch.int64)",
    "torch.add(torch.ones(2, dtype=torch.int64), v)",
    "torch.where(torch.tensor([True, False]), torch.zeros(2), v)",
    "torch.scalar_tensor(v)",
    "torch.ones(3).pow(v)",
    "torch.ones(2, dtype=torch.int64).masked_fill(torch.tensor([True, False]), v)",
    "torch.ones(3)[torch.tensor([0])].fill_(v)",
    "torch.tensor([v, 2.5])",
    "torch.tensor([v, True])",
)
# left out: tensortrace has no uint64 dtype for torch.tensor to infer from a np.uint64; past
# int64, the binary operators refuse the np.uint64 and NumPy's reflected operator answers with
# a NumPy array (of the tensor's values: no CUDA tensor converts)
LEFT_OUT = {
    "uint64": {"torch.tensor([v, 2.5])", "torch.tensor([v, True])"},
    "uint64_past_int64": {
        "torch.tensor([v, 2.5])",
        "torch.tensor([v, True])",
        "torch.ones(2, dtype=torch.int32) + v",
        "torch.ones(2) * v",
        "v * torch.ones(2, dtype=torch.int64)",
    },
}


def program(kind: str) -> str:
    uses = [use for use in USES if use not in LEFT_OUT.get(kind, ())]
    return (
        f"v = {SCALARS[kind]}\n"
        "import warnings; warnings.simplefilter('ignore')\n"
        "def attempt(f):\n"
        "    try:\n"
        "        return f()\n"
        "    except Exception as e:\n"
        "        return f'{type(e).__name__}: {e}'\n"
        "out = [" + ", ".join(f"attempt(lambda: {use})" for use in uses) + "]"
    )


PROGRAMS = {
    "fill_int64_numpy_int": "t = torch.zeros(3, dtype=torch.int64); t.fill_(np.int64(7)); out = t",
    "clamp_numpy_float": "out = torch.arange(5.).clamp(min=np.float32(1.5), max=np.int16(3))",
    "arange_numpy_ints": "out = (torch.arange(np.int32(5)), torch.arange(np.int64(1), "
    "np.int8(7), np.int16(2)), torch.arange(np.float32(0.5), 3))",
    "tensor_numpy_scalars": "out = (torch.tensor(np.bool_(True)), torch.tensor([np.bool_(True), "
    "False]), torch.tensor([np.bool_(True), 2.5]), torch.tensor([np.float32(1.5), 2]), "
    "torch.tensor([np.int8(3), True]), torch.tensor([np.complex64(1 + 2j), 2]), "
    "torch.tensor([np.float16(1.5), np.int64(2)]), torch.tensor(np.float32(2.5)), "
    "torch.tensor(np.int16(7)), torch.tensor([np.int32(1), np.int32(2)]), "
    "torch.tensor([1.5, np.bool_(False)], dtype=torch.bool), "
    "torch.tensor([np.float64(1e300)], dtype=torch.float32), "
    "torch.tensor(np.bool_(False), dtype=torch.float64), "
    "torch.as_tensor([np.int64(3), 4]), torch.asarray([np.float32(2), 4]))",
    "tensor_numpy_bool_as_int": "out = torch.tensor([np.bool_(True), 2])",
    "tensor_numpy_overflow": "out = torch.tensor([np.int64(300)], dtype=torch.uint8)",
    "tensor_longdouble": "out = torch.tensor(np.longdouble(1.5))",
    # 0-d arrays: torch.tensor(np.array(1.5)) is a tensor, but one inside a sequence is not a
    # number to torch 2.13 (compute_sizes takes it for a sequence and asks its len())
    "zero_dim_array": "out = torch.tensor(np.array(1.5))",
    "zero_dim_array_in_list": "out = torch.tensor([np.array(1.5), 2])",
    "zero_dim_arrays_in_list": "out = torch.tensor([np.array(1), np.array(2)])",
    "zero_dim_array_nested": "out = torch.tensor([[np.array(1.5), 2], [3, 4]])",
    "zero_dim_array_as_tensor": "out = torch.as_tensor([np.array(1.5), 2])",
    "zero_dim_array_after_number": "out = torch.tensor([2, np.array(1.5)])",
    "one_dim_arrays_in_list": "out = torch.tensor([np.array([1.5]), [2]])",
    "array_and_number": "out = torch.tensor([np.array([1.5, 2]), 2])",
    "scalar_overflow_python_int": "out = torch.ones(2).fill_(2**64)",
}


@pytest.mark.parametrize("kind", sorted(SCALARS))
def test_numpy_scalar_as_scalar(kind: str) -> None:
    check(program(kind))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_numpy_scalars(name: str) -> None:
    check(PROGRAMS[name])
