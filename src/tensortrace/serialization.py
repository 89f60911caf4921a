"""torch.save and torch.load: any picklable object, its tensors' bytes in torch's zip format.

Mirrors `torch/serialization.py` (`_save`, `_load`, the zip layout PyTorchStreamWriter writes,
`torch/csrc/jit/serialization/`). A file is a zip archive of STORED records under one folder
(`<name>/`, or `archive/` for a file object):

    data.pkl              the object, pickled (protocol 2); each tensor is the call
                          torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
                          requires_grad, OrderedDict()), each Parameter the call
                          torch._utils._rebuild_parameter(tensor, requires_grad, OrderedDict()),
                          each storage a persistent id
                          ('storage', torch.FloatStorage, '<key>', 'cpu' or 'cuda:0', numel)
    .format_version, .storage_alignment, byteorder
    data/<key>            each storage's raw bytes, little endian, 64-byte aligned in the file
    version, .data/serialization_id

Views share their storage record, as in torch. Any other object pickles as plain pickle does
(a Module: its class by reference, then its __dict__). Globals are written under torch's names:
tensortrace mirrors torch's file layout, so `tensortrace.nn.modules.linear.Linear` is written
`torch.nn.modules.linear.Linear`, the name real torch writes for its Linear. The file is then
the one real torch would have written, and each library reads the other's whole models; reading,
tensortrace resolves `torch.X` to `tensortrace.X` (a name it lacks fails as a missing one would).

torch.load(weights_only=True), the default since torch 2.6, uses the restricted unpickler of
_weights_only_unpickler.py; weights_only=False uses pickle's own (arbitrary code execution).
"""

from __future__ import annotations

import io
import os
import pickle
import re
import warnings
from typing import TYPE_CHECKING, Any

import tensortrace as torch
from tensortrace import _weights_only_unpickler as wo
from tensortrace._serialization_pickler import (
    DEFAULT_PROTOCOL,
    STORAGE_ALIGNMENT,
    StorageType,
    _TensorPickler,
)
from tensortrace.c10.scalar_type import elementSize
from tensortrace.csrc.storage import TypedStorage, UntypedStorage
from tensortrace.trace import traced

if TYPE_CHECKING:  # imported where a file is written or read: off the import path
    import zipfile

SOURCE = "torch/serialization.py"


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
    pickler = _TensorPickler(buffer, pickle_protocol)
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
                if impl.device().type == "meta":
                    continue  # a meta storage has no data: torch writes no record for it
                _write_record(zf, raw, f"{name}/data/{key}", impl.bytes_view().tobytes(), True)
            _write_record(zf, raw, f"{name}/version", b"3\n", True)
            import random  # only torch.save draws: not imported with the package

            serialization_id = "".join(random.choice("0123456789") for _ in range(40))
            _write_record(
                zf, raw, f"{name}/.data/serialization_id", serialization_id.encode(), True
            )
        out.write(raw.getvalue())
    finally:
        if out is not f:
            out.close()


# ---- safe globals (torch.serialization's wrappers of _weights_only_unpickler's set) -------------
def clear_safe_globals() -> None:
    """Clears the list of globals that are safe for ``weights_only`` load."""
    wo._clear_safe_globals()


def get_safe_globals() -> list[Any]:
    """Returns the list of user-added globals that are safe for ``weights_only`` load."""
    return wo._get_safe_globals()


def add_safe_globals(safe_globals: list[Any]) -> None:
    """Marks the given globals as safe for ``weights_only`` load (keyed by their torch name)."""
    wo._add_safe_globals(safe_globals)


class safe_globals(wo._safe_globals):
    """Context-manager that adds certain globals as safe for ``weights_only`` load."""


# ---- load: restoring each storage where it was (or where map_location says) -------------------
def _validate_device(location: str, backend_name: str) -> Any:
    """The device `location` names, if this machine has it (torch's messages)."""
    from tensortrace import cuda  # the emulated device module loads on first use

    device = torch.device(location)
    index = device.index if device.index is not None else cuda.current_device()
    if not cuda.is_available():
        raise RuntimeError(
            f"Attempting to deserialize object on a {backend_name.upper()} "
            f"device but torch.{backend_name}.is_available() is False. "
            "If you are running on a CPU-only machine, "
            "please use torch.load with map_location=torch.device('cpu') "
            "to map your storages to the CPU."
        )
    device_count = cuda.device_count()
    if index >= device_count:
        raise RuntimeError(
            f"Attempting to deserialize object on {backend_name.upper()} device "
            f"{index} but torch.{backend_name}.device_count() is {device_count}. "
            "Please use torch.load with map_location to map your storages "
            "to an existing device."
        )
    return torch.device(backend_name, index)


