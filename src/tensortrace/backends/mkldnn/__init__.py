"""torch.backends.mkldnn (oneDNN). Mirrors `torch/backends/mkldnn/__init__.py`."""

from __future__ import annotations

import sys

from tensortrace.aten.context import check_bool, globalContext
from tensortrace.backends import ContextProp, PropModule


def is_available() -> bool:
    """Whether this build has oneDNN: no (its convolutions are the native ones)."""
    return False


def _set(attr: str, name: str):  # type: ignore[no-untyped-def]
    return lambda v: setattr(globalContext(), attr, check_bool(v, name))


class MkldnnModule(PropModule):
    enabled = ContextProp(
        lambda: globalContext().user_enabled_mkldnn,
        _set("user_enabled_mkldnn", "set_enabled_mkldnn"),
    )
    deterministic = ContextProp(
        lambda: globalContext().deterministic_mkldnn,
        _set("deterministic_mkldnn", "set_deterministic_mkldnn"),
    )


sys.modules[__name__] = MkldnnModule(sys.modules[__name__], __name__)

enabled: bool
deterministic: bool
