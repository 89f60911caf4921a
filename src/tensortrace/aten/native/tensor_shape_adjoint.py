"""The transpose properties: x.T (numpy_T), x.H (matrix_H), x.mH and adjoint().

Mirrors `aten/src/ATen/native/TensorShape.cpp` (numpy_T, matrix_H, mT, mH, adjoint, _adjoint).
All are views: a permute or a transpose of the last two dimensions, plus conj() for complex
tensors (H, mH). T on a tensor that is not 2-D still reverses its dimensions, with torch's
deprecation warning; on 0-D tensors T, H, mT and mH are the identity, with a warning.
"""

from __future__ import annotations

import os
import sys
import warnings
from types import FrameType

from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/TensorShape.cpp"


def TORCH_WARN_ONCE(message: str) -> None:
    """TORCH_WARN_ONCE: a UserWarning (Python's filters show it once per place)."""
    warnings.warn(message, UserWarning, stacklevel=user_stacklevel())


_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def user_stacklevel() -> int:
    """The stacklevel of the first frame outside tensortrace: where the user's code called us
    (torch's warnings from C++ name the Python line that made the call)."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and (
        frame.f_code.co_filename.startswith(_PACKAGE)
        or frame.f_code.co_filename.startswith("<traced")
    ):
        frame, level = frame.f_back, level + 1
    return level


@native_function(SOURCE, name="numpy_T", legacy="at::native::numpy_T")
def numpy_T(self: Tensor) -> Tensor:
    n = self.dim()
    if n != 2 and n != 0:
        TORCH_WARN_ONCE(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
            "reverse the dimensions of a tensor."
        )
    if n == 0:
        TORCH_WARN_ONCE(
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."
        )
    return self.permute(list(range(n - 1, -1, -1)))


@native_function(SOURCE, name="matrix_H", legacy="at::native::matrix_H")
def matrix_H(self: Tensor) -> Tensor:
    ndim = self.dim()
    if ndim == 0:
        TORCH_WARN_ONCE("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
    TORCH_CHECK(
        ndim == 0 or ndim == 2,
        "tensor.H is only supported on matrices (2-D tensors). Got ",
        ndim,
        "-D tensor.",
        " For batches of matrices, consider using tensor.mH" if ndim > 2 else "",
    )
    if ndim == 0:
        return self
    return self.transpose(-2, -1).conj()  # a view with the conj bit for complex tensors


def _adjoint(self: Tensor, transpose: bool, name: str) -> Tensor:
    ndim = self.dim()
    TORCH_CHECK(
        ndim != 1,
        "tensor.",
        name,
        " is only supported on matrices or batches of matrices. Got 1-D tensor.",
    )
    if ndim == 0:
        if transpose:
            TORCH_WARN_ONCE(
                "Tensor.mT is deprecated on 0-D tensors. This function is the "
                "identity in these cases."
            )
        else:
            TORCH_WARN_ONCE("Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().")
        return self
    self_t = self.transpose(-2, -1)
    return self_t if transpose else self_t.conj()  # conj(): the identity on real dtypes


def mT(self: Tensor) -> Tensor:
    """at::native::mT (registered in tensor_shape_inplace.py, which calls this)."""
    return _adjoint(self, True, "mT")


@native_function(SOURCE, name="mH", legacy="at::native::mH")
def mH(self: Tensor) -> Tensor:
    return _adjoint(self, False, "mH")


@native_function(SOURCE, name="adjoint", legacy="at::native::adjoint")
def adjoint(self: Tensor) -> Tensor:
    return _adjoint(self, False, "adjoint()")


@native_function(
    "aten/src/ATen/native/TensorProperties.cpp", name="numel", legacy="at::native::numel"
)
def numel(self: Tensor) -> int:
    """torch.numel(x): the product of the sizes."""
    return self.numel()
