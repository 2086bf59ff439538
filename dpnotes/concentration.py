"""Concentration inequalities for sums of bounded variables, and the privacy-loss martingale.

The advanced composition theorem (chapter "composition") rests on one of two
tail bounds: Azuma's inequality for a martingale (the privacy losses of adaptively
chosen mechanisms) or Hoeffding's inequality for independent summands (after the
reduction to randomized response). Both are closed forms; this module evaluates
them and simulates the privacy loss process they are applied to.
"""

from __future__ import annotations

import math

import numpy as np

from ._validate import MAX_ENTRIES, check_array, check_in_range, check_integer, check_positive, check_rng

__all__ = ["azuma_bound", "hoeffding_bound", "rr_loss_paths"]


def azuma_bound(t, c):
    r"""Azuma's inequality: :math:`\Pr[\sum_i X_i \ge \sum_i \beta_i + t] \le \exp(-t^2 / (2\sum_i c_i^2))`.

    Hypotheses (:cite:`dwork2014algorithmic` Theorem 3.21 for equal :math:`c_i`;
    :cite:`boucheron2013concentration`): :math:`|X_i| \le c_i` and
    :math:`\mathbb{E}[X_i \mid X_1, \dots, X_{i-1}] \le \beta_i` -- the condition is on
    the *past* only. The deviations :math:`X_i - \mathbb{E}[X_i\mid\text{past}]` then lie
    in intervals of length :math:`2c_i`, and the Azuma--Hoeffding bound
    :math:`\exp(-2t^2/\sum_i(2c_i)^2)` is the formula above.

    Parameters
    ----------
    t : float or array_like
        Deviation above the sum of the conditional-mean bounds, ``>= 0``.
    c : array_like
        The bounds :math:`c_i > 0` (one per step).

    Returns
    -------
    float or numpy.ndarray
        The bound, same shape as ``t``.

    Examples
    --------
    >>> round(float(azuma_bound(2.0, [1.0, 1.0])), 12) == round(math.exp(-1.0), 12)
    True
    """
    c = _float_array("c", c)
    if c.ndim != 1 or c.size == 0 or not np.all(np.isfinite(c)) or np.any(c <= 0):
        raise ValueError(f"c must be a non-empty 1-D array of finite values > 0, got {c.tolist()!r}")
    t = _nonneg_array("t", t)
    # t / ||c||_2 in units of the largest c_i: t * t and sum(c * c) overflow (inf / inf = nan at
    # t = c = 1e300, where the bound is exp(-1/2)) or underflow (0 / 0 at c = 1e-300)
    scale = float(np.max(c))
    with np.errstate(over="ignore", under="ignore"):      # inf -> a bound of 0, 0 -> a bound of 1
        ratio = (t / scale) / math.sqrt(float(np.sum((c / scale) ** 2)))
        out = np.exp(-0.5 * ratio * ratio)
    return float(out) if out.ndim == 0 else out


def hoeffding_bound(tau, n, a, b):
    r"""Hoeffding's inequality for ``n`` **independent** variables in ``[a, b]``.

    With :math:`X = \sum_i X_i`, both tails obey the same bound:

    .. math:: \Pr[X \ge \mathbb{E}X + \tau] \le e^{-2\tau^2/(n(b-a)^2)},\qquad
              \Pr[X \le \mathbb{E}X - \tau] \le e^{-2\tau^2/(n(b-a)^2)}.

    (:cite:`boucheron2013concentration` Theorem 2.8; called the "Chernoff bound,
    non-Bernoulli version" in source 001, Theorem 4, whose lower tail lost the 2.)

    Parameters
    ----------
    tau : float or array_like
        Deviation, ``>= 0``.
    n : int
        Number of summands, ``>= 1``.
    a, b : float
        The range of each summand, finite, ``a < b`` (any finite floats: a width
        ``b - a`` beyond the float range or down to a subnormal is handled).

    Returns
    -------
    float or ndarray
        The bound on either tail, one per ``tau`` (a float for a scalar ``tau``): 1 at
        ``tau = 0``, tending to 0 as ``tau / (b - a)`` grows (exactly 0 once it underflows).

    Raises
    ------
    ValueError
        If ``tau < 0``, ``n`` is not an integer ``>= 1``, ``a`` or ``b`` is not finite, or
        ``b <= a`` (the message names both).

    Examples
    --------
    >>> round(float(hoeffding_bound(5.0, 20, 0.0, 1.0)), 12) == round(math.exp(-2.5), 12)
    True
    """
    n = check_integer("n", n, low=1)
    a = check_in_range("a", a)
    b = check_in_range("b", b)
    if not b > a:
        raise ValueError(f"b must be > {_num(a)} = a (a must be < b), got a = {_num(a)}, b = {_num(b)}")
    tau = _nonneg_array("tau", tau)
    # the exponent is -2 q^2 with q = tau / ((b - a) sqrt(n)), formed without squaring: (b - a) ** 2
    # overflowed at a = -1e300 (OverflowError) and tau * tau / inf gave nan at tau = b = 1e300
    width = b - a
    root_n = math.sqrt(n) if n < 2**1000 else math.exp(0.5 * math.log(n))
    with np.errstate(over="ignore", under="ignore"):      # inf -> a bound of 0, 0 -> a bound of 1
        if math.isinf(width):              # b - a > 1.8e308: the halves subtract exactly
            ratio = (tau * 0.5) / (b * 0.5 - a * 0.5)
        else:
            ratio = tau / width
        q = ratio / root_n
        out = np.exp(-2.0 * q * q)
    return float(out) if out.ndim == 0 else out


