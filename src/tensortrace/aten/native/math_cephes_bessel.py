"""The modified Bessel functions of torch.special: modified_bessel_i0 / i1 / k0 / k1, the
exponentially scaled scaled_modified_bessel_k0 / k1, and spherical_bessel_j0, one element at
a time.

Mirrors `modified_bessel_i0_forward` .. `spherical_bessel_j0_forward` of
`aten/src/ATen/native/Math.h` (Cephes's Chebyshev expansions: I0 / I1 share math_cephes.py's
i0e / i1e tables; K0 / K1 have their own on [0, 2] in x^2 and on [2, inf) in 8 / x).
"""

from __future__ import annotations

import math

from tensortrace.aten.native.math_cephes import I0E_A, I0E_B, I1E_A, I1E_B, _exp, chbevl

INF = math.inf
NAN = math.nan

_K0_A = (
    1.37446543561352307156e-16, 4.25981614279661018399e-14, 1.03496952576338420167e-11,
    1.90451637722020886025e-09, 2.53479107902614945675e-07, 2.28621210311945178607e-05,
    1.26461541144692592338e-03, 3.59799365153615016266e-02, 3.44289899924628486886e-01,
    -5.35327393233902768720e-01,
)  # fmt: skip
_K0_B = (
    5.30043377268626276149e-18, -1.64758043015242134646e-17, 5.21039150503902756861e-17,
    -1.67823109680541210385e-16, 5.51205597852431940784e-16, -1.84859337734377901440e-15,
    6.34007647740507060557e-15, -2.22751332699166985548e-14, 8.03289077536357521100e-14,
    -2.98009692317273043925e-13, 1.14034058820847496303e-12, -4.51459788337394416547e-12,
    1.85594911495471785253e-11, -7.95748924447710747776e-11, 3.57739728140030116597e-10,
    -1.69753450938905987466e-09, 8.57403401741422608519e-09, -4.66048989768794782956e-08,
    2.76681363944501510342e-07, -1.83175552271911948767e-06, 1.39498137188764993662e-05,
    -1.28495495816278026384e-04, 1.56988388573005337491e-03, -3.14481013119645005427e-02,
    2.44030308206595545468e00,
)  # fmt: skip
_K1_A = (
    -7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13,
    -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06,
    -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
    -3.53155960776544875667e-01, 1.52530022733894777053e00,
)  # fmt: skip
_K1_B = (
    -5.75674448366501715755e-18, 1.79405087314755922667e-17, -5.68946255844285935196e-17,
    1.83809354436663880070e-16, -6.05704724837331885336e-16, 2.03870316562433424052e-15,
    -7.01983709041831346144e-15, 2.47715442448130437068e-14, -8.97670518232499435011e-14,
    3.34841966607842919884e-13, -1.28917396095102890680e-12, 5.13963967348173025100e-12,
    -2.12996783842756842877e-11, 9.21831518760500529508e-11, -4.19035475934189648750e-10,
    2.01504975519703286596e-09, -1.03457624656780970260e-08, 5.74108412545004946722e-08,
    -3.50196060308781257119e-07, 2.40648494783721712015e-06, -1.93619797416608296024e-05,
    1.95215518471351631108e-04, -2.85781685962277938680e-03, 1.03923736576817238437e-01,
    2.72062619048444266945e00,
)  # fmt: skip


def _div(a: float, b: float) -> float:
    """a / b with IEEE results (inf / inf is nan, x / 0 is +-inf) where Python would raise."""
    try:
        return a / b
    except ZeroDivisionError:
        return NAN if a == 0 or math.isnan(a) else math.copysign(INF, a) * math.copysign(1.0, b)


def _mul(a: float, b: float) -> float:
    return NAN if (math.isinf(a) and b == 0) or (math.isinf(b) and a == 0) else a * b


def modified_bessel_i0_forward(x: float) -> float:
    ax = abs(x)
    if ax <= 8.0:
        return _mul(_exp(ax), chbevl(ax / 2.0 - 2.0, I0E_A))
    return _div(_mul(_exp(ax), chbevl(32.0 / ax - 2.0, I0E_B)), math.sqrt(ax))


def modified_bessel_i1_forward(x: float) -> float:
    ax = abs(x)
    if ax <= 8.0:
        out = _mul(chbevl(ax / 2.0 - 2.0, I1E_A) * ax, _exp(ax))
    else:
        out = _div(_mul(_exp(ax), chbevl(32.0 / ax - 2.0, I1E_B)), math.sqrt(ax))
    return -out if x < 0.0 else out


def _k_small(x: float, table: tuple[float, ...]) -> float:
    return chbevl(x * x - 2.0, table)


def modified_bessel_k0_forward(x: float) -> float:
    if x == 0.0:
        return INF
    if x < 0.0:
        return NAN
    if x <= 2.0:
        return _k_small(x, _K0_A) - math.log(0.5 * x) * modified_bessel_i0_forward(x)
    return _div(_exp(-x) * chbevl(8.0 / x - 2.0, _K0_B), math.sqrt(x))


def scaled_modified_bessel_k0_forward(x: float) -> float:
    if x == 0.0:
        return INF
    if x < 0.0:
        return NAN
    if x <= 2.0:
        k0 = _k_small(x, _K0_A) - math.log(0.5 * x) * modified_bessel_i0_forward(x)
        return k0 * _exp(x)
    return _div(chbevl(8.0 / x - 2.0, _K0_B), math.sqrt(x))


def modified_bessel_k1_forward(x: float) -> float:
    if x == 0.0:
        return INF
    if x < 0.0:
        return NAN
    if x <= 2.0:
        return math.log(0.5 * x) * modified_bessel_i1_forward(x) + _k_small(x, _K1_A) / x
    return _div(_exp(-x) * chbevl(8.0 / x - 2.0, _K1_B), math.sqrt(x))


def scaled_modified_bessel_k1_forward(x: float) -> float:
    if x == 0.0:
        return INF
    if x < 0.0:
        return NAN
    if x <= 2.0:
        k1 = math.log(0.5 * x) * modified_bessel_i1_forward(x) + _k_small(x, _K1_A) / x
        return k1 * _exp(x)
    return _div(chbevl(8.0 / x - 2.0, _K1_B), math.sqrt(x))


def spherical_bessel_j0_forward(x: float) -> float:
    if math.isinf(x):
        return 0.0
    if abs(x) < 0.5:
        x2 = x * x
        return 1.0 + x2 * (
            -1.0 / 6.0
            + x2
            * (
                1.0 / 120.0
                + x2
                * (
                    -1.0 / 5040.0
                    + x2 * (1.0 / 362880.0 + x2 * (-1.0 / 39916800.0 + x2 * (1.0 / 6227020800.0)))
                )
            )
        )
    return math.sin(x) / x
