"""The emulated CUDA device: devices, dispatch keys, factories, transfers, torch's cross-device
errors, torch.cuda's runtime API, the CUDA path in a trace, and no leaks on the device.

(Every conformance program also runs on `cuda`: tests/conformance/conftest.py.)
"""

from __future__ import annotations

import gc
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tensortrace as torch
from tensortrace.c10.dispatch_key import DispatchKey, DispatchKeySet
from tensortrace.c10.tensor_options import computeDispatchKey

record = torch.record
SRC = str(Path(__file__).resolve().parents[2] / "src")


def error_of(fn: Any) -> tuple[str, str]:
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


# ---- devices and dispatch keys -------------------------------------------------------------------
@pytest.mark.parametrize(
    "spec",
    [
        "'cuda'",
        "'cuda:0'",
        "'cuda:1'",
        "'cuda', 0",
        "'cuda', 3",
        "'cuda:x'",
        "'cuda', -1",
        "'cuda:-1'",
        "'cuda:0', 0",
    ],
)
def test_device_parses_as_torch(spec: str) -> None:
    real = pytest.importorskip("torch")

    def outcome(module: Any) -> Any:
        try:
            d = eval(f"module.device({spec})")
        except Exception as exc:  # noqa: BLE001 - the error is what is compared
            return type(exc).__name__, str(exc)
        return repr(d), str(d), d.type, d.index

    assert outcome(torch) == outcome(real)


def test_cuda_keys_order_and_backend_select() -> None:
    t = torch.ones(2, device="cuda")
    assert repr(t.cdata.key_set()) == "DispatchKeySet(CUDA, ADInplaceOrView, AutogradCUDA)"
    # BackendComponent order: CUDA outranks CPU, so a CUDA tensor with a CPU scalar picks CUDA
    both = DispatchKeySet([DispatchKey.CPU, DispatchKey.CUDA])
    assert both.highestPriorityTypeId() == DispatchKey.CUDA
    assert computeDispatchKey(None, None, torch.device("cuda")) == DispatchKey.CUDA
    assert computeDispatchKey(None, None, torch.device("cpu")) == DispatchKey.CPU


# ---- factories, transfers, printing --------------------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        "torch.zeros(2, 3, device='cuda')",
        "torch.ones(4, device='cuda:0', dtype=torch.int32)",
        "torch.full((2,), 7, device=torch.device('cuda'))",
        "torch.arange(5, device='cuda')",
        "torch.linspace(0, 1, 5, device='cuda')",
        "torch.eye(3, device='cuda')",
        "torch.rand(2, 2, device='cuda')",
        "torch.randn(3, device='cuda')",
        "torch.randint(0, 9, (4,), device='cuda')",
        "torch.tensor([1.5, 2.5], device='cuda')",
        "torch.empty(0, 3, device='cuda')",
        "torch.empty_strided((2, 3), (1, 2), device='cuda')",
        "torch.zeros_like(torch.ones(2, device='cuda'))",
        "torch.ones(2, 3).cuda()",
        "torch.ones(2, 3).t().to('cuda')",
        "torch.ones(3).to(device=torch.device('cuda'))",
        "torch.ones(3).to('cuda', torch.float64)",
        "torch.ones(3, device='cuda').to(torch.int8)",
    ],
)
def test_factories_and_transfers_land_on_cuda0(make: str) -> None:
    t = eval(make)
    assert t.is_cuda and not t.is_cpu and t.device == torch.device("cuda", 0)
    assert t.get_device() == 0 and t.cpu().device == torch.device("cpu")


def test_round_trip_keeps_values_strides_and_dtype() -> None:
    torch.manual_seed(0)
    x = (torch.rand(3, 4) * 10).t()  # non-contiguous
    for dtype in (
        torch.float32,
        torch.float64,
        torch.int64,
        torch.int16,
        torch.bool,
        torch.float16,
        torch.bfloat16,
        torch.uint8,
    ):
        src = x.to(dtype)
        on = src.cuda()
        assert on.stride() == src.stride() and on.dtype == dtype
        back = on.cpu()
        np.testing.assert_array_equal(back.float().numpy(), src.float().numpy())
    # a conversion and a transfer at once, in both directions
    np.testing.assert_array_equal(x.cuda().to(torch.int32).cpu().numpy(), x.to(torch.int32).numpy())
    out = torch.empty(4, 3, dtype=torch.float64)
    out.copy_(x.cuda())
    np.testing.assert_array_equal(out.numpy(), x.double().numpy())
    assert torch.ones(2, device="cuda").cuda().device == torch.device("cuda:0")


