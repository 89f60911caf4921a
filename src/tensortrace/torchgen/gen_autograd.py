"""Write the autograd layer's generated modules from derivatives.yaml and native_functions.yaml.

Mirrors `tools/autograd/gen_autograd.py`, which runs
- `gen_autograd_functions.py`: one Backward Node class per derivatives.yaml entry
  (`torch/csrc/autograd/generated/Functions.cpp`), here a TraceableFunction whose formulas are
  plain defs reading the Node's saved values;
- `gen_variable_type.py`: one Autograd kernel per operator (`VariableType_*.cpp`): redispatch
  below autograd, or record the graph with the op's Node when an input requires grad;
- `gen_inplace_or_view_type.py`: one ADInplaceOrView kernel per in-place, out= or view operator
  (`ADInplaceOrViewType_*.cpp`). Each returns the module's source; gen.py writes the files.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Sequence

from tensortrace.aten.function_schema import FunctionSchema
from tensortrace.torchgen.gen_forward_ad import emit_forward, emit_jvp, forward_formula
from tensortrace.torchgen.gen_functions import dispatch_names
from tensortrace.torchgen.kernel_modules import (
    REGISTRATIONS_DOC,
    autograd_registrations,
    kernels_doc,
    lazy_registration,
)
from tensortrace.torchgen.load_derivatives import GRAD_NAMES, DerivativeEntry
from tensortrace.torchgen.model import NativeFunction

# Ops whose outputs never require grad (gen_variable_type.py's DONT_REQUIRE_DERIVATIVE): their
# kernel only redispatches.
DONT_REQUIRE_DERIVATIVE = frozenset(
    {
        "empty_like",
        "ones_like",
        "full_like",
        "zeros_like",
        "rand_like",
        "randn_like",
        "randint_like",
        "new_empty",
        "new_empty_strided",
        "new_full",
        "new_zeros",
        "new_ones",
        "__and__",
        "__iand__",
        "__ior__",
        "__or__",
        "argmax",
        "argmin",
        # derivatives.yaml says `self: non_differentiable` (an entry with no formula at all,
        # which load_derivatives drops): the same effect
        "special_bessel_j0",
        "special_bessel_j1",
        "special_airy_ai",
        "special_bessel_y0",
        "special_bessel_y1",
        "special_modified_bessel_i0",
        "special_modified_bessel_i1",
        "special_modified_bessel_k0",
        "special_modified_bessel_k1",
        "special_scaled_modified_bessel_k0",
        "special_scaled_modified_bessel_k1",
        "special_spherical_bessel_j0",
        "nonzero",
        "detach",
        "detach_",
        "resolve_conj",
        "resolve_neg",
        "result_type",
        "can_cast",
        "promote_types",
        "is_nonzero",
        "item",
        "_local_scalar_dense",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "logical_and",
        "logical_or",
        "logical_not",
        "bitwise_and",
        "bitwise_or",
        "bitwise_not",
        "all",
        "any",
        "set_",
        "lift_fresh",
        "is_same_size",
        "_has_same_storage_numel",
        "_new_zeros_with_same_feature_meta",
    }
)
# Ops that are CompositeImplicitAutograd in torch (so their graph is that of the op they call)
# but have a kernel of their own here: they record that op's Node.
TORCH_COMPOSITE = {"max.other": "maximum", "min.other": "minimum"}
# VariableTypeManual.cpp writes these by hand instead of generating them
MANUAL_AUTOGRAD = frozenset({"detach", "_fw_primal", "_make_dual"})
# the views ADInplaceOrViewTypeManual.cpp makes without forward view info
NON_FW_DIFFERENTIABLE_VIEWS = frozenset({"_fw_primal", "_make_dual"})
MANUAL_NON_DIFFERENTIABLE = frozenset({"detach", "detach_"})
# Views whose derivatives.yaml entry says `output_differentiability: [False]`: no graph, and the
# view records no base but shares its version counter, as as_view(is_bw_differentiable=false,
# is_fw_differentiable=false) makes it (x.view(torch.int32)._base is None)
NON_DIFFERENTIABLE_VIEWS = frozenset({"view.dtype"})
# the name a formula's def calls the Node's saved values by; SAVED_ALT where a schema argument
# is itself named `v` (_weight_norm_interface(Tensor v, Tensor g, int dim=0))
SAVED = "v"
SAVED_ALT = "saved"


def _has_autograd_kernel(f: NativeFunction) -> bool:
    """A CompositeImplicitAutograd op gets no Autograd kernel: its composite runs there."""
    return "CompositeImplicitAutograd" not in dispatch_names(f)


def _signature(schema: FunctionSchema) -> tuple[tuple[str, str, bool, bool, bool], ...]:
    return tuple(
        (a.name, a.type.base, a.type.is_list, a.type.optional, a.kwarg_only)
        for a in schema.arguments
    )


def node_of(f: NativeFunction, entries: dict[str, DerivativeEntry]) -> DerivativeEntry | None:
    """The derivatives.yaml entry whose Node op `f` records. An in-place op takes the formulas
    of the functional op with its signature (load_derivatives' functions_by_signature):
    pow_.Scalar is pow.Tensor_Scalar's."""
    schema = f.schema
    found = entries.get(schema.full_name) or entries.get(TORCH_COMPOSITE.get(schema.full_name, ""))
    if found is not None or not schema.is_inplace:
        return found
    name, wanted = schema.name[:-1], _signature(schema)
    return next(
        (e for e in entries.values() if e.schema.name == name and _signature(e.schema) == wanted),
        None,
    )


def records_graph(f: NativeFunction) -> bool:
    name = f.schema.name
    return (
        name not in DONT_REQUIRE_DERIVATIVE
        and name.rstrip("_") not in DONT_REQUIRE_DERIVATIVE
        and f.schema.full_name not in NON_DIFFERENTIABLE_VIEWS
    )


# ---- Functions.cpp ------------------------------------------------------------------------------
class _ReadSaved(ast.NodeTransformer):
    """`grad` -> `v["grad"]` for every name the Node saves (or gets at backward time)."""

    def __init__(self, saved: set[str], saved_name: str = SAVED) -> None:
        self.saved = saved
        self.saved_name = saved_name

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id not in self.saved:
            return node
        return ast.Subscript(ast.Name(self.saved_name, ast.Load()), ast.Constant(node.id), node.ctx)


def _saved_names(e: DerivativeEntry) -> set[str]:
    """The names a formula reads from the Node: inputs, their saved facts, outputs, grads."""
    results = {
        n for f in e.formulas for n in f.names if n == "result" or re.fullmatch(r"result\d+", n)
    }
    return (
        {a.name for a in e.schema.arguments}
        | set(e.properties)
        | set(e.list_properties)
        | set(e.schema.return_names)
        | results
        | set(GRAD_NAMES)
    )


def gen_functions(entries: Sequence[DerivativeEntry], manual: Sequence[str]) -> tuple[str, str]:
    doc = (
        "The Backward Nodes of derivatives.yaml: one class per entry, its formulas as defs.\n\n"
        "Mirrors the generated `torch/csrc/autograd/generated/Functions.cpp` "
        "(gen_autograd_functions.py).\nEach formula reads the Node's saved values from "
        f"`{SAVED}`: the inputs and facts of them it saves at\nforward time "
        "(`self_sym_sizes` for `self.sym_sizes()`), the outputs, and `grad` / `grads` /\n"
        "`grad_input_mask` at backward time. Other names are FunctionsManual helpers "
        "(autograd/functions_manual.py)\nand at:: ops."
    )
    known = set(manual) | {"at"} | set(dir(builtins))
    used: set[str] = set()
    body: list[str] = []
    for e in entries:
        saved = _saved_names(e)
        formulas = []
        for formula in e.formulas:
            fn = f"{e.node_name}_{'_'.join(formula.inputs)}"
            saved_name = SAVED_ALT if SAVED in formula.names else SAVED
            tree = _ReadSaved(saved, saved_name).visit(ast.parse(formula.expression, mode="eval"))
            free = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - {saved_name}
            unknown = free - known
            if unknown or SAVED_ALT in formula.names:
                raise ValueError(
                    f"derivatives.yaml {e.schema.full_name}: unknown names "
                    f"{sorted(unknown)} in {formula.source!r}"
                )
            used |= free
            source = formula.source.replace('"""', "'''")
            body += [
                "",
                "",
                f"def {fn}({saved_name}: dict[str, Any]) -> Any:",
                f'    """{", ".join(formula.inputs)}: {source}"""',
                f"    return {ast.unparse(tree)}",
            ]
            formulas.append(
                f"Formula({formula.inputs!r}, {fn}, frozenset({sorted(formula.names)!r}))"
            )
        body += [
            "",
            "",
            f"class {e.node_name}(TraceableFunction):",
            f'    """{e.schema}"""',
            "",
            "    __slots__ = ()",
            "    info = DifferentiabilityInfo(",
            f"        {e.schema.full_name!r},",
            "        (" + "".join(f"{x},\n         " for x in formulas).rstrip() + "),",
            f"        {e.diff_inputs!r},",
            f"        {dict(sorted(e.properties.items()))!r},",
            f"        {dict(sorted(e.list_properties.items()))!r}"
            + (
                f",\n        output_differentiability={e.output_differentiability!r})"
                if e.output_differentiability is not None
                else ")"
            ),
        ]
    helpers = sorted((used & set(manual)) - {"at"})
    out = ["from typing import Any", ""]
    if "at" in used:
        out.append("from tensortrace.aten import functions as at")
    if helpers:
        out.append("from tensortrace.autograd.functions_manual import (")
        out += [f"    {h}," for h in helpers]
        out.append(")")
    out += [
        "from tensortrace.autograd.traceable_function import (",
        "    DifferentiabilityInfo,",
        "    Formula,",
        "    TraceableFunction,",
        ")",
    ]
    return doc, "\n".join(out + body) + "\n"


# ---- VariableType.cpp ---------------------------------------------------------------------------
def gen_variable_type(
    fns: Sequence[NativeFunction], entries: dict[str, DerivativeEntry], manual: Sequence[str]
) -> dict[str, tuple[str, str]]:
    doc = (
        "The Autograd kernels: one per operator that has no CompositeImplicitAutograd kernel."
        "\n\nMirrors the generated `torch/csrc/autograd/generated/VariableType_*.cpp` "
        "(gen_variable_type.py).\nWhen an input requires grad and grad mode is on, the "
        "kernel records the graph with its op's\nBackward Node (GraphRecording in "
        "autograd/variable_type.py; NotImplemented where derivatives.yaml\nhas no formula); "
        "otherwise it only redispatches below autograd. In-place, out= and view ops\n"
        "redispatch to ADInplaceOrView, the others skip it. When an input has a tangent "
        "(forward AD),\nthe kernel also evaluates the op's `result:` formula "
        "(ForwardRecording in autograd/forward_ad_type.py)."
    )
    variants_of: dict[str, set[str]] = {}
    for fn in fns:
        variants_of.setdefault(fn.schema.name, set()).update(
            v.strip() for v in fn.variants.split(",")
        )
    known = set(manual) | {"at"}
    used: set[str] = set()
    regs: list[str] = ["", ""]
    out = [
        "from typing import Any",
        "",
        "from tensortrace.aten import functions as at",
        "from tensortrace.aten.generated import operators as ops",
        "from tensortrace.autograd import functions_manual",
        "from tensortrace.autograd.forward_ad_type import ForwardRecording",
        "from tensortrace.autograd.forward_grad import ForwardADLevel, is_fw_grad_defined",
        "from tensortrace.autograd.generated import functions as nodes",
        "from tensortrace.autograd.grad_mode import _state as grad_mode",
        "from tensortrace.autograd.variable_type import (",
        "    VARIABLE_TYPE,",
        "    GraphRecording,",
        "    requires_grad,",
        ")",
        "from tensortrace.c10.dispatch_key import DispatchKeySet, after_autograd_keyset",
        "from tensortrace.c10.local_dispatch_key_set import (",
        "    AutoDispatchBelowADInplaceOrView,",
        "    AutoDispatchBelowAutograd,",
        ")",
        "from tensortrace.trace import traced",
        "",
        "fw_levels = ForwardADLevel.all_levels  # Note [Forward AD costs one read when off]",
    ]
    for f in fns:
        if not _has_autograd_kernel(f):
            continue
        s = f.schema
        symbol = f"torch::autograd::VariableType::{s.name}"
        if s.name in MANUAL_AUTOGRAD:
            manual_kernel = "detach" if s.name == "detach" else f"forward_ad_type.{s.name}"
            regs += [
                "# VariableTypeManual.cpp",
                f"ops.{f.ident}.register(DispatchKey.Autograd, KernelFunction(",
                f'    {manual_kernel}, "{symbol}", with_keyset=True))',
            ]
            continue
        below = (
            "AutoDispatchBelowAutograd"
            if s.is_inplace or s.is_view or s.is_out
            else "AutoDispatchBelowADInplaceOrView"
        )
        redispatch = [
            f"    with {below}():",
            f"        return ops.{f.ident}.redispatch(ks & after_autograd_keyset, *args)",
        ]
        lines = ["", ""]
        body = []
        indices = s.tensor_argument_indices()
        if records_graph(f) and indices:
            entry = node_of(f, entries)
            node = f"nodes.{entry.node_name}" if entry is not None else "None"
            lines += [f"_record_{f.ident} = GraphRecording(ops.{f.ident}, {below}, {node})", "", ""]
            any_grad = " or ".join(f"requires_grad(args[{i}])" for i in indices)
            fw = forward_formula(f, entry, variants_of)
            read: frozenset[str] = frozenset()
            if fw is not None:
                jvp_lines, read = emit_jvp(f, fw, known, used)
                lines[2:2] = jvp_lines[2:] + ["", ""]
            index_of = {a.name: i for i, a in enumerate(s.arguments)}
            diff = (
                [n for n in entry.diff_inputs if n in index_of]
                if entry is not None and not s.is_out
                else [s.arguments[i].name for i in indices]
            )
            # isFwGradDefined over the inputs whose tangent the formula reads (all of them
            # for a formula over a TensorList, cat_jvp / stack_jvp, and to forbid)
            checked = [n for n in diff if f"{n}_t" in read or f"{n}_t_raw" in read] or diff
            any_fw = " or ".join(f"is_fw_grad_defined(args[{index_of[n]}])" for n in checked)
            lines += [emit_forward(f, fw, read, below, f"_record_{f.ident}", diff), "", ""]
            body = [
                f"    if fw_levels and ({any_fw}):",
                f"        record = grad_mode.grad_mode and ({any_grad})",
                f"        return _forward_{f.ident}(ks, args, record)",
                f"    if grad_mode.grad_mode and ({any_grad}):",
                f"        return _record_{f.ident}(ks, args)",
            ]
        records = (
            f"records {entry.node_name}"
            if body and entry is not None
            else "records NotImplemented"
            if body
            else "records no graph"
        )
        lines += [
            f'@traced("autograd", "{symbol}", VARIABLE_TYPE,',
            '        legacy="VariableType (autograd wrapper)")',
            f"def {f.ident}(ks: DispatchKeySet, *args: Any) -> Any:",
            f'    """{s}: {records}"""',
            *body,
            *redispatch,
        ]
        out += lines
        regs.append(lazy_registration(f.ident, "Autograd", f.ident, symbol, with_keyset=True))
    imports = ["autograd import forward_ad_type", "autograd.variable_type import detach"]
    return {
        "variable_type": (
            doc + REGISTRATIONS_DOC,
            autograd_registrations("variable_type", imports, regs),
        ),
        "variable_type_kernels": (doc + kernels_doc("variable_type"), "\n".join(out) + "\n"),
    }


# Note [Forward AD costs one read when off]
# Every Autograd kernel of an op with a derivative asks `fw_levels and (...)` first: the list of
# live forward AD levels (forward_grad.py's ForwardADLevel.all_levels, never rebound), empty
# outside dual_level, so forward AD costs one truth test per op when unused.


# ---- ADInplaceOrViewType.cpp --------------------------------------------------------------------
def gen_inplace_or_view_type(fns: Sequence[NativeFunction]) -> dict[str, tuple[str, str]]:
    doc = (
        "The ADInplaceOrView kernels of the in-place, out= and view operators.\n\n"
        "Mirrors the generated `torch/csrc/autograd/generated/ADInplaceOrViewType_*.cpp` "
        "(gen_inplace_or_view_type.py):\nredispatch to the backend, then bump the outputs' "
        "version counters (in-place, out=) or record\nthe view's base (Note [A view holds "
        "its base]). Other ops fall through this key."
    )
    out = [
        "from typing import Any",
        "",
        "from tensortrace.aten.generated import operators as ops",
        "from tensortrace.autograd.variable_type import (",
        "    INPLACE_OR_VIEW,",
        "    bump_versions,",
        "    detach_shares_version,",
        "    record_views,",
        ")",
        "from tensortrace.c10.dispatch_key import DispatchKeySet, after_ADInplaceOrView_keyset",
        "from tensortrace.c10.local_dispatch_key_set import AutoDispatchBelowADInplaceOrView",
        "from tensortrace.trace import traced",
    ]
    regs: list[str] = ["", ""]
    for f in fns:
        s = f.schema
        if not _has_autograd_kernel(f) or not (s.is_inplace or s.is_view or s.is_out):
            continue
        symbol = f"torch::ADInplaceOrView::{f.ident}"
        if s.name in NON_FW_DIFFERENTIABLE_VIEWS:
            regs += [
                "# ADInplaceOrViewTypeManual.cpp",
                f"ops.{f.ident}.register(DispatchKey.ADInplaceOrView, KernelFunction(",
                f"    lambda ks, *args: fw_non_differentiable_view(ks, ops.{f.ident}, *args),",
                f'    "{symbol}", with_keyset=True))',
            ]
            continue
        if s.name == "detach" or s.full_name in NON_DIFFERENTIABLE_VIEWS:
            after = "    return detach_shares_version(args[0], result)"
        elif s.name in MANUAL_NON_DIFFERENTIABLE:
            after = "    return result"
        elif s.is_inplace or s.is_out:
            after = "    return bump_versions(result)"
        else:
            after = "    return record_views(args[0], result)"
        out += [
            "",
            "",
            f'@traced("autograd", "{symbol}", INPLACE_OR_VIEW)',
            f"def {f.ident}(ks: DispatchKeySet, *args: Any) -> Any:",
            f'    """{s}"""',
            "    with AutoDispatchBelowADInplaceOrView():",
            f"        result = ops.{f.ident}.redispatch(ks & after_ADInplaceOrView_keyset, *args)",
            after,
        ]
        regs.append(lazy_registration(f.ident, "ADInplaceOrView", f.ident, symbol, True))
    imports = ["autograd.forward_ad_type import fw_non_differentiable_view"]
    return {
        "ad_inplace_or_view_type": (
            doc + REGISTRATIONS_DOC,
            autograd_registrations("ad_inplace_or_view_type", imports, regs),
        ),
        "ad_inplace_or_view_type_kernels": (
            doc + kernels_doc("ad_inplace_or_view_type"),
            "\n".join(out) + "\n",
        ),
    }


RESERVED = frozenset(
    "Any KernelFunction ops nodes grad_mode VARIABLE_TYPE GraphRecording detach "
    "requires_grad DispatchKey DispatchKeySet after_autograd_keyset "
    "AutoDispatchBelowAutograd AutoDispatchBelowADInplaceOrView traced INPLACE_OR_VIEW "
    "bump_versions detach_shares_version record_views after_ADInplaceOrView_keyset "
    "annotations at forward_ad_type functions_manual ForwardRecording ForwardADLevel "
    "is_fw_grad_defined fw_levels fw_non_differentiable_view".split()
)


def autograd_modules(
    fns: Sequence[NativeFunction], entries: Sequence[DerivativeEntry], manual: Sequence[str]
) -> dict[str, tuple[str, str]]:
    """module name -> (docstring, code), in the order the loader imports them."""
    clash = {f.ident for f in fns} & (RESERVED - {"detach"})
    assert not clash, clash  # a kernel's def would shadow a name the module uses
    by_name = {e.schema.full_name: e for e in entries}
    return {
        "functions": gen_functions(entries, manual),
        **gen_variable_type(fns, by_name, manual),
        **gen_inplace_or_view_type(fns),
    }
