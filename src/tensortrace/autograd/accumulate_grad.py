"""AccumulateGrad: the Node at a leaf, which puts the gradient that reaches it into `.grad`.

Mirrors `torch/csrc/autograd/functions/accumulate_grad.h` / `.cpp` (accumulateGrad: steal the
incoming gradient when nobody else holds it, else clone it to the leaf's layout, else add it in
place), `torch/csrc/autograd/variable.cpp` (grad_accumulator: one per leaf, held weakly by the
leaf so that it dies with the graph) and `torch/csrc/autograd/utils/grad_layout_contract.h`.
"""

from __future__ import annotations

import weakref
from typing import Any

from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd import grad_mode
from tensortrace.autograd.function import UINT64_MAX, Node, check_input_count
from tensortrace.autograd.variable import materialize_autograd_meta
from tensortrace.csrc.python_variable import TensorBase, THPVariable_Wrap


class AccumulateGrad(Node):
    """Its sequence_nr is UINT64_MAX: once ready, it runs before any other Node."""

    __slots__ = ("variable_",)

    def __init__(self, variable: Tensor) -> None:
        super().__init__(sequence_nr=UINT64_MAX)
        self.variable_ = variable.copy()  # an owner, as torch's AccumulateGrad holds its leaf
        self.add_input_metadata(variable)
        # a leaf's register_hook hooks live in its AutogradMeta (shared, not copied)
        self.tensor_pre_hooks_ = materialize_autograd_meta(variable).hooks_  # type: ignore[assignment]

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def _trace_summary(self) -> str:
        # every AccumulateGrad has sequence_nr UINT64_MAX: the trace names it by its leaf
        return f"{self.name()}(variable={self.variable_.unsafeGetTensorImpl().trace_name})"

    @property
    def variable(self) -> object:
        """The leaf, as Python sees it (grad_fn.next_functions[0][0].variable)."""
        return THPVariable_Wrap(self.variable_.copy())

    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        check_input_count(self, grads, 1)
        new_grad = grads[0]
        if new_grad is None or not new_grad.defined():
            return []
        if not self.variable_.requires_grad():
            return []
        meta = materialize_autograd_meta(self.variable_)
        accumulate_grad(self.variable_, meta, new_grad, 1)
        if meta.post_acc_grad_hooks_:
            call_post_acc_grad_hooks(meta.post_acc_grad_hooks_, self.variable_)
        return []


def call_post_acc_grad_hooks(hooks: dict[int, Any], variable: Tensor) -> None:
    """PyFunctionTensorPostAccGradHooks (python_hook.cpp): each hook gets the leaf; one that
    returns something else than None (or the leaf itself) is an error."""
    tensor = THPVariable_Wrap(variable.copy())
    for hook in list(hooks.values()):
        res = hook(tensor)
        if res is None or res is tensor:
            continue
        if not isinstance(res, TensorBase):  # check_single_result
            raise TypeError(f"expected Variable, but hook returned '{type(res).__name__}'")
        raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def obeys_layout_contract(grad: Tensor, variable: Tensor) -> bool:
    """grad_layout_contract.h: the gradient has the leaf's strides (or is contiguous)."""
    if is_non_overlapping_and_dense(variable):
        for size, g_stride, v_stride in zip(grad.sizes(), grad.strides(), variable.strides()):
            if size != 1:
                if g_stride != v_stride:
                    return False
            elif g_stride == 0:
                return False
        return True
    return grad.is_contiguous()


def clone_obey_contract(new_grad: Tensor, variable: Tensor) -> Tensor:
    if is_non_overlapping_and_dense(variable):
        return new_grad.new_empty_strided(
            variable.sizes(), variable.strides(), dtype=variable.scalar_type()
        ).copy_(new_grad)
    return new_grad.clone(memory_format="contiguous_format")


def is_non_overlapping_and_dense(t: Tensor) -> bool:
    """TensorImpl::is_non_overlapping_and_dense: some permutation of it is contiguous."""
    if t.is_contiguous():
        return True
    dims = sorted(s for s in zip(t.strides(), t.sizes()) if s[1] != 1)
    expected = 1
    for stride, size in dims:
        if stride != expected:
            return False
        expected *= size
    return True


def accumulate_grad(variable: Tensor, meta: Any, new_grad: Tensor, num_expected_refs: int) -> None:
    """AccumulateGrad::accumulateGrad."""
    variable_grad = meta.grad_
    enabled = grad_mode.is_grad_enabled()
    if variable_grad is None or not variable_grad.defined():
        if (
            not enabled
            and new_grad.use_count() <= num_expected_refs
            and obeys_layout_contract(new_grad, variable)
        ):
            # nobody else can see new_grad: steal it (as a detached alias)
            meta.grad_ = new_grad.detach()
        else:
            meta.grad_ = clone_obey_contract(new_grad, variable)
    elif not enabled:
        variable_grad.add_(new_grad)  # `variable_grad += new_grad`
    else:
        meta.grad_ = variable_grad.add(new_grad)


def grad_accumulator(variable: Tensor) -> AccumulateGrad:
    """impl::grad_accumulator: the leaf's AccumulateGrad, made on first use, held weakly."""
    meta = materialize_autograd_meta(variable)
    ref = meta.grad_accumulator_
    existing = ref() if ref is not None else None
    if existing is not None:
        return existing
    node = AccumulateGrad(variable)
    meta.grad_accumulator_ = weakref.ref(node)
    return node


def try_get_grad_accumulator(variable: Tensor) -> AccumulateGrad | None:
    meta = variable.unsafeGetTensorImpl().autograd_meta_
    ref = meta.grad_accumulator_ if meta is not None else None
    return ref() if ref is not None else None  # type: ignore[no-any-return]
