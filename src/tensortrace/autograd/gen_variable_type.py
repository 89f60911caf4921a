"""Generate the Backward Nodes and the graph-recording part of each Autograd kernel from
derivatives.yaml.

Mirrors `tools/autograd/load_derivatives.py` (read the YAML, name the Nodes: AddBackward0,
AddBackward1 ... counted per name in file order), `gen_autograd_functions.py` (one Node class per
entry, with its saved variables and apply(): `torch/csrc/autograd/generated/Functions.cpp`) and
`gen_variable_type.py` (the VariableType kernel body: check_inplace, collect_next_edges, save the
inputs, redispatch, set_history / rebase_history, save the outputs). Generation happens at import,
all of it here, so that it can move to files on disk as torchgen writes them.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.function_schema import FunctionSchema, parse_schema
from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd import functions_manual
from tensortrace.autograd.function import Node
from tensortrace.autograd.saved_variable import SavedVariable
from tensortrace.c10.scalar_type import isComplexType, isFloatingType

# X.sizes() and friends: only the fact is saved, not the tensor (gen_variable_type's
# `self_sym_sizes`), so an in-place change of X does not invalidate the Node.
_PROPERTY_RE = re.compile(r"\b([A-Za-z_]\w*)\.(sym_sizes|sizes|sym_strides|strides|scalar_type|"
                          r"sym_numel|numel|dim|layout|options|geometry)\(\)")
_LIST_PROPERTY_RE = re.compile(r"\bto_args_(sizes|scalartypes)\((\w+)\)")
_SPECIAL = {"grad", "grads", "grad_input_mask", "at", "True", "False", "None"}

# Ops whose outputs never require grad (gen_variable_type.py's DONT_REQUIRE_DERIVATIVE), and ops
# that hand back their input unchanged, which must keep its history.
DONT_REQUIRE_DERIVATIVE = frozenset({
    "empty_like", "ones_like", "full_like", "zeros_like", "rand_like", "randn_like",
    "randint_like", "new_empty", "new_empty_strided", "new_full", "new_zeros", "new_ones",
    "__and__", "__iand__", "__ior__", "__or__", "argmax", "argmin", "nonzero", "detach",
    "detach_", "resolve_conj", "resolve_neg", "result_type", "can_cast", "promote_types",
    "is_nonzero", "item", "_local_scalar_dense", "eq", "ne", "lt", "le", "gt", "ge",
    "logical_and", "logical_or", "logical_not", "bitwise_and", "bitwise_or", "bitwise_not",
    "all", "any", "set_", "lift_fresh",
})


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
    if prop == "layout":
        return "strided"
    return (t.sizes(), t.strides(), t.storage_offset(), t.scalar_type())  # geometry


@dataclass
class Formula:
    inputs: tuple[str, ...]  # the differentiable inputs it gives gradients for
    source: str
    code: Any
    names: frozenset[str]  # the names it reads


@dataclass
class DifferentiabilityInfo:
    """load_derivatives.DifferentiabilityInfo: one entry of derivatives.yaml."""

    name: str  # full name, `add.Tensor`
    schema: FunctionSchema
    node_name: str
    formulas: list[Formula]
    diff_inputs: tuple[str, ...]  # in schema order
    properties: dict[str, tuple[str, str]] = field(default_factory=dict)  # saved name -> (arg, p)
    list_properties: dict[str, tuple[str, str]] = field(default_factory=dict)
    node_class: type[Node] | None = None


def _op_prefix(name: str) -> str:
    """load_derivatives._create_op_prefix: `_to_copy` -> ToCopyBackward."""
    camel = "".join(p.title() for p in name.split("_"))
    return (camel + "Backward").replace("ForwardBackward", "Backward")


def _rewrite_properties(source: str, arg_names: set[str],
                        properties: dict[str, tuple[str, str]],
                        list_properties: dict[str, tuple[str, str]]) -> str:
    """`self.sym_sizes()` -> `self_sym_sizes`, recorded as a fact to save at forward time."""

    def prop(m: re.Match[str]) -> str:
        if m.group(1) not in arg_names:
            return m.group(0)  # grad.scalar_type() and the like: asked at backward time
        saved = f"{m.group(1)}_{m.group(2)}"
        properties[saved] = (m.group(1), m.group(2))
        return saved

    def list_prop(m: re.Match[str]) -> str:
        saved = f"{m.group(2)}_args_{m.group(1)}"
        list_properties[saved] = (m.group(2), m.group(1))
        return saved

    return _LIST_PROPERTY_RE.sub(list_prop, _PROPERTY_RE.sub(prop, source))


def load_derivatives() -> dict[str, DifferentiabilityInfo]:
    from tensortrace.aten.codegen import load_yaml

    text = resources.files("tensortrace.autograd").joinpath("derivatives.yaml").read_text()
    counter: Counter[str] = Counter()
    infos: dict[str, DifferentiabilityInfo] = {}
    for entry in load_yaml(text):
        schema = parse_schema(entry["name"])
        keys = [k for k in entry if k not in ("name", "output_differentiability", "result",
                                              "node_name")]
        formulas: list[Formula] = []
        properties: dict[str, tuple[str, str]] = {}
        list_properties: dict[str, tuple[str, str]] = {}
        arg_names = {a.name for a in schema.arguments}
        # load_derivatives.set_up_derivatives: `for raw_names in sorted(defn.keys())`, so a
        # Node computes its inputs' gradients in that order (MmBackward0: mat2, then self)
        for key in sorted(keys):
            source = str(entry[key])
            if source == "non_differentiable":
                continue

            rewritten = _rewrite_properties(source, arg_names, properties, list_properties)
            tree = ast.parse(rewritten, mode="eval")
            names = frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))
            formulas.append(Formula(tuple(k.strip() for k in key.split(",")), source,
                                    compile(tree, f"<derivatives.yaml {schema.full_name}>",
                                            "eval"), names))
        if not formulas:
            continue
        base = schema.name
        if "node_name" in entry:
            node_name = entry["node_name"]
        else:
            prefix = _op_prefix(base)
            node_name = f"{prefix}{counter[prefix]}"
            counter[prefix] += 1
        diff = {n for f in formulas for n in f.inputs}
        diff_inputs = tuple(a.name for a in schema.arguments if a.name in diff)
        info = DifferentiabilityInfo(schema.full_name, schema, node_name, formulas, diff_inputs,
                                     properties, list_properties)
        info.node_class = make_node_class(info)
        infos[schema.full_name] = info
    return infos


# ---- the generated Nodes (Functions.cpp) -----------------------------------------------------
_NAMESPACE: dict[str, Any] = {k: v for k, v in vars(functions_manual).items()
                              if not k.startswith("__")}
_NAMESPACE["at"] = at


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
        from tensortrace.autograd.engine import current_graph_task

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
            mask = [self.should_compute_output(*self.input_ranges_[n][:2]) if n in
                    self.input_ranges_ else False for n in formula.inputs]
            if not any(mask):
                continue
            env["grad_input_mask"] = mask
            result = eval(formula.code, _NAMESPACE, env)  # noqa: S307 - derivatives.yaml
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
            key = name[len("_saved_"):]
            saved = object.__getattribute__(self, "saved_")
            if key in saved:
                from tensortrace.csrc.python_variable import THPVariable_Wrap

                value = self._unpack(saved[key])
                if isinstance(value, Tensor):
                    return THPVariable_Wrap(value.copy()) if value.defined() else None
                if isinstance(value, list):
                    return [THPVariable_Wrap(v.copy()) for v in value]
                return tuple(value) if isinstance(value, tuple) else value
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


class NotImplemented_(Node):  # noqa: N801 - torch's class is NotImplemented
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


def make_node_class(info: DifferentiabilityInfo) -> type[Node]:
    return type(info.node_name, (TraceableFunction,), {"info": info, "__slots__": ()})


# ---- what each kernel does with a DifferentiabilityInfo (VariableType_*.cpp) ------------------
def saved_names_for(info: DifferentiabilityInfo, needed: set[str]) -> set[str]:
    """The names read by the formulas of the inputs that need a gradient."""
    names: set[str] = set()
    for formula in info.formulas:
        if any(n in needed for n in formula.inputs):
            names |= formula.names
    return names - _SPECIAL


def is_differentiable_output(t: Any) -> bool:
    return isinstance(t, Tensor) and t.defined() and (isFloatingType(t.scalar_type())
                                                       or isComplexType(t.scalar_type()))


KernelBody = Callable[..., Any]
