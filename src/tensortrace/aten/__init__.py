"""aten: operators, the dispatcher, TensorIterator and the native kernels.

Mirrors `aten/src/ATen`. Importing it loads native_functions.yaml and generates the at::
functions, the Tensor methods and the kernels' registrations (see codegen.py).
"""

from tensortrace.aten import native  # noqa: F401 - registers the native functions
from tensortrace.aten.autocast_mode import register_autocast_kernels
from tensortrace.aten.codegen import generate
from tensortrace.aten.functorch.batched_fallback import register_functorch_kernels
from tensortrace.aten.math_bits_fallback import register_math_bit_fallbacks
from tensortrace.aten.native.complex_ops import tensor_conj
from tensortrace.aten.tensor_body import Tensor


def _install_inline_conj() -> None:
    """at::Tensor::conj() is inline C++ (manual_cpp_binding), not the generated method."""
    Tensor.conj = tensor_conj  # type: ignore[method-assign, assignment]


OPERATORS = generate()
register_math_bit_fallbacks()
register_autocast_kernels()
register_functorch_kernels()
_install_inline_conj()
