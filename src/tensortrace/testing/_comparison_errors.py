"""assert_close's errors: ErrorMeta, the default tolerances by dtype, the mismatch messages.

The first part of `torch/testing/_comparison.py` (PyTorch 2.13), split from testing/_comparison.py
for size: what a failed comparison says ("Tensor-likes are not close!", the mismatched
elements, the greatest absolute and relative differences and where they are).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensortrace as torch


class ErrorMeta(Exception):  # noqa: N818 - torch's name
    """The error a Pair found, with the item it was found at (`id`): assert_close raises
    `to_error()`."""

    def __init__(self, type: type[Exception], msg: str, *, id: tuple[Any, ...] = ()) -> None:
        super().__init__(
            "If you are a user and see this message during normal operation "
            "please file an issue at https://github.com/pytorch/pytorch/issues. "
            "If you are a developer and working on the comparison functions, please `raise "
            "ErrorMeta.to_error()` for user facing errors."
        )
        self.type = type
        self.msg = msg
        self.id = id

    def to_error(self, msg: str | Callable[[str], str] | None = None) -> Exception:
        if not isinstance(msg, str):
            generated_msg = self.msg
            if self.id:
                generated_msg += (
                    f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.id)}"
                )
            msg = msg(generated_msg) if callable(msg) else generated_msg
        return self.type(msg)


_DTYPE_PRECISIONS = {
    torch.float16: (0.001, 1e-5),
    torch.bfloat16: (0.016, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
    torch.complex32: (0.001, 1e-5),
    torch.complex64: (1.3e-6, 1e-5),
    torch.complex128: (1e-7, 1e-7),
}


def default_tolerances(
    *inputs: Any, dtype_precisions: dict[Any, tuple[float, float]] | None = None
) -> tuple[float, float]:
    """The default (rtol, atol) of the inputs' dtypes: the loosest of them."""
    dtypes = []
    for input in inputs:
        if isinstance(input, torch.Tensor):
            dtypes.append(input.dtype)
        elif isinstance(input, torch.dtype):
            dtypes.append(input)
        else:
            raise TypeError(
                f"Expected a torch.Tensor or a torch.dtype, but got {type(input)} instead."
            )
    dtype_precisions = dtype_precisions or _DTYPE_PRECISIONS
    rtols, atols = zip(*[dtype_precisions.get(dtype, (0.0, 0.0)) for dtype in dtypes], strict=True)
    return max(rtols), max(atols)


def get_tolerances(
    *inputs: Any, rtol: float | None, atol: float | None, id: tuple[Any, ...] = ()
) -> tuple[float, float]:
    if (rtol is None) ^ (atol is None):
        raise ErrorMeta(
            ValueError,
            "Both 'rtol' and 'atol' must be either specified or omitted, "
            f"but got no {'rtol' if rtol is None else 'atol'}.",
            id=id,
        )
    if rtol is not None and atol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


def _make_mismatch_msg(
    *,
    default_identifier: str,
    identifier: str | Callable[[str], str] | None = None,
    extra: str | None = None,
    abs_diff: float,
    abs_diff_idx: int | tuple[int, ...] | None = None,
    atol: float,
    rel_diff: float,
    rel_diff_idx: int | tuple[int, ...] | None = None,
    rtol: float,
) -> str:
    equality = rtol == 0 and atol == 0

    def make_diff_msg(*, type: str, diff: float, idx: Any, tol: float) -> str:
        if idx is None:
            msg = f"{type.title()} difference: {diff}"
        else:
            msg = f"Greatest {type} difference: {diff} at index {idx}"
        if not equality:
            msg += f" (up to {tol} allowed)"
        return msg + "\n"

    if identifier is None:
        identifier = default_identifier
    elif callable(identifier):
        identifier = identifier(default_identifier)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += make_diff_msg(type="absolute", diff=abs_diff, idx=abs_diff_idx, tol=atol)
    msg += make_diff_msg(type="relative", diff=rel_diff, idx=rel_diff_idx, tol=rtol)
    return msg.strip()


def make_scalar_mismatch_msg(
    actual: Any,
    expected: Any,
    *,
    rtol: float,
    atol: float,
    identifier: str | Callable[[str], str] | None = None,
) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _make_mismatch_msg(
        default_identifier="Scalars",
        identifier=identifier,
        extra=f"Expected {expected} but got {actual}.",
        abs_diff=abs_diff,
        atol=atol,
        rel_diff=rel_diff,
        rtol=rtol,
    )


def make_tensor_mismatch_msg(
    actual: Any,
    expected: Any,
    matches: Any,
    *,
    rtol: float,
    atol: float,
    identifier: str | Callable[[str], str] | None = None,
) -> str:
    """How many elements mismatch, and the greatest absolute and relative differences."""

    def unravel_flat_index(flat_index: int) -> tuple[int, ...]:
        if not matches.shape:
            return ()
        inverse_index = []
        for size in matches.shape[::-1]:
            div, mod = divmod(flat_index, size)
            flat_index = div
            inverse_index.append(mod)
        return tuple(inverse_index[::-1])

    number_of_elements = matches.numel()
    total_mismatches = number_of_elements - int(torch.sum(matches))
    extra = (
        f"Mismatched elements: {total_mismatches} / {number_of_elements} "
        f"({total_mismatches / number_of_elements:.1%})"
    )
    actual_flat = actual.flatten()
    expected_flat = expected.flatten()
    matches_flat = matches.flatten()
    if not actual.dtype.is_floating_point and not actual.dtype.is_complex:
        # the difference of unsigned integers would wrap around
        actual_flat = actual_flat.to(torch.int64)
        expected_flat = expected_flat.to(torch.int64)
    abs_diff = torch.abs(actual_flat - expected_flat)
    abs_diff[matches_flat] = 0
    max_abs_diff, max_abs_diff_flat_idx = torch.max(abs_diff, 0)
    rel_diff = abs_diff / torch.abs(expected_flat)
    rel_diff[matches_flat] = 0
    max_rel_diff, max_rel_diff_flat_idx = torch.max(rel_diff, 0)
    return _make_mismatch_msg(
        default_identifier="Tensor-likes",
        identifier=identifier,
        extra=extra,
        abs_diff=max_abs_diff.item(),
        abs_diff_idx=unravel_flat_index(int(max_abs_diff_flat_idx)),
        atol=atol,
        rel_diff=max_rel_diff.item(),
        rel_diff_idx=unravel_flat_index(int(max_rel_diff_flat_idx)),
        rtol=rtol,
    )
