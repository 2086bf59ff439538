"""Composition theorems: the privacy cost of running several mechanisms."""

from __future__ import annotations

import math
import sys

import numpy as np
from scipy.special import gammaln, logsumexp

from ._validate import check_array, check_delta, check_in_range, check_integer, check_positive
from .loss import _least_at_or_above, _least_root

__all__ = [
    "basic",
    "advanced",
    "advanced_reduction",
    "advanced_heterogeneous",
    "optimal",
    "optimal_delta",
    "optimal_delta_heterogeneous",
    "uv_pair",
    "rr_reduction_channel",
    "rdp_to_dp",
    "zcdp_to_dp",
]


def _float_array(name, x) -> np.ndarray:
    """``x`` as a float array, or a ValueError naming the parameter (numpy's own error does not)."""
    # None, bool scalars, strings and complex numbers are refused here with the parameter's name
    return check_array(name, x, allow_inf=True, allow_nan=True, allow_empty=True)


def _nonneg_array(name, x) -> np.ndarray:
    arr = _float_array(name, x)
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        bad = arr[~(np.isfinite(arr) & (arr >= 0))].ravel()[0]
        raise ValueError(f"{name} must be >= 0, got {float(bad)!r}")
    return arr


def basic(epsilon, k, delta=0.0) -> tuple[float, float]:
    r"""Basic composition: ``k`` adaptively chosen :math:`(\varepsilon,\delta)`-DP mechanisms are :math:`(k\varepsilon, k\delta)`-DP.

    :cite:`dwork2014algorithmic` Theorem 3.16.

    Parameters
    ----------
    epsilon : float
        Per-mechanism privacy parameter, ``> 0``.
    k : int
        Number of mechanisms, ``>= 1``.
    delta : float
        Per-mechanism delta, in ``[0, 1)``.

    Returns
    -------
    (epsilon_total, delta_total) : tuple of float

    Examples
    --------
    >>> basic(0.5, 4, 0.125)
    (2.0, 0.5)
    """
    epsilon = check_positive("epsilon", epsilon)
    k = check_integer("k", k, low=1)
    delta = check_delta("delta", delta)
    return k * epsilon, min(k * delta, 1.0)


def _concentrated_total(epsilon, k, delta_prime, delta, step_mean) -> tuple[float, float]:
    """Shared form of both advanced-composition bounds: ``k * step_mean(eps)`` for the mean
    privacy loss plus the concentration term ``eps * sqrt(2 k log(1/delta'))``; total delta
    ``k delta + delta'``. Validates the public arguments of :func:`advanced` and
    :func:`advanced_reduction`."""
    epsilon = check_positive("epsilon", epsilon)
    k = check_integer("k", k, low=1)
    delta_prime = check_in_range("delta_prime", delta_prime, 0.0, 1.0,
                                 low_inclusive=False, high_inclusive=False)
    delta = check_delta("delta", delta)
    # -log(delta'), not log(1/delta'): 1/delta' overflows to inf for a subnormal delta' (log(1/5e-324)
    # was inf; -log(5e-324) = 744.44)
    eps_total = epsilon * math.sqrt(2.0 * k * -math.log(delta_prime)) + k * step_mean(epsilon)
    return eps_total, min(k * delta + delta_prime, 1.0)


# e^x - 1 exceeds the largest float beyond this x, and x (e^x - 1) already from about 703
_LOG_FLOAT_MAX = math.log(sys.float_info.max)


def _eps_expm1(e: float) -> float:
    """``e * (e^e - 1)`` for ``e > 0``, ``inf`` where it exceeds the float range (math.expm1 raised
    OverflowError there: advanced(1e300, ...))."""
    return math.inf if e >= _LOG_FLOAT_MAX else e * math.expm1(e)


def advanced(epsilon, k, delta_prime, delta=0.0) -> tuple[float, float]:
    r"""Advanced composition (:cite:`dwork2010boosting`; :cite:`dwork2014algorithmic` Theorem 3.20).

    For every :math:`\delta' > 0`, ``k`` adaptively chosen :math:`(\varepsilon,\delta)`-DP
    mechanisms are :math:`(\varepsilon_{\mathrm{tot}}, k\delta + \delta')`-DP with

    .. math:: \varepsilon_{\mathrm{tot}} = \varepsilon\sqrt{2k\log(1/\delta')} + k\varepsilon(e^{\varepsilon}-1).

    Parameters
    ----------
    epsilon : float
        Per-mechanism privacy parameter, ``> 0``.
    k : int
        Number of mechanisms, ``>= 1``.
    delta_prime : float
        The slack :math:`\delta'` of the concentration step, in ``(0, 1)``.
    delta : float
        Per-mechanism delta, in ``[0, 1)``.

    Returns
    -------
    (epsilon_total, delta_total) : tuple of float
        ``epsilon_total`` is ``inf`` where the bound exceeds the float range (from about
        ``epsilon = 703``: the mean term :math:`\varepsilon(e^{\varepsilon}-1)` alone is beyond
        ``1.8e308``); an infinite bound, true but vacuous.

    Examples
    --------
    >>> eps, dlt = advanced(0.1, 100, 1e-6)
    >>> round(eps, 6), dlt
    (6.308231, 1e-06)
    """
    # the mean privacy loss of one step, bounded through the KL lemma: eps (e^eps - 1)
    return _concentrated_total(epsilon, k, delta_prime, delta, _eps_expm1)


