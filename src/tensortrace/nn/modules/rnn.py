"""nn.RNNBase, nn.RNN, nn.LSTM, nn.GRU and the cells nn.RNNCell, nn.LSTMCell, nn.GRUCell.

Mirrors `torch/nn/modules/rnn.py`: the parameters are made, named and ordered as torch makes them
(weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0, ..._reverse, weight_hr_l0 with proj_size)
and drawn by reset_parameters' uniform_(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) over
self.parameters() in order, so after manual_seed they are bit-equal to torch's. forward checks
its arguments with torch's errors, then calls the aten op (torch.lstm / gru / rnn_tanh /
rnn_relu, torch's _VF.*) with the flat weight list; those are RNN.cpp's composites
(aten/native/rnn.py), so the gradients come from the ops they are made of. A PackedSequence input
takes the packed overloads (lstm.data, ...: aten/native/rnn_packed.py) with its data and
batch_sizes; the hidden state is permuted into the sorted order on the way in (sorted_indices)
and back on the way out (unsorted_indices), and the output is a PackedSequence, as in torch.
"""

from __future__ import annotations

import math
import numbers
import warnings
import weakref
from typing import Any

import tensortrace as torch
from tensortrace.nn import init
from tensortrace.nn.modules.module import Module
from tensortrace.nn.parameter import Parameter
from tensortrace.nn.utils.rnn import PackedSequence

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _apply_permutation(tensor: torch.Tensor, permutation: torch.Tensor, dim: int = 1) -> Any:
    return tensor.index_select(dim, permutation)


