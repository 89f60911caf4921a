"""Calling an operator from Python by its schema: what `torch.ops.aten.add.Tensor(a, b)` runs.

Mirrors `torch/csrc/jit/python/pybind_utils.h` (createStackForSchema, argumentToIValue, toIValue,
toPyObject, invokeOperatorFromPython) and `FunctionSchema::formatTypeMismatchMsg` /
`findErrorInKwargs` (aten/src/ATen/core/function_schema_inl.h).

Note [torch.ops skips the Python binding]
`torch.add(a, b)` goes through the generated binding: PythonArgParser picks a signature, the
dispatch_add lambda calls at::add, which calls the OperatorHandle. `torch.ops.aten.add.Tensor`
is the JIT's way in: the Python arguments become the schema's argument stack (one IValue per
argument, defaults filled in) and the operator is called boxed, straight through the
dispatcher. So its trace opens with the `aten::add` frame of Dispatcher::call, with no
`python` frame before it, and an OpOverloadPacket (`torch.ops.aten.add(a, b)`) picks its
overload by trying each schema in turn, not by the binding's signatures.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensortrace.aten.dispatcher import OperatorHandle
from tensortrace.aten.function_schema import Argument, FunctionSchema, Type
from tensortrace.aten.scalar_ops import wrapped_scalar_tensor
from tensortrace.aten.tensor_body import Tensor as AtTensor
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.csrc.device_arg import toDevice
from tensortrace.csrc.dtype import dtype, get_dtype, layout, memory_format
from tensortrace.csrc.generator import Generator
from tensortrace.csrc.python_binding_helpers import scalar_arg
from tensortrace.csrc.python_bindings import NUMBERS_AS_TENSORS
from tensortrace.csrc.python_variable import TensorBase, THPVariable_Wrap

_PYBIND_CAST = (
    "Unable to cast Python instance of type {} to C++ type '?' (#define "
    "PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)"
)


class schema_match_error(RuntimeError):  # noqa: N801, N818 - torch::jit::schema_match_error
    pass


class _CastError(Exception):
    """py::cast_error ("Cast error details") or a Python error ("Python error details")."""

    def __init__(self, details: str, python: bool = False) -> None:
        super().__init__(details)
        self.details = details
        self.python = python


# c10::Type::repr_str of the schema types: the "Expected a value of type '...'" text
_REPR = {
    "Tensor": "Tensor",
    "Scalar": "number",
    "int": "int",
    "SymInt": "int",
    "float": "float",
    "bool": "bool",
    "str": "str",
    "ScalarType": "int",
    "Layout": "int",
    "MemoryFormat": "int",
    "Device": "Device",
    "Generator": "Generator",
    "Storage": "Storage",
    "complex": "complex",
}


def type_repr(t: Type) -> str:
    text = _REPR.get(t.base, t.base)
    if t.elem_optional:
        text = f"Optional[{text}]"
    if t.is_list:
        text = f"List[{text}]"
    return f"Optional[{text}]" if t.optional else text


def _is_number(obj: Any) -> bool:
    return type(obj) in (int, float, bool, complex)


def _to_element(obj: Any, base: str, allow_numbers_as_tensors: bool) -> Any:
    """toIValue for one (non-list, non-None) value of schema type `base`."""
    if base == "Tensor":
        if isinstance(obj, TensorBase):
            return obj.cdata
        if allow_numbers_as_tensors and _is_number(obj):
            return wrapped_scalar_tensor(scalar_arg(obj))
        raise _CastError(f"Unable to cast {obj} to Tensor")
    if base == "Scalar":
        if _is_number(obj):
            return obj
        if isinstance(obj, TensorBase) and obj.dim() == 0:
            return obj.item()
        raise _CastError(f"Cannot cast {obj} to number")
    if base in ("int", "SymInt"):
        if isinstance(obj, int):
            return int(obj)
        if isinstance(obj, TensorBase) and obj.dim() == 0 and not obj.is_floating_point():
            return int(obj.item())
    elif base == "float":
        if isinstance(obj, (int, float)):
            return float(obj)
    elif base == "bool":
        if isinstance(obj, bool):
            return obj
    elif base in ("str", "Dimname"):
        if isinstance(obj, str):
            return obj
    elif base == "ScalarType":
        if isinstance(obj, dtype):
            return obj.scalar_type
        if isinstance(obj, int):
            return ScalarType(obj)
    elif base == "Device":
        if isinstance(obj, (str, int)) or type(obj).__name__ == "Device":
            return toDevice(obj)
    elif base == "Layout":
        if isinstance(obj, layout):
            return obj.name
    elif base == "MemoryFormat":
        if isinstance(obj, memory_format):
            return obj.name
    elif base == "Generator":
        if isinstance(obj, Generator):
            return obj._cdata
    else:
        return obj
    raise _CastError(_PYBIND_CAST.format(type(obj)))


def to_ivalue(obj: Any, t: Type, allow_numbers_as_tensors: bool = False) -> Any:
    """toIValue(obj, type, N): a Python value as the schema type wants it."""
    if obj is None and t.optional:
        return None
    if not t.is_list:
        return _to_element(obj, t.base, allow_numbers_as_tensors)
    if t.list_size and isinstance(obj, int) and t.base in ("int", "SymInt", "bool"):
        return [obj] * t.list_size  # `int[2] stride` takes one int for both (argument.N())
    if isinstance(obj, TensorBase) and t.base in ("int", "SymInt"):
        return [int(v) for v in obj.tolist()]
    try:
        items = list(obj)
    except TypeError as exc:
        raise _CastError(f"TypeError: {exc}", python=True) from None
    out: list[Any] = []
    for item in items:
        if item is None and t.elem_optional:
            out.append(None)
        else:
            out.append(_to_element(item, t.base, allow_numbers_as_tensors))
    return out


def format_type_mismatch_msg(
    schema: FunctionSchema, argument: Argument, actual: str, position: int, value: str
) -> str:
    return (
        f"{schema.qualified_name}() Expected a value of type '{type_repr(argument.type)}' for "
        f"argument '{argument.name}' but instead found type '{actual}'.\n"
        f"Position: {position}\nValue: {value}\nDeclaration: {schema.qualified_str()}"
    )


def argument_to_ivalue(schema: FunctionSchema, position: int, obj: Any, numbers: bool) -> Any:
    argument = schema.arguments[position]
    try:
        return to_ivalue(obj, argument.type, numbers)
    except _CastError as exc:
        head = format_type_mismatch_msg(schema, argument, type(obj).__name__, position, repr(obj))
        tail = "\n Python error details: " if exc.python else "\nCast error details: "
        raise schema_match_error(head + tail + exc.details) from None


def _default(argument: Argument) -> Any:
    """The default's IValue: `int[2] padding=0` is the list [0, 0] (the parser repeats it)."""
    value = argument.default_value()
    t = argument.type
    if t.is_list and t.list_size and isinstance(value, int):
        return [value] * t.list_size
    return value


