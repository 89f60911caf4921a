"""Automatic mixed precision against torch 2.13: autocast, GradScaler and the recipe's loop.

Every program runs on the CPU and on the emulated CUDA device (conftest.py); torch here is a
CPU build, so the device-agnostic programs take their device type from a tensor
(`dev = x.device.type`): tensortrace then autocasts on CUDA where torch autocasts on the CPU,
with float16 given explicitly, and the ops they use have the same policy in both lists
(linear / mm / bmm / addmm / baddbmm / matmul in lower precision, the losses in float32,
relu untouched). The programs that check the CPU's own lists (softmax stays bfloat16, cat
promotes) make their tensors on the CPU and compare dtypes, not tensors. What only CUDA does
(softmax and sum in float32, binary_cross_entropy banned) is in tests/amp/test_autocast.py.
"""

from __future__ import annotations

import pytest

from .harness import check

MODEL = """
x = torch.randn(6, 8)
dev = x.device.type
model = torch.nn.Sequential(
    torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 16), torch.nn.ReLU(),
    torch.nn.Linear(16, 4),
).to(dev)
data = [(torch.randn(6, 8), torch.randn(6, 4)) for _ in range(5)]
"""

# The recipe (https://pytorch.org/tutorials/recipes/recipes/amp_recipe.html): autocast for the
# forward pass and the loss, GradScaler for backward, step and update. Step 2's loss is made
# inf: its step is skipped and the scale backs off; with growth_interval=2 it grows again.
RECIPE = (
    MODEL
    + """
opt = torch.optim.SGD(model.parameters(), lr=0.05)
scaler = torch.amp.GradScaler(dev, init_scale=2.0**16, growth_interval=2)
losses, scales, dtypes, returned = [], [], [], []
for i, (inp, target) in enumerate(data):
    opt.zero_grad()
    with torch.autocast(device_type=dev, dtype=torch.float16):
        output = model(inp)
        loss = torch.nn.functional.mse_loss(output, target)
    dtypes.append((output.dtype, loss.dtype))
    if i == 2:
        loss = loss * float("inf")
    scaler.scale(loss).backward()
    returned.append(scaler.step(opt))
    scaler.update()
    losses.append(round(loss.item(), 4))
    scales.append(scaler.get_scale())
out = (losses, scales, dtypes, returned, scaler.state_dict(),
       [p.detach() for p in model.parameters()], [p.grad.dtype for p in model.parameters()])
"""
)


def test_the_recipes_training_loop_with_autocast_and_grad_scaler() -> None:
    check(RECIPE, rtol=1e-3, atol=1e-4)  # float16 gradients: rounding order differs


def test_the_recipes_loop_in_bfloat16_without_a_scaler() -> None:
    check(
        MODEL
        + """
opt = torch.optim.SGD(model.parameters(), lr=0.05)
losses = []
for inp, target in data:
    opt.zero_grad()
    with torch.autocast(dev, dtype=torch.bfloat16):
        output = model(inp)
        loss = torch.nn.functional.mse_loss(output, target)
    loss.backward()
    opt.step()
    losses.append(round(loss.item(), 3))
out = (losses, output.dtype, loss.dtype, [p.detach() for p in model.parameters()])
""",
        rtol=2e-3,
        atol=1e-5,
    )


def test_autocast_on_the_cpu_defaults_to_bfloat16() -> None:
    check(
        """
x = torch.randn(4, 8, device='cpu'); w = torch.randn(3, 8, device='cpu', requires_grad=True)
with torch.autocast('cpu'):
    y = torch.nn.functional.linear(x, w)
    inside = (torch.is_autocast_enabled('cpu'), torch.get_autocast_dtype('cpu'))
    loss = torch.nn.functional.mse_loss(y, torch.zeros(4, 3, device='cpu'))
loss.backward()
out = (inside, torch.is_autocast_enabled('cpu'), y.dtype, loss.dtype, w.grad.dtype,
       y.float().tolist(), round(loss.item(), 4), y.grad_fn.name())
"""
    )


