r"""Privacy loss distributions and privacy profiles (hockey-stick divergences).

For output laws :math:`P` (on a data set) and :math:`Q` (on a neighbour) the
*privacy loss* of an outcome :math:`y` is :math:`\log(p(y)/q(y))`; drawn with
:math:`y \sim P` it is the privacy loss random variable :math:`L = L_{P\Vert Q}`
(:math:`+\infty` on outcomes that :math:`Q` never produces). The *hockey-stick
divergence*

.. math:: \delta_{P\Vert Q}(\varepsilon) = \sup_S\, P(S) - e^{\varepsilon} Q(S)
          = \sum_y (p(y) - e^{\varepsilon} q(y))_+
          = \mathbb{E}_{L}\big[(1 - e^{\varepsilon - L})_+\big]

is the smallest :math:`\delta` for which the pair satisfies the
:math:`(\varepsilon,\delta)` inequality; as a function of :math:`\varepsilon` it is the
*privacy profile* (:cite:`balle2018improving`). This module computes it for any
pair of discrete laws, from a loss distribution, and in closed form for
randomized response, the Laplace and the Gaussian mechanism, where the
mechanism's parameter is ``mu`` = sensitivity / noise scale.

All profile functions are vectorized over ``epsilon`` (``>= 0``) and return a
float for a scalar input.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from ._validate import (
    check_array,
    check_delta,
    check_distribution,
    check_distribution_pair,
    check_in_range,
    check_positive,
)

__all__ = [
    "privacy_loss",
    "hockey_stick",
    "hockey_stick_from_loss",
    "loss_tail",
    "tail_bound_from_dp",
    "rr_delta",
    "laplace_delta",
    "laplace_loss_cdf",
    "laplace_loss_tail",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_loss",
    "gaussian_loss_tail",
    "gaussian_test_power",
]


def _array(name: str, value, low: float = 0.0, *, low_inclusive: bool = True):
    """Validate a scalar or array argument elementwise; return (float array, was_scalar)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number or an array of them, got {value!r}") from None
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    # nan propagates through min/max, so checking the two extremes checks every entry
    for extreme in (np.min(arr), np.max(arr)):
        check_in_range(name, float(extreme), low, math.inf, low_inclusive=low_inclusive)
    return arr, arr.ndim == 0


def _loss_law(loss, prob):
    """A discrete loss law: ``prob`` a probability vector, ``loss`` one value per entry (``inf`` allowed)."""
    prob = check_distribution("prob", prob)
    loss = check_array("loss", loss, allow_inf=True, allow_nan=True)
    if loss.shape != prob.shape or np.any(np.isnan(loss)):
        raise ValueError(f"loss must be a vector of {prob.size} numbers (inf allowed), got {loss.tolist()}")
    return prob, loss


def _out(arr, scalar):
    return float(arr) if scalar else arr


# ---------------------------------------------------------------- discrete laws

def privacy_loss(p, q) -> tuple[np.ndarray, np.ndarray]:
    r"""The law of the privacy loss :math:`L_{P\Vert Q} = \log(p(y)/q(y))`, :math:`y \sim P`, for discrete laws.

    Parameters
    ----------
    p, q : array_like
        Probability vectors over the same outcomes.

    Returns
    -------
    loss, prob : numpy.ndarray
        The loss of every outcome with :math:`p(y) > 0` (``inf`` where :math:`q(y) = 0`)
        and its probability under :math:`P`. Outcomes that only :math:`Q` produces
        are never drawn and do not appear.

    Examples
    --------
    >>> loss, prob = privacy_loss([0.75, 0.25], [0.25, 0.75])
    >>> np.round(loss, 6).tolist(), prob.tolist()
    ([1.098612, -1.098612], [0.75, 0.25])
    """
    p, q = check_distribution_pair(p, q)
    keep = p > 0
    pk, qk = p[keep], q[keep]
    loss = np.where(qk > 0, np.log(pk) - np.log(np.where(qk > 0, qk, 1.0)), np.inf)
    return loss, pk


def hockey_stick(p, q, epsilon):
    r"""Hockey-stick divergence :math:`\delta_{P\Vert Q}(\varepsilon) = \sum_y (p(y) - e^{\varepsilon} q(y))_+` of discrete laws.

    It equals :math:`\sup_S P(S) - e^{\varepsilon}Q(S)`: the supremum is attained by
    the event :math:`S^* = \{y : p(y) > e^{\varepsilon} q(y)\}`, because adding an
    outcome to :math:`S` changes the objective by :math:`p(y) - e^{\varepsilon}q(y)`.
    A mechanism is :math:`(\varepsilon,\delta)`-DP exactly when this is
    :math:`\le \delta` for the output laws of every ordered pair of neighbours.

    Parameters
    ----------
    p, q : array_like
        Probability vectors over the same outcomes.
    epsilon : float or array_like
        ``>= 0``.

    Returns
    -------
    float or ndarray
        The divergence, in ``[0, 1]``, one per ``epsilon`` (a float for a scalar ``epsilon``).

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability vector, their lengths differ, or an ``epsilon``
        is negative or not a number.

    Examples
    --------
    >>> round(hockey_stick([0.75, 0.25], [0.25, 0.75], 0.0), 12)   # total variation
    0.5
    >>> hockey_stick([0.75, 0.25], [0.25, 0.75], math.log(3))      # RR is log(3)-DP
    0.0
    """
    p, q = check_distribution_pair(p, q)
    eps, scalar = _array("epsilon", epsilon)
    with np.errstate(over="ignore", invalid="ignore"):
        scale = np.exp(eps)[..., None]
        terms = np.where(q > 0, p - scale * q, p)
    # a sum of masses can round above 1 (1 + 2e-16): the divergence never does
    return _out(np.minimum(np.maximum(terms, 0.0).sum(axis=-1), 1.0), scalar)


