"""The pickler torch.save runs: tensors, Parameters, Modules, dtypes under torch's names.

Mirrors the pickling half of `torch/serialization.py` (`_save`'s persistent_id, location_tag)
with `Tensor.__reduce_ex__` (torch/_tensor.py), `Parameter.__reduce_ex__` (torch/nn/parameter.py)
and `torch.utils.hooks.warn_if_has_hooks`. See serialization.py for the file and the names.
"""

from __future__ import annotations

import io
import pickle
import sys
import warnings
from collections import OrderedDict
from types import FunctionType
from typing import Any

import tensortrace as torch
from tensortrace import _utils
from tensortrace._tensor import Tensor
from tensortrace.c10.device import DeviceType
from tensortrace.c10.scalar_type import ScalarType, elementSize
from tensortrace.csrc.dtype import get_dtype
from tensortrace.csrc.size import Size

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
_STORAGE_SCALAR_TYPES = {name: st for st, name in STORAGE_TYPES.items()}


def torch_name(module: str) -> str:
    """The torch module a tensortrace module mirrors: tensortrace.nn.modules -> torch.nn.modules."""
    if module == "tensortrace" or module.startswith("tensortrace."):
        return "torch" + module[len("tensortrace") :]
    return module


class StorageType:
    """What a file's `torch.FloatStorage` loads as: just its dtype (torch.serialization)."""

    def __init__(self, name: str) -> None:
        self._dtype = get_dtype(_STORAGE_SCALAR_TYPES[name])  # KeyError: not a storage name

    @property
    def dtype(self) -> Any:
        return self._dtype

    def __str__(self) -> str:
        return f"StorageType(dtype={self.dtype})"


class _Global:
    """A torch global that tensortrace has no object for (torch.FloatStorage, torch.float32):
    pickled as a GLOBAL opcode naming it."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __repr__(self) -> str:
        return f"{self.module}.{self.name}"

    def __call__(self, *args: Any) -> Any:  # pickle wants a callable in a reduce tuple
        raise TypeError(f"{self!r} is a name in a file, not a function")


_STORAGE_GLOBALS = {st: _Global("torch", name) for st, name in STORAGE_TYPES.items()}
_SIZE, _DEVICE = _Global("torch", "Size"), _Global("torch", "device")

# nn.Module.__init__ in torch sets these too, in this order; tensortrace's Module has the forward
# and state_dict hook dicts (module_hooks.py) but not the backward ones, which real torch's
# Module.__call__ reads (its __setstate__ adds only some back), so a pickled Module carries them
# empty, as torch's would.
_TORCH_MODULE_STATE: tuple[tuple[str, Any], ...] = (
    ("training", None),
    ("_parameters", None),
    ("_buffers", None),
    ("_non_persistent_buffers_set", None),
    *((name, OrderedDict) for name in ("_backward_pre_hooks", "_backward_hooks")),
    ("_is_full_backward_hook", lambda: None),
    *(
        (name, OrderedDict)
        for name in (
            "_forward_hooks",
            "_forward_hooks_with_kwargs",
            "_forward_hooks_always_called",
            "_forward_pre_hooks",
            "_forward_pre_hooks_with_kwargs",
            "_state_dict_hooks",
            "_state_dict_pre_hooks",
            "_load_state_dict_pre_hooks",
            "_load_state_dict_post_hooks",
        )
    ),
)


def _module_state(state: dict[str, Any]) -> dict[str, Any]:
    """A Module's __dict__ in the key order torch's Module would have, hook dicts included."""
    out: dict[str, Any] = {}
    for name, default in _TORCH_MODULE_STATE:
        if name in state:
            out[name] = state[name]
        elif default is not None:
            out[name] = default()
    out.update((k, v) for k, v in state.items() if k not in out)
    return out


class _StorageRef:
    """A tensor's storage as data.pkl refers to it: persistent_id gives its record key."""

    def __init__(self, impl: Any, scalar_type: ScalarType) -> None:
        self.impl, self.scalar_type = impl, scalar_type


def _tensor_hooks(tensor: Tensor) -> list[Any]:
    """The hooks register_hook put on `tensor` (torch's tensor._backward_hooks)."""
    from tensortrace.autograd.variable import get_autograd_meta

    meta = get_autograd_meta(tensor.cdata)
    if meta is None:
        return []
    if meta.grad_fn_ is None:
        return [hook for _, hook in meta.hooks_.values()]
    pre_hooks = meta.grad_fn_.tensor_pre_hooks_.values()
    return [fn for nr, fn in pre_hooks if nr == meta.output_nr_]


def _warn_if_has_hooks(tensor: Tensor) -> None:
    """torch.utils.hooks.warn_if_has_hooks: hooks are never saved (Note [Don't serialize hooks])."""
    for hook in _tensor_hooks(tensor):
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(
                f"backward hook {hook!r} on tensor will not be serialized.  If this is "
                "expected, you can decorate the function with "
                "@torch.utils.hooks.unserializable_hook to suppress this warning",
                stacklevel=2,
            )