def test_the_cpu_op_lists() -> None:
    check(
        """
a = torch.randn(4, 4, device='cpu'); b = torch.randn(4, 4, device='cpu')
i = torch.randn(2, 3, 5, device='cpu'); k = torch.randn(4, 3, 3, device='cpu')
t = torch.tensor([0, 1, 2, 3], device='cpu')
with torch.autocast('cpu'):
    low = torch.mm(a, b)
    dtypes = [
        low, torch.matmul(a, b), torch.nn.functional.linear(a, b), torch.addmm(a, a, b),
        torch.bmm(a[None], b[None]), torch.baddbmm(a[None], a[None], b[None]),
        torch.nn.functional.conv1d(i, k), torch.relu(a), torch.relu(low),
        torch.softmax(low, 0), torch.log_softmax(low, 1), low.sum(), a.sum(),
        torch.nn.functional.layer_norm(low, (4,)),
        torch.nn.functional.mse_loss(low, b), torch.nn.functional.l1_loss(low, b),
        torch.nn.functional.nll_loss(low, t), torch.nn.functional.cross_entropy(low, t),
        torch.cat([low, a]), torch.stack([low, low]), torch.cat([low, a.double()]),
        torch.mm(a.double(), b.double()), torch.mm(t[:, None].float(), t[None].float()),
        low + a, torch.exp(low),
    ]
out = [d.dtype for d in dtypes]
"""
    )


def test_ops_in_lower_precision_and_in_float32_on_either_device() -> None:
    check(
        """
a = torch.randn(4, 4); b = torch.randn(4, 4); dev = a.device.type
t = torch.tensor([0, 1, 2, 3])
with torch.autocast(dev, dtype=torch.float16):
    low = torch.mm(a, b)
    results = [
        low, torch.matmul(a, b), torch.nn.functional.linear(a, b, b[0]),
        torch.addmm(a, a, b), torch.bmm(a[None], b[None]),
        torch.baddbmm(a[None], a[None], b[None]), torch.relu(low), torch.relu(a),
        torch.nn.functional.mse_loss(low, b), torch.nn.functional.l1_loss(low, b),
        torch.nn.functional.smooth_l1_loss(low, b), torch.nn.functional.nll_loss(low, t),
        torch.nn.functional.binary_cross_entropy_with_logits(low, torch.sigmoid(b)),
        torch.mm(a.double(), b.double()),
    ]
out = ([r.dtype for r in results], results)
""",
        rtol=2e-3,
        atol=1e-3,
    )


def test_nesting_a_disabled_region_and_the_decorator() -> None:
    check(
        """
a = torch.randn(3, 3); b = torch.randn(3, 3); dev = a.device.type
@torch.autocast(dev, dtype=torch.float16)
def f(x, y):
    return torch.mm(x, y), torch.is_autocast_enabled(dev)
with torch.autocast(dev, dtype=torch.float16):
    e = torch.mm(a, b)
    with torch.autocast(dev, enabled=False):
        f32 = torch.mm(a, e.float())
        off = torch.is_autocast_enabled(dev)
    g = torch.mm(a, f32)
    back_on = torch.is_autocast_enabled(dev)
decorated, on_inside = f(a, b)
out = (e.dtype, f32.dtype, g.dtype, off, back_on, torch.is_autocast_enabled(dev),
       decorated.dtype, on_inside, f32)
""",
        rtol=1e-3,
        atol=1e-3,
    )


def test_the_cast_cache_serves_each_leaf_weight_once_per_region() -> None:
    check(
        """
x = torch.randn(2, 4); dev = x.device.type
w = torch.randn(3, 4, requires_grad=True)
def casts(cache_enabled):
    with torch.autocast(dev, dtype=torch.float16, cache_enabled=cache_enabled):
        inner = torch.is_autocast_cache_enabled()
        y1 = torch.mm(x, w.t())
        y2 = torch.mm(x, w.t())
        z1 = torch.nn.functional.linear(x, w)
        z2 = torch.nn.functional.linear(x, w)
    def cast_node(y):
        return [n for n, _ in y.grad_fn.next_functions if n is not None][-1]
    return (inner, cast_node(z1) is cast_node(z2), cast_node(z1).name(),
            cast_node(y1) is cast_node(y2))
out = (casts(True), casts(False), torch.is_autocast_cache_enabled())
"""
    )


def test_backward_through_autocast_gives_float32_leaf_gradients() -> None:
    check(
        """
x = torch.randn(5, 4); dev = x.device.type
w = torch.randn(3, 4, requires_grad=True); b = torch.randn(3, requires_grad=True)
with torch.autocast(dev, dtype=torch.float16):
    y = torch.nn.functional.linear(x, w, b)
    loss = torch.nn.functional.mse_loss(torch.relu(y), torch.ones(5, 3))
loss.backward()
out = (w.grad, b.grad, y.grad_fn.name(), loss.grad_fn.name())
""",
        rtol=2e-3,
        atol=1e-4,
    )


