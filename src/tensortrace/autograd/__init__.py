"""autograd: the backward graph, its derivative formulas, the engine, and grad modes.

Mirrors `torch/csrc/autograd` and `torch/autograd`: importing it registers an Autograd and
ADInplaceOrView kernel for every operator (generated.py, which records the graph with the Nodes
generated from derivatives.yaml by gen_variable_type.py); engine.py runs the graph backward;
grad_mode.py holds the thread-local grad and inference modes. As `tensortrace.autograd` it is also
`torch.autograd`: backward, grad, no_grad, enable_grad, set_grad_enabled, inference_mode.
"""

from tensortrace.autograd.api import backward, grad
from tensortrace.autograd.function import Node
from tensortrace.autograd.generated import register_all
from tensortrace.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from tensortrace.autograd.gradcheck import GradcheckError, gradcheck

register_all()

__all__ = ["GradcheckError", "Node", "backward", "enable_grad", "grad", "gradcheck",
           "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "no_grad",
           "set_grad_enabled"]
