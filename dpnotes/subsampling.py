r"""Amplification by subsampling and the privacy accounting of the subsampled Gaussian.

Running a mechanism on a random subsample that stays secret makes it more private:
a record that is left out of the sample cannot influence the output at all.
This module holds the amplification theorems (:func:`amplify_poisson`,
:func:`amplify_poisson_replace_one`, :func:`amplify_without_replacement`) and
three accountants for ``steps`` compositions of the Poisson-subsampled Gaussian
mechanism, the privacy core of DP-SGD:

- Rényi DP (:func:`subsampled_gaussian_rdp`, :func:`subsampled_gaussian_rdp_epsilon`):
  the moments accountant, a valid but loose upper bound;
- the privacy loss distribution composed by FFT
  (:func:`subsampled_gaussian_delta`, :func:`subsampled_gaussian_epsilon`):
  an upper bound (up to floating-point round-off) within a relative ``1e-4`` of the true value on the
  box q in [1e-6, 1], sigma in [0.4, 100], T <= 1e6, delta in [1e-12, 0.1] (measured against
  Google's dp-accounting and finer meshes in the tests and ``make bench``);
- the Gaussian-DP central limit (:func:`clt_gdp_mu`, :func:`clt_gdp_epsilon`):
  an *approximation*, neither an upper nor a lower bound.

Neighbouring relation. The subsampled-Gaussian accountants use the add/remove
relation by default (the record is present or absent), the one for which DP-SGD is usually
accounted, and report the worse of the two directions; ``relation="replace_one"`` accounts
for one record's gradient replaced by another (the gradient flipped, +1 against -1, the
worst replacement). The package's own convention is replace-one;
:func:`amplify_poisson_replace_one` and :func:`amplify_without_replacement` state what
changes under it for the generic theorems.

The mechanism. With sampling probability :math:`q` and noise multiplier
:math:`\sigma` (sensitivity 1), one step releases a draw from
:math:`P = \mathcal N(0, \sigma^2)` when the record is absent and from the mixture
:math:`Q = (1-q)\,\mathcal N(0, \sigma^2) + q\,\mathcal N(1, \sigma^2)` when it is
present (Mironov, Talwar & Zhang 2019, Section 3). "remove" is the pair
:math:`(Q, P)`, "add" the pair :math:`(P, Q)`.
"""

from __future__ import annotations

import math
import sys

import numpy as np
from scipy.special import gammaln, log_ndtr, logsumexp

from ._validate import check_array, check_delta, check_in_range, check_integer, check_positive, check_real
from .divergences import _expm1mx
from .loss import _least_at_or_above, _least_root, _log_second_term

__all__ = [
    "amplify_poisson",
    "amplify_poisson_replace_one",
    "amplify_without_replacement",
    "subsampled_gaussian_profile",
    "subsampled_gaussian_rdp",
    "subsampled_gaussian_rdp_epsilon",
    "subsampled_gaussian_delta",
    "subsampled_gaussian_epsilon",
    "clt_gdp_mu",
    "clt_gdp_epsilon",
    "shuffle_epsilon_lower_bound",
    "DEFAULT_ORDERS",
    "MAX_ORDER",
]

DIRECTIONS = ("remove", "add")

#: Rényi orders used by :func:`subsampled_gaussian_rdp_epsilon` when none are given:
#: fractional orders from 1.05 (small epsilons are found at orders near 1) and
#: integer orders up to 256.
DEFAULT_ORDERS = np.concatenate([np.arange(1.05, 2.0, 0.05), np.arange(2.0, 10.0, 0.25), np.arange(10.0, 64.0),
                                 np.array([64.0, 80.0, 96.0, 128.0, 192.0, 256.0])])

#: The largest Rényi order :func:`subsampled_gaussian_rdp` accepts. An integer order sums its
#: alpha + 1 binomial terms at once (an order of 1e9 held 18 GB when the machine's OOM killer stopped it), and MTZ's series for a fractional
#: order stops at about a million terms: past that it returned values unrelated to rho (0 at
#: (alpha, q, sigma) = (5e6 + 0.5, 0.5, 1e5), where rho = 6.25e-5). The orders that matter for a conversion to
#: (epsilon, delta) are far below (the default grid ends at 256).
MAX_ORDER = 10**6


# ---------------------------------------------------------------- validation helpers
def _q(sampling_probability) -> float:
    return check_in_range("sampling_probability", sampling_probability, 0.0, 1.0, low_inclusive=False)


def _sigma(noise_multiplier) -> float:
    return check_positive("noise_multiplier", noise_multiplier)


def _delta(delta) -> float:
    return check_in_range("delta", delta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)


# ---------------------------------------------------------------- amplification theorems
_EXP_SAFE = 709.0        # math.exp and math.expm1 overflow just above 709.78
_LOG_MAX = math.log(sys.float_info.max)


def _log1p_q_expm1_scalar(epsilon: float, q: float) -> float:
    """log(1 + q (e^epsilon - 1)) for epsilon >= 0 and q in [0, 1], without overflow.

    Below ``_EXP_SAFE`` the direct form (log1p, expm1: accurate when the result is tiny). Above it
    e^epsilon overflows (epsilon = 1e300 raised OverflowError): with m = q e^709 (finite) and
    r = epsilon - 709 (exact up to 1418) the value is log1p(m e^r - q) while m e^r is finite (no
    cancellation: m e^r >= q e^709), else log((1 - q) + m e^r) as a logaddexp, which is then above
    709 (epsilon + log q + O(e^-epsilon / q)).
    """
    if epsilon < _EXP_SAFE:
        return math.log1p(q * math.expm1(epsilon))
    m, r = q * math.exp(_EXP_SAFE), epsilon - _EXP_SAFE
    if m == 0.0:                                     # q = 0: nothing is ever sampled
        return 0.0
    if r < _EXP_SAFE and math.isfinite(t := m * math.exp(r)):
        return math.log1p(t - q)
    return float(np.logaddexp(math.log1p(-q) if q < 1 else -math.inf, math.log(m) + r))


def amplify_poisson(epsilon, sampling_probability, delta=0.0) -> tuple[float, float]:
    r"""Amplification by Poisson subsampling under add/remove: :math:`(\log(1 + q(e^{\varepsilon}-1)),\ q\delta)`.

    If :math:`M` is :math:`(\varepsilon,\delta)`-DP under add/remove, then running it on
    a sample that keeps each record independently with probability :math:`q` (and
    keeps the sample secret) is :math:`(\varepsilon', q\delta)`-DP under add/remove
    with :math:`\varepsilon' = \log(1 + q(e^{\varepsilon} - 1))`
    (:cite:`balle2018subsampling`; :cite:`li2012sampling`). The bound is tight
    (randomized response attains it).

    Parameters
    ----------
    epsilon : float
        ``>= 0``, the base mechanism's epsilon.
    sampling_probability : float
        :math:`q` in ``(0, 1]``.
    delta : float
        The base mechanism's delta, in ``[0, 1)``.

    Returns
    -------
    (epsilon_prime, delta_prime) : tuple of float

    Examples
    --------
    >>> e, d = amplify_poisson(math.log(3.0), 0.25, 1e-6)     # 1 + 0.25 * (3 - 1) = 1.5
    >>> round(math.exp(e), 12), d
    (1.5, 2.5e-07)
    """
    epsilon = check_in_range("epsilon", epsilon, 0.0)
    q = _q(sampling_probability)
    delta = check_delta("delta", delta)
    return _log1p_q_expm1_scalar(epsilon, q), q * delta


def amplify_poisson_replace_one(epsilon, sampling_probability) -> float:
    r"""Poisson subsampling seen under replace-one, for a base mechanism that is :math:`\varepsilon`-DP under add/remove.

    Replacing record :math:`i` changes the sample only when :math:`i` is drawn
    (probability :math:`q`); then the base mechanism sees a sample with
    :math:`x_i` instead of :math:`x_i'`, each one add/remove step away from the
    sample without :math:`i`. Bounding the three conditional output laws against
    each other gives

    .. math:: \varepsilon' = \log\frac{1 + q(e^{\varepsilon}-1)}{1 + q(e^{-\varepsilon}-1)},

    at least the add/remove value :func:`amplify_poisson` and never more than twice it (the
    :math:`2\varepsilon'` of composing a removal and an addition). As :math:`q \to 0` both are linear
    in :math:`q`, :math:`q(e^{\varepsilon}-1)` and :math:`q(e^{\varepsilon}-e^{-\varepsilon})`, so their
    ratio tends to :math:`1 + e^{-\varepsilon}`: close to 2 only for small :math:`\varepsilon`.
    Randomized response on "is the record's value in the sample" attains it.
    If the base mechanism is only DP under replace-one (it may reveal the sample
    size, for example), Poisson sampling gives **no** amplification for pure DP in
    the worst case; fixed-size sampling without replacement does
    (:func:`amplify_without_replacement`).

    Parameters
    ----------
    epsilon : float
        ``>= 0``, the base mechanism's epsilon under add/remove.
    sampling_probability : float
        :math:`q` in ``(0, 1]``.

    Returns
    -------
    float
        :math:`\varepsilon'` under replace-one.

    Raises
    ------
    ValueError
        If an argument is outside its range.

    Examples
    --------
    >>> e = amplify_poisson_replace_one(math.log(3.0), 0.25)   # 1.5 / (1 + 0.25 * (1/3 - 1))
    >>> round(math.exp(e), 12)
    1.8
    """
    epsilon = check_in_range("epsilon", epsilon, 0.0)
    q = _q(sampling_probability)
    x = q * math.expm1(-epsilon)                     # log(1 - q + q e^-eps): log1p loses digits near x = -1
    down = math.log1p(x) if x > -0.5 else float(np.logaddexp(math.log1p(-q) if q < 1 else -np.inf,
                                                             math.log(q) - epsilon))
    return float(_log1p_q_expm1_scalar(epsilon, q) - down)


def amplify_without_replacement(epsilon, sample_size, population_size, delta=0.0) -> tuple[float, float]:
    r"""Amplification by sampling ``sample_size`` of ``population_size`` records without replacement, under replace-one.

    If :math:`M` is :math:`(\varepsilon,\delta)`-DP under replace-one on data sets
    of :math:`m` records, then :math:`M` applied to a uniformly random subset of
    size :math:`m` of :math:`n` records (kept secret) is
    :math:`(\log(1 + \tfrac mn(e^{\varepsilon}-1)),\ \tfrac mn\delta)`-DP under
    replace-one (:cite:`balle2018subsampling`). The replaced record is in
    the sample with probability :math:`m/n`; otherwise the two samples can be
    coupled to be equal.

    Parameters
    ----------
    epsilon : float
        The base mechanism's epsilon, ``>= 0`` and finite (``1e300`` gives ``1e300 + log(m/n)``).
    sample_size : int
        The sample size :math:`m`, ``>= 1``.
    population_size : int
        The number of records :math:`n`, ``>= sample_size`` and at most ``10**300`` (so that
        :math:`m/n` is a normal double).
    delta : float, optional
        The base mechanism's delta, in ``[0, 1)``.

    Returns
    -------
    (epsilon_prime, delta_prime) : tuple of float
        The amplified parameters under replace-one.

    Raises
    ------
    ValueError
        If ``epsilon`` is negative, infinite or nan, either size is not a positive integer,
        ``sample_size > population_size``, or ``delta`` is outside ``[0, 1)``.

    Examples
    --------
    >>> e, d = amplify_without_replacement(math.log(5.0), 10, 40, 1e-6)   # 1 + (1/4) * 4 = 2
    >>> round(math.exp(e), 12), d
    (2.0, 2.5e-07)
    """
    epsilon = check_in_range("epsilon", epsilon, 0.0)
    # n capped at 10**300: past it m/n can fall below the doubles and was read as 0, "nothing sampled"
    # (amplify_without_replacement(1000, 1, 10**400) gave epsilon 0 for about 79)
    n = check_integer("population_size", population_size, low=1)
    if n > 10**300:
        raise ValueError(f"population_size must be <= 10**300 (so that sample_size / population_size is a "
                         f"normal double), got an integer of {len(str(n))} digits")
    m = check_integer("sample_size", sample_size, low=1)
    if m > n:
        raise ValueError(f"sample_size must be <= population_size ({n}), got {m}")
    delta = check_delta("delta", delta)
    g = m / n
    return _log1p_q_expm1_scalar(epsilon, g), g * delta


# ---------------------------------------------------------------- one step: exact privacy profile
_SIGMA_SQUARED_SAFE = 1e150   # between 1/this and this, sigma**2 is a normal double (it overflows above 1.3e154)


def _one_minus_q_exp(e: np.ndarray, q: float) -> np.ndarray:
    """1 - (1-q) e^e for 0 <= e < -log(1-q) (the add direction's weight of its first tail), to an ulp or two.

    1 + (-(1-q) e^e) where the result is at least 1/2. Below, 1 - (1-q) keeps only the digits of q that survive
    the subtraction (none at q = 1e-300 and e = 0: the profile at epsilon = 0 came out q, five times the true
    0.197 q, at sigma = 2, and "add" gave nan; at q = 1e-6, 5e-11 of q, which moved the profile at epsilon = 0 by
    5e-6 of itself at sigma = 1e5): there it is q - (1-q) expm1(e), whose error is an ulp of the larger term, not
    of 1. For q = 1 it is 1 (the product 0 * e^e was nan for e = 1e300). It was kept as a logarithm, whose
    rounding, an ulp of |log q| (690 of them at q = 1e-300), the exponential then multiplied into the mass.
    """
    if q == 1.0:
        return np.ones_like(e)
    with np.errstate(over="ignore"):
        arg = -(1.0 - q) * np.exp(e)
    out = 1.0 + arg
    near = arg < -0.5
    if np.any(near):
        out[near] = np.maximum(q - (1.0 - q) * np.expm1(e[near]), 0.0)
    return out


