"""The autograd part of the Python tensor: requires_grad, grad, grad_fn, is_leaf, retain_grad,
register_hook, backward, requires_grad_, and the C++ side of torch.autograd.backward / grad.

Mirrors the autograd properties of `torch/csrc/autograd/python_variable.cpp`
(THPVariable_get_grad / set_grad, get_grad_fn, set_requires_grad, retain_grad), the hook
registration of `torch/_tensor.py` (Tensor.register_hook, Tensor.backward) and
`torch/csrc/autograd/python_engine.cpp` (THPEngine_run_backward: roots, output edges, the call
into Engine::execute).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

from tensortrace.aten.native.identity_ops import detach as shallow_copy_and_detach
from tensortrace.aten.tensor_body import Tensor as AtTensor
from tensortrace.autograd import api
from tensortrace.autograd.accumulate_grad import try_get_grad_accumulator
from tensortrace.autograd.engine import Identity, get_default_engine
from tensortrace.autograd.function import Edge, RemovableHandle, grad_fn, gradient_edge
from tensortrace.autograd.grad_mode import is_inference_mode_enabled
from tensortrace.autograd.saved_variable import is_inference_tensor
from tensortrace.autograd.variable import get_autograd_meta, materialize_autograd_meta
from tensortrace.c10.device import DeviceType
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import isComplexType, isFloatingType
from tensortrace.csrc.dtype import get_dtype
from tensortrace.csrc.python_variable import (
    TensorBase,
    THPVariable_NewWithVar,
    THPVariable_Wrap,
    handle_th_errors,
)


# ---- properties ----------------------------------------------------------------------------------
def _get_requires_grad(self: TensorBase) -> bool:
    return self.cdata.requires_grad()


@handle_th_errors
def _set_requires_grad(self: TensorBase, value: Any) -> None:
    """THPVariable_set_requires_grad."""
    TORCH_CHECK(isinstance(value, bool), "requires_grad must be a bool")
    var = self.cdata
    meta = get_autograd_meta(var)
    if meta is not None and meta.grad_fn_ is not None:
        raise RuntimeError(_requires_grad_leaf_error(value))
    if value:
        TORCH_CHECK(
            isFloatingType(var.scalar_type()) or isComplexType(var.scalar_type()),
            "only Tensors of floating point dtype can require gradients",
        )
        TORCH_CHECK(
            not is_inference_tensor(var) or is_inference_mode_enabled(),
            "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.",
        )
    if not value and meta is None:
        return
    materialize_autograd_meta(var).requires_grad_ = value


def _requires_grad_leaf_error(requires_grad: bool) -> str:
    """autograd::utils::requires_grad_leaf_error."""
    message = "you can only change requires_grad flags of leaf variables."
    if not requires_grad:
        message += (
            " If you want to use a computed variable in a subgraph that doesn't require "
            "differentiation use var_no_grad = var.detach()."
        )
    return message


def _get_grad(self: TensorBase) -> Any:
    meta = get_autograd_meta(self.cdata)
    if meta is None or meta.grad_ is None or not meta.grad_.defined():
        return None
    return THPVariable_Wrap(meta.grad_.copy())


@handle_th_errors
def _set_grad(self: TensorBase, value: Any) -> None:
    """THPVariable_set_grad: same size and dtype as the tensor, or None."""
    var = self.cdata
    if value is None:
        meta = get_autograd_meta(var)
        if meta is not None:
            meta.grad_ = None
        return
    TORCH_CHECK(
        isinstance(value, TensorBase),
        "assigned grad expected to be a Tensor or None but got grad of type ",
        type(value).__name__,
    )
    grad = value.cdata
    TORCH_CHECK(
        grad.sizes() == var.sizes(),
        "attempting to assign a gradient of size '",
        list(grad.sizes()),
        "' to a tensor of size '",
        list(var.sizes()),
        "'. Please ensure that the gradient and the tensor are the same size",
    )
    if grad.scalar_type() != var.scalar_type():
        given = _cpp_dtype(get_dtype(grad.scalar_type()))
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{given}' "
            f"to a tensor with grad_dtype '{var.scalar_type().name}'. The gradient must match "
            "the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
            "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set "
            "grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may "
            "break downstream systems that assume they match."
        )
    materialize_autograd_meta(var).grad_ = grad.copy()


def _cpp_dtype(d: Any) -> str:
    """caffe2::TypeMeta's name: 'float', 'double', 'long int' ..."""
    names = {
        "float32": "float",
        "float64": "double",
        "float16": "c10::Half",
        "bfloat16": "c10::BFloat16",
        "int64": "long int",
        "int32": "int",
        "int16": "short int",
        "int8": "signed char",
        "uint8": "unsigned char",
        "bool": "bool",
    }
    name = str(d).removeprefix("torch.")
    return names.get(name, name)


