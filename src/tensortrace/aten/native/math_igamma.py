"""The regularized incomplete gamma functions, one element at a time: calc_igamma (P(a, x),
torch.igamma / special.gammainc) and calc_igammac (Q(a, x) = 1 - P, torch.igammac /
special.gammaincc).

Mirrors `calc_igamma` / `calc_igammac` and their `_igam_helper_*` / `_igamc_helper_*` of
`aten/src/ATen/native/Math.h` (Cephes's igam.c as SciPy rewrote it): Temme's uniform asymptotic
series near the transition a ~ x for large a, else the power series of P, the series of Q for
small x, or Q's continued fraction; all in double.
"""

from __future__ import annotations

import math

from tensortrace.aten.native.math_cephes import lgamma
from tensortrace.aten.native.math_igamma_coeff import IGAM_ASYMP_COEFF_D

NAN = math.nan
MACHEP = 1.11022302462515654042e-16
MAXLOG = 7.09782712893383996843e2
_MAXITER = 2000
_SMALL, _LARGE, _SMALLRATIO, _LARGERATIO = 20.0, 200.0, 0.3, 4.5
_BIG, _BIGINV = 4.503599627370496e15, 2.22044604925031308085e-16
_LANCZOS_G = 6.024680040776729583740234375
_LANCZOS_NUM = (
    0.006061842346248906525783753964555936883222, 0.5098416655656676188125178644804694509993,
    19.51992788247617482847860966235652136208, 449.9445569063168119446858607650988409623,
    6955.999602515376140356310115515198987526, 75999.29304014542649875303443598909137092,
    601859.6171681098786670226533699352302507, 3481712.15498064590882071018964774556468,
    14605578.08768506808414169982791359218571, 43338889.32467613834773723740590533316085,
    86363131.28813859145546927288977868422342, 103794043.1163445451906271053616070238554,
    56906521.91347156388090791033559122686859,
)  # fmt: skip
_LANCZOS_DENOM = (
    1.0, 66.0, 1925.0, 32670.0, 357423.0, 2637558.0, 13339535.0, 45995730.0, 105258076.0,
    150917976.0, 120543840.0, 39916800.0, 0.0,
)  # fmt: skip


def _ratevl(x: float, num: tuple[float, ...], denom: tuple[float, ...]) -> float:
    """num(x) / denom(x), coefficients lowest power last; in 1 / x when |x| > 1."""
    if abs(x) > 1:
        y, n_coeffs, d_coeffs = 1.0 / x, num[::-1], denom[::-1]
    else:
        y, n_coeffs, d_coeffs = x, num, denom
    n_ans = 0.0
    for c in n_coeffs:
        n_ans = n_ans * y + c
    d_ans = 0.0
    for c in d_coeffs:
        d_ans = d_ans * y + c
    if abs(x) > 1:
        return x ** (len(num) - len(denom)) * n_ans / d_ans
    return n_ans / d_ans


def _lanczos_sum_expg_scaled(x: float) -> float:
    return _ratevl(x, _LANCZOS_NUM, _LANCZOS_DENOM)


def _log1pmx(x: float) -> float:
    return math.log1p(x) - x


def _igam_helper_fac(a: float, x: float) -> float:
    """x^a e^-x / Gamma(a), with the Lanczos approximation near a ~ x."""
    if abs(a - x) > 0.4 * abs(a):
        ax = a * math.log(x) - x - lgamma(a)
        if ax < -MAXLOG:
            return 0.0
        return math.exp(ax)
    fac = a + _LANCZOS_G - 0.5
    res = math.sqrt(fac / math.e) / _lanczos_sum_expg_scaled(a)
    if a < 200 and x < 200:
        res *= math.exp(a - x) * math.pow(x / fac, a)
    else:
        num = x - a - _LANCZOS_G + 0.5
        res *= math.exp(a * _log1pmx(num / fac) + x * (0.5 - _LANCZOS_G) / fac)
    return res


def _igam_helper_series(a: float, x: float) -> float:
    ax = _igam_helper_fac(a, x)
    if ax == 0.0:
        return 0.0
    r, c, ans = a, 1.0, 1.0
    for _ in range(_MAXITER):
        r += 1.0
        c *= x / r
        ans += c
        if c <= MACHEP * ans:
            break
    return ans * ax / a


