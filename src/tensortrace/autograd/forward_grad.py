"""Forward-mode AD's storage: the levels, each tensor's tangents by level, and how views and
in-place ops keep a tangent laid out as its primal.

Mirrors `torch/csrc/autograd/forward_grad.h` / `forward_grad.cpp` (ForwardADLevel: the
global list of levels, each knowing the ForwardGrads that hold a tangent for it, so that exiting
the level deletes them; ForwardGrad: one tensor's tangents, level -> tangent) and
`autograd_meta.cpp` (AutogradMeta::fw_grad / set_fw_grad, see Note [Forward Grad View/inplace]).

Note [Forward Grad View/inplace]
A tensor and its tangent have the same sizes, strides and storage offset (a tangent that does
not is copied into `_new_zeros_with_same_feature_meta`). So a view op's tangent is the same view
of its base's tangent (the formula `self_t.view(...)`, or, for a view whose base got a tangent
after it was made, `base_tangent.as_strided(view geometry)` when the view's tangent is read);
an in-place op updates the tangent in place, and an in-place op that gives a view of a
tensor without a tangent its first one gives the base a zero tangent and writes into its view.
As in torch, only level 0 is supported (nested levels raise).
"""

from __future__ import annotations

import weakref
from typing import Any

from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd.variable import forward_base, materialize_autograd_meta
from tensortrace.c10.autograd_state import autograd_state
from tensortrace.c10.exception import TORCH_CHECK


class ForwardADLevel:
    """forward_grad.h's ForwardADLevel: one level, and the ForwardGrads holding its tangents."""

    __slots__ = ("idx_", "grads_")

    # all_levels: the live levels by index; torch keeps them in a static vector
    all_levels: list[ForwardADLevel | None] = []

    def __init__(self, idx: int) -> None:
        self.idx_ = idx
        # weakly, as torch's ~AutogradMeta clears its ForwardGrad: a dual tensor that dies
        # frees its tangent then, not when the level is exited
        self.grads_: weakref.WeakSet[ForwardGrad] = weakref.WeakSet()

    @staticmethod
    def get_next_idx() -> int:
        next_idx = len(ForwardADLevel.all_levels)
        TORCH_CHECK(next_idx == 0, "Nested forward mode AD is not supported at the moment")
        ForwardADLevel.all_levels.append(ForwardADLevel(next_idx))
        return next_idx

    @staticmethod
    def release_idx(idx: int) -> None:
        levels = ForwardADLevel.all_levels
        TORCH_CHECK(
            idx + 1 == len(levels),
            "Exiting a forward AD level that is not the last that was created is not support. "
            "Ensure they are released in the reverse order they were created.",
        )
        TORCH_CHECK(idx >= 0, "No forward AD level was created so you cannot exit it.")
        level = levels.pop()
        if level is not None:
            level.clear()

    @staticmethod
    def get_by_idx(idx: int) -> ForwardADLevel:
        levels = ForwardADLevel.all_levels
        TORCH_CHECK(
            idx < len(levels),
            "Trying to access a forward AD level with an invalid index. "
            "This index was either not created or is already deleted.",
        )
        level = levels[idx]
        assert level is not None
        return level

    def register(self, grad: ForwardGrad) -> None:
        self.grads_.add(grad)

    def clear(self) -> None:
        """~ForwardADLevel: every tangent of this level is deleted."""
        grads = list(self.grads_)
        self.grads_.clear()
        for grad in grads:
            grad.reset(self.idx_)


class ForwardGrad:
    """forward_grad.h's ForwardGrad: one tensor's tangents, by level."""

    __slots__ = ("content_", "__weakref__")

    def __init__(self) -> None:
        self.content_: dict[int, Tensor] = {}

    def contains(self, level: int) -> bool:
        return level in self.content_

    def value(self, level: int) -> Tensor | None:
        return self.content_.get(level)

    def set_value(self, value: Tensor, level: int) -> None:
        ForwardADLevel.get_by_idx(level).register(self)
        self.content_[level] = value

    def reset(self, level: int) -> None:
        self.content_.pop(level, None)


# torch.func.jvp's nesting (functorch's JVP_NESTING): while it runs, functorch transforms are
# active (torch._C._are_functorch_transforms_active), which custom Functions check
jvp_nesting = [0]


def are_functorch_transforms_active() -> bool:
    return jvp_nesting[0] > 0


def any_level() -> bool:
    """Whether any forward AD level is live: the generated kernels ask nothing else when none
    is, so forward AD costs one list read per op outside dual_level."""
    return bool(ForwardADLevel.all_levels)


def enter_dual_level() -> int:
    """torch._C._enter_dual_level."""
    return ForwardADLevel.get_next_idx()


