"""The generator's inputs as the runtime reads them: where they are and their fingerprint.

The loader fingerprints the inputs at every `import tensortrace` (Note [Stale generated files]),
and aten/codegen.py spells argument names as the generator does (py_name): this module is what
they import, so the generator's own model (model.py: NativeFunction, the YAML reader) is not
imported with the runtime.
"""

from __future__ import annotations

import keyword
import os

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
