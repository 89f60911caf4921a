"""Tutorial-shaped programs with complex tensors, run in tensortrace and in torch 2.13: stdout
(torch's printing of complex values), errors and final variables must be the same."""

from __future__ import annotations

import textwrap

import pytest

from .program_harness import check_program

PROGRAMS = {
    "create_and_print": """\
z = torch.tensor([1 + 2j, 3 - 4j, -0.5j])
print(z)
print(z.dtype, z.shape, z.element_size(), z.is_complex(), z.is_floating_point())
print(torch.zeros(2, 2, dtype=torch.cfloat))
print(torch.ones(3, dtype=torch.complex128))
w = torch.tensor([[1, 2.5j], [1e-5, -3 + 0j]])
print(w)
print(torch.tensor(2 - 1j), torch.tensor([1e10 + 1j, 3]))
""",
    "printing_edge_cases": """\
print(torch.tensor([1j] * 2000))
print(torch.tensor([1e-8j, 1e8]))
print(torch.tensor([[1 + 1j, float('nan')], [float('inf') * 1j, -0.0 - 0.0j]]))
print(torch.tensor([1.5 - 2j], dtype=torch.complex128, requires_grad=True))
print(torch.tensor([1 + 1j], requires_grad=True) * 2)
print(torch.empty(0, dtype=torch.cfloat), torch.zeros(2, 0, dtype=torch.cdouble))
torch.set_printoptions(precision=2)
print(torch.tensor([[1 / 3 + 2j / 3, -1e-3j]]))
torch.set_printoptions(profile="default")
torch.set_default_dtype(torch.float64)
print(torch.tensor([1 + 1j]), torch.tensor([1 + 1j], dtype=torch.cfloat))
torch.set_default_dtype(torch.float32)
""",
    "parts_and_polar_form": """\
z = torch.tensor([3 + 4j, -1 + 1j, 2j, -2.0 + 0j])
print("real:", z.real)
print("imag:", z.imag)
print("abs:", z.abs())
print("angle:", z.angle())
back = torch.polar(z.abs(), z.angle())
print(torch.allclose(back, z))
r = torch.view_as_real(z)
print(r, r.shape, r.stride())
print(torch.view_as_complex(r) is not z, torch.equal(torch.view_as_complex(r), z))
""",
    "conjugate_bit": """\
z = torch.tensor([[1 + 1j, 2 - 3j], [0.5j, 4 + 0j]])
c = z.conj()
print(c)
print(c.is_conj(), z.is_conj(), c.data_ptr() == z.data_ptr())
print(c.imag, c.imag.is_neg())
p = c.resolve_conj()
print(p.is_conj(), torch.equal(p, c))
print(torch.conj_physical(z))
h = z.mH
print(h)
print(z @ h)
""",
    "complex_arithmetic": """\
a = torch.tensor([1 + 2j, -1 - 1j])
b = torch.tensor([2 - 1j, 0.5 + 0.5j])
print(a + b, a - b)
print(a * b, a / b)
print(a * 2, a + 1j, 3 - a)
print(a ** 2, a.pow(0.5))
x = torch.tensor([1.0, 2.0])
print((x + 1j).dtype, (torch.tensor([1, 2]) * 1j).dtype)
print(a.sum(), a.mean(), a.prod())
print(a.exp().abs())
print(torch.vdot(a, b), torch.dot(a, b))
""",
    "signals_fourier_by_hand": """\
n = 8
t = torch.arange(n, dtype=torch.float64)
signal = torch.cos(2 * math.pi * t / n) + 0.5 * torch.sin(4 * math.pi * t / n)
k = torch.arange(n, dtype=torch.float64).reshape(-1, 1)
phase = -2 * math.pi * k * t / n
basis = torch.polar(torch.ones_like(phase), phase)
spectrum = basis @ signal.to(torch.complex128)
peaks = spectrum.abs() > 1
print(peaks, peaks.nonzero().flatten())
print(torch.allclose(spectrum[1], torch.tensor(4 + 0j, dtype=torch.complex128)))
print(torch.allclose(spectrum[2], torch.tensor(-2j, dtype=torch.complex128), atol=1e-12))
""",
    "errors_of_complex": """\
z = torch.tensor([1 + 1j, 2 + 0j])
for name, fn in [("lt", lambda: z < z), ("max", lambda: z.max()), ("sign", lambda: z.sign()),
                 ("clamp", lambda: z.clamp(0, 1)), ("floordiv", lambda: z // 2),
                 ("view_as_real(conj)", lambda: torch.view_as_real(z.conj())),
                 ("imag of real", lambda: torch.ones(2).imag),
                 ("complex of ints", lambda: torch.complex(torch.ones(2, dtype=torch.long),
                                                           torch.ones(2, dtype=torch.long)))]:
    try:
        fn()
    except Exception as e:
        print(name, type(e).__name__, e)
""",
    "casting_discards_imag": """\
z = torch.tensor([1.5 + 2j, -3 - 1j])
print(z.real.dtype, z.abs().dtype, z.cdouble().abs().dtype)
print(z.float(), z.long(), z.bool())
x = torch.empty(2)
x.copy_(z)
print(x)
print(float(z[0].real), complex(z[1]))
try:
    float(z[0])
except RuntimeError as e:
    print("float:", e)
""",
    "random_complex": """\
torch.manual_seed(3)
a = torch.randn(2, 3, dtype=torch.cfloat)
print(a)
b = torch.rand(3, dtype=torch.complex128)
print(b)
print(a.abs().mean() > 0)
""",
    "set_parts_in_place": """\
z = torch.zeros(3, dtype=torch.cfloat)
z.real = torch.tensor([1.0, 2.0, 3.0])
z.imag[1] = -5
print(z)
z.imag.mul_(2)
print(z)
r = torch.view_as_real(z)
r[:, 0] += 10
print(z)
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_complex_program(name: str) -> None:
    # a matrix product's summation order (BLAS) moves the last bits of near-zero values
    atol = 1e-12 if name == "signals_fourier_by_hand" else 0.0
    check_program(textwrap.dedent(PROGRAMS[name]), atol=atol)