def hockey_stick_from_loss(loss, prob, epsilon):
    r"""The hockey-stick divergence as :math:`\mathbb{E}[(1 - e^{\varepsilon - L})_+]` over a discrete loss law.

    Identity: :math:`\sum_y p(y)(1 - e^{\varepsilon} q(y)/p(y))_+ = \sum_y (p(y) - e^{\varepsilon}q(y))_+`,
    with :math:`L = +\infty` contributing its full probability.

    Parameters
    ----------
    loss : array_like
        Values of the loss (``inf`` allowed).
    prob : array_like
        Their probabilities (a probability vector).
    epsilon : float or array_like
        ``>= 0``.

    Returns
    -------
    float or ndarray
        The divergence, in ``[0, 1]``, one per ``epsilon`` (a float for a scalar ``epsilon``).

    Raises
    ------
    ValueError
        If ``prob`` is not a probability vector, ``loss`` is not one number (or ``inf``) per
        probability, or an ``epsilon`` is negative or not a number.

    Examples
    --------
    >>> hockey_stick_from_loss([math.inf, 0.0], [0.01, 0.99], 5.0)
    0.01
    """
    prob, loss = _loss_law(loss, prob)
    eps, scalar = _array("epsilon", epsilon)
    factor = -np.expm1(np.minimum(eps[..., None] - loss, 0.0))   # (1 - e^{eps - L})_+
    return _out(np.minimum((prob * factor).sum(axis=-1), 1.0), scalar)          # rounding: never above 1


def loss_tail(loss, prob, epsilon, *, strict=True):
    r""":math:`\Pr[L > \varepsilon]` (``strict=True``) or :math:`\Pr[L \ge \varepsilon]` of a discrete loss law.

    Parameters
    ----------
    loss : array_like
        Values of the loss (``inf`` allowed).
    prob : array_like
        Their probabilities (a probability vector).
    epsilon : float or array_like
        Any real numbers.
    strict : bool
        ``>`` if true, ``>=`` otherwise.

    Returns
    -------
    float or ndarray
        The tail probability, one per ``epsilon`` (a float for a scalar ``epsilon``).

    Raises
    ------
    ValueError
        If the loss law is malformed or an ``epsilon`` is not a number.

    Examples
    --------
    >>> loss_tail([1.0, -1.0], [0.75, 0.25], 1.0), loss_tail([1.0, -1.0], [0.75, 0.25], 1.0, strict=False)
    (0.0, 0.75)
    """
    prob, loss = _loss_law(loss, prob)
    eps, scalar = _array("epsilon", epsilon, -math.inf)
    hit = loss > eps[..., None] if strict else loss >= eps[..., None]
    return _out(np.minimum((prob * hit).sum(axis=-1), 1.0), scalar)             # rounding: never above 1


def tail_bound_from_dp(epsilon, delta, epsilon_prime):
    r"""Bound on :math:`\Pr[L > \varepsilon']` implied by :math:`\delta_{P\Vert Q}(\varepsilon) \le \delta`, for :math:`\varepsilon' > \varepsilon`.

    On :math:`S = \{L > \varepsilon'\}` we have :math:`Q(S) \le e^{-\varepsilon'}P(S)`, so
    :math:`P(S) \le e^{\varepsilon}Q(S) + \delta \le e^{\varepsilon - \varepsilon'}P(S) + \delta`, i.e.
    :math:`P(S) \le \delta / (1 - e^{\varepsilon - \varepsilon'})` (capped at 1). This is
    the price of the converse of "tail bound implies DP" (:cite:`dwork2014algorithmic` §3.5.1
    states a version with :math:`\varepsilon' = 2\varepsilon`).

    Parameters
    ----------
    epsilon : float
        ``>= 0``.
    delta : float
        In ``[0, 1)``.
    epsilon_prime : float or array_like
        Each finite and ``> epsilon``.

    Returns
    -------
    float or ndarray
        :math:`\min(1, \delta / (1 - e^{\varepsilon - \varepsilon'}))`, one per ``epsilon_prime``.

    Raises
    ------
    ValueError
        If ``epsilon < 0``, ``delta`` is outside ``[0, 1)`` or an ``epsilon_prime`` is not
        ``> epsilon``.

    Examples
    --------
    >>> round(tail_bound_from_dp(1.0, 1e-6, 1.0 + math.log(2)), 12)
    2e-06
    """
    epsilon = check_in_range("epsilon", epsilon, 0.0)
    delta = check_delta("delta", delta)
    ep, scalar = _array("epsilon_prime", epsilon_prime, -math.inf)
    least = float(np.min(ep))
    if not least > epsilon:
        # a condition on the pair: named as such (with epsilon = 1e300 the message named only epsilon_prime,
        # as "> 100000000000000005250476...", 301 digits)
        raise ValueError(f"epsilon_prime must be > epsilon = {_number(epsilon)}, got {_number(least)}")
    bound = np.minimum(delta / -np.expm1(epsilon - ep), 1.0)
    return _out(bound, scalar)


def _number(x: float) -> str:
    """A float for a message: 2 for 2.0, and repr's 1e+300 rather than 301 digits."""
    return str(int(x)) if x.is_integer() and abs(x) < 1e16 else repr(x)


