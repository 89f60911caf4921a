"""embedding_bag: sums, means or maxima of bags of embedding rows, and its backward.

Mirrors `aten/src/ATen/native/EmbeddingBag.cpp`. The composite embedding_bag (both overloads)
checks padding_idx, makes indices and offsets contiguous and calls _embedding_bag_forward_only
when the weight needs no gradient, _embedding_bag when it does (Note [embedding_bag Native
Functions] in torch's native_functions.yaml). Both run _embedding_bag_cpu_impl, which returns
(output, offset2bag, bag_size, max_indices) exactly as torch fills them: offset2bag (the bag of
each index) is left empty on the 'sum' fast path (no padding_idx), bag_size counts the
non-padding indices of each bag for 'mean' and 'max' and is zeroed for 'sum', max_indices holds
the argmax row per feature for 'max' and a copy of bag_size otherwise. The backward
(_embedding_bag_backward > _embedding_bag_dense_backward, and
_embedding_bag_per_sample_weights_backward) reads those. Sparse gradients are not implemented.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType, promoteTypes
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/EmbeddingBag.cpp"
MODE_SUM, MODE_MEAN, MODE_MAX = 0, 1, 2
_INDEX = (ScalarType.Long, ScalarType.Int)
_FLOATS = (ScalarType.Half, ScalarType.BFloat16, ScalarType.Float, ScalarType.Double)


def _type_name(t: Tensor) -> str:
    return f"torch.{t.scalar_type().name}Tensor"


def _check_scalar_types(t: Tensor, name: str, allowed: tuple[ScalarType, ...]) -> None:
    """checkScalarTypes("embedding_bag", TensorArg(t, name, 1), allowed)."""
    TORCH_CHECK(
        t.scalar_type() in allowed,
        f"Expected tensor for argument #1 '{name}' to have one of the following scalar types: "
        + ", ".join(s.name for s in allowed)
        + f"; but got {_type_name(t)} instead (while checking arguments for embedding_bag)",
    )


def _check_same_type(t1: Tensor, n1: str, t2: Tensor, n2: str) -> None:
    TORCH_CHECK(
        t1.scalar_type() == t2.scalar_type(),
        f"Expected tensor for argument #1 '{n1}' to have the same type as tensor for argument "
        f"#1 '{n2}'; but type {_type_name(t1)} does not equal {_type_name(t2)} "
        "(while checking arguments for embedding_bag)",
    )


def _np(t: Tensor) -> np.ndarray:
    return np.asarray(t.contiguous().numpy_view())


def _from_numpy(arr: np.ndarray, shape: list[int], like: Tensor) -> Tensor:
    result = at.empty(shape, dtype=like.scalar_type(), device=like.device())
    if arr.size:
        result.numpy_view()[...] = arr.reshape(shape)
    return result


def _promote_indices_and_offsets(indices: Tensor, offsets: Tensor) -> tuple[Tensor, Tensor]:
    common = promoteTypes(offsets.scalar_type(), indices.scalar_type())
    return (
        indices if indices.scalar_type() == common else indices.to(common),
        offsets if offsets.scalar_type() == common else offsets.to(common),
    )


def _check_arguments(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    mode: int,
    per_sample_weights: Tensor | None,
    include_last_offset: bool,
) -> None:
    _check_scalar_types(indices, "indices", _INDEX)
    _check_scalar_types(offsets, "offsets", _INDEX)
    _check_same_type(indices, "indices", offsets, "offsets")
    _check_scalar_types(weight, "weight", _FLOATS)
    if offsets.size(0) > 0:
        offs = _np(offsets)
        TORCH_CHECK(
            offs[0] == 0,
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {offs[0]}\n[ {_type_name(offsets)}{{}} ]",
        )
        TORCH_CHECK(
            offs[-1] <= indices.size(0),
            f"offsets[-1] can not be greater than input's length {indices.size(0)} but got "
            f"offsets[-1] of {offs[-1]}",
        )
    if per_sample_weights is not None and per_sample_weights.defined():
        TORCH_CHECK(
            mode == MODE_SUM, "embedding_bag: per_sample_weights only supported with mode='sum'"
        )
        _check_same_type(weight, "weight", per_sample_weights, "per_sample_weights")
        TORCH_CHECK(
            per_sample_weights.dim() == 1,
            "Expected per_sample_weights.value().dim() == 1 to be true, but got false.  "
            "(Could this error message be improved?  If so, please report an enhancement "
            "request to PyTorch.)",
        )
        TORCH_CHECK(
            per_sample_weights.numel() == indices.numel(),
            "Expected per_sample_weights.value().numel() == indices.numel() to be true, but got "
            "false.  (Could this error message be improved?  If so, please report an "
            "enhancement request to PyTorch.)",
        )
    if include_last_offset:
        TORCH_CHECK(
            offsets.size(0) >= 1, "include_last_offset: number of offset should be at least 1"
        )


def _make_offset2bag(offsets: np.ndarray, n: int, dtype: np.dtype) -> np.ndarray:
    """offset2bag.index_add_(0, offsets, 1); offset2bag[0] -= 1; cumsum: each index's bag."""
    offset2bag = np.zeros(n + 1, dtype=dtype)
    np.add.at(offset2bag, offsets, 1)
    offset2bag[0] -= 1
    return np.cumsum(offset2bag, dtype=dtype)[:n]


