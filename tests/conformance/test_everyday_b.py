"""Conformance of the everyday APIs of issue #15, part B, against torch 2.13: values, dtypes,
shapes, strides and errors, on contiguous and non-contiguous inputs."""

from __future__ import annotations

import pytest

from .harness import check

X = "x = torch.arange(12.).reshape(3, 4); "  # contiguous float
XT = "x = torch.arange(12.).reshape(4, 3).t(); "  # transposed, not contiguous
XI = "x = torch.tensor([[3, 1, 2, 1], [0, 5, 5, 2], [7, 1, 0, 3]]); "  # int64 with ties

PROGRAMS = {
    # ---- TensorTransformations.cpp: flip, fliplr, flipud, roll, rot90 ------------------------
    "flip_0": X + "out = x.flip(0)",
    "flip_both": X + "out = torch.flip(x, [0, 1])",
    "flip_noncontig": XT + "out = x.flip(1)",
    "flip_3d": "x = torch.arange(24).reshape(2, 3, 4); out = x.flip(0, 2)",
    "flip_dup": X + "out = x.flip(0, 0)",
    "flip_range": X + "out = x.flip(2)",
    "fliplr": X + "out = torch.fliplr(x)",
    "fliplr_1d": "out = torch.fliplr(torch.ones(3))",
    "flipud": XT + "out = torch.flipud(x)",
    "flipud_0d": "out = torch.flipud(torch.tensor(1.))",
    "roll_flat": X + "out = x.roll(1)",
    "roll_dim": X + "out = torch.roll(x, -1, 0)",
    "roll_dims": X + "out = torch.roll(x, (1, 2), (0, 1))",
    "roll_noncontig": XT + "out = torch.roll(x, 1, 0)",
    "roll_big_shift": X + "out = x.roll(7, 1)",
    "roll_misaligned": X + "out = x.roll(1, (0, 1))",
    "roll_empty_shifts": X + "out = x.roll([])",
    "rot90": X + "out = [x.rot90(k) for k in range(-1, 5)]",
    "rot90_dims": "x = torch.arange(24).reshape(2, 3, 4); out = torch.rot90(x, 1, [2, 0])",
    "rot90_bad_dims": X + "out = x.rot90(1, [0])",
    "rot90_same_dims": X + "out = x.rot90(1, [1, -1])",
    "rot90_1d": "out = torch.ones(2).rot90()",
    # ---- Sorting.cpp: sort, argsort, msort, topk ----------------------------------------------
    "sort": XI + "out = x.sort()",
    "sort_desc_dim0": XI + "out = torch.sort(x, 0, descending=True)",
    "sort_stable": XI + "out = x.sort(stable=True, dim=1, descending=True)",
    "sort_noncontig": XT + "out = x.sort(0)",
    "sort_nan": "out = torch.tensor([1., float('nan'), 3., -1.]).sort(descending=True)",
    "sort_bool": "out = torch.tensor([True, False, True]).sort()",
    "sort_0d": "out = torch.tensor(3.).sort()",
    "sort_dim_range": XI + "out = x.sort(2)",
    "argsort": XI + "out = (x.argsort(), torch.argsort(x, dim=0, descending=True))",
    "argsort_stable": XI + "out = x.argsort(stable=True, dim=0)",
    "msort": XT + "out = torch.msort(x)",
    "topk": XI + "out = x.topk(2)",
    "topk_smallest": X + "out = torch.topk(x, 3, largest=False)",
    "topk_ties": XI + "out = (torch.topk(x, 3, largest=False), x.topk(2), x.topk(3, dim=0), "
    "torch.tensor([7, 12, 7, 3]).topk(2), x.topk(2, sorted=False), "
    "torch.tensor([1., float('nan'), 3., float('nan'), 3.]).topk(3))",
    "topk_ties_long": "x = (torch.arange(300) % 7).reshape(3, 100); "
    "out = (x.topk(1), x.topk(30), x.topk(40, largest=False, sorted=False), "
    "x.t().topk(2, dim=0))",
    "topk_dim0": XI + "out = x.topk(2, dim=0)",
    "topk_noncontig": XT + "out = x.topk(2, 0)",
    "topk_nan": "out = torch.tensor([1., float('nan'), 3., 1.]).topk(2)",
    "topk_k_range": XI + "out = x.topk(5)",
    "topk_k_negative": XI + "out = x.topk(-1)",
    "topk_zero": XI + "out = x.topk(0)",
    "topk_0d": "out = (torch.tensor(3.).topk(1), torch.tensor(3.).topk(0))",
    "topk_0d_range": "out = torch.tensor(3.).topk(2)",
    "topk_bool": "out = torch.ones(2, dtype=torch.bool).topk(1)",
    "topk_float16": "out = torch.tensor([1., 4., 2.], dtype=torch.float16).topk(2)",
    # ---- TriangularOps.cpp: tril, triu, tril_, triu_ ------------------------------------------
    "tril": X + "out = (x.tril(), torch.tril(x, -1), x.tril(2))",
    "triu": XT + "out = (x.triu(), torch.triu(x, 1), x.triu(-5))",
    "tril_batched": "x = torch.arange(24).reshape(2, 3, 4); out = (x.tril(1), x.triu(1))",
    "tril_inplace": X + "y = x.tril_(); out = (x, y is x)",
    "triu_inplace_noncontig": XT + "x.triu_(1); out = x",
    "tril_1d": "out = torch.ones(3).tril()",
    "triu_bool": "out = torch.ones(3, 3, dtype=torch.bool).triu()",
    # ---- TensorShape.cpp composites ----------------------------------------------------------
    "diag_1d": "out = (torch.diag(torch.tensor([1, 2, 3])), "
    "torch.diag(torch.tensor([1., 2.]), -1))",
    "diag_2d": X + "out = (torch.diag(x), x.diag(1), x.diag(-1), x.diag(5))",
    "diag_3d": "out = torch.diag(torch.ones(2, 2, 2))",
    "diag_0d": "out = torch.diag(torch.tensor(1))",
    "diag_embed": "x = torch.arange(6.).reshape(2, 3); "
    "out = (torch.diag_embed(x), x.diag_embed(1, 0, 2), torch.diag_embed(x, -1))",
    "diag_embed_same_dims": "out = torch.diag_embed(torch.ones(2), 0, 0, 0)",
    "diagflat": X + "out = (torch.diagflat(x[:2, :2], -1), torch.diagflat(torch.tensor([1, 2])))",
    "block_diag": "out = torch.block_diag(torch.ones(2, 2), torch.tensor([5, 6]), "
    "torch.tensor(7.))",
    "block_diag_3d": "out = torch.block_diag(torch.ones(2, 2, 2))",
    "block_diag_empty": "out = torch.block_diag()",
    "atleast": "a, b = torch.tensor(1.), torch.ones(2); "
    "out = (torch.atleast_1d(a), torch.atleast_2d(a, b), torch.atleast_3d([a, b]), "
    "torch.atleast_3d(torch.ones(2, 3)))",
    "hstack": "out = (torch.hstack([torch.ones(2), torch.zeros(3)]), "
    "torch.hstack((torch.ones(2, 1), torch.arange(4.).reshape(2, 2))))",
    "hstack_empty": "out = torch.hstack([])",
    "vstack": "out = torch.vstack([torch.arange(3), torch.ones(2, 3, dtype=torch.long)])",
    "vstack_mismatch": "out = torch.vstack([torch.ones(3), torch.ones(2)])",
    "dstack": "out = (torch.dstack([torch.ones(3), torch.zeros(3)]), "
    "torch.dstack([torch.ones(2, 2), torch.ones(2, 2)]))",
    "column_stack": "out = torch.column_stack([torch.arange(3), torch.ones(3, 2), torch.zeros(3)])",
    "movedim": "x = torch.arange(24).reshape(2, 3, 4); "
    "out = (torch.movedim(x, 0, -1), x.movedim((0, 1), (2, 0)), x.moveaxis(1, 0))",
    "movedim_range": X + "out = torch.movedim(x, 0, 5)",
    "movedim_repeat": X + "out = torch.movedim(x, (0, 1), (0, 0))",
    "movedim_count": X + "out = torch.movedim(x, (0, 1), (1,))",
    "swapaxes": XT + "out = (x.swapaxes(0, 1), torch.swapaxes(x, 1, 0), torch.swapdims(x, 0, 1))",
    "repeat": X + "out = (x.repeat(2, 1), x.repeat(1, 2, 3), x.repeat(1, 1))",
    "repeat_noncontig": XT + "out = x.repeat(2, 2)",
    "repeat_too_few": X + "out = x.repeat(2)",
    "repeat_negative": X + "out = x.repeat(2, -1)",
    "repeat_zero": X + "out = x.repeat(0, 2)",
    "tile": X + "out = (x.tile(2), torch.tile(x, (2, 1, 1)), torch.tensor(5).tile((3,)))",
    "narrow_copy": XT + "out = (x.narrow_copy(0, 1, 2), torch.narrow_copy(x, 1, 0, 1))",
    "narrow_copy_range": X + "out = x.narrow_copy(1, 3, 2)",
    # ---- gather / scatter (TensorAdvancedIndexing.cpp, ScatterGatherChecks.h) -----------------
    "gather": X + "i = torch.tensor([[0, 1], [2, 3], [1, 1]]); "
    "out = (x.gather(1, i), torch.gather(x, 0, i[:2]))",
    "gather_noncontig": XT + "out = x.gather(0, torch.tensor([[2, 1, 0], [0, 0, 0]]))",
    "gather_int32_index": X + "out = x.gather(1, torch.tensor([[3], [2]], dtype=torch.int32))",
    "gather_oob": X + "out = x.gather(1, torch.tensor([[4]]))",
    "gather_negative": X + "out = x.gather(1, torch.tensor([[-1]]))",
    "gather_ndim": X + "out = x.gather(1, torch.tensor([0]))",
    "gather_float_index": X + "out = x.gather(1, torch.tensor([[0.]]))",
    "gather_too_big": X + "out = x.gather(0, torch.tensor([[0, 0, 0, 0, 0]]))",
    "gather_dim_range": X + "out = x.gather(2, torch.tensor([[0]]))",
    "gather_0d": "out = torch.tensor(5.).gather(0, torch.tensor(0))",
    "scatter_src": X + "i = torch.tensor([[0, 1], [2, 3], [1, 1]]); "
    "y = torch.zeros(3, 5); r = y.scatter_(1, i, x); out = (y, r is y)",
    "scatter_value": "i = torch.tensor([[0, 1], [2, 3]]); "
    "out = (torch.zeros(3, 5).scatter(1, i, 7.), torch.zeros(2, 4, "
    "dtype=torch.long).scatter(0, i, 2))",
    "scatter_reduce_add": X + "import warnings; warnings.simplefilter('ignore'); "
    "i = torch.tensor([[0, 1], [2, 3], [1, 1]]); "
    "out = torch.zeros(3, 5).scatter(1, i, x, reduce='add')",
    "scatter_value_multiply": "i = torch.tensor([[0, 1], [2, 3], [1, 1]]); "
    "out = torch.ones(3, 5).scatter(1, i, 2., reduce='multiply')",
    "scatter_bad_reduce": "i = torch.tensor([[0, 1]]); "
    "out = torch.ones(3, 5).scatter(1, i, 2., reduce='mean')",
    "scatter_add": X + "i = torch.tensor([[0, 1], [2, 3], [1, 1]]); "
    "out = (torch.zeros(3, 5).scatter_add(1, i, x), "
    "torch.zeros(3, 5).scatter_add_(1, torch.tensor([[0, 0, 0]]), x))",
    "scatter_add_noncontig_self": XT + "y = torch.zeros(5, 4).t(); "
    "y.scatter_add_(1, torch.tensor([[0, 0], [4, 4]]), x); "
    "out = y",
    "scatter_oob": X + "out = torch.zeros(3, 5).scatter_(1, torch.tensor([[5]]), x)",
    "scatter_src_small": X + "out = torch.zeros(3, 5).scatter_(1, torch.tensor([[0, 1, 2, 3, 4]]), "
    "torch.ones(1, 2))",
    "scatter_dtype": "out = torch.zeros(3, 5).scatter_(1, torch.tensor([[0]]), "
    "torch.ones(3, 5, dtype=torch.long))",
    "scatter_onehot": "labels = torch.tensor([2, 0, 1]); "
    "out = torch.zeros(3, 4).scatter_(1, labels.unsqueeze(1), 1.0)",
    # ---- index_* / masked_* / take ------------------------------------------------------------
    "index_select": X + "out = (x.index_select(1, torch.tensor([3, 0, 0])), "
    "torch.index_select(x, 0, torch.tensor(2)))",
    "index_select_noncontig": XT + "out = x.index_select(0, torch.tensor([2]))",
    "index_select_oob": X + "out = x.index_select(1, torch.tensor([4]))",
    "index_select_2d_index": X + "out = x.index_select(1, torch.tensor([[1]]))",
    "index_select_float_index": X + "out = x.index_select(1, torch.tensor([1.]))",
    "index_select_0d": "out = torch.tensor(5.).index_select(0, torch.tensor([0]))",
    "index_add": X + "y = torch.zeros(3, 4); y.index_add_(0, torch.tensor([0, 0, 2]), x, "
    "alpha=2); out = (y, torch.index_add(torch.ones(3, 4), 1, "
    "torch.tensor([3, 3, 0, 1]), x))",
    "index_add_count": X + "out = torch.zeros(3, 4).index_add(0, torch.tensor([0, 0]), x)",
    "index_add_oob": X + "out = torch.zeros(3, 4).index_add(0, torch.tensor([0, 5, 0]), x)",
    "index_add_dtype": X + "out = torch.zeros(3, 4, dtype=torch.long).index_add(0, "
    "torch.tensor([0, 1, 2]), x)",
    "index_copy": X + "out = (torch.zeros(3, 4).index_copy(1, torch.tensor([3, 0, 1, 2]), x), "
    "torch.zeros(4, 4).index_copy_(0, torch.tensor([3, 0, 1]), x))",
    "index_copy_count": X + "out = torch.zeros(3, 4).index_copy_(1, torch.tensor([3, 0]), x)",
    "index_copy_oob": X + "out = torch.zeros(3, 4).index_copy_(0, torch.tensor([0, 1, 3]), x)",
    "index_fill": X + "out = (x.index_fill(1, torch.tensor([3, 0]), -1), "
    "x.clone().index_fill_(0, torch.tensor([1]), torch.tensor(2.)))",
    "index_fill_oob": "out = torch.zeros(3, 4).index_fill_(0, torch.tensor([7]), 2)",
    "index_fill_int32": "out = torch.zeros(3, 4).index_fill_(0, torch.tensor([1], "
    "dtype=torch.int32), 2)",
    "index_reduce": X + "import warnings; warnings.simplefilter('ignore'); "
    "i = torch.tensor([0, 0, 2]); "
    "out = [torch.ones(3, 4).index_reduce(0, i, x, r, include_self=s) "
    "for r in ('prod', 'mean', 'amax', 'amin') for s in (True, False)]",
    "index_reduce_int_mean": "import warnings; warnings.simplefilter('ignore'); "
    "out = torch.full((2, 3), 3).index_reduce_(1, torch.tensor([0, 0, 2]),"
    " torch.tensor([[1, 2, 4], [5, 6, 9]]), 'mean')",
    "index_reduce_bad": X + "import warnings; warnings.simplefilter('ignore'); "
    "out = torch.ones(3, 4).index_reduce(0, torch.tensor([0, 0, 2]), x, "
    "'sum')",
    "masked_select": X + "out = (x.masked_select(x > 5), torch.masked_select(x, "
    "torch.tensor([True, False, True, False])))",
    "masked_select_noncontig": XT + "out = x.masked_select(x > 4)",
    "masked_select_not_bool": X + "out = x.masked_select(x)",
    "masked_scatter": X + "out = (x.masked_scatter(x > 5, torch.arange(100.)), "
    "torch.zeros(3, 4).masked_scatter_(torch.tensor([True, False, True, "
    "False]), -torch.arange(12.)))",
    "masked_scatter_short": X + "out = x.masked_scatter(x > 5, torch.arange(2.))",
    "take": X + "out = (x.take(torch.tensor([[0, 11], [-1, 5]])), torch.take(x.t(), "
    "torch.tensor([1, 2])))",
    "take_oob": X + "out = x.take(torch.tensor([12]))",
    "take_int32": X + "out = x.take(torch.tensor([1], dtype=torch.int32))",
    # ---- ReduceOps.cpp: cumprod, logcumsumexp, cummax, cummin, amax, amin, logsumexp ----------
    "cumprod": "x = torch.tensor([[1., 2., 3.], [4., 0.5, -1.]]); "
    "out = (x.cumprod(1), torch.cumprod(x, 0), x.t().cumprod(1))",
    "cumprod_int": "x = torch.tensor([[1, 2, 3], [4, 5, -1]]); "
    "out = (x.cumprod(0), x.cumprod(1, dtype=torch.float64), "
    "torch.tensor([True, False]).cumprod(0), x.int().cumprod(1))",
    "cumprod_inplace": "x = torch.tensor([[1., 2., 3.], [4., 0.5, -1.]]); x.cumprod_(0); out = x",
    "cumprod_0d": "out = torch.tensor(3).cumprod(0)",
    "cumprod_dim_range": "out = torch.ones(2, 3).cumprod(2)",
    "logcumsumexp": "x = torch.tensor([[1., 2., 3.], [4., 0.5, -1.]]); "
    "out = (x.logcumsumexp(1), torch.logcumsumexp(x.t(), 0))",
    "logcumsumexp_inf": "out = torch.tensor([-float('inf'), 1., float('inf')]).logcumsumexp(0)",
    "logcumsumexp_int": "out = torch.tensor([1, 2]).logcumsumexp(0)",
    "cummax": "x = torch.tensor([[1., 2., 3.], [4., 0.5, -1.]]); "
    "out = (x.cummax(1), torch.cummax(x, 0), x.t().cummax(0))",
    "cummin_int": "out = torch.cummin(torch.tensor([[1, 2, 3], [4, 5, -1]]), 0)",
    "cummax_nan": "out = torch.tensor([1., float('nan'), 0., 5.]).cummax(0)",
    "cummax_ties": "out = (torch.tensor([3, 3, 5, 5]).cummax(0), "
    "torch.tensor([3, 3, 1, 1]).cummin(0), torch.tensor([True, False]).cummax(0))",
    "cummax_0d_empty": "out = (torch.tensor(2.).cummax(0), torch.ones(0).cummin(0))",
    "amax_amin": X + "out = (x.amax(1), torch.amax(x, (0, 1)), x.amin(0, keepdim=True), "
    "torch.amin(x), torch.tensor([1., float('nan')]).amax())",
    "amax_empty": "out = torch.ones(0, 3).amax(0)",
    "amax_empty_other_dim": "out = torch.ones(0, 3).amax(1)",
    "logsumexp_inf": "out = (torch.tensor([float('inf'), 1.]).logsumexp(0), "
    "torch.tensor([-float('inf'), -float('inf')]).logsumexp(0), "
    "torch.ones(0, 3).logsumexp(0))",
    "logsumexp_no_dims": "out = torch.ones(2, 3).logsumexp(dim=())",
    # ---- closeness, equality, clip, where(condition) -------------------------------------------
    "allclose": X + "out = (torch.allclose(x, x + 1e-9), x.allclose(x + 1), "
    "torch.allclose(torch.tensor([1, 2]), torch.tensor([1, 2])), "
    "torch.allclose(x, x + 0.5, atol=1.))",
    "allclose_dtype": X + "out = torch.allclose(x, x.long())",
    "isclose": X + "out = (torch.isclose(x, x + 1e-3, atol=1e-2), x.isclose(x + 1e-3), "
    "torch.isclose(torch.tensor([1, 2]), torch.tensor([1, 3])), "
    "torch.isclose(torch.tensor([True]), torch.tensor([False])), "
    "torch.isclose(x, x, rtol=0, atol=0))",
    "isclose_nan_inf": "n = torch.tensor([float('nan'), float('inf'), -float('inf'), 1.]); "
    "out = (torch.isclose(n, n), torch.isclose(n, n, equal_nan=True), "
    "torch.isclose(n, n.flip(0)))",
    "isclose_negative_rtol": X + "out = torch.isclose(x, x, rtol=-1)",
    "isclose_negative_atol": X + "out = torch.isclose(x, x, atol=-0.5)",
    "equal": X + "out = (torch.equal(x, x.clone()), torch.equal(x, x[:1]), x.equal(x.long()), "
    "x.equal(x.t().contiguous().t()), torch.equal(x, x + 1))",
    "equal_nan": "n = torch.tensor([1., float('nan')]); out = (torch.equal(n, n), n.equal(n[:0]))",
    "clip": X + "out = (x.clip(2, 5), torch.clip(x, min=3), x.clip(max=torch.tensor([1., 5., 7., "
    "9.])), x.clone().clip_(max=1), x.long().clip(0, 3))",
    "clip_none": X + "out = x.clip()",
    "where_condition": X + "out = (torch.where(x > 5), torch.where(torch.tensor(True)), "
    "torch.where(torch.tensor(0)))",
    "where_three": X + "out = (torch.where(x > 5, x, 0.), torch.where(x > 5, 1, 0), "
    "x.where(x < 3, -x))",
    "nonzero_as_tuple": XT + "out = (torch.nonzero(x > 4, as_tuple=True), "
    "(x > 4).nonzero(as_tuple=True), x.nonzero(as_tuple=False), "
    "torch.nonzero(torch.tensor(5), as_tuple=True))",
    # ---- Linear.cpp / LinearAlgebra.cpp: einsum, tensordot, inner, outer, ger, kron, cross -----
    "einsum_matmul": "a = torch.arange(6.).reshape(2, 3); b = torch.arange(12.).reshape(3, 4); "
    "out = (torch.einsum('ij,jk', a, b), torch.einsum('ij,jk->ik', a, b), "
    "torch.einsum('ij,jk->ik', [a, b]), torch.einsum(a, [0, 1], b, [1, 2], "
    "[0, 2]))",
    "einsum_unary": "a = torch.arange(9.).reshape(3, 3); "
    "out = (torch.einsum('ij->ji', a), torch.einsum('ii', a), "
    "torch.einsum('ii->i', a), torch.einsum('ij->', a), torch.einsum('ij->j', a))",
    "einsum_vectors": "a = torch.arange(3.); b = torch.arange(4.); "
    "out = (torch.einsum('i,i->', a, a), torch.einsum('i,j->ij', a, b), "
    "torch.einsum('i,i', a.long(), a.long()))",
    "einsum_batched": "q = torch.arange(24.).reshape(1, 2, 3, 4); "
    "out = (torch.einsum('bhqd,bhkd->bhqk', q, q), "
    "torch.einsum('bij,bjk->bik', q[0], q[0].transpose(1, 2)), "
    "torch.einsum('...ij->...ji', q), "
    "torch.einsum('ij,ij->i', q[0, 0], q[0, 1]))",
    "einsum_three": "a = torch.arange(6.).reshape(2, 3); b = torch.arange(12.).reshape(3, 4); "
    "out = torch.einsum('ij,jk,kl->il', a, b, torch.ones(4, 2))",
    "einsum_size_mismatch": "out = torch.einsum('ij,jk', torch.ones(2, 3), torch.ones(2, 3))",
    "einsum_ndim_mismatch": "out = torch.einsum('ij', torch.ones(2, 3, 4))",
    "einsum_few_operands": "out = torch.einsum('ij,jk->ik', torch.ones(2, 3))",
    "einsum_bad_output": "out = torch.einsum('ij->ik', torch.ones(2, 3))",
    "einsum_bad_subscript": "out = torch.einsum('i1', torch.ones(2, 3))",
    "tensordot": "a = torch.arange(6.).reshape(2, 3); b = torch.arange(12.).reshape(3, 4); "
    "out = (torch.tensordot(a, b, dims=([1], [0])), torch.tensordot(a, b, dims=1), "
    "torch.tensordot(torch.arange(24.).reshape(2, 3, 4), b, dims=2))",
    "tensordot_mismatch": "out = torch.tensordot(torch.ones(2, 3), torch.ones(4, 3), "
    "dims=([1], [0]))",
    "inner": "a = torch.arange(6.).reshape(2, 3); "
    "out = (torch.inner(a, a), torch.inner(torch.arange(3.), torch.arange(3.)), "
    "a.inner(torch.tensor(2.)))",
    "inner_mismatch": "out = torch.inner(torch.ones(2, 3), torch.ones(2))",
    "outer": "a = torch.arange(3.); b = torch.arange(4.); "
    "out = (torch.outer(a, b), a.ger(b), torch.outer(a, b.long()), "
    "torch.ger(b.int(), a.int()))",
    "outer_2d": "out = torch.outer(torch.ones(2, 2), torch.ones(3))",
    "ger_2d": "out = torch.ones(3).ger(torch.ones(2, 2))",
    "kron": "a = torch.arange(6.).reshape(2, 3); "
    "out = (torch.kron(a, torch.ones(3)), torch.kron(torch.eye(2), a), a.kron(a.t()))",
    "cross": "a = torch.arange(6.).reshape(2, 3); "
    "out = (torch.cross(a, a.flip(1), dim=1), a.cross(torch.ones(2, 3), dim=-1))",
    "cross_default_dim": "import warnings; warnings.simplefilter('ignore'); "
    "out = torch.cross(torch.ones(3, 2), torch.arange(6.).reshape(3, 2))",
    "cross_bad_length": "out = torch.cross(torch.ones(2, 4), torch.ones(2, 4), dim=1)",
    "cross_no_dim3": "import warnings; warnings.simplefilter('ignore'); "
    "out = torch.cross(torch.ones(2, 4), torch.ones(2, 4))",
    "cross_ndim": "out = torch.cross(torch.ones(3), torch.ones(2, 3), dim=0)",
    # ---- Unique.cpp: unique, unique_consecutive ------------------------------------------------
    "unique": XI + "out = (torch.unique(x), x.unique(return_inverse=True), "
    "torch.unique(x, return_counts=True), "
    "torch.unique(x, return_inverse=True, return_counts=True))",
    "unique_unsorted": "out = (torch.unique(torch.tensor([5, 3, 5, 1, 3]), sorted=False, "
    "return_inverse=True, return_counts=True), "
    "torch.tensor([[2., 1.], [1., 0.5]]).unique(sorted=False))",
    "unique_dim": XI + "y = torch.cat([x, x[:1]]); out = (torch.unique(y, dim=0), "
    "torch.unique(y, dim=1, return_inverse=True, return_counts=True), "
    "y.unique(dim=0, return_counts=True))",
    "unique_noncontig": XT + "out = x.unique(return_inverse=True)",
    "unique_nan_bool_0d": "out = (torch.unique(torch.tensor([1., float('nan'), float('nan'), 1.])),"
    " torch.unique(torch.tensor([True, False, True])), "
    "torch.unique(torch.tensor(3)), "
    "torch.unique(torch.tensor(3), return_inverse=True))",
    "unique_empty": "out = (torch.unique(torch.ones(0)), torch.unique(torch.ones(0, 3), dim=0))",
    "unique_dim_range": XI + "out = torch.unique(x, dim=2)",
    "unique_private_ops": "out = (hasattr(torch, 'unique_dim'), hasattr(torch, '_unique2'))",
    "unique_consecutive": "x = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2]); "
    "out = (torch.unique_consecutive(x), torch.unique_consecutive(x, "
    "return_inverse=True, return_counts=True), "
    "x.unique_consecutive(return_counts=True))",
    "unique_consecutive_dim": XI + "y = torch.cat([x, x[2:]]); "
    "out = (torch.unique_consecutive(y, dim=0), "
    "torch.unique_consecutive(y.t(), dim=1, return_counts=True, "
    "return_inverse=True))",
    # ---- meshgrid, repeat_interleave, fill_diagonal_ -----------------------------------------
    "meshgrid": "a = torch.tensor([1, 2, 3]); b = torch.tensor([4, 5]); "
    "out = (torch.meshgrid(a, b, indexing='ij'), torch.meshgrid(a, b, indexing='xy'),"
    " torch.meshgrid([a, b], indexing='ij'), torch.meshgrid(a, torch.tensor(2), "
    "indexing='xy'), torch.meshgrid(a, b, a, indexing='xy'))",
    "meshgrid_default": "import warnings; warnings.simplefilter('ignore'); "
    "out = torch.meshgrid(torch.tensor([1, 2, 3]), torch.tensor([4, 5]))",
    "meshgrid_dtype": "out = torch.meshgrid(torch.tensor([1]), torch.tensor([1.]), indexing='ij')",
    "meshgrid_indexing": "out = torch.meshgrid(torch.tensor([1]), indexing='foo')",
    "meshgrid_empty": "out = torch.meshgrid(indexing='ij')",
    "repeat_interleave": XI + "out = (torch.repeat_interleave(torch.tensor([1, 2]), 2), "
    "x.repeat_interleave(2, dim=0), x.repeat_interleave(torch.tensor("
    "[1, 0, 2]), dim=0), torch.repeat_interleave(torch.tensor([2, 0, "
    "3])), x.float().repeat_interleave(2), "
    "x.repeat_interleave(torch.tensor(2), dim=1), "
    "x.repeat_interleave(2, dim=0, output_size=6))",
    "repeat_interleave_noncontig": XT + "out = x.repeat_interleave(2, dim=1)",
    "repeat_interleave_size": XI + "out = x.repeat_interleave(torch.tensor([1, 2]), dim=0)",
    "repeat_interleave_negative": XI + "out = x.repeat_interleave(-1)",
    "repeat_interleave_negative_tensor": "out = torch.repeat_interleave(torch.tensor([1, -2]))",
    "repeat_interleave_2d": XI + "out = x.repeat_interleave(torch.tensor([[1]]), dim=0)",
    "fill_diagonal": "out = (torch.zeros(3, 3).fill_diagonal_(5), "
    "torch.zeros(7, 3).fill_diagonal_(5, wrap=True), "
    "torch.zeros(7, 3).fill_diagonal_(5), torch.zeros(3, 5).fill_diagonal_(1), "
    "torch.zeros(2, 2, 2).fill_diagonal_(1), "
    "torch.zeros(4, 4).t().fill_diagonal_(2), "
    "torch.zeros(3, 3, dtype=torch.long).fill_diagonal_(7))",
    "fill_diagonal_unequal": "out = torch.zeros(2, 3, 2).fill_diagonal_(1)",
    "fill_diagonal_1d": "out = torch.zeros(3).fill_diagonal_(1)",
    # ---- checks of what existed: masked_fill, clamp with tensor bounds ------------------------
    "masked_fill": X + "out = (x.masked_fill(x > 5, 0.), x.masked_fill(torch.tensor([True, False, "
    "True, False]), -1), x.clone().masked_fill_(x < 2, float('-inf')), "
    "x.long().masked_fill(x > 3, torch.tensor(9)))",
    "masked_fill_noncontig": XT + "out = torch.masked_fill(x, x > 4, 1.5)",
    "masked_fill_not_bool": X + "out = x.masked_fill(x, 1.)",
    "masked_fill_value_dim": X + "out = x.masked_fill(x > 1, torch.tensor([1.]))",
    "clamp_tensor_bounds": X + "out = (x.clamp(torch.tensor([1., 2., 3., 4.]), "
    "torch.tensor(6.)), torch.clamp(x, max=torch.tensor([[2.], [5.], "
    "[9.]])), x.long().clamp(min=torch.tensor(3)))",
    "clamp_scalar": XI + "out = (x.clamp(1, 4), x.clamp(min=2.5), torch.clamp(x, max=0), "
    "x.clone().clamp_(max=3))",
    # ---- further everyday ops ----------------------------------------------------------------
    "take_along_dim": "x = torch.tensor([[10, 30, 20], [60, 40, 50]]); "
    "out = (torch.take_along_dim(x, x.argsort(1), 1), "
    "torch.take_along_dim(x, torch.tensor([0, 5])), "
    "x.take_along_dim(torch.tensor([[0], [1]]), dim=1), "
    "torch.take_along_dim(x, torch.tensor([[2]]), dim=1))",
    "take_along_dim_ndim": "out = torch.take_along_dim(torch.ones(2, 3), torch.tensor([0]), dim=1)",
    "take_along_dim_int32": "out = torch.take_along_dim(torch.ones(2, 3), "
    "torch.tensor([[0]], dtype=torch.int32), dim=1)",
    "argwhere": X + "out = (torch.argwhere(x > 5), (x > 100).argwhere())",
    "broadcast_to": "out = (torch.broadcast_to(torch.tensor([1, 2]), (3, 2)), "
    "torch.tensor(5.).broadcast_to([2]))",
    "concat_row_stack_ravel": XT + "out = (torch.concat([x, x], 1), torch.concatenate((x, x)), "
    "torch.row_stack([x, x]), x.ravel(), torch.ravel(x.t()))",
    "tri_indices": "out = (torch.tril_indices(3, 3), torch.triu_indices(3, 4, 1), "
    "torch.tril_indices(4, 3, -1, dtype=torch.int32), torch.tril_indices(0, 3))",
    "tri_indices_negative": "out = torch.tril_indices(-1, 3)",
    "tri_indices_float": "out = torch.triu_indices(3, 3, dtype=torch.float32)",
    "count_nonzero": X + "out = (torch.count_nonzero(x - 3), torch.count_nonzero(x > 5, dim=0), "
    "x.count_nonzero((0, 1)), x.count_nonzero(-1))",
    # torch/functional.py: the module and its wrappers
    "functional_module": "out = (torch.functional.einsum('i,i->', torch.arange(3.), "
    "torch.arange(3.)), torch.functional.unique(torch.tensor([2, 1, 2])), "
    "torch.functional.block_diag(torch.ones(1, 1), torch.ones(1)), "
    "torch.functional.tensordot(torch.ones(2, 3), torch.ones(3, 2), 1))",
}


# exp/log of float32: NumPy's and torch's (SLEEF) may differ in the last bit
CLOSE = {
    "logsumexp": "x = torch.tensor([[1., 2., 3.], [4., 0.5, -1.]]); "
    "out = (x.logsumexp(1), torch.logsumexp(x, (0, 1), keepdim=True), "
    "torch.tensor([[1, 2, 3], [4, 5, -1]]).logsumexp(0))",
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_everyday_b(name: str) -> None:
    check(PROGRAMS[name])


@pytest.mark.parametrize("name", list(CLOSE))
def test_everyday_b_close(name: str) -> None:
    check(CLOSE[name], rtol=1e-6)


def test_meshgrid_warns_without_indexing() -> None:
    """TORCH_WARN_ONCE: the first call without indexing warns (torch warns once per process,
    so this is checked on tensortrace alone)."""
    import warnings

    import tensortrace
    from tensortrace.aten.native import tensor_shape_composites

    tensor_shape_composites._WARNED.discard("meshgrid")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tensortrace.meshgrid(tensortrace.ones(2), tensortrace.ones(3))
    assert [str(w.message) for w in caught] == [
        "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."
    ]
