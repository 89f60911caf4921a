"""dirichlet_grad_one: the reparameterized gradient of a Beta / Dirichlet sample.

Mirrors `_beta_grad_alpha_small`, `_beta_grad_beta_small`, `_beta_grad_alpha_mid` and
`dirichlet_grad_one` in `aten/src/ATen/native/Distributions.h`: the scaled gradient
-(d/dalpha cdf(x; alpha, beta)) / pdf(x; alpha, beta) / (1 - x), with total = alpha + beta,
by a Taylor series near 0 and 1, a Rice saddle point for large parameters, and a rational
correction elsewhere. Computed in double (accscalar_t) throughout.
"""

from __future__ import annotations

import math

from tensortrace.aten.native.cpu.distribution_samplers import digamma_one

__all__ = ["dirichlet_grad_one"]


def _nan_to_zero(value: float) -> float:
    return 0.0 if math.isnan(value) else value


def _beta_grad_alpha_small(x: float, alpha: float, beta: float) -> float:
    factor = digamma_one(alpha) - digamma_one(alpha + beta) - math.log(x)
    numer = 1.0
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer *= (i - beta) * x / i
        denom = alpha + i
        series += numer / denom * (factor + 1 / denom)
    return _nan_to_zero(x * math.pow(1 - x, -beta) * series)


def _beta_grad_beta_small(x: float, alpha: float, beta: float) -> float:
    factor = digamma_one(alpha + beta) - digamma_one(beta)
    numer, betas, dbetas, series = 1.0, 1.0, 0.0, factor / alpha
    for i in range(1, 9):
        numer *= -x / i
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series += numer / (alpha + i) * (dbetas + factor * betas)
    return _nan_to_zero(-math.pow(1 - x, 1 - beta) * series)


def _beta_grad_alpha_mid(x: float, alpha: float, beta: float) -> float:
    total = alpha + beta
    mean = alpha / total
    std = math.sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * std <= x <= mean + 0.1 * std:
        # Avoid the singularity at x = mean.
        bb = beta * beta
        poly = 47 * x * bb * bb + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * bb * beta
            + alpha
            * (
                3 * (59 + 180 * beta - 90 * x) * bb
                + alpha
                * (
                    (453 + 1620 * beta * (1 - x) - 455 * x) * beta
                    + alpha * (8 * (1 - x) * (135 * beta - 11))
                )
            )
        )
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / math.sqrt(2 * alpha * beta / total)
    stirling = (
        (1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
        * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
        / (1 + 1 / (12 * total) + 1 / (288 * total * total))
    )
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = math.sqrt(2 * alpha / beta) * math.pow(total, 1.5) * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * math.log(alpha / (total * x))
    term3_num = math.sqrt(8 * alpha * beta / total)
    term3_den = beta * x + alpha * (x - 1)
    term3 = term3_num / term3_den
    term4_base = beta * math.log(beta / (total * (1 - x))) + alpha * math.log(alpha / (total * x))
    term4 = math.pow(term4_base, -1.5)
    term1234 = term1 + term2 * (term3 + (term4 if x < mean else -term4))
    return stirling * prefactor * term1234


# c[2][3][3][4] of the rational correction
_C = (
    (
        (
            (1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
            (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
            (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013),
        ),
        (
            (0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
            (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
            (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05),
        ),
        (
            (-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
            (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
            (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05),
        ),
    ),
    (
        (
            (1, -0.02924021934, -0.04438342661, 0.007285809825),
            (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
            (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149),
        ),
        (
            (0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
            (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
            (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05),
        ),
        (
            (0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
            (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
            (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06),
        ),
    ),
)


def dirichlet_grad_one(x: float, alpha: float, total: float) -> float:
    beta = total - alpha
    boundary = total * x * (1 - x)
    if x <= 0.5 and boundary < 2.5:  # x close to 0
        return _beta_grad_alpha_small(x, alpha, beta)
    if x >= 0.5 and boundary < 0.75:  # x close to 1
        return -_beta_grad_beta_small(1 - x, beta, alpha)
    if alpha > 6 and beta > 6:  # alpha and beta both large
        return _beta_grad_alpha_mid(x, alpha, beta)
    u = math.log(x)
    a = math.log(alpha) - u
    b = math.log(total) - a
    pow_u = (1.0, u, u * u)
    pow_a = (1.0, a, a * a)
    p = 0.0
    q = 0.0
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            cp, cq = _C[0][i][j], _C[1][i][j]
            p += ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
            q += ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
    approx = x * (digamma_one(total) - digamma_one(alpha)) / beta
    return p / q * approx