def advanced_reduction(epsilon, k, delta_prime, delta=0.0) -> tuple[float, float]:
    r"""Advanced composition with the mean term of the randomized-response reduction.

    The second proof of advanced composition (source 001, §3.1; :cite:`kairouz2015composition`)
    reduces every :math:`(\varepsilon,\delta)`-DP pair to the four-outcome pair
    :math:`(U, V)` and applies Hoeffding's inequality to the privacy loss of
    :math:`k` independent copies, whose mean is
    :math:`k\varepsilon\,(e^{\varepsilon}-1)/(e^{\varepsilon}+1)`. The result:
    ``k`` adaptively chosen :math:`(\varepsilon,\delta)`-DP mechanisms are
    :math:`(\varepsilon_{\mathrm{tot}}, k\delta + \delta')`-DP with

    .. math:: \varepsilon_{\mathrm{tot}} = \varepsilon\sqrt{2k\log(1/\delta')}
              + k\varepsilon\,\frac{e^{\varepsilon}-1}{e^{\varepsilon}+1}.

    It is never larger than :func:`advanced` (same square-root term, a mean term
    smaller by the factor :math:`1/(e^{\varepsilon}+1)`).

    Parameters
    ----------
    epsilon : float
        Per-mechanism privacy parameter, ``> 0``.
    k : int
        Number of mechanisms, ``>= 1``.
    delta_prime : float
        The slack :math:`\delta'` of the concentration step, in ``(0, 1)``.
    delta : float
        Per-mechanism delta, in ``[0, 1)``.

    Returns
    -------
    (epsilon_total, delta_total) : tuple of float

    Examples
    --------
    >>> eps, dlt = advanced_reduction(0.1, 100, 1e-6)
    >>> round(eps, 6), dlt
    (5.756106, 1e-06)
    """
    # the exact mean loss of one copy of (U, V): eps (e^eps - 1)/(e^eps + 1) = eps tanh(eps/2)
    return _concentrated_total(epsilon, k, delta_prime, delta, lambda e: e * math.tanh(e / 2.0))


def _rr_log_masses(epsilon: float, k: int, n: int, start: int = 0) -> np.ndarray:
    """``log a_l`` for ``l = start..n-1``: probability that k-fold randomized response flips exactly ``l`` bits.

    ``a_l = C(k, l) p^(k-l) (1-p)^l`` with ``p = e^eps/(1+e^eps)``; the privacy loss
    of such an outcome is ``(k - 2l) eps``. Logs of binomials via ``gammaln``.
    """
    l = np.arange(start, n)
    log_p = -math.log1p(math.exp(-epsilon))      # log(e^eps / (1 + e^eps)), no overflow
    log_q = log_p - epsilon                      # log(1 / (1 + e^eps))
    return gammaln(k + 1.0) - gammaln(l + 1.0) - gammaln(k - l + 1.0) + (k - l) * log_p + l * log_q


def _window(epsilon: float, k: int, n: int, threshold: float) -> tuple[int, int]:
    """The range ``[lo, end)`` of ``l < n`` where ``log a_l >= threshold``, by bisection.

    ``log a_l`` is concave in ``l`` (binomial), increasing up to the mode
    ``floor((k + 1) q)`` and decreasing after it, so the set where it is above
    the threshold is an interval around the mode. Returns ``(0, n)`` if the
    threshold is never reached.
    """
    log_p = -math.log1p(math.exp(-epsilon))
    log_q = log_p - epsilon
    const = math.lgamma(k + 1.0)

    def above(l: int) -> bool:
        return const - math.lgamma(l + 1.0) - math.lgamma(k - l + 1.0) + (k - l) * log_p + l * log_q >= threshold

    mode = min(int((k + 1) * math.exp(log_q)), n - 1)
    if not above(mode):
        return 0, n
    if above(0):
        lo = 0
    else:
        a, b = 0, mode                   # not above(a), above(b)
        while b - a > 1:
            mid = (a + b) // 2
            a, b = (a, mid) if above(mid) else (mid, b)
        lo = b
    if above(n - 1):
        end = n
    else:
        a, b = mode, n - 1               # above(a), not above(b)
        while b - a > 1:
            mid = (a + b) // 2
            a, b = (mid, b) if above(mid) else (a, mid)
        end = b
    return lo, end


