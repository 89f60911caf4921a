"""What every VariableType kernel does around the call: the in-place checks, set_history and
rebase_history (an in-place op on a view rewrites its base's history with CopySlices).

Mirrors `torch/csrc/autograd/VariableTypeUtils.h` (check_inplace, set_history, rebase_history),
`functions/tensor.h` / `tensor.cpp` (CopySlices) and the view's grad_fn regeneration of
`variable.cpp` (VariableHooks::grad_fn: an AsStridedBackward0 from the base).
"""

from __future__ import annotations

import re
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd.function import Edge, Node, gradient_edge
from tensortrace.autograd.variable import materialize_autograd_meta, set_gradient_edge
from tensortrace.c10.exception import TORCH_CHECK


def check_inplace(t: Tensor) -> None:
    """An in-place op may not write into a leaf that requires grad (or a view of one)."""
    meta = t.unsafeGetTensorImpl().autograd_meta_
    if meta is None:
        return
    if meta.is_view_ and meta.creation_meta_ is not None:
        handle_view_on_rebase(meta)
    if meta.is_view_ and meta.base_.defined():
        base_meta = meta.base_.unsafeGetTensorImpl().autograd_meta_
        if (
            base_meta is not None
            and base_meta.requires_grad_
            and base_meta.grad_fn_ is None
            and (meta.requires_grad_ or meta.grad_fn_ is not None)
        ):
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in "
                "an in-place operation."
            )
    if meta.requires_grad_ and meta.grad_fn_ is None:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )


def handle_view_on_rebase(meta: Any, indirect: bool = False) -> None:
    """variable.cpp's handle_view_on_rebase, for the CreationMetas modelled here: an output
    view of a custom Function (IN_CUSTOM_FUNCTION, or MULTI_OUTPUT_NODE when it returned
    several) may not be modified in place, since the view+inplace logic would replace that
    Function's own backward."""
    fn = meta.grad_fn_
    modified = "its base or another view of its base has been" if indirect else "is being"
    if fn is None:
        msg = (
            f"A view was created in no_grad mode and {modified} modified inplace with grad "
            "mode enabled."
        )
    else:
        # the forward's name: "Foo" for FooBackward, "Select" for SelectBackward0
        op = re.sub(r"Backward\d*$", "", fn.name())
        msg = f"Output {meta.output_nr_} of {op} is a view and {modified} modified inplace."
    if meta.creation_meta_ == "MULTI_OUTPUT_NODE":
        msg += (
            " This view is the output of a function that returns multiple views. Such functions "
            "do not allow the output views to be modified inplace. You should replace the "
            "inplace operation by an out-of-place one."
        )
    elif meta.creation_meta_ == "IN_CUSTOM_FUNCTION":
        msg += (
            " This view was created inside a custom Function (or because an input was returned "
            "as-is) and the autograd logic to handle view+inplace would override the custom "
            "backward associated with the custom Function, leading to incorrect gradients. This "
            "behavior is forbidden. You can fix this by cloning the output of the custom "
            "Function."
        )
    raise RuntimeError(msg)


def set_history(t: Tensor, grad_fn: Node) -> None:
    """The output gets its gradient edge: (grad_fn, output_nr) (VariableTypeUtils.h)."""
    set_gradient_edge(t, grad_fn, grad_fn.add_input_metadata(t))


def _geometry(t: Tensor) -> tuple[Any, ...]:
    return (t.sizes(), t.strides(), t.storage_offset(), t.scalar_type())


class CopySlices(Node):
    """The base's new grad_fn after an in-place op on one of its views: the gradient of the
    base, with the view's slice replaced by what the in-place op's Node makes of it."""

    __slots__ = ("base_geometry", "view_geometry", "fn")

    def __init__(self, base: Tensor, view: Tensor, fn: Node) -> None:
        super().__init__()
        self.base_geometry = _geometry(base)
        self.view_geometry = _geometry(view)
        self.fn = fn
        self.add_input_metadata(base)
        self.set_next_edges([gradient_edge(base), *fn.next_edges_[1:]])
        # fn's gradient for the view now flows into the base: its should_compute_output(0)
        # must ask about the base's edge, not the view's old one
        fn.next_edges_ = [self.next_edges_[0], *fn.next_edges_[1:]]

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grads: list[Any]) -> list[Any]:
        grad = grads[0]
        outputs: list[Any] = [None] * len(self.next_edges_)
        if grad is None or not grad.defined():
            return outputs
        sizes, strides, offset, dtype = self.base_geometry
        result = at.empty_strided(list(sizes), list(strides), dtype=dtype, device=grad.device())
        result.copy_(grad)
        v_sizes, v_strides, v_offset, _ = self.view_geometry
        grad_slice = result.as_strided(list(v_sizes), list(v_strides), v_offset - offset)
        res = self.fn.apply([grad_slice.clone(memory_format="contiguous_format")])
        for i, r in enumerate(res):
            if self.next_edges_[i].function is None:
                continue
            if i == 0:
                if r is not None:
                    grad_slice.copy_(r)
                else:
                    grad_slice.zero_()
                outputs[0] = result
            else:
                outputs[i] = r
        return outputs

    def release_variables(self) -> None:
        self.fn.release_variables()


def rebase_history(view: Tensor, grad_fn: Node) -> None:
    """An in-place op's output is `view`: its base takes CopySlices, the view an
    AsStridedBackward0 of the base (VariableTypeUtils.h's rebase_history)."""
    meta = materialize_autograd_meta(view)
    if not (meta.is_view_ and meta.base_.defined()):
        grad_fn.input_metadata_.clear()
        set_history(view, grad_fn)
        return
    base = meta.base_
    copy_slices = CopySlices(base, view, grad_fn)
    base_meta = materialize_autograd_meta(base)
    base_meta.grad_fn_ = copy_slices
    base_meta.output_nr_ = 0
    base_meta.requires_grad_ = True
    regenerate_view_grad_fn(view)


def regenerate_view_grad_fn(view: Tensor) -> None:
    # the Backward Nodes are imported on first use (kernel_modules.FIRST_USE in torchgen)
    from tensortrace.autograd.generated.functions import AsStridedBackward0

    meta = materialize_autograd_meta(view)
    base = meta.base_
    fn = AsStridedBackward0()
    fn.saved_["self_geometry"] = _geometry(base)  # type: ignore[attr-defined]
    fn.saved_["size"] = list(view.sizes())  # type: ignore[attr-defined]
    fn.saved_["stride"] = list(view.strides())  # type: ignore[attr-defined]
    fn.saved_["storage_offset"] = view.storage_offset()  # type: ignore[attr-defined]
    fn.input_ranges_["self"] = (0, 1, False)  # type: ignore[attr-defined]
    fn.set_next_edges([gradient_edge(base)])
    meta.grad_fn_ = None  # set_history below gives it the new Node
    set_history(view, fn)


def check_no_out_grad(name: str) -> None:
    TORCH_CHECK(
        False,
        name,
        "(): functions with out=... arguments don't support automatic "
        "differentiation, but one of the arguments requires grad.",
    )


__all__ = ["CopySlices", "Edge", "check_inplace", "rebase_history", "set_history"]
