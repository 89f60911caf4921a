"""Write the aten layer's generated modules from native_functions.yaml.

Mirrors `torchgen/gen.py` and `torchgen/dest/register_dispatch_key.py`, which write:
- `Operators.h` / `RegisterSchema.cpp`: one operator handle per entry (`at::_ops::add_Tensor`);
- `Functions.h`: `at::add(...)`, which picks the overload and calls the Dispatcher;
- `TensorBody.h`: the `Tensor::add(...)` methods, the same with `self` first;
- `RegisterBackendSelect.cpp`: for factories, a kernel that computes the backend key from
  dtype/layout/device and redispatches;
- `Register<Key>.cpp`: each `dispatch:` entry's at::native kernel registered under its key, and
  for structured kernels the functional, in-place and out= wrappers around meta + impl.
Each returns the module's source; gen.py adds the header and writes the files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tensortrace.aten.function_schema import Argument, FunctionSchema, Type
from tensortrace.torchgen.kernel_modules import SUFFIX, lazy_registration
from tensortrace.torchgen.model import NativeFunction, snake_case

GENERATED = "build/aten/src/ATen"
# names the generated modules use for themselves; an operator may not take one of them
RESERVED = frozenset({"Any", "annotations"})


def _overload_lists(fns: Sequence[NativeFunction], variant: str) -> dict[str, list[NativeFunction]]:
    grouped: dict[str, list[NativeFunction]] = {}
    for f in fns:
        if variant in f.variants:
            grouped.setdefault(f.schema.name, []).append(f)
    return grouped


def _schemas_doc(overloads: Sequence[NativeFunction], indent: str) -> str:
    lines = [f"{indent}    {f.schema}" for f in overloads]
    return "\n".join(lines)


def _type_literal(t: Type) -> str:
    """`Type('Tensor', alias='a!')`: the fields that differ from their defaults."""
    fields = [
        f"{name}={value!r}"
        for name, value, default in (
            ("is_list", t.is_list, False),
            ("list_size", t.list_size, None),
            ("optional", t.optional, False),
            ("alias", t.alias, None),
            ("elem_optional", t.elem_optional, False),
        )
        if value != default
    ]
    return f"Type({', '.join([repr(t.base), *fields])})"


def _argument_literal(a: Argument, types: dict[Type, str]) -> str:
    return f"Argument({a.name!r}, {types[a.type]}, {a.default!r}, {a.kwarg_only})"


def _schema_literal(
    schema: FunctionSchema, types: dict[Type, str], arguments: dict[Argument, str]
) -> str:
    args = "".join(f"{arguments[a]}, " for a in schema.arguments)
    returns = "".join(f"{types[r]}, " for r in schema.returns)
    names = "".join(f"{n!r}, " for n in schema.return_names)
    return (
        f"FunctionSchema({schema.name!r}, {schema.overload_name!r}, ({args.rstrip(' ')}), "
        f"({returns.rstrip(' ')}), ({names.rstrip(' ')}))"
    )


# what the at:: functions and the Tensor methods import: both pick an overload, then call it
_OVERLOAD_IMPORTS = (
    "from tensortrace.aten.codegen import Overloads, select_overload",
    "from tensortrace.aten.generated import operators as ops",
    "from tensortrace.trace import traced",
)


def _header(imports: Sequence[str], constant: str, path: str) -> list[str]:
    """A generated module's opening lines: its imports, then the constant naming the
    generated PyTorch file it stands for (`FUNCTIONS_H = "build/aten/src/ATen/Functions.h"`)."""
    return ["from typing import Any", "", *imports, "", f'{constant} = "{GENERATED}/{path}"', ""]


def gen_operators(fns: Sequence[NativeFunction]) -> tuple[str, str]:
    doc = (
        "at::_ops: one OperatorHandle per entry of native_functions.yaml, registered with the "
        "Dispatcher.\n\nMirrors the generated `Operators.h` and `RegisterSchema.cpp`: "
        "`add_Tensor` is `at::_ops::add_Tensor`,\nwhose `.call(...)` is Dispatcher::call."
    )
    # The schemas are written parsed (what parse_schema makes of each `func:`), so import does
    # not parse 600 strings; each distinct argument type is one shared constant, and so is each
    # distinct argument (Note [Shared schema arguments]).
    types: dict[Type, str] = {}
    arguments: dict[Argument, str] = {}
    for f in fns:
        for t in (*(a.type for a in f.schema.arguments), *f.schema.returns):
            types.setdefault(t, f"_T{len(types)}")
        for a in f.schema.arguments:
            arguments.setdefault(a, f"_A{len(arguments)}")
    out = [
        "from tensortrace.aten.dispatcher import OperatorHandle, singleton",
        "from tensortrace.aten.function_schema import Argument, FunctionSchema, Type",
        "",
        "_register = singleton().register_schema",
        "",
        "# the argument and return types, each parsed once",
    ]
    out += [f"{name} = {_type_literal(t)}  # {t}" for t, name in types.items()]
    out += [
        "",
        "# Note [Shared schema arguments]",
        "# An Argument is immutable and compared by value, and 5,000 of the schemas' arguments",
        "# are ~650 distinct ones (`Tensor self`, `Tensor(a!) out`, `ScalarType? dtype=None`...):",
        "# each is made once here and shared, as the types above are.",
    ]
    out += [f"{name} = {_argument_literal(a, types)}  # {a}" for a, name in arguments.items()]
    out.append("")
    for f in fns:
        # the YAML entry, `func:` first
        entry = {"func": f.entry["func"], **{k: v for k, v in f.entry.items() if k != "func"}}
        out.append(f"{f.ident} = _register(")
        out.append(f"    {_schema_literal(f.schema, types, arguments)},")
        out.append(f"    {entry!r})")
    out += ["", "# every operator, in the YAML's order", "OPERATORS: list[OperatorHandle] = ["]
    out += [f"    {f.ident}," for f in fns]
    out.append("]")
    return doc, "\n".join(out) + "\n"


def gen_functions(fns: Sequence[NativeFunction]) -> tuple[str, str]:
    doc = (
        "The at:: functions: `at::add(...)` picks the overload, then calls the Dispatcher.\n\n"
        "Mirrors the generated `Functions.h`. `tensortrace.aten.functions` (`at`) holds these."
    )
    out = _header(_OVERLOAD_IMPORTS, "FUNCTIONS_H", "Functions.h")
    names = []
    for name, overloads in _overload_lists(fns, "function").items():
        assert name not in RESERVED, name
        names.append(name)
        listed = ", ".join(f"ops.{f.ident}" for f in overloads)
        out += [
            "",
            f"_ov_{name} = Overloads([{listed}])",
            "",
            "",
            f'@traced("dispatch", "at::{name}", FUNCTIONS_H, "at::{name}",',
            f'        legacy="at::{name} (Functions.h)")',
            f"def {name}(*args: Any, **kwargs: Any) -> Any:",
            f'    """at::{name}, overloads:\n{_schemas_doc(overloads, "")}\n    """',
            f'    op, full = select_overload(_ov_{name}, args, kwargs, "at::{name}")',
            "    return op.call(*full)",
            "",
        ]
    out += ["", "FUNCTIONS: dict[str, Any] = {"]
    out += [f'    "{n}": {n},' for n in names]
    out.append("}")
    return doc, "\n".join(out) + "\n"


def gen_tensor_body(fns: Sequence[NativeFunction]) -> tuple[str, str]:
    doc = (
        "The at::Tensor methods: `self.add(...)` picks the overload, then calls the "
        "Dispatcher.\n\nMirrors the generated `TensorBody.h`. aten.codegen sets each method "
        "of TensorMethods\non at::Tensor (aten/tensor_body.py)."
    )
    out = _header(_OVERLOAD_IMPORTS, "TENSOR_BODY_H", "core/TensorBody.h")
    methods = _overload_lists(fns, "method")
    body = []
    for name, overloads in methods.items():
        assert name not in RESERVED, name
        # where.self(Tensor condition, Tensor self, Tensor other) is the C++ method
        # Tensor::where(condition, other): its positional arguments are the schema's without
        # self, and self goes in at its own index
        self_index = {
            i for f in overloads for i, a in enumerate(f.schema.arguments) if a.name == "self"
        }
        assert len(self_index) <= 1, (name, self_index)
        self_at = self_index.pop() if self_index else 0

        listed = ", ".join(f"ops.{f.ident}" for f in overloads)
        out.append(f"_ov_{name} = Overloads([{listed}])")
        body += [
            "",
            f'    @traced("dispatch", "at::Tensor::{name}", TENSOR_BODY_H, "at::Tensor::{name}",',
            f'            legacy="Tensor::{name} (TensorMethods.h)")',
            f"    def {name}(self, *args: Any, **kwargs: Any) -> Any:",
            f'        """Tensor::{name}, overloads:\n{_schemas_doc(overloads, "    ")}\n'
            '        """',
        ]
        if self_at:
            body += [
                f"        if len(args) >= {self_at}:",
                f"            args = (*args[:{self_at}], self, *args[{self_at}:])",
                "        else:  # self's place is past the positional arguments: by name",
                '            kwargs = {**kwargs, "self": self}',
                f'        op, full = select_overload(_ov_{name}, args, kwargs, "Tensor.{name}")',
            ]
        else:
            body.append(
                f"        op, full = select_overload(_ov_{name}, (self, *args), kwargs, "
                f'"Tensor.{name}")'
            )
        body.append("        return op.call(*full)")
    out += [
        "",
        "",
        "class TensorMethods:",
        '    """The generated methods of at::Tensor (one per `variants: method` name)."""',
        "",
        "    __slots__ = ()",
        *body,
        "",
        "",
        "METHODS: tuple[str, ...] = (",
    ]
    out += [f'    "{n}",' for n in methods]
    out.append(")")
    return doc, "\n".join(out) + "\n"