def optimal_delta(epsilon, k, epsilon_prime, step_delta=0.0):
    r"""Exact privacy profile :math:`\delta(\varepsilon')` of ``k``-fold composition of :math:`(\varepsilon,\delta_0)`-DP mechanisms.

    :cite:`kairouz2015composition` (Theorem 3.3) show that ``k`` adaptively chosen
    :math:`(\varepsilon,\delta_0)`-DP mechanisms are :math:`(\varepsilon',\delta)`-DP exactly
    when ``k`` independent copies of the pair :func:`uv_pair` are. For
    :math:`\delta_0 = 0` that pair is randomized response, and the smallest :math:`\delta`
    for a given :math:`\varepsilon'` is the hockey-stick divergence of ``k``-fold
    randomized response,

    .. math:: \delta_k(\varepsilon') = \sum_{l:\,(k-2l)\varepsilon > \varepsilon'}
              a_l\bigl(1 - e^{\varepsilon' - (k-2l)\varepsilon}\bigr),\qquad
              a_l = \binom{k}{l}\frac{e^{(k-l)\varepsilon}}{(1+e^{\varepsilon})^k}.

    For :math:`\delta_0 > 0` the outcomes where some copy says "I am U" add their
    whole mass and the rest is randomized response:
    :math:`\delta(\varepsilon') = 1 - (1-\delta_0)^k\bigl(1 - \delta_k(\varepsilon')\bigr)`.

    Every term of :math:`\delta_k` is non-negative, so the sum is evaluated in log space
    (``logsumexp`` of ``log a_l + log(-expm1(...))``) without cancellation. The one limit on its
    accuracy is the log-binomial :math:`\log\binom{k}{l}`, a difference of log-gamma values of
    size :math:`k\log k` each rounded to :math:`2.2\times 10^{-16}` relative: the relative error of
    the result is about :math:`10^{-16}\,k\log k` (measured against 30-digit mpmath: ``1.1e-9`` at
    :math:`k = 10^6`, ``5e-10`` at :math:`k = 4.4\times 10^5`, and within ``1e-13`` for
    :math:`k \le 300`).

    Parameters
    ----------
    epsilon : float
        Per-mechanism privacy parameter, ``> 0``.
    k : int
        Number of mechanisms, in ``[1, 10**7]`` (arrays of ``k / 2`` log-masses are built, and
        the relative error, about ``1e-16 k log k``, is ``2e-8`` at the cap).
    epsilon_prime : float or array_like
        Total privacy parameter(s) :math:`\varepsilon' \ge 0`.
    step_delta : float
        Per-mechanism :math:`\delta_0`, in ``[0, 1)``; ``0`` (the default) for pure DP.

    Returns
    -------
    float or numpy.ndarray
        :math:`\delta(\varepsilon')`, same shape as ``epsilon_prime``.

    Examples
    --------
    >>> import math
    >>> round(float(optimal_delta(math.log(3), 1, 0.0)), 12)   # one randomized response: TV = 3/4 - 1/4
    0.5
    >>> round(float(optimal_delta(math.log(3), 1, 0.0, step_delta=0.2)), 12)   # 0.2 + 0.8 * 0.5
    0.6
    """
    epsilon = check_positive("epsilon", epsilon)
    k = check_integer("k", k, low=1, high=10**7)
    step_delta = check_delta("step_delta", step_delta)
    ep = _nonneg_array("epsilon_prime", epsilon_prime)
    n = (k + 1) // 2                              # l = 0..n-1 have loss (k - 2l) eps > 0
    log_a = _rr_log_masses(epsilon, k, n)
    loss = (k - 2.0 * np.arange(n)) * epsilon
    gap = ep[..., None] - loss                   # eps' - loss_l, shape (..., n)
    with np.errstate(divide="ignore"):          # log(0) = -inf for the terms with gap >= 0, dropped below
        log_terms = np.where(gap < 0, log_a + np.log(-np.expm1(np.minimum(gap, 0.0))), -np.inf)
    out = np.exp(logsumexp(log_terms, axis=-1))
    out = np.minimum(out, 1.0)                    # a log-space sum of masses can round above 1
    if step_delta > 0.0:
        # 1 - (1 - d0)^k (1 - out), with 1 - (1 - d0)^k = -expm1(k log1p(-d0)) (no cancellation for small d0)
        catastrophe = -math.expm1(k * math.log1p(-step_delta))
        out = catastrophe + (1.0 - catastrophe) * out
    return float(out) if out.ndim == 0 else out