def _storage_to(storage: UntypedStorage, device: Any) -> UntypedStorage:
    """UntypedStorage.to(device): the same bytes in a storage on `device`."""
    if storage.device == device:
        return storage
    # on the storage's own device, not the default one (set_ refuses a storage elsewhere)
    as_bytes = torch.empty((0,), dtype=torch.uint8, device=storage.device).set_(storage)
    return as_bytes.to(device).untyped_storage()


def default_restore_location(storage: UntypedStorage, location: str) -> UntypedStorage:
    """The registered deserializers (_cpu_deserialize, _deserialize('cuda')) in turn."""
    if location == "cpu":
        return storage
    if location == "cuda" or re.match("cuda(:|[0-9]+)", location):
        return _storage_to(storage, _validate_device(location, "cuda"))
    raise RuntimeError(
        "don't know how to restore data location of torch.storage.UntypedStorage (tagged with "
        + location
        + ")"
    )


def _get_restore_location(map_location: Any) -> Any:
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        return lambda storage, location: default_restore_location(
            storage, str(map_location.get(location, location))
        )
    if isinstance(map_location, (str, bytes)):
        text = map_location.decode() if isinstance(map_location, bytes) else map_location
        return lambda storage, location: default_restore_location(storage, text)
    if isinstance(map_location, torch.device):
        return lambda storage, location: default_restore_location(storage, str(map_location))

    def restore_location(storage: UntypedStorage, location: str) -> Any:
        result = map_location(storage, location)
        if result is None:
            result = default_restore_location(storage, location)
        return result

    return restore_location


class _StorageLoader:
    """_load's persistent_load: each ('storage', type, key, location, numel) id becomes one
    TypedStorage (read once, restored by map_location); its tensors share it."""

    def __init__(self, zf: zipfile.ZipFile, prefix: str, map_location: Any) -> None:
        self.zf, self.prefix = zf, prefix
        self.restore_location = _get_restore_location(map_location)
        # _is_meta_location: every storage becomes a meta one, its data left unread
        self.to_meta = isinstance(map_location, (str, torch.device)) and (
            str(map_location) == "meta"
        )
        self.loaded_storages: dict[str, TypedStorage] = {}

    def __call__(self, saved_id: Any) -> TypedStorage:
        if not isinstance(saved_id, tuple):
            raise AssertionError(f"saved_id must be a tuple, got {type(saved_id).__name__}")
        typename = saved_id[0]
        if typename != "storage":
            raise AssertionError(
                f"Unknown typename for persistent_load, expected 'storage' but got '{typename}'"
            )
        storage_type, key, location, numel = saved_id[1:]
        if key in self.loaded_storages:
            return self.loaded_storages[key]
        if not isinstance(storage_type, StorageType):
            raise pickle.UnpicklingError(f"not a storage type: {storage_type!r}")
        dtype = storage_type.dtype
        nbytes = numel * elementSize(dtype.scalar_type)
        if location == "meta" or self.to_meta:  # _meta_deserialize: the bytes, no data
            meta = TypedStorage(wrap_storage=UntypedStorage(nbytes, device="meta"), dtype=dtype)
            self.loaded_storages[key] = meta
            return meta
        data = self.zf.read(f"{self.prefix}data/{key}")
        storage = UntypedStorage(nbytes)
        if nbytes:
            storage._bytes()[:nbytes] = memoryview(data)[:nbytes]
        typed = TypedStorage(wrap_storage=self.restore_location(storage, location), dtype=dtype)
        self.loaded_storages[key] = typed
        return typed


class _WeightsOnlyUnpickler(wo.Unpickler):
    def __init__(self, file: Any, loader: _StorageLoader, **kwargs: Any) -> None:
        super().__init__(file, **kwargs)
        self.loader = loader

    def persistent_load(self, pid: Any) -> Any:
        return self.loader(pid)