def _log_odds_excess(x: np.ndarray, q: float) -> np.ndarray:
    """log((e^x - 1 + q) / q) = log1p(expm1(x) / q), for x above log(1 - q) (nan below).

    The profile's and the loss inverse's threshold y* = sigma^2 times this, plus 1/2. It was formed as
    log(e^x - 1 + q) - log q, a difference of two logarithms near log q: at x = 0 it is exactly 0, but the
    difference kept an ulp of log q, which sigma^2 multiplies (at q = 1e-6, sigma = 1e5 the profile at
    epsilon = 0 was 3.98940843e-12 "remove" and 3.98943718e-12 "add", for the total variation
    q (2 Phi(1/(2 sigma)) - 1) = 3.98942280e-12 both ways). Where expm1(x) / q overflows (x above about
    709 + log q) the two terms are far apart and are added: x - log q + log1p(-(1 - q) e^-x). Where r = expm1(x) / q
    is near -1 (x < 0 with q near 1: the "add" threshold at a large epsilon) 1 + r keeps only the digits of r's
    rounding, 1 - q absolute: at q = 1, epsilon > 36.7, expm1(-epsilon) is -1.0 and the "add" profile was 0 for 0.81;
    for q >= 1/2 the numerator is then e^x - (1 - q), with 1 - q exact (Sterbenz), whose log keeps its digits (x
    itself at q = 1)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        r = np.expm1(x) / q
        out = np.log1p(r)
        big = np.isinf(r) & (r > 0)
        if np.any(big):
            xb = x[big]
            out[big] = xb - math.log(q) + np.log1p(-(1.0 - q) * np.exp(-xb))
        near = r < -0.5
        if q == 1.0:
            out[near] = x[near]                     # e^x below the doubles from x = -745 (the profile was 0 for 1)
        elif q >= 0.5 and np.any(near):
            out[near] = np.log(np.exp(x[near]) - (1.0 - q)) - math.log(q)
    return out


def _hockey(weight, la: np.ndarray, gap: np.ndarray) -> np.ndarray:
    """weight e^la - weight e^lb, floored at 0, from the log of the first tail and ``gap`` = lb - la:
    weight e^la (1 - e^gap) with expm1.

    The weight and the gap are passed, not the two logarithms: where both masses carry a common factor
    (q, or e^eps) the callers form the gap without that factor's logarithm, whose rounding (an ulp of
    log q = -13.8 is 1.8e-15) was most of a gap of 1e-5 at sigma = 1e5, and multiply the factor in rather
    than adding its logarithm (e^(log q + ...) lost |log q| ulps). 0 where la = -inf: the first mass,
    hence the difference, is 0 in doubles (at epsilon = 1e300 both logs were -inf and their difference nan)."""
    with np.errstate(invalid="ignore"):
        return np.where(la > -np.inf, weight * np.exp(la) * -np.expm1(np.minimum(gap, 0.0)), 0.0)


def _log_scaled_lower_tail(x: np.ndarray, upper: np.ndarray, lower: np.ndarray) -> np.ndarray:
    """log(e^x Phi(lower)) where lower^2 - upper^2 = 2x (both directions' tail points). Where |x| > 1 and lower < 0,
    as phi(upper) R(-lower) (dpnotes.loss._log_second_term; e^x phi(lower) = phi(upper)), without the two terms of
    size x that x + log Phi(lower) adds: at q = 1, sigma = 2.4e-9, eps = 8.65e16 their rounding made the profile 0.61
    of the true one, as it did in dpnotes.loss.gaussian_delta. Elsewhere the sum, whose rounding is then below an
    ulp of 1 (|x| <= 1) and which matches the first tail's log_ndtr where the two tails nearly cancel: near eps = 0
    the other form's error, a few ulps of 1/2 in each term, was 1e-6 of a one-step epsilon of 1e-18 (q = 1e-5,
    sigma = 50); and where lower >= 0 R(-lower) overflows."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where((lower < 0.0) & (np.abs(x) > 1.0), _log_second_term(upper, -lower), x + log_ndtr(lower))


def _profile(eps: np.ndarray, q: float, sigma: float, direction: str) -> np.ndarray:
    """Hockey-stick divergence H_{e^eps} of one step, vectorized over real ``eps`` (no validation).

    The likelihood ratio is monotone in the output y, so {loss > eps} is a half-line
    {y > y*} ("remove") or {y < y*} ("add"); both masses are normal tails, taken as
    logarithms and subtracted with expm1 (as in dpnotes.loss.gaussian_delta).

    y* = sigma^2 X + 1/2 and the tails are read at (1 - y*)/sigma, -y*/sigma: where sigma^2 overflows
    (sigma > ``_SIGMA_SQUARED_SAFE``; sigma = 1e300 raised OverflowError) they are taken as
    1/sigma - z and -z with z = y*/sigma = sigma X + 1/(2 sigma), the same numbers divided through.
    """
    eps = np.asarray(eps, dtype=float)
    out = np.empty_like(eps)
    huge = sigma > _SIGMA_SQUARED_SAFE
    # y* overflows to inf where the tails are 0 (eps = 1e300); there the gap is inf - inf, and _hockey gives 0
    with np.errstate(over="ignore", invalid="ignore"):
        if direction == "remove":                  # loss >= log(1-q): below it every output counts
            low = eps <= (math.log1p(-q) if q < 1 else -np.inf)
            out[low] = -np.expm1(eps[low])
            e = eps[~low]
            x = _log_odds_excess(e, q)             # log((e^eps - 1 + q) / q)
            if huge:
                z = sigma * x + 0.5 / sigma
                upper, lower = 1.0 / sigma - z, -z
            else:
                y = sigma**2 * x + 0.5
                upper, lower = (1.0 - y) / sigma, -y / sigma
            # masses q Phi(upper) and e^eps (1 - (1-q) e^-eps) Phi(lower) = q e^x Phi(lower)
            a = log_ndtr(upper)
            out[~low] = _hockey(q, a, _log_scaled_lower_tail(x, upper, lower) - a)
        elif direction == "add":                   # loss <= -log(1-q): above it nothing counts
            high = eps >= (-math.log1p(-q) if q < 1 else np.inf)
            out[high] = 0.0
            e = eps[~high]
            m = _one_minus_q_exp(e, q)             # e^eps (e^-eps - 1 + q) = q e^(eps + x)
            x = _log_odds_excess(-e, q)            # log((e^-eps - 1 + q) / q)
            if huge:
                z = sigma * x + 0.5 / sigma
                upper, lower = z, z - 1.0 / sigma
            else:
                y = sigma**2 * x + 0.5
                upper, lower = y / sigma, (y - 1.0) / sigma
            # masses m Phi(upper) and e^eps q Phi(lower) = m e^-x Phi(lower)
            a = log_ndtr(upper)
            out[~high] = _hockey(m, a, _log_scaled_lower_tail(-x, upper, lower) - a)
        else:
            raise ValueError(f"direction must be one of 'remove', 'add', got {direction!r}")
    return out


def _log_2sinh(a):
    """log(2 sinh a) = a + log(1 - e^{-2a}) for a >= 0, with expm1 (-inf at 0): log1p(-exp(-2a)) lost every digit
    below a ~ 1e-8 and was -inf at a = 5e-301 (nan tails at sigma = 1e-200; a root of ~0 for 0.4309)."""
    with np.errstate(divide="ignore"):
        return a + np.log(-np.expm1(-2 * a))


def _replace_tail_points(eps: np.ndarray, q: float, sigma: float):
    """(-y*/sigma, (1 - y*)/sigma, (-1 - y*)/sigma) for the replace-one half-line {y > y*} at loss ``eps``.

    y* from :meth:`_Pair.inverse` where sigma^2 is a normal double. Outside (sigma below 1e-150 or above
    1e150) that inverse divided by sigma^2 = 0 (ZeroDivisionError at sigma = 1e-300) or squared an
    overflowing sigma (OverflowError at 1e300); there the same root is written y* = y0 + sigma^2 r, with
    y0 = sign(eps)/2 where x = (1-q) sinh(eps/2) e^{1/(2 sigma^2)} / q leaves the doubles (asinh(x) =
    sign(x) log 2|x| to e^-40: its 1/(2 sigma^2) times sigma^2 is the 1/2), else y0 = 0 and
    r = eps/2 + asinh(x); each point is (k - y0)/sigma - sigma r, with no 0 * inf.
    """
    if 1.0 / _SIGMA_SQUARED_SAFE <= sigma <= _SIGMA_SQUARED_SAFE:
        y = _Pair(q, sigma, "replace_one").inverse(eps)
        return -y / sigma, (1.0 - y) / sigma, (-1.0 - y) / sigma
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        if q == 1.0:                                    # x = 0: the Gaussian pair, y* = sigma^2 eps / 2
            y0, r = np.zeros_like(eps), eps / 2
        else:
            a = np.abs(eps) / 2
            log_2sinh = np.where(eps != 0, _log_2sinh(a), 0.0)
            odds, half = math.log1p(-q) - math.log(q), (0.5 / sigma) / sigma     # half = 1/(2 sigma^2)
            log_2x = odds + half + log_2sinh                                     # log 2|x| where eps != 0
            far = (eps != 0) & (log_2x > 20.0)
            # |x| <= e^20 / 2 here; through its log where e^half alone overflows (sigma < 0.027)
            x = np.where(far | (eps == 0), 0.0, np.sign(eps) * 0.5 * np.exp(np.minimum(log_2x, 20.0)))
            y0 = np.where(far, np.sign(eps) * 0.5, 0.0)
            r = eps / 2 + np.where(far, np.sign(eps) * (odds + log_2sinh), np.arcsinh(x))
        return -y0 / sigma - sigma * r, (1.0 - y0) / sigma - sigma * r, (-1.0 - y0) / sigma - sigma * r


def _replace_profile(eps: np.ndarray, q: float, sigma: float) -> np.ndarray:
    """Hockey-stick divergence of one replace-one step, A = (1-q)N(0)+qN(1) against B = (1-q)N(0)+qN(-1), eps >= 0.

    The loss increases with y, so {loss > eps} = {y > y*}, and A(S) - e^eps B(S) is
    q Phi(u) - q e^eps Phi(l) - (1-q) expm1(eps) Phi(m) at m = -y*/sigma, u = m + 1/sigma, l = m - 1/sigma: the
    common component N(0) enters only through expm1(eps), so its tail (about 1/2 near eps = 0) does not set the
    rounding. As q e^a (1 - e^gap), a = log Phi(u), gap from the logs of the other two terms relative to q e^a.
    Each tail as a whole was taken before: the difference kept rounding units of the mixtures' masses, 7e-7 of
    the profile at q = 1e-6, sigma = 1e5, eps = 0 (total variation 7.98e-12)."""
    eps = np.asarray(eps, dtype=float)
    mid, upper, lower = _replace_tail_points(eps, q, sigma)
    if q == 1.0:
        log_odds = -math.inf                                  # no common component
    else:
        r = (1.0 - q) / q                                     # one rounding: its log is good to an ulp or two
        log_odds = math.log(r) if r < math.inf else math.log1p(-q) - math.log(q)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a = log_ndtr(upper)
        # log expm1(eps): -inf at 0; eps + log1p(-e^-eps) where expm1 would overflow
        log_em1 = np.where(eps > 1.0, eps + np.log1p(-np.exp(-eps)), np.log(np.expm1(np.minimum(eps, 1.0))))
        # e^eps Phi(lower): at q = 1 (the Gaussian pair, y* = sigma^2 eps / 2, lower^2 - upper^2 = 2 eps) as
        # phi(upper) R(-lower) (0.61 of the profile at sigma = 4.8e-9, eps = 8.65e16 as a sum of two terms of size
        # eps); for q < 1 the identity does not hold, and where eps is that large the profile is below the doubles
        second = _log_scaled_lower_tail(eps, upper, lower) if q == 1.0 else eps + log_ndtr(lower)
        gap = np.logaddexp(second, log_odds + log_em1 + log_ndtr(mid)) - a
        return _hockey(q, a, gap)         # a = -inf at eps = 1e300: nan there, where _hockey gives 0


def subsampled_gaussian_profile(sampling_probability, noise_multiplier, epsilon, direction="remove", *,
                               relation="add_remove"):
    r"""Exact privacy profile :math:`\delta(\varepsilon)` of **one** step of the Poisson-subsampled Gaussian.

    :math:`\delta(\varepsilon) = \sup_S A(S) - e^{\varepsilon}B(S)` for the pair
    :math:`(A, B) = (Q, P)` (``"remove"``) or :math:`(P, Q)` (``"add"``), with
    :math:`P = \mathcal N(0,\sigma^2)` and :math:`Q = (1-q)P + q\,\mathcal N(1,\sigma^2)`.
    The likelihood ratio is monotone in the output, so the optimal :math:`S` is a
    half-line and the answer is a difference of two normal tails
    (:cite:`balle2018improving` Theorem 8 is the case :math:`q = 1`). Defined for every
    real :math:`\varepsilon` (negative ones too): it is the tradeoff curve of the pair.

    Under ``relation="replace_one"`` the pair is :math:`((1-q)P + q\,\mathcal N(1,\sigma^2),\
    (1-q)P + q\,\mathcal N(-1,\sigma^2))` (see :func:`subsampled_gaussian_epsilon`); it is symmetric
    (:math:`y \mapsto -y` swaps the two laws), so ``direction`` does not matter.

    Parameters
    ----------
    sampling_probability : float
        :math:`q` in ``(0, 1]``.
    noise_multiplier : float
        :math:`\sigma > 0` (noise standard deviation over sensitivity).
    epsilon : float or array_like
        Real.
    direction : {"remove", "add"}
    relation : {"add_remove", "replace_one"}

    Returns
    -------
    float or numpy.ndarray
        :math:`\delta(\varepsilon)`, the shape of ``epsilon``: a difference of tail masses with the laws' common
        part taken out, accurate to a few rounding units of the larger term (at most
        :math:`q + e^{\varepsilon} - 1`; measured against mpmath, within :math:`(1 + t^2)` times that where the
        tails are read at :math:`t` standard deviations, the conditioning of a normal tail); below 0 it is computed as
        :math:`1 - e^{\varepsilon} + e^{\varepsilon}\delta_{\text{dual}}(-\varepsilon)`, so it is never below
        :math:`1 - e^{\varepsilon}`.

    Raises
    ------
    ValueError
        If an argument is outside its range.

    Examples
    --------
    >>> from dpnotes.loss import gaussian_delta
    >>> bool(abs(subsampled_gaussian_profile(1.0, 2.0, 0.3) - gaussian_delta(0.3, 0.5)) < 1e-15)
    True
    """
    q = _q(sampling_probability)
    sigma = _sigma(noise_multiplier)
    arr = check_array("epsilon", epsilon, allow_inf=True, allow_nan=True, allow_empty=True)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"epsilon must be finite, got {epsilon!r}")
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of 'remove', 'add', got {direction!r}")
    out = _one_step(np.atleast_1d(arr), q, sigma, direction, _relation(relation) == "replace_one")
    return float(out[0]) if arr.ndim == 0 else out.reshape(arr.shape)


