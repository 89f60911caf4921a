"""Tutorial-shaped programs for the everyday APIs of issue 15, part A, compared with torch 2.13.

Each program is written the way tutorials and textbooks write PyTorch (several statements, prints,
Python loops and f-strings mixed with tensor work) and is run in both libraries by
program_harness.check_program: stdout, errors and every final variable must agree. Floats compare
exactly on stdout; final float variables allow rtol 1e-5 (norms, svd and det reduce in a
different order than torch's kernels). bench/bench_tutorial_programs.py times the same programs.
"""

# ruff: noqa: E501 - the programs are tutorial code, with tutorial-length lines

from __future__ import annotations

import pytest

from .program_harness import check_program

PROGRAMS: dict[str, str] = {}


def P(name: str, src: str) -> None:  # a short name for many programs
    assert name not in PROGRAMS, name
    PROGRAMS[name] = src.strip("\n")


# ---- transposes and shapes -----------------------------------------------------------------
P(
    "transpose_basics",
    """
x = torch.arange(6).reshape(2, 3)
print(x)
print(x.T)
print("shape:", x.T.shape, "stride:", x.T.stride())
print(x.T.is_contiguous())
y = x.T.contiguous()
print(y.stride())
""",
)
P(
    "matrix_transpose_product",
    """
A = torch.tensor([[1., 2.], [3., 4.], [5., 6.]])
gram = A.T @ A
print("A^T A =")
print(gram)
print("symmetric:", torch.equal(gram, gram.T) if hasattr(torch, "equal") else bool((gram == gram.T).all()))
""",
)
P(
    "batch_mT",
    """
batch = torch.arange(24.).reshape(2, 3, 4)
print(batch.mT.shape)
print(batch.mT[1])
out = batch @ batch.mT
print(out)
""",
)
P(
    "T_on_3d",
    """
x = torch.rand(2, 3, 4)
y = x.T
print(y.shape, y.stride())
print(x.permute(2, 1, 0).shape == y.shape)
""",
)
P(
    "H_and_mH",
    """
m = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
print(m.H)
print(m.mH.shape, m.adjoint().shape)
try:
    torch.ones(3).H
except RuntimeError as e:
    print("error:", e)
""",
)
P(
    "T_of_vector",
    """
v = torch.tensor([1., 2., 3.])
print(v.T)
print(v.T.shape)
s = torch.tensor(5.)
print(s.T, s.mT)
""",
)
P(
    "outer_via_T",
    """
u = torch.arange(1., 4.).reshape(3, 1)
outer = u @ u.T
print(outer)
print("trace:", outer.diagonal().sum().item())
""",
)

# ---- tensor attributes -----------------------------------------------------------------------
P(
    "tensor_attributes",
    """
t = torch.zeros(4, 5, 6)
print("numel:", t.numel(), torch.numel(t), t.nelement())
print("dims:", t.dim(), t.ndim, t.ndimension())
print("element size:", t.element_size(), "bytes")
print("total bytes:", t.numel() * t.element_size())
print("type:", t.type())
""",
)
P(
    "element_sizes_table",
    """
for dt in [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64, torch.bool]:
    x = torch.zeros(3, dtype=dt)
    print(f"{str(dt):16s} {x.element_size()} {x.type()}")
""",
)
P(
    "type_conversions",
    """
x = torch.tensor([1.7, -2.3, 3.9])
i = x.type(torch.int32)
print(i, i.dtype)
d = x.type("torch.DoubleTensor")
print(d)
print(x.type(torch.float32) is x)
l = x.long()
print(l.type())
""",
)
P(
    "type_errors",
    """
x = torch.rand(2)
try:
    x.type("torch.int64")
except ValueError as e:
    print("ValueError:", e)
try:
    x.type(64)
except TypeError as e:
    print("TypeError:", e)
""",
)
P(
    "new_factories",
    """
x = torch.tensor([[1, 2], [3, 4]], dtype=torch.int32)
print(x.new_zeros(2, 3))
print(x.new_ones((3,)))
print(x.new_full((2, 2), 7))
print(x.new_empty(5).shape, x.new_empty(5).dtype)
print(x.new_tensor([9, 8, 7]))
print(x.new_zeros(2, dtype=torch.float64))
""",
)
P(
    "new_tensor_keeps_dtype",
    """
base = torch.ones(2, dtype=torch.float64)
data = [[0.5, 1.5], [2.5, 3.5]]
t = base.new_tensor(data)
print(t, t.dtype)
u = torch.tensor(data)
print(u.dtype, (t.float() == u).all().item())
""",
)
P(
    "new_like_in_function",
    """
def make_mask(x):
    mask = x.new_zeros(x.shape, dtype=torch.bool)
    mask[x > 0] = True
    return mask

x = torch.tensor([[-1., 2.], [3., -4.]])
print(make_mask(x))
""",
)