# ---------------------------------------------------------------- randomized response
def rr_delta(epsilon, epsilon_rr):
    r"""Privacy profile of randomized response with parameter ``epsilon_rr``.

    The output laws on the two inputs are :math:`(p, 1-p)` and :math:`(1-p, p)` with
    :math:`p = e^{\varepsilon_0}/(1+e^{\varepsilon_0})`, so
    :math:`\delta(\varepsilon) = (p - e^{\varepsilon}(1-p))_+ = p\,(1 - e^{\varepsilon-\varepsilon_0})_+`.

    Parameters
    ----------
    epsilon : float or array_like
        ``>= 0``.
    epsilon_rr : float
        The parameter :math:`\varepsilon_0` of randomized response, ``>= 0``.

    Returns
    -------
    float or ndarray
        :math:`\delta(\varepsilon)`, one per ``epsilon`` (a float for a scalar ``epsilon``).

    Raises
    ------
    ValueError
        If ``epsilon_rr`` or an ``epsilon`` is negative or not a number.

    Examples
    --------
    >>> round(rr_delta(0.0, math.log(3)), 12)
    0.5
    >>> rr_delta(math.log(3), math.log(3))
    0.0
    """
    epsilon_rr = check_in_range("epsilon_rr", epsilon_rr, 0.0)
    eps, scalar = _array("epsilon", epsilon)
    p = 1.0 / (1.0 + math.exp(-epsilon_rr))
    return _out(p * (0.0 - np.expm1(np.minimum(eps - epsilon_rr, 0.0))), scalar)   # min first: no overflow


# ---------------------------------------------------------------- Laplace mechanism
def laplace_delta(epsilon, mu):
    r"""Privacy profile of the Laplace mechanism: :math:`\delta(\varepsilon) = (1 - e^{(\varepsilon - \mu)/2})_+`.

    ``mu`` is :math:`|f(x) - f(x')|/b`, the distance of the two centres in units of
    the scale. The profile vanishes from :math:`\varepsilon = \mu` on: the Laplace
    mechanism is :math:`\mu`-DP.

    Parameters
    ----------
    epsilon : float or array_like
        ``>= 0``.
    mu : float
        ``> 0``.

    Returns
    -------
    float or ndarray
        :math:`\delta(\varepsilon)`, one per ``epsilon`` (a float for a scalar ``epsilon``).

    Raises
    ------
    ValueError
        If ``mu <= 0`` or an ``epsilon`` is negative or not a number.

    Examples
    --------
    >>> laplace_delta(1.0, 1.0)
    0.0
    >>> round(laplace_delta(0.0, 2.0), 12) == round(1 - math.exp(-1), 12)
    True
    """
    mu = check_positive("mu", mu)
    eps, scalar = _array("epsilon", epsilon)
    return _out(0.0 - np.expm1(np.minimum(0.5 * (eps - mu), 0.0)), scalar)   # min first: no overflow; 0.0 - 0.0 = +0


def laplace_loss_cdf(ell, mu):
    r""":math:`\Pr[L \le \ell]` for the Laplace mechanism's loss, :math:`y \sim \mathrm{Lap}(0,1)` vs :math:`\mathrm{Lap}(\mu, 1)`.

    :math:`L = |y-\mu| - |y|` equals :math:`\mu` for :math:`y \le 0` (probability 1/2),
    :math:`-\mu` for :math:`y \ge \mu` (probability :math:`e^{-\mu}/2`) and
    :math:`\mu - 2y` in between, so :math:`\Pr[L \le \ell] = \tfrac12 e^{(\ell-\mu)/2}` for
    :math:`-\mu \le \ell < \mu`, 0 below and 1 from :math:`\mu` on.

    Parameters
    ----------
    ell : float or array_like
        Any real numbers.
    mu : float
        The distance of the two centres in units of the scale, ``> 0``.

    Returns
    -------
    float or ndarray
        :math:`\Pr[L \le \ell]`, one per ``ell`` (a float for a scalar ``ell``).

    Raises
    ------
    ValueError
        If ``mu <= 0`` or an ``ell`` is not a number.

    Examples
    --------
    >>> laplace_loss_cdf([-2.0, 0.0, 1.0], 1.0).tolist()
    [0.0, 0.3032653298563167, 1.0]
    """
    mu = check_positive("mu", mu)
    ell, scalar = _array("ell", ell, -math.inf)
    mid = 0.5 * np.exp(0.5 * (np.minimum(ell, mu) - mu))
    cdf = np.where(ell < -mu, 0.0, np.where(ell >= mu, 1.0, mid))
    return _out(cdf, scalar)


def laplace_loss_tail(epsilon, mu, *, strict=True):
    r""":math:`\Pr[L > \varepsilon]` (or :math:`\ge` with ``strict=False``) for the Laplace loss (see :func:`laplace_loss_cdf`).

    Parameters
    ----------
    epsilon : float or array_like
        Any real numbers.
    mu : float
        The distance of the two centres in units of the scale, ``> 0``.
    strict : bool
        ``>`` if true, ``>=`` otherwise.

    Returns
    -------
    float or ndarray
        The tail probability, one per ``epsilon`` (a float for a scalar ``epsilon``).

    Raises
    ------
    ValueError
        If ``mu <= 0`` or an ``epsilon`` is not a number.

    Examples
    --------
    >>> laplace_loss_tail(1.0, 1.0), laplace_loss_tail(1.0, 1.0, strict=False)
    (0.0, 0.5)
    """
    mu = check_positive("mu", mu)
    eps, scalar = _array("epsilon", epsilon, -math.inf)
    if strict:
        tail = 1.0 - laplace_loss_cdf(eps, mu)
    else:   # 1 - P[L < eps]: the left limit of the cdf
        left = np.where(eps <= -mu, 0.0, np.where(eps > mu, 1.0, 0.5 * np.exp(0.5 * (np.minimum(eps, mu) - mu))))
        tail = 1.0 - left
    return _out(np.asarray(tail, dtype=float), scalar)


