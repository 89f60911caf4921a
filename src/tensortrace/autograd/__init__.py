"""autograd: the Autograd and ADInplaceOrView dispatch keys' kernels and autograd metadata.

Mirrors `torch/csrc/autograd`. Importing it registers a kernel for every operator
(generated.py); backward formulas and the engine are not modelled yet.
"""

from tensortrace.autograd.generated import register_all

register_all()
