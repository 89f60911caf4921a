"""nn.utils.skip_init: build a module without running its parameter initialization.

Mirrors `torch/nn/utils/init.py`: the module is constructed on the meta device (its init
functions touch no data there), then given uninitialized memory on the requested device with
Module.to_empty.
"""

from __future__ import annotations

import inspect
from typing import Any

from tensortrace.nn.modules.module import Module


def skip_init(module_cls: Any, *args: Any, **kwargs: Any) -> Module:
    """An instance of `module_cls` whose parameters and buffers are left uninitialized.

    The module must accept a `device` keyword argument (every built-in module with
    parameters does).
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")

    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)  # type: ignore[no-any-return]
