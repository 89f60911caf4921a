"""Printing tensors the way torch prints them: `tensor([[0.4963, 0.7682, ...]])`.

Mirrors `torch/_tensor_str.py`.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _str(self: Any) -> str:
    data = self.cdata.numpy_view()
    body = np.array2string(data, precision=4, separator=", ", prefix="tensor(")
    return f"tensor({body})"