def gen_backend_select(fns: Sequence[NativeFunction]) -> tuple[str, str]:
    doc = (
        "BackendSelect kernels: a factory has no tensor argument to take a backend from, so "
        "this\nkernel computes the backend key from its dtype, layout and device, then "
        "redispatches.\n\nMirrors the generated `RegisterBackendSelect.cpp`."
    )
    imports = (
        "from tensortrace.aten.dispatcher import KernelFunction",
        "from tensortrace.aten.generated import operators as ops",
        "from tensortrace.c10.dispatch_key import SINGLE_KEY_SETS, DispatchKey",
        "from tensortrace.c10.tensor_options import computeDispatchKey",
        "from tensortrace.trace import traced",
    )
    out = _header(imports, "REGISTER_BACKEND_SELECT", "RegisterBackendSelect.cpp")
    for f in fns:
        s = f.schema
        if not (s.has_tensor_options and not s.tensor_argument_indices()):
            continue
        names = [a.name for a in s.arguments]
        dtype_i, layout_i, device_i = (names.index(n) for n in ("dtype", "layout", "device"))
        # 2019's getOp(options.backend()) reached CPUType::<op> for an op with a CPU kernel
        # (seed 000's `empty`: CPU: empty_cpu), TypeDefault::<op> for the others (`rand`)
        legacy_type = "CPUType" if "CPU" in dispatch_names(f) else "TypeDefault"
        out += [
            "",
            f'@traced("dispatch", "at::(anonymous)::BackendSelect::{s.name}",',
            f'        REGISTER_BACKEND_SELECT, legacy="{legacy_type}::{s.name} '
            '(options.backend())")',
            f"def {f.ident}(*args: Any) -> Any:",
            f'    """{s}"""',
            f"    key = computeDispatchKey(args[{dtype_i}], args[{layout_i}], args[{device_i}])",
            "    # DispatchKeySet(key), interned",
            f"    return ops.{f.ident}.redispatch(SINGLE_KEY_SETS[key], *args)",
            "",
            "",
            f"ops.{f.ident}.register(DispatchKey.BackendSelect,",
            f'                       KernelFunction({f.ident}, "BackendSelect::{s.name}"))',
            "",
        ]
    return doc, "\n".join(out) + "\n"


