r"""The sparse vector technique: AboveThreshold, Sparse, NumericSparse and their exact laws.

AboveThreshold (:cite:`dwork2014algorithmic` Algorithm 1, §3.6) receives a stream of
sensitivity-1 queries and a public threshold ``T``. It adds Laplace noise of scale
``2/epsilon`` to the threshold once, adds fresh Laplace noise of scale ``4/epsilon``
to every query answer, answers ``False`` (below, the book's :math:`\bot`) while the
noisy answer is below the noisy threshold, and answers ``True`` (above, :math:`\top`)
at the first query whose noisy answer reaches it, then halts.

Outputs are encoded by the number ``o`` of :math:`\bot` they contain. For a stream of
``k`` queries, ``o < k`` stands for :math:`\bot^{o}\top` (halt at query ``o + 1``)
and ``o == k`` for :math:`\bot^{k}` (the stream ended with no query above the
threshold). These ``k + 1`` outputs are all the algorithm can produce.

Queries are given by their answers on the data set, ``answers[i]`` :math:`= f_{i+1}(D)`;
a neighbouring data set changes each answer by at most 1.

Every sampler here runs one vectorized core (:func:`_above_threshold_runs` for
AboveThreshold, :func:`_sparse_runs` for Sparse and its variants), so a single run
(:func:`above_threshold`, :func:`sparse`, :func:`numeric_sparse`) and many runs
(:func:`sample_outputs`, :func:`sample_sparse`) execute the same code. The cores draw
their noise in a documented order, and ``tests/test_svt.py`` couples on it: the noise of
a run equals the claimed scale times the standard Laplace draw of the same seed.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import integrate, optimize

from . import composition
from ._validate import (
    check_array,
    check_delta,
    check_in_range,
    check_integer,
    check_positive,
    check_real,
    check_rng,
)

__all__ = [
    "above_threshold",
    "sample_outputs",
    "output_log_probabilities",
    "max_log_ratio",
    "search_worst_case",
    "accuracy_alpha",
    "is_accurate",
    "accuracy_failure_probability",
    "simulate_accuracy_failure",
    "advanced_per_query_epsilon",
    "laplace_alpha",
    "sparse",
    "sparse_alpha",
    "sample_sparse",
    "sparse_output_log_probabilities",
    "sparse_max_log_ratio",
    "numeric_sparse_epsilons",
    "numeric_sparse",
    "numeric_sparse_alpha",
    "numeric_log_density",
]

_LOG_HALF = math.log(0.5)
_CHUNK = 2_000_000          # query noises drawn at once by sample_outputs (bounds its memory)


# --------------------------------------------------------------------------- validation
def _answers(name, answers) -> np.ndarray:
    arr = check_array(name, answers, allow_inf=True, allow_nan=True, allow_empty=True)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of query answers, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must have finite entries, got {arr.tolist()}")
    return arr


def _neighbours(answers, answers_prime) -> tuple[np.ndarray, np.ndarray]:
    a = _answers("answers", answers)
    b = _answers("answers_prime", answers_prime)
    if a.shape != b.shape:
        raise ValueError(f"answers_prime must have the same length as answers, got {b.size} and {a.size}")
    gap = float(np.max(np.abs(a - b)))
    if gap > 1.0 + 1e-12:
        raise ValueError(f"answers and answers_prime must differ by at most 1 (sensitivity 1), got {gap!r}")
    return a, b


def _scales(epsilon, threshold_scale, query_scale) -> tuple[float, float]:
    epsilon = check_positive("epsilon", epsilon)
    b_t = 2.0 / epsilon if threshold_scale is None else check_positive("threshold_scale", threshold_scale)
    b_q = 4.0 / epsilon if query_scale is None else check_positive("query_scale", query_scale)
    return b_t, b_q


# --------------------------------------------------------------------------- the algorithm
def _above_threshold_runs(answers, threshold, threshold_scale, query_scale, size, rng) -> np.ndarray:
    """``size`` independent runs of AboveThreshold: the number ``o`` of bottoms of each.

    The noise is drawn in this order: the ``size`` threshold noises, then one row of
    ``k`` query noises per run (all ``k`` are drawn; those after the first top are unused).
    """
    k = answers.size
    noisy_threshold = threshold + rng.laplace(0.0, threshold_scale, size)      # once per run
    noisy_answers = answers + rng.laplace(0.0, query_scale, (size, k))         # fresh for every query
    above = noisy_answers >= noisy_threshold[:, None]
    return np.where(above.any(axis=1), above.argmax(axis=1), k)                 # first top, or k: none


def above_threshold(answers, threshold, epsilon, *, rng, threshold_scale=None, query_scale=None) -> np.ndarray:
    r"""Run AboveThreshold once (:cite:`dwork2014algorithmic` Algorithm 1).

    Parameters
    ----------
    answers : sequence of float
        The answers :math:`f_1(D), \dots, f_k(D)` of sensitivity-1 queries.
    threshold : float
        The public threshold :math:`T`.
    epsilon : float
        Privacy parameter, ``> 0``; the run is :math:`\varepsilon`-DP (Theorem 3.23).
    rng : numpy.random.Generator
    threshold_scale, query_scale : float, optional
        As in :func:`sample_outputs` (default ``2/epsilon`` and ``4/epsilon``).

    Returns
    -------
    numpy.ndarray of bool
        The answers given, ``True`` for :math:`\top`. It ends at the first ``True``
        (the algorithm halts there). If no query is above the noisy threshold the
        result is ``k`` times ``False``: the stream ended, no :math:`\top` was given.
        It is one run of :func:`_above_threshold_runs`, the core of :func:`sample_outputs`.

    Examples
    --------
    >>> above_threshold([-50.0, -50.0, 50.0, 0.0], 0.0, 1.0, rng=np.random.default_rng(1))
    array([False, False,  True])
    """
    answers = _answers("answers", answers)
    threshold = check_real("threshold", threshold)
    b_t, b_q = _scales(epsilon, threshold_scale, query_scale)
    rng = check_rng("rng", rng)
    o = int(_above_threshold_runs(answers, threshold, b_t, b_q, 1, rng)[0])
    return np.arange(min(o + 1, answers.size)) == o           # o bottoms, then a top unless o == k


def sample_outputs(answers, threshold, epsilon, size, *, rng, threshold_scale=None, query_scale=None) -> np.ndarray:
    r"""Run AboveThreshold ``size`` times on the same answers (vectorized).

    Parameters
    ----------
    answers, threshold, epsilon
        As in :func:`above_threshold`.
    size : int
        Number of independent runs, ``>= 1``.
    rng : numpy.random.Generator
    threshold_scale, query_scale : float, optional
        Laplace scales of the threshold and query noise; default ``2/epsilon`` and
        ``4/epsilon`` (the algorithm as analysed). Other values serve to show what
        goes wrong with less noise, and to run other budget splits.

    Returns
    -------
    numpy.ndarray of int
        The output of each run as the number ``o`` of :math:`\bot` it contains
        (``o < k``: halted at query ``o + 1``; ``o == k``: no :math:`\top`).

    Examples
    --------
    >>> o = sample_outputs([-50.0, 50.0], 0.0, 1.0, 5, rng=np.random.default_rng(0))
    >>> o.tolist()
    [1, 1, 1, 1, 1]
    """
    answers = _answers("answers", answers)
    threshold = check_real("threshold", threshold)
    b_t, b_q = _scales(epsilon, threshold_scale, query_scale)
    size = check_integer("size", size, low=1)
    rng = check_rng("rng", rng)
    chunk = max(1, _CHUNK // answers.size)
    return np.concatenate([_above_threshold_runs(answers, threshold, b_t, b_q, min(chunk, size - start), rng)
                           for start in range(0, size, chunk)])


# --------------------------------------------------------------------------- exact law
def _log_cdf(u, b) -> float:
    """log of the Laplace(0, b) CDF at the scalar u.

    Written out with :mod:`math` (not ``scipy.stats.laplace.logcdf``) because
    :func:`scipy.integrate.quad` calls the integrand one point at a time and the
    scipy.stats call overhead would dominate; ``tests/test_svt.py`` compares it
    with ``scipy.stats.laplace.logcdf``.
    """
    u = u / b
    return u + _LOG_HALF if u < 0 else math.log1p(-0.5 * math.exp(-u))


def _log_sf(u, b) -> float:
    return _log_cdf(-u, b)


def _log_integral(log_f, breakpoints, upper=math.inf) -> float:
    """log of the integral of exp(log_f) over (-inf, upper), where log_f is concave and
    smooth between the breakpoints (a product of Laplace densities, CDFs and survival
    functions). Written by hand: quad needs the kinks, the peak and a log-scale shift."""
    pts = np.unique(np.asarray(breakpoints, dtype=float))
    pts = pts[pts < upper]
    # log-concave integrand: its maximum gives the scale, and a further breakpoint. The
    # search interval grows until the maximum is inside it (the Laplace density of the
    # threshold makes the integrand vanish at both ends, so the maximum is finite); a
    # maximum at a finite upper limit is accepted.
    ref = np.append(pts, upper) if math.isfinite(upper) else pts
    width = 1.0 + float(np.ptp(ref))
    while True:
        lo, hi = ref[0] - width, min(ref[-1] + width, upper)
        peak = optimize.minimize_scalar(lambda t: -log_f(t), bounds=(lo, hi),
                                        method="bounded", options={"xatol": 1e-10})
        inside_hi = peak.x < hi - 1e-3 * width or hi == upper
        if (lo + 1e-3 * width < peak.x and inside_hi) or width > 1e8:
            break
        width *= 8.0
    pts = np.unique(np.append(pts, min(peak.x, upper)))
    pts = pts[pts < upper]
    edges = [-np.inf, *pts, upper]
    c = max(log_f(p) for p in edges[1:] if math.isfinite(p))
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        # log-concave integrand with its peak among the edges: on a piece its largest
        # value is at a finite end; skip pieces below exp(-600) of the peak
        if max(log_f(x) for x in (lo, hi) if math.isfinite(x)) - c < -600.0:
            continue
        if hi - lo < 1e-6:          # a sliver between near-equal kinks: trapezoid rule
            total += 0.5 * (hi - lo) * (math.exp(log_f(lo) - c) + math.exp(log_f(hi) - c))
            continue
        val, _ = integrate.quad(lambda t: math.exp(log_f(t) - c), lo, hi,
                                epsabs=0.0, epsrel=1e-11, limit=200)
        total += val
    return c + math.log(total)


def _pattern_log_probability(below, above, threshold, b_t, b_q, upper=math.inf) -> float:
    """log of the integral over t < upper of p(t) prod_below F(t - f) prod_above (1 - F(t - f)),
    with p the Laplace(threshold, b_t) density and F the Laplace(0, b_q) CDF: the
    probability that one noisy threshold sends the answers ``below`` under it and the
    answers ``above`` over it (each with fresh query noise)."""
    log_norm = math.log(2.0 * b_t)
    lows = list(zip(*np.unique(np.asarray(below, dtype=float), return_counts=True)))
    highs = list(zip(*np.unique(np.asarray(above, dtype=float), return_counts=True)))

    def log_f(t):
        val = -abs(t - threshold) / b_t - log_norm          # threshold noise density
        for v, n in lows:                                   # answers reported below
            val += n * _log_cdf(t - v, b_q)
        for v, n in highs:                                  # answers reported above
            val += n * _log_sf(t - v, b_q)
        return val

    pts = [threshold] + [v for v, _ in lows] + [v for v, _ in highs]
    return _log_integral(log_f, pts, upper)


def output_log_probabilities(answers, threshold, epsilon, *, threshold_scale=None, query_scale=None) -> np.ndarray:
    r"""Exact log-probabilities of the ``k + 1`` outputs of AboveThreshold.

    Given the noisy threshold :math:`\hat T = t`, the query noises are independent, so

    .. math:: \Pr[\bot^{o}\top] = \int p_{\hat T}(t)\,\prod_{i \le o} F_\nu(t - f_i)\,
              \bigl(1 - F_\nu(t - f_{o+1})\bigr)\,dt, \qquad
              \Pr[\bot^{k}] = \int p_{\hat T}(t)\,\prod_{i \le k} F_\nu(t - f_i)\,dt,

    with :math:`p_{\hat T}` the Laplace(``T``, ``2/epsilon``) density and :math:`F_\nu`
    the Laplace(0, ``4/epsilon``) CDF. Each integral is computed with
    :func:`scipy.integrate.quad` on the pieces between the kinks (``T`` and the
    answers) and the integrand's maximum, relative tolerance ``1e-11``. This does
    not use the sampler, so it can check it (and the privacy theorem).

    Parameters
    ----------
    answers, threshold, epsilon, threshold_scale, query_scale
        As in :func:`sample_outputs`.

    Returns
    -------
    numpy.ndarray
        ``k + 1`` natural-log probabilities, indexed by the number ``o`` of :math:`\bot`.

    Examples
    --------
    >>> p = np.exp(output_log_probabilities([0.0], 0.0, 1.0))
    >>> bool(abs(p.sum() - 1) < 1e-10), bool(abs(p[0] - 0.5) < 1e-10)
    (True, True)
    """
    answers = _answers("answers", answers)
    threshold = check_real("threshold", threshold)
    b_t, b_q = _scales(epsilon, threshold_scale, query_scale)
    k = answers.size
    return np.array([_output_log_probability(answers, threshold, b_t, b_q, o) for o in range(k + 1)])


def _output_log_probability(answers, threshold, b_t, b_q, o) -> float:
    """log Pr[output with o bottoms]; see :func:`output_log_probabilities`."""
    return _pattern_log_probability(answers[:o], answers[o:o + 1], threshold, b_t, b_q)


def max_log_ratio(answers, answers_prime, threshold, epsilon, *, threshold_scale=None, query_scale=None) -> float:
    r"""Largest :math:`|\log(\Pr[A = a]/\Pr[A' = a])|` over the outputs ``a`` of AboveThreshold.

    ``answers`` are the query answers on :math:`D`, ``answers_prime`` on a neighbour
    :math:`D'`; each pair differs by at most 1 (sensitivity-1 queries). The run on
    :math:`D` and :math:`D'` is :math:`\varepsilon`-DP on these queries exactly when
    the result is ``<= epsilon``.

    Parameters
    ----------
    answers, answers_prime : sequence of float
        The answers on :math:`D` and on :math:`D'`, of the same length, each pair within 1.
    threshold, epsilon, threshold_scale, query_scale
        As in :func:`sample_outputs`.

    Returns
    -------
    float
        The largest absolute log-ratio, ``>= 0``.

    Raises
    ------
    ValueError
        If the answers are malformed, of different lengths or more than 1 apart, or a
        parameter is out of range.

    Examples
    --------
    >>> r = max_log_ratio([0.0], [1.0], 0.0, 1.0)
    >>> bool(0 < r <= 1.0)
    True
    """
    a, b = _neighbours(answers, answers_prime)
    kw = dict(threshold_scale=threshold_scale, query_scale=query_scale)
    la = output_log_probabilities(a, threshold, epsilon, **kw)
    lb = output_log_probabilities(b, threshold, epsilon, **kw)
    return float(np.max(np.abs(la - lb)))


def search_worst_case(k, epsilon, *, rng, n_starts=4, maxfev=150, spread=None,
                      threshold_scale=None, query_scale=None):
    r"""Search adversarial answers on neighbouring data sets for the largest output log-ratio.

    The variables are the ``k`` answers on :math:`D` (threshold ``0``), kept in
    ``(-spread, spread)`` as :math:`q_i = \mathrm{spread}\cdot\tanh(y_i)`, and the ``k``
    changes :math:`d_i = \tanh(z_i) \in (-1, 1)` to :math:`D'`.
    :func:`scipy.optimize.minimize` (Nelder--Mead, at most ``maxfev`` evaluations)
    runs from ``n_starts`` random starting points on :func:`max_log_ratio`. A search gives a lower bound on the
    worst case, not a proof.

    Parameters
    ----------
    k : int
        Number of queries, ``1 <= k <= 6``.
    epsilon : float
        Privacy parameter, ``> 0``.
    rng : numpy.random.Generator
        Draws the starting points.
    n_starts, maxfev : int
        Number of random starts and evaluations per start, ``>= 1``.
    spread : float, optional
        Bound on the answers' distance from the threshold; default ``8/epsilon``.
    threshold_scale, query_scale : float, optional
        As in :func:`sample_outputs`.

    Returns
    -------
    log_ratio : float
        The largest log-ratio found.
    answers, answers_prime : ndarray of shape (k,)
        The answers on :math:`D` and :math:`D'` that give it (threshold 0).

    Raises
    ------
    ValueError
        If a parameter is out of range.

    Examples
    --------
    >>> r, a, b = search_worst_case(1, 1.0, rng=np.random.default_rng(0), n_starts=1, maxfev=40)
    >>> bool(r <= 1.0)
    True
    """
    k = check_integer("k", k, low=1, high=6)
    epsilon = check_positive("epsilon", epsilon)
    rng = check_rng("rng", rng)
    n_starts = check_integer("n_starts", n_starts, low=1)
    maxfev = check_integer("maxfev", maxfev, low=1)
    spread = 8.0 / epsilon if spread is None else check_positive("spread", spread)
    kw = dict(threshold_scale=threshold_scale, query_scale=query_scale)

    def unpack(x):
        q = spread * np.tanh(x[:k])
        return q, q + np.tanh(x[k:])

    def loss(x):
        q, qp = unpack(x)
        return -max_log_ratio(q, qp, 0.0, epsilon, **kw)

    best = None
    for _ in range(n_starts):
        x0 = rng.uniform(-2.0, 2.0, 2 * k)
        res = optimize.minimize(loss, x0, method="Nelder-Mead",
                                options={"xatol": 1e-6, "fatol": 1e-9, "maxfev": maxfev})
        if best is None or res.fun < best.fun:
            best = res
    q, qp = unpack(best.x)
    return -float(best.fun), q, qp


# --------------------------------------------------------------------------- accuracy
def accuracy_alpha(k, epsilon, beta) -> float:
    r"""The :math:`\alpha` of Theorem 3.24: :math:`\alpha = 8(\log k + \log(2/\beta))/\varepsilon`.

    With this :math:`\alpha`, AboveThreshold is :math:`(\alpha, \beta)`-accurate on any
    ``k`` queries of which only the last may be :math:`\ge T - \alpha`
    (:cite:`dwork2014algorithmic` Theorem 3.24).

    Parameters
    ----------
    k : int
        Number of queries, ``>= 1``.
    epsilon : float
        Privacy parameter, ``> 0``.
    beta : float
        Failure probability, in ``(0, 1)``.

    Returns
    -------
    float
        :math:`\alpha`.

    Raises
    ------
    ValueError
        If ``k < 1``, ``epsilon <= 0`` or ``beta`` is outside ``(0, 1)``.

    Examples
    --------
    >>> round(accuracy_alpha(1, 8.0, 2 / math.e), 12)
    1.0
    """
    k = check_integer("k", k, low=1)
    epsilon = check_positive("epsilon", epsilon)
    beta = check_in_range("beta", beta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    return 8.0 * (math.log(k) + math.log(2.0 / beta)) / epsilon


def is_accurate(answers, threshold, alpha, outputs) -> np.ndarray:
    r"""Whether each run meets Definition 3.9 (accuracy) for the stream ``answers``.

    A run with output ``o`` (the number of :math:`\bot`, see the module docstring) is
    accurate when it does not halt before the last query (``o >= k - 1``), every
    :math:`\top` is on an answer :math:`\ge T - \alpha` and every :math:`\bot` on an
    answer :math:`\le T + \alpha`.

    Parameters
    ----------
    answers : sequence of float
        The stream's answers :math:`f_1(D), \dots, f_k(D)`.
    threshold : float
        The threshold :math:`T`.
    alpha : float
        The accuracy, ``> 0``.
    outputs : array_like of int
        The outputs of runs, each the number ``o`` of :math:`\bot`, in ``[0, k]``.

    Returns
    -------
    ndarray of bool
        One per output.

    Raises
    ------
    ValueError
        If ``answers`` is not a non-empty 1-D sequence of finite numbers, ``alpha <= 0`` or an output is
        not an integer in ``[0, k]``.

    Examples
    --------
    >>> is_accurate([-10.0, 10.0], 0.0, 1.0, [0, 1, 2]).tolist()
    [False, True, False]
    """
    answers = _answers("answers", answers)
    threshold = check_real("threshold", threshold)
    alpha = check_positive("alpha", alpha)
    o = np.asarray(outputs)
    k = answers.size
    if o.size == 0:               # no runs (an empty list is read as floats): no verdicts
        return np.zeros(o.shape, dtype=bool)
    if not np.issubdtype(o.dtype, np.integer) or o.min() < 0 or o.max() > k:
        raise ValueError(f"outputs must be integers in [0, {k}], got {o.tolist()}")
    # prefix counts of answers that are too large to be reported below
    too_big = np.concatenate([[0], np.cumsum(answers > threshold + alpha)])
    bottoms_ok = too_big[o] == 0
    top_ok = np.append(answers >= threshold - alpha, True)[o]     # o == k: no top at all
    return (o >= k - 1) & bottoms_ok & top_ok


def _worst_instance(k, threshold, alpha):
    """The hardest stream allowed by Theorem 3.24: k - 1 answers just below T - alpha,
    the last just above T + alpha (one floating-point step away, so that the stream
    meets the theorem's strict inequality and the last query must be reported above)."""
    return np.append(np.full(k - 1, np.nextafter(threshold - alpha, -np.inf)),
                     np.nextafter(threshold + alpha, np.inf))


def accuracy_failure_probability(k, epsilon, alpha, *, threshold_scale=None, query_scale=None) -> float:
    r"""Exact failure probability of AboveThreshold on the hardest stream of Theorem 3.24.

    The stream has :math:`k - 1` answers just below :math:`T - \alpha` (the theorem
    allows earlier answers :math:`< T - \alpha`; the closer to the bound, the likelier
    a false :math:`\top`) and the last just above :math:`T + \alpha` (so it must be
    reported :math:`\top`). A run succeeds only with output
    :math:`\bot^{k-1}\top`; the probability is computed by
    :func:`output_log_probabilities`. ``threshold_scale`` and ``query_scale`` are as
    in :func:`sample_outputs` (default ``2/epsilon`` and ``4/epsilon``).

    The result is one minus that success probability, whose integral is accurate to ``1e-11``
    relative: the failure probability is accurate to about ``1e-11`` *absolute* (a failure
    probability of ``1e-13`` reads as anything in ``[0, 1e-11]``), and is clipped at 0.

    Parameters
    ----------
    k : int
        Number of queries, ``>= 1``.
    epsilon : float
        Privacy parameter, ``> 0``.
    alpha : float
        The accuracy, ``> 0``.
    threshold_scale, query_scale : float, optional
        As in :func:`sample_outputs`.

    Returns
    -------
    float
        The failure probability, in ``[0, 1]``.

    Raises
    ------
    ValueError
        If a parameter is out of range.

    Examples
    --------
    >>> p = accuracy_failure_probability(10, 1.0, accuracy_alpha(10, 1.0, 0.1))
    >>> bool(0 < p <= 0.1)
    True
    """
    k = check_integer("k", k, low=1)
    b_t, b_q = _scales(epsilon, threshold_scale, query_scale)
    alpha = check_positive("alpha", alpha)
    log_success = _output_log_probability(_worst_instance(k, 0.0, alpha), 0.0, b_t, b_q, k - 1)
    return float(max(-math.expm1(log_success), 0.0))       # quad may put the success at 1 + 2e-16


def simulate_accuracy_failure(k, epsilon, alpha, n_runs, *, rng) -> float:
    r"""Fraction of ``n_runs`` seeded runs on the stream of :func:`accuracy_failure_probability`
    that violate Definition 3.9 (checked by :func:`is_accurate`).

    Parameters
    ----------
    k : int
        Number of queries, ``>= 1``.
    epsilon : float
        Privacy parameter, ``> 0``.
    alpha : float
        The accuracy, ``> 0``.
    n_runs : int
        Number of runs, ``>= 1``.
    rng : numpy.random.Generator
        The source of the noise (through :func:`sample_outputs`).

    Returns
    -------
    float
        The fraction of failed runs.

    Raises
    ------
    ValueError
        If a parameter is out of range.

    Examples
    --------
    >>> simulate_accuracy_failure(10, 1.0, 200.0, 1000, rng=np.random.default_rng(0))
    0.0
    """
    k = check_integer("k", k, low=1)
    epsilon = check_positive("epsilon", epsilon)
    alpha = check_positive("alpha", alpha)
    n_runs = check_integer("n_runs", n_runs, low=1)
    rng = check_rng("rng", rng)
    answers = _worst_instance(k, 0.0, alpha)
    outputs = sample_outputs(answers, 0.0, epsilon, n_runs, rng=rng)
    return float(1.0 - is_accurate(answers, 0.0, alpha, outputs).mean())


# --------------------------------------------------------------------------- comparison
def advanced_per_query_epsilon(epsilon, k, delta_prime) -> float:
    r"""The per-query :math:`\varepsilon_0` whose ``k``-fold advanced composition costs ``epsilon``.

    Solves :math:`\varepsilon_0\sqrt{2k\log(1/\delta')} + k\varepsilon_0(e^{\varepsilon_0}-1) = \varepsilon`
    (:func:`dpnotes.composition.advanced`, :cite:`dwork2014algorithmic` Theorem 3.20)
    with :func:`scipy.optimize.brentq`; the left side increases in :math:`\varepsilon_0`.

    Parameters
    ----------
    epsilon : float
        The total budget, ``> 0``.
    k : int
        Number of queries, ``>= 1``.
    delta_prime : float
        The :math:`\delta'` of advanced composition, in ``(0, 1)``.

    Returns
    -------
    float
        :math:`\varepsilon_0`, to a relative tolerance of a few machine epsilons.

    Raises
    ------
    ValueError
        If a parameter is out of range.

    Examples
    --------
    >>> e0 = advanced_per_query_epsilon(1.0, 100, 1e-6)
    >>> from dpnotes.composition import advanced
    >>> round(advanced(e0, 100, 1e-6)[0], 9)
    1.0
    """
    epsilon = check_positive("epsilon", epsilon)
    k = check_integer("k", k, low=1)
    delta_prime = check_in_range("delta_prime", delta_prime, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    f = lambda e0: composition.advanced(e0, k, delta_prime)[0] - epsilon  # noqa: E731
    # relative tolerance only: e0 is 1e-8 at eps = 1e-4, k = 1e6, where an absolute 1e-15 was 1e-7 of it
    return float(optimize.brentq(f, 1e-300, epsilon, xtol=1e-300, rtol=4 * np.finfo(float).eps))


def laplace_alpha(k, epsilon, beta, *, method="basic", delta_prime=None) -> float:
    r"""Accuracy of answering ``k`` sensitivity-1 queries with the Laplace mechanism.

    Each answer gets Laplace noise of scale :math:`1/\varepsilon_0`, where
    :math:`\varepsilon_0 = \varepsilon/k` (``method="basic"``, Theorem 3.16: total
    :math:`\varepsilon`-DP) or :func:`advanced_per_query_epsilon` (``method="advanced"``,
    Theorem 3.20: total :math:`(\varepsilon, \delta')`-DP). The union bound with
    :math:`\Pr[|\mathrm{Lap}(b)| \ge \alpha] = e^{-\alpha/b}` gives all ``k`` errors
    :math:`< \alpha` except with probability :math:`\beta` for
    :math:`\alpha = \log(k/\beta)/\varepsilon_0`. Comparing the noisy answers with
    :math:`T` then meets Definition 3.9 with this :math:`\alpha`.

    Parameters
    ----------
    k : int
        Number of queries, ``>= 1``.
    epsilon : float
        The total budget, ``> 0``.
    beta : float
        Failure probability, in ``(0, 1)``.
    method : {"basic", "advanced"}
        The composition theorem that splits the budget.
    delta_prime : float, optional
        In ``(0, 1)``; required by ``"advanced"``.

    Returns
    -------
    float
        :math:`\alpha = \log(k/\beta)/\varepsilon_0`.

    Raises
    ------
    ValueError
        If a parameter is out of range, ``method`` is unknown, or ``delta_prime`` is missing
        for ``"advanced"``.

    Examples
    --------
    >>> round(laplace_alpha(1, 1.0, 1 / math.e), 12)
    1.0
    """
    k = check_integer("k", k, low=1)
    epsilon = check_positive("epsilon", epsilon)
    beta = check_in_range("beta", beta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    if method == "basic":
        eps0 = epsilon / k
    elif method == "advanced":
        if delta_prime is None:
            raise ValueError("delta_prime must be given for method='advanced', got None")
        eps0 = advanced_per_query_epsilon(epsilon, k, delta_prime)
    else:
        raise ValueError(f"method must be 'basic' or 'advanced', got {method!r}")
    return math.log(k / beta) / eps0


# --------------------------------------------------------------------------- Sparse
def _sparse_runs(answers, threshold, threshold_scale, query_scale, c, size, rng, refresh=True) -> np.ndarray:
    """``size`` independent runs of Sparse: the positions of the ``c`` tops of each run,
    ``k`` (the stream length) for a top that never came.

    Round ``j`` is an AboveThreshold run on the queries after the previous top. Noise is
    drawn in this order: at the start of each round (only the first when ``refresh`` is
    false) the ``size`` threshold noises, then one row of ``k`` query noises per run (those
    before the round's first query or after its top are unused).
    """
    k = answers.size
    tops = np.full((size, c), k)
    first_query = np.zeros(size, dtype=np.int64)
    for j in range(c):
        if j == 0 or refresh:
            noisy_threshold = threshold + rng.laplace(0.0, threshold_scale, size)   # fresh threshold
        noisy_answers = answers + rng.laplace(0.0, query_scale, (size, k))          # fresh query noise
        above = (noisy_answers >= noisy_threshold[:, None]) & (np.arange(k) >= first_query[:, None])
        tops[:, j] = np.where(above.any(axis=1), above.argmax(axis=1), k)
        first_query = tops[:, j] + 1
    return tops


def _sparse_sigma(epsilon, c, delta) -> float:
    """Threshold noise scale of Sparse (Algorithm 2): 2c/eps, or sqrt(32 c log(1/delta))/eps."""
    return 2.0 * c / epsilon if delta == 0 else math.sqrt(32.0 * c * math.log(1.0 / delta)) / epsilon


def _sparse_scales(epsilon, c, delta, threshold_scale, query_scale) -> tuple[float, float]:
    epsilon = check_positive("epsilon", epsilon)
    sigma = _sparse_sigma(epsilon, c, delta)
    b_t = sigma if threshold_scale is None else check_positive("threshold_scale", threshold_scale)
    b_q = 2.0 * sigma if query_scale is None else check_positive("query_scale", query_scale)
    return b_t, b_q


def _tops_to_answers(tops, k, c) -> np.ndarray:
    """The answers of one run (True for a top) from the positions of its tops."""
    hits = tops[tops < k]
    out = np.zeros(hits[-1] + 1 if hits.size == c else k, dtype=bool)
    out[hits] = True
    return out


def sparse(answers, threshold, epsilon, c, *, rng, delta=0.0) -> np.ndarray:
    r"""Run Sparse once: AboveThreshold restarted until ``c`` queries are reported above.

    :cite:`dwork2014algorithmic` Algorithm 2 and Theorem 3.25. With ``delta == 0`` the
    threshold noise has scale :math:`\sigma = 2c/\varepsilon` (each of the ``c``
    AboveThreshold runs is :math:`\varepsilon/c`-DP; basic composition), otherwise
    :math:`\sigma = \sqrt{32c\log(1/\delta)}/\varepsilon` (advanced composition,
    :math:`(\varepsilon, \delta)`-DP for :math:`\varepsilon \le 1`). Query noise has
    scale :math:`2\sigma`, the threshold is redrawn after every :math:`\top`, and the
    run halts after the ``c``-th :math:`\top`. It is one run of :func:`_sparse_runs`,
    the core of :func:`sample_sparse`.

    Parameters
    ----------
    answers : sequence of float
        The answers :math:`f_1(D), \dots, f_k(D)` of sensitivity-1 queries.
    threshold : float
        The public threshold :math:`T`.
    epsilon : float
        Privacy parameter, ``> 0``.
    c : int
        Number of :math:`\top` before halting, ``>= 1``.
    rng : numpy.random.Generator
        The source of the noise.
    delta : float
        In ``[0, 1)``; ``0`` for the pure-DP calibration.

    Returns
    -------
    numpy.ndarray of bool
        The answers given (``True`` for :math:`\top`); shorter than the stream when
        the ``c``-th :math:`\top` came before its end, with fewer than ``c`` ``True``
        when the stream ended first.

    Raises
    ------
    ValueError
        If ``answers`` is not a non-empty 1-D sequence of finite numbers, or a parameter is out of range.

    Examples
    --------
    >>> sparse([50.0, -50.0, 50.0, 50.0], 0.0, 1.0, 2, rng=np.random.default_rng(0))
    array([ True, False,  True])
    """
    answers = _answers("answers", answers)
    threshold = check_real("threshold", threshold)
    c = check_integer("c", c, low=1)
    rng = check_rng("rng", rng)
    delta = check_delta("delta", delta)
    b_t, b_q = _sparse_scales(epsilon, c, delta, None, None)
    tops = _sparse_runs(answers, threshold, b_t, b_q, c, 1, rng)[0]
    return _tops_to_answers(tops, answers.size, c)


def sparse_alpha(k, epsilon, beta, c, delta=0.0) -> float:
    r"""The :math:`\alpha` of Sparse's accuracy theorem (:cite:`dwork2014algorithmic` Theorem 3.26).

    Each of the ``c`` AboveThreshold runs has privacy parameter :math:`\varepsilon_0`
    (:math:`\varepsilon/c`, or :math:`\varepsilon/\sqrt{8c\log(1/\delta)}` when
    ``delta > 0``) and failure probability :math:`\beta/c`, so Theorem 3.24 gives
    :math:`\alpha = 8(\log k + \log(2c/\beta))/\varepsilon_0`.

    Parameters
    ----------
    k : int
        Number of queries, ``>= 1``.
    epsilon : float
        Privacy parameter, ``> 0``.
    beta : float
        Failure probability, in ``(0, 1)``.
    c : int
        Number of :math:`\top`, ``>= 1``.
    delta : float
        In ``[0, 1)``, as in :func:`sparse`.

    Returns
    -------
    float
        :math:`\alpha`.

    Raises
    ------
    ValueError
        If a parameter is out of range.

    Examples
    --------
    >>> bool(abs(sparse_alpha(50, 1.0, 0.1, 1) - accuracy_alpha(50, 1.0, 0.1)) < 1e-12)
    True
    """
    k = check_integer("k", k, low=1)
    epsilon = check_positive("epsilon", epsilon)
    beta = check_in_range("beta", beta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    c = check_integer("c", c, low=1)
    delta = check_delta("delta", delta)
    eps0 = epsilon / c if delta == 0 else epsilon / math.sqrt(8.0 * c * math.log(1.0 / delta))
    return 8.0 * (math.log(k) + math.log(2.0 * c / beta)) / eps0


def sample_sparse(answers, threshold, epsilon, c, size, *, rng, delta=0.0, threshold_scale=None,
                  query_scale=None, refresh=True) -> np.ndarray:
    r"""Run Sparse ``size`` times on the same answers (vectorized, the core of :func:`sparse`).

    Parameters
    ----------
    answers, threshold, epsilon, c, delta
        As in :func:`sparse`.
    size : int
        Number of independent runs, ``>= 1``.
    rng : numpy.random.Generator
    threshold_scale, query_scale : float, optional
        Laplace scales of the threshold and query noise; default :math:`\sigma` and
        :math:`2\sigma` of :func:`sparse`.
    refresh : bool
        Redraw the threshold after every :math:`\top` (Algorithm 2, the default). With
        ``False`` one noisy threshold serves all ``c`` rounds, as in the variant analysed by
        :cite:`lyu2017understanding` (with threshold noise :math:`\Delta/\varepsilon_1` and
        query noise :math:`2c\Delta/\varepsilon_2`).

    Returns
    -------
    numpy.ndarray of int, shape ``(size, c)``
        The positions (0-based) of the tops of each run in increasing order, ``k`` for
        the tops that did not come because the stream ended.

    Examples
    --------
    >>> sample_sparse([50.0, -50.0, 50.0], 0.0, 1.0, 2, 3, rng=np.random.default_rng(0)).tolist()
    [[0, 2], [0, 2], [0, 2]]
    """
    answers = _answers("answers", answers)
    threshold = check_real("threshold", threshold)
    c = check_integer("c", c, low=1)
    size = check_integer("size", size, low=1)
    rng = check_rng("rng", rng)
    delta = check_delta("delta", delta)
    b_t, b_q = _sparse_scales(epsilon, c, delta, threshold_scale, query_scale)
    return _sparse_runs(answers, threshold, b_t, b_q, c, size, rng, refresh=bool(refresh))


def _sparse_outputs(k, c) -> np.ndarray:
    """Every output of Sparse on k queries as its top positions padded with k: j <= c tops
    (fewer than c only when the stream ended)."""
    rows = [list(t) + [k] * (c - len(t)) for j in range(min(c, k) + 1) for t in itertools.combinations(range(k), j)]
    return np.array(rows, dtype=np.int64).reshape(-1, c)


def _sparse_log_probability(answers, threshold, b_t, b_q, tops, refresh) -> float:
    k = answers.size
    hits = [int(t) for t in tops if t < k]
    asked = hits[-1] + 1 if len(hits) == len(tops) else k     # halted at the c-th top, or the end
    if not refresh:                                           # one threshold for every answer
        below = np.delete(answers[:asked], hits)
        return _pattern_log_probability(below, answers[hits], threshold, b_t, b_q)
    total, first = 0.0, 0                                     # independent AboveThreshold rounds
    for h in hits:
        total += _pattern_log_probability(answers[first:h], answers[h:h + 1], threshold, b_t, b_q)
        first = h + 1
    if first < asked:                                         # the last round met the stream's end
        total += _pattern_log_probability(answers[first:asked], [], threshold, b_t, b_q)
    return total


def sparse_output_log_probabilities(answers, threshold, epsilon, c, *, delta=0.0, threshold_scale=None,
                                    query_scale=None, refresh=True):
    r"""Exact log-probabilities of every output of Sparse (or its one-threshold variant).

    With ``refresh`` (Algorithm 2) the rounds between tops are independent AboveThreshold
    runs, so an output's probability is the product of their probabilities (each an
    integral as in :func:`output_log_probabilities`); without, one noisy threshold
    :math:`\hat T = t` serves all queries, and given it they are independent:

    .. math:: \Pr[a] = \int p_{\hat T}(t)\prod_{i:\,a_i = \bot} F_\nu(t - f_i)
              \prod_{i:\,a_i = \top}\bigl(1 - F_\nu(t - f_i)\bigr)\,dt .

    Parameters
    ----------
    answers, threshold, epsilon, c, delta, threshold_scale, query_scale, refresh
        As in :func:`sample_sparse`; ``len(answers)`` at most 12 (the outputs are enumerated).

    Returns
    -------
    (outputs, log_probabilities) : tuple of numpy.ndarray
        ``outputs`` has one row per possible output in the encoding of :func:`sample_sparse`.

    Examples
    --------
    >>> outs, lp = sparse_output_log_probabilities([0.0, 3.0], 0.0, 1.0, 1)
    >>> outs.tolist(), bool(abs(np.exp(lp).sum() - 1) < 1e-9)
    ([[2], [0], [1]], True)
    """
    answers = _answers("answers", answers)
    if answers.size > 12:
        raise ValueError(f"answers must have at most 12 entries (outputs are enumerated), got {answers.size}")
    threshold = check_real("threshold", threshold)
    c = check_integer("c", c, low=1)
    delta = check_delta("delta", delta)
    b_t, b_q = _sparse_scales(epsilon, c, delta, threshold_scale, query_scale)
    outputs = _sparse_outputs(answers.size, c)
    lp = np.array([_sparse_log_probability(answers, threshold, b_t, b_q, row, bool(refresh)) for row in outputs])
    return outputs, lp


def sparse_max_log_ratio(answers, answers_prime, threshold, epsilon, c, *, delta=0.0, threshold_scale=None,
                         query_scale=None, refresh=True) -> float:
    r"""Largest :math:`|\log(\Pr[A = a]/\Pr[A' = a])|` over the outputs of Sparse.

    As :func:`max_log_ratio`, with the exact law of :func:`sparse_output_log_probabilities`.

    Parameters
    ----------
    answers, answers_prime : sequence of float
        The answers on :math:`D` and on :math:`D'`, of the same length (at most 12), each pair
        within 1.
    threshold, epsilon, c, delta, threshold_scale, query_scale, refresh
        As in :func:`sample_sparse`.

    Returns
    -------
    float
        The largest absolute log-ratio, ``>= 0``.

    Raises
    ------
    ValueError
        If the answers are malformed, of different lengths or more than 1 apart, or a
        parameter is out of range.

    Examples
    --------
    >>> r = sparse_max_log_ratio([0.0, 2.0], [1.0, 1.0], 0.0, 1.0, 2)
    >>> bool(0 < r <= 1.0)
    True
    """
    a, b = _neighbours(answers, answers_prime)
    kw = dict(delta=delta, threshold_scale=threshold_scale, query_scale=query_scale, refresh=refresh)
    la = sparse_output_log_probabilities(a, threshold, epsilon, c, **kw)[1]
    lb = sparse_output_log_probabilities(b, threshold, epsilon, c, **kw)[1]
    return float(np.max(np.abs(la - lb)))


# --------------------------------------------------------------------------- NumericSparse
def numeric_sparse_epsilons(epsilon, delta=0.0) -> tuple[float, float]:
    r"""The budget split :math:`(\varepsilon_1, \varepsilon_2)` of NumericSparse (:cite:`dwork2014algorithmic` Algorithm 3).

    :math:`\varepsilon_1 = 8\varepsilon/9` and :math:`\varepsilon_2 = 2\varepsilon/9` when
    ``delta == 0``; :math:`\varepsilon_1 = \sqrt{512}\,\varepsilon/(\sqrt{512}+1)` and
    :math:`\varepsilon_2 = 2\varepsilon/(\sqrt{512}+1)` otherwise. :math:`\varepsilon_1` runs
    Sparse; the released values get Laplace noise :math:`\sigma(\varepsilon_2)`, which costs
    :math:`\varepsilon_2/2` (Theorem 3.27).

    Parameters
    ----------
    epsilon : float
        The total budget, ``> 0``.
    delta : float
        In ``[0, 1)``.

    Returns
    -------
    epsilon_1, epsilon_2 : float
        The budgets of the comparisons and of the released values.

    Raises
    ------
    ValueError
        If ``epsilon <= 0`` or ``delta`` is outside ``[0, 1)``.

    Examples
    --------
    >>> e1, e2 = numeric_sparse_epsilons(0.9)
    >>> round(e1, 12), round(e2, 12)
    (0.8, 0.2)
    """
    epsilon = check_positive("epsilon", epsilon)
    delta = check_delta("delta", delta)
    root = 8.0 if delta == 0 else math.sqrt(512.0)
    return root * epsilon / (root + 1.0), 2.0 * epsilon / (root + 1.0)


def _numeric_sigma(epsilon, c, delta) -> float:
    """sigma of Algorithm 3: 2c/eps, or sqrt(32 c log(2/delta))/eps (Sparse at delta/2)."""
    return _sparse_sigma(epsilon, c, delta / 2.0)


def numeric_sparse(answers, threshold, epsilon, c, *, rng, delta=0.0) -> np.ndarray:
    r"""Run NumericSparse once (:cite:`dwork2014algorithmic` Algorithm 3, Theorem 3.27).

    Sparse with budget :math:`\varepsilon_1` (:func:`numeric_sparse_epsilons`; at
    :math:`\delta/2` when ``delta > 0``) finds the queries above the threshold; each is
    released as :math:`f_i(D) + \mathrm{Lap}(\sigma(\varepsilon_2))` with *fresh* noise, not
    the noisy answer that was compared with the threshold. The Sparse part is one run of
    :func:`_sparse_runs`; the ``c`` release noises are drawn after it, so on the same seed
    the tops are those of ``sparse(answers, threshold, eps1, c, delta=delta / 2)``.

    Parameters
    ----------
    answers, threshold, epsilon, c, rng, delta
        As in :func:`sparse`.

    Returns
    -------
    numpy.ndarray of float
        One entry per query asked: the released value for a :math:`\top`, ``nan`` for a
        :math:`\bot`.

    Raises
    ------
    ValueError
        If ``answers`` is not a non-empty 1-D sequence of finite numbers, or a parameter is out of range.

    Examples
    --------
    >>> out = numeric_sparse([50.0, -50.0, 80.0], 0.0, 1.0, 2, rng=np.random.default_rng(0))
    >>> np.isnan(out).tolist()
    [False, True, False]
    """
    answers = _answers("answers", answers)
    threshold = check_real("threshold", threshold)
    c = check_integer("c", c, low=1)
    rng = check_rng("rng", rng)
    delta = check_delta("delta", delta)
    eps1, eps2 = numeric_sparse_epsilons(epsilon, delta)
    sigma1 = _numeric_sigma(eps1, c, delta)
    tops = _sparse_runs(answers, threshold, sigma1, 2.0 * sigma1, c, 1, rng)[0]
    shape = _tops_to_answers(tops, answers.size, c)
    out = np.full(shape.size, np.nan)
    hits = np.flatnonzero(shape)
    out[hits] = answers[hits] + rng.laplace(0.0, _numeric_sigma(eps2, c, delta), c)[:hits.size]
    return out


def numeric_sparse_alpha(k, epsilon, beta, c, delta=0.0) -> float:
    r"""An :math:`\alpha` for which NumericSparse is :math:`(\alpha, \beta)`-accurate (Theorem 3.28).

    On ``k`` queries of which at most ``c`` are :math:`\ge T - \alpha`: give :math:`\beta/2`
    to the Sparse part (:func:`sparse_alpha` at :math:`\varepsilon_1`, and :math:`\delta/2`)
    and :math:`\beta/2` to the ``c`` released values (union bound over
    :math:`\Pr[|\mathrm{Lap}(\sigma_2)| \ge \alpha] = e^{-\alpha/\sigma_2}`:
    :math:`\alpha = \sigma_2\log(2c/\beta)`), and return the larger. For ``delta == 0`` the
    first is always the larger: :math:`9c(\log k + \log(4c/\beta))/\varepsilon`.

    Parameters
    ----------
    k : int
        Number of queries, ``>= 1``.
    epsilon : float
        The total budget, ``> 0``.
    beta : float
        Failure probability, in ``(0, 1)``.
    c : int
        Number of :math:`\top`, ``>= 1``.
    delta : float
        In ``[0, 1)``.

    Returns
    -------
    float
        :math:`\alpha`.

    Raises
    ------
    ValueError
        If a parameter is out of range.

    Examples
    --------
    >>> a = numeric_sparse_alpha(10, 1.0, 0.1, 2)
    >>> bool(abs(a - 18 * (math.log(10) + math.log(80))) < 1e-9)
    True
    """
    k = check_integer("k", k, low=1)
    beta = check_in_range("beta", beta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    c = check_integer("c", c, low=1)
    eps1, eps2 = numeric_sparse_epsilons(epsilon, delta)
    comparisons = sparse_alpha(k, eps1, beta / 2.0, c, delta / 2.0)
    values = _numeric_sigma(eps2, c, delta) * math.log(2.0 * c / beta)
    return max(comparisons, values)


def numeric_log_density(answers, threshold, value, *, threshold_scale, query_scale, value_scale=None) -> float:
    r"""Log-density of the output ":math:`\bot` for every answer but the last, then the last
    released as ``value``" of NumericSparse with :math:`c = 1`.

    With ``value_scale`` (Algorithm 3) the value is :math:`f_k + \mathrm{Lap}(\text{value\_scale})`,
    drawn fresh: the density is :math:`\Pr[\bot^{k-1}\top]` times the Laplace density of
    ``value - answers[-1]``. With ``value_scale=None`` the value released is the noisy answer
    :math:`f_k + \nu_k` that was compared with :math:`\hat T` (the flawed reuse): then
    :math:`\hat T \le` ``value`` and

    .. math:: p(\bot^{k-1}, v) = p_\nu(v - f_k)\int_{-\infty}^{v} p_{\hat T}(t)
              \prod_{i<k} F_\nu(t - f_i)\,dt .

    Parameters
    ----------
    answers : sequence of float
        The answers :math:`f_1, \dots, f_k`.
    threshold : float
        The threshold :math:`T`.
    value : float
        The released value :math:`v`.
    threshold_scale, query_scale : float
        Laplace scales of the threshold and query noise, ``> 0``.
    value_scale : float, optional
        Laplace scale of the fresh noise on the value, ``> 0``; ``None`` for the reuse.

    Returns
    -------
    float
        The natural log of the density.

    Raises
    ------
    ValueError
        If ``answers`` is not a non-empty 1-D sequence of finite numbers, or a parameter is out of range.

    Examples
    --------
    >>> fresh = numeric_log_density([0.0, 0.0], 0.0, 1.0, threshold_scale=2.0, query_scale=4.0, value_scale=9.0)
    >>> reused = numeric_log_density([0.0, 0.0], 0.0, 1.0, threshold_scale=2.0, query_scale=4.0)
    >>> bool(np.isfinite(fresh) and np.isfinite(reused))
    True
    """
    answers = _answers("answers", answers)
    threshold = check_real("threshold", threshold)
    value = check_real("value", value)
    b_t = check_positive("threshold_scale", threshold_scale)
    b_q = check_positive("query_scale", query_scale)
    if value_scale is None:                          # the released value is the compared one
        log_noise = -abs(value - answers[-1]) / b_q - math.log(2.0 * b_q)
        return log_noise + _pattern_log_probability(answers[:-1], [], threshold, b_t, b_q, upper=value)
    b_v = check_positive("value_scale", value_scale)
    log_noise = -abs(value - answers[-1]) / b_v - math.log(2.0 * b_v)
    return log_noise + _pattern_log_probability(answers[:-1], answers[-1:], threshold, b_t, b_q)
