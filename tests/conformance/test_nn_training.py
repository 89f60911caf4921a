"""A two-layer MLP trained 20 steps after manual_seed(0), in tensortrace and in torch 2.13: the loss
at every step and the final weights agree to float32 rounding, for SGD (plain, momentum with
weight decay, Nesterov), Adam (plain, AMSGrad with weight decay), AdamW, RMSprop (plain;
centered with momentum and weight decay) and Adagrad (plain; lr_decay, weight decay and an
initial accumulator), with a cross-entropy and an MSE objective. The initial weights are
bit-equal (nn.init draws from the same generator)."""

from __future__ import annotations

import numpy as np
import pytest

import tensortrace

from .harness import torch

PROGRAM = """
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, OUT))
init = [p.detach().clone() for p in model.parameters()]
x = torch.randn(32, 4)
y = TARGET
loss_fn = LOSS
opt = OPT
losses = []
for step in range(20):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
weights = [p.detach().clone() for p in model.parameters()]
"""

CLASSIFY = {
    "OUT": "3",
    "TARGET": "torch.randint(0, 3, (32,))",
    "LOSS": "torch.nn.CrossEntropyLoss()",
}
REGRESS = {"OUT": "1", "TARGET": "x.sum(1, keepdim=True).sin()", "LOSS": "torch.nn.MSELoss()"}
OPTIMIZERS = {
    "sgd": "torch.optim.SGD(model.parameters(), lr=0.1)",
    "sgd_momentum_wd": "torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, "
    "weight_decay=1e-3)",
    "sgd_nesterov": "torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)",
    "adam": "torch.optim.Adam(model.parameters(), lr=0.01)",
    "adam_amsgrad_wd": "torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=0.01, "
    "amsgrad=True)",
    "adamw": "torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1)",
    "rmsprop": "torch.optim.RMSprop(model.parameters(), lr=0.01)",
    "rmsprop_centered_momentum_wd": "torch.optim.RMSprop(model.parameters(), lr=0.005, "
    "alpha=0.9, momentum=0.9, centered=True, weight_decay=1e-3)",
    "adagrad": "torch.optim.Adagrad(model.parameters(), lr=0.1)",
    "adagrad_decay_wd": "torch.optim.Adagrad(model.parameters(), lr=0.1, lr_decay=0.01, "
    "weight_decay=1e-3, initial_accumulator_value=0.1)",
}


def _run(module: object, task: dict[str, str], opt: str) -> dict[str, object]:
    source = PROGRAM.replace("OPT", opt)
    for key, value in task.items():
        source = source.replace(key, value)
    namespace: dict[str, object] = {"torch": module}
    exec(source, namespace)  # noqa: S102 - the program under test
    return namespace


def _numpy(t: object) -> np.ndarray:
    return np.asarray(t.numpy())  # type: ignore[attr-defined]


# each optimizer once, both objectives covered (a run is 20 full steps: keep the file fast)
CASES = [
    ("classify", "sgd"),
    ("regress", "sgd_momentum_wd"),
    ("classify", "sgd_nesterov"),
    ("classify", "adam"),
    ("regress", "adam_amsgrad_wd"),
    ("regress", "adamw"),
    ("classify", "rmsprop"),
    ("regress", "rmsprop_centered_momentum_wd"),
    ("classify", "adagrad"),
    ("regress", "adagrad_decay_wd"),
]


@pytest.mark.parametrize(("task", "opt"), CASES)
def test_mlp_training_matches_torch(task: str, opt: str) -> None:
    spec = CLASSIFY if task == "classify" else REGRESS
    ours = _run(tensortrace, spec, OPTIMIZERS[opt])
    theirs = _run(torch, spec, OPTIMIZERS[opt])
    for a, b in zip(ours["init"], theirs["init"]):  # type: ignore[call-overload]
        np.testing.assert_array_equal(_numpy(a), _numpy(b))
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=1e-5, atol=1e-6)
    assert theirs["losses"][-1] < theirs["losses"][0]  # type: ignore[index]  # it learns
    for a, b in zip(ours["weights"], theirs["weights"]):  # type: ignore[call-overload]
        np.testing.assert_allclose(_numpy(a), _numpy(b), rtol=1e-5, atol=1e-6)


# a tutorial's loop with a scheduler: the lr each step uses comes from the schedule
SCHEDULED = [
    ("classify", "sgd_momentum_wd", "torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)"),
    ("regress", "adamw", "torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=20)"),
    ("classify", "rmsprop", "torch.optim.lr_scheduler.LinearLR(opt, 0.1, total_iters=8)"),
]


@pytest.mark.parametrize(("task", "opt", "sched"), SCHEDULED)
def test_mlp_training_with_scheduler_matches_torch(task: str, opt: str, sched: str) -> None:
    spec = CLASSIFY if task == "classify" else REGRESS
    program_opt = f"{OPTIMIZERS[opt]}\nsched = {sched}"
    runs = []
    for module in (tensortrace, torch):
        source = PROGRAM.replace("OPT", program_opt).replace(
            "    opt.step()\n", "    opt.step()\n    sched.step()\n"
        )
        for key, value in spec.items():
            source = source.replace(key, value)
        namespace: dict[str, object] = {"torch": module}
        exec(source, namespace)  # noqa: S102 - the program under test
        runs.append(namespace)
    ours, theirs = runs
    ours_group, theirs_group = ours["opt"].param_groups[0], theirs["opt"].param_groups[0]  # type: ignore[attr-defined]
    assert theirs_group["lr"] != theirs_group["initial_lr"]  # the schedule moved the lr
    assert ours_group["lr"] == theirs_group["lr"]
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=1e-5, atol=1e-6)
    for a, b in zip(ours["weights"], theirs["weights"]):  # type: ignore[call-overload]
        np.testing.assert_allclose(_numpy(a), _numpy(b), rtol=1e-5, atol=1e-6)