def dispatch_names(f: NativeFunction) -> dict[str, str]:
    """`CPU, CUDA: sub_out` -> {"CPU": "sub_out", "CUDA": "sub_out"}."""
    return {
        key.strip(): str(name)
        for keys, name in (f.entry.get("dispatch") or {}).items()
        for key in str(keys).split(",")
    }


def needs_device_check(f: NativeFunction) -> bool:
    """RegisterCUDA.cpp checks that all tensor arguments share a device unless the entry says
    `device_check: NoCheck` (TensorIterator ops check in compute_types instead)."""
    tensors = [f.schema.arguments[i].type for i in f.schema.tensor_argument_indices()]
    return (
        f.entry.get("device_check") != "NoCheck"
        and f.entry.get("structured_inherits") != "TensorIteratorBase"
        and (len(tensors) > 1 or any(t.is_list for t in tensors))
    )


def device_check_args(schema: FunctionSchema) -> tuple[tuple[int, str], ...]:
    """gen_device_check's order: the out= arguments, then the positional ones."""
    tensors = [(i, a) for i, a in enumerate(schema.arguments) if a.type.is_tensor_like]
    out = [(i, a.name) for i, a in tensors if a.kwarg_only and a.type.is_write]
    return tuple(out + [(i, a.name) for i, a in tensors if not a.kwarg_only])