def _get_grad_fn(self: TensorBase) -> Any:
    meta = get_autograd_meta(self.cdata)
    fn = None if meta is None else grad_fn(self.cdata, meta)
    return None if fn is None else fn.py_object()  # functionToPyObject


def _get_is_leaf(self: TensorBase) -> bool:
    meta = get_autograd_meta(self.cdata)
    return meta is None or meta.grad_fn_ is None


def _get_retains_grad(self: TensorBase) -> bool:
    meta = get_autograd_meta(self.cdata)
    return bool(meta is not None and meta.retains_grad_)


def _get_output_nr(self: TensorBase) -> int:
    meta = get_autograd_meta(self.cdata)
    return 0 if meta is None else meta.output_nr_


@handle_th_errors
def _get_version(self: TensorBase) -> int:
    TORCH_CHECK(
        not is_inference_tensor(self.cdata), "Inference tensors do not track version counter."
    )
    return self.cdata.unsafeGetTensorImpl().version_counter().current_version()


def is_inference(self: TensorBase) -> bool:
    return is_inference_tensor(self.cdata)


# ---- methods -------------------------------------------------------------------------------------
@handle_th_errors
def requires_grad_(self: TensorBase, requires_grad: bool = True) -> TensorBase:
    """Tensor.requires_grad_ (THPVariable_requires_grad_)."""
    var = self.cdata
    meta = get_autograd_meta(var)
    if meta is not None and meta.grad_fn_ is not None:
        if not requires_grad:
            raise RuntimeError(_requires_grad_leaf_error(False))
        return self  # a non-leaf already requires grad
    _set_requires_grad(self, bool(requires_grad))
    return self


@handle_th_errors
def retain_grad(self: TensorBase) -> None:
    """VariableHooks::retain_grad: a non-leaf keeps its gradient in .grad."""
    var = self.cdata
    TORCH_CHECK(var.requires_grad(), "can't retain_grad on Tensor that has requires_grad=False")
    meta = materialize_autograd_meta(var)
    if meta.grad_fn_ is None or meta.retains_grad_:
        return  # a leaf keeps its gradient anyway
    fn = meta.grad_fn_
    # the hook holds the tensor weakly, as torch's does: its grad_fn holds the hook
    impl_ref = weakref.ref(var.unsafeGetTensorImpl())

    def retain_grad_hook(grad: AtTensor) -> None:
        impl = impl_ref()
        owner = impl.autograd_meta_ if impl is not None else None
        if owner is None:
            return
        if owner.grad_ is None or not owner.grad_.defined():
            owner.grad_ = grad.clone(memory_format="contiguous_format")
        else:
            owner.grad_ = owner.grad_.add(grad)

    fn.retains_grad_hooks_[meta.output_nr_] = retain_grad_hook
    meta.retains_grad_ = True


