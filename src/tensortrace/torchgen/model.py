"""The generator's view of native_functions.yaml: one NativeFunction per entry.

Mirrors `torchgen/model.py` (NativeFunction, with its parsed FunctionSchema) and the file
inputs `torchgen/gen.py` reads. Also the fingerprint of those inputs, which the runtime compares
with the one the generated files were written from (Note [Stale generated files]).
"""

from __future__ import annotations

import keyword
import os
from dataclasses import dataclass
from typing import Any

from tensortrace.aten.function_schema import FunctionSchema, parse_schema

# CPython's own SHA-256 (the same digest): `hashlib` loads OpenSSL first, ~3 ms of an import
# that needs one digest of a few hundred kB
try:
    from _sha2 import sha256  # type: ignore[import-not-found]  # Python >= 3.12
except ImportError:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found, no-redef]  # Python 3.11
    except ImportError:  # a build without the built-in hashes
        from hashlib import sha256  # type: ignore[assignment]

# the inputs, by path in the package: read as files, not as package resources, so that reading
# them imports nothing (the loader fingerprints them while tensortrace.aten is being imported)
NATIVE_FUNCTIONS_YAML = "aten/native_functions.yaml"
DEPRECATED_YAML = "csrc/deprecated.yaml"
DERIVATIVES_YAML = "autograd/derivatives.yaml"
# os.path, not pathlib: the runtime fingerprints the inputs at import (pathlib costs ~10 ms)
TORCHGEN_DIR = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.dirname(TORCHGEN_DIR)


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


def inputs_fingerprint() -> str:
    """sha256 of everything the generated files are made from: the YAML files and this
    generator's own sources. Cheap enough to check at every import (well under a millisecond)."""
    digest = sha256()
    for name in (NATIVE_FUNCTIONS_YAML, DEPRECATED_YAML, DERIVATIVES_YAML):
        digest.update(_read_bytes(os.path.join(PACKAGE_DIR, name)))
    for source in sorted(n for n in os.listdir(TORCHGEN_DIR) if n.endswith(".py")):
        digest.update(source.encode())
        digest.update(_read_bytes(os.path.join(TORCHGEN_DIR, source)))
    return digest.hexdigest()


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def py_name(name: str) -> str:
    """Schema argument names that are Python keywords (`from`) get a trailing underscore."""
    return name + "_" if keyword.iskeyword(name) else name


def snake_case(key: str) -> str:
    """`CompositeExplicitAutograd` -> `composite_explicit_autograd` (the file name)."""
    out = ""
    for i, ch in enumerate(key):
        if ch.isupper() and i and not key[i - 1].isupper():
            out += "_"
        out += ch.lower()
    return out
