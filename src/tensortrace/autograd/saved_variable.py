"""SavedVariable: a tensor a Node keeps for its backward, with the version it had then.

Mirrors `torch/csrc/autograd/saved_variable.h` / `saved_variable.cpp`. Saving records the
tensor's version; unpacking checks it is unchanged (else torch's "modified by an inplace
operation" error) and that the graph was not freed (else "Trying to backward through the graph a
second time").

Note [A saved output keeps only its data]
A Node that saves one of its own outputs (exp, sigmoid, tanh save `result`) must not own that
output's TensorImpl: the output's AutogradMeta owns the Node (its grad_fn), and the two would own
each other. So, as saved_variable.cpp does with `variable.tensor_data()`, the Node keeps a new
TensorImpl over the same storage and version counter, with no autograd metadata; unpacking makes
a fresh tensor whose grad_fn is the Node itself (what double backward needs).
"""

from __future__ import annotations

import re
import weakref
from typing import Any

from tensortrace.aten.functorch.batched_tensor_impl import BatchedTensorImpl
from tensortrace.aten.saved_tensor_hooks import SavedTensorDefaultHooks
from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd import forward_grad, grad_mode
from tensortrace.autograd.accumulate_grad import grad_accumulator
from tensortrace.autograd.anomaly_mode import AnomalyMode
from tensortrace.autograd.python_saved_variable_hooks import (
    PySavedVariableHooks,
    get_default_hooks,
)
from tensortrace.autograd.variable import AutogradMeta
from tensortrace.c10.dispatch_key import autograd_dispatch_keyset
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.intrusive_ptr import intrusive_ptr
from tensortrace.c10.tensor_impl import TensorImpl
from tensortrace.csrc.dtype import get_dtype
from tensortrace.trace import schema

ERR_BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed when "
    "you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)

_BACKWARD_SUFFIX = r"Backward\d*$"  # Note [Patterns compiled on first use]


def tensor_data(t: Tensor) -> Tensor:
    """Variable::tensor_data: a new TensorImpl on the same storage and version counter."""
    impl = t.unsafeGetTensorImpl()
    if isinstance(impl, BatchedTensorImpl):  # shallow_copy_and_detach keeps the impl's type
        new: TensorImpl = BatchedTensorImpl(impl.value_.copy(), impl.bdim_, impl.level_)
        new.set_version_counter(impl.version_counter_)
        return Tensor(intrusive_ptr.make(new))
    new = TensorImpl(impl.storage_.copy(), impl.key_set_, impl.data_type_)
    new.set_sizes_and_strides(impl.sizes_, impl.strides_, impl.storage_offset_)
    new.set_version_counter(impl.version_counter_)
    return Tensor(intrusive_ptr.make(new))


def type_string(t: Tensor) -> str:
    """Tensor::toString() as a saved-variable error prints it: torch.FloatTensor."""
    legacy = {
        "float32": "Float",
        "float64": "Double",
        "float16": "Half",
        "bfloat16": "BFloat16",
        "int64": "Long",
        "int32": "Int",
        "int16": "Short",
        "int8": "Char",
        "uint8": "Byte",
        "bool": "Bool",
    }
    name = str(get_dtype(t.scalar_type())).removeprefix("torch.")
    return f"torch.{legacy.get(name, name)}Tensor"


# the live forward AD levels, read in place (every saved tensor of every graph asks)
_fw_levels = forward_grad.ForwardADLevel.all_levels