def find_error_in_kwargs(schema: FunctionSchema, kwargs: Sequence[str]) -> str:
    names = [a.name for a in schema.arguments]
    for kwarg in kwargs:
        if kwarg not in names:
            return (
                f"Unknown keyword argument '{kwarg}' for operator '{schema.qualified_name}'. "
                f"Schema: {schema.qualified_str()}"
            )
    for name in names:
        if name in kwargs:
            return (
                f"Argument '{name}' specified both as positional and keyword argument. "
                f"Schema: {schema.qualified_str()}"
            )
    return ""


def create_stack_for_schema(
    schema: FunctionSchema, args: Sequence[Any], kwargs: dict[str, Any], numbers: bool = False
) -> list[Any]:
    """createStackForSchema: the schema's full argument list, or a schema_match_error."""
    arguments = schema.arguments
    given = len(args) + len(kwargs)
    if given > len(arguments):
        raise schema_match_error(
            f"{schema.qualified_name}() expected at most {len(arguments)} argument(s) but "
            f"received {given} argument(s). Declaration: {schema.qualified_str()}"
        )
    stack: list[Any] = []
    for i, obj in enumerate(args):
        if arguments[i].kwarg_only:
            raise schema_match_error(
                f"{schema.qualified_name}() takes {i} positional argument(s) but {len(args)} "
                f"was/were given.  Declaration: {schema.qualified_str()}"
            )
        stack.append(argument_to_ivalue(schema, i, obj, numbers))
    consumed = 0
    for i in range(len(stack), len(arguments)):
        argument = arguments[i]
        if argument.name in kwargs:
            stack.append(argument_to_ivalue(schema, i, kwargs[argument.name], numbers))
            consumed += 1
        elif argument.has_default:
            stack.append(_default(argument))
        else:
            raise schema_match_error(
                f"{schema.qualified_name}() is missing value for argument '{argument.name}'. "
                f"Declaration: {schema.qualified_str()}"
            )
    if consumed != len(kwargs):
        raise schema_match_error(find_error_in_kwargs(schema, list(kwargs)))
    return stack


def to_py_object(value: Any) -> Any:
    """toPyObject: an at::Tensor as its Python Tensor; a tuple as a tuple, a list as a list."""
    if isinstance(value, AtTensor):
        return THPVariable_Wrap(value)
    if isinstance(value, tuple):
        return tuple(to_py_object(v) for v in value)
    if isinstance(value, list):
        return [to_py_object(v) for v in value]
    if isinstance(value, ScalarType):
        return get_dtype(value)
    return value


def allows_numbers_as_tensors(schema: FunctionSchema) -> bool:
    """opAllowsNumbersAsTensors: aten's add, mul, sub, div (and aliases) take numbers."""
    return schema.namespace == "aten" and schema.name in NUMBERS_AS_TENSORS


def get_op_with_stack(
    operations: Sequence[OperatorHandle], args: Sequence[Any], kwargs: dict[str, Any]
) -> tuple[OperatorHandle, list[Any]]:
    """getOpWithStack: one operation's stack, else the first overload whose schema takes
    the arguments (a packet), else every overload's error."""
    if len(operations) == 1:
        op = operations[0]
        try:
            numbers = allows_numbers_as_tensors(op.schema)
            return op, create_stack_for_schema(op.schema, args, kwargs, numbers)
        except schema_match_error as exc:  # reaches Python as the RuntimeError it derives from
            raise RuntimeError(str(exc)) from None
    errors: list[str] = []
    for op in operations:
        try:
            numbers = allows_numbers_as_tensors(op.schema)
            return op, create_stack_for_schema(op.schema, args, kwargs, numbers)
        except schema_match_error as exc:
            errors.append(str(exc))
    message = "Overloaded torch operator invoked from Python failed to match any schema:\n"
    raise RuntimeError(message + "".join(f"{e}\n\n" for e in errors))


def invoke_operator_from_python(
    operations: Sequence[OperatorHandle], args: Sequence[Any], kwargs: dict[str, Any]
) -> Any:
    """invokeOperatorFromPython: match, then Dispatcher::call with the stack (Note [torch.ops
    skips the Python binding])."""
    op, stack = get_op_with_stack(operations, args, kwargs)
    return to_py_object(op.call(*stack))
