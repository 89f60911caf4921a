"""What the generated Backward Nodes are made of: TraceableFunction, its formulas, NotImplemented.

`python -m tensortrace.torchgen` writes one Node class per entry of derivatives.yaml to
autograd/generated/functions.py (as `tools/autograd/gen_autograd_functions.py` writes
`torch/csrc/autograd/generated/Functions.cpp`): each a TraceableFunction with its
DifferentiabilityInfo, whose formulas are plain defs there. This module holds the base class
(saved values, apply, release_variables, `_saved_*` attributes) and torch's NotImplemented Node
(functions/basic_ops.h).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd.engine import current_graph_task
from tensortrace.autograd.function import Node
from tensortrace.autograd.saved_variable import SavedVariable
from tensortrace.c10.frozen import Frozen
from tensortrace.c10.scalar_type import isComplexType, isFloatingType
from tensortrace.csrc.python_variable import THPVariable_Wrap

_SPECIAL = {"grad", "grads", "grad_input_mask", "at", "True", "False", "None"}


def _property(t: Any, prop: str) -> Any:
    if t is None or (isinstance(t, Tensor) and not t.defined()):
        return None
    if prop in ("sym_sizes", "sizes"):
        return t.sizes()
    if prop in ("sym_strides", "strides"):
        return t.strides()
    if prop == "scalar_type" or prop == "options":
        return t.scalar_type()
    if prop in ("sym_numel", "numel"):
        return t.numel()
    if prop == "dim":
        return t.dim()
    if prop.startswith("size("):  # self.sym_size(-2): one size
        return t.size(int(prop[5:-1]))
    if prop == "layout":
        return "strided"
    return (t.sizes(), t.strides(), t.storage_offset(), t.scalar_type())  # geometry


class Formula(Frozen):
    """One formula of a Node: the inputs it gives gradients for, and the generated def that
    computes them from the Node's saved values (`v`, a dict name -> value)."""

    # Note [Records written out, not made by dataclass] in c10/frozen.py
    __slots__ = ("inputs", "fn", "names")
    __match_args__ = __slots__  # the fields, in order

    inputs: tuple[str, ...]
    fn: Callable[[dict[str, Any]], Any]
    names: frozenset[str]  # the names it reads

    def __init__(
        self, inputs: tuple[str, ...], fn: Callable[[dict[str, Any]], Any], names: frozenset[str]
    ) -> None:
        object.__setattr__(self, "inputs", inputs)
        object.__setattr__(self, "fn", fn)
        object.__setattr__(self, "names", names)


class DifferentiabilityInfo(Frozen):
    """load_derivatives.DifferentiabilityInfo: what a Node knows of its derivatives.yaml entry."""

    # Note [Records written out, not made by dataclass] in c10/frozen.py
    __slots__ = (
        "name",
        "formulas",
        "diff_inputs",
        "properties",
        "list_properties",
        "output_differentiability",
    )
    __match_args__ = __slots__  # the fields, in order

    name: str  # full name, `add.Tensor`
    formulas: tuple[Formula, ...]
    diff_inputs: tuple[str, ...]  # in schema order
    properties: dict[str, tuple[str, str]]  # saved name -> (arg, p)
    list_properties: dict[str, tuple[str, str]]
    # `output_differentiability: [True, False]`: only those outputs take the Node as grad_fn
    # (nll_loss_forward's total_weight does not require grad), so it has one input per True
    output_differentiability: tuple[bool, ...] | None

    def __init__(
        self,
        name: str,
        formulas: tuple[Formula, ...],
        diff_inputs: tuple[str, ...],
        properties: dict[str, tuple[str, str]] | None = None,  # None: a new {}
        list_properties: dict[str, tuple[str, str]] | None = None,  # None: a new {}
        output_differentiability: tuple[bool, ...] | None = None,
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "formulas", formulas)
        object.__setattr__(self, "diff_inputs", diff_inputs)
        object.__setattr__(self, "properties", {} if properties is None else properties)
        object.__setattr__(
            self, "list_properties", {} if list_properties is None else list_properties
        )
        object.__setattr__(self, "output_differentiability", output_differentiability)