def test_printing_shows_the_device_before_the_dtype() -> None:
    assert repr(torch.tensor([1.5, 2.0], device="cuda")) == (
        "tensor([1.5000, 2.0000], device='cuda:0')"
    )
    assert repr(torch.ones(2, device="cuda", dtype=torch.int32)) == (
        "tensor([1, 1], device='cuda:0', dtype=torch.int32)"
    )
    assert repr(torch.empty(0, 3, device="cuda")) == "tensor([], device='cuda:0', size=(0, 3))"
    assert repr(torch.tensor(2.5, device="cuda")) == "tensor(2.5000, device='cuda:0')"


def test_item_tolist_and_numpy() -> None:
    t = torch.tensor([3.0], device="cuda")
    assert t.item() == 3.0 and t.tolist() == [3.0] and float(t) == 3.0
    assert error_of(lambda: t.numpy()) == (
        "TypeError",
        (
            "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
            "to host memory first."
        ),
    )
    assert t.cpu().numpy().tolist() == [3.0]


# ---- cross-device errors: torch's texts ------------------------------------------------------
TI = (
    "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
)


def wrapper(arg: str, method: str, other: str = "cpu", common: str = "cuda:0") -> str:
    return (
        f"Expected all tensors to be on the same device, but got {arg} is on {other}, "
        f"different from other tensors on {common} (when checking argument in method "
        f"{method})"
    )


@pytest.mark.parametrize(
    ("program", "message"),
    [
        ("torch.ones(2, device='cuda') + torch.ones(2)", TI),
        ("torch.ones(2) + torch.ones(2, device='cuda')", TI),
        ("torch.ones(2, device='cuda').mul_(torch.ones(2))", TI),
        ("torch.ones(2).add_(torch.ones(2, device='cuda'))", TI),
        ("torch.where(torch.ones(2) > 0, torch.ones(2, device='cuda'), 0.)", TI),
        ("torch.ones(2, device='cuda') < torch.ones(2)", TI),
        ("torch.tensor(1., device='cuda') + torch.ones(2)", TI),
        (
            "torch.mm(torch.ones(2, 2, device='cuda'), torch.ones(2, 2))",
            wrapper("mat2", "wrapper_CUDA_mm"),
        ),
        (
            "torch.mm(torch.ones(2, 2, device='cuda'), torch.ones(2, 2), out=torch.empty(2, 2))",
            wrapper("self", "wrapper_CUDA_mm_out", "cuda:0", "cpu"),
        ),
        (
            "torch.ones(2, 3) @ torch.ones(3, 2, device='cuda')",
            wrapper("mat2", "wrapper_CUDA_mm", "cuda:0", "cpu"),
        ),
        (
            "torch.cat([torch.ones(2, device='cuda'), torch.ones(2)])",
            wrapper("tensors", "wrapper_CUDA_cat"),
        ),
        (
            "torch.ones(3, device='cuda').masked_fill(torch.ones(3) > 0, 2.)",
            "expected self and mask to be on the same device, "
            "but got mask on cpu and self on cuda:0",
        ),
        (
            "torch.zeros(2, device='cuda:1')",
            "CUDA error: invalid device ordinal\nCUDA kernel errors might be "
            "asynchronously reported at some other API call, so the stacktrace below might "
            "be incorrect.\nFor debugging "
            "consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable "
            "device-side assertions.\n",
        ),
    ],
)
def test_cross_device_errors_are_torchs(program: str, message: str) -> None:
    gc.collect()
    before = torch.cuda.memory_allocated(), torch.memory_allocated("cpu")
    assert error_of(lambda: eval(program)) == ("RuntimeError", message)
    gc.collect()
    assert (torch.cuda.memory_allocated(), torch.memory_allocated("cpu")) == before


@pytest.mark.parametrize(
    "program",
    [
        "torch.ones(2, device='cuda') + torch.tensor(3.)",  # a CPU scalar on a CUDA kernel
        "torch.ones(2, device='cuda') * 2",
        "torch.ones(3, device='cuda')[torch.tensor([0, 2])]",  # CPU indices index a CUDA tensor
        "torch.ones(3, device='cuda')"
        ".masked_fill(torch.ones(3, device='cuda') > 0, torch.tensor(2.))",
    ],
)
def test_what_torch_allows_across_devices(program: str) -> None:
    assert eval(program).is_cuda


