"""Printing tensors the way torch prints them: `tensor([[0.4963, 0.7682, ...]])`.

Mirrors `torch/_tensor_str.py`, function for function: PRINT_OPTS and set_printoptions
(precision 4, threshold 1000, edgeitems 3, linewidth 80, sci_mode, the `default` / `short` /
`full` profiles), _Formatter (one width for all elements; floats print in fixed point, in
integer mode `1.` when every finite value is whole, or in scientific notation when the finite
nonzero magnitudes span more than 1000x, exceed 1e8 or go below 1e-4), _vector_str (wrapping at
linewidth), summarization (`...` after edgeitems per dimension once numel > threshold) and
_str_intern (the `dtype=`, `size=` and `requires_grad=True` suffixes).

Where torch runs tensor ops (masked_select, abs, cat, stack) to look at the values, this reads
them as NumPy arrays over the tensor's memory, so printing adds no operator calls to a trace. A
summarized tensor is never read whole: get_summarized_data gathers only its edges.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from tensortrace.c10.frozen import Record


class __PrinterOptions(Record):  # torch's name (a dataclass there)
    # Note [Records written out, not made by dataclass] in c10/frozen.py
    __match_args__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(
        self,
        precision: int = 4,
        threshold: float = 1000,
        edgeitems: int = 3,
        linewidth: int = 80,
        sci_mode: bool | None = None,
    ) -> None:
        self.precision = precision
        self.threshold = threshold
        self.edgeitems = edgeitems
        self.linewidth = linewidth
        self.sci_mode = sci_mode

    def _asdict(self) -> dict[str, Any]:
        """dataclasses.asdict(self): each field by its name."""
        return dict(zip(self.__match_args__, type(self)._field_values(self)))


PRINT_OPTS = __PrinterOptions()


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set options for printing (torch.set_printoptions). Items taken from NumPy."""
    if profile is not None:
        if profile == "default":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80
        elif profile == "short":
            PRINT_OPTS.precision = 2
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 2
            PRINT_OPTS.linewidth = 80
        elif profile == "full":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = math.inf
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    return PRINT_OPTS._asdict()


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    old_kwargs = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old_kwargs)


def _python_values(arr: np.ndarray) -> list[Any]:
    """tolist() of a tensor: floats come out as Python floats (c10::Scalar's double)."""
    if arr.dtype.kind == "f" or arr.dtype.name == "bfloat16":
        return arr.astype(np.float64).tolist()
    return arr.tolist()


class _Formatter:
    def __init__(self, tensor: np.ndarray, floating_dtype: bool) -> None:
        self.floating_dtype = floating_dtype
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1

        tensor_view = tensor.reshape(-1)

        if not self.floating_dtype:
            for value in _python_values(tensor_view):
                value_str = f"{value}"
                self.max_width = max(self.max_width, len(value_str))
        else:
            values = tensor_view.astype(np.float64)  # tensor_totype: exact for every float type
            nonzero_finite_vals = values[np.isfinite(values) & (values != 0)]
            if nonzero_finite_vals.size == 0:
                return  # no valid number, do nothing

            nonzero_finite_abs = np.abs(nonzero_finite_vals)
            nonzero_finite_min = float(nonzero_finite_abs.min())
            nonzero_finite_max = float(nonzero_finite_abs.max())

            # value != ceil(value) in the tensor's own dtype; whole values are whole in double
            self.int_mode = bool(np.all(nonzero_finite_vals == np.ceil(nonzero_finite_vals)))

            self.sci_mode = (
                nonzero_finite_max / nonzero_finite_min > 1000.0
                or nonzero_finite_max > 1.0e8
                or nonzero_finite_min < 1.0e-4
                if PRINT_OPTS.sci_mode is None
                else PRINT_OPTS.sci_mode
            )

            vals = nonzero_finite_vals.tolist()
            if self.int_mode:
                # in int_mode for floats, all numbers are integers, and we append a decimal to
                # nonfinites to indicate that the tensor is of floating type. add 1 to the len
                # to account for this.
                if self.sci_mode:
                    for value in vals:
                        value_str = f"{{:.{PRINT_OPTS.precision}e}}".format(value)
                        self.max_width = max(self.max_width, len(value_str))
                else:
                    for value in vals:
                        value_str = f"{value:.0f}"
                        self.max_width = max(self.max_width, len(value_str) + 1)
            else:
                # Check if scientific representation should be used.
                if self.sci_mode:
                    for value in vals:
                        value_str = f"{{:.{PRINT_OPTS.precision}e}}".format(value)
                        self.max_width = max(self.max_width, len(value_str))
                else:
                    for value in vals:
                        value_str = f"{{:.{PRINT_OPTS.precision}f}}".format(value)
                        self.max_width = max(self.max_width, len(value_str))

    def width(self) -> int:
        return self.max_width

    def format(self, value: Any) -> str:
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{{:{self.max_width}.{PRINT_OPTS.precision}e}}".format(value)
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{{:.{PRINT_OPTS.precision}f}}".format(value)
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _complex_str(val: complex, formatter1: _Formatter, formatter2: _Formatter) -> str:
    real_str = formatter1.format(val.real)
    imag_str = (formatter2.format(val.imag) + "j").lstrip()
    # handles negative numbers, +0.0, -0.0
    if imag_str[0] == "+" or imag_str[0] == "-":
        return real_str + imag_str
    return real_str + "+" + imag_str


