"""Write the Python bindings (torch.<op>, Tensor.<op>) from native_functions.yaml.

Mirrors `tools/autograd/gen_python_functions.py`, which writes `python_torch_functions_0.cpp`
and `python_variable_methods.cpp`: for each operator name, a PythonArgParser with the
signatures of its overloads, one `dispatch_<op>` lambda per overload that calls the at::
function or Tensor method, and a `THPVariable_<op>` binding that parses, dispatches and wraps
the result. The grouping, signatures and overload order come from csrc/python_bindings.py.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Sequence

from tensortrace.csrc.python_arg_parser import (
    FunctionParameter,
    FunctionSignature,
    ParameterType,
)
from tensortrace.csrc.python_bindings import (
    FACTORY_OPTIONS,
    NUMBERS_AS_TENSORS,
    OperatorLike,
    PythonOverload,
    collect_overloads,
)
from tensortrace.csrc.python_torch_function_mode import DEVICE_CONSTRUCTORS
from tensortrace.csrc.return_types import has_structseq
from tensortrace.torchgen.model import NativeFunction, py_name

TORCH_FUNCTIONS_CPP = "torch/csrc/autograd/generated/python_torch_functions_0.cpp"
VARIABLE_METHODS_CPP = "torch/csrc/autograd/generated/python_variable_methods.cpp"


def _ident(f: OperatorLike | None) -> str:
    """The generated name of an operator's handle (`ops.add_Tensor`, NativeFunction.ident)."""
    return "None" if f is None else f"ops.{f.schema.full_name.replace('.', '_')}"


def _dispatch(name: str, i: int, ov: PythonOverload) -> list[str]:
    """dispatch_<name>: call at::<name> (or Tensor::<name>) with the parsed arguments."""
    schema = ov.op.schema
    schema_names = [a.name for a in schema.arguments]
    non_none_defaults = {
        a.name for a in schema.arguments if a.default is not None and a.default != "None"
    }
    src = "VARIABLE_METHODS_CPP" if ov.is_method else "TORCH_FUNCTIONS_CPP"
    lines = [
        "",
        "",
        f'@traced("python", "dispatch_{name}", {src}, "dispatch_{name}", legacy="dispatch_{name}")',
        f"def dispatch_{name}_{i}(self: Any, kwargs: dict[str, Any]) -> Any:",
        f'    """{ov.signature}: {schema.full_name}'
        + (f", out= {ov.out_op.schema.full_name}" if ov.out_op else "")
        + '"""',
    ]
    if ov.out_op is not None:
        lines += ['    out = kwargs.pop("out", None)']
    if ov.is_factory:
        lines += ['    requires_grad = bool(kwargs.pop("requires_grad", False))']
    if ov.out_op is not None:
        lines += [
            "    if out is not None:",
            f"        return call_out({_ident(ov.out_op)}, {name!r}, "
            f"{ov.is_factory}, self, kwargs, out)",
        ]
    # an argument left out in Python takes the schema's default (randint's dtype=long)
    passed = [p for p in ov.params if p in schema_names and p not in ("out", "requires_grad")]
    conditional = [p for p in passed if p in non_none_defaults]
    if conditional:
        lines.append("    call_kwargs = {}")
        for p in passed:
            if p in conditional:
                lines += [
                    f"    if kwargs[{p!r}] is not None:",
                    f"        call_kwargs[{py_name(p)!r}] = kwargs[{p!r}]",
                ]
            else:
                lines.append(f"    call_kwargs[{py_name(p)!r}] = kwargs[{p!r}]")
        call = "(**call_kwargs)"
    else:
        call = "(" + ", ".join(f"{py_name(p)}=kwargs[{p!r}]" for p in passed) + ")"
    target = schema.name
    if ov.is_factory:
        # torch::rand (variable_factories.h): below ADInplaceOrView, then make_variable; a
        # factory method (x.new_zeros) is Tensor::new_zeros on self
        lines += [
            "    with AutoDispatchBelowADInplaceOrView():",
            f"        result = {'self' if ov.is_method else 'at'}.{target}{call}",
            "    return make_variable(result, requires_grad)",
        ]
    elif ov.is_method:
        lines += [f"    return self.{target}{call}"]
    else:
        lines += [f"    return at.{target}{call}"]
    return lines


