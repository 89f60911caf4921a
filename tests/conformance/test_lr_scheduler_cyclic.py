"""The rest of torch.optim.lr_scheduler against torch 2.13: CyclicLR, OneCycleLR and
CosineAnnealingWarmRestarts (with the momentum or beta1 they cycle), and the schedulers of
schedulers, SequentialLR and ChainedScheduler. As in test_lr_scheduler.py, the lr of each param
group at every step must be equal as Python floats, bit for bit; also the param-group keys the
schedulers write, state_dict and its round trip, and the argument errors, type and message."""

from __future__ import annotations

import pytest

from .harness import check

# two param groups with different lrs, so that each group's schedule is checked
OPT = (
    "m = torch.nn.Linear(2, 1)\n"
    "opt = torch.optim.SGD([{'params': [m.weight]}, {'params': [m.bias], 'lr': 0.05}], lr=0.1, "
    "momentum=0.9)\n"
)
ADAM = (
    "m = torch.nn.Linear(2, 1)\n"
    "opt = torch.optim.Adam([{'params': [m.weight]}, {'params': [m.bias], 'lr': 0.05}], lr=0.1)\n"
)
# optimizer.step() then scheduler.step(); the momentum (or betas) each group has is recorded
LOOP = (
    "def groups():\n"
    "    return [(g['lr'], g.get('momentum'), g.get('betas')) for g in opt.param_groups]\n"
    "out = [sched.get_last_lr(), groups()]\n"
    "for epoch in range(STEPS):\n"
    "    opt.step()\n"
    "    sched.step()\n"
    "    out.append((sched.get_last_lr(), groups()))\n"
    "out.append(sched.state_dict())\n"
    "out.append([sorted(g) for g in opt.param_groups])\n"
)

