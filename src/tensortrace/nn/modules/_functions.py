"""torch.nn.modules._functions: the autograd.Functions nn.Module's machinery uses.

Mirrors `torch/nn/modules/_functions.py` (BackwardHookFunction only; SyncBatchNorm and the
cross-map LRN are not modelled). BackwardHookFunction is the identity: its Node,
BackwardHookFunctionBackward, is where torch.utils.hooks.BackwardHook hangs a Module's full
backward hooks.
"""

from __future__ import annotations

from typing import Any

from tensortrace.autograd.custom_function import Function


class BackwardHookFunction(Function):
    @staticmethod
    def forward(ctx: Any, *args: Any) -> Any:
        # a tensor that needs no gradient gets none, so the hooks see None for it
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx: Any, *args: Any) -> Any:
        return args
