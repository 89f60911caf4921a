"""Values in the trace: what each tensor holds, read when a kernel or a top-level call ends.

No PyTorch counterpart: torch.profiler records no data. A learner stepping through a replay wants
to see what `rand(3, 4)` wrote and which storage elements `[0]` covers, and the replay reads only
the trace, so the recorder calls `capture` (Note [Values beside the events] in
trace/recorder.py) and this module keeps, at that step, what changed since the last reading:

- `"t"`: TensorImpl name -> the tensor as torch prints it (`tensor([[0.4963, ...]])`, summarized
  past 1000 elements with `...`, exactly `torch/_tensor_str.py`'s rules, see _tensor_str.py);
- `"s"`: StorageImpl name -> `[dtype, [element, ...]]`, every element of storages of at most
  `STORAGE_LIMIT` elements (what the storage strip of seed 003 draws; larger ones are not kept).

Recording stays cheap (Note [Texts are printed when read]): `capture` copies each storage's bytes
only when they changed and notes each TensorImpl's layout (sizes, strides, offset, dtype, storage)
only when it or its storage changed; `LazyValues`, the recorder's `values` dict, prints the texts
and lists the elements the first time it is read (by the replay, `save`, or a test), with exactly
the results that printing at record time gave.

Floats that JSON cannot spell (nan, inf) are kept as the strings "nan", "inf", "-inf".
It lives at the top of the package because it prints with `_tensor_str`, which needs c10 and
csrc; only `tensortrace/__init__.py` installs it.
"""

from __future__ import annotations

import math
import weakref
import zlib
from collections.abc import ItemsView, Iterator, KeysView, ValuesView
from typing import Any

import numpy as np

from tensortrace._tensor_str import (
    PRINT_OPTS,
    _add_suffixes,
    _Formatter,
    _tensor_str_with_formatter,
    get_summarized_data,
)
from tensortrace.c10 import default_dtype as _default_dtype_module
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.device import Device
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.c10.tensor_impl import TensorImpl
from tensortrace.csrc.dtype import get_dtype
from tensortrace.trace import recorder
from tensortrace.trace.recorder import Recorder

STORAGE_LIMIT = 1024  # elements: the storage strip draws no more (viz/storage_strip.py)


def impl_text(impl: TensorImpl) -> str:
    """A TensorImpl printed as torch prints its Tensor (`_str_intern` without autograd)."""
    return _text(impl.numpy_view(), impl.scalar_type(), impl.device(), get_default_dtype())


def _text(
    data: np.ndarray, scalar_type: ScalarType, device: Device, default_dtype: ScalarType
) -> str:
    """`data` (the tensor's elements) printed as torch prints a tensor of that dtype/device."""
    dtype = get_dtype(scalar_type)
    prefix = "tensor("
    suffixes: list[str] = []
    if device.type != "cpu":
        suffixes.append(f"device='{device}'")
    plain = scalar_type in (default_dtype, ScalarType.Long, ScalarType.Bool)
    if data.size == 0:
        if data.ndim != 1:
            suffixes.append("size=" + str(tuple(data.shape)))
        if scalar_type != default_dtype:
            suffixes.append(f"dtype={dtype!r}")
        body = "[]"
    else:
        if not plain:
            suffixes.append(f"dtype={dtype!r}")
        summarize = data.size > PRINT_OPTS.threshold
        formatter = _Formatter(
            get_summarized_data(data) if summarize else data, dtype.is_floating_point
        )
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


# Note [Texts are printed when read]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Printing every changed tensor when a kernel ends made traced runs ~30% slower. A text is a
# function of the tensor's layout, its dtype and device, the default dtype, and its storage's
# bytes; so `capture` keeps only those: a storage's bytes are copied when they differ from its
# last copy (an unchanged storage shares the one `bytes` object), and a TensorImpl is noted at a
# step when its layout or its storage's copy is not the one noted last. `LazyValues._settle`
# later replays these notes in step order and writes what printing at record time wrote: a text
# when it differs from the tensor's last text, a small storage's elements when its dtype or
# bytes differ from the last ones written. A storage past STORAGE_LIMIT elements is not copied
# (a loop over a large tensor would keep a copy per step): its change is told by its CRC-32 and
# its tensors are printed when it changed, as before but only then. The print options are read
# when the texts are printed, not when the values were recorded.