def _scalar_str(
    self: np.ndarray, formatter1: _Formatter, formatter2: _Formatter | None = None
) -> str:
    value = _python_values(self.reshape(1))[0]
    if formatter2 is not None:
        return _complex_str(value, formatter1, formatter2)
    return formatter1.format(value)


def _vector_str(
    self: np.ndarray,
    indent: int,
    summarize: bool,
    formatter1: _Formatter,
    formatter2: _Formatter | None = None,
) -> str:
    # length includes spaces and comma between elements
    element_length = formatter1.width() + 2
    if formatter2 is not None:
        # width for imag_formatter + an extra j for complex
        element_length += formatter2.width() + 1
    elements_per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))

    def _val_formatter(val: Any) -> str:
        if formatter2 is not None:
            return _complex_str(val, formatter1, formatter2)
        return formatter1.format(val)

    if summarize and not PRINT_OPTS.edgeitems:
        # Deal with edge case that negative zero is zero
        data = ["..."]
    elif summarize and self.shape[0] > 2 * PRINT_OPTS.edgeitems:
        data = (
            [_val_formatter(val) for val in _python_values(self[: PRINT_OPTS.edgeitems])]
            + [" ..."]
            + [_val_formatter(val) for val in _python_values(self[-PRINT_OPTS.edgeitems :])]
        )
    else:
        data = [_val_formatter(val) for val in _python_values(self)]

    data_lines = [data[i : i + elements_per_line] for i in range(0, len(data), elements_per_line)]
    lines = [", ".join(line) for line in data_lines]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


# formatter2 is only used for printing complex tensors: formatter1 and formatter2 are then the
# formatters of tensor.real and tensor.imag
def _tensor_str_with_formatter(
    self: np.ndarray,
    indent: int,
    summarize: bool,
    formatter1: _Formatter,
    formatter2: _Formatter | None = None,
) -> str:
    dim = self.ndim

    if dim == 0:
        return _scalar_str(self, formatter1, formatter2)

    if dim == 1:
        return _vector_str(self, indent, summarize, formatter1, formatter2)

    if summarize and self.shape[0] > 2 * PRINT_OPTS.edgeitems:
        slices = (
            [
                _tensor_str_with_formatter(self[i], indent + 1, summarize, formatter1, formatter2)
                for i in range(PRINT_OPTS.edgeitems)
            ]
            + ["..."]
            + [
                _tensor_str_with_formatter(self[i], indent + 1, summarize, formatter1, formatter2)
                for i in range(len(self) - PRINT_OPTS.edgeitems, len(self))
            ]
        )
    else:
        slices = [
            _tensor_str_with_formatter(self[i], indent + 1, summarize, formatter1, formatter2)
            for i in range(self.shape[0])
        ]

    tensor_str = ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices)
    return "[" + tensor_str + "]"


def _tensor_str(self: Any, indent: int) -> str:
    if self.numel() == 0:
        return "[]"

    summarize = self.numel() > PRINT_OPTS.threshold
    data = self.cdata.numpy_view()  # a view of the tensor's memory, nothing copied
    if self.cdata.is_neg():  # handle the negative bit (resolve_neg, on the NumPy side)
        data = np.negative(data)
    if self.dtype.is_complex:
        if self.cdata.is_conj():  # handle the conjugate bit (resolve_conj, on the NumPy side)
            data = np.conj(data)
        real_formatter = _Formatter(
            get_summarized_data(data.real) if summarize else data.real, True
        )
        imag_formatter = _Formatter(
            get_summarized_data(data.imag) if summarize else data.imag, True
        )
        return _tensor_str_with_formatter(data, indent, summarize, real_formatter, imag_formatter)
    formatter = _Formatter(
        get_summarized_data(data) if summarize else data, self.dtype.is_floating_point
    )
    return _tensor_str_with_formatter(data, indent, summarize, formatter)


def _add_suffixes(tensor_str: str, suffixes: list[str], indent: int, force_newline: bool) -> str:
    tensor_strs = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        suffix_len = len(suffix)
        if force_newline or last_line_len + suffix_len + 2 > PRINT_OPTS.linewidth:
            tensor_strs.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
            force_newline = False
        else:
            tensor_strs.append(", " + suffix)
            last_line_len += suffix_len + 2
    tensor_strs.append(")")
    return "".join(tensor_strs)