def test_setitem_on_cuda_with_cpu_indices_and_masks() -> None:
    x = torch.zeros(4, device="cuda")
    x[torch.tensor([0, 2])] = 5.0
    x[torch.tensor([False, True, False, False])] = 7.0
    x[3] = torch.tensor(1.0)
    assert x.cpu().tolist() == [5.0, 7.0, 5.0, 1.0]


# ---- torch.cuda ---------------------------------------------------------------------------------
def test_runtime_api() -> None:
    assert torch.cuda.is_available() and torch.cuda.is_initialized()
    assert torch.cuda.device_count() == 1 and torch.cuda.current_device() == 0
    assert "emulated" in torch.cuda.get_device_name() == torch.cuda.get_device_name(0)
    props = torch.cuda.get_device_properties(0)
    assert props.total_memory == torch.cuda.mem_get_info()[1] > 0
    assert torch.cuda.get_device_capability() == (props.major, props.minor)
    torch.cuda.synchronize()
    with torch.cuda.device(0):
        assert torch.cuda.current_device() == 0
    torch.cuda.set_device("cuda:0")
    assert error_of(lambda: torch.cuda.set_device(1))[0] == "RuntimeError"
    assert torch.cuda.memory_allocated is torch.cuda.memory.memory_allocated


def test_streams_and_record_stream() -> None:
    default = torch.cuda.current_stream()
    assert default == torch.cuda.default_stream() and default.stream_id == 0
    s = torch.cuda.Stream()
    assert s != default and s.device == torch.device("cuda:0") and s.query()
    gc.collect()
    start = torch.cuda.memory_allocated()
    with torch.cuda.stream(s):
        assert torch.cuda.current_stream() == s
        t = torch.ones(64, device="cuda")
    assert torch.cuda.current_stream() == default
    t.record_stream(default)  # used on the default stream too: no reuse until that work is done
    del t
    torch.ones(1, device="cuda")  # the next malloc processes the (completed) events
    gc.collect()
    assert torch.cuda.memory_allocated() == start
    s.synchronize()
    assert error_of(lambda: torch.ones(2).record_stream(s)) == (
        "NotImplementedError",
        "Could not run 'aten::record_stream' with arguments from the 'CPU' backend.",
    )
    e = s.record_event()
    assert e.query()


def test_cuda_generators() -> None:
    """Note [The emulated CUDA generator]: mt19937 seeded as the CPU's, not Philox."""
    torch.manual_seed(7)  # seeds the CPU and every CUDA generator, as torch.manual_seed does
    a = torch.rand(5, device="cuda")
    torch.manual_seed(7)
    b = torch.rand(5)
    np.testing.assert_array_equal(a.cpu().numpy(), b.numpy())
    torch.cuda.manual_seed(3)
    assert torch.cuda.initial_seed() == 3
    c = torch.rand(5, device="cuda")
    torch.cuda.manual_seed_all(3)
    np.testing.assert_array_equal(torch.rand(5, device="cuda").cpu().numpy(), c.cpu().numpy())
    g = torch.Generator(device="cuda").manual_seed(3)
    assert g.device == torch.device("cuda:0")
    np.testing.assert_array_equal(
        torch.rand(5, generator=g, device="cuda").cpu().numpy(), c.cpu().numpy()
    )


def _python(code: str, devices: str) -> str:
    env = {**os.environ, "TENSORTRACE_CUDA_DEVICES": devices, "PYTHONPATH": SRC}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_two_devices_from_the_environment() -> None:
    out = _python(
        "import tensortrace as torch\n"
        "print(torch.cuda.device_count())\n"
        "a = torch.ones(3, device='cuda:1'); print(a.device, a.get_device())\n"
        "print(torch.cuda.memory_allocated(1), torch.cuda.memory_allocated(0))\n"
        "b = torch.ones(3, device='cuda')\n"
        "try: a + b\n"
        "except RuntimeError as e: print(e)\n"
        "print((a.to('cuda:0') + b).device, a.cuda().device, a.cuda(1).device)\n"
        "with torch.cuda.device(1): print(torch.zeros(1, device='cuda').device)\n"
        "torch.cuda.set_device(1); print(torch.ones(2).cuda().device)\n",
        "2",
    )
    assert out.splitlines() == [
        "2",
        "cuda:1 1",
        "512 0",
        "Expected all tensors to be on the same device, but found at least two devices, "
        "cuda:1 and cuda:0!",
        "cuda:0 cuda:0 cuda:1",
        "cuda:1",
        "cuda:1",
    ]