# (storage name, sizes, strides, offset, scalar type, itemsize, NumPy dtype, device, default dtype)
_Layout = tuple[
    str, tuple[int, ...], tuple[int, ...], int, ScalarType, int, Any, Device, ScalarType
]
# one step's notes: (step, [(tensor name, layout, storage bytes)], [(storage, scalar type,
# NumPy dtype, element count, bytes)])
_Note = tuple[
    int,
    list[tuple[str, _Layout, bytes | None, str | None]],
    list[tuple[str, ScalarType, Any, int, bytes]],
]


class LazyValues(dict[int, dict[str, Any]]):
    """The recorder's values table: step -> {"t": {tensor: text}, "s": {storage: [dtype,
    elements]}}, filled from the cheap notes `capture` keeps the first time it is read."""

    def __init__(self) -> None:
        super().__init__()
        self._notes: list[_Note] = []
        # storage -> its last copy (a large one: its byte count and CRC-32)
        self._copies: dict[str, bytes | tuple[int, int]] = {}
        self._layouts: dict[str, tuple[_Layout, Any]] = {}  # tensor -> last noted
        self._listed: dict[str, tuple[ScalarType, Any]] = {}  # storage -> last elements noted
        self._texts: dict[str, str] = {}  # tensor -> last text written
        self._written: dict[str, tuple[ScalarType, bytes]] = {}  # storage -> last elements
        # Note [What a step may have changed]: the TensorImpls over each storage, and the
        # default dtype of the last capture
        self._views: weakref.WeakKeyDictionary[Any, dict[int, weakref.ref[TensorImpl]]] = (
            weakref.WeakKeyDictionary()
        )
        self.default_dtype: ScalarType | None = None

    # ---- what to read (Note [What a step may have changed]) ----------------------------------
    def index_views(self, impls: list[TensorImpl]) -> None:
        """Remember which storage each of `impls` views."""
        views = self._views
        # Note [Weak tables read through their data]: WeakKeyDictionary.get and WeakSet's `in`
        # are Python methods that look a fresh weak reference up in the table's `data`; the
        # capture runs at every kernel's end, so it looks it up there itself
        by_ref = views.data  # type: ignore[attr-defined]
        for impl in impls:
            storage = impl.storage_.storage_impl_.target_
            if storage is not None:
                refs = by_ref.get(_ref(storage))
                if refs is None:
                    refs = views[storage] = {}
                refs[id(impl)] = _ref(impl)

    def candidates(self, rec: Recorder) -> list[TensorImpl]:
        """The tracked TensorImpls that are new, changed layout, or view a storage that may
        have been written."""
        chosen = {}
        if rec.changed:  # at most kernels' ends nothing is new: no pass, no call
            tracked = rec.tracked.data  # type: ignore[attr-defined] # Note [Weak tables ...]
            changed = []  # plain loops: a comprehension is a frame of its own
            for o in tuple(rec.changed):
                if type(o) is TensorImpl and o.refcount_ > 0 and _ref(o) in tracked:
                    changed.append(o)
            if changed:
                self.index_views(changed)
                for impl in changed:
                    chosen[id(impl)] = impl
        storages = [*rec.written]
        # iterating a WeakSet costs six Python calls even when it is empty, as it usually is:
        # its set of references (`data`, not in typeshed) is tested first
        if rec.escaped.data:  # type: ignore[attr-defined]
            storages += rec.escaped
        by_ref = self._views.data  # type: ignore[attr-defined]
        for storage in storages:
            refs = by_ref.get(_ref(storage))
            if not refs:
                continue
            for key, ref in list(refs.items()):
                impl = ref()
                if (
                    impl is None
                    or impl.refcount_ <= 0
                    or impl.storage_.storage_impl_.target_ is not storage
                ):
                    del refs[key]  # freed, or now over another storage (indexed there)
                else:
                    chosen[key] = impl
        return list(chosen.values())

    # ---- recording (cheap) -------------------------------------------------------------------
    def note(self, step: int, impls: list[TensorImpl], default: ScalarType) -> None:
        """Record the values of `impls` at `step` (`default`: the default dtype then)."""
        copies, layouts, listed = self._copies, self._layouts, self._listed
        tensors: list[tuple[str, _Layout, bytes | None, str | None]] = []
        storages: list[tuple[str, ScalarType, Any, int, bytes]] = []
        visited: set[str] = set()
        for impl in impls:
            try:
                # the fields read directly (storage_.defined(), unsafeGetStorageImpl(),
                # nbytes(), bytes_view() are a call each): this runs for every live tensor at
                # every kernel's end
                meta = impl.data_type_
                storage = impl.storage_.storage_impl_.target_
                if meta.numpy is None or storage is None:
                    continue
                name = storage.trace_name
                copy = copies.get(name)
                if name not in visited:
                    visited.add(name)
                    nbytes = storage.size_bytes_
                    ctx = storage.data_ptr_.ctx
                    raw = ctx if ctx is not None else _NO_BYTES
                    if raw.nbytes != nbytes:  # memory past the storage's bytes: not read
                        raw = raw[:nbytes]  # (a slice is a new array: most storages need none)
                    length = nbytes // meta.itemsize
                    if length <= STORAGE_LIMIT:
                        small = raw.tobytes()
                        if small != copy:
                            copy = copies[name] = small
                        key = (meta.scalar_type, small)
                        if listed.get(name) != key:
                            listed[name] = key
                            storages.append((name, meta.scalar_type, meta.numpy, length, small))
                    else:  # Note [Texts are printed when read]: large ones are not copied
                        digest = (nbytes, zlib.crc32(raw.data))
                        if digest != copy:
                            copy = copies[name] = digest
                elif copy is None:
                    continue
                layout = (
                    name,
                    impl.sizes_,
                    impl.strides_,
                    impl.storage_offset_,
                    meta.scalar_type,
                    meta.itemsize,
                    meta.numpy,
                    impl.device_opt_,
                    default,
                )
                tensor = impl.trace_name
                last = layouts.get(tensor)
                if last is not None and last[1] is copy and last[0] == layout:
                    continue
                layouts[tensor] = (layout, copy)
                if type(copy) is bytes:
                    tensors.append((tensor, layout, copy, None))
                else:
                    tensors.append((tensor, layout, None, impl_text(impl)))
            except Exception:  # noqa: BLE001 - reading values must never break the traced code
                continue  # a dtype NumPy cannot read, a storage being torn down
        if tensors or storages:
            self._notes.append((step, tensors, storages))

    # ---- reading (prints) --------------------------------------------------------------------
    def _settle(self) -> None:
        notes, self._notes = self._notes, []
        active, recorder.current = recorder.current, None  # printing records nothing
        try:
            for step, tensors, storages in notes:
                out_s: dict[str, list[Any]] = {}
                for name, scalar_type, numpy_dtype, length, copy in storages:
                    key = (scalar_type, copy)
                    if self._written.get(name) != key:
                        self._written[name] = key
                        out_s[name] = [
                            repr(get_dtype(scalar_type)),
                            storage_values(np.frombuffer(copy, numpy_dtype, count=length)),
                        ]
                out_t: dict[str, str] = {}
                for tensor, layout, data, printed in tensors:
                    if printed is not None:
                        text = printed
                    else:
                        assert data is not None
                        try:
                            text = _layout_text(layout, data)
                        except Exception:  # noqa: BLE001 - as when recording: skip it
                            continue
                    if self._texts.get(tensor) != text:
                        self._texts[tensor] = out_t[tensor] = text
                if out_t or out_s:
                    entry = dict.setdefault(self, step, {})
                    if out_t:
                        entry.setdefault("t", {}).update(out_t)
                    if out_s:
                        entry.setdefault("s", {}).update(out_s)
        finally:
            recorder.current = active

    def __getitem__(self, step: int) -> dict[str, Any]:
        if self._notes:
            self._settle()
        return dict.__getitem__(self, step)

    def get(self, step: int, default: Any = None) -> Any:  # type: ignore[override]
        if self._notes:
            self._settle()
        return dict.get(self, step, default)

    def __contains__(self, step: object) -> bool:
        if self._notes:
            self._settle()
        return dict.__contains__(self, step)

    def __iter__(self) -> Iterator[int]:
        if self._notes:
            self._settle()
        return dict.__iter__(self)

    def __len__(self) -> int:
        if self._notes:
            self._settle()
        return dict.__len__(self)

    def keys(self) -> KeysView[int]:  # type: ignore[override]
        if self._notes:
            self._settle()
        return dict.keys(self)

    def values(self) -> ValuesView[dict[str, Any]]:  # type: ignore[override]
        if self._notes:
            self._settle()
        return dict.values(self)

    def items(self) -> ItemsView[int, dict[str, Any]]:  # type: ignore[override]
        if self._notes:
            self._settle()
        return dict.items(self)

    def copy(self) -> dict[int, dict[str, Any]]:
        return dict(self.items())

    def __eq__(self, other: object) -> bool:
        return dict(self.items()) == other

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(dict(self.items()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self.items()),))


