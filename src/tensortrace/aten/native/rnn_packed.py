"""The packed overloads of `aten/src/ATen/native/RNN.cpp`: lstm.data, gru.data, rnn_tanh.data
and rnn_relu.data, which run over a PackedSequence's (data, batch_sizes).

RNN.cpp's PackedLayer, ReversedPackedLayer and PackedBidirectionalLayer, plugged into the same
apply_layer_stack as the padded overloads (`_rnn_impl` in rnn.py), with the same cells:

- `data` holds the time steps one after another, `batch_sizes[i]` rows for step i, and the
  batch sizes never grow. On CPU the input projection `linear(data, w_ih, b_ih)` is computed
  once and each step narrows its rows out of it (pre_compute_input);
- the forward layer walks the steps in order; when the batch shrinks, the hidden state of the
  sequences that just ended is sliced off and kept: those slices, reversed and concatenated,
  are the final hidden state of every sequence, in the batch order;
- the reverse layer walks the steps backwards, starting from the hidden state of the shortest
  sequences and concatenating the initial state of the others as they join;
- the step outputs are concatenated on dim 0, so the output is packed like the input; the
  bidirectional layer cats the two directions' outputs on the last dim.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.rnn import (
    Cell,
    CellParams,
    Hidden,
    _rnn_impl,
    check_attributes,
    gather_params,
    gru_cell_step,
    hidden_as_output,
    lstm_cell_step,
    simple_cell,
)
from tensortrace.aten.tensor_body import Tensor, expect_contiguous
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/RNN.cpp"


def hidden_slice(t: Hidden, start: int, end: int) -> Hidden:
    if isinstance(t, tuple):
        return (t[0].narrow(0, start, end - start), t[1].narrow(0, start, end - start))
    return t.narrow(0, start, end - start)


def hidden_concat(hiddens: Sequence[Hidden]) -> Hidden:
    if isinstance(hiddens[0], tuple):
        return (at.cat([h[0] for h in hiddens], 0), at.cat([h[1] for h in hiddens], 0))
    return at.cat(list(hiddens), 0)


class PackedLayers:
    """PackedLayer, ReversedPackedLayer and PackedBidirectionalLayer over one batch_sizes
    (read once, as their data_ptr<int64_t>() loops read it)."""

    def __init__(self, batch_sizes: Tensor) -> None:
        self.batch_sizes = [int(v) for v in expect_contiguous(batch_sizes).numpy_view().reshape(-1)]

    def packed_layer(
        self, cell: Cell, data: Tensor, input_hidden: Hidden, params: CellParams
    ) -> tuple[Tensor, Hidden]:
        batch_sizes = self.batch_sizes
        step_outputs = []
        hiddens = []
        input_offset = 0
        last_batch_size = batch_sizes[0]
        input_w = params.linear_ih(data)  # pre_compute_input on CPU
        hidden = input_hidden
        for batch_size in batch_sizes:
            step_input = input_w.narrow(0, input_offset, batch_size)
            input_offset += batch_size
            dec = last_batch_size - batch_size
            if dec > 0:
                hiddens.append(hidden_slice(hidden, last_batch_size - dec, last_batch_size))
                hidden = hidden_slice(hidden, 0, last_batch_size - dec)
            last_batch_size = batch_size
            hidden = cell(step_input, hidden, params, True)
            step_outputs.append(hidden_as_output(hidden))
        hiddens.append(hidden)
        hiddens.reverse()
        return at.cat(step_outputs, 0), hidden_concat(hiddens)

    def reversed_packed_layer(
        self, cell: Cell, data: Tensor, input_hidden: Hidden, params: CellParams
    ) -> tuple[Tensor, Hidden]:
        batch_sizes = self.batch_sizes
        step_outputs = []
        input_offset = data.size(0)
        last_batch_size = batch_sizes[-1]
        input_w = params.linear_ih(data)  # pre_compute_input on CPU
        # start with the smallest batch and grow the hidden state, moving backwards
        hidden = hidden_slice(input_hidden, 0, batch_sizes[-1])
        for batch_size in reversed(batch_sizes):
            if batch_size - last_batch_size > 0:
                hidden = hidden_concat(
                    [hidden, hidden_slice(input_hidden, last_batch_size, batch_size)]
                )
            step_input = input_w.narrow(0, input_offset - batch_size, batch_size)
            input_offset -= batch_size
            last_batch_size = batch_size
            hidden = cell(step_input, hidden, params, True)
            step_outputs.append(hidden_as_output(hidden))
        step_outputs.reverse()
        return at.cat(step_outputs, 0), hidden

    def packed_bidirectional_layer(
        self,
        cell: Cell,
        data: Tensor,
        input_hidden: tuple[Hidden, Hidden],
        params: tuple[CellParams, CellParams],
    ) -> tuple[Tensor, tuple[Hidden, Hidden]]:
        fw_output, fw_hidden = self.packed_layer(cell, data, input_hidden[0], params[0])
        rev_output, rev_hidden = self.reversed_packed_layer(cell, data, input_hidden[1], params[1])
        return at.cat([fw_output, rev_output], -1), (fw_hidden, rev_hidden)


def _packed_rnn(
    cell: Cell,
    data: Tensor,
    batch_sizes: Tensor,
    params: list[CellParams],
    hiddens: list[Hidden],
    num_layers: int,
    dropout_p: float,
    train: bool,
    bidirectional: bool,
) -> tuple[Tensor, list[Hidden]]:
    layers = PackedLayers(batch_sizes)
    return _rnn_impl(
        cell,
        data,
        params,
        hiddens,
        num_layers,
        dropout_p,
        train,
        bidirectional,
        layers.packed_layer,
        layers.packed_bidirectional_layer,
    )


def ONE_HIDDEN_RNN_PACKED(name: str, make_cell: Callable[[], Cell]) -> None:  # noqa: N802 (RNN.cpp's macro)
    """The packed half of RNN.cpp's ONE_HIDDEN_RNN(NAME, CELL) macro:
    at::native::<name>(data, batch_sizes, hx, params, ...), _rnn_impl_with_concat over a
    PackedSequence."""

    def one_hidden_rnn_packed(
        data: Tensor,
        batch_sizes: Tensor,
        hx: Tensor,
        params: Sequence[Tensor],
        has_biases: bool,
        num_layers: int,
        dropout: float,
        train: bool,
        bidirectional: bool,
    ) -> tuple[Tensor, Tensor]:
        at.cudnn_is_acceptable(data)  # False: no cuDNN
        check_attributes(data, params, [hx])
        output, final = _packed_rnn(
            make_cell(),
            data,
            batch_sizes,
            gather_params(params, has_biases),
            list(hx.unbind(0)),
            num_layers,
            dropout,
            train,
            bidirectional,
        )
        return output, at.stack(final, 0)

    one_hidden_rnn_packed.__name__ = one_hidden_rnn_packed.__qualname__ = name
    native_function(SOURCE, name=name, legacy=f"at::native::{name}")(one_hidden_rnn_packed)


ONE_HIDDEN_RNN_PACKED("gru", lambda: gru_cell_step)
ONE_HIDDEN_RNN_PACKED("rnn_tanh", lambda: simple_cell(at.tanh))
ONE_HIDDEN_RNN_PACKED("rnn_relu", lambda: simple_cell(at.relu))


@native_function(SOURCE, name="lstm", legacy="at::native::lstm")
def lstm_packed(
    data: Tensor,
    batch_sizes: Tensor,
    hx: Sequence[Tensor],
    params: Sequence[Tensor],
    has_biases: bool,
    num_layers: int,
    dropout: float,
    train: bool,
    bidirectional: bool,
) -> tuple[Tensor, Tensor, Tensor]:
    TORCH_CHECK(len(hx) == 2, "lstm expects two hidden states")
    at.cudnn_is_acceptable(data)  # False: no cuDNN
    # if cells are of different size, that means projections are used
    has_projections = hx[0].size(2) != hx[1].size(2)
    check_attributes(data, params, hx)
    hiddens: list[Hidden] = list(zip(hx[0].unbind(0), hx[1].unbind(0), strict=True))
    output, final = _packed_rnn(
        lstm_cell_step,
        data,
        batch_sizes,
        gather_params(params, has_biases, has_projections),
        hiddens,
        num_layers,
        dropout,
        train,
        bidirectional,
    )
    hy = at.stack([h for h, _ in final], 0)
    cy = at.stack([c for _, c in final], 0)
    return output, hy, cy
