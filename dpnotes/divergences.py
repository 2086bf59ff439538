"""Divergences between output distributions of mechanisms.

Discrete laws are probability vectors over the same outcomes; the continuous
pairs of the book (Laplace and Gaussian with shifted means) have closed forms.
All logarithms are natural.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp, rel_entr

from ._validate import check_delta, check_distribution_pair, check_in_range, check_positive

__all__ = [
    "max_divergence",
    "pure_epsilon",
    "approx_max_divergence",
    "kl_divergence",
    "renyi_divergence",
    "laplace_kl",
    "laplace_renyi",
    "gaussian_kl",
    "gaussian_renyi",
]


def max_divergence(p, q) -> float:
    r"""Max divergence :math:`D_\infty(P \Vert Q) = \sup_{S:\,P(S)>0} \log \frac{P(S)}{Q(S)}` of discrete laws.

    For discrete distributions the supremum over events is attained at a single
    outcome, because a ratio of sums never exceeds the largest ratio of its terms:
    :math:`D_\infty(P\Vert Q) = \max_{i:\,p_i>0} \log(p_i/q_i)` (:cite:`dwork2014algorithmic`
    Definition 3.6). It is ``inf`` when ``P`` puts mass where ``Q`` puts none.

    Parameters
    ----------
    p, q : array_like
        Probability vectors over the same outcomes.

    Returns
    -------
    float
        The divergence, in ``[0, inf]``.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability vector or their lengths differ.

    Examples
    --------
    >>> import math
    >>> round(max_divergence([0.75, 0.25], [0.25, 0.75]), 12) == round(math.log(3), 12)
    True
    >>> max_divergence([0.5, 0.5], [1.0, 0.0])
    inf
    """
    p, q = check_distribution_pair(p, q)
    support = p > 0
    if np.any(q[support] == 0):
        return float("inf")
    return float(np.max(np.log(p[support]) - np.log(q[support])))


def pure_epsilon(p, q) -> float:
    r"""The smallest :math:`\varepsilon` such that ``p`` and ``q`` are :math:`\varepsilon`-indistinguishable.

    :math:`\max(D_\infty(P\Vert Q), D_\infty(Q\Vert P))`: a mechanism is
    :math:`\varepsilon`-DP exactly when this is at most :math:`\varepsilon` for the
    output laws on every pair of neighbours.

    Parameters
    ----------
    p, q : array_like
        Probability vectors over the same outcomes.

    Returns
    -------
    float
        The smallest such epsilon, in ``[0, inf]``.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability vector or their lengths differ.

    Examples
    --------
    >>> pure_epsilon([0.5, 0.5], [0.5, 0.5])
    0.0
    """
    return max(max_divergence(p, q), max_divergence(q, p))


def approx_max_divergence(p, q, delta) -> float:
    r"""The :math:`\delta`-approximate max divergence of discrete laws.

    .. math:: D_\infty^{\delta}(P\Vert Q) = \sup_{S:\,P(S) > \delta} \log\frac{P(S)-\delta}{Q(S)}

    (:cite:`dwork2014algorithmic` Definition 3.6; events with :math:`P(S)\le\delta`
    contribute nothing). A fractional-programming argument shows that the supremum
    is attained at a set of outcomes with the largest ratios :math:`p_i/q_i`, so it
    is the largest value over the ``m`` "top" sets: :math:`O(m\log m)` instead of
    :math:`2^m` events. Returns ``-inf`` when no event has :math:`P(S) > \delta`
    and ``inf`` when some event has :math:`P(S) > \delta` and :math:`Q(S) = 0`.

    Parameters
    ----------
    p, q : array_like
        Probability vectors over the same outcomes.
    delta : float
        In ``[0, 1)``; ``0`` gives :func:`max_divergence`.

    Returns
    -------
    float
        The divergence, in ``[-inf, inf]``.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability vector or their lengths differ, or ``delta``
        is outside ``[0, 1)``.

    Examples
    --------
    >>> import math
    >>> abs(approx_max_divergence([0.75, 0.25], [0.25, 0.75], 0.25) - math.log(2)) < 1e-12
    True
    """
    p, q = check_distribution_pair(p, q)
    delta = check_delta("delta", delta)
    # p_i / q_i, with inf where only q_i vanishes and 0 where both do (no division by zero is formed)
    ratio = np.where(q > 0, p / np.where(q > 0, q, 1.0), np.where(p > 0, np.inf, 0.0))
    order = np.argsort(-ratio, kind="stable")
    P, Q = np.cumsum(p[order]), np.cumsum(q[order])
    # P(S) > delta, beyond the rounding of the running sum (at most j U P(S) after j masses): a sum
    # that only rounding lifts above delta is not counted, while an event of mass 1e-300 at delta = 0
    # is (a fixed slack of 1e-15 used to drop it, and with it an infinite divergence)
    ok = P > delta + 2.0 * np.finfo(float).eps * np.arange(1, P.size + 1) * P
    if not ok.any():
        return float("-inf")
    if np.any(ok & (Q <= 0)):
        return float("inf")
    return float(np.max(np.log(P[ok] - delta) - np.log(Q[ok])))


def kl_divergence(p, q) -> float:
    r"""Kullback-Leibler divergence :math:`D(P\Vert Q) = \sum_i p_i\log(p_i/q_i)` of discrete laws.

    The mean of the privacy loss random variable; ``inf`` when ``P`` puts mass
    where ``Q`` puts none (terms with :math:`p_i = 0` are 0). Uses
    :func:`scipy.special.rel_entr`.

    Parameters
    ----------
    p, q : array_like
        Probability vectors over the same outcomes.

    Returns
    -------
    float
        The divergence in nats, in ``[0, inf]``.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability vector or their lengths differ.

    Examples
    --------
    >>> import math
    >>> p = 0.75   # randomized response with e^eps = 3: KL = eps * tanh(eps / 2)
    >>> abs(kl_divergence([p, 1 - p], [1 - p, p]) - math.log(3) * 0.5) < 1e-12
    True
    """
    p, q = check_distribution_pair(p, q)
    return float(np.sum(rel_entr(p, q)))


def renyi_divergence(p, q, alpha) -> float:
    r"""Rényi divergence of order :math:`\alpha` of discrete laws.

    .. math:: D_\alpha(P\Vert Q) = \frac{1}{\alpha-1}\log\sum_i p_i^{\alpha} q_i^{1-\alpha}

    for :math:`\alpha\in(0,1)\cup(1,\infty)`; :math:`\alpha = 1` gives the KL divergence
    and :math:`\alpha = \infty` the max divergence (the limits). Evaluated with
    ``logsumexp`` (:cite:`mironov2017renyi` Definition 3).

    Parameters
    ----------
    p, q : array_like
        Probability vectors over the same outcomes.
    alpha : float
        The order, in ``(0, inf]``.

    Returns
    -------
    float
        The divergence in nats, in ``[0, inf]``.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability vector or their lengths differ, or
        ``alpha <= 0``.

    Examples
    --------
    >>> import math
    >>> d = renyi_divergence([0.5, 0.5], [0.25, 0.75], 2.0)     # log(0.25/0.25 + 0.25/0.75)
    >>> abs(d - math.log(1 + 1 / 3)) < 1e-12
    True
    """
    p, q = check_distribution_pair(p, q)
    if isinstance(alpha, (int, float)) and alpha == math.inf:
        return max_divergence(p, q)
    alpha = check_in_range("alpha", alpha, 0.0, math.inf, low_inclusive=False)
    if alpha == 1.0:
        return kl_divergence(p, q)
    support = p > 0
    if alpha > 1 and np.any(q[support] == 0):
        return float("inf")
    both = support & (q > 0)
    if not both.any():
        return float("inf")
    # sum p^a q^(1-a) = E_P[e^((a-1) L)] over the outcomes both laws produce, L = log(p/q)
    scaled = (alpha - 1.0) * (np.log(p[both]) - np.log(q[both]))
    if np.max(np.abs(scaled)) <= 1.0:
        # near a = 1 the sum is 1 + O(a - 1) and its log, divided by a - 1, would turn the rounding of
        # the masses (sum p = 1 +- 1e-16) into an error 1e-16/(a - 1) (negative divergences): write it as
        # 1 + s with s = sum p (e^((a-1) L) - 1) - P(q = 0), exact for p = q, and take log1p(s)
        s = math.fsum(p[both] * np.expm1(scaled)) - math.fsum(p[support & (q == 0)])
        if abs(s) <= 0.5:        # (most of P where q = 0, order < 1: s near -1, the sum below is better)
            return float(math.log1p(s) / (alpha - 1.0))
    terms = alpha * np.log(p[both]) + (1.0 - alpha) * np.log(q[both])
    return float(logsumexp(terms) / (alpha - 1.0))


def laplace_kl(epsilon) -> float:
    r"""KL divergence between Laplace laws of scale :math:`b` whose means differ by :math:`\Delta`, with :math:`\varepsilon = \Delta/b`.

    :math:`D(\mathrm{Lap}(0,b)\Vert\mathrm{Lap}(\Delta,b)) = \varepsilon + e^{-\varepsilon} - 1`
    (integrate :math:`(|y-\Delta|-|y|)/b` against the density of :math:`\mathrm{Lap}(0,b)`).

    Parameters
    ----------
    epsilon : float
        :math:`\Delta/b`, ``> 0``.

    Returns
    -------
    float
        The divergence in nats.

    Raises
    ------
    ValueError
        If ``epsilon <= 0``.

    Examples
    --------
    >>> round(laplace_kl(1.0), 12) == round(math.exp(-1), 12)
    True
    """
    epsilon = check_positive("epsilon", epsilon)
    if epsilon < 1.0:            # eps + (e^-eps - 1) cancels to eps^2/2: lost log10(2/eps) digits
        return float(_expm1mx(-epsilon))
    return float(epsilon + math.expm1(-epsilon))


def _expm1mx(x):
    """``e^x - 1 - x`` elementwise, to full relative precision everywhere (``expm1(x) - x`` cancels for
    ``|x| < 1``): there its Taylor series ``x^2/2! + x^3/3! + ... + x^22/22!`` in Horner form (the rest is below
    ``2 / 23! < 1e-22`` of the first term); beyond, ``expm1(x) - x`` itself, which loses at most 1.5 bits (at
    ``x = -1``). Returns an array (0-d for a scalar). Shared by :func:`laplace_kl`, :func:`laplace_renyi` and
    :func:`dpnotes.subsampling._a_minus_1_quadrature`. Hand-written: scipy has ``expm1`` and ``exprel`` but no
    ``e^x - 1 - x``."""
    x = np.asarray(x, dtype=float)
    small = np.abs(x) < 1.0
    xs = np.where(small, x, 0.0)
    acc = np.zeros_like(xs)
    for n in range(22, 2, -1):                 # x^2/2 (1 + x/3 (1 + x/4 (... (1 + x/22))))
        acc = 1.0 + xs / n * acc
    with np.errstate(over="ignore"):
        return np.where(small, xs * xs / 2.0 * acc, np.expm1(np.where(small, 0.0, x)) - x)


def laplace_renyi(alpha, epsilon) -> float:
    r"""Rényi divergence of order :math:`\alpha > 1` between Laplace laws with :math:`\Delta/b = \varepsilon`.

    .. math:: D_\alpha = \frac{1}{\alpha-1}\log\Bigl(\frac{\alpha}{2\alpha-1}e^{(\alpha-1)\varepsilon}
              + \frac{\alpha-1}{2\alpha-1}e^{-\alpha\varepsilon}\Bigr)

    (:cite:`mironov2017renyi` Table II). The two weights sum to 1 and the first-order terms
    of the exponentials cancel exactly, so where both exponents are below 1 in size the sum is
    evaluated as :math:`1 + A\,(e^{x}-1-x) + B\,(e^{y}-1-y)` (:math:`A, B` the weights, :math:`x, y` the
    exponents), two positive terms of order :math:`\varepsilon^2`: the plain formula loses
    :math:`\log_{10}(1/((\alpha-1)\varepsilon^2))` digits there (it gave :math:`-2\times 10^{-9}` for
    the true :math:`5\times 10^{-13}` at :math:`\alpha = 1 + 10^{-9}`, :math:`\varepsilon = 10^{-6}`).

    Parameters
    ----------
    alpha : float
        The order, ``> 1``.
    epsilon : float
        :math:`\Delta/b`, ``> 0``.

    Returns
    -------
    float
        The divergence in nats.

    Raises
    ------
    ValueError
        If ``alpha <= 1`` or ``epsilon <= 0``.

    Examples
    --------
    >>> round(laplace_renyi(2.0, 1.0), 12) == round(math.log(2 / 3 * math.e + math.exp(-2) / 3), 12)
    True
    """
    alpha = check_in_range("alpha", alpha, 1.0, math.inf, low_inclusive=False)
    epsilon = check_positive("epsilon", epsilon)
    x, y = (alpha - 1) * epsilon, -alpha * epsilon
    if max(x, -y) < 1.0:
        w = 2 * alpha - 1
        s = float(alpha / w * _expm1mx(x) + (alpha - 1) / w * _expm1mx(y))   # alpha x/w + (alpha-1) y/w = 0
        return float(math.log1p(s) / (alpha - 1))
    # log A = log(1 - (alpha-1)/(2 alpha-1)) with log1p: near alpha = 1 the log of the rounded
    # ratio alpha/(2 alpha - 1) is off by 1e-16, which the division by alpha - 1 magnifies
    frac = (alpha - 1) / (2 * alpha - 1)
    a = math.log1p(-frac) + (alpha - 1) * epsilon
    b = math.log(frac) - alpha * epsilon
    return float(np.logaddexp(a, b) / (alpha - 1))


def gaussian_kl(mu) -> float:
    r"""KL divergence between :math:`N(0,\sigma^2)` and :math:`N(\Delta,\sigma^2)` with :math:`\mu = \Delta/\sigma`: :math:`\mu^2/2`.

    Parameters
    ----------
    mu : float
        :math:`\Delta/\sigma`, ``> 0``.

    Returns
    -------
    float
        :math:`\mu^2/2`, in nats.

    Raises
    ------
    ValueError
        If ``mu <= 0``.

    Examples
    --------
    >>> gaussian_kl(2.0)
    2.0
    """
    mu = check_positive("mu", mu)
    return 0.5 * mu * mu


def gaussian_renyi(alpha, mu) -> float:
    r"""Rényi divergence of order :math:`\alpha` between Gaussians with :math:`\mu = \Delta/\sigma`: :math:`\alpha\mu^2/2`.

    (:cite:`mironov2017renyi` Proposition 7.)

    Parameters
    ----------
    alpha : float
        The order, ``> 0``.
    mu : float
        :math:`\Delta/\sigma`, ``> 0``.

    Returns
    -------
    float
        :math:`\alpha\mu^2/2`, in nats.

    Raises
    ------
    ValueError
        If ``alpha <= 0`` or ``mu <= 0``.

    Examples
    --------
    >>> gaussian_renyi(3.0, 1.0)
    1.5
    """
    alpha = check_positive("alpha", alpha)
    mu = check_positive("mu", mu)
    return 0.5 * alpha * mu * mu
