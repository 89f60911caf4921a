"""torch.save and torch.load: tensors (and dicts, lists, tuples of them) in torch's zip format.

Mirrors `torch/serialization.py` (`_save`, `_load`, the zip layout PyTorchStreamWriter writes,
`torch/csrc/jit/serialization/`) and `torch/_weights_only_unpickler.py`. A file is a zip archive
of STORED records under one folder (`<name>/`, or `archive/` for a file object):

    data.pkl              the object, pickled (protocol 2); each tensor is the call
                          torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
                          requires_grad, OrderedDict()), each storage a persistent id
                          ('storage', torch.FloatStorage, '<key>', 'cpu', numel)
    .format_version, .storage_alignment, byteorder
    data/<key>            each storage's raw bytes, little endian, 64-byte aligned in the file
    version, .data/serialization_id

Views share their storage record, as in torch. Real torch.load reads what torch.save writes
here, and torch.load here reads real torch's files. Loading always has `weights_only=True`
semantics: a restricted unpickler that only knows the globals a tensor file needs (the rebuild
function, storage types, dtypes, torch.Size, torch.device, OrderedDict) and never imports or
calls anything else.
"""

from __future__ import annotations

import io
import os
import pickle
import random
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import numpy as np

import tensortrace as torch
from tensortrace._tensor import Tensor
from tensortrace.c10.scalar_type import ScalarType, elementSize
from tensortrace.csrc.dtype import DTYPES, get_dtype
from tensortrace.trace import traced

if TYPE_CHECKING:  # imported where a file is written or read: off the import path
    import zipfile

SOURCE = "torch/serialization.py"
DEFAULT_PROTOCOL = 2
STORAGE_ALIGNMENT = 64

# torch.<X>Storage: the legacy typed storage class that names each dtype in a file
STORAGE_TYPES: dict[ScalarType, str] = {
    ScalarType.Float: "FloatStorage",
    ScalarType.Double: "DoubleStorage",
    ScalarType.Half: "HalfStorage",
    ScalarType.BFloat16: "BFloat16Storage",
    ScalarType.Long: "LongStorage",
    ScalarType.Int: "IntStorage",
    ScalarType.Short: "ShortStorage",
    ScalarType.Char: "CharStorage",
    ScalarType.Byte: "ByteStorage",
    ScalarType.Bool: "BoolStorage",
    ScalarType.ComplexFloat: "ComplexFloatStorage",
    ScalarType.ComplexDouble: "ComplexDoubleStorage",
}


class _Global:
    """A stand-in for a torch global (torch._utils._rebuild_tensor_v2, torch.FloatStorage):
    pickled as a GLOBAL opcode naming it, and recognised by the restricted unpickler."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __repr__(self) -> str:
        return f"{self.module}.{self.name}"

    def __call__(self, *args: Any) -> Any:  # pickle wants a callable in a reduce tuple
        raise TypeError(f"{self!r} is a name in a file, not a function")


_REBUILD_TENSOR_V2 = _Global("torch._utils", "_rebuild_tensor_v2")
_STORAGE_GLOBALS = {st: _Global("torch", name) for st, name in STORAGE_TYPES.items()}


class _StorageRef:
    """A tensor's storage as data.pkl refers to it: persistent_id gives its record key."""

    def __init__(self, impl: Any, scalar_type: ScalarType) -> None:
        self.impl, self.scalar_type = impl, scalar_type