# ---------------------------------------------------------------- Gaussian mechanism
# Gauss-Legendre rule for the cancellation-free integral of gaussian_delta (48 nodes on [-1, 1]).
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(48)


def gaussian_delta(epsilon, mu):
    r"""Exact privacy profile of the Gaussian mechanism with :math:`\mu = \Delta/\sigma`.

    :math:`\delta(\varepsilon) = \Phi(a) - e^{\varepsilon}\Phi(a - \mu)` with
    :math:`a = \mu/2 - \varepsilon/\mu` (:cite:`balle2018improving` Theorem 8). Two
    evaluations, chosen by how much the difference cancels:

    * **closed form.** Both terms as logarithms (``scipy.special.log_ndtr``, exact far in the
      tail where :math:`\Phi` itself underflows; the second as :math:`\varphi(a)R(\mu - a)`, the Mills
      ratio :math:`R`, which has no terms of size :math:`\varepsilon` to cancel: :func:`_log_second_term`)
      and the difference as :math:`e^{\ell_a}(1 - e^{\ell_b - \ell_a})` with ``expm1``. Its relative error is about
      machine epsilon times :math:`\max(1, |\ell_a|)` divided by the *gap*
      :math:`g = 1 - e^{\ell_b - \ell_a} = \delta/\Phi(a)`: fine for :math:`g \ge 1/2`.
    * **integral** (where :math:`g < 1/2`: small :math:`\mu`, where the two terms nearly
      cancel and any difference of the two terms, in logs or not, loses
      :math:`\log_{10}(1/g)` digits). Substituting :math:`t = a - u` in the second term gives
      the difference as one integral with a positive integrand,

      .. math:: \delta = \varphi(a)\int_0^\infty e^{a u - u^2/2}\,\bigl(1 - e^{-\mu u}\bigr)\,du ,

      computed with ``expm1`` and a 48-point Gauss-Legendre rule on :math:`[0, U]`, with
      :math:`U` chosen so that the neglected tail is below :math:`e^{-40}` of the integral.
      Hand-written because no library evaluates this difference without cancellation.

    Relative error about :math:`10^{-14}(1 + a^2)` everywhere (the factor :math:`a^2` is the
    conditioning of :math:`\varphi(a)` itself), plus :math:`|a|\,(\varepsilon/\mu)\,2^{-53}` in
    :math:`\log\delta` from forming :math:`a` in floats: what a rounding of :math:`\varepsilon` does to the exact
    profile (the result is the exact profile at an :math:`\varepsilon` within an ulp), which matters only where
    :math:`\varepsilon/\mu \gg |a|`, that is :math:`\varepsilon \approx \mu^2/2` (:math:`3.4\cdot 10^{-7}` at
    :math:`\varepsilon = 8.65\cdot 10^{16}`). Checked against mpmath in the tests.
    Vectorized (broadcast) over ``epsilon`` and ``mu``.

    Parameters
    ----------
    epsilon : float or array_like
        ``>= 0``.
    mu : float or array_like
        ``> 0``: sensitivity divided by the noise standard deviation.

    Returns
    -------
    float or ndarray
        :math:`\delta(\varepsilon)`, broadcast over ``epsilon`` and ``mu`` (a float when both
        are scalars).

    Raises
    ------
    ValueError
        If an ``epsilon`` is negative or a ``mu`` is not ``> 0``.

    Examples
    --------
    >>> round(gaussian_delta(0.0, 1.0), 12)     # at epsilon = 0: total variation 2*Phi(1/2) - 1
    0.382924922548
    >>> tv = math.erf(1e-8 / (2 * math.sqrt(2)))  # 2*Phi(mu/2) - 1 without cancellation
    >>> abs(gaussian_delta(0.0, 1e-8) / tv - 1) < 1e-14   # Phi(a) - Phi(a - mu) would lose 8 digits
    True
    """
    if type(epsilon) in _PLAIN_NUMBERS and type(mu) in _PLAIN_NUMBERS:      # one point: no arrays (same result)
        return _gaussian_delta_scalar(check_in_range("epsilon", epsilon, 0.0),
                                      check_in_range("mu", mu, 0.0, low_inclusive=False))
    from scipy.special import log_ndtr

    eps, s1 = _array("epsilon", epsilon)
    mu, s2 = _array("mu", mu, 0.0, low_inclusive=False)
    eps, mu = np.broadcast_arrays(eps, mu)
    with np.errstate(over="ignore"):                  # eps / mu = inf: a = -inf, and delta 0 below
        ratio = eps / mu
    a = 0.5 * mu - ratio
    la = log_ndtr(a)
    lb = _log_second_term(a, 0.5 * mu + ratio)
    finite = la > -np.inf                             # la = -inf: Phi(a) and delta are 0 in floats
    gap = -np.expm1(np.minimum(lb - np.where(finite, la, 0.0), 0.0))
    delta = np.where(finite, np.exp(la) * gap, 0.0)
    hard = finite & (gap < 0.5)
    if np.any(hard):
        delta = np.array(delta, dtype=float)          # writable copy (broadcast views are not)
        delta[hard] = np.exp(_gaussian_log_delta_integral(a[hard], mu[hard]))
    return _out(delta, s1 and s2)


_PLAIN_NUMBERS = (float, int, np.float64)


