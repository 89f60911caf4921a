"""The recurrent networks of `aten/src/ATen/native/RNN.cpp`: lstm, gru, rnn_tanh, rnn_relu and
their cells, on the CPU path, as composites of linear, unsafe_chunk, sigmoid_ / tanh_ and stack.

All of them are CompositeImplicitAutograd, so their gradients come from the ops they call. The
structure is RNN.cpp's:

- a cell (LSTMCell, GRUCell, SimpleCell) is one step: `linear(h, w_hh, b_hh).add_(x_w)`, where
  x_w is the step's slice of `linear(input, w_ih, b_ih)` computed once for the whole sequence
  (FullLayer's pre_compute_input on CPU), then the gates: `unsafe_chunk` and in-place
  sigmoid_ / tanh_ on the chunks (unsafe_chunk's pieces are not views for autograd);
- a layer (FullLayer, FullBidirectionalLayer) runs a cell over `unbind(0)` of the sequence and
  stacks the step outputs; the reverse direction runs over the steps in reverse and cats its
  outputs to the forward ones on the last dim;
- apply_layer_stack feeds each layer's output to the next, with dropout(p, train=True) between
  layers when training; the final hidden states are stacked.

torch's LSTM on a CPU float tensor takes the oneDNN kernel (aten::mkldnn_rnn_layer) instead; its
values agree with this composite to float rounding. Projections (proj_size) are supported: the
cell's output goes through matmul(hy, w_hr.t()). The packed overloads (lstm.data, gru.data, ...)
are in rnn_packed.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/RNN.cpp"


class CellParams:
    """w_ih, w_hh, the optional biases and (LSTM with projections only) w_hr."""

    def __init__(
        self,
        w_ih: Tensor,
        w_hh: Tensor,
        b_ih: Tensor | None,
        b_hh: Tensor | None,
        w_hr: Tensor | None = None,
    ) -> None:
        self.w_ih, self.w_hh, self.b_ih, self.b_hh, self.w_hr = w_ih, w_hh, b_ih, b_hh, w_hr

    def matmul_hr(self, h: Tensor) -> Tensor:
        return at.matmul(h, self.w_hr.t()) if self.w_hr is not None else h

    def linear_ih(self, input: Tensor) -> Tensor:
        return at.linear(input, self.w_ih, self.b_ih)

    def linear_hh(self, h: Tensor) -> Tensor:
        return at.linear(h, self.w_hh, self.b_hh)


def gather_params(
    params: Sequence[Tensor], has_biases: bool, has_projections: bool = False
) -> list[CellParams]:
    """Parses the flat list of parameter tensors into one CellParams per layer and direction."""
    n = (4 if has_biases else 2) + (1 if has_projections else 0)
    TORCH_CHECK(len(params) % n == 0, "got an incorrect number of RNN parameters")
    result = []
    for i in range(0, len(params), n):
        p = list(params[i : i + n])
        if has_biases:
            result.append(CellParams(p[0], p[1], p[2], p[3], p[4] if has_projections else None))
        else:
            result.append(CellParams(p[0], p[1], None, None, p[2] if has_projections else None))
    return result


def check_attributes(input: Tensor, params: Sequence[Tensor], hiddens: Sequence[Tensor]) -> None:
    input_device = input.device()

    def check_tensors(name: str, t: Tensor) -> None:
        t_device = t.device()
        TORCH_CHECK(
            input_device == t_device,
            f"Input and {name} tensors are not at the same device, found input tensor at "
            f"{input_device} and {name} tensor at {t_device}",
        )

    for h in hiddens:
        check_tensors("hidden", h)
    for p in params:
        check_tensors("parameter", p)


# ---- cells: (input, hidden, params, pre_compute_input) -> hidden ----
Hidden = Any  # a Tensor, or (h, c) for the LSTM
Cell = Callable[[Tensor, Hidden, CellParams, bool], Hidden]


def simple_cell(nonlinearity: Callable[[Tensor], Tensor]) -> Cell:
    def cell(input: Tensor, hidden: Tensor, params: CellParams, pre_compute_input: bool) -> Tensor:
        x_w = input if pre_compute_input else params.linear_ih(input)
        return nonlinearity(params.linear_hh(hidden).add_(x_w))

    return cell


def lstm_cell_step(
    input: Tensor, hidden: tuple[Tensor, Tensor], params: CellParams, pre_compute_input: bool
) -> tuple[Tensor, Tensor]:
    hx, cx = hidden
    gates = params.linear_hh(hx).add_(input if pre_compute_input else params.linear_ih(input))
    chunked_gates = gates.unsafe_chunk(4, 1)  # type: ignore[attr-defined]
    ingate = chunked_gates[0].sigmoid_()
    forgetgate = chunked_gates[1].sigmoid_()
    cellgate = chunked_gates[2].tanh_()
    outgate = chunked_gates[3].sigmoid_()
    cy = at.mul(forgetgate, cx).add_(at.mul(ingate, cellgate))
    hy = at.mul(outgate, cy.tanh())
    return params.matmul_hr(hy), cy


def gru_cell_step(
    input: Tensor, hidden: Tensor, params: CellParams, pre_compute_input: bool
) -> Tensor:
    chunked_igates = (input if pre_compute_input else params.linear_ih(input)).unsafe_chunk(3, 1)  # type: ignore[attr-defined]
    chunked_hgates = params.linear_hh(hidden).unsafe_chunk(3, 1)  # type: ignore[attr-defined]
    reset_gate = chunked_hgates[0].add_(chunked_igates[0]).sigmoid_()
    input_gate = chunked_hgates[1].add_(chunked_igates[1]).sigmoid_()
    new_gate = chunked_igates[2].add(chunked_hgates[2].mul_(reset_gate)).tanh_()
    return at.sub(hidden, new_gate).mul_(input_gate).add_(new_gate)


def hidden_as_output(hidden: Hidden) -> Tensor:
    return hidden[0] if isinstance(hidden, tuple) else hidden  # type: ignore[no-any-return]


# ---- layers ----
def full_layer_steps(
    cell: Cell, step_inputs: Sequence[Tensor], hidden: Hidden, params: CellParams
) -> tuple[list[Tensor], Hidden]:
    step_outputs = []
    for step_input in step_inputs:
        hidden = cell(step_input, hidden, params, True)
        step_outputs.append(hidden_as_output(hidden))
    return step_outputs, hidden


def full_layer(
    cell: Cell, input: Tensor, hidden: Hidden, params: CellParams
) -> tuple[Tensor, Hidden]:
    outputs, final = full_layer_steps(cell, params.linear_ih(input).unbind(0), hidden, params)
    TORCH_CHECK(len(outputs) > 0, "Expected sequence length to be larger than 0 in RNN")
    return at.stack(outputs, 0), final


def full_bidirectional_layer(
    cell: Cell, input: Tensor, hidden: tuple[Hidden, Hidden], params: tuple[CellParams, CellParams]
) -> tuple[Tensor, tuple[Hidden, Hidden]]:
    fw_outputs, fw_final = full_layer_steps(
        cell, params[0].linear_ih(input).unbind(0), hidden[0], params[0]
    )
    TORCH_CHECK(len(fw_outputs) > 0, "Expected sequence length to be larger than 0 in RNN")
    fw_output = at.stack(fw_outputs, 0)
    rev_steps = list(reversed(params[1].linear_ih(input).unbind(0)))
    rev_outputs, rev_final = full_layer_steps(cell, rev_steps, hidden[1], params[1])
    rev_output = at.stack(list(reversed(rev_outputs)), 0)
    return at.cat([fw_output, rev_output], fw_output.dim() - 1), (fw_final, rev_final)


Layer = Callable[[Cell, Tensor, Hidden, CellParams], tuple[Tensor, Hidden]]
BidirectionalLayer = Callable[
    [Cell, Tensor, tuple[Hidden, Hidden], tuple[CellParams, CellParams]],
    tuple[Tensor, tuple[Hidden, Hidden]],
]


def _rnn_impl(
    cell: Cell,
    input: Tensor,
    params: list[CellParams],
    hiddens: list[Hidden],
    num_layers: int,
    dropout_p: float,
    train: bool,
    bidirectional: bool,
    layer_fn: Layer | None = None,
    bidirectional_layer_fn: BidirectionalLayer | None = None,
) -> tuple[Tensor, list[Hidden]]:
    """apply_layer_stack over FullLayer or FullBidirectionalLayer (or, for a packed input, the
    PackedLayer and PackedBidirectionalLayer of rnn_packed.py, whose input is the packed data);
    returns the final hiddens flat (layer-major, forward before reverse)."""
    run_layer = layer_fn or full_layer
    run_bidirectional_layer = bidirectional_layer_fn or full_bidirectional_layer
    if bidirectional:
        TORCH_CHECK(
            len(hiddens) % 2 == 0 and len(params) % 2 == 0,
            "Odd number of params or hiddens given to a bidirectional RNN",
        )
    step = 2 if bidirectional else 1
    TORCH_CHECK(num_layers == len(hiddens) // step, "Expected more hidden states in stacked_rnn")
    TORCH_CHECK(num_layers == len(params) // step, "Expected more weights in stacked_rnn")
    layer_input = input
    final_hiddens: list[Hidden] = []
    for layer in range(num_layers):
        if bidirectional:
            i = 2 * layer
            layer_input, (fw, rev) = run_bidirectional_layer(
                cell, layer_input, (hiddens[i], hiddens[i + 1]), (params[i], params[i + 1])
            )
            final_hiddens += [fw, rev]
        else:
            layer_input, final = run_layer(cell, layer_input, hiddens[layer], params[layer])
            final_hiddens.append(final)
        if dropout_p != 0 and train and layer < num_layers - 1:
            layer_input = at.dropout(layer_input, dropout_p, True)
    return layer_input, final_hiddens


def _one_hidden_rnn(
    cell: Cell,
    _input: Tensor,
    hx: Tensor,
    _params: Sequence[Tensor],
    has_biases: bool,
    num_layers: int,
    dropout_p: float,
    train: bool,
    bidirectional: bool,
    batch_first: bool,
) -> tuple[Tensor, Tensor]:
    at.cudnn_is_acceptable(_input)  # False: no cuDNN
    check_attributes(_input, _params, [hx])
    input = _input.transpose(0, 1) if batch_first else _input
    params = gather_params(_params, has_biases)
    output, final = _rnn_impl(
        cell, input, params, list(hx.unbind(0)), num_layers, dropout_p, train, bidirectional
    )
    if batch_first:
        output = output.transpose(0, 1)  # torch: transpose_ in place (same sizes and strides)
    return output, at.stack(final, 0)


def ONE_HIDDEN_RNN(name: str, make_cell: Callable[[], Any]) -> None:
    """RNN.cpp's ONE_HIDDEN_RNN(NAME, CELL) macro: at::native::<name>(input, hx, params, ...),
    the layers of one cell type with one hidden state (gru, rnn_tanh, rnn_relu)."""

    def one_hidden_rnn(
        input: Tensor,
        hx: Tensor,
        params: Sequence[Tensor],
        has_biases: bool,
        num_layers: int,
        dropout: float,
        train: bool,
        bidirectional: bool,
        batch_first: bool,
    ) -> tuple[Tensor, Tensor]:
        return _one_hidden_rnn(
            make_cell(),
            input,
            hx,
            params,
            has_biases,
            num_layers,
            dropout,
            train,
            bidirectional,
            batch_first,
        )

    one_hidden_rnn.__name__ = one_hidden_rnn.__qualname__ = name
    native_function(SOURCE, name=name, legacy=f"at::native::{name}")(one_hidden_rnn)


ONE_HIDDEN_RNN("gru", lambda: gru_cell_step)
ONE_HIDDEN_RNN("rnn_tanh", lambda: simple_cell(at.tanh))
ONE_HIDDEN_RNN("rnn_relu", lambda: simple_cell(at.relu))


@native_function(SOURCE, name="lstm", legacy="at::native::lstm")
def lstm(
    input: Tensor,
    hx: Sequence[Tensor],
    params: Sequence[Tensor],
    has_biases: bool,
    num_layers: int,
    dropout: float,
    train: bool,
    bidirectional: bool,
    batch_first: bool,
) -> tuple[Tensor, Tensor, Tensor]:
    TORCH_CHECK(len(hx) == 2, "lstm expects two hidden states")
    at.cudnn_is_acceptable(input)  # False: no cuDNN
    # if cells are of different size, that means projections are used
    has_projections = hx[0].size(2) != hx[1].size(2)
    check_attributes(input, params, hx)
    seq_input = input.transpose(0, 1) if batch_first else input
    cell_params = gather_params(params, has_biases, has_projections)
    # _lstm_impl: work on a list of (hx, cx) pairs, one per layer and direction
    hiddens: list[Hidden] = list(zip(hx[0].unbind(0), hx[1].unbind(0), strict=True))
    output, final = _rnn_impl(
        lstm_cell_step, seq_input, cell_params, hiddens, num_layers, dropout, train, bidirectional
    )
    hy = at.stack([h for h, _ in final], 0)
    cy = at.stack([c for _, c in final], 0)
    if batch_first:
        output = output.transpose(0, 1)
    return output, hy, cy


# ---- the cells as operators ----
def check_rnn_cell_forward_input(input: Tensor, input_size: int) -> None:
    TORCH_CHECK(
        input.size(1) == input_size,
        f"input has inconsistent input_size: got {input.size(1)} expected {input_size}",
    )


def check_rnn_cell_forward_hidden(
    input: Tensor, hx: Tensor, hidden_size: int, hidden_label: int
) -> None:
    TORCH_CHECK(
        input.size(0) == hx.size(0),
        f"Input batch size {input.size(0)} doesn't match hidden{hidden_label} batch size "
        f"{hx.size(0)}",
    )
    TORCH_CHECK(
        hx.size(1) == hidden_size,
        f"hidden{hidden_label} has inconsistent hidden_size: got {hx.size(1)}, expected "
        f"{hidden_size}",
    )


@native_function(SOURCE, name="lstm_cell", legacy="at::native::lstm_cell")
def lstm_cell(
    input: Tensor,
    hx: Sequence[Tensor],
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    TORCH_CHECK(len(hx) == 2, "lstm_cell expects two hidden states")
    check_rnn_cell_forward_input(input, w_ih.size(1))
    hidden_size = w_hh.size(1)
    check_rnn_cell_forward_hidden(input, hx[0], hidden_size, 0)
    check_rnn_cell_forward_hidden(input, hx[1], hidden_size, 0)
    params = CellParams(w_ih, w_hh, b_ih, b_hh)
    return lstm_cell_step(input, (hx[0], hx[1]), params, False)  # type: ignore[no-any-return]


def _one_hidden_cell(
    cell: Cell,
    input: Tensor,
    hx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None,
    b_hh: Tensor | None,
) -> Tensor:
    check_rnn_cell_forward_input(input, w_ih.size(1))
    check_rnn_cell_forward_hidden(input, hx, w_hh.size(1), 0)
    return cell(input, hx, CellParams(w_ih, w_hh, b_ih, b_hh), False)  # type: ignore[no-any-return]


@native_function(SOURCE, name="gru_cell", legacy="at::native::gru_cell")
def gru_cell(
    input: Tensor,
    hx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:
    return _one_hidden_cell(gru_cell_step, input, hx, w_ih, w_hh, b_ih, b_hh)


@native_function(SOURCE, name="rnn_tanh_cell", legacy="at::native::rnn_tanh_cell")
def rnn_tanh_cell(
    input: Tensor,
    hx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:
    return _one_hidden_cell(simple_cell(at.tanh), input, hx, w_ih, w_hh, b_ih, b_hh)


@native_function(SOURCE, name="rnn_relu_cell", legacy="at::native::rnn_relu_cell")
def rnn_relu_cell(
    input: Tensor,
    hx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:
    return _one_hidden_cell(simple_cell(at.relu), input, hx, w_ih, w_hh, b_ih, b_hh)
