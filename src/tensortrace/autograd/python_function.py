"""A custom autograd Function at the C++ side: THPFunction_apply runs `forward` and wires its
outputs into the graph; PyNode is the Node that runs the class's `backward` in the engine.

Mirrors `torch/csrc/autograd/python_function.cpp` (THPFunction, THPFunction_apply,
unpack_input, process_outputs, _save_variables, PyNode::apply, to_py_args, to_variable_list)
and `torch/csrc/autograd/custom_function.cpp` (_wrap_outputs, _process_backward_mode_ad).

Note [The ctx is a Python object, the Node is PyNode]
`Function.apply` makes a `ctx`, an instance of `<Name>Backward` (FunctionCtx plus
_FunctionBase, which is THPFunction), and a PyNode that owns it. The graph holds the PyNode; the
ctx points back to it weakly (THPFunction::cdata is a weak_ptr), so the graph stays a DAG of
owning references (Note [Who owns whom in the graph]). What Python sees as `y.grad_fn`, or in
`next_functions`, is the ctx (functionToPyObject), and the profiler names the Node
`<Name>Backward` after the ctx's class.
"""

from __future__ import annotations

import weakref
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd import grad_mode
from tensortrace.autograd.accumulate_grad import try_get_grad_accumulator
from tensortrace.autograd.custom_function_forward import (
    fw_grad_disabled,
    input_tangents,
    process_forward_mode_ad,
)
from tensortrace.autograd.function import Node, collect_next_edges
from tensortrace.autograd.saved_variable import ERR_BACKWARD_TWICE, SavedVariable
from tensortrace.autograd.traceable_function import is_differentiable_output
from tensortrace.autograd.variable import get_autograd_meta, set_gradient_edge
from tensortrace.autograd.variable_type_utils import rebase_history
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.csrc.python_variable import TensorBase as PyTensor
from tensortrace.csrc.python_variable import THPVariable_Wrap
from tensortrace.trace import FrameSite, recorder, traced

SOURCE = "torch/csrc/autograd/python_function.cpp"


class VariableInfo:
    """custom_function.h's VariableInfo: what a forward output looked like, so that an
    undefined gradient for it can be materialized as zeros."""

    __slots__ = ("size", "scalar_type", "device", "is_empty")

    def __init__(self, var: Tensor | None = None) -> None:
        self.is_empty = var is None
        if var is not None:
            self.size = list(var.sizes())
            self.scalar_type = var.scalar_type()
            self.device = var.device()

    def zeros(self) -> Tensor:
        if self.is_empty:
            return Tensor()
        return at.zeros(self.size, dtype=self.scalar_type, device=self.device)