def _gaussian_delta_scalar(eps: float, mu: float) -> float:
    """:func:`gaussian_delta` at one validated point: the array version's operations in the same
    order, with the same ufuncs (scipy's and numpy's, not :mod:`math`'s, whose last bit may differ),
    so that a scalar call and the same point in an array give the same float; about 20 times
    faster than the 0-d array route (validation of arrays, broadcasting, ``np.where``)."""
    special = _special()
    ratio = float(eps) / float(mu)
    a = 0.5 * float(mu) - ratio
    la = special.log_ndtr(a)
    if not la > -np.inf:                              # Phi(a) and delta are 0 in floats
        return 0.0
    gap = -np.expm1(min(_log_second_term(a, 0.5 * float(mu) + ratio) - la, 0.0))
    if gap < 0.5:
        return float(np.exp(_gaussian_log_delta_integral_scalar(a, mu)))
    return float(np.exp(la) * gap)


def _gaussian_log_delta_integral(a, mu):
    r"""``log`` of :math:`\varphi(a)\int_0^U e^{a u - u^2/2}(1 - e^{-\mu u})\,du`, by Gauss-Legendre (see :func:`gaussian_delta`).

    The weight :math:`e^{au - u^2/2}` is below :math:`e^{-40}` of its peak from
    :math:`U = 40/|a|` on when :math:`a < -40/9`, and from :math:`U = 9 + \max(a, 0)` otherwise.
    The factor :math:`\varphi(a)` is added as a logarithm, so nothing underflows.
    """
    x = -a
    upper = np.where(x > 40.0 / 9.0, 40.0 / np.maximum(x, 40.0 / 9.0), 9.0 + np.maximum(a, 0.0))
    half = 0.5 * upper[:, None]
    u = half * (_GL_NODES + 1.0)
    integrand = np.exp(a[:, None] * u - 0.5 * u * u) * -np.expm1(-mu[:, None] * u)
    integral = (half * _GL_WEIGHTS * integrand).sum(axis=1)
    return -0.5 * a * a - 0.5 * math.log(2.0 * math.pi) + np.log(integral)


_GL_NODES_PLUS_1 = _GL_NODES + 1.0
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_HALF = math.sqrt(0.5)


def _log_second_term(a, b):
    r"""``log`` of the profile's second term :math:`e^{\varepsilon}\Phi(a - \mu)`, from :math:`a = \mu/2 -
    \varepsilon/\mu` and :math:`b = \mu - a = \mu/2 + \varepsilon/\mu` (passed as such, not as a difference).

    :math:`(a - \mu)^2/2 - a^2/2 = \varepsilon`, so :math:`e^{\varepsilon}\varphi(a - \mu) = \varphi(a)` and the
    term is :math:`\varphi(a)R(b)`, :math:`R(x) = \Phi(-x)/\varphi(x) = \sqrt{\pi/2}\,\mathrm{erfcx}(x/\sqrt 2)` the
    Mills ratio: :math:`-a^2/2 + \log(\mathrm{erfcx}(b/\sqrt 2)/2)`, whose terms are of the size of :math:`a^2`
    (never above :math:`(a - \mu)^2`). The form :math:`\varepsilon + \log\Phi(a - \mu)` adds two terms of size
    :math:`\varepsilon`: from :math:`\varepsilon \approx 10^{16}` their rounding was of order 1 in the exponent,
    and ``gaussian_delta(8.65e16, 4.16e8)`` was 0.61 of the true profile (a sigma from ``gaussian_sigma`` 8e-11 too
    small, the profile there 1.63 times delta), and from about 6e18 the scalar route's ``expm1`` overflowed (a
    helper's finds). numpy ufuncs only, so that floats and arrays give the same bits; ``-inf`` without a warning
    where :math:`a^2` overflows or :math:`b = \infty` (the term is 0 in floats)."""
    special = _special()
    with np.errstate(over="ignore", divide="ignore"):
        return -0.5 * a * a + np.log(0.5 * special.erfcx(b * _SQRT_HALF))


def _gaussian_log_delta_integral_scalar(a: float, mu: float) -> float:
    """:func:`_gaussian_log_delta_integral` at one point (plain floats in and out).

    The same operations in the same order on the same 48 nodes, without the array bookkeeping
    (``np.where``, broadcasting, a 2-D grid), which at one point costs more than the integral
    itself: the result is the same float (tests compare the two bit for bit).
    """
    x = -a
    upper = 40.0 / max(x, 40.0 / 9.0) if x > 40.0 / 9.0 else 9.0 + max(a, 0.0)
    half = 0.5 * upper
    u = half * _GL_NODES_PLUS_1
    integrand = np.exp(a * u - 0.5 * u * u) * -np.expm1(-mu * u)
    integral = (half * _GL_WEIGHTS * integrand).sum()
    return float(-0.5 * a * a - 0.5 * math.log(2.0 * math.pi) + np.log(integral))


@functools.cache
def _special():
    """:mod:`scipy.special`, imported on first use: importing it takes about 0.2 s, and the package
    imports fast. (A ``from scipy.special import ...`` inside a function costs 0.5 us a call, as
    much as one evaluation of the profile by :func:`_gaussian_log_delta_scalar`.)"""
    import scipy.special

    return scipy.special


