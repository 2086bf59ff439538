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
import sys

import numpy as np
from scipy import integrate, optimize

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


def _scales(epsilon, threshold_scale, query_scale) -> tuple[float, float, float]:
    """The noise scales of the exact laws, 2/epsilon and 4/epsilon unless given: see :func:`_law_scales`."""
    return _law_scales(epsilon, [("threshold_scale", threshold_scale, 2.0), ("query_scale", query_scale, 4.0)])


def _law_scales(epsilon, scales) -> tuple[float, float, float]:
    """(b_t, b_q, unit) for an exact law: each ``(name, given, numerator)`` is the given scale or
    numerator/epsilon. A law is the same when every position and scale is multiplied by one number:
    where numerator/epsilon overflows (epsilon below about 2e-308) the positions are to be read in
    units of 2^64 (``unit`` = 2^-64, 1 otherwise), and so are the scales returned."""
    epsilon = check_positive("epsilon", epsilon)
    given = [None if g is None else check_positive(name, g) for name, g, _ in scales]
    overflow = any(g is None and numerator / epsilon == math.inf for g, (_, _, numerator) in zip(given, scales))
    unit = 2.0 ** -64 if overflow else 1.0
    out = [numerator * unit / epsilon if g is None else g * unit for g, (_, _, numerator) in zip(given, scales)]
    for value, g, (name, _, _) in zip(out, given, scales):
        if not value > 0:                   # a given scale below 2^64 * 5e-324 beside an overflowing one
            least = max(numerator for g2, (_, _, numerator) in zip(given, scales) if g2 is None) / sys.float_info.max
            raise ValueError(f"epsilon must be >= {least:.4g} when {name} = {g!r} is given: the scales then "
                             f"differ by more than the floats span, got {epsilon!r}")
    return out[0], out[1], unit


# a Laplace draw of numpy is at most 36.05 scales from its centre (53-bit uniforms): below this
# scale every draw is a float, above it some overflow to +-inf and comparisons of two such are wrong
_MAX_NOISE_SCALE = sys.float_info.max / 64.0        # 2.81e306


def _sampling_scales(epsilon, scales) -> tuple[float, ...]:
    """The noise scales of a sampler: each ``(name, given, numerator)`` is the given scale or
    numerator/epsilon, at most _MAX_NOISE_SCALE. A given one above is refused by its name; else
    epsilon below the least that keeps every derived scale there (the largest numerator over
    _MAX_NOISE_SCALE), stated in the message."""
    for name, given, _ in scales:
        if given is not None:
            given = check_positive(name, given)
            if given > _MAX_NOISE_SCALE:
                raise ValueError(f"{name} must be in (0, {_MAX_NOISE_SCALE:.3g}] to sample (where every "
                                 f"Laplace draw is a float), got {given!r}")
    derived = [(numerator, name) for name, given, numerator in scales if given is None]
    if derived:
        numerator, name = max(derived)
        if numerator / epsilon > _MAX_NOISE_SCALE:
            raise ValueError(f"epsilon must be >= {numerator / _MAX_NOISE_SCALE:.4g} to sample: the {name} "
                             f"{numerator:.6g}/epsilon must be at most {_MAX_NOISE_SCALE:.3g} (where every "
                             f"Laplace draw is a float), got {epsilon!r}")
    return tuple(float(given) if given is not None else numerator / epsilon for _, given, numerator in scales)


def _log_inverse(x) -> float:
    """log(1/x) for 0 < x <= 1, as -log(x): exact to an ulp everywhere, also where 1/x overflows
    (x = 5e-324: 744.44, not log(inf)) and near x = 1 (log of the rounded 1/x was 2.2e-16 at
    x = 1 - 2**-53, twice the true 1.1e-16: delta = 1 - 1e-12 moved sparse_alpha by 5.5e-5)."""
    return -math.log(x)


