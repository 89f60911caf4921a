"""The forward-mode part of the generated Autograd kernels: derivatives.yaml's `result:` formulas.

Mirrors `tools/autograd/load_derivatives.py`'s postprocess_forward_derivatives (`auto_element_wise`:
the backward formula with `grad` replaced by the input's tangent and the input by its primal;
`auto_linear`: the op itself called on the tangents), `torchgen/api/autograd.py`'s
match_differentiability_info (an in-place op reuses its functional op's formula: `result`
becomes `self_p`, `self_p` the saved `original_self_p`, and the tangent is updated in place,
`self_t_raw.copy_(...)`) and `gen_variable_type.py`'s emit_fw_derivatives /
emit_forbid_fw_derivatives. Formulas are Python here; each becomes a def reading its names from
the dict `fw` that ForwardRecording (autograd/forward_ad_type.py) fills.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Sequence
from dataclasses import dataclass

from tensortrace.torchgen.load_derivatives import DerivativeEntry
from tensortrace.torchgen.model import NativeFunction

IDENT = r"(^|\W){}($|\W)"
FW = "fw"


@dataclass
class ForwardFormula:
    """One op's forward formula, final: the outputs it gives tangents and the expression."""

    outputs: tuple[str, ...]
    source: str
    original_self: bool = False
    clone_self_t: bool = False


def _sub(name: str, new: str, formula: str) -> str:
    return re.sub(
        IDENT.format(re.escape(name)), lambda m: f"{m.group(1)}{new}{m.group(2)}", formula
    )


def _expand(f: NativeFunction, e: DerivativeEntry, source: str, variants: set[str]) -> str:
    """auto_element_wise / auto_linear as postprocess_forward_derivatives writes them."""
    schema = e.schema
    if source == "auto_element_wise":
        (formula,) = e.formulas
        (name,) = formula.inputs
        fw = _sub("grad", f"{name}_t", formula.source)
        for arg in e.diff_inputs:
            fw = _sub(arg, f"{arg}_p", fw)
        return fw
    if source == "auto_linear":
        args = []
        for a in schema.arguments:
            value = f"{a.name}_t" if a.name in e.diff_inputs else a.name
            args.append(f"{a.name}={value}" if a.kwarg_only else value)
        if "function" in variants:
            return f"at.{schema.name}({', '.join(args)})"
        return f"{args[0]}.{schema.name}({', '.join(args[1:])})"
    return source


def forward_formula(
    f: NativeFunction, e: DerivativeEntry | None, variants_of: dict[str, set[str]]
) -> ForwardFormula | None:
    """The formula `f`'s Autograd kernel evaluates, or None (the op raises under forward AD)."""
    if e is None or not e.fw_formulas or f.schema.is_out:
        return None
    if len(e.fw_formulas) > 1:  # one formula per output: a tuple of them
        outputs = tuple(n for names, _ in e.fw_formulas for n in names)
        parts = [
            _expand(f, e, src, variants_of.get(e.schema.name, set())) for _, src in e.fw_formulas
        ]
        return ForwardFormula(outputs, "(" + ", ".join(parts) + ")")
    ((outputs, source),) = e.fw_formulas
    formula = _expand(f, e, source, variants_of.get(e.schema.name, set()))
    if not f.schema.is_inplace:
        return ForwardFormula(outputs, formula)
    # match_differentiability_info: an in-place op
    exact = e.schema.full_name == f.schema.full_name
    original_self = False
    if not exact and re.search(IDENT.format("self_p"), formula):
        formula = _sub("self_p", "original_self_p", formula)
        formula = _sub("self_t", "original_self_t", formula)
        original_self = True
    formula = _sub("result", "self_p", formula)
    clone = False
    if not exact:
        m = re.fullmatch(r"self_t\.(\w+)\((.*)\)", formula)
        if m and m.group(1) == e.schema.name and _closes_at_end(m.group(2)):
            formula = (
                f"self_t_raw.{m.group(1)}_({m.group(2)}) if self_t_raw.defined() else {formula}"
            )
        else:
            formula = f"self_t_raw.copy_({formula}) if self_t_raw.defined() else {formula}"
        clone = not original_self
    return ForwardFormula(("self",), formula, original_self, clone)


def _closes_at_end(between: str) -> bool:
    level = 1
    for ch in between:
        if ch == ")":
            level -= 1
            if level == 0:
                return False
        if ch == "(":
            level += 1
    return True


