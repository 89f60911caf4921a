"""The call trees of nn's ops and of one whole MLP training step match torch.profiler's.

The tree keeps what torch.profiler records: `aten::` operators, the autograd engine's
`autograd::engine::evaluate_function: <Node>` frames with the Node's own frame inside
(`AddmmBackward0`, `torch::autograd::AccumulateGrad`), detach's `detach` RECORD_FUNCTION, and the
optimizer's `Optimizer.zero_grad#SGD.zero_grad` / `Optimizer.step#SGD.step` annotations; an
event that has its parent's name and is its only child is merged into it, as the profiler's
EventList._remove_dup_nodes does. A training step's tree is the forward (Linear > ReLU > Linear
> cross_entropy), the backward pass node by node, and the optimizer's in-place updates.

The expected trees come from tests/data/profiler_trees_nn.json (written by
tests/tools/capture_profiler_trees_nn.py under torch 2.13); when torch is installed the stored
trees are also checked against a live capture, so a stale file shows up.
"""

from __future__ import annotations

import functools
import gc
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tensortrace

TESTS = Path(__file__).resolve().parent.parent
DATA = TESTS / "data" / "profiler_trees_nn.json"
THREADS = 1

Tree = list[list[Any]]  # [[name, children], ...]

# Each case: setup (run once), then `run` (run twice to warm up, as the optimizer's state is
# made on the first step, then profiled).
SETUP = """
F = M.nn.functional
M.manual_seed(0)
x = M.randn(16, 4)
y = M.randint(0, 3, (16,))
z = M.randn(16, 3)
model = M.nn.Sequential(M.nn.Linear(4, 8), M.nn.ReLU(), M.nn.Linear(8, 3))
sgd = M.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
adam = M.optim.Adam(model.parameters(), lr=0.01)
w = M.randn(3, 4, requires_grad=True)
b = M.randn(3, requires_grad=True)
def sgd_step():
    sgd.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    sgd.step()
def adam_step():
    adam.zero_grad()
    loss = F.mse_loss(model(x), z)
    loss.backward()
    adam.step()
gru = M.nn.GRU(4, 3, bidirectional=True)
lstm = M.nn.LSTM(4, 3)
"""
CASES = {
    "softmax": "z.softmax(1)",
    "log_softmax_dtype": "F.log_softmax(z, 0, dtype=M.float64)",
    "linear": "F.linear(x, w.detach(), b.detach())",
    "linear_no_bias": "F.linear(x, w.detach())",
    "linear_3d": "F.linear(x.view(2, 8, 4), w.detach(), b.detach())",
    "cross_entropy": "F.cross_entropy(z, y)",
    "nll_loss": "F.nll_loss(z, y)",
    "mse_loss": "F.mse_loss(z, z * 2)",
    "bce_with_logits": "F.binary_cross_entropy_with_logits(z, z.sigmoid())",
    "linear_backward": "F.linear(x, w, b).sum().backward()",
    "cross_entropy_backward": "F.cross_entropy(F.linear(x, w, b), y).backward()",
    "mse_backward": "F.mse_loss(F.linear(x, w, b).tanh(), z).backward()",
    "pack_padded_sequence": "M.nn.utils.rnn.pack_padded_sequence(x.view(4, 4, 4), [4, 3, 3, 1])",
    "pad_packed_sequence": "M.nn.utils.rnn.pad_packed_sequence(M.nn.utils.rnn."
    "pack_padded_sequence(x.view(4, 4, 4), [4, 3, 1, 1]), batch_first=True, total_length=5)",
    "pack_padded_backward": "M.nn.utils.rnn.pack_padded_sequence(w.view(3, 1, 4).expand(3, 2, 4), "
    "[3, 1]).data.sum().backward()",
    "gru_packed": "gru(M.nn.utils.rnn.pack_padded_sequence(x.view(4, 4, 4), [4, 3, 1, 1]))",
    "lstm_packed": "lstm(M.nn.utils.rnn.pack_padded_sequence(x.view(4, 4, 4), [4, 3, 3, 1]))",
    "mlp_sgd_step": "sgd_step()",
    "mlp_adam_step": "adam_step()",
}

_NODE = re.compile(r"^(\w+Backward\d+|torch::autograd::AccumulateGrad|detach)$")


def keep(layer: str | None, name: str) -> bool:
    """Is this an event torch.profiler records?"""
    if name.startswith(("aten::", "autograd::engine::evaluate_function: ", "Optimizer.")):
        return True
    return layer in (None, "autograd") and bool(_NODE.match(name))


def merge_dups(tree: Tree) -> Tree:
    """EventList._remove_dup_nodes: a node whose only child has its name is that child."""
    out: Tree = []
    for name, children in tree:
        children = merge_dups(children)
        while len(children) == 1 and children[0][0] == name:
            children = children[0][1]
        out.append([name, children])
    return out


def _env(module: Any) -> dict[str, Any]:
    env: dict[str, Any] = {"M": module}
    exec(SETUP, env)  # noqa: S102 - the program under test
    return env


def our_tree(src: str) -> Tree:
    saved = tensortrace.get_num_threads()
    tensortrace.set_num_threads(THREADS)
    try:
        env = _env(tensortrace)
        eval(src, env)  # warm up: the optimizers make their state on the first step
        eval(src, env)
        with tensortrace.record() as t:
            eval(src, env)
    finally:
        tensortrace.set_num_threads(saved)

    def collect(nodes: list[Any]) -> Tree:
        out: Tree = []
        for node in nodes:
            inner = collect(node.children)
            if keep(node.layer, node.name):
                out.append([node.name, inner])
            else:
                out.extend(inner)
        return out

    return merge_dups(collect(t.roots()))


@functools.cache
def stored() -> dict[str, Any]:
    return json.loads(DATA.read_text())


def test_stored_file_is_current() -> None:
    assert stored()["sources"] == CASES and stored()["setup"] == SETUP


@pytest.fixture(autouse=True)
def _collect_cycles() -> Iterator[None]:
    """Programs that define a class or a function make reference cycles (the function's
    __globals__ is the namespace that holds it), which keep their tensors allocated until the
    cycle collector runs: collect them here, so later tests start from the memory they expect."""
    yield
    gc.collect()


@pytest.mark.parametrize("name", sorted(CASES))
def test_tree_matches_profiler(name: str) -> None:
    assert our_tree(CASES[name]) == stored()["cases"][name]


@pytest.mark.parametrize("name", ["mlp_sgd_step", "cross_entropy_backward"])
def test_stored_trees_match_live_torch(name: str) -> None:
    pytest.importorskip("torch")
    if str(TESTS / "tools") not in sys.path:
        sys.path.insert(0, str(TESTS / "tools"))
    from capture_profiler_trees_nn import torch_tree

    assert torch_tree(CASES[name]) == stored()["cases"][name]
