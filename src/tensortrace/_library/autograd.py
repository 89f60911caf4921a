"""The Autograd kernel custom_op registers: an autograd.Function around the operator.

Mirrors `torch/_library/autograd.py` (make_autograd_impl). Below the Autograd key the kernel
redispatches to the backend kernel (`keyset & _after_autograd_keyset`, with the autograd keys
excluded while it runs), so the operator's own CPU or CUDA kernel computes the forward, and
the user's setup_context and backward make the graph node, as a VariableType kernel does for a
native op.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from tensortrace._library import utils
from tensortrace._ops import OpOverload
from tensortrace.autograd import Function
from tensortrace.autograd.grad_mode import is_grad_enabled
from tensortrace.c10.dispatch_key import DispatchKeySet, after_autograd_keyset
from tensortrace.c10.local_dispatch_key_set import AutoDispatchBelowAutograd


class InfoProtocol(Protocol):
    _backward_fn: Callable[..., Any] | None
    _setup_context_fn: Callable[..., Any] | None


@dataclass
class Info:
    _backward_fn: Callable[..., Any] | None
    _setup_context_fn: Callable[..., Any] | None


def _any_requires_grad(*args: Any, **kwargs: Any) -> bool:
    return any(t.requires_grad for t in utils.iter_tensors(args, kwargs))


def make_autograd_impl(op: OpOverload, info: InfoProtocol) -> Callable[..., Any]:
    name = f"GeneratedBackwardFor_{op._namespace}_{op._opname}_{op._overloadname}"
    has_kwarg_only_args = utils.has_kwarg_only_args(op._schema)

    @dataclass
    class Metadata:
        keyset: DispatchKeySet
        keyword_only_args: dict[str, Any]

    def forward_no_grad(*args: Any) -> Any:
        metadata = args[-1]
        args = args[:-1]
        with AutoDispatchBelowAutograd():
            keyset = metadata.keyset
            return op.redispatch(
                keyset & after_autograd_keyset, *args, **metadata.keyword_only_args
            )

    def forward(ctx: Any, *args: Any) -> Any:
        metadata = args[-1]
        args = args[:-1]
        with AutoDispatchBelowAutograd():
            keyset = metadata.keyset
            kwargs = metadata.keyword_only_args
            result = op.redispatch(keyset & after_autograd_keyset, *args, **kwargs)
            if info._setup_context_fn:
                # the user sees every argument, the omitted ones at their defaults
                args, kwargs = utils.fill_defaults(op._schema, args, kwargs)
                if has_kwarg_only_args:
                    info._setup_context_fn(
                        ctx=ctx, inputs=args, keyword_only_inputs=kwargs, output=result
                    )
                else:
                    info._setup_context_fn(ctx=ctx, inputs=args, output=result)
            return result

    def backward(ctx: Any, *grads: Any) -> Any:
        if info._backward_fn:
            try:
                prev_needs_input_grad = ctx.needs_input_grad
                ctx.needs_input_grad = ctx.needs_input_grad[:-1]
                result = info._backward_fn(ctx, *grads)
            finally:
                ctx.needs_input_grad = prev_needs_input_grad
            if isinstance(result, tuple):
                return (*result, None)
            return result, None
        raise RuntimeError(
            f"Trying to backward through {op} but no autograd "
            f"formula was registered. "
            f"Please use register_autograd to add one."
        )

    generated: Any = type(
        name,
        (Function,),
        {"forward": staticmethod(forward), "backward": staticmethod(backward)},
    )

    # the dispatcher passes the keyword-only arguments as keywords, the rest positionally
    def autograd_impl(keyset: DispatchKeySet, *args: Any, **keyword_only_args: Any) -> Any:
        if utils.is_out(op):
            if is_grad_enabled() and _any_requires_grad(*args, **keyword_only_args):
                raise RuntimeError(
                    f"{op._opname}(): functions with out=... arguments don't "
                    "support automatic differentiation, but one of the arguments "
                    "requires grad."
                )
            return forward_no_grad(*args, Metadata(keyset, keyword_only_args))
        if is_grad_enabled() and _any_requires_grad(*args):
            return generated.apply(*args, Metadata(keyset, keyword_only_args))
        return forward_no_grad(*args, Metadata(keyset, keyword_only_args))

    return autograd_impl
