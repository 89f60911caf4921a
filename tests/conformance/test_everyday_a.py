"""Conformance of the everyday APIs of issue 15, part A, against torch 2.13.0.

T / H / mT / mH and adjoint (views and their errors), numel / nelement / element_size / dim,
Tensor.type(), the new_* factories and new_tensor; then the random functions (bit-exact after
manual_seed), the norms, finfo / iinfo, and the long tail, each with its errors.
"""

from __future__ import annotations

import warnings

import pytest

from .harness import check

PROGRAMS = {
    # ---- transposes --------------------------------------------------------------------------
    "T_2d": "out = torch.rand(2, 3).T",
    "T_3d": "out = torch.rand(2, 3, 4).T",
    "T_1d": "out = torch.rand(3).T",
    "T_0d": "out = torch.tensor(1.5).T",
    "T_of_view": "x = torch.rand(4, 5)[1:, ::2]; out = x.T",
    "T_int": "out = torch.arange(6).reshape(2, 3).T",
    "H_2d": "out = torch.rand(2, 3).H",
    "H_0d": "out = torch.tensor(2.).H",
    "H_1d": "out = torch.rand(3).H",
    "H_3d": "out = torch.rand(2, 2, 2).H",
    "mT_3d": "out = torch.rand(2, 3, 4).mT",
    "mT_0d": "out = torch.tensor(2.).mT",
    "mT_1d": "out = torch.rand(3).mT",
    "mH_3d": "out = torch.rand(2, 3, 4).mH",
    "mH_1d": "out = torch.rand(3).mH",
    "adjoint": "out = torch.adjoint(torch.rand(2, 3, 4))",
    "adjoint_method": "out = torch.rand(3, 4).adjoint()",
    "T_shares_storage": "x = torch.rand(2, 3); y = x.T; y[0, 1] = 5.; out = x",
    # ---- properties --------------------------------------------------------------------------
    "numel": "x = torch.rand(2, 3, 4); out = [x.numel(), torch.numel(x), x.nelement()]",
    "numel_0d": "out = torch.numel(torch.tensor(3))",
    "element_size": "out = [torch.rand(2).element_size(), torch.arange(2).element_size(), "
                    "torch.tensor([True]).element_size(), "
                    "torch.zeros(1, dtype=torch.float16).element_size()]",
    "dims": "x = torch.rand(2, 3); out = [x.dim(), x.ndim, x.ndimension()]",
    # ---- type() ------------------------------------------------------------------------------
    "type_names": "out = [torch.rand(2).type(), torch.arange(2).type(), "
                  "torch.tensor([True]).type(), torch.zeros(1, dtype=torch.int8).type(), "
                  "torch.zeros(1, dtype=torch.uint8).type(), "
                  "torch.zeros(1, dtype=torch.float16).type(), "
                  "torch.zeros(1, dtype=torch.bfloat16).type(), "
                  "torch.zeros(1, dtype=torch.int16).type(), "
                  "torch.zeros(1, dtype=torch.int32).type(), "
                  "torch.zeros(1, dtype=torch.float64).type()]",
    "type_dtype": "out = torch.rand(2, 3).type(torch.float64)",
    "type_string": "out = torch.rand(2, 3).mul(10).type('torch.IntTensor')",
    "type_same": "x = torch.rand(2); out = x.type(torch.float32) is x and "
                 "x.type('torch.FloatTensor') is x",
    "type_tensor_class": "x = torch.arange(3); out = x.type(torch.Tensor)",
    "type_bad_string": "out = torch.rand(2).type('torch.int32')",
    "type_bad_obj": "out = torch.rand(2).type(3)",
    # ---- new_* -------------------------------------------------------------------------------
    "new_zeros": "x = torch.arange(3); out = x.new_zeros(2, 3)",
    "new_zeros_list": "x = torch.rand(3).T; out = x.new_zeros([2, 3], dtype=torch.float64)",
    "new_ones": "out = torch.rand(2, 2)[:, 0].new_ones((2, 3))",
    "new_full": "out = torch.arange(3).new_full((2, 2), 7)",
    "new_full_float_into_int": "out = torch.arange(3).new_full((2,), 2.5)",
    "new_empty_shape": "out = torch.rand(2).new_empty(3, 4).shape",
    "new_tensor": "out = torch.rand(2).new_tensor([1, 2, 3])",
    "new_tensor_dtype": "out = torch.arange(2).new_tensor([1.5, 2.5], dtype=torch.float64)",
    "new_tensor_from_int": "out = torch.arange(2).new_tensor([1.7, -2.2])",
    "new_tensor_requires_grad": "out = torch.rand(2).new_tensor([1.], requires_grad=True)"
                                ".requires_grad",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_everyday(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(PROGRAMS[name])


def test_T_warns_on_3d() -> None:
    import tensortrace

    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        tensortrace.rand(2, 3, 4).T
    with pytest.warns(UserWarning, match="Tensor.T is deprecated on 0-D tensors"):
        tensortrace.tensor(1.).T
