"""Note [Records written out, not made by dataclass] in c10/frozen.py: the records behave as
@dataclass(frozen=True) made them: construction, repr, equality, hashing, frozen-ness, pickling
and copying."""

from __future__ import annotations

import copy
import pickle
from dataclasses import FrozenInstanceError
from typing import Any

import numpy as np
import pytest

from tensortrace.aten.function_schema import Argument, FunctionSchema, Type
from tensortrace.aten.functorch.dynamic_layer import VmapInterpreter
from tensortrace.autograd.traceable_function import DifferentiabilityInfo, Formula
from tensortrace.c10.scalar_type import ScalarType, TypeMeta

TENSOR = Type("Tensor", alias="a!")
INTS = Type(base="int", is_list=True, list_size=2)
SELF = Argument("self", TENSOR, None, False)
DIM = Argument(name="dim", type=INTS, default="0", kwarg_only=True)
FORMULA = Formula(("self",), len, frozenset({"grad"}))

RECORDS: list[tuple[Any, str]] = [
    (
        TypeMeta(ScalarType.Float, 4, "float", np.dtype(np.float32)),
        "TypeMeta(scalar_type=<ScalarType.Float: 6>, itemsize=4, name='float', "
        "numpy=dtype('float32'))",
    ),
    (
        INTS,
        "Type(base='int', is_list=True, list_size=2, optional=False, alias=None, "
        "elem_optional=False)",
    ),
    (
        DIM,
        "Argument(name='dim', type=Type(base='int', is_list=True, list_size=2, optional=False, "
        "alias=None, elem_optional=False), default='0', kwarg_only=True)",
    ),
    (
        FunctionSchema("neg", "", (SELF,), (TENSOR,)),
        f"FunctionSchema(name='neg', overload_name='', arguments=({SELF!r},), "
        f"returns=({TENSOR!r},), return_names=(), namespace='aten')",
    ),
    (
        FORMULA,
        "Formula(inputs=('self',), fn=<built-in function len>, names=frozenset({'grad'}))",
    ),
    (VmapInterpreter(1, 3, "error"), "VmapInterpreter(level=1, batch_size=3, randomness='error')"),
]


@pytest.mark.parametrize(("record", "text"), RECORDS)
def test_a_record_behaves_as_its_dataclass_did(record: Any, text: str) -> None:
    assert repr(record) == text
    fields = type(record).__match_args__
    again = type(record)(*(getattr(record, f) for f in fields))
    assert again == record and hash(again) == hash(record) and again is not record
    assert (record == 1) is False and record != 1
    assert pickle.loads(pickle.dumps(record)) == record
    assert copy.deepcopy(record) == record and copy.copy(record) == record
    with pytest.raises(FrozenInstanceError, match=f"cannot assign to field '{fields[0]}'"):
        setattr(record, fields[0], None)
    with pytest.raises(FrozenInstanceError, match=f"cannot delete field '{fields[0]}'"):
        delattr(record, fields[0])
    with pytest.raises(TypeError, match="missing"):
        type(record)()


def test_records_of_different_fields_differ() -> None:
    assert INTS != Type("int", is_list=True)
    assert SELF != DIM
    assert FunctionSchema("neg", "", (SELF,), (TENSOR,)).with_namespace("myns").namespace == "myns"


def test_differentiability_info_defaults_and_hashing() -> None:
    info = DifferentiabilityInfo("abs", (FORMULA,), ("self",))
    assert info.properties == {} and info.list_properties == {}
    assert info.properties is not DifferentiabilityInfo("abs", (FORMULA,), ("self",)).properties
    assert info.output_differentiability is None
    assert info == DifferentiabilityInfo("abs", (FORMULA,), ("self",), {}, {}, None)
    assert repr(info) == (
        f"DifferentiabilityInfo(name='abs', formulas=({FORMULA!r},), diff_inputs=('self',), "
        "properties={}, list_properties={}, output_differentiability=None)"
    )
    with pytest.raises(TypeError, match="unhashable type: 'dict'"):
        hash(info)


def test_the_mutable_records_compare_by_fields_and_are_unhashable() -> None:
    from tensortrace.aten.cpu_generator_impl import mt19937_data_pod
    from tensortrace.aten.native.type_properties import ResultTypeState
    from tensortrace.c10.cuda.allocator_history import BlockInfo, SegmentInfo, TraceEntry

    state = ResultTypeState()
    assert repr(state) == (
        "ResultTypeState(dimResult=<ScalarType.Undefined: 100>, "
        "wrappedResult=<ScalarType.Undefined: 100>, zeroResult=<ScalarType.Undefined: 100>)"
    )
    state.dimResult = ScalarType.Float
    assert state == ResultTypeState(ScalarType.Float) and state != ResultTypeState()
    entry = TraceEntry("alloc", 0, 512, 64, 0, 7)
    assert repr(entry) == (
        "TraceEntry(action='alloc', device=0, addr=512, size=64, stream=0, time_us=7, frames=None)"
    )
    block = BlockInfo(64, 60, True, True, None)
    segment = SegmentInfo(0, 512, 0, False, total_size=64)
    assert segment.blocks == [] and segment.blocks is not SegmentInfo(0, 512, 0, False).blocks
    segment.blocks.append(block)
    assert repr(segment) == (
        "SegmentInfo(device=0, address=512, stream=0, is_large=False, total_size=64, "
        "allocated_size=0, active_size=0, requested_size=0, frames=None, "
        f"blocks=[{block!r}])"
    )
    assert repr(block) == (
        "BlockInfo(size=64, requested_size=60, allocated=True, active=True, frames=None)"
    )
    pod = mt19937_data_pod(5, 624, True, 0, np.zeros(3, np.uint32))
    assert repr(pod) == "mt19937_data_pod(seed_=5, left_=624, seeded_=True, next_=0)"
    for record in (state, entry, block, segment, pod):
        with pytest.raises(TypeError, match="unhashable type"):
            hash(record)
        assert (record == 1) is False
    assert entry == copy.copy(entry) and segment == copy.deepcopy(segment)
    assert pickle.loads(pickle.dumps(block)) == block


def test_the_printer_options_and_a_binding_overload_as_their_dataclasses() -> None:
    from tensortrace import _tensor_str
    from tensortrace.csrc.python_bindings import PythonOverload

    options = type(_tensor_str.PRINT_OPTS)()
    assert repr(options) == (
        "__PrinterOptions(precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None)"
    )
    assert options == type(options)(4, 1000, 3, 80) and options != type(options)(precision=2)
    assert _tensor_str.get_printoptions() == {
        "precision": 4,
        "threshold": 1000,
        "edgeitems": 3,
        "linewidth": 80,
        "sci_mode": None,
    }
    overload = PythonOverload("neg(Tensor input)", "op", None, False, False, ["input"])
    assert repr(overload) == (
        "PythonOverload(signature='neg(Tensor input)', op='op', out_op=None, is_method=False, "
        "is_factory=False, params=['input'])"
    )
    assert overload == copy.deepcopy(overload)
    for record in (options, overload):
        with pytest.raises(TypeError, match="unhashable type"):
            hash(record)