# ---- random: normal, bernoulli, multinomial ---------------------------------------------
P(
    "normal_overloads",
    """
torch.manual_seed(42)
a = torch.normal(mean=0.0, std=1.0, size=(2, 3))
print(a)
b = torch.normal(mean=torch.arange(1., 6.), std=torch.arange(1, 0, -0.2))
print(b)
c = torch.normal(mean=0.5, std=torch.arange(1., 6.))
print(c)
d = torch.normal(mean=torch.arange(1., 6.))
print(d)
""",
)
P(
    "normal_docs_example",
    """
torch.manual_seed(0)
print(torch.normal(2, 3, size=(1, 4)))
print(torch.normal(mean=torch.arange(1., 11.), std=torch.arange(1, 0, -0.1)))
""",
)
P(
    "normal_stats_large",
    """
torch.manual_seed(1)
samples = torch.normal(3.0, 2.0, size=(10000,))
print(f"mean={samples.mean().item():.2f} std={samples.std().item():.2f}")
print(samples[:5])
""",
)
P(
    "normal_noise_data",
    """
torch.manual_seed(3)
x = torch.linspace(0, 1, 20)
y = 2 * x + 1 + torch.normal(0.0, 0.1, size=x.shape)
print(y)
w = ((x - x.mean()) * (y - y.mean())).sum() / ((x - x.mean()) ** 2).sum()
b = y.mean() - w * x.mean()
print(f"w={w.item():.3f} b={b.item():.3f}")
""",
)
P(
    "normal_with_generator",
    """
g = torch.Generator().manual_seed(123)
a = torch.normal(torch.zeros(3), torch.ones(3), generator=g)
g.manual_seed(123)
b = torch.normal(torch.zeros(3), torch.ones(3), generator=g)
print(a)
print(torch.equal(a, b) if hasattr(torch, "equal") else bool((a == b).all()))
""",
)
P(
    "normal_out_param",
    """
buf = torch.empty(2, 4)
torch.normal(torch.zeros(2, 4), torch.full((2, 4), 0.5), out=buf)
print(buf)
""",
)
P(
    "normal_errors",
    """
try:
    torch.normal(torch.zeros(3), -1.0)
except RuntimeError as e:
    print(e)
try:
    torch.normal(0.0, torch.tensor([1.0, -1.0]))
except RuntimeError as e:
    print(e)
try:
    torch.normal(torch.zeros(2), torch.ones(3))
except RuntimeError as e:
    print(e)
""",
)
P(
    "randn_like_family",
    """
torch.manual_seed(5)
template = torch.zeros(2, 3, dtype=torch.float64)
print(torch.randn_like(template))
print(torch.rand_like(template))
print(torch.randint_like(template, 10))
print(torch.randint_like(template, 5, 10).dtype)
""",
)
P(
    "bernoulli_coin_flips",
    """
torch.manual_seed(0)
p = torch.full((10,), 0.5)
flips = torch.bernoulli(p)
print(flips)
print("heads:", int(flips.sum().item()))
""",
)
P(
    "bernoulli_matrix",
    """
torch.manual_seed(7)
a = torch.empty(3, 3).uniform_(0, 1)
print(a)
print(torch.bernoulli(a))
ones = torch.ones(3, 3)
print(torch.bernoulli(ones))
zeros = torch.zeros(3, 3)
print(torch.bernoulli(zeros))
""",
)
P(
    "dropout_by_hand",
    """
torch.manual_seed(11)
x = torch.arange(1., 13.).reshape(3, 4)
keep = 0.75
mask = torch.empty_like(x).bernoulli_(keep)
y = x * mask / keep
print(mask)
print(y)
""",
)
P(
    "bernoulli_inplace_variants",
    """
torch.manual_seed(2)
t = torch.zeros(8)
t.bernoulli_(0.3)
print(t)
t.bernoulli_(torch.linspace(0, 1, 8))
print(t)
print(torch.zeros(4).bernoulli(0.9))
""",
)
P(
    "bernoulli_errors",
    """
try:
    torch.zeros(3).bernoulli_(1.5)
except RuntimeError as e:
    print(e)
try:
    torch.bernoulli(torch.ones(2, dtype=torch.int64))
except (RuntimeError, NotImplementedError) as e:
    print(type(e).__name__, e)
""",
)
P(
    "multinomial_docs",
    """
torch.manual_seed(0)
weights = torch.tensor([0, 10, 3, 0], dtype=torch.float)
print(torch.multinomial(weights, 2))
print(torch.multinomial(weights, 4, replacement=True))
""",
)
P(
    "multinomial_sampling_text",
    """
torch.manual_seed(4)
vocab = ["the", "cat", "sat", "on", "mat"]
probs = torch.tensor([0.4, 0.2, 0.2, 0.1, 0.1])
idx = torch.multinomial(probs, 8, replacement=True)
print(idx)
print(" ".join(vocab[i] for i in idx.tolist()))
""",
)
P(
    "multinomial_batch",
    """
torch.manual_seed(9)
probs = torch.rand(3, 5)
one = torch.multinomial(probs, 1)
three = torch.multinomial(probs, 3)
print(one.shape, one.squeeze(1))
print(three)
""",
)
P(
    "multinomial_errors",
    """
for args in [(torch.ones(3), 4), (torch.tensor([-1., 2.]), 1), (torch.zeros(3), 1)]:
    try:
        torch.multinomial(*args)
    except RuntimeError as e:
        print(e)
""",
)
P(
    "exponential_wait_times",
    """
torch.manual_seed(6)
waits = torch.empty(12).exponential_(2.0)
print(waits)
print(f"mean wait {waits.mean().item():.4f}")
""",
)

