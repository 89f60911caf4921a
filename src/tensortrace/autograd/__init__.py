"""autograd: the backward graph, its derivative formulas, the engine, and grad modes.

Mirrors `torch/csrc/autograd` and `torch/autograd`: importing it registers an Autograd and
ADInplaceOrView kernel for every operator (written by `python -m tensortrace.torchgen` to
autograd/generated/ from derivatives.yaml: the Backward Nodes in functions.py, the kernels that
record the graph with them in variable_type.py); engine.py runs the graph backward;
grad_mode.py holds the thread-local grad and inference modes. As `tensortrace.autograd` it is also
`torch.autograd`: backward, grad, Function, no_grad, enable_grad, set_grad_enabled,
inference_mode, detect_anomaly, set_detect_anomaly; functional (jacobian, hessian, vjp, jvp,
vhp, hvp) and graph (saved tensors hooks) on first use.
"""

from tensortrace.aten import dispatcher as _dispatcher
from tensortrace.autograd import autograd_not_implemented_fallback as _fallback
from tensortrace.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from tensortrace.autograd.api import backward, grad
from tensortrace.autograd.custom_function import Function
from tensortrace.autograd.function import Node
from tensortrace.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from tensortrace.autograd.gradcheck import GradcheckError, gradcheck
from tensortrace.c10.dispatch_key import DispatchKey as _DispatchKey
from tensortrace.torchgen.loader import load

load("tensortrace.autograd.generated")  # registers the Autograd and ADInplaceOrView kernels
_dispatcher.singleton().registerFallback(  # for the operators torch.library defines
    _DispatchKey.Autograd, _fallback.basic_autograd_not_implemented_fallback
)

__all__ = [
    "Function",
    "GradcheckError",
    "Node",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "grad",
    "gradcheck",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_detect_anomaly",
    "set_grad_enabled",
]


def _is_checkpoint_valid() -> bool:
    """torch.autograd._is_checkpoint_valid (utils/checkpoint.py's reentrant variant asks)."""
    from tensortrace.autograd.engine import get_default_engine

    return get_default_engine().is_checkpoint_valid()


def __getattr__(name: str) -> object:
    """torch.autograd.profiler (and profiler_util) and torch.autograd.functional, imported on
    first use: nothing at import needs them (Note [Subpackages imported on first use] in
    tensortrace/__init__.py)."""
    if name in ("profiler", "profiler_util", "functional", "graph", "forward_ad"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
