"""embedding, its backward (embedding_dense_backward) and embedding_renorm_.

Mirrors `aten/src/ATen/native/Embedding.cpp`. embedding is index_select of the weight's rows
(the indices flattened first, the result viewed as indices.sizes() + [embedding_dim]), so an
index out of range raises index_select's `IndexError: index out of range in self`. Its
derivative, embedding_backward, calls embedding_dense_backward (sparse gradients are not
implemented): grad_weight starts as zeros and each index other than padding_idx adds its row
of the gradient, in index order, scaled by 1 / count with scale_grad_by_freq (the padding row
therefore gets no gradient). embedding_renorm_ (F.embedding's max_norm) rescales, in place and
once per distinct index, the rows whose norm exceeds max_norm.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor, expect_contiguous
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/Embedding.cpp"
CUDA_SOURCE = "aten/src/ATen/native/cuda/Embedding.cu"
_INDEX_TYPES = (ScalarType.Long, ScalarType.Int)


def _check_indices(indices: Tensor, position: int, fn: str) -> None:
    """checkScalarTypes(fn, TensorArg(indices, "indices", position), {kLong, kInt})."""
    TORCH_CHECK(
        indices.scalar_type() in _INDEX_TYPES,
        f"Expected tensor for argument #{position} 'indices' to have one of the following "
        f"scalar types: Long, Int; but got torch.{indices.scalar_type()}Tensor instead "
        f"(while checking arguments for {fn})",
    )


@native_function(SOURCE)
def embedding_symint(
    weight: Tensor,
    indices: Tensor,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    TORCH_CHECK(weight.dim() == 2, "'weight' must be 2-D")
    _check_indices(indices, 1, "embedding")
    if indices.dim() == 1:  # TODO in torch: use tensor.index() after improving perf
        return weight.index_select(0, indices)
    size = [*indices.sizes(), *list(weight.sizes())[1:]]
    return weight.index_select(0, indices.reshape([-1])).view(size)


@native_function(SOURCE)
def embedding_backward_symint(
    grad: Tensor,
    indices: Tensor,
    num_weights: int,
    padding_idx: int,
    scale_grad_by_freq: bool,
    sparse: bool,
) -> Tensor:
    TORCH_CHECK_NOT_IMPLEMENTED(
        not sparse, "tensortrace does not implement sparse tensors (embedding's sparse=True)"
    )
    return at.embedding_dense_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq)


def _embedding_dense_backward(
    grad_: Tensor, indices: Tensor, num_weights: int, padding_idx: int, scale_grad_by_freq: bool
) -> Tensor:
    _check_indices(indices, 2, "embedding_backward")
    embedding_dim = grad_.sizes()[-1]
    grad_weight = at.zeros(
        [num_weights, embedding_dim], dtype=grad_.scalar_type(), device=grad_.device()
    )
    indices_contig = expect_contiguous(indices)
    numel = indices.numel()
    grad = expect_contiguous(grad_).view([numel, embedding_dim])
    if numel == 0 or grad_weight.is_meta():  # Note [A meta tensor's kernel is no call]
        return grad_weight
    idx = np.asarray(indices_contig.numpy_view()).reshape(-1).astype(np.int64)
    rows = np.asarray(grad.numpy_view())
    keep = idx != padding_idx
    if scale_grad_by_freq:  # add_stub's alpha: 1.0 / counts[k], in the gradient's dtype
        counts = np.bincount(idx, minlength=num_weights)
        scale = (1.0 / counts[idx[keep]]).astype(rows.dtype)[:, None]
        added = rows[keep] * scale
    else:
        added = rows[keep]
    out = grad_weight.numpy_view()
    np.add.at(out, idx[keep], added)  # one row at a time, in index order, as the loop adds
    return grad_weight


@native_function(SOURCE)
def embedding_dense_backward_cpu(
    grad_output: Tensor,
    indices: Tensor,
    num_weights: int,
    padding_idx: int,
    scale_grad_by_freq: bool,
) -> Tensor:
    return _embedding_dense_backward(
        grad_output, indices, num_weights, padding_idx, scale_grad_by_freq
    )


def _embedding_renorm_(self: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    TORCH_CHECK(
        self.dim() == 2,
        f"Expected 2-dimensional tensor, but got {self.dim()}-dimensional tensor for argument "
        "#1 'self' (while checking arguments for embedding_renorm_)",
    )
    _check_indices(indices, 2, "embedding_renorm_")
    indices_contig = expect_contiguous(indices)
    sorted_indices = sorted(int(i) for i in np.asarray(indices_contig.numpy_view()).reshape(-1))
    previous = None
    for index in sorted_indices:  # no parallel_for: the loop calls Tensor ops (issue 28370)
        if index == previous:
            continue
        previous = index
        row = self.select(0, index)
        norm = at.linalg_vector_norm(row, norm_type).item()  # row.norm(norm_type)
        if norm > max_norm:
            row.mul_(max_norm / (norm + 1e-7))
    return self


@native_function(SOURCE)
def embedding_renorm_cpu_(
    self: Tensor, indices: Tensor, max_norm: float, norm_type: float
) -> Tensor:
    return _embedding_renorm_(self, indices, max_norm, norm_type)


@native_function(CUDA_SOURCE)
def embedding_renorm_cuda_(
    self: Tensor, indices: Tensor, max_norm: float, norm_type: float
) -> Tensor:
    return _embedding_renorm_(self, indices, max_norm, norm_type)