# ---- norms -----------------------------------------------------------------------------------
P(
    "norm_basics",
    """
a = torch.arange(9, dtype=torch.float) - 4
b = a.reshape((3, 3))
print(torch.norm(a))
print(torch.norm(b))
print(torch.norm(a, float('inf')))
print(torch.norm(b, float('inf')))
""",
)
P(
    "norm_dims",
    """
c = torch.tensor([[1, 2, 3], [-1, 1, 4]], dtype=torch.float)
print(torch.norm(c, dim=0))
print(torch.norm(c, dim=1))
print(torch.norm(c, p=1, dim=1))
d = torch.arange(8, dtype=torch.float).reshape(2, 2, 2)
print(torch.norm(d, dim=(1, 2)))
print(torch.norm(d[0, :, :]), torch.norm(d[1, :, :]))
""",
)
P(
    "normalize_rows",
    """
x = torch.tensor([[3., 4.], [6., 8.], [1., 0.]])
norms = x.norm(dim=1, keepdim=True)
unit = x / norms
print(norms)
print(unit)
print(unit.norm(dim=1))
""",
)
P(
    "cosine_similarity_by_hand",
    """
a = torch.tensor([1., 2., 3.])
b = torch.tensor([4., 5., 6.])
cos = (a @ b) / (a.norm() * b.norm())
print(f"cosine similarity: {cos.item():.4f}")
""",
)
P(
    "linalg_vector_norm",
    """
from torch import linalg as LA
a = torch.arange(9, dtype=torch.float) - 4
B = a.reshape((3, 3))
print(LA.vector_norm(a, ord=3.5))
print(LA.vector_norm(B, ord=3.5))
print(LA.vector_norm(B, ord=0), LA.vector_norm(B, ord=1))
""",
)
P(
    "linalg_matrix_norm",
    """
from torch import linalg as LA
A = torch.arange(9, dtype=torch.float).reshape(3, 3)
print(LA.matrix_norm(A))
print(LA.matrix_norm(A, ord=-1))
B = A.expand(2, -1, -1)
print(LA.matrix_norm(B))
print(LA.matrix_norm(B, dim=(0, 2)))
print(LA.matrix_norm(A, ord=float('inf')))
""",
)
P(
    "linalg_norm_docs",
    """
from torch import linalg as LA
a = torch.arange(9, dtype=torch.float) - 4
B = a.reshape((3, 3))
print(LA.norm(a))
print(LA.norm(B))
print(LA.norm(B, 'fro'))
print(LA.norm(a, float('inf')))
print(LA.norm(B, float('inf')))
print(LA.norm(a, -float('inf')))
print(LA.norm(B, -float('inf')))
print(LA.norm(a, 1))
print(LA.norm(B, 1))
print(LA.norm(a, -1))
print(LA.norm(B, -1))
print(LA.norm(a, 2))
print(LA.norm(a, 3))
print(LA.norm(a, -3))
""",
)
P(
    "spectral_and_nuclear",
    """
A = torch.tensor([[3., 0.], [4., 5.]])
print(f"{torch.linalg.matrix_norm(A, 2).item():.4f}")
print(f"{torch.linalg.matrix_norm(A, 'nuc').item():.4f}")
print(torch.linalg.svdvals(A))
print(torch.norm(A, p='nuc'))
""",
)
P(
    "norm_errors",
    """
x = torch.ones(3, 3)
for ord in [3, 'bad']:
    try:
        torch.linalg.matrix_norm(x, ord)
    except RuntimeError as e:
        print(e)
try:
    torch.linalg.vector_norm(torch.arange(3))
except RuntimeError as e:
    print(e)
""",
)
P(
    "gradient_clipping_by_norm",
    """
torch.manual_seed(8)
grads = [torch.randn(3, 3), torch.randn(3)]
total = torch.norm(torch.stack([g.norm() for g in grads]))
max_norm = 1.0
coef = max_norm / (total + 1e-6)
if coef < 1:
    grads = [g * coef for g in grads]
print(f"total norm {total.item():.4f}")
print(torch.norm(torch.stack([g.norm() for g in grads])))
""",
)
P(
    "det_examples",
    """
A = torch.tensor([[2., 1.], [1., 3.]])
print(torch.det(A))
print(torch.linalg.det(A))
batch = torch.stack([torch.eye(2) * k for k in range(1, 4)])
print(torch.linalg.det(batch))
print(f"{A.det().item():.1f}")
""",
)
P(
    "amax_amin",
    """
x = torch.tensor([[1., 7., 3.], [4., 2., 9.]])
print(torch.amax(x, dim=1))
print(torch.amin(x, dim=0, keepdim=True))
print(x.amax(), x.amin())
mn, mx = torch.aminmax(x)
print(mn, mx)
r = torch.aminmax(x, dim=1)
print(r.min, r.max)
""",
)