def dispatch_keys(fns: Sequence[NativeFunction]) -> list[str]:
    """Every dispatch key some entry registers a kernel for, in first-seen order."""
    keys: list[str] = []
    for f in fns:
        for spec in f.entry.get("dispatch") or {}:
            for key in str(spec).split(","):
                if key.strip() not in keys:
                    keys.append(key.strip())
    return keys


def gen_register_key(fns: Sequence[NativeFunction], key: str) -> dict[str, tuple[str, str]]:
    """Register<Key>.cpp: the kernels of `key` registered, and the structured kernels' wrappers
    in a module of their own (Note [Generated kernels imported on first lookup])."""
    doc = (
        f"The {key} kernels of native_functions.yaml's `dispatch:` entries, registered with "
        f"the Dispatcher.\n\nMirrors the generated `Register{key}.cpp`."
    )
    structured = [f for f in fns if f.entry.get("structured") and key in dispatch_names(f)]
    if structured:
        doc += (
            " A structured op (`structured: True` on its out=\nvariant, "
            "`structured_delegate` on the others) gets one wrapper per variant: it makes\n"
            "the output (functional), checks it (in-place) or resizes it (out=), then runs "
            "the op's meta\nfunction (shapes, dtypes) and its impl function (the compute)."
        )
    if key == "CUDA":
        doc += (
            "\nA kernel whose tensor arguments must share a device checks them first "
            "(torchgen's\nneeds_device_check: not `device_check: NoCheck`, not a "
            "TensorIterator op)."
        )
    if key == "Meta":
        # Note [Meta kernels for free]: every structured op has a Meta kernel (its meta
        # function alone), and so does every in-place op with no kernel of its own
        structured = [f for f in fns if f.entry.get("structured")]
        doc += _META_DOC
    body: list[str] = []
    grouped = {d.schema.full_name for f in structured for d in _delegates(fns, f)}
    for f in fns:
        if f.entry.get("structured"):
            continue  # the structured out= entry's name is its impl, handled below
        native_name = dispatch_names(f).get(key)
        if native_name is None:
            if key == "Meta" and f.schema.full_name not in grouped and _gets_inplace_meta(f):
                wrapper = f"wrapper_Meta_{f.ident}"
                body.append(
                    f"ops.{f.ident}.register(DispatchKey.Meta, "
                    f'KernelFunction(inplace_meta({f.schema.name!r}), "{wrapper}"))'
                )
            continue
        check = ""
        if key == "CUDA" and needs_device_check(f):
            check = f", {device_check_args(f.schema)!r}"
        body.append(
            f"ops.{f.ident}.register(DispatchKey.{key}, "
            f'native_kernel("{native_name}", ops.{f.ident}{check}))'
        )
    kernels: list[str] = []
    for f in structured:
        kernels += _structured_wrappers(key, f, _delegates(fns, f), body)
    module = f"register_{snake_case(key)}"
    if not structured:
        return {module: (doc, _with_imports(body))}
    doc += (
        f"\nThe wrappers are in {module}{SUFFIX}.py, imported when a dispatch table first "
        "needs one\n(Note [Generated kernels imported on first lookup] in aten/codegen.py)."
    )
    kernels_doc = (
        f"The structured kernels' wrappers of `Register{key}.cpp`, registered by {module}.py."
        "\n\nImported when an operator's dispatch table first needs one of them (Note "
        "[Generated kernels\nimported on first lookup] in aten/codegen.py)."
    )
    kernels[:0] = [f'REGISTER_{key.upper()} = "{GENERATED}/Register{key}.cpp"']
    body[:0] = [f'KERNELS = "tensortrace.aten.generated.{module}{SUFFIX}"', ""]
    return {
        module: (doc, _with_imports(body)),
        f"{module}{SUFFIX}": (kernels_doc, _with_imports(kernels)),
    }


