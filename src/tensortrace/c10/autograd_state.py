"""The per-thread autograd flags: grad mode, inference mode and forward grad mode.

Mirrors `c10/core/AutogradState.h` (AutogradState: grad_mode, inference_mode) and the parts of
`c10/core/InferenceMode.h` and `c10/core/TensorImpl.cpp` that live in c10: a TensorImpl made in
inference mode is an *inference tensor*: it has no autograd dispatch keys and no version counter.
See Note [Grad mode is thread-local] in autograd/grad_mode.py.
"""

from __future__ import annotations

import threading


class AutogradState(threading.local):
    def __init__(self) -> None:
        self.grad_mode = True
        self.inference_mode = False
        # fw_grad_mode: forward AD reads tangents (off inside a custom Function's forward)
        self.fw_grad_mode = True


autograd_state = AutogradState()


class InferenceTensorVersion:
    """An inference tensor has no version counter (its VariableVersion is empty): an in-place
    update is allowed only inside inference mode, and there is no version to read."""

    __slots__ = ()

    @property
    def version(self) -> int:
        raise RuntimeError("Inference tensors do not track version counter.")

    def bump(self) -> None:
        if not autograd_state.inference_mode:
            raise RuntimeError(
                "Inplace update to inference tensor outside InferenceMode is not "
                "allowed.You can make a clone to get a normal tensor before doing "
                "inplace update.See https://github.com/pytorch/rfcs/pull/17 for "
                "more details."
            )

    def current_version(self) -> int:
        return self.version


INFERENCE_VERSION = InferenceTensorVersion()