# ---- keepdims ------------------------------------------------------------------------------
P(
    "keepdims_numpy_style",
    """
x = torch.arange(12.).reshape(3, 4)
row_means = x.mean(axis=1, keepdims=True)
print(row_means)
centered = x - row_means
print(centered.sum(axis=1))
print(x.sum(1, keepdims=True).shape)
""",
)
P(
    "keepdims_standardize",
    """
torch.manual_seed(12)
data = torch.rand(5, 3) * 10
mu = data.mean(dim=0, keepdims=True)
sd = data.std(dim=0, keepdims=True)
z = (data - mu) / sd
print(mu)
print(z.mean(dim=0).abs() < 1e-5)
""",
)
P(
    "keepdims_max",
    """
x = torch.tensor([[1., 5., 2.], [7., 0., 3.]])
values, idx = x.max(dim=1, keepdims=True)
print(values)
print(idx)
print(x.amax(1, keepdims=True))
""",
)

# ---- finfo / iinfo ------------------------------------------------------------------------------
P(
    "finfo_table",
    """
for dt in [torch.float16, torch.bfloat16, torch.float32, torch.float64]:
    info = torch.finfo(dt)
    print(info)
    print(info.bits, info.eps, info.max, info.tiny)
""",
)
P(
    "iinfo_table",
    """
for dt in [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]:
    info = torch.iinfo(dt)
    print(info, info.bits, info.min, info.max)
""",
)
P(
    "finfo_safe_log",
    """
p = torch.tensor([0.0, 0.5, 1.0])
eps = torch.finfo(p.dtype).eps
safe = p.clamp(min=eps, max=1 - eps)
print(safe)
print(torch.log(safe))
print(torch.finfo().resolution)
""",
)
P(
    "overflow_with_iinfo",
    """
big = torch.tensor([torch.iinfo(torch.int32).max], dtype=torch.int32)
print(big)
print(big + 1)
print(torch.iinfo(torch.int8).max + 1)
""",
)