# ---- the generated Nodes' base (Functions.h) ---------------------------------------------------
class TraceableFunction(Node):
    """A generated Backward Node: its saved values and the formulas that use them."""

    __slots__ = ("saved_", "input_ranges_")
    info: DifferentiabilityInfo

    def __init__(self) -> None:
        super().__init__()
        self.saved_: dict[str, Any] = {}
        self.input_ranges_: dict[str, tuple[int, int, bool]] = {}  # name -> (start, n, is_list)

    def should_compute_output(self, start: int, n: int) -> bool:
        """task_should_compute_output: an edge leads somewhere this backward will run."""
        task = current_graph_task()
        for i in range(start, start + n):
            fn = self.next_edges_[i].function
            if fn is None:
                continue
            if task is None or not task.exec_info:
                return True
            info = task.exec_info.get(fn)
            if info is not None and info.should_execute():
                return True
        return False

    def _unpack(self, value: Any) -> Any:
        if isinstance(value, SavedVariable):
            return value.unpack(self)
        if isinstance(value, list) and value and isinstance(value[0], SavedVariable):
            return [v.unpack(self) for v in value]
        return value

    def apply(self, grads: list[Any]) -> list[Any]:
        outputs: list[Any] = [None] * len(self.next_edges_)
        if not any(g is not None and g.defined() for g in grads):
            return outputs
        env = {name: self._unpack(value) for name, value in self.saved_.items()}
        env["grad"] = grads[0]
        env["grads"] = grads
        for formula in self.info.formulas:
            mask = [
                self.should_compute_output(*self.input_ranges_[n][:2])
                if n in self.input_ranges_
                else False
                for n in formula.inputs
            ]
            if not any(mask):
                continue
            env["grad_input_mask"] = mask
            result = formula.fn(env)
            results = result if len(formula.inputs) > 1 else (result,)
            for name, value, wanted in zip(formula.inputs, results, mask):
                if not wanted or name not in self.input_ranges_:
                    continue
                start, n, is_list = self.input_ranges_[name]
                if is_list:
                    for j, v in enumerate(value):
                        outputs[start + j] = v
                else:
                    outputs[start] = value
        return outputs

    def release_variables(self) -> None:
        for value in self.saved_.values():
            if isinstance(value, SavedVariable):
                value.reset_data()
            elif isinstance(value, list):
                for v in value:
                    if isinstance(v, SavedVariable):
                        v.reset_data()

    def __getattr__(self, name: str) -> Any:
        """grad_fn._saved_self / _saved_other / _saved_result, as torch exposes them."""
        if name.startswith("_saved_"):
            key = name[len("_saved_") :]
            saved = object.__getattribute__(self, "saved_")
            if key in saved:
                value = self._unpack(saved[key])
                if isinstance(value, Tensor):
                    return THPVariable_Wrap(value.copy()) if value.defined() else None
                if isinstance(value, list):
                    return [THPVariable_Wrap(v.copy()) for v in value]
                return tuple(value) if isinstance(value, tuple) else value
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


class NotImplemented_(Node):  # torch's class is NotImplemented
    """functions/basic_ops.h's NotImplemented: forward works, backward raises."""

    __slots__ = ("op",)

    def __init__(self, op: str) -> None:
        super().__init__()
        self.op = op

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def apply(self, grads: list[Any]) -> list[Any]:
        raise RuntimeError(f"derivative for {self.op} is not implemented")


NotImplemented_.__name__ = NotImplemented_.__qualname__ = "NotImplemented"


# ---- what each kernel does with a DifferentiabilityInfo (VariableType_*.cpp) ------------------
def saved_names_for(info: DifferentiabilityInfo, needed: set[str]) -> set[str]:
    """The names read by the formulas of the inputs that need a gradient."""
    names: set[str] = set()
    for formula in info.formulas:
        if any(n in needed for n in formula.inputs):
            names |= formula.names
    return names - _SPECIAL


def is_differentiable_output(t: Any) -> bool:
    return (
        isinstance(t, Tensor)
        and t.defined()
        and (isFloatingType(t.scalar_type()) or isComplexType(t.scalar_type()))
    )


KernelBody = Callable[..., Any]
