"""Anomaly mode: the forward's stack kept on each Node, NaN checks on what each Node returns.

Mirrors `torch/csrc/autograd/anomaly_mode.h` / `anomaly_mode.cpp` (AnomalyMode's two flags,
AnomalyMetadata), `torch/csrc/autograd/python_anomaly_mode.cpp` (PyAnomalyMetadata: store_stack,
assign_parent, print_stack, _print_stack), the bindings `torch.set_anomaly_enabled`,
`torch.is_anomaly_enabled`, `torch.is_anomaly_check_nan_enabled` (python_autograd.cpp), and
`torch/autograd/anomaly_mode.py` (detect_anomaly, set_detect_anomaly).

Note [Anomaly mode costs one flag test when off]
With anomaly mode off, a Node's constructor tests `AnomalyMode._enabled` once, the engine
tests it once per backward (to pick how it runs each Node) and once per Node after the Node ran
(evaluate_function's NaN check): nothing else. With it on, each Node made keeps the
forward's Python stack in its `metadata["traceback_"]` (and, when made while the engine runs
another Node, as a double backward does, that Node in `metadata["parent_"]`); after each Node
runs its outputs are checked for NaN (when check_nan); and when a Node fails, the engine warns
with the stack of the forward call that made it, then of each parent's.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from typing import Any

ANOMALY_TRACE_KEY = "traceback_"
ANOMALY_PARENT_KEY = "parent_"

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# what torch runs in C++ (the binding, dispatcher, kernels, autograd): its frames are not
# Python frames in torch, so they are not part of the forward's stack here either
_RUNTIME_DIRS = tuple(_PACKAGE + d + os.sep for d in ("trace", "c10", "aten", "autograd", "csrc"))
# but Function.apply is torch/autograd/function.py's, Python in torch too
_CUSTOM_FUNCTION = _PACKAGE + os.path.join("autograd", "custom_function.py")


class AnomalyMode:
    """anomaly_mode.h: process-wide flags (torch's are static members, not thread-local)."""

    _enabled = False
    _check_nan = True

    @staticmethod
    def is_enabled() -> bool:
        return AnomalyMode._enabled

    @staticmethod
    def should_check_nan() -> bool:
        return AnomalyMode._check_nan

    @staticmethod
    def set_enabled(enabled: bool, check_nan: bool = True) -> None:
        AnomalyMode._enabled = enabled
        AnomalyMode._check_nan = check_nan


class _CurrentNode(threading.local):
    """function.cpp's thread-local current_evaluating_node (NodeGuard sets it)."""

    def __init__(self) -> None:
        self.node: Any = None


current_evaluating_node = _CurrentNode()


def _runtime_frame(filename: str) -> bool:
    return (
        filename.startswith(_RUNTIME_DIRS) or filename.startswith("<traced")
    ) and filename != _CUSTOM_FUNCTION


def _warn(message: str) -> None:
    """TORCH_WARN from the engine: a UserWarning, shown at the first frame outside the
    runtime (torch's name the Python line running when C++ warned)."""
    frame = sys._getframe(0)
    level = 1
    while frame.f_back is not None and _runtime_frame(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, UserWarning, stacklevel=level)


def format_stack() -> list[str]:
    """torch.fx.traceback.format_stack as store_stack calls it: the Python stack, one string
    per frame, without the runtime's own frames at its end (torch's are C++)."""
    import traceback  # here: anomaly mode is rare, and nothing else at import needs it

    frames = traceback.extract_stack()[:-1]
    while frames and _runtime_frame(frames[-1].filename):
        frames.pop()
    return traceback.format_list(frames)


def store_stack(metadata: dict[str, Any]) -> None:
    """PyAnomalyMetadata::store_stack."""
    metadata[ANOMALY_TRACE_KEY] = format_stack()


def assign_parent(metadata: dict[str, Any]) -> None:
    """PyAnomalyMetadata::assign_parent: the Node the engine is running, if any."""
    parent = current_evaluating_node.node
    if parent is not None:
        metadata[ANOMALY_PARENT_KEY] = parent.py_object()


def record_node(node: Any) -> None:
    """Node's constructor under anomaly mode: `metadata()->store_stack(); assign_parent();`."""
    metadata = node.metadata
    store_stack(metadata)
    assign_parent(metadata)


def _print_stack(stack: list[str] | None, current_node_name: str, is_parent: bool) -> None:
    if stack is None:
        _warn(
            f"Error detected in {current_node_name}. No forward pass information available. "
            "Enable detect anomaly during forward pass for more information."
        )
        return
    msg = "".join(stack)
    if not is_parent:
        _warn(
            f"Error detected in {current_node_name}. Traceback of forward call that caused "
            f"the error:\n{msg}"
        )
    else:
        _warn(
            f"\n\nPrevious calculation was induced by {current_node_name}. Traceback of "
            f"forward call that induced the previous calculation:\n{msg}"
        )


def print_stack(node: Any) -> None:
    """PyAnomalyMetadata::print_stack: the Node's forward stack, then each parent's."""
    metadata = node.metadata
    _print_stack(metadata.get(ANOMALY_TRACE_KEY), node.name(), False)
    parent = metadata.get(ANOMALY_PARENT_KEY)
    while parent is not None:
        parent_metadata = parent.metadata
        _print_stack(parent_metadata.get(ANOMALY_TRACE_KEY), parent.name(), True)
        parent = parent_metadata.get(ANOMALY_PARENT_KEY)


# ---- the bindings (torch._C) ---------------------------------------------------------------------
def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """torch.set_anomaly_enabled(enabled, check_nan=True)."""
    for position, (name, value) in enumerate((("enabled", enabled), ("check_nan", check_nan))):
        if not isinstance(value, bool):
            raise TypeError(
                f"set_anomaly_enabled(): argument '{name}' (position {position + 1}) must be "
                f"bool, not {type(value).__name__}"
            )
    AnomalyMode.set_enabled(enabled, check_nan)


def is_anomaly_enabled() -> bool:
    """torch.is_anomaly_enabled()."""
    return AnomalyMode._enabled


def is_anomaly_check_nan_enabled() -> bool:
    """torch.is_anomaly_check_nan_enabled()."""
    return AnomalyMode._check_nan


# ---- torch/autograd/anomaly_mode.py ----------------------------------------------------------
class detect_anomaly:  # noqa: N801 - torch's name
    """Context manager: anomaly detection on inside it (and NaN checks, unless
    check_nan=False); warns on entry that it slows the program down."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn(
            "Anomaly Detection has been enabled. "
            "This mode will increase the runtime "
            "and should only be enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:  # noqa: N801 - torch's name
    """Anomaly detection on or off: as a function call, or as a context manager that puts
    the previous setting back on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


__all__ = ["detect_anomaly", "set_detect_anomaly"]
