r"""Published mechanisms whose privacy claims are false, kept as test subjects for audits.

Nothing here should be used to protect data. Each function is a faithful, vectorized
implementation of an algorithm as it was published, so that :mod:`dpnotes.audit` can be
shown to catch it.

* :func:`sparse_vector_variant`: the six sparse-vector algorithms compared by Lyu, Su and
  Li (:cite:`lyu2017understanding`, their Figure 1, Algorithms 1--6). All six were
  published as :math:`\varepsilon`-DP; Algorithms 1 and 2 are, Algorithm 4 is only
  :math:`\tfrac{1+6c}{4}\varepsilon`-DP, and Algorithms 3, 5 and 6 are not
  :math:`\varepsilon'`-DP for any :math:`\varepsilon'` that does not grow with the number of
  queries.
* :func:`noisy_max`: report noisy max (:cite:`dwork2014algorithmic` §3.3) with Laplace or
  exponential noise of scale :math:`2/\varepsilon`, releasing the index of the largest
  noisy answer (:math:`\varepsilon`-DP) or its *value* (not :math:`\varepsilon`-DP), the
  four variants tested by Ding et al. (:cite:`ding2018detecting`, their Algorithms 5--8).
* :func:`laplace_with_rare_leak`: a Laplace mechanism that, on a rare event, releases the
  exact answer: it fails DP only with a small probability per run.

Laplace noise is drawn as the difference of two standard exponential draws times the scale
(the difference of two independent Exp(1) variables is Laplace(0, 1)): numpy's ziggurat
exponential sampler makes this about twice as fast as :meth:`numpy.random.Generator.laplace`,
which matters when an audit runs a mechanism a hundred million times.
"""

from __future__ import annotations

import math
import numbers
import reprlib
from functools import partial
from typing import NamedTuple

import numpy as np
from scipy import integrate, special, stats

from ._validate import MAX_ENTRIES, check_in_range, check_integer, check_positive, check_real, check_rng

_LOG2 = math.log(2.0)

# A Laplace or exponential draw of numpy's Generator is below 44.5 times its scale (the tail of
# its ziggurat sampler is r - log1p(-U) <= 7.7 + 53 log 2 = 44.44), so at a scale up to 1e306
# every draw is finite, and so is a finite answer plus it (up to |answer| = 1.3e308), IEEE-rounded.
# Beyond that scale (epsilon about 1e-306 and below), the mechanisms that only compare noisy
# values work in units of the noise scale; those that release a noisy value refuse the epsilon.
_MAX_NOISE_SCALE = 1e306

__all__ = [
    "laplace_noise",
    "LYU_ALGORITHMS",
    "lyu_noise_scales",
    "sparse_vector_variant",
    "lyu_privacy",
    "no_cutoff_pattern_log_probabilities",
    "noisy_max",
    "noisy_max_value_log_density",
    "noisy_max_value_epsilon",
    "laplace_with_rare_leak",
    "ReferenceCase",
    "dpsniper_cases",
]

#: Who published each algorithm of :cite:`lyu2017understanding` (as Lyu et al. attribute it)
#: and what it does differently from AboveThreshold.
LYU_ALGORITHMS = {
    1: "Lyu, Su and Li 2017: threshold noise Lap(2/eps), query noise Lap(4c/eps), stop after c tops",
    2: "Dwork and Roth 2014 (Sparse): threshold noise Lap(2c/eps) redrawn after each top, "
       "query noise Lap(4c/eps), stop after c tops",
    3: "Roth 2011 lecture notes: releases the noisy answer of each top; query noise Lap(2c/eps)",
    4: "Lee and Clifton 2014: threshold noise Lap(4/eps), query noise Lap(4/(3 eps)), not scaled with c",
    5: "Stoddard, Chen and Machanavajjhala 2014: no query noise, no cut-off",
    6: "Chen, Xiao, Zhang and Xu 2015: query noise Lap(2/eps), no cut-off",
}


