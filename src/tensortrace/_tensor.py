"""torch.Tensor: the public tensor class, a subclass of the binding's TensorBase.

Mirrors `torch/_tensor.py`. Methods that PyTorch writes in Python live here (printing, numpy
conversion); everything else comes from the binding (csrc/python_variable_methods.py).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Sequence
from typing import Any

import tensortrace
import tensortrace as torch
from tensortrace._tensor_str import _str
from tensortrace.csrc import python_variable
from tensortrace.csrc.legacy_tensor_ctor import legacy_tensor_ctor
from tensortrace.csrc.python_variable import TensorBase
from tensortrace.functional import norm


class Tensor(TensorBase):
    __slots__ = ()

    def __init__(self, *args: Any) -> None:
        """torch.Tensor(...): the legacy constructor (THPVariable_pynew)."""
        python_variable.THPVariable_NewWithVar(self, legacy_tensor_ctor(*args))

    def _typed_storage(self) -> Any:
        """The TypedStorage of this tensor's storage, without the deprecation warning."""
        return torch.TypedStorage(wrap_storage=self.untyped_storage(), dtype=self.dtype)

    def is_shared(self) -> bool:
        """Whether the storage is in shared memory (always for CUDA)."""
        return bool(self._typed_storage()._is_shared())

    def share_memory_(self) -> Tensor:
        """Move the storage to shared memory (a no-op if already there, or on CUDA):
        Note [Sharing a storage swaps its memory]."""
        self._typed_storage()._share_memory_()
        return self

    def split(self, split_size: int | Sequence[int], dim: int = 0) -> Any:
        """An int splits into equal pieces (split.Tensor), a list into those sizes."""
        if isinstance(split_size, int):
            return TensorBase.split(self, split_size, dim)  # type: ignore[attr-defined]
        return self.split_with_sizes(split_size, dim)  # type: ignore[attr-defined]

    def norm(
        self, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None
    ) -> Any:
        """See torch.norm (torch/functional.py)."""
        return norm(self, p, dim, keepdim, dtype=dtype)

    def unique(
        self,
        sorted: bool = True,
        return_inverse: bool = False,  # noqa: A002
        return_counts: bool = False,
        dim: int | None = None,
    ) -> Any:
        """torch/_tensor.py: torch.unique with self as input."""
        return tensortrace.unique(
            self, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts, dim=dim
        )

    def unique_consecutive(
        self, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None
    ) -> Any:
        return tensortrace.unique_consecutive(
            self, return_inverse=return_inverse, return_counts=return_counts, dim=dim
        )

    def stft(
        self,
        n_fft: int,
        hop_length: int | None = None,
        win_length: int | None = None,
        window: Any = None,
        center: bool = True,
        pad_mode: str = "reflect",
        normalized: bool = False,
        onesided: bool | None = None,
        return_complex: bool | None = None,
        align_to_window: bool | None = None,
    ) -> Any:
        """torch/_tensor.py: torch.stft (torch/functional.py) with self as input."""
        return tensortrace.functional.stft(
            self,
            n_fft,
            hop_length,
            win_length,
            window,
            center,
            pad_mode,
            normalized,
            onesided,
            return_complex=return_complex,
            align_to_window=align_to_window,
        )

    def __repr__(self) -> str:
        return _str(self)

    __str__ = __repr__

    # ---- copy.deepcopy (torch/_tensor.py) --------------------------------------------------------
    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        """A new storage with the same bytes (one per storage, so views of one tensor stay
        views of one copy), viewed with the same offset, sizes and strides; requires_grad, .grad
        and the instance's attributes copied too. Without it copy.deepcopy would walk the
        TensorImpl down to the allocator's own blocks."""
        if not self.is_leaf:
            raise RuntimeError(
                "Only Tensors created explicitly by the user "
                "(graph leaves) support the deepcopy protocol at the moment.  "
                "If you were attempting to deepcopy a module, this may be because "
                "of a torch.nn.utils.weight_norm usage, "
                "see https://github.com/pytorch/pytorch/pull/103001"
            )
        if id(self) in memo:
            return memo[id(self)]
        with torch.no_grad():
            if self.device.type == "meta":  # torch clones what has no bytes to copy
                new_tensor = self.clone()  # type: ignore[attr-defined]
            else:
                new_storage = _deepcopy_storage(self, memo)
                new_tensor = self.new_empty([])  # type: ignore[attr-defined]
                new_tensor.set_(new_storage, self.storage_offset(), self.size(), self.stride())
                if self.is_conj():  # type: ignore[attr-defined]
                    new_tensor = new_tensor.conj_physical()
                if self.is_neg():  # type: ignore[attr-defined]
                    new_tensor = new_tensor.neg()
            if self.requires_grad:
                new_tensor.requires_grad_()
            if self.grad is not None:
                new_tensor.grad = self.grad.__deepcopy__(memo)
            if hasattr(self, "__dict__"):
                new_tensor.__dict__ = copy.deepcopy(self.__dict__, memo)
            memo[id(self)] = new_tensor
            return new_tensor

    # ---- iteration and conversion (torch/_tensor.py) -----------------------------------------
    def __iter__(self) -> Any:
        # unbind(0) makes every row at once, like torch (which skips __torch_function__ here)
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))  # type: ignore[attr-defined]

    def __format__(self, format_spec: str) -> str:
        if self.dim() == 0 and type(self) is Tensor:
            return self.item().__format__(format_spec)  # type: ignore[attr-defined]
        return object.__format__(self, format_spec)

    __array_priority__ = 1000  # NumPy defers binary operators to the tensor

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        if dtype is None:
            return self.numpy()  # type: ignore[attr-defined]
        return self.numpy().astype(dtype, copy=False)  # type: ignore[attr-defined]


