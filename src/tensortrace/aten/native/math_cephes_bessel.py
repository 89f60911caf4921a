"""The Bessel functions of torch.special beyond j0 / j1: bessel_y0 / y1 (which reuse
math_cephes.py's j0 / j1 and their Hankel tables), modified_bessel_i0 / i1 / k0 / k1, the
exponentially scaled scaled_modified_bessel_k0 / k1, and spherical_bessel_j0, one element at
a time.

Mirrors `modified_bessel_i0_forward` .. `spherical_bessel_j0_forward` of
`aten/src/ATen/native/Math.h` (Cephes: Y0 / Y1 a rational function of x^2 up to 5, then the
Hankel form; the Chebyshev expansions of I0 / I1 share math_cephes.py's i0e / i1e tables, K0 / K1
have their own on [0, 2] in x^2 and on [2, inf) in 8 / x).
"""

from __future__ import annotations

import math

from tensortrace.aten.native.math_cephes import (
    _J0_PP,
    _J0_PQ,
    _J0_QP,
    _J0_QQ,
    _J1_PP,
    _J1_PQ,
    _J1_QP,
    _J1_QQ,
    _SQRT_2_OVER_PI,
    I0E_A,
    I0E_B,
    I1E_A,
    I1E_B,
    _exp,
    _trig,
    bessel_j0_forward,
    bessel_j1_forward,
    chbevl,
    polevl,
)

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


_Y0_YP = (
    1.55924367855235737965e04, -1.46639295903971606143e07, 5.43526477051876500413e09,
    -9.82136065717911466409e11, 8.75906394395366999549e13, -3.46628303384729719441e15,
    4.42733268572569800351e16, -1.84950800436986690637e16,
)  # fmt: skip
_Y0_YQ = (
    1.04128353664259848412e03, 6.26107330137134956842e05, 2.68919633393814121987e08,
    8.64002487103935000337e10, 2.02979612750105546709e13, 3.17157752842975028269e15,
    2.50596256172653059228e17,
)  # fmt: skip
_Y1_YP = (
    1.26320474790178026440e09, -6.47355876379160291031e11, 1.14509511541823727583e14,
    -8.12770255501325109621e15, 2.02439475713594898196e17, -7.78877196265950026825e17,
)  # fmt: skip
_Y1_YQ = (
    5.94301592346128195359e02, 2.35564092943068577943e05, 7.34811944459721705660e07,
    1.87601316108706159478e10, 3.88231277496238566008e12, 6.20557727146953693363e14,
    6.87141087355300489866e16, 3.97270608116560655612e18,
)  # fmt: skip
_TWO_OVER_PI = 0.636619772367581343075535053490057448


def _hankel_y(x: float, z: float, pp: tuple[float, ...], pq: tuple[float, ...],
              qp: tuple[float, ...], qq: tuple[float, ...], shift: float) -> float:  # fmt: skip
    """(P sin(x - shift) + 5 / x Q cos(x - shift)) sqrt(2 / pi) / sqrt(x), P and Q in z."""
    p = polevl(z, pp) / polevl(z, pq)
    q = polevl(z, qp) / polevl(z, qq)
    s, c = _trig(math.sin, x - shift), _trig(math.cos, x - shift)
    return (p * s + 5.0 / x * q * c) * _SQRT_2_OVER_PI / math.sqrt(x)


def bessel_y0_forward(x: float) -> float:
    if x <= 5.0:
        if x == 0.0:
            return -INF
        if x < 0.0:
            return NAN
        yp = polevl(x * x, _Y0_YP)
        yq = polevl(x * x, _Y0_YQ)
        return yp / yq + _TWO_OVER_PI * math.log(x) * bessel_j0_forward(x)
    if math.isnan(x):
        return x
    z = 25.0 / (x * x)
    return _hankel_y(x, z, _J0_PP, _J0_PQ, _J0_QP, _J0_QQ, 0.785398163397448309615660845819875721)


def bessel_y1_forward(x: float) -> float:
    if x <= 5.0:
        if x == 0.0:
            return -INF
        if x <= 0.0:
            return NAN
        yp = polevl(x * x, _Y1_YP)
        yq = polevl(x * x, _Y1_YQ)
        return x * (yp / yq) + _TWO_OVER_PI * (bessel_j1_forward(x) * math.log(x) - 1.0 / x)
    if math.isnan(x):
        return x
    z = 5.0 / x * (5.0 / x)
    return _hankel_y(x, z, _J1_PP, _J1_PQ, _J1_QP, _J1_QQ, 2.356194490192344928846982537459627163)


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