def _gaussian_log_delta_scalar(mu: float, epsilon: float, *, integral_below: float = 0.5) -> float:
    r"""``log`` of the exact Gaussian privacy profile :math:`\delta(\varepsilon)` at one point, for root finders.

    :math:`\delta = \Phi(a) - e^{\varepsilon}\Phi(b)` with :math:`a = \mu/2 - \varepsilon/\mu`,
    :math:`b = -\mu/2 - \varepsilon/\mu`. Both terms are computed as logarithms
    (``log_ndtr`` stays accurate far in the tail, where :math:`\Phi` underflows) and the
    difference as :math:`\log\Phi(a) + \log g` with :math:`g = 1 - e^{\ell_b - \ell_a}` (``expm1``).
    Where :math:`g` is small the two terms cancel and that difference loses
    :math:`\log_{10}(1/g)` digits, so where :math:`g` is below ``integral_below`` (``> 0``) the
    cancellation-free integral of :func:`gaussian_delta` is used instead (about five times
    slower; :func:`dpnotes.mechanisms.gaussian_sigma`'s Newton iterations use it only where
    ``g < 1e-6``). ``-inf`` where :math:`\log\Phi(a)` is (:math:`a < -10^{154}`).

    Plain floats in and out, no validation: scipy's ufuncs called on a Python float and
    :mod:`math` keep a call under a microsecond, where :func:`gaussian_delta` on a scalar
    (validation, 0-d arrays, broadcasting) takes tens.
    """
    special = _special()
    ratio = epsilon / mu
    a = 0.5 * mu - ratio
    la = float(special.log_ndtr(a))
    if la == -math.inf:
        return la
    gap = -math.expm1(min(float(_log_second_term(a, 0.5 * mu + ratio)) - la, 0.0))
    if gap < integral_below:
        return _gaussian_log_delta_integral_scalar(a, mu)
    return la + math.log(gap)


def gaussian_epsilon(delta, mu) -> float:
    r"""Smallest :math:`\varepsilon \ge 0` with :func:`gaussian_delta` :math:`(\varepsilon, \mu) \le \delta`.

    The profile decreases in :math:`\varepsilon`; the root is bracketed by
    :math:`[0, \varepsilon_1]` where :math:`\varepsilon_1` solves the tail bound
    :math:`\Phi(\mu/2 - \varepsilon/\mu) = \delta` and found with Brent's method. From
    :math:`\mu = 10^6` on it is found in :math:`a = \mu/2 - \varepsilon/\mu` instead, where the profile
    is :math:`\Phi(a) - \varphi(a)R(\mu - a)` (:math:`R` the Mills ratio) and nothing of size
    :math:`\mu^2/2` cancels.

    Parameters
    ----------
    delta : float
        In ``(0, 1)``.
    mu : float
        ``> 0``: sensitivity divided by the noise standard deviation.

    Returns
    -------
    float
        The epsilon, to a relative tolerance of a few machine epsilons (near :math:`\delta = 1` found
        from :math:`1 - \delta`, which keeps its digits there); ``inf`` where it exceeds
        the doubles (:math:`\mu` above about :math:`1.9 \cdot 10^{154}`, where
        :math:`\varepsilon \approx \mu^2/2`).

    Raises
    ------
    ValueError
        If ``delta`` is outside ``(0, 1)`` or ``mu <= 0``.

    Examples
    --------
    >>> e = gaussian_epsilon(1e-5, 0.5)
    >>> abs(gaussian_delta(e, 0.5) - 1e-5) < 1e-17
    True
    """
    delta = check_delta("delta", delta)
    if delta == 0.0:
        raise ValueError("delta must be in (0, 1) for the Gaussian mechanism, got 0")
    mu = check_positive("mu", mu)
    if gaussian_delta(0.0, mu) <= delta:
        return 0.0
    if mu >= _LARGE_MU:
        return _gaussian_epsilon_large_mu(delta, mu)
    hi = mu * (0.5 * mu - float(_special().ndtri(delta)))     # tail bound: delta(hi) <= P[L >= hi] = delta
    if delta > 0.5:
        # near 1, delta(e) has no digits left to tell it from the target (delta = 1 - 2**-53, mu = 38: the
        # bracket's end rounded above it and brentq refused the bracket): solve for 1 - delta(e) instead,
        # a sum of two positive terms (_gaussian_log_complement_scalar), increasing in e
        target_c = math.log1p(-delta)

        def gap(e):
            return target_c - _gaussian_log_complement_scalar(mu, e)
    else:
        target = math.log(delta)

        def gap(e):
            # log delta straight from the scalar evaluator (the forms of gaussian_delta, without arrays: 10 to
            # 100 times faster a call). In logs nothing underflows: delta(hi) itself is 0 in floats when
            # delta = 5e-324, its log is not; and a = mu/2 - e/mu >= z > -39 on [0, hi], so never -inf
            return _gaussian_log_delta_scalar(mu, e) - target
    # relative tolerance only (_least_root): an absolute 1e-15 was 2.5e-9 of the root eps = 4e-7 (sigma = 1e7),
    # enough to leave delta(eps) 4e-9 above the target, and an absolute 1e-300 was 10 % of the root at mu = 1e-300.
    # brentq solves on log delta: a delta a few doubles below delta(0) has the same log, and it returned its
    # bracket's end 0, where the profile is above delta (mu = 1/6: 0 for a root of 4.8e-16, not an upper bound);
    # elsewhere its root may sit an ulp of the profile above delta. Moved up to where the profile is at most delta.
    return _least_root(lambda e: -gap(e), hi, ok=lambda e: gaussian_delta(e, mu) <= delta)


