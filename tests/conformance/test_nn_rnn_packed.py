"""Conformance of torch.nn.utils.rnn's PackedSequence helpers and of nn.RNN / nn.LSTM / nn.GRU
over packed input against torch 2.13: pack_padded_sequence (enforce_sorted True / False,
batch_first, list or tensor lengths) and its gradient, pad_packed_sequence (padding_value,
total_length), pack_sequence, unpack_sequence, unpad_sequence, invert_permutation, the
PackedSequence class and its conversions, the aten ops under them, the packed outputs, h_n, c_n
and gradients of the recurrent modules, and the errors of each."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nrnn_utils = torch.nn.utils.rnn\n"
CLOSE = {"rtol": 1e-5, "atol": 1e-6}
X = "x = torch.randn(4, 3, 2, requires_grad=True)\n"  # (T, B, *)
XB = "x = torch.randn(3, 4, 2, requires_grad=True)\n"  # (B, T, *)
SEQS = "seqs = [torch.randn(3, 2), torch.randn(1, 2), torch.randn(4, 2)]\n"
# backward a weighted sum of the packed data, so each element's gradient differs
GRAD = "(p.data * torch.arange(p.data.numel()).view_as(p.data)).sum().backward()\n"

UTILS = {
    "pack_padded_sorted": X + "p = rnn_utils.pack_padded_sequence(x, [4, 2, 1])\n"
    "out = (tuple(p), type(p).__name__, p._fields, isinstance(p, tuple))",
    "pack_padded_tensor_lengths": X + "lengths = torch.tensor([4, 4, 3], device='cpu')\n"
    "p = rnn_utils.pack_padded_sequence(x, lengths)\nout = tuple(p)",
    "pack_padded_int32_lengths": X + "lengths = torch.tensor([3, 2, 2], dtype=torch.int32, "
    "device='cpu')\np = rnn_utils.pack_padded_sequence(x, lengths)\nout = tuple(p)",
    "pack_padded_unsorted": X + "p = rnn_utils.pack_padded_sequence(x, [1, 4, 2], "
    "enforce_sorted=False)\nout = tuple(p)",
    "pack_padded_batch_first": XB + "p = rnn_utils.pack_padded_sequence(x, [2, 4, 3], "
    "batch_first=True, enforce_sorted=False)\nout = tuple(p)",
    "pack_padded_grad": X
    + "p = rnn_utils.pack_padded_sequence(x, [4, 2, 1])\n"
    + GRAD
    + "out = (x.grad, p.data.grad_fn.name())",
    "pack_padded_grad_unsorted_batch_first": XB + "p = rnn_utils.pack_padded_sequence(x, "
    "[2, 4, 3], batch_first=True, enforce_sorted=False)\n" + GRAD + "out = x.grad",
    "pack_padded_trailing_dims": "x = torch.randn(3, 2, 2, 3)\n"
    "out = tuple(rnn_utils.pack_padded_sequence(x, [3, 1]))",
    "pad_packed_roundtrip": X + "p = rnn_utils.pack_padded_sequence(x, [1, 4, 2], "
    "enforce_sorted=False)\nout = rnn_utils.pad_packed_sequence(p)",
    "pad_packed_options": XB + "p = rnn_utils.pack_padded_sequence(x, [2, 4, 3], "
    "batch_first=True, enforce_sorted=False)\n"
    "y, lengths = rnn_utils.pad_packed_sequence(p, batch_first=True, padding_value=-1.5, "
    "total_length=6)\ny.sum().backward()\nout = (y, lengths, x.grad)",
    "pad_packed_grad": X + "p = rnn_utils.pack_padded_sequence(x, [4, 2, 1])\n"
    "y, _ = rnn_utils.pad_packed_sequence(p, total_length=5)\n"
    "(y * torch.arange(y.numel()).view_as(y)).sum().backward()\nout = (y.grad_fn.name(), x.grad)",
    "pad_packed_int_data": "p = rnn_utils.pack_sequence([torch.tensor([1, 2, 3]), "
    "torch.tensor([4, 5]), torch.tensor([6])])\n"
    "out = (tuple(p), rnn_utils.pad_packed_sequence(p, padding_value=7))",
    "pack_sequence_unsorted": SEQS + "p = rnn_utils.pack_sequence(seqs, enforce_sorted=False)\n"
    "out = (tuple(p), rnn_utils.unpack_sequence(p))",
    "unpad_sequence": SEQS + "padded = rnn_utils.pad_sequence(seqs)\n"
    "lengths = torch.as_tensor([v.size(0) for v in seqs])\n"
    "out = (rnn_utils.unpad_sequence(padded, lengths), padded.shape)",
    "unpad_sequence_batch_first": SEQS + "padded = rnn_utils.pad_sequence(seqs, batch_first=True)"
    "\nout = rnn_utils.unpad_sequence(padded, torch.tensor([3, 1, 4]), batch_first=True)",
    "invert_permutation": "perm = torch.tensor([2, 0, 3, 1])\n"
    "out = (rnn_utils.invert_permutation(perm), rnn_utils.invert_permutation(None), "
    "torch.legacy_contiguous_format == torch.contiguous_format)",
    "packed_sequence_class": X + "p = rnn_utils.pack_padded_sequence(x, [1, 4, 2], "
    "enforce_sorted=False)\nq = rnn_utils.PackedSequence(p.data, p.batch_sizes, "
    "p.sorted_indices)\nr = rnn_utils.PackedSequence((p.data, p.batch_sizes))\n"
    "out = (tuple(q), tuple(r), q.is_cuda)",
    "packed_sequence_conversions": X + "p = rnn_utils.pack_padded_sequence(x.detach(), "
    "[3, 4, 2], enforce_sorted=False)\n"
    "out = (p.to(torch.float32) is p, tuple(p.double()), p.float() is p, tuple(p.long()), "
    "tuple(p.int()), tuple(p.short()), tuple(p.char()), tuple(p.byte()), "
    "tuple(p.to(torch.float64, copy=True)), tuple(p.cpu()), p.cpu().data.dtype, "
    "tuple(p.to(dtype=torch.int64)))",
    # enforce_sorted=False sorts the batch with index_select, whose gradient flows back
    "index_select_grad": "x = torch.randn(3, 4, requires_grad=True)\n"
    "y = x.index_select(1, torch.tensor([3, 0, 3]))\nz = x.index_select(0, torch.tensor(1))\n"
    "(y * torch.arange(9.0).view(3, 3)).sum().backward()\nz.sum().backward()\n"
    "out = (y.grad_fn.name(), x.grad)",
    "pack_ops_direct": X + "d, b = torch._pack_padded_sequence(x, torch.tensor([4, 3, 1], "
    "device='cpu'), False)\ny, lengths = torch._pad_packed_sequence(d, b, True, 2, 5)\n"
    "out = (d, b, y, lengths)",
}

ERRORS = {
    "unsorted_lengths": X + "out = rnn_utils.pack_padded_sequence(x, [2, 4, 1])",
    "zero_length": X + "out = rnn_utils.pack_padded_sequence(x, [4, 2, 0])",
    "wrong_number_of_lengths": X + "out = rnn_utils.pack_padded_sequence(x, [4, 2])",
    "empty_input": "out = rnn_utils.pack_padded_sequence(torch.randn(0, 2, 3), [1, 1])",
    "lengths_2d": X + "out = torch._pack_padded_sequence(x, torch.tensor([[4, 2, 1]], "
    "device='cpu'), False)",
    "batch_sizes_float": "out = torch._pad_packed_sequence(torch.randn(3, 2), "
    "torch.tensor([2.0, 1.0], device='cpu'), False, 0.0, 0)",
    "total_length_too_small": X + "p = rnn_utils.pack_padded_sequence(x, [4, 2, 1])\n"
    "out = rnn_utils.pad_packed_sequence(p, total_length=3)",
    "total_length_too_small_op": "out = torch._pad_packed_sequence(torch.randn(3, 2), "
    "torch.tensor([2, 1], device='cpu'), False, 0.0, 1)",
    "packed_sequence_bad_data": "out = rnn_utils.PackedSequence(torch.randn(3))",
    "pad_sequence_not_iterable": "out = rnn_utils.pad_sequence(3)",
}

# run module m over a packed batch (lengths 2, 5, 3, 1 in a (T, B, 4) padding, unsorted unless
# said), then backward a weighted sum of everything it returns
PACKED_X = "x = torch.randn(5, 4, 4, requires_grad=True)\n"


def packed(module: str, hx: str = "", *, batch_first: bool = False, sort: bool = False) -> str:
    lengths = "[5, 3, 2, 1]" if sort else "[2, 5, 3, 1]"
    src = "x.transpose(0, 1)" if batch_first else "x"
    return (
        f"m = {module}\n"
        + PACKED_X
        + f"hx = {hx or 'None'}\n"
        + f"p = rnn_utils.pack_padded_sequence({src}, {lengths}, batch_first={batch_first}, "
        + f"enforce_sorted={sort})\n"
        + "y, h = m(p) if hx is None else m(p, hx)\n"
        + "flat = [y.data] + (list(h) if isinstance(h, tuple) else [h])\n"
        + "sum((t * torch.arange(t.numel()).view_as(t) / t.numel()).sum() for t in flat)"
        + ".backward()\n"
        + "padded, lengths = rnn_utils.pad_packed_sequence(y, batch_first=True)\n"
        + "ins = [x] + ([] if hx is None else list(hx) if isinstance(hx, tuple) else [hx])\n"
        + "out = (type(y).__name__, tuple(y), padded, lengths, [t.detach() for t in flat], "
        + "[t.grad for t in ins], [(n, p.grad) for n, p in m.named_parameters()])"
    )


H0 = "torch.randn({}, 4, {}, requires_grad=True)"
MODULES = {
    "lstm_sorted": packed("nn.LSTM(4, 3)", sort=True),
    "lstm_unsorted": packed("nn.LSTM(4, 3)"),
    "lstm_two_layers_bidirectional": packed("nn.LSTM(4, 3, num_layers=2, bidirectional=True)"),
    "lstm_h0_c0_batch_first": packed(
        "nn.LSTM(4, 3, batch_first=True)",
        f"({H0.format(1, 3)}, {H0.format(1, 3)})",
        batch_first=True,
    ),
    "lstm_proj_size_bidirectional_h0": packed(
        "nn.LSTM(4, 5, proj_size=2, bidirectional=True)",
        f"({H0.format(2, 2)}, {H0.format(2, 5)})",
    ),
    "lstm_no_bias_sorted_h0": packed(
        "nn.LSTM(4, 3, bias=False, num_layers=2)",
        f"({H0.format(2, 3)}, {H0.format(2, 3)})",
        sort=True,
    ),
    "gru_sorted": packed("nn.GRU(4, 3)", sort=True),
    "gru_unsorted_h0": packed("nn.GRU(4, 3, num_layers=2)", H0.format(2, 3)),
    "gru_bidirectional_batch_first": packed(
        "nn.GRU(4, 3, bidirectional=True, batch_first=True)", batch_first=True
    ),
    "rnn_tanh_unsorted": packed("nn.RNN(4, 3)"),
    "rnn_tanh_bidirectional_h0": packed("nn.RNN(4, 3, bidirectional=True)", H0.format(2, 3)),
    "rnn_relu_layers_sorted": packed("nn.RNN(4, 3, num_layers=2, nonlinearity='relu')", sort=True),
    "lstm_dropout_eval": "m = nn.LSTM(4, 3, num_layers=2, dropout=0.5).eval()\n"
    + PACKED_X
    + "y, (h, c) = m(rnn_utils.pack_padded_sequence(x, [2, 5, 3, 1], enforce_sorted=False))\n"
    "out = (tuple(y), h, c)",
    "lstm_dropout_train_shapes": "m = nn.LSTM(4, 3, num_layers=2, dropout=0.5)\n"
    + PACKED_X
    + "y, (h, c) = m(rnn_utils.pack_padded_sequence(x, [2, 5, 3, 1], enforce_sorted=False))\n"
    "out = (y.data.shape, y.batch_sizes, y.sorted_indices, h.shape, c.shape)",
    "lstm_pack_sequence_float64": "m = nn.LSTM(2, 3).double()\n"
    "seqs = [torch.randn(3, 2), torch.randn(1, 2), torch.randn(4, 2)]\n"
    "y, (h, c) = m(rnn_utils.pack_sequence(seqs, enforce_sorted=False).double())\n"
    "out = (rnn_utils.unpack_sequence(y), h, c)",
    "direct_lstm_data": "m = nn.LSTM(2, 3, bidirectional=True)\n"
    "p = rnn_utils.pack_sequence([torch.randn(3, 2), torch.randn(2, 2)])\n"
    "hx = (torch.zeros(2, 2, 3), torch.zeros(2, 2, 3))\n"
    "out = torch.lstm(p.data, p.batch_sizes, hx, list(m.parameters()), True, 1, 0.0, False, True)",
    "direct_gru_rnn_data": "g = nn.GRU(2, 3)\nr = nn.RNN(2, 3, nonlinearity='relu')\n"
    "p = rnn_utils.pack_sequence([torch.randn(3, 2), torch.randn(2, 2)])\n"
    "h0 = torch.zeros(1, 2, 3)\n"
    "out = (torch.gru(p.data, p.batch_sizes, h0, list(g.parameters()), True, 1, 0.0, False, "
    "False), torch.rnn_relu(p.data, p.batch_sizes, h0, list(r.parameters()), True, 1, 0.0, "
    "False, False), torch.rnn_tanh(p.data, p.batch_sizes, h0, list(r.parameters()), True, 1, "
    "0.0, False, False))",
}

MODULE_ERRORS = {
    "gru_wrong_input_size": "m = nn.GRU(3, 2)\n"
    "out = m(rnn_utils.pack_sequence([torch.randn(2, 4), torch.randn(1, 4)]))",
    "rnn_wrong_hidden_size": "m = nn.RNN(4, 2)\n"
    "out = m(rnn_utils.pack_sequence([torch.randn(2, 4), torch.randn(1, 4)]), "
    "torch.zeros(1, 3, 2))",
    "rnn_dtype_mismatch": "m = nn.RNN(4, 2)\n"
    "out = m(rnn_utils.pack_sequence([torch.randn(2, 4), torch.randn(1, 4)]).double())",
    "gru_3d_packed_data": "m = nn.GRU(4, 2)\n"
    "p = rnn_utils.pack_sequence([torch.randn(2, 1, 4), torch.randn(1, 1, 4)])\nout = m(p)",
    "lstm_hidden_count": "m = nn.LSTM(4, 2)\n"
    "p = rnn_utils.pack_sequence([torch.randn(2, 4), torch.randn(1, 4)])\n"
    "out = torch.lstm(p.data, p.batch_sizes, [torch.zeros(1, 2, 2)], list(m.parameters()), "
    "True, 1, 0.0, False, False)",
    "lstm_wrong_weight_count": "m = nn.LSTM(4, 2)\n"
    "p = rnn_utils.pack_sequence([torch.randn(2, 4), torch.randn(1, 4)])\n"
    "h = torch.zeros(1, 2, 2)\nout = torch.lstm(p.data, p.batch_sizes, [h, h], "
    "list(m.parameters())[:3], True, 1, 0.0, False, False)",
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_nn_rnn_packed(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + MODULES[name], **CLOSE)


@pytest.mark.parametrize("name", sorted(MODULE_ERRORS))
def test_nn_rnn_packed_errors(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + MODULE_ERRORS[name])


@pytest.mark.parametrize("name", sorted(UTILS))
def test_nn_utils_rnn(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + UTILS[name])


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_nn_utils_rnn_errors(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + ERRORS[name])