def _one_step(eps: np.ndarray, q: float, sigma: float, direction: str, replace: bool) -> np.ndarray:
    """The one-step profile at every real ``eps`` (validated): the tails at eps >= 0, duality below.

    Below 0, H_{A,B}(eps) = 1 - e^eps + e^eps H_{B,A}(-eps) (integrate (a - g b)_+ = a - g b + (g b - a)_+):
    two non-negative terms, each to a few ulps, where the difference of the two tails was only absolutely
    accurate (0 at eps = -1e-150, sigma = 1e150, for 1e-150 or more). The swapped pair is the other
    direction, or under replace-one the same pair (y -> -y swaps its laws)."""
    neg = eps < 0
    mirrored = direction if replace else DIRECTIONS[1 - DIRECTIONS.index(direction)]
    both = np.where(neg, -eps, eps)
    out = np.empty_like(both)
    for which, mask in ((direction, ~neg), (mirrored, neg)):
        if mask.any():
            out[mask] = _replace_profile(both[mask], q, sigma) if replace else _profile(both[mask], q, sigma, which)
    out[neg] = -np.expm1(eps[neg]) + np.exp(eps[neg]) * out[neg]
    return out + 0.0                                       # no -0.0 from expm1(0)


# ---------------------------------------------------------------- Renyi DP (moments accountant)
def _log_a_integer(alpha: int, q: float, sigma: float) -> float:
    # A_alpha = sum_k C(alpha, k) (1-q)^(alpha-k) q^k exp((k^2 - k) / (2 sigma^2))   (MTZ 2019, Section 3.2).
    # The weights C(alpha, k) (1-q)^(alpha-k) q^k sum to 1, so A - 1 is the same sum of the terms >= 0 with
    # expm1 in place of exp (k = 0, 1 add nothing), and log A = log1p(A - 1). The sum of all the terms
    # resolved log A only to a rounding unit of A ~ 1 (rho of 1e-17 came out 0 or 2e-16: sigma >= 1e8, or
    # q = 1e-6 at sigma = 100); sigma = 1e300 overflowed sigma**2 and 1e-300 gave 0 / 0 = nan.
    k = np.arange(2, alpha + 1, dtype=float)
    log_binom = gammaln(alpha + 1.0) - gammaln(k + 1.0) - gammaln(alpha - k + 1.0)
    log_one_minus_q = math.log1p(-q) if q < 1 else -np.inf
    half = (0.5 / sigma) / sigma                      # 1/(2 sigma^2): 0 or inf at the extremes, no error
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        x = (k * k - k) * half
        log_expm1 = np.where(x > 1.0, x + np.log1p(-np.exp(-x)), np.log(np.expm1(x)))   # -inf where x = 0
        terms = log_binom + k * math.log(q) + np.where(alpha - k > 0, (alpha - k) * log_one_minus_q, 0.0) \
            + log_expm1
        return float(np.logaddexp(0.0, logsumexp(terms)))


def _rdp_fractional(alpha: float, q: float, sigma: float) -> float:
    """rho(alpha) for a fractional order: MTZ's series where it resolves rho, else one of three other routes.

    The lower bound A >= q^alpha E[e^{alpha u}] = q^alpha e^x, x = (alpha^2 - alpha) / (2 sigma^2) (drop 1-q
    from (1 - q + q e^u)^alpha), and the upper bound A <= 1 - q + q e^x (convexity) differ by about |log q| in
    rho, plus log1p((1-q) e^-x / q) / (alpha - 1): once the lower bound exceeds 2^53 |log q|, rho is known to
    about the last digit and the upper bound is returned (sigma below about 1e-8; inf where x overflows:
    sigma = 1e-300 gave 0 * inf = nan in the series).
    Where sigma >= 2^27 and alpha q <= 2^-27 sigma, rho = alpha q^2 / (2 sigma^2) to a relative 2^-54: A - 1 =
    C(alpha, 2) q^2 (e^{1/sigma^2} - 1) (1 + O(alpha q / sigma^2 + (alpha q / sigma)^2)), the moments of
    e^u - 1 under P (mean 0). Elsewhere, for sigma >= 1 and alpha <= ``_GH_REACH`` sigma, A - 1 by Gauss-Hermite
    quadrature (:func:`_a_minus_1_quadrature`), within a few ulps of 40-digit mpmath: the series resolved log A
    only to rounding units of A ~ 1, 1.5e-7 of rho at (alpha, q, sigma) = (64.5, 0.01, 1032), 0.8 % at
    (1000.5, 0.9, 2^27), where rho came out below rho at alpha = 1000 (RDP cannot fall with the order). x is alpha (alpha - 1) half: alpha^2 - alpha lost the digits of alpha - 1 near 1 (1e-9 of rho at
    alpha = 1 + 1e-9).
    """
    log_q = math.log(q)
    half = (0.5 / sigma) / sigma
    x = alpha * (alpha - 1.0) * half
    lower = (alpha * log_q + x) / (alpha - 1.0)
    if lower >= 2.0**53 * -log_q:
        return (x + log_q + math.log1p((1.0 - q) * math.exp(-x) / q)) / (alpha - 1.0)
    if sigma >= 2.0**27 and alpha * q <= 2.0**-27 * sigma:
        return 0.5 * alpha * (q / sigma) * (q / sigma)
    if sigma >= 1.0 and alpha <= _GH_REACH * sigma:
        return math.log1p(_a_minus_1_quadrature(alpha, q, sigma)) / (alpha - 1.0)
    if alpha >= _BRACKET_FROM:
        return _log_a_bracketed(alpha, q, sigma) / (alpha - 1.0)
    return _log_a_fractional(alpha, q, sigma) / (alpha - 1.0)


#: From this order on, fractional orders that the series would take are checked against the bounds that the
#: convexity of log A_alpha in alpha gives from the exact integer orders (:func:`_log_a_bracketed`). Without them
#: the series' terms, of size up to e^{alpha^2 / (2 sigma^2)}, cancelled where A is near 1 to a sum whose rounding
#: reached 0.2 % of rho (at alpha = 4900.9, q = 1.4e-6, sigma = 783) and fell below rho at the integer order
#: under it (14 % below at alpha = 201787.07, q = 3.6e-6, sigma = 22152.6: unsound); 14 of 20 random points with
#: log A <= 1 from order 1000 to 3e5 left the bounds, none of 100 with log A > 1. Below order 1000 the series
#: stayed inside them on 300 random points (orders 2 to 1000).
_BRACKET_FROM = 1000.0
#: the relative width of the convexity bounds under which their upper end is returned without the series
_BRACKET_WIDTH = 1e-6


def _log_a_bracketed(alpha: float, q: float, sigma: float) -> float:
    """log A_alpha for a large fractional order, never outside the bounds the exact integer orders give.

    log A_alpha, the cumulant generating function of the privacy loss at alpha, is convex in alpha, so with
    m = floor(alpha), t = alpha - m it lies below the chord (1 - t) log A_m + t log A_{m+1} (a sound upper bound)
    and above the line through (m - 1, log A_{m-1}) and (m, log A_m) extended: the two differ by t times the
    second difference of log A, small for a large order except where rho turns sharply with the order (the
    chord was 4.6 times rho at (1000.5, 1e-3, 8.51), 1.55 times at (1000.5, 0.01, 10.43), against mpmath). Where they agree
    to ``_BRACKET_WIDTH`` the chord is returned; elsewhere MTZ's series, or the chord where the series leaves the
    bounds (its rounding, above). Both ends of the chord are non-negative, so it has no cancellation."""
    m = math.floor(alpha)
    t = alpha - m
    before, low_end, high_end = (_log_a_integer(k, q, sigma) for k in (m - 1, m, m + 1))
    chord = (1.0 - t) * low_end + t * high_end
    lower = low_end + t * (low_end - before)
    if chord - lower <= _BRACKET_WIDTH * chord:
        return chord
    series = _log_a_fractional(alpha, q, sigma)
    return series if lower <= series <= chord else chord


def _log1p_minus(t: np.ndarray) -> np.ndarray:
    """log1p(t) - t for t > -1 to a few ulps: with v = t / (2 + t), log1p(t) = 2 atanh(v), so it is
    -t v + 2 (v^3/3 + v^5/5 + ...) (|v| <= 1/3 for |t| < 1/2: 20 terms), the difference itself beyond."""
    t = np.asarray(t, dtype=float)
    small = np.abs(t) < 0.5
    ts = np.where(small, t, 0.0)
    v = ts / (2.0 + ts)
    v2 = v * v
    acc = np.zeros_like(v)
    for k in range(41, 2, -2):                 # 1/3 + v^2 (1/5 + v^2 (1/7 + ...))
        acc = 1.0 / k + v2 * acc
    return np.where(small, -ts * v + 2.0 * v * v2 * acc, np.log1p(np.where(small, 0.0, t)) - t)


#: Gauss-Hermite nodes and weights for E over a standard normal (probabilists' Hermite, weights summing to 1)
_GH_Z, _GH_W = np.polynomial.hermite_e.hermegauss(64)
_GH_W = _GH_W / math.sqrt(2.0 * math.pi)
#: the quadrature is used for alpha / sigma up to this (and sigma >= 1): (1 + q W)^alpha grows like
#: e^{alpha q z / sigma}, which moves the integrand's mass out to z ~ alpha q / sigma; the 64-node rule (nodes to
#: |z| = 14.9) is within a few ulps of 40-digit mpmath up to alpha / sigma = 8 and 3e-10 off at 10 (q near 1)
_GH_REACH = 6.0


def _a_minus_1_quadrature(alpha: float, q: float, sigma: float) -> float:
    """A - 1 = E[(1 + q W)^alpha - 1 - alpha q W], W = e^u - 1, u = z / sigma - 1 / (2 sigma^2), z ~ N(0, 1) (E W = 0),
    by Gauss-Hermite quadrature: a sum of non-negative terms, each to a few ulps, so A - 1 keeps its digits
    where A is within rounding of 1 (the series resolves only a rounding unit of A there).

    With beta = alpha - 1 and l = log1p(t), (1 + t)^alpha - 1 - alpha t = beta ((1 + t) l - t) + (1 + t) (e^{beta l}
    - 1 - beta l): both terms >= 0 (t > -1), each from :func:`_log1p_minus` and
    :func:`dpnotes.divergences._expm1mx` without cancellation, also for alpha near 1."""
    s = 1.0 / sigma
    w = np.expm1(s * _GH_Z - 0.5 * s * s)
    t = q * w
    ell = np.log1p(t)
    beta = alpha - 1.0
    g = beta * (_log1p_minus(t) + t * ell) + (1.0 + t) * _expm1mx(beta * ell)
    return float(np.dot(_GH_W, g))


_LOG_ULP = math.log(2.0**-52)   # log of a double's relative rounding unit


def _log_a_fractional(alpha: float, q: float, sigma: float, rtol: float = 1e-13) -> float:
    # MTZ 2019, Section 3.3: split the integral at z0, where the two mixture
    # components cross, and expand each half in a binomial series with generalized
    # binomial coefficients C(alpha, i) (their sign alternates once i > alpha).
    # The terms decay only polynomially; past i > alpha the series alternates, so the
    # error of stopping is below the first omitted term: add blocks of terms until
    # that term is below rtol * log(A) (log(A) is what the caller needs), or below the
    # rounding error of the sum itself (a few ulps of A): near order 1 with large sigma,
    # log(A) ~ 1e-6 and rtol * log(A) is far below what a double sum of A ~ 1 resolves, so
    # more terms change nothing (they used to run to the cap of a million terms, ~1 s/order).
    z0 = sigma**2 * math.log(1.0 / q - 1.0) + 0.5
    log_q, log_1q = math.log(q), math.log1p(-q)
    logs, signs = [], []
    size, start = 256, 0
    while True:
        i = np.arange(start, start + size, dtype=float)
        lg = gammaln(alpha + 1.0) - gammaln(i + 1.0) - gammaln(alpha - i + 1.0)   # log|C(alpha, i)|
        sign = np.where((i > alpha) & (np.floor(i - alpha) % 2 == 1), -1.0, 1.0)
        j = alpha - i
        e0 = lg + i * log_q + j * log_1q + i * (i - 1.0) / (2 * sigma**2) \
            + log_ndtr((z0 - i) / sigma)
        e1 = lg + j * log_q + i * log_1q + j * (j - 1.0) / (2 * sigma**2) \
            + log_ndtr((j - z0) / sigma)
        logs.append(np.logaddexp(e0, e1))
        signs.append(sign)
        allv, alls = np.concatenate(logs), np.concatenate(signs)
        total, sgn = logsumexp(allv, b=alls, return_sign=True)
        log_a = float(total) if sgn > 0 else 0.0
        floor = max(math.log(rtol * max(log_a, 1e-300)), _LOG_ULP + float(total))
        if start + size > alpha + 2 and allv[-1] < floor or start > 1_000_000:
            return max(log_a, 0.0)
        start += size
        size *= 2


