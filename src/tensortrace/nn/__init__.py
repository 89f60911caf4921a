"""torch.nn: modules, parameters, functional and init, built on the public tensortrace API.

Mirrors `torch/nn/__init__.py`. `import tensortrace.nn as nn` and `tensortrace.nn.functional as F`
work as in torch; everything here calls tensortrace the way user code does, so a training step
traces down through the binding, dispatcher, autograd and kernels like any other program.
"""

from tensortrace.nn import functional, init, modules
from tensortrace.nn.modules import *
from tensortrace.nn.parameter import Parameter

__all__ = [*modules.__all__, "Parameter", "functional", "init"]
