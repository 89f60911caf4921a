"""torch.special.airy_ai, one element at a time: the Airy function Ai(x).

Mirrors `airy_ai_forward` of `aten/src/ATen/native/Math.h` (Cephes's airy): the oscillating
asymptotic form below -2.09, the decaying one from 2.09 (alone past 8.3203353), and the Maclaurin
series f - g in between; 0 past 103.892 and nan at +-inf.
"""

from __future__ import annotations

import math

from tensortrace.aten.native.math_cephes import _exp, _trig, polevl

NAN = math.nan
_AN = (
    3.46538101525629032477e-01, 1.20075952739645805542e01, 7.62796053615234516538e01,
    1.68089224934630576269e02, 1.59756391350164413639e02, 7.05360906840444183113e01,
    1.40264691163389668864e01, 9.99999999999999995305e-01,
)  # fmt: skip
_AD = (
    5.67594532638770212846e-01, 1.47562562584847203173e01, 8.45138970141474626562e01,
    1.77318088145400459522e02, 1.64234692871529701831e02, 7.14778400825575695274e01,
    1.40959135607834029598e01, 1.00000000000000000470e00,
)  # fmt: skip
_AFN = (
    -1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
    -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
    -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08,
)  # fmt: skip
_AFD = (
    1.33560420706553243746e01, 3.26825032795224613948e01, 2.67367040941499554804e01,
    9.18707402907259625840e00, 1.47529146771666414581e00, 1.15687173795188044134e-01,
    4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07,
)  # fmt: skip
_AGN = (
    1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e00,
    9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
    5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
    8.11789239554389293311e-08, 3.41551784765923618484e-10,
)  # fmt: skip
_AGD = (
    9.30892908077441974853e00, 1.98352928718312140417e01, 1.55646628932864612953e01,
    5.47686069422975497931e00, 9.54293611618961883998e-01, 8.64580826352392193095e-02,
    4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06,
    4.91834570062930015649e-09,
)  # fmt: skip
_SQRT_INV_PI = 5.64189583547756286948e-01  # 1 / sqrt(pi)
_C1 = 0.355028053887817239260  # Ai(0)
_C2 = 0.258819403792806798405  # -Ai'(0)
_MACHEP = 1.11022302462515654042e-16


def airy_ai_forward(x: float) -> float:
    if math.isinf(x):
        return NAN
    if x > 103.892:
        return 0.0
    if x < -2.09:
        z = 1.0 / (-2.0 * x * math.sqrt(-x) / 3.0)
        zz = z * z
        afn, afd = polevl(zz, _AFN), polevl(zz, _AFD)
        agn, agd = polevl(zz, _AGN), polevl(zz, _AGD)
        t = -2.0 * x * math.sqrt(-x) / 3.0 + 0.25 * 3.14159265358979323846
        return (
            _SQRT_INV_PI
            / math.sqrt(math.sqrt(-x))
            * (
                _trig(math.sin, t) * (1.0 + z * z * afn / afd)
                - _trig(math.cos, t) * (z * agn / agd)
            )
        )
    if x >= 2.09:
        zeta = 2.0 * x * math.sqrt(x) / 3.0
        an, ad = polevl(1.0 / zeta, _AN), polevl(1.0 / zeta, _AD)
        # (the C++ runs the series below for x <= 8.3203353 too, and then returns this)
        return _SQRT_INV_PI * (an / ad) / (2.0 * math.sqrt(math.sqrt(x)) * _exp(zeta))
    f, g, k = 1.0, x, 1.0
    m, n, t = 1.0, x, 1.0
    z = x * x * x
    while t > _MACHEP:
        m *= z
        k += 1.0
        m /= k
        n *= z
        k += 1.0
        n /= k
        m /= k
        f += m
        k += 1.0
        n /= k
        g += n
        t = abs(m / f)
    return _C1 * f - _C2 * g