@handle_th_errors
def register_hook(self: TensorBase, hook: Callable[..., Any]) -> RemovableHandle:
    """Tensor.register_hook: hook(grad) runs when the gradient for this tensor is computed."""
    var = self.cdata
    TORCH_CHECK(
        var.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient"
    )
    meta = materialize_autograd_meta(var)
    if meta.grad_fn_ is not None:
        return meta.grad_fn_._register_tensor_pre_hook(meta.output_nr_, hook)
    # a leaf keeps its hooks in its AutogradMeta; its AccumulateGrad (made now or later, and
    # held only weakly by the leaf) runs them from there
    handle = RemovableHandle(meta.hooks_)
    meta.hooks_[handle.id] = (0, hook)
    return handle


@handle_th_errors
def register_post_accumulate_grad_hook(
    self: TensorBase, hook: Callable[..., Any]
) -> RemovableHandle:
    """Tensor.register_post_accumulate_grad_hook (torch/_tensor.py): hook(tensor) runs after
    the leaf's AccumulateGrad wrote its .grad."""
    var = self.cdata
    if not var.requires_grad():
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    meta = materialize_autograd_meta(var)
    if meta.grad_fn_ is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if meta.post_acc_grad_hooks_ is None:
        meta.post_acc_grad_hooks_ = {}
    handle = RemovableHandle(meta.post_acc_grad_hooks_)
    meta.post_acc_grad_hooks_[handle.id] = hook
    return handle