def subsampled_gaussian_rdp(sampling_probability, noise_multiplier, orders):
    r"""Rényi DP :math:`\rho(\alpha)` of one step of the Poisson-subsampled Gaussian (sensitivity 1).

    :math:`\rho(\alpha) = \frac{1}{\alpha-1}\log A_\alpha` with
    :math:`A_\alpha = \mathbb E_{y\sim P}[(Q(y)/P(y))^{\alpha}]` (:cite:`mironov2019sampled`):
    for integer :math:`\alpha` the binomial expansion
    :math:`A_\alpha = \sum_{k=0}^{\alpha}\binom{\alpha}{k}(1-q)^{\alpha-k}q^k e^{(k^2-k)/(2\sigma^2)}`
    (exact; Mironov, Talwar and Zhang show that this remove direction is the larger of the two), for fractional
    :math:`\alpha` their two-sided series of Section 3.3 (the bound they prove for the
    remove direction). With :math:`q = 1` it is :math:`\alpha/(2\sigma^2)`.

    Parameters
    ----------
    sampling_probability : float
        In ``(0, 1]``.
    noise_multiplier : float
        ``> 0``.
    orders : float or array_like
        Rényi orders, each in ``(1, MAX_ORDER]`` (:data:`MAX_ORDER` is :math:`10^6`).

    Returns
    -------
    numpy.ndarray or float
        :math:`\rho` at each order (a float for a scalar order): ``inf`` where it exceeds the doubles
        (:math:`\sigma` below about :math:`10^{-154}`), ``0`` where it is below the subnormals
        (:math:`\alpha q^2 / (2\sigma^2)` for a huge :math:`\sigma`). Where :math:`\rho` is tiny, integer
        orders keep their digits (:math:`A_\alpha - 1` is summed with ``expm1``); fractional orders do where
        :math:`\sigma \ge 1` and :math:`\alpha \le 6\sigma` (:math:`A_\alpha - 1` by Gauss-Hermite quadrature,
        a sum of non-negative terms; a few ulps against mpmath) and from :math:`\sigma \ge 2^{27}\max(1, \alpha q)`
        on (the second-order expansion). Elsewhere, below order 1000, the series (relative tolerance
        :math:`10^{-13}`) resolves :math:`\log A_\alpha` to a few rounding units of :math:`A_\alpha`, so
        :math:`\rho` to about :math:`2^{-52}/(\alpha - 1)` absolute: orders near 1 at :math:`\sigma < 1` keep a
        relative accuracy of only about :math:`2^{-52}/((\alpha - 1)\rho)` (measured: :math:`8\cdot 10^{-11}` at
        :math:`(\alpha, q, \sigma) = (1.01, 10^{-3}, 0.4)`, :math:`4\cdot 10^{-9}` at
        :math:`(1 + 10^{-6}, 0.2, 0.9)`). From order 1000 on the series is checked against the bounds that
        the convexity of :math:`\log A_\alpha` in :math:`\alpha` gives from the exact integer orders (it lost up
        to 14 % of :math:`\rho` where :math:`A_\alpha` is near 1): where they agree to :math:`10^{-6}`
        (relative) their upper end is returned, an upper bound within that of :math:`\rho`; elsewhere (where
        :math:`\rho` turns sharply with the order) the series, or the upper end where the series leaves them
        (the series was within :math:`5\cdot 10^{-11}` of mpmath at the two such points checked). Integer orders
        near :math:`10^6` carry the rounding of ``gammaln`` in their binomial coefficients, about
        :math:`10^{-9}` of :math:`\rho` (relative).

    Raises
    ------
    ValueError
        For ``sampling_probability`` outside ``(0, 1]``, ``noise_multiplier <= 0``, or an order outside
        ``(1, MAX_ORDER]``.

    Examples
    --------
    >>> round(subsampled_gaussian_rdp(1.0, 2.0, 3), 12)          # alpha / (2 sigma^2)
    0.375
    >>> a2 = 0.9**2 + 2 * 0.9 * 0.1 + 0.1**2 * math.exp(1.0)      # alpha = 2, sigma = 1
    >>> bool(abs(subsampled_gaussian_rdp(0.1, 1.0, 2) - math.log(a2)) < 1e-14)
    True
    """
    q = _q(sampling_probability)
    sigma = _sigma(noise_multiplier)
    arr = check_array("orders", orders, allow_inf=True, allow_nan=True, allow_empty=True)
    flat = np.atleast_1d(arr).ravel()
    if not np.all(np.isfinite(flat)) or np.any(flat <= 1) or np.any(flat > MAX_ORDER):
        bad = flat[~(np.isfinite(flat) & (flat > 1) & (flat <= MAX_ORDER))][0]
        raise ValueError(f"orders must be in (1, {MAX_ORDER}], got {float(bad)!r}")
    out = np.empty_like(flat)
    for n, a in enumerate(flat):
        if q == 1.0:
            out[n] = a / (2.0 * sigma**2) if 1.0 / _SIGMA_SQUARED_SAFE <= sigma <= _SIGMA_SQUARED_SAFE \
                else (0.5 * float(a) / sigma) / sigma    # sigma**2 overflows or underflows to 0 (inf: no warning)
        elif float(a).is_integer():
            out[n] = _log_a_integer(int(a), q, sigma) / (a - 1.0)
        else:
            out[n] = _rdp_fractional(float(a), q, sigma)
    out = np.maximum(out, 0.0)
    return float(out[0]) if arr.ndim == 0 else out.reshape(arr.shape)


def subsampled_gaussian_rdp_epsilon(sampling_probability, noise_multiplier, steps, delta, orders=None) -> float:
    r"""The moments accountant: :math:`\varepsilon` of ``steps`` subsampled-Gaussian steps via Rényi DP.

    Rényi DP composes additively, so ``steps`` steps are
    :math:`(\alpha, T\rho(\alpha))`-RDP (:cite:`mironov2017renyi` Proposition 1); the
    best order is converted to :math:`(\varepsilon,\delta)` by
    :func:`dpnotes.composition.rdp_to_dp` (its ``"improved"`` conversion). An upper
    bound, looser than :func:`subsampled_gaussian_epsilon`.

    Parameters
    ----------
    sampling_probability, noise_multiplier : float
        As in :func:`subsampled_gaussian_rdp`.
    steps : int
        ``>= 1``.
    delta : float
        In ``(0, 1)``.
    orders : array_like, optional
        Rényi orders to optimize over (default :data:`DEFAULT_ORDERS`).

    Returns
    -------
    float
        The smallest :math:`\varepsilon` over ``orders`` at ``delta`` (add/remove relation).

    Raises
    ------
    ValueError
        If a parameter is outside its range (``sampling_probability`` in ``(0, 1]``,
        ``noise_multiplier > 0``, ``steps >= 1``, ``delta`` in ``(0, 1)``, orders ``> 1``).

    Examples
    --------
    >>> from dpnotes.composition import rdp_to_dp
    >>> e = subsampled_gaussian_rdp_epsilon(1.0, 2.0, 4, 1e-5, orders=[3.0])
    >>> bool(abs(e - rdp_to_dp([3.0], [4 * 3 / 8], 1e-5)) < 1e-12)
    True
    """
    from .composition import rdp_to_dp

    steps = check_integer("steps", steps, low=1)
    delta = _delta(delta)
    orders = DEFAULT_ORDERS if orders is None else np.atleast_1d(
        check_array("orders", orders, allow_inf=True, allow_nan=True))
    with np.errstate(over="ignore"):
        rho = steps * np.atleast_1d(subsampled_gaussian_rdp(sampling_probability, noise_multiplier, orders))
    # an order whose T rho is inf (a noise so small that A_alpha overflows: sigma = 1e-300 gave rho = nan, then
    # "rdp must be >= 0, got nan") gives epsilon = inf and cannot be the minimum; with every one inf the moments
    # accountant bounds nothing
    finite = np.isfinite(rho)
    if not np.any(finite):
        return math.inf
    return rdp_to_dp(np.asarray(orders)[finite], rho[finite], delta)


# ---------------------------------------------------------------- Gaussian-DP central limit
def clt_gdp_mu(sampling_probability, noise_multiplier, steps) -> float:
    r"""The central-limit :math:`\mu` of DP-SGD: :math:`\mu = q\sqrt{T(e^{1/\sigma^2}-1)}` (an **approximation**).

    :cite:`bu2020deep` (the central limit theorem of :cite:`dong2022gaussian` applied to DP-SGD):
    as :math:`T\to\infty` with :math:`q\sqrt T` fixed, ``steps`` compositions of the
    Poisson-subsampled Gaussian converge to :math:`\mu`-Gaussian DP. At finite
    :math:`T` it is neither an upper nor a lower bound; the page
    *Three accountants* shows it undershooting the tight value.

    Parameters
    ----------
    sampling_probability : float
        Poisson sampling rate :math:`q`, in ``(0, 1]``.
    noise_multiplier : float
        :math:`\sigma`, the noise standard deviation over the clipping norm, ``> 0``.
    steps : int
        Number of steps :math:`T`, ``>= 1``.

    Returns
    -------
    float
        The central-limit :math:`\mu` (an approximation, not a bound); ``inf`` where it exceeds the doubles
        (:math:`\sigma` below about 0.0265 at :math:`q\sqrt T = 1`).

    Raises
    ------
    ValueError
        If a parameter is outside its range.

    Examples
    --------
    >>> round(clt_gdp_mu(0.01, 1.0, 10_000), 6) == round(0.01 * math.sqrt(1e4 * math.expm1(1.0)), 6)
    True
    """
    q = _q(sampling_probability)
    sigma = _sigma(noise_multiplier)
    steps = check_integer("steps", steps, low=1)
    if sigma > _SIGMA_SQUARED_SAFE:
        # 1/sigma^2 underflows (sigma**2 overflowed at 1e300): e^{1/sigma^2} - 1 = 1/sigma^2 to a relative 1e-300
        return float(q * (math.sqrt(steps) / sigma))
    u = 1.0 / sigma**2 if sigma >= 1.0 / _SIGMA_SQUARED_SAFE else math.inf   # sigma**2 underflows to 0 below
    v = steps * math.expm1(u) if u < _EXP_SAFE else math.inf
    if math.isinf(v):
        # T (e^u - 1) overflows (sigma = 1e-300 divided by sigma**2 = 0: ZeroDivisionError; below 0.0375
        # math.expm1 raised OverflowError): mu = q sqrt(T) e^{u/2} sqrt(1 - e^-u), through its log
        log_mu = math.log(q) + 0.5 * math.log(steps) + 0.5 * u + 0.5 * math.log(-math.expm1(-u))
        return math.exp(log_mu) if log_mu <= _LOG_MAX else math.inf                   # inf past the doubles
    return float(q * math.sqrt(v))


def clt_gdp_epsilon(sampling_probability, noise_multiplier, steps, delta) -> float:
    r""":math:`\varepsilon` at ``delta`` of :math:`\mu`-GDP with :math:`\mu` = :func:`clt_gdp_mu` (an **approximation**).

    :math:`\mu`-GDP has the privacy profile of the Gaussian mechanism with
    :math:`\Delta/\sigma = \mu` (:cite:`dong2022gaussian`), so this is
    :func:`dpnotes.loss.gaussian_epsilon` at that :math:`\mu`.

    Parameters
    ----------
    sampling_probability, noise_multiplier, steps
        As in :func:`clt_gdp_mu`.
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float
        The :math:`\varepsilon` of :math:`\mu`-GDP at ``delta`` (an approximation, not a bound): ``inf``
        where :math:`\mu` or :math:`\varepsilon \approx \mu^2/2` exceeds the doubles, ``0`` where
        :math:`\mu` is below the subnormals.

    Raises
    ------
    ValueError
        If a parameter is outside its range.

    Examples
    --------
    >>> from dpnotes.loss import gaussian_epsilon
    >>> clt_gdp_epsilon(0.02, 1.5, 900, 1e-5) == gaussian_epsilon(1e-5, clt_gdp_mu(0.02, 1.5, 900))
    True
    """
    from .loss import gaussian_epsilon

    mu = clt_gdp_mu(sampling_probability, noise_multiplier, steps)
    delta = _delta(delta)
    if mu == 0.0:              # q sqrt(T) / sigma underflowed (q = 1e-300, sigma = 1e300): 0-GDP, no loss at all
        return 0.0
    if math.isinf(mu):         # the noise is so small that mu exceeds the doubles: no epsilon at any delta < 1
        return math.inf
    return gaussian_epsilon(delta, mu)


# ---------------------------------------------------------------- privacy loss distribution by FFT
#
# The accountant in five steps (the accounting page derives each one):
#
# 1. ``_Pair``: one step as a pair (A, B) of laws of the noisy output y (noise units) whose
#    privacy loss L(y) = log(a/b)(y) increases with y. add/remove: A = Q, B = P ("remove";
#    "add" is the dual pair (B, A)); replace-one: A = (1-q)N(0) + qN(1), B = (1-q)N(0) + qN(-1).
# 2. ``_discretize``: connect-the-dots on the loss grid {k h}. Every bit of A-mass with loss
#    l in [l_k, l_k + h] is split between l_k and l_k + h so that both its A-mass and its
#    B-mass (e^-l times it) are kept; the two shares are integrals of non-negative functions
#    over the cell, computed by Gauss-Legendre quadrature in y. The masses are therefore
#    non-negative by construction and sum to the quadrature of A's density (one, to round-off).
#    Tails beyond a far truncation are rounded up (pessimistic). The "add" direction is the
#    exact dual of the same discrete pair (masses w_k e^{-l_k} at -l_k): no second differences.
# 3. ``_Composed``: the ``steps``-fold convolution by one FFT power of the *exponentially
#    tilted* masses w_k e^{lam l_k} (tilting commutes with convolution). The tilt centres the
#    composed law at the epsilon sought, so that the FFT's round-off, ~1e-16 of the largest
#    entry, is relative to the masses that decide delta even when delta = 1e-12.
# 4. Rigorous truncation: mass outside the FFT window either folds back onto the window (adds
#    mass: pessimistic) or lies above it, and that mass is bounded by a Chernoff bound and added
#    to delta, together with the probability that some step has an infinite loss.
# 5. ``_account``: the mesh h from the predicted discretization error. Connect-the-dots adds
#    to each step's loss a split noise xi with E[e^-xi] = 1, of variance V1(h) = E[x(h-x)]
#    (x = loss mod h); T steps shift epsilon by about T V1(h) rho / 2, rho the composed density
#    at epsilon over E[e^{eps - L}; L > eps], read off a coarse first pass (``_density_ratio``).
#    V1 is computed under the tilted one-step law by quadrature (``_Guide``, ``_v1``). Before any
#    of this, epsilon = 0 is decided exactly from the total variation (``subsampled_gaussian_epsilon``).

RELATIONS = ("add_remove", "replace_one")

_GL8 = np.polynomial.legendre.leggauss(8)
_GL4 = np.polynomial.legendre.leggauss(4)
_GL2 = np.polynomial.legendre.leggauss(2)
_TARGET = 1.5e-5         # predicted relative discretization error aimed at (the bound promised is 1e-4;
                         # the model is measured to be off by up to a factor 4 in the compound-Poisson corner)
