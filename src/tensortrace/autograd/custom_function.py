"""torch.autograd.Function: an operation whose forward and backward the user writes.

Mirrors `torch/autograd/function.py` (FunctionCtx, BackwardCFunction, FunctionMeta,
_SingleLevelFunction, Function, once_differentiable, InplaceFunction). Each subclass gets a
`<Name>Backward` class made by the metaclass; an instance of it is the `ctx` handed to forward
and backward and is what `y.grad_fn` shows. `Function.apply` is THPFunction_apply
(python_function.py). Here `torch.autograd.function` names function.h's Node module, so these
classes live in this module and function.py hands them out under the names torch uses.
"""

from __future__ import annotations

import functools
import itertools
import warnings
from collections.abc import Callable
from typing import Any

from tensortrace.autograd import grad_mode
from tensortrace.autograd.function import Node, RemovableHandle, collect_next_edges
from tensortrace.autograd.python_function import THPFunction_apply, unpack_saved_variables
from tensortrace.autograd.variable import set_gradient_edge
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.csrc.python_variable import TensorBase as PyTensor

AUTOGRAD_FUNCTION_COUNTER = itertools.count()


class FunctionCtx:
    """What forward and backward may tell each other through `ctx`."""

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors for backward; they come back as `ctx.saved_tensors`, checked to be
        unmodified since."""
        self.to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        """Keep tensors for jvp (forward-mode AD); they come back as `ctx.saved_tensors`."""
        self.saved_for_forward = tensors

    def mark_dirty(self, *args: Any) -> None:
        """These inputs were modified in place by forward (and must be returned)."""
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs: Any) -> None:
        warnings.warn(
            "mark_shared_storage is deprecated. Tensors with shared storages are "
            "automatically tracked. Note that calls to `set_()` are not tracked",
            DeprecationWarning,
            stacklevel=2,
        )

    def mark_non_differentiable(self, *args: Any) -> None:
        """These outputs get no gradient (backward still receives a zero for each)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """Whether backward gets zeros (True, the default) or None for undefined gradients."""
        self.materialize_grads = value


class _FunctionBase:
    """torch._C._FunctionBase (THPFunction): the ctx's state, kept for its PyNode."""

    def __init__(self) -> None:
        self._cdata: Any = None  # a weak reference to the PyNode
        self.to_save: Any = None
        self.non_differentiable: Any = None
        self.dirty_tensors: Any = None
        self.saved_for_forward: Any = None
        self.needs_input_grad: tuple[bool, ...] = ()
        self.is_variable_input: list[bool] = []
        self._saved_variables: list[Any] = []  # THPFunction::saved_variables
        self.output_info: list[Any] = []
        self.materialize_grads = True
        self.has_freed_buffers = False

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        # inside jvp, what save_for_forward kept (THPFunction_saved_tensors)
        if self.saved_for_forward is not None:
            return tuple(self.saved_for_forward)
        return unpack_saved_variables(self)

    @property
    def saved_variables(self) -> tuple[Any, ...]:
        warnings.warn(
            "'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2
        )
        return unpack_saved_variables(self)

    def _node(self) -> Any:
        node = self._cdata() if self._cdata is not None else None
        TORCH_CHECK(node is not None, "the autograd Node of this Function was freed")
        return node

    # Python's view of the PyNode (THPFunction's properties and methods)
    @property
    def next_functions(self) -> tuple[tuple[Any, int], ...]:
        return self._node().next_functions  # type: ignore[no-any-return]

    @property
    def metadata(self) -> dict[str, Any]:
        return self._node().metadata  # type: ignore[no-any-return]

    def _sequence_nr(self) -> int:
        return self._node().sequence_nr()  # type: ignore[no-any-return]

    def name(self) -> str:
        return type(self).__name__

    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        return self._node().register_hook(fn)  # type: ignore[no-any-return]

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        return self._node().register_prehook(fn)  # type: ignore[no-any-return]

    def _trace_summary(self) -> str:
        node = self._cdata() if self._cdata is not None else None
        return node._trace_summary() if node is not None else type(self).__name__


