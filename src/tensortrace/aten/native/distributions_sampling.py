"""torch.normal's tensor overloads and bernoulli: the rest of Distributions.cpp's samplers.

Mirrors `normal`, `normal_out`, `bernoulli`, `bernoulli_out` and `bernoulli_` in
`aten/src/ATen/native/Distributions.cpp` and their templates in
`aten/src/ATen/native/DistributionTemplates.h` (normal_impl, normal_out_impl, bernoulli_impl_,
bernoulli_out_impl). normal with tensor arguments draws N(0, 1) into the result with
normal_ (so the draws, and their order, are exactly torch.randn's), then scales and shifts it
in place: `output.mul_(std).add_(mean)`. bernoulli draws one uniform per element in loop order
and compares it with p (bernoulli_distribution: `uniform < p`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.memory_overlap import assert_no_internal_overlap
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIterator
from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isFloatingType

SOURCE = "aten/src/ATen/native/Distributions.cpp"
TEMPLATES = "aten/src/ATen/native/DistributionTemplates.h"

bernoulli_tensor_stub = DECLARE_DISPATCH("bernoulli_tensor_stub", "aten/src/ATen/native/UnaryOps.h")
bernoulli_scalar_stub = DECLARE_DISPATCH("bernoulli_scalar_stub", "aten/src/ATen/native/UnaryOps.h")
exponential_stub = DECLARE_DISPATCH("exponential_stub", "aten/src/ATen/native/UnaryOps.h")
multinomial_with_replacement_stub = DECLARE_DISPATCH(
    "multinomial_with_replacement_stub", "aten/src/ATen/native/UnaryOps.h"
)


def _fmt_double(value: float) -> str:
    """A double streamed into a C++ message (std::ostream's default: 6 significant digits)."""
    return f"{value:g}"


def CHECK_NORMAL_STD(std: float) -> None:
    TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", _fmt_double(std))


def CHECK_NORMAL_TENSOR_STD(std: Tensor) -> None:
    TORCH_CHECK(
        std.numel() == 0 or bool(std.min().ge(0).item()),
        "normal expects all elements of std >= 0.0",
    )


# ---- normal_out_impl: the three (mean, std) shapes ----------------------------------------------
def _normal_out_impl(
    output: Tensor, mean: Tensor | float, std: Tensor | float, generator: Any
) -> Tensor:
    if isinstance(std, Tensor):
        CHECK_NORMAL_TENSOR_STD(std)
    else:
        CHECK_NORMAL_STD(std)
    if isinstance(mean, Tensor) and not isinstance(std, Tensor):
        std_tensor = at.empty_like(output, memory_format="contiguous_format")
        shape = infer_size(mean.sizes(), std_tensor.sizes())
        resize_output(output, shape)
        output.normal_(0, std, generator=generator)
        output.add_(mean)
        return output
    if isinstance(std, Tensor) and not isinstance(mean, Tensor):
        mean_tensor = at.full([], mean, dtype=output.scalar_type(), device=output.device())
        shape = infer_size(mean_tensor.sizes(), std.sizes())
        resize_output(output, shape)
        output.normal_(0, 1, generator=generator)
        # `output.mul_(std).add_(mean_tensor)`: mean + std * N(0, 1), never addcmul (see torch)
        output.mul_(std).add_(mean_tensor)
        return output
    assert isinstance(mean, Tensor) and isinstance(std, Tensor)
    shape = infer_size(mean.sizes(), std.sizes())
    resize_output(output, shape)
    output.normal_(0, 1, generator=generator)
    output.mul_(std).add_(mean)
    return output


# C++ overloads at::native::normal(Tensor, double) / (double, Tensor) / (Tensor, Tensor) /
# (double, double, size): one name, told apart by the arguments' types.
@native_function(SOURCE, name="normal", legacy="at::native::normal")
def normal(
    mean: Tensor | float,
    std: Tensor | float = 1,
    size: Sequence[int] | None = None,
    generator: Any = None,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    if size is not None:  # normal.float_float: a factory
        result = at.empty(
            list(size), dtype=dtype, layout=layout, device=device, pin_memory=pin_memory
        )
        return result.normal_(mean, std, generator=generator)
    if not isinstance(std, Tensor):
        assert isinstance(mean, Tensor)
        CHECK_NORMAL_STD(std)
        ret = at.empty_like(mean, memory_format="contiguous_format")
    elif not isinstance(mean, Tensor):
        CHECK_NORMAL_TENSOR_STD(std)
        ret = at.empty_like(std, memory_format="contiguous_format")
    else:
        CHECK_NORMAL_TENSOR_STD(std)
        shape = infer_size(mean.sizes(), std.sizes())
        ret = at.empty(list(shape), dtype=mean.scalar_type(), device=mean.device())
    return _normal_out_impl(ret, mean, std, generator)


@native_function(SOURCE, name="normal_out", legacy="at::native::normal_out")
def normal_out(
    mean: Tensor | float,
    std: Tensor | float = 1,
    size: Sequence[int] | None = None,
    generator: Any = None,
    out: Tensor | None = None,
) -> Tensor:
    assert out is not None
    if size is not None:  # normal.float_float_out
        out.resize_(list(size))
        return out.normal_(mean, std, generator=generator)
    return _normal_out_impl(out, mean, std, generator)


# ---- bernoulli ----------------------------------------------------------------------------------
@native_function(SOURCE, name="bernoulli", legacy="at::native::bernoulli")
def bernoulli(self: Tensor, generator: Any = None) -> Tensor:
    """bernoulli(p): a 0/1 tensor like p, each element 1 with probability p."""
    result = at.empty_like(self, memory_format="contiguous_format")
    result.bernoulli_(self, generator=generator)
    return result


@native_function(SOURCE, name="bernoulli", legacy="at::native::bernoulli")
def bernoulli_p(self: Tensor, p: float, generator: Any = None) -> Tensor:
    result = at.empty_like(self, memory_format="contiguous_format")
    result.bernoulli_(p, generator=generator)
    return result


@native_function(SOURCE, name="bernoulli_out", legacy="at::native::bernoulli_out")
def bernoulli_out(self: Tensor, generator: Any = None, out: Tensor | None = None) -> Tensor:
    """bernoulli_out_impl: resize_ (not resize_as_: the dtypes may differ), then bernoulli_."""
    assert out is not None
    out.resize_(list(self.sizes()))
    return bernoulli_tensor_(out, self, generator)


def bernoulli_tensor_(self: Tensor, p: Tensor, generator: Any = None) -> Tensor:
    """bernoulli_impl_(self, Tensor p): each element 1 with its own probability."""
    assert_no_internal_overlap(self)
    bernoulli_tensor_stub(self.device().type_, self, p, generator)
    return self


@native_function(SOURCE, name="bernoulli_", legacy="at::native::bernoulli_")
def bernoulli_(self: Tensor, p: Tensor | float = 0.5, generator: Any = None) -> Tensor:
    """bernoulli_.Tensor and bernoulli_.float (C++ overloads told apart by p's type)."""
    if isinstance(p, Tensor):
        return bernoulli_tensor_(self, p, generator)
    TORCH_CHECK(0 <= p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", _fmt_double(p))
    assert_no_internal_overlap(self)
    bernoulli_scalar_stub(self.device().type_, self, p, generator)
    return self


# ---- exponential_ and multinomial ---------------------------------------------------------------
@native_function(SOURCE, name="exponential_", legacy="at::native::exponential_")
def exponential_(self: Tensor, lambd: float = 1, generator: Any = None) -> Tensor:
    """exponential_impl_: check lambda, then exponential_stub over the tensor."""
    TORCH_CHECK(
        lambd > 0 and lambd != float("inf") and lambd == lambd,
        "exponential_ expects lambda > 0.0, but found lambda=",
        _fmt_double(lambd),
    )
    if self.numel() == 0:
        return self
    it = TensorIterator.borrowing_nullary_op(self)
    exponential_stub(it.device_type(), it, float(lambd), generator)
    return self


FLOAT32_MAX_CONSECUTIVE_INT = 1 << 24


@native_function(SOURCE, name="multinomial_out", legacy="at::native::multinomial_out")
def multinomial_out(
    self: Tensor,
    num_samples: int,
    replacement: bool = False,
    generator: Any = None,
    out: Tensor | None = None,
) -> Tensor:
    """Without replacement (or one sample): argmax / topk of p / q with q ~ Exp(1), the
    Gumbel trick; with replacement: a binary search in each row's cumulative distribution."""
    assert out is not None
    result, n_sample = out, num_samples
    TORCH_CHECK(self.dim() > 0 and self.dim() <= 2, "prob_dist must be 1 or 2 dim")
    TORCH_CHECK(
        isFloatingType(self.scalar_type()),
        "multinomial only supports floating-point dtypes for input, got: ",
        self.scalar_type(),
    )
    TORCH_CHECK(
        result.scalar_type() == ScalarType.Long,
        "multinomial expects Long tensor out, got: ",
        result.scalar_type(),
    )
    TORCH_CHECK(n_sample > 0, "cannot sample n_sample <= 0 samples")
    n_categories = self.size(-1)
    TORCH_CHECK(
        replacement or n_sample <= n_categories,
        "cannot sample n_sample > prob_dist.size(-1) samples without replacement",
    )
    TORCH_CHECK(
        n_categories <= FLOAT32_MAX_CONSECUTIVE_INT, "number of categories cannot exceed 2^24"
    )
    result.resize_([n_sample] if self.dim() == 1 else [self.size(0), n_sample])
    if result.numel() == 0:
        return result
    if not replacement or n_sample == 1:
        is_valid = bool((self.max().lt(float("inf")).logical_and(self.min().ge(0))).item())
        TORCH_CHECK(is_valid, "probability tensor contains either `inf`, `nan` or element < 0")
        if self.dim() == 1:
            zero_prob = bool(self.sum().eq(0).item())
        else:
            zero_prob = bool(self.sum([1]).eq(0).sum().item())
        TORCH_CHECK(not zero_prob, "invalid multinomial distribution (sum of probabilities <= 0)")
        q = at.empty_like(self).exponential_(1, generator=generator)
        at.div(self, q, out=q)
        if n_sample == 1:
            at.argmax(q, -1, True, out=result)
        else:
            _topk_indices(q, n_sample, result)
        return result
    multinomial_with_replacement_stub(result.device().type_, result, self, n_sample, generator)
    return result


def _topk_indices(q: Tensor, k: int, result: Tensor) -> None:
    """at::topk_out(vals, result, q, k): the indices of the k largest, largest first."""
    # topk.values (the out= overload torch calls) is not declared here yet: the functional
    # topk, then its indices copied into the result
    _, indices = at.topk(q, k)
    result.copy_(indices)


@native_function(SOURCE, name="multinomial", legacy="at::native::multinomial")
def multinomial(
    self: Tensor, num_samples: int, replacement: bool = False, generator: Any = None
) -> Tensor:
    result = at.empty([0], dtype=ScalarType.Long, device=self.device())
    return multinomial_out(self, num_samples, replacement, generator, out=result)
