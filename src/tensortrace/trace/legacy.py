"""Reading traces written before the runtime recorded structured summaries.

No PyTorch counterpart (torch.profiler's traces are not meant to be read back). Traces of
format 1 written before `trace/schema.py` existed carry each tensor argument as the text the
runtime rendered (`_h1: TensorImpl#2 [3, 4] torch.float32`, `Tensor(TensorImpl#2, sizes=[3, 4],
Float)`). This module turns exactly those texts back into the structured summaries that newer
traces record, once, when such a file is loaded, so that the replay never reads rendered text.
A string that does not match one of the five shapes whole is left as it is.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tensortrace.trace import schema

_INTS = r"\[(?:-?\d+(?:, -?\d+)*)?\]"
_HANDLE = re.compile(rf"_h(\d+): ((?:TensorImpl)#\d+) ({_INTS}) (\S+)")
_TENSOR = re.compile(rf"Tensor\((TensorImpl#\d+), sizes=({_INTS}), (\w+)\)")
_TENSOR_IMPL = re.compile(
    rf"(TensorImpl#\d+)\(sizes=({_INTS}), strides=({_INTS}), offset=(\d+), (\w+)\)"
)
_STORAGE_IMPL = re.compile(r"(StorageImpl#\d+)\((\d+) bytes, refcount=(-?\d+)\)")
_AUTOGRAD_META = re.compile(
    r"AutogradMeta\(requires_grad=(True|False), grad_fn=(\w+), base=(TensorImpl#\d+|None)\)"
)
MAX_DEPTH = 64  # args nest a few levels; deeper data is left alone (the loader bounds it)


def upgrade_text(text: str) -> Any:
    """The structured summary a rendered text stands for, or the text itself."""
    if text == "Tensor(undefined)":
        return schema.summary(schema.TENSOR, impl=None)
    if (m := _HANDLE.fullmatch(text)) is not None:
        return schema.summary(
            schema.HANDLE, handle=int(m[1]), impl=m[2], sizes=json.loads(m[3]), dtype=m[4]
        )
    if (m := _TENSOR.fullmatch(text)) is not None:
        return schema.summary(schema.TENSOR, impl=m[1], sizes=json.loads(m[2]), dtype=m[3])
    if (m := _TENSOR_IMPL.fullmatch(text)) is not None:
        return schema.summary(
            schema.TENSOR_IMPL,
            object=m[1],
            sizes=json.loads(m[2]),
            strides=json.loads(m[3]),
            offset=int(m[4]),
            dtype=m[5],
        )
    if (m := _STORAGE_IMPL.fullmatch(text)) is not None:
        return schema.summary(
            schema.STORAGE_IMPL, object=m[1], nbytes=int(m[2]), refcount=int(m[3])
        )
    if (m := _AUTOGRAD_META.fullmatch(text)) is not None:
        return schema.summary(
            "AutogradMeta",
            requires_grad=m[1] == "True",
            grad_fn=None if m[2] == "None" else m[2],
            base=None if m[3] == "None" else m[3],
        )
    return text


def upgrade_value(value: Any, depth: int = 0) -> Any:
    """`value` (a frame's args or outcome) with every rendered summary in it made structured."""
    kind = type(value)
    if kind is str:
        return upgrade_text(value) if len(value) < 400 else value
    if depth >= MAX_DEPTH:
        return value
    if kind is dict:
        return {k: upgrade_value(v, depth + 1) for k, v in value.items()}
    if kind is list:
        return [upgrade_value(v, depth + 1) for v in value]
    return value