def backward(
    self: TensorBase,
    gradient: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """Tensor.backward (torch/_tensor.py): torch.autograd.backward(self, ...)."""
    api.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


# ---- THPEngine_run_backward ----------------------------------------------------------------------
@handle_th_errors
def run_backward(
    tensors: Sequence[TensorBase],
    grad_tensors: Sequence[Any],
    keep_graph: bool,
    create_graph: bool,
    inputs: Sequence[TensorBase] | None,
    allow_unreachable: bool,
    accumulate_grad: bool,
) -> tuple[Any, ...]:
    roots: list[Edge] = []
    grads: list[AtTensor] = []
    for i, tensor in enumerate(tensors):
        var = tensor.cdata
        edge = gradient_edge(var)
        TORCH_CHECK(
            edge.function is not None,
            "element ",
            i,
            " of tensors does not require grad and does not have a grad_fn",
        )
        roots.append(edge)
        grad = grad_tensors[i]
        if isinstance(grad, TensorBase):
            grads.append(grad.cdata)
        else:
            TORCH_CHECK(grad is None, "element ", i, " of gradients tuple is not a Tensor or None")
            TORCH_CHECK(
                not var.requires_grad(),
                "element ",
                i,
                " of gradients tuple is None, but the corresponding Tensor requires grad",
            )
    output_edges: list[Edge] = []
    if inputs is not None:
        for tensor in inputs:
            var = tensor.cdata
            meta = get_autograd_meta(var)
            fn = meta.grad_fn_ if meta is not None else None
            output_nr = meta.output_nr_ if meta is not None else 0
            if fn is None:
                fn = try_get_grad_accumulator(var)
            if accumulate_grad:
                retain_grad(tensor)
            TORCH_CHECK(
                var.requires_grad(), "One of the differentiated Tensors does not require grad"
            )
            output_edges.append(Edge(fn, output_nr) if fn is not None else Edge(Identity(), 0))
    del tensors, grad_tensors
    outputs = get_default_engine().execute(
        roots, grads, keep_graph, create_graph, accumulate_grad, output_edges or None
    )
    if inputs is not None and not accumulate_grad:
        result = []
        for i, out in enumerate(outputs):
            TORCH_CHECK(
                allow_unreachable or (out is not None and out.defined()),
                "The differentiated Tensor at index ",
                i,
                " appears to not have been "
                "used in the graph. Set allow_unused=True if this is the desired "
                "behavior.",
            )
            result.append(
                THPVariable_Wrap(out.copy()) if out is not None and out.defined() else None
            )
        return tuple(result)
    return ()


def _get_data(self: TensorBase) -> Any:
    """Tensor.data: the same data, detached, with a version counter of its own
    (VariableHooks::variable_data): in-place changes through it go unseen by autograd."""
    return THPVariable_Wrap(shallow_copy_and_detach(self.cdata))


def _has_compatible_shallow_copy_type(self: TensorBase, from_: TensorBase) -> bool:
    """torch._has_compatible_shallow_copy_type (TensorImpl::has_compatible_shallow_copy_type):
    the same key set, or both dense on a real backend (CPU, CUDA); a meta tensor is neither."""
    a, b = self.cdata.device().type_, from_.cdata.device().type_
    return a == b or (a is not DeviceType.Meta and b is not DeviceType.Meta)


@handle_th_errors
def _set_data(self: TensorBase, value: Any) -> None:
    """`x.data = y`: x keeps its autograd identity and version counter and takes all else of y:
    storage, sizes, strides, dtype, device and dispatch keys (VariableHooks::set_data, then
    TensorImpl::shallow_copy_from). nn.Module.to(device) moves parameters this way."""
    if not isinstance(value, TensorBase):  # THPUtils_assertRet: a TypeError
        raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
    TORCH_CHECK(
        _has_compatible_shallow_copy_type(self, value),
        "Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have "
        "incompatible tensor type.",
    )
    new = value.cdata.unsafeGetTensorImpl()
    impl = self.cdata.unsafeGetTensorImpl()
    TORCH_CHECK(
        not self.cdata.requires_grad()
        or isFloatingType(new.scalar_type())
        or isComplexType(new.scalar_type()),
        "data set to a tensor that requires gradients must be floating point or complex dtype",
    )
    meta = get_autograd_meta(self.cdata)
    if meta is not None and try_get_grad_accumulator(self.cdata) is not None:
        # the leaf's AccumulateGrad was made for the old dtype and device
        if new.data_type_ is not impl.data_type_ or new.device_opt_ != impl.device_opt_:
            meta.grad_accumulator_ = None
    impl.set_storage_keep_dtype(new.storage_.copy())
    impl.data_type_ = new.data_type_
    impl.tensor_summary_ = None  # Note [A tensor's summary, kept] (c10/tensor_impl.py)
    impl.device_opt_ = new.device_opt_
    impl.key_set_ = new.key_set_
    impl.is_wrapped_number_ = new.is_wrapped_number_
    impl.set_sizes_and_strides(new.sizes_, new.strides_, new.storage_offset_)


def _make_subclass(cls: type, data: TensorBase, require_grad: bool = False) -> Any:
    """torch.Tensor._make_subclass (THPVariable_make_subclass): a `cls` object on data.detach(),
    requiring grad as asked; nn.Parameter is made with it."""
    var = data.cdata.detach()
    # object.__new__, not cls.__new__: nn.Parameter.__new__ is what calls this
    obj = THPVariable_NewWithVar(object.__new__(cls), var)
    if require_grad:
        _set_requires_grad(obj, True)
    return obj


PROPERTIES: dict[str, Any] = {
    "data": property(_get_data, _set_data),
    "requires_grad": property(_get_requires_grad, _set_requires_grad),
    "grad": property(_get_grad, _set_grad),
    "grad_fn": property(_get_grad_fn),
    "is_leaf": property(_get_is_leaf),
    "retains_grad": property(_get_retains_grad),
    "output_nr": property(_get_output_nr),
    "_version": property(_get_version),
}
METHODS: dict[str, Any] = {
    "requires_grad_": requires_grad_,
    "retain_grad": retain_grad,
    "register_hook": register_hook,
    "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook,
    "backward": backward,
    "is_inference": is_inference,
    "_make_subclass": staticmethod(_make_subclass),
}


def install() -> None:
    for name, value in {**PROPERTIES, **METHODS}.items():
        setattr(TensorBase, name, value)
