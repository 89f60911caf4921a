"""torch.optim's other algorithms against torch 2.13: Adadelta, Adamax, NAdam (with
momentum_decay and decoupled_weight_decay), RAdam (with decoupled_weight_decay), ASGD, Rprop,
Adafactor (factored and vector second moments) and LBFGS (fixed step and strong-Wolfe line
search).

Two programs per optimizer and option set, each run by the harness in both libraries:
- "exact": the parameters of an nn.Linear after each of 6 steps, then the state_dict and repr,
  must be equal bit for bit. The gradients are set from fixed data by single elementwise ops
  (the gradient of a quadratic), so what is compared is the optimizer's own arithmetic: its
  in-place ops in torch's order, and its Python-float hyperparameters.
- "training": the same Linear trained on fixed data with an MSE loss through autograd; the
  matmuls round differently from torch's BLAS in the last bit, so values agree to float32
  rounding (rtol 1e-5), as in test_nn_training.py.
Then the argument errors, type and message.
"""

from __future__ import annotations

import pytest

from .harness import check

# the gradient of |W - X|^2 / 2 * c and of the bias's quadratic: elementwise ops only
EXACT = """
m = torch.nn.Linear(3, 2)
x = torch.randn(2, 3); t = torch.randn(2)
opt = OPT
out = []
for i in range(6):
    opt.zero_grad()
    m.weight.grad = (m.weight.detach() - x) * 0.5
    m.bias.grad = m.bias.detach() * t - t
    opt.step()
    out.append([p.detach().clone() for p in m.parameters()])
out.append(opt.state_dict())
out.append(repr(opt))
"""

TRAINING = """
m = torch.nn.Linear(3, 2)
x = torch.randn(8, 3); y = torch.randn(8, 2)
opt = OPT
out = []
for i in range(8):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(m(x), y)
    loss.backward()
    opt.step()
    out.append([loss.detach(), [p.detach().clone() for p in m.parameters()]])
out.append(opt.state_dict())
"""

# Note [Optimizer floats]: torch's vectorized CPU kernels for add(alpha=) and addcmul (which
# may fuse the multiply and add) and for sqrt (not correctly rounded for about 1 element in
# 200 on an AVX-512 CPU, where tensortrace's NumPy sqrt is) round some elements differently
# from tensortrace's, so even the optimizer's own arithmetic agrees to float32 rounding, not
# bit for bit
STEP_RTOL, STEP_ATOL = 1e-6, 1e-8