class _TensorPickler(pickle._Pickler):  # the Python pickler: its save_global can be extended
    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=DEFAULT_PROTOCOL)
        self.storages: dict[int, tuple[str, Any, ScalarType]] = {}

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            cdata = obj.cdata
            impl = cdata.unsafeGetTensorImpl()
            ref = _StorageRef(impl.storage_.unsafeGetStorageImpl(), impl.scalar_type())
            args: tuple[Any, ...] = (
                ref,
                cdata.storage_offset(),
                tuple(cdata.sizes()),
                tuple(cdata.strides()),
                bool(obj.requires_grad),
                OrderedDict(),
            )
            # torch._utils.get_tensor_metadata: the math bits, appended only when set
            metadata = {
                name: True
                for name, bit in (("conj", impl.is_conj()), ("neg", impl.is_neg()))
                if bit
            }
            return (_REBUILD_TENSOR_V2, (*args, metadata) if metadata else args)
        return NotImplemented

    def persistent_id(self, obj: Any) -> Any:
        if not isinstance(obj, _StorageRef):
            return None
        key_of = self.storages.get(id(obj.impl))
        if key_of is None:
            key_of = (str(len(self.storages)), obj.impl, obj.scalar_type)
            self.storages[id(obj.impl)] = key_of
        key, impl, scalar_type = key_of
        TORCH_CHECK_SAVE(scalar_type == obj.scalar_type)
        numel = impl.nbytes() // elementSize(scalar_type)
        return ("storage", _STORAGE_GLOBALS[scalar_type], key, "cpu", numel)

    def save_global(self, obj: Any, name: str | None = None) -> None:
        if isinstance(obj, _Global):
            # typeshed leaves out the pure-Python pickler's internals (write, memoize, save_global)
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())  # type: ignore[attr-defined]
            self.memoize(obj)  # type: ignore[attr-defined]
            return
        super().save_global(obj, name)  # type: ignore[misc]

    dispatch = dict(pickle._Pickler.dispatch)
    dispatch[_Global] = save_global  # type: ignore[assignment]


def TORCH_CHECK_SAVE(cond: bool) -> None:
    if not cond:
        # torch/serialization.py's persistent_id check, with its words
        raise RuntimeError(
            "Cannot save multiple tensors or storages that view the same data as different types"
        )


def _archive_name(f: Any) -> str:
    """PyTorchStreamWriter: the file's basename up to its first dot, or `archive`."""
    if isinstance(f, (str, os.PathLike)):
        base = os.path.basename(os.fspath(f)).split(".")[0]
        return base or "archive"
    return "archive"


def _write_record(zf: zipfile.ZipFile, fp: Any, name: str, data: bytes, align: bool) -> None:
    import zipfile

    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    if align:  # pad the local header's extra field so the data starts on a 64-byte boundary
        start = fp.tell() + 30 + len(name.encode("utf-8")) + 4
        pad = (-start) % STORAGE_ALIGNMENT
        info.extra = b"FB" + pad.to_bytes(2, "little") + b"Z" * pad
    zf.writestr(info, data)


@traced("python", "torch.serialization.save", SOURCE, legacy="torch.save")
def save(
    obj: Any,
    f: Any,
    pickle_module: Any = pickle,
    pickle_protocol: int = DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """torch.save(obj, f): f is a path or a writable binary file object."""
    import zipfile

    buffer = io.BytesIO()
    pickler = _TensorPickler(buffer)
    pickler.dump(obj)
    name = _archive_name(f)
    out = f if not isinstance(f, (str, os.PathLike)) else open(f, "wb")  # noqa: SIM115
    try:
        raw = io.BytesIO()
        with zipfile.ZipFile(raw, "w", zipfile.ZIP_STORED) as zf:
            _write_record(zf, raw, f"{name}/data.pkl", buffer.getvalue(), True)
            _write_record(zf, raw, f"{name}/.format_version", b"1", True)
            _write_record(zf, raw, f"{name}/.storage_alignment", b"64", True)
            _write_record(zf, raw, f"{name}/byteorder", b"little", True)
            for key, impl, _ in pickler.storages.values():
                _write_record(zf, raw, f"{name}/data/{key}", impl.bytes_view().tobytes(), True)
            _write_record(zf, raw, f"{name}/version", b"3\n", True)
            serialization_id = "".join(random.choice("0123456789") for _ in range(40))
            _write_record(
                zf, raw, f"{name}/.data/serialization_id", serialization_id.encode(), True
            )
        out.write(raw.getvalue())
    finally:
        if out is not f:
            out.close()


# ---- load: the weights-only unpickler -----------------------------------------------------------
def _allowed_globals() -> dict[str, Any]:
    allowed: dict[str, Any] = {
        "collections.OrderedDict": OrderedDict,
        "torch._utils._rebuild_tensor_v2": _REBUILD_TENSOR_V2,
        "torch.Size": torch.Size,
        "torch.device": torch.device,
        "builtins.set": set,
        "builtins.complex": complex,
        "builtins.bytearray": bytearray,
    }
    for g in _STORAGE_GLOBALS.values():
        allowed[f"torch.{g.name}"] = g
    for dtype in DTYPES.values():
        allowed[repr(dtype)] = dtype
    return allowed


UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source."
)