_REGISTER_IMPORTS = [
    ("typing", "Any"),
    (
        "tensortrace.aten.codegen",
        "MetaStructuredKernel, StructuredKernel, check_devices, inplace_meta, "
        "kernel_on_first_lookup, native_kernel",
    ),
    ("tensortrace.aten.dispatcher", "KernelFunction"),
    ("tensortrace.aten.generated", "operators as ops"),
    ("tensortrace.aten.native.registry", "IMPL_FUNCTIONS, META_FUNCTIONS"),
    ("tensortrace.aten.tensor_iterator_operands", "UNDEFINED_TENSOR"),
    ("tensortrace.c10.dispatch_key", "DispatchKey"),
    ("tensortrace.trace", "traced"),
]


def _with_imports(body: list[str]) -> str:
    """A Register<Key> module's code: the imports its text uses, then the text."""
    text = "\n".join(body)
    out = []
    for module, names in _REGISTER_IMPORTS:
        used = [n for n in names.split(", ") if re.search(rf"\b{n.split(' as ')[-1]}\b", text)]
        if used:
            line = f"from {module} import {', '.join(used)}"
            if len(line) > 100:  # ruff's isort form: one name a line
                line = f"from {module} import (\n" + "".join(f"    {n},\n" for n in used) + ")"
            out.append(line)
            if module == "typing":
                out.append("")
    out += ["", text]
    return "\n".join(out) + "\n"


_META_DOC = (
    "\nNote [Meta kernels for free]: as torchgen does for the Meta key, every structured op "
    "gets\nwrappers that run its meta function alone (the outputs are meta tensors, no impl "
    "runs),\nand every in-place op with neither a Meta nor a composite kernel gets one that "
    "checks\nself is meta and returns it (gen_unstructured's inplace_meta). The "
    "structured wrappers check\nthat their tensor arguments share a device, as the "
    "CUDA ones do (torch's Python meta\nkernels refuse a CPU tensor mixed with meta ones)."
)