class BackwardCFunction(_FunctionBase, FunctionCtx):
    """The class of a ctx: `apply` runs the user's backward (PyNode::apply calls it)."""

    _forward_cls: Any

    def apply(self, *args: Any) -> Any:
        backward_fn = self._forward_cls.backward
        return backward_fn(self, *args)


class FunctionMeta(type):
    """Gives each Function subclass its `<Name>Backward` ctx class."""

    def __init__(cls, name: str, bases: tuple[type, ...], attrs: dict[str, Any]) -> None:
        backward_fn = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        backward_fn._autograd_function_id = next(AUTOGRAD_FUNCTION_COUNTER)  # type: ignore[attr-defined]
        cls._backward_cls = backward_fn
        super().__init__(name, bases, attrs)


class _SingleLevelFunction(FunctionCtx, metaclass=FunctionMeta):
    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for "
            "your custom autograd.Function to use it with backward "
            "mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the jvp function for custom "
            "autograd.Function to use it with forward mode AD."
        )


class Function(_SingleLevelFunction):
    """Subclass it with static `forward(ctx, ...)` and `backward(ctx, *grads)`, then call
    `MyFunction.apply(...)`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions "
            "are all static, so you should invoke them on the class itself. "
            "Instantiating an autograd function will raise an "
            "error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. "
            "Please use new-style autograd function with static forward method. "
            "(Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        from tensortrace.autograd.forward_grad import are_functorch_transforms_active

        is_setup_ctx_defined = cls.setup_context is not _SingleLevelFunction.setup_context
        if are_functorch_transforms_active() and not is_setup_ctx_defined:
            raise RuntimeError(
                "In order to use an autograd.Function with functorch transforms "
                "(vmap, grad, jvp, jacrev, ...), it must override the setup_context "
                "staticmethod. For more details, please see "
                "https://pytorch.org/docs/main/notes/extending.func.html"
            )
        if is_setup_ctx_defined:
            # forward is called without ctx: bind its defaults, as torch does
            import inspect

            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        return THPFunction_apply(cls, args, kwargs)


def once_differentiable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A backward that cannot itself be differentiated: it runs with grad off, and a second
    backward through it raises."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        with grad_mode.no_grad():
            outputs = fn(ctx, *args, **kwargs)
        if not grad_mode.is_grad_enabled():
            return outputs
        requires_grad = any(isinstance(a, PyTensor) and a.requires_grad for a in args)
        if not requires_grad:
            return outputs
        outputs_ = outputs if isinstance(outputs, tuple) else (outputs,)
        err = delayed_error(
            "trying to differentiate twice a function that was marked with @once_differentiable",
            [_fake_requires_grad(v) for v in outputs_],
        )
        return err if isinstance(outputs, tuple) else err[0]

    return wrapper


def _fake_requires_grad(var: Any) -> Any:
    if var is not None:
        var = var.detach()
        var.requires_grad = True
    return var


class Error(Node):
    """functions/basic_ops.h's Error: a Node that raises its message if a gradient reaches it."""

    __slots__ = ("msg",)

    def __init__(self, msg: str) -> None:
        super().__init__()
        self.msg = msg

    def name(self) -> str:
        return "torch::autograd::Error"

    def apply(self, grads: list[Any]) -> list[Any]:
        raise RuntimeError(self.msg)


def delayed_error(msg: str, inputs: list[Any]) -> tuple[Any, ...]:
    """functions/basic_ops.cpp's DelayedError::apply: aliases of the inputs whose grad_fn is
    an Error, so that only a backward through them fails."""
    node = Error(msg)
    node.set_next_edges(collect_next_edges([t.cdata if t is not None else None for t in inputs]))
    outputs: list[Any] = []
    for t in inputs:
        if t is None:
            node.add_input_metadata(None)
            outputs.append(None)
            continue
        with grad_mode.no_grad():
            alias = t.detach()
        set_gradient_edge(alias.cdata, node, node.add_input_metadata(alias.cdata))
        outputs.append(alias)
    return tuple(outputs)


class InplaceFunction(Function):
    """Kept for backward compatibility: a Function with an `inplace` flag."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


__all__ = [
    "BackwardCFunction",
    "Function",
    "FunctionCtx",
    "FunctionMeta",
    "InplaceFunction",
    "once_differentiable",
]
