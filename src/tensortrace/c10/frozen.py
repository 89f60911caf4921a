"""What `@dataclass` gives a class, written out once: `Record` (mutable, as `@dataclass`) and
`Frozen` (as `@dataclass(frozen=True)`), the bases of the small records made at import
(TypeMeta, the schema's Type and Argument, autograd's Formula, the allocator history's
entries...).

Note [Records written out, not made by dataclass]
dataclass() writes each class's __init__, __repr__, __eq__, __hash__, __setattr__ and
__delattr__ as source text and compiles it when the class is defined: ~3.8M instructions for a
frozen class with slots, most of `import tensortrace`'s cost per class. So the records made at
import are plain classes that list their fields once, as `__match_args__` (and `__slots__`
where dataclass had slots=True), and write out only their `__init__`; these bases give them
dataclass's behaviour from that list: `Name(field=value, ...)` reprs, equality between
instances of the same class by their fields in order; a Record is unhashable (eq without
frozen), a Frozen one hashes by the same tuple, refuses assignment and deletion with
FrozenInstanceError, and pickles and copies by its fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import FrozenInstanceError
from operator import attrgetter
from typing import Any, ClassVar


class Record:
    """A mutable record: repr and equality by its fields (`__match_args__`), no hash."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()
    # the fields' values as one tuple, read by one C call (an attrgetter of several names is
    # no method: call it on the class, `type(self)._field_values(self)`). Defining __eq__ and
    # no __hash__ leaves a Record unhashable, as a dataclass with eq and not frozen
    _field_values: ClassVar[Callable[[Any], tuple[Any, ...]]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names = cls.__match_args__
        if not names:  # a base that adds no fields (Frozen itself)
            cls._field_values = lambda record: ()
        elif len(names) == 1:  # attrgetter of one name gives the value, not a tuple
            get_one = attrgetter(names[0])
            cls._field_values = lambda record: (get_one(record),)
        else:
            cls._field_values = attrgetter(*names)  # type: ignore[assignment]

    def __repr__(self) -> str:
        fields = zip(self.__match_args__, type(self)._field_values(self))
        return f"{type(self).__qualname__}({', '.join(f'{n}={v!r}' for n, v in fields)})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return type(self)._field_values(self) == type(self)._field_values(other)


class Frozen(Record):
    """An immutable record: also hashed by its fields; assignment and deletion refused, state
    read and restored by the fields."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(type(self)._field_values(self))

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self) -> list[Any]:
        return list(type(self)._field_values(self))

    def __setstate__(self, state: list[Any]) -> None:
        for name, value in zip(self.__match_args__, state):
            object.__setattr__(self, name, value)
