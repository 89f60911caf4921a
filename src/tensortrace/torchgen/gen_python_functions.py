"""Write the Python bindings (torch.<op>, Tensor.<op>) from native_functions.yaml.

Mirrors `tools/autograd/gen_python_functions.py`, which writes `python_torch_functions_0.cpp`
and `python_variable_methods.cpp`: for each operator name, a PythonArgParser with the
signatures of its overloads, one `dispatch_<op>` lambda per overload that calls the at::
function or Tensor method, and a `THPVariable_<op>` binding that parses, dispatches and wraps
the result. The grouping, signatures and overload order come from csrc/python_bindings.py.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tensortrace.csrc.python_arg_parser import FunctionSignature
from tensortrace.csrc.python_bindings import (
    FACTORY_OPTIONS,
    NUMBERS_AS_TENSORS,
    OperatorLike,
    PythonOverload,
    collect_overloads,
)
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
    non_none_defaults = {a.name for a in schema.arguments
                         if a.default is not None and a.default != "None"}
    src = "VARIABLE_METHODS_CPP" if ov.is_method else "TORCH_FUNCTIONS_CPP"
    lines = ["", "", f'@traced("python", "dispatch_{name}", {src}, "dispatch_{name}", '
             f'legacy="dispatch_{name}")',
             f"def dispatch_{name}_{i}(self: Any, kwargs: dict[str, Any]) -> Any:",
             f'    """{ov.signature}: {schema.full_name}'
             + (f", out= {ov.out_op.schema.full_name}" if ov.out_op else "") + '"""']
    if ov.out_op is not None:
        lines += ['    out = kwargs.pop("out", None)']
    if ov.is_factory:
        lines += ['    requires_grad = bool(kwargs.pop("requires_grad", False))']
    if ov.out_op is not None:
        lines += ["    if out is not None:",
                  f"        return call_out({_ident(ov.out_op)}, {name!r}, "
                  f"{ov.is_factory}, self, kwargs, out)"]
    # an argument left out in Python takes the schema's default (randint's dtype=long)
    passed = [p for p in ov.params if p in schema_names and p not in ("out", "requires_grad")]
    conditional = [p for p in passed if p in non_none_defaults]
    if conditional:
        lines.append("    call_kwargs = {}")
        for p in passed:
            if p in conditional:
                lines += [f"    if kwargs[{p!r}] is not None:",
                          f"        call_kwargs[{py_name(p)!r}] = kwargs[{p!r}]"]
            else:
                lines.append(f"    call_kwargs[{py_name(p)!r}] = kwargs[{p!r}]")
        call = "(**call_kwargs)"
    else:
        call = "(" + ", ".join(f"{py_name(p)}=kwargs[{p!r}]" for p in passed) + ")"
    target = schema.name
    if ov.is_factory:
        # torch::rand (variable_factories.h): below ADInplaceOrView, then make_variable; a
        # factory method (x.new_zeros) is Tensor::new_zeros on self
        lines += ["    with AutoDispatchBelowADInplaceOrView():",
                  f"        result = {'self' if ov.is_method else 'at'}.{target}{call}",
                  "    return make_variable(result, requires_grad)"]
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
    lines = ["", "", f"# ---- {name} " + "-" * (90 - len(name)),
             f"parser_{name} = PythonArgParser.lazy([{sigs}\n]{numbers})"]
    for i, ov in enumerate(overloads):
        lines += _dispatch(name, i, ov)
    overload_list = ", ".join(
        f"PythonOverload({ov.signature!r}, {_ident(ov.op)}, {_ident(ov.out_op)}, "
        f"{ov.is_method}, {ov.is_factory}, {ov.params!r})" for ov in overloads)
    lines += ["", "", f"overloads_{name} = [{overload_list}]",
              f"dispatch_{name} = [" + ", ".join(f"dispatch_{name}_{i}"
                                                 for i in range(len(overloads))) + "]"]
    # schemas returning named tensors give torch.return_types.<name> (and <name>_out)
    seqs = []
    for ov in overloads:
        seqs.append(f"(return_types.for_schema({name!r}, {_ident(ov.op)}.schema), "
                    + (f"return_types.for_schema('{name}_out', {_ident(ov.out_op)}.schema))"
                       if ov.out_op is not None else "None)"))
    lines.append(f"structseqs_{name} = [{', '.join(seqs)}]")
    return lines


