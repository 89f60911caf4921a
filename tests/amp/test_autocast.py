"""Autocast's dispatch path, its CUDA-only policies, and AMP without a CUDA device.

The conformance programs (tests/conformance/test_amp.py) compare what torch's CPU build can
run. Here: the key sets a dispatch computes (no autocast key while autocast is off, the
device's key while it is on), the trace (the Autocast kernel's frame above autograd's, the
operator tree torch.profiler records), what only AutocastCUDA does (float32 softmax, sum and
layer_norm, norm's appended dtype, binary_cross_entropy refused), and the warnings and the
disabled behaviour of autocast("cuda") and GradScaler("cuda") without a device, compared with
torch in a subprocess with TENSORTRACE_CUDA_DEVICES=0.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import tensortrace as torch
from tensortrace.aten.generated import operators as ops
from tensortrace.c10.dispatch_key import DispatchKey
from tensortrace.c10.local_dispatch_key_set import tls_local_dispatch_key_set

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _dispatch_frames(trace: Any) -> list[tuple[str, str]]:
    """(frame name, dispatch key) of each aten:: frame, in the order they opened."""
    return [
        (e.name, e.args["dispatch_key"])
        for e in trace.events
        if getattr(e, "name", "").startswith("aten::") and "dispatch_key" in (e.args or {})
    ]


def test_the_autocast_key_is_in_the_key_set_only_while_autocast_is_on() -> None:
    x = torch.ones(2, 2)
    args = (x.cdata, x.cdata)
    assert not ops.mm.compute_dispatch_key_set(args).has(DispatchKey.AutocastCPU)
    assert not x.cdata.key_set().has(DispatchKey.AutocastCPU)  # tensors carry none
    with torch.autocast("cpu"):
        ks = ops.mm.compute_dispatch_key_set(args)
        assert ks.has(DispatchKey.AutocastCPU) and not ks.has(DispatchKey.AutocastCUDA)
        assert ops.mm.lookup(ks)[0] == DispatchKey.AutocastCPU
        assert ops.add_Tensor.lookup(ks)[0] == DispatchKey.AutogradCPU  # add falls through
        with torch.autocast("cpu", enabled=False):
            assert not tls_local_dispatch_key_set().included_.has(DispatchKey.AutocastCPU)
    assert tls_local_dispatch_key_set().included_.empty()
    # an op with no tensor argument still finds its composite kernel
    with torch.autocast("cpu"):
        assert torch.promote_types(torch.float16, torch.float32) == torch.float32


def test_the_trace_shows_autocast_before_autograd() -> None:
    x = torch.rand(4, 8)
    w = torch.rand(3, 8, requires_grad=True)
    with torch.record() as t, torch.autocast("cpu"):
        torch.mm(x, w.t())
    frames = _dispatch_frames(t)
    assert frames[0] == ("aten::t", "AutogradCPU")
    mm = [f for f in frames if f[0] == "aten::mm"]
    assert mm == [("aten::mm", "AutocastCPU"), ("aten::mm", "AutogradCPU")]
    names = [getattr(e, "name", "") for e in t.events]
    wrapper = "at::autocast::WrapFunction_<CastPolicy::lower_precision_fp>::call"
    assert names.index(wrapper) < names.index("torch::autograd::VariableType::mm")


def _torch_tree(events: Any) -> list[Any]:
    def node(e: Any) -> tuple[str, list[Any]]:
        return (e.name, [node(c) for c in e.cpu_children if c.name.startswith("aten::")])

    return [node(e) for e in events if e.cpu_parent is None and e.name.startswith("aten::")]


@pytest.mark.parametrize(
    "program",
    [
        "torch.mm(x, w.t())",
        "torch.nn.functional.linear(x, w)",
        "torch.bmm(x[None], w.t()[None]).relu()",
        "torch.cat([torch.mm(x, w.t()), torch.ones(4, 3)])",
    ],
)
def test_the_operator_tree_is_torch_profilers(program: str) -> None:
    real = pytest.importorskip("torch")

    def run(lib: Any) -> None:
        exec(program, {"torch": lib, "x": xs[lib], "w": ws[lib]})

    xs = {torch: torch.rand(4, 8), real: real.rand(4, 8)}
    ws = {torch: torch.rand(3, 8, requires_grad=True), real: real.rand(3, 8, requires_grad=True)}
    with torch.record() as t, torch.autocast("cpu"):
        run(torch)
    with real.profiler.profile() as p, real.autocast("cpu"):
        run(real)
    assert t.operator_tree() == _torch_tree(p.events())


def test_cuda_runs_softmax_sum_and_layer_norm_in_float32() -> None:
    a = torch.randn(4, 4, device="cuda")
    with torch.autocast("cuda"):
        low = torch.mm(a, a)
        dtypes = [
            low.dtype,
            torch.softmax(low, 0).dtype,
            torch.softmax(low, 0, dtype=torch.float16).dtype,  # an explicit dtype is kept
            torch.log_softmax(low, 1).dtype,
            low.sum().dtype,
            low.sum(0).dtype,
            torch.cumsum(low, 0).dtype,
            torch.nn.functional.layer_norm(low, (4,)).dtype,
            torch.exp(low).dtype,
            low.norm().dtype,
            torch.norm(low, 2, [0]).dtype,
            torch.relu(low).dtype,
            torch.addcmul(a, low, low).dtype,  # promote: float32 wins
            torch.addcmul(low, low, low).dtype,
            torch.mm(a.cpu(), a.cpu()).dtype,  # a CPU op inside CUDA autocast
        ]
    f16, f32 = torch.float16, torch.float32
    assert dtypes == [f16, f32, f16, f32, f32, f32, f32, f32, f32, f32, f32, f16, f32, f16, f32]


def test_cuda_refuses_binary_cross_entropy_the_cpu_runs_it_in_float32() -> None:
    p = torch.rand(3, device="cuda")
    with torch.autocast("cuda"), pytest.raises(RuntimeError) as info:
        torch.nn.functional.binary_cross_entropy(p, p)
    assert str(info.value).startswith(
        "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast."
    )
    with torch.autocast("cpu"):
        pc = p.cpu().bfloat16()
        assert torch.nn.functional.binary_cross_entropy(pc, pc).dtype == torch.float32


def test_each_device_casts_only_its_own_tensors() -> None:
    a, c = torch.randn(2, 2), torch.randn(2, 2, device="cuda")
    with torch.autocast("cpu"), torch.autocast("cuda"):
        assert torch.mm(a, a).dtype == torch.bfloat16
        assert torch.mm(c, c).dtype == torch.float16
    with torch.autocast("cpu"):
        assert torch.mm(c, c).dtype == torch.float32


def test_the_cache_is_cleared_when_the_outermost_region_exits() -> None:
    from tensortrace.aten import autocast_mode

    w = torch.randn(3, 3, requires_grad=True)
    with torch.autocast("cpu"):
        with torch.autocast("cpu"):
            torch.mm(w, w)
        assert len(autocast_mode._cached_casts) == 1
        with torch.no_grad():  # cached under no_grad: the cast still records its grad_fn
            torch.mm(torch.randn(3, 3, requires_grad=True), w)
    assert autocast_mode._cached_casts == {}


CODE = """
import json, sys, warnings
torch = __import__(sys.argv[1])
out = []
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    ctx = torch.autocast("cuda")
    scaler = torch.amp.GradScaler("cuda")
    old = torch.cuda.amp.GradScaler()
