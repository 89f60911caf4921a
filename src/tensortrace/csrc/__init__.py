"""csrc: the Python binding layer (torch/csrc).

Mirrors `torch/csrc`: the Python tensor object (THPVariable), the argument parser, and the
bindings generated from native_functions.yaml. Importing it installs the Tensor methods and
builds the torch.<op> functions.
"""

from tensortrace.csrc import python_torch_functions, python_variable_methods
from tensortrace.torchgen.loader import load

_generated = load("tensortrace.csrc.generated")
python_variable_methods.install(_generated["python_variable_methods"].METHODS,
                                _generated["python_variable_methods"].OPERATOR_METHODS)
python_torch_functions.install(_generated["python_torch_functions_0"].FUNCTIONS)