class PyNode(Node):
    """python_function.h's PyNode: the Node of one call of a custom Function, owning its ctx."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        super().__init__()
        self.obj = obj

    def name(self) -> str:
        return type(self.obj).__name__

    def py_object(self) -> Any:
        return self.obj

    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        """PyNode::apply: call the ctx's `apply` (the class's backward) on the gradients."""
        ctx = self.obj
        py_grads = to_py_args(ctx, self, grads)
        result = ctx.apply(*py_grads)
        if not isinstance(result, tuple):  # ensure_tuple
            result = (result,)
        num_forward_inputs = len(ctx.is_variable_input)
        # returning too many gradients is allowed when the extra ones are all None
        if len(result) > num_forward_inputs and all(r is None for r in result[num_forward_inputs:]):
            result = result[:num_forward_inputs]
        TORCH_CHECK(
            len(result) == num_forward_inputs,
            "function ",
            self.name(),
            " returned an incorrect number of gradients (expected ",
            num_forward_inputs,
            ", got ",
            len(result),
            ")",
        )
        return self.to_variable_list(result, ctx.is_variable_input)

    def to_variable_list(
        self, result: tuple[Any, ...], is_variable_input: list[bool]
    ) -> list[Tensor | None]:
        grads: list[Tensor | None] = []
        for i, (output, was_variable) in enumerate(zip(result, is_variable_input, strict=True)):
            if not was_variable:
                if output is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {i + 1}, but the corresponding forward input was not a "
                        "Variable"
                    )
                continue
            if output is None:
                grads.append(None)
            elif isinstance(output, PyTensor):
                grads.append(output.cdata.copy())
            else:
                raise RuntimeError(f"expected Variable or None (got {type(output).__name__})")
        return grads

    def release_variables(self) -> None:
        """PyNode::release_variables: the saved tensors go, and the ctx says so."""
        self.obj._saved_variables = []
        self.obj.has_freed_buffers = True


def to_py_args(ctx: Any, node: PyNode, grads: list[Tensor | None]) -> list[Any]:
    """to_py_args: each gradient for Python; an undefined one becomes zeros shaped like its
    output, unless the ctx said set_materialize_grads(False)."""
    args: list[Any] = []
    for i, grad in enumerate(grads):
        if grad is not None and grad.defined():
            args.append(THPVariable_Wrap(grad.copy()))
        elif ctx.materialize_grads and i < len(ctx.output_info):
            zeros = ctx.output_info[i].zeros()
            args.append(THPVariable_Wrap(zeros) if zeros.defined() else None)
        else:
            args.append(None)
    return args


# ---- forward: THPFunction_apply ------------------------------------------------------------------
_forward_sites: dict[str, FrameSite] = {}


def _forward_site(name: str) -> FrameSite:
    """RECORD_FUNCTION(cls->tp_name): the scope torch.profiler names after the Function."""
    site = _forward_sites.get(name)
    if site is None:
        site = _forward_sites[name] = FrameSite(
            "autograd", name, SOURCE, "THPFunction_apply: RECORD_FUNCTION", legacy=None
        )
    return site


@traced("python", "THPFunction_apply", SOURCE)
def THPFunction_apply(cls: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Function.apply(*args, **kwargs): unpack the inputs (the keyword ones after the
    positional ones), run forward with grad off, wrap the outputs."""
    inputs = (*args, *kwargs.values())
    is_variable_input = [isinstance(a, PyTensor) for a in inputs]
    input_vars = [a.cdata for a in inputs if isinstance(a, PyTensor)]
    needs_input_grad = tuple(isinstance(a, PyTensor) and a.cdata.requires_grad() for a in inputs)
    is_executable = grad_mode.is_grad_enabled() and any(v.requires_grad() for v in input_vars)
    rec = recorder.current
    if rec is None:
        return _apply(
            cls, args, kwargs, input_vars, is_variable_input, needs_input_grad, is_executable
        )
    return recorder.record_call(
        rec,
        _forward_site(cls.__name__),
        {"record_function": True, "args": {"needs_input_grad": list(needs_input_grad)}},
        _apply,
        (cls, args, kwargs, input_vars, is_variable_input, needs_input_grad, is_executable),
    )


def _apply(
    cls: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    input_vars: list[Tensor],
    is_variable_input: list[bool],
    needs_input_grad: tuple[bool, ...],
    is_executable: bool,
) -> Any:
    ctx = cls._backward_cls()
    node = PyNode(ctx)
    ctx._cdata = weakref.ref(node)  # Note [The ctx is a Python object, the Node is PyNode]
    ctx.needs_input_grad = needs_input_grad
    ctx.is_variable_input = is_variable_input
    if is_executable:
        node.set_next_edges(collect_next_edges(input_vars))
    overridden_setup_context = cls.setup_context is not _base_setup_context()
    tangents = input_tangents((*args, *kwargs.values()))
    # forward sees no tangents (AutoFwGradMode(false)); jvp computes the outputs' below
    with grad_mode.set_grad_enabled(False), fw_grad_disabled():
        if overridden_setup_context:
            output = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, output)
        else:
            output = cls.forward(ctx, *args, **kwargs)
    dirty = _mark_dirty(ctx)
    wrapped = process_outputs(ctx, node, input_vars, dirty, output, is_executable)
    if tangents is not None:
        process_forward_mode_ad(cls, ctx, tangents, wrapped, dirty)
    ctx.saved_for_forward = None
    return wrapped


