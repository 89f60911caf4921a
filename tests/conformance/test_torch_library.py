"""Conformance of torch.library (Library, define, impl, fallthrough_kernel, custom_op with
register_autograd / register_kernel / register_fake, infer_schema) against torch 2.13: new
operators dispatch by key, trace and differentiate as native ones, and the errors are torch's.

Each program makes its Library in a namespace of its own and destroys it in a `finally:`, so
no registration outlives the program (custom_op's libraries replace themselves when the same
op is defined again, as the cpu and cuda runs of a program do)."""

from __future__ import annotations

import pytest

from tensortrace._library import custom_ops

from .harness import check

# The "Python custom operators" tutorial (pytorch.org/tutorials/advanced/python_custom_ops),
# with a NumPy kernel for both devices (the emulated CUDA device: through the CPU) and an
# autograd formula registered on it.
TUTORIAL = """
Tensor = torch.Tensor

@torch.library.custom_op("tutorial::numpy_sin", mutates_args=(), device_types=("cpu", "cuda"))
def numpy_sin(x: Tensor) -> Tensor:
    x_np = x.cpu().numpy()
    y_np = np.sin(x_np)
    return torch.from_numpy(y_np).to(device=x.device)

@numpy_sin.register_fake
def _(x):
    return torch.empty_like(x)

def setup_context(ctx, inputs, output):
    x, = inputs
    ctx.save_for_backward(x)

def backward(ctx, grad):
    x, = ctx.saved_tensors
    return grad * x.cos()

numpy_sin.register_autograd(backward, setup_context=setup_context)

x = torch.randn(3, requires_grad=True)
y = numpy_sin(x)
(y * torch.arange(3.)).sum().backward()
with torch.no_grad():
    z = torch.ops.tutorial.numpy_sin(x)
out = (y.detach(), x.grad, z, y.grad_fn.name(), y.requires_grad, z.requires_grad,
       repr(numpy_sin), str(torch.ops.tutorial.numpy_sin.default._schema))
"""

LIB = "lib = torch.library.Library('{ns}', 'DEF')\ntry:\n{body}\nfinally:\n    lib._destroy()\n"


def in_library(ns: str, body: str) -> str:
    return LIB.format(ns=ns, body="\n".join("    " + line for line in body.splitlines()))