def _least_at_or_above(ok, x: float) -> float:
    r"""The least double :math:`\ge x`, to a few machine epsilons, where ``ok`` holds (a predicate that holds from
    some point on, up to rounding): ``x`` itself if it holds there; else steps of an ulp of ``x``, doubled until it
    holds (from ``x = 0``: the least subnormal, times :math:`2^{32}` a step, 34 steps across the doubles), then
    bisection (geometric while the bracket spans more than a factor 4). Not one double at a time: a profile near its
    root moves in steps of its own rounding, which near :math:`\varepsilon = 0` is about :math:`10^{16}` doubles
    wide (a walk by ``nextafter`` from a root of 7e-17 did not end). Used wherever a root finder's answer must be
    on the documented side of its target (an upper bound on epsilon, a noise scale that meets delta)."""
    if ok(x):
        return x
    lo, step = x, max(abs(x) * 2.0**-52, 5e-324)
    hi = x + step
    while not ok(hi):
        if hi == math.inf:
            return math.inf
        lo, step = hi, step * (2.0 if x != 0.0 else 2.0**32)
        hi = x + step
    while hi - lo > 4.0 * np.finfo(float).eps * hi:
        mid = lo * math.sqrt(hi / lo) if 0.0 < 4.0 * lo < hi else 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def _least_root(gap, top: float | None = None, ok=None) -> float:
    r"""The least :math:`x \ge 0` where ``gap``, increasing in ``x`` up to rounding, is :math:`\ge 0` (``ok(x)``
    instead, when given: the predicate the answer must meet, such as a profile at most its target, where ``gap`` is
    a better-conditioned form of it). ``0.0`` if it holds at 0. Else the bracket :math:`[0, \mathrm{top}]`, where it
    holds at ``top``; without ``top``, the first of 1, 2, 4, ... where ``gap >= 0`` (``inf`` if none is a double).
    Then :func:`scipy.optimize.brentq` to a relative :math:`4\epsilon_{\mathrm{mach}}` (an absolute tolerance was
    a large share of tiny roots), and the root moved up by :func:`_least_at_or_above` to where the predicate holds
    (brentq's root may sit on either side of the crossing), never past ``top`` where ``top`` meets the predicate.
    One route for every "least epsilon that meets delta" whose root has no closed form (the census's composition,
    k-fold randomized response near delta = 1, one subsampled step, the Gaussian pair)."""
    from scipy.optimize import brentq

    if ok is None:
        ok = lambda x: gap(x) >= 0.0                      # noqa: E731
    if ok(0.0):
        return 0.0
    if top is None:
        top = 1.0
        while gap(top) < 0.0:
            if top == np.finfo(float).max:
                return math.inf
            top = min(2.0 * top, float(np.finfo(float).max))
    # maxiter: bisection alone needs about 1100 halvings from [0, 1] to a root of 1e-300 (brentq falls back to it
    # where the gap bends sharply, as cbrt(t) - cbrt(1e-300) does: 500 iterations did not converge)
    root = float(brentq(gap, 0.0, top, xtol=5e-324, rtol=4.0 * np.finfo(float).eps, maxiter=3000))
    least = _least_at_or_above(ok, root)
    return top if least > top and ok(top) else least


def _gaussian_log_complement_scalar(mu: float, epsilon: float) -> float:
    r"""``log`` of :math:`1 - \delta(\varepsilon)` of the Gaussian pair, for :func:`gaussian_epsilon` near
    :math:`\delta = 1`: :math:`\Phi(-a) + e^{\varepsilon}\Phi(a - \mu)` with :math:`a = \mu/2 - \varepsilon/\mu`,
    whose second term is :math:`\varphi(a) R(\mu - a)` (:func:`_log_second_term`): two positive terms, no
    cancellation."""
    special = _special()
    ratio = epsilon / mu
    a = 0.5 * mu - ratio
    return float(np.logaddexp(float(special.log_ndtr(-a)), float(_log_second_term(a, 0.5 * mu + ratio))))


_LARGE_MU = 1e6      # from here on gaussian_epsilon solves for a = mu/2 - eps/mu (see _gaussian_epsilon_large_mu)


