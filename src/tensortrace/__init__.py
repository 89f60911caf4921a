"""tensortrace: a tensor runtime built the way PyTorch is built, that records every step.

`import tensortrace as torch` gives the torch-shaped API; `with tensortrace.record() as t:`
records the call stack (Python binding -> dispatcher -> native -> kernel -> allocator ->
refcount) of everything run inside.
"""

import gc as _gc
import importlib as _importlib
import threading as _threading
import types as _types
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any  # private: `torch.Any` is no torch name

# Note [Import without the cyclic GC]: importing the runtime makes ~145k GC-tracked objects
# (functions, code, schemas, dispatch tables) that hold no garbage cycles and live as long as
# the process: in torch they are C++ statics that the cyclic GC never sees. So the collector is
# paused while they are built (each allocation-triggered pass would walk the ones made so far
# again), and gc.freeze() then moves them, with everything alive before the import, to the
# permanent generation: without it the first young collection after the import walks them all
# (~40 ms, a fifth of the import), and every full collection later walks them again.
_gc_was_enabled = _gc.isenabled()
_gc.disable()
try:
    from tensortrace import _trace_values
    from tensortrace import autograd as _autograd  # noqa: F401 - registers autograd kernels
    from tensortrace import csrc as _csrc  # noqa: F401 - installs the bindings
finally:
    _gc.freeze()
    if _gc_was_enabled:
        _gc.enable()
from tensortrace import amp as amp  # torch.amp
from tensortrace import fft as fft  # torch.fft
from tensortrace import functional as _functional
from tensortrace import linalg as linalg  # torch.linalg
from tensortrace import random as random  # torch.random
from tensortrace import special as special  # torch.special
from tensortrace._deterministic import (
    _set_deterministic_algorithms,
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode,
    use_deterministic_algorithms,
)
from tensortrace._tensor import Tensor
from tensortrace._tensor_str import set_printoptions
from tensortrace.amp import autocast  # torch.autocast (torch/__init__.py imports it from amp)
from tensortrace.autograd.anomaly_mode import (
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)
from tensortrace.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from tensortrace.c10.cpu_allocator import profiledCPUMemoryReporter as _reporter
from tensortrace.c10.default_dtype import get_default_dtype as _get_default_dtype
from tensortrace.c10.default_dtype import set_default_dtype as _set_default_dtype
from tensortrace.c10.device import Device as device  # torch.device
from tensortrace.csrc import autocast_mode as _autocast_mode
from tensortrace.csrc import python_dispatch as _python_dispatch
from tensortrace.csrc import python_variable_autograd as _python_variable_autograd
from tensortrace.csrc import return_types as return_types  # torch.return_types
from tensortrace.csrc import storage_sharing as _storage_sharing  # noqa: F401 (methods)
from tensortrace.csrc.autocast_mode import (
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_dtype,
    is_autocast_cache_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)
from tensortrace.csrc.dtype import DTYPES as _DTYPES
from tensortrace.csrc.dtype import (
    contiguous_format,
    dtype,
    layout,
    memory_format,
    preserve_format,
    strided,
)
from tensortrace.csrc.dtype import get_dtype as _get_dtype
from tensortrace.csrc.generator import Generator, default_generator, initial_seed, manual_seed, seed
from tensortrace.csrc.module import get_num_threads, set_num_threads
from tensortrace.csrc.python_nn_functions import _nn as _nn_functions
from tensortrace.csrc.python_torch_functions import (
    VariableFunctions as _functions,
)
from tensortrace.csrc.size import Size
from tensortrace.csrc.storage import TypedStorage, UntypedStorage
from tensortrace.csrc.type_info import finfo, iinfo
from tensortrace.functional import norm  # torch/functional.py
from tensortrace.random import get_rng_state, set_rng_state
from tensortrace.trace import Trace, is_tracing, record

if _TYPE_CHECKING:  # torch.<op>: the generated bindings, copied into globals() below
    from tensortrace import cpu as cpu  # the lazily imported subpackages (below)
    from tensortrace import cuda as cuda
    from tensortrace import distributions as distributions
    from tensortrace import multiprocessing as multiprocessing
    from tensortrace import nn as nn
    from tensortrace import optim as optim
    from tensortrace import serialization as serialization
    from tensortrace import testing as testing
    from tensortrace import utils as utils
    from tensortrace.csrc.generated.python_torch_functions_0 import *  # noqa: F403
    from tensortrace.csrc.python_torch_functions_manual import as_tensor as as_tensor
    from tensortrace.csrc.python_torch_functions_manual import tensor as tensor
    from tensortrace.functional import unique as unique
    from tensortrace.serialization import load as load
    from tensortrace.serialization import save as save