_MAX_FFT = 1 << 23       # largest FFT; beyond it the mesh is coarsened (still an upper bound, less tight)
_MAX_CELLS = 1 << 21     # largest one-step grid


def _relation(relation) -> str:
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of 'add_remove', 'replace_one', got {relation!r}")
    return relation


def _log1p_q_expm1(r: np.ndarray, q: float) -> np.ndarray:
    """log(1 - q + q e^r), accurate when the result is tiny (small q), for huge r, and near its lower end log(1 - q).

    There, q expm1(r) near -1 (q near 1, r very negative), log1p kept only the digits of the rounding of -q: an
    absolute 1e-16 / (1 - q) (1e-7 at q = 1 - 1e-9, and -inf at q = 1 from r = -36.7), which moved the discretized
    masses of the dual direction (e^-l times them) until they summed to 1 + 1e-9 and the composition's guard
    refused them (subsampled_gaussian_delta(1 - 1e-9, 0.1, 2, 1.0), a helper's find). Where the result is below
    log(1/2) the two positive terms are added in logs instead, which keeps their digits."""
    if q == 0.0:
        return np.zeros_like(r)
    small = r < 30.0
    out = np.empty_like(r)
    t = q * np.expm1(r[small])
    low = t < -0.5
    with np.errstate(divide="ignore"):        # log1p(-1) at q = 1, replaced below
        t = np.log1p(t)
    if np.any(low):
        t[low] = np.logaddexp(math.log1p(-q) if q < 1 else -math.inf, math.log(q) + r[small][low])
    out[small] = t
    with np.errstate(divide="ignore"):
        out[~small] = np.logaddexp(np.log1p(-q), math.log(q) + r[~small])
    return out


class _Pair:
    """One step as a pair (A, B) in noise units y, loss L(y) = log(a/b)(y) increasing in y.

    A = (1-q) N(0, s^2) + q N(1, s^2);  B = (1-qb) N(0, s^2) + qb N(-1, s^2), with qb = 0 for
    add/remove (its remove direction; the add direction is the dual pair) and qb = q for
    replace-one (the clipped gradient +1 replaced by -1: the pair is symmetric, y -> -y).
    """

    def __init__(self, q: float, sigma: float, relation: str):
        self.q, self.s, self.relation = q, sigma, relation
        self.qb = 0.0 if relation == "add_remove" else q
        self.inf_loss = math.log1p(-q) if (self.qb == 0.0 and q < 1) else -math.inf

    def loss(self, y):
        y = np.asarray(y, dtype=float)
        s2 = self.s**2
        return _log1p_q_expm1((2 * y - 1) / (2 * s2), self.q) - _log1p_q_expm1((-2 * y - 1) / (2 * s2), self.qb)

    def log_a(self, y):
        z = np.asarray(y, dtype=float) / self.s
        with np.errstate(divide="ignore"):
            return np.logaddexp(np.log1p(-self.q) - 0.5 * z * z, math.log(self.q) - 0.5 * (z - 1 / self.s) ** 2) \
                - math.log(self.s) - 0.5 * math.log(2 * math.pi)

    def inverse(self, l):
        """The output y at which the loss equals ``l`` (-inf below the loss's infimum)."""
        l = np.asarray(l, dtype=float)
        q, s2 = self.q, self.s**2
        if self.qb == 0.0:       # e^l = 1 - q + q e^{(2y-1)/(2 s^2)}
            y = s2 * _log_odds_excess(l, q) + 0.5
            return np.where(l <= self.inf_loss, -np.inf, y)
        # replace-one: q c u^2 + (1-q)(1 - e^l) u - q c e^l = 0, u = e^{y/s^2}, c = e^{-1/(2 s^2)};
        # its positive root is u = e^{l/2} exp(asinh(x)), x = (1-q) sinh(l/2) / (q c). x leaves the doubles
        # where sinh(l/2) overflows (|l| > 1420) or c underflows (s < 0.026): there asinh(x) is taken from
        # log|x| (asinh(x) = sign(x) (log 2|x| + O(x^-2)); it gave nan, the profile too)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            x = (1 - q) * np.sinh(l / 2) / (q * math.exp(-0.5 / s2))
            far = ~np.isfinite(x)
            if np.any(far):
                a = np.abs(l) / 2          # log|x| = log(1-q) - log q + 1/(2 s^2) + log sinh(a)
                log_x = ((math.log1p(-q) if q < 1 else -np.inf) - math.log(q) + 0.5 / s2
                         + _log_2sinh(a) - math.log(2.0))
                x_far = np.sign(l) * np.where(log_x > 20.0, math.log(2.0) + log_x,
                                              np.arcsinh(np.exp(np.minimum(log_x, 20.0))))
                return s2 * (l / 2 + np.where(far, x_far, np.arcsinh(np.where(far, 0.0, x))))
        return s2 * (l / 2 + np.arcsinh(x))

    def _mass(self, y, upper: bool, which: str):
        """A- or B-mass of {Y > y} (upper) or {Y < y}."""
        sgn = -1.0 if upper else 1.0
        z = np.asarray(y, dtype=float) / self.s
        qq, shift = (self.q, 1.0) if which == "a" else (self.qb, -1.0)
        from scipy.special import ndtr
        return (1 - qq) * ndtr(sgn * z) + qq * ndtr(sgn * (z - shift / self.s))

    def truncation(self, tail: float) -> tuple[float, float]:
        """y_lo, y_hi such that each law's mass beyond them is below ``tail``: each mixture
        component's normal tail, weighted by the component's weight, at most ``tail`` / 2.
        (What lies beyond goes to the infinite losses, so ``tail`` times the steps is what
        the truncation can add to delta.) The component N(0) weighs 1 - q in A and 1 - qb in B: the larger
        is taken. It was 1 - q for both, which for add/remove (B = N(0), weight 1) left B a mass 1 / (1 - q)
        times ``tail`` beyond: 1e9 times at q = 1 - 1e-9, where it exceeded delta = 1e-290 and the accountant
        refused a delta its docstring allows (a helper's find)."""
        def z(weight):
            return -_ndtri_log(math.log(tail / 2) - math.log(weight)) if weight > 0 else -math.inf

        w0 = 1.0 - min(self.q, self.qb)          # the heavier of the two laws' N(0) weights
        hi = max(self.s * z(w0), 1.0 + self.s * z(self.q), -1.0 + self.s * z(self.qb) if self.qb > 0 else -math.inf)
        lo = min(-self.s * z(w0), 1.0 - self.s * z(self.q), -1.0 - self.s * z(self.qb) if self.qb > 0 else math.inf)
        return lo, hi


def _ndtri_log(logp: float) -> float:
    from scipy.special import ndtri_exp    # the normal quantile of exp(logp)

    return float(ndtri_exp(logp))


def _panels(edges: np.ndarray, s: float, width: float):
    """Quadrature nodes on the intervals [edges[j], edges[j+1]]: each split into panels on which
    the normal densities change by a bounded factor, with a 2-, 4- or 8-point rule.
    Returns (cell index, node, weight) arrays."""
    lo, hi = edges[:-1], edges[1:]
    span = hi - lo
    scale = 1.0 + np.maximum(np.abs(lo), np.abs(hi)) / s
    m = np.maximum(1, np.ceil(span * scale / (width * s))).astype(np.int64)
    cid = np.repeat(np.arange(lo.size), m)
    first = np.repeat(np.cumsum(m) - m, m)
    step = span[cid] / m[cid]
    p0 = lo[cid] + (np.arange(cid.size) - first) * step
    # the rule by how much the normal densities change across a panel (relative error of the
    # rule ~ that change to the power 2 * nodes): 2, 4 or 8 Gauss-Legendre nodes
    width_rel = step * scale[cid] / s
    out = []
    for sel, (x, w) in ((width_rel < 0.004, _GL2), ((width_rel >= 0.004) & (width_rel < 0.05), _GL4),
                        (width_rel >= 0.05, _GL8)):
        if np.any(sel):
            half = step[sel, None] / 2
            out.append((np.repeat(cid[sel], x.size), ((p0[sel, None] + half) + half * x[None, :]).ravel(),
                        (half * w[None, :]).ravel()))
    return tuple(np.concatenate([o[i] for o in out]) for i in range(3))


def _discretize(pair: _Pair, h: float, y_lo: float, y_hi: float):
    """Connect-the-dots masses of the pair on the grid {k h}: (k0, w, w_inf, b_only).

    ``w[j]`` is the A-mass at loss (k0 + j) h, ``w_inf`` the A-mass at +infinity (outputs above
    ``y_hi``), ``b_only`` the B-mass where A has none (the dual pair's infinite loss).
    """
    l_lo, l_hi = float(pair.loss(y_lo)), float(pair.loss(y_hi))
    k0 = math.floor(l_lo / h)
    k1 = max(math.ceil(l_hi / h), k0 + 1)
    if k1 - k0 > _MAX_CELLS:
        raise _TooFine
    edges = np.concatenate([[y_lo], pair.inverse(np.arange(k0 + 1, k1) * h), [y_hi]])
    edges = np.maximum.accumulate(np.clip(edges, y_lo, y_hi))
    n_cells = k1 - k0
    up = np.zeros(n_cells)
    down = np.zeros(n_cells)
    cid, y, wq = _panels(edges, pair.s, 0.25)
    chunk = 1 << 20
    for i in range(0, cid.size, chunk):
        c, yy, ww = cid[i:i + chunk], y[i:i + chunk], wq[i:i + chunk]
        lk = (k0 + c) * h
        dens = ww * np.exp(pair.log_a(yy))
        gap = pair.loss(yy) - lk                      # in [0, h] up to round-off
        up += np.bincount(c, weights=dens * np.maximum(-np.expm1(-gap), 0.0), minlength=n_cells)
        down += np.bincount(c, weights=dens * np.maximum(np.expm1(h - gap), 0.0), minlength=n_cells)
    w = np.zeros(n_cells + 1)
    w[1:] += up / -math.expm1(-h)                     # share of each cell at its top l_k + h
    w[:-1] += down / math.expm1(h)                    # share at its bottom l_k
    # the tails: below y_lo every loss is < L(y_lo) < l_{k0+1}: round up to l_{k0+1}
    a_t, b_t = float(pair._mass(y_lo, False, "a")), float(pair._mass(y_lo, False, "b"))
    w[1] += a_t
    b_only = max(b_t - a_t * math.exp(-(k0 + 1) * h), 0.0) + float(pair._mass(y_hi, True, "b"))
    w_inf = float(pair._mass(y_hi, True, "a"))
    total = w.sum() + w_inf
    assert total < 1 + 1e-9, f"one-step mass {total!r} exceeds 1"
    if total > 1.0:                                   # quadrature round-off only (< 1e-9, asserted)
        w /= total
    return k0, w, w_inf, b_only


class _TooFine(Exception):
    """The mesh asked for needs more cells or FFT points than the caps allow."""


def _direction(disc, h: float, sign: int):
    """(loss grid indices, masses, infinite mass) of one direction of a discretized pair."""
    k0, w, w_inf, b_only = disc
    idx = k0 + np.arange(w.size)
    if sign > 0:
        return idx, w, w_inf
    # the dual pair (B, A): A-mass w at l is B-mass w e^{-l}, now at loss -l
    return -idx[::-1], (w * np.exp(-idx * h))[::-1], b_only


