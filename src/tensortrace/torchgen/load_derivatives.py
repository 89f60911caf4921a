"""The generator's view of autograd/derivatives.yaml: one DerivativeEntry per entry.

Mirrors `tools/autograd/load_derivatives.py`: read the YAML, name the Nodes (AddBackward0,
AddBackward1 ... counted per name in file order), and rewrite each formula so that it reads
only what the Node saves: `self.sym_sizes()` becomes the saved fact `self_sym_sizes`
(gen_variable_type's `self_sym_sizes`), so an in-place change of `self` does not invalidate
the Node.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass, field

from tensortrace.aten.function_schema import FunctionSchema, parse_schema
from tensortrace.torchgen.model import load_yaml

_PROPERTY_RE = re.compile(
    r"\b([A-Za-z_]\w*)\.(sym_sizes|sizes|sym_strides|strides|scalar_type|"
    r"sym_numel|numel|dim|layout|options|geometry)\(\)"
)
# `self.sym_size(-2)`: one size, saved as gen_variable_type names it (self_sym_argsize_minus_2)
_SIZE_PROPERTY_RE = re.compile(r"\b([A-Za-z_]\w*)\.(sym_size)\((-?\d+)\)")
_LIST_PROPERTY_RE = re.compile(r"\bto_args_(sizes|scalartypes)\((\w+)\)")
# names every formula may read besides the inputs and outputs (see derivatives.yaml's header)
GRAD_NAMES = ("grad", "grads", "grad_input_mask")


@dataclass
class DerivativeFormula:
    """One `input[, input...]: expression` line, its properties rewritten to saved names."""

    inputs: tuple[str, ...]
    source: str  # as written in the YAML
    expression: str  # after _rewrite_properties
    names: frozenset[str]  # the names it reads


@dataclass
class DerivativeEntry:
    """load_derivatives.DifferentiabilityInfo: one entry of derivatives.yaml."""

    schema: FunctionSchema
    node_name: str
    formulas: list[DerivativeFormula]
    diff_inputs: tuple[str, ...]  # in schema order
    properties: dict[str, tuple[str, str]] = field(default_factory=dict)  # saved -> (arg, prop)
    list_properties: dict[str, tuple[str, str]] = field(default_factory=dict)
    # which outputs get the Node as grad_fn (None: every differentiable one)
    output_differentiability: tuple[bool, ...] | None = None
    # the forward-mode formulas (`result: ...`, or one per output name), as written:
    # (output names, source); see gen_forward_ad.py
    fw_formulas: list[tuple[tuple[str, ...], str]] = field(default_factory=list)


def _op_prefix(name: str) -> str:
    """load_derivatives._create_op_prefix: `_to_copy` -> ToCopyBackward."""
    camel = "".join(p.title() for p in name.split("_"))
    return (camel + "Backward").replace("ForwardBackward", "Backward")


def _rewrite_properties(
    source: str,
    arg_names: set[str],
    properties: dict[str, tuple[str, str]],
    list_properties: dict[str, tuple[str, str]],
) -> str:
    """`self.sym_sizes()` -> `self_sym_sizes`, recorded as a fact to save at forward time."""

    def prop(m: re.Match[str]) -> str:
        if m.group(1) not in arg_names:
            return m.group(0)  # grad.scalar_type() and the like: asked at backward time
        saved = f"{m.group(1)}_{m.group(2)}"
        properties[saved] = (m.group(1), m.group(2))
        return saved

    def size_prop(m: re.Match[str]) -> str:
        if m.group(1) not in arg_names:
            return m.group(0)
        dim = int(m.group(3))
        suffix = f"minus_{-dim}" if dim < 0 else str(dim)
        saved = f"{m.group(1)}_sym_argsize_{suffix}"
        properties[saved] = (m.group(1), f"size({dim})")
        return saved

    def list_prop(m: re.Match[str]) -> str:
        saved = f"{m.group(2)}_args_{m.group(1)}"
        list_properties[saved] = (m.group(2), m.group(1))
        return saved

    source = _SIZE_PROPERTY_RE.sub(size_prop, _PROPERTY_RE.sub(prop, source))
    return _LIST_PROPERTY_RE.sub(list_prop, source)


def load_derivatives(text: str) -> list[DerivativeEntry]:
    """The entries with at least one formula, in the YAML's order."""
    counter: Counter[str] = Counter()
    entries: list[DerivativeEntry] = []
    for entry in load_yaml(text):
        schema = parse_schema(entry["name"])
        arg_names = {a.name for a in schema.arguments}
        keys = [
            k
            for k in entry
            if k not in ("name", "output_differentiability", "node_name")
            and k.split(",")[0].strip() in arg_names
        ]
        # load_derivatives.is_forward_derivative_definition: a key naming no input names
        # outputs, and holds their forward formula
        fw_formulas = [
            (tuple(k.strip() for k in key.split(",")), str(entry[key]))
            for key in entry
            if key not in ("name", "output_differentiability", "node_name")
            and key.split(",")[0].strip() not in arg_names
        ]
        formulas: list[DerivativeFormula] = []
        properties: dict[str, tuple[str, str]] = {}
        list_properties: dict[str, tuple[str, str]] = {}
        # load_derivatives.set_up_derivatives: `for raw_names in sorted(defn.keys())`, so a
        # Node computes its inputs' gradients in that order (MmBackward0: mat2, then self)
        for key in sorted(keys):
            source = str(entry[key])
            if source == "non_differentiable":
                continue
            rewritten = _rewrite_properties(source, arg_names, properties, list_properties)
            tree = ast.parse(rewritten, mode="eval")
            names = frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))
            formulas.append(
                DerivativeFormula(
                    tuple(k.strip() for k in key.split(",")), source, rewritten, names
                )
            )
        if not formulas:
            continue
        if "node_name" in entry:
            node_name = entry["node_name"]
        else:
            prefix = _op_prefix(schema.name)
            node_name = f"{prefix}{counter[prefix]}"
            counter[prefix] += 1
        diff = {n for f in formulas for n in f.inputs}
        diff_inputs = tuple(a.name for a in schema.arguments if a.name in diff)
        entries.append(
            DerivativeEntry(
                schema,
                node_name,
                formulas,
                diff_inputs,
                properties,
                list_properties,
                tuple(entry["output_differentiability"])
                if "output_differentiability" in entry
                else None,
                fw_formulas,
            )
        )
    return entries