def _binding(name: str, overloads: Sequence[PythonOverload], is_method: bool) -> list[str]:
    for i, ov in enumerate(overloads):  # the parser is lazy: check the formats now
        FunctionSignature.parse(ov.signature, i, name in NUMBERS_AS_TENSORS)
    sigs = "".join(f"\n    {ov.signature!r}," for ov in overloads)
    numbers = ", allow_numbers_as_tensors=True" if name in NUMBERS_AS_TENSORS else ""
    lines = [
        "",
        "",
        f"# ---- {name} " + "-" * (90 - len(name)),
        f"parser_{name} = PythonArgParser.lazy([{sigs}\n]{numbers})",
    ]
    for i, ov in enumerate(overloads):
        lines += _dispatch(name, i, ov)
    lines += [""]
    # schemas returning named tensors give torch.return_types.<name> (and <name>_out)
    seqs = [
        f"({_structseq(name, ov.op)}, {_structseq(f'{name}_out', ov.out_op)})" for ov in overloads
    ]
    lines.append(f"structseqs_{name} = [{', '.join(seqs)}]")
    return lines


def _structseq(name: str, op: OperatorLike | None) -> str:
    """return_types.for_schema of the op, or None where it gives None (has_structseq)."""
    if op is None or not has_structseq(op.schema):
        return "None"
    return f"return_types.for_schema({name!r}, {_ident(op)}.schema)"


# the names a generated binding's body uses itself: a parameter with one of these names gets
# its local variable spelled with a trailing underscore
_RESERVED_LOCALS = frozenset(
    {
        "self",
        "r",
        "a",
        "args",
        "kwargs",
        "result",
        "out_used",
        "type",
        "isinstance",
        "float",
        "int",
        "None",
        "at",
        "ops",
        "convert",
        "recorder",
        "traced",
        "scalar_arg",
        "int64_arg",
        "to_scalar_type",
        "wrapped_scalar_tensor",
        "wrap_result",
        "TensorBase",
        "THPVariable_Wrap",
        "INT64_MIN",
        "INT64_MAX",
        "return_types",
        "check_noargs",
        "handle_th_errors",
    }
)

# the ParameterTypes whose conversion is written out; the others call convert(r, i)
_SIMPLE_DEFAULTS = (bool, int, float, str)


def _local(pname: str) -> str:
    """The local variable of a parameter: `from` is `from_`, `A` (linalg) is `a_`."""
    if pname in _RESERVED_LOCALS or keyword.iskeyword(pname) or not pname.islower():
        return pname.lower() + "_"
    return pname


