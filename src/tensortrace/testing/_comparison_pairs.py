"""assert_close's pairs: what compares two leaves (None, booleans, numbers, tensors).

The middle part of `torch/testing/_comparison.py` (PyTorch 2.13), split from
testing/_comparison.py for size. tensortrace has no quantized, sparse, jagged or distributed
tensors, so the branches of torch's TensorLikePair for those are left out.
"""

from __future__ import annotations

import abc
import cmath
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import numpy as np

import tensortrace as torch
from tensortrace.testing._comparison_errors import (
    ErrorMeta,
    get_tolerances,
    make_scalar_mismatch_msg,
    make_tensor_mismatch_msg,
)


class UnsupportedInputs(Exception):  # noqa: N818 - torch's name
    """Raised by a Pair's constructor when it cannot handle the inputs."""


class Pair(abc.ABC):
    """A pair of leaves to compare; its constructor raises UnsupportedInputs if it cannot."""

    def __init__(
        self, actual: Any, expected: Any, *, id: tuple[Any, ...] = (), **unknown_parameters: Any
    ) -> None:
        self.actual = actual
        self.expected = expected
        self.id = id
        self._unknown_parameters = unknown_parameters

    @staticmethod
    def _inputs_not_supported() -> NoReturn:
        raise UnsupportedInputs

    @staticmethod
    def _check_inputs_isinstance(*inputs: Any, cls: type | tuple[type, ...]) -> None:
        if not all(isinstance(input, cls) for input in inputs):
            Pair._inputs_not_supported()

    def _fail(self, type: type[Exception], msg: str, *, id: tuple[Any, ...] = ()) -> NoReturn:
        raise ErrorMeta(type, msg, id=self.id if not id and hasattr(self, "id") else id)

    @abc.abstractmethod
    def compare(self) -> None:
        """Compare the inputs; raise an ErrorMeta through _fail where they differ."""

    def extra_repr(self) -> Sequence[str | tuple[str, Any]]:
        return []

    def __repr__(self) -> str:
        head = f"{type(self).__name__}("
        tail = ")"
        body = [
            f"    {name}={value!s},"
            for name, value in [
                ("id", self.id),
                ("actual", self.actual),
                ("expected", self.expected),
                *[
                    (extra, getattr(self, extra)) if isinstance(extra, str) else extra
                    for extra in self.extra_repr()
                ],
            ]
        ]
        return "\n".join((head, *body, *tail))


class ObjectPair(Pair):
    def compare(self) -> None:
        try:
            equal = self.actual == self.expected
        except Exception as error:
            raise ErrorMeta(
                ValueError, f"{self.actual} == {self.expected} failed with:\n{error}.", id=self.id
            ) from error
        if not equal:
            self._fail(AssertionError, f"{self.actual} != {self.expected}")


class NonePair(Pair):
    def __init__(self, actual: Any, expected: Any, **other_parameters: Any) -> None:
        if not (actual is None or expected is None):
            self._inputs_not_supported()
        super().__init__(actual, expected, **other_parameters)

    def compare(self) -> None:
        if not (self.actual is None and self.expected is None):
            self._fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class BooleanPair(Pair):
    """Python and NumPy booleans."""

    def __init__(
        self, actual: Any, expected: Any, *, id: tuple[Any, ...], **other_parameters: Any
    ) -> None:
        self._check_inputs_isinstance(actual, expected, cls=(bool, np.bool_))
        actual, expected = (self._to_bool(b, id=id) for b in (actual, expected))
        super().__init__(actual, expected, **other_parameters)

    def _to_bool(self, bool_like: Any, *, id: tuple[Any, ...]) -> bool:
        if isinstance(bool_like, bool):
            return bool_like
        if isinstance(bool_like, np.bool_):
            return bool(bool_like.item())
        raise ErrorMeta(TypeError, f"Unknown boolean type {type(bool_like)}.", id=id)

    def compare(self) -> None:
        if self.actual is not self.expected:
            self._fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class NumberPair(Pair):
    """Python and NumPy numbers; the tolerances are those of int64, float64, complex128."""

    _TYPE_TO_DTYPE = {int: torch.int64, float: torch.float64, complex: torch.complex128}
    _NUMBER_TYPES = tuple(_TYPE_TO_DTYPE.keys())

    def __init__(
        self,
        actual: Any,
        expected: Any,
        *,
        id: tuple[Any, ...] = (),
        rtol: float | None = None,
        atol: float | None = None,
        equal_nan: bool = False,
        check_dtype: bool = False,
        **other_parameters: Any,
    ) -> None:
        self._check_inputs_isinstance(actual, expected, cls=(*self._NUMBER_TYPES, np.number))
        actual, expected = (self._to_number(n, id=id) for n in (actual, expected))
        super().__init__(actual, expected, id=id, **other_parameters)
        self.rtol, self.atol = get_tolerances(
            *[self._TYPE_TO_DTYPE[type(input)] for input in (actual, expected)],
            rtol=rtol,
            atol=atol,
            id=id,
        )
        self.equal_nan = equal_nan
        self.check_dtype = check_dtype

    def _to_number(self, number_like: Any, *, id: tuple[Any, ...]) -> Any:
        if isinstance(number_like, np.number):
            return number_like.item()
        if isinstance(number_like, self._NUMBER_TYPES):
            return number_like
        raise ErrorMeta(TypeError, f"Unknown number type {type(number_like)}.", id=id)

    def compare(self) -> None:
        if self.check_dtype and type(self.actual) is not type(self.expected):
            self._fail(
                AssertionError,
                f"The (d)types do not match: {type(self.actual)} != {type(self.expected)}.",
            )
        if self.actual == self.expected:
            return
        if self.equal_nan and cmath.isnan(self.actual) and cmath.isnan(self.expected):
            return
        abs_diff = abs(self.actual - self.expected)
        tolerance = self.atol + self.rtol * abs(self.expected)
        if cmath.isfinite(abs_diff) and abs_diff <= tolerance:
            return
        self._fail(
            AssertionError,
            make_scalar_mismatch_msg(self.actual, self.expected, rtol=self.rtol, atol=self.atol),
        )

    def extra_repr(self) -> Sequence[str]:
        return ("rtol", "atol", "equal_nan", "check_dtype")


