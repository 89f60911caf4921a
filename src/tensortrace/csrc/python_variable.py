"""THPVariable: the Python tensor object, holding one at::Tensor (its `cdata`).

Mirrors `torch/csrc/autograd/python_variable.cpp`: THPVariable_Wrap (a returned at::Tensor
becomes a Python object, or the existing one comes back: PyObject preservation),
THPVariable_dealloc (the Python object dies, so its at::Tensor releases its TensorImpl), the
properties (shape, dtype, device, _base, _version, requires_grad ...) and HANDLE_TH_ERRORS.

Note [Handles and their death]
Each Python tensor is a *handle*: when CPython frees it, THPVariable_dealloc runs and drops the
handle's reference to its TensorImpl. That may free nothing (a view still holds the TensorImpl
or its storage) or cascade down to free_cpu. The trace records each handle's birth
(`handle_new`) and death (`handle_del`), which is what the equivalent-code view is built from.
"""

from __future__ import annotations

import _thread
import itertools
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from tensortrace.aten.tensor_body import Tensor as AtTensor
from tensortrace.autograd.variable import get_autograd_meta
from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.csrc.dtype import dtype, get_dtype, strided
from tensortrace.csrc.size import Size
from tensortrace.trace import recorder, schema, traced
from tensortrace.trace.schema import HANDLE_DEL, HANDLE_NEW

SOURCE = "torch/csrc/autograd/python_variable.cpp"
F = TypeVar("F", bound=Callable[..., Any])

_handle_ids = itertools.count(1)

# The Python class THPVariable_Wrap instantiates: torch.Tensor, registered by _tensor.py.
THPVariableClass: type[TensorBase] | None = None


