"""The scalar special functions behind the gamma-family, erfinv, Bessel and ndtri kernels.

Mirrors `aten/src/ATen/native/Math.h`: calc_erfinv (Pavlis's rational approximation refined
by two Newton steps), and the functions derived from the Cephes Math Library (Note [3-Clause
BSD License for the Cephes Math Library] there): zeta (Hurwitz, Euler-Maclaurin), calc_digamma's
coefficients (its array form, in the tensor's dtype, is the digamma kernel's), trigamma,
calc_polygamma, chbevl and the
Chebyshev expansions of calc_i0 / calc_i0e / calc_i1 / calc_i1e, calc_ndtri; lgamma is
std::lgamma. Each works on one Python float (a double); the CPU kernels
(cpu/unary_special_ops_kernel.py) map them over an array and round to its dtype.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

INF = math.inf
NAN = math.nan


def calc_erfinv(y: float) -> float:
    a = (0.886226899, -1.645349621, 0.914624893, -0.140543331)
    b = (-2.118377725, 1.442710462, -0.329097515, 0.012229801)
    c = (-1.970840454, -1.624906493, 3.429567803, 1.641345311)
    d = (3.543889200, 1.637067800)
    y_abs = abs(y)
    if math.isnan(y) or y_abs > 1.0:
        return NAN
    if y_abs == 1.0:
        return math.copysign(INF, y)
    if y_abs <= 0.7:  # CENTRAL_RANGE
        z = y * y
        num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0]
        dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1.0
        x = y * num / dem
    else:
        z = math.sqrt(-math.log((1.0 - y_abs) / 2.0))
        num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0]
        dem = (d[1] * z + d[0]) * z + 1.0
        x = math.copysign(num, y) / dem
    # two steps of Newton-Raphson correction
    two_over_sqrt_pi = 2.0 / math.sqrt(math.pi)
    x = x - (math.erf(x) - y) / (two_over_sqrt_pi * math.exp(-x * x))
    x = x - (math.erf(x) - y) / (two_over_sqrt_pi * math.exp(-x * x))
    return x


def lgamma(x: float) -> float:
    """std::lgamma: +inf at the poles (Python's math.lgamma raises there)."""
    try:
        return math.lgamma(x)
    except (ValueError, OverflowError):
        return INF


_ZETA_A = (
    12.0,
    -720.0,
    30240.0,
    -1209600.0,
    47900160.0,
    -1.8924375803183791606e9,
    7.47242496e10,
    -2.950130727918164224e12,
    1.1646782814350067249e14,
    -4.5979787224074726105e15,
    1.8152105401943546773e17,
    -7.1661652561756670113e18,
)


def zeta(x: float, q: float) -> float:
    """The Hurwitz zeta function sum_k (k + q)^-x."""
    machep = 1.11022302462515654042e-16
    if x == 1.0:
        return INF
    if x < 1.0:
        return NAN
    if q <= 0.0:
        if q == math.floor(q):
            return INF
        if x != math.floor(x):
            return NAN  # q^-x is not defined
    s = _pow(q, -x)
    a = q
    i = 0
    b = 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = _pow(a, -x)
        s += b
        if -machep * s < b < machep * s:
            return s
    w = a
    s += b * w / (x - 1.0)
    s -= 0.5 * b
    a = 1.0
    k = 0.0
    for coefficient in _ZETA_A:
        a *= x + k
        b /= w
        t = a * b / coefficient
        s = s + t
        if abs(t / s) < machep:
            return s
        k += 1.0
        a *= x + k
        b /= w
        k += 1.0
    return s


def _pow(a: float, b: float) -> float:
    try:
        return math.pow(a, b)
    except (ValueError, ZeroDivisionError):
        return NAN if a < 0 else INF
    except OverflowError:
        return INF


def polevl(x: float, coefficients: Sequence[float]) -> float:
    """C_0 x^N + ... + C_N: the coefficients are stored highest power first."""
    result = 0.0
    for c in coefficients:
        result = result * x + c
    return result


DIGAMMA_A = (
    8.33333333333333333333e-2,
    -2.10927960927960927961e-2,
    7.57575757575757575758e-3,
    -4.16666666666666666667e-3,
    3.96825396825396825397e-3,
    -8.33333333333333333333e-3,
    8.33333333333333333333e-2,
)
PSI_10 = 2.25175258906672110764


def trigamma(x_: float, single: bool = False) -> float:
    """Math.h's trigamma; its float overload computes in float, as here when `single` (near a
    pole, where sin(pi x) is not exactly 0 in float, the two differ)."""
    T = np.float32 if single else np.float64  # noqa: N806 - the C++ template parameter
    x = T(x_)
    sign = T(1)
    result = T(0)
    with np.errstate(all="ignore"):
        if x < T(0.5):
            sign = T(-1)
            sin_pi_x = np.sin(T(math.pi) * x)
            result -= (T(math.pi) * T(math.pi)) / (sin_pi_x * sin_pi_x)
            x = T(1) - x
        for _ in range(6):
            result += T(1) / (x * x)
            x += T(1)
        ixx = T(1) / (x * x)
        tail = T(1) / T(6) - ixx * (T(1) / T(30) - ixx * (T(1) / T(42)))
        result += (T(1) + T(1) / (T(2) * x) + ixx * tail) / x
    return float(sign * result)


def calc_polygamma(x: float, n: int) -> float:
    """(-1)^(n+1) n! zeta(n + 1, x), for n >= 2 (the kernel calls digamma / trigamma below)."""
    sign = 1.0 if n % 2 else -1.0
    return sign * math.exp(lgamma(n + 1.0)) * zeta(n + 1.0, x)


def chbevl(x: float, array: Sequence[float]) -> float:
    """The Chebyshev series sum' array[i] T_i(x/2), zero order term last."""
    b0 = array[0]
    b1 = 0.0
    b2 = 0.0
    for c in array[1:]:
        b2 = b1
        b1 = b0
        b0 = x * b1 - b2 + c
    return 0.5 * (b0 - b2)


# exp(-x) I0(x) on [0, 8], then exp(-x) sqrt(x) I0(x) on the inverted interval [8, inf)
I0E_A = (
    -4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
    1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
    -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
    9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-9,
    -1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7,
    1.11738753912010371815e-6, -4.41673835845875056359e-6, 1.64484480707288970893e-5,
    -5.75419501008210370398e-5, 1.88502885095841655729e-4, -5.76375574538582365885e-4,
    1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2,
    -2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2,
    1.71620901522208775349e-1, -3.04682672343198398683e-1, 6.76795274409476084995e-1,
)  # fmt: skip
I0E_B = (
    -7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
    3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
    1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
    -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
    7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
    -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
    3.39623202570838634515e-9, 2.26666899049817806459e-8, 2.04891858946906374183e-7,
    2.89137052083475648297e-6, 6.88975834691682398426e-5, 3.36911647825569408990e-3,
    8.04490411014108831608e-1,
)  # fmt: skip
# exp(-x) I1(x) / x on [0, 8] and exp(-x) sqrt(x) I1(x) on [8, inf): the double tables (the
# float kernels use their last 17 and 7 terms)
I1E_A = (
    2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16,
    -1.10559694773538630805e-15, 7.60068429473540693410e-15, -5.04218550472791168711e-14,
    3.22379336594557470981e-13, -1.98397439776494371520e-12, 1.17361862988909016308e-11,
    -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-9,
    9.38153738649577178388e-9, -4.44505912879632808065e-8, 2.00329475355213526229e-7,
    -8.56872026469545474066e-7, 3.47025130813767847674e-6, -1.32731636560394358279e-5,
    4.78156510755005422638e-5, -1.61760815825896745588e-4, 5.12285956168575772895e-4,
    -1.51357245063125314899e-3, 4.15642294431288815669e-3, -1.05640848946261981558e-2,
    2.47264490306265168283e-2, -5.29459812080949914269e-2, 1.02643658689847095384e-1,
    -1.76416518357834055153e-1, 2.52587186443633654823e-1,
)  # fmt: skip
I1E_B = (
    7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17,
    -3.20952592199342395980e-17, 2.96262899764595013876e-16, 3.30820231092092828324e-16,
    -1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
    4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
    -7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11,
    3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10,
    -3.83538038596423702205e-9, -2.63146884688951950684e-8, -2.51223623787020892529e-7,
    -3.88256480887769039346e-6, -1.10588938762623716291e-4, -9.76109749136146840777e-3,
    7.78576235018280120474e-1,
)  # fmt: skip


def _i1e_tables(single: bool) -> tuple[Sequence[float], Sequence[float]]:
    return (I1E_A[-17:], I1E_B[-7:]) if single else (I1E_A, I1E_B)


def calc_i0e(x_: float, single: bool = False) -> float:
    x = abs(x_)
    if x <= 8.0:
        return chbevl(x / 2.0 - 2.0, I0E_A)
    return chbevl(32.0 / x - 2.0, I0E_B) / math.sqrt(x)


def calc_i0(x_: float, single: bool = False) -> float:
    x = abs(x_)
    return _exp(x) * calc_i0e(x) if not math.isnan(x) else x


def calc_i1e(x_: float, single: bool = False) -> float:
    x = abs(x_)
    a, b = _i1e_tables(single)
    out = chbevl(x / 2.0 - 2.0, a) * x if x <= 8.0 else chbevl(32.0 / x - 2.0, b) / math.sqrt(x)
    return -out if x_ < 0.0 else out


def calc_i1(x_: float, single: bool = False) -> float:
    x = abs(x_)
    a, b = _i1e_tables(single)
    if x <= 8.0:
        out = _exp(x) * x * chbevl(x / 2.0 - 2.0, a)
    else:
        out = _exp(x) * chbevl(32.0 / x - 2.0, b) / math.sqrt(x)
    return -out if x_ < 0.0 else out


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return INF


# calc_ndtri's rational approximations: |y - 0.5| <= 3/8, then z = sqrt(-2 log y) in [2, 8]
# and in [8, 64]
_NDTRI_P0 = (
    -5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
    1.39312609387279679503e1, -1.23916583867381258016e0,
)  # fmt: skip
_NDTRI_Q0 = (
    1.00000000000000000000e0, 1.95448858338141759834e0, 4.67627912898881538453e0,
    8.63602421390890590575e1, -2.25462687854119370527e2, 2.00260212380060660359e2,
    -8.20372256168333339912e1, 1.59056225126211695515e1, -1.18331621121330003142e0,
)  # fmt: skip
_NDTRI_P1 = (
    4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1,
    4.40805073893200834700e1, 1.46849561928858024014e1, 2.18663306850790267539e0,
    -1.40256079171354495875e-1, -3.50424626827848203418e-2, -8.57456785154685413611e-4,
)  # fmt: skip
_NDTRI_Q1 = (
    1.00000000000000000000e0, 1.57799883256466749731e1, 4.53907635128879210584e1,
    4.13172038254672030440e1, 1.50425385692907503408e1, 2.50464946208309415979e0,
    -1.42182922854787788574e-1, -3.80806407691578277194e-2, -9.33259480895457427372e-4,
)  # fmt: skip
_NDTRI_P2 = (
    3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0,
    1.33303460815807542389e0, 2.01485389549179081538e-1, 1.23716634817820021358e-2,
    3.01581553508235416007e-4, 2.65806974686737550832e-6, 6.23974539184983293730e-9,
)  # fmt: skip
_NDTRI_Q2 = (
    1.00000000000000000000e0, 6.02427039364742014255e0, 3.67983563856160859403e0,
    1.37702099489081330271e0, 2.16236993594496635890e-1, 1.34204006088543189037e-2,
    3.28014464682127739104e-4, 2.89247864745380683936e-6, 6.79019408009981274425e-9,
)  # fmt: skip


def calc_ndtri(y0: float) -> float:
    """The x where the standard normal CDF is y0."""
    s2pi = 2.50662827463100050242e0  # sqrt(2 pi)
    if y0 == 0.0:
        return -INF
    if y0 == 1.0:
        return INF
    if not 0.0 < y0 < 1.0:
        return NAN
    code = True
    y = y0
    if y > 1.0 - 0.13533528323661269189:  # exp(-2)
        y = 1.0 - y
        code = False
    if y > 0.13533528323661269189:
        y = y - 0.5
        y2 = y * y
        x = y + y * (y2 * polevl(y2, _NDTRI_P0) / polevl(y2, _NDTRI_Q0))
        return x * s2pi
    x = math.sqrt(-2.0 * math.log(y))
    x0 = x - math.log(x) / x
    z = 1.0 / x
    if x < 8.0:  # y > exp(-32)
        x1 = z * polevl(z, _NDTRI_P1) / polevl(z, _NDTRI_Q1)
    else:
        x1 = z * polevl(z, _NDTRI_P2) / polevl(z, _NDTRI_Q2)
    x = x0 - x1
    return -x if code else x


def calc_entr(x: float) -> float:
    """-x log x, 0 at 0, -inf below."""
    if math.isnan(x):
        return x
    if x > 0:
        return -x * math.log(x)
    if x == 0:
        return 0.0
    return -INF


# bessel_j0_forward / bessel_j1_forward (Cephes's j0 / j1): a rational function of x^2 up to 5,
# then the Hankel asymptotic form in 25 / x^2
_J0_PP = (
    7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e00,
    5.44725003058768775090e00, 8.74716500199817011941e00, 5.30324038235394892183e00,
    9.99999999999999997821e-01,
)  # fmt: skip
_J0_PQ = (
    9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e00,
    5.47097740330417105182e00, 8.76190883237069594232e00, 5.30605288235394617618e00,
    1.00000000000000000218e00,
)  # fmt: skip
_J0_QP = (
    -1.13663838898469149931e-02, -1.28252718670509318512e00, -1.95539544257735972385e01,
    -9.32060152123768231369e01, -1.77681167980488050595e02, -1.47077505154951170175e02,
    -5.14105326766599330220e01, -6.05014350600728481186e00,
)  # fmt: skip
_J0_QQ = (
    6.43178256118178023184e01, 8.56430025976980587198e02, 3.88240183605401609683e03,
    7.24046774195652478189e03, 5.93072701187316984827e03, 2.06209331660327847417e03,
    2.42005740240291393179e02,
)  # fmt: skip
_J0_RP = (
    -4.79443220978201773821e09, 1.95617491946556577543e12, -2.49248344360967716204e14,
    9.70862251047306323952e15,
)  # fmt: skip
_J0_RQ = (
    4.99563147152651017219e02, 1.73785401676374683123e05, 4.84409658339962045305e07,
    1.11855537045356834862e10, 2.11277520115489217587e12, 3.10518229857422583814e14,
    3.18121955943204943306e16, 1.71086294081043136091e18,
)  # fmt: skip
_J1_PP = (
    7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e00,
    5.11207951146807644818e00, 8.42404590141772420927e00, 5.21451598682361504063e00,
    1.00000000000000000254e00,
)  # fmt: skip
_J1_PQ = (
    5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e00,
    5.07386386128601488557e00, 8.39985554327604159757e00, 5.20982848682361821619e00,
    9.99999999999999997461e-01,
)  # fmt: skip
_J1_QP = (
    5.10862594750176621635e-02, 4.98213872951233449420e00, 7.58238284132545283818e01,
    3.66779609360150777800e02, 7.10856304998926107277e02, 5.97489612400613639965e02,
    2.11688757100572135698e02, 2.52070205858023719784e01,
)  # fmt: skip
_J1_QQ = (
    7.42373277035675149943e01, 1.05644886038262816351e03, 4.98641058337653607651e03,
    9.56231892404756170795e03, 7.99704160447350683650e03, 2.82619278517639096600e03,
    3.36093607810698293419e02,
)  # fmt: skip
_J1_RP = (
    -8.99971225705559398224e08, 4.52228297998194034323e11, -7.27494245221818276015e13,
    3.68295732863852883286e15,
)  # fmt: skip
_J1_RQ = (
    6.20836478118054335476e02, 2.56987256757748830383e05, 8.35146791431949253037e07,
    2.21511595479792499675e10, 4.74914122079991414898e12, 7.84369607876235854894e14,
    8.95222336184627338078e16, 5.32278620332680085395e18,
)  # fmt: skip
_SQRT_2_OVER_PI = 0.797884560802865355879892119868763737


def _trig(fn: Any, x: float) -> float:
    """C's cos / sin: NaN at +-inf (Python's math raises there)."""
    return fn(x) if math.isfinite(x) else NAN


def _hankel(x: float, pp: Sequence[float], pq: Sequence[float], qp: Sequence[float],
            qq: Sequence[float], shift: float) -> float:  # fmt: skip
    z = 5.0 / x * (5.0 / x)
    p = polevl(z, pp) / polevl(z, pq)
    q = polevl(z, qp) / polevl(z, qq)
    return (
        (p * _trig(math.cos, x - shift) - 5.0 / x * q * _trig(math.sin, x - shift))
        * _SQRT_2_OVER_PI
        / math.sqrt(x)
    )


def bessel_j0_forward(x: float) -> float:
    if x < 0.0:
        x = -x
    if x <= 5.0:
        if x < 0.00001:
            return 1.0 - x * x / 4.0
        rp = polevl(x * x, _J0_RP)
        rq = polevl(x * x, _J0_RQ)
        return (x * x - 5.78318596294678452118e00) * (x * x - 3.04712623436620863991e01) * rp / rq
    if math.isnan(x):
        return x
    return _hankel(x, _J0_PP, _J0_PQ, _J0_QP, _J0_QQ, 0.785398163397448309615660845819875721)


def bessel_j1_forward(x: float) -> float:
    if x < 0.0:
        return -bessel_j1_forward(-x)
    if x <= 5.0:
        rp = polevl(x * x, _J1_RP)
        rq = polevl(x * x, _J1_RQ)
        return (
            rp / rq * x * (x * x - 1.46819706421238932572e01) * (x * x - 4.92184563216946036703e01)
        )
    if math.isnan(x):
        return x
    return _hankel(x, _J1_PP, _J1_PQ, _J1_QP, _J1_QQ, 2.356194490192344928846982537459627163)