class TensorLikePair(Pair):
    """Tensors, and what torch.as_tensor makes one of when the other input is a tensor."""

    def __init__(
        self,
        actual: Any,
        expected: Any,
        *,
        id: tuple[Any, ...] = (),
        allow_subclasses: bool = True,
        rtol: float | None = None,
        atol: float | None = None,
        equal_nan: bool = False,
        check_device: bool = True,
        check_dtype: bool = True,
        check_layout: bool = True,
        check_stride: bool = False,
        **other_parameters: Any,
    ) -> None:
        actual, expected = self._process_inputs(actual, expected, allow_subclasses=allow_subclasses)
        super().__init__(actual, expected, id=id, **other_parameters)
        self.rtol, self.atol = get_tolerances(actual, expected, rtol=rtol, atol=atol, id=self.id)
        self.equal_nan = equal_nan
        self.check_device = check_device
        self.check_dtype = check_dtype
        self.check_layout = check_layout
        self.check_stride = check_stride

    def _process_inputs(self, actual: Any, expected: Any, *, allow_subclasses: bool) -> Any:
        directly_related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not directly_related:
            self._inputs_not_supported()
        if not allow_subclasses and type(actual) is not type(expected):
            self._inputs_not_supported()
        return tuple(self._to_tensor(input) for input in (actual, expected))

    def _to_tensor(self, tensor_like: Any) -> Any:
        if isinstance(tensor_like, torch.Tensor):
            return tensor_like
        try:
            return torch.as_tensor(tensor_like)
        except Exception:
            self._inputs_not_supported()

    def compare(self) -> None:
        actual, expected = self.actual, self.expected
        self._compare_attributes(actual, expected)
        if any(input.device.type == "meta" for input in (actual, expected)):
            return
        actual, expected = self._equalize_attributes(actual, expected)
        self._compare_regular_values_close(
            actual, expected, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan
        )

    def _compare_attributes(self, actual: Any, expected: Any) -> None:
        """Shape, layout, stride (check_stride), device and dtype must agree."""

        def raise_mismatch_error(
            attribute_name: str, actual_value: Any, expected_value: Any
        ) -> NoReturn:
            self._fail(
                AssertionError,
                f"The values for attribute '{attribute_name}' do not match: "
                f"{actual_value} != {expected_value}.",
            )

        if actual.shape != expected.shape:
            raise_mismatch_error("shape", actual.shape, expected.shape)
        if actual.layout != expected.layout:
            if self.check_layout:
                raise_mismatch_error("layout", actual.layout, expected.layout)
        elif (
            actual.layout == torch.strided
            and self.check_stride
            and actual.stride() != expected.stride()
        ):
            raise_mismatch_error("stride()", actual.stride(), expected.stride())
        if self.check_device and actual.device != expected.device:
            raise_mismatch_error("device", actual.device, expected.device)
        if self.check_dtype and actual.dtype != expected.dtype:
            raise_mismatch_error("dtype", actual.dtype, expected.dtype)

    def _equalize_attributes(self, actual: Any, expected: Any) -> tuple[Any, Any]:
        """Both on the CPU if their devices differ, both in their promoted dtype if theirs
        differ (check_device=False, check_dtype=False)."""
        if actual.device != expected.device:
            actual = actual.cpu()
            expected = expected.cpu()
        if actual.dtype != expected.dtype:
            dtype = torch.promote_types(actual.dtype, expected.dtype)
            actual = actual.to(dtype)
            expected = expected.to(dtype)
        return actual, expected

    def _compare_regular_values_close(
        self,
        actual: Any,
        expected: Any,
        *,
        rtol: float,
        atol: float,
        equal_nan: bool,
        identifier: str | Callable[[str], str] | None = None,
    ) -> None:
        matches = torch.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
        if torch.all(matches):
            return
        if actual.shape == torch.Size([]):
            msg = make_scalar_mismatch_msg(
                actual.item(), expected.item(), rtol=rtol, atol=atol, identifier=identifier
            )
        else:
            msg = make_tensor_mismatch_msg(
                actual, expected, matches, rtol=rtol, atol=atol, identifier=identifier
            )
        self._fail(AssertionError, msg)

    def extra_repr(self) -> Sequence[str]:
        return (
            "rtol",
            "atol",
            "equal_nan",
            "check_device",
            "check_dtype",
            "check_layout",
            "check_stride",
        )