def _gaussian_epsilon_large_mu(delta: float, mu: float) -> float:
    r""":func:`gaussian_epsilon` for ``mu >= _LARGE_MU``: the root found in :math:`a = \mu/2 - \varepsilon/\mu`.

    With :math:`\varepsilon = \mu(\mu/2 - a)`, :math:`e^{\varepsilon}\varphi(a - \mu) = \varphi(a)`, so
    :math:`e^{\varepsilon}\Phi(a - \mu) = \varphi(a) R(\mu - a)` (:math:`R` the Mills ratio,
    :math:`\sqrt{\pi/2}\,\mathrm{erfcx}(x/\sqrt 2)`) and :math:`\delta = \Phi(a) - \varphi(a) R(\mu - a)`, which
    increases with :math:`a`: no term of size :math:`\mu^2/2` to cancel. In :math:`\varepsilon` the profile
    needs :math:`\varepsilon + \log\Phi(a - \mu)`, two terms near :math:`\mu^2/2`: from :math:`\mu \approx 3\cdot
    10^7` their rounding exceeded the margin of the bracket's end (brentq refused it: "f(a) and f(b) must have
    different signs"), and at :math:`\mu = 10^{300}` the end :math:`\mu(\mu/2 - z)` overflowed (no
    convergence). The root lies in :math:`[z, \mu/2]`, :math:`z = \Phi^{-1}(\delta)` (the tail bound
    :math:`\delta(\varepsilon) \le \Phi(a)`); where :math:`\varphi(a) R(\mu - a)`, about :math:`|z|/\mu` of
    :math:`\Phi(z)`, is lost in rounding the root is :math:`z` itself, the tail bound's
    :math:`\varepsilon`, which is above the root by that much. :math:`\varepsilon = \mu(\mu/2 - a)` is ``inf``
    where it exceeds the doubles (:math:`\mu` above about :math:`1.9 \cdot 10^{154}`).
    """
    from scipy.optimize import brentq

    special = _special()
    target = math.log(delta)

    def gap(a):
        la = float(special.log_ndtr(a))
        lb = float(_log_second_term(a, mu - a))
        return la + math.log1p(-math.exp(lb - la)) - target     # lb < la - 0.03 here: no cancellation

    z = float(special.ndtri(delta))
    if gap(z) >= 0.0:
        a = z
    else:
        # eps = mu (mu/2 - a) to a relative 2^-52 needs a to an absolute 2^-54 mu (mu/2 - a) / mu
        a = brentq(gap, z, 0.5 * mu, xtol=2.0**-54 * (0.5 * mu - z), rtol=4.0 * np.finfo(float).eps, maxiter=400)
    eps = float(mu * (0.5 * mu - a))
    if eps == math.inf:
        return eps
    # brentq's a may sit a rounding unit past the crossing and mu (mu/2 - a) rounds either way: eps was an ulp below
    # the root in 29 of 60 random cases (mu from 1e6 to 1e150), where the profile is above delta. Moved up to where
    # the profile in a is at most delta, with a = mu/2 - eps/mu exact in rationals and rounded once (in floats
    # eps/mu loses more than an ulp of eps moves a once mu passes 1e8: the step's test would be noise). From mu ~
    # 1e16 on, an ulp of eps moves a by more than 1 (by 1e63 at mu = 5e79): below z - 1 the tail bound
    # delta(a) <= Phi(a) settles it, where gap's -a^2/2 would be rounded by more than exp can take.
    half_mu, f_mu = Fraction(mu) / 2, Fraction(mu)

    def meets_delta(e: float) -> bool:
        if e == math.inf:
            return True
        a = float(half_mu - Fraction(e) / f_mu)
        return a < z - 1.0 or gap(a) <= 0.0

    return _least_at_or_above(meets_delta, eps)


def gaussian_loss(mu):
    r"""The privacy loss of the Gaussian mechanism as a frozen ``scipy.stats.norm``: :math:`N(\mu^2/2, \mu^2)`.

    With :math:`y \sim N(0,\sigma^2)` and the neighbour's law :math:`N(\Delta, \sigma^2)`,
    :math:`L = (\Delta^2 - 2y\Delta)/(2\sigma^2)` is linear in :math:`y`, hence normal, with
    mean :math:`\mu^2/2` and variance :math:`\mu^2`.

    Parameters
    ----------
    mu : float
        ``> 0``: sensitivity divided by the noise standard deviation.

    Returns
    -------
    scipy.stats.rv_continuous_frozen
        ``scipy.stats.norm(loc=mu**2 / 2, scale=mu)``.

    Raises
    ------
    ValueError
        If ``mu <= 0``.

    Examples
    --------
    >>> law = gaussian_loss(2.0)
    >>> float(law.mean()), float(law.std())
    (2.0, 2.0)
    """
    from scipy import stats

    mu = check_positive("mu", mu)
    return stats.norm(loc=0.5 * mu * mu, scale=mu)


def gaussian_loss_tail(epsilon, mu):
    r""":math:`\Pr[L \ge \varepsilon] = \Phi(\mu/2 - \varepsilon/\mu)` for the Gaussian loss (a continuous law: :math:`>` and :math:`\ge` agree).

    Parameters
    ----------
    epsilon : float or array_like
        Any real numbers.
    mu : float
        ``> 0``: sensitivity divided by the noise standard deviation.

    Returns
    -------
    float or ndarray
        The tail probability, one per ``epsilon`` (a float for a scalar ``epsilon``).

    Raises
    ------
    ValueError
        If ``mu <= 0`` or an ``epsilon`` is not a number.

    Examples
    --------
    >>> round(gaussian_loss_tail(0.5, 1.0), 12)
    0.5
    """
    from scipy.special import log_ndtr, ndtr

    mu = check_positive("mu", mu)
    eps, scalar = _array("epsilon", epsilon, -math.inf)
    x = 0.5 * mu - eps / mu
    # ndtr underflows to 0 below x = -37.5 while Phi(x) is still a subnormal number (down to
    # x = -38.5); exp(log_ndtr) keeps those values, as gaussian_delta (built on log_ndtr) does
    return _out(np.where(x < -37.0, np.exp(log_ndtr(x)), ndtr(x)), scalar)


def gaussian_test_power(gamma, mu):
    r"""Power of the most powerful level-:math:`\gamma` test of :math:`N(0,1)` against :math:`N(\mu,1)`.

    By the Neyman–Pearson lemma the test rejects for large outputs; at level
    :math:`\gamma` its power is :math:`\Phi(\Phi^{-1}(\gamma) + \mu)`. For the Gaussian
    mechanism :math:`\mu = \Delta/\sigma`.

    Parameters
    ----------
    gamma : float or array_like
        The level, in ``[0, 1]``.
    mu : float
        ``> 0``.

    Returns
    -------
    float or ndarray
        The power, one per ``gamma`` (a float for a scalar ``gamma``).

    Raises
    ------
    ValueError
        If ``mu <= 0`` or a ``gamma`` is outside ``[0, 1]``.

    Examples
    --------
    >>> round(gaussian_test_power(0.5, 0.0 + 1e-12), 6)
    0.5
    """
    from scipy.special import ndtr, ndtri

    mu = check_positive("mu", mu)
    g, scalar = _array("gamma", gamma)
    if np.max(g) > 1:
        check_in_range("gamma", float(np.max(g)), 0.0, 1.0)
    return _out(ndtr(ndtri(g) + mu), scalar)
