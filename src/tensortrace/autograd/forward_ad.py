"""torch.autograd.forward_ad: dual tensors for forward-mode AD.

Mirrors `torch/autograd/forward_ad.py`: a level is entered (dual_level), make_dual attaches a
tangent to a primal (aten::_make_dual, a view of the primal that holds the tangent), every op
with a forward formula computes its output's tangent as it runs (the generated Autograd
kernels, autograd/forward_ad_type.py), and unpack_dual reads it back (aten::_unpack_dual). On
exit, every tangent of the level is deleted (autograd/forward_grad.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from tensortrace.autograd import forward_grad
from tensortrace.autograd.grad_mode import _DecoratorContextManager

if TYPE_CHECKING:  # the Python-level Tensor (torch.Tensor); tensortrace imports autograd first
    from tensortrace._tensor import Tensor

__all__ = [
    "UnpackedDualTensor",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
    "dual_level",
]

# Global variable used to make the python API simpler to use
_current_level = -1


def enter_dual_level() -> int:
    """Enter a new forward grad level; it becomes the default level of the functions here."""
    global _current_level
    new_level = forward_grad.enter_dual_level()
    if new_level != _current_level + 1:
        raise RuntimeError(
            "Entering a new forward AD level but the current level "
            "is not valid. Make sure you did not modify it directly."
        )
    _current_level = new_level
    return new_level


def exit_dual_level(*, level: int | None = None) -> None:
    """Exit a forward grad level, deleting every tangent of it (only the last one entered)."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one "
            "that was created. This is not supported."
        )
    forward_grad.exit_dual_level(level)
    _current_level = level - 1


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A new tensor aliased to `tensor` with `tangent` as its forward gradient (as-is if laid
    out as `tensor`, else copied). Backward differentiable."""
    import tensortrace as torch

    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level "
            "exists, make sure to enter_dual_level() first."
        )
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    return torch._make_dual(tensor, tangent, level=level)  # type: ignore[no-any-return]


class UnpackedDualTensor(NamedTuple):
    """Namedtuple returned by :func:`unpack_dual`: the primal and tangent of a dual tensor."""

    primal: Tensor
    tangent: Tensor | None


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """(primal, tangent): a view of the primal, and the tangent as-is (None if it has none)."""
    import tensortrace as torch

    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    primal, dual = torch._unpack_dual(tensor, level=level)
    return UnpackedDualTensor(primal, dual)


class dual_level(_DecoratorContextManager):  # noqa: N801 - torch's name
    """Context manager for forward AD: all forward AD computation happens inside one."""

    def __enter__(self) -> int:  # type: ignore[override]
        return enter_dual_level()

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        exit_dual_level()


# Private helper functions
_is_fwd_grad_enabled = forward_grad.is_fwd_grad_enabled


class _set_fwd_grad_enabled(_DecoratorContextManager):  # noqa: N801 - torch's name
    """Enable or disable reading tangents (torch._C._set_fwd_grad_enabled)."""

    def __init__(self, mode: bool) -> None:
        self.prev = _is_fwd_grad_enabled()
        forward_grad.set_fwd_grad_enabled(mode)

    def clone(self) -> _set_fwd_grad_enabled:
        return type(self)(_is_fwd_grad_enabled())

    def __enter__(self) -> None:
        pass

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        forward_grad.set_fwd_grad_enabled(self.prev)
