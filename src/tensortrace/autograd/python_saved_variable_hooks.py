"""Python pack/unpack hooks on a SavedVariable, and the torch._C._autograd functions that set them.

Mirrors `torch/csrc/autograd/python_saved_variable_hooks.h` / `.cpp` (PySavedVariableHooks:
call_pack_hook keeps what the pack hook returns, call_unpack_hook checks the unpack hook gives a
Tensor; PyDefaultSavedVariableHooks: the default hooks of the stack in ATen's
SavedTensorDefaultHooks) and the `_push_saved_tensors_default_hooks` ... bindings of
`torch/csrc/autograd/init.cpp`, which `torch.autograd.graph` calls.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.saved_tensor_hooks import SavedTensorDefaultHooks
from tensortrace.aten.tensor_body import Tensor
from tensortrace.csrc.python_variable import TensorBase, THPVariable_Wrap


class PySavedVariableHooks:
    """One SavedVariable's pair of hooks, and what its pack hook returned."""

    __slots__ = ("pack_hook_", "unpack_hook_", "data_")

    def __init__(self, pack_hook: Any, unpack_hook: Any) -> None:
        self.pack_hook_ = pack_hook
        self.unpack_hook_ = unpack_hook
        self.data_: Any = None

    def call_pack_hook(self, tensor: Tensor) -> None:
        self.data_ = self.pack_hook_(THPVariable_Wrap(tensor.copy()))

    def call_unpack_hook(self) -> Tensor:
        res = self.unpack_hook_(self.data_)
        if not isinstance(res, TensorBase):  # TORCH_CHECK_TYPE
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(res).__name__}"
            )
        return res.cdata.copy()


def get_default_hooks() -> PySavedVariableHooks | None:
    """PyDefaultSavedVariableHooks::get_hooks: a PySavedVariableHooks of the pair on top."""
    hooks = SavedTensorDefaultHooks.get_hooks()
    if hooks is None:
        return None
    return PySavedVariableHooks(*hooks)


# ---- torch._C._autograd ------------------------------------------------------------------------
def _push_saved_tensors_default_hooks(pack_hook: Any, unpack_hook: Any) -> None:
    SavedTensorDefaultHooks.lazy_initialize()
    SavedTensorDefaultHooks.push_hooks(pack_hook, unpack_hook)


def _pop_saved_tensors_default_hooks() -> None:
    SavedTensorDefaultHooks.pop_hooks()


def _saved_tensors_hooks_is_enabled() -> bool:
    return SavedTensorDefaultHooks.is_enabled()


def _saved_tensors_hooks_enable() -> None:
    SavedTensorDefaultHooks.enable()


def _saved_tensors_hooks_disable(message: str) -> None:
    SavedTensorDefaultHooks.disable(message)


def _saved_tensors_hooks_get_disabled_error_message() -> str | None:
    return SavedTensorDefaultHooks.get_disabled_error_message()


__all__ = ["PySavedVariableHooks", "get_default_hooks"]