def _binding_def(name: str, python_name: str, is_method: bool, noargs: bool = False
                 ) -> list[str]:
    """THPVariable_<name>: parse with PythonArgParser, dispatch, wrap. `noargs`: every signature
    is `name()`, METH_NOARGS in python_variable_methods.cpp (an argument is a TypeError)."""
    src = "VARIABLE_METHODS_CPP" if is_method else "TORCH_FUNCTIONS_CPP"
    # x + y and x.add(y) reach the same THPVariable_add: the trace notes which one Python called
    called_as = f"Tensor.{python_name}" if is_method else f"torch.{name}"
    check = ["    if len(args) > 1 or kwargs:",
             f'        check_noargs("{name}", args[1:], kwargs)'] if noargs else []
    return ["", "", "@handle_th_errors",
            f'@traced("python", "THPVariable_{name}", {src}, legacy="THPVariable_{name}")',
            f"def {python_name}(*args: Any, **kwargs: Any) -> Any:",
            f'    """{called_as}: THPVariable_{name}"""',
            "    if recorder.current is not None:",
            f'        recorder.current.instant("python_call", "python", "{called_as}",',
            f'                                 {{"python_name": "{called_as}"}})',
            *check,
            ("    self = args[0].cdata" if is_method else "    self = None"),
            f"    r = parser_{name}.parse({'args[1:]' if is_method else 'args'}, kwargs)",
            f"    ov = overloads_{name}[r.idx]",
            "    parsed = {pname: convert(r, i) for i, pname in enumerate(ov.params)}",
            '    out_used = parsed.get("out") is not None',
            f"    result = dispatch_{name}[r.idx](self, parsed)",
            f"    return wrap_result(result, structseqs_{name}[r.idx][1 if out_used else 0])"]


_IMPORTS = [
    ("tensortrace.aten", "functions as at"),
    ("tensortrace.aten.generated", "operators as ops"),
    ("tensortrace.autograd.variable", "make_variable"),
    ("tensortrace.c10.local_dispatch_key_set", "AutoDispatchBelowADInplaceOrView"),
    ("tensortrace.csrc", "return_types"),
    ("tensortrace.csrc.python_arg_parser", "PythonArgParser"),
    ("tensortrace.csrc.python_bindings", "PythonOverload, call_out, convert, wrap_result"),
    ("tensortrace.csrc.python_variable", "check_noargs, handle_th_errors"),
    ("tensortrace.trace", "recorder, traced"),
]


def _imports(body: list[str]) -> list[str]:
    """The import lines of the names `body` uses."""
    text = "\n".join(body)
    lines = ["from typing import Any", ""]
    for module, names in _IMPORTS:
        used = [n for n in names.split(", ")
                if re.search(rf"\b{n.split(' as ')[-1]}\b", text)]
        if used:
            lines.append(f"from {module} import {', '.join(used)}")
    return [*lines, ""]