def optimal(epsilon, k, delta, step_delta=0.0) -> float:
    r"""Optimal composition: the smallest :math:`\varepsilon'` such that ``k`` :math:`(\varepsilon,\delta_0)`-DP mechanisms are :math:`(\varepsilon',\delta)`-DP.

    :cite:`kairouz2015composition` Theorem 3.3: the exact privacy profile of
    ``k``-fold composition of :math:`\varepsilon`-DP mechanisms (adaptive or not) is
    that of ``k``-fold randomized response (:func:`optimal_delta`), a decreasing
    continuous function of :math:`\varepsilon'`. This function inverts it. With a
    per-mechanism :math:`\delta_0 > 0` the profile is
    :math:`1-(1-\delta_0)^k(1-\delta_k(\varepsilon'))`, so the target becomes
    :math:`\delta_k(\varepsilon') \le 1-(1-\delta)/(1-\delta_0)^k`; when
    :math:`\delta < 1-(1-\delta_0)^k` no :math:`\varepsilon'` works and the result is ``inf``.

    Method (why it is hand-written: no library inverts this profile exactly).
    Between consecutive breakpoints :math:`(k-2m)\varepsilon` the set of outcomes
    with loss above :math:`\varepsilon'` does not change, so there
    :math:`\delta(\varepsilon') = A_m - e^{\varepsilon'}B_m` with cumulative sums
    :math:`A_m = \sum_{l<m} a_l`, :math:`B_m = \sum_{l<m} a_l e^{-(k-2l)\varepsilon}`.
    One pass of cumulative log-space sums gives :math:`\delta` at every
    breakpoint (by the recurrence :math:`\delta_{m+1} = e^{-2\varepsilon}\delta_m +
    (1 - e^{-2\varepsilon})A_{m+1}`, a sum of positive terms, so that it keeps its digits at any
    :math:`\varepsilon`: the difference :math:`A_m - e^{\varepsilon'_m}B_m` cancelled to 0 below
    :math:`\varepsilon = 10^{-16}`), a search finds the bracket of the target ``delta``, and the
    closed form :math:`\varepsilon' = \log((A_m-\delta)/B_m)` finishes it, taken as an offset
    :math:`\log(1 + (\delta_m - \delta)/(A_m - \delta_m))` from the bracket's breakpoint.
    The sums run only over the window of ``l`` where :math:`a_l \ge \delta e^{-60}`
    (found by bisection, since :math:`\log a_l` is concave); the dropped masses,
    on either side of it, change :math:`\delta(\varepsilon')` by less than
    :math:`k e^{-60}\delta` at every :math:`\varepsilon'`, so a bracket beyond the window's
    right end is finished by the last piece of the window. Cost :math:`O(k)` at most; no overflow for
    large ``k * epsilon`` because only logs are formed. Agrees with a 40-digit
    mpmath computation to better than :math:`10^{-9}` relative (tests) for :math:`\delta \le 1/2`; above, the
    answer meets :math:`\delta` with :math:`1 - \delta(\varepsilon')` at most :math:`8 \cdot 10^{-16} k \log k`
    of itself above :math:`1 - \delta` (the masses' accuracy), which for a tiny :math:`\varepsilon'` can be
    :math:`10^{-7}` of it (the profile is flat there).

    Parameters
    ----------
    epsilon : float
        Per-mechanism privacy parameter, ``> 0``.
    k : int
        Number of mechanisms, in ``[1, 10**7]`` (the cap of :func:`optimal_delta`, which checks the answer).
    delta : float
        Target :math:`\delta`, in ``[0, 1)``; ``0`` gives :math:`k\varepsilon` (pure mechanisms). Above 1/2 (for
        k-fold randomized response) the answer is found from :math:`\log(1 - \delta(\varepsilon'))`, a sum of
        positive terms, which keeps its digits as :math:`\delta` tends to 1.
    step_delta : float
        Per-mechanism :math:`\delta_0`, in ``[0, 1)``; ``0`` (the default) for pure DP.

    Returns
    -------
    float
        The smallest :math:`\varepsilon' \ge 0` with :math:`\delta(\varepsilon') \le \delta`
        (``inf`` if there is none).

    Examples
    --------
    >>> import math
    >>> optimal(0.5, 4, 0.0)
    2.0
    >>> # one randomized response with p = 3/4: delta(eps') = 3/4 - e^{eps'}/4
    >>> abs(optimal(math.log(3), 1, 0.25) - math.log(2)) < 1e-12
    True
    >>> # with step_delta = 0.2: 0.2 + 0.8 (3/4 - e^{eps'}/4) = 0.4 at eps' = log 2
    >>> abs(optimal(math.log(3), 1, 0.4, step_delta=0.2) - math.log(2)) < 1e-12
    True
    """
    epsilon = check_positive("epsilon", epsilon)
    k = check_integer("k", k, low=1, high=10**7)
    delta = check_delta("delta", delta)
    step_delta = check_delta("step_delta", step_delta)
    target = delta
    log_kept = math.log1p(-delta)        # log(1 - delta) of k-fold randomized response at the answer, at least
    if step_delta > 0.0:
        # the target for k-fold randomized response: 1 - (1 - delta) / (1 - step_delta)^k
        log_kept = math.log1p(-delta) - k * math.log1p(-step_delta)
        if log_kept > 0.0:               # delta below the mass 1 - (1 - d0)^k of the "I am U" outcomes
            return math.inf              # (tested before expm1, which overflows for x > 709.8)
        delta = -math.expm1(log_kept)
    if delta == 0.0:
        return k * epsilon
    if delta > 0.5:
        return _optimal_near_one(epsilon, k, log_kept)
    # The closed form is computed in floats, and its "delta within rounding of A: 0" decides on logarithms rounded
    # together: 0 where delta(0) exceeds delta by an ulp (optimal(0.001, 100, delta(0) - 1 ulp), exact root 2.9e-16),
    # and roots 1 to 4 ulps below the crossing in half of 300 random cases, where the profile is above delta (found by
    # a reviewer). Moved up to where optimal_delta is at most delta, within [0, k epsilon] (it is 0 at k epsilon).
    root = _optimal_closed_form(epsilon, k, delta)
    return min(_least_at_or_above(lambda e: optimal_delta(epsilon, k, e, step_delta) <= target, root), k * epsilon)


