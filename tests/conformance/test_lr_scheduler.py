"""torch.optim.lr_scheduler against torch 2.13: the same program in both, and the lr of every
param group over 15 epochs must be equal as Python floats, bit for bit (the chainable schedules
round as a running product; Note [Chainable lr floats] in lr_scheduler.py). Also the initial_lr
key, state_dict and its round trip, the closed form of step(epoch), the warnings torch gives
(scheduler stepped before the optimizer, get_lr outside step, the deprecated epoch argument),
and the argument errors, type and message."""

from __future__ import annotations

import pytest

from .harness import check

# two param groups with different lrs, so that each group's schedule is checked
OPT = (
    "m = torch.nn.Linear(2, 1)\n"
    "opt = torch.optim.SGD([{'params': [m.weight]}, {'params': [m.bias], 'lr': 0.05}], lr=0.1, "
    "momentum=0.9)\n"
)
# the order a training loop uses: optimizer.step() then scheduler.step()
LOOP = (
    "out = [sched.get_last_lr()]\n"
    "for epoch in range(15):\n"
    "    opt.step()\n"
    "    sched.step()\n"
    "    out.append(sched.get_last_lr())\n"
    "out.append([g['lr'] for g in opt.param_groups])\n"
)

SCHEDULES = {
    "step": "torch.optim.lr_scheduler.StepLR(opt, step_size=4, gamma=0.5)",
    "step_default_gamma": "torch.optim.lr_scheduler.StepLR(opt, 3)",
    "multistep": "torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[3, 7, 7, 12], gamma=0.3)",
    "exponential": "torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)",
    "lambda": "torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lambda e: 0.95 ** e)",
    "lambda_per_group": "torch.optim.lr_scheduler.LambdaLR(opt, [lambda e: 1 / (e + 1), "
    "lambda e: e // 3])",
    "multiplicative": "torch.optim.lr_scheduler.MultiplicativeLR(opt, lambda e: 0.9)",
    "cosine": "torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)",
    # 15 epochs pass the minimum at T_max = 6 and climb again (the special case at T_max + 1)
    "cosine_restart": "torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6, eta_min=0.001)",
    "linear": "torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=6)",
    "linear_decay": "torch.optim.lr_scheduler.LinearLR(opt, start_factor=1.0, end_factor=0.1, "
    "total_iters=10)",
    "constant": "torch.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=4)",
    "polynomial": "torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=8, power=2.0)",
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_lr_sequence(name: str) -> None:
    check(OPT + f"sched = {SCHEDULES[name]}\n" + LOOP)


def test_two_schedulers_chain() -> None:
    # the second keeps the first's initial_lr (setdefault) and multiplies the lr it finds
    check(
        OPT + "s1 = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=3)\n"
        "s2 = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)\n"
        "out = []\n"
        "for epoch in range(10):\n"
        "    opt.step(); s1.step(); s2.step()\n"
        "    out.append((s1.get_last_lr(), s2.get_last_lr()))\n"
        "out.append([g['initial_lr'] for g in opt.param_groups])\n"
    )


PLATEAU_METRICS = (
    "[1.0, 0.9, 0.95, 0.95, 0.95, 0.8, 0.8, 0.8, 0.8, 0.8, 0.7999, 0.79, 0.9, 1.0, 1.1]"
)
PLATEAUS = {
    "plateau_min_rel": "torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=2, factor=0.5)",
    "plateau_cooldown_min_lr": "torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, "
    "factor=0.3, cooldown=2, min_lr=[0.01, 0.004])",
    "plateau_max_abs": "torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode='max', patience=0, "
    "threshold=0.05, threshold_mode='abs')",
    "plateau_eps": "torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5, "
    "eps=0.02)",
}


@pytest.mark.parametrize("name", sorted(PLATEAUS))
def test_reduce_lr_on_plateau(name: str) -> None:
    check(
        OPT + f"sched = {PLATEAUS[name]}\n"
        "out = [sched.get_last_lr()]\n"
        f"for metric in {PLATEAU_METRICS}:\n"
        "    opt.step()\n"
        "    sched.step(metric)\n"
        "    out.append((sched.get_last_lr(), sched.num_bad_epochs, sched.cooldown_counter, "
        "sched.best, sched.last_epoch))\n"
        "out.append(sched.state_dict())\n"
    )


STATE = {
    # the scheduler's whole __dict__ but the optimizer, keys in torch's order
    "step_state_dict": "sched = torch.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)\n"
    "for _ in range(3):\n    opt.step(); sched.step()\n"
    "out = (sched.state_dict(), opt.state_dict()['param_groups'])",
    "multistep_state_dict": "sched = torch.optim.lr_scheduler.MultiStepLR(opt, [2, 2, 5])\n"
    "opt.step(); sched.step(); out = sched.state_dict()",
    "cosine_state_dict": "sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, 5)\n"
    "out = sched.state_dict()",
    # functions are not saved (None); a callable object's __dict__ is, and loads back
    "lambda_state_dict": "class Decay:\n"
    "    def __init__(self, rate):\n        self.rate = rate\n"
    "    def __call__(self, e):\n        return self.rate ** e\n"
    "d = Decay(0.5)\n"
    "sched = torch.optim.lr_scheduler.LambdaLR(opt, [lambda e: 1.0, d])\n"
    "opt.step(); sched.step(); sd = sched.state_dict()\n"
    "d.rate = 0.1; sched.load_state_dict(sd)\n"
    "out = (sd, d.rate, sched.get_last_lr())",
    # resume: a fresh optimizer and scheduler loaded from state_dicts continue the same sequence
    "round_trip": "sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=7, eta_min=0.01)\n"
    "for _ in range(4):\n    opt.step(); sched.step()\n"
    "m2 = torch.nn.Linear(2, 1)\n"
    "opt2 = torch.optim.SGD([{'params': [m2.weight]}, {'params': [m2.bias], 'lr': 0.05}], lr=0.1, "
    "momentum=0.9)\n"
    "sched2 = torch.optim.lr_scheduler.CosineAnnealingLR(opt2, T_max=7, eta_min=0.01)\n"
    "before = sched2.get_last_lr()\n"
    "opt2.load_state_dict(opt.state_dict()); sched2.load_state_dict(sched.state_dict())\n"
    "out = [before]\n"
    "for _ in range(8):\n"
    "    opt.step(); sched.step(); opt2.step(); sched2.step()\n"
    "    out.append((sched.get_last_lr(), sched2.get_last_lr()))",
    "plateau_round_trip": "sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1)\n"
    "for v in (1.0, 2.0):\n    sched.step(v)\n"
    "sched2 = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode='max', patience=5)\n"
    "sched2.load_state_dict(sched.state_dict()); sched2.step(3.0)\n"
    "out = (sched2.get_last_lr(), sched2.mode_worse, sched2.state_dict())",
    # resuming with last_epoch: initial_lr must be in the groups, and is used as base_lrs
    "resume_last_epoch": "for g in opt.param_groups:\n    g['initial_lr'] = g['lr'] * 2\n"
    "sched = torch.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5, last_epoch=4)\n"
    "out = (sched.base_lrs, sched.get_last_lr(), sched.last_epoch)",
    "resume_cosine": "for g in opt.param_groups:\n    g['initial_lr'] = g['lr']\n"
    "sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, 8, last_epoch=2)\n"
    "out = [sched.get_last_lr()]\n"
    "for _ in range(4):\n    opt.step(); sched.step(); out.append(sched.get_last_lr())",
}


@pytest.mark.parametrize("name", sorted(STATE))
def test_state(name: str) -> None:
    check(OPT + STATE[name])


WARN = (
    "import warnings\n"
    "with warnings.catch_warnings(record=True) as ws:\n"
    "    warnings.simplefilter('always')\n"
    "    BODY\n"
    "out = (lrs, [(w.category.__name__, str(w.message)) for w in ws])\n"
)
WARNINGS = {
    # closed form: base_lr * gamma ** (epoch // step_size), with the deprecation warning
    "step_epoch_closed_form": "sched = torch.optim.lr_scheduler.StepLR(opt, 3, gamma=0.5); "
    "lrs = []\n    for e in (7, 2, 9):\n        opt.step(); sched.step(e); "
    "lrs.append(sched.get_last_lr())",
    "multistep_epoch_closed_form": "sched = torch.optim.lr_scheduler.MultiStepLR(opt, [2, 4, 4]); "
    "opt.step(); sched.step(5); lrs = sched.get_last_lr()",
    "exponential_epoch_closed_form": "sched = torch.optim.lr_scheduler.ExponentialLR(opt, 0.7); "
    "opt.step(); sched.step(4); lrs = sched.get_last_lr()",
    "linear_epoch_closed_form": "sched = torch.optim.lr_scheduler.LinearLR(opt, 0.2, "
    "total_iters=5); opt.step(); sched.step(3); lrs = sched.get_last_lr()",
    "cosine_epoch_closed_form": "sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, 9, "
    "eta_min=0.001); opt.step(); sched.step(4); lrs = sched.get_last_lr()",
    "plateau_epoch": "sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt); "
    "sched.step(1.0, 5); lrs = (sched.last_epoch, sched.get_last_lr())",
    # scheduler.step() before optimizer.step(): torch warns once, at the second scheduler step
    "step_before_optimizer": "sched = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5); "
    "sched.step(); sched.step(); opt.step(); lrs = sched.get_last_lr()",
    "optimizer_step_overridden": "sched = torch.optim.lr_scheduler.StepLR(opt, 1); "
    "opt.step = lambda: None; sched.step(); lrs = sched.get_last_lr()",
    "right_order_no_warning": "sched = torch.optim.lr_scheduler.ExponentialLR(opt, 0.5); "
    "opt.step(); sched.step(); opt.step(); sched.step(); lrs = sched.get_last_lr()",
    "get_lr_outside_step": "sched = torch.optim.lr_scheduler.ExponentialLR(opt, 0.5); "
    "opt.step(); sched.step(); lrs = (sched.get_lr(), sched.get_last_lr())",
}


@pytest.mark.parametrize("name", sorted(WARNINGS))
def test_warnings(name: str) -> None:
    check(OPT + WARN.replace("BODY", WARNINGS[name]))


ERRORS = {
    "not_an_optimizer": "torch.optim.lr_scheduler.StepLR(m, 3)",
    "plateau_not_an_optimizer": "torch.optim.lr_scheduler.ReduceLROnPlateau([1])",
    "resume_without_initial_lr": "torch.optim.lr_scheduler.StepLR(opt, 3, last_epoch=2)",
    "lambda_count": "torch.optim.lr_scheduler.LambdaLR(opt, [lambda e: 1.0])",
    "multiplicative_not_callable": "torch.optim.lr_scheduler.MultiplicativeLR(opt, [0.9, 0.8])",
    "constant_factor": "torch.optim.lr_scheduler.ConstantLR(opt, factor=1.5)",
    "linear_start_factor": "torch.optim.lr_scheduler.LinearLR(opt, start_factor=0)",
    "linear_end_factor": "torch.optim.lr_scheduler.LinearLR(opt, end_factor=-0.1)",
    "plateau_factor": "torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=1.0)",
    "plateau_mode": "torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode='least')",
    "plateau_threshold_mode": "torch.optim.lr_scheduler.ReduceLROnPlateau(opt, "
    "threshold_mode='relative')",
    "plateau_min_lrs": "torch.optim.lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0.1])",
    "plateau_new_group": "sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, "
    "min_lr=[0.0, 0.0]); opt.add_param_group({'params': [torch.nn.Parameter(torch.ones(1))]})"
    "; sched.step(1.0); sched.step(2.0)",
    "base_get_lr": "torch.optim.lr_scheduler.LRScheduler(opt)",
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(name: str) -> None:
    check(OPT + ERRORS[name])