def _convert(param: FunctionParameter, i: int, pname: str) -> list[str]:
    """The straight-line conversion of parameter i (PythonArgs::tensor, ::scalar, ::toInt64,
    ...), as the generated C++ binding writes `_r.tensor(0)` in the dispatch call: no lookup of
    the parameter's type at run time. Leaves the value in a local named after the parameter."""
    x = _local(pname)
    t = param.type_
    try:
        default = param.default_value()
    except ValueError:  # memory_format=contiguous_format: PythonArgs' accessor knows it
        return [f"    {x} = convert(r, {i})"]
    simple = default is None or type(default) in _SIMPLE_DEFAULTS
    if_none = [f"    if {x} is None:", f"        {x} = {default!r}"]
    if t is ParameterType.TENSOR and default is None:
        if not param.allow_numbers_as_tensor:
            return [f"    {x} = a[{i}]", f"    if {x} is not None:", f"        {x} = {x}.cdata"]
        return [
            f"    {x} = a[{i}]",
            f"    if isinstance({x}, TensorBase):",
            f"        {x} = {x}.cdata",
            f"    elif {x} is not None:  # a number where a Tensor is allowed (add(x, 2))",
            f"        {x} = wrapped_scalar_tensor(scalar_arg({x}))",
        ]
    if t is ParameterType.SCALAR and simple:
        if default is None:
            return [
                f"    {x} = a[{i}]",
                f"    if {x} is not None and type({x}) is not float:",
                f"        {x} = scalar_arg({x})",
            ]
        return [
            f"    {x} = a[{i}]",
            *if_none,
            f"    elif type({x}) is not float:",
            f"        {x} = scalar_arg({x})",
        ]
    if t in (ParameterType.INT64, ParameterType.SYM_INT) and simple:
        check = (
            f"if {x} is not None and (type({x}) is not int or not INT64_MIN <= {x} <= INT64_MAX):"
        )
        lines = [f"    {x} = a[{i}]"]
        if default is not None:
            lines += if_none
        return lines + [
            ("    el" if default is not None else "    ") + check,
            f"        {x} = int64_arg({x})",
        ]
    if t is ParameterType.DOUBLE and simple:
        lines = [f"    {x} = a[{i}]"]
        if default is not None:
            lines += if_none
        return lines + [f"    if {x} is not None:", f"        {x} = float({x})"]
    if t in (ParameterType.BOOL, ParameterType.STRING, ParameterType.PYOBJECT) and simple:
        return [f"    {x} = a[{i}]", *(if_none if default is not None else [])]
    if t is ParameterType.INT_LIST:  # (a local of several branches starts as a[i], an Any)
        if default is None:
            return [
                f"    {x} = a[{i}]",
                f"    if {x} is not None:",
                f"        {x} = r.intlist({i})",
            ]
        return [f"    {x} = a[{i}]", f"    {x} = r.intlist({i})  # None: the default"]
    if t is ParameterType.SCALARTYPE and default is None:
        return [
            f"    {x} = a[{i}]",
            f"    if {x} is not None:",
            f"        {x} = to_scalar_type({x})",
        ]
    if default is None:
        return [f"    {x} = None if a[{i}] is None else convert(r, {i})"]
    return [f"    {x} = convert(r, {i})"]


def _returns_one_tensor(op: OperatorLike | None) -> bool:
    if op is None:
        return True
    rets = op.schema.returns
    return len(rets) == 1 and rets[0].base == "Tensor" and not rets[0].is_list


def _overload_body(name: str, i: int, ov: PythonOverload, numbers: bool) -> list[str]:
    """One overload's arguments converted in straight-line code, its dispatch_<name>, its
    result wrapped: the body of `case i:` in the generated C++ switch on `_r.idx`."""
    sig = FunctionSignature.parse(ov.signature, i, numbers)
    lines = [f"    # {ov.signature}"]
    for j, param in enumerate(sig.params):
        lines += _convert(param, j, ov.params[j])
    parsed = ", ".join(f"{p!r}: {_local(p)}" for p in ov.params)
    lines.append(f"    result = dispatch_{name}_{i}(self, {{{parsed}}})")
    if _returns_one_tensor(ov.op) and _returns_one_tensor(ov.out_op):
        lines.append("    return THPVariable_Wrap(result)")
    elif ov.out_op is None:
        lines.append(f"    return wrap_result(result, structseqs_{name}[{i}][0])")
    else:
        lines.append(
            f"    return wrap_result(result, structseqs_{name}[{i}]"
            f"[0 if {_local('out')} is None else 1])"
        )
    return lines


