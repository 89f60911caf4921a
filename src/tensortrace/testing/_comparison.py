"""torch.testing.assert_close: compare tensors, numbers and their containers, with torch's
messages ("Tensor-likes are not close!" with the mismatch statistics).

Mirrors `torch/testing/_comparison.py` (PyTorch 2.13): originate_pairs walks sequences and
mappings down to pairs of leaves (NonePair, BooleanPair, NumberPair, TensorLikePair, in
_comparison_pairs.py); each pair's compare() raises an ErrorMeta (_comparison_errors.py, with
the messages) that assert_close turns into the user's error.
"""

from __future__ import annotations

import collections.abc
import contextlib
import warnings
from collections.abc import Callable, Collection, Sequence
from typing import Any

import tensortrace as torch
from tensortrace.testing._comparison_errors import ErrorMeta, default_tolerances
from tensortrace.testing._comparison_pairs import (
    BooleanPair,
    NonePair,
    NumberPair,
    ObjectPair,
    Pair,
    TensorLikePair,
    UnsupportedInputs,
)

__all__ = ["assert_allclose", "assert_close"]


def originate_pairs(
    actual: Any,
    expected: Any,
    *,
    pair_types: Sequence[type[Pair]],
    sequence_types: tuple[type, ...] = (collections.abc.Sequence,),
    mapping_types: tuple[type, ...] = (collections.abc.Mapping,),
    id: tuple[Any, ...] = (),
    **options: Any,
) -> list[Pair]:
    """The pairs of leaves of two (nested) sequences or mappings, in order."""
    if (
        isinstance(actual, sequence_types)
        and not isinstance(actual, str)
        and isinstance(expected, sequence_types)
        and not isinstance(expected, str)
    ):
        actual_len = len(actual)  # type: ignore[arg-type]
        expected_len = len(expected)  # type: ignore[arg-type]
        if actual_len != expected_len:
            raise ErrorMeta(
                AssertionError,
                f"The length of the sequences mismatch: {actual_len} != {expected_len}",
                id=id,
            )
        pairs = []
        for idx in range(actual_len):
            pairs.extend(
                originate_pairs(
                    actual[idx],  # type: ignore[index]
                    expected[idx],  # type: ignore[index]
                    pair_types=pair_types,
                    sequence_types=sequence_types,
                    mapping_types=mapping_types,
                    id=(*id, idx),
                    **options,
                )
            )
        return pairs
    if isinstance(actual, mapping_types) and isinstance(expected, mapping_types):
        actual_keys = set(actual.keys())  # type: ignore[attr-defined]
        expected_keys = set(expected.keys())  # type: ignore[attr-defined]
        if actual_keys != expected_keys:
            missing_keys = expected_keys - actual_keys
            additional_keys = actual_keys - expected_keys
            raise ErrorMeta(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(missing_keys)}\n"
                f"Additional keys in the actual mapping: {sorted(additional_keys)}",
                id=id,
            )
        keys: Collection[Any] = actual_keys
        with contextlib.suppress(Exception):  # sorted, where the keys can be
            keys = sorted(keys)
        pairs = []
        for key in keys:
            pairs.extend(
                originate_pairs(
                    actual[key],  # type: ignore[index]
                    expected[key],  # type: ignore[index]
                    pair_types=pair_types,
                    sequence_types=sequence_types,
                    mapping_types=mapping_types,
                    id=(*id, key),
                    **options,
                )
            )
        return pairs
    for pair_type in pair_types:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except UnsupportedInputs:
            continue
        except ErrorMeta:
            raise
        except Exception as error:
            raise RuntimeError(
                f"Originating a {pair_type.__name__}() at item "
                f"{''.join(str([item]) for item in id)} with\n\n"
                f"{type(actual).__name__}(): {actual}\n\n"
                "and\n\n"
                f"{type(expected).__name__}(): {expected}\n\n"
                "resulted in the unexpected exception above. "
                "If you are a user and see this message during normal operation "
                "please file an issue at https://github.com/pytorch/pytorch/issues. "
                "If you are a developer and working on the comparison functions, "
                "please except the previous error and raise an expressive `ErrorMeta` instead."
            ) from error
    raise ErrorMeta(
        TypeError,
        f"No comparison pair was able to handle inputs of type {type(actual)} "
        f"and {type(expected)}.",
        id=id,
    )


def not_close_error_metas(
    actual: Any,
    expected: Any,
    *,
    pair_types: Sequence[type[Pair]] = (ObjectPair,),
    sequence_types: tuple[type, ...] = (collections.abc.Sequence,),
    mapping_types: tuple[type, ...] = (collections.abc.Mapping,),
    **options: Any,
) -> list[ErrorMeta]:
    """The ErrorMeta of each pair of leaves that is not close."""
    try:
        pairs = originate_pairs(
            actual,
            expected,
            pair_types=pair_types,
            sequence_types=sequence_types,
            mapping_types=mapping_types,
            **options,
        )
    except ErrorMeta as error_meta:
        raise error_meta.to_error() from None
    error_metas: list[ErrorMeta] = []
    for pair in pairs:
        try:
            pair.compare()
        except ErrorMeta as error_meta:
            error_metas.append(error_meta)
        except Exception as error:
            raise RuntimeError(
                f"Comparing\n\n{pair}\n\nresulted in the unexpected exception above. "
                "If you are a user and see this message during normal operation "
                "please file an issue at https://github.com/pytorch/pytorch/issues. "
                "If you are a developer and working on the comparison functions, "
                "please except the previous error and raise an expressive `ErrorMeta` instead."
            ) from error
    return error_metas


def assert_close(
    actual: Any,
    expected: Any,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg: str | Callable[[str], str] | None = None,
) -> None:
    """Assert that `actual` and `expected` are close: |actual - expected| <= atol + rtol *
    |expected| elementwise (with default tolerances by dtype), and that tensors agree in
    shape, device and dtype. Sequences and mappings are compared element by element."""
    error_metas = not_close_error_metas(
        actual,
        expected,
        pair_types=(NonePair, BooleanPair, NumberPair, TensorLikePair),
        allow_subclasses=allow_subclasses,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=check_device,
        check_dtype=check_dtype,
        check_layout=check_layout,
        check_stride=check_stride,
        msg=msg,
    )
    if error_metas:
        raise error_metas[0].to_error(msg)


def assert_allclose(
    actual: Any,
    expected: Any,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = True,
    msg: str = "",
) -> None:
    """Deprecated since 1.12: assert_close with broadcasting-free, dtype-lenient defaults."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(actual, torch.Tensor):
        actual = torch.tensor(actual)
    if not isinstance(expected, torch.Tensor):
        expected = torch.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(
            actual,
            expected,
            dtype_precisions={
                torch.float16: (1e-3, 1e-3),
                torch.float32: (1e-4, 1e-5),
                torch.float64: (1e-5, 1e-8),
            },
        )
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=True,
        check_dtype=False,
        check_stride=False,
        msg=msg or None,
    )