@traced("kernel", "at::native::_embedding_bag_cpu_impl_out", SOURCE)
def _embedding_bag_kernel(
    w: np.ndarray,
    idx: np.ndarray,
    offset2bag: np.ndarray,
    bag_size: np.ndarray,
    psw: np.ndarray | None,
    num_bags: int,
    mode: int,
    padding_idx: int,
    fbgemm: bool,
) -> tuple[np.ndarray, np.ndarray | None]:
    """index_select_add / index_select_scale_add (sum, mean) or embedding_bag_cpu_max_out."""
    out = np.zeros((num_bags, w.shape[1]), dtype=w.dtype)
    vocab = w.shape[0]
    bad = (idx < 0) | (idx >= vocab)
    if bad.any():
        # the float / half rows with no padding_idx take fbgemm's kernel, which fails its own way
        TORCH_CHECK(
            not (fbgemm and mode != MODE_MAX),
            "Expected i < index_size to be true, but got false.  (Could this error message be "
            "improved?  If so, please report an enhancement request to PyTorch.)",
        )
        TORCH_CHECK(
            False,
            "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be ",
            int(idx[bad][0]),
        )
    keep = idx != padding_idx
    np.subtract.at(bag_size, offset2bag[~keep], 1)  # Decrement bag_size: the index is padded
    if mode != MODE_MAX:
        rows = w[idx[keep]]
        if psw is not None:
            rows = rows * psw[keep][:, None]
        np.add.at(out, offset2bag[keep], rows)  # one row at a time, in index order
        return out, None
    max_indices = np.zeros((num_bags, w.shape[1]), dtype=idx.dtype)
    filled = np.zeros(num_bags, dtype=bool)
    for i in np.flatnonzero(keep):
        bag, word = offset2bag[i], idx[i]
        take = np.ones(w.shape[1], dtype=bool) if not filled[bag] else w[word] > out[bag]
        out[bag, take] = w[word, take]
        max_indices[bag, take] = word
        filled[bag] = True
    return out, max_indices