def _scaled_gap(x, y, scale) -> float:
    """(x - y) / scale, also where x - y overflows (x and y near the largest float, of opposite
    signs: 1e308 - (-1e308)) and the quotient need not: then 2 ((x/2 - y/2) / scale)."""
    gap = x - y
    if math.isfinite(gap):
        return gap / scale
    return 2.0 * ((x / 2.0 - y / 2.0) / scale)


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
        Privacy parameter, ``> 0``; the run is :math:`\varepsilon`-DP (Theorem 3.23). With the
        default scales at least ``1.42e-306`` (= 4/2.81e306: the query noise scale ``4/epsilon``
        is sampled only up to ``2.81e306``, where every Laplace draw is a float).
    rng : numpy.random.Generator
    threshold_scale, query_scale : float, optional
        As in :func:`sample_outputs` (default ``2/epsilon`` and ``4/epsilon``), in ``(0, 2.81e306]``.

    Returns
    -------
    numpy.ndarray of bool
        The answers given, ``True`` for :math:`\top`. It ends at the first ``True``
        (the algorithm halts there). If no query is above the noisy threshold the
        result is ``k`` times ``False``: the stream ended, no :math:`\top` was given.
        It is one run of :func:`_above_threshold_runs`, the core of :func:`sample_outputs`.

    Raises
    ------
    ValueError
        If ``answers`` is not a non-empty 1-D sequence of finite numbers, a parameter is out of
        range, or a noise scale exceeds ``2.81e306`` (``epsilon`` below ``1.42e-306`` with the
        default scales): a Laplace draw of larger scale may overflow to ``inf``, and two such
        draws no longer compare as the noise they stand for.

    Examples
    --------
    >>> above_threshold([-50.0, -50.0, 50.0, 0.0], 0.0, 1.0, rng=np.random.default_rng(1))
    array([False, False,  True])
    """
    answers = _answers("answers", answers)
    threshold = check_real("threshold", threshold)
    b_t, b_q = _sampling_scales(check_positive("epsilon", epsilon), [("threshold_scale", threshold_scale, 2.0),
                                                                   ("query_scale", query_scale, 4.0)])
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
        Number of independent runs, in ``[1, 10**7]`` (about 2 s per 10**7 runs on a short
        stream, and an output of that many integers).
    rng : numpy.random.Generator
    threshold_scale, query_scale : float, optional
        Laplace scales of the threshold and query noise, in ``(0, 2.81e306]``; default
        ``2/epsilon`` and ``4/epsilon`` (the algorithm as analysed). Other values serve to show
        what goes wrong with less noise, and to run other budget splits. The exact laws
        (:func:`output_log_probabilities`) take any positive scale.

    Returns
    -------
    numpy.ndarray of int
        The output of each run as the number ``o`` of :math:`\bot` it contains
        (``o < k``: halted at query ``o + 1``; ``o == k``: no :math:`\top`).

    Raises
    ------
    ValueError
        As :func:`above_threshold` (a noise scale above ``2.81e306``, ``epsilon`` below
        ``1.42e-306`` with the default scales, is refused), or ``size < 1``.

    Examples
    --------
    >>> o = sample_outputs([-50.0, 50.0], 0.0, 1.0, 5, rng=np.random.default_rng(0))
    >>> o.tolist()
    [1, 1, 1, 1, 1]
    """
    answers = _answers("answers", answers)
    threshold = check_real("threshold", threshold)
    b_t, b_q = _sampling_scales(check_positive("epsilon", epsilon), [("threshold_scale", threshold_scale, 2.0),
                                                                   ("query_scale", query_scale, 4.0)])
    size = check_integer("size", size, low=1, high=10**7)
    rng = check_rng("rng", rng)
    chunk = max(1, _CHUNK // answers.size)
    return np.concatenate([_above_threshold_runs(answers, threshold, b_t, b_q, min(chunk, size - start), rng)
                           for start in range(0, size, chunk)])


# --------------------------------------------------------------------------- exact law
_LOG2 = math.log(2.0)
_SATURATED = 40.0      # psi(x) = log(2 - e^-x) is log 2 to 2e-18 from x = 40 on
_NEGLIGIBLE = 55.0     # the integrand is integrated where it is above exp(-55) of its peak
_FINE = 1e3            # a piece is integrated from one end while (t - kink)/b_q stays below this
_QUAD_RTOL = 1e-12
_LOG_MAX = math.log(sys.float_info.max)


def _log_cdf(u, b) -> float:
    """log of the Laplace(0, b) CDF at the scalar u.

    Written out with :mod:`math` (not ``scipy.stats.laplace.logcdf``) because the
    integrals below evaluate it one point at a time and the scipy.stats call overhead
    would dominate; ``tests/test_svt.py`` compares it with ``scipy.stats.laplace.logcdf``.
    """
    return _log_std_cdf(u / b)


def _log_std_cdf(x) -> float:
    """log of the standard Laplace CDF at x, for every x in [-inf, inf]."""
    return x + _LOG_HALF if x < 0 else math.log1p(-0.5 * math.exp(-x))


def _dpsi(x0, x1) -> float:
    """psi(x1) - psi(x0) with psi(x) = log(2 - e^-x), for x0, x1 >= 0 (x1 clipped at 0): the
    change of log F(x) = log(1/2) + psi(x) on the bulk side x >= 0 of the standard Laplace CDF F.
    Written with e^-x, which never overflows there: x0 and x1 may be huge or infinite."""
    e0 = math.exp(-x0)
    e1 = math.exp(-x1) if x1 > 0 else 1.0
    return math.log1p((e0 - e1) / (2.0 - e0))


def _exp(x) -> float:
    """math.exp, inf past the largest float instead of OverflowError."""
    return math.exp(x) if x < _LOG_MAX else math.inf


def _log_int_exp(sign, log_rate, log_length) -> float:
    """log of the integral of exp(sign * r * u) over 0 < u < L, given log r (-inf: r = 0) and
    log L (inf: L = inf, only with sign < 0); neither r nor L need be representable."""
    if log_rate == -math.inf:
        return log_length
    log_rl = log_rate + log_length
    if log_rl < -40.0:                        # r L below 4e-18: the integrand is 1 to that
        return log_length
    rl = _exp(log_rl)
    if sign < 0:
        return math.log(-math.expm1(-rl)) - log_rate
    return rl + math.log(-math.expm1(-rl)) - log_rate


def _logsumexp(values) -> float:
    values = [v for v in values if v > -math.inf]
    if not values:
        return -math.inf
    top = max(values)
    return top + math.log(math.fsum(math.exp(v - top) for v in values))


def _log_part(x0s, cs, ns, drift, log_kappa, end, log_end) -> float:
    r"""log of :math:`\int_0^{end}\exp\bigl(d\,\kappa z + \sum_j n_j[\psi(x_{0j} + c_j z) - \psi(x_{0j})]\bigr)dz`,
    one part of a piece of the integrand of :class:`_Law`, in a scaled variable z in which the rate
    kappa (``log_kappa`` = log kappa, -inf for 0; d = ``drift``, -1: falling, +1: rising) and the
    rates c_j of the factors' arguments x are at most 1 in size. A factor changes only while its x
    is below 40 (its window): between windows the integrand is an exponential, integrated in
    closed form (``end`` may be infinite, or overflow: ``log_end`` is its log), and within them
    by quad, where the integrand (log-concave) is within exp(-55) of its largest value there."""
    kappa = drift * math.exp(log_kappa)
    act, windows, marks = [], [], []
    for x0, c, n in zip(x0s, cs, ns):
        if c > 0 and x0 < _SATURATED:                          # rises to saturation
            w = (0.0, (_SATURATED - x0) / c)
            marks += [(m - x0) / c for m in (1.0, 4.0) if m > x0]
        elif c < 0 and x0 + c * end < _SATURATED:              # falls towards its kink
            w = (max(0.0, (x0 - _SATURATED) / -c), x0 / -c)
            marks += [(x0 - m) / -c for m in (4.0, 1.0) if m < x0]
        else:
            continue
        act.append((x0, c, n))
        windows.append((w[0], min(w[1], end)))
    if not act:
        return _log_int_exp(drift, log_kappa, log_end)

    def h(z):
        if not z:
            return 0.0
        val = kappa * z
        for x0, c, n in act:
            val += n * _dpsi(x0, x0 + c * z)
        return val

    def dh(z):
        val = kappa
        for x0, c, n in act:
            x = x0 + c * z
            e = math.exp(-x) if x > 0 else 1.0
            val += n * c * e / (2.0 - e)
        return min(max(val, -1e300), 1e300)

    # the largest value over the windows (h is concave: dh decreases)
    top = min(end, max(w1 for _, w1 in windows))
    if dh(0.0) <= 0:
        zs = 0.0
    elif dh(top) >= 0:
        zs = top
    else:
        right = min(1.0, top)                                   # bracket the root within a factor 2
        if dh(right) > 0:
            while dh(right) > 0:
                right = min(2.0 * right, top)
        else:
            while right / 2.0 > 0 and dh(right / 2.0) <= 0:
                right /= 2.0
        left = right / 2.0
        zs = optimize.brentq(dh, left, right, xtol=1e-300, rtol=1e-10) if dh(left) > 0 else left

    def cut(m, floor, sign, room):
        """From m in direction sign (room to go): a point where h < floor, or the end of room."""
        if room <= 0:
            return m
        step = room if room < 1.0 else 1.0
        if h(m + sign * step) < floor:
            while m + sign * step / 2 != m and h(m + sign * step / 2) < floor:
                step /= 2
        else:
            while step < room and h(m + sign * step) >= floor:
                step *= 2
            step = min(step, room)
        return m + sign * step

    edges = sorted({0.0, end, *(p for w in windows for p in w if 0.0 < p < end)})
    segments = list(zip(edges[:-1], edges[1:]))
    windowed = [any(w0 < z1 and z0 < w1 for w0, w1 in windows) for z0, z1 in segments]
    parts = []
    for (z0, z1), win in zip(segments, windowed):
        if not win:             # no factor changes here: an exponential, read at an inner point
            p = z0 + min(1.0, (z1 - z0) / 2.0)
            log_length = log_end if (z1 == end and end == math.inf) else math.log(z1 - z0)
            parts.append(h(p) - kappa * (p - z0) + _log_int_exp(drift, log_kappa, log_length))
    for (z0, z1), win in zip(segments, windowed):
        if not win:
            continue
        m = min(max(zs, z0), z1)                       # the largest value on the segment (concave)
        hm = h(m)
        if parts and hm + math.log(z1 - z0) < max(parts) - _NEGLIGIBLE:
            continue                                   # far below the rest of the part
        a, b = cut(m, hm - _NEGLIGIBLE, -1.0, m - z0), cut(m, hm - _NEGLIGIBLE, 1.0, z1 - m)
        if not b > a:
            continue
        if b - a < 1e-6:                # a sliver between near-equal kinks: the midpoint rule
            parts.append(h(a + (b - a) / 2) + math.log(b - a))
            continue
        inner = []
        for p in sorted({*marks, m}):
            if a + 1e-6 < p < b - 1e-6 and (not inner or p > inner[-1] + 1e-6):
                inner.append(p)
        val, _ = integrate.quad(lambda z: math.exp(h(z) - hm), a, b, points=inner or None,
                                epsabs=0.0, epsrel=_QUAD_RTOL, limit=200)
        parts.append(hm + math.log(val) if val > 0 else -math.inf)
    return _logsumexp(parts)


class _Law:
    r"""The integrand :math:`f(t) = p(t)\prod_j F(s_j (t - v_j)/b_q)^{n_j}` over t < upper: p is the
    Laplace(threshold, b_t) density, F the standard Laplace CDF, s = +1 for an answer reported
    below and -1 for one reported above. f is log-concave and, between its kinks (the threshold,
    the answers and the upper limit), the exponential of a linear function times the factors
    on their bulk side, which change only within about 40 b_q of their kink.

    Every piece is integrated in coordinates relative to one of its ends, and the log values of
    the kinks relative to the largest are summed from piece to piece: nothing is evaluated at the
    scale of the absolute positions (a threshold at 1e300 keeps the shape of the integrand near
    it and near answers at 0), the rates 1/b_t and 1/b_q may overflow (scales of 5e-324), and the
    scales may differ by any factor."""

    def __init__(self, threshold, b_t, b_q, values, signs, upper=math.inf):
        self.T, self.b_t, self.b_q, self.upper = float(threshold), float(b_t), float(b_q), float(upper)
        self.log_bt, self.log_bq = math.log(self.b_t), math.log(self.b_q)
        counts = {}
        for v, s in zip(values, signs):
            counts[(float(v), int(s))] = counts.get((float(v), int(s)), 0) + 1
        self.factors = [(v, s, n) for (v, s), n in sorted(counts.items())]
        kinks = {self.T, *(v for v, _, _ in self.factors)}
        if self.upper < math.inf:
            kinks.add(self.upper)
        self.kinks = sorted(k for k in kinks if k <= self.upper)
        pieces = list(zip(self.kinks[:-1], self.kinks[1:]))
        self.slopes = [self._slope(a, b) for a, b in pieces]
        steps = [self._step(a, b, *s) for (a, b), s in zip(pieces, self.slopes)]
        # log f rises, then falls, along the kinks (log-concave): the largest is where it starts to fall
        self.top = next((i for i, d in enumerate(steps) if d < 0), len(self.kinks) - 1)
        rel = [0.0] * len(self.kinks)
        for i in range(self.top, len(self.kinks) - 1):
            rel[i + 1] = rel[i] + steps[i]
        for i in range(self.top - 1, -1, -1):
            rel[i] = rel[i + 1] - steps[i]
        self.rel = rel                         # log f(kink) - log f(top kink)

    def _slope(self, a, b):
        """The piece (a, b): its bulk factors, and the slope sigma of its linear part in t as
        (sigma, sign, log|sigma|); sign 0 when it is flat."""
        side = 1 if self.T <= a else -1
        bulk, tails = [], 0
        for v, s, n in self.factors:
            if (s > 0 and v <= a) or (s < 0 and v >= b):
                bulk.append((v, s, n))
            else:
                tails += s * n
        # sigma = tails/b_q - side/b_t = (tails b_t - side b_q)/(b_t b_q): flat exactly when tails b_t = side b_q
        if tails * self.b_t == side * self.b_q:
            return bulk, (0.0, 0, -math.inf)
        num = tails * self.b_t - side * self.b_q
        if math.isfinite(num) and abs(num) > 1e-290:
            sign, log_num = (1 if num > 0 else -1), math.log(abs(num))
        elif tails == 0:                                   # b_q subnormal (or b_t huge)
            sign, log_num = -side, self.log_bq
        else:                                              # one term dwarfs the other: by logs
            log_t = math.log(abs(tails)) + self.log_bt
            if log_t >= self.log_bq:
                rest = 1.0 - side * (self.b_q / self.b_t) / tails
                sign, log_num = (1 if tails > 0 else -1) * (1 if rest > 0 else -1), log_t + math.log(abs(rest))
            else:
                rest = 1.0 - tails * (self.b_t / self.b_q) / side
                sign, log_num = -side * (1 if rest > 0 else -1), self.log_bq + math.log(abs(rest))
        sigma = tails / self.b_q - side / self.b_t
        if not math.isfinite(sigma):
            sigma = sign * math.inf
        return bulk, (sigma, sign, log_num - self.log_bt - self.log_bq)

    def _step(self, a, b, bulk, slope) -> float:
        """log f(b) - log f(a) for consecutive kinks a < b."""
        sigma, sign, log_sigma = slope
        gap = b - a              # exact where finite (also between subnormals); it overflows for kinks
        if sign == 0:            # more than the largest float apart, where half of each is taken
            val = 0.0
        elif math.isfinite(sigma):
            val = sigma * gap if math.isfinite(gap) else 2.0 * (sigma * (b / 2.0 - a / 2.0))
        else:                                       # 1/b_t or 1/b_q overflows, not the product
            log_gap = math.log(gap) if math.isfinite(gap) else math.log(b / 2.0 - a / 2.0) + _LOG2
            val = sign * _exp(log_sigma + log_gap)
        for v, s, n in bulk:
            val += n * _dpsi(s * _scaled_gap(a, v, self.b_q), s * _scaled_gap(b, v, self.b_q))
        return val

    def _part(self, anchor, direction, length, bulk, slope) -> float:
        """log of the integral of f(t)/f(anchor) from the kink ``anchor`` over ``length`` in
        ``direction`` (+1: to the right), in the variable z = (t - anchor)/S, S the smaller of
        the exponential's scale 1/|sigma| and b_q."""
        sigma, sign, log_sigma = slope
        log_s = self.log_bq if sign == 0 else min(-log_sigma, self.log_bq)
        log_c = log_s - self.log_bq
        c = math.exp(log_c)
        x0s = [max(s * _scaled_gap(anchor, v, self.b_q), 0.0) for v, s, _ in bulk]
        cs = [direction * s * c for _, s, _ in bulk]
        ns = [n for _, _, n in bulk]
        log_end = math.log(length) - log_s
        end = _exp(log_end)
        log_kappa = -math.inf if sign == 0 else log_sigma + log_s     # <= 0
        return log_s + _log_part(x0s, cs, ns, direction * sign, log_kappa, end, log_end)

    def log_mass(self) -> float:
        """log of the integral of f(t)/f(top kink) over t < upper."""
        kinks, rel, parts = self.kinks, self.rel, []
        # the rays: the left one falls to the left of the first kink, the right one to the right of the last
        if rel[0] > -math.inf:
            parts.append(rel[0] + self._part(kinks[0], -1, math.inf, *self._slope(-math.inf, kinks[0])))
        if self.upper == math.inf and rel[-1] > -math.inf:
            parts.append(rel[-1] + self._part(kinks[-1], 1, math.inf, *self._slope(kinks[-1], math.inf)))
        for i, (bulk, slope) in enumerate(self.slopes):
            a, b, sign = kinks[i], kinks[i + 1], slope[1]
            length = b - a
            if length / self.b_q <= _FINE:      # short: from the end it falls from (the left one if flat)
                ends = [(i, 1, length)] if sign <= 0 else [(i + 1, -1, length)]
            else:                               # long: each half from its own end
                ends = [(i, 1, b / 2 - a / 2), (i + 1, -1, b / 2 - a / 2)]
            for j, direction, span in ends:
                if rel[j] > -math.inf:
                    parts.append(rel[j] + self._part(kinks[j], direction, span, bulk, slope))
        return _logsumexp(parts)

    def log_value(self, t) -> float:
        """log f(t), absolute."""
        val = -_LOG2 - self.log_bt - abs(_scaled_gap(t, self.T, self.b_t))
        for v, s, n in self.factors:
            val += n * _log_std_cdf(s * _scaled_gap(t, v, self.b_q))
        return val

    def log_integral(self) -> float:
        return self.log_value(self.kinks[self.top]) + self.log_mass()


def _pattern_law(below, above, threshold, b_t, b_q, upper) -> _Law:
    below, above = list(np.asarray(below, dtype=float)), list(np.asarray(above, dtype=float))
    return _Law(threshold, b_t, b_q, below + above, [1] * len(below) + [-1] * len(above), upper)


def _pattern_log_probability(below, above, threshold, b_t, b_q, upper=math.inf) -> float:
    """log of the integral over t < upper of p(t) prod_below F(t - f) prod_above (1 - F(t - f)),
    with p the Laplace(threshold, b_t) density and F the Laplace(0, b_q) CDF: the
    probability that one noisy threshold sends the answers ``below`` under it and the
    answers ``above`` over it (each with fresh query noise). At most 0 (a probability; the
    quadrature's 1e-12 may put it a hair above)."""
    return min(_pattern_law(below, above, threshold, b_t, b_q, upper).log_integral(), 0.0)


def _pattern_log_ratio(below, above, below2, above2, threshold, b_t, b_q, upper=math.inf):
    """log Pr[pattern on (below, above)] - log Pr[pattern on (below2, above2)], the answers of the
    two index by index within about 1 of each other (neighbouring data sets), as the triple
    (a, b, rest) of the ratio a/b_t + b/b_q + rest (:func:`_ratio_value`): a and b gather the
    terms that 1/b_t and 1/b_q can blow up, so that rounds of Sparse add up before dividing.

    Neither log-probability is formed: both may be -2.5e299 (a threshold at 1e300) while their
    difference is 0.25. Each law is read relative to a kink, the same kink on both (the
    threshold, the upper limit, or the same answer, moved), whose log-values on the two laws
    differ by terms computed from the answers' differences (:func:`_log_value_gap`); of these
    kinks the one nearest the largest value of both laws."""
    law1 = _pattern_law(below, above, threshold, b_t, b_q, upper)
    law2 = _pattern_law(below2, above2, threshold, b_t, b_q, upper)
    v1 = [float(x) for x in (*below, *above)]
    v2 = [float(x) for x in (*below2, *above2)]
    signs = [1] * len(below) + [-1] * len(above)
    rel1, rel2 = dict(zip(law1.kinks, law1.rel)), dict(zip(law2.kinks, law2.rel))
    pairs = {(law1.T, law1.T), (law1.upper, law1.upper), *zip(v1, v2)}
    finite = [(rel1[p] + rel2[q], p, q) for p, q in pairs
              if rel1.get(p, -math.inf) > -math.inf and rel2.get(q, -math.inf) > -math.inf]
    # else the two largest kinks (with b_q tiny, the largest answer of one law may be another
    # answer than on the other, and every kink -inf on one of them)
    _, p, q = max(finite) if finite else (0.0, law1.kinks[law1.top], law2.kinks[law2.top])
    a, b, rest = _log_value_gap(p, q, law1.T, v1, v2, signs, b_q)
    return a, b, rest + rel2[q] - rel1[p] + law1.log_mass() - law2.log_mass()


def _log_value_gap(p1, p2, threshold, v1, v2, signs, b_q):
    """log f1(p1) - log f2(p2) for the integrands of a pattern on answers v1 and v2, at points p1
    and p2 = p1 + shift, as (a, b, rest) with the value a/b_t + b/b_q + rest: every term is formed
    from differences of nearby numbers (the tails' (shift - (v2 - v1))/b_q, not the difference of
    two huge numbers), and the terms over b_t and over b_q are kept apart (either may overflow)."""
    shift = p2 - p1
    d1, d2 = p1 - threshold, p2 - threshold
    if (d1 >= 0 and d2 >= 0) or (d1 <= 0 and d2 <= 0):
        a = shift if (d1 > 0 or d2 > 0) else -shift
    else:
        a = -(abs(d1) - abs(d2))
    b, rest = [], []
    for x, y, s in zip(v1, v2, signs):
        x1, x2 = s * (p1 - x) / b_q, s * (p2 - y) / b_q
        if x1 <= 0 and x2 <= 0:                   # both in the exponential tail: x1 - x2
            b.append(-s * (shift - (y - x)))
        elif x1 >= 0 and x2 >= 0:
            rest.append(-_dpsi(x1, x2))
        elif x1 < 0:                              # x1 + log(1/2) - log F(x2)
            b.append(s * (p1 - x))
            rest.append(_LOG_HALF - _log_std_cdf(x2))
        else:                                     # log F(x1) - x2 - log(1/2)
            b.append(-s * (p2 - y))
            rest.append(_log_std_cdf(x1) - _LOG_HALF)
    return a, math.fsum(b), math.fsum(rest)


def _ratio_value(a, b, rest, b_t, b_q) -> float:
    """a/b_t + b/b_q + rest, without inf - inf when 1/b_t or 1/b_q overflows: the two quotients
    are added over the smaller scale (the result overflows to +-inf only when the sum does)."""
    if a == 0 or b == 0:
        lin = (a / b_t if a else 0.0) + (b / b_q if b else 0.0)
    elif b_q <= b_t:
        lin = (a * (b_q / b_t) + b) / b_q
    else:
        lin = (a + b * (b_t / b_q)) / b_t
    return lin + rest


def output_log_probabilities(answers, threshold, epsilon, *, threshold_scale=None, query_scale=None) -> np.ndarray:
    r"""Exact log-probabilities of the ``k + 1`` outputs of AboveThreshold.

    Given the noisy threshold :math:`\hat T = t`, the query noises are independent, so

    .. math:: \Pr[\bot^{o}\top] = \int p_{\hat T}(t)\,\prod_{i \le o} F_\nu(t - f_i)\,
              \bigl(1 - F_\nu(t - f_{o+1})\bigr)\,dt, \qquad
              \Pr[\bot^{k}] = \int p_{\hat T}(t)\,\prod_{i \le k} F_\nu(t - f_i)\,dt,

    with :math:`p_{\hat T}` the Laplace(``T``, ``2/epsilon``) density and :math:`F_\nu`
    the Laplace(0, ``4/epsilon``) CDF. Between its kinks (``T`` and the answers) the
    integrand is an exponential times the CDFs on their bulk side, which change only
    within about ``40 * query_scale`` of their kink: each piece is integrated from one
    of its ends, in closed form where no CDF changes and with :func:`scipy.integrate.quad`
    (relative tolerance ``1e-12``) where one does, and the pieces' values relative to each
    other are carried from kink to kink (:class:`_Law`). So every finite threshold and
    answers, and every pair of scales, from 5e-324 to the largest float, get their law:
    a threshold at ``1e300`` above answers at 0 gives log-probabilities near ``-1e300/b_q``
    (a float), a threshold scale of ``5e-324`` the law of a threshold without noise. This
    does not use the sampler, so it can check it (and the privacy theorem).

    Parameters
    ----------
    answers, threshold
        As in :func:`above_threshold`.
    epsilon : float
        ``> 0``, any float: it sets the scales not given, ``2/epsilon`` and ``4/epsilon``. The
        law is the same when the positions and the scales are multiplied by one number, so
        where ``4/epsilon`` overflows (``epsilon`` below ``2.2e-308``) all are read in units of
        ``2**64``.
    threshold_scale, query_scale : float, optional
        Laplace scales of the threshold and query noise, any positive float (unlike the
        samplers, which stop at ``2.81e306``).

    Returns
    -------
    numpy.ndarray
        ``k + 1`` natural-log probabilities (``<= 0``), indexed by the number ``o`` of
        :math:`\bot`; ``-inf`` for an output whose log-probability is below the
        most negative float.

    Raises
    ------
    ValueError
        If ``answers`` is not a non-empty 1-D sequence of finite numbers, or a parameter is
        out of range, or ``epsilon`` is below ``2.2e-308`` while a scale given is below
        ``2**64 * 5e-324`` (the two scales then differ by more than the floats span).

    Examples
    --------
    >>> p = np.exp(output_log_probabilities([0.0], 0.0, 1.0))
    >>> bool(abs(p.sum() - 1) < 1e-10), bool(abs(p[0] - 0.5) < 1e-10)
    (True, True)
    """
    answers = _answers("answers", answers)
    threshold = check_real("threshold", threshold)
    b_t, b_q, unit = _scales(epsilon, threshold_scale, query_scale)
    answers, threshold = answers * unit, threshold * unit       # unit 1 but for epsilon below 2e-308
    return np.array([_output_log_probability(answers, threshold, b_t, b_q, o) for o in range(answers.size + 1)])


def _output_log_probability(answers, threshold, b_t, b_q, o) -> float:
    """log Pr[output with o bottoms]; see :func:`output_log_probabilities`."""
    return _pattern_log_probability(answers[:o], answers[o:o + 1], threshold, b_t, b_q)


def max_log_ratio(answers, answers_prime, threshold, epsilon, *, threshold_scale=None, query_scale=None) -> float:
    r"""Largest :math:`|\log(\Pr[A = a]/\Pr[A' = a])|` over the outputs ``a`` of AboveThreshold.

    ``answers`` are the query answers on :math:`D`, ``answers_prime`` on a neighbour
    :math:`D'`; each pair differs by at most 1 (sensitivity-1 queries). The run on
    :math:`D` and :math:`D'` is :math:`\varepsilon`-DP on these queries exactly when
    the result is ``<= epsilon``.

    Each log-ratio is computed without forming the two log-probabilities, whose
    difference would lose it when they are large: with the threshold at ``1e300`` above
    answers at 0 both are near ``-1e300/b_q``, and their difference is the exact
    ``|f_i - f'_i|/b_q`` (:func:`_pattern_log_ratio`). It is ``inf`` when the difference
    overflows (``query_scale = 5e-324`` and an answer moved across a threshold without noise).

    Parameters
    ----------
    answers, answers_prime : sequence of float
        The answers on :math:`D` and on :math:`D'`, of the same length, each pair within 1.
    threshold, epsilon, threshold_scale, query_scale
        As in :func:`output_log_probabilities`.

    Returns
    -------
    float
        The largest absolute log-ratio, ``>= 0`` (``inf`` past the largest float). Accurate to
        about ``1e-15`` in absolute terms, the rounding of the log-probabilities it compares: a
        ratio far below that is not resolved to its relative digits (neighbours 1e-12 of a scale
        apart: a ratio of 4e-13, 1e-4 relative off; at ``epsilon = 1e-14`` the ratio of answers 0
        and 1 comes out 0.25 epsilon for about epsilon/6).

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
    threshold = check_real("threshold", threshold)
    b_t, b_q, unit = _scales(epsilon, threshold_scale, query_scale)
    a, b, threshold = a * unit, b * unit, threshold * unit     # unit 1 but for epsilon below 2e-308
    return max(abs(_ratio_value(*_pattern_log_ratio(a[:o], a[o:o + 1], b[:o], b[o:o + 1], threshold, b_t, b_q),
                                b_t, b_q)) for o in range(a.size + 1))


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
        Number of random starts (in ``[1, 10**4]``: each start is a search of up to
        ``maxfev`` evaluations, so the cap is already hours at the default ``maxfev``) and
        evaluations per start (``>= 1``).
    spread : float, optional
        Bound on the answers' distance from the threshold, ``> 0``; default ``8/epsilon``, which
        requires ``epsilon >= 4.45e-308``.
    threshold_scale, query_scale : float, optional
        As in :func:`output_log_probabilities`.

    Returns
    -------
    log_ratio : float
        The largest log-ratio found.
    answers, answers_prime : ndarray of shape (k,)
        The answers on :math:`D` and :math:`D'` that give it (threshold 0).

    Raises
    ------
    ValueError
        If a parameter is out of range, or ``epsilon`` is below ``4.45e-308`` and ``spread`` is
        not given (the default spread ``8/epsilon`` must be a float: the answers lie within it).

    Examples
    --------
    >>> r, a, b = search_worst_case(1, 1.0, rng=np.random.default_rng(0), n_starts=1, maxfev=40)
    >>> bool(r <= 1.0)
    True
    """
    k = check_integer("k", k, low=1, high=6)
    epsilon = check_positive("epsilon", epsilon)
    rng = check_rng("rng", rng)
    n_starts = check_integer("n_starts", n_starts, low=1, high=10**4)
    maxfev = check_integer("maxfev", maxfev, low=1)
    if spread is None:
        spread = 8.0 / epsilon
        if spread == math.inf:
            raise ValueError(f"epsilon must be >= {8.0 / sys.float_info.max:.4g} when spread is not given (the "
                             f"answers range over (-8/epsilon, 8/epsilon)), got {epsilon!r}")
    else:
        spread = check_positive("spread", spread)
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
        :math:`\alpha`; ``inf`` when it exceeds the largest float (``epsilon`` below about
        ``1e-306``), and :math:`\log(2/\beta)` is formed as :math:`\log 2 - \log\beta` where
        ``2/beta`` overflows (``beta = 5e-324``: 745.1, not ``inf``).

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
    return 8.0 * (math.log(k) + _log_quotient(2.0, beta)) / epsilon      # inf past the largest float


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
        Number of queries, in ``[1, 10**6]`` (the stream is an array of k floats, and the
        probability integrates over all of them: about a second at the cap).
    epsilon : float
        Privacy parameter, ``> 0``.
    alpha : float
        The accuracy, ``> 0``.
    threshold_scale, query_scale : float, optional
        As in :func:`output_log_probabilities`.

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
    k = check_integer("k", k, low=1, high=10**6)
    b_t, b_q, unit = _scales(epsilon, threshold_scale, query_scale)
    alpha = check_positive("alpha", alpha)
    log_success = _output_log_probability(_worst_instance(k, 0.0, alpha * unit), 0.0, b_t, b_q, k - 1)
    return float(max(-math.expm1(log_success), 0.0))       # quad may put the success at 1 + 2e-16


def simulate_accuracy_failure(k, epsilon, alpha, n_runs, *, rng) -> float:
    r"""Fraction of ``n_runs`` seeded runs on the stream of :func:`accuracy_failure_probability`
    that violate Definition 3.9 (checked by :func:`is_accurate`).

    Parameters
    ----------
    k : int
        Number of queries, in ``[1, 10**6]`` (a stream of k floats, run ``n_runs`` times).
    epsilon : float
        Privacy parameter, at least ``1.42e-306`` (as in :func:`above_threshold`: the query noise
        scale ``4/epsilon`` is sampled up to ``2.81e306``).
    alpha : float
        The accuracy, ``> 0``.
    n_runs : int
        Number of runs, in ``[1, 10**7]`` (about 2 s at the cap on a short stream).
    rng : numpy.random.Generator
        The source of the noise (through :func:`sample_outputs`).

    Returns
    -------
    float
        The fraction of failed runs.

    Raises
    ------
    ValueError
        If a parameter is out of range (``epsilon`` below ``1.42e-306`` included).

    Examples
    --------
    >>> simulate_accuracy_failure(10, 1.0, 200.0, 1000, rng=np.random.default_rng(0))
    0.0
    """
    k = check_integer("k", k, low=1, high=10**6)
    epsilon = check_positive("epsilon", epsilon)
    alpha = check_positive("alpha", alpha)
    n_runs = check_integer("n_runs", n_runs, low=1, high=10**7)
    rng = check_rng("rng", rng)
    answers = _worst_instance(k, 0.0, alpha)
    outputs = sample_outputs(answers, 0.0, epsilon, n_runs, rng=rng)
    return float(1.0 - is_accurate(answers, 0.0, alpha, outputs).mean())


# --------------------------------------------------------------------------- comparison
def advanced_per_query_epsilon(epsilon, k, delta_prime) -> float:
    r"""The per-query :math:`\varepsilon_0` whose ``k``-fold advanced composition costs ``epsilon``.

    Solves :math:`\varepsilon_0\sqrt{2k\log(1/\delta')} + k\varepsilon_0(e^{\varepsilon_0}-1) = \varepsilon`
    (the bound of :func:`dpnotes.composition.advanced`, :cite:`dwork2014algorithmic` Theorem 3.20)
    with :func:`scipy.optimize.brentq`; the left side increases in :math:`\varepsilon_0`. The
    bound is written here with :math:`-\log\delta'` (finite down to ``delta_prime = 5e-324``)
    and solved for :math:`\varepsilon_0/\varepsilon` when ``epsilon <= 1`` (a root near
    ``epsilon/sqrt(2k log(1/delta'))`` keeps its relative precision down to ``epsilon = 1e-300``),
    for :math:`\varepsilon_0` itself above, bracketed below ``log(1 + epsilon/k)`` (at ``epsilon =
    1e300``, :math:`e^{\varepsilon_0}` stays a float: ``e0 = 679.6`` for ``k = 100``).

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
        :math:`\varepsilon_0`, to a relative tolerance of a few machine epsilons; ``0.0`` when it
        is below the smallest float (``epsilon = 5e-324``: the root is ``5e-324/52.6`` for
        ``k = 100, delta' = 1e-6``).

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
    return _per_query_epsilon(epsilon, k, delta_prime)[0]


def _per_query_epsilon(epsilon, k, delta_prime) -> tuple[float, float]:
    """(e0, epsilon/e0) for :func:`advanced_per_query_epsilon`: the second is finite even when e0
    underflows, so that 1/e0 can be formed as (epsilon/e0)/epsilon (inf only past the largest float)."""
    s = math.sqrt(2.0 * k * -math.log(delta_prime))       # > 0: delta' < 1
    tol = 4 * np.finfo(float).eps                          # relative only: e0 may be 1e-302
    if epsilon <= 1.0:
        # u = e0/epsilon: u (s + k expm1(eps u)) = 1, so u <= 1/s and (expm1(x) >= x) u <= 1/sqrt(k eps)
        g = lambda u: u * (s + k * math.expm1(epsilon * u)) - 1.0  # noqa: E731
        hi = min(1.0 / s, 1.0 / math.sqrt(k * epsilon))
        lo = 1.0 / (s + k * math.expm1(epsilon * hi))
        u = _increasing_root(g, lo, hi, tol)
        return epsilon * u, 1.0 / u
    # e0 <= epsilon/s, and e0 <= log(1 + epsilon/k) once e0 >= 1: below 709, where e^e0 is a float
    f = lambda e0: e0 * (s + k * math.expm1(e0)) - epsilon  # noqa: E731
    hi = min(epsilon / s, max(1.0, math.log1p(epsilon / k)) * (1.0 + 1e-12), 709.0)
    lo = epsilon / (s + k * math.expm1(hi))
    e0 = _increasing_root(f, lo, hi, tol)
    return e0, epsilon / e0


def _increasing_root(f, lo: float, hi: float, tol: float) -> float:
    """The root of an increasing ``f`` in ``[lo, hi]``; an end where ``f`` already has the root's sign
    (rounding at the bracket's ends) is the root itself."""
    if f(hi) <= 0:
        return hi
    if f(lo) >= 0:
        return lo
    return optimize.brentq(f, lo, hi, xtol=1e-300, rtol=tol)


def _log_quotient(a, b) -> float:
    """log(a/b) for a >= 1 and 0 < b < 1 (every caller: a count over a failure probability), as
    log(a) - log(b): two non-negative terms, so exact to a few ulps, also where a/b overflows
    (b = 5e-324) and where a/b is near 1 (the log of the rounded quotient was 1.1e-4 off at
    a = 1, b = 1 - 1e-12)."""
    return math.log(a) - math.log(b)


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
    log_term = _log_quotient(k, beta)
    if method == "basic":
        return log_term * k / epsilon                    # log(k/beta) / (epsilon/k), inf past the floats
    if method == "advanced":
        if delta_prime is None:
            raise ValueError("delta_prime must be given for method='advanced', got None")
        delta_prime = check_in_range("delta_prime", delta_prime, 0.0, 1.0, low_inclusive=False,
                                     high_inclusive=False)
        eps0, ratio = _per_query_epsilon(epsilon, k, delta_prime)
        return log_term / eps0 if eps0 > 1e-290 else log_term * ratio / epsilon
    raise ValueError(f"method must be 'basic' or 'advanced', got {method!r}")


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


def _sigma_numerator(c, log_inverse_delta) -> float:
    """epsilon times the threshold noise scale of Sparse (Algorithm 2): 2c, or sqrt(32 c log(1/delta))
    (``log_inverse_delta`` None for delta = 0)."""
    return 2.0 * c if log_inverse_delta is None else math.sqrt(32.0 * c * log_inverse_delta)


def _sparse_scales(epsilon, c, delta, threshold_scale, query_scale, sampling=False) -> tuple[float, ...]:
    """Sparse's scales sigma and 2 sigma unless given: for a sampler (b_t, b_q), refused past
    _MAX_NOISE_SCALE; for an exact law (b_t, b_q, unit) as :func:`_law_scales`."""
    epsilon = check_positive("epsilon", epsilon)
    numerator = _sigma_numerator(c, None if delta == 0 else _log_inverse(delta))
    scales = [("threshold_scale", threshold_scale, numerator), ("query_scale", query_scale, 2.0 * numerator)]
    return _sampling_scales(epsilon, scales) if sampling else _law_scales(epsilon, scales)


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
        Privacy parameter, ``> 0``, and at least :math:`2\sigma\varepsilon/(2.81\cdot 10^{306})` (the
        query noise scale :math:`2\sigma` is sampled only up to ``2.81e306``, where every Laplace
        draw is a float): ``c * 1.42e-306`` for ``delta == 0``.
    c : int
        Number of :math:`\top` before halting, in ``[1, 10**6]`` (every output is padded to
        ``c`` positions: arrays of ``c`` integers per run).
    rng : numpy.random.Generator
        The source of the noise.
    delta : float
        In ``[0, 1)``; ``0`` for the pure-DP calibration. :math:`\log(1/\delta)` is taken as
        :math:`-\log\delta`: finite down to ``5e-324`` (744.4).

    Returns
    -------
    numpy.ndarray of bool
        The answers given (``True`` for :math:`\top`); shorter than the stream when
        the ``c``-th :math:`\top` came before its end, with fewer than ``c`` ``True``
        when the stream ended first.

    Raises
    ------
    ValueError
        If ``answers`` is not a non-empty 1-D sequence of finite numbers, a parameter is out of
        range, or ``epsilon`` is below the least one whose noise scales are at most ``2.81e306``
        (the message states it).

    Examples
    --------
    >>> sparse([50.0, -50.0, 50.0, 50.0], 0.0, 1.0, 2, rng=np.random.default_rng(0))
    array([ True, False,  True])
    """
    answers = _answers("answers", answers)
    threshold = check_real("threshold", threshold)
    c = check_integer("c", c, low=1, high=10**6)
    rng = check_rng("rng", rng)
    delta = check_delta("delta", delta)
    b_t, b_q = _sparse_scales(epsilon, c, delta, None, None, sampling=True)
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
        :math:`\alpha`; ``inf`` when it exceeds the largest float (``epsilon`` below about
        ``1e-306``: :math:`\varepsilon_0` would be 0), with :math:`\log(2c/\beta)` and
        :math:`\log(1/\delta)` formed from ``beta`` and ``delta`` where the quotients overflow
        (``beta`` or ``delta`` = ``5e-324``).

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
    return _sparse_alpha(k, epsilon, _log_quotient(2.0 * c, beta), c, None if delta == 0 else _log_inverse(delta))


def _sparse_alpha(k, epsilon, log_term, c, log_inverse_delta) -> float:
    """8 (log k + log(2c/beta)) / eps0 with eps0 = epsilon/c, or epsilon/sqrt(8 c log(1/delta)): the
    factor multiplies before epsilon divides (eps0 underflows at epsilon = 5e-324; alpha is then inf)."""
    factor = c if log_inverse_delta is None else math.sqrt(8.0 * c * log_inverse_delta)
    return 8.0 * (math.log(k) + log_term) * factor / epsilon


def sample_sparse(answers, threshold, epsilon, c, size, *, rng, delta=0.0, threshold_scale=None,
                  query_scale=None, refresh=True) -> np.ndarray:
    r"""Run Sparse ``size`` times on the same answers (vectorized, the core of :func:`sparse`).

    Parameters
    ----------
    answers, threshold, epsilon, c, delta
        As in :func:`sparse`.
    size : int
        Number of independent runs, in ``[1, 10**7]`` (a size-by-c output array).
    rng : numpy.random.Generator
    threshold_scale, query_scale : float, optional
        Laplace scales of the threshold and query noise, in ``(0, 2.81e306]`` (where every
        Laplace draw is a float); default :math:`\sigma` and :math:`2\sigma` of :func:`sparse`
        (``epsilon`` then as small as :func:`sparse` allows).
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

    Raises
    ------
    ValueError
        As :func:`sparse` (a noise scale above ``2.81e306`` is refused, naming ``epsilon`` or the
        scale given), or ``size < 1``.

    Examples
    --------
    >>> sample_sparse([50.0, -50.0, 50.0], 0.0, 1.0, 2, 3, rng=np.random.default_rng(0)).tolist()
    [[0, 2], [0, 2], [0, 2]]
    """
    answers = _answers("answers", answers)
    threshold = check_real("threshold", threshold)
    c = check_integer("c", c, low=1, high=10**6)
    size = check_integer("size", size, low=1, high=10**7)
    rng = check_rng("rng", rng)
    delta = check_delta("delta", delta)
    b_t, b_q = _sparse_scales(epsilon, c, delta, threshold_scale, query_scale, sampling=True)
    return _sparse_runs(answers, threshold, b_t, b_q, c, size, rng, refresh=bool(refresh))


def _sparse_outputs(k, c) -> np.ndarray:
    """Every output of Sparse on k queries as its top positions padded with k: j <= c tops
    (fewer than c only when the stream ended)."""
    rows = [list(t) + [k] * (c - len(t)) for j in range(min(c, k) + 1) for t in itertools.combinations(range(k), j)]
    return np.array(rows, dtype=np.int64).reshape(-1, c)


def _sparse_patterns(k, tops, refresh):
    """The output of Sparse with these top positions as patterns (indices reported below, indices
    reported above) of independent integrals: one per AboveThreshold round with ``refresh``, the
    last of which may meet the stream's end; a single one without."""
    hits = [int(t) for t in tops if t < k]
    asked = hits[-1] + 1 if len(hits) == len(tops) else k     # halted at the c-th top, or the end
    if not refresh:                                           # one threshold for every answer
        return [([i for i in range(asked) if i not in hits], hits)]
    rounds, first = [], 0                                     # independent AboveThreshold rounds
    for h in hits:
        rounds.append((list(range(first, h)), [h]))
        first = h + 1
    if first < asked:                                         # the last round met the stream's end
        rounds.append((list(range(first, asked)), []))
    return rounds


def _sparse_log_probability(answers, threshold, b_t, b_q, tops, refresh) -> float:
    total = 0.0                         # each term <= 0: a sum below the floats is -inf
    for lo, hi in _sparse_patterns(answers.size, tops, refresh):
        total += _pattern_log_probability(answers[lo], answers[hi], threshold, b_t, b_q)
    return total


def _sparse_log_ratio(a, b, threshold, b_t, b_q, tops, refresh) -> float:
    """log Pr[output on a] - log Pr[output on b], round by round (:func:`_pattern_log_ratio`): the
    rounds' terms over b_t and over b_q are added before dividing (each may overflow alone)."""
    parts = [_pattern_log_ratio(a[lo], a[hi], b[lo], b[hi], threshold, b_t, b_q)
             for lo, hi in _sparse_patterns(a.size, tops, refresh)]
    return _ratio_value(*(_add(p[i] for p in parts) for i in range(3)), b_t, b_q)


def _add(values) -> float:
    """Their sum: exactly rounded (math.fsum) unless a term is beyond 1e300, where fsum may raise
    on an intermediate overflow; there in floating point, overflowing to +-inf as the terms do."""
    values = list(values)
    if all(abs(v) < 1e300 for v in values):
        return math.fsum(values)
    return sum(values)


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
        As for :func:`output_log_probabilities`, ``epsilon`` may be any positive float and the
        scales any positive floats (the samplers stop where a noise scale exceeds ``2.81e306``).

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
    c = check_integer("c", c, low=1, high=10**6)
    delta = check_delta("delta", delta)
    b_t, b_q, unit = _sparse_scales(epsilon, c, delta, threshold_scale, query_scale)
    answers, threshold = answers * unit, threshold * unit       # unit 1 but for epsilon below 2e-308
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
        As in :func:`sparse_output_log_probabilities`.

    Returns
    -------
    float
        The largest absolute log-ratio, ``>= 0``; accurate to about ``1e-15`` in absolute
        terms, as :func:`max_log_ratio`.

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
    if a.size > 12:
        raise ValueError(f"answers must have at most 12 entries (outputs are enumerated), got {a.size}")
    threshold = check_real("threshold", threshold)
    c = check_integer("c", c, low=1, high=10**6)
    delta = check_delta("delta", delta)
    b_t, b_q, unit = _sparse_scales(epsilon, c, delta, threshold_scale, query_scale)
    a, b, threshold = a * unit, b * unit, threshold * unit     # unit 1 but for epsilon below 2e-308
    return max(abs(_sparse_log_ratio(a, b, threshold, b_t, b_q, row, bool(refresh)))
               for row in _sparse_outputs(a.size, c))


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


def _numeric_numerator(c, delta) -> float:
    """epsilon times sigma of Algorithm 3: 2c, or sqrt(32 c log(2/delta)) (Sparse at delta/2, with
    log(2/delta) formed from delta itself: delta/2 is 0 for delta = 5e-324, which is not delta = 0)."""
    return _sigma_numerator(c, None if delta == 0 else _log_inverse(delta / 2.0) if delta / 2.0 > 1e-300
                            else _LOG2 - math.log(delta))


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
    answers, threshold, c, rng, delta
        As in :func:`sparse`. With ``delta > 0`` the scales use :math:`\log(2/\delta)`, formed from
        ``delta`` itself (``delta/2`` is 0 for ``delta = 5e-324``, which is not the pure-DP case).
    epsilon : float
        The total budget, ``> 0``, and large enough that the release noise scale
        :math:`\sigma(\varepsilon_2)`, the largest, is at most ``2.81e306`` (where every Laplace
        draw is a float): ``epsilon >= 9c/2.81e306 = c * 3.2e-306`` for ``delta == 0``.

    Returns
    -------
    numpy.ndarray of float
        One entry per query asked: the released value for a :math:`\top`, ``nan`` for a
        :math:`\bot`.

    Raises
    ------
    ValueError
        If ``answers`` is not a non-empty 1-D sequence of finite numbers, a parameter is out of
        range, or ``epsilon`` is below the least one whose noise scales are at most ``2.81e306``
        (the message states it).

    Examples
    --------
    >>> out = numeric_sparse([50.0, -50.0, 80.0], 0.0, 1.0, 2, rng=np.random.default_rng(0))
    >>> np.isnan(out).tolist()
    [False, True, False]
    """
    answers = _answers("answers", answers)
    threshold = check_real("threshold", threshold)
    c = check_integer("c", c, low=1, high=10**6)
    rng = check_rng("rng", rng)
    delta = check_delta("delta", delta)
    eps1, eps2 = numeric_sparse_epsilons(epsilon, delta)
    root = 8.0 if delta == 0 else math.sqrt(512.0)
    numerator = _numeric_numerator(c, delta)
    # the largest noise, the release's sigma(eps2) = numerator (root + 1)/(2 epsilon), must be sampled
    _sampling_scales(epsilon, [("release noise scale sigma(epsilon_2) =", None, numerator * (root + 1.0) / 2.0)])
    sigma1 = numerator / eps1
    tops = _sparse_runs(answers, threshold, sigma1, 2.0 * sigma1, c, 1, rng)[0]
    shape = _tops_to_answers(tops, answers.size, c)
    out = np.full(shape.size, np.nan)
    hits = np.flatnonzero(shape)
    out[hits] = answers[hits] + rng.laplace(0.0, numerator / eps2, c)[:hits.size]
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
        :math:`\alpha`; ``inf`` when it exceeds the largest float (``epsilon`` below about
        ``1e-306``). :math:`\beta/2` and :math:`\delta/2` enter through their logs, formed from
        ``beta`` and ``delta`` where halving underflows (``delta = 5e-324`` halves to 0, which would
        be the pure-DP calibration).

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
    # Sparse at beta/2 and delta/2, with the logs formed from beta and delta where halving underflows
    half_beta, half_delta = beta / 2.0, delta / 2.0
    log_term = _log_quotient(2.0 * c, half_beta) if half_beta > 1e-300 else math.log(4.0 * c) - math.log(beta)
    log_inverse = None if delta == 0 else _log_inverse(half_delta) if half_delta > 1e-300 else _LOG2 - math.log(delta)
    comparisons = _sparse_alpha(k, eps1, log_term, c, log_inverse)
    # the released values: sigma(eps2) log(2c/beta), sigma(eps2) = numerator/eps2 = numerator (root + 1)/(2 eps)
    spread = _numeric_numerator(c, delta) * _log_quotient(2.0 * c, beta)
    root = 8.0 if delta == 0 else math.sqrt(512.0)
    values = spread / eps2 if eps2 > 1e-300 else spread * ((root + 1.0) / 2.0) / epsilon
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
    last = float(answers[-1])
    if value_scale is None:                          # the released value is the compared one
        log_noise = -abs(value - last) / b_q - _LOG2 - math.log(b_q)
        return log_noise + _pattern_log_probability(answers[:-1], [], threshold, b_t, b_q, upper=value)
    b_v = check_positive("value_scale", value_scale)
    log_noise = -abs(value - last) / b_v - _LOG2 - math.log(b_v)
    return log_noise + _pattern_log_probability(answers[:-1], answers[-1:], threshold, b_t, b_q)
