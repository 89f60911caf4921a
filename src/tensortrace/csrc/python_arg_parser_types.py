"""ParameterType: the types a binding's signature string can name, and their schema spellings.

Mirrors `enum class ParameterType` of `torch/csrc/utils/python_arg_parser.h` and the type table
of FunctionParameter's constructor (python_arg_parser.cpp). Split out of python_arg_parser.py.
"""

from __future__ import annotations

from enum import Enum


class ParameterType(Enum):
    TENSOR = "Tensor"
    SCALAR = "Number"
    INT64 = "int"
    SYM_INT = "SymInt"
    DOUBLE = "float"
    BOOL = "bool"
    INT_LIST = "tuple of ints"
    FLOAT_LIST = "tuple of floats"
    SCALARTYPE = "torch.dtype"
    LAYOUT = "torch.layout"
    DEVICE = "torch.device"
    GENERATOR = "torch.Generator"
    MEMORY_FORMAT = "torch.memory_format"
    TENSOR_LIST = "tuple of Tensors"
    STRING = "str"
    PYOBJECT = "object"
    STORAGE = "torch.Storage"


_TYPES = {
    "Tensor": ParameterType.TENSOR,
    "Scalar": ParameterType.SCALAR,
    "int64_t": ParameterType.INT64,
    "int": ParameterType.INT64,
    "SymInt": ParameterType.SYM_INT,
    "double": ParameterType.DOUBLE,
    "float": ParameterType.DOUBLE,
    "bool": ParameterType.BOOL,
    "IntArrayRef": ParameterType.INT_LIST,
    "SymIntArrayRef": ParameterType.INT_LIST,
    "ArrayRef<double>": ParameterType.FLOAT_LIST,
    "ScalarType": ParameterType.SCALARTYPE,
    "Layout": ParameterType.LAYOUT,
    "Device": ParameterType.DEVICE,
    "Generator": ParameterType.GENERATOR,
    "MemoryFormat": ParameterType.MEMORY_FORMAT,
    "TensorList": ParameterType.TENSOR_LIST,
    "c10::string_view": ParameterType.STRING,
    "str": ParameterType.STRING,
    "Storage": ParameterType.STORAGE,
    "PyObject*": ParameterType.PYOBJECT,
}
