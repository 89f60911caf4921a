"""The dispatcher: schemas from the YAML, key sets, kernel tables, redispatch."""

from __future__ import annotations

import pytest

import tensortrace
from tensortrace.aten.dispatcher import singleton
from tensortrace.aten.function_schema import parse_schema
from tensortrace.c10.dispatch_key import DispatchKey
from tensortrace.c10.local_dispatch_key_set import AutoDispatchBelowADInplaceOrView


def test_schema_round_trip_and_annotations() -> None:
    text = "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"
    schema = parse_schema(text)
    assert str(schema) == text
    assert schema.is_inplace and not schema.is_view
    assert parse_schema("select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)").is_view
    assert parse_schema(
        "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"
    ).is_out


def test_every_yaml_entry_is_registered_with_a_cpu_kernel() -> None:
    ops = singleton().operators
    assert {
        "rand",
        "empty.memory_format",
        "select.int",
        "as_strided",
        "add.Tensor",
        "add.out",
        "uniform_",
    } <= ops.keys()
    for op in ops.values():
        # torch 2.13 declares a few ops for CUDA only (addmm.dtype): no CPU kernel, as in torch
        cuda_only = set(op.entry.get("dispatch", {})) == {"CUDA"}
        assert (DispatchKey.CUDA if cuda_only else DispatchKey.CPU) in op.dispatch_table, op


def test_key_set_of_a_call() -> None:
    op = singleton().findSchemaOrThrow("add", "Tensor")
    x = tensortrace.rand(2).cdata
    ks = op.compute_dispatch_key_set((x, x, 1))
    assert ks.highestPriorityTypeId() == DispatchKey.AutogradCPU
    with AutoDispatchBelowADInplaceOrView():
        below = op.compute_dispatch_key_set((x, x, 1))
    # BackendSelect is always in the set, but add has no kernel there: it falls through
    assert below.highestPriorityTypeId() == DispatchKey.BackendSelect
    assert op.lookup(below)[0] == DispatchKey.CPU


def test_factories_go_through_backend_select() -> None:
    op = singleton().findSchemaOrThrow("rand")
    key, kernel = op.lookup(op.compute_dispatch_key_set(([2], None, None, None, None)))
    assert key == DispatchKey.BackendSelect
    assert "BackendSelect" in kernel.name


def test_fallthrough_keys_are_skipped() -> None:
    op = singleton().findSchemaOrThrow("add", "Tensor")  # not a view, not in-place
    assert op.dispatch_table[DispatchKey.ADInplaceOrView].is_fallthrough
    view_op = singleton().findSchemaOrThrow("select", "int")
    assert not view_op.dispatch_table[DispatchKey.ADInplaceOrView].is_fallthrough


def test_redispatch_frames_show_the_path() -> None:
    x = tensortrace.rand(3, 4)
    with tensortrace.record() as t:
        x[0]
    names = [f.name for f in t.frames()]
    i = names.index("aten::select")
    assert names[i + 1 : i + 5] == [
        "torch::autograd::VariableType::select",
        "redispatch select.int -> ADInplaceOrView",
        "torch::ADInplaceOrView::select_int",
        "redispatch select.int -> CPU",
    ]


def test_unknown_schema() -> None:
    with pytest.raises(RuntimeError, match="Could not find schema for aten::nope"):
        singleton().findSchemaOrThrow("nope")


def test_an_operators_call_fields_are_made_on_first_read() -> None:
    """Note [An operator's call fields on first use]: a new handle has none of them; the first
    read makes all of them, from its schema."""
    from tensortrace.aten.dispatcher import OperatorHandle

    cat = singleton().findSchemaOrThrow("cat", "")
    fresh = OperatorHandle(cat.schema, cat.entry)
    assert "call_site" not in fresh.__dict__ and "_lookups" not in fresh.__dict__
    fresh.update_dispatch_table()  # registering reads no call field
    assert "_lookups" not in fresh.__dict__
    assert fresh.list_indices == (0,) and fresh._single_indices == ()
    assert fresh.arg_names == ("tensors", "dim") and fresh.full_name == "cat"
    assert fresh.call_site.name == "aten::cat" and fresh._lookups == {}
    with pytest.raises(AttributeError, match="no attribute 'not_a_field'"):
        fresh.not_a_field  # noqa: B018


def test_a_handle_with_its_call_fields_has_no_getattr() -> None:
    """Note [An operator's call fields on first use]: once made, the handle is a plain
    OperatorHandle, whose class has no __getattr__ (which would slow every read of a call)."""
    from tensortrace.aten.dispatcher import OperatorHandle

    cat = singleton().findSchemaOrThrow("cat", "")
    fresh = OperatorHandle(cat.schema, cat.entry)
    assert type(fresh) is not OperatorHandle and isinstance(fresh, OperatorHandle)
    fresh.list_indices  # noqa: B018
    assert type(fresh) is OperatorHandle
    assert not hasattr(OperatorHandle, "__getattr__")
    with pytest.raises(AttributeError, match="no attribute 'not_a_field'"):
        fresh.not_a_field  # noqa: B018
    tensortrace.rand(2, 3).sum()
    assert type(singleton().findSchemaOrThrow("sum", "dim_IntList")) is OperatorHandle
    assert repr(fresh) == "OperatorHandle(cat)"


def test_method_whose_self_is_not_first_takes_the_others_in_order() -> None:
    # polygamma(int n, Tensor self) is the C++ method Tensor::polygamma(n); where.self(condition,
    # self, other) is Tensor::where(condition, other): self goes in at its schema index
    x = tensortrace.tensor([1.5, 2.5]).cdata
    cond = tensortrace.tensor([True, False]).cdata
    expected = tensortrace.polygamma(1, tensortrace.tensor([1.5, 2.5])).tolist()
    assert x.polygamma(1).numpy_view().tolist() == expected
    assert x.polygamma(n=1).numpy_view().tolist() == expected
    assert x.where(cond, 0.0).numpy_view().tolist() == [1.5, 0.0]
    assert x.where(condition=cond, other=x.neg()).numpy_view().tolist() == [1.5, -2.5]
    assert x.where(cond, other=0.0).numpy_view().tolist() == [1.5, 0.0]