def _igamc_helper_series(a: float, x: float) -> float:
    fac, total = 1.0, 0.0
    for n in range(1, _MAXITER):
        fac *= -x / n
        term = fac / (a + n)
        total += term
        if abs(term) <= MACHEP * abs(total):
            break
    logx = math.log(x)
    term = -math.expm1(a * logx - lgamma(1 + a))
    return term - math.exp(a * logx - lgamma(a)) * total


def _igamc_helper_continued_fraction(a: float, x: float) -> float:
    ax = _igam_helper_fac(a, x)
    if ax == 0.0:
        return 0.0
    y = 1.0 - a
    z = x + y + 1.0
    c = 0.0
    pkm2, qkm2 = 1.0, x
    pkm1, qkm1 = x + 1.0, z * x
    ans = pkm1 / qkm1
    for _ in range(_MAXITER):
        c += 1.0
        y += 1.0
        z += 2.0
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        if qk != 0:
            r = pk / qk
            t = abs((ans - r) / r)
            ans = r
        else:
            t = 1.0
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        if abs(pk) > _BIG:
            pkm2 *= _BIGINV
            pkm1 *= _BIGINV
            qkm2 *= _BIGINV
            qkm1 *= _BIGINV
        if t <= MACHEP:
            break
    return ans * ax


def _igam_helper_asymptotic_series(a: float, x: float, igam: bool) -> float:
    """Temme's uniform asymptotic expansion (DLMF 8.12.3 / 8.12.4)."""
    sgn = -1.0 if igam else 1.0
    lam, sigma = x / a, (x - a) / a
    if lam > 1:
        eta = math.sqrt(-2 * _log1pmx(sigma))
    elif lam < 1:
        eta = -math.sqrt(-2 * _log1pmx(sigma))
    else:
        eta = 0.0
    res = 0.5 * math.erfc(sgn * eta * math.sqrt(a / 2))
    n_coeffs = len(IGAM_ASYMP_COEFF_D[0])
    etapow = [1.0] + [0.0] * (n_coeffs - 1)
    maxpow, total, afac, absoldterm = 0, 0.0, 1.0, math.inf
    for row in IGAM_ASYMP_COEFF_D:
        ck = row[0]
        for n in range(1, n_coeffs):
            if n > maxpow:
                etapow[n] = eta * etapow[n - 1]
                maxpow += 1
            ckterm = row[n] * etapow[n]
            ck += ckterm
            if abs(ckterm) < MACHEP * abs(ck):
                break
        term = ck * afac
        absterm = abs(term)
        if absterm > absoldterm:
            break
        total += term
        if absterm < MACHEP * abs(total):
            break
        absoldterm = absterm
        afac /= a
    return res + sgn * math.exp(-0.5 * a * eta * eta) * total / math.sqrt(2 * math.pi * a)


def _asymptotic_region(a: float, x: float) -> bool:
    absxma_a = abs(x - a) / a
    if _SMALL < a < _LARGE and absxma_a < _SMALLRATIO:
        return True
    return a > _LARGE and absxma_a < _LARGERATIO / math.sqrt(a)


def calc_igamma(a: float, x: float) -> float:
    if x < 0 or a < 0:  # (no NaN check first: igamma(nan, 0) is 0, as in torch)
        return NAN
    if a == 0:
        return 1.0 if x > 0 else NAN
    if x == 0:
        return 0.0
    if math.isinf(a):
        return NAN if math.isinf(x) else 0.0
    if math.isinf(x):
        return 1.0
    if _asymptotic_region(a, x):
        return _igam_helper_asymptotic_series(a, x, True)
    if x > 1.0 and x > a:
        return 1.0 - calc_igammac(a, x)
    return _igam_helper_series(a, x)


def calc_igammac(a: float, x: float) -> float:
    if x < 0 or a < 0:
        return NAN
    if a == 0:
        return 0.0 if x > 0 else NAN
    if x == 0:
        return 1.0
    if math.isinf(a):
        return NAN if math.isinf(x) else 1.0
    if math.isinf(x):
        return 0.0
    if _asymptotic_region(a, x):
        return _igam_helper_asymptotic_series(a, x, False)
    if x > 1.1:
        if x < a:
            return 1.0 - _igam_helper_series(a, x)
        return _igamc_helper_continued_fraction(a, x)
    if x <= 0.5:
        if -0.4 / math.log(x) < a:
            return 1.0 - _igam_helper_series(a, x)
        return _igamc_helper_series(a, x)
    if x * 1.1 < a:
        return 1.0 - _igam_helper_series(a, x)
    return _igamc_helper_series(a, x)