def test_no_devices() -> None:
    out = _python(
        "import tensortrace as torch\nprint(torch.cuda.is_available())\n"
        "try: torch.zeros(1, device='cuda')\n"
        "except RuntimeError as e: print(e)\n",
        "0",
    )
    assert out.splitlines() == ["False", "No CUDA GPUs are available"]


# ---- the trace of the seed expression on cuda ------------------------------------------------
def test_seed_on_cuda_traces_the_cuda_path() -> None:
    torch.ones(1, device="cuda")  # the device's first segment exists already
    gc.collect()  # no garbage of earlier tests is freed inside the trace
    with record() as t:
        r = torch.rand(3, 4, device="cuda")[0] + torch.rand(3, 4, device="cuda")
    sites = {e.name: t.sites[e.site] for e in t.events if e.ph == "B"}
    for name, source in [
        ("at::native::empty_cuda", "aten/src/ATen/native/cuda/TensorFactories.cu"),
        ("at::detail::empty_cuda", "aten/src/ATen/cuda/EmptyTensor.cpp"),
        ("at::native::uniform_kernel", "aten/src/ATen/native/cuda/DistributionUniform.cu"),
        (
            "at::native::distribution_nullary_kernel",
            "aten/src/ATen/native/cuda/DistributionTemplates.cuh",
        ),
        ("at::(anonymous)::wrapper_CUDA_add_Tensor", "build/aten/src/ATen/RegisterCUDA.cpp"),
        ("at::native::structured_ufunc_add_CUDA::impl", "build/aten/src/ATen/UfuncCUDA_add.cu"),
        ("at::native::add_kernel_cuda", "aten/src/ATen/native/cuda/BinaryAddSubKernel.cu"),
        ("at::native::gpu_kernel", "aten/src/ATen/native/cuda/Loops.cuh"),
    ]:
        assert sites[name].source == source, name
    for cpu_only in (
        "at::native::empty_cpu",
        "at::native::add_kernel",
        "at::native::cpu_kernel_vec",
        "at::native::cpu_serial_kernel",
    ):
        assert cpu_only not in sites
    assert any(e.name == "redispatch empty.memory_format -> CUDA" for e in t.events)
    memory = t.memory_events()
    assert [(e.kind, e.args["bytes"], e.args["device_type"]) for e in memory] == [
        ("alloc", 512, 1)
    ] * 3 + [("free", 512, 1)] * 2  # 48 bytes, rounded up to 512
    assert len({e.args["segment"] for e in memory if e.kind == "alloc"}) == 1
    chrome = t.to_chrome_trace() if hasattr(t, "to_chrome_trace") else None
    if chrome is None:
        path = Path(os.environ.get("TMPDIR", "/tmp")) / f"cuda_seed_{os.getpid()}.json"
        t.export_chrome_trace(str(path))
        chrome = json.loads(path.read_text())
        path.unlink()
    events = chrome["traceEvents"] if isinstance(chrome, dict) else chrome
    instants = [e for e in events if e.get("name") == "[memory]"]
    assert instants and all(e["args"]["Device Type"] == 1 for e in instants)
    del r


def test_transfers_trace_copy_kernel_cuda_and_memcpy() -> None:
    x = torch.ones(3, 4)
    with record() as t:
        y = x.cuda()
        z = y.cpu()
        w = x.t().cuda()  # non-contiguous: through a contiguous temporary
    calls = [
        (e.name, e.args.get("args", {}).get("kind"))
        for e in t.events
        if e.ph == "B" and e.name in ("at::native::copy_kernel_cuda", "cudaMemcpyAsync")
    ]
    assert ("cudaMemcpyAsync", "cudaMemcpyHostToDevice") in calls
    assert ("cudaMemcpyAsync", "cudaMemcpyDeviceToHost") in calls
    assert calls[0] == ("at::native::copy_kernel_cuda", None)
    assert z.tolist() == x.tolist() and w.cpu().tolist() == x.t().tolist()