def _layout_text(layout: _Layout, copy: bytes) -> str:
    _, sizes, strides, offset, scalar_type, itemsize, numpy_dtype, device, default = layout
    if 0 in sizes:
        data = np.empty(sizes, numpy_dtype)
    else:
        data = np.ndarray(
            sizes,
            numpy_dtype,
            buffer=copy,
            offset=offset * itemsize,
            strides=tuple(itemsize * s for s in strides),
        )
    return _text(data, scalar_type, device, default)


_ref = weakref.ref
_NO_BYTES = np.empty(0, np.uint8)  # StorageImpl.bytes_view() of a storage with no memory
_deref = weakref.ref.__call__  # a weak reference called: its object, or None once it died


# Note [What a step may have changed]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Reading every live tensor at every kernel's end made recording quadratic in the live tensors
# (a 200k-event loop: 21 s). So the runtime tells the recorder what may have changed, in three
# sets (trace/recorder.py): `changed`, the tracked objects that are new or whose layout changed
# (intrusive_ptr's make and copy, TensorImpl's size, offset and storage setters); `written`, the
# storages whose memory the runtime handed out, to read or to write (StorageImpl.bytes_view,
# TensorIterator's operand arrays, a resize's new memory); `escaped`, the storages whose memory
# user code holds (numpy(), from_numpy). A capture reads the changed TensorImpls and the tracked
# TensorImpls over those storages: the `written` ones at every capture until the top-level call
# ends (the runtime may write an array after the kernel that made it returned), the `escaped`
# ones at every capture (user code may run between any two, in a Module's forward or a hook:
# they are few, the arrays a program took). That notes exactly what reading every tracked
# tensor noted (tests/trace/test_values_incremental.py runs random programs both ways); a
# change of the default dtype, which every text depends on, reads them all. Memory written
# behind the runtime's back in other ways (through `data_ptr()` and ctypes) is not seen.
FULL_SCAN = False  # read every tracked tensor at each capture (the tests' reference)