def exit_dual_level(level: int) -> None:
    """torch._C._exit_dual_level."""
    TORCH_CHECK(level >= 0, "Dual level must be a positive number.")
    ForwardADLevel.release_idx(level)


def is_fwd_grad_enabled() -> bool:
    return bool(autograd_state.fw_grad_mode)


def set_fwd_grad_enabled(mode: bool) -> None:
    autograd_state.fw_grad_mode = bool(mode)


def fw_grad(t: Tensor, level: int = 0) -> Tensor | None:
    """Tensor._fw_grad(level) (AutogradMeta::fw_grad): the tangent, or None. A forward view
    without one reads its base's, as the same view of it (Note [Forward Grad View/inplace])."""
    if not autograd_state.fw_grad_mode or not ForwardADLevel.all_levels:
        return None
    impl = t.impl_.target_
    meta = impl.autograd_meta_ if impl is not None else None
    if meta is None:
        return None
    grads = meta.fw_grad_
    direct = grads.value(level) if grads is not None else None
    if direct is not None or not meta.is_view_:
        return direct
    base = forward_base(meta)
    if base is None:
        return None
    base_val = fw_grad(base, level)
    if base_val is None:
        return None
    new_val = base_val.as_strided(list(t.sizes()), list(t.strides()), t.storage_offset())
    if grads is None:
        grads = meta.fw_grad_ = ForwardGrad()
    grads.set_value(new_val, level)
    return new_val


def is_fw_grad_defined(value: Any) -> bool:
    """isFwGradDefined / isFwGradDefinedTensorList: a tensor argument (or any tensor of a
    list argument) has a tangent at level 0."""
    if isinstance(value, Tensor):
        return value.defined() and fw_grad(value) is not None
    if isinstance(value, (list, tuple)):
        return any(is_fw_grad_defined(v) for v in value)
    return False


def _has_same_meta(a: Tensor, b: Tensor) -> bool:
    """autograd_meta.cpp's has_same_meta: sizes, strides (where size > 1), storage offset, and
    the storage's numel (at::_has_same_storage_numel)."""
    from tensortrace.aten import functions as at

    if not a.defined() or not b.defined():
        return False
    if a.storage_offset() != b.storage_offset() or a.dim() != b.dim():
        return False
    for size_a, size_b, stride_a, stride_b in zip(a.sizes(), b.sizes(), a.strides(), b.strides()):
        if size_a != size_b or (stride_a != stride_b and size_a != 1):
            return False
    return bool(at._has_same_storage_numel(a, b))


def set_fw_grad(self: Tensor, new_grad: Tensor, level: int, is_inplace_op: bool) -> None:
    """Tensor._set_fw_grad (AutogradMeta::set_fw_grad): give `self` the tangent `new_grad`,
    keeping Note [Forward Grad View/inplace]'s layout rule."""
    from tensortrace.aten import functions as at

    TORCH_CHECK(
        fw_grad(new_grad, level) is None,
        "Setting a forward grad that itself has a forward gradient at the same level",
        level,
        " is not supported.",
    )
    meta = materialize_autograd_meta(self)
    if meta.fw_grad_ is None:
        meta.fw_grad_ = ForwardGrad()
    grads: ForwardGrad = meta.fw_grad_
    if grads.contains(level):
        # an in-place op hands back the tangent it updated in place: a no-op
        current = grads.value(level)
        assert is_inplace_op and current is not None and current.is_same(new_grad), (
            "Cannot set a value of a forward grad if it already exists. Inplace operations "
            "should modify it inplace."
        )
        return
    TORCH_CHECK(
        self.is_same_size(new_grad),
        "Trying to set a forward gradient that has a different size than that of the original "
        "Tensor, this is not supported. Tensor is of size ",
        list(self.sizes()),
        " while the given forward gradient is of size ",
        list(new_grad.sizes()),
        ".",
    )
    base = forward_base(meta) if is_inplace_op else None
    if base is not None and fw_grad(base, level) is None:
        # case 4 of the Note: the base gets a tangent, and this view's is a view of it
        if _has_same_meta(new_grad, base) and _has_same_meta(new_grad, self):
            new_base_fw_grad = new_grad
        else:
            new_base_fw_grad = at._new_zeros_with_same_feature_meta(new_grad, base)
            view = new_base_fw_grad.as_strided(
                list(self.sizes()), list(self.strides()), self.storage_offset()
            )
            view.copy_(new_grad)
            new_grad = view
        set_fw_grad(base, new_base_fw_grad, level, False)
    if not _has_same_meta(new_grad, self):
        res = at._new_zeros_with_same_feature_meta(new_grad, self)
        res.copy_(new_grad)
        new_grad = res
    grads.set_value(new_grad, level)