# ---- save / load --------------------------------------------------------------------------------
P(
    "save_load_buffer",
    """
import io
w = torch.arange(6.).reshape(2, 3)
state = {"weight": w, "bias": torch.zeros(3), "step": 10}
buffer = io.BytesIO()
torch.save(state, buffer)
buffer.seek(0)
loaded = torch.load(buffer)
print(loaded["weight"])
print(loaded["bias"], loaded["step"])
print(sorted(loaded.keys()))
""",
)
P(
    "save_load_views",
    """
import io
base = torch.arange(10)
view = base[2:5]
buf = io.BytesIO()
torch.save([base, view], buf)
buf.seek(0)
a, b = torch.load(buf, weights_only=True)
print(b, b.storage_offset())
a[3] = 100
print(b)
""",
)
P(
    "save_load_dtypes",
    """
import io
tensors = (torch.ones(2, dtype=torch.float16), torch.tensor([True, False]), torch.arange(3, dtype=torch.int8))
buf = io.BytesIO()
torch.save(tensors, buf)
buf.seek(0)
back = torch.load(buf)
for t in back:
    print(t, t.dtype)
""",
)

# ---- distributions ----------------------------------------------------------------------------
P(
    "dist_normal_tutorial",
    """
from torch.distributions import Normal
torch.manual_seed(0)
m = Normal(torch.tensor([0.0]), torch.tensor([1.0]))
print(m.sample())
print(m)
x = m.sample((5,))
print(x.shape)
print(m.log_prob(torch.tensor([0.0])))
""",
)
P(
    "dist_normal_reparam",
    """
from torch.distributions import Normal
torch.manual_seed(1)
mu = torch.tensor([0.5, -1.0])
sigma = torch.tensor([1.0, 0.25])
d = Normal(mu, sigma)
z = d.rsample((3,))
print(z)
print(d.log_prob(z).sum(-1))
print(d.entropy())
""",
)
P(
    "dist_uniform",
    """
from torch.distributions import Uniform
torch.manual_seed(2)
u = Uniform(torch.tensor([0.0]), torch.tensor([5.0]))
print(u.sample())
print(u.sample((4,)).squeeze())
print(u.log_prob(torch.tensor([2.0])))
print(u.mean, u.variance)
print(u.entropy())
""",
)
P(
    "dist_bernoulli",
    """
from torch.distributions import Bernoulli
torch.manual_seed(3)
m = Bernoulli(torch.tensor([0.3]))
print(m.sample())
print(m.sample((6,)).squeeze())
print(m.log_prob(torch.tensor([1.0])))
print(m.entropy())
print(m)
""",
)
P(
    "dist_bernoulli_logits",
    """
from torch.distributions import Bernoulli
d = Bernoulli(logits=torch.tensor([-2.0, 0.0, 2.0]))
print(d.probs)
print(d.mean, d.variance)
print(d.log_prob(torch.tensor([0.0, 1.0, 1.0])))
""",
)
P(
    "dist_categorical",
    """
from torch.distributions import Categorical
torch.manual_seed(4)
m = Categorical(torch.tensor([0.25, 0.25, 0.25, 0.25]))
print(m.sample())
print(m.sample((10,)))
print(m.entropy())
print(m.log_prob(torch.tensor(2)))
""",
)
P(
    "dist_categorical_policy",
    """
from torch.distributions import Categorical
torch.manual_seed(5)
logits = torch.tensor([[1.0, 2.0, 0.5], [0.1, 0.1, 3.0]])
policy = Categorical(logits=logits)
actions = policy.sample()
print(actions)
print(policy.log_prob(actions))
print(policy.probs)
print(policy.entropy().mean())
""",
)
P(
    "dist_validate_errors",
    """
from torch.distributions import Normal, Bernoulli, Categorical
try:
    Normal(torch.tensor([0.0]), torch.tensor([-1.0]))
except ValueError as e:
    print(e)
try:
    Bernoulli(probs=0.5, logits=0.0)
except ValueError as e:
    print(e)
try:
    Categorical(torch.tensor([0.5, 0.5])).log_prob(torch.tensor([3]))
except ValueError as e:
    print(e)
""",
)
P(
    "dist_monte_carlo",
    """
from torch.distributions import Normal
torch.manual_seed(6)
d = Normal(2.0, 0.5)
s = d.sample((2000,))
print(f"{s.mean().item():.2f} {s.std().item():.2f}")
print(d.batch_shape, d.event_shape)
print((s > 2.0).float().mean())
""",
)

