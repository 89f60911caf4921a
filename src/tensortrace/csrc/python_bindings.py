"""The Python bindings (torch.<op> and Tensor.<op>): their signatures, and what they call.

Mirrors `tools/autograd/gen_python_functions.py`, which writes `python_torch_functions_*.cpp`
and `python_variable_methods.cpp`: for each operator name, the PythonArgParser signatures of its
overloads (the out= overload folded into the functional one as `Tensor out=None`, factories
given `dtype`, `layout`, `device`, `pin_memory` and `requires_grad`), a `THPVariable_<op>`
binding that parses, and a `dispatch_<op>` lambda that calls the at:: function or method and
wraps the result. The generator (tensortrace.torchgen.gen_python_functions) groups, signs and
orders the overloads with collect_overloads below and writes the bindings to csrc/generated/;
those call convert, call_out and wrap_result from csrc/python_binding_helpers.py
(torch/csrc/utils/python_arg_parser.h, wrap_outputs.h).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol

from tensortrace.aten.function_schema import Argument, FunctionSchema, parse_schema
from tensortrace.c10.frozen import Record


class OperatorLike(Protocol):
    """An operator as the bindings see it: an OperatorHandle at runtime, a torchgen
    NativeFunction in the generator."""

    @property
    def schema(self) -> FunctionSchema: ...

    @property
    def entry(self) -> dict[str, Any]: ...


# gen_python_functions.py: overloads that Python never sees (a Python number already reaches
# add.Tensor as a wrapped scalar tensor: SKIP_PYTHON_BINDINGS_SIGNATURES), and ops with a
# hand-written binding instead.
SKIP_PYTHON_BINDINGS = {
    "add.Scalar",
    "add_.Scalar",
    "to.dtype",
    "sub.Scalar",
    "sub_.Scalar",
    "mul.Scalar",
    "mul_.Scalar",
    "div.Scalar",
    "div_.Scalar",
    # internal view ops torch does not expose (gen_python_functions' skips)
    "numpy_T",
    "matrix_H",  # x.T and x.H: properties (python_variable.cpp)
    "_reshape_alias",
    "_unsafe_view",
    "alias",
    "slice.Tensor",
    # index.Tensor is x[...]; torch skips _index_put_impl_ (internal)
    "index.Tensor",
    "_index_put_impl_",
    # hand-written THPVariable_nonzero (as_tuple) calls it
    "nonzero_numpy",
}
# gen_python_functions' ".*_backward" and ".*_forward" skips: the kernels backward formulas call
# (threshold_backward, nll_loss_backward) and the halves of composite losses (nll_loss_forward)
# are no Python functions in torch
# (compiled on first use: Note [Patterns compiled on first use] in aten/function_schema.py)
SKIP_PYTHON_BINDINGS_PATTERN = r".*_(backward|forward)$"
# should_allow_numbers_as_tensors (torch/csrc/utils/python_arg_parser.cpp): the only bindings
# whose Tensor arguments also take Python numbers. Everything else has Scalar overloads.
NUMBERS_AS_TENSORS = {
    "add",
    "add_",
    "add_out",
    "div",
    "div_",
    "div_out",
    "divide",
    "divide_",
    "divide_out",
    "mul",
    "mul_",
    "mul_out",
    "multiply",
    "multiply_",
    "multiply_out",
    "sub",
    "sub_",
    "sub_out",
    "subtract",
    "subtract_",
    "subtract_out",
    "true_divide",
    "true_divide_",
    "true_divide_out",
    "to",
    "_to_copy",
    "copy_",
    "copy",
    "floor_divide",
    "floor_divide_",
    "floor_divide_out",
    "_conj",
}

_PY_TYPES = {
    "Tensor": "Tensor",
    "int": "int64_t",
    "SymInt": "SymInt",
    "float": "double",
    "bool": "bool",
    "Scalar": "Scalar",
    "ScalarType": "ScalarType",
    "str": "str",
    "Generator": "Generator",
    "Layout": "Layout",
    "Device": "Device",
    "MemoryFormat": "MemoryFormat",
    "Storage": "Storage",
}
FACTORY_OPTIONS = ("dtype", "layout", "device", "pin_memory")


def python_type(arg: Argument) -> str:
    t = arg.type
    if t.is_list:
        base = {
            "Tensor": "TensorList",
            "int": "IntArrayRef",
            "SymInt": "SymIntArrayRef",
            "float": "ArrayRef<double>",
        }[t.base]
        shown = f"{base}[{t.list_size}]" if t.list_size else base
        return shown + ("?" if t.optional else "")  # `int[1]? dim` takes None too
    return _PY_TYPES[t.base] + ("?" if t.optional else "")


def python_default(arg: Argument) -> str | None:
    if arg.default is None:
        return None
    if arg.type.base == "ScalarType" or arg.type.base == "Layout":
        return "None"
    return arg.default


class PythonOverload(Record):
    """One signature of a binding: which ops it calls and how its parameters map to them."""

    # Note [Records written out, not made by dataclass] in c10/frozen.py: a Record, as
    # @dataclass made it (eq, and so no hash)
    __match_args__ = ("signature", "op", "out_op", "is_method", "is_factory", "params")

    def __init__(
        self,
        signature: str,
        op: OperatorLike,
        out_op: OperatorLike | None,
        is_method: bool,
        is_factory: bool,
        params: list[str],  # the Python parameter names, in signature order
    ) -> None:
        self.signature = signature
        self.op = op
        self.out_op = out_op
        self.is_method = is_method
        self.is_factory = is_factory
        self.params = params


def make_signature(
    name: str,
    schema: FunctionSchema,
    is_method: bool,
    out_op: OperatorLike | None,
    deprecated: bool = False,
) -> tuple[str, list[str], bool]:
    args = list(schema.arguments)
    if is_method:
        args = [a for a in args if a.name != "self"]
    is_factory = schema.has_tensor_options
    if is_factory:
        args = [a for a in args if a.name not in FACTORY_OPTIONS]
    parts: list[str] = []
    names: list[str] = []
    star = False
    for a in args:
        if a.type.is_write and a.kwarg_only:
            continue  # an out= argument: added below as `Tensor out=None`
        if a.kwarg_only and not star:
            parts.append("*")
            star = True
        default = python_default(a)
        # torch.<op> calls its first tensor `input`; the method's `self` is the tensor itself
        shown = "input" if a.name == "self" and a.type.base == "Tensor" else a.name
        parts.append(f"{python_type(a)} {shown}" + (f"={default}" if default is not None else ""))
        names.append(a.name)
    extra: list[tuple[str, str]] = []
    if out_op is not None:
        n_out = len(out_op.schema.returns)  # max.dim_max: out=(values, indices)
        extra.append((f"TensorList[{n_out}] out=None" if n_out > 1 else "Tensor out=None", "out"))
    if is_factory:
        extra += [
            ("ScalarType dtype=None", "dtype"),
            ("Layout layout=None", "layout"),
            ("Device device=None", "device"),
            ("bool pin_memory=False", "pin_memory"),
            ("bool requires_grad=False", "requires_grad"),
        ]
    for text, pname in extra:
        if not star:
            parts.append("*")
            star = True
        parts.append(text)
        names.append(pname)
    flags = "|deprecated" if deprecated else ""
    return f"{name}({', '.join(parts)}){flags}", names, is_factory


def load_deprecated() -> list[tuple[FunctionSchema, str]]:
    """deprecated.yaml: (old schema, the aten op it calls)."""
    from tensortrace.torchgen.model import DEPRECATED_YAML, load_yaml, read_input

    text = read_input(DEPRECATED_YAML)
    return [(parse_schema(e["name"]), e["aten"].split("(")[0]) for e in load_yaml(text)]


def deprecated_overloads(
    ops: Sequence[OperatorLike], is_method: bool
) -> dict[str, list[PythonOverload]]:
    """The deprecated.yaml signatures, after the regular ones: hidden from errors, still parsed.

    Their arguments keep their names (`alpha`, `other`), so the dispatch maps them onto the
    current overload by name: add(2, x) becomes add(x, alpha=2).
    """
    by_name = ops_by_name(ops)
    grouped: dict[str, list[PythonOverload]] = {}
    for schema, target in load_deprecated():
        if schema.is_out:
            continue  # folded into the functional one as `Tensor out=None` below
        if is_method is False and schema.is_inplace:
            continue
        # the overload whose arguments after self include a tensor (add.Tensor, not add.Scalar)
        op = next(
            (
                o
                for o in by_name.get(target, [])
                if not o.schema.is_out
                and any(a.type.is_tensor_like for a in o.schema.arguments[1:])
            ),
            None,
        )
        if op is None:
            continue
        out_op = None
        if not is_method:
            out_op = next(
                (o for o in by_name.get(target, []) if o.schema.full_name == f"{target}.out"), None
            )
        sig, names, _ = make_signature(schema.name, schema, is_method, out_op, deprecated=True)
        grouped.setdefault(schema.name, []).append(
            PythonOverload(sig, op, out_op, is_method, False, names)
        )
    return grouped


def ops_by_name(ops: Sequence[OperatorLike]) -> dict[str, list[OperatorLike]]:
    """The overloads of each operator name, in registry order."""
    by_name: dict[str, list[OperatorLike]] = {}
    for op in ops:
        by_name.setdefault(op.schema.name, []).append(op)
    return by_name


def _matching_out(schema: FunctionSchema, overloads: Sequence[OperatorLike]) -> OperatorLike | None:
    """The out= overload whose other arguments are the functional's (div.out_mode for
    div.Tensor_mode), as gen_python_functions pairs them by signature: a factory's dtype,
    layout, device and pin_memory are Python-side options both signatures get, so they do not
    count (arange.start_out pairs with arange.start_step, whose step it shares)."""
    names = {a.name for a in schema.arguments if a.kwarg_only}
    options = set(FACTORY_OPTIONS) if set(FACTORY_OPTIONS) <= names else set()
    wanted = [(a.name, str(a.type)) for a in schema.arguments if a.name not in options]
    for op in overloads:
        if op.schema.is_out:
            args = [
                (a.name, str(a.type))
                for a in op.schema.arguments
                if not (a.kwarg_only and a.type.is_write)
            ]
            if args == wanted:
                return op
    return None


def sort_overloads(overloads: Sequence[PythonOverload]) -> list[PythonOverload]:
    """gen_python_functions.sort_overloads: sort by signature, then put each overload after the
    ones it is 'smaller' than (Scalar < Tensor, int[] < int ...), so that a 0-dim tensor picks
    the Tensor overload and a Python number falls through to the Scalar one."""

    def arg_types(ov: PythonOverload) -> list[str]:
        args = [a for a in ov.op.schema.arguments if not (a.kwarg_only and a.type.is_write)]
        if ov.is_method:
            args = [a for a in args if a.name != "self"]
        return [str(a.type).replace("(a!)", "").replace("(a)", "") for a in args]

    def is_arg_smaller(t1: str, t2: str) -> bool:
        return (
            (t1 == "Scalar" and t2 == "Tensor")
            or (t1 == "Scalar?" and t2 == "Tensor?")
            or (t1 == "int[]" and t2 in ("int", "int?"))
            or (t1 == "Tensor[]" and "[]" in t2)
            or (t1 == "SymInt[]" and t2 == "int[]")
            or (t1 in ("SymInt", "int") and t2 == "Tensor")
        )

    def is_smaller(s1: PythonOverload, s2: PythonOverload) -> bool:
        a1, a2 = arg_types(s1), arg_types(s2)
        if len(a1) != len(a2):
            return False
        equal = all(x == y for x, y in zip(a1, a2))
        smaller_or_equal = all(x == y or is_arg_smaller(x, y) for x, y in zip(a1, a2))
        return smaller_or_equal and not equal

    ordered = sorted(overloads, key=lambda ov: ov.signature)
    larger_than: dict[int, set[int]] = {}
    for i1, o1 in enumerate(ordered):
        for i2, o2 in enumerate(ordered):
            if is_smaller(o1, o2):
                larger_than.setdefault(i1, set()).add(i2)
    if not larger_than:
        return list(ordered)
    sorted_ids = [i for i in range(len(ordered)) if i not in larger_than]
    for idx in range(len(ordered)):
        i = sorted_ids[idx]
        for j in sorted(larger_than):
            larger = larger_than[j]
            larger.discard(i)
            if not larger:
                del larger_than[j]
                sorted_ids.append(j)
    return [ordered[i] for i in sorted_ids]


def collect_overloads(
    ops: Sequence[OperatorLike], is_method: bool, python_module: str | None = None
) -> dict[str, list[PythonOverload]]:
    """Group the YAML's ops by Python name, folding each `.out` overload into its functional.

    Functions of a `python_module:` (nn, linalg) go to that module only (torch._C._nn.*,
    torch.linalg.*).
    """
    by_full = {op.schema.full_name: op for op in ops}
    by_name = ops_by_name(ops)
    grouped: dict[str, list[PythonOverload]] = {}
    # the out= overloads some functional's signature claims (gen_python_functions' pairing)
    paired = {
        id(out)
        for op in ops
        if not op.schema.is_out
        for out in [_matching_out(op.schema, by_name[op.schema.name])]
        if out is not None
    }
    for op in ops:
        schema = op.schema
        variants = str(op.entry.get("variants", "function"))
        wanted = "method" if is_method else "function"
        if (
            wanted not in variants
            or schema.is_out
            or schema.full_name in SKIP_PYTHON_BINDINGS
            or re.match(SKIP_PYTHON_BINDINGS_PATTERN, schema.name)
        ):
            continue
        if not is_method and op.entry.get("python_module") != python_module:
            continue
        out_op = None
        if not is_method:
            out_name = (
                f"{schema.name}.out"
                if not schema.overload_name
                else f"{schema.name}.{schema.overload_name}_out"
            )
            # an out= overload with exactly the functional's arguments wins (all.all_out for
            # all, not all.out, which takes a dim)
            out_op = _matching_out(schema, by_name[schema.name])
            named = by_full.get(out_name)
            if out_op is None and named is not None and id(named) in paired:
                named = None  # it pairs by signature with another overload
            out_op = (
                out_op
                or named
                or (
                    by_full.get(f"{schema.name}.out")
                    if schema.overload_name in ("Tensor", "")
                    else None
                )
            )
        sig, names, is_factory = make_signature(schema.name, schema, is_method, out_op)
        grouped.setdefault(schema.name, []).append(
            PythonOverload(sig, op, out_op, is_method, is_factory, names)
        )
    for name in grouped:
        grouped[name] = sort_overloads(grouped[name])
    for name, extra in deprecated_overloads(ops, is_method).items():
        if name in grouped:
            grouped[name].extend(extra)
    return grouped