def _lse(x: np.ndarray, axis=None):
    """log(sum(exp(x))) along ``axis`` (scipy.special.logsumexp without its per-call overhead)."""
    top = np.max(x, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    out = np.log(np.sum(np.exp(np.maximum(x - top, -745.0)), axis=axis, keepdims=True)) + top
    return out.item() if axis is None else np.squeeze(out, axis=axis)


def _log_mgf(logw: np.ndarray, loss: np.ndarray, thetas) -> np.ndarray:
    """log E[e^{theta L}; L finite] for each theta."""
    return np.array([_lse(logw + t * loss) for t in np.atleast_1d(thetas)])


class _Composed:
    """``steps``-fold composition of one direction's discrete PLD, computed tilted by ``lam``.

    Holds the composed masses ``c`` at losses ``loss`` (a window of the grid, from where the
    tilted FFT is accurate upwards) and ``extra``: a rigorous bound on the probability of an
    infinite loss or a loss above the window.
    """

    def __init__(self, idx, w, w_inf, steps: int, h: float, lam: float, guide: "_Guide", top_tail: float = 1e-24,
                 cover=None):
        from scipy import fft

        keep = w > 0
        idx, w = idx[keep], w[keep]
        loss = idx * h
        logw = np.log(w)

        def k_plan(thetas):      # the exact one-step law's log-mgf: to place the window only
            return _lse(guide.logw[None, :] + np.atleast_1d(thetas)[:, None] * guide.loss[None, :], axis=1)

        k_lam = float(_log_mgf(logw, loss, lam)[0])
        wt = np.exp(logw + lam * loss - k_lam)         # the tilted one-step law (sums to 1)
        mean = steps * float(np.dot(wt, loss))
        sd = math.sqrt(max(steps * float(np.dot(wt, (loss - mean / steps) ** 2)), (h * h)))
        # the window [lo, top]. Bottom: all but 1e-16 of the tilted composed law is above it
        # (Chernoff); mass below folds onto the top, scaled down by the untilting. Top: above the
        # tilted law's 1e-16 point, or, if a heavy right tail makes that far, above the point
        # where the untilted law has less than ``top_tail`` left (Chernoff; added to delta); and
        # so high that the untilted mass which folds back from above onto the window's useful part,
        # losses >= e_min, is below ``top_tail`` although untilting multiplies it by e^{lam (top - lo)}:
        # P(L_T >= e_min + top - lo) e^{lam (top - lo)} <= e^{T K(th) - th e_min + (lam - th)(top - lo)}.
        th = np.geomspace(1e-3, 1e4, 36) / sd
        log_tail, log_tt = math.log(1e-16), math.log(top_tail)
        k_g = float(k_plan(lam)[0])
        hi = np.min((steps * (k_plan(lam + th) - k_g) - log_tail) / th)
        lo = np.max(-(steps * (k_plan(lam - th) - k_g) - log_tail) / th)
        th0 = np.concatenate([lam + th, th])
        hi_untilted = np.min((steps * k_plan(th0) - log_tt) / th0)
        hi = min(hi, max(hi_untilted, mean + 12 * sd))
        lo, hi = min(lo, mean - 10 * sd), max(hi, mean + 10 * sd)     # the discrete law's own spread
        if cover is not None:                          # a loss the window must hold (delta's epsilon)
            lo = min(lo, cover - 4 * h)
        lo, hi = max(lo, steps * loss[0]), min(hi, steps * loss[-1])
        hi = max(hi, lo + 8 * h)
        # answers below e_min would need mass that untilting amplifies (folded or round-off);
        # without a tilt nothing is amplified and the whole window is usable
        self.e_min = max(lo, mean - 8 * sd) if lam > 0 else lo
        if (steps * loss[-1] - lo) / h < max(1 << 20, 2 * (hi - lo) / h):
            hi = steps * loss[-1]                      # cheap to hold every composed loss: nothing folds
        else:
            fold = lo + np.min((steps * k_plan(lam + th) - (lam + th) * self.e_min - log_tt) / th)
            hi = min(max(hi, fold), steps * loss[-1])
        need = int(math.ceil((hi - lo) / h)) + 2
        if need > _MAX_FFT:
            raise _TooFine
        n = fft.next_fast_len(need, real=True)
        self.n = n
        start = math.floor(lo / h)
        buf = np.bincount(idx % n, weights=wt, minlength=n)      # loss index k at k mod n
        spec = fft.rfft(buf, workers=2)
        with np.errstate(divide="ignore"):                # z^T as |z|^T e^{i T arg z}; 0^T = 0
            spec = np.exp(steps * np.log(np.abs(spec))) * np.exp(1j * (steps * np.angle(spec)))
        # the composed loss index K sits at K mod n; the window's K = start + j
        comp = np.roll(np.maximum(fft.irfft(spec, n, workers=2), 0.0), -(start % n))
        # accurate from the peak upwards, and downwards as long as the untilting, which multiplies
        # the round-off (a relative rel of the peak) by e^{lam (l_peak - l)}, keeps it below 1e-4
        # of the peak's untilted mass
        peak = int(np.argmax(comp))
        rel = max(1e-13, 2e-15 * steps)
        reach = math.log(1e-4 / rel) / lam if lam > 0 else math.inf
        j_lo = max(0, peak - int(reach / h)) if reach < n * h else 0
        self.loss = (start + np.arange(j_lo, n)) * h
        with np.errstate(divide="ignore", over="ignore"):
            self.c = np.exp(np.log(comp[j_lo:]) + steps * k_lam - lam * self.loss)
        # the composed law's mass may not exceed 1 beyond the FFT's round-off (rel of the tilted
        # peak, as large after untilting as it is): the guard against masses that sum to more than one
        with np.errstate(over="ignore"):
            noise = float(np.sum(rel * comp[peak] * np.exp(steps * k_lam - lam * self.loss)))
        total = float(self.c.sum())
        assert total <= 1 + 1e-9 + noise, f"composed mass {total!r} exceeds 1"
        self.h, self.lam = h, lam
        # what the window misses: an infinite loss in some step, and a finite loss above it
        top_loss = (start + n) * h
        # (Chernoff, rigorous: the discrete law's exact log-mgf at the three best exponents of the plan)
        th_up = np.concatenate([[0.0], lam + th, th])
        best = th_up[np.argsort(steps * k_plan(th_up) - th_up * top_loss)[:3]]
        best = np.concatenate([best, [lam + 1.0 / sd]])
        chern = float(np.min(steps * _log_mgf(logw, loss, best) - best * top_loss))
        if top_loss > steps * loss[-1]:
            chern = -math.inf                          # the window holds every finite composed loss
        self.extra = -math.expm1(steps * math.log1p(-w_inf)) + math.exp(min(chern, 0.0))
        # delta at the grid points: e[j] = sum_{k>j} c_k e^{l_j - l_k}, d[j] = sum_{k>j} c_k (1 - e^{l_j - l_k})
        self.e = _discounted_tail_sums(self.c, h)
        self.d = np.cumsum((math.expm1(h) * self.e)[::-1])[::-1]

    def delta(self, eps: float) -> float:
        j = int(math.floor((eps - self.loss[0]) / self.h + 1e-9))
        if j < 0 or eps < self.e_min:
            raise _Retilt(max(self.loss[0], self.e_min))
        if j >= self.loss.size:
            return self.extra
        return float(self.d[j] - self.e[j] * math.expm1(eps - self.loss[j]) + self.extra)

    def epsilon(self, delta: float) -> float:
        at_grid = self.d + self.extra
        if at_grid[0] <= delta:
            if self.loss[0] <= 0.0:
                return 0.0
            raise _Retilt(self.loss[0])
        j = int(np.nonzero(at_grid > delta)[0][-1])
        if j == at_grid.size - 1:
            raise ValueError(f"delta must be larger than the accountant's truncation error "
                             f"{self.extra:.3g}, got {delta!r}")
        eps = self.loss[j] + math.log1p((at_grid[j] - delta) / self.e[j])
        eps = min(max(eps, self.loss[j]), self.loss[j + 1])
        if eps <= 0.0:
            return 0.0
        if eps < self.e_min:
            raise _Retilt(self.e_min)
        # guard the upper-bound side against round-off: by doubling steps from an ulp (_least_at_or_above), not by
        # steps of 1e-12 of eps, which the profile's own rounding could make millions long near a tiny eps
        return float(_least_at_or_above(lambda e: self.delta(e) <= delta, eps))


def _discounted_tail_sums(c: np.ndarray, h: float) -> np.ndarray:
    """e[j] = sum_{k>j} c_k e^{-(k-j) h}, in blocks of length S (S h <= 30: no under- or overflow).

    Inside block b: e^{ih} times the reverse cumulative sums of c_k e^{-kh} (k, i counted from
    the block's start); from the later blocks: e^{-(S-i)h} G[b+1], where G[b] (all mass from block
    b on, seen from its start) obeys G[b] = F[b] + e^{-Sh} G[b+1]: a short loop over the blocks.
    Hand-written: the recursion is a one-pole filter, and scipy.signal.lfilter costs a slow import.
    """
    n = c.size
    size = max(1, min(n, int(30.0 / h)))
    m = -(-n // size)
    blocks = np.zeros(m * size)
    blocks[:n] = c
    blocks = blocks.reshape(m, size)
    i = np.arange(size)
    weighted = blocks * np.exp(-i * h)[None, :]
    rev = np.cumsum(weighted[:, ::-1], axis=1)[:, ::-1]            # sum_{k >= i}
    after = np.zeros_like(rev)
    after[:, :-1] = rev[:, 1:]                                      # sum_{k > i}
    g = np.zeros(m + 1)
    decay = math.exp(-size * h)
    for b in range(m - 1, -1, -1):
        g[b] = rev[b, 0] + decay * g[b + 1]
    out = after * np.exp(i * h)[None, :] + g[1:, None] * np.exp(-(size - i) * h)[None, :]
    return out.ravel()[:n]


class _Unreached(RuntimeError):
    """The tilted FFT could not bring the answer into its accurate window (a delta far below it)."""


class _Retilt(Exception):
    """The answer lies below the window where the tilted FFT is accurate: tilt lower."""

    def __init__(self, loss):
        super().__init__(loss)
        self.loss = loss


class _Guide:
    """The exact one-step law of one direction by quadrature in y (for the mesh and the tilt)."""

    def __init__(self, pair: _Pair, y_lo: float, y_hi: float, sign: int):
        _, y, wq = _panels(np.linspace(y_lo, y_hi, 65), pair.s, 0.3)
        la = pair.log_a(y)
        loss = pair.loss(y)
        if sign > 0:
            self.logw, self.loss = np.log(wq) + la, loss
        else:
            self.logw, self.loss = np.log(wq) + la - loss, -loss

    def tilted(self, lam: float) -> np.ndarray:
        lw = self.logw + lam * self.loss
        return np.exp(np.maximum(lw - _lse(lw), -745.0))


def _v1(p: np.ndarray, loss: np.ndarray, hs: np.ndarray) -> np.ndarray:
    """E[x (h - x)] under the law ``p`` on ``loss``, x the loss's distance to the grid below,
    for each mesh h. Exact for losses within one cell of 0 (where small-q laws concentrate),
    h^2/6 (the average over a smooth law) elsewhere."""
    a = np.abs(loss)[None, :]
    hh = hs[:, None]
    psi = np.where(a < hh, a * (hh - a), hh * hh / 6.0)
    return psi @ p


def _last_true(pred, lo: float, hi: float, grid: int = 40, steps: int = 30) -> float:
    """The largest x in [lo, hi] (log scale) with pred(x) true, for a pred true below a threshold
    and false above it: a coarse geometric grid, then bisection. ``lo`` if pred is false there."""
    xs = np.geomspace(lo, hi, grid)
    oks = np.array([pred(x) for x in xs])
    if not oks[0]:
        return float(lo)
    if oks.all():
        return float(hi)
    k = int(np.nonzero(~oks)[0][0])
    a, b = xs[k - 1], xs[k]
    for _ in range(steps):
        mid = math.sqrt(a * b)
        a, b = (mid, b) if pred(mid) else (a, mid)
        if b <= a * (1 + 1e-3):
            break
    return float(a)


def _tilt_for(loss, w, steps: int, eps: float) -> float:
    """The tilt for a composed law centred near ``eps``: the largest lam >= 0 with
    steps * E_lam[L] <= eps and steps * P_lam(L >= 2 eps) <= 1e-4, and lam <= max(10 / sd, 30).

    The second condition caps the tilt where a heavy right tail of one step (losses far above
    ``eps``, which matter little for delta(eps)) would otherwise take the tilted law's weight and
    carry its composition away; the third where the law is bounded above (the add direction):
    an epsilon z standard deviations sd out needs lam ~ z / sd, and a larger tilt would only
    pile the law onto its largest loss."""
    keep = w > 0
    loss, logw = loss[keep], np.log(w[keep])
    tail = loss >= 2 * eps
    p0 = np.exp(logw - logw.max())
    p0 /= p0.sum()
    sd0 = math.sqrt(steps * max(float(p0 @ loss**2) - float(p0 @ loss) ** 2, 1e-300))
    cap = max(10.0 / sd0, 30.0)

    def ok(lam):
        lw = logw + lam * loss
        p = np.exp(np.maximum(lw - lw.max(), -745.0))     # no subnormal arithmetic
        p /= p.sum()
        return steps * float(p @ loss) <= eps and steps * float(p[tail].sum()) <= 1e-4

    if not ok(0.0):
        return 0.0
    return _last_true(ok, 1e-6, cap) if ok(1e-6) else 0.0


def _density_ratio(comp: "_Composed", eps: float) -> float:
    """rho = omega(eps) / E[e^{eps - L}; L > eps] of a composed law: how much epsilon moves per
    unit of delta added as density at eps (the mesh's error model uses it)."""
    j = int(np.clip(np.floor((eps - comp.loss[0]) / comp.h), 0, comp.loss.size - 1))
    lo, hi = max(j - 2, 0), min(j + 3, comp.c.size)
    dens = float(comp.c[lo:hi].sum()) / ((hi - lo) * comp.h)
    return max(dens / max(float(comp.e[j]), 1e-300), 1.0)


def _scale_at(comp: "_Composed", eps: float, delta: float) -> float:
    """e(eps) / delta: converts the error model's shift of epsilon into a relative error of delta
    (d delta = -e(eps) d eps)."""
    j = int(np.clip(np.floor((eps - comp.loss[0]) / comp.h), 0, comp.loss.size - 1))
    return float(comp.e[j]) / max(delta, 1e-300)


def _solve(disc, h, steps, sign, guide, eps_guess, delta, epsilon, top_tail=1e-24):
    """epsilon at ``delta`` (or delta at ``epsilon``) of one direction, and the composed law;
    tilted for ``eps_guess``, and tilted lower if the answer falls below the accurate window."""
    idx, w, w_inf = _direction(disc, h, sign)
    lam = _tilt_for(guide.loss, np.exp(guide.logw), steps, eps_guess)
    for _ in range(8):
        comp = _Composed(idx, w, w_inf, steps, h, lam, guide, top_tail, cover=epsilon)
        try:
            value = comp.epsilon(delta) if delta is not None else comp.delta(epsilon)
            return value, comp
        except _Retilt as r:
            lam = 0.0 if lam < 1e-3 else min(lam / 4, _tilt_for(guide.loss, np.exp(guide.logw), steps, r.loss))
    raise _Unreached("the tilted FFT did not reach the answer")


def _account(q: float, sigma: float, steps: int, relation: str, delta=None, epsilon=None):
    """The PLD accountant: epsilon at ``delta`` or delta at ``epsilon`` (worse direction).

    Two passes per call: a coarse one (mesh for a predicted relative error 1e-2) gives an
    estimate of the answer and the density ratio rho of the composed law there; the fine one
    uses the mesh for which steps V1(h) rho / 2 is ``_TARGET`` of epsilon (or of delta)."""
    pair = _Pair(q, sigma, relation)
    signs = (1,) if relation == "replace_one" else (1, -1)
    # few steps: the composed law is far from smooth and the error model less reliable, while
    # a finer mesh costs little (small FFTs): aim four times lower
    target = _TARGET / 4 if steps <= 16 else _TARGET
    d_ref = delta if delta is not None else 1e-12
    y_lo, y_hi = pair.truncation(1e-7 * d_ref / steps)
    guides = {s: _Guide(pair, y_lo, y_hi, s) for s in signs}
    if delta is not None:
        guess = {s: subsampled_gaussian_rdp_epsilon(q, sigma, steps, delta) for s in signs}
    else:
        guess = {s: epsilon for s in signs}

    def mesh(s, target, rho, eps, scale=1.0):
        # rho: the density ratio at eps (>= 1; it also caps the tilt of the error model's law);
        # scale: e(eps) / delta for a target relative to delta (dd = e de), 1 for one relative to eps
        lam = min(_tilt_for(guides[s].loss, np.exp(guides[s].logw), steps, max(eps, 1e-300)), rho - 1.0)
        p = guides[s].tilted(lam)
        return _last_true(lambda h: steps * float(_v1(p, guides[s].loss, np.array([h]))[0]) * rho * scale / 2
                          <= target, 1e-14, 1.0)

    # coarse pass
    est, rho, coarse, scale = {}, {}, {}, {}
    span1 = float(pair.loss(y_hi) - pair.loss(y_lo))
    for s in signs:
        lam0 = _tilt_for(guides[s].loss, np.exp(guides[s].logw), steps, guess[s])
        h_c = mesh(s, 1e-2 * max(guess[s], 1e-300), 1.0 + lam0, guess[s])
        sd1 = _span(guides[s])                    # at least two cells per standard deviation of one step,
        h_c = max(min(h_c, sd1 / 2), sd1 * steps**0.5 / 30000.0, span1 / 2**15)   # at most 2^15 cells
        while True:
            try:
                disc = _discretize(pair, h_c, y_lo, y_hi)
                value, comp = _solve(disc, h_c, steps, s, guides[s], guess[s], delta, epsilon, 1e-10 * d_ref)
                break
            except _TooFine:
                h_c *= 2.0
        e_at = value if delta is not None else epsilon
        est[s], rho[s], coarse[s], scale[s] = e_at, _density_ratio(comp, e_at), value, 1.0
        if delta is None:      # the error model's target is relative to delta: dd/d = T V1 omega / (2 d)
            # (kept apart from rho, which also caps the error model's tilt: folded into rho, a
            # small e/delta at a huge epsilon made that cap negative and the mesh far too coarse)
            scale[s] = _scale_at(comp, e_at, value)
    # fine pass, the direction with the larger coarse value first. The coarse values are upper
    # bounds too, so a direction whose coarse value is already below the other's fine value
    # cannot be the worse one: it is not refined.
    best = -math.inf
    for s in sorted(signs, key=lambda s: -coarse[s]):
        if coarse[s] <= best:
            continue
        if delta is not None and coarse[s] == 0.0:   # an upper bound of 0 is exact
            best = max(best, 0.0)
            continue
        # the mesh from the estimate; if the fine value moves the estimate by more than 5 %,
        # the error model is re-read at the new value (at most twice more)
        e_s, r_s, h_prev, result = est[s], rho[s], math.inf, coarse[s]
        for _ in range(3):
            h = (mesh(s, target * max(e_s, 1e-300), r_s, e_s) if delta is not None
                 else mesh(s, target, r_s, epsilon, scale[s]))
            # (a re-read error model that asks for a mesh less than twice finer predicts an error at
            # most four times the target, still within the promise: not worth another FFT)
            if h >= (h_prev if delta is not None else h_prev / 2):
                break
            coarsened = False
            while True:
                try:
                    disc = _discretize(pair, h, y_lo, y_hi)
                    value, comp = _solve(disc, h, steps, s, guides[s], e_s, delta, epsilon, 1e-10 * d_ref)
                    break
                except _TooFine:
                    h *= 2.0
                    coarsened = True
            h_prev, moved_far = h, abs(value - result) > 0.05 * value
            result = value
            _LAST.update(h=h, n=comp.n, cells=disc[1].size, coarsened=coarsened)
            if value <= 0 or coarsened:     # coarsened: the size cap allows no finer mesh
                break
            if delta is not None:
                if abs(value - e_s) <= 0.05 * value:
                    break
                e_s, r_s = value, _density_ratio(comp, value)
            else:
                # delta at a given epsilon: the error model's scale e(eps) / delta was read off a
                # coarse pass; if the fine delta is far from the coarse one, re-read it here
                # (q = 0.999, sigma = 1, T = 1e6, replace-one, epsilon = 2.0e6: the coarse delta
                # is 3900 times the true one, and the mesh read off it gave 7.4 times)
                if not moved_far:
                    break
                r_s = _density_ratio(comp, epsilon)
                scale[s] = _scale_at(comp, epsilon, value)
        # a posteriori, where it is cheap (small FFTs: few steps, or a composed law few meshes
        # wide): halve the mesh until the value moves by less than the target. The error model
        # assumes a smooth composed law, and a few steps dominated by one rare large loss are
        # not (q = 1e-6, sigma = 0.4, T = 10, delta = 1e-12: 1.5 % off at the model's mesh).
        # Every value is an upper bound, so the smallest is kept.
        # Past that size it goes on only while each halving still moves the value by more than
        # 10 %: the error model was then read off a coarse pass far from the answer (delta at a
        # huge epsilon, q = 0.999, sigma = 0.4, T = 1e6: the coarse delta is 1, the model's mesh
        # gives 33 times the true delta, and four more halvings bring it within 2 %).
        h_a, n_a, far = h_prev, _LAST.get("n", _MAX_FFT), False
        for _ in range(12):
            if not (result > 0 and (n_a <= 1 << 18 or far) and math.isfinite(h_a)):
                break
            h_a /= 2
            try:
                disc = _discretize(pair, h_a, y_lo, y_hi)
                finer, comp = _solve(disc, h_a, steps, s, guides[s], e_s if delta is not None else epsilon,
                                     delta, epsilon, 1e-10 * d_ref)
            except _TooFine:
                break
            moved = result - finer
            far = moved > 0.1 * result
            result, n_a = min(result, finer), comp.n
            _LAST.update(h=h_a, n=comp.n, cells=disc[1].size)
            if moved <= target * result:
                break
        best = max(best, result)
    return best


_LAST: dict = {}     # the last fine pass's mesh and sizes (read by benchmarks/bench_subsampling.py)


def _span(guide: "_Guide") -> float:
    """The spread of one step's loss (its standard deviation, untilted)."""
    p = guide.tilted(0.0)
    m = float(p @ guide.loss)
    return math.sqrt(max(float(p @ (guide.loss - m) ** 2), 1e-300))


def _validate_pld(sampling_probability, noise_multiplier, steps, relation):
    # steps is capped at 10**6: the grid of the FFT accountant widens with steps, and past some 10**8
    # its discretization overflowed (steps = 2**31: 'math range error'); 1 s at the cap
    return (_q(sampling_probability), _sigma(noise_multiplier), check_integer("steps", steps, low=1, high=10**6),
            _relation(relation))


# The noise multipliers for which the FFT accountant (0 < q < 1, steps > 1) is run. Below 0.1 the tilted FFT
# stopped reaching the answer (a private _Unreached escaped at sigma = 0.05; an OverflowError at 0.02;
# "repeats may not contain negative values" at 1e-300); up to 1e10 its epsilon stays within 2e-4 of the central limit
# theorem's epsilon, which is exact in the limit of large sigma (at 1e12 one step's masses summed to more
# than 1; sigma = 1e300 overflowed sigma**2).
_PLD_NOISE_RANGE = (0.1, 1e10)


def _check_pld_domain(sigma: float, steps: int, delta=None) -> None:
    """Refuse what the FFT accountant cannot compute: sigma outside _PLD_NOISE_RANGE, or a delta whose
    truncation tail 1e-7 delta / steps is not a normal double (delta = 5e-324: 'math domain error')."""
    lo, hi = _PLD_NOISE_RANGE
    if not lo <= sigma <= hi:
        raise ValueError(f"noise_multiplier must be in [{lo:g}, {hi:g}] for the FFT accountant (0 < "
                         f"sampling_probability < 1, steps > 1), got {sigma!r}")
    if delta is not None and 1e-7 * delta / steps < sys.float_info.min:
        least = 1e7 * sys.float_info.min * steps
        raise ValueError(f"delta must be in [{least!r}, 1) for the FFT accountant at steps = {steps} (its tails "
                         f"are cut at 1e-7 * delta / steps, a normal double), got {delta!r}")


def _one_step_profiles(q, sigma, relation, eps) -> float:
    """The exact one-step delta at ``eps``, worse direction."""
    eps = np.atleast_1d(float(eps))
    if relation == "replace_one":
        return float(_one_step(eps, q, sigma, "remove", True)[0])
    return float(max(_one_step(eps, q, sigma, d, False)[0] for d in DIRECTIONS))


def _exact_gaussian(q, sigma, steps, relation) -> float:
    """mu of the Gaussian mechanism that q = 1 reduces to (sensitivity 1 or, replace-one, 2)."""
    return (2.0 if relation == "replace_one" else 1.0) * math.sqrt(steps) / sigma


def subsampled_gaussian_delta(sampling_probability, noise_multiplier, steps, epsilon, *, relation="add_remove") -> float:
    r"""Upper bound on :math:`\delta(\varepsilon)` of ``steps`` Poisson-subsampled Gaussian steps (PLD by FFT).

    The computation of :func:`subsampled_gaussian_epsilon`, evaluated at one
    :math:`\varepsilon` (the worse direction under add/remove), with the mesh chosen for a
    relative error of about ``1e-4`` in :math:`\delta`. One step (``steps == 1``) and
    :math:`q = 1` are computed exactly (the one-step profile; the Gaussian mechanism).
    Where :math:`\varepsilon` is huge (:math:`q` near 1, :math:`T/\sigma^2 \ge 5 \cdot 10^5`:
    :math:`\varepsilon` from :math:`10^5` to :math:`3 \cdot 10^6`), :math:`\delta` changes by a
    factor 1.08 to 2.4 when :math:`\varepsilon` changes by a relative ``1e-4``, and the result is
    an upper bound within about 2 % of the true :math:`\delta`, not ``1e-4`` (measured against an
    independent Laplace inversion at five such points, :math:`\sigma` from 0.4 to 1 and
    :math:`\delta` from :math:`10^{-12}` to 0.1: 0.1 % to 1.7 %), and it takes up to about 3 s.
    Where the composed loss is nearly discrete (:math:`qT < 10^{-3}`
    with the mesh coarsened by the FFT's size cap) it is looser still: at :math:`q = 10^{-6}`,
    :math:`\sigma = 0.4`, :math:`T = 10`, :math:`\delta(\varepsilon(10^{-5.5}))` comes out 2.5 %
    (add/remove) and 9 % (replace-one) above :math:`10^{-5.5}`, so at least that far above the true
    :math:`\delta` (``tests/test_subsampling_properties.py`` pins it: an open finding). The tails beyond the
    output line's cut, at most ``1e-7 * 1e-12 / steps`` of each law a step, are added to :math:`\delta` whole: a
    floor of about ``1e-19``, so below about ``1e-15`` the result is an upper bound but not within ``1e-4`` (a reviewer: ``5.03e-20`` at :math:`q = 0.01`, :math:`\sigma = 1`, :math:`T = 100`,
    :math:`\varepsilon = 7`, where the RDP bound proves at most ``9.3e-25``).

    Parameters
    ----------
    sampling_probability : float
        :math:`q` in ``(0, 1]``.
    noise_multiplier : float
        :math:`\sigma > 0`; in ``[0.1, 1e10]`` where the composition is
        computed by FFT (:math:`0 < q < 1` and :math:`T > 1`; :math:`q = 1` and one step are exact at
        every :math:`\sigma`).
    steps : int
        :math:`T`, in ``[1, 10**6]`` (the FFT accountant's grid widens with :math:`T`; about a
        second at the cap, and at ``2**31`` its discretization overflowed).
    epsilon : float
        Real (``delta`` is 1 - e^epsilon below the smallest loss).
    relation : {"add_remove", "replace_one"}
        The neighbouring relation (see :func:`subsampled_gaussian_epsilon`).

    Returns
    -------
    float
        An upper bound on :math:`\delta(\varepsilon)`.

    Raises
    ------
    ValueError
        If an argument is outside its range, ``noise_multiplier`` outside ``[0.1, 1e10]`` where the FFT
        is needed (below, the tilted FFT stops reaching the answer; above, one step's masses lose their
        digits; ``1e300`` overflowed).

    Examples
    --------
    >>> from dpnotes.loss import gaussian_delta
    >>> d = subsampled_gaussian_delta(0.5, 2.0, 16, 1.0)
    >>> bool(d <= gaussian_delta(1.0, 2.0))            # subsampling helps: below q = 1 (mu = 4 / 2)
    True
    """
    q, sigma, steps, relation = _validate_pld(sampling_probability, noise_multiplier, steps, relation)
    epsilon = check_real("epsilon", epsilon)
    _LAST.clear()
    if q == 1.0:
        from .loss import gaussian_delta

        mu = _exact_gaussian(q, sigma, steps, relation)
        if math.isinf(mu):          # sqrt(T) / sigma beyond the doubles (sigma = 5e-324): the two laws are
            return 1.0              # disjoint to double precision, delta = 1 at every finite epsilon
        if epsilon >= 0:
            return float(gaussian_delta(epsilon, mu))
        # the Gaussian pair is its own dual: H_t = 1 - t + t H_{1/t}
        return float(-math.expm1(epsilon) + math.exp(epsilon) * gaussian_delta(-epsilon, mu))
    if steps == 1:
        return _one_step_profiles(q, sigma, relation, epsilon)
    if epsilon < 0:
        # both orders of every pair are neighbours, so the profile is its own dual:
        # delta(eps) = 1 - e^eps + e^eps delta(-eps) (hockey-stick duality H_t(P|Q) = 1 - t + t H_{1/t}(Q|P))
        return float(-math.expm1(epsilon) + math.exp(epsilon) * subsampled_gaussian_delta(
            q, sigma, steps, -epsilon, relation=relation))
    _check_pld_domain(sigma, steps)
    try:
        # at most 1, as every delta is: where the two laws are nearly disjoint (sigma near 0.1,
        # q near 1) the sum of the composed masses' roundings came out up to 1 + 3e-10
        return min(1.0, float(_account(q, sigma, steps, relation, epsilon=epsilon)))
    except _Unreached:
        return _delta_fallback(q, sigma, steps, relation, epsilon)


def _delta_fallback(q, sigma, steps, relation, epsilon) -> float:
    """A sound upper bound on delta(epsilon) where the tilted FFT cannot reach it (a delta far below
    the accurate window: tiny q, large sigma, epsilon well above every likely loss).

    delta is non-increasing in epsilon, so delta at the largest of epsilon/2, epsilon/4, ... (and 0)
    that the FFT reaches bounds it; under add/remove, so does the Renyi DP conversion
    delta <= exp(-(alpha - 1)(epsilon - T rho(alpha))) (Mironov 2017, Proposition 3), usually far tighter.
    """
    bound = 1.0
    if relation == "add_remove":
        rho = steps * np.atleast_1d(subsampled_gaussian_rdp(q, sigma, DEFAULT_ORDERS))
        with np.errstate(over="ignore"):
            bound = float(min(1.0, np.min(np.exp(-(DEFAULT_ORDERS - 1) * (epsilon - rho)))))
    # the ladder epsilon/2, epsilon/4, ... down to 1e-6, then 0; the FFT reaches a rung when delta
    # there is inside its window, so (delta falling with epsilon) it reaches every rung below the
    # first it reaches. That rung is found by bisection: about 5 accountings instead of up to 21 (each
    # about 0.1 s; at q = 1e-300 the plain walk down the ladder took 3 s). Any rung reached is sound.
    ladder, e0 = [], epsilon
    while not ladder or (ladder[-1] > 0.0 and len(ladder) < 60):
        e0 = e0 / 2 if e0 > 1e-6 else 0.0
        ladder.append(e0)

    def reached(i):
        try:
            return float(_account(q, sigma, steps, relation, epsilon=ladder[i]))
        except _Unreached:
            return None

    lo, hi, best = -1, len(ladder) - 1, reached(len(ladder) - 1)   # lo: not reached (epsilon itself)
    if best is None:
        return bound
    while hi - lo > 1:
        mid = (lo + hi) // 2
        value = reached(mid)
        if value is None:
            lo = mid
        else:
            hi, best = mid, value
    return min(bound, best)


def subsampled_gaussian_epsilon(sampling_probability, noise_multiplier, steps, delta, *, relation="add_remove") -> float:
    r"""Tight :math:`\varepsilon` of ``steps`` compositions of the Poisson-subsampled Gaussian, an upper bound.

    Each step releases the clipped gradient sum plus :math:`\mathcal N(0, \sigma^2)` noise
    (clipping norm 1) on a Poisson sample with rate :math:`q`.

    - ``relation="add_remove"`` (default): one record present or absent. The pair is
      :math:`(Q, P)` ("remove") or :math:`(P, Q)` ("add"), :math:`P = \mathcal N(0,\sigma^2)`,
      :math:`Q = (1-q)P + q\,\mathcal N(1, \sigma^2)`; the worse of the two composed directions.
    - ``relation="replace_one"``: one record's gradient replaced by another. The pair is
      :math:`((1-q)P + q\,\mathcal N(1,\sigma^2),\ (1-q)P + q\,\mathcal N(-1,\sigma^2))`, the
      gradient :math:`+1` replaced by :math:`-1` (the pair Google's dp-accounting composes for
      ``REPLACE_ONE``). The accounting page shows that it dominates every other replacement
      :math:`a \to b` with :math:`\|a\|, \|b\| \le 1` that it checks, in one and two dimensions.

    The privacy loss distribution of one step (:cite:`koskela2020computing`,
    :cite:`koskela2021tight`) is discretized by *connect-the-dots*
    (:cite:`doroshenko2022connect`) on a grid of mesh :math:`h`: every bit of probability with
    loss between two grid points is split between them so that both laws' masses are kept.
    The discrete pair dominates the true one, so its composition does too. The masses are
    integrals of non-negative functions over the cells (Gauss-Legendre in the output), hence
    non-negative, summing to one; the "add" direction is the exact dual of the same discrete
    pair. The ``steps``-fold composition is one FFT power of the masses *tilted* by
    :math:`e^{\lambda\ell}`, which centres the composed law on the answer so that round-off is
    relative even at :math:`\delta = 10^{-12}`. Rigorous pieces of the upper bound: tails beyond a
    far truncation are rounded up or put at :math:`+\infty`; the FFT window's wrap-around only
    adds mass; the mass above the window is bounded by a Chernoff bound and added to
    :math:`\delta`. Only floating-point round-off is outside the bound.

    The mesh is chosen from the predicted discretization error, :math:`T V_1(h)\rho/2`, with
    :math:`V_1(h)` the variance that splitting adds to one step's loss and :math:`\rho` the composed
    density at the answer over :math:`E[e^{\varepsilon-L}; L>\varepsilon]` (from a coarse first pass),
    aiming at a relative ``1.5e-5`` (a quarter of that for ``steps <= 16``). The result is an upper
    bound within a relative ``1e-4`` of the true value on the box :math:`q \in [10^{-6}, 1]`,
    :math:`\sigma \in [0.4, 100]`, :math:`T \le 10^6`, :math:`\delta \in [10^{-12}, 0.1]` (measured in
    the tests and by ``make bench`` against Google's dp-accounting, the exact value at :math:`T \le 2`
    and finer meshes), except where the mesh asked for would need more than ``2**21`` cells for one step or
    ``2**23`` FFT points: there it is coarsened, which keeps the upper bound but not the accuracy (``make bench``
    lists such points: the corner :math:`q = 10^{-6}`, :math:`\sigma = 0.4`, :math:`T = 10^6`, and a few steps
    at :math:`\delta` near :math:`10^{-6}` there, where a finer run differs by up to 1 %).
    Outside the box it is still an upper bound; where the composed loss is so nearly discrete that the tilted
    FFT does not reach the answer (:math:`q` near :math:`10^{-8}` at :math:`\sigma` near 0.4 and a few steps), it is
    the smaller of basic composition of the exact one-step :math:`\varepsilon` at :math:`\delta/T` and (add/remove)
    the RDP bound. ``steps == 1`` and :math:`q = 1` are computed exactly.

    Parameters
    ----------
    sampling_probability : float
        :math:`q` in ``(0, 1]``.
    noise_multiplier : float
        :math:`\sigma > 0`; in ``[0.1, 1e10]`` where the composition is
        computed by FFT: :math:`0 < q < 1`, :math:`T > 1` and :math:`\varepsilon > 0` (:math:`q = 1` and
        one step are exact at every :math:`\sigma`, and so is :math:`\varepsilon = 0`, decided by the
        total variation).
    steps : int
        :math:`T`, in ``[1, 10**6]`` (the FFT accountant's grid widens with :math:`T`; about a
        second at the cap, and at ``2**31`` its discretization overflowed).
    delta : float
        In ``(0, 1)``; where the FFT is run, at least ``1e7 * 2.2e-308 * steps`` (about
        ``2.2e-301 * steps``): its tails are cut at ``1e-7 * delta / steps``, which must be a normal double.
    relation : {"add_remove", "replace_one"}
        The neighbouring relation.

    Returns
    -------
    float
        The smallest :math:`\varepsilon \ge 0` at which the bound on :math:`\delta(\varepsilon)`
        is ``<= delta``; ``inf`` where it exceeds the doubles (one step, or :math:`q = 1`, at a tiny
        :math:`\sigma`: :math:`\varepsilon \approx 1/(2\sigma^2)`).

    Raises
    ------
    ValueError
        If an argument is outside its range, or ``relation`` is not one of the two names; where the
        FFT is needed, if ``noise_multiplier`` is outside ``[0.1, 1e10]`` or ``delta`` below
        ``2.2e-301 * steps``.

    Examples
    --------
    >>> from dpnotes.loss import gaussian_epsilon
    >>> e = subsampled_gaussian_epsilon(1.0, 4.0, 9, 1e-5)        # q = 1: Gaussian, mu = 3 / 4
    >>> bool(gaussian_epsilon(1e-5, 0.75) <= e <= gaussian_epsilon(1e-5, 0.75) * (1 + 1e-12))
    True
    >>> a = subsampled_gaussian_epsilon(0.01, 1.0, 1000, 1e-5)
    >>> r = subsampled_gaussian_epsilon(0.01, 1.0, 1000, 1e-5, relation="replace_one")
    >>> bool(a < r < 2 * a)
    True
    """
    q, sigma, steps, relation = _validate_pld(sampling_probability, noise_multiplier, steps, relation)
    delta = _delta(delta)
    _LAST.clear()
    if q == 1.0:
        from .loss import gaussian_delta, gaussian_epsilon

        mu = _exact_gaussian(q, sigma, steps, relation)
        eps = math.inf if math.isinf(mu) else gaussian_epsilon(delta, mu)     # inf: mu^2 / 2 overflows
        if 0 < eps < math.inf:                                                 # the root's last ulps, upwards
            eps = _least_at_or_above(lambda e: gaussian_delta(e, mu) <= delta, eps)
        return float(eps)
    if steps == 1:
        return _one_step_epsilon(q, sigma, relation, delta)
    # epsilon = 0 exactly when delta(0), the total variation of the composed pair, is <= delta;
    # it is at most 1 - (1 - TV_1)^T (couple the steps one by one), TV_1 the one-step profile at 0
    tv1 = _one_step_profiles(q, sigma, relation, 0.0)
    if -math.expm1(steps * math.log1p(-tv1)) <= delta:
        return 0.0
    _check_pld_domain(sigma, steps, delta)
    try:
        return float(_account(q, sigma, steps, relation, delta=delta))
    except _Unreached:
        return _epsilon_fallback(q, sigma, steps, relation, delta)


def _epsilon_fallback(q: float, sigma: float, steps: int, relation: str, delta: float) -> float:
    """Where the tilted FFT does not reach the answer, two upper bounds and the smaller: basic composition of the exact
    one-step epsilon at delta / T (epsilons and deltas add over the T steps) and, for add/remove, the RDP bound.

    Reached only outside the box of the accuracy claim, where the composed loss is nearly discrete (q about 1e-8 at
    sigma near 0.4 and a few steps, q = 1e-12 at delta = 1e-290): the private _Unreached escaped to the caller there
    (two helpers' finds). At (1e-8, 0.4, 2, 1e-10) the answer is 1.44e-4, within a factor 4 of the one-step epsilon
    at delta, 3.8e-5, a lower bound (the subsampled_gaussian_delta fallback's ladder is the same idea for delta)."""
    basic = steps * _one_step_epsilon(q, sigma, relation, delta / steps)
    if relation == "add_remove":
        return float(min(basic, subsampled_gaussian_rdp_epsilon(q, sigma, steps, delta)))
    return float(basic)


def _one_step_epsilon(q, sigma, relation, delta) -> float:
    """Exact epsilon of one step: the root of the exact profile, rounded upwards (:func:`dpnotes.loss._least_root`:
    upwards by doubling steps, as one double at a time may not end where the profile moves in steps of its own
    rounding). ``inf`` where delta(eps) > delta even at the largest double (sigma below about 1e-154, where the root is
    near 1 / (2 sigma^2)): the epsilon exceeds the doubles (doubling on had reached inf, where the profile is nan, a
    ValueError from brentq at sigma = 1e-300)."""
    return float(_least_root(lambda e: delta - _one_step_profiles(q, sigma, relation, e)))


# ---------------------------------------------------------------- shuffled batches: a lower bound
def shuffle_epsilon_lower_bound(batches, noise_multiplier, epochs, delta) -> float:
    r"""A **lower** bound on :math:`\varepsilon` of DP-SGD with shuffled fixed-size batches (add/remove).

    After the construction of :cite:`chua2024private`: ``epochs`` passes over
    :math:`n = bT` records cut into ``batches`` :math:`= T` batches of size :math:`b` by a
    fresh secret shuffle. Every other record has clipped gradient :math:`-1`, the
    target :math:`+1` (one coordinate, clipping norm 1). With the target, the batch
    that holds it sums to :math:`-b+2`; without it, one batch is short and sums to
    :math:`-b+1`; all other batches sum to :math:`-b`. After subtracting
    :math:`-b`, one epoch releases :math:`y = s\,e_t + \sigma Z` with the spike
    :math:`s = 2` (present) or :math:`s = 1` (removed) at a uniformly random batch
    :math:`t`: the position is hidden, the spike's *height* is not, so shuffling
    does not give the amplification that Poisson sampling's random inclusion does.

    The test "the largest coordinate exceeds :math:`\tau`" has the exact probabilities
    :math:`1-\Phi(\tfrac{\tau-s}{\sigma})\Phi(\tfrac{\tau}{\sigma})^{T-1}`; over
    ``epochs`` independent passes the test "at least :math:`k` passes exceed
    :math:`\tau`" has binomial tails. Any test :math:`S` gives
    :math:`\varepsilon \ge \log\frac{P(S) - \delta}{P'(S)}`; the function returns the
    best over a grid of :math:`\tau` and all :math:`k`.

    Parameters
    ----------
    batches : int
        Batches per epoch :math:`T`, ``>= 1``.
    noise_multiplier : float
        :math:`\sigma`, ``> 0``.
    epochs : int
        Number of passes over the data, in ``[1, 1000]`` (each pass adds a binomial tail at
        4001 thresholds: about a second at the cap, 12 s at 10**4).
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float
        A lower bound on the add/remove :math:`\varepsilon` at ``delta`` of shuffled training
        (``0.0`` when no test of the family beats :math:`\delta`; a test whose probability without the
        target is below the smallest normal double, ``2.2e-308``, is left out, so for
        :math:`\sigma` below about 0.012 the grid holds no usable test).

    Raises
    ------
    ValueError
        If a parameter is outside its range.

    Examples
    --------
    >>> from dpnotes.loss import gaussian_epsilon     # one batch, one epoch: the Gaussian with mu = 1/sigma
    >>> lb = shuffle_epsilon_lower_bound(1, 0.8, 1, 1e-5)
    >>> bool(abs(lb - gaussian_epsilon(1e-5, 1.25)) < 1e-3 and lb <= gaussian_epsilon(1e-5, 1.25))
    True
    """
    from scipy.stats import binom

    t = check_integer("batches", batches, low=1)
    sigma = _sigma(noise_multiplier)
    epochs = check_integer("epochs", epochs, low=1, high=1000)
    delta = _delta(delta)
    tau = 1.5 + sigma * np.linspace(-4.0, 12.0, 4001)
    rest = (t - 1) * log_ndtr(tau / sigma)
    p_in = -np.expm1(log_ndtr((tau - 2.0) / sigma) + rest)       # target present: spike 2
    p_out = -np.expm1(log_ndtr((tau - 1.0) / sigma) + rest)      # target removed: spike 1
    best = 0.0
    for k in range(1, epochs + 1):
        a, b = binom.sf(k - 1, epochs, p_in), binom.sf(k - 1, epochs, p_out)
        # P'(S) at least the smallest normal double: a smaller one (subnormal, or 0 after underflow)
        # made (a - delta) / b overflow to an infinite "lower bound" (sigma ~ 0.012 to 0.018)
        ok = (a > delta) & (b >= np.finfo(float).tiny)
        if np.any(ok):
            best = max(best, float(np.max(np.log((a[ok] - delta) / b[ok]))))
    return best
