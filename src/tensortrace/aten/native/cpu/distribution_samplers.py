"""The per-element samplers of Distributions.h / Distributions.cpp, on torch's CPU generator.

Mirrors `sample_gamma` (Marsaglia and Tsang), `sample_binomial` (BTRS above a mean of 10,
inversion below), `digamma_one` and `standard_gamma_grad_one` in
`aten/src/ATen/native/Distributions.h`, and `sample_poisson` (Hoermann's transformed rejection
above a rate of 10, Knuth's product of uniforms below) in `aten/src/ATen/native/Distributions.cpp`.
The uniforms are `at::uniform_real_distribution<double>(0, 1)` (53 bits of random64()), the
normals `at::normal_distribution<double>(0, 1)` (Box-Muller on two uniforms, the sine half
cached in the generator), so after manual_seed the draws are torch's, word for word.

Distributions.cpp is compiled without FMA contraction (it is not one of the per-capability
native/cpu files), so plain double arithmetic in Python is the C++ arithmetic; `1.0f / 3.0f`
and `0.0331f` are float constants, and a float tensor's alpha is boosted in float, as
scalar_t = float does in C++. libm's log / pow / lgamma are Python's math module (the same libm).
"""

from __future__ import annotations

import math

import numpy as np

from tensortrace.aten.cpu_generator_impl import CPUGeneratorImpl
from tensortrace.aten.native.math_cephes import DIGAMMA_A, PSI_10

__all__ = ["sample_binomial", "sample_gamma", "sample_poisson", "standard_gamma_grad_one"]

_MASK53 = (1 << 53) - 1
_DIVISOR53 = 2.0**-53
ONE_THIRD_F = float(np.float32(1.0) / np.float32(3.0))  # 1.0f / 3.0f
C_0331_F = float(np.float32(0.0331))  # 0.0331f


def _f32(x: float) -> float:
    return float(np.float32(x))


def standard_uniform(gen: CPUGeneratorImpl) -> float:
    """at::uniform_real_distribution<double>(0.0, 1.0)(gen)."""
    return (gen.random64() & _MASK53) * _DIVISOR53


def standard_normal(gen: CPUGeneratorImpl) -> float:
    """at::normal_distribution<double>(0.0, 1.0)(gen): the cached sine half first."""
    cached = gen.next_double_normal_sample
    if cached is not None:
        gen.set_next_double_normal_sample(None)
        return cached
    u1 = standard_uniform(gen)
    u2 = standard_uniform(gen)
    r = math.sqrt(-2.0 * math.log1p(-u2))
    theta = 2.0 * math.pi * u1
    gen.set_next_double_normal_sample(r * math.sin(theta))
    return r * math.cos(theta)