def gen_torch_functions(fns: Sequence[NativeFunction]) -> tuple[str, str]:
    doc = ("The torch.<op> functions: torch._C._VariableFunctions.\n\n"
           "Mirrors the generated `python_torch_functions_0.cpp`: one THPVariable_<op> per "
           "operator name\nwith `variants: function` (the out= overload folded into the "
           "functional one as\n`Tensor out=None`, factories given dtype, layout, device, "
           "pin_memory and requires_grad).\ncsrc/python_torch_functions.py adds the "
           "hand-written ones.")
    out = [f'TORCH_FUNCTIONS_CPP = "{TORCH_FUNCTIONS_CPP}"']
    # `python_module: nn` ops are bound in torch._C._nn instead (python_nn_functions.py)
    grouped = collect_overloads([f for f in fns if not _in_module(f, "nn")], is_method=False)
    for name, overloads in grouped.items():
        out += _binding(name, overloads, False) + _binding_def(name, name, False)
    out += ["", "", "FUNCTIONS: dict[str, Any] = {"]
    out += [f'    "{n}": {n},' for n in grouped]
    out += ["}", "", "# torch.<op>: tensortrace/__init__.py copies FUNCTIONS into the package",
            "__all__ = ["]
    out += [f'    "{n}",' for n in grouped]
    out.append("]")
    return doc, "\n".join(_imports(out) + out) + "\n"


def gen_variable_methods(fns: Sequence[NativeFunction], operators: dict[str, str]
                         ) -> tuple[str, str]:
    doc = ("The generated Tensor methods of torch.Tensor (THPVariable_<op>).\n\n"
           "Mirrors the generated `python_variable_methods.cpp`: one binding per operator name "
           "with\n`variants: method`, and the Python operators of its method table "
           "(`__add__` is the add\nbinding, called as Tensor.__add__). "
           "csrc/python_variable_methods.py installs them with the\nhand-written methods.")
    out = [f'VARIABLE_METHODS_CPP = "{VARIABLE_METHODS_CPP}"']
    grouped = collect_overloads(fns, is_method=True)
    for name, overloads in grouped.items():
        noargs = all(not ov.params for ov in overloads)
        out += _binding(name, overloads, True) + _binding_def(name, name, True, noargs)
    for dunder, name in operators.items():
        assert dunder not in grouped, dunder
        out += _binding_def(name, dunder, True)
    out += ["", "", "METHODS: dict[str, Any] = {"]
    out += [f'    "{n}": {n},' for n in grouped]
    out += ["}", "", "# Python operator -> its binding (python_variable_methods.cpp's table)",
            "OPERATOR_METHODS: dict[str, Any] = {"]
    out += [f'    "{d}": {d},' for d in operators]
    out.append("}")
    return doc, "\n".join(_imports(out) + out) + "\n"


def _in_module(f: NativeFunction, module: str) -> bool:
    return f.entry.get("python_module") == module


def gen_module_functions(fns: Sequence[NativeFunction], module: str) -> tuple[str, str]:
    """python_<module>_functions.cpp: the bindings of the ops declared `python_module: <module>`
    (torch._C._nn.<op>, torch._C._linalg.linalg_<op>)."""
    doc = (f"The bindings of the `python_module: {module}` ops (torch._C._{module}).\n\n"
           f"Mirrors the generated `python_{module}_functions.cpp`: one THPVariable_<op> per "
           f"operator name;\ncsrc/python_{module}_functions.py installs them.")
    out = [f'TORCH_FUNCTIONS_CPP = "{TORCH_FUNCTIONS_CPP}"']
    grouped = collect_overloads([f for f in fns if _in_module(f, module)], is_method=False,
                                python_module=module)
    for name, overloads in grouped.items():
        out += _binding(name, overloads, False) + _binding_def(name, name, False)
    out += ["", "", "FUNCTIONS: dict[str, Any] = {"]
    out += [f'    "{n}": {n},' for n in grouped]
    out.append("}")
    return doc, "\n".join(_imports(out) + out) + "\n"


def csrc_modules(fns: Sequence[NativeFunction], operators: dict[str, str]
                 ) -> dict[str, tuple[str, str]]:
    return {"python_torch_functions_0": gen_torch_functions(fns),
            "python_nn_functions": gen_module_functions(fns, "nn"),
            "python_linalg_functions": gen_module_functions(fns, "linalg"),
            "python_variable_methods": gen_variable_methods(fns, operators)}


__all__ = ["FACTORY_OPTIONS", "csrc_modules"]
