"""The backward graph: Node (a backward function) and Edge (an input of the next Node).

Mirrors `torch/csrc/autograd/function.h` (Node, sequence numbers, next_edges, the hooks),
`torch/csrc/autograd/edge.h` (Edge), `input_metadata.h` (what an input of a Node must look
like) and `torch/csrc/autograd/python_cpp_function.cpp` (what Python sees: next_functions,
name(), register_hook, register_prehook, metadata).

Note [Who owns whom in the graph]
A tensor owns its grad_fn; a Node owns the Nodes its edges point to (its inputs' grad_fns and
AccumulateGrads); a Node owns the tensors it saved, but never its own outputs' grad_fn (a saved
output keeps only the data, see saved_variable.py). So the graph is a DAG of owning references
that Python's refcounting frees as soon as the last output is dropped, with no cycle to collect.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from typing import Any

from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd.anomaly_mode import AnomalyMode, record_node
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.csrc.python_variable import THPVariable_Wrap

UINT64_MAX = 2**64 - 1


class _SequenceNumber(threading.local):
    """at::sequence_number: a per-thread counter, bumped by every Node made in that thread."""

    def __init__(self) -> None:
        self.counter = itertools.count()


_sequence = _SequenceNumber()


class Edge:
    """edge.h: the function a gradient flows to, and which of its inputs it is."""

    __slots__ = ("function", "input_nr")

    def __init__(self, function: Node | None = None, input_nr: int = 0) -> None:
        self.function = function
        self.input_nr = input_nr

    def is_valid(self) -> bool:
        return self.function is not None


class InputMetadata:
    """input_metadata.h: the shape and dtype a gradient flowing into a Node must have."""

    __slots__ = ("shape", "scalar_type", "device", "vmap_level")

    def __init__(self, t: Tensor) -> None:
        self.shape = t.sizes()
        self.scalar_type = t.scalar_type()
        self.device = t.device()
        # the vmap level of a BatchedTensor input, 0 for any other (Note [vmap below autograd])
        self.vmap_level: int = getattr(t.impl_.target_, "level_", 0)


class RemovableHandle:
    """torch.utils.hooks.RemovableHandle: `handle.remove()` takes the hook out again."""

    _ids = itertools.count()

    def __init__(self, hooks: dict[int, Any], *, extra_dict: Any = None) -> None:
        self.hooks = hooks
        self.id = next(RemovableHandle._ids)
        # the dicts / sets that also name this id (a module's *_with_kwargs, always_called)
        if extra_dict is None:
            extra_dict = ()
        elif isinstance(extra_dict, (dict, set)):
            extra_dict = (extra_dict,)
        self.extra_dicts: tuple[Any, ...] = tuple(extra_dict)

    def remove(self) -> None:
        self.hooks.pop(self.id, None)
        for extra in self.extra_dicts:
            if isinstance(extra, dict):
                extra.pop(self.id, None)
            else:
                extra.discard(self.id)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


class Node:
    """function.h's Node: `apply(grads)` maps the gradients of its outputs to those of its
    inputs; `next_edges_` says where each of those goes."""

    __slots__ = (
        "next_edges_",
        "sequence_nr_",
        "input_metadata_",
        "pre_hooks_",
        "tensor_pre_hooks_",
        "retains_grad_hooks_",
        "post_hooks_",
        "metadata_",
        "__weakref__",
    )

    def __init__(self, sequence_nr: int | None = None) -> None:
        self.sequence_nr_ = next(_sequence.counter) if sequence_nr is None else sequence_nr
        self.next_edges_: list[Edge] = []
        self.input_metadata_: list[InputMetadata | None] = []
        self.pre_hooks_: dict[int, Callable[..., Any]] = {}
        self.tensor_pre_hooks_: dict[int, tuple[int, Callable[..., Any]]] = {}
        self.retains_grad_hooks_: dict[int, Callable[..., Any]] = {}
        self.post_hooks_: dict[int, Callable[..., Any]] = {}
        self.metadata_: dict[str, Any] | None = None
        if AnomalyMode._enabled:  # Note [Anomaly mode costs one flag test when off]
            record_node(self)

    # ---- the graph ---------------------------------------------------------------------------
    def name(self) -> str:
        return type(self).__name__

    def sequence_nr(self) -> int:
        return self.sequence_nr_

    def set_next_edges(self, edges: list[Edge]) -> None:
        self.next_edges_ = edges

    def next_edge(self, i: int) -> Edge:
        return self.next_edges_[i]

    def num_outputs(self) -> int:
        return len(self.next_edges_)

    def num_inputs(self) -> int:
        return len(self.input_metadata_)

    def add_input_metadata(self, t: Tensor | None) -> int:
        """Record what the gradient of this output must look like; return its output_nr."""
        self.input_metadata_.append(InputMetadata(t) if t is not None else None)
        return len(self.input_metadata_) - 1

    def input_metadata(self, i: int) -> InputMetadata | None:
        return self.input_metadata_[i]

    # ---- running -----------------------------------------------------------------------------
    # variable_list: an undefined gradient is None here
    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        raise NotImplementedError

    def release_variables(self) -> None:
        """Drop the saved tensors once the graph will not be run again (retain_graph=False)."""

    def will_release_variables(self) -> None:
        """Told before apply() that release_variables() follows: nothing to do here."""

    # ---- Python's view of a Node (python_cpp_function.cpp) ------------------------------------
    def py_object(self) -> Any:
        """functionToPyObject: what Python sees of this Node (a custom Function's ctx for its
        PyNode, python_function.py; the Node itself otherwise)."""
        return self

    @property
    def next_functions(self) -> tuple[tuple[Any, int], ...]:
        return tuple(
            (e.function.py_object() if e.function is not None else None, e.input_nr)
            for e in self.next_edges_
        )

    @property
    def metadata(self) -> dict[str, Any]:
        if self.metadata_ is None:
            self.metadata_ = {}
        return self.metadata_

    def _register(self, table: dict[int, Any], value: Any) -> RemovableHandle:
        handle = RemovableHandle(table)
        table[handle.id] = value
        return handle

    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """fn(grad_inputs, grad_outputs) after the Node ran; it may return new grad_inputs."""
        return self._register(self.post_hooks_, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """fn(grad_outputs) before the Node runs; it may return new grad_outputs."""
        return self._register(self.pre_hooks_, fn)

    def _register_tensor_pre_hook(self, output_nr: int, fn: Callable[..., Any]) -> RemovableHandle:
        return self._register(self.tensor_pre_hooks_, (output_nr, fn))

    def __call__(self, *grads: Any) -> Any:
        """grad_fn(*grads) from Python (THPCppFunction_call): run apply() on these gradients."""
        results = self.apply([g.cdata if g is not None else None for g in grads])
        wrapped = tuple(
            THPVariable_Wrap(r.copy()) if r is not None and r.defined() else None for r in results
        )
        return wrapped[0] if len(wrapped) == 1 else wrapped

    def _trace_summary(self) -> str:
        return f"{self.name()}(sequence_nr={self.sequence_nr_})"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"


def collect_next_edges(tensors: Sequence[Tensor | None]) -> list[Edge]:
    """collect_next_edges: the gradient edge of each input, an invalid edge if it has none."""
    return [gradient_edge(t) if t is not None and t.defined() else Edge() for t in tensors]


def gradient_edge(t: Tensor) -> Edge:
    """impl::gradient_edge: (grad_fn, output_nr) for a non-leaf, (AccumulateGrad, 0) for a
    leaf that requires grad, an invalid edge otherwise."""
    meta = t.unsafeGetTensorImpl().autograd_meta_
    if meta is None:
        return Edge()
    if meta.grad_fn_ is not None:
        return Edge(grad_fn(t, meta), meta.output_nr_)
    if meta.requires_grad_:
        # import cycle: accumulate_grad imports this module (Node)
        from tensortrace.autograd.accumulate_grad import grad_accumulator

        return Edge(grad_accumulator(t), 0)
    return Edge()


def grad_fn(t: Tensor, meta: Any) -> Node | None:
    """VariableHooks::grad_fn: a view whose data changed in place since its grad_fn was made
    (through its base or another view) gets a new one, an AsStridedBackward0 of its base."""
    fn = meta.grad_fn_
    if (
        fn is not None
        and meta.is_view_
        and meta.attr_version_ != t.unsafeGetTensorImpl().version_counter_.version
    ):
        if meta.creation_meta_ is not None:
            # import cycle: variable_type_utils imports this module
            from tensortrace.autograd.variable_type_utils import handle_view_on_rebase

            # its base or another view was modified in place: an indirect rebase
            handle_view_on_rebase(meta, indirect=True)
        base_meta = meta.base_.unsafeGetTensorImpl().autograd_meta_
        if base_meta is not None and base_meta.grad_fn_ is not None:
            # import cycle: variable_type_utils imports this module
            from tensortrace.autograd.variable_type_utils import regenerate_view_grad_fn

            regenerate_view_grad_fn(t)
            return meta.grad_fn_  # type: ignore[no-any-return]
    return fn  # type: ignore[no-any-return]


def check_input_count(node: Node, grads: Sequence[Any], expected: int) -> None:
    TORCH_CHECK(
        len(grads) == expected,
        "invalid number of inputs to ",
        node.name(),
        ": expected ",
        expected,
        ", got ",
        len(grads),
    )


# torch.autograd.function is the Python module of custom Functions; here that module name
# holds function.h's Node, so the Python classes (custom_function.py) are handed out from it
# on first use (`from torch.autograd.function import once_differentiable` runs unchanged).
_CUSTOM_FUNCTION_NAMES = frozenset(
    {"BackwardCFunction", "Function", "FunctionCtx", "InplaceFunction", "once_differentiable"}
)


def __getattr__(name: str) -> Any:
    if name in _CUSTOM_FUNCTION_NAMES:
        from tensortrace.autograd import custom_function

        return getattr(custom_function, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