class _TensorPickler(pickle._Pickler):  # the Python pickler: its save_global can be extended
    def __init__(self, file: io.BytesIO, protocol: int) -> None:
        super().__init__(file, protocol=protocol)
        self.protocol = protocol
        self.storages: dict[int, tuple[str, Any, ScalarType]] = {}

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            param_module = sys.modules.get("tensortrace.nn.parameter")
            if param_module is not None and isinstance(obj, param_module.Parameter):
                # Parameter.__reduce_ex__: state is the instance's own attributes (torch's
                # _get_obj_state; object.__getstate__ would add TensorBase's slots here)
                state = obj.__dict__
                hooks: OrderedDict[Any, Any] = OrderedDict()  # Note [Don't serialize hooks]
                if not state:
                    return (_utils._rebuild_parameter, (obj.data, obj.requires_grad, hooks))
                return (
                    _utils._rebuild_parameter_with_state,
                    (obj.data, obj.requires_grad, hooks, state),
                )
            return self._reduce_tensor(obj)
        if isinstance(obj, torch.dtype):
            return obj.name  # a string: save_global writes GLOBAL torch.<name>
        if isinstance(obj, Size):
            return (_SIZE, (tuple(obj),))
        if isinstance(obj, torch.device):
            return (_DEVICE, (obj.type,) if obj.index is None else (obj.type, obj.index))
        nn_module = sys.modules.get("tensortrace.nn.modules.module")
        if nn_module is not None and isinstance(obj, nn_module.Module):
            rv = obj.__reduce_ex__(self.protocol)  # copyreg: (__newobj__, (cls,), __dict__, ...)
            if isinstance(rv, tuple) and len(rv) >= 3 and isinstance(rv[2], dict):
                return (rv[0], rv[1], _module_state(rv[2]), *rv[3:])
            return rv
        return NotImplemented

    def _reduce_tensor(self, obj: Tensor) -> Any:
        """Tensor._reduce_ex_internal for a strided tensor: _rebuild_tensor_v2 of its storage."""
        _warn_if_has_hooks(obj)
        cdata = obj.cdata
        impl = cdata.unsafeGetTensorImpl()
        ref = _StorageRef(impl.storage_.unsafeGetStorageImpl(), impl.scalar_type())
        args: tuple[Any, ...] = (
            ref,
            cdata.storage_offset(),
            tuple(cdata.sizes()),
            tuple(cdata.strides()),
            bool(obj.requires_grad),
            OrderedDict(),  # backward_hooks: Note [Don't serialize hooks]
        )
        # torch._utils.get_tensor_metadata: the math bits, appended only when set
        metadata = _utils.get_tensor_metadata(obj)
        return (_utils._rebuild_tensor_v2, (*args, metadata) if metadata else args)

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
        # location_tag: 'cpu', 'meta' (_meta_tag), or 'cuda:<index>' (_backend_tag); the
        # constant strings, so the pickle memoizes them as torch's does (BINGET)
        device = impl.device()
        if device.is_cpu() or device.type_ is DeviceType.Meta:
            location = "cpu" if device.is_cpu() else "meta"
        else:
            location = f"{device.type}:{device.index or 0}"
        return ("storage", _STORAGE_GLOBALS[scalar_type], key, location, numel)

    def save_global(self, obj: Any, name: str | None = None) -> None:
        if isinstance(obj, (_Global, torch.dtype)):
            self._write_global(obj, getattr(obj, "module", "torch"), obj.name)
            return
        module = getattr(obj, "__module__", None)
        qualname: Any = name or getattr(obj, "__qualname__", None)
        if (
            isinstance(module, str)
            and isinstance(qualname, str)
            and "." not in qualname
            and torch_name(module) != module
        ):
            target = getattr(sys.modules.get(module), qualname, None)
            if target is not obj:  # pickle's own check, which also names the module
                raise pickle.PicklingError(
                    f"Can't pickle {obj!r}: it's not the same object as {module}.{qualname}"
                )
            self._write_global(obj, torch_name(module), qualname)
            return
        super().save_global(obj, name)  # type: ignore[misc]

    def _write_global(self, obj: Any, module: str, name: str) -> None:
        # typeshed leaves out the pure-Python pickler's internals (write, memoize)
        self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode())  # type: ignore[attr-defined]
        self.memoize(obj)  # type: ignore[attr-defined]

    dispatch = dict(pickle._Pickler.dispatch)
    dispatch[_Global] = save_global  # type: ignore[assignment]
    # pickle's table holds its own save_global for functions (classes go through save_type,
    # which calls self.save_global): functions too must get the torch names
    dispatch[FunctionType] = save_global  # type: ignore[assignment]


def TORCH_CHECK_SAVE(cond: bool) -> None:
    if not cond:
        # torch/serialization.py's persistent_id check, with its words
        raise RuntimeError(
            "Cannot save multiple tensors or storages that view the same data as different types"
        )
