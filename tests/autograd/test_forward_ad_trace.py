"""The trace shows forward AD at work: inside an op's Autograd kernel, after the op, a frame
`<op> (forward AD)` (layer autograd) evaluates derivatives.yaml's `result:` formula, with the
primals it unpacks (aten::_fw_primal) and the formula's aten ops inside; make_dual and
unpack_dual are the aten ops torch.profiler names."""

from __future__ import annotations

import tensortrace as torch
import tensortrace.autograd.forward_ad as fwAD  # noqa: N812 - torch's name
from tensortrace.trace.trace import FrameNode

record = getattr(torch, "record", None) or torch.trace


def _outer_ops(t: torch.Trace) -> list[FrameNode]:
    """The aten:: frames not inside another one: the ops the program called."""
    found: list[FrameNode] = []

    def visit(frame: FrameNode) -> None:
        if frame.name.startswith("aten::"):
            found.append(frame)
            return
        for child in frame.children:
            visit(child)

    for root in t.roots():
        visit(root)
    return found


def test_mul_records_its_forward_grad_frame() -> None:
    x, tx, y = torch.randn(3), torch.randn(3), torch.randn(3)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, tx)
        with record() as t:
            z = d * y
        assert fwAD.unpack_dual(z).tangent is not None
    (op,) = _outer_ops(t)
    assert op.name == "aten::mul"
    # the first Autograd kernel under the op (the formula's own ops run theirs further in)
    kernel = next(f for f in op.walk() if f.name == "torch::autograd::VariableType::mul")
    (jvp,) = [f for f in kernel.children if f.name == "mul (forward AD)"]
    assert jvp.layer == "autograd"
    inside = [f.name for f in jvp.walk() if f.name.startswith("aten::")]
    # result: other_t * self_p + self_t * other_p, with other_t zeros (y has no tangent)
    assert inside.count("aten::_fw_primal") == 2
    assert inside.count("aten::mul") == 2 and "aten::add" in inside


def test_dual_level_ops_are_traced() -> None:
    x, tx = torch.randn(3), torch.randn(3)
    with record() as t:
        with fwAD.dual_level():
            d = fwAD.make_dual(x, tx)
            fwAD.unpack_dual(d.exp())
    names = [f.name for f in _outer_ops(t)]
    assert names == ["aten::_make_dual", "aten::exp", "aten::_unpack_dual"]


def test_no_level_no_forward_frame() -> None:
    x = torch.randn(3)
    with record() as t:
        x.exp()
    assert not [f for f in t.frames() if f.name.endswith("(forward AD)")]