def _embedding_bag_cpu_impl(
    weight: Tensor,
    indices_: Tensor,
    offsets_: Tensor,
    mode: int,
    per_sample_weights: Tensor | None,
    include_last_offset: bool,
    padding_idx: int,
    requires_grad: bool,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    TORCH_CHECK(
        indices_.dim() == 1 or indices_.dim() == 2,
        "input has to be a 1D or 2D Tensor, but got Tensor of dimension ",
        indices_.dim(),
    )
    if indices_.dim() == 1:
        TORCH_CHECK(
            offsets_.dim() == 1,
            "offsets has to be a 1D Tensor, but got Tensor of dimension ",
            offsets_.dim(),
        )
    indices, offsets = _promote_indices_and_offsets(indices_, offsets_)
    _check_arguments(weight, indices, offsets, mode, per_sample_weights, include_last_offset)
    num_bags = offsets.size(0) - 1 if include_last_offset else offsets.size(0)
    n = indices.size(0)
    idx, offs = _np(indices).reshape(-1), _np(offsets)
    odt = offs.dtype
    # make_offset2bag_out: skipped on the 'sum' fast path (no padding_idx), where it goes unused
    fast_path_sum = padding_idx < 0
    offset2bag = _make_offset2bag(offs[:num_bags], n, odt)
    # make_bag_size_out
    if requires_grad or mode in (MODE_MEAN, MODE_MAX):
        bag_size = np.zeros(num_bags, dtype=odt)
        if num_bags > 0:
            bag_size[:-1] = offs[1:num_bags] - offs[: num_bags - 1]
            bag_size[-1] = n - offs[num_bags - 1]
    else:
        bag_size = np.zeros(offsets.size(0), dtype=odt)
    psw = None if per_sample_weights is None else _np(per_sample_weights)
    out, max_idx = _embedding_bag_kernel(
        _np(weight),
        idx,
        offset2bag,
        bag_size,
        psw,
        num_bags,
        mode,
        padding_idx,
        weight.scalar_type() != ScalarType.Double and padding_idx < 0,
    )
    output = _from_numpy(out, [num_bags, weight.size(1)], weight)
    if mode == MODE_MEAN:  # apply_bag_size: output /= max(bag_size, 1)
        divisor = _from_numpy(np.maximum(bag_size, 1), [num_bags], offsets)
        output.div_(divisor.to(weight.scalar_type()).unsqueeze(1).expand_as(output))
    if mode == MODE_SUM:
        bag_size[...] = 0  # make bag_size output deterministic
    if mode == MODE_SUM and fast_path_sum:
        offset2bag = offset2bag[:0]
    bag_size_t = _from_numpy(bag_size, [len(bag_size)], offsets)
    if max_idx is None:
        max_indices = bag_size_t.clone()
    else:
        max_indices = _from_numpy(max_idx, [num_bags, weight.size(1)], offsets)
    return output, _from_numpy(offset2bag, [len(offset2bag)], offsets), bag_size_t, max_indices


@native_function(SOURCE)
def embedding_bag(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The composite of both overloads: check padding_idx, then the forward-only or the
    differentiable op, on contiguous indices and offsets."""
    pad = -1
    if padding_idx is not None:
        num_embeddings = weight.size(0)
        pad = padding_idx
        TORCH_CHECK(
            -num_embeddings <= pad < num_embeddings,
            f"padding_idx must be within the number of embeddings, -{num_embeddings} through "
            f"{num_embeddings - 1}, but got {pad}",
        )
        pad = maybe_wrap_dim(pad, weight.size(0))
    needs_grad = weight.requires_grad() or (
        per_sample_weights is not None and per_sample_weights.requires_grad()
    )
    op = at._embedding_bag if needs_grad else at._embedding_bag_forward_only
    return op(  # type: ignore[no-any-return]
        weight,
        indices.contiguous(),
        offsets.contiguous(),
        scale_grad_by_freq,
        mode,
        sparse,
        per_sample_weights,
        include_last_offset,
        pad,
    )


@native_function(SOURCE)
def _embedding_bag_forward_only_cpu(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int = -1,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    return _embedding_bag_cpu_impl(
        weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx, False
    )


@native_function(SOURCE)
def _embedding_bag_cpu(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int = -1,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    return _embedding_bag_cpu_impl(
        weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx, True
    )


@native_function(SOURCE)
def _embedding_bag_backward_symint(
    grad: Tensor,
    indices: Tensor,
    offsets: Tensor,
    offset2bag: Tensor,
    bag_size: Tensor,
    maximum_indices: Tensor,
    num_weights: int,
    scale_grad_by_freq: bool,
    mode: int,
    sparse: bool,
    per_sample_weights: Tensor | None,
    padding_idx: int = -1,
) -> Tensor:
    indices, offsets = _promote_indices_and_offsets(indices, offsets)
    _check_scalar_types(indices, "indices", _INDEX)
    _check_scalar_types(offsets, "offsets", _INDEX)
    _check_same_type(indices, "indices", offsets, "offsets")
    offset2bag_ = offset2bag
    if indices.numel() != 0 and offset2bag.numel() == 0:
        o2b = _make_offset2bag(_np(offsets), indices.size(0), _np(offsets).dtype)
        offset2bag_ = _from_numpy(o2b, [indices.size(0)], offsets)
    TORCH_CHECK_NOT_IMPLEMENTED(
        not sparse, "tensortrace does not implement sparse tensors (embedding_bag's sparse=True)"
    )
    return at._embedding_bag_dense_backward(  # type: ignore[no-any-return]
        grad,
        indices,
        offset2bag_,
        bag_size,
        maximum_indices,
        num_weights,
        scale_grad_by_freq,
        mode,
        per_sample_weights,
        padding_idx,
    )


@traced("kernel", "at::native::_embedding_bag_dense_backward_cpu_sum_mean", SOURCE)
def _dense_backward_sum_mean(
    g: np.ndarray,
    idx: np.ndarray,
    offset2bag: np.ndarray,
    bag_size: np.ndarray,
    num_weights: int,
    scale_grad_by_freq: bool,
    mode: int,
    psw: np.ndarray | None,
    padding_idx: int,
) -> np.ndarray:
    out = np.zeros((num_weights, g.shape[1]), dtype=g.dtype)
    order = np.argsort(idx, kind="stable")
    scale = np.ones(len(idx), dtype=np.float64)
    if psw is not None:
        scale = scale * psw.astype(np.float64)
    if scale_grad_by_freq:
        # torch divides by counts[indices[i]], i the number of the index's group among the
        # sorted unique indices (not the index itself): kept, to give torch's gradients
        counts = np.bincount(idx, minlength=num_weights)
        sorted_idx = idx[order]
        group = np.searchsorted(np.unique(sorted_idx), sorted_idx)
        scale[order] = scale[order] / counts[sorted_idx[group]]
    if mode == MODE_MEAN:
        sizes = bag_size[offset2bag]
        scale = np.where(sizes != 0, scale / np.where(sizes != 0, sizes, 1), scale)
    keep = order[idx[order] != padding_idx]
    rows = g[offset2bag[keep]] * scale[keep].astype(g.dtype)[:, None]
    np.add.at(out, idx[keep], rows)  # axpy per index, in sorted order
    return out


@native_function(SOURCE)
def _embedding_bag_dense_backward_cpu(
    grad: Tensor,
    indices: Tensor,
    offset2bag: Tensor,
    bag_size: Tensor,
    maximum_indices: Tensor,
    num_weights: int,
    scale_grad_by_freq: bool,
    mode: int,
    per_sample_weights: Tensor | None,
    padding_idx: int = -1,
) -> Tensor:
    grad_ = grad
    grad = grad_.contiguous()
    _check_scalar_types(grad, "grad_", _FLOATS)
    if mode == MODE_MAX:  # _embedding_bag_dense_backward_cpu_max
        index_grad_weight = at.zeros(
            [num_weights, grad.size(1)], dtype=grad.scalar_type(), device=grad.device()
        )
        nonempty = bag_size.nonzero().view([-1])
        nonempty_max_indices = maximum_indices.index_select(0, nonempty)
        nonempty_grad = grad_.index_select(0, nonempty)
        for dim in range(grad.size(1)):
            index_grad_weight.select(1, dim).index_add_(
                0, nonempty_max_indices.select(1, dim), nonempty_grad.select(1, dim)
            )
        return index_grad_weight
    psw = None
    if per_sample_weights is not None and per_sample_weights.defined():
        psw = _np(per_sample_weights)
    out = _dense_backward_sum_mean(
        _np(grad),
        _np(indices).reshape(-1),
        _np(offset2bag),
        _np(bag_size),
        num_weights,
        scale_grad_by_freq,
        mode,
        psw,
        padding_idx,
    )
    return _from_numpy(out, [num_weights, grad.size(1)], grad)


@native_function(SOURCE)
def _embedding_bag_per_sample_weights_backward_cpu(
    grad: Tensor,
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    offset2bag: Tensor,
    mode: int,
    padding_idx: int = -1,
) -> Tensor:
    TORCH_CHECK(
        mode == MODE_SUM,
        "embedding_bag_backward: per_sample_weights only supported for mode='sum'",
    )
    indices, offsets = _promote_indices_and_offsets(indices, offsets)
    _check_scalar_types(indices, "indices", _INDEX)
    n = indices.size(0)
    if n != 0 and offset2bag.numel() == 0:
        o2b = _make_offset2bag(_np(offsets), n, _np(offsets).dtype)
    else:
        o2b = _np(offset2bag)
    idx = _np(indices).reshape(-1)
    g, w = _np(grad), _np(weight)
    out = np.zeros(n, dtype=g.dtype)
    keep = idx != padding_idx
    out[keep] = np.einsum("ij,ij->i", g[o2b[keep]], w[idx[keep]])
    return _from_numpy(out, [n], grad)