def _deepcopy_storage(tensor: Tensor, memo: dict[Any, Any]) -> Any:
    """UntypedStorage.__deepcopy__ (torch/storage.py): a clone per storage, remembered in
    memo["torch"]; the bytes are copied on the storage's device, as a uint8 tensor over them."""
    storage = tensor.untyped_storage()  # type: ignore[attr-defined]
    seen = memo.setdefault("torch", {})
    key = id(storage._cdata.unsafeGetStorageImpl())
    if key not in seen:
        as_bytes = torch.empty(0, dtype=torch.uint8, device=tensor.device).set_(storage)
        seen[key] = as_bytes.clone().untyped_storage()
    return seen[key]


def _handle_torch_function_and_wrap_type_error_to_not_implemented(f: Any) -> Any:
    """A TypeError (no overload takes this operand) becomes NotImplemented, so Python tries
    the other operand's reflected method."""

    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except TypeError:
            return NotImplemented

    return wrapped


def _install_python_operators() -> None:
    """The operators torch/_tensor.py defines in Python (torch 2.x), on top of the binding's."""
    wrap = _handle_torch_function_and_wrap_type_error_to_not_implemented

    def __rsub__(self: Tensor, other: Any) -> Any:
        return torch.rsub(self, other)

    def __rmatmul__(self: Tensor, other: Any) -> Any:
        return torch.matmul(other, self)

    def __rdiv__(self: Tensor, other: Any) -> Any:
        return self.reciprocal() * other  # type: ignore[attr-defined]

    def __rmod__(self: Tensor, other: Any) -> Any:
        return torch.remainder(other, self)

    def __rpow__(self: Tensor, other: Any) -> Any:
        return torch.pow(other, self)

    def __floordiv__(self: Tensor, other: Any) -> Any:
        return torch.floor_divide(self, other)

    def __rfloordiv__(self: Tensor, other: Any) -> Any:
        return torch.floor_divide(other, self)

    # The binding's methods (TensorBase.pow, __idiv__, neg ...) are looked up at call time:
    # csrc installs them when the operator library is generated.
    def __itruediv__(self: Tensor, other: Any) -> Any:
        return TensorBase.__idiv__(self, other)  # type: ignore[attr-defined]

    def __pow__(self: Tensor, other: Any) -> Any:
        return TensorBase.pow(self, other)  # type: ignore[attr-defined]

    def __ipow__(self: Tensor, other: Any) -> Any:
        return TensorBase.pow_(self, other)  # type: ignore[attr-defined]

    def __neg__(self: Tensor) -> Any:
        return TensorBase.neg(self)  # type: ignore[attr-defined]

    def __abs__(self: Tensor) -> Any:
        return TensorBase.abs(self)  # type: ignore[attr-defined]

    rdiv = wrap(__rdiv__)
    installed = {
        "__rsub__": wrap(__rsub__),
        "__rmatmul__": wrap(__rmatmul__),
        "__rdiv__": rdiv,
        "__rtruediv__": rdiv,
        "__itruediv__": __itruediv__,
        "__pow__": wrap(__pow__),
        "__ipow__": wrap(__ipow__),
        "__rmod__": wrap(__rmod__),
        "__rpow__": wrap(__rpow__),
        "__floordiv__": wrap(__floordiv__),
        "__rfloordiv__": wrap(__rfloordiv__),
        "__neg__": __neg__,
        "__abs__": __abs__,
    }
    for name, method in installed.items():
        setattr(Tensor, name, method)


_install_python_operators()
python_variable.THPVariableClass = Tensor
