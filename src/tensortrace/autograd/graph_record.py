"""The `grad_fn` instant: what the autograd kernel just added to the graph, as trace facts.

No single PyTorch counterpart: it is the state `VariableType`'s generated code builds
(`grad_fn->set_next_edges(collect_next_edges(...))`, the SavedVariables, `set_history`), written
down when a trace is active so that a finished trace can draw the autograd graph
(viz/autograd_graph.py) without the live objects. Each Node is named by a label unique in the
trace: `MulBackward0#12` (its sequence number), `AccumulateGrad(TensorImpl#3)` for a leaf's
accumulator (all of those share sequence number UINT64_MAX).
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd.function import Node
from tensortrace.autograd.saved_variable import SavedVariable
from tensortrace.trace import recorder
from tensortrace.trace.schema import GRAD_FN


def node_label(fn: Node | None) -> str | None:
    if fn is None:
        return None
    variable = getattr(fn, "variable_", None)
    if isinstance(variable, Tensor) and variable.defined():
        return f"AccumulateGrad({variable.unsafeGetTensorImpl().trace_name})"
    return f"{fn.name()}#{fn.sequence_nr_}"


def _impl_name(t: Any) -> str | None:
    if isinstance(t, Tensor) and t.defined():
        return t.unsafeGetTensorImpl().trace_name
    return None


def _saved(value: Any) -> Any:
    """A saved input or output: the TensorImpl it holds; other saved facts as plain data."""
    if isinstance(value, SavedVariable):
        return {
            "tensor": _impl_name(value.data_),
            "version": value.saved_version_,
            "is_output": value.is_output_,
        }
    if isinstance(value, list) and value and isinstance(value[0], SavedVariable):
        return [_saved(v) for v in value]
    if isinstance(value, Enum):  # a ScalarType: its name
        return value.name
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        return list(value)  # sizes, strides
    return repr(value)


def record_grad_fn(grad_fn: Node, outputs: list[Any]) -> None:
    """Record the node, its edges, what it saved, and which tensors it is the grad_fn of."""
    rec = recorder.current
    if rec is None:
        return
    label = node_label(grad_fn)
    edges = [
        [node_label(e.function), e.input_nr, e.function.name() if e.function else None]
        for e in grad_fn.next_edges_
    ]
    saved = getattr(grad_fn, "saved_", {})
    rec.instant(
        GRAD_FN,
        "autograd",
        label or "?",
        {
            "node": label,
            "name": grad_fn.name(),
            "sequence_nr": grad_fn.sequence_nr_,
            "next_edges": edges,
            "saved": {name: _saved(saved[name]) for name in sorted(saved)},  # a set made it
            "outputs": [_impl_name(o) for o in outputs],
        },
    )