PROGRAMS = {
    "tutorial": TUTORIAL,
    "custom_op_kwargs": "@torch.library.custom_op('co1::scale', mutates_args=())\n"
    "def scale(x: torch.Tensor, s: float = 2.0, *, shift: int = 0) -> torch.Tensor:\n"
    "    return x * s + shift\n"
    "x = torch.randn(4)\n"
    "out = (scale(x), scale(x, 3.0), scale(x, shift=1), torch.ops.co1.scale(x, 0.5, shift=2), "
    "str(torch.ops.co1.scale.default._schema), torch.ops.co1.scale.overloads())",
    "custom_op_two_outputs_grad": "@torch.library.custom_op('co2::mulsum', mutates_args=())\n"
    "def mulsum(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:\n"
    "    return a * b, a + b\n"
    "def setup(ctx, inputs, output):\n    ctx.save_for_backward(*inputs)\n"
    "def bwd(ctx, g1, g2):\n    a, b = ctx.saved_tensors\n"
    "    return g1 * b + g2, g1 * a + g2\n"
    "mulsum.register_autograd(bwd, setup_context=setup)\n"
    "a = torch.randn(3, requires_grad=True); b = torch.randn(3, requires_grad=True)\n"
    "p, s = mulsum(a, b); (p.sum() + 2 * s.sum()).backward()\n"
    "out = (p.detach(), s.detach(), a.grad, b.grad, str(torch.ops.co2.mulsum.default._schema))",
    "custom_op_list_input": "@torch.library.custom_op('co3::weighted_sum', mutates_args=())\n"
    "def weighted_sum(tensors: list[torch.Tensor], weights: list[float]) -> torch.Tensor:\n"
    "    return sum(t * w for t, w in zip(tensors, weights))\n"
    "x = torch.randn(3); y = torch.randn(3)\n"
    "out = (weighted_sum([x, y], [0.3, 0.7]), "
    "str(torch.ops.co3.weighted_sum.default._schema))",
    "custom_op_no_autograd_formula": "@torch.library.custom_op('co4::f', mutates_args=())\n"
    "def f(x: torch.Tensor) -> torch.Tensor:\n    return x.exp()\n"
    "x = torch.randn(2, requires_grad=True)\ny = f(x)\nout = y.sum().backward()",
    "custom_op_register_kernel": "@torch.library.custom_op('co5::g', mutates_args=(), "
    "device_types='cpu')\ndef g(x: torch.Tensor) -> torch.Tensor:\n    return x + 1\n"
    "@g.register_kernel('cuda')\ndef _(x):\n    return x + 1\n"
    "h = torch._C._dispatch_has_kernel_for_dispatch_key\n"
    "out = (g(torch.zeros(2)), h('co5::g', 'CPU'), h('co5::g', 'CUDA'), "
    "h('co5::g', 'Autograd'), h('co5::g', 'CompositeExplicitAutograd'))",
    # the message names the module of the kernel's wrapper (torch's or tensortrace's file)
    "custom_op_aliasing_error": "@torch.library.custom_op('co6::same', mutates_args=())\n"
    "def same(x: torch.Tensor) -> torch.Tensor:\n    return x[1:]\ntry:\n"
    "    same(torch.ones(2))\nexcept RuntimeError as e:\n"
    "    out = (str(e).split(' (with')[0], str(e).split('>): ')[1])",
    "custom_op_mutating": "@torch.library.custom_op('co7::sin_', mutates_args={'x'})\n"
    "def sin_(x: torch.Tensor) -> None:\n    x.copy_(x.sin())\n"
    "@torch.library.custom_op('co7::addout', mutates_args={'out'})\n"
    "def addout(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:\n"
    "    out.copy_(a + b)\n"
    "x = torch.randn(3); v = x._version; r = sin_(x)\n"
    "o = torch.zeros(3); addout(x, x, o)\n"
    "out = (r, x, x._version - v, o, o._version, str(torch.ops.co7.sin_.default._schema), "
    "str(torch.ops.co7.addout.default._schema))",
    "err_custom_op_mutating_autograd": "@torch.library.custom_op('co8::f_', mutates_args={'x'})\n"
    "def f_(x: torch.Tensor) -> None:\n    x.mul_(2)\n"
    "out = f_.register_autograd(lambda ctx, g: g)",
    "infer_schema": "T = torch.Tensor\n"
    "def f(x: T, y: list[T], n: int, s: float, b: bool = True, o: T | None = None, "
    "d: torch.dtype = torch.float32, st: str = 'a', m: int | None = None) -> tuple[T, T]: ...\n"
    "def g(x: T, out: T) -> None: ...\n"
    "def h(x: T, *, k: int = 2) -> list[T]: ...\n"
    "i = torch.library.infer_schema\n"
    "out = [i(f, mutates_args=()), i(g, mutates_args={'out'}), i(g, mutates_args='unknown'), "
    "i(h, mutates_args=(), op_name='h')]",
    "err_infer_schema_annotation": "def f(x, y: torch.Tensor) -> torch.Tensor: ...\n"
    "out = torch.library.infer_schema(f, mutates_args=())",
    "err_infer_schema_mutates": "def f(x: torch.Tensor) -> torch.Tensor: ...\n"
    "out = torch.library.infer_schema(f, mutates_args=('y',))",
    "err_infer_schema_return": "def f(x: torch.Tensor): ...\n"
    "out = torch.library.infer_schema(f, mutates_args=())",
    # ---- Library ----
    "library_define_impl": in_library(
        "lib1",
        "name = lib.define('foo(Tensor x, int n=2) -> Tensor')\n"
        "name2 = lib.define('foo.scalar(Tensor x, Scalar s) -> Tensor')\n"
        "lib.impl('foo', lambda x, n: x * n, 'CPU')\n"
        "lib.impl('foo', lambda x, n: x * n, 'CUDA')\n"
        "lib.impl('foo.scalar', lambda x, s: x + s, 'CompositeExplicitAutograd')\n"
        "x = torch.arange(3.)\n"
        "out = (name, name2, torch.ops.lib1.foo(x), torch.ops.lib1.foo(x, 3), "
        "torch.ops.lib1.foo.scalar(x, 0.5), torch.ops.lib1.foo(x, 1.5), "
        "sorted(torch.ops.lib1.foo.overloads()), repr(lib), "
        "str(torch.ops.lib1.foo.default._schema), repr(torch.ops.lib1.foo.scalar))",
    ),
    "library_composite_implicit_grad": in_library(
        "lib2",
        "lib.define('softsq(Tensor x) -> Tensor')\n"
        "lib.impl('softsq', lambda x: (x * x).sum() / x.numel(), 'CompositeImplicitAutograd')\n"
        "x = torch.randn(4, requires_grad=True)\n"
        "y = torch.ops.lib2.softsq(x); y.backward()\n"
        "out = (y.detach(), x.grad, y.grad_fn.name())",
    ),
    "library_autograd_key": in_library(
        "lib3",
        "lib.define('twice(Tensor x) -> Tensor')\n"
        "class Twice(torch.autograd.Function):\n"
        "    @staticmethod\n    def forward(ctx, x):\n"
        "        with torch.no_grad():\n            return x * 2\n"
        "    @staticmethod\n    def backward(ctx, g):\n        return g * 2\n"
        "lib.impl('twice', lambda x: x * 2, 'CompositeExplicitAutograd')\n"
        "lib.impl('twice', Twice.apply, 'Autograd')\n"
        "x = torch.randn(3, requires_grad=True)\ny = torch.ops.lib3.twice(x)\n"
        "y.sum().backward()\nout = (y.detach(), x.grad)",
    ),
    # no autograd kernel: torch's fallback warns at backward and gives no gradient
    "library_autograd_fallback": in_library(
        "lib18",
        "lib.define('npsin(Tensor x) -> Tensor')\n"
        "lib.impl('npsin', lambda x: torch.from_numpy(np.sin(x.detach().cpu().numpy()))"
        ".to(x.device), 'CompositeExplicitAutograd')\n"
        "lib.define('dbl(Tensor x) -> Tensor')\n"
        "lib.impl('dbl', lambda x: x * 2, 'CompositeExplicitAutograd')\n"
        "import warnings\n"
        "x = torch.ones(2, requires_grad=True)\ny = torch.ops.lib18.npsin(x)\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n    y.sum().backward()\n"
        "a = (y.requires_grad, y.grad_fn.name(), x.grad, len(w), str(w[0].message)[:60])\n"
        "z = torch.ops.lib18.dbl(x)\nwith warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n    z.sum().backward()\n"
        "out = (a, z.grad_fn.name(), x.grad, len(w))",
    ),
    "library_fallthrough": in_library(
        "lib4",
        "lib.define('ident(Tensor x) -> Tensor')\n"
        "lib.impl('ident', lambda x: x.clone(), 'CompositeExplicitAutograd')\n"
        "lib.impl('ident', torch.library.fallthrough_kernel, 'Autograd')\n"
        "x = torch.ones(2)\nout = (torch.ops.lib4.ident(x), "
        "torch._C._dispatch_has_kernel_for_dispatch_key('lib4::ident', 'Autograd'))",
    ),
    "library_define_function": "lib = torch.library.Library('lib5', 'FRAGMENT')\n"
    "try:\n"
    "    torch.library.define('lib5::cube', '(Tensor x) -> Tensor', lib=lib)\n"
    "    torch.library.impl('lib5::cube', 'default', lambda x: x ** 3, lib=lib)\n"
    "    @torch.library.impl('lib5::cube', 'cpu', lib=lib)\n"
    "    def _(x):\n        return x * x * x\n"
    "    out = torch.ops.lib5.cube(torch.arange(3.))\n"
    "finally:\n    lib._destroy()",
    "library_destroy": "lib = torch.library.Library('lib6', 'DEF')\n"
    "lib.define('foo(Tensor x) -> Tensor')\nlib.impl('foo', lambda x: x + 1, 'CPU')\n"
    "a = hasattr(torch.ops.lib6, 'foo')\nlib._destroy()\nb = hasattr(torch.ops.lib6, 'foo')\n"
    "lib2 = torch.library.Library('lib6', 'DEF')\nlib2.define('foo(Tensor x, Tensor y) -> "
    "Tensor')\nc = str(torch.ops.lib6.foo.default._schema)\nlib2._destroy()\n"
    "out = (a, b, c)",
    # a Python kernel over aten's own, and the native kernel back after _destroy()
    "library_override_aten": "x = torch.tensor([-1.0, 2.0])\n"
    "lib = torch.library.Library('aten', 'IMPL')\ntry:\n"
    "    lib.impl('relu', lambda t: t * 10, 'CPU')\n"
    "    lib.impl('relu', lambda t: t * 10, 'CUDA')\n"
    "    a = torch.relu(x)\n    b = torch.ops.aten.relu.default(x)\nfinally:\n"
    "    lib._destroy()\nout = (a, b, torch.relu(x))",
    # an impl before the def waits for it, and goes with its own library
    "library_impl_before_define": "x = torch.tensor([-1.0, 2.0])\n"
    "defs = torch.library.Library('lib17', 'FRAGMENT')\n"
    "impls = torch.library.Library('lib17', 'IMPL')\ntry:\n"
    "    impls.impl('later', lambda t: t + 1, 'CompositeExplicitAutograd')\n"
    "    defs.define('later(Tensor x) -> Tensor')\n    d = torch.ops.lib17.later(x)\n"
    "    impls._destroy()\n    try:\n        torch.ops.lib17.later(x)\n"
    "    except NotImplementedError as e:\n        msg = str(e).split(' with arguments')[0]\n"
    "finally:\n    defs._destroy()\n    impls._destroy()\nout = (d, msg)",
    "err_library_kind": "out = torch.library.Library('lib7', 'XYZ')",
    "err_library_reserved": "out = torch.library.Library('prim', 'DEF')",
    "err_library_def_twice": "lib = torch.library.Library('lib8', 'DEF')\ntry:\n"
    "    lib2 = torch.library.Library('lib8', 'DEF')\nfinally:\n    lib._destroy()",
    "err_duplicate_define": in_library(
        "lib9", "lib.define('foo(Tensor x) -> Tensor')\nlib.define('foo(Tensor y) -> Tensor')"
    ),
    "err_bad_schema_type": in_library("lib10", "lib.define('baz(Tensorr x) -> Tensor')"),
    "err_bad_dispatch_key": in_library(
        "lib11", "lib.define('foo(Tensor x) -> Tensor')\nlib.impl('foo', abs, 'Bogus')"
    ),
    "err_impl_not_callable": in_library(
        "lib12", "lib.define('foo(Tensor x) -> Tensor')\nlib.impl('foo', 3, 'CPU')"
    ),
    "err_impl_undefined_op": in_library(
        "lib13", "lib.impl('nosuch', lambda x: x, 'CPU')\nout = torch.ops.lib13.nosuch"
    ),
    "err_destroyed": "lib = torch.library.Library('lib14', 'DEF')\nlib._destroy()\n"
    "out = lib.define('foo(Tensor x) -> Tensor')",
    "err_define_nameless_schema": "lib = torch.library.Library('lib15', 'FRAGMENT')\ntry:\n"
    "    torch.library.define('lib15::f', 'Tensor x -> Tensor', lib=lib)\n"
    "finally:\n    lib._destroy()",
    "err_define_qualname": "out = torch.library.define('nonamespace', '(Tensor x) -> Tensor')",
    "err_call_kernel_args": in_library(
        "lib16",
        "lib.define('foo(Tensor x, int n) -> Tensor')\n"
        "lib.impl('foo', lambda x, n: x * n, 'CompositeExplicitAutograd')\n"
        "out = torch.ops.lib16.foo(torch.ones(1), 2.5)",
    ),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_torch_library(name: str) -> None:
    before = set(custom_ops.OPDEF_TO_LIB)
    try:
        check("torch.manual_seed(0)\n" + PROGRAMS[name], rtol=1e-6, atol=1e-6)
    finally:
        # a custom_op's library lives until the op is defined again, and its kernels hold the
        # program's namespace (tensors on the emulated device too): drop what this program made
        for qualname in set(custom_ops.OPDEF_TO_LIB) - before:
            custom_ops.OPDEF_TO_LIB.pop(qualname)._destroy()