class _ReadFw(ast.NodeTransformer):
    """`self_t` -> `fw["self_t"]`; a FunctionsManual helper `h` -> `functions_manual.h` (the
    generated module's kernels are named as ops, and some helpers are too)."""

    def __init__(self, names: set[str], helpers: set[str]) -> None:
        self.names = names
        self.helpers = helpers

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.helpers:
            return ast.Attribute(ast.Name("functions_manual", ast.Load()), node.id, node.ctx)
        if node.id not in self.names:
            return node
        return ast.Subscript(ast.Name(FW, ast.Load()), ast.Constant(node.id), node.ctx)


_METHODS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.MatMult: "matmul"}


class _OperatorsAsMethods(ast.NodeTransformer):
    """`a * b` -> `a.mul(b)`, `-a` -> `a.neg()`: the formulas are torch's C++ expressions, whose
    operators are at:: calls; an at-level Tensor here has the methods, not the operators.
    A number on the left is moved right (`2 * t` -> `t.mul(2)`, `1 - t` -> `t.neg().add(1)`);
    arithmetic on numbers alone (`1.0 / float(alpha)`) stays as it is."""

    def __init__(self, tensors: set[str]) -> None:
        self.tensors = tensors

    def _numeric(self, node: ast.AST) -> bool:
        """No tensor in it: no tensor name, no at:: call, no method call on a tensor."""
        return not any(
            (isinstance(n, ast.Name) and (n.id in self.tensors or n.id == "at"))
            for n in ast.walk(node)
        )

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        method = _METHODS.get(type(node.op))
        if method is None or (self._numeric(node.left) and self._numeric(node.right)):
            return node
        left, right = node.left, node.right
        if self._numeric(left):
            if method in ("add", "mul"):
                left, right = right, left
            elif method == "sub":
                left, right, method = _call(right, "neg", []), left, "add"
            elif method == "div":
                left, right, method = _call(right, "reciprocal", []), left, "mul"
        return _call(left, method, [right])

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.USub) and not self._numeric(node.operand):
            return _call(node.operand, "neg", [])
        return node


def _call(obj: ast.expr, method: str, args: list[ast.expr]) -> ast.Call:
    return ast.Call(ast.Attribute(obj, method, ast.Load()), args, [])


def fw_names(f: NativeFunction) -> set[str]:
    """Every name a forward formula may read from `fw`."""
    names = {"result", "original_self_p", "original_self_t", "self_t_raw"}
    for a in f.schema.arguments:
        names |= {a.name, f"{a.name}_p", f"{a.name}_t", f"{a.name}_t_raw"}
    names |= {n for n in f.schema.return_names if n}
    names |= {f"result{i}" for i in range(len(f.schema.returns))}
    return names


def emit_jvp(
    f: NativeFunction, fw: ForwardFormula, known: set[str], used: set[str]
) -> tuple[list[str], frozenset[str]]:
    """The formula as a def `_jvp_<op>(fw)`; returns its lines and the names it reads."""
    names = fw_names(f)
    tensors = {n for n in names if n not in {a.name for a in f.schema.arguments}} | {
        a.name for a in f.schema.arguments if a.type.base == "Tensor"
    }
    tree = _OperatorsAsMethods(tensors).visit(ast.parse(fw.source, mode="eval"))
    tree = ast.fix_missing_locations(_ReadFw(names, known - {"at"}).visit(tree))
    read = frozenset(
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in names
    )
    free = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - {FW, "functions_manual"}
    unknown = free - known - set(dir(builtins))
    if unknown:
        raise ValueError(
            f"forward formula of {f.schema.full_name}: unknown names {sorted(unknown)}"
        )
    used |= free
    source = fw.source.replace('"""', "'''")
    return [
        "",
        "",
        f"def _jvp_{f.ident}({FW}: dict[str, Any]) -> Any:",
        f'    """{", ".join(fw.outputs)}: {source}"""',
        f"    return {ast.unparse(tree)}",
    ], read


def emit_forward(
    f: NativeFunction,
    fw: ForwardFormula | None,
    read: frozenset[str],
    below: str,
    graph: str,
    diff_inputs: Sequence[str],
) -> str:
    """The ForwardRecording a kernel calls when an input has a tangent."""
    jvp = f"_jvp_{f.ident}" if fw is not None else "None"
    outputs = fw.outputs if fw is not None else ()
    extra = ""
    if fw is not None and fw.original_self:
        extra += ", original_self=True"
    if fw is not None and fw.clone_self_t:
        extra += ", clone_self_t=True"
    return (
        f"_forward_{f.ident} = ForwardRecording(\n    ops.{f.ident}, {below}, {graph}, {jvp}, "
        f"{outputs!r},\n    frozenset({sorted(read)!r}), {tuple(diff_inputs)!r}{extra})"
    )