def _binding_def(
    name: str,
    python_name: str,
    is_method: bool,
    overloads: Sequence[PythonOverload],
    noargs: bool = False,
) -> list[str]:
    """THPVariable_<name>: parse with PythonArgParser, then, for the signature it chose, convert
    the arguments, dispatch and wrap in straight-line code. `noargs`: every signature is
    `name()`, METH_NOARGS in python_variable_methods.cpp (an argument is a TypeError)."""
    src = "VARIABLE_METHODS_CPP" if is_method else "TORCH_FUNCTIONS_CPP"
    # x + y and x.add(y) reach the same THPVariable_add: the trace notes which one Python called
    called_as = f"Tensor.{python_name}" if is_method else f"torch.{name}"
    check = (
        ["    if len(args) > 1 or kwargs:", f'        check_noargs("{name}", args[1:], kwargs)']
        if noargs
        else []
    )
    # a factory of _device_constructors() calls the default device's mode after parsing
    # (Note [The default device at the binding layer])
    mode_check = (
        [
            "    if PYTHON_TORCH_FUNCTION_TLS.stack_:  # torch_function_mode_enabled(), inline",
            f"        return handle_torch_function_mode({python_name}, args, kwargs)",
        ]
        if not is_method and name in DEVICE_CONSTRUCTORS
        else []
    )
    numbers = name in NUMBERS_AS_TENSORS
    body: list[str] = []
    for i, ov in enumerate(overloads):
        case = _overload_body(name, i, ov, numbers)
        if i < len(overloads) - 1:
            body += [f"    if r.idx == {i}:", *("    " + line for line in case)]
        else:
            body += case
    return [
        "",
        "",
        "@handle_th_errors",
        f'@traced("python", "THPVariable_{name}", {src}, legacy="THPVariable_{name}")',
        f"def {python_name}(*args: Any, **kwargs: Any) -> Any:",
        f'    """{called_as}: THPVariable_{name}"""',
        "    if recorder.current is not None:",
        f'        recorder.current.instant("python_call", "python", "{called_as}",',
        f'                                 {{"python_name": "{called_as}"}})',
        *check,
        ("    self = args[0].cdata" if is_method else "    self = None"),
        ("    r = " if any(re.search(r"\br\b|\ba\[", line) for line in body) else "    ")
        + f"parser_{name}.parse({'args[1:]' if is_method else 'args'}, kwargs)",
        *mode_check,
        *(["    a = r.args"] if any("a[" in line for line in body) else []),
        *body,
    ]


_IMPORTS = [
    ("tensortrace.aten", "functions as at"),
    ("tensortrace.aten.generated", "operators as ops"),
    ("tensortrace.aten.python_torch_function_tls", "PYTHON_TORCH_FUNCTION_TLS"),
    ("tensortrace.aten.scalar_ops", "wrapped_scalar_tensor"),
    ("tensortrace.autograd.variable", "make_variable"),
    ("tensortrace.c10.local_dispatch_key_set", "AutoDispatchBelowADInplaceOrView"),
    ("tensortrace.csrc", "return_types"),
    ("tensortrace.csrc.dtype", "to_scalar_type"),
    ("tensortrace.csrc.python_arg_parser", "INT64_MAX, INT64_MIN, PythonArgParser"),
    ("tensortrace.csrc.python_bindings", "PythonOverload"),
    (
        "tensortrace.csrc.python_binding_helpers",
        "call_out, convert, int64_arg, scalar_arg, wrap_result",
    ),
    ("tensortrace.csrc.python_torch_function_mode", "handle_torch_function_mode"),
    (
        "tensortrace.csrc.python_variable",
        "TensorBase, THPVariable_Wrap, check_noargs, handle_th_errors",
    ),
    ("tensortrace.trace", "recorder, traced"),
]


def _imports(body: list[str]) -> list[str]:
    """The import lines of the names `body` uses."""
    text = "\n".join(body)
    lines = ["from typing import Any", ""]
    for module, names in _IMPORTS:
        used = [n for n in names.split(", ") if re.search(rf"\b{n.split(' as ')[-1]}\b", text)]
        line = f"from {module} import {', '.join(used)}"
        if used and len(line) > 100:  # isort's wrapping, as ruff checks it
            lines += [f"from {module} import (", *(f"    {n}," for n in used), ")"]
        elif used:
            lines.append(line)
    return [*lines, ""]