def _delegates(fns: Sequence[NativeFunction], out_f: NativeFunction) -> list[NativeFunction]:
    return [d for d in fns if d.entry.get("structured_delegate") == out_f.schema.full_name]


def _gets_inplace_meta(f: NativeFunction) -> bool:
    """register_dispatch_key.py's inplace_meta: an in-place op (SchemaKind.inplace) with no
    composite kernel to defer to and one return."""
    names = dispatch_names(f)
    return (
        f.schema.is_inplace
        and len(f.schema.returns) == 1
        and not any(k.startswith("Composite") for k in names)
        and f.schema.arguments[0].name == "self"
    )


# See Note [Generated kernels imported on first lookup] in aten/codegen.py
def _structured_wrappers(
    key: str, out_f: NativeFunction, delegates: list[NativeFunction], registrations: list[str]
) -> list[str]:
    """The wrappers' source (for the kernels module); appends their registrations."""
    impl_name = dispatch_names(out_f).get(key)  # None on Meta: the meta function alone
    functional = next(d for d in delegates if not d.schema.is_inplace)
    n_in = len(functional.schema.arguments)
    n_out = len(out_f.schema.returns)  # max.dim_max writes (values, indices)
    meta = f"META_FUNCTIONS[{functional.schema.full_name!r}]"
    # Note [A structured wrapper passes its arguments one by one] in aten/codegen.py
    inputs = "".join(f", args[{i}]" for i in range(n_in))
    outputs_ = "".join(f", op.outputs_[{i}]" for i in range(n_out))
    impl = [f"    IMPL_FUNCTIONS[{impl_name!r}](op{inputs}{outputs_})"] if impl_name else []
    kernel_class = "StructuredKernel" if impl_name else "MetaStructuredKernel"
    out = [
        "",
        "",
        f"# ---- structured: {out_f.schema.full_name} "
        f"(meta: {functional.schema.full_name}, impl: {impl_name or 'none'}) " + "-" * 20,
    ]
    variants = [(out_f, "out")] + [
        (d, "inplace" if d.schema.is_inplace else "functional") for d in delegates
    ]
    for f, kind in variants:
        wrapper = f"wrapper_{key}_{f.ident}"
        if kind == "functional":
            outputs = "[" + ", ".join(["UNDEFINED_TENSOR"] * n_out) + "]"  # see aten/codegen.py
        elif kind == "inplace":
            outputs = "[args[0]]"
        else:
            outputs = f"list(args[{n_in}:{n_in + n_out}])"
        result = "op.outputs_[0]" if n_out == 1 else "tuple(op.outputs_)"
        check = []
        if key in ("CUDA", "Meta") and needs_device_check(f) and needs_device_check(out_f):
            check = [f"    check_devices(args, {device_check_args(f.schema)!r}, {wrapper!r})"]
        out += [
            "",
            f'@traced("native", "at::(anonymous)::{wrapper}", REGISTER_{key.upper()},',
            f'        legacy="{key}Type::{f.schema.name}")',
            f"def {wrapper}(*args: Any) -> Any:",
            f'    """{f.schema} ({kind})"""',
            *check,
            f"    op = {kernel_class}({outputs})",
            f'    op.kind = "{kind}"',
            f"    {meta}(op{inputs})",
            *impl,
            f"    return {result}",
        ]
        # Note [Generated kernels imported on first lookup]
        registrations.append(lazy_registration(f.ident, key, wrapper))
    return out


def aten_modules(fns: Sequence[NativeFunction]) -> dict[str, tuple[str, str]]:
    """module name -> (docstring, code), in the order the loader imports them."""
    modules = {
        "operators": gen_operators(fns),
        "functions": gen_functions(fns),
        "tensor_body": gen_tensor_body(fns),
    }
    for key in dispatch_keys(fns):
        modules.update(gen_register_key(fns, key))
    # after the backends' kernels, as each operator's registrations came in the YAML's order
    modules["register_backend_select"] = gen_backend_select(fns)
    return modules
