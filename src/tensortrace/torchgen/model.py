"""The generator's view of native_functions.yaml: one NativeFunction per entry.

Mirrors `torchgen/model.py` (NativeFunction, with its parsed FunctionSchema) and the file
inputs `torchgen/gen.py` reads (their paths and fingerprint are in inputs.py, which the runtime
imports without this module, and are named here too).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from tensortrace.aten.function_schema import FunctionSchema, parse_schema
from tensortrace.torchgen.inputs import DEPRECATED_YAML as DEPRECATED_YAML
from tensortrace.torchgen.inputs import DERIVATIVES_YAML as DERIVATIVES_YAML
from tensortrace.torchgen.inputs import NATIVE_FUNCTIONS_YAML as NATIVE_FUNCTIONS_YAML
from tensortrace.torchgen.inputs import PACKAGE_DIR as PACKAGE_DIR
from tensortrace.torchgen.inputs import TORCHGEN_DIR as TORCHGEN_DIR
from tensortrace.torchgen.inputs import inputs_crc32 as inputs_crc32
from tensortrace.torchgen.inputs import inputs_fingerprint as inputs_fingerprint
from tensortrace.torchgen.inputs import py_name as py_name


@dataclass(frozen=True)
class NativeFunction:
    """One entry of native_functions.yaml: its schema and the entry's other fields."""

    schema: FunctionSchema
    entry: dict[str, Any]

    @property
    def ident(self) -> str:
        """The Python name of its OperatorHandle: `add_Tensor` (at::_ops::add_Tensor)."""
        return self.schema.full_name.replace(".", "_")

    @property
    def variants(self) -> str:
        return str(self.entry.get("variants", "function"))


def read_input(path: str) -> str:
    with open(os.path.join(PACKAGE_DIR, path)) as f:
        return f.read()


def load_yaml(text: str) -> Any:
    """yaml.safe_load, with libyaml's C loader where PyYAML has it (ten times faster)."""
    import yaml  # only the generator reads YAML: the runtime imports the generated files

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506


def parse_native_functions(text: str) -> list[NativeFunction]:
    return [NativeFunction(parse_schema(e["func"]), e) for e in load_yaml(text)]


def snake_case(key: str) -> str:
    """`CompositeExplicitAutograd` -> `composite_explicit_autograd` (the file name)."""
    out = ""
    for i, ch in enumerate(key):
        if ch.isupper() and i and not key[i - 1].isupper():
            out += "_"
        out += ch.lower()
    return out