def _optimal_near_one(epsilon: float, k: int, log_kept: float) -> float:
    """:func:`optimal` where k-fold randomized response's target delta is above 1/2: the least eps' with
    log(1 - delta_k(eps')) >= ``log_kept``, where 1 - delta_k(eps') = sum over all l of a_l e^{min(0, eps' - (k - 2l) eps)},
    a sum of positive terms that keeps its digits as delta tends to 1. From delta itself the error of
    :func:`optimal_delta` (about 1e-16 k log k relative) was an absolute one in 1 - delta, which the flat profile
    magnified: optimal(1, 300, 1 - 1e-9) was 2e-5 below the least eps' (the profile above delta there), and
    optimal(7.69, 693, 1 - 9e-14) was 0 for 5168 (a helper's find). Terms below e^-60 (k + 1)^-1 of the target are
    dropped (``_window``): they move 1 - delta_k by less than e^-60 of itself."""
    lo, end = _window(epsilon, k, k + 1, log_kept - 60.0 - math.log(k + 1.0))
    log_a = _rr_log_masses(epsilon, k, end, start=lo)
    loss = (k - 2.0 * np.arange(lo, end)) * epsilon
    # the masses' log-binomials are good to about 1e-16 k log k (optimal_delta's accuracy): the answer is asked to
    # keep that much more than the target, so that the exact 1 - delta_k there is not below it (the float sum alone
    # was 4e-13 of itself below at (0.5, 1000, 0.9999))
    margin = 4e-16 * (k + 1.0) * math.log(k + 2.0)

    def gap(e: float) -> float:                  # increases with e; log 1 - log_kept > 0 at e = k eps
        return float(logsumexp(log_a + np.minimum(e - loss, 0.0))) - log_kept - margin

    return _least_root(gap, k * epsilon)


def _optimal_closed_form(epsilon: float, k: int, delta: float) -> float:
    """:func:`optimal`'s root for k-fold randomized response at its target ``delta`` in (0, 1), from the breakpoints and
    the piece formula (see there), before the check against :func:`optimal_delta`."""
    n = (k + 1) // 2                              # breakpoints with positive loss
    log_delta = math.log(delta)
    # The masses a_l are log-concave in l. Those below delta * e^-60 (a prefix of
    # l) change A, B and delta(eps') by less than n e^-60 relative: drop them, so
    # that the sums run over a short window only (found by bisection).
    lo, end = _window(epsilon, k, n, log_delta - 60.0)
    log_a = _rr_log_masses(epsilon, k, end, start=lo)
    l = np.arange(lo, end)
    log_A = np.logaddexp.accumulate(log_a)                               # log sum_{l<=j} a_l
    log_C = np.logaddexp.accumulate(log_a + 2.0 * epsilon * (l - lo))    # log sum a_l e^{2 (l-lo) eps}
    # At breakpoint m = l + 1 (index j = l - lo), eps'_m = (k - 2m) eps: the mass kept,
    # A_m - delta_m = sum_{l<m} a_l e^{-2 (m-l) eps} = C_j e^{-2 (m-lo) eps}, and delta_m itself by the
    # recurrence delta_{m+1} = e^{-2 eps} delta_m + q A_{m+1}, q = 1 - e^{-2 eps}: a sum of positive
    # terms, sum_{i<=j} e^{-2 eps (j-i)} q A_i. (A_m (1 - C_j e^{-2 (m-lo) eps} / A_m) cancelled to 0 below
    # eps = 1e-16, where log 0 warned and optimal(1e-20, 10, 1e-30) was 0.0 though delta(0) = 1.2e-20.)
    log_kept = log_C - 2.0 * epsilon * (l + 1.0 - lo)
    idx = np.arange(l.size)
    log_q = math.log(-math.expm1(-2.0 * epsilon))
    log_delta_break = np.logaddexp.accumulate(log_q + log_A + 2.0 * epsilon * idx) - 2.0 * epsilon * idx
    # delta at breakpoints increases with m: count the breakpoints whose delta is within target
    j = int(np.searchsorted(log_delta_break, log_delta, side="right"))
    j = min(j, end - lo - 1)            # beyond the window's last breakpoint: finish with its last piece
    if log_delta >= log_A[j]:           # delta >= A: every eps' >= 0 works
        return 0.0
    # On the piece left of breakpoint m = lo + j + 1, delta(eps') = A - e^{eps'} B; from its left end
    # eps'_m, where delta is delta_m: eps' = eps'_m + log1p((delta_m - delta) / (A - delta_m)), the
    # offset from the breakpoint formed without the cancellation of log((A - delta) / B) near 1
    d = float(log_delta_break[j])
    eps_m = (k - 2.0 * (lo + j + 1)) * epsilon
    if d == log_delta:
        offset = 0.0
    elif d > log_delta:
        offset = float(np.logaddexp(0.0, d + math.log(-math.expm1(log_delta - d)) - log_kept[j]))
    else:
        log_x = log_delta + math.log(-math.expm1(d - log_delta)) - log_kept[j]
        if log_x >= 0.0:                # delta within rounding of A: eps' = 0 (clamped below)
            return 0.0
        offset = math.log1p(-math.exp(log_x))
    # in [0, k eps]: the exact answer is, and rounding may not push it out (it did by one ulp at k = 1)
    return float(min(max(eps_m + offset, 0.0), k * epsilon))