# ---- long tail -----------------------------------------------------------------------------------
P(
    "inverse_hyperbolic",
    """
x = torch.tensor([0.3, -0.6, 1.2])
print(torch.asinh(x))
print(torch.sinh(torch.asinh(x)))
print(torch.acosh(torch.tensor([1.0, 2.0, 10.0])))
print(torch.atanh(torch.tensor([0.0, 0.5, -0.9])))
""",
)
P(
    "inverse_trig",
    """
v = torch.tensor([-1.0, -0.5, 0.0, 0.5, 1.0])
print(torch.asin(v))
print(torch.acos(v))
print(torch.atan(v * 10))
print(torch.cosh(v), torch.sinh(v))
""",
)
P(
    "frac_and_trunc_parts",
    """
x = torch.tensor([1.0, 2.5, -3.2, -0.75])
print(torch.frac(x))
whole = x - x.frac()
print(whole)
print(x.frac_(), x)
""",
)
P(
    "log1p_expm1_precision",
    """
tiny = torch.tensor([1e-10, 1e-5, 1.0], dtype=torch.float64)
print(torch.log1p(tiny))
print(torch.log(1 + tiny))
print(torch.expm1(tiny))
""",
)
P(
    "softplus_by_hand",
    """
x = torch.linspace(-5, 5, 6)
softplus = torch.log1p(torch.exp(x))
print(softplus)
""",
)

