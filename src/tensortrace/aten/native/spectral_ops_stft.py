"""stft and istft: the short-time Fourier transform and its inverse (librosa's, with complex
signals and windows allowed).

Mirrors `stft` / `istft` of `aten/src/ATen/native/SpectralOps.cpp` (CompositeImplicitAutograd):
stft checks its arguments (the REPR message names every one), pads a shorter window to n_fft
at the centre, cuts the signal into frames with as_strided (hop_length apart), multiplies by
the window and runs one _fft_r2c (onesided by default for real input) or _fft_c2c over the
frames, then transposes to (batch, freq, frames); torch.stft (torch/functional.py, here
tensortrace/functional.py) pads the signal for center=True first. align_to_window=True lines
the frames up with the window rather than with the n_fft-long frame: the signal gets
(n_fft - win_length) / 2 zeros on each side. istft inverts each frame (_fft_c2r or _fft_c2c),
windows it, overlap-adds with unfold_backward and divides by the overlap-added squared window.
"""

from __future__ import annotations

import warnings
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.spectral_ops import BY_N, BY_ROOT_N, NONE
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import isComplexType, isFloatingType

SPECTRAL = "aten/src/ATen/native/SpectralOps.cpp"
_warned: set[str] = set()


def _warn_once(key: str, message: str) -> None:
    """TORCH_WARN_ONCE."""
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, UserWarning, stacklevel=3)


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t.sizes()) + "]"


def _type_string(t: Tensor) -> str:
    """Tensor::toString() through the legacy type: torch.FloatTensor, torch.cuda.FloatTensor."""
    cuda = ".cuda" if t.device().is_cuda() else ""
    return f"torch{cuda}.{t.scalar_type().name}Tensor"


def _backend_type_string(t: Tensor) -> str:
    """istft's self.toString(): the DeprecatedTypeProperties name, CPUComplexFloatType."""
    backend = "CUDA" if t.device().is_cuda() else "CPU"
    return f"{backend}{t.scalar_type().name}Type"


def _opt(value: Any) -> str:
    if value is None:
        return "None"
    return str(int(value)) if isinstance(value, bool) else str(value)


def _window_repr(window: Tensor | None) -> str:
    return "None" if window is None else f"{_type_string(window)}{{{_sizes(window)}}}"


