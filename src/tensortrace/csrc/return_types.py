"""torch.return_types: the named tuples of ops that return several tensors.

Mirrors the generated `torch/csrc/autograd/generated/python_return_types.cpp` and
`torch/csrc/utils/structseq.cpp`. A schema such as
`max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)` gets a
struct-sequence type `torch.return_types.max` (and `max_out` for its out= overload): a tuple
subclass whose items are also attributes (`r.values`, `r.indices`), printed one field a line.
The types are made when the bindings are generated and live in this module
(`tensortrace.return_types.max`).
"""

from __future__ import annotations

import sys
from typing import Any

from tensortrace.aten.function_schema import FunctionSchema

TP_MODULE = "torch.return_types"  # the tp_name prefix PyTorch prints


class structseq(tuple[Any, ...]):  # PyStructSequence
    """A tuple with named fields: the base of every return type."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    n_fields = n_sequence_fields = 0
    n_unnamed_fields = 0

    def __new__(cls, values: Any) -> structseq:
        values = tuple(values)
        if len(values) != len(cls._fields):
            raise TypeError(
                f"{TP_MODULE}.{cls.__name__}() takes a {len(cls._fields)}-sequence "
                f"({len(values)}-sequence given)"
            )
        return super().__new__(cls, values)

    def __repr__(self) -> str:
        """returned_structseq_repr: the type name, then `field=repr(value)` one per line."""
        fields = ",\n".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
        return f"{TP_MODULE}.{type(self).__name__}(\n{fields})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (tuple(self),))


def _field(i: int) -> property:
    return property(lambda self: tuple.__getitem__(self, i))


def get(name: str, fields: tuple[str, ...]) -> type[structseq]:
    """The return type `name` with these fields, made once and kept in this module."""
    module = sys.modules[__name__]
    existing = getattr(module, name, None)
    if isinstance(existing, type) and issubclass(existing, structseq):
        return existing
    namespace: dict[str, Any] = {
        "__slots__": (),
        "_fields": fields,
        "n_fields": len(fields),
        "n_sequence_fields": len(fields),
        "__module__": __name__,
        "__qualname__": name,
    }
    for i, field in enumerate(fields):
        namespace[field] = _field(i)
    cls = type(name, (structseq,), namespace)
    setattr(module, name, cls)
    return cls


def for_schema(name: str, schema: FunctionSchema | None) -> type[structseq] | None:
    """The return type of a schema with several named returns, else None (a plain tuple)."""
    if not has_structseq(schema):
        return None
    return get(name, schema.return_names)  # type: ignore[union-attr]


def has_structseq(schema: FunctionSchema | None) -> bool:
    """Whether for_schema gives the schema a type: it has several returns, all named. The
    generator writes None where it has not, rather than a call at import (~1,600 of them)."""
    return schema is not None and len(schema.returns) >= 2 and bool(schema.return_names)