def _check_heterogeneous(epsilons, deltas) -> tuple[np.ndarray, np.ndarray]:
    eps = np.atleast_1d(_float_array("epsilons", epsilons))
    if eps.ndim != 1 or eps.size == 0 or not np.all(np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError(f"epsilons must be a non-empty 1-D array of finite values > 0, got {eps.tolist()!r}")
    if deltas is None:
        return eps, np.zeros_like(eps)
    dl = np.atleast_1d(_float_array("deltas", deltas))
    if dl.shape != eps.shape:
        raise ValueError(f"deltas must have the length of epsilons, got {dl.size} and {eps.size}")
    if not np.all(np.isfinite(dl)) or np.any(dl < 0) or np.any(dl >= 1):
        raise ValueError(f"deltas must lie in [0, 1), got {dl.tolist()!r}")
    return eps, dl


def advanced_heterogeneous(epsilons, delta_prime, deltas=None) -> tuple[float, float]:
    r"""Advanced composition of mechanisms with different parameters :math:`(\varepsilon_i, \delta_i)`.

    ``k`` adaptively chosen mechanisms, the ``i``-th :math:`(\varepsilon_i,\delta_i)`-DP with the
    parameters fixed in advance, are :math:`(\varepsilon_{\mathrm{tot}}, \delta_{\mathrm{tot}})`-DP for every
    :math:`\delta'\in(0,1)`, with

    .. math:: \varepsilon_{\mathrm{tot}} = \sqrt{2\log(1/\delta')\textstyle\sum_i\varepsilon_i^2}
              + \sum_i \varepsilon_i\tanh(\varepsilon_i/2),\qquad
              \delta_{\mathrm{tot}} = 1 - (1-\delta')\prod_i(1-\delta_i).

    This is the last of the three bounds of :cite:`kairouz2015composition` Theorem 3.5
    (:math:`\tanh(\varepsilon/2) = (e^{\varepsilon}-1)/(e^{\varepsilon}+1)`): the martingale proof of
    advanced composition with Azuma's inequality for steps bounded by :math:`c_i = \varepsilon_i`
    and conditional means at most :math:`\varepsilon_i\tanh(\varepsilon_i/2)`. With equal parameters it
    is :func:`advanced_reduction` with the smaller total delta :math:`1-(1-\delta')(1-\delta)^k \le k\delta+\delta'`.

    Parameters
    ----------
    epsilons : array_like
        The :math:`\varepsilon_i > 0`, one per mechanism.
    delta_prime : float
        The slack :math:`\delta'` of the concentration step, in ``(0, 1)``.
    deltas : array_like, optional
        The :math:`\delta_i \in [0, 1)`, same length as ``epsilons``; zeros if omitted.

    Returns
    -------
    (epsilon_total, delta_total) : tuple of float

    Examples
    --------
    >>> import math
    >>> e, d = advanced_heterogeneous([0.1, 0.2, 0.2], math.exp(-2), deltas=[0.0, 0.5, 0.0])
    >>> # sqrt(2 * 2 * (0.01 + 0.04 + 0.04)) = 0.6; delta: 1 - (1 - e^-2)(1 - 0.5)
    >>> abs(e - (0.6 + 0.1 * math.tanh(0.05) + 0.4 * math.tanh(0.1))) < 1e-12, abs(d - (1 + math.exp(-2)) / 2) < 1e-12
    (True, True)
    """
    eps, dl = _check_heterogeneous(epsilons, deltas)
    delta_prime = check_in_range("delta_prime", delta_prime, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    # ||eps||_2 in units of the largest eps_i: eps * eps overflowed (an infinite bound at eps = [1e300],
    # where it is 6.3e300) or underflowed (no square-root term at all at eps = [1e-200])
    top = float(np.max(eps))
    norm = top * math.sqrt(float(np.sum((eps / top) ** 2)))
    eps_total = math.sqrt(2.0 * -math.log(delta_prime)) * norm + float(np.sum(eps * np.tanh(eps / 2.0)))
    delta_total = -math.expm1(math.log1p(-delta_prime) + float(np.sum(np.log1p(-dl))))
    return eps_total, delta_total


# Exact enumeration over the 2^k subsets is the method: computing the optimal composition of
# heterogeneous parameters is #P-complete (Murtagh and Vadhan 2016), so no library does it fast.
MAX_HETEROGENEOUS = 20


def optimal_delta_heterogeneous(epsilons, epsilon_prime, deltas=None):
    r"""Exact privacy profile of the composition of :math:`(\varepsilon_i,\delta_i)`-DP mechanisms, by enumeration.

    :cite:`murtagh2016complexity` (the heterogeneous form of :cite:`kairouz2015composition`
    Theorem 3.3): ``k`` adaptively chosen mechanisms, the ``i``-th :math:`(\varepsilon_i,\delta_i)`-DP,
    are :math:`(\varepsilon',\delta)`-DP exactly when :math:`\delta \ge \delta(\varepsilon')` with

    .. math:: \delta(\varepsilon') = 1 - \prod_i(1-\delta_i)\Bigl(1 - \frac{1}{\prod_i(1+e^{\varepsilon_i})}
              \sum_{S\subseteq[k]}\bigl[e^{\sum_{i\in S}\varepsilon_i}
              - e^{\varepsilon'}e^{\sum_{i\notin S}\varepsilon_i}\bigr]_+\Bigr),

    the hockey-stick divergence of the product of the pairs :func:`uv_pair` (``S`` is the set of
    randomized responses that kept the bit). Computing it is #P-complete in general, so this
    function enumerates the :math:`2^k` subsets (``k`` at most ``MAX_HETEROGENEOUS = 20``), each
    term in log space.

    Parameters
    ----------
    epsilons : array_like
        The :math:`\varepsilon_i > 0`, at most 20 of them.
    epsilon_prime : float or array_like
        Total privacy parameter(s) :math:`\varepsilon' \ge 0`.
    deltas : array_like, optional
        The :math:`\delta_i \in [0, 1)`; zeros if omitted.

    Returns
    -------
    float or numpy.ndarray
        :math:`\delta(\varepsilon')`, same shape as ``epsilon_prime``.

    Examples
    --------
    >>> import math
    >>> # one randomized response with e^eps = 3 and one with e^eps = 2, at eps' = 0:
    >>> # subsets S = {1, 2}, {1}: (6 - 1) + (3 - 2) over (1 + 3)(1 + 2) = 1/2
    >>> round(float(optimal_delta_heterogeneous([math.log(3), math.log(2)], 0.0)), 12)
    0.5
    """
    eps, dl = _check_heterogeneous(epsilons, deltas)
    if eps.size > MAX_HETEROGENEOUS:
        raise ValueError(f"epsilons must have at most {MAX_HETEROGENEOUS} entries (exact enumeration of 2^k subsets), got {eps.size}")
    ep = _nonneg_array("epsilon_prime", epsilon_prime)
    kept = np.zeros(1)
    for e in eps:                                  # sum of eps_i over S, for every subset S
        kept = np.concatenate([kept, kept + e])
    loss = 2.0 * kept - eps.sum()                  # privacy loss of an outcome: sum_S eps_i - sum_{not S} eps_i
    log_p = kept - float(np.sum(np.logaddexp(0.0, eps)))
    out = np.empty(ep.shape)
    for idx, e_prime in np.ndenumerate(ep):
        above = loss > e_prime
        terms = log_p[above] + np.log(-np.expm1(e_prime - loss[above]))
        out[idx] = math.exp(logsumexp(terms)) if terms.size else 0.0
    catastrophe = -math.expm1(float(np.sum(np.log1p(-dl))))     # 1 - prod(1 - delta_i)
    out = catastrophe + (1.0 - catastrophe) * np.minimum(out, 1.0)   # a sum of masses can round above 1
    return float(out) if out.ndim == 0 else out


def uv_pair(epsilon, delta=0.0) -> tuple[np.ndarray, np.ndarray]:
    r"""The four-outcome pair :math:`(U, V)` that every :math:`(\varepsilon,\delta)`-DP pair reduces to.

    Outcomes in the order ``('I am U', 0, 1, 'I am V')``:

    .. math:: U = \bigl(\delta,\ (1-\delta)\tfrac{e^{\varepsilon}}{1+e^{\varepsilon}},\
              (1-\delta)\tfrac{1}{1+e^{\varepsilon}},\ 0\bigr),\qquad
              V = \bigl(0,\ (1-\delta)\tfrac{1}{1+e^{\varepsilon}},\
              (1-\delta)\tfrac{e^{\varepsilon}}{1+e^{\varepsilon}},\ \delta\bigr).

    Source 001 §3.1 (with the denominators corrected to :math:`e^{\varepsilon}+1`);
    :cite:`kairouz2015composition`.

    Parameters
    ----------
    epsilon : float
        ``>= 0``.
    delta : float
        In ``[0, 1)``.

    Returns
    -------
    U, V : ndarray of shape (4,)
        The two probability vectors; ``V`` is ``U`` reversed.

    Raises
    ------
    ValueError
        If ``epsilon < 0`` or ``delta`` is outside ``[0, 1)``.

    Examples
    --------
    >>> import math
    >>> u, v = uv_pair(math.log(3), 0.2)
    >>> u.round(12).tolist(), v.round(12).tolist()
    ([0.2, 0.6, 0.2, 0.0], [0.0, 0.2, 0.6, 0.2])
    """
    epsilon = check_in_range("epsilon", epsilon, 0.0)
    delta = check_delta("delta", delta)
    t = math.exp(-epsilon)
    p, q = 1.0 / (1.0 + t), t / (1.0 + t)           # q = 1 - p without the cancellation of 1 - p
    u = np.array([delta, (1 - delta) * p, (1 - delta) * q, 0.0])
    return u, u[::-1].copy()


def rr_reduction_channel(p, q, epsilon, delta=0.0) -> np.ndarray:
    r"""A channel ``T`` (4 x m, rows are distributions) with ``U @ T = p`` and ``V @ T = q``.

    Such a post-processing of the pair :func:`uv_pair` exists exactly when the
    discrete pair ``(p, q)`` satisfies :math:`(\varepsilon,\delta)`-indistinguishability
    in both directions (:cite:`kairouz2015composition`; source 001, Lemma 1, corrected).
    The channel is found as a feasible point of a linear program
    (:func:`scipy.optimize.linprog`), so nothing about its shape is assumed.

    Parameters
    ----------
    p, q : array_like
        Probability vectors over the same ``m`` outcomes.
    epsilon : float
        ``>= 0``.
    delta : float
        In ``[0, 1)``.

    Returns
    -------
    ndarray of shape (4, m)
        The channel: row ``i`` is the law of the output given outcome ``i`` of :func:`uv_pair`.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability vector, ``epsilon`` or ``delta`` is out of range,
        or ``p`` and ``q`` are not :math:`(\varepsilon,\delta)`-indistinguishable
        (the linear program is infeasible).

    Examples
    --------
    >>> import math
    >>> T = rr_reduction_channel([0.5, 0.3, 0.2], [0.3, 0.4, 0.3], math.log(2))
    >>> u, v = uv_pair(math.log(2))
    >>> bool(np.allclose(u @ T, [0.5, 0.3, 0.2]) and np.allclose(v @ T, [0.3, 0.4, 0.3]))
    True
    """
    from scipy.optimize import linprog

    from ._validate import check_distribution_pair

    p, q = check_distribution_pair(p, q)
    u, v = uv_pair(epsilon, delta)
    m = p.size
    # unknowns T[i, x], row-major; equality constraints: U @ T = p, V @ T = q, rows sum to 1
    a_eq = np.vstack([np.kron(u, np.eye(m)), np.kron(v, np.eye(m)), np.kron(np.eye(4), np.ones(m))])
    b_eq = np.concatenate([p, q, np.ones(4)])
    res = linprog(np.zeros(4 * m), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    if res.status != 0:
        raise ValueError(f"p and q are not (epsilon, delta) = ({epsilon!r}, {delta!r})-indistinguishable: no channel "
                         f"from (U, V) exists (a larger epsilon or delta, or closer p and q, is needed)")
    return res.x.reshape(4, m).clip(0.0)


def rdp_to_dp(alpha, rdp, delta, method="improved") -> float:
    r"""Convert a Rényi-DP curve to :math:`(\varepsilon,\delta)`-DP: the best :math:`\varepsilon` over the given orders.

    A mechanism that is :math:`(\alpha, \rho(\alpha))`-RDP for each given
    :math:`\alpha > 1` is :math:`(\varepsilon,\delta)`-DP with :math:`\varepsilon` the minimum over
    the orders of

    - ``"classic"``: :math:`\rho(\alpha) + \log(1/\delta)/(\alpha-1)`
      (:cite:`mironov2017renyi` Proposition 3);
    - ``"improved"``: :math:`\rho(\alpha) + \log\frac{\alpha-1}{\alpha} - \frac{\log\delta + \log\alpha}{\alpha-1}`
      (:cite:`canonne2020discrete` Proposition 12; :cite:`balle2018improving` line of work),
      never larger than the classic value.

    Parameters
    ----------
    alpha : array_like
        Orders, each ``> 1``.
    rdp : array_like
        :math:`\rho(\alpha)` at those orders, each ``>= 0``.
    delta : float
        In ``(0, 1)``.
    method : {"improved", "classic"}

    Returns
    -------
    float
        The smallest :math:`\varepsilon` over the orders (clipped at 0).

    Examples
    --------
    >>> import math
    >>> round(rdp_to_dp([2.0], [0.5], math.exp(-1), method="classic"), 12)
    1.5
    """
    a = np.atleast_1d(_float_array("alpha", alpha))
    r = np.atleast_1d(_float_array("rdp", rdp))
    if a.shape != r.shape or a.ndim != 1:
        raise ValueError(f"alpha and rdp must be 1-D arrays of the same length, got shapes {a.shape} and {r.shape}")
    if a.size == 0:                       # the minimum over no order: numpy's error named no parameter
        raise ValueError(f"alpha must not be empty (at least one order), got shape {a.shape}")
    if not np.all(np.isfinite(a)) or np.any(a <= 1):
        raise ValueError(f"alpha must be > 1, got {float(a[~(np.isfinite(a) & (a > 1))][0])!r}")
    if not np.all(np.isfinite(r)) or np.any(r < 0):
        raise ValueError(f"rdp must be >= 0, got {float(r[~(np.isfinite(r) & (r >= 0))][0])!r}")
    delta = check_in_range("delta", delta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    if method == "classic":
        eps = r + -math.log(delta) / (a - 1.0)       # not log(1/delta): 1/5e-324 overflows (eps was inf)
    elif method == "improved":
        eps = r + np.log1p(-1.0 / a) - (math.log(delta) + np.log(a)) / (a - 1.0)
    else:
        raise ValueError(f"method must be one of 'improved', 'classic', got {method!r}")
    return float(max(np.min(eps), 0.0))


def zcdp_to_dp(rho, delta) -> float:
    r"""Convert :math:`\rho`-zCDP to :math:`(\varepsilon,\delta)`-DP: :math:`\varepsilon = \rho + 2\sqrt{\rho\log(1/\delta)}`.

    :cite:`bun2016concentrated` Proposition 1.3 (the classic conversion applied to
    :math:`\rho(\alpha) = \alpha\rho` at the best real order).

    Parameters
    ----------
    rho : float
        The zCDP parameter, ``> 0``.
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float
        The epsilon.

    Raises
    ------
    ValueError
        If ``rho <= 0`` or ``delta`` is outside ``(0, 1)``.

    Examples
    --------
    >>> import math
    >>> round(zcdp_to_dp(0.5, math.exp(-2)), 12)
    2.5
    """
    rho = check_positive("rho", rho)
    delta = check_in_range("delta", delta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    # -log(delta), not log(1/delta): 1/5e-324 overflows to inf (the bound was inf; it is 39.08 at rho = 0.5)
    return float(rho + 2.0 * math.sqrt(rho * -math.log(delta)))
