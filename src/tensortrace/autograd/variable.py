"""Autograd metadata on a TensorImpl: requires_grad, and for views, the base they came from.

Mirrors `torch/csrc/autograd/variable.h` / `variable.cpp` (AutogradMeta,
DifferentiableViewMeta, ViewInfo, make_variable) and `VariableTypeUtils.h` (as_view).

Note [A view holds its base]
as_view records the view's *root* base in the view's autograd metadata, as a Tensor, so a view
keeps its base's TensorImpl alive (refcount + 1), not only the shared storage. After
`_t2 = _t1[0]; del _t1`, TensorImpl#1 drops from 2 to 1 and is released only when _t2's
TensorImpl is, which releases the storage and frees the memory. The view also shares its base's
version counter, so an in-place op on either is seen by both. (torch.inference_mode skips all of
this; tensortrace has no inference mode.)
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from tensortrace.aten.tensor_body import Tensor, null_deref
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import recorder, schema
from tensortrace.trace.schema import VIEW_BASE

if TYPE_CHECKING:  # function.py and accumulate_grad.py import this module
    from tensortrace.autograd.accumulate_grad import AccumulateGrad
    from tensortrace.autograd.function import Node


class AutogradMeta:
    """What autograd knows about one tensor (variable.h's AutogradMeta / DifferentiableViewMeta).

    A non-leaf holds its grad_fn (an owning edge to the Node that made it) and its output_nr; a
    leaf that requires grad holds its AccumulateGrad weakly (grad_accumulator_), as torch does,
    so a dropped graph frees it. hooks_ are the tensor's own hooks (register_hook on a leaf),
    post_acc_grad_hooks_ those AccumulateGrad runs after it wrote `.grad`.
    """

    __slots__ = (
        "requires_grad_",
        "grad_",
        "grad_fn_",
        "is_view_",
        "base_",
        "output_nr_",
        "grad_accumulator_",
        "retains_grad_",
        "hooks_",
        "post_acc_grad_hooks_",
        "attr_version_",
        "creation_meta_",
        "fw_grad_",
        "fw_view_",
        "fw_base_",
    )

    def __init__(self, requires_grad: bool = False) -> None:
        self.requires_grad_ = requires_grad
        self.grad_: Tensor | None = None
        self.grad_fn_: Node | None = None
        self.is_view_ = False
        self.base_ = Tensor()
        self.output_nr_ = 0
        self.grad_accumulator_: weakref.ref[AccumulateGrad] | None = None
        self.retains_grad_ = False
        self.hooks_: dict[int, tuple[int, object]] = {}
        # register_post_accumulate_grad_hook's hooks (torch keeps them on the Python tensor,
        # as _post_accumulate_grad_hooks, and its C++ hook holds that dict)
        self.post_acc_grad_hooks_: dict[int, Any] | None = None
        # a view's grad_fn is valid for this version of the data it shares with its base
        self.attr_version_ = 0
        # a view's CreationMeta: None is DEFAULT; "IN_CUSTOM_FUNCTION" marks an output of a
        # custom Function, which may not be modified in place (handle_view_on_rebase)
        self.creation_meta_: str | None = None
        # forward AD (autograd/forward_grad.py): the tangents by level (ForwardGrad, made on
        # first use); for a view, whether it is a forward-differentiable view (_fw_primal's
        # and _make_dual's are not), and its forward base when that is not base_ (a view of a
        # dual tensor made by _make_dual: Note [Forward views])
        self.fw_grad_: Any = None
        self.fw_view_ = True
        self.fw_base_: Tensor | None = None

    def _trace_summary(self) -> dict[str, Any]:
        base = self.base_.unsafeGetTensorImpl().trace_name if self.base_.defined() else None
        fn = type(self.grad_fn_).__name__ if self.grad_fn_ is not None else None
        return schema.summary(
            "AutogradMeta", requires_grad=self.requires_grad_, grad_fn=fn, base=base
        )


def materialize_autograd_meta(t: Tensor) -> AutogradMeta:
    """impl::materialize_autograd_meta: the tensor's AutogradMeta, made on first use."""
    impl = t.unsafeGetTensorImpl()
    meta = impl.autograd_meta_
    if meta is None:
        meta = impl.autograd_meta_ = AutogradMeta()
    return meta


def set_gradient_edge(t: Tensor, grad_fn: Node, output_nr: int) -> None:
    """impl::set_gradient_edge: `t` is output `output_nr` of `grad_fn` from now on."""
    meta = materialize_autograd_meta(t)
    meta.grad_fn_ = grad_fn
    meta.output_nr_ = output_nr
    meta.requires_grad_ = True
    if meta.is_view_:  # the view's grad_fn is valid for the data as it is now
        meta.attr_version_ = t.unsafeGetTensorImpl().version_counter_.version


def get_autograd_meta(t: Tensor) -> AutogradMeta | None:
    return (t.impl_.target_ or null_deref()).autograd_meta_  # Note [Direct reads on hot paths]


def make_variable(data: Tensor, requires_grad: bool = False) -> Tensor:
    """Mark a freshly made tensor as a leaf that (maybe) requires grad."""
    if requires_grad:
        TORCH_CHECK(
            data.is_floating_point() or data.is_complex(),
            "Only Tensors of floating point and complex dtype can require gradients",
        )
        impl = data.unsafeGetTensorImpl()
        meta = impl.autograd_meta_ or AutogradMeta()
        meta.requires_grad_ = True
        impl.autograd_meta_ = meta
    return data


def as_view(base: Tensor, tensor: Tensor, is_fw_differentiable: bool = True) -> Tensor:
    """Record that `tensor` is a view of `base` (Note [A view holds its base]).

    is_fw_differentiable=False (_fw_primal, _make_dual) makes a view whose tangent is not
    read from its base's (DifferentiableViewMeta without forward view info)."""
    # the TensorImpls read directly (Note [Direct reads on hot paths]): every view op runs this
    impl = tensor.impl_.target_ or null_deref()
    base_impl = base.impl_.target_ or null_deref()
    if impl is base_impl:
        # a view op that handed back its input (expand to the same sizes here): recording
        # the tensor as its own base would make it own itself, and never be freed
        return tensor
    base_meta = base_impl.autograd_meta_
    root = base_meta.base_ if base_meta is not None and base_meta.is_view_ else base
    root_impl = root.impl_.target_ or null_deref()
    meta = impl.autograd_meta_
    if meta is None:
        meta = AutogradMeta()
    meta.is_view_ = True
    # propagate_creation_meta: a view of a custom Function's output view inherits its mark
    meta.creation_meta_ = (
        base_meta.creation_meta_ if base_meta is not None and base_meta.is_view_ else None
    )
    meta.base_ = root.copy()  # a second owner of the base's TensorImpl
    _set_forward_view(meta, base, base_meta, is_fw_differentiable)
    if recorder.current is not None:
        recorder.current.instant(
            VIEW_BASE,
            "autograd",
            impl.trace_name,
            {"object": impl.trace_name, "base": root_impl.trace_name},
        )
    impl.autograd_meta_ = meta
    impl.set_version_counter(root_impl.version_counter_)
    return tensor


def increment_version(t: Tensor) -> None:
    t.unsafeGetTensorImpl().bump_version()


# Note [Forward views]
# A view's tangent must be a view of its forward base's tangent (autograd_meta.cpp's
# [Forward Grad View/inplace]). The forward base is the root of the chain of forward-
# differentiable views, which is the backward root base_ unless a view in the chain is not
# forward differentiable: `d = _make_dual(x, t)` is a view of x, but `d[0]`'s tangent is a view
# of d's tangent, not of x's. fw_base_ holds the forward base only in that case, so views made
# without forward AD hold no extra reference.
def _set_forward_view(
    meta: AutogradMeta,
    base: Tensor,
    base_meta: AutogradMeta | None,
    is_fw_differentiable: bool,
) -> None:
    meta.fw_view_ = is_fw_differentiable
    meta.fw_base_ = None
    if not is_fw_differentiable or base_meta is None or not base_meta.is_view_:
        return
    if not base_meta.fw_view_:  # the base is a _make_dual / _fw_primal view: it is the root
        meta.fw_base_ = base.copy()
    elif base_meta.fw_base_ is not None:
        meta.fw_base_ = base_meta.fw_base_.copy()


def forward_base(meta: AutogradMeta) -> Tensor | None:
    """The forward view's base (DifferentiableViewMeta::get_forward_view().base_), or None."""
    if not meta.is_view_ or not meta.fw_view_:
        return None
    return meta.fw_base_ if meta.fw_base_ is not None else meta.base_
