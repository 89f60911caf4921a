"""Conformance of torch.device's constructor (THPDevice_pynew of torch/csrc/Device.cpp) against
torch 2.13: what it accepts, and the argument parser's TypeError or the RuntimeError for what it
does not."""

from __future__ import annotations

import pytest

from .harness import check

PROGRAMS = {
    "strings": "out = [str(torch.device('cpu')), str(torch.device('cuda:1')), "
    "repr(torch.device('cpu', 0)), repr(torch.device('meta'))]",
    "keywords": "out = [repr(torch.device(type='cpu', index=0)), "
    "repr(torch.device(device=torch.device('cpu'))), repr(torch.device('cuda', None)), "
    "repr(torch.device('cuda', np.int64(1))), repr(torch.device(torch.device('cpu', 1)))]",
    "err_float": "out = torch.device(1.5)",
    "err_none": "out = torch.device(None)",
    "err_bool": "out = torch.device(True)",
    "err_list": "out = torch.device([1])",
    "err_numpy_float": "out = torch.device(np.float64(1.0))",
    "err_no_args": "out = torch.device()",
    "err_three_args": "out = torch.device('cpu', 0, 1)",
    "err_index_float": "out = torch.device('cuda', 1.5)",
    "err_index_bool": "out = torch.device('cuda', True)",
    "err_index_str": "out = torch.device('cpu', '0')",
    "err_index_keyword": "out = torch.device('cpu', index=1.0)",
    "err_type_keyword": "out = torch.device(type=1.5)",
    "err_device_and_index": "out = torch.device(torch.device('cpu'), 0)",
    "err_unknown_keyword": "out = torch.device('cpu', foo=1)",
    "err_negative_index": "out = torch.device('cuda', -1)",
    "err_negative_int": "out = torch.device(-1)",
    "err_index_twice": "out = torch.device('cuda:1', 0)",
    "err_bad_string": "out = torch.device('cuda:x')",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_device_constructor(name: str) -> None:
    check(PROGRAMS[name])