def test_the_autocast_state_functions() -> None:
    check(
        """
state = []
state.append((torch.get_autocast_dtype('cpu'), torch.get_autocast_dtype('cuda'),
              torch.is_autocast_enabled('cpu'), torch.is_autocast_enabled('cuda'),
              torch.is_autocast_enabled(), torch.is_autocast_cache_enabled(),
              torch.amp.is_autocast_available('cpu'), torch.amp.is_autocast_available('cuda')))
try:
    torch.set_autocast_enabled('cpu', True)
    torch.set_autocast_dtype('cpu', torch.float16)
    torch.set_autocast_cache_enabled(False)
    state.append((torch.is_autocast_enabled('cpu'), torch.get_autocast_dtype('cpu'),
                  torch.is_autocast_cache_enabled(), torch.autocast_increment_nesting(),
                  torch.autocast_increment_nesting(), torch.autocast_decrement_nesting()))
finally:
    torch.autocast_decrement_nesting()
    torch.set_autocast_enabled('cpu', False)
    torch.set_autocast_dtype('cpu', torch.bfloat16)
    torch.set_autocast_cache_enabled(True)
    torch.clear_autocast_cache()
ctx = torch.autocast('cpu', dtype=torch.float16, cache_enabled=False)
state.append((ctx.fast_dtype, ctx.device, ctx._enabled, ctx._cache_enabled,
              torch.autocast('cpu').fast_dtype, torch.is_autocast_enabled('cpu')))
out = state
"""
    )


@pytest.mark.parametrize(
    "call",
    [
        "torch.autocast(1)",
        "torch.autocast('foo')",
        "torch.autocast('cpu')(3)",
        "torch.is_autocast_enabled(3)",
        "torch.is_autocast_enabled('foo')",
        "torch.get_autocast_dtype('bar')",
        "torch.amp.is_autocast_available('foo')",
        "torch.amp.custom_fwd(device_type=1)",
    ],
)
def test_bad_arguments(call: str) -> None:
    check(f"out = {call}")


def test_the_warnings_of_unsupported_dtypes_and_deprecated_spellings() -> None:
    check(
        """
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    unsupported = torch.autocast('cpu', dtype=torch.float32)
    old_cpu = torch.cpu.amp.autocast()
    old_cpu_scaler = torch.cpu.amp.GradScaler()
    old_cuda = torch.cuda.amp.autocast
    torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
    torch.cuda.amp.custom_bwd(lambda ctx, g: g)
with unsupported:
    y = torch.mm(torch.ones(2, 2, device='cpu'), torch.ones(2, 2, device='cpu'))
with old_cpu:
    z = torch.mm(torch.ones(2, 2, device='cpu'), torch.ones(2, 2, device='cpu'))
out = ([(w.category.__name__, str(w.message)) for w in caught], unsupported._enabled, y.dtype,
       old_cpu.device, old_cpu.fast_dtype, z.dtype, old_cpu_scaler.is_enabled(),
       isinstance(old_cpu, torch.amp.autocast), issubclass(old_cuda, torch.amp.autocast))
"""
    )


SCALER = """
x = torch.randn(4, 3); dev = x.device.type
model = torch.nn.Linear(3, 2).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler(dev, init_scale=1024.0, growth_factor=4.0, backoff_factor=0.25,
                              growth_interval=1)
"""


def test_grad_scaler_unscale_then_clip_then_step() -> None:
    check(
        SCALER
        + """
before = scaler.get_scale()
loss = model(x).pow(2).mean()
scaled = scaler.scale(loss)
scaled.backward()
scaled_grad = model.weight.grad.clone()
scaler.unscale_(opt)
norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
scaler.step(opt)
scaler.update()
out = (before, scaled, scaled_grad, model.weight.grad, norm, model.weight.detach(),
       scaler.get_scale(), scaler._get_growth_tracker(), scaler.state_dict())
""",
        rtol=1e-5,
        atol=1e-6,
    )


def test_grad_scaler_skips_the_step_on_nan_and_backs_off() -> None:
    check(
        SCALER
        + """
w0 = model.weight.detach().clone()
loss = model(x).sum() * float('nan')
scaler.scale(loss).backward()
ret = scaler.step(opt)
scaler.update()
out = (ret, torch.equal(w0, model.weight.detach()), scaler.get_scale(),
       scaler.state_dict()['_growth_tracker'])
"""
    )


def test_grad_scaler_scales_lists_and_keeps_its_state() -> None:
    check(
        SCALER
        + """
a, b = torch.ones(2), torch.full((3,), 2.0)
listed = scaler.scale([a, (b, a)])
state = scaler.state_dict()
other = torch.amp.GradScaler(dev)
other.load_state_dict(state)
other.set_growth_factor(3.0); other.set_backoff_factor(0.125); other.set_growth_interval(7)
scaler.update(new_scale=8.0)
out = (listed, type(listed[1]).__name__, state, other.get_scale(), other.get_growth_factor(),
       other.get_backoff_factor(), other.get_growth_interval(), other.is_enabled(),
       scaler.get_scale(), torch.amp.GradScaler(dev, enabled=False).state_dict(),
       torch.amp.GradScaler(dev, enabled=False).get_scale(),
       torch.amp.GradScaler(dev, init_scale=3.0).get_scale())
"""
    )


