"""The complex ops: conj and its bit, real / imag / view_as_real / view_as_complex, complex,
polar, angle and sgn.

Mirrors `aten/src/ATen/native/UnaryOps.cpp` (conj, _conj, resolve_conj, resolve_neg, _neg_view,
conj_physical, real, imag, angle, sgn), `TensorShape.cpp` / `ComplexHelper.h` (view_as_real,
view_as_complex: views of the same storage with doubled or halved strides) and
`TensorFactories.cpp` (complex, polar). conj() of a complex tensor copies nothing: it is a view
with the conjugate bit set (Note [The conj bit] in aten/math_bits_fallback.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import (
    TensorIterator,
    TensorIteratorBase,
    TensorIteratorConfig,
)
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.intrusive_ptr import intrusive_ptr
from tensortrace.c10.scalar_type import (
    ScalarType,
    TypeMeta,
    canCast,
    toComplexType,
    toRealValueType,
)
from tensortrace.c10.tensor_impl import ImplType, TensorImpl

UNARY = "aten/src/ATen/native/UnaryOps.cpp"
SHAPE = "aten/src/ATen/native/TensorShape.cpp"
FACTORIES = "aten/src/ATen/native/TensorFactories.cpp"
HEADER = "aten/src/ATen/native/UnaryOps.h"

conj_physical_stub = DECLARE_DISPATCH("conj_physical_stub", HEADER)
angle_stub = DECLARE_DISPATCH("angle_stub", HEADER)
sgn_stub = DECLARE_DISPATCH("sgn_stub", HEADER)
sign_stub = DECLARE_DISPATCH("sign_stub", HEADER)
complex_stub = DECLARE_DISPATCH("complex_stub", "aten/src/ATen/native/TensorFactories.h")
polar_stub = DECLARE_DISPATCH("polar_stub", "aten/src/ATen/native/TensorFactories.h")


def _at():  # type: ignore[no-untyped-def]
    return at


# ---- the bits ----------------------------------------------------------------------------------
@native_function(UNARY, name="_conj", legacy="at::native::_conj")
def _conj(self: Tensor) -> Tensor:
    """An alias of self with the conjugate bit flipped: no data is touched."""
    self_ = self.alias()  # type: ignore[attr-defined]
    self_._set_conj(not self.is_conj())
    return self_


@native_function(UNARY, name="conj", legacy="at::native::conj")
def conj(self: Tensor) -> Tensor:
    """Tensor::conj(): a real tensor is its own conjugate; a complex one gets the bit."""
    if not self.is_complex():
        return self
    return _at()._conj(self)


def tensor_conj(self: Tensor) -> Tensor:
    """TensorBody.h's inline Tensor::conj(): a real tensor is returned with no dispatch."""
    if not self.is_complex():
        return self
    return _at()._conj(self)


@native_function(UNARY, name="resolve_conj", legacy="at::native::resolve_conj")
def resolve_conj(self: Tensor) -> Tensor:
    if not self.is_conj():
        return self
    result = _at().empty_like(self)
    return result.copy_(self)  # type: ignore[attr-defined] # copy_ will resolve conj


@native_function(UNARY, name="resolve_neg", legacy="at::native::resolve_neg")
def resolve_neg(self: Tensor) -> Tensor:
    if not self.is_neg():
        return self
    return self.clone()  # type: ignore[attr-defined] # the negation is materialised in copy_


@native_function(UNARY, name="_neg_view", legacy="at::native::_neg_view")
def _neg_view(self: Tensor) -> Tensor:
    self_ = self.alias()  # type: ignore[attr-defined]
    self_._set_neg(not self.is_neg())
    return self_


@native_function(UNARY, name="conj_physical", legacy="at::native::conj_physical")
def conj_physical(self: Tensor) -> Tensor:
    if not self.is_complex():
        return self
    return _at()._conj_physical(self)


@native_function(UNARY, name="_conj_physical", legacy="at::native::_conj_physical")
def _conj_physical(self: Tensor) -> Tensor:
    if self.is_conj():
        return self.conj().clone()  # type: ignore[attr-defined]
    result = _at().empty([0], dtype=self.scalar_type(), device=self.device())
    return _at().conj_physical(self, out=result)


@native_function(UNARY, name="conj_physical_out", legacy="at::native::conj_physical_out")
def conj_physical_out(self: Tensor, out: Tensor) -> Tensor:
    it = TensorIterator.unary_op(out, self)
    conj_physical_stub(it.device_type(), it)
    return out


@native_function(UNARY, name="conj_physical_", legacy="at::native::conj_physical_")
def conj_physical_(self: Tensor) -> Tensor:
    if not self.is_complex():
        return self
    it = TensorIterator.unary_op(self, self)
    conj_physical_stub(it.device_type(), it)
    return self


