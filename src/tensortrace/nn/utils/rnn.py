"""torch.nn.utils.rnn: PackedSequence and the functions that pack, pad and unpad sequences.

Mirrors `torch/nn/utils/rnn.py`. A PackedSequence is a namedtuple (data, batch_sizes,
sorted_indices, unsorted_indices): `data` holds the time steps of a batch of sequences one after
another, `batch_sizes[t]` rows for step t (the sequences sorted longest first), and
`sorted_indices` / `unsorted_indices` remember the permutation that sorted them
(enforce_sorted=False). The work is done by the aten ops of PackedSequence.cpp
(torch._pack_padded_sequence, torch._pad_packed_sequence, torch._C._nn.pad_sequence), so the
trace shows aten::_pack_padded_sequence > aten::cat, and the gradient of the packed data flows
back through _pack_padded_sequence_backward. The RNN modules accept a PackedSequence
(nn/modules/rnn.py) and return one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, Self, TypeVar

import tensortrace as torch
from tensortrace import Tensor

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]

_T = TypeVar("_T")
_R = TypeVar("_R")


class PackedSequence_(NamedTuple):  # noqa: N801 (torch's name)
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def bind(optional: _T | None, fn: Callable[[_T], _R]) -> _R | None:
    if optional is None:
        return None
    return fn(optional)


def _to_flags(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[bool, Any]:
    """The non_blocking and memory_format of a Tensor.to(...) call (what torch's
    torch._C._nn._parse_to returns besides the device and dtype)."""
    flags = [arg for arg in args if isinstance(arg, bool)]  # to(dtype, non_blocking, copy)
    if "copy" in kwargs or len(flags) > 1:
        raise RuntimeError(".to() does not accept copy argument")
    non_blocking = flags[0] if flags else kwargs.get("non_blocking", False)
    return non_blocking, kwargs.get("memory_format")


class PackedSequence(PackedSequence_):
    """Holds the data and list of batch_sizes of a packed sequence; made by pack_padded_sequence
    and pack_sequence, never by hand. batch_sizes is always a CPU int64 tensor; data may be of
    any device and dtype, and sorted_indices / unsorted_indices are int64 on data's device."""

    def __new__(
        cls,
        data: Tensor,
        batch_sizes: Tensor | None = None,
        sorted_indices: Tensor | None = None,
        unsorted_indices: Tensor | None = None,
    ) -> Self:
        return super().__new__(
            cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices, unsorted_indices)
        )

    def to(self, *args: Any, **kwargs: Any) -> Self:
        """Tensor.to on self.data; self if data is unchanged, else a copy whose indices follow
        data to its device."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        non_blocking, convert_to_format = _to_flags(args, kwargs)

        def call_to(t: Tensor) -> Tensor:
            if convert_to_format is None:
                return t.to(data.device, non_blocking=non_blocking)  # type: ignore[no-any-return]
            return t.to(  # type: ignore[no-any-return]
                data.device, non_blocking=non_blocking, memory_format=convert_to_format
            )

        sorted_indices = bind(self.sorted_indices, call_to)
        unsorted_indices = bind(self.unsorted_indices, call_to)
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args: Any, **kwargs: Any) -> Self:
        ex = torch.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.is_cuda:
            return self.to(*args, **kwargs)
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args: Any, **kwargs: Any) -> Self:
        ex = torch.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.device.type == "cpu":
            return self.to(*args, **kwargs)
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self) -> Self:
        return self.to(dtype=torch.double)

    def float(self) -> Self:
        return self.to(dtype=torch.float)

    def half(self) -> Self:
        return self.to(dtype=torch.half)

    def long(self) -> Self:
        return self.to(dtype=torch.long)

    def int(self) -> Self:
        return self.to(dtype=torch.int)

    def short(self) -> Self:
        return self.to(dtype=torch.short)

    def char(self) -> Self:
        return self.to(dtype=torch.int8)

    def byte(self) -> Self:
        return self.to(dtype=torch.uint8)

    @property
    def is_cuda(self) -> bool:
        """Whether self.data is on a GPU."""
        return bool(self.data.is_cuda)


def _packed_sequence_init_args(
    data: Tensor,
    batch_sizes: Tensor | None = None,
    sorted_indices: Tensor | None = None,
    unsorted_indices: Tensor | None = None,
) -> tuple[Tensor, Tensor, Tensor | None, Tensor | None]:
    # NB: if unsorted_indices is provided, it should be the inverse permutation of
    # sorted_indices; it is not checked, for performance
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    # support being called as `PackedSequence(data, batch_sizes, sorted_indices)`
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. "
                "Instances of PackedSequence should never be created manually. "
                "They should be instantiated by functions like pack_sequence "
                "and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence"
            )
        return data, batch_sizes, sorted_indices, unsorted_indices
    # support being called as `PackedSequence((data, batch_sizes), *, sorted_indices)`
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def _packed_sequence_init(
    data: Tensor,
    batch_sizes: Tensor | None = None,
    sorted_indices: Tensor | None = None,
    unsorted_indices: Tensor | None = None,
) -> PackedSequence:
    data, batch_sizes, sorted_indices, unsorted_indices = _packed_sequence_init_args(
        data, batch_sizes, sorted_indices, unsorted_indices
    )
    return PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of `permutation` (sorted_indices <-> unsorted_indices), or None."""
    if permutation is None:
        return None
    output = torch.empty_like(permutation, memory_format=torch.legacy_contiguous_format)
    output.scatter_(0, permutation, torch.arange(0, permutation.numel(), device=permutation.device))
    return output


