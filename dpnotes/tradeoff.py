r"""The hypothesis-testing view of differential privacy.

An adversary who sees the output of :math:`M` tests :math:`H_0`: the data set is
:math:`x` against :math:`H_1`: it is :math:`x'`. A test rejects :math:`H_0` on an
event :math:`R` of outputs (or with a probability :math:`\phi(y)` at each output,
for a randomized test). Its errors are

* false positive (type I) :math:`\alpha = \Pr[M(x) \in R]` (reject a true :math:`H_0`);
* false negative (type II) :math:`\beta = \Pr[M(x') \notin R]` (keep a false :math:`H_0`).

:math:`(\varepsilon,\delta)`-DP holds exactly when every test's pair obeys
:math:`e^{\varepsilon}\alpha + \beta \ge 1 - \delta` and :math:`\alpha + e^{\varepsilon}\beta \ge 1 - \delta`
(:cite:`kairouz2015composition` Theorem 2.1; the direction "DP bounds every test" for
:math:`\delta = 0` is :cite:`wasserman2010statistical`).
"""

from __future__ import annotations

import math

import numpy as np

from ._validate import check_array, check_delta, check_distribution_pair, check_in_range, check_nonnegative

__all__ = ["error_pairs", "optimal_tradeoff", "region_lower_boundary", "in_privacy_region"]

_MAX_OUTCOMES = 20
# exp(epsilon) is a finite float up to epsilon = 709.78; past it e^epsilon * x is still finite for a
# small x (e^710 * 5e-324 = 1.1e-15), +-inf for a larger one, and 0 at x = 0 (never inf * 0 = nan)
_EXP_FINITE = 709.0


def _times_exp(x: np.ndarray, epsilon: float) -> np.ndarray:
    """``x * e**epsilon`` elementwise for ``epsilon >= 0``, ``0`` where ``x == 0`` however large epsilon is."""
    if epsilon <= _EXP_FINITE:
        return math.exp(epsilon) * x
    half = math.exp(epsilon / 2) if epsilon / 2 <= _EXP_FINITE else math.inf
    nonzero = x != 0
    out = np.zeros_like(x)
    with np.errstate(over="ignore"):   # a product past 1.8e308 is the true +-inf
        out[nonzero] = x[nonzero] * half * half
    return out


def _over_exp(x: np.ndarray, epsilon: float) -> np.ndarray:
    """``x * e**-epsilon`` elementwise for ``epsilon >= 0`` (``0`` once it underflows)."""
    if epsilon <= _EXP_FINITE:
        return x / math.exp(epsilon)
    half = math.exp(epsilon / 2) if epsilon / 2 <= _EXP_FINITE else math.inf
    return x / half / half


def error_pairs(p, q) -> np.ndarray:
    r"""Error pairs :math:`(\alpha, \beta)` of **every** deterministic test between two discrete laws.

    Enumerates all :math:`2^m` rejection regions :math:`R \subseteq \{0,\dots,m-1\}`.
    This is the brute-force reference that :func:`optimal_tradeoff` is checked against.

    Parameters
    ----------
    p : array_like, length m <= 20
        Output law under :math:`H_0` (data set :math:`x`).
    q : array_like, length m
        Output law under :math:`H_1` (data set :math:`x'`).

    Returns
    -------
    numpy.ndarray, shape (2**m, 2)
        Row ``r`` holds :math:`(\alpha, \beta)` for the region whose indicator is the
        binary expansion of ``r`` (bit ``i`` set: outcome ``i`` rejects :math:`H_0`).

    Examples
    --------
    >>> error_pairs([0.75, 0.25], [0.25, 0.75]).tolist()
    [[0.0, 1.0], [0.75, 0.75], [0.25, 0.25], [1.0, 0.0]]
    """
    p, q = check_distribution_pair(p, q)
    m = p.size
    if m > _MAX_OUTCOMES:
        raise ValueError(f"p must have at most {_MAX_OUTCOMES} outcomes for enumeration, got {m}")
    regions = (np.arange(2**m)[:, None] >> np.arange(m)[None, :]) & 1
    alpha = regions @ p
    # beta as the mass of q kept, not 1 - the mass rejected: a sum of positive terms keeps a tiny beta's
    # digits (1 - sum lost them all at beta = 2e-16, and e^eps beta in the DP inequality magnifies that)
    beta = (1 - regions) @ q
    # sums of masses can round outside [0, 1] (1.0000000000000002): error rates never do
    return np.column_stack([np.clip(alpha, 0.0, 1.0), np.clip(beta, 0.0, 1.0)])