@pytest.mark.parametrize(
    "misuse",
    [
        "scaler.update()",
        "scaler.step(opt)",
        "scaler.unscale_(opt)",
        "scaler.scale(model(x).sum()).backward(); scaler.unscale_(opt); scaler.unscale_(opt)",
        "scaler.scale(model(x).sum()).backward(); scaler.step(opt); scaler.step(opt)",
        "scaler.scale(model(x).sum()).backward(); scaler.step(opt); scaler.unscale_(opt)",
        "scaler.scale(model(x).sum()).backward(); scaler.step(opt, closure=None)",
        "scaler.scale(3)",
        "scaler.load_state_dict({})",
        "torch.amp.GradScaler(dev, growth_factor=1.0)",
        "torch.amp.GradScaler(dev, backoff_factor=1.0)",
        "model.to(torch.float16); scaler.scale(model(x.half()).float().sum()).backward(); "
        "scaler.step(opt)",
        "scaler.scale(model(x).sum()); scaler.update(new_scale=torch.ones(2))",
    ],
)
def test_grad_scaler_misuse(misuse: str) -> None:
    check(SCALER + misuse)


def test_the_amp_aten_ops() -> None:
    check(
        """
g1 = torch.tensor([1.0, 2.0, 4.0]); g2 = torch.tensor([[8.0], [16.0]])
found = torch.zeros(()); inv = torch.full((), 0.25)
torch._amp_foreach_non_finite_check_and_unscale_([g1, g2], found, inv)
clean = found.item()
h = torch.tensor([1.0, float('inf')], dtype=torch.float16)
torch._amp_foreach_non_finite_check_and_unscale_([h], found, inv)
scale = torch.full((), 2.0 ** 127); tracker = torch.zeros((), dtype=torch.int32)
mixed = [torch.ones(2), torch.ones(2).double(), torch.ones(2).bfloat16()]
torch._amp_foreach_non_finite_check_and_unscale_(mixed, torch.zeros(()), inv)
steps = []
for inf in (0.0, 0.0, 1.0, 0.0, 0.0):
    r = torch._amp_update_scale_(scale, tracker, torch.full((), inf), 2.0, 0.5, 2)
    steps.append((scale.item(), tracker.item(), r is scale))
out = (g1, g2, clean, found, h, mixed, steps)
"""
    )


@pytest.mark.parametrize(
    "bad",
    [
        "torch._amp_foreach_non_finite_check_and_unscale_([g], torch.zeros(()).double(), inv)",
        "torch._amp_foreach_non_finite_check_and_unscale_([g], torch.zeros(2), inv)",
        "torch._amp_foreach_non_finite_check_and_unscale_([g], found, inv.long())",
        "torch._amp_foreach_non_finite_check_and_unscale_([g, g.int()], found, inv)",
        "torch._amp_foreach_non_finite_check_and_unscale_([g.bool()], found, inv)",
        "torch._amp_update_scale_(inv, torch.zeros(()), found, 2.0, 0.5, 2)",
        "torch._amp_update_scale_(inv.double(), torch.zeros((), dtype=torch.int32), found, "
        "2.0, 0.5, 2)",
        "torch._amp_update_scale_(inv, torch.zeros(2, dtype=torch.int32), found, 2.0, 0.5, 2)",
    ],
)
def test_the_amp_aten_ops_reject_bad_arguments(bad: str) -> None:
    check(
        "g = torch.ones(3); found = torch.zeros(()); inv = torch.ones(())\n"
        "torch._amp_foreach_non_finite_check_and_unscale_([], found, inv)\n" + bad
    )


def test_custom_fwd_casts_inputs_and_runs_without_autocast() -> None:
    check(
        """
a = torch.randn(3, 3, requires_grad=True); b = torch.randn(3, 3); dev = a.device.type
class MyMM(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type=dev, cast_inputs=torch.float32)
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return torch.mm(x, y), torch.is_autocast_enabled(dev)
    @staticmethod
    @torch.amp.custom_bwd(device_type=dev)
    def backward(ctx, grad, _):
        x, y = ctx.saved_tensors
        return grad.mm(y.t()), grad.t().mm(x)
with torch.autocast(dev, dtype=torch.float16):
    half = torch.mm(a, b)
    y, enabled_inside = MyMM.apply(half, b)
y.sum().backward()
out = (half.dtype, y.dtype, enabled_inside, a.grad.dtype)
"""
    )