SCHEDULES = {
    "cyclic": (OPT, 20, "torch.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=4)"),
    "cyclic_asymmetric_lists": (
        OPT,
        20,
        "torch.optim.lr_scheduler.CyclicLR(opt, [0.01, 0.02], [0.1, 0.3], step_size_up=3, "
        "step_size_down=5, base_momentum=[0.7, 0.8], max_momentum=0.95)",
    ),
    "cyclic_triangular2": (
        OPT,
        25,
        "torch.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=2, mode='triangular2')",
    ),
    "cyclic_exp_range": (
        OPT,
        20,
        "torch.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=3, mode='exp_range', "
        "gamma=0.9)",
    ),
    "cyclic_scale_fn_iterations": (
        OPT,
        15,
        "torch.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=2, "
        "scale_fn=lambda x: 1 / (x + 1), scale_mode='iterations', cycle_momentum=False)",
    ),
    # Adam: beta1 cycles, beta2 is kept
    "cyclic_adam_beta1": (
        ADAM,
        12,
        "torch.optim.lr_scheduler.CyclicLR(opt, 0.001, 0.01, step_size_up=3)",
    ),
    "one_cycle": (OPT, 20, "torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=20)"),
    "one_cycle_linear_three_phase": (
        OPT,
        24,
        "torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=[0.5, 1.0], epochs=4, "
        "steps_per_epoch=6, pct_start=0.25, anneal_strategy='linear', three_phase=True, "
        "div_factor=10.0, final_div_factor=100.0)",
    ),
    "one_cycle_adam": (
        ADAM,
        10,
        "torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.01, total_steps=10, "
        "base_momentum=0.8, max_momentum=0.9)",
    ),
    "one_cycle_no_momentum": (
        OPT,
        9,
        "torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.2, total_steps=10, "
        "cycle_momentum=False)",
    ),
    "warm_restarts": (
        OPT,
        20,
        "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=5)",
    ),
    "warm_restarts_mult": (
        OPT,
        30,
        "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001)",
    ),
    "sequential": (
        OPT,
        15,
        "torch.optim.lr_scheduler.SequentialLR(opt, [torch.optim.lr_scheduler.ConstantLR(opt, "
        "factor=0.1, total_iters=4), torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)], "
        "milestones=[4])",
    ),
    "sequential_three": (
        OPT,
        20,
        "torch.optim.lr_scheduler.SequentialLR(opt, [torch.optim.lr_scheduler.LinearLR(opt, "
        "0.2, total_iters=3), torch.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5), "
        "torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6)], milestones=[3, 9])",
    ),
    "chained": (
        OPT,
        15,
        "torch.optim.lr_scheduler.ChainedScheduler([torch.optim.lr_scheduler.ConstantLR(opt, "
        "factor=0.5, total_iters=5), torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)])",
    ),
    "chained_with_optimizer": (
        OPT,
        12,
        "torch.optim.lr_scheduler.ChainedScheduler([torch.optim.lr_scheduler.LinearLR(opt, "
        "0.5, total_iters=4), torch.optim.lr_scheduler.MultiStepLR(opt, [3, 6], gamma=0.5)], "
        "optimizer=opt)",
    ),
    # a SequentialLR inside a ChainedScheduler, with a ChainedScheduler inside it
    "nested": (
        OPT,
        14,
        "torch.optim.lr_scheduler.ChainedScheduler([torch.optim.lr_scheduler.SequentialLR(opt, "
        "[torch.optim.lr_scheduler.ConstantLR(opt, 0.5, total_iters=2), "
        "torch.optim.lr_scheduler.ChainedScheduler([torch.optim.lr_scheduler.StepLR(opt, 3), "
        "torch.optim.lr_scheduler.ExponentialLR(opt, 0.95)])], milestones=[2]), "
        "torch.optim.lr_scheduler.ExponentialLR(opt, 0.99)])",
    ),
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_lr_sequence(name: str) -> None:
    setup, steps, sched = SCHEDULES[name]
    check(setup + f"sched = {sched}\n" + LOOP.replace("STEPS", str(steps)))


STATE = {
    # a fractional epoch per batch, and a jump: step(epoch) recomputes T_cur and T_i
    "warm_restarts_epochs": "sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, "
    "T_0=2, T_mult=3, eta_min=0.01)\nout = []\n"
    "for e in (0.5, 1.0, 1.5, 2.25, 7.0, 9.5, 26, 3):\n"
    "    opt.step(); sched.step(e); out.append((sched.get_last_lr(), sched.T_cur, sched.T_i, "
    "sched.last_epoch))\n"
    "sched.step(); out.append((sched.get_last_lr(), sched.T_cur))",
    "warm_restarts_mult1_epochs": "sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts("
    "opt, 4)\nout = []\nfor e in (5, 9.5, 13):\n"
    "    opt.step(); sched.step(e); out.append((sched.get_last_lr(), sched.T_cur))",
    # the custom scale_fn: a callable object's __dict__ is saved, a function is not
    "cyclic_state_dict": "class Scale:\n    def __init__(self, k):\n        self.k = k\n"
    "    def __call__(self, x):\n        return self.k / x\n"
    "f = Scale(0.5)\n"
    "sched = torch.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=2, scale_fn=f)\n"
    "for _ in range(3):\n    opt.step(); sched.step()\n"
    "sd = sched.state_dict(); f.k = 3.0; sched.load_state_dict(sd)\n"
    "s2 = torch.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, mode='exp_range', gamma=0.5)\n"
    "s2sd = s2.state_dict(); s2.load_state_dict(s2sd)\n"
    "out = (sd, f.k, s2sd, s2.scale_fn(2))",
    "one_cycle_state_dict": "sched = torch.optim.lr_scheduler.OneCycleLR(opt, 0.3, "
    "total_steps=8)\nopt.step(); sched.step()\n"
    "out = (sched.state_dict(), opt.state_dict()['param_groups'])",
    "one_cycle_too_many_steps": "sched = torch.optim.lr_scheduler.OneCycleLR(opt, 0.3, "
    "total_steps=3)\nfor _ in range(4):\n    opt.step(); sched.step()",
    # the wrapped schedulers' states are saved, and loaded back into them
    "sequential_round_trip": "mk = lambda o: torch.optim.lr_scheduler.SequentialLR(o, "
    "[torch.optim.lr_scheduler.LinearLR(o, 0.5, total_iters=2), "
    "torch.optim.lr_scheduler.ExponentialLR(o, 0.8)], [2])\n"
    "sched = mk(opt)\nfor _ in range(4):\n    opt.step(); sched.step()\n"
    "m2 = torch.nn.Linear(2, 1)\n"
    "opt2 = torch.optim.SGD([{'params': [m2.weight]}, {'params': [m2.bias], 'lr': 0.05}], "
    "lr=0.1, momentum=0.9)\nsched2 = mk(opt2)\n"
    "opt2.load_state_dict(opt.state_dict()); sd = sched.state_dict(); "
    "sched2.load_state_dict(sd)\nout = [sd]\n"
    "for _ in range(4):\n    opt.step(); sched.step(); opt2.step(); sched2.step()\n"
    "    out.append((sched.get_last_lr(), sched2.get_last_lr()))",
    "chained_state_dict": "sched = torch.optim.lr_scheduler.ChainedScheduler(["
    "torch.optim.lr_scheduler.StepLR(opt, 2), torch.optim.lr_scheduler.ExponentialLR(opt, "
    "0.9)])\nopt.step(); sched.step(); sd = sched.state_dict(); sched.load_state_dict(sd)\n"
    "out = (sd, sched.get_last_lr())",
}


@pytest.mark.parametrize("name", sorted(STATE))
def test_state(name: str) -> None:
    check(OPT + STATE[name])


ERRORS = {
    "cyclic_not_an_optimizer": "torch.optim.lr_scheduler.CyclicLR(m, 0.1, 1.0)",
    "cyclic_mode": "torch.optim.lr_scheduler.CyclicLR(opt, 0.1, 1.0, mode='square')",
    "cyclic_base_lr_count": "torch.optim.lr_scheduler.CyclicLR(opt, [0.1], 1.0)",
    "cyclic_max_lr_count": "torch.optim.lr_scheduler.CyclicLR(opt, 0.1, (1.0, 2.0, 3.0))",
    "cyclic_no_momentum": "o = torch.optim.Adagrad(m.parameters())\n"
    "torch.optim.lr_scheduler.CyclicLR(o, 0.1, 1.0)",
    "one_cycle_no_steps": "torch.optim.lr_scheduler.OneCycleLR(opt, 0.1)",
    "one_cycle_total_steps": "torch.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=0)",
    "one_cycle_epochs": "torch.optim.lr_scheduler.OneCycleLR(opt, 0.1, epochs=-1, "
    "steps_per_epoch=3)",
    "one_cycle_steps_per_epoch": "torch.optim.lr_scheduler.OneCycleLR(opt, 0.1, epochs=2, "
    "steps_per_epoch=1.5)",
    "one_cycle_pct_start": "torch.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=5, "
    "pct_start=1)",
    "one_cycle_anneal": "torch.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=5, "
    "anneal_strategy='cosine')",
    "one_cycle_max_lr_count": "torch.optim.lr_scheduler.OneCycleLR(opt, [0.1], total_steps=5)",
    "one_cycle_not_an_optimizer": "torch.optim.lr_scheduler.OneCycleLR(None, 0.1, 5)",
    "warm_restarts_t0": "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=0)",
    "warm_restarts_t0_float": "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 2.0)",
    "warm_restarts_t_mult": "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 2, "
    "T_mult=0)",
    "warm_restarts_eta_min": "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 2, "
    "eta_min='0')",
    "warm_restarts_negative_epoch": "s = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts("
    "opt, 2); s.step(-1)",
    "sequential_empty": "torch.optim.lr_scheduler.SequentialLR(opt, [], [])",
    "sequential_milestones": "torch.optim.lr_scheduler.SequentialLR(opt, "
    "[torch.optim.lr_scheduler.StepLR(opt, 2)], [3])",
    "sequential_not_a_scheduler": "torch.optim.lr_scheduler.SequentialLR(opt, [1, 2], [3])",
    "sequential_plateau": "torch.optim.lr_scheduler.SequentialLR(opt, "
    "[torch.optim.lr_scheduler.ReduceLROnPlateau(opt), torch.optim.lr_scheduler.StepLR(opt, "
    "2)], [3])",
    "sequential_other_optimizer": "o2 = torch.optim.SGD(m.parameters(), lr=0.1)\n"
    "torch.optim.lr_scheduler.SequentialLR(opt, [torch.optim.lr_scheduler.StepLR(opt, 2), "
    "torch.optim.lr_scheduler.StepLR(o2, 2)], [3])",
    "chained_empty": "torch.optim.lr_scheduler.ChainedScheduler([])",
    "chained_plateau": "torch.optim.lr_scheduler.ChainedScheduler("
    "[torch.optim.lr_scheduler.ReduceLROnPlateau(opt)])",
    "chained_not_a_scheduler": "torch.optim.lr_scheduler.ChainedScheduler([0.5], opt)",
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(name: str) -> None:
    check(OPT + ERRORS[name])
