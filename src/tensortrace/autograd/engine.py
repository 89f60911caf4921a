"""The backward engine: runs the graph from the roots to the leaves, in dependency order.

Mirrors `torch/csrc/autograd/engine.cpp` / `engine.h` and `graph_task.h`: Engine::execute makes a
GraphTask, compute_dependencies counts how many gradients each Node waits for, init_to_execute
marks what `autograd.grad(inputs=...)` needs, the ReadyQueue hands out the ready Node with the
highest sequence number (the most recently made first; AccumulateGrad, at UINT64_MAX, at once),
evaluate_function runs a Node (call_function: tensor pre-hooks, pre-hooks, the Node, post-hooks)
and adds each gradient it returns into the InputBuffer of the Node it flows to; validate_outputs
sums a broadcast gradient back to its input's shape (at::sum_to) and casts it to its dtype.

Every step is traced in layer `autograd`, with the frame names torch.profiler records:
`autograd::engine::evaluate_function: MulBackward0` around the Node's own `MulBackward0` frame,
which holds the aten ops of the formula. The engine runs on the calling thread (torch runs CPU
work on the caller too, in thread_main of the caller's GraphTask).
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Sequence
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import sum_to
from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd import grad_mode
from tensortrace.autograd.anomaly_mode import AnomalyMode, current_evaluating_node, print_stack
from tensortrace.autograd.function import Edge, Node
from tensortrace.autograd.input_buffer import InputBuffer
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.csrc.python_variable import THPVariable_Wrap
from tensortrace.trace import FrameSite, recorder

ENGINE_CPP = "torch/csrc/autograd/engine.cpp"
FUNCTION_H = "torch/csrc/autograd/function.h"


class ExecInfo:
    """GraphTask::ExecInfo: whether a Node must run, and which of its inputs to capture."""

    __slots__ = ("needed", "captures")

    def __init__(self) -> None:
        self.needed = False
        self.captures: list[tuple[int, int]] = []  # (input_nr, output index)

    def should_execute(self) -> bool:
        return self.needed or bool(self.captures)


_graph_task_ids = itertools.count()


class GraphTask:
    __slots__ = (
        "keep_graph",
        "grad_mode",
        "dependencies",
        "not_ready",
        "exec_info",
        "captured_vars",
        "accumulate_grad",
        "checkpoint_valid",
        "id",
    )

    def __init__(self, keep_graph: bool, grad_mode_: bool) -> None:
        self.keep_graph = keep_graph
        self.grad_mode = grad_mode_
        self.dependencies: dict[Node, int] = {}
        self.not_ready: dict[Node, InputBuffer] = {}
        self.exec_info: dict[Node, ExecInfo] = {}
        self.captured_vars: list[Tensor | None] = []
        self.accumulate_grad = True
        # CheckpointValidGuard: a reentrant checkpoint may run in this task's Nodes (no
        # `inputs` to compute only, and the same holds for the task it runs inside)
        self.checkpoint_valid = True
        self.id = next(_graph_task_ids)  # GraphTask::id_ (torch._C._current_graph_task_id)

    def init_to_execute(
        self, graph_root: Node, outputs: Sequence[Edge], accumulate_grad: bool
    ) -> None:
        """Mark the Nodes on a path from the root to an output (GraphTask::init_to_execute)."""
        self.captured_vars = [None] * len(outputs)
        for index, edge in enumerate(outputs):
            info = self.exec_info.setdefault(edge.function, ExecInfo())  # type: ignore[arg-type]
            if accumulate_grad:
                info.needed = True
            else:
                info.captures.append((edge.input_nr, index))
        # a Node is needed if one of its next functions is needed or captures: an iterative
        # post-order DFS (a recursive closure would be a reference cycle holding the graph)
        seen: set[Node] = {graph_root}
        stack: list[tuple[Node, int]] = [(graph_root, 0)]
        while stack:
            fn, child = stack[-1]
            if child < len(fn.next_edges_):
                stack[-1] = (fn, child + 1)
                nxt = fn.next_edges_[child].function
                if nxt is not None and nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, 0))
                continue
            stack.pop()
            for e in fn.next_edges_:
                next_info = self.exec_info.get(e.function) if e.function is not None else None
                if next_info is not None and next_info.should_execute():
                    self.exec_info.setdefault(fn, ExecInfo()).needed = True
                    break


class ReadyQueue:
    """The Nodes whose gradients are all in, highest sequence_nr first (CompareNodeTaskTime)."""

    def __init__(self) -> None:
        self.heap: list[tuple[int, int, Node, InputBuffer]] = []
        self.order = itertools.count()

    def push(self, fn: Node, inputs: InputBuffer) -> None:
        heapq.heappush(self.heap, (-fn.sequence_nr_, next(self.order), fn, inputs))

    def pop(self) -> tuple[Node, InputBuffer]:
        _, _, fn, inputs = heapq.heappop(self.heap)
        return fn, inputs

    def empty(self) -> bool:
        return not self.heap

    def _trace_summary(self) -> str:
        return str([f.name() for _, _, f, _ in sorted(self.heap)])


class GraphRoot(Node):
    """functions/basic_ops.h: the dummy root of a backward with several roots."""

    __slots__ = ("outputs",)

    def __init__(self, functions: list[Edge], inputs: list[Tensor]) -> None:
        super().__init__()
        self.set_next_edges(functions)
        self.outputs = inputs

    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        return list(self.outputs)


class Identity(Node):
    """functions/basic_ops.h: the stand-in output edge of an input with no grad_fn yet."""

    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        return grads


def compute_dependencies(root: Node, task: GraphTask) -> None:
    """Count, for each Node, the edges that lead into it (Engine::compute_dependencies)."""
    deps = task.dependencies
    seen = {root}
    stack = [root]
    while stack:
        fn = stack.pop()
        for edge in fn.next_edges_:
            nxt = edge.function
            if nxt is not None:
                deps[nxt] = deps.get(nxt, 0) + 1
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)


def validate_outputs(edges: Sequence[Edge], grads: list[Any], fn: Node | None = None) -> None:
    """Sum broadcast gradients to their input's shape, cast to its dtype (validate_outputs).
    An error names `fn`, the Node that returned the gradients (the roots' check names none)."""
    TORCH_CHECK(
        len(grads) == len(edges),
        "invalid number of gradients - expected ",
        len(edges),
        ", but got ",
        len(grads),
    )
    for i, edge in enumerate(edges):
        if edge.function is None:
            continue
        grad = grads[i]
        if grad is None or not grad.defined():
            continue
        metadata = edge.function.input_metadata(edge.input_nr)
        if metadata is None:
            continue
        if getattr(grad.impl_.target_, "level_", 0) > metadata.vmap_level:
            grad = sum_batch_dims(grad, metadata.vmap_level)
        if grad.sizes() != metadata.shape:
            # only where the shapes differ (rare) does the message name the Node
            TORCH_CHECK(
                is_expandable_to(metadata.shape, grad.sizes()),
                f"Function {fn.name()} returned an " if fn is not None else "",
                "invalid gradient at index ",
                i,
                " - got ",
                list(grad.sizes()),
                " but expected shape compatible with ",
                list(metadata.shape),
            )
            grad = sum_to(grad, metadata.shape)
        if grad.scalar_type() != metadata.scalar_type:
            grad = grad.to(metadata.scalar_type)
        grads[i] = grad


def sum_batch_dims(grad: Any, level: int) -> Any:
    """A gradient batched at a vmap level that has ended, for an input that level did not batch:
    the sum of its samples, as broadcasting the input over the batch gives in torch, where
    autograd records the unwrapped values (Note [vmap below autograd]). Inside its vmap a
    batched gradient stays batched: it is a per-sample gradient (vmap(grad(f)))."""
    from tensortrace.aten.functorch.batched_tensor_impl import maybeGetBatchedImpl
    from tensortrace.aten.functorch.dynamic_layer import is_level_alive
    from tensortrace.aten.generated import operators

    impl = maybeGetBatchedImpl(grad)
    while impl is not None and impl.level_ > level and not is_level_alive(impl.level_):
        grad = operators.sum_dim_IntList.call(impl.value_, [impl.bdim_], False, None)
        impl = maybeGetBatchedImpl(grad)
    return grad


def is_expandable_to(shape: Sequence[int], desired: Sequence[int]) -> bool:
    if len(shape) > len(desired):
        return False
    for size, target in zip(reversed(shape), reversed(desired)):
        if size != target and size != 1:
            return False
    return True


_sites: dict[tuple[str, str], FrameSite] = {}


def _site(kind: str, name: str) -> FrameSite:
    site = _sites.get((kind, name))
    if site is None:
        if kind == "evaluate":
            site = FrameSite(
                "autograd",
                f"autograd::engine::evaluate_function: {name}",
                ENGINE_CPP,
                "torch::autograd::Engine::evaluate_function",
                legacy="backward engine: run a GradFunction",
            )
        else:
            site = FrameSite(
                "autograd",
                name,
                FUNCTION_H,
                "torch::autograd::Node::operator()",
                legacy="GradFunction::apply",
            )
        _sites[(kind, name)] = site
    return site


def call_node(fn: Node, inputs: list[Any]) -> list[Any]:
    """Node::operator(): the RECORD_FUNCTION(name()) scope around apply()."""
    rec = recorder.current
    if rec is None:
        return fn.apply(inputs)
    site = _site("node", fn.name())
    return recorder.record_call(
        rec,
        site,
        {
            "record_function": True,
            "args": {
                "sequence_nr": fn.sequence_nr_,
                "grads": [t._trace_summary() if t is not None else None for t in inputs],
            },
        },
        fn.apply,
        (inputs,),
        end_args=lambda outputs: {
            "result": [t._trace_summary() if t is not None else None for t in outputs]
        },
    )


def _wrap_for_hook(t: Tensor | None) -> Any:
    return THPVariable_Wrap(t.copy()) if t is not None and t.defined() else None


def _unwrap_from_hook(obj: Any) -> Tensor | None:
    return obj.cdata if obj is not None else None


def call_tensor_pre_hooks(fn: Node, inputs: list[Any]) -> list[Any]:
    for output_nr, hook in list(fn.tensor_pre_hooks_.values()):
        if inputs[output_nr] is None:
            continue
        new = hook(_wrap_for_hook(inputs[output_nr]))
        if new is not None:
            inputs[output_nr] = _unwrap_from_hook(new)
    for output_nr, hook in list(fn.retains_grad_hooks_.items()):
        if inputs[output_nr] is not None:
            hook(inputs[output_nr])
    return inputs


def call_function(task: GraphTask, fn: Node, inputs: list[Any]) -> list[Any]:
    """Engine's call_function: hooks, the Node, then validate_outputs and post-hooks."""
    inputs = call_tensor_pre_hooks(fn, inputs)
    if fn.pre_hooks_:
        for hook in list(fn.pre_hooks_.values()):
            new = hook(tuple(_wrap_for_hook(t) for t in inputs))
            if new is not None:
                inputs = [_unwrap_from_hook(t) for t in new]
    grads_in = list(inputs) if fn.post_hooks_ else None
    outputs = call_node(fn, inputs)
    validate_outputs(fn.next_edges_, outputs, fn)
    if fn.post_hooks_:
        for hook in list(fn.post_hooks_.values()):
            new = hook(
                tuple(_wrap_for_hook(t) for t in outputs),
                tuple(_wrap_for_hook(t) for t in grads_in or ()),
            )
            if new is not None:
                outputs = [_unwrap_from_hook(t) for t in new]
    return outputs


def evaluate_function(task: GraphTask, fn: Node, inputs: InputBuffer, queue: ReadyQueue) -> None:
    exec_info = task.exec_info
    buffer = inputs.variables()
    if exec_info:
        info = exec_info.get(fn)
        if info is None or not info.needed:
            buffer = call_tensor_pre_hooks(fn, buffer)
        if info is not None:
            for input_nr, index in info.captures:
                task.captured_vars[index] = buffer[input_nr]
        if info is None or not info.needed:
            return
    outputs = call_function(task, fn, buffer)
    del buffer, inputs
    if not task.keep_graph:
        fn.release_variables()
    if AnomalyMode._enabled and AnomalyMode._check_nan:
        check_nan(fn, outputs)
    # a C++ variable_list holds one handle per entry: a gradient returned for two inputs (as
    # AddBackward0 returns grad) has two owners, so no buffer may accumulate into it in place
    # (can_accumulate_inplace's use_count() == 1); here each entry gets its own handle
    seen: set[int] = set()
    shared: set[int] = set()
    for o in outputs:
        if o is not None:
            (shared if id(o) in seen else seen).add(id(o))
    for i, output in enumerate(outputs):
        edge = fn.next_edges_[i]
        nxt = edge.function
        if nxt is None:
            continue
        if shared and id(output) in shared:
            output = output.copy()
        task.dependencies[nxt] -= 1
        ready = task.dependencies[nxt] == 0
        if exec_info:
            info = exec_info.get(nxt)
            if info is None or not info.should_execute():
                continue
        buf = task.not_ready.get(nxt)
        if buf is None:
            buf = InputBuffer(nxt.num_inputs())
        buf.add(edge.input_nr, output)
        if ready:
            task.not_ready.pop(nxt, None)
            queue.push(nxt, buf)
        else:
            task.not_ready[nxt] = buf
    outputs.clear()


def check_nan(fn: Node, outputs: list[Any]) -> None:
    """evaluate_function under anomaly mode: no gradient a Node returns may hold a NaN."""
    with grad_mode.set_grad_enabled(False):
        for i, output in enumerate(outputs):
            if output is not None and output.defined() and at.isnan(output).any().item():
                raise RuntimeError(
                    f"Function '{fn.name()}' returned nan values in its {i}th output."
                )


def _evaluate_anomaly(task: GraphTask, fn: Node, inputs: InputBuffer, queue: ReadyQueue) -> None:
    """thread_main's NodeGuard (the Node that Nodes made now take as parent) and, when the Node
    fails, GraphTask::set_exception's print_stack (Note [Anomaly mode costs one flag test when
    off])."""
    outer, current_evaluating_node.node = current_evaluating_node.node, fn
    try:
        _evaluate_traced(task, fn, inputs, queue)
    except Exception:
        print_stack(fn)
        raise
    finally:
        current_evaluating_node.node = outer


def _evaluate_traced(task: GraphTask, fn: Node, inputs: InputBuffer, queue: ReadyQueue) -> None:
    rec = recorder.current
    if rec is None:
        evaluate_function(task, fn, inputs, queue)
        return
    site = _site("evaluate", fn.name())
    begin = {
        "record_function": True,
        "args": {
            "node": fn._trace_summary(),
            # [name, count] of each Node still waiting for gradients
            "dependencies": [[n.name(), c] for n, c in task.dependencies.items() if c],
            "ready_queue": queue._trace_summary(),
        },
    }
    recorder.record_call(
        rec,
        site,
        begin,
        evaluate_function,
        (task, fn, inputs, queue),
        end_args=lambda _: {"ready_queue": queue._trace_summary()},
    )


class _CurrentGraphTask(threading.local):
    def __init__(self) -> None:
        self.task: GraphTask | None = None


_current = _CurrentGraphTask()


def current_graph_task() -> GraphTask | None:
    """The GraphTask the engine is running on this thread (graph_task.h's current_graph_task)."""
    return _current.task


class Engine:
    """The one engine (Engine::get_default_engine)."""

    def execute(
        self,
        roots: list[Edge],
        inputs: list[Tensor],
        keep_graph: bool,
        create_graph: bool,
        accumulate_grad: bool,
        outputs: Sequence[Edge] | None = None,
    ) -> list[Tensor | None]:
        validate_outputs(roots, inputs)
        task = GraphTask(keep_graph, create_graph)
        task.accumulate_grad = accumulate_grad
        skip_dummy = len(roots) == 1
        if skip_dummy:
            graph_root: Node = roots[0].function  # type: ignore[assignment]
            buffer = InputBuffer(graph_root.num_inputs())
            buffer.add(roots[0].input_nr, inputs[0])
        else:
            graph_root = GraphRoot(roots, inputs)
            buffer = InputBuffer(0)
        compute_dependencies(graph_root, task)
        if outputs:
            task.init_to_execute(graph_root, outputs, accumulate_grad)
        queue = ReadyQueue()
        queue.push(graph_root, buffer)
        del buffer, graph_root, inputs
        outer, _current.task = _current.task, task
        task.checkpoint_valid = not task.exec_info and (outer is None or outer.checkpoint_valid)
        # Note [Anomaly mode costs one flag test when off]: chosen once per backward
        evaluate = _evaluate_anomaly if AnomalyMode._enabled else _evaluate_traced
        with grad_mode.set_grad_enabled(create_graph):
            try:
                while not queue.empty():
                    fn, fn_inputs = queue.pop()
                    evaluate(task, fn, fn_inputs, queue)
                    del fn, fn_inputs
            finally:
                queue.heap.clear()
                task.not_ready.clear()
                _current.task = outer
        return task.captured_vars

    def is_checkpoint_valid(self) -> bool:
        """Engine::is_checkpoint_valid: False inside a backward that computes only some
        inputs' gradients (autograd.grad, backward(inputs=...)), which a reentrant
        checkpoint cannot serve."""
        task = _current.task
        return task is None or task.checkpoint_valid


_engine = Engine()


def get_default_engine() -> Engine:
    return _engine