OPTIMIZERS = {
    "adadelta": "torch.optim.Adadelta(m.parameters())",
    "adadelta_options": "torch.optim.Adadelta(m.parameters(), lr=0.5, rho=0.8, eps=1e-5, "
    "weight_decay=0.1, maximize=True)",
    "adamax": "torch.optim.Adamax(m.parameters(), lr=0.05)",
    "adamax_options": "torch.optim.Adamax(m.parameters(), lr=0.05, betas=(0.8, 0.9), "
    "weight_decay=0.1, maximize=True)",
    "nadam": "torch.optim.NAdam(m.parameters(), lr=0.05)",
    "nadam_momentum_decay_wd": "torch.optim.NAdam(m.parameters(), lr=0.05, weight_decay=0.1, "
    "momentum_decay=0.01)",
    "nadam_decoupled": "torch.optim.NAdam(m.parameters(), lr=0.05, weight_decay=0.1, "
    "decoupled_weight_decay=True)",
    # betas[1] = 0.999 keeps rho_t <= 5 for the first steps (the un-rectified update);
    # betas[1] = 0.9 crosses to the rectified one at step 6
    "radam": "torch.optim.RAdam(m.parameters(), lr=0.05)",
    "radam_rectified_wd": "torch.optim.RAdam(m.parameters(), lr=0.05, betas=(0.9, 0.5), "
    "weight_decay=0.1)",
    "radam_decoupled": "torch.optim.RAdam(m.parameters(), lr=0.05, betas=(0.8, 0.6), "
    "weight_decay=0.1, decoupled_weight_decay=True, maximize=True)",
    "asgd": "torch.optim.ASGD(m.parameters(), lr=0.05)",
    # t0=2: the average starts after the second step
    "asgd_averaging": "torch.optim.ASGD(m.parameters(), lr=0.05, lambd=0.01, alpha=0.5, t0=2, "
    "weight_decay=0.01)",
    "rprop": "torch.optim.Rprop(m.parameters())",
    "rprop_options": "torch.optim.Rprop(m.parameters(), lr=0.05, etas=(0.3, 1.5), "
    "step_sizes=(1e-3, 0.1), maximize=True)",
    "adafactor": "torch.optim.Adafactor(m.parameters())",
    "adafactor_options": "torch.optim.Adafactor(m.parameters(), lr=0.05, beta2_decay=-0.5, "
    "eps=(1e-20, 1e-2), d=1.5, weight_decay=0.1, maximize=True)",
    # d = 1 clips the update to RMS 1
    "adafactor_clipped": "torch.optim.Adafactor(m.parameters(), lr=0.5, eps=(None, 0.5))",
    "two_groups": "torch.optim.NAdam([{'params': [m.weight]}, {'params': [m.bias], "
    "'lr': 0.1, 'betas': (0.5, 0.9)}], lr=0.01)",
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_steps(name: str) -> None:
    check(EXACT.replace("OPT", OPTIMIZERS[name]), rtol=STEP_RTOL, atol=STEP_ATOL)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_training(name: str) -> None:
    check(TRAINING.replace("OPT", OPTIMIZERS[name]), rtol=1e-5, atol=1e-6)


LBFGS = """
m = torch.nn.Linear(3, 2)
x = torch.randn(8, 3); y = torch.randn(8, 2)
opt = torch.optim.LBFGS(m.parameters(), OPTS)
def closure():
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(m(x), y)
    loss.backward()
    return loss
out = []
for i in range(2):
    loss = opt.step(closure)
    out.append([loss.detach(), [p.detach().clone() for p in m.parameters()]])
st = opt.state_dict()['state'][0]
out.append(sorted(st))
out.append([st['func_evals'], st['n_iter'], len(st['old_dirs']), st['d'], st['prev_flat_grad']])
out.append(opt.state_dict()['param_groups'])
out.append(repr(opt))
"""

# Note [L-BFGS near convergence]: close to the optimum an L-BFGS step divides differences of
# nearly equal gradients (y = g_k - g_{k-1}, H_diag = y.s / y.y), so the last-bit differences of
# the matmuls grow; the programs stop after a few iterations, before that regime
LBFGS_OPTIONS = {
    "lbfgs": "max_iter=4",
    "lbfgs_short_history": "lr=0.5, max_iter=5, history_size=2",
    "lbfgs_strong_wolfe": "max_iter=4, line_search_fn='strong_wolfe'",
    "lbfgs_strong_wolfe_short_history": "lr=0.8, max_iter=5, history_size=3, "
    "line_search_fn='strong_wolfe'",
    # the first gradient is already below tolerance_grad: step() returns at once
    "lbfgs_converged": "tolerance_grad=1e3",
}


@pytest.mark.parametrize("name", sorted(LBFGS_OPTIONS))
def test_lbfgs(name: str) -> None:
    check(LBFGS.replace("OPTS", LBFGS_OPTIONS[name]), rtol=1e-4, atol=1e-5)


# a deep copy stands for a saved checkpoint: the second optimizer, loaded from it, continues
# exactly where the first one is (state tensors and param_groups)
RESUME = """
import copy
m = torch.nn.Linear(3, 2); m2 = torch.nn.Linear(3, 2)
x = torch.randn(2, 3); t = torch.randn(2)
def grads(mod):
    mod.weight.grad = (mod.weight.detach() - x) * 0.5
    mod.bias.grad = mod.bias.detach() * t - t
opt = OPT
for i in range(3):
    grads(m); opt.step()
m2.load_state_dict(m.state_dict())
opt2 = OPT2
opt2.load_state_dict(copy.deepcopy(opt.state_dict()))
grads(m); opt.step(); grads(m2); opt2.step()
out = [m.weight.detach(), m2.weight.detach(), opt2.state_dict()]
"""

RESUMES = {
    "adadelta": "torch.optim.Adadelta(M.parameters(), lr=0.5)",
    "adamax": "torch.optim.Adamax(M.parameters())",
    "nadam": "torch.optim.NAdam(M.parameters(), decoupled_weight_decay=True, weight_decay=0.1)",
    "radam": "torch.optim.RAdam(M.parameters(), betas=(0.9, 0.5))",
    "asgd": "torch.optim.ASGD(M.parameters(), t0=1)",
    "rprop": "torch.optim.Rprop(M.parameters())",
    "adafactor": "torch.optim.Adafactor(M.parameters(), weight_decay=0.1)",
}


@pytest.mark.parametrize("name", sorted(RESUMES))
def test_load_state_dict_resumes(name: str) -> None:
    program = RESUME.replace("OPT2", RESUMES[name].replace("M.", "m2.")).replace(
        "OPT", RESUMES[name].replace("M.", "m.")
    )
    check(program, rtol=STEP_RTOL, atol=STEP_ATOL)


ERRORS = {
    "adadelta_lr": "torch.optim.Adadelta(torch.nn.Linear(2, 2).parameters(), lr=-1)",
    "adadelta_rho": "torch.optim.Adadelta(torch.nn.Linear(2, 2).parameters(), rho=1.5)",
    "adadelta_eps": "torch.optim.Adadelta(torch.nn.Linear(2, 2).parameters(), eps=-1e-6)",
    "adadelta_weight_decay": "torch.optim.Adadelta(torch.nn.Linear(2, 2).parameters(), "
    "weight_decay=-0.1)",
    "adadelta_tensor_lr": "torch.optim.Adadelta(torch.nn.Linear(2, 2).parameters(), "
    "lr=torch.tensor([0.1, 0.2]))",
    "adamax_lr": "torch.optim.Adamax(torch.nn.Linear(2, 2).parameters(), lr=-0.002)",
    "adamax_eps": "torch.optim.Adamax(torch.nn.Linear(2, 2).parameters(), eps=-1.0)",
    "adamax_beta1": "torch.optim.Adamax(torch.nn.Linear(2, 2).parameters(), betas=(1.0, 0.9))",
    "adamax_beta2": "torch.optim.Adamax(torch.nn.Linear(2, 2).parameters(), betas=(0.9, -0.1))",
    "adamax_weight_decay": "torch.optim.Adamax(torch.nn.Linear(2, 2).parameters(), "
    "weight_decay=-1)",
    "nadam_lr": "torch.optim.NAdam(torch.nn.Linear(2, 2).parameters(), lr=-1)",
    "nadam_eps": "torch.optim.NAdam(torch.nn.Linear(2, 2).parameters(), eps=-1)",
    "nadam_beta1": "torch.optim.NAdam(torch.nn.Linear(2, 2).parameters(), betas=(-0.1, 0.9))",
    "nadam_beta2": "torch.optim.NAdam(torch.nn.Linear(2, 2).parameters(), betas=(0.9, 1.0))",
    "nadam_weight_decay": "torch.optim.NAdam(torch.nn.Linear(2, 2).parameters(), weight_decay=-1)",
    "nadam_momentum_decay": "torch.optim.NAdam(torch.nn.Linear(2, 2).parameters(), "
    "momentum_decay=-0.004)",
    "radam_lr": "torch.optim.RAdam(torch.nn.Linear(2, 2).parameters(), lr=-1)",
    "radam_eps": "torch.optim.RAdam(torch.nn.Linear(2, 2).parameters(), eps=-1)",
    "radam_beta1": "torch.optim.RAdam(torch.nn.Linear(2, 2).parameters(), betas=(1.5, 0.9))",
    "radam_beta2": "torch.optim.RAdam(torch.nn.Linear(2, 2).parameters(), betas=(0.9, 1.5))",
    "radam_weight_decay": "torch.optim.RAdam(torch.nn.Linear(2, 2).parameters(), weight_decay=-1)",
    "asgd_lr": "torch.optim.ASGD(torch.nn.Linear(2, 2).parameters(), lr=-1)",
    "asgd_weight_decay": "torch.optim.ASGD(torch.nn.Linear(2, 2).parameters(), weight_decay=-1)",
    "rprop_lr": "torch.optim.Rprop(torch.nn.Linear(2, 2).parameters(), lr=-1)",
    "rprop_etas": "torch.optim.Rprop(torch.nn.Linear(2, 2).parameters(), etas=(1.2, 0.5))",
    "rprop_etas_zero": "torch.optim.Rprop(torch.nn.Linear(2, 2).parameters(), etas=(0.0, 1.2))",
    "lbfgs_lr": "torch.optim.LBFGS(torch.nn.Linear(2, 2).parameters(), lr=-1)",
    "lbfgs_groups": "m = torch.nn.Linear(2, 2)\n"
    "torch.optim.LBFGS([{'params': [m.weight]}, {'params': [m.bias], 'lr': 0.1}])",
    "lbfgs_line_search": "m = torch.nn.Linear(2, 2); "
    "o = torch.optim.LBFGS(m.parameters(), line_search_fn='wolfe')\n"
    "o.step(lambda: m(torch.ones(1, 2)).sum().backward() or m(torch.ones(1, 2)).sum())",
    "lbfgs_no_closure": "torch.optim.LBFGS(torch.nn.Linear(2, 2).parameters()).step()",
    "adafactor_lr": "torch.optim.Adafactor(torch.nn.Linear(2, 2).parameters(), lr=-1)",
    "adafactor_beta2_decay": "torch.optim.Adafactor(torch.nn.Linear(2, 2).parameters(), "
    "beta2_decay=0.5)",
    "adafactor_eps1": "torch.optim.Adafactor(torch.nn.Linear(2, 2).parameters(), "
    "eps=(-1e-30, 1e-3))",
    "adafactor_eps2": "torch.optim.Adafactor(torch.nn.Linear(2, 2).parameters(), eps=(None, -1))",
    "adafactor_d": "torch.optim.Adafactor(torch.nn.Linear(2, 2).parameters(), d=0.5)",
    "adafactor_weight_decay": "torch.optim.Adafactor(torch.nn.Linear(2, 2).parameters(), "
    "weight_decay=-1)",
    "adafactor_complex": "p = torch.nn.Parameter(torch.ones(2, dtype=torch.complex64))\n"
    "o = torch.optim.Adafactor([p]); p.grad = torch.ones(2, dtype=torch.complex64); o.step()",
    "empty_params": "torch.optim.NAdam([])",
    "tensor_params": "torch.optim.Rprop(torch.ones(2))",
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(name: str) -> None:
    check(ERRORS[name])


DEFAULTS = """
m = torch.nn.Linear(2, 1)
out = []
for make in (torch.optim.Adadelta, torch.optim.Adamax, torch.optim.NAdam, torch.optim.RAdam,
             torch.optim.ASGD, torch.optim.Rprop, torch.optim.LBFGS, torch.optim.Adafactor):
    o = make(m.parameters())
    out.append((repr(o), o.defaults, o.state_dict()))
"""


def test_defaults_and_repr() -> None:
    check(DEFAULTS)
