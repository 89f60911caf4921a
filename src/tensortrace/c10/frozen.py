"""What `@dataclass(frozen=True, slots=True)` gives a class, written out once: the base of the
small immutable records made at import (TypeMeta, the schema's Type and Argument, autograd's
Formula...).

Note [Records written out, not made by dataclass]
dataclass() writes each class's __init__, __repr__, __eq__, __hash__, __setattr__ and
__delattr__ as source text and compiles it when the class is defined: ~3.8M instructions for a
frozen class with slots, most of `import tensortrace`'s cost per class. So the records made at
import are plain classes with `__slots__` and those methods written out, with dataclass's
behaviour: keyword or positional construction, `Name(field=value, ...)` reprs, equality
between instances of the same class by their fields in order, hashing by the same tuple,
FrozenInstanceError on assignment or deletion, and pickling and copying by their fields. This
base holds the methods that do not depend on the fields.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from typing import Any


class Frozen:
    """Assignment and deletion refused, state read and restored by the fields (`__slots__`)."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    # the fields in order: each record lists them as __match_args__ (a subclass that adds none
    # has __slots__ = ())
    def __getstate__(self) -> list[Any]:
        names: tuple[str, ...] = self.__match_args__  # type: ignore[attr-defined]
        return [getattr(self, name) for name in names]

    def __setstate__(self, state: list[Any]) -> None:
        names: tuple[str, ...] = self.__match_args__  # type: ignore[attr-defined]
        for name, value in zip(names, state):
            object.__setattr__(self, name, value)