def check_noargs(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """A METH_NOARGS method of TensorBase given arguments: CPython's own TypeErrors."""
    if kwargs:
        raise TypeError(f"TensorBase.{name}() takes no keyword arguments")
    if args:
        raise TypeError(f"TensorBase.{name}() takes no arguments ({len(args)} given)")


def handle_th_errors(fn: F) -> F:
    """HANDLE_TH_ERRORS: an error leaves the C++ side fully unwound.

    C++ destructors run as an exception propagates, so every tensor a failing op made is freed
    by the time Python sees the error. Here the failed frames' locals are cleared and the
    traceback is cut at the binding, so nothing the op allocated outlives the exception.
    """

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            # this frame stays in the traceback: it must not keep the arguments alive either
            del args, kwargs
            raise end_handle_th_errors(exc) from exc.__cause__

    recorder.update_wrapper(wrapper, fn)
    wrapper.__handles_th_errors__ = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def end_handle_th_errors(exc: Exception) -> Exception:
    """END_HANDLE_TH_ERRORS: the failed frames' locals cleared, and the error to raise with its
    traceback cut at the binding."""
    tb = exc.__traceback__
    if tb is not None:
        import traceback  # here, on the error path: nothing at import needs the module

        traceback.clear_frames(tb)
    del tb
    return exc.with_traceback(None)


class _DtypeTexts(dict[Any, str]):
    """ScalarType -> its dtype's repr ('torch.float32'), made when first asked for (a dtype's
    repr is three calls): what a handle's trace summary and HANDLE_NEW record."""

    def __missing__(self, scalar_type: Any) -> str:
        text = self[scalar_type] = repr(get_dtype(scalar_type))
        return text


_DTYPE_TEXTS = _DtypeTexts()
_SUMMARY, _HANDLE = schema.SUMMARY, schema.HANDLE  # a handle's summary keys, read as globals


@traced("python", "THPVariable_dealloc", SOURCE, legacy="THPVariable_dealloc")
def THPVariable_dealloc(self: TensorBase) -> None:
    """The handle is gone: drop its at::Tensor, which decrefs the TensorImpl (maybe to zero).

    This is TensorBase.__del__: Python prints and drops whatever it raises.
    """
    try:
        cdata = getattr(self, "cdata", None)
        if cdata is None:
            return
        if recorder.current is not None:
            impl = cdata.impl_.target_  # cdata.defined() and its TensorImpl: read directly
            if impl is not None:
                handle = self._handle
                recorder.current.instant(
                    HANDLE_DEL, "python", f"_h{handle}", {"handle": handle, "impl": impl.trace_name}
                )
        del self.cdata
        del cdata  # the last Python reference: intrusive_ptr::reset_ runs here
    except KeyboardInterrupt:
        # re-deliver Ctrl-C to the main thread so that it still stops the program
        _thread.interrupt_main()
    except Exception:  # pragma: no cover - only during interpreter teardown
        pass


class TensorBase:
    """torch._C.TensorBase: the handle Python code holds. `cdata` is its at::Tensor."""

    __slots__ = ("cdata", "_handle", "__weakref__")

    cdata: AtTensor
    _handle: int  # the trace's handle number (_h1, _h2 ...), set by THPVariable_Wrap

    if TYPE_CHECKING:
        # installed on the class with the other methods (csrc/python_variable_methods.py) when
        # the bindings are generated; the binding layer itself calls these
        def dim(self) -> int: ...
        def is_floating_point(self) -> bool: ...
        def item(self) -> Any: ...
        # every other method: the generated bindings (csrc/generated/python_variable_methods.py,
        # `(*args, **kwargs) -> Any`) and the hand-written ones, set on the class at import
        def __getattr__(self, name: str) -> Any: ...

    # CPython's tp_dealloc of a handle: THPVariable_dealloc itself, with no method around it
    __del__ = THPVariable_dealloc

    # ---- identity and trace ----------------------------------------------------------------
    def _trace_summary(self) -> dict[str, Any]:
        cdata = getattr(self, "cdata", None)
        impl = cdata.impl_.target_ if cdata is not None else None  # hot: read directly
        if impl is None:
            return schema.summary(schema.TENSOR, impl=None)
        # schema.summary(HANDLE, ...) written out: one call per handle, not two (the trace
        # summarizes ~16 per seed)
        return {
            _SUMMARY: _HANDLE,
            "handle": self._handle,
            "impl": impl.trace_name,
            "sizes": [*impl.sizes_],  # a list display: no call to list()
            "dtype": _DTYPE_TEXTS[impl.data_type_.scalar_type],
        }

    # ---- properties (THPVariable_properties) -------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self.cdata.sizes())

    @property
    def dtype(self) -> dtype:
        return get_dtype(self.cdata.scalar_type())

    @property
    def device(self) -> Device:
        return self.cdata.device()

    @property
    def layout(self) -> Any:
        return strided

    @property
    def ndim(self) -> int:
        return self.cdata.dim()

    @property
    def is_cpu(self) -> bool:
        return self.cdata.is_cpu()

    @property
    def is_cuda(self) -> bool:
        return self.cdata.device().is_cuda()

    def record_stream(self, stream: Any) -> None:
        """Tensor.record_stream (record_stream_cuda): see torch.cuda._record_stream."""
        TORCH_CHECK_NOT_IMPLEMENTED(
            self.cdata.device().is_cuda(),
            "Could not run 'aten::record_stream' with arguments from the '",
            self.cdata.device().type_.name,
            "' backend.",
        )
        # tensortrace.cuda loads lazily: `import tensortrace` does not import it
        from tensortrace.cuda import _record_stream

        _record_stream(self, stream)

    def get_device(self) -> int:
        """The CUDA device index, or -1 for a CPU (or meta) tensor."""
        device = self.cdata.device()
        if not device.is_cuda():
            return -1
        return device.index if device.index is not None else 0

    @property
    def itemsize(self) -> int:
        """THPVariable_get_itemsize: the element size in bytes."""
        return self.cdata.element_size()

    @property
    def nbytes(self) -> int:
        """THPVariable_get_nbytes: numel() * element_size(), the view's bytes, not the storage's."""
        return self.cdata.numel() * self.cdata.element_size()

    @property
    def is_meta(self) -> bool:
        """THPVariable_is_meta: on the meta device (sizes, strides, dtype and no data)."""
        return self.cdata.is_meta()

    @property
    def requires_grad(self) -> bool:
        return self.cdata.requires_grad()

    @property
    def is_leaf(self) -> bool:
        meta = get_autograd_meta(self.cdata)
        return meta is None or meta.grad_fn_ is None

    @property
    def grad(self) -> Any:
        meta = get_autograd_meta(self.cdata)
        return None if meta is None or meta.grad_ is None else THPVariable_Wrap(meta.grad_.copy())

    @grad.setter
    def grad(self, value: Any) -> None:
        # python_variable_autograd.install() replaces both with THPVariable_get/set_grad's port
        # import cycle: python_variable_autograd imports this module
        from tensortrace.csrc.python_variable_autograd import _set_grad

        _set_grad(self, value)

    @property
    def grad_fn(self) -> Any:
        return None

    @property
    def _base(self) -> TensorBase | None:
        meta = get_autograd_meta(self.cdata)
        if meta is None or not meta.is_view_:
            return None
        return THPVariable_Wrap(meta.base_.copy())

    @property
    def _version(self) -> int:
        return self.cdata.unsafeGetTensorImpl().version_counter().current_version()

    def _is_view(self) -> bool:
        meta = get_autograd_meta(self.cdata)
        return meta is not None and meta.is_view_


@traced("python", "THPVariable_Wrap", SOURCE, legacy="wrap")
def THPVariable_Wrap(var: AtTensor) -> TensorBase:
    """Hand an at::Tensor to Python: its existing Python object, or a new handle owning it."""
    impl = var.impl_.target_  # defined() and unsafeGetTensorImpl() in one direct read
    if impl is None:
        return None  # type: ignore[return-value]
    ref = impl.pyobj_
    if ref is not None:
        existing = ref()
        if existing is not None:
            return existing  # PyObject preservation: one TensorImpl, one Python object
    assert THPVariableClass is not None, "tensortrace._tensor has not registered torch.Tensor"
    obj = THPVariableClass.__new__(THPVariableClass)
    if recorder.current is not None:
        return THPVariable_NewWithVar(obj, var)
    # THPVariable_NewWithVar(obj, var) with no trace to tell, written out: every op's result
    obj.cdata = var
    obj._handle = next(_handle_ids)
    impl.pyobj_ = weakref.ref(obj)
    return obj


def THPVariable_NewWithVar(obj: TensorBase, var: AtTensor) -> TensorBase:
    """Make `obj` the Python handle of `var` (also used by torch.Tensor(...), which has `obj`)."""
    impl = var.impl_.target_  # Note [Direct reads on hot paths]
    if impl is None:
        impl = var.unsafeGetTensorImpl()  # raises as it always did
    obj.cdata = var  # the handle takes over this at::Tensor's reference (a move)
    obj._handle = next(_handle_ids)
    impl.pyobj_ = weakref.ref(obj)
    if recorder.current is not None:
        # the fields read directly, the dtype's text from its table, list displays: every
        # handle made while recording
        handle = obj._handle
        storage = impl.storage_
        recorder.current.instant(
            HANDLE_NEW,
            "python",
            f"_h{handle}",
            {
                "handle": handle,
                "impl": impl.trace_name,
                # a null storage raises as unsafeGetStorageImpl() does
                "storage": (
                    storage.storage_impl_.target_ or storage.unsafeGetStorageImpl()
                ).trace_name,
                "sizes": [*impl.sizes_],
                "strides": [*impl.strides_],
                "offset": impl.storage_offset_,
                "dtype": _DTYPE_TEXTS[impl.data_type_.scalar_type],
            },
        )
    return obj


wrap = THPVariable_Wrap


def THPVariable_Unpack(obj: TensorBase) -> AtTensor:
    return obj.cdata