# ---- mixed tutorial code -----------------------------------------------------------------------
P(
    "linear_regression_closed_form",
    """
torch.manual_seed(13)
X = torch.rand(20, 2)
true_w = torch.tensor([[2.0], [-3.0]])
y = X @ true_w + 0.01 * torch.randn(20, 1)
w = (X.T @ X).det()
print(f"det(X^T X) = {w.item():.4f}")
res = y - X @ true_w
print(f"residual norm {res.norm().item():.4f}")
""",
)
P(
    "pca_variance",
    """
torch.manual_seed(14)
data = torch.randn(50, 3) * torch.tensor([3.0, 1.0, 0.1])
centered = data - data.mean(dim=0, keepdims=True)
cov = centered.T @ centered / (data.shape[0] - 1)
print(cov.shape)
sv = torch.linalg.svdvals(cov)
print(sv / sv.sum())
""",
)
P(
    "one_hot_by_hand",
    """
labels = torch.tensor([0, 2, 1, 2])
one_hot = labels.new_zeros(labels.numel(), 3)
for i, l in enumerate(labels.tolist()):
    one_hot[i, l] = 1
print(one_hot)
print(one_hot.T.sum(dim=1))
""",
)
P(
    "minibatch_sampler",
    """
torch.manual_seed(15)
n = 10
perm = torch.multinomial(torch.ones(n), n)
print(perm)
for start in range(0, n, 4):
    batch = perm[start:start + 4]
    print(start, batch.tolist())
""",
)
P(
    "random_walk",
    """
torch.manual_seed(16)
steps = torch.bernoulli(torch.full((20,), 0.5)) * 2 - 1
pos = steps.cumsum(0)
print(steps)
print(pos)
print("final:", pos[-1].item(), "max:", pos.max().item())
""",
)
P(
    "monte_carlo_pi",
    """
torch.manual_seed(17)
pts = torch.rand(5000, 2)
inside = (pts.norm(dim=1) <= 1).float()
print(f"pi ~ {4 * inside.mean().item():.3f}")
""",
)
P(
    "weight_init_schemes",
    """
torch.manual_seed(18)
fan_in, fan_out = 4, 3
w = torch.empty(fan_out, fan_in)
w.normal_(0, (2.0 / fan_in) ** 0.5)
print(w)
u = torch.empty(fan_out, fan_in).uniform_(-1 / fan_in ** 0.5, 1 / fan_in ** 0.5)
print(u)
print(w.norm(dim=1))
""",
)
P(
    "attention_scores",
    """
torch.manual_seed(19)
q = torch.randn(2, 4)
k = torch.randn(3, 4)
scores = q @ k.T / (4 ** 0.5)
print(scores)
weights = (scores - scores.amax(dim=1, keepdim=True)).exp()
weights = weights / weights.sum(dim=1, keepdim=True)
print(weights)
print(weights.sum(dim=1))
""",
)
P(
    "checkpoint_round_trip",
    """
import io
torch.manual_seed(20)
model = {"layer1.weight": torch.randn(3, 2), "layer1.bias": torch.zeros(3), "epoch": 5, "losses": [0.9, 0.5]}
f = io.BytesIO()
torch.save(model, f)
f.seek(0)
ckpt = torch.load(f)
for k, v in ckpt.items():
    print(k, v.shape if hasattr(v, "shape") else v)
print(torch.norm(ckpt["layer1.weight"]))
""",
)
P(
    "finfo_in_softmax_mask",
    """
scores = torch.tensor([[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]])
mask = torch.tensor([[True, True, False], [True, False, False]])
masked = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
print(masked)
e = (masked - masked.amax(dim=-1, keepdim=True)).exp()
print(e / e.sum(-1, keepdim=True))
""",
)
P(
    "statistics_summary",
    """
torch.manual_seed(21)
x = torch.normal(10.0, 2.0, size=(4, 6))
mn, mx = torch.aminmax(x)
print(f"min {mn.item():.3f} max {mx.item():.3f}")
print(x.mean(dim=1, keepdims=True).squeeze())
print(x.norm(p=1, dim=0))
""",
)
P(
    "tensor_info_function",
    """
def describe(t):
    return f"{t.type()} shape={tuple(t.shape)} numel={t.numel()} dim={t.dim()} bytes={t.numel() * t.element_size()}"

for t in [torch.zeros(2, 3), torch.arange(5), torch.ones(2, 2, 2, dtype=torch.float64), torch.tensor(True)]:
    print(describe(t))
""",
)
P(
    "error_messages_tour",
    """
errors = []
for fn in [lambda: torch.ones(3).mH, lambda: torch.normal(0., 1.), lambda: torch.finfo(torch.int32), lambda: torch.iinfo(torch.bool), lambda: torch.det(torch.ones(2, 3))]:
    try:
        fn()
    except Exception as e:
        errors.append(type(e).__name__)
        print(type(e).__name__, ":", str(e).splitlines()[0])
print(errors)
""",
)
P(
    "sampling_temperature",
    """
torch.manual_seed(22)
logits = torch.tensor([2.0, 1.0, 0.1])
for temp in [0.5, 1.0, 2.0]:
    p = (logits / temp).exp()
    p = p / p.sum()
    idx = torch.multinomial(p, 5, replacement=True)
    print(temp, [round(v, 3) for v in p.tolist()], idx.tolist())
""",
)
P(
    "bernoulli_vs_rand_threshold",
    """
torch.manual_seed(23)
p = torch.tensor([0.1, 0.5, 0.9])
draws = torch.bernoulli(p.expand(1000, 3))
print(draws.mean(dim=0))
print(draws.shape, draws.dtype)
""",
)
P(
    "gaussian_mixture_sample",
    """
from torch.distributions import Categorical, Normal
torch.manual_seed(24)
mix = Categorical(torch.tensor([0.3, 0.7]))
comp = Normal(torch.tensor([-2.0, 3.0]), torch.tensor([0.5, 1.0]))
k = mix.sample((8,))
x = comp.sample((8,))
chosen = x[torch.arange(8), k]
print(k)
print(chosen)
""",
)
P(
    "distance_matrix",
    """
pts = torch.tensor([[0., 0.], [3., 4.], [6., 8.]])
diff = pts.unsqueeze(1) - pts.unsqueeze(0)
dist = torch.linalg.vector_norm(diff, dim=-1)
print(dist)
print(dist.T.equal(dist) if hasattr(dist, "equal") else bool((dist.T == dist).all()))
""",
)
P(
    "power_iteration",
    """
torch.manual_seed(25)
A = torch.tensor([[2., 1.], [1., 3.]])
v = torch.randn(2)
for _ in range(50):
    v = A @ v
    v = v / v.norm()
lam = v @ A @ v
print(f"dominant eigenvalue {lam.item():.4f}")
print(f"spectral norm {torch.linalg.matrix_norm(A, 2).item():.4f}")
""",
)
P(
    "new_full_padding",
    """
seqs = [torch.tensor([1, 2, 3]), torch.tensor([4]), torch.tensor([5, 6])]
longest = max(s.numel() for s in seqs)
padded = seqs[0].new_full((len(seqs), longest), -1)
for i, s in enumerate(seqs):
    padded[i, :s.numel()] = s
print(padded)
print(padded.T)
""",
)

