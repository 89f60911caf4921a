"""Conformance of the views (view, reshape, slice, permute, expand, split, ...), set_, storages
and Tensor indexing (__getitem__ / __setitem__, basic and advanced) against torch."""

from __future__ import annotations

import pytest

from .harness import check

# A tensor with distinct, exactly representable values, built without arange so that these
# programs depend only on the views and indexing machinery (and torch.Tensor(list)).
X = "x = torch.Tensor([[float(4 * i + j) for j in range(4)] for i in range(3)]); "
Y = "y = torch.Tensor([float(i) for i in range(24)]).view(2, 3, 4); "

PROGRAMS = {
    # ---- detach: a view of the data that records no base, by hand in VariableTypeManual.cpp --
    "detach_is_not_a_view": "x = torch.rand(3); d = x.detach(); "
    "out = (d._is_view(), d._base is None, d.data_ptr() == x.data_ptr())",
    "detach_inplace_keeps_version": "x = torch.rand(3); x.detach_(); out = (x._version, x)",
    # ---- seed 003 --------------------------------------------------------------------------
    "seed003_view": Y + "out = (y, y.stride(), y.dim(), tuple(y.size()))",
    "seed003_index_22": Y + "out = y[1][2][2]",
    "seed003_rows": Y + "out = (y[0], y[0].numel(), y.stride(0), y[0][0], y.stride(1))",
    "seed003_set_": Y + "out = torch.Tensor().set_(y.untyped_storage(), storage_offset=3, "
    "size=torch.Size([2, 3]), stride=(5, 2))",
    "seed003_set_positional": Y + "t = torch.Tensor(); r = t.set_(y.untyped_storage(), 1, (2,),"
    " (2,)); out = (r, r is t)",
    "seed003_arange": "data = torch.arange(24, dtype=torch.float32).view(2, 3, 4); "
    # torch.empty(0), not torch.Tensor(): the legacy constructor stays on the CPU under a
    # default device, and set_ refuses a storage of another device
    "x = torch.empty(0).set_(data.untyped_storage(), storage_offset=3, "
    "size=torch.Size([2, 3]), stride=(5, 2)); "
    "out = (data, data.stride(), data[1][2][2], x)",
    "seed003_typed_storage": "import warnings; warnings.simplefilter('ignore'); "
    "data = torch.arange(24, dtype=torch.float32).view(2, 3, 4); "
    "out = torch.empty(0).set_(data.storage(), storage_offset=3, "
    "size=torch.Size([2, 3]), stride=(5, 2))",
    "empty_tensor_ctor": "out = torch.Tensor()",
    "tensor_ctor_sizes": "out = tuple(torch.Tensor(2, 3).shape)",
    # ---- view / reshape --------------------------------------------------------------------
    "view_infer": Y + "out = y.view(-1, 6)",
    "view_tuple": Y + "out = y.view((4, 6))",
    "view_scalar": "out = torch.Tensor([5.0]).view(())",
    "view_non_contiguous_error": Y + "out = y.transpose(0, 1).view(24)",
    "view_bad_size": Y + "out = y.view(5)",
    "view_two_inferred": Y + "out = y.view(-1, -1)",
    "view_negative_dim": Y + "out = y.view(-2, 4)",
    "view_zero_ambiguous": "out = torch.rand(0, 3).view(-1, 0)",
    "view_of_permuted_ok": Y + "out = y.permute(1, 0, 2).view(3, 2, 2, 2)",
    "reshape_view": Y + "out = y.reshape(6, 4)",
    "reshape_copy": Y + "out = y.transpose(0, 1).reshape(6, 4)",
    "reshape_alias_path": Y + "out = y[:, :, ::2].reshape(2, 3, 2)",
    "reshape_bad": Y + "out = y.reshape(7, -1)",
    "flatten": Y + "out = (y.flatten(), y.flatten(1), y.flatten(0, 1), y.flatten(-1))",
    "flatten_scalar": "out = torch.rand(()).flatten()",
    "flatten_bad": X + "out = x.flatten(1, 0)",
    "flatten_copy": Y + "out = y.transpose(0, 2).flatten()",
    "unflatten": Y + "out = (y.unflatten(2, (2, 2)), y.unflatten(-1, (-1, 1)))",
    "unflatten_bad": X + "out = x.unflatten(1, (3, 2))",
    "unflatten_empty": X + "out = x.unflatten(1, ())",
    # ---- slice / narrow / select -----------------------------------------------------------
    "narrow": Y + "out = (y.narrow(1, 1, 2), y.narrow(-1, -2, 2))",
    "narrow_too_long": X + "out = x.narrow(1, 3, 2)",
    "narrow_bad_start": X + "out = x.narrow(1, -5, 1)",
    "narrow_negative_length": X + "out = x.narrow(1, 1, -1)",
    "narrow_bad_dim": X + "out = x.narrow(2, 1, 1)",
    # ---- permute / transpose / t -----------------------------------------------------------
    "permute": Y + "out = (y.permute(2, 0, 1), y.permute(-1, 0, 1), torch.permute(y, (1, 2, 0)))",
    "permute_wrong_len": X + "out = x.permute(0)",
    "permute_duplicate": X + "out = x.permute(0, 0)",
    "permute_bad_dim": X + "out = x.permute(0, 2)",
    "transpose": Y + "out = (y.transpose(0, 2), torch.transpose(y, -1, -2), y.transpose(1, 1))",
    "transpose_bad": X + "out = x.transpose(0, 2)",
    "t": X + "out = (x.t(), torch.t(x), x[0].t())",
    "t_3d": Y + "out = y.t()",
    # ---- squeeze / unsqueeze ---------------------------------------------------------------
    "unsqueeze": X + "out = (x.unsqueeze(0), x.unsqueeze(1), x.unsqueeze(-1), x.unsqueeze(2))",
    "unsqueeze_bad": X + "out = x.unsqueeze(3)",
    "squeeze_all": "out = torch.rand(3, 1, 4, 1).squeeze()",
    "squeeze_dim": "z = torch.rand(3, 1, 4); out = (z.squeeze(1), z.squeeze(0), z.squeeze(-2))",
    "squeeze_dims": "z = torch.rand(1, 3, 1, 1); out = (z.squeeze((0, 2)), z.squeeze([1, 3]))",
    "squeeze_dims_repeat": X + "out = x.squeeze((0, 0))",
    "squeeze_bad_dim": X + "out = x.squeeze(2)",
    # ---- expand ----------------------------------------------------------------------------
    "expand": "z = torch.rand(3, 1); out = (z.expand(3, 4), z.expand(2, -1, 5), z.expand_as("
    "torch.rand(2, 3, 2)))",
    "expand_scalar": "out = torch.rand(()).expand(2, 3)",
    "expand_too_few": X + "out = x.expand(2)",
    "expand_mismatch": X + "out = x.expand(3, 5)",
    "expand_leading_minus_one": X + "out = x.expand(-1, -1, 4)",
    # ---- diagonal --------------------------------------------------------------------------
    "diagonal": X + "out = (x.diagonal(), x.diagonal(1), x.diagonal(-1), x.diagonal(5), "
    "x.diagonal(0, 1, 0))",
    "diagonal_3d": Y + "out = (y.diagonal(0, 1, 2), y.diagonal(1, 0, 2))",
    "diagonal_same_dims": X + "out = x.diagonal(0, 0, 0)",
    # ---- split / chunk / unbind ------------------------------------------------------------
    "split_int": "z = torch.rand(5, 4); out = z.split(2)",
    "split_dim": "z = torch.rand(5, 4); out = torch.split(z, 3, dim=1)",
    "split_sizes": "z = torch.rand(5, 4); out = z.split([2, 3])",
    "split_with_sizes": "z = torch.rand(5, 4); out = z.split_with_sizes([1, 3], 1)",
    "split_zero": X + "out = x.split(0)",
    "split_negative": X + "out = x.split(-1)",
    "split_sizes_bad_sum": X + "out = x.split([1, 1])",
    "split_scalar": "out = torch.rand(()).split(1)",
    "chunk": "z = torch.rand(5, 4); out = (z.chunk(2), z.chunk(3, 1), torch.chunk(z, 5))",
    "chunk_zero": X + "out = x.chunk(0)",
    "unbind": X + "out = (x.unbind(), x.unbind(1), torch.unbind(x, -1))",
    "unbind_scalar": "out = torch.rand(()).unbind()",
    # ---- contiguous / clone ----------------------------------------------------------------
    "contiguous_same_object": X + "out = x.contiguous() is x",
    "contiguous_copy": X + "c = x.t().contiguous(); out = (c, c.is_contiguous())",
    "clone_preserves_strides": X + "out = (x.t().clone(), x[:, ::2].clone(), x.clone())",
    "clone_contiguous_format": X + "out = x.t().clone(memory_format=torch.contiguous_format)",
    "clone_expanded": "out = torch.rand(3, 1).expand(3, 4).clone()",
    # ---- storages --------------------------------------------------------------------------
    "untyped_storage_shared": X + "v = x[1:]; s = x.untyped_storage(); "
    "out = (s is v.untyped_storage(), s.nbytes(), len(s), s.size(), "
    "s.data_ptr() == v.untyped_storage().data_ptr(), v.storage_offset())",
    "untyped_storage_bytes": "z = torch.Tensor([1.0, 2.0]); s = z.untyped_storage(); "
    "out = (s.tolist(), s[7], s.element_size())",
    "untyped_storage_write": "z = torch.Tensor([0.0]); s = z.untyped_storage(); s[3] = 63; "
    "s[2] = 128; out = z",
    "untyped_storage_bad_index": "s = torch.Tensor([0.0]).untyped_storage(); out = s[4]",
    "set_grows_storage": "z = torch.rand(3); s = torch.tensor([1.0, 2.0]).untyped_storage(); "
    "out = (tuple(z.set_(s, 0, (3,), (1,)).shape), z.untyped_storage()"
    ".nbytes())",
    "set_stride_mismatch": "s = torch.Tensor([1.0, 2.0]).untyped_storage(); "
    "out = torch.Tensor().set_(s, 0, (2, 1), (1,))",
    # ---- __getitem__: basic ----------------------------------------------------------------
    "getitem_slice": X + "out = (x[1:3], x[1:], x[:2], x[-2:], x[:-1], x[:])",
    "getitem_slice_step": X + "out = (x[::2], x[1::2], x[:, ::3], x[5:], x[2:1])",
    "getitem_slice_out_of_range": X + "out = (x[5:6, 0], x[-10:10])",
    "getitem_step_zero": X + "out = x[::0]",
    "getitem_step_negative": X + "out = x[::-1]",
    "getitem_slice_float": X + "out = x[0.0:1]",
    "getitem_tuple": X + "out = (x[1, 2], x[:, 1], x[1, :], x[-1, -1], x[1:, 2:])",
    "getitem_none": X + "out = (x[None], x[:, None], x[None, ..., None], x[1, None])",
    "getitem_ellipsis": Y + "out = (x[...], y[..., 1], y[0, ...], y[..., 1, :], y[...,])",
    "getitem_ellipsis_is_new_object": X + "out = (x[...] is x, x[:, :] is x)",
    "getitem_mixed": X + "out = x[1:2, None, ..., 0]",
    "getitem_too_many": X + "out = x[0, 0, 0]",
    "getitem_too_many_slices": X + "out = x[:, :, None, :, :]",
    "getitem_two_ellipsis": X + "out = x[..., 0, ...]",
    "getitem_out_of_bounds_dim1": X + "out = x[:, 4]",
    "getitem_str": X + "out = x['a']",
    "getitem_dict": X + "out = x[{}]",
    "getitem_0dim": "out = torch.rand(())[0]",
    "getitem_true_false": X + "out = (x[True], x[False])",
    "getitem_numpy_int": X + "out = x[np.int64(1)]",
    # ---- __getitem__: advanced -------------------------------------------------------------
    "getitem_list": X + "out = (x[[0, 2]], x[[2, 0, 2]], x[[-1]])",
    "getitem_list_floats": X + "out = x[[0.5, 1.7]]",
    "getitem_list_out_of_bounds": X + "out = x[[0, 5]]",
    "getitem_list_and_int": X + "out = (x[[0, 2], 1], x[1, [0, 3]])",
    "getitem_two_lists": X + "out = x[[0, 2], [1, 3]]",
    "getitem_list_broadcast": X + "out = x[[[0], [2]], [1, 3]]",
    "getitem_list_slice": X + "out = (x[[0, 2], 1:3], x[1:, [0, 3]])",
    "getitem_nonadjacent": Y + "out = y[[0, 1], :, [1, 2]]",
    "getitem_nested_list_tuple": X + "out = x[[[0, 1]]]",
    "getitem_bool_list": X + "out = x[[True, False, True]]",
    # "What is torch.nn really?": -input[range(target.shape[0]), target].mean()
    "getitem_range": X + "out = (x[range(2)], x[:, range(0, 4, 2)], x[range(0)])",
    "getitem_range_and_tensor": X + "t = torch.tensor([1, 0, 3]); "
    "out = (x[range(3), t], x[range(1, 3), range(2)])",
    "getitem_list_of_range": X + "out = x[[range(2)]]",
    "getitem_range_out_of_bounds": X + "out = x[range(5)]",
    "setitem_range": X + "x[range(2)] = 0.0; out = x",
    "getitem_tensor_index": X + "i = torch.Tensor([2, 0]).to(torch.int64); out = (x[i], x[:, i])",
    "getitem_int32_index": X + "i = torch.Tensor([1]).to(torch.int32); out = x[i]",
    "getitem_float_tensor_index": X + "out = x[torch.Tensor([1.0])]",
    "getitem_0dim_tensor_index": X + "i = torch.Tensor([1]).to(torch.int64)[0]; out = x[i]",
    "getitem_mask": X + "m = torch.Tensor([[float((i + j) % 2) for j in range(4)] "
    "for i in range(3)]).to(torch.bool); out = x[m]",
    "getitem_row_mask": X + "m = torch.Tensor([1, 0, 1]).to(torch.bool); out = (x[m], x[m, 1:])",
    "getitem_mask_shape_mismatch": X + "m = torch.Tensor([1, 0]).to(torch.bool); out = x[m]",
    "getitem_index_out_of_bounds_tensor": X + "i = torch.Tensor([3]).to(torch.int64); out = x[i]",
    # ---- __setitem__ -----------------------------------------------------------------------
    "setitem_int_scalar": X + "x[0] = 1; out = x",
    "setitem_column_float": X + "x[:, 0] = 2.5; out = x",
    "setitem_element": X + "x[1, 2] = -1; out = x",
    "setitem_row_tensor": X + "x[0] = torch.Tensor([9.0, 8.0, 7.0, 6.0]); out = x",
    "setitem_broadcast": X + "x[1:] = torch.Tensor([[1.0, 2.0, 3.0, 4.0]]); out = x",
    "setitem_broadcast_column": X + "x[:, 1:3] = torch.Tensor([[5.0], [6.0], [7.0]]); out = x",
    "setitem_slice_step": X + "x[::2, ::3] = 0; out = x",
    "setitem_ellipsis": X + "x[...] = 3; out = x",
    "setitem_none": X + "x[None] = 4; out = x",
    "setitem_false": X + "x[False] = 4; out = x",
    "setitem_int_dtype_from_float": "z = torch.rand(3).to(torch.int64); z[0] = 2.7; out = z",
    "setitem_bool_value": X + "x[0] = True; out = x",
    "setitem_list": X + "x[[0, 2]] = 2.5; out = x",
    "setitem_list_tensor": X + "x[[0, 2]] = torch.Tensor([1.0, 2.0, 3.0, 4.0]); out = x",
    "setitem_two_lists": X + "x[[0, 1], [2, 3]] = torch.Tensor([-1.0, -2.0]); out = x",
    "setitem_mask_scalar": X + "m = torch.Tensor([[float((i + j) % 2) for j in range(4)] "
    "for i in range(3)]).to(torch.bool); x[m] = 0; out = x",
    "setitem_mask_tensor": X + "m = torch.Tensor([1, 0, 1]).to(torch.bool); "
    "x[m] = torch.Tensor([1.0, 2.0, 3.0, 4.0]); out = x",
    "setitem_shape_mismatch": X + "x[0] = torch.Tensor([1.0, 2.0, 3.0, 4.0, 5.0])",
    "setitem_too_many_dims": X + "x[0] = torch.rand(2, 4)",
    "setitem_str": X + "x[0] = 'a'",
    "setitem_list_out_of_bounds": X + "x[[0, 7]] = 1",
    "setitem_dtype_mismatch": X + "x[[0]] = torch.Tensor([1.0, 2.0, 3.0, 4.0]).to(torch.int64)",
    "setitem_view_shares": X + "v = x[1]; x[1, 1] = 100; out = (v, x._version, v._version)",
    "delitem": X + "del x[0]",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_conformance(name: str) -> None:
    check(PROGRAMS[name])