@native_function(SPECTRAL)
def stft(
    self: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = False,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided: bool | None = None,
    return_complex: bool | None = None,
    align_to_window: bool | None = None,
) -> Tensor:
    """stft and stft.center (a C++ overload each)."""
    hop = hop_length if hop_length is not None else n_fft >> 2
    win = win_length if win_length is not None else n_fft
    repr_ = (
        f"stft({_type_string(self)}{_sizes(self)}, n_fft={n_fft}, hop_length={hop}, "
        f"win_length={win}, window={_window_repr(window)}, normalized={int(normalized)}, "
        f"onesided={_opt(onesided)}, return_complex={_opt(return_complex)}, "
        f"align_to_window={_opt(align_to_window)}) "
    )
    TORCH_CHECK(
        window is None or window.device() == self.device(),
        "stft input and window must be on the same device but got self on ",
        self.device(),
        " and window on ",
        None if window is None else window.device(),
    )
    TORCH_CHECK(
        not center or align_to_window is None,
        "stft align_to_window should only be set when center = false",
    )
    if window is None:
        _warn_once(
            "stft_window",
            "A window was not provided. A rectangular window will be applied,which is known to "
            "cause spectral leakage. Other windows such as torch.hann_window or "
            "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
            "warning and use a rectangular window, explicitly set "
            "`window=torch.ones(n_fft, device=<device>)`.",
        )
    complex_ = self.is_complex() or (window is not None and window.is_complex())
    is_complex_out = return_complex if return_complex is not None else complex_
    if not is_complex_out:
        TORCH_CHECK(
            return_complex is not None,
            "stft requires the return_complex parameter be given for real inputs, and will "
            "further require that return_complex=True in a future PyTorch release.",
        )
        _warn_once(
            "stft_real",
            "stft with return_complex=False is deprecated. In a future pytorch release, stft "
            "will return complex tensors for all inputs, and return_complex=False will raise an "
            "error.\nNote: you can still call torch.view_as_real on the complex output to "
            "recover the old return format.",
        )
    st = self.scalar_type()
    TORCH_CHECK(
        isFloatingType(st) or isComplexType(st),
        repr_,
        ": expected a tensor of floating point or complex values",
    )
    TORCH_CHECK(1 <= self.dim() <= 2, repr_, ": expected a 1D or 2D tensor")
    input = self.unsqueeze(0) if self.dim() == 1 else self
    if center:
        extra_dims = max(3, input.dim()) - input.dim()
        pad_amount = n_fft // 2
        extended = [1] * extra_dims + list(input.sizes())
        input = at.pad(input.view(extended), [pad_amount, pad_amount], pad_mode)
        input = input.view(list(input.sizes())[extra_dims:])
    if align_to_window and win < n_fft:
        left = (n_fft - win) // 2
        input = at.constant_pad_nd(input, [left, left])
    batch, length = input.size(0), input.size(1)
    TORCH_CHECK(
        0 < n_fft <= length, repr_, ": expected 0 < n_fft < ", length, ", but got n_fft=", win
    )
    TORCH_CHECK(hop > 0, repr_, ": expected hop_length > 0, but got hop_length=", hop)
    TORCH_CHECK(
        0 < win <= n_fft, repr_, ": expected 0 < win_length <= n_fft, but got win_length=", win
    )
    TORCH_CHECK(
        window is None or (window.dim() == 1 and window.size(0) == win),
        repr_,
        ": expected a 1D window tensor of size equal to win_length=",
        win,
        ", but got window with size ",
        None if window is None else _sizes(window),
    )
    window_ = window
    if win < n_fft:  # pad the window at the centre
        left = (n_fft - win) // 2
        like = window if window is not None else self
        window_ = at.zeros([n_fft], dtype=like.scalar_type(), device=like.device())
        if window is not None:
            window_.narrow(0, left, win).copy_(window)
        else:
            window_.narrow(0, left, win).fill_(1)
    n_frames = 1 + (length - n_fft) // hop
    # time2col
    input = input.as_strided(
        [batch, n_frames, n_fft], [input.stride(0), hop * input.stride(1), input.stride(1)]
    )
    if window_ is not None:
        input = input.mul(window_)
    complex_fft = input.is_complex()
    onesided_ = onesided if onesided is not None else not complex_fft
    norm = BY_ROOT_N if normalized else NONE
    if complex_fft:
        TORCH_CHECK(not onesided_, "Cannot have onesided output if window or input is complex")
        out = at._fft_c2c(input, [input.dim() - 1], norm, True)
    else:
        out = at._fft_r2c(input, [input.dim() - 1], norm, onesided_)
    out.transpose_(1, 2)
    if self.dim() == 1:
        out.squeeze_(0)
    return out if is_complex_out else at.view_as_real(out)


def _as_complex(self: Tensor) -> Tensor:
    """A complex view of (..., 2) real data, or of a contiguous copy where the strides or
    the offset do not allow one."""
    strides = self.strides()
    can_view = all(s % 2 == 0 for s in strides[:-1])
    can_view = can_view and strides[-1] == 1 and self.storage_offset() % 2 == 0
    return at.view_as_complex(self if can_view else self.clone(memory_format="contiguous_format"))


