"""pad_sequence: stack variable-length sequences into one padded tensor.

Mirrors `aten/src/ATen/native/PackedSequence.cpp`. A CompositeImplicitAutograd op: the output
is at::full of padding_value, and each sequence is copied into its slot through a view
(select + narrow, in the order the layout asks for), so autograd sees the copy_ into views.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/PackedSequence.cpp"


@native_function(SOURCE, name="pad_sequence", legacy="at::native::pad_sequence")
def pad_sequence(
    sequences: Sequence[Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    sequences_size = len(sequences)
    TORCH_CHECK(sequences_size > 0, "received an empty list of sequences")
    max_size = sequences[0].sizes()
    trailing_dims = list(max_size[1:])
    # std::max_element with a < b on size(0): the first of the longest
    max_len = max(seq.size(0) for seq in sequences)
    out_dims = [sequences_size, max_len] if batch_first else [max_len, sequences_size]
    out_dims += trailing_dims
    first = sequences[0]
    out = at.full(out_dims, padding_value, dtype=first.scalar_type(), device=first.device())
    TORCH_CHECK(
        padding_side in ("left", "right"),
        f"Expected padding_side to be one of left or right, but got {padding_side}.",
    )
    for i, currseq in enumerate(sequences):
        length_i = currseq.size(0)
        start = max_len - length_i if padding_side == "left" else 0
        if batch_first:
            out.select(0, i).narrow(0, start, length_i).copy_(currseq)
        else:
            out.narrow(0, start, length_i).select(1, i).copy_(currseq)
    return out