class RNNBase(Module):
    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        self._flat_weight_refs: list[Any] = []
        num_directions = 2 if bidirectional else 1
        if (
            not isinstance(dropout, numbers.Number)
            or not 0 <= dropout <= 1  # type: ignore[operator]
            or isinstance(dropout, bool)
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an "
                "element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                "dropout expects num_layers greater than 1, but got "
                f"dropout={dropout} and num_layers={num_layers}",
                stacklevel=2,
            )
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(
                f"batch_first should be of type bool, got: {type(batch_first).__name__}"
            )
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size

        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                real_hidden_size = proj_size if proj_size > 0 else hidden_size
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                w_ih = Parameter(torch.empty((gate_size, layer_input_size), **factory_kwargs))
                w_hh = Parameter(torch.empty((gate_size, real_hidden_size), **factory_kwargs))
                b_ih = Parameter(torch.empty(gate_size, **factory_kwargs))
                b_hh = Parameter(torch.empty(gate_size, **factory_kwargs))
                layer_params: tuple[Parameter, ...] = (w_ih, w_hh)
                if bias:
                    layer_params += (b_ih, b_hh)
                if self.proj_size > 0:
                    layer_params += (
                        Parameter(torch.empty((proj_size, hidden_size), **factory_kwargs)),
                    )
                suffix = "_reverse" if direction == 1 else ""
                param_names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    param_names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if self.proj_size > 0:
                    param_names += ["weight_hr_l{}{}"]
                param_names = [x.format(layer, suffix) for x in param_names]
                for name, param in zip(param_names, layer_params, strict=True):
                    setattr(self, name, param)
                self._flat_weights_names.extend(param_names)
                self._all_weights.append(param_names)
        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self) -> None:
        self._flat_weights = [
            getattr(self, wn) if hasattr(self, wn) else None for wn in self._flat_weights_names
        ]
        self._flat_weight_refs = [
            weakref.ref(w) if w is not None else None for w in self._flat_weights
        ]
        self.flatten_parameters()

    def __setattr__(self, attr: str, value: Any) -> None:
        if hasattr(self, "_flat_weights_names") and attr in self._flat_weights_names:
            # keep self._flat_weights up to date if you do self.weight = ...
            self._flat_weights[self._flat_weights_names.index(attr)] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self) -> None:
        """A no-op, as in torch when the weights are not on a cuDNN device (there is no cuDNN)."""

    def _apply(self, fn: Any, recurse: bool = True) -> Module:
        self._flat_weight_refs = []
        ret = super()._apply(fn, recurse)
        self._init_flat_weights()  # the parameters may be new tensors
        return ret

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input: torch.Tensor, batch_sizes: torch.Tensor | None) -> None:
        w_dtype = self._flat_weights[0].dtype  # type: ignore[union-attr]
        if input.dtype != w_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({w_dtype}). "
                f"Convert input: input.to({w_dtype}), or convert model: model.to({input.dtype})"
            )
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(
                f"input must have {expected_input_dim} dimensions, got {input.dim()}"
            )
        if self.input_size != input.size(-1):
            raise RuntimeError(
                "input.size(-1) must be equal to input_size. "
                f"Expected {self.input_size}, got {input.size(-1)}"
            )

    def _mini_batch(self, input: torch.Tensor, batch_sizes: torch.Tensor | None = None) -> int:
        if batch_sizes is not None:
            return int(batch_sizes[0])  # type: ignore[index]
        return input.size(0) if self.batch_first else input.size(1)  # type: ignore[no-any-return]

    def get_expected_hidden_size(
        self, input: torch.Tensor, batch_sizes: torch.Tensor | None
    ) -> tuple[int, int, int]:
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, self._mini_batch(input, batch_sizes), size)

    def check_hidden_size(
        self,
        hx: torch.Tensor,
        expected_hidden_size: tuple[int, int, int],
        msg: str = "Expected hidden size {}, got {}",
    ) -> None:
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def _weights_have_changed(self) -> bool:
        for ref, name in zip(self._flat_weight_refs, self._flat_weights_names, strict=True):
            weight = getattr(self, name) if hasattr(self, name) else None
            if weight is not None and ref is not None and ref() is not weight:
                return True
        return False

    def check_forward_args(
        self, input: torch.Tensor, hidden: Any, batch_sizes: torch.Tensor | None
    ) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Any, permutation: torch.Tensor | None) -> Any:
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _update_flat_weights(self) -> None:
        if self._weights_have_changed():
            self._init_flat_weights()

    @property
    def all_weights(self) -> list[list[Parameter]]:
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    def _one_hidden_forward(self, name: str, input: Any, hx: Any) -> Any:
        """RNN.forward and GRU.forward: a PackedSequence, or 2-D or 3-D input; optional hx."""
        self._update_flat_weights()
        if isinstance(input, PackedSequence):
            return self._one_hidden_packed_forward(name, input, hx)
        if input.dim() not in (2, 3):
            label = "RNN" if name.startswith("rnn") else "GRU"
            tensor = " tensor" if label == "RNN" else ""
            raise ValueError(
                f"{label}: Expected input to be 2D or 3D, got {input.dim()}D{tensor} instead"
            )
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError(
                        "For unbatched 2-D input, hx should also be 2-D but got "
                        f"{hx.dim()}-D tensor"
                    )
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError(
                f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor"
            )
        if hx is None:
            num_directions = 2 if self.bidirectional else 1
            hx = torch.zeros(
                self.num_layers * num_directions,
                self._mini_batch(input),
                self.hidden_size,
                dtype=input.dtype,
                device=input.device,
            )
        self.check_forward_args(input, hx, None)
        output, hidden = getattr(torch, name)(
            input,
            hx,
            self._flat_weights,
            self.bias,
            self.num_layers,
            self.dropout,
            self.training,
            self.bidirectional,
            self.batch_first,
        )
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, hidden

    def _one_hidden_packed_forward(self, name: str, orig_input: PackedSequence, hx: Any) -> Any:
        input, batch_sizes, sorted_indices, unsorted_indices = orig_input
        if hx is None:
            num_directions = 2 if self.bidirectional else 1
            hx = torch.zeros(
                self.num_layers * num_directions,
                batch_sizes[0],  # type: ignore[index]
                self.hidden_size,
                dtype=input.dtype,
                device=input.device,
            )
        else:
            # each batch of the hidden state should match the input sequence the user passes
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, hidden = getattr(torch, name)(
            input,
            batch_sizes,
            hx,
            self._flat_weights,
            self.bias,
            self.num_layers,
            self.dropout,
            self.training,
            self.bidirectional,
        )
        output_packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
        return output_packed, self.permute_hidden(hidden, unsorted_indices)