# ---- long tail in tutorial code --------------------------------------------------------------
P(
    "nan_cleaning",
    """
x = torch.tensor([1.0, float('nan'), 3.0, float('inf'), -2.0])
print(torch.isnan(x), torch.isinf(x), torch.isfinite(x))
clean = torch.where(torch.isfinite(x), x, torch.zeros_like(x))
print(clean)
print("finite mean:", clean.sum().item() / torch.isfinite(x).sum().item())
""",
)
P(
    "isin_filtering",
    """
labels = torch.tensor([0, 3, 1, 4, 3, 2, 5])
keep = torch.tensor([1, 3, 5])
mask = torch.isin(labels, keep)
print(mask)
print(labels[mask])
print(labels[torch.isin(labels, keep, invert=True)])
""",
)
P(
    "trapezoid_integration",
    """
x = torch.linspace(0, math.pi, 101)
y = torch.sin(x)
area = torch.trapezoid(y, x)
print(f"integral of sin over [0, pi] ~ {area.item():.5f}")
running = torch.cumulative_trapezoid(y, x)
print(running.shape, f"{running[-1].item():.5f}")
print(torch.trapezoid(torch.tensor([1., 2., 3.]), dx=0.5))
""",
)
P(
    "covariance_correlation",
    """
torch.manual_seed(26)
a = torch.randn(50)
b = 2 * a + 0.1 * torch.randn(50)
c = torch.randn(50)
data = torch.stack([a, b, c])
print(torch.cov(data).shape)
r = torch.corrcoef(data)
print(f"corr(a, b) = {r[0, 1].item():.3f}")
print(f"corr(a, c) = {r[0, 2].item():.3f}")
""",
)
P(
    "histogram_of_samples",
    """
torch.manual_seed(27)
s = torch.randn(1000)
counts = torch.histc(s, bins=8, min=-4, max=4)
print(counts)
for i, c in enumerate(counts.tolist()):
    print(f"{-4 + i:+d} {'#' * int(c // 20)}")
hist, edges = torch.histogram(s, bins=4, range=(-2., 2.))
print(hist, edges)
""",
)
P(
    "frexp_decompose",
    """
x = torch.tensor([8.0, 0.3, -5.0, 1024.0])
mantissa, exponent = torch.frexp(x)
print(mantissa)
print(exponent)
print(mantissa * 2.0 ** exponent)
""",
)
P(
    "bit_tricks",
    """
flags = torch.tensor([0b0011, 0b0101, 0b1111])
print(flags ^ 0b0110)
print(flags << 2)
print(flags >> 1)
print(torch.bitwise_xor(flags, torch.tensor([1, 1, 1])))
parity = torch.zeros_like(flags)
v = flags.clone()
for _ in range(4):
    parity ^= v & 1
    v = v >> 1
print(parity)
""",
)
P(
    "hypot_distances",
    """
dx = torch.tensor([3., 5., 8.])
dy = torch.tensor([4., 12., 15.])
print(torch.hypot(dx, dy))
print(torch.sqrt(dx ** 2 + dy ** 2))
""",
)
P(
    "activations_by_hand",
    """
x = torch.linspace(-2, 2, 5)
print(torch.asinh(x))
print(torch.tanh(x), torch.atanh(torch.tanh(x)))
print(torch.log1p(torch.exp(-x.abs())) + x.clamp(min=0))
""",
)
P(
    "fractional_hours",
    """
hours = torch.tensor([1.25, 3.5, 7.75, 12.0])
minutes = (torch.frac(hours) * 60).round() if hasattr(torch, "round") else torch.frac(hours) * 60
print(minutes)
print((hours - torch.frac(hours)).long())
""",
)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_tutorial_program(name: str) -> None:
    check_program(PROGRAMS[name], rtol=1e-5, atol=1e-6)