def laplace_noise(scale, shape, rng) -> np.ndarray:
    r"""Laplace(0, ``scale``) noise as ``scale * S * E``: :math:`E \sim \mathrm{Exp}(1)` and an independent fair sign :math:`S`.

    A Laplace variable is an exponential one with a random sign. ``E`` is drawn first (all of
    it, :meth:`numpy.random.Generator.standard_exponential`), then one random byte per eight
    values (:meth:`numpy.random.Generator.bytes`), whose bits, most significant first
    (:func:`numpy.unpackbits`), are the signs (1: negative): a test can recompute the noise
    from the same seed. This costs one exponential and an eighth of a byte per value, a
    quarter less time than the difference of two exponentials, which matters where audits
    draw billions of values.

    Parameters
    ----------
    scale : float
        The Laplace scale :math:`b > 0`.
    shape : int or tuple of int
        Shape of the output (non-negative integers), of at most ``10**8`` entries (an array of
        floats: 800 MB at the cap).
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray of float, shape ``shape``
        Independent :math:`\mathrm{Lap}(0, b)` draws.

    Raises
    ------
    ValueError
        If ``scale`` is not a positive finite number, ``shape`` is not an integer in ``[0, 10**8]``
        (or a tuple of them with at most ``10**8`` entries) or ``rng`` is not a :class:`numpy.random.Generator`.

    Examples
    --------
    >>> z = laplace_noise(2.0, 200_000, np.random.default_rng(0))
    >>> bool(abs(np.mean(np.abs(z)) - 2.0) < 0.02)      # E|Lap(b)| = b
    True
    >>> bool(abs(np.mean(z > 0) - 0.5) < 0.005)          # symmetric
    True
    """
    scale = check_positive("scale", scale)
    rng = check_rng("rng", rng)
    e = np.asarray(rng.standard_exponential(_shape(shape)), dtype=float)
    n = e.size
    negative = np.unpackbits(np.frombuffer(rng.bytes(-(-n // 8)), dtype=np.uint8), count=n)
    bits = e.reshape(-1).view(np.uint64)
    bits ^= negative.astype(np.uint64) << np.uint64(63)      # flip the sign bit: -e, exactly
    e *= scale
    return e


def _shape(shape):
    """``shape`` if it is an integer in [0, 10**8] or a tuple of them with at most 10**8 entries
    in all (what numpy's samplers take)."""
    if type(shape) is int and 0 <= shape <= MAX_ENTRIES:  # the audits' hot path: two comparisons
        return shape
    if isinstance(shape, tuple):
        dims = tuple(check_integer("shape", s, low=0, high=MAX_ENTRIES) for s in shape)
        if math.prod(dims) > MAX_ENTRIES:
            raise ValueError(f"shape must have at most {MAX_ENTRIES} entries in all, got {dims}")
        return dims
    if isinstance(shape, list):                          # a list is a common slip for a tuple or for data
        raise ValueError(f"shape must be an integer in [0, {MAX_ENTRIES}] or a tuple of them, got {shape!r}")
    return check_integer("shape", shape, low=0, high=MAX_ENTRIES)


def _real_array(name: str, values, rule: str, *, kinds: str = "iuf") -> np.ndarray:
    """``values`` as a float array if every entry is a real number (not a bool, a string or None);
    otherwise a ValueError naming the parameter (numpy's conversion answers a string with "could
    not convert string to float", a ragged list with "setting an array element with a sequence")."""
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):
        arr = None
    if arr is not None and arr.dtype.kind == "O":
        if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in arr.ravel()):
            arr = arr.astype(float)
    if arr is None or arr.dtype.kind not in kinds:
        raise ValueError(f"{name} must be {rule}, got {reprlib.repr(values)}")
    return arr.astype(float)


def _answers(answers) -> np.ndarray:
    rule = "a non-empty 1-D sequence of finite numbers"
    arr = _real_array("answers", answers, rule)
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"answers must be {rule}, got {reprlib.repr(answers)}")
    return arr


def lyu_noise_scales(algorithm, epsilon, c=1) -> tuple[float, float]:
    r"""The Laplace scales (threshold, query) of Algorithm ``algorithm`` of :cite:`lyu2017understanding` (sensitivity 1).

    ====  =======================  ============================  ==========  ========
    alg.  threshold noise          query noise                   cut-off     claimed
    ====  =======================  ============================  ==========  ========
    1     :math:`2/\varepsilon`    :math:`4c/\varepsilon`        ``c`` tops  ε-DP
    2     :math:`2c/\varepsilon`   :math:`4c/\varepsilon`        ``c`` tops  ε-DP
    3     :math:`2/\varepsilon`    :math:`2c/\varepsilon`        ``c`` tops  ε-DP
    4     :math:`4/\varepsilon`    :math:`4/(3\varepsilon)`      ``c`` tops  ε-DP
    5     :math:`2/\varepsilon`    none (``0``)                  none        ε-DP
    6     :math:`2/\varepsilon`    :math:`2/\varepsilon`         none        ε-DP
    ====  =======================  ============================  ==========  ========

    Algorithm 2 redraws its threshold noise after every top; Algorithm 3 releases the noisy
    answer of every top instead of the symbol.

    Parameters
    ----------
    algorithm : int
        Which of Lyu et al.'s Algorithms 1 to 6.
    epsilon : float
        The claimed privacy parameter, ``> 0``.
    c : int, optional
        The cut-off (number of tops before the algorithm stops), ``>= 1``.

    Returns
    -------
    tuple of float
        ``(threshold scale, query scale)``; the query scale is ``0.0`` for Algorithm 5 (no noise).

    Raises
    ------
    ValueError
        If ``algorithm`` is not an integer in ``[1, 6]``, ``epsilon`` is not positive and finite,
        or ``c`` is not an integer ``>= 1``.

    Examples
    --------
    >>> lyu_noise_scales(4, 0.5)
    (8.0, 2.6666666666666665)
    """
    algorithm = check_integer("algorithm", algorithm, low=1, high=6)
    epsilon = check_positive("epsilon", epsilon)
    c = check_integer("c", c, low=1)
    return {
        1: (2.0 / epsilon, 4.0 * c / epsilon),
        2: (2.0 * c / epsilon, 4.0 * c / epsilon),
        3: (2.0 / epsilon, 2.0 * c / epsilon),
        4: (4.0 / epsilon, 4.0 / (3.0 * epsilon)),
        5: (2.0 / epsilon, 0.0),
        6: (2.0 / epsilon, 2.0 / epsilon),
    }[algorithm]


def sparse_vector_variant(answers, threshold, epsilon, size, *, rng, algorithm, c=1, method="direct") -> np.ndarray:
    r"""Run Algorithm ``algorithm`` of :cite:`lyu2017understanding` ``size`` times on the same query answers.

    Each run draws the threshold noise :math:`\rho`, then goes through the queries in order:
    query :math:`i` is *above* (:math:`\top`) when :math:`f_i + \nu_i \ge T + \rho`, with fresh
    query noise :math:`\nu_i` (scales in :func:`lyu_noise_scales`). Algorithms 1--4 stop after
    the ``c``-th :math:`\top` (Algorithm 2 redraws :math:`\rho` after each :math:`\top`);
    Algorithms 5 and 6 answer every query. Query noise is drawn only for the queries a run
    actually reaches, as the algorithms do.

    Parameters
    ----------
    answers : sequence of float
        The answers :math:`f_1(D), \dots, f_k(D)` of sensitivity-1 queries.
    threshold : float
        :math:`T`.
    epsilon : float
        The claimed privacy parameter, ``> 0``; for Algorithm 3, ``>= 2c * 1e-306`` (it releases
        noisy answers of scale :math:`2c/\varepsilon`, which must stay below ``1e306`` for
        every draw to be a finite float). The other algorithms release only patterns, which
        compare noisy values: for a noise scale above ``1e306`` they are drawn in units of
        :math:`1/\varepsilon` (answers and threshold times :math:`\varepsilon`), the same law.
    size : int
        Number of independent runs, in ``[1, 10**8]`` (arrays of that many draws are built:
        800 MB each at the cap).
    rng : numpy.random.Generator
    algorithm : int
        1 to 6.
    c : int
        The cut-off (number of tops before halting) of Algorithms 1--4, ``>= 1``.
    method : {"direct", "conditional"}
        ``"direct"`` (the default) draws the noise of every query a run reaches, as the
        algorithms do. ``"conditional"``, for ``c = 1`` and Algorithms 1, 2 and 4 only (whose
        output is then fixed by the position of the first :math:`\top`), draws
        :math:`\rho` and then that position from one uniform, by the inverse of its
        distribution given :math:`\rho`: the same law of outputs
        without drawing any query noise (twice as fast or more for ten queries:
        ``benchmarks/bench_audit.py`` measures both). The two methods give different outputs
        for one seed.

    Returns
    -------
    numpy.ndarray, shape (size, k)
        Algorithms 1, 2, 4, 5, 6: ``int8`` codes, ``1`` for :math:`\top`, ``0`` for
        :math:`\bot`, ``-1`` for a query not answered (after the halt). Algorithm 3:
        ``float``, the released noisy answer :math:`f_i + \nu_i` for :math:`\top`, ``-inf``
        for :math:`\bot`, ``nan`` for a query not answered.

    Raises
    ------
    ValueError
        If an argument is out of range (``epsilon < 2c * 1e-306`` for Algorithm 3), or ``method``
        is not ``"direct"`` or ``"conditional"``, or is ``"conditional"`` with ``c != 1`` or
        another algorithm than 1, 2 and 4.

    Examples
    --------
    >>> sparse_vector_variant([-500.0, 500.0, 500.0], 0.0, 1.0, 2, rng=np.random.default_rng(0), algorithm=1)
    array([[ 0,  1, -1],
           [ 0,  1, -1]], dtype=int8)
    >>> sparse_vector_variant([-500.0, 500.0], 0.0, 1.0, 1, rng=np.random.default_rng(0), algorithm=5)
    array([[0, 1]], dtype=int8)
    >>> sparse_vector_variant([-500.0, 500.0, 500.0], 0.0, 1.0, 2, rng=np.random.default_rng(0), algorithm=4,
    ...                       method="conditional")
    array([[ 0,  1, -1],
           [ 0,  1, -1]], dtype=int8)
    """
    answers = _answers(answers)
    threshold = check_real("threshold", threshold)
    algorithm = check_integer("algorithm", algorithm, low=1, high=6)
    b_rho, b_nu = lyu_noise_scales(algorithm, epsilon, c)
    epsilon = check_positive("epsilon", epsilon)
    c = check_integer("c", c, low=1)
    size = check_integer("size", size, low=1, high=MAX_ENTRIES)
    rng = check_rng("rng", rng)
    if max(b_rho, b_nu) > _MAX_NOISE_SCALE:
        if algorithm == 3:
            raise ValueError(f"epsilon must be >= {2 * c / _MAX_NOISE_SCALE!r} for algorithm 3 with c = {c} (it "
                             f"releases noisy answers, of scale 2c/epsilon, which must stay below "
                             f"{_MAX_NOISE_SCALE!r} to be finite floats), got {epsilon!r}")
        # A pattern only compares f_i + nu_i with T + rho: the same comparisons, multiplied by
        # epsilon > 0, with scales independent of epsilon (the scale 2/epsilon overflowed to inf at
        # epsilon = 5e-324 and laplace_noise refused it, naming 'scale')
        answers, threshold = answers * epsilon, threshold * epsilon
        b_rho, b_nu = lyu_noise_scales(algorithm, 1.0, c)
    k = answers.size
    if method not in ("direct", "conditional"):
        raise ValueError(f"method must be 'direct' or 'conditional', got {method!r}")
    if method == "conditional":
        _check_first_top("method 'conditional'", c, algorithm)
        return _pattern_table(k).take(_first_top_index(answers, threshold, b_rho, b_nu, size, rng), axis=0)
    rho = laplace_noise(b_rho, size, rng)
    if algorithm in (5, 6):                      # no cut-off: every query is answered
        noisy = answers if algorithm == 5 else answers + laplace_noise(b_nu, (size, k), rng)
        return (noisy >= threshold + rho[:, None]).astype(np.int8)
    release = algorithm == 3
    if c == 1:
        return _first_top(answers, threshold, rho, b_nu, rng, release)
    out = np.full((size, k), np.nan) if release else np.full((size, k), -1, dtype=np.int8)
    count = np.zeros(size, dtype=np.int64)
    active = np.arange(size)
    for i in range(k):
        if active.size == 0:
            break
        noisy = answers[i] + laplace_noise(b_nu, active.size, rng)
        above = noisy >= threshold + rho[active]
        if release:
            out[active, i] = np.where(above, noisy, -np.inf)
        else:
            out[active, i] = above
        hit = active[above]
        count[hit] += 1
        if algorithm == 2 and hit.size:          # a fresh threshold after every top
            rho[hit] = laplace_noise(b_rho, hit.size, rng)
        active = active[count[active] < c]
    return out


def _first_top(answers, threshold, rho, b_nu, rng, release):
    """Cut-off c = 1: record where each run stops, then write the patterns in one pass.

    Draws the same numbers in the same order as the general loop (the threshold noise, then
    for each query the noise of the runs still going, in run order), so both give identical
    outputs; this one avoids writing the pattern column by column."""
    size, k = rho.size, answers.size
    stop = np.full(size, k)                      # index of the top; k: none
    value = np.empty(size) if release else None
    idx, r = np.arange(size), threshold + rho    # the runs still going and their noisy thresholds
    for i in range(k):
        if idx.size == 0:
            break
        noisy = laplace_noise(b_nu, idx.size, rng)
        noisy += answers[i]
        # positions, then np.take: boolean-mask indexing costs several times more (it
        # branches on every element, and these masks are random)
        below = noisy < r
        going, top = np.flatnonzero(below), np.flatnonzero(~below)
        hit = idx.take(top)
        stop[hit] = i
        if release:
            value[hit] = noisy.take(top)
        idx, r = idx.take(going), r.take(going)
    # the pattern of a run is row `stop` of a table of the k + 1 possible patterns
    if release:
        col, row = np.arange(k)[None, :], np.arange(k + 1)[:, None]
        out = np.where(col < row, -np.inf, np.nan)[stop]
        top = np.flatnonzero(stop < k)
        out[top, stop[top]] = value[top]
        return out
    return _pattern_table(k)[stop]


def _pattern_table(k):
    """Row j < k: the codes of a run whose first top is query j (0 before it, 1 at it, -1 after);
    row k: no top (all 0). Shape (k + 1, k), int8."""
    col, row = np.arange(k)[None, :], np.arange(k + 1)[:, None]
    return (col == row).view(np.int8) - (col > row).view(np.int8)


_SUB = 8192         # runs per block of _first_top_index: its work arrays (64 KB each) stay in the
                    # cache (on the build machine 8192 to 12288 ran about 1.5 times as fast as 32768)


def _check_first_top(what, c, algorithm):
    """The one check of every caller of :func:`_first_top_index`: it draws the position of a single
    top, so it needs ``c = 1`` and an algorithm whose release is the pattern of tops with a cut-off
    (1, 2 and 4; Algorithm 3 releases noisy values, 5 and 6 answer every query)."""
    if c != 1 or algorithm not in (1, 2, 4):
        raise ValueError(f"{what} needs c = 1 and algorithm 1, 2 or 4, got c={c}, algorithm={algorithm}")


def _first_top_index(answers, threshold, b_rho, b_nu, size, rng):
    r"""Position of the first top of AboveThreshold with cut-off 1, drawn without query noise.

    A run draws :math:`\rho \sim \mathrm{Lap}(b_\rho)` and stops at the first query with
    :math:`f_i + \nu_i \ge T + \rho`, :math:`\nu_i \sim \mathrm{Lap}(b_\nu)` independent.
    Given :math:`\rho` the queries are independent, query :math:`i` is a :math:`\bot` with
    probability :math:`F_i = F_\nu(T + \rho - f_i)` (:math:`F_\nu` the Laplace distribution
    function), and the first top :math:`J` has
    :math:`\Pr[J > j \mid \rho] = S_j = \prod_{i \le j} F_i` (no top among the first
    :math:`j + 1`). With :math:`V` uniform on :math:`[0, 1)` independent of :math:`\rho`,
    :math:`J = \#\{j < k : S_j > V\}` therefore has this conditional law (``J = k``: no top),
    since :math:`\Pr[\#\{\ldots\} > j] = \Pr[V < S_j] = S_j` for the decreasing
    :math:`S_j`. That is the inverse of :math:`J`'s conditional distribution function applied
    to one uniform, so :math:`J` has exactly the law of the algorithm's first top
    (Lyu et al.'s Algorithms 1, 2 and 4 with ``c = 1``, :cite:`lyu2017understanding`; the
    law is :func:`dpnotes.svt.output_log_probabilities`).

    :math:`\rho` is drawn by the inverse of the Laplace distribution function,
    :math:`\rho = b_\rho\,\mathrm{sign}(W - \tfrac12)\,(-\ln(1 - 2|W - \tfrac12|))` with
    :math:`W` uniform (every step exact in floating point but the logarithm; :math:`W = 0`,
    of probability :math:`2^{-53}`, gives :math:`\rho = -\infty` and so :math:`J = 0`). With
    :math:`t = \rho / b_\nu` and :math:`s = (f - T) / b_\nu`, the Laplace distribution function
    is :math:`F_\nu(T + \rho - f) = F(t - s)`, :math:`F(u) = \tfrac12 e^{u}` for :math:`u < 0` and
    :math:`1 - \tfrac12 e^{-u}` otherwise, which is also
    :math:`F(u) = \min(\tfrac12 e^{u}, \max(1 - \tfrac12 e^{-u}, \tfrac12))` (for :math:`u < 0`
    the second term is :math:`\tfrac12`; for :math:`u \ge 0` it is the smaller, as
    :math:`e^u + e^{-u} \ge 2`). So one exponential :math:`e^{t}` and its reciprocal per run
    give every distinct answer's :math:`F` by products with the constants
    :math:`\tfrac12 e^{\mp s}`, to within a few units of :math:`2^{-53}` (only absolute errors
    matter, since :math:`\Pr[S_j > V]` moves by the absolute error of :math:`S_j`). That holds
    for every :math:`t` while :math:`|s| \le 670`: where :math:`e^{t}` overflows or underflows
    (:math:`|t| > 708`), :math:`|t - s| > 38` and the :math:`F` computed, 0 or 1, is within
    :math:`\tfrac12 e^{-38} < 2^{-55}` of the true one. For an answer farther from the
    threshold each :math:`F` takes its own exponential instead, as
    :math:`\tfrac12 + \mathrm{sign}(u)(\tfrac12 - \tfrac12 e^{-|u|})`.
    No query noise is drawn: a run costs two uniforms, one logarithm, one exponential and a
    division, a few products per distinct answer and a product and a comparison per query,
    where the algorithm itself draws a Laplace variable per query it reaches. Written with
    numpy by hand (scipy.stats' Laplace functions would allocate per call and be several
    times slower on the audit's hot path); the tests compare each run with scipy's Laplace
    functions from the same seed, and the law with the exact one and with the direct sampler.

    Takes checked arguments (``answers`` a non-empty float array, the scales ``> 0``) and
    returns ``size`` positions, int8 when ``k <= 127``: ``j < k`` the (0-based) query of the
    first top, ``k`` none.
    """
    values, group = np.unique(answers, return_inverse=True)
    shift = (values - threshold) / b_nu           # F_nu(T + rho - f) = F(rho / b_nu - shift)
    ratio = b_rho / b_nu
    one_exp = float(np.max(np.abs(shift))) <= 670.0    # e^{-+s}/2 finite, and F within 2**-55 (above)
    if one_exp:
        below = (0.5 * np.exp(-shift))[:, None]   # F(t - s) for t < s: e^t times this
        above = (-0.5 * np.exp(shift))[:, None]   # F(t - s) - 1 for t >= s: e^-t times this
    out = np.empty(size, dtype=np.int8 if answers.size <= np.iinfo(np.int8).max else np.int64)   # holds 0..k
    # work arrays, reused by every block
    block = min(_SUB, size)
    bottom, spare = np.empty((values.size, block)), np.empty((values.size, block))
    s, e, hit = np.empty(block), np.empty(block), np.empty(block, dtype=bool)
    step = hit.view(np.int8)                      # adds 0 or 1 (to int64 positions too)
    for start in range(0, size, _SUB):
        n = min(_SUB, size - start)
        w, v = rng.random((2, n))
        # rho / b_nu by the Laplace inverse distribution function: s = W - 1/2 gives the sign,
        # 1 - 2|s| a uniform on [0, 1] (exact: W is a multiple of 2**-53), -log of it Exp(1)
        w -= 0.5
        t = np.abs(w)
        t *= -2.0
        np.log1p(t, out=t)                         # log(1 - 2|s|) = -E
        np.copysign(t, w, out=t)                   # +-E, the sign of s
        t *= ratio                                 # t = rho / b_nu
        # every distinct answer at once (one row each): few numpy calls, whose overhead
        # would otherwise cost as much as the arithmetic on blocks of this size
        f, g = bottom[:, :n], spare[:, :n]
        if one_exp:
            np.exp(t, out=e[:n])
            np.multiply(e[:n], below, out=f)       # e^{t - s} / 2
            np.divide(1.0, e[:n], out=e[:n])
            np.multiply(e[:n], above, out=g)
            g += 1.0                               # 1 - e^{s - t} / 2
            np.maximum(g, 0.5, out=g)
            np.minimum(f, g, out=f)                # F(t - s)
        else:
            np.subtract(t, shift[:, None], out=g)  # u = t - s
            np.abs(g, out=f)
            np.subtract(-_LOG2, f, out=f)
            np.exp(f, out=f)                       # h = e^{-|u|} / 2
            np.subtract(0.5, f, out=f)
            np.copysign(f, g, out=f)               # 1/2 - h for u >= 0, h - 1/2 for u < 0
            f += 0.5                               # F: 1 - h, or h
        j, sj, hj = out[start:start + n], s[:n], hit[:n]
        np.copyto(sj, f[group[0]])                 # S_0
        np.greater(sj, v, out=hj)
        np.copyto(j, hj)
        for i in range(1, answers.size):
            np.multiply(sj, f[group[i]], out=sj)   # S_i
            np.greater(sj, v, out=hj)
            np.add(j, step[:n], out=j)
    return out


def lyu_privacy(algorithm, epsilon, c=1) -> float:
    r"""The privacy parameter Algorithm ``algorithm`` actually has, for any number of queries.

    By :cite:`lyu2017understanding` (their Section 4 and Figure 1): Algorithms 1 and 2 are
    :math:`\varepsilon`-DP; Algorithm 4 is :math:`\tfrac{1+6c}{4}\varepsilon`-DP (threshold
    noise costs :math:`\varepsilon/4`, each of the ``c`` tops up to :math:`2 \cdot 3\varepsilon/4`);
    Algorithms 3, 5 and 6 are not :math:`\varepsilon'`-DP for any finite :math:`\varepsilon'`
    that holds for every number of queries (``inf``). For a fixed, finite number of
    queries Algorithms 3 and 6 have a finite privacy loss, growing with the number of
    queries; Algorithm 5 is not private even for two queries.

    Parameters
    ----------
    algorithm : int
        Which of Lyu et al.'s Algorithms 1 to 6.
    epsilon : float
        The claimed privacy parameter, ``> 0``.
    c : int, optional
        The cut-off, ``>= 1``.

    Returns
    -------
    float
        The privacy parameter that holds for every number of queries (``inf`` for Algorithms
        3, 5 and 6).

    Raises
    ------
    ValueError
        If ``algorithm`` is not an integer in ``[1, 6]``, ``epsilon`` is not positive and finite,
        or ``c`` is not an integer ``>= 1``.

    Examples
    --------
    >>> lyu_privacy(4, 0.1, c=1)
    0.175
    >>> lyu_privacy(5, 0.1)
    inf
    """
    algorithm = check_integer("algorithm", algorithm, low=1, high=6)
    epsilon = check_positive("epsilon", epsilon)
    c = check_integer("c", c, low=1)
    if algorithm in (1, 2):
        return epsilon
    if algorithm == 4:
        # 15 significant digits (0.175, not 0.17500000000000002); 15 decimals made every epsilon
        # below 5e-16 a privacy parameter of 0.0 (round(7/4 * 5e-324, 15) = 0.0)
        return float(f"{(1 + 6 * c) / 4 * epsilon:.15g}")
    return math.inf


def no_cutoff_pattern_log_probabilities(answers, threshold, epsilon, patterns, *, algorithm) -> np.ndarray:
    r"""Exact log-probabilities of answer patterns of Algorithms 5 and 6 (no cut-off).

    Given :math:`u = T + \rho`, the answers are independent:
    :math:`\Pr[a \mid u] = \prod_i \Pr[f_i + \nu_i \ge u]^{a_i}\,\Pr[f_i + \nu_i < u]^{1 - a_i}`,
    so :math:`\Pr[a] = \int p_\rho(u - T)\,\Pr[a \mid u]\,du`, computed with
    :func:`scipy.integrate.quad` on the pieces between the kinks :math:`u = f_i` (relative
    tolerance ``1e-10``). For Algorithm 5 (:math:`\nu_i = 0`) the conditional probability is 0
    or 1, and the integral is a Laplace probability of an interval of :math:`\rho`.

    Everything is computed in units of the noise scale :math:`2/\varepsilon`, with the answers'
    offsets :math:`g_i = (f_i - T)\varepsilon/2`; Algorithm 5's mass in closed form in logs (no
    cancellation), Algorithm 6's integral divided by its largest value at the kinks, so that a
    log-probability below the float range of probabilities (``-1000``, say) is still returned.

    Parameters
    ----------
    answers, threshold, epsilon
        As in :func:`sparse_vector_variant` (``epsilon`` any finite float ``> 0``). For
        Algorithm 6 every pattern's log-probability must be at least ``-1e4``: this holds when
        :math:`\sum_i |f_i - T|\,\varepsilon/2 \le 9000`, and fails at ``threshold = 1e300`` or
        ``epsilon = 1e300`` for most answers.
    patterns : array_like of {0, 1}, shape (m, k)
        Patterns (``1`` for :math:`\top`).
    algorithm : {5, 6}

    Returns
    -------
    numpy.ndarray, shape (m,)
        Natural logs (``-inf`` for an impossible pattern).

    Raises
    ------
    ValueError
        If an argument is out of range, or (Algorithm 6) a pattern's log-probability is below
        ``-1e4`` (``threshold`` or ``epsilon`` too large for the answers, see above).

    Examples
    --------
    >>> lp = no_cutoff_pattern_log_probabilities([0.0, 1.0], 0.0, 1.0, [[1, 0]], algorithm=5)
    >>> bool(np.isneginf(lp[0]))          # f_2 > f_1: the second is above whenever the first is
    True
    """
    answers = _answers(answers)
    threshold = check_real("threshold", threshold)
    algorithm = check_integer("algorithm", algorithm, low=5, high=6)
    lyu_noise_scales(algorithm, epsilon)              # validates epsilon, by name
    epsilon = float(epsilon)
    pats = np.atleast_2d(_real_array("patterns", patterns, f"0/1 rows of length {answers.size}", kinds="biuf"))
    if pats.shape[1] != answers.size or not np.isin(pats, (0, 1)).all():
        raise ValueError(f"patterns must be 0/1 rows of length {answers.size}, got shape {pats.shape}")
    # Everything in units of the noise scale 2/epsilon (both noises have it): g_i = (f_i - T) epsilon / 2.
    # scipy's laws of scale 2/epsilon gave -inf (an impossible pattern) for every pattern at
    # epsilon = 5e-324 and for Algorithm 6 at 1e300, and quad warned at 1e-300
    g = _units(answers - threshold, answers, threshold, epsilon / 2.0)
    out = np.empty(pats.shape[0])
    for r, a in enumerate(pats.astype(bool)):
        if algorithm == 5:
            # a_i = 1 iff f_i >= u = T + rho: rho must lie in (max g over bottoms, min g over tops]
            # (in units), a Laplace mass in closed form, in logs
            # (possible iff the answers allow it: their units may round together at a subnormal epsilon)
            ilo = int(np.flatnonzero(~a)[np.argmax(answers[~a])]) if (~a).any() else None
            ihi = int(np.flatnonzero(a)[np.argmin(answers[a])]) if a.any() else None
            if ilo is not None and ihi is not None and not answers[ihi] > answers[ilo]:
                out[r] = -math.inf
                continue
            lo = -math.inf if ilo is None else float(g[ilo])
            hi = math.inf if ihi is None else float(g[ihi])
            if ilo is None or ihi is None:
                width, log_width = math.inf, math.inf
            else:
                gap = answers[ihi] - answers[ilo]
                width = float(_units(gap, answers[ihi], answers[ilo], epsilon / 2.0))
                log_width = (math.log(gap) if math.isfinite(gap) else math.log(answers[ihi] / 2 - answers[ilo] / 2)
                             + _LOG2) + math.log(epsilon) - _LOG2
            out[r] = _laplace_log_mass(lo, hi, width, log_width)
            continue
        out[r] = _no_cutoff_log_probability(g, a, threshold, epsilon)
    return out


def _units(diff, x, y, factor):
    """``diff * factor`` with ``diff = x - y`` (numbers or arrays), the halves where ``diff`` overflowed."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        return np.where(np.isfinite(diff), diff * factor, (np.asarray(x) / 2.0 - np.asarray(y) / 2.0) * (2.0 * factor))


def _laplace_log_mass(lo: float, hi: float, width: float, log_width: float) -> float:
    """``log(F(hi) - F(lo))`` for the standard Laplace law, ``lo < hi`` (either infinite), with
    ``width = hi - lo`` and its log formed by the caller: no cancellation when both lie in one tail,
    and ``log(1 - e^{-width})`` from ``log width`` where the width is tiny (a subnormal one has lost
    its digits)."""
    if lo < 0.0 < hi:               # 1 - e^{-hi}/2 - e^{lo}/2, as two positive terms
        if width < 1e-100:          # the density is 1/2 at 0, to within the width
            return log_width - _LOG2
        return math.log(-0.5 * (math.expm1(-hi) + math.expm1(lo)))
    log_gap = log_width if width < 1e-100 else math.log(-math.expm1(-width))    # log(1 - e^{-width})
    if hi <= 0.0:                   # F = e^z / 2 on both ends
        return -_LOG2 + hi + log_gap
    return -_LOG2 - lo + log_gap    # lo >= 0: 1 - F = e^{-z} / 2 on both ends


# the parts of the real line beyond this distance from a breakpoint, on a piece between two, are
# split off: the log-integrand is a linear function plus terms within [-k log 2, 0] there, its
# slope an integer, so the mass of a long piece lies within W of an end (or is spread evenly)
_NO_CUTOFF_W = 800.0
# the smallest log-probability of Algorithm 6's patterns computed: below, the log-integrand's
# rounding (1e-16 of its size) would exceed the quadrature's tolerance
_NO_CUTOFF_MIN_LOG = -1e4


def _no_cutoff_log_probability(g, top, threshold, epsilon) -> float:
    r"""log Pr[pattern] for Algorithm 6 (equal noise scales), in units of the noise scale:
    :math:`\int \tfrac12 e^{-|s|} \prod_{top} S(s - g_i) \prod_{bottom} F(s - g_i)\,ds`, divided by the
    integrand's largest value at the breakpoints (0 and the :math:`g_i`; within ``k log 2`` of its
    maximum) so that a probability below the float range keeps its log, by
    :func:`scipy.integrate.quad` between the breakpoints (relative tolerance ``1e-10``). Refuses a
    pattern whose log-probability is below ``-1e4`` (answers too far from the threshold)."""
    def log_integrand(s):
        u = s - g
        tail = np.log1p(-0.5 * np.exp(-np.abs(u)))
        log_top = np.where(u < 0, tail, -u - _LOG2)           # log S(u)
        log_bot = np.where(u > 0, tail, u - _LOG2)            # log F(u)
        return -abs(s) - _LOG2 + float(np.sum(np.where(top, log_top, log_bot)))

    pts = np.unique(np.r_[0.0, g])
    scale = max(log_integrand(t) for t in pts)
    if scale < _NO_CUTOFF_MIN_LOG:
        raise ValueError(
            f"threshold = {threshold!r} and epsilon = {epsilon!r} put the answers too far from the threshold in "
            f"units of the noise scale 2/epsilon: a pattern's log-probability is about {scale:.4g}, below -1e4, "
            f"where this quadrature cannot resolve it (for Algorithm 6 every pattern's log-probability must be "
            f">= -1e4; sum |answer - threshold| * epsilon / 2 <= 9000 suffices)")
    edges = [-math.inf]
    for t in pts.tolist():
        if edges[-1] != -math.inf and t - edges[-1] > 2 * _NO_CUTOFF_W:
            edges += [edges[-1] + _NO_CUTOFF_W, t - _NO_CUTOFF_W]
        elif edges[-1] == -math.inf:
            edges.append(t - _NO_CUTOFF_W)
        edges.append(t)
    edges += [edges[-1] + _NO_CUTOFF_W, math.inf]
    total = sum(integrate.quad(lambda s: math.exp(log_integrand(s) - scale), lo, hi,
                               epsabs=0.0, epsrel=1e-10, limit=200)[0]
                for lo, hi in zip(edges[:-1], edges[1:]) if hi > lo)
    return scale + math.log(total) if total > 0 else -math.inf


def noisy_max(answers, epsilon, size, *, rng, noise="laplace", release="index") -> np.ndarray:
    r"""Report noisy max ``size`` times: add noise of scale :math:`2/\varepsilon` to every answer, report the largest.

    ``noise="laplace"`` adds :math:`\mathrm{Lap}(2/\varepsilon)`, ``noise="exponential"`` adds
    :math:`\mathrm{Exp}(\text{scale } 2/\varepsilon)` (one-sided). ``release="index"`` reports
    the index of the largest noisy answer, which is :math:`\varepsilon`-DP for sensitivity-1
    answers (:cite:`dwork2014algorithmic` Claim 3.9; the same with exponential noise);
    ``release="value"`` reports the largest noisy answer itself, as Ding et al.'s
    Algorithms 7 and 8 do (:cite:`ding2018detecting`), which is not
    :math:`\varepsilon`-DP: see :func:`noisy_max_value_epsilon`.

    The noise is drawn as one array of shape ``(n_answers, size)`` (answer by answer).

    Parameters
    ----------
    answers : array_like of float
        The query answers (sensitivity 1), at least one, finite.
    epsilon : float
        The privacy parameter, ``> 0``; the noise scale is :math:`2/\varepsilon`. With
        ``release="value"``, ``>= 2e-306`` (a scale up to ``1e306``, where every noisy value is
        a finite float). The index only compares noisy answers: for a scale above ``1e306`` it
        is drawn in units of the scale (answers times :math:`\varepsilon/2`), the same law.
    size : int
        Number of independent runs, in ``[1, 10**8]`` (arrays of that many draws are built:
        800 MB each at the cap).
    rng : numpy.random.Generator
        Source of randomness.
    noise : {"laplace", "exponential"}, optional
        The noise distribution.
    release : {"index", "value"}, optional
        Release the index of the largest noisy answer or its value.

    Returns
    -------
    numpy.ndarray, shape (size,)
        Indices (``int64``) or values (``float``).

    Raises
    ------
    ValueError
        If ``answers`` is empty or has a non-finite entry, ``epsilon`` is not positive and
        finite (or below ``2e-306`` with ``release="value"``), ``size`` is not an integer
        ``>= 1``, or ``noise`` or ``release`` is not one of the names above.

    Examples
    --------
    >>> noisy_max([0.0, 1000.0, 3.0], 1.0, 3, rng=np.random.default_rng(0)).tolist()
    [1, 1, 1]
    """
    answers = _answers(answers)
    epsilon = check_positive("epsilon", epsilon)
    size = check_integer("size", size, low=1, high=MAX_ENTRIES)
    rng = check_rng("rng", rng)
    scale = 2.0 / epsilon
    if scale > _MAX_NOISE_SCALE:
        if release == "value":
            raise ValueError(f"epsilon must be >= {2.0 / _MAX_NOISE_SCALE!r} with release='value' (the noise "
                             f"scale 2/epsilon must stay below {_MAX_NOISE_SCALE!r} for the noisy values to be "
                             f"finite floats), got {epsilon!r}")
        # the index only compares noisy answers: compare them in units of the noise scale
        # (2/epsilon overflowed to inf at epsilon = 5e-324 and laplace_noise refused it, naming 'scale')
        answers, scale = answers * epsilon / 2.0, 1.0
    # noise is drawn answer by answer, shape (n_answers, size): the maximum over the first
    # axis is then a pass over contiguous rows, several times faster than over short rows
    if noise == "laplace":
        noisy = laplace_noise(scale, (answers.size, size), rng)
    elif noise == "exponential":
        noisy = rng.standard_exponential((answers.size, size))
        noisy *= scale
    else:
        raise ValueError(f"noise must be 'laplace' or 'exponential', got {noise!r}")
    noisy += answers[:, None]
    if release == "index":
        return np.argmax(noisy, axis=0)
    if release == "value":
        return np.max(noisy, axis=0)
    raise ValueError(f"release must be 'index' or 'value', got {release!r}")


def noisy_max_value_log_density(y, answers, epsilon, *, noise="laplace") -> np.ndarray:
    r"""Log-density of the value released by report noisy max (``release="value"``).

    The largest of independent :math:`f_i + Z_i` has distribution function
    :math:`\prod_i F(y - f_i)`, so its density is
    :math:`\sum_i p(y - f_i) \prod_{j \ne i} F(y - f_j)`, with :math:`p, F` the density and
    distribution function of the noise (:mod:`scipy.stats`, scale :math:`2/\varepsilon`).

    Parameters
    ----------
    y : array_like of float
        Points at which to evaluate the log-density (finite).
    answers : array_like of float
        The query answers, at least one, finite.
    epsilon : float
        The privacy parameter, ``> 0`` (any finite float: the log-density is formed in units of
        the noise scale :math:`2/\varepsilon`).
    noise : {"laplace", "exponential"}, optional
        The noise distribution.

    Returns
    -------
    numpy.ndarray of float, shape of ``y`` flattened
        :math:`\log p(y)`; ``-inf`` where the density is zero (below the support with
        exponential noise).

    Raises
    ------
    ValueError
        If ``y`` or ``answers`` has a non-finite entry, ``epsilon`` is not positive and finite,
        or ``noise`` is not one of the two names.

    Examples
    --------
    >>> lp = noisy_max_value_log_density([0.0], [0.0], 2.0)          # one answer: Lap(1)
    >>> bool(abs(lp[0] - math.log(0.5)) < 1e-12)
    True
    """
    answers = _answers(answers)
    epsilon = check_positive("epsilon", epsilon)
    y = np.atleast_1d(_real_array("y", y, "a real number or an array of them"))
    if not np.all(np.isfinite(y)):
        raise ValueError(f"y must be finite, got {reprlib.repr(y.tolist())}")
    if noise not in ("laplace", "exponential"):
        raise ValueError(f"noise must be 'laplace' or 'exponential', got {noise!r}")
    # in units of the noise scale b = 2/epsilon: z = (y - f) epsilon / 2, log p = log(epsilon / 4) - |z|
    # (Laplace) or log(epsilon / 2) - z (exponential), in closed form. scipy's laws of scale 2/epsilon
    # gave -inf everywhere at epsilon = 5e-324 (scale inf) and at 1e300 (-inf for -5e299)
    u = y[:, None] - answers[None, :]
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        z = np.where(np.isfinite(u), u * epsilon / 2.0, (y[:, None] / 2.0 - answers[None, :] / 2.0) * epsilon)
        if noise == "laplace":
            log_pdf = math.log(epsilon) - math.log(4.0) - np.abs(z)
            log_cdf = np.where(z < 0, z - _LOG2, np.log1p(-0.5 * np.exp(-np.abs(z))))
        else:
            log_pdf = np.where(z >= 0, math.log(epsilon) - _LOG2 - z, -np.inf)
            # log F(z) = log(1 - e^{-z}) is log z to within z/2 for a small z: from logs there, as a
            # subnormal z (epsilon = 5e-324) has lost its digits (2.5e-324 rounds to 0)
            log_z = np.log(np.abs(u)) + (math.log(epsilon) - _LOG2)
            log_cdf = np.where(z > 1e-100, np.log(-np.expm1(-np.abs(z))), np.where(u > 0, log_z, -np.inf))
    # sum_i pdf_i prod_{j != i} cdf_j, in logs; the product over j != i is summed directly
    # (not as the total minus log cdf_i, which is -inf below an exponential's support)
    terms = np.empty_like(u)
    for i in range(answers.size):
        terms[:, i] = log_pdf[:, i] + np.delete(log_cdf, i, axis=1).sum(axis=1)
    return special.logsumexp(terms, axis=1)


def noisy_max_value_epsilon(n_answers, epsilon, *, noise="laplace") -> float:
    r"""The true privacy parameter of releasing the noisy maximum's value of ``n_answers`` answers.

    With Laplace noise of scale :math:`b = 2/\varepsilon` it is :math:`n b^{-1} = n\varepsilon/2`:
    each of the :math:`n` factors of every term of :func:`noisy_max_value_log_density` changes
    by at most :math:`e^{1/b}` when the answers move by at most 1, and when all answers move
    up by 1 every output below all of them has exactly this ratio (there every factor is the
    exponential left tail of the Laplace law). With exponential noise it is infinite: moving
    every answer up by 1 moves the bottom of the support of the maximum, and outputs just
    above the old bottom become impossible.

    Parameters
    ----------
    n_answers : int
        Number of answers, ``>= 1``.
    epsilon : float
        The claimed privacy parameter, ``> 0``.
    noise : {"laplace", "exponential"}, optional
        The noise distribution.

    Returns
    -------
    float
        :math:`n\varepsilon/2` with Laplace noise, ``inf`` with exponential noise.

    Raises
    ------
    ValueError
        If ``n_answers`` is not an integer ``>= 1``, ``epsilon`` is not positive and finite, or
        ``noise`` is not one of the two names.

    Examples
    --------
    >>> noisy_max_value_epsilon(5, 0.1)
    0.25
    >>> noisy_max_value_epsilon(5, 0.1, noise="exponential")
    inf
    """
    n = check_integer("n_answers", n_answers, low=1)
    epsilon = check_positive("epsilon", epsilon)
    if noise == "laplace":
        return n * epsilon / 2.0
    if noise == "exponential":
        return math.inf
    raise ValueError(f"noise must be 'laplace' or 'exponential', got {noise!r}")


def laplace_with_rare_leak(value, epsilon, size, *, rng, leak_probability) -> np.ndarray:
    r"""A Laplace mechanism with a rare bug: with probability ``leak_probability`` a run releases the exact value.

    Every run releases ``value + Lap(1/epsilon)``, except that with probability
    ``leak_probability`` (a code path that "should never happen") it releases ``value``
    itself. The release equals the true value only on that event, so the output
    ``value(x')`` has probability ``leak_probability`` on :math:`x'` and 0 on :math:`x`: the
    mechanism is :math:`(\varepsilon, \text{leak})`-DP but not :math:`\varepsilon'`-DP for any
    :math:`\varepsilon'`.

    Parameters
    ----------
    value : float
        The true (sensitivity-1) value, finite.
    epsilon : float
        The privacy parameter of the Laplace noise, ``>= 1e-306`` (a noise scale
        :math:`1/\varepsilon` up to ``1e306``, where every release is a finite float).
    size : int
        Number of independent runs, in ``[1, 10**8]`` (arrays of that many draws are built:
        800 MB each at the cap).
    rng : numpy.random.Generator
        Source of randomness.
    leak_probability : float
        Probability in ``[0, 1]`` that a run releases ``value`` exactly.

    Returns
    -------
    numpy.ndarray of float, shape (size,)
        The releases.

    Raises
    ------
    ValueError
        If a parameter is outside the ranges above (``epsilon < 1e-306`` included).

    Examples
    --------
    >>> out = laplace_with_rare_leak(3.0, 1.0, 100_000, rng=np.random.default_rng(0), leak_probability=1e-3)
    >>> int(np.sum(out == 3.0)) > 50
    True
    """
    value = check_real("value", value)
    epsilon = check_positive("epsilon", epsilon)
    if 1.0 / epsilon > _MAX_NOISE_SCALE:          # 1/5e-324 overflowed: laplace_noise refused 'scale'
        raise ValueError(f"epsilon must be >= {1.0 / _MAX_NOISE_SCALE!r} (the noise scale 1/epsilon must stay "
                         f"below {_MAX_NOISE_SCALE!r} for the releases to be finite floats), got {epsilon!r}")
    size = check_integer("size", size, low=1, high=MAX_ENTRIES)
    rng = check_rng("rng", rng)
    leak = check_in_range("leak_probability", leak_probability, 0.0, 1.0)
    out = value + laplace_noise(1.0 / epsilon, size, rng)
    out[rng.random(size) < leak] = value
    return out


# --------------------------------------------------------------------------- a published benchmark
class ReferenceCase(NamedTuple):
    r"""One row of DP-Sniper's evaluation, with the input pair this book audits it on.

    Attributes
    ----------
    name : str
        The mechanism's name in DP-Sniper's paper.
    mechanism : callable
        ``mechanism(data, size, rng)``, as :func:`dpnotes.audit.audit_pair` calls it.
    x, x_prime : numpy.ndarray
        The pair of neighbouring inputs this book audits.
    claimed : float
        The :math:`\varepsilon` the algorithm was published with.
    dpsniper : float
        The larger of DP-Sniper's two published lower bounds (90 % confidence).
    true_epsilon : float
        The mechanism's actual :math:`\varepsilon` (``inf``: not bounded).
    n_samples : int
        Runs per input that the book's audit uses.
    """

    name: str
    mechanism: object           # mechanism(data, size, rng), as dpnotes.audit.audit_pair wants it
    x: np.ndarray
    x_prime: np.ndarray
    claimed: float              # the epsilon the algorithm was published with
    dpsniper: float             # the larger of DP-Sniper's two published lower bounds (90% confidence)
    true_epsilon: float         # the mechanism's actual epsilon (inf: not bounded)
    n_samples: int              # runs per input that the book's audit uses


def _svt_case(data, size, rng, *, algorithm):
    return sparse_vector_variant(data, 1.0, 0.1, size, rng=rng, algorithm=algorithm, c=1)


def _max_value_case(data, size, rng, *, noise):
    return noisy_max(data, 0.1, size, rng=rng, noise=noise, release="value")


def dpsniper_cases() -> list[ReferenceCase]:
    r"""The six broken mechanisms of DP-Sniper's evaluation (:cite:`bichsel2021dpsniper`), as it ran them.

    Claimed :math:`\varepsilon = 0.1`. Lyu et al.'s Algorithms 3--6 on ten sensitivity-1
    queries with threshold :math:`T = 1` and cut-off :math:`c = 1` (the setting of DP-Sniper's
    evaluation script, ``dpsniper/experiments/exp_default.py``; the classes' default is
    :math:`c = 2`), and report noisy max over five queries releasing the value, with noise of
    scale :math:`2/\varepsilon`. ``dpsniper`` is the larger of DP-Sniper's two published
    90%-confidence lower bounds, with logistic regression and with a neural network
    (``eval_sp2021/reference-results/dd_search_reg_data.log`` and ``dd_search_mlp_data.log``),
    found after 1.0 to 2.7 and 7.3 to 14.7 minutes of search. The input pairs are this book's
    choice; the whole benchmark, StatDP's bounds included, is :mod:`dpnotes.benchmark`.

    Returns
    -------
    list of ReferenceCase
        One case per mechanism, in DP-Sniper's order.

    Examples
    --------
    >>> [c.name for c in dpsniper_cases()][:2]
    ['Lyu et al. Algorithm 3', 'Lyu et al. Algorithm 4']
    """
    x_shape = np.r_[np.ones(5), np.zeros(5)]
    svt = lambda alg: partial(_svt_case, algorithm=alg)        # noqa: E731
    return [
        ReferenceCase("Lyu et al. Algorithm 3", svt(3), np.zeros(10), np.r_[np.ones(9), -1.0],
                      0.1, 0.1821683565930945, lyu_privacy(3, 0.1), 10_000_000),
        ReferenceCase("Lyu et al. Algorithm 4", svt(4), np.r_[np.zeros(9), 5.0], np.r_[np.ones(9), 4.0],
                      0.1, 0.16956867255560404, lyu_privacy(4, 0.1), 70_000_000),
        ReferenceCase("Lyu et al. Algorithm 5", svt(5), x_shape, x_shape[::-1].copy(),
                      0.1, 1.7611853568928795, lyu_privacy(5, 0.1), 1_000_000),
        ReferenceCase("Lyu et al. Algorithm 6", svt(6), x_shape, x_shape[::-1].copy(),
                      0.1, 0.2720409230566201, lyu_privacy(6, 0.1), 10_000_000),
        ReferenceCase("noisy max value, Laplace noise", partial(_max_value_case, noise="laplace"),
                      np.zeros(5), np.ones(5), 0.1, 0.2488099442765046, noisy_max_value_epsilon(5, 0.1),
                      200_000_000),
        ReferenceCase("noisy max value, exponential noise", partial(_max_value_case, noise="exponential"),
                      np.zeros(5), np.ones(5), 0.1, 0.35344366038471353,
                      noisy_max_value_epsilon(5, 0.1, noise="exponential"), 10_000_000),
    ]