def _mark_dirty(ctx: Any) -> set[int]:
    """_mark_dirty: the inputs forward modified in place, each with its version bumped."""
    dirty: set[int] = set()
    for i, obj in enumerate(ctx.dirty_tensors or ()):
        if not isinstance(obj, PyTensor):
            raise RuntimeError(
                f"mark_dirty can only accept variables, but argument {i} is of type "
                f"{type(obj).__name__}"
            )
        dirty.add(id(obj.cdata.unsafeGetTensorImpl()))
        obj.cdata.unsafeGetTensorImpl().bump_version()
    ctx.dirty_tensors = None
    return dirty


def _base_setup_context() -> Any:
    # import cycle: custom_function imports this module for THPFunction_apply
    from tensortrace.autograd.custom_function import _SingleLevelFunction

    return _SingleLevelFunction.setup_context


def process_outputs(
    ctx: Any,
    node: PyNode,
    input_vars: list[Tensor],
    dirty: set[int],
    output: Any,
    is_executable: bool,
) -> Any:
    unpack_output = not isinstance(output, tuple)
    raw = (output,) if unpack_output else output
    wrapped = _wrap_outputs(ctx, node, input_vars, dirty, raw, is_executable)
    if is_executable:
        _save_variables(ctx, node)
    ctx.to_save = None
    ctx.non_differentiable = None
    return wrapped[0] if unpack_output else wrapped


def _wrap_outputs(
    ctx: Any,
    node: PyNode,
    input_vars: list[Tensor],
    dirty: set[int],
    raw: tuple[Any, ...],
    is_executable: bool,
) -> tuple[Any, ...]:
    """python_function.cpp's _wrap_outputs and custom_function.cpp's
    _process_backward_mode_ad: each tensor output gets its gradient edge (node, i); an input
    returned as it is becomes a view of itself first; non-tensor outputs pass through."""
    cdata = node if is_executable else None
    inputs = {id(v.unsafeGetTensorImpl()) for v in input_vars}
    non_differentiable = {id(t.cdata.unsafeGetTensorImpl()) for t in ctx.non_differentiable or ()}
    num_outputs = len(raw)
    seen: set[int] = set()
    outputs: list[Any] = []
    ctx.output_info = []
    for i, obj in enumerate(raw):
        if not isinstance(obj, PyTensor):
            if cdata is not None:
                cdata.add_input_metadata(None)
                ctx.output_info.append(VariableInfo())
            outputs.append(obj)
            continue
        var = obj.cdata
        key = id(var.unsafeGetTensorImpl())
        seen.add(key)
        is_input, is_modified = key in inputs, key in dirty
        is_differentiable = (
            cdata is not None and key not in non_differentiable and is_differentiable_output(var)
        )
        if cdata is not None:
            cdata.add_input_metadata(var if is_differentiable else None)
        new = _set_history(var, i, cdata, num_outputs, is_input, is_modified, is_differentiable)
        new_meta = get_autograd_meta(new)
        if not (is_input and is_modified) and new_meta is not None and new_meta.is_view_:
            # handle_view_on_rebase (variable_type_utils.py) forbids modifying it in place
            new_meta.creation_meta_ = (
                "MULTI_OUTPUT_NODE" if num_outputs > 1 else "IN_CUSTOM_FUNCTION"
            )
        if cdata is not None:
            ctx.output_info.append(VariableInfo(new))
        outputs.append(obj if new is var else THPVariable_Wrap(new))
    TORCH_CHECK(
        dirty <= seen,
        "Some elements marked as dirty during the forward method were not returned as output. "
        "The inputs that are modified inplace must all be outputs of the Function.",
    )
    return tuple(outputs)


