"""torch.nn: modules, parameters, functional, init and utils, built on the public tensortrace API.

Mirrors `torch/nn/__init__.py`. `import tensortrace.nn as nn`, `tensortrace.nn.functional as F`
and `nn.utils` work as in torch; everything here calls tensortrace the way user code does, so a
training step traces down through the binding, dispatcher, autograd and kernels like any other
program.
"""

from tensortrace.nn import functional, init, modules, utils
from tensortrace.nn.modules import *
from tensortrace.nn.parameter import Parameter

__all__ = [*modules.__all__, "Parameter", "functional", "init", "utils"]
