"""The at:: namespace: `at.empty(...)`, `at.add(...)`, filled in from native_functions.yaml.

Mirrors the generated `build/aten/src/ATen/Functions.h`. Every function here is made by
`tensortrace.aten.codegen`; `_ops` maps `name.overload` to the OperatorHandle
(`at::_ops::add_Tensor`).
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.dispatcher import OperatorHandle

_ops: dict[str, OperatorHandle] = {}

