"""Conformance of the in-place checks on a custom autograd.Function's output views against
torch 2.13 (python_function.py's CreationMeta, variable_type_utils.py's
handle_view_on_rebase): an input returned as-is, or a view made in forward, may not be
modified in place, with IN_CUSTOM_FUNCTION's message for one output and MULTI_OUTPUT_NODE's
for several; a view of such an output inherits the mark, and using one after its base was
modified in place raises the indirect form of the error; a clone or a detach may be. The
pieces of a multi-output view op (unbind, split, chunk) carry MULTI_OUTPUT_NODE too."""

from __future__ import annotations

import pytest

from .harness import check

PRE = (
    "class Foo(torch.autograd.Function):\n"
    "    @staticmethod\n    def forward(ctx, a, b):\n        return a, b\n"
    "    @staticmethod\n    def backward(ctx, ga, gb):\n        return ga, gb\n"
    "class Bar(torch.autograd.Function):\n"
    "    @staticmethod\n    def forward(ctx, a):\n        return a.view(-1)\n"
    "    @staticmethod\n    def backward(ctx, g):\n        return g.view(2, 2)\n"
    "class Dirty(torch.autograd.Function):\n"
    "    @staticmethod\n    def forward(ctx, a):\n        ctx.mark_dirty(a)\n"
    "        return a.mul_(2)\n"
    "    @staticmethod\n    def backward(ctx, g):\n        return g * 2\n"
    "a = torch.ones(2, 2, requires_grad=True)\nb = torch.ones(2, 2)\n"
)

PROGRAMS = {
    "err_input_returned_as_is_multi": "Foo.apply(a, b)[0].add_(1)",
    "err_non_differentiable_output_with_grad_other": "Foo.apply(a, b)[1].add_(a)",
    "err_view_of_output": "Foo.apply(a, b)[0][0].add_(1)",
    "err_view_made_in_forward": "Bar.apply(a).add_(1)",
    "err_view_of_view_made_in_forward": "Bar.apply(a)[1:].mul_(2)",
    "err_indirect_base_modified": "x = a.clone(); y = Foo.apply(x, x); x.add_(1); y[0].sum()",
    "err_indirect_base_modified_without_grad": "x = a.clone(); y = Foo.apply(x, x)\n"
    "with torch.no_grad():\n    x.add_(1)\nout = y[0].grad_fn",
    "err_indirect_module_hook_output": "i = torch.nn.Identity()\n"
    "i.register_full_backward_hook(lambda *args: None)\n"
    "x = a.clone(); y = i(x); x.mul_(2); out = y * 2",
    "err_unbind_piece": "a.clone().unbind(0)[0].add_(1)",
    "err_split_piece": "a.clone().split(1)[1].mul_(2)",
    "err_chunk_piece_of_view": "a.clone().chunk(2, 1)[0][0].zero_()",
    "err_split_piece_other_requires_grad": "torch.ones(2, 2).split(1)[0].add_(a[0])",
    "split_piece_under_no_grad": "p = a.clone().split(1)\nwith torch.no_grad():\n"
    "    p[0].add_(1)\nout = p[0]",
    "split_pieces_without_grad": "p = torch.ones(2, 2).split(1); p[0].add_(1); out = p",
    "detach_may_be_modified": "y = Foo.apply(a, b)[0].detach(); y.add_(1); out = (y, a)",
    "clone_may_be_modified": "y = Bar.apply(a).clone(); y.add_(1); y.sum().backward(); "
    "out = (y, a.grad)",
    "dirty_input_may_be_modified_again": "c = a.clone(); d = Dirty.apply(c); d.add_(1); "
    "d.sum().backward(); out = (d, a.grad)",
    "no_grad_modification_allowed": "y = Bar.apply(a)\nwith torch.no_grad():\n"
    "    y.add_(1)\nout = (y, a)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_custom_function_views(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name])