def pack_padded_sequence(
    input: Tensor,
    lengths: Tensor | list[int],
    batch_first: bool = False,
    enforce_sorted: bool = True,
) -> PackedSequence:
    """Pack a padded (T, B, *) tensor ((B, T, *) when batch_first) of sequences of the given
    lengths. With enforce_sorted=False the batch is sorted by decreasing length first, and the
    permutation is kept in the PackedSequence."""
    if not isinstance(lengths, torch.Tensor):
        lengths = torch.as_tensor(lengths, dtype=torch.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=torch.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = torch.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        batch_dim = 0 if batch_first else 1
        input = input.index_select(batch_dim, sorted_indices)
    data, batch_sizes = torch._pack_padded_sequence(input, lengths, batch_first)
    return _packed_sequence_init(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """The inverse of pack_padded_sequence: (padded, lengths), in the batch's original order,
    padded to total_length steps if given."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError(
                "Expected total_length to be at least the length "
                "of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being {max_seq_length}"
            )
        max_seq_length = total_length
    padded_output, lengths = torch._pad_packed_sequence(
        sequence.data, sequence.batch_sizes, batch_first, padding_value, max_seq_length
    )
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return (
            padded_output.index_select(batch_dim, unsorted_indices),
            lengths[unsorted_indices.cpu()],
        )
    return padded_output, lengths


def pad_sequence(
    sequences: Tensor | list[Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Pad a list of (L_i, *) tensors to (T, B, *), or (B, T, *) when batch_first."""
    if not isinstance(sequences, Iterable):
        msg = (
            "pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}"
        )
        raise RuntimeError(msg)
    # a Tensor is iterable: tuple() unbinds it along dim 0, as in torch
    return torch._C._nn.pad_sequence(tuple(sequences), batch_first, padding_value, padding_side)


def unpad_sequence(
    padded_sequences: Tensor,
    lengths: Tensor,
    batch_first: bool = False,
) -> list[Tensor]:
    """Unstack a padded tensor into the list of its sequences, each cut to its length. As in
    torch, a (T, B, *) input is transposed in place (transpose_)."""
    unpadded_sequences = []
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    max_length = padded_sequences.shape[1]
    idx = torch.arange(max_length, device=lengths.device)
    for seq, length in zip(padded_sequences, lengths, strict=True):
        mask = idx < length
        unpacked_seq = seq[mask]
        unpadded_sequences.append(unpacked_seq)
    return unpadded_sequences


def pack_sequence(sequences: list[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """pad_sequence then pack_padded_sequence, on a list of (L_i, *) tensors."""
    lengths = torch.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of the sequences a PackedSequence holds, in their original order."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