class SavedVariable:
    __slots__ = (
        "data_",
        "saved_version_",
        "output_nr_",
        "requires_grad_",
        "is_leaf_",
        "is_output_",
        "saved_original_",
        "grad_fn_",
        "was_default_constructed_",
        "hooks_",
        "grad_accumulator_",
        "fw_grad_",
    )

    def __init__(self, variable: Tensor | None = None, is_output: bool = False) -> None:
        self.was_default_constructed_ = variable is None or not variable.defined()
        self.hooks_: PySavedVariableHooks | None = None
        self.fw_grad_: Tensor | None = None
        if self.was_default_constructed_:
            self.data_ = Tensor()
            return
        assert variable is not None
        impl = variable.unsafeGetTensorImpl()
        meta = impl.autograd_meta_
        TORCH_CHECK(
            not is_inference_tensor(variable),
            "Inference tensors cannot be saved for backward. Please do not use Tensors "
            "created in inference mode in computation tracked by autograd. To work "
            "around this, you can make a clone to get a normal tensor and use it in "
            "autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.",
        )
        self.saved_version_ = impl.version_counter_.version
        self.output_nr_ = meta.output_nr_ if meta is not None else 0
        self.requires_grad_ = bool(meta is not None and meta.requires_grad_)
        self.is_leaf_ = meta is None or meta.grad_fn_ is None
        self.is_output_ = is_output
        self.grad_fn_: Any = None
        self.saved_original_ = False
        # save_metadata's fw_grad_: a saved output is a new TensorImpl on the data, so its
        # tangent is kept here and set again on unpack (double backward under forward AD:
        # forward over reverse, as jvp(grad(f)) computes a Hessian-vector product)
        if _fw_levels:  # Note [Forward AD costs one read when off]
            self.fw_grad_ = forward_grad.fw_grad(variable)
        # Note [Saved tensor hooks cost one flag test until first used]
        if SavedTensorDefaultHooks.is_initialized and SavedTensorDefaultHooks.is_enabled():
            hooks = get_default_hooks()
            # a wrapped number (the 2 of `x * 2`) is never handed to the user's hooks
            if hooks is not None and not impl.is_wrapped_number_:
                self.save_metadata(variable)
                self.set_hooks_and_pack_data(hooks, variable)
                self.data_ = Tensor()
                return
        if is_output:
            # Note [A saved output keeps only its data]
            self.saved_original_ = False
            self.data_ = tensor_data(variable)
        else:
            self.saved_original_ = True
            self.data_ = variable.copy()  # an owner: the input stays alive with the graph

    def save_metadata(self, data: Tensor) -> None:
        """What unpack needs to rebuild the tensor the hooks give back as this one."""
        self.grad_accumulator_ = None
        if self.is_leaf_:
            if self.requires_grad_:
                self.grad_accumulator_ = weakref.ref(grad_accumulator(data))
        elif not self.is_output_:
            self.grad_fn_ = data.unsafeGetTensorImpl().autograd_meta_.grad_fn_  # type: ignore[union-attr]

    def set_hooks_and_pack_data(self, hooks: PySavedVariableHooks, data: Tensor) -> None:
        self.hooks_ = hooks
        version_counter = data.unsafeGetTensorImpl().version_counter_
        version = version_counter.version
        with grad_mode.no_grad():
            hooks.call_pack_hook(data.detach() if self.saved_original_ else data)
        TORCH_CHECK(
            version == version_counter.version,
            "A saved tensor pack hook is modifying its input in place. Tensors provided as "
            "input to pack hook cannot be modified by in-place operations as this can lead to "
            "unexpected side-effects. Please open an issue if you need to perform in-place "
            "operations on the input to a pack hook.",
        )

    def unpack_with_hooks(self, hooks: PySavedVariableHooks, saved_for: object) -> Tensor:
        """unpack() when the tensor went through pack/unpack hooks: no version check (the
        hooks may have copied it); the tensor the unpack hook returns, made this saved
        tensor's again (its grad_fn and output_nr, or the leaf's AccumulateGrad)."""
        grad_fn = self.grad_fn_
        if not self.is_leaf_ and grad_fn is None:
            grad_fn = saved_for
        data = hooks.call_unpack_hook()
        if grad_fn is None and not self.requires_grad_ and not data.requires_grad():
            return data
        var = tensor_data(data)  # make_variable: a new TensorImpl on the data
        meta = AutogradMeta(requires_grad=True if grad_fn is not None else self.requires_grad_)
        if grad_fn is not None:
            meta.grad_fn_ = grad_fn
            meta.output_nr_ = self.output_nr_
        else:
            meta.grad_accumulator_ = self.grad_accumulator_
        var.unsafeGetTensorImpl().autograd_meta_ = meta
        return self._with_fw_grad(var)

    def unpack(self, saved_for: object = None) -> Tensor:
        if self.was_default_constructed_:
            return Tensor()
        if self.hooks_ is not None:
            return self.unpack_with_hooks(self.hooks_, saved_for)
        TORCH_CHECK(self.data_.defined(), ERR_BACKWARD_TWICE)
        data_meta = self.data_.unsafeGetTensorImpl().autograd_meta_
        if self.saved_original_:
            grad_fn = data_meta.grad_fn_ if data_meta is not None else None
        else:
            grad_fn = saved_for if not self.is_leaf_ else None
        current = self.data_.unsafeGetTensorImpl().version_counter_.version
        if current != self.saved_version_:
            shape = list(self.data_.sizes())
            message = (
                "one of the variables needed for gradient computation has been modified "
                f"by an inplace operation: [{type_string(self.data_)} "
                f"[{', '.join(map(str, shape))}]]"
            )
            if grad_fn is not None:
                name = re.sub(_BACKWARD_SUFFIX, "", grad_fn.name())  # type: ignore[attr-defined]
                message += f", which is output {self.output_nr_} of {name},"
            message += f" is at version {current}; expected version {self.saved_version_} instead."
            if not AnomalyMode._enabled:
                message += (
                    " Hint: enable anomaly detection to find the operation that "
                    "failed to compute its gradient, with "
                    "torch.autograd.set_detect_anomaly(True, check_nan=False)."
                )
            else:
                message += (
                    " Hint: the backtrace further above shows the operation that failed to "
                    "compute its gradient. The variable in question was changed in there or "
                    "anywhere later. Good luck!"
                )
            raise RuntimeError(message)
        if self.saved_original_:
            return self.data_
        # a saved output: a fresh tensor on the data, whose grad_fn is the Node that saved it
        var = tensor_data(self.data_)
        if self.requires_grad_:
            meta = AutogradMeta(requires_grad=True)
            meta.grad_fn_ = grad_fn
            meta.output_nr_ = self.output_nr_
            var.unsafeGetTensorImpl().autograd_meta_ = meta
        return self._with_fw_grad(var)

    def _with_fw_grad(self, var: Tensor) -> Tensor:
        """unpack's last step: the saved tangent set on the unpacked tensor, while its level
        lives."""
        if self.fw_grad_ is not None and forward_grad.any_level():
            forward_grad.set_fw_grad(var, self.fw_grad_, 0, False)
        return var

    def reset_data(self) -> None:
        """Node::release_variables: the graph is freed, the data (or the packed object) goes."""
        self.hooks_ = None
        self.grad_fn_ = None
        self.fw_grad_ = None
        self.data_ = Tensor()

    def _trace_summary(self) -> str:
        return f"SavedVariable({schema.render_summary(self.data_._trace_summary())})"


def is_inference_tensor(t: Tensor) -> bool:
    """TensorImpl::is_inference: made in inference mode, so without the autograd keys."""
    return not t.key_set().repr_ & _AUTOGRAD_BITS


_AUTOGRAD_BITS = autograd_dispatch_keyset.repr_