out.append([(w.category.__name__, str(w.message)) for w in caught])
with ctx:
    a = torch.ones(2, 2)
    out.append([str(torch.mm(a, a).dtype), torch.is_autocast_enabled("cuda")])
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=1.0)
loss = model(torch.ones(3, 2)).sum()
scaled = scaler.scale(loss)
scaled.backward()
w0 = model.weight.detach().clone()
ret = scaler.step(opt)
scaler.update()
out.append([scaled is loss, ret, scaler.get_scale(), scaler.state_dict(), scaler.is_enabled(),
            old.is_enabled(), bool(torch.equal(w0, model.weight.detach())),
            torch.cuda.amp.common.amp_definitely_not_available(),
            torch.cuda.is_bf16_supported()])
print(json.dumps(out))
"""


def _run(module: str, env: dict[str, str]) -> Any:
    done = subprocess.run(
        [sys.executable, "-c", CODE, module], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_without_a_device_cuda_amp_warns_and_disables_itself_as_torch_does() -> None:
    pytest.importorskip("torch")
    ours = _run("tensortrace", dict(os.environ, TENSORTRACE_CUDA_DEVICES="0", PYTHONPATH=SRC))
    assert ours == _run("torch", dict(os.environ))
    assert ours[0][0] == [
        "UserWarning",
        "CUDA is not available or torch_xla is imported. Disabling autocast.",
    ]
    assert ours[2][:5] == [True, None, 1.0, {}, False]