_python_variable_autograd.install()
_has_compatible_shallow_copy_type = _python_variable_autograd._has_compatible_shallow_copy_type
_trace_values.install()  # the recorder reads tensor values (Note [Values beside the events])
autograd = _autograd  # torch.autograd
legacy_contiguous_format = contiguous_format  # torch/__init__.py: the same object

# torch._C: only what torch.nn.functional reaches for (torch._C._nn, python_nn_functions.cpp),
# what torch.amp does (_is_autocast_available, torch/csrc/autograd/init.cpp), and the
# dispatcher's bindings torch.ops and torch.library use (python_dispatch.cpp)
_C = _types.SimpleNamespace(
    _nn=_nn_functions,
    _is_autocast_available=_autocast_mode._is_autocast_available,
    _set_deterministic_algorithms=_set_deterministic_algorithms,
    **_python_dispatch.C_BINDINGS,
)

__version__ = "0.1.0"

globals().update(_DTYPES)
# torch/__init__.py leaves unique_dim out of the torch namespace (PRIVATE_OPS); torch has
# unique_dim_consecutive only in torch._VF, and linalg_cross only as torch.linalg.cross
_functions = {
    _n: _f
    for _n, _f in _functions.items()
    if _n not in ("unique_dim", "unique_dim_consecutive", "linalg_cross")
}
globals().update(_functions)
# torch/functional.py's Python wrappers take the place of the raw bindings of the same name
globals().update({_n: getattr(_functional, _n) for _n in _functional.__all__})


def _hint_the_recorder_moved(op_trace: _Any) -> _Any:
    """torch.trace is PyTorch's op; code that calls it as the recorder gets told where it went.

    Only a call with no positional argument (`with torch.trace() as t:`, the recorder's old
    shape) can be that; its TypeError keeps torch's message and type, plus one line of hint.
    """

    def trace(*args: _Any, **kwargs: _Any) -> _Any:
        try:
            return op_trace(*args, **kwargs)
        except TypeError as exc:
            if args:
                raise
            raise TypeError(
                f"{exc}\n(tensortrace's recorder is now `tensortrace.record()`; "
                "torch.trace(input) is the sum of a matrix's diagonal)"
            ) from None

    trace.__doc__ = op_trace.__doc__
    trace.__wrapped__ = op_trace  # type: ignore[attr-defined]
    return trace


trace = _hint_the_recorder_moved(_functions["trace"])


def get_default_dtype() -> dtype:
    return _get_dtype(_get_default_dtype())


def set_default_dtype(d: dtype) -> None:
    # py_set_default_dtype (torch/csrc/utils/tensor_types.cpp) checks THPDtype_Check first
    if not isinstance(d, dtype):
        raise TypeError(
            "invalid dtype object: only floating-point types are supported as the default type"
        )
    _set_default_dtype(d.scalar_type)


# torch/__init__.py: the DeviceContext set_default_device entered, per thread
_GLOBAL_DEVICE_CONTEXT = _threading.local()


def get_default_device() -> device:
    r"""Gets the default ``torch.Tensor`` to be allocated on ``device``"""
    from tensortrace.aten.python_torch_function_tls import get_stack_at, stack_len
    from tensortrace.utils._device import DeviceContext

    def _get_device_with_index(d: device) -> device:
        if d.index is not None:
            return d
        # the current device of that type (torch's TODO: a get_device_index() per type)
        result: device = tensor([]).device
        return result

    # a DeviceContext on the mode stack, the top one first (`with torch.device(...)`)
    modes = (get_stack_at(i) for i in reversed(range(stack_len())))
    device_mode = next((m for m in modes if isinstance(m, DeviceContext)), None)
    if device_mode:
        return _get_device_with_index(device_mode.device)

    device_context = getattr(_GLOBAL_DEVICE_CONTEXT, "device_context", None)
    if device_context is not None:
        return _get_device_with_index(device_context.device)
    return device("cpu")


def set_default_device(device: _Any) -> None:
    """Sets the default ``torch.Tensor`` to be allocated on ``device``: factory calls without an
    explicit ``device`` argument run as if they were passed it (torch/__init__.py; Note [The
    default device at the binding layer]). ``None`` goes back to the CPU; to change it only
    for a while, use ``with torch.device(device):``."""
    if hasattr(_GLOBAL_DEVICE_CONTEXT, "device_context"):
        device_context = _GLOBAL_DEVICE_CONTEXT.device_context
        if device_context is not None:
            device_context.__exit__(None, None, None)

    if device is None:
        device_context = None
    else:
        from tensortrace.utils._device import DeviceContext

        device_context = DeviceContext(device)
        device_context.__enter__()
    _GLOBAL_DEVICE_CONTEXT.device_context = device_context