def rr_loss_paths(epsilon, k, n_paths, rng, adaptive=False):
    r"""Simulate the privacy loss martingale of ``k`` randomized responses on one person's bit.

    Step :math:`i` runs randomized response with parameter :math:`\varepsilon_i` on the bit
    (the data set ``x`` has bit 1, its neighbour ``x'`` bit 0) and adds the loss
    :math:`\pm\varepsilon_i` (``+`` when the report is 1). Non-adaptive:
    :math:`\varepsilon_i = \varepsilon`. Adaptive: the analyst uses
    :math:`\varepsilon_i = \varepsilon` after a report of 1 and :math:`\varepsilon/2` after a 0
    (and :math:`\varepsilon` first), so the next mechanism depends on earlier outputs.
    The conditional mean of step :math:`i` given the past is
    :math:`\varepsilon_i\tanh(\varepsilon_i/2)`.

    Parameters
    ----------
    epsilon : float
        Largest per-step parameter, ``> 0``.
    k : int
        Number of steps, in ``[1, 10**8]`` (an n_paths-by-k array of floats is drawn: 800 MB
        for one path at the cap).
    n_paths : int
        Number of simulated paths, in ``[1, 10**8]`` (likewise).
    rng : numpy.random.Generator
    adaptive : bool

    Returns
    -------
    loss : numpy.ndarray, shape (n_paths,)
        Total privacy loss :math:`\sum_i X_i` of each path.
    compensator : numpy.ndarray, shape (n_paths,)
        :math:`\sum_i \mathbb{E}[X_i \mid \text{past}]` of each path.

    Examples
    --------
    >>> loss, comp = rr_loss_paths(0.5, 4, 3, np.random.default_rng(0))
    >>> bool(np.all(np.abs(loss) <= 2.0 + 1e-12)) and bool(np.allclose(comp, 4 * 0.5 * math.tanh(0.25)))
    True
    """
    epsilon = check_positive("epsilon", epsilon)
    k = check_integer("k", k, low=1, high=MAX_ENTRIES)
    n_paths = check_integer("n_paths", n_paths, low=1, high=MAX_ENTRIES)
    rng = check_rng("rng", rng)
    u = rng.random((n_paths, k))
    if not adaptive:
        keep = 1.0 / (1.0 + math.exp(-epsilon))
        steps = np.where(u < keep, epsilon, -epsilon)
        return steps.sum(axis=1), np.full(n_paths, k * epsilon * math.tanh(epsilon / 2.0))
    loss = np.zeros(n_paths)
    comp = np.zeros(n_paths)
    eps_i = np.full(n_paths, epsilon)
    for i in range(k):                       # k steps, vectorized over paths
        keep = 1.0 / (1.0 + np.exp(-eps_i))
        report_one = u[:, i] < keep          # the true bit is 1 under x
        loss += np.where(report_one, eps_i, -eps_i)
        comp += eps_i * np.tanh(eps_i / 2.0)
        eps_i = np.where(report_one, epsilon, epsilon / 2.0)
    return loss, comp


def _num(x: float) -> str:
    """A float as the message shows it: 1 for 1.0, 1e+300 (not 301 digits) for 1e300."""
    return str(int(x)) if x.is_integer() and abs(x) < 1e16 else repr(x)


def _float_array(name, x):
    # None, bool scalars, strings and complex numbers are refused here with the parameter's name
    return check_array(name, x, allow_inf=True, allow_nan=True, allow_empty=True)


def _nonneg_array(name, x):
    arr = _float_array(name, x)
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        bad = arr[~(np.isfinite(arr) & (arr >= 0))].ravel()[0]
        raise ValueError(f"{name} must be >= 0, got {float(bad)!r}")
    return arr