def optimal_tradeoff(p, q) -> tuple[np.ndarray, np.ndarray]:
    r"""Vertices of the smallest achievable :math:`\beta` as a function of :math:`\alpha` (Neyman–Pearson).

    By the Neyman–Pearson lemma the most powerful test at each level rejects the
    outcomes with the largest likelihood ratio :math:`q_i/p_i` first, randomizing on
    the outcome at the boundary. The optimal trade-off curve is therefore the
    piecewise-linear curve through the points obtained by rejecting the ``j``
    outcomes with the largest ratios, ``j = 0, ..., m`` (ties merged). Randomized
    tests realise every point on the segments between vertices.

    Parameters
    ----------
    p, q : array_like
        The laws of the outcome under the null and the alternative hypothesis, probability
        vectors over the same outcomes.

    Returns
    -------
    alpha, beta : numpy.ndarray
        Vertex coordinates, ``alpha`` increasing from 0 to 1, ``beta`` decreasing.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability vector or their lengths differ.

    Examples
    --------
    >>> a, b = optimal_tradeoff([0.75, 0.25], [0.25, 0.75])
    >>> a.tolist(), b.tolist()
    ([0.0, 0.25, 1.0], [1.0, 0.25, 0.0])
    """
    p, q = check_distribution_pair(p, q)
    keep = (p > 0) | (q > 0)
    p, q = p[keep], q[keep]
    # order by likelihood ratio q/p, descending; outcomes with p = 0 first (ratio +inf)
    ratio = np.where(p > 0, q / np.where(p > 0, p, 1.0), np.inf)
    order = np.argsort(-ratio, kind="stable")
    ratio, p, q = ratio[order], p[order], q[order]
    # merge ties: only the last outcome of each group of equal ratios is a vertex
    last_of_group = np.append(ratio[1:] != ratio[:-1], True)
    alpha = np.concatenate([[0.0], np.cumsum(p)[last_of_group]])
    kept = np.append(np.cumsum(q[::-1])[::-1][1:], 0.0)       # q-mass of the outcomes after each one
    beta = np.concatenate([[1.0], kept[last_of_group]])
    return np.clip(alpha, 0.0, 1.0), np.clip(beta, 0.0, 1.0)


def region_lower_boundary(alpha, epsilon, delta=0.0) -> np.ndarray:
    r"""Smallest false-negative rate :math:`\beta` that :math:`(\varepsilon,\delta)`-DP allows at level :math:`\alpha`.

    From :math:`e^{\varepsilon}\alpha + \beta \ge 1-\delta` and
    :math:`\alpha + e^{\varepsilon}\beta \ge 1-\delta`:

    .. math:: \beta_{\min}(\alpha) = \max\bigl(0,\; 1-\delta-e^{\varepsilon}\alpha,\; e^{-\varepsilon}(1-\delta-\alpha)\bigr).

    Parameters
    ----------
    alpha : float or array_like
        Levels (false-positive rates), each in ``[0, 1]``.
    epsilon : float
        ``>= 0``, finite, of any size: past 709.78 :math:`e^{\varepsilon}` overflows a float but the
        boundary does not (at ``1e300`` it is the axes: ``1 - delta`` at ``alpha = 0``, 0 elsewhere).
    delta : float
        In ``[0, 1)``.

    Returns
    -------
    numpy.ndarray
        :math:`\beta_{\min}` at each level, the shape of ``alpha``.

    Raises
    ------
    ValueError
        If an argument is outside its range or not a real number (the message names it).

    Examples
    --------
    >>> region_lower_boundary([0.0, 0.25, 1.0], math.log(3)).round(12).tolist()
    [1.0, 0.25, 0.0]
    """
    epsilon = check_in_range("epsilon", epsilon, 0.0)
    delta = check_delta("delta", delta)
    a = check_array("alpha", alpha, low=0.0, high=1.0, allow_empty=True)
    # at a huge epsilon (1e300) the boundary is the axes: 1 - delta at alpha = 0, 0 for alpha > 0
    # (the 0 comes last: on a tie np.maximum keeps its second argument, and e^-epsilon (1 - delta - 1)
    # underflows to -0.0)
    return np.maximum.reduce([1.0 - delta - _times_exp(a, epsilon), _over_exp(1.0 - delta - a, epsilon),
                              np.zeros_like(a)])


def in_privacy_region(alpha, beta, epsilon, delta=0.0, *, tol=1e-12) -> np.ndarray:
    r"""Whether error pairs satisfy both :math:`(\varepsilon,\delta)`-DP testing inequalities.

    ``True`` where :math:`e^{\varepsilon}\alpha+\beta \ge 1-\delta` and
    :math:`\alpha+e^{\varepsilon}\beta \ge 1-\delta` hold (up to ``tol``, for rounding).

    Parameters
    ----------
    alpha, beta : float or array_like
        False-positive and false-negative rates of tests, finite, same shape. (Rates lie in
        ``[0, 1]``; a value outside, such as a sum of probabilities that rounds to ``1 + 1e-16``,
        is not refused: the inequalities still answer for it.)
    epsilon : float
        ``>= 0``, finite, of any size (:math:`e^{\varepsilon}\cdot 0` is 0 even where
        :math:`e^{\varepsilon}` overflows a float).
    delta : float
        In ``[0, 1)``.
    tol : float
        Slack ``>= 0`` granted to both inequalities.

    Returns
    -------
    ndarray of bool
        Of the shape of ``alpha``: whether each pair is in the privacy region.

    Raises
    ------
    ValueError
        If an argument is outside its range or not a real number (the message names it).

    Examples
    --------
    >>> in_privacy_region([0.25, 0.1], [0.25, 0.1], math.log(3)).tolist()
    [True, False]
    """
    epsilon = check_in_range("epsilon", epsilon, 0.0)
    delta = check_delta("delta", delta)
    tol = check_nonnegative("tol", tol)
    a = check_array("alpha", alpha, allow_empty=True)
    b = check_array("beta", beta, allow_empty=True)
    if a.shape != b.shape:
        raise ValueError(f"alpha and beta must have the same shape, got {a.shape} and {b.shape}")
    return (_times_exp(a, epsilon) + b >= 1.0 - delta - tol) & (a + _times_exp(b, epsilon) >= 1.0 - delta - tol)