# ---- no leaks on the device ----------------------------------------------------------------------
STATEMENTS = [
    "r = x + y * 2",
    "r = x - 1.5",
    "r = 2 - i",
    "r = x / y",
    "r = i // 3",
    "r = x ** 2",
    "r = x.exp().log()",
    "r = x.sigmoid().tanh()",
    "r = x.relu()",
    "r = x.clamp(0.2, 0.8)",
    "r = torch.maximum(x, y)",
    "r = x == y",
    "r = torch.where(x > 0.5, x, y)",
    "r = x.masked_fill(x > 0.5, 0.0)",
    "x.mul_(2)",
    "x[0].sub_(1)",
    "r = x.t() * y[:, None]",
    "r = x.to(torch.float16) * 3",
    "r = x.sum(0)",
    "r = x.mean()",
    "r = x.max(1)",
    "r = x @ x.t()",
    "r = torch.cat([x, x])",
    "r = x[i > 4]",
    "r = x.cpu().cuda()",
    "r = x.t().contiguous()",
    "r = x.argmax()",
    "r = x.cumsum(1)",
    "r = x.std(0)",
    "r = torch.rand(1000, device='cuda')",
    "r = torch.zeros(300000, device='cuda')",
    # fail: shapes, dtypes, devices
    "r = x + torch.rand(5, device='cuda')",
    "r = i.add_(x)",
    "r = i // 0",
    "r = x + torch.ones(3, 4)",
    "r = x @ torch.ones(4, 2)",
    "r = torch.cat([x, x.cpu()])",
    "r = x.masked_fill(i, 1)",
    "r = x.numpy()",
    "r = torch.mm(x, x)",
]


@pytest.mark.parametrize("seed", range(8))
def test_random_cuda_programs_free_everything(seed: int) -> None:
    rng = random.Random(seed)
    program = rng.sample(STATEMENTS, k=8)
    gc.collect()
    start = torch.cuda.memory_allocated(), torch.memory_allocated("cpu")
    namespace: dict[str, Any] = {"torch": torch}
    exec(
        "x = torch.rand(3, 4, device='cuda'); y = torch.rand(4, device='cuda'); "
        "i = (torch.rand(3, 4, device='cuda') * 10).to(torch.int64)",
        namespace,
    )
    for statement in program:
        try:
            exec(statement, namespace)
        except (RuntimeError, TypeError, NotImplementedError, ValueError, IndexError):
            pass
    namespace.clear()
    gc.collect()
    assert (torch.cuda.memory_allocated(), torch.memory_allocated("cpu")) == start, program
    if start[0] == 0:
        torch.cuda.empty_cache()
        assert torch.cuda.memory_reserved() == 0


def test_module_to_cuda_moves_parameters_in_place_and_back() -> None:
    # the quickstart's `model = NeuralNetwork().to(device)`: each Parameter keeps its identity
    # (an optimizer built before still holds it) and takes the device (VariableHooks::set_data)
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
    params = list(model.parameters())
    optimizer = torch.optim.SGD(params, lr=0.1)
    assert model.to("cuda") is model
    assert [p is q for p, q in zip(params, model.parameters())] == [True] * 4
    assert {str(p.device) for p in params} == {"cuda:0"}
    assert all(p.is_cuda and p.is_leaf and p.requires_grad for p in params)
    before = params[0].detach().to("cpu")
    model(torch.ones(4, 3, device="cuda")).sum().backward()
    assert {str(p.grad.device) for p in params} == {"cuda:0"}
    optimizer.step()
    assert not torch.equal(params[0].detach().to("cpu"), before)
    model.to("cpu")
    assert {str(p.device) for p in params} | {str(p.grad.device) for p in params} == {"cpu"}
    model(torch.ones(1, 3)).sum().backward()  # the CPU kernels run, grads accumulate on CPU
    assert {str(p.grad.device) for p in params} == {"cpu"}


def test_setting_data_to_a_cuda_tensor_moves_the_tensor() -> None:
    x = torch.ones(2, 3)
    x.data = torch.full((4,), 2.0, device="cuda")
    assert (str(x.device), x.is_cuda, tuple(x.shape)) == ("cuda:0", True, (4,))
    assert computeDispatchKey(x.dtype, None, x.device) == DispatchKey.CUDA
    assert str((x * 2).device) == "cuda:0"  # dispatched to the CUDA kernel
    assert (x * 2).to("cpu").tolist() == [4.0] * 4


def test_module_to_device_and_dtype_keeps_integer_buffers_integer() -> None:
    model = torch.nn.Linear(2, 2)
    model.register_buffer("steps", torch.zeros((), dtype=torch.int64))
    model.to("cuda", torch.float64)
    assert (model.weight.dtype, str(model.weight.device)) == (torch.float64, "cuda:0")
    assert (model.steps.dtype, str(model.steps.device)) == (torch.int64, "cuda:0")


def test_module_cuda_and_cpu() -> None:
    model = torch.nn.Linear(2, 2)
    weight = model.weight
    assert model.cuda() is model and str(weight.device) == "cuda:0"
    assert model.cpu() is model and str(weight.device) == "cpu"
    assert model.weight is weight
