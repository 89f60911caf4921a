"""The torch.<function>s that torch/functional.py writes in Python over the bindings.

Mirrors `torch/functional.py`: variadic wrappers (broadcast_tensors(*tensors), block_diag,
atleast_1d, cartesian_prod, meshgrid(*tensors, indexing=None), einsum(equation, *operands))
that pack their arguments into the TensorList the aten op takes; cdist, which turns its
compute_mode name into the aten op's number; unique / unique_consecutive, which pick the aten
op (_unique2, unique_dim, unique_consecutive) and return as many results as were asked for; and
torch.norm, a thin router onto torch.linalg: 'fro' (or p=None) over at most two dims is the
vector 2-norm, a number p is linalg.vector_norm, and 'nuc' (or 'fro' over more dims) is
linalg.matrix_norm.
"""

from __future__ import annotations

from typing import Any

from tensortrace import linalg
from tensortrace.csrc.python_torch_functions import VariableFunctions as _VF

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "block_diag",
    "broadcast_tensors",
    "cartesian_prod",
    "cdist",
    "einsum",
    "meshgrid",
    "norm",
    "stft",
    "tensordot",
    "unique",
    "unique_consecutive",
]


def _variadic(tensors: tuple[Any, ...]) -> Any:
    """f(a, b) and f([a, b]) / f((a, b)) both mean the list [a, b]."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tensors[0]
    return tensors


def atleast_1d(*tensors: Any) -> Any:
    return _VF["atleast_1d"](tensors[0] if len(tensors) == 1 else tensors)


def atleast_2d(*tensors: Any) -> Any:
    return _VF["atleast_2d"](tensors[0] if len(tensors) == 1 else tensors)


def atleast_3d(*tensors: Any) -> Any:
    return _VF["atleast_3d"](tensors[0] if len(tensors) == 1 else tensors)


def block_diag(*tensors: Any) -> Any:
    return _VF["block_diag"](tensors)


def cartesian_prod(*tensors: Any) -> Any:
    return _VF["cartesian_prod"](tensors)


def cdist(
    x1: Any, x2: Any, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary"
) -> Any:
    """The compute mode's name as the aten op's number: None (matmul for p=2 past 25 rows),
    1 (always matmul for p=2), 2 (never)."""
    if compute_mode == "use_mm_for_euclid_dist_if_necessary":
        return _VF["cdist"](x1, x2, p, None)
    if compute_mode == "use_mm_for_euclid_dist":
        return _VF["cdist"](x1, x2, p, 1)
    if compute_mode == "donot_use_mm_for_euclid_dist":
        return _VF["cdist"](x1, x2, p, 2)
    raise ValueError(f"{compute_mode} is not a valid value for compute_mode")


def stft(
    input: Any,
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
    """center=True pads the signal by n_fft // 2 on both sides (F.pad in pad_mode, on a view
    with the batch and channel dims F.pad wants), then the aten op frames it."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        from tensortrace.nn import functional as F  # noqa: N812 - torch's name

        signal_dim = input.dim()
        extended_shape = [1] * (3 - signal_dim) + list(input.size())
        pad = int(n_fft // 2)
        input = F.pad(input.view(extended_shape), [pad, pad], pad_mode)
        input = input.view(input.shape[-signal_dim:])
    return _VF["stft"](
        input,
        n_fft,
        hop_length,
        win_length,
        window,
        normalized,
        onesided,
        return_complex,
        align_to_window,
    )


def meshgrid(*tensors: Any, indexing: str | None = None) -> Any:
    """Without `indexing`, the aten op warns (once) and uses 'ij'."""
    tensors = _variadic(tensors)
    if indexing is None:
        return _VF["meshgrid"](tensors)
    return _VF["meshgrid"](tensors, indexing=indexing)


def _sublist_format(operands: tuple[Any, ...]) -> tuple[str, list[Any]]:
    """einsum(op1, sublist1, op2, sublist2, ..., [sublist_out]) as an equation string."""

    def letter(n: Any) -> str:
        if n is Ellipsis:
            return "..."
        if not 0 <= n < 52:
            raise ValueError(
                f"einsum(): subscript in subscript list is not within the valid "
                f"range [0, 52), got {n}"
            )
        return chr(ord("A") + n) if n < 26 else chr(ord("a") + n - 26)

    ops = list(operands[0::2][: len(operands) // 2])
    subs = operands[1::2]
    equation = ",".join("".join(letter(n) for n in s) for s in subs[: len(ops)])
    if len(operands) % 2 == 1:
        equation += "->" + "".join(letter(n) for n in operands[-1])
    return equation, ops


def einsum(*args: Any) -> Any:
    if len(args) < 2:
        raise ValueError(
            "einsum(): must specify the equation string and at least one "
            "operand, or at least one operand and its subscripts list"
        )
    equation, operands = args[0], args[1:]
    if not isinstance(equation, str):
        equation, ops = _sublist_format(args)
        return _VF["einsum"](equation, ops)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        return _VF["einsum"](equation, list(operands[0]))  # the old interface: one list
    return _VF["einsum"](equation, list(operands))


def tensordot(a: Any, b: Any, dims: Any = 2, out: Any = None) -> Any:
    """dims: an int n (the last n dims of a with the first n of b), or two lists of dims."""
    if isinstance(dims, (list, tuple)):
        if len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be a pair of lists of dimensions")
        dims_a, dims_b = dims
        dims_a = [dims_a] if isinstance(dims_a, int) else list(dims_a)
        dims_b = [dims_b] if isinstance(dims_b, int) else list(dims_b)
    else:
        dims = int(dims)
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    if out is None:
        return _VF["tensordot"](a, b, dims_a, dims_b)
    return _VF["tensordot"](a, b, dims_a, dims_b, out=out)


def _return_output(
    output: Any, inverse: Any, counts: Any, return_inverse: bool, return_counts: bool
) -> Any:
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output


def unique(
    input: Any,
    sorted: bool = True,
    return_inverse: bool = False,  # noqa: A002
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    if dim is not None:
        output, inverse, counts = _VF["unique_dim"](
            input, dim, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts
        )
    else:
        output, inverse, counts = _VF["_unique2"](
            input, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts
        )
    return _return_output(output, inverse, counts, return_inverse, return_counts)


def unique_consecutive(
    input: Any,
    return_inverse: bool = False,  # noqa: A002
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    output, inverse, counts = _VF["unique_consecutive"](
        input, return_inverse=return_inverse, return_counts=return_counts, dim=dim
    )
    return _return_output(output, inverse, counts, return_inverse, return_counts)


def broadcast_tensors(*tensors: Any) -> Any:
    """torch.broadcast_tensors(*tensors): _VF.broadcast_tensors on the tuple."""
    return _VF["broadcast_tensors"](_variadic(tensors))


def norm(
    input: Any,
    p: Any = "fro",
    dim: Any = None,
    keepdim: bool = False,  # noqa: A002
    out: Any = None,
    dtype: Any = None,
) -> Any:
    """torch.norm: see the module docstring (and torch's deprecation note: prefer linalg)."""
    _dim = [dim] if isinstance(dim, int) else dim
    kwargs: dict[str, Any] = {"dtype": dtype}
    if out is not None:
        kwargs["out"] = out
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return linalg.vector_norm(input, 2, _dim, keepdim, **kwargs)
        # the nuclear norm, or matrix_norm with arguments that make it raise
        if _dim is None:
            _dim = list(range(input.ndim))
        return linalg.matrix_norm(input, p, _dim, keepdim, **kwargs)
    _p = 2.0 if p is None else p
    return linalg.vector_norm(input, _p, _dim, keepdim, **kwargs)
