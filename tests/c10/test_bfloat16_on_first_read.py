"""Note [ml_dtypes imported on the first bfloat16 read] in c10/scalar_type.py: import leaves
ml_dtypes out, and every way of reaching bfloat16's NumPy dtype loads it. Each check runs in a
fresh interpreter, since this one has loaded it already."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import tensortrace

PRELUDE = (
    "import json, sys, numpy as np, tensortrace as torch\n"
    "from tensortrace.c10.scalar_type import ScalarType, TypeMeta\n"
    "out = {'at_import': 'ml_dtypes' in sys.modules}\n"
    "meta = TypeMeta.fromScalarType(ScalarType.BFloat16)\n"
)


def run(code: str) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(Path(tensortrace.__file__).parents[1]))
    done = subprocess.run(
        [sys.executable, "-c", PRELUDE + code + "\nprint(json.dumps(out))"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found.pop("at_import") is False
    return found  # type: ignore[no-any-return]


def test_a_bfloat16_tensor_loads_it() -> None:
    found = run(
        "t = torch.ones(3, dtype=torch.bfloat16) * 2\n"
        "out['values'] = t.float().tolist()\n"
        "out['meta'] = repr(meta)\n"
        "out['plain'] = type(meta) is TypeMeta and '__getattr__' not in vars(TypeMeta)"
    )
    # a plain TypeMeta once loaded, and TypeMeta has no __getattr__ (its reads stay fast)
    assert found.pop("plain") is True
    assert found["values"] == [2.0, 2.0, 2.0]
    assert found["meta"] == (
        "TypeMeta(scalar_type=<ScalarType.BFloat16: 15>, itemsize=2, name='c10::BFloat16', "
        "numpy=dtype(bfloat16))"
    )


def test_an_ml_dtypes_dtype_converts_before_any_bfloat16_tensor() -> None:
    found = run(
        "import ml_dtypes\n"
        "from tensortrace.c10.scalar_type import scalar_type_from_numpy\n"
        "out['st'] = str(scalar_type_from_numpy(np.dtype(ml_dtypes.bfloat16)))\n"
        "try:\n"
        "    scalar_type_from_numpy(np.dtype(ml_dtypes.float8_e4m3fn))\n"
        "except TypeError as exc:\n"
        "    out['refused'] = str(exc)[:52]"
    )
    assert found == {
        "st": "BFloat16",
        "refused": "can't convert np.ndarray of type numpy.float8_e4m3fn",
    }


def test_a_copy_equality_and_hash_before_the_first_read() -> None:
    found = run(
        "import copy\n"
        "c = copy.copy(meta)\n"
        "out['equal'] = c == meta and hash(c) == hash(meta)\n"
        "out['numpy'] = str(c.numpy)\n"
        "out['itemsize'] = meta.itemsize\n"
        "try:\n"
        "    meta.numpy = None\n"
        "except Exception as exc:\n"
        "    out['frozen'] = f'{type(exc).__name__}: {exc}'\n"
        "out['missing'] = hasattr(meta, 'no_such_field')"
    )
    assert found == {
        "equal": True,
        "numpy": "bfloat16",
        "itemsize": 2,
        "frozen": "FrozenInstanceError: cannot assign to field 'numpy'",
        "missing": False,
    }


def test_opmath_upcasts_bfloat16_once_loaded() -> None:
    found = run(
        "from tensortrace.aten.opmath_type import to_opmath\n"
        "t = torch.tensor([1.0, 2.0], dtype=torch.bfloat16)\n"
        "out['upcast'] = str(to_opmath(np.ones(2, dtype=meta.numpy))[0].dtype)\n"
        "out['mean'] = t.mean().item()"
    )
    assert found == {"upcast": "float32", "mean": 1.5}
