"""More of torch.nn's activations: hardsigmoid, hardswish, hardshrink, softshrink, threshold,
selu, celu, prelu (_prelu_kernel and its backward) and rrelu (rrelu_with_noise).

Mirrors `aten/src/ATen/native/Activation.cpp`: hardsigmoid, the shrinks and threshold are
structured (TORCH_META_FUNC builds the TensorIterator, TORCH_IMPL_FUNC calls the stub);
hardswish builds its iterator in the native function; selu and celu are elu with fixed
coefficients (`aten::selu > aten::elu`); prelu reshapes its weight to broadcast over the channel
dimension and calls _prelu_kernel; rrelu makes the noise tensor and calls rrelu_with_noise,
which in eval mode is leaky_relu with the mean slope and in training mode draws one uniform
number per non-positive element from the generator, in memory order, as the CPU kernel does.
The kernels are in native/cpu/activation_more_kernel.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.cpu_generator_impl import CPUGeneratorImpl, getDefaultCPUGenerator
from tensortrace.aten.native.activation import threshold_stub
from tensortrace.aten.native.cpu.distribution_templates import _uniform_real_double
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.scalar_ops import scalar_to_tensor
from tensortrace.aten.tensor_body import Tensor, expect_contiguous
from tensortrace.aten.tensor_iterator import (
    TensorIterator,
    TensorIteratorBase,
    TensorIteratorConfig,
)
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/Activation.cpp"
HEADER = "aten/src/ATen/native/Activation.h"

hardsigmoid_stub = DECLARE_DISPATCH("hardsigmoid_stub", HEADER)
hardsigmoid_backward_stub = DECLARE_DISPATCH("hardsigmoid_backward_stub", HEADER)
hardswish_stub = DECLARE_DISPATCH("hardswish_stub", HEADER)
hardswish_backward_stub = DECLARE_DISPATCH("hardswish_backward_stub", HEADER)
hardshrink_stub = DECLARE_DISPATCH("hardshrink_stub", HEADER)
softshrink_stub = DECLARE_DISPATCH("softshrink_stub", HEADER)
shrink_backward_stub = DECLARE_DISPATCH("shrink_backward_stub", HEADER)
prelu_stub = DECLARE_DISPATCH("prelu_stub", HEADER)
prelu_backward_stub = DECLARE_DISPATCH("prelu_backward_stub", HEADER)

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946

_FLOATS = (ScalarType.Float, ScalarType.Double, ScalarType.Half, ScalarType.BFloat16)
_FLOAT_MAX = {
    ScalarType.Float: float(np.finfo(np.float32).max),
    ScalarType.Double: float(np.finfo(np.float64).max),
    ScalarType.Half: 65504.0,
    ScalarType.BFloat16: 3.3895313892515355e38,
}


def _unary(it: TensorIteratorBase, self: Tensor) -> None:
    it.build_borrowing_unary_op(it.maybe_get_output(), self)


def _binary(it: TensorIteratorBase, a: Tensor, b: Tensor) -> None:
    it.build_borrowing_binary_op(it.maybe_get_output(), a, b)


# ---- hardsigmoid ---------------------------------------------------------------------------------
@meta_function("hardsigmoid", SOURCE)
def meta_hardsigmoid(it: TensorIteratorBase, self: Tensor) -> None:
    _unary(it, self)


@impl_function("hardsigmoid_out", SOURCE)
def hardsigmoid_out(it: TensorIteratorBase, self: Tensor, out: Tensor) -> None:
    hardsigmoid_stub(it.device_type(), it)


@meta_function("hardsigmoid_backward", SOURCE)
def meta_hardsigmoid_backward(it: TensorIteratorBase, grad_output: Tensor, self: Tensor) -> None:
    _binary(it, grad_output, self)


@impl_function("hardsigmoid_backward_out", SOURCE)
def hardsigmoid_backward_out(
    it: TensorIteratorBase, grad_output: Tensor, self: Tensor, grad_input: Tensor
) -> None:
    hardsigmoid_backward_stub(it.device_type(), it)


# ---- hardshrink and softshrink -------------------------------------------------------------------
@meta_function("hardshrink", SOURCE)
def meta_hardshrink(it: TensorIteratorBase, self: Tensor, lambd: Any) -> None:
    _unary(it, self)


@impl_function("hardshrink_out", SOURCE)
def hardshrink_out(it: TensorIteratorBase, self: Tensor, lambd: Any, out: Tensor) -> None:
    hardshrink_stub(it.device_type(), it, lambd)


@meta_function("hardshrink_backward", SOURCE)
def meta_hardshrink_backward(
    it: TensorIteratorBase, grad_out: Tensor, self: Tensor, lambd: Any
) -> None:
    _binary(it, grad_out, self)


@impl_function("hardshrink_backward_out", SOURCE)
def hardshrink_backward_out(
    it: TensorIteratorBase, grad_out: Tensor, self: Tensor, lambd: Any, grad_input: Tensor
) -> None:
    shrink_backward_stub(it.device_type(), it, lambd)


@meta_function("softshrink", SOURCE)
def meta_softshrink(it: TensorIteratorBase, self: Tensor, lambd: Any) -> None:
    lamb = float(lambd)
    st = self.scalar_type()
    # AT_DISPATCH_FLOATING_TYPES_AND2(Half, BFloat16, ..., "softshrink_check", ...)
    TORCH_CHECK_NOT_IMPLEMENTED(st in _FLOATS, f"\"softshrink_check\" not implemented for '{st}'")
    max_val = _FLOAT_MAX[st]  # std::numeric_limits<scalar_t>::max()
    TORCH_CHECK(
        0 <= lamb <= max_val,
        "lambda must be in range [0, ",
        max_val,
        "] for input dtype ",
        st,
        ", but found ",
        lamb,
    )
    _unary(it, self)


@impl_function("softshrink_out", SOURCE)
def softshrink_out(it: TensorIteratorBase, self: Tensor, lambd: Any, out: Tensor) -> None:
    softshrink_stub(it.device_type(), it, lambd)


@meta_function("softshrink_backward", SOURCE)
def meta_softshrink_backward(
    it: TensorIteratorBase, grad_output: Tensor, self: Tensor, lambd: Any
) -> None:
    _binary(it, grad_output, self)


@impl_function("softshrink_backward_out", SOURCE)
def softshrink_backward_out(
    it: TensorIteratorBase, grad_output: Tensor, self: Tensor, lambd: Any, grad_input: Tensor
) -> None:
    shrink_backward_stub(it.device_type(), it, lambd)


# ---- threshold (threshold_backward is in activation.py) ------------------------------------------
@meta_function("threshold", SOURCE)
def meta_threshold(it: TensorIteratorBase, self: Tensor, threshold: Any, value: Any) -> None:
    # computes `result = self <= threshold ? value : other`, other being self here
    it.build(
        TensorIteratorConfig()
        .set_check_mem_overlap(False)  # threshold is idempotent, so overlap is okay
        .add_output(it.maybe_get_output())
        .add_const_input(self)
        .add_const_input(self)  # other
        .allow_cpu_scalars(True)
        .promote_inputs_to_common_dtype(True)
        .cast_common_dtype_to_outputs(True)
        .enforce_safe_casting_to_output(True)
    )


@impl_function("threshold_out", SOURCE)
def threshold_out(
    it: TensorIteratorBase, self: Tensor, threshold: Any, value: Any, out: Tensor
) -> None:
    threshold_stub(it.device_type(), it, threshold, value)


# ---- hardswish -----------------------------------------------------------------------------------
@native_function(SOURCE)
def hardswish(self: Tensor) -> Tensor:
    it = TensorIterator.unary_op(Tensor(), self)
    hardswish_stub(it.device_type(), it)
    return it.output()


@native_function(SOURCE)
def hardswish_out(self: Tensor, out: Tensor) -> Tensor:
    it = TensorIterator.unary_op(out, self)
    hardswish_stub(it.device_type(), it)
    return out


@native_function(SOURCE)
def hardswish_(self: Tensor) -> Tensor:
    it = TensorIterator.unary_op(self, self)
    hardswish_stub(it.device_type(), it)
    return self


@native_function(SOURCE)
def hardswish_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    it = TensorIterator.borrowing_binary_op(Tensor(), grad_output, self)
    hardswish_backward_stub(it.device_type(), it)
    return it.output()


# ---- selu and celu: elu with fixed coefficients --------------------------------------------------
@native_function(SOURCE)
def selu(self: Tensor) -> Tensor:
    return at.elu(self, SELU_ALPHA, SELU_SCALE)


@native_function(SOURCE)
def selu_(self: Tensor) -> Tensor:
    return at.elu_(self, SELU_ALPHA, SELU_SCALE)


def _celu_inv_alpha(alpha: Any) -> float:
    TORCH_CHECK(float(alpha) != 0, "ZeroDivisionError: alpha cannot be 0 for CELU")
    return 1.0 / float(alpha)


@native_function(SOURCE)
def celu(self: Tensor, alpha: Any = 1.0) -> Tensor:
    inv_alpha = _celu_inv_alpha(alpha)
    return at.elu(self, alpha, 1.0, inv_alpha)


@native_function(SOURCE)
def celu_(self: Tensor, alpha: Any = 1.0) -> Tensor:
    inv_alpha = _celu_inv_alpha(alpha)
    return at.elu_(self, alpha, 1.0, inv_alpha)


# ---- prelu ---------------------------------------------------------------------------------------
@native_function(SOURCE)
def prelu(self: Tensor, weight: Tensor) -> Tensor:
    self_dim = self.dim()
    TORCH_CHECK(
        self.scalar_type() == weight.scalar_type(),
        "prelu: Type promoting not supported. Got ",
        self.scalar_type(),
        " and ",
        weight.scalar_type(),
    )
    if weight.numel() != 1:
        TORCH_CHECK(self_dim > 0, "Not allow zero-dim input tensor.")
        channel_size = self.size(1) if self_dim > 1 else 1  # channel_size default to 1
        TORCH_CHECK(
            channel_size == weight.numel(),
            "Mismatch of parameter numbers and input channel size. Found parameter numbers = ",
            weight.numel(),
            " and channel size = ",
            channel_size,
            ".",
        )
    TORCH_CHECK(
        weight.dim() <= 1,
        "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = ",
        weight.dim(),
    )
    # Adjust weight to broadcast over self and have weight.ndim == self.ndim
    w = weight
    if self_dim != w.dim():
        dim_w = [1] * self_dim
        if self_dim > 1:
            dim_w[1] = weight.numel()
        w = w.reshape(dim_w)  # always a view on CPU
    return at._prelu_kernel(self, w)


@native_function(SOURCE)
def _prelu_kernel(self: Tensor, weight: Tensor) -> Tensor:
    # weight broadcasts over self and they have the same dtype
    result = at.empty_like(self)
    it = TensorIterator()
    it.build(
        TensorIteratorConfig().add_output(result).add_const_input(self).add_const_input(weight)
    )
    prelu_stub(it.device_type(), it)
    return result


@native_function(SOURCE)
def _prelu_kernel_backward(
    grad_output: Tensor, self: Tensor, weight: Tensor
) -> tuple[Tensor, Tensor]:
    grad_out = grad_output
    grad_self = at.empty([0], dtype=self.scalar_type(), device=self.device())
    grad_weight = at.empty([0], dtype=weight.scalar_type(), device=weight.device())
    it = TensorIterator()
    it.build(
        TensorIteratorConfig()
        .add_output(grad_self)
        .add_output(grad_weight)
        .add_const_input(self)
        .add_const_input(weight)
        .add_const_input(grad_out)
    )
    prelu_backward_stub(it.device_type(), it)
    return grad_self, grad_weight


# ---- rrelu ---------------------------------------------------------------------------------------
@traced("kernel", "at::native::_rrelu_with_noise_train", SOURCE)
def _rrelu_with_noise_train(
    output: Tensor,
    input: Tensor,
    noise: Tensor,
    lower_: Any,
    upper_: Any,
    gen: CPUGeneratorImpl,
) -> None:
    """One at::uniform_real_distribution<double>(lower, upper) draw per element <= 0, in memory
    order; the bounds are opmath_t (float for float32) first."""
    st = input.scalar_type()
    opmath = np.float64 if st == ScalarType.Double else np.float32
    lower, upper = float(opmath(float(lower_))), float(opmath(float(upper_)))
    tmp_tensor = expect_contiguous(output)
    x = input.numpy_view().reshape(-1)
    negative = x <= 0
    with gen.mutex_:
        r = _uniform_real_double(gen.random_uint64(int(negative.sum())), lower, upper)
    r = r.astype(opmath)
    out_flat = np.where(negative, x.astype(opmath), x).astype(opmath)
    noise_flat = np.ones(x.shape, opmath)
    out_flat[negative] = x[negative].astype(opmath) * r
    noise_flat[negative] = r
    tmp_tensor.numpy_view().reshape(-1)[...] = out_flat
    noise.numpy_view().reshape(-1)[...] = noise_flat
    if not output.is_contiguous():
        output.copy_(tmp_tensor)


def _rrelu_with_noise_out(
    self: Tensor,
    noise: Tensor,
    lower: Any,
    upper: Any,
    training: bool,
    generator: Any,
    output: Tensor,
    default_generator: Any,
    name: str,
) -> Tensor:
    TORCH_CHECK(
        list(self.sizes()) == list(noise.sizes()),
        "noise tensor shape must match self tensor shape. Got self.shape = ",
        list(self.sizes()),
        " noise.shape = ",
        list(noise.sizes()),
    )
    if training:
        st = self.scalar_type()
        # AT_DISPATCH_FLOATING_TYPES_AND(BFloat16, ...): no Half
        TORCH_CHECK_NOT_IMPLEMENTED(
            st in (ScalarType.Float, ScalarType.Double, ScalarType.BFloat16),
            f"\"{name}\" not implemented for '{st}'",
        )
        gen = generator if generator is not None else default_generator()
        _rrelu_with_noise_train(output, expect_contiguous(self), noise, lower, upper, gen)
        return output
    lower_tensor = scalar_to_tensor(lower)
    upper_tensor = scalar_to_tensor(upper)
    negative = lower_tensor.add(upper_tensor).div(2)
    negative_slope = negative.item()
    return at.leaky_relu(self, negative_slope, out=output)


@native_function(SOURCE)
def rrelu_with_noise_out_cpu(
    self: Tensor,
    noise: Tensor,
    lower: Any,
    upper: Any,
    training: bool,
    generator: Any,
    out: Tensor,
) -> Tensor:
    return _rrelu_with_noise_out(
        self,
        noise,
        lower,
        upper,
        training,
        generator,
        out,
        getDefaultCPUGenerator,
        "rrelu_with_noise_out_cpu",
    )


_CPU = (getDefaultCPUGenerator, "rrelu_with_noise_out_cpu")


@native_function(SOURCE)
def rrelu_with_noise_cpu(
    self: Tensor,
    noise: Tensor,
    lower: Any = 0.125,
    upper: Any = 1.0 / 3.0,
    training: bool = False,
    generator: Any = None,
) -> Tensor:
    output = at.empty_like(self, memory_format="contiguous_format")
    return _rrelu_with_noise_out(
        self, noise, lower, upper, training, generator, output, *_CPU
    )  # at::native::rrelu_with_noise_out_cpu, called directly


@native_function(SOURCE)
def rrelu_with_noise_cpu_(
    self: Tensor,
    noise: Tensor,
    lower: Any = 0.125,
    upper: Any = 1.0 / 3.0,
    training: bool = False,
    generator: Any = None,
) -> Tensor:
    return _rrelu_with_noise_out(self, noise, lower, upper, training, generator, self, *_CPU)


@native_function(SOURCE)
def rrelu_with_noise_backward(
    grad_output: Tensor,
    self: Tensor,
    noise: Tensor,
    lower: Any,
    upper: Any,
    training: bool,
    self_is_result: bool,
) -> Tensor:
    if training:
        return noise.mul(grad_output)
    mid = (float(lower) + float(upper)) / 2.0
    return at.leaky_relu_backward(grad_output, self, mid, self_is_result)


def _check_bounds(lower: Any, upper: Any) -> None:
    TORCH_CHECK(
        float(lower) <= float(upper), "Lower bound should be less than or equal to the upper bound"
    )


@native_function(SOURCE)
def rrelu(
    self: Tensor,
    lower: Any = 0.125,
    upper: Any = 1.0 / 3.0,
    training: bool = False,
    generator: Any = None,
) -> Tensor:
    _check_bounds(lower, upper)
    noise = at.empty_like(self, memory_format="contiguous_format")
    return at.rrelu_with_noise(self, noise, lower, upper, training, generator)


@native_function(SOURCE)
def rrelu_(
    self: Tensor,
    lower: Any = 0.125,
    upper: Any = 1.0 / 3.0,
    training: bool = False,
    generator: Any = None,
) -> Tensor:
    _check_bounds(lower, upper)
    noise = at.empty_like(self, memory_format="contiguous_format")
    return at.rrelu_with_noise_(self, noise, lower, upper, training, generator)
