"""isnan, isinf, isfinite and isin.

Mirrors `aten/src/ATen/native/TensorCompare.cpp`: isnan is `self != self`; isinf and isfinite
are composites (all-false / all-true for integer and bool tensors, else comparisons with
infinity); isin promotes both operands to their result type and asks, per element, whether it
occurs among the test elements (isin_default_kernel_cpu; its sorting path gives the same
answer).
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.scalar_ops import Scalar, scalar_type_of, wrapped_scalar_tensor
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorConfig
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isIntegralType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/TensorCompare.cpp"
INF = float("inf")


@native_function(SOURCE, name="isnan", legacy="at::native::isnan")
def isnan(self: Tensor) -> Tensor:
    return self.ne(self)


@native_function(SOURCE, name="isinf", legacy="at::native::isinf")
def isinf(self: Tensor) -> Tensor:
    if isIntegralType(self.scalar_type(), True):  # integers are never infinite
        return at.zeros_like(self, dtype=ScalarType.Bool)
    return self.abs().eq(INF)


@native_function(SOURCE, name="isfinite", legacy="at::native::isfinite")
def isfinite(self: Tensor) -> Tensor:
    if isIntegralType(self.scalar_type(), True):
        return at.ones_like(self, dtype=ScalarType.Bool)
    return self.eq(self).mul(self.abs().ne(INF))


def _check_for_unsupported_isin_dtype(dtype: ScalarType) -> None:
    TORCH_CHECK(
        dtype not in (ScalarType.Bool, ScalarType.ComplexFloat, ScalarType.ComplexDouble),
        "Unsupported input type encountered for isin(): ",
        dtype,
    )


@traced(
    "kernel",
    "at::native::isin_default_kernel_cpu",
    "aten/src/ATen/native/cpu/TensorCompareKernel.cpp",
    legacy="isin_default_kernel_cpu",
)
def isin_default_kernel_cpu(
    elements: Tensor, test_elements: Tensor, invert: bool, out: Tensor
) -> None:
    common_type = at.result_type(elements, test_elements)
    promoted = elements.to(common_type)
    test_flat = test_elements.to(common_type).reshape([-1])
    it = (
        TensorIteratorConfig()
        .add_output(out)
        .add_const_input(promoted)
        .check_all_same_dtype(False)
        .build()
    )
    if it.numel() == 0:
        return
    values = np.ascontiguousarray(it.operand_array(1))
    found = np.isin(values, test_flat.numpy_view(), invert=invert)
    it.operand_array(0)[...] = found
    it.cast_outputs()


@native_function(SOURCE, name="isin", legacy="at::native::isin")
def isin(
    elements: Tensor | None = None,
    test_elements: Tensor | None = None,
    assume_unique: bool = False,
    invert: bool = False,
    element: Scalar | None = None,
    test_element: Scalar | None = None,
) -> Tensor:
    """isin.Tensor_Tensor, .Tensor_Scalar (test_element) and .Scalar_Tensor (element)."""
    test = test_element if test_element is not None else test_elements
    elem = element if element is not None else elements
    assert test is not None and elem is not None  # the schema's overloads give one of each pair
    test_elements = test if isinstance(test, Tensor) else wrapped_scalar_tensor(test)
    if isinstance(elem, Tensor):
        elements = elem
    elif test_elements.device().is_cpu():
        elements = wrapped_scalar_tensor(elem)
    else:
        # isin_Scalar_Tensor_out: wrapped_scalar_tensor(elements, test_elements.device()), which
        # off the CPU is at::scalar_tensor on that device
        elements = at.scalar_tensor(elem, dtype=scalar_type_of(elem), device=test_elements.device())
        elements.unsafeGetTensorImpl().is_wrapped_number_ = True
    _check_for_unsupported_isin_dtype(elements.scalar_type())
    _check_for_unsupported_isin_dtype(test_elements.scalar_type())
    out = at.empty(list(elements.sizes()), dtype=ScalarType.Bool, device=elements.device())
    if elements.numel() == 0:
        return out
    isin_default_kernel_cpu(elements, test_elements, invert, out)
    return out