def gen_torch_functions(fns: Sequence[NativeFunction]) -> tuple[str, str]:
    doc = (
        "The torch.<op> functions: torch._C._VariableFunctions.\n\n"
        "Mirrors the generated `python_torch_functions_0.cpp`: one THPVariable_<op> per "
        "operator name\nwith `variants: function` (the out= overload folded into the "
        "functional one as\n`Tensor out=None`, factories given dtype, layout, device, "
        "pin_memory and requires_grad).\ncsrc/python_torch_functions.py adds the "
        "hand-written ones."
    )
    out = [f'TORCH_FUNCTIONS_CPP = "{TORCH_FUNCTIONS_CPP}"']
    # `python_module: nn` ops are bound in torch._C._nn instead (python_nn_functions.py)
    grouped = collect_overloads([f for f in fns if not _in_module(f, "nn")], is_method=False)
    for name, overloads in grouped.items():
        out += _binding(name, overloads, False) + _binding_def(name, name, False, overloads)
    out += ["", "", "FUNCTIONS: dict[str, Any] = {"]
    out += [f'    "{n}": {n},' for n in grouped]
    out += [
        "}",
        "",
        "# torch.<op>: tensortrace/__init__.py copies FUNCTIONS into the package",
        "__all__ = [",
    ]
    out += [f'    "{n}",' for n in grouped]
    out.append("]")
    return doc, "\n".join(_imports(out) + out) + "\n"


def gen_variable_methods(
    fns: Sequence[NativeFunction], operators: dict[str, str]
) -> tuple[str, str]:
    doc = (
        "The generated Tensor methods of torch.Tensor (THPVariable_<op>).\n\n"
        "Mirrors the generated `python_variable_methods.cpp`: one binding per operator name "
        "with\n`variants: method`, and the Python operators of its method table "
        "(`__add__` is the add\nbinding, called as Tensor.__add__). "
        "csrc/python_variable_methods.py installs them with the\nhand-written methods."
    )
    out = [f'VARIABLE_METHODS_CPP = "{VARIABLE_METHODS_CPP}"']
    grouped = collect_overloads(fns, is_method=True)
    for name, overloads in grouped.items():
        noargs = all(not ov.params for ov in overloads)
        out += _binding(name, overloads, True) + _binding_def(name, name, True, overloads, noargs)
    for dunder, name in operators.items():
        assert dunder not in grouped, dunder
        out += _binding_def(name, dunder, True, grouped[name])
    out += ["", "", "METHODS: dict[str, Any] = {"]
    out += [f'    "{n}": {n},' for n in grouped]
    out += [
        "}",
        "",
        "# Python operator -> its binding (python_variable_methods.cpp's table)",
        "OPERATOR_METHODS: dict[str, Any] = {",
    ]
    out += [f'    "{d}": {d},' for d in operators]
    out.append("}")
    return doc, "\n".join(_imports(out) + out) + "\n"


def _in_module(f: NativeFunction, module: str) -> bool:
    return f.entry.get("python_module") == module


def gen_module_functions(fns: Sequence[NativeFunction], module: str) -> tuple[str, str]:
    """python_<module>_functions.cpp: the bindings of the ops declared `python_module: <module>`
    (torch._C._nn.<op>, torch._C._linalg.linalg_<op>)."""
    doc = (
        f"The bindings of the `python_module: {module}` ops (torch._C._{module}).\n\n"
        f"Mirrors the generated `python_{module}_functions.cpp`: one THPVariable_<op> per "
        f"operator name;\ncsrc/python_{module}_functions.py installs them."
    )
    out = [f'TORCH_FUNCTIONS_CPP = "{TORCH_FUNCTIONS_CPP}"']
    grouped = collect_overloads(
        [f for f in fns if _in_module(f, module)], is_method=False, python_module=module
    )
    for name, overloads in grouped.items():
        out += _binding(name, overloads, False) + _binding_def(name, name, False, overloads)
    out += ["", "", "FUNCTIONS: dict[str, Any] = {"]
    out += [f'    "{n}": {n},' for n in grouped]
    out.append("}")
    return doc, "\n".join(_imports(out) + out) + "\n"


def csrc_modules(
    fns: Sequence[NativeFunction], operators: dict[str, str]
) -> dict[str, tuple[str, str]]:
    return {
        "python_torch_functions_0": gen_torch_functions(fns),
        "python_nn_functions": gen_module_functions(fns, "nn"),
        "python_linalg_functions": gen_module_functions(fns, "linalg"),
        "python_fft_functions": gen_module_functions(fns, "fft"),
        "python_special_functions": gen_module_functions(fns, "special"),
        "python_variable_methods": gen_variable_methods(fns, operators),
    }


__all__ = ["FACTORY_OPTIONS", "csrc_modules"]