def split(tensor: Tensor, split_size_or_sections: _Any, dim: int = 0) -> _Any:  # type: ignore[no-redef]
    """torch.split (torch/functional.py): Tensor.split, which takes an int or a list of sizes."""
    return tensor.split(split_size_or_sections, dim)


def typename(obj: _Any) -> str:
    """torch.typename: 'torch.FloatTensor' for a tensor, else the object's qualified name."""
    if isinstance(obj, Tensor):
        return f"torch.{obj.cdata.scalar_type()}Tensor"
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def is_tensor(obj: _Any) -> bool:
    return isinstance(obj, Tensor)


def _check_cpu(dev: _Any) -> None:
    d = device(dev) if not isinstance(dev, device) else dev
    if not d.is_cpu():
        raise RuntimeError(f"tensortrace has only a CPU allocator, got device '{d}'")


def memory_allocated(device: _Any = "cpu") -> int:
    """Bytes currently allocated by the CPU allocator (like torch.cuda.memory_allocated)."""
    _check_cpu(device)
    return _reporter().allocated


def memory_stats(device: _Any = "cpu") -> dict[str, int]:
    """Allocator statistics with torch.cuda.memory_stats()'s key names."""
    _check_cpu(device)
    return _reporter().stats.as_dict()


def reset_peak_memory_stats(device: _Any = "cpu") -> None:
    _check_cpu(device)
    _reporter().stats.reset_peak()


__all__ = [
    "Generator",
    "Size",
    "Tensor",
    "Trace",
    "TypedStorage",
    "UntypedStorage",
    "split",
    "contiguous_format",
    "legacy_contiguous_format",
    "cuda",
    "default_generator",
    "device",
    "dtype",
    "get_default_device",
    "get_default_dtype",
    "get_num_threads",
    "get_rng_state",
    "random",
    "set_rng_state",
    "initial_seed",
    "is_tensor",
    "is_tracing",
    "typename",
    "layout",
    "manual_seed",
    "memory_allocated",
    "memory_format",
    "memory_stats",
    "preserve_format",
    "reset_peak_memory_stats",
    "seed",
    "set_default_device",
    "set_default_dtype",
    "set_num_threads",
    "strided",
    "record",
    "set_printoptions",
    "linalg",
    "fft",
    "special",
    "norm",
    "finfo",
    "iinfo",
    "load",
    "save",
    "autograd",
    "enable_grad",
    "inference_mode",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_anomaly_enabled",
    "set_grad_enabled",
    "amp",
    "are_deterministic_algorithms_enabled",
    "get_deterministic_debug_mode",
    "is_deterministic_algorithms_warn_only_enabled",
    "set_deterministic_debug_mode",
    "use_deterministic_algorithms",
    "autocast",
    "autocast_decrement_nesting",
    "autocast_increment_nesting",
    "clear_autocast_cache",
    "get_autocast_dtype",
    "is_autocast_cache_enabled",
    "is_autocast_enabled",
    "set_autocast_cache_enabled",
    "set_autocast_dtype",
    "set_autocast_enabled",
    *_DTYPES,
    *_functions,
    *_functional.__all__,
]

# Note [Subpackages imported on first use]
# torch.cuda, torch.distributions, torch.func, torch.nn and torch.optim are built on the public
# API above and nothing above needs them, so `import tensortrace` leaves them out (a third of
# its time):
# the first `tensortrace.nn` (or `from tensortrace import nn`, `import tensortrace.nn`) imports
# the subpackage, which then is a plain attribute. PEP 562's module __getattr__, as
# torch/__init__.py does for its own lazily imported submodules (_dynamo, onnx, ...).
_LAZY_SUBMODULES = frozenset(
    {
        "accelerator",
        "backends",
        "cpu",
        "cuda",
        "distributions",
        "func",
        "library",
        "multiprocessing",
        "nn",
        "optim",
        "profiler",
        "serialization",
        "testing",
        "utils",
    }
)


def __getattr__(name: str) -> _Any:
    if name == "ops":  # torch.ops: the _Ops object of torch/_ops.py, made on first use
        from tensortrace._ops import ops

        globals()["ops"] = ops
        return ops
    if name in _LAZY_SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    if name == "vmap":  # torch.vmap is torch.func.vmap, loaded with torch.func
        return _importlib.import_module(f"{__name__}.func").vmap
    if name in ("load", "save"):  # torch.load, torch.save: serialization.py on first use
        value = getattr(_importlib.import_module(f"{__name__}.serialization"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY_SUBMODULES, "ops", "load", "save"})


# Note [The factories import needs, apart] (trace/parameter_lists.py): the parameter lists
# import gave a wrapper, noted now that it is done (torch.library kernels get theirs later)
from tensortrace.trace import parameter_lists as _parameter_lists

_parameter_lists.note_the_lists_import_wrapped()
del _parameter_lists