def _set_history(
    var: Tensor,
    output_nr: int,
    cdata: PyNode | None,
    num_outputs: int,
    is_input: bool,
    is_modified: bool,
    is_differentiable: bool,
) -> Tensor:
    """The set_history lambda of _process_backward_mode_ad; returns the tensor to hand out."""
    if not is_differentiable:
        if not var.requires_grad():
            if is_input and not is_modified:
                return _view_as_self_with_no_grad(var)
            return var
        # an input that requires grad comes back detached, not changed in place
        if is_input:
            return at.detach(var)
        meta = get_autograd_meta(var)
        if meta is not None and not meta.is_view_:
            at.detach_(var)
        return var
    assert cdata is not None
    if is_modified:
        meta = get_autograd_meta(var)
        TORCH_CHECK(
            not (meta is not None and meta.grad_fn_ is None and meta.requires_grad_),
            "a leaf Variable that requires grad has been used in an in-place operation.",
        )
        TORCH_CHECK(
            not (meta is not None and meta.is_view_ and num_outputs > 1),
            "If your Function modifies inplace an input that is a view of another Tensor, your "
            "Function cannot return more than one Tensor. This is not supported by the current "
            "autograd engine. You should either make sure the input is not a view (using "
            ".clone() for example) or make your Function only return one Tensor (potentially "
            "splitting it into two Functions: one doing the inplace that returns a single "
            "Tensor and a second one that does the other operations). You can ask on the forum "
            "https://discuss.pytorch.org/ if you need help to do this change.",
        )
        if meta is not None:
            meta.grad_ = None
            meta.hooks_.clear()
            acc = try_get_grad_accumulator(var)
            if acc is not None:
                acc.variable_ = Tensor()
        if meta is not None and meta.is_view_:
            rebase_history(var, cdata)
        else:
            set_gradient_edge(var, cdata, output_nr)
        return var
    if is_input:
        var = _view_as_self_with_no_grad(var)
    set_gradient_edge(var, cdata, output_nr)
    return var


def _view_as_self_with_no_grad(var: Tensor) -> Tensor:
    """An input returned as it is: a view of itself made with grad off, so that it can take
    this Function's edge without changing the input's own history."""
    with grad_mode.set_grad_enabled(False):
        return var.view_as(var)


def _save_variables(ctx: Any, node: PyNode) -> None:
    """_save_variables: SavedVariables for ctx.to_save; an output of this Function is saved
    as an output (Note [A saved output keeps only its data])."""
    to_save = ctx.to_save
    if to_save is None:
        return
    saved: list[SavedVariable] = []
    for i, obj in enumerate(to_save):
        if obj is None:
            saved.append(SavedVariable())
            continue
        if not isinstance(obj, PyTensor):
            raise TypeError(
                "save_for_backward can only save variables, but argument "
                f"{i} is of type {type(obj).__name__}"
            )
        meta = get_autograd_meta(obj.cdata)
        is_output = meta is not None and meta.grad_fn_ is node
        saved.append(SavedVariable(obj.cdata, is_output))
    ctx._saved_variables = saved


def unpack_saved_variables(ctx: Any) -> tuple[Any, ...]:
    """THPFunction_saved_tensors: each saved tensor, unpacked for Python."""
    TORCH_CHECK(not ctx.has_freed_buffers, ERR_BACKWARD_TWICE)
    node = ctx._cdata() if ctx._cdata is not None else None
    out: list[Any] = []
    for saved in ctx._saved_variables:
        t = saved.unpack(node)
        out.append(THPVariable_Wrap(t.copy()) if t.defined() else None)
    return tuple(out)


__all__ = ["PyNode", "THPFunction_apply", "VariableInfo", "unpack_saved_variables"]