class RNN(RNNBase):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)

    def forward(self, input: torch.Tensor, hx: torch.Tensor | None = None) -> Any:
        name = "rnn_tanh" if self.mode == "RNN_TANH" else "rnn_relu"
        return self._one_hidden_forward(name, input, hx)


class GRU(RNNBase):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: torch.Tensor, hx: torch.Tensor | None = None) -> Any:
        return self._one_hidden_forward("gru", input, hx)


class LSTM(RNNBase):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(
        self, input: torch.Tensor, batch_sizes: torch.Tensor | None
    ) -> tuple[int, int, int]:
        num_directions = 2 if self.bidirectional else 1
        return (
            self.num_layers * num_directions,
            self._mini_batch(input, batch_sizes),
            self.hidden_size,
        )

    def check_forward_args(
        self, input: torch.Tensor, hidden: Any, batch_sizes: torch.Tensor | None
    ) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(
            hidden[0],
            self.get_expected_hidden_size(input, batch_sizes),
            "Expected hidden[0] size {}, got {}",
        )
        self.check_hidden_size(
            hidden[1],
            self.get_expected_cell_size(input, batch_sizes),
            "Expected hidden[1] size {}, got {}",
        )

    def permute_hidden(self, hx: Any, permutation: torch.Tensor | None) -> Any:
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def _zero_state(self, input: torch.Tensor, max_batch_size: Any) -> Any:
        num_directions = 2 if self.bidirectional else 1
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        h_zeros = torch.zeros(
            self.num_layers * num_directions,
            max_batch_size,
            real_hidden_size,
            dtype=input.dtype,
            device=input.device,
        )
        c_zeros = torch.zeros(
            self.num_layers * num_directions,
            max_batch_size,
            self.hidden_size,
            dtype=input.dtype,
            device=input.device,
        )
        return (h_zeros, c_zeros)

    def _packed_forward(self, orig_input: PackedSequence, hx: Any) -> Any:
        input, batch_sizes, sorted_indices, unsorted_indices = orig_input
        if hx is None:
            hx = self._zero_state(input, batch_sizes[0])  # type: ignore[index]
        else:
            # each batch of the hidden state should match the input sequence the user passes
            # (as in torch, the packed path checks neither the input nor hx here)
            hx = self.permute_hidden(hx, sorted_indices)
        output, h_n, c_n = torch.lstm(
            input,
            batch_sizes,
            hx,
            self._flat_weights,
            self.bias,
            self.num_layers,
            self.dropout,
            self.training,
            self.bidirectional,
        )
        output_packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
        return output_packed, self.permute_hidden((h_n, c_n), unsorted_indices)

    def forward(self, input: Any, hx: Any = None) -> Any:
        self._update_flat_weights()
        if isinstance(input, PackedSequence):
            return self._packed_forward(input, hx)
        if input.dim() not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        if hx is None:
            hx = self._zero_state(input, self._mini_batch(input))
            self.check_forward_args(input, hx, None)
        else:
            if is_batched:
                if hx[0].dim() != 3 or hx[1].dim() != 3:
                    raise RuntimeError(
                        "For batched 3-D input, hx and cx should also be 3-D but got "
                        f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
                    )
            else:
                if hx[0].dim() != 2 or hx[1].dim() != 2:
                    raise RuntimeError(
                        "For unbatched 2-D input, hx and cx should also be 2-D but got "
                        f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
                    )
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
            self.check_forward_args(input, hx, None)
        output, h_n, c_n = torch.lstm(
            input,
            hx,
            self._flat_weights,
            self.bias,
            self.num_layers,
            self.dropout,
            self.training,
            self.bidirectional,
            self.batch_first,
        )
        if not is_batched:
            output = output.squeeze(batch_dim)
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return output, (h_n, c_n)