class _WeightsUnpickler(pickle.Unpickler):
    """Only the allowed globals; storages come from the archive's data/<key> records."""

    def __init__(self, file: io.BytesIO, zf: zipfile.ZipFile, prefix: str) -> None:
        super().__init__(file)
        self.zf, self.prefix = zf, prefix
        self.loaded: dict[str, Any] = {}
        self.allowed = _allowed_globals()

    def find_class(self, module: str, name: str) -> Any:
        full_path = f"{module}.{name}"
        if full_path in self.allowed:
            return self.allowed[full_path]
        raise pickle.UnpicklingError(
            "Weights only load failed. This file can still be loaded, to do so you have two "
            "options, \033[1mdo those steps only if you trust the source of the checkpoint"
            f"\033[0m. \n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with "
            "`weights_only=True` please check the recommended steps in the following error "
            f"message.\n\tWeightsUnpickler error: Unsupported global: GLOBAL {full_path} was "
            "not an allowed global by default."
        )

    def persistent_load(self, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(
                "Weights only load failed. "
                + UNSAFE_MESSAGE
                + "\n\nunsupported persistent id encountered"
            )
        _, storage_type, key, _location, numel = pid
        if key not in self.loaded:
            scalar_type = next(st for st, g in _STORAGE_GLOBALS.items() if g is storage_type)
            data = self.zf.read(f"{self.prefix}data/{key}")
            self.loaded[key] = (scalar_type, data, numel)
        return self.loaded[key]


class _Rebuilder:
    """Turns the unpickled (storage, view) descriptions into tensors, one base per storage."""

    def __init__(self) -> None:
        self.bases: dict[int, Any] = {}

    def tensor(
        self,
        storage: tuple[ScalarType, bytes, int],
        offset: int,
        size: tuple[int, ...],
        stride: tuple[int, ...],
        requires_grad: bool,
    ) -> Any:
        scalar_type, data, numel = storage
        base = self.bases.get(id(storage))
        if base is None:
            base = torch.empty(numel, dtype=get_dtype(scalar_type))
            if numel:
                src = np.frombuffer(data, dtype=np.uint8, count=numel * elementSize(scalar_type))
                base.cdata.unsafeGetTensorImpl().storage_.unsafeGetStorageImpl().bytes_view()[
                    : src.size
                ] = src
            self.bases[id(storage)] = base
        result = base.as_strided(list(size), list(stride), offset)
        if requires_grad:
            result.requires_grad_(True)
        return result


@traced("python", "torch.serialization.load", SOURCE, legacy="torch.load")
def load(
    f: Any,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args: Any,
) -> Any:
    """torch.load(f): always the weights-only unpickler (see the module docstring)."""
    import zipfile

    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            raw = fh.read()
    else:
        raw = f.read()
    if not zipfile.is_zipfile(io.BytesIO(raw)):
        raise RuntimeError(
            "Invalid magic number; corrupt file? (tensortrace reads only the "
            "zip format torch.save has written since PyTorch 1.6)"
        )
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        pkl = next((n for n in zf.namelist() if n.endswith("data.pkl") and n.count("/") == 1), None)
        if pkl is None:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
        prefix = pkl[: -len("data.pkl")]
        unpickler = _WeightsUnpickler(io.BytesIO(zf.read(pkl)), zf, prefix)
        raw_obj = _LoadingUnpickler.run(unpickler)
    return raw_obj


class _LoadingUnpickler:
    """Runs the unpickler with _rebuild_tensor_v2 bound to one _Rebuilder (shared storages)."""

    @staticmethod
    def run(unpickler: _WeightsUnpickler) -> Any:
        rebuilder = _Rebuilder()

        def rebuild(
            storage: Any,
            storage_offset: int,
            size: Any,
            stride: Any,
            requires_grad: bool,
            backward_hooks: Any,
            metadata: Any = None,
        ) -> Any:
            result = rebuilder.tensor(
                storage, storage_offset, tuple(size), tuple(stride), requires_grad
            )
            if metadata:  # torch._utils.set_tensor_metadata: the conj and neg bits
                impl = result.cdata.unsafeGetTensorImpl()
                impl._set_conj(bool(metadata.get("conj", False)))
                impl._set_neg(bool(metadata.get("neg", False)))
            return result

        unpickler.allowed["torch._utils._rebuild_tensor_v2"] = rebuild
        return unpickler.load()


__all__ = ["load", "save"]
