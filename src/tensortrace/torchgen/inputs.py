"""The generator's inputs as the runtime reads them: where they are and their fingerprint.

The loader checks the inputs' CRC-32 at every `import tensortrace` (Note [Stale generated files]),
and aten/codegen.py spells argument names as the generator does (py_name): this module is what
they import, so the generator's own model (model.py: NativeFunction, the YAML reader) is not
imported with the runtime.
"""

from __future__ import annotations

import keyword
import os
import zlib
from collections.abc import Iterator

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
    generator's own sources (INPUTS_SHA256 in each generated package)."""
    digest = sha256()
    for chunk in _inputs():
        digest.update(chunk)
    return digest.hexdigest()


# Note [A CRC-32 of the inputs at import]
# SHA-256 of the ~0.5 MB of inputs is ~23M instructions (~3% of `import tensortrace`), and the
# loader only asks whether the files on disk were generated from these very inputs: a check
# against a mistake (an edit not followed by the generator), not against an adversary. So the
# generator records the CRC-32 of the same bytes beside the SHA-256 (INPUTS_CRC32), and the
# loader compares that (zlib.crc32: ~0.5M instructions).
def inputs_crc32() -> int:
    """CRC-32 of the bytes inputs_fingerprint digests, in the same order."""
    crc = 0
    for chunk in _inputs():
        crc = zlib.crc32(chunk, crc)
    return crc


def _inputs() -> Iterator[bytes]:
    for name in (NATIVE_FUNCTIONS_YAML, DEPRECATED_YAML, DERIVATIVES_YAML):
        yield _read_bytes(os.path.join(PACKAGE_DIR, name))
    for source in sorted(n for n in os.listdir(TORCHGEN_DIR) if n.endswith(".py")):
        yield source.encode()
        yield _read_bytes(os.path.join(TORCHGEN_DIR, source))


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def py_name(name: str) -> str:
    """Schema argument names that are Python keywords (`from`) get a trailing underscore."""
    return name + "_" if keyword.iskeyword(name) else name