@native_function(SPECTRAL)
def istft(
    self: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    normalized: bool = False,
    onesided: bool | None = None,
    length: int | None = None,
    return_complex: bool = False,
) -> Tensor:
    hop = hop_length if hop_length is not None else n_fft >> 2
    win = win_length if win_length is not None else n_fft
    repr_ = (
        f"istft({_backend_type_string(self)}{_sizes(self)}, n_fft={n_fft}, hop_length={hop}, "
        f"win_length={win}, window={_window_repr(window)}, center={int(center)}, "
        f"normalized={int(normalized)}, onesided={_opt(onesided)}, length={_opt(length)}, "
        f"return_complex={int(return_complex)}) "
    )
    TORCH_CHECK(
        window is None or window.device() == self.device(),
        "istft input and window must be on the same device but got self on ",
        self.device(),
        " and window on ",
        None if window is None else window.device(),
    )
    TORCH_CHECK(
        self.is_complex(),
        "istft requires a complex-valued input tensor matching the output from stft with "
        "return_complex=True.",
    )
    input = at.view_as_real(self.resolve_conj())
    input_dim = input.dim()
    n_frames = input.size(-2)
    fft_size = input.size(-3)
    expected_output_signal_len = n_fft + hop * (n_frames - 1)
    TORCH_CHECK(input.numel() != 0, repr_, ": input tensor cannot be empty.")
    TORCH_CHECK(
        input_dim in (3, 4),
        repr_,
        ": expected a tensor with 3 or 4 dimensions, but got ",
        input_dim,
    )
    onesided_ = onesided if onesided is not None else fft_size != n_fft
    if onesided_:
        TORCH_CHECK(
            n_fft // 2 + 1 == fft_size,
            repr_,
            ": expected the frequency dimension (3rd to the last) of the input tensor to match "
            "n_fft / 2 + 1 when onesided=True, but got ",
            fft_size,
        )
    else:
        TORCH_CHECK(
            n_fft == fft_size,
            repr_,
            ": expected the frequency dimension (3rd to the last) of the input tensor to match "
            "n_fft when onesided=False, but got ",
            fft_size,
        )
    TORCH_CHECK(0 < hop <= win, repr_, ": expected 0 < hop_length <= win_length")
    TORCH_CHECK(0 < win <= n_fft, repr_, ": expected 0 < win_length <= n_fft")
    TORCH_CHECK(
        window is None or (window.dim() == 1 and window.size(0) == win),
        repr_,
        ": Invalid window shape. window has to be 1D and length of `win_length`",
    )
    window_tmp = (
        window
        if window is not None
        else at.ones([win], dtype=input.scalar_type(), device=input.device())
    )
    if win != n_fft:  # centre the window with zeros on both sides
        left = (n_fft - win) // 2
        window_tmp = at.constant_pad_nd(window_tmp, [left, n_fft - win - left], 0)
    if input_dim == 3:
        input = input.unsqueeze(0)
    input = _as_complex(input.transpose(1, 2))  # (channel, n_frames, fft_size)
    norm = BY_ROOT_N if normalized else BY_N
    if return_complex:
        TORCH_CHECK(not onesided_, "Cannot have onesided output if window or input is complex")
        input = at._fft_c2c(input, [input.dim() - 1], norm, False)  # (channel, n_frames, n_fft)
    else:
        TORCH_CHECK(
            window is None or not window.is_complex(),
            "Complex windows are incompatible with return_complex=False",
        )
        if not onesided_:
            input = input.slice(-1, 0, n_fft // 2 + 1)
        input = at._fft_c2r(input, [input.dim() - 1], norm, n_fft)
    y_tmp = input.mul(window_tmp.view([1, 1, n_fft]))
    y = at.unfold_backward(y_tmp, [y_tmp.size(0), expected_output_signal_len], 1, n_fft, hop)
    window_tmp = window_tmp.pow(2).expand([1, n_frames, n_fft])
    window_envelop = at.unfold_backward(window_tmp, [1, expected_output_signal_len], 1, n_fft, hop)
    # trim the front padding away if centred
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    elif center:
        end = -(n_fft // 2)
    else:
        end = expected_output_signal_len
    y = y.slice(1, start, end, 1)
    window_envelop = window_envelop.slice(1, start, end, 1)
    window_envelop_lowest = window_envelop.abs().min().lt(1e-11)
    # operator<<(Tensor) of the 0-d bool: its value, then its type
    lowest = window_envelop_lowest
    lowest_s = f"{int(lowest.item())}\n[ {_backend_type_string(lowest)}{{}} ]"
    TORCH_CHECK(not lowest.item(), repr_, "window overlap add min: ", lowest_s)
    y = y.div(window_envelop)  # (channel, expected_output_signal_len)
    if input_dim == 3:
        y = y.squeeze(0)
    if end > expected_output_signal_len:  # a longer `length`: zeros at the end
        _warn_once(
            "istft_length",
            "The length of signal is shorter than the length parameter. Result is being padded "
            "with zeros in the tail. Please check your center and hop_length settings.",
        )
        y = at.constant_pad_nd(y, [0, end - expected_output_signal_len], 0)
    return y