def _unpickler_class(pickle_module: Any) -> type:
    """_load's UnpicklerWrapper over pickle_module.Unpickler: storage names load as their
    StorageType, and torch's modules as tensortrace's (torch.nn.modules.linear ->
    tensortrace.nn.modules.linear)."""

    class UnpicklerWrapper(pickle_module.Unpickler):  # type: ignore[name-defined,misc]
        def __init__(self, file: Any, loader: _StorageLoader, **kwargs: Any) -> None:
            super().__init__(file, **kwargs)
            self.loader = loader

        def persistent_load(self, pid: Any) -> Any:
            return self.loader(pid)

        def find_class(self, mod_name: str, name: str) -> Any:
            if type(name) is str and "Storage" in name:
                try:
                    return StorageType(name)
                except KeyError:
                    pass
            mod_name = {"torch.tensor": "torch._tensor"}.get(mod_name, mod_name)
            if mod_name == "torch" or mod_name.startswith("torch."):
                mod_name = "tensortrace" + mod_name[len("torch") :]
            return super().find_class(mod_name, name)

    return UnpicklerWrapper


DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
    "weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)
UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source."
)


def _get_wo_message(message: str) -> str:
    has_unsafe_global = re.search(r"GLOBAL (\S+) was not an allowed global by default.", message)
    has_blocklist = re.search(r"whose module (\S+) is blocked", message) is not None
    has_import = re.search(r"(\S+) must be (\S+) to load", message) is not None
    if has_unsafe_global:
        updated_message = (
            "Weights only load failed. This file can still be loaded, to do so you have two "
            "options, \033[1mdo those steps only if you trust the source of the checkpoint"
            f"\033[0m. \n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with "
            "`weights_only=True` please check the recommended steps in the following error "
            "message.\n\tWeightsUnpickler error: " + message
        )
    else:
        if has_import:
            return f"Weights only load failed. {message}\n {UNSAFE_MESSAGE}\n"
        updated_message = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
        if not has_blocklist:
            updated_message += (
                "Please file an issue with the following so that we can make "
                "`weights_only=True` compatible with your use case: WeightsUnpickler error: "
            )
        updated_message += "\n\n" + message
    return updated_message + DOCS_MESSAGE


def _load(
    zf: zipfile.ZipFile, map_location: Any, unpickler_class: type, **pickle_load_args: Any
) -> Any:
    pkl = next((n for n in zf.namelist() if n.endswith("data.pkl") and n.count("/") == 1), None)
    if pkl is None:
        raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
    prefix = pkl[: -len("data.pkl")]
    loader = _StorageLoader(zf, prefix, map_location)
    unpickler = unpickler_class(io.BytesIO(zf.read(pkl)), loader, **pickle_load_args)
    return unpickler.load()


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
    """torch.load(f): weights_only defaults to True unless a pickle_module is given."""
    import zipfile

    weights_only_not_set = weights_only is None
    if weights_only_not_set:
        weights_only = pickle_module is None  # _default_to_weights_only
    true_values = ["1", "y", "yes", "true"]
    force_weights_only_load = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    force_no = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    if force_weights_only_load and force_no:
        raise RuntimeError(
            "Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
            "should be set, but both were set."
        )
    if force_weights_only_load:
        weights_only = True
    elif force_no and weights_only_not_set:
        warnings.warn(
            "Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the"
            "`weights_only` argument was not explicitly passed to `torch.load`, forcing "
            "weights_only=False.",
            UserWarning,
            stacklevel=2,
        )
        weights_only = False
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError(
                "Can not safely load weights when explicit pickle_module is specified"
            )
    elif pickle_module is None:
        pickle_module = pickle
    if pickle_load_args != {} and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    if "encoding" not in pickle_load_args:
        pickle_load_args["encoding"] = "utf-8"

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
        if weights_only:
            try:
                return _load(zf, map_location, _WeightsOnlyUnpickler, **pickle_load_args)
            except pickle.UnpicklingError as e:
                raise pickle.UnpicklingError(_get_wo_message(str(e))) from None
        return _load(zf, map_location, _unpickler_class(pickle_module), **pickle_load_args)


__all__ = [
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "load",
    "safe_globals",
    "save",
]
