"""torch.nn.utils.rnn: pad_sequence, which stacks variable-length sequences with padding.

Mirrors `torch/nn/utils/rnn.py`'s pad_sequence: it checks the argument is iterable and calls
the aten op (torch._C._nn.pad_sequence, PackedSequence.cpp's pad_sequence), so the trace shows
aten::pad_sequence > aten::full and one copy_ per sequence.
"""

from __future__ import annotations

from collections.abc import Iterable

import tensortrace as torch


def pad_sequence(
    sequences: torch.Tensor | list[torch.Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> torch.Tensor:
    """Pad a list of (L_i, *) tensors to (T, B, *), or (B, T, *) when batch_first."""
    if not isinstance(sequences, Iterable):
        msg = (
            "pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}"
        )
        raise RuntimeError(msg)
    # a Tensor is iterable: tuple() unbinds it along dim 0, as in torch
    return torch._C._nn.pad_sequence(tuple(sequences), batch_first, padding_value, padding_side)