# ---- views of the parts ------------------------------------------------------------------------
def view_tensor(
    tensor: Tensor, dtype: ScalarType, offset: int, sizes: Sequence[int], strides: Sequence[int]
) -> Tensor:
    """ComplexHelper.h's view_tensor: a VIEW TensorImpl of another dtype over the same storage,
    keeping the key set (so a neg bit stays)."""
    impl = tensor.unsafeGetTensorImpl()
    view = TensorImpl(
        impl.storage_.copy(), impl.key_set_, TypeMeta.fromScalarType(dtype), ImplType.VIEW
    )
    result = Tensor(intrusive_ptr.make(view))
    view.set_sizes_and_strides(tuple(sizes), tuple(strides), offset)
    return result


@native_function(SHAPE, name="view_as_real", legacy="at::native::view_as_real")
def view_as_real(self: Tensor) -> Tensor:
    TORCH_CHECK(
        not self.is_conj(),
        "view_as_real doesn't work on unresolved conjugated tensors."
        "  To resolve the conjugate tensor so you can view it as real, use "
        "self.resolve_conj(); however, be warned that the resulting tensor will NOT alias "
        "the original.",
    )
    return _view_as_real_physical(self)


def _view_as_real_physical(self: Tensor) -> Tensor:
    TORCH_CHECK(self.is_complex(), "view_as_real is only supported for complex tensors")
    sizes = (*self.sizes(), 2)  # the last dimension holds the real and imaginary parts
    strides = (*(s * 2 for s in self.strides()), 1)
    return view_tensor(
        self, toRealValueType(self.scalar_type()), self.storage_offset() * 2, sizes, strides
    )