def capture(rec: Recorder, step: int) -> None:
    """Note at `step` the storages and tensors that changed (printed when first read)."""
    values = rec.values
    if not isinstance(values, LazyValues):  # a recorder started before `install`
        values = rec.values = LazyValues()
    default = _default_dtype_module._default_dtype  # get_default_dtype(), read directly
    if default is values.default_dtype and not (
        rec.changed or rec.written or rec.escaped.data or FULL_SCAN  # type: ignore[attr-defined]
    ):  # nothing new, moved or written since the last capture (a handle freed): no candidate
        return
    active, recorder.current = recorder.current, None  # reading values records nothing
    try:
        top_level = rec.depth == 0
        if FULL_SCAN or default is not values.default_dtype:
            values.default_dtype = default
            # WeakSet's own iteration costs four Python calls: its set of references (`data`,
            # not in typeshed) is read here, from a copy (a tensor freed meanwhile removes its
            # reference from the set)
            live = map(_deref, tuple(rec.tracked.data))  # type: ignore[attr-defined]
            impls = [o for o in live if type(o) is TensorImpl and o.refcount_ > 0]
            values.index_views(impls)
        else:
            impls = values.candidates(rec)
        if impls:  # a top-level call that freed handles: no tensor to read
            values.note(step, impls, default)
        rec.changed.clear()
        if top_level:
            rec.written.clear()
    finally:
        recorder.current = active


def install() -> None:
    recorder.new_values = LazyValues
    recorder.capture_values = capture
