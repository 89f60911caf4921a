"""`import tensortrace`: what it loads, and the subpackages it leaves for their first use.

Note [Subpackages imported on first use] in tensortrace/__init__.py. Each check runs in a fresh
interpreter, since this one has imported everything already.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import tensortrace

LAZY = ("cuda", "distributions", "nn", "optim")
# read finished traces only: nothing in the runtime imports them
NEVER = ("replay", "viz", "widgets", "cli", "torchgen.gen")


def run(code: str) -> object:
    """Run `code` in a fresh interpreter on this tensortrace; it prints one JSON value."""
    env = dict(os.environ, PYTHONPATH=str(Path(tensortrace.__file__).parents[1]))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_import_leaves_the_lazy_subpackages_out() -> None:
    loaded = run(
        "import json, sys, tensortrace as torch; torch.rand(3) + 1; "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('tensortrace.'))))"
    )
    assert isinstance(loaded, list)
    assert "tensortrace.aten" in loaded  # the probe sees the eagerly imported ones
    for name in (*LAZY, *NEVER):
        assert f"tensortrace.{name}" not in loaded, name
        assert not [m for m in loaded if m.startswith(f"tensortrace.{name}.")], name


def test_import_leaves_numpy_random_for_the_first_draw() -> None:
    """Note [The bit generator made on the first draw]: the default generator's state waits in
    Python; the first draw makes NumPy's MT19937 from it, with torch's words."""
    found = run(
        "import json, sys, tensortrace as torch; out = ['numpy.random' in sys.modules]; "
        "g = torch.Generator().manual_seed(3); state = g.get_state(); "
        "out.append('numpy.random' in sys.modules); torch.manual_seed(0); "
        "out.append(torch.rand(3).tolist()); out.append('numpy.random' in sys.modules); "
        "g.set_state(state); out.append(torch.rand(2, generator=g).tolist()); "
        "print(json.dumps(out))"
    )
    assert isinstance(found, list)
    assert found[:2] == [False, True]  # get_state reads the bit generator: made then
    assert found[2] == [0.49625658988952637, 0.7682217955589294, 0.08847743272781372]
    assert found[3] is True
    assert found[4] == [0.004263520240783691, 0.10556936264038086]  # as torch draws them


def test_each_way_of_reaching_a_lazy_subpackage_imports_it() -> None:
    found = run(
        "import json, tensortrace as torch; out = {}; "
        "out['dir'] = [n for n in ('cuda', 'distributions', 'nn', 'optim') if n in dir(torch)]; "
        "out['attr'] = torch.nn.Linear.__module__; "
        "from tensortrace import optim; out['from'] = optim.SGD.__module__; "
        "import tensortrace.distributions; out['import'] = torch.distributions.Normal.__name__; "
        "out['same'] = torch.cuda is __import__('sys').modules['tensortrace.cuda']; "
        "print(json.dumps(out))"
    )
    assert found == {
        "dir": list(LAZY),
        "attr": "tensortrace.nn.modules.linear",
        "from": "tensortrace.optim.sgd",
        "import": "Normal",
        "same": True,
    }


def test_an_unknown_attribute_raises_as_a_module_does() -> None:
    try:
        tensortrace.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert str(exc) == "module 'tensortrace' has no attribute 'no_such_name'"
    else:
        raise AssertionError("no AttributeError")
    assert not hasattr(tensortrace, "no_such_name")


def test_import_leaves_its_objects_out_of_the_cyclic_gc() -> None:
    """Note [Import without the cyclic GC]: the runtime's objects are frozen, the collector is
    left as the program had it, and cycles made afterwards are still collected."""
    found = run(
        "import gc, json, sys; gc.disable(); import tensortrace as torch; "
        "out = {'disabled_kept': not gc.isenabled()}; gc.enable(); "
        "out['frozen'] = gc.get_freeze_count(); out['young'] = gc.get_count()[0]; "
        "a = torch.rand(3); box = [a]; box.append(box); addr = a.data_ptr(); del a, box; "
        "out['collected'] = gc.collect() > 0; "
        "out['freed'] = torch.rand(3).data_ptr() == addr; print(json.dumps(out))"
    )
    assert isinstance(found, dict)
    assert found["disabled_kept"]
    assert found["frozen"] > 100_000  # the dispatch tables, bindings, schemas...
    assert found["young"] < 20_000  # not the whole import waiting for the first collection
    assert found["collected"] and found["freed"]
    enabled = run("import gc, json, tensortrace; print(json.dumps(gc.isenabled()))")
    assert enabled is True


def test_the_inputs_fingerprint_is_sha256_without_hashlib() -> None:
    """The loader fingerprints the generator's inputs at every import with CPython's built-in
    SHA-256: the digest hashlib gives, without loading OpenSSL."""
    import hashlib

    from tensortrace.torchgen import model

    digest = hashlib.sha256()
    for name in (model.NATIVE_FUNCTIONS_YAML, model.DEPRECATED_YAML, model.DERIVATIVES_YAML):
        digest.update(Path(model.PACKAGE_DIR, name).read_bytes())
    for source in sorted(p.name for p in Path(model.TORCHGEN_DIR).glob("*.py")):
        digest.update(source.encode())
        digest.update(Path(model.TORCHGEN_DIR, source).read_bytes())
    assert model.inputs_fingerprint() == digest.hexdigest()
    loaded = run("import json, sys, tensortrace; print(json.dumps('hashlib' in sys.modules))")
    assert loaded is False
