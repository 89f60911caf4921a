"""The at:: namespace: `at.empty(...)`, `at.add(...)`, filled in from native_functions.yaml.

Mirrors the generated `build/aten/src/ATen/Functions.h`. Every function here is made by
`tensortrace.aten.codegen`; `_ops` maps `name.overload` to the OperatorHandle
(`at::_ops::add_Tensor`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tensortrace.aten.dispatcher import OperatorHandle

_ops: dict[str, OperatorHandle] = {}

if TYPE_CHECKING:
    # the functions codegen sets here, as the type checker sees them. Only for it: at run time
    # an undeclared name raises the plain AttributeError, because CPython 3.11 specializes no
    # attribute read of a module that defines __getattr__, and native code reads `at.X` per op
    def __getattr__(name: str) -> Any: ...
