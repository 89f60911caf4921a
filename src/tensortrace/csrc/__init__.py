"""csrc: the Python binding layer (torch/csrc).

Mirrors `torch/csrc`: the Python tensor object (THPVariable), the argument parser, and the
bindings generated from native_functions.yaml (csrc/generated/, written by
`python -m tensortrace.torchgen`). Importing it installs the Tensor methods and builds the
torch.<op> functions, torch._C._nn, torch.linalg, torch.fft and torch.special.
"""

from tensortrace.csrc import (
    device,
    python_fft_functions,
    python_linalg_functions,
    python_nn_functions,
    python_special_functions,
    python_torch_functions,
    python_variable_methods,
)
from tensortrace.torchgen.loader import load

_generated = load("tensortrace.csrc.generated")
python_variable_methods.install(
    _generated["python_variable_methods"].METHODS,
    _generated["python_variable_methods"].OPERATOR_METHODS,
)
python_torch_functions.install(_generated["python_torch_functions_0"].FUNCTIONS)
python_nn_functions.install(_generated["python_nn_functions"].FUNCTIONS)
python_linalg_functions.install(_generated["python_linalg_functions"].FUNCTIONS)
python_fft_functions.install(_generated["python_fft_functions"].FUNCTIONS)
python_special_functions.install(_generated["python_special_functions"].FUNCTIONS)
device.install()
