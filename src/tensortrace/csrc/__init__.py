"""csrc: the Python binding layer (torch/csrc).

Mirrors `torch/csrc`: the Python tensor object (THPVariable), the argument parser, and the
bindings generated from native_functions.yaml. Importing it installs the Tensor methods and
builds the torch.<op> functions.
"""

from tensortrace.aten import OPERATORS
from tensortrace.c10.device import Device
from tensortrace.csrc import (
    python_linalg_functions,
    python_torch_functions,
    python_variable_methods,
)
from tensortrace.csrc.dtype import dtype, layout, memory_format
from tensortrace.csrc.generator import Generator
from tensortrace.csrc.python_arg_parser import PYTHON_TYPES
from tensortrace.csrc.python_variable import TensorBase
from tensortrace.csrc.storage import TypedStorage, UntypedStorage

PYTHON_TYPES.update({"Tensor": TensorBase, "dtype": dtype, "layout": layout,
                     "memory_format": memory_format, "device": Device, "Generator": Generator,
                     "Storage": (UntypedStorage, TypedStorage)})

python_variable_methods.install(OPERATORS)
python_torch_functions.install(OPERATORS)
python_linalg_functions.install(OPERATORS)