def sample_gamma(alpha: float, gen: CPUGeneratorImpl, is_float: bool) -> float:
    """sample_gamma<scalar_t, double>: Gamma(alpha, 1), boosted by U**(1/alpha) below 1."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        inv_alpha = _f32(1.0 / alpha) if is_float else 1.0 / alpha  # 1.0f / alpha
        scale *= math.pow(1 - standard_uniform(gen), inv_alpha)
        alpha = _f32(alpha + 1.0) if is_float else alpha + 1.0
    d = _f32(alpha - ONE_THIRD_F) if is_float else alpha - ONE_THIRD_F
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = standard_normal(gen)
            y = 1.0 + c * x
            if not y <= 0:
                break
        v = y * y * y
        u = 1 - standard_uniform(gen)
        xx = x * x
        if u < 1.0 - C_0331_F * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def sample_poisson(lam: float, gen: CPUGeneratorImpl) -> int:
    """sample_poisson: the rate was checked >= 0 by the caller."""
    if lam >= 10:
        slam = math.sqrt(lam)
        loglam = math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u_ = standard_uniform(gen) - 0.5
            v_ = standard_uniform(gen)
            us = 0.5 - abs(u_)
            k = int(math.floor((2 * a / us + b) * u_ + lam + 0.43))
            if us >= 0.07 and v_ <= vr:
                return k
            if k < 0 or (us < 0.013 and v_ > us):
                continue
            lhs = math.log(v_) + math.log(invalpha) - math.log(a / (us * us) + b)
            if lhs <= -lam + k * loglam - math.lgamma(float(k) + 1):
                return k
    if lam == 0:
        return 0
    enlam = math.exp(-lam)
    x_ = 0
    prod = 1.0
    while True:
        prod *= standard_uniform(gen)
        if prod > enlam:
            x_ += 1
        else:
            return x_


_K_TAIL_VALUES = (
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
)


def stirling_approx_tail(k: float) -> float:
    if k <= 9:
        return _K_TAIL_VALUES[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binomial_inversion(count: float, prob: float, gen: CPUGeneratorImpl, s: type) -> float:
    geom_sum = 0.0
    num_geom = 0.0
    logprob = float(s(math.log1p(-prob)))  # compat_log1p(scalar_t)
    while True:
        u_ = standard_uniform(gen)
        geom = math.ceil(math.log(u_) / logprob)
        geom_sum += geom
        if geom_sum > count:
            break
        num_geom = float(s(num_geom + 1))
    return num_geom


def _btrs(count: float, prob: float, gen: CPUGeneratorImpl, s: type) -> float:
    """btrs<scalar_t, double>: Hormann's transformed rejection with squeeze."""
    stddev = float(s(math.sqrt(float(s(s(count * prob) * s(1 - prob))))))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = float(s(count * prob)) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(s(prob / s(1 - prob)))
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(float(s(s(count + 1) * prob)))
    while True:
        u_ = standard_uniform(gen) - 0.5
        v_ = standard_uniform(gen)
        us = 0.5 - abs(u_)
        k = float(s(math.floor((2 * a / us + b) * u_ + c)))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v_ <= v_r:
            return k
        v_ = math.log(v_ * alpha / (a / (us * us) + b))
        count_k1 = float(s(s(count - k) + 1))
        upperbound = (
            (m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
            + float(s(count + 1)) * math.log((count - m + 1) / count_k1)
            + (k + 0.5) * math.log(r * count_k1 / float(s(k + 1)))
            + stirling_approx_tail(m)
            + stirling_approx_tail(count - m)
            - stirling_approx_tail(k)
            - stirling_approx_tail(float(s(count - k)))
        )
        if v_ <= upperbound:
            return k


def sample_binomial(count: float, prob: float, gen: CPUGeneratorImpl, is_float: bool) -> float:
    """sample_binomial<scalar_t, double>: BTRS when the mean is >= 10, else inversion."""
    s = np.float32 if is_float else np.float64
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if float(s(count * prob)) >= 10.0:
            return _btrs(count, prob, gen, s)
        return _binomial_inversion(count, prob, gen, s)
    if prob > 0.5:
        qprob = float(s(1.0 - prob))
        if float(s(count * qprob)) >= 10.0:
            return float(s(count - _btrs(count, qprob, gen, s)))
        return float(s(count - _binomial_inversion(count, qprob, gen, s)))
    return math.nan  # prob is nan


def digamma_one(x: float) -> float:
    """digamma_one<double, double> (Distributions.h's own Cephes digamma)."""
    if x == 0:
        return math.inf
    additional_summand = 0.0
    if x < 0:
        if x == math.floor(x):
            return math.inf
        additional_summand = -math.pi / math.tan(math.pi * x)
        x = 1 - x
    result = 0.0
    while x < 10:
        result -= 1 / x
        x += 1
    if x == 10:
        return result + PSI_10 + additional_summand
    y = 0.0
    if x < 1.0e17:
        z = 1.0 / (x * x)
        poly = 0.0
        for coef in DIGAMMA_A:
            poly = poly * z + coef
        y = z * poly
    return result + math.log(x) - (0.5 / x) - y + additional_summand


_COEF_UV = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
    (
        0.53487893,
        0.1298071,
        0.065735949,
        -0.0015649758,
        0.16639465,
        0.020070113,
        -0.0035938915,
        -0.00058392623,
    ),
    (
        0.040121004,
        -0.0065914022,
        -0.0026286047,
        -0.0013441777,
        0.017050642,
        -0.0021309326,
        0.00085092367,
        -1.5247877e-07,
    ),
)


def standard_gamma_grad_one(alpha: float, x: float) -> float:
    """-(d/dalpha cdf(x; alpha)) / pdf(x; alpha): Taylor for small x, Rice saddle point for
    large alpha, else a bivariate rational approximation."""
    if x < 0.8:
        numer = 1.0
        denom = alpha
        series1 = numer / denom
        series2 = numer / (denom * denom)
        for i in range(1, 6):
            numer *= -x / i
            denom += 1
            series1 += numer / denom
            series2 += numer / (denom * denom)
        try:
            pow_x_alpha = math.pow(x, alpha)
            gamma_pdf = math.pow(x, alpha - 1) * math.exp(-x)
            gamma_cdf = pow_x_alpha * series1
            log_x = math.log(x) if x > 0 else -math.inf
            gamma_cdf_alpha = (log_x - digamma_one(alpha)) * gamma_cdf - pow_x_alpha * series2
            result = -gamma_cdf_alpha / gamma_pdf
        except (ValueError, ZeroDivisionError, OverflowError):
            result = math.nan
        return 0.0 if math.isnan(result) else result
    if alpha > 8.0:
        if 0.9 * alpha <= x <= 1.1 * alpha:
            numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
            numer_2 = (
                1440 * (alpha * alpha)
                + 6 * x * (53 - 120 * x)
                - 65 * x * x / alpha
                + alpha * (107 + 3600 * x)
            )
            denom = 1244160 * (alpha * alpha) * (alpha * alpha)
            return numer_1 * numer_2 / denom
        denom = math.sqrt(8 * alpha)
        term2 = denom / (alpha - x)
        term3 = math.pow(x - alpha - alpha * math.log(x / alpha), -1.5)
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = math.log(x / alpha) * term23 - math.sqrt(2 / alpha) * (alpha + x) / (
            (alpha - x) * (alpha - x)
        )
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        numer = x * term1
        return -stirling * numer / denom
    u = math.log(x / alpha)
    v = math.log(alpha)
    coef_v = [_COEF_UV[0][i] + u * (_COEF_UV[1][i] + u * _COEF_UV[2][i]) for i in range(8)]
    p = coef_v[0] + v * (coef_v[1] + v * (coef_v[2] + v * coef_v[3]))
    q = coef_v[4] + v * (coef_v[5] + v * (coef_v[6] + v * coef_v[7]))
    return math.exp(p / q)
