"""PackedSequence's ops: _pack_padded_sequence, its backward, _pad_packed_sequence, and
pad_sequence, which stacks variable-length sequences into one padded tensor.

Mirrors `aten/src/ATen/native/PackedSequence.cpp`. _pack_padded_sequence is
CompositeExplicitAutograd (its derivative is _pack_padded_sequence_backward, in
derivatives.yaml): it slices one block of time steps each time the batch shrinks and cats them.
The others are CompositeImplicitAutograd: the output is at::full (or at::zeros) and each block is
copied into its slot through a view, so autograd sees the copy_ into views. `lengths` and
`batch_sizes` are CPU int64 tensors whose values steer the loops, as data_ptr<int64_t>() does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor, expect_contiguous
from tensortrace.c10.exception import TORCH_CHECK, torchCheckFail
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/PackedSequence.cpp"


def checkLongTensor(tensor: Tensor) -> None:  # noqa: N802 (PackedSequence.cpp's name)
    TORCH_CHECK(
        tensor.dim() == 1 and tensor.is_cpu() and tensor.scalar_type() == ScalarType.Long,
        "'lengths' argument should be a 1D CPU int64 tensor, but got ",
        tensor.dim(),
        "D ",
        tensor.device(),
        " ",
        tensor.scalar_type(),
        " tensor",
    )


def _int64_values(tensor: Tensor) -> list[int]:
    """data_ptr<int64_t>() of a contiguous CPU int64 tensor, read as Python ints."""
    return [int(v) for v in tensor.numpy_view().reshape(-1)]


@native_function(SOURCE, name="_pack_padded_sequence", legacy="at::native::_pack_padded_sequence")
def _pack_padded_sequence(
    input: Tensor, lengths: Tensor, batch_first: bool
) -> tuple[Tensor, Tensor]:
    """Returns (data, batch_sizes) for the PackedSequence constructor; `data` may be of any
    device and dtype, `batch_sizes` is a CPU int64 tensor."""
    if batch_first:
        input = input.transpose(0, 1)
    lengths_t = expect_contiguous(lengths)
    checkLongTensor(lengths_t)
    batch_size = input.size(1)
    lengths_v = _int64_values(lengths_t)  # data_ptr<int64_t>()
    TORCH_CHECK(input.numel() > 0, "Cannot pack empty tensors.")
    TORCH_CHECK(
        lengths_t.size(0) == batch_size,
        "Expected `len(lengths)` to be equal to batch_size, but got ",
        lengths_t.size(0),
        " (batch_size=",
        batch_size,
        ")",
    )
    TORCH_CHECK(
        lengths_v[batch_size - 1] > 0,
        "Length of all samples has to be greater than 0, but found an element "
        "in 'lengths' that is <= 0",
    )
    for i in range(batch_size - 1):
        if lengths_v[batch_size - 1 - i] > lengths_v[batch_size - 2 - i]:
            # enforce_sorted is implemented in Python, but the sortedness check lives here
            torchCheckFail(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability."
            )
    batch_sizes_t = at.empty([lengths_v[0]], dtype=lengths.scalar_type(), device=lengths.device())
    batch_sizes: list[int] = []
    step_shape = [-1, *input.sizes()[2:]]
    # Scan the columns from the shortest sequence (the right) to the longest: each time the
    # length grows, slice out the block of time steps [prev_l, l) of the first
    # current_batch_size sequences, which no earlier block holds.
    steps = []
    prev_l = 0
    for i in range(batch_size):
        l = lengths_v[batch_size - 1 - i]  # noqa: E741 (PackedSequence.cpp's name)
        if l > prev_l:
            current_batch_size = batch_size - i
            block = input.slice(0, prev_l, l).slice(1, 0, current_batch_size)
            steps.append(expect_contiguous(block).view(step_shape))
            batch_sizes += [current_batch_size] * (l - prev_l)
            prev_l = l
        TORCH_CHECK(l >= prev_l)
    batch_sizes_t.numpy_view()[...] = batch_sizes
    return at.cat(steps), batch_sizes_t


@native_function(
    SOURCE,
    name="_pack_padded_sequence_backward_symint",
    legacy="at::native::_pack_padded_sequence_backward",
)
def _pack_padded_sequence_backward_symint(
    grad: Tensor, input_size: Sequence[int], batch_sizes: Tensor, batch_first: bool
) -> Tensor:
    input_size_after_t = list(input_size)
    if batch_first:
        TORCH_CHECK(len(input_size) >= 2)
        input_size_after_t[0], input_size_after_t[1] = input_size_after_t[1], input_size_after_t[0]
    grad_input = at.zeros(input_size_after_t, dtype=grad.scalar_type(), device=grad.device())
    batch_sizes_t = expect_contiguous(batch_sizes)
    checkLongTensor(batch_sizes_t)
    offset = 0
    for i, batch_size in enumerate(_int64_values(batch_sizes_t)):
        grad_input.select(0, i).slice(0, 0, batch_size).copy_(
            grad.slice(0, offset, offset + batch_size)
        )
        offset += batch_size
    if batch_first:
        grad_input = grad_input.transpose(0, 1)
    return grad_input


@native_function(SOURCE, name="_pad_packed_sequence", legacy="at::native::_pad_packed_sequence")
def _pad_packed_sequence(
    data: Tensor, batch_sizes: Tensor, batch_first: bool, padding_value: Any, total_length: int
) -> tuple[Tensor, Tensor]:
    batch_sizes_t = expect_contiguous(batch_sizes)
    checkLongTensor(batch_sizes_t)
    batch_sizes_v = _int64_values(batch_sizes_t)
    max_batch_size = batch_sizes_v[0]
    max_real_seq_length = batch_sizes_t.size(0)
    max_seq_length = max_real_seq_length
    if total_length > 0:
        TORCH_CHECK(
            total_length >= max_seq_length,
            "Expected total_length to be at least the length of the longest sequence in input, "
            "but got total_length=",
            total_length,
            " and max sequence length being ",
            max_seq_length,
        )
        max_seq_length = total_length
    output_size = [max_seq_length, max_batch_size, *data.sizes()[1:]]
    output = at.full(output_size, padding_value, dtype=data.scalar_type(), device=data.device())
    tmp_view_size = list(output_size)  # == [-1, -1, *data.sizes()[1:]] at each copy
    lengths_t = at.empty(
        [max_batch_size], dtype=batch_sizes_t.scalar_type(), device=batch_sizes_t.device()
    )
    lengths = [0] * max_batch_size
    pos = max_batch_size - 1  # filled from the last sequence backwards
    data_offset = 0
    prev_batch_size = max_batch_size
    prev_i = 0
    for i in range(max_real_seq_length + 1):
        batch_size = batch_sizes_v[i] if i != max_real_seq_length else 0
        if batch_size != prev_batch_size:
            l = prev_batch_size * (i - prev_i)  # noqa: E741 (PackedSequence.cpp's name)
            # output[prev_i:i, :prev_batch_size] = tmp.view(i - prev_i, prev_batch_size, *)
            tmp = data.slice(0, data_offset, data_offset + l)
            tmp_view_size[0] = i - prev_i
            tmp_view_size[1] = prev_batch_size
            output.slice(0, prev_i, i).slice(1, 0, prev_batch_size).copy_(tmp.view(tmp_view_size))
            data_offset += l
            prev_i = i
        for _ in range(prev_batch_size - batch_size):
            lengths[pos] = i
            pos -= 1
        prev_batch_size = batch_size
    lengths_t.numpy_view()[...] = lengths
    if batch_first:
        output = output.transpose(0, 1)
    return output, lengths_t


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