def get_summarized_data(self: np.ndarray) -> np.ndarray:
    """Only the edges of each dimension (what the summarized output shows)."""
    dim = self.ndim
    if dim == 0:
        return self
    if dim == 1:
        if self.shape[0] > 2 * PRINT_OPTS.edgeitems:
            return np.concatenate((self[: PRINT_OPTS.edgeitems], self[-PRINT_OPTS.edgeitems :]))
        return self
    if not PRINT_OPTS.edgeitems:
        return np.empty([0] * dim, self.dtype)
    if self.shape[0] > 2 * PRINT_OPTS.edgeitems:
        start = [self[i] for i in range(PRINT_OPTS.edgeitems)]
        end = [self[i] for i in range(len(self) - PRINT_OPTS.edgeitems, len(self))]
        return np.stack([get_summarized_data(x) for x in (start + end)])
    return np.stack([get_summarized_data(x) for x in self])


def _str_intern(inp: Any, *, tensor_contents: str | None = None) -> str:
    # import cycle: the package top imports this module (through _trace_values)
    from tensortrace import get_default_dtype
    from tensortrace.csrc.dtype import DTYPES

    # torch's is_plain_tensor: a Tensor or an nn.Parameter prints as tensor(...)
    is_plain_tensor = type(inp).__name__ in ("Tensor", "Parameter")
    prefix = "tensor(" if is_plain_tensor else f"{type(inp).__name__}("
    indent = len(prefix)
    suffixes: list[str] = []
    custom_contents_provided = tensor_contents is not None
    tensor_str = tensor_contents if tensor_contents is not None else ""
    # a dual tensor prints its primal's values and then its tangent (no op outside a level)
    from tensortrace.autograd.forward_ad import unpack_dual

    self, tangent = unpack_dual(inp)

    if self.device.type != "cpu":
        suffixes.append("device='" + str(self.device) + "'")

    default_dtype = get_default_dtype()
    default_complex_dtype = DTYPES[
        "complex128" if default_dtype == DTYPES["float64"] else "complex64"
    ]
    has_default_dtype = self.dtype in (
        default_dtype,
        default_complex_dtype,
        DTYPES["int64"],
        DTYPES["bool"],
    )
    if self.device.type == "meta":
        suffixes.append("size=" + str(tuple(self.shape)))
        if self.dtype != default_dtype:
            suffixes.append("dtype=" + str(self.dtype))
        if not custom_contents_provided:
            tensor_str = "..."
    elif self.numel() == 0:
        # Explicitly print the shape if it is not (0,), to match NumPy behavior
        if self.dim() != 1:
            suffixes.append("size=" + str(tuple(self.shape)))
        # In an empty tensor, there are no elements to infer if the dtype should be int64,
        # so it must be shown explicitly.
        if self.dtype != default_dtype:
            suffixes.append("dtype=" + str(self.dtype))
        if not custom_contents_provided:
            tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + str(tuple(self.shape)))
        if not has_default_dtype:
            suffixes.append("dtype=" + str(self.dtype))
        if not custom_contents_provided:
            tensor_str = _tensor_str(self, indent)

    grad_fn = inp.grad_fn
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(grad_fn).__name__}>")
    elif inp.requires_grad:
        suffixes.append("requires_grad=True")

    if tangent is not None:
        suffixes.append(f"tangent={tangent}")

    return _add_suffixes(prefix + tensor_str, suffixes, indent, force_newline=False)


def _functorch_wrapper_str_intern(tensor: Any) -> str:
    """A BatchedTensor prints its level, batch dim and value (torch's
    _functorch_wrapper_str_intern); the level is its depth in the running vmaps."""
    import textwrap

    from tensortrace.aten.functorch.dynamic_layer import _stack
    from tensortrace.csrc.python_variable import THPVariable_Wrap

    impl = tensor.cdata.unsafeGetTensorImpl()
    levels = [interpreter.level for interpreter in _stack]
    depth = levels.index(impl.level_) + 1 if impl.level_ in levels else impl.level_
    value_repr = repr(THPVariable_Wrap(impl.value_.copy()))
    indented_value_repr = textwrap.indent(value_repr, " " * 4)
    return f"BatchedTensor(lvl={depth}, bdim={impl.bdim_}, value=\n{indented_value_repr}\n)"


def _str(self: Any, *, tensor_contents: str | None = None) -> str:
    if type(self.cdata.impl_.target_).__name__ == "BatchedTensorImpl":
        return _functorch_wrapper_str_intern(self)
    return _str_intern(self, tensor_contents=tensor_contents)