@native_function(SHAPE, name="view_as_complex", legacy="at::native::view_as_complex")
def view_as_complex(self: Tensor) -> Tensor:
    st = self.scalar_type()
    TORCH_CHECK(
        st in (ScalarType.Float, ScalarType.Double, ScalarType.Half),
        "view_as_complex is only supported for half, float and double tensors, but got "
        "a tensor of scalar type: ",
        st,
    )
    old_sizes = self.sizes()
    TORCH_CHECK(len(old_sizes) != 0, "Input tensor must have one or more dimensions")
    TORCH_CHECK(old_sizes[-1] == 2, "Tensor must have a last dimension of size 2")
    old_strides = self.strides()
    TORCH_CHECK(old_strides[-1] == 1, "Tensor must have a last dimension with stride 1")
    for s in old_strides[:-1]:
        TORCH_CHECK(
            s % 2 == 0, "Tensor must have a stride divisible by 2 for all but last dimension"
        )
    TORCH_CHECK(self.storage_offset() % 2 == 0, "Tensor must have a storage_offset divisible by 2")
    return view_tensor(
        self,
        toComplexType(st),
        self.storage_offset() // 2,
        old_sizes[:-1],
        [s // 2 for s in old_strides[:-1]],
    )


@native_function(UNARY, name="real", legacy="at::native::real")
def real(self: Tensor) -> Tensor:
    if not self.is_complex():
        return self
    at = _at()
    real_tensor = at.view_as_real(at._conj(self) if self.is_conj() else self)
    return at.select(real_tensor, real_tensor.dim() - 1, 0)


@native_function(UNARY, name="imag", legacy="at::native::imag")
def imag(self: Tensor) -> Tensor:
    TORCH_CHECK(self.is_complex(), "imag is not implemented for tensors with non-complex dtypes.")
    at = _at()
    if self.is_conj():
        # the imaginary part of a conjugate is the negated imaginary part: a neg view
        real_tensor = at._neg_view(at.view_as_real(at._conj(self)))
    else:
        real_tensor = at.view_as_real(self)
    return at.select(real_tensor, real_tensor.dim() - 1, 1)


# ---- complex and polar -------------------------------------------------------------------------
_PARTS = (ScalarType.Float, ScalarType.Double, ScalarType.Half)


def complex_check_floating(a: Tensor, b: Tensor) -> None:
    TORCH_CHECK(
        a.scalar_type() in _PARTS and b.scalar_type() in _PARTS,
        "Expected both inputs to be Half, Float or Double tensors but got ",
        a.scalar_type(),
        " and ",
        b.scalar_type(),
    )


def complex_check_dtype(result: Tensor, a: Tensor, b: Tensor) -> None:
    complex_check_floating(a, b)
    TORCH_CHECK(
        a.scalar_type() == b.scalar_type(),
        "Expected object of scalar type ",
        a.scalar_type(),
        " but got scalar type ",
        b.scalar_type(),
        " for second argument",
    )
    TORCH_CHECK(
        result.scalar_type() == toComplexType(a.scalar_type()),
        "Expected object of scalar type ",
        toComplexType(a.scalar_type()),
        " but got scalar type ",
        result.scalar_type(),
        " for argument 'out'",
    )


def _parts_iterator(result: Tensor, a: Tensor, b: Tensor) -> TensorIteratorBase:
    return (
        TensorIteratorConfig()
        .add_output(result)
        .add_const_input(a)
        .add_const_input(b)
        .check_all_same_dtype(False)
        .build()
    )


@native_function(FACTORIES, name="complex_out", legacy="at::native::complex_out")
def complex_out(real: Tensor, imag: Tensor, out: Tensor) -> Tensor:
    complex_check_dtype(out, real, imag)
    it = _parts_iterator(out, real, imag)
    complex_stub(it.device_type(), it)
    return out


@native_function(FACTORIES, name="complex", legacy="at::native::complex")
def complex_(real: Tensor, imag: Tensor) -> Tensor:
    complex_check_floating(real, imag)
    result = _at().empty([0], dtype=toComplexType(real.scalar_type()), device=real.device())
    return _at().complex(real, imag, out=result)


@native_function(FACTORIES, name="polar_out", legacy="at::native::polar_out")
def polar_out(abs: Tensor, angle: Tensor, out: Tensor) -> Tensor:  # noqa: A002 - schema names
    complex_check_dtype(out, abs, angle)
    it = _parts_iterator(out, abs, angle)
    polar_stub(it.device_type(), it)
    return out


@native_function(FACTORIES, name="polar", legacy="at::native::polar")
def polar(abs: Tensor, angle: Tensor) -> Tensor:  # noqa: A002 - schema names
    complex_check_floating(abs, angle)
    result = _at().empty([0], dtype=toComplexType(abs.scalar_type()), device=abs.device())
    return _at().polar(abs, angle, out=result)


# ---- ops whose complex result is real: abs, angle ---------------------------------------------
def unary_op_impl_with_complex_to_float_out(
    result: Tensor, self: Tensor, stub: object, promotes_integer_to_float: bool
) -> Tensor:
    """Run complex -> complex as TensorIterator expects, then copy the real part out."""
    if self.is_complex() and not result.is_complex():
        float_type = toRealValueType(self.scalar_type())
        TORCH_CHECK(
            canCast(float_type, result.scalar_type()),
            "result type ",
            float_type,
            " can't be cast to the desired output type ",
            result.scalar_type(),
        )
        complex_result = _at().empty([0], dtype=self.scalar_type(), device=self.device())
        it = TensorIterator.unary_op(complex_result, self)
        stub(it.device_type(), it)  # type: ignore[operator]
        resize_output(result, complex_result.sizes())
        result.copy_(_at().real(complex_result))  # type: ignore[attr-defined]
        return result
    if promotes_integer_to_float:
        it = TensorIterator.unary_float_op(result, self)  # type: ignore[attr-defined]
    else:
        it = TensorIterator.unary_op(result, self)
    stub(it.device_type(), it)  # type: ignore[operator]
    return result


@native_function(UNARY, name="angle_out", legacy="at::native::angle_out")
def angle_out(self: Tensor, out: Tensor) -> Tensor:
    return unary_op_impl_with_complex_to_float_out(out, self, angle_stub, True)


@native_function(UNARY, name="angle", legacy="at::native::angle")
def angle(self: Tensor) -> Tensor:
    at = _at()
    if self.is_complex():
        result = at.empty([0], dtype=toRealValueType(self.scalar_type()), device=self.device())
        return at.angle(self, out=result)
    # unary_op_impl_float: an undefined output, so integers compute in the default float
    it = TensorIterator.unary_float_op(Tensor(), self)  # type: ignore[attr-defined]
    angle_stub(it.device_type(), it)
    return it.output()


# ---- sign and sgn: structured (sgn is sign extended to complex: z / |z|) -----------------------
@meta_function("sign", UNARY)
def sign_meta(it: TensorIteratorBase, self: Tensor) -> None:
    TORCH_CHECK_NOT_IMPLEMENTED(
        not self.is_complex(),
        "Unlike NumPy, torch.sign is not "
        "intended to support complex numbers. Please use torch.sgn "
        "instead.",
    )
    it.build_borrowing_unary_op(it.maybe_get_output(), self)


@impl_function("sign_out", UNARY, legacy="at::native::sign_out")
def sign_impl(it: TensorIteratorBase, self: Tensor, out: Tensor) -> None:
    sign_stub(it.device_type(), it)


@meta_function("sgn", UNARY)
def sgn_meta(it: TensorIteratorBase, self: Tensor) -> None:
    it.build_borrowing_unary_op(it.maybe_get_output(), self)


@impl_function("sgn_out", UNARY, legacy="at::native::sgn_out")
def sgn_impl(it: TensorIteratorBase, self: Tensor, out: Tensor) -> None:
    if self.is_complex():
        sgn_stub(it.device_type(), it)
    else:
        sign_stub(it.device_type(), it)
