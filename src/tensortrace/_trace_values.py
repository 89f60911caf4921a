"""Values in the trace: what each tensor holds, read when a kernel or a top-level call ends.

No PyTorch counterpart: torch.profiler records no data. A learner stepping through a replay wants
to see what `rand(3, 4)` wrote and which storage elements `[0]` covers, and the replay reads only
the trace, so the recorder calls `capture` (Note [Values beside the events] in
trace/recorder.py) and this module writes, at that step, what changed since the last reading:

- `"t"`: TensorImpl name -> the tensor as torch prints it (`tensor([[0.4963, ...]])`, summarized
  past 1000 elements with `...`, exactly `torch/_tensor_str.py`'s rules, see _tensor_str.py);
- `"s"`: StorageImpl name -> `[dtype, [element, ...]]`, every element of storages of at most
  `STORAGE_LIMIT` elements (what the storage strip of seed 003 draws; larger ones are not kept).

Floats that JSON cannot spell (nan, inf) are kept as the strings "nan", "inf", "-inf".
It lives at the top of the package because it prints with `_tensor_str`, which needs c10 and
csrc; only `tensortrace/__init__.py` installs it.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np

from tensortrace._tensor_str import (
    PRINT_OPTS,
    _add_suffixes,
    _Formatter,
    _tensor_str_with_formatter,
    get_summarized_data,
)
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.c10.tensor_impl import TensorImpl
from tensortrace.csrc.dtype import get_dtype
from tensortrace.trace import recorder
from tensortrace.trace.recorder import Recorder

STORAGE_LIMIT = 1024  # elements: the storage strip draws no more (viz/storage_strip.py)

# per recorder: what was last written for each TensorImpl and StorageImpl, to write only changes
_seen: weakref.WeakKeyDictionary[Recorder, tuple[dict[str, Any], dict[str, Any]]] = (
    weakref.WeakKeyDictionary())


def impl_text(impl: TensorImpl) -> str:
    """A TensorImpl printed as torch prints its Tensor (`_str_intern` without autograd)."""
    scalar_type = impl.scalar_type()
    dtype = get_dtype(scalar_type)
    prefix = "tensor("
    suffixes: list[str] = []
    device = impl.device()
    if device.type != "cpu":
        suffixes.append(f"device='{device}'")
    plain = scalar_type in (get_default_dtype(), ScalarType.Long, ScalarType.Bool)
    if impl.numel() == 0:
        if impl.dim() != 1:
            suffixes.append("size=" + str(tuple(impl.sizes())))
        if scalar_type != get_default_dtype():
            suffixes.append(f"dtype={dtype!r}")
        body = "[]"
    else:
        if not plain:
            suffixes.append(f"dtype={dtype!r}")
        data = impl.numpy_view()
        summarize = impl.numel() > PRINT_OPTS.threshold
        formatter = _Formatter(get_summarized_data(data) if summarize else data,
                               dtype.is_floating_point)
        body = _tensor_str_with_formatter(data, len(prefix), summarize, formatter)
    return _add_suffixes(prefix + body, suffixes, len(prefix), force_newline=False)


def _json_number(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def storage_values(array: np.ndarray) -> list[Any]:
    """Elements as JSON numbers; float32 and narrower at 9 significant digits (round trip)."""
    if array.dtype.kind == "f":
        if array.dtype.itemsize <= 4:
            return [_json_number(float(f"{v:.9g}")) for v in array.astype(np.float64).tolist()]
        return [_json_number(v) for v in array.tolist()]
    return array.tolist()


def capture(rec: Recorder, step: int) -> None:
    """Write to `rec.values[step]` the tensors and small storages that changed."""
    texts, storages = _seen.setdefault(rec, ({}, {}))
    out_t: dict[str, str] = {}
    out_s: dict[str, list[Any]] = {}
    visited: set[str] = set()
    active, recorder.current = recorder.current, None  # reading values records nothing
    try:
        for obj in list(rec.tracked):
            if type(obj) is not TensorImpl or obj.refcount_ <= 0:
                continue
            try:
                _capture_impl(obj, texts, storages, visited, out_t, out_s)
            except Exception:  # noqa: BLE001 - reading values must never break the traced code
                continue  # a dtype NumPy cannot read, a storage being torn down
    finally:
        recorder.current = active
    if out_t or out_s:
        entry = rec.values.setdefault(step, {})
        if out_t:
            entry.setdefault("t", {}).update(out_t)
        if out_s:
            entry.setdefault("s", {}).update(out_s)


def _capture_impl(impl: TensorImpl, texts: dict[str, Any], storages: dict[str, Any],
                  visited: set[str], out_t: dict[str, str], out_s: dict[str, list[Any]]) -> None:
    meta = impl.dtype()
    if meta.numpy is None or not impl.storage_.defined():
        return
    storage = impl.storage_.unsafeGetStorageImpl()
    length = storage.nbytes() // meta.itemsize
    small = length <= STORAGE_LIMIT
    raw = storage.bytes_view()[: length * meta.itemsize] if small else None
    name = storage.trace_name
    if raw is not None and name not in visited:
        visited.add(name)
        key = (meta.scalar_type, raw.tobytes())
        if storages.get(name) != key:
            storages[name] = key
            out_s[name] = [repr(get_dtype(meta.scalar_type)),
                           storage_values(raw.view(meta.numpy))]
    # a small tensor prints again only when its layout or its storage's bytes changed
    layout = (name, impl.sizes(), impl.strides(), impl.storage_offset(), meta.scalar_type,
              storages[name][1] if small else None)
    last = texts.get(impl.trace_name)
    if small and last is not None and last[0] == layout:
        return
    text = impl_text(impl)
    if last is None or last[1] != text:
        out_t[impl.trace_name] = text
    texts[impl.trace_name] = (layout, text)


def install() -> None:
    recorder.capture_values = capture
