"""Mechanisms: exact output laws, calibrations and seeded samplers.

Randomized response is the book's first mechanism (chapter "definition"). The
chapter on approximate DP adds the "publish each record with probability delta"
mechanism, sensitivities (brute force over replace-one neighbours, Mahalanobis),
the Laplace mechanism and the Gaussian mechanism with three calibrations of its
noise: the classical one, the one of Hall, Rinaldo and Wasserman (2013), and the
exact ("analytic") one of Balle and Wang (2018). The exact privacy profiles of
these mechanisms live in :mod:`dpnotes.loss`.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ._validate import check_array, check_delta, check_in_range, check_integer, check_positive, check_rng
from .loss import _LOG_SQRT_2PI, _least_at_or_above, _special, gaussian_delta
from .loss import _gaussian_log_delta_scalar as _gaussian_log_delta  # its Newton steps patch it in tests

__all__ = [
    "rr_keep_probability",
    "rr_epsilon",
    "rr_matrix",
    "randomized_response",
    "randomized_response_log_pmf",
    "gaussian_sigma",
    "publish_each",
    "publish_any_probability",
    "replace_one_neighbours",
    "sensitivity",
    "mahalanobis_sensitivity",
    "laplace_scale",
    "laplace_epsilon",
    "laplace_mechanism",
    "gaussian_mechanism",
]


def rr_keep_probability(epsilon) -> float:
    r"""Probability that randomized response reports the true bit.

    Randomized response with parameter :math:`\varepsilon` reports the true bit with
    probability :math:`p = e^{\varepsilon}/(1+e^{\varepsilon})` and the flipped bit
    otherwise, so that :math:`p/(1-p) = e^{\varepsilon}` (book, definition of
    randomized response; :cite:`warner1965randomized`, :cite:`dwork2014algorithmic` §3.2).

    Parameters
    ----------
    epsilon : float
        Privacy parameter, ``>= 0`` (``0`` gives a fair coin, which ignores the data).

    Returns
    -------
    float
        The keep-probability, in ``[1/2, 1)``.

    Examples
    --------
    >>> rr_keep_probability(math.log(3))
    0.75
    """
    epsilon = check_in_range("epsilon", epsilon, 0.0)
    # 1/(1+e^{-eps}) is the logistic function: stable for large epsilon.
    return float(1.0 / (1.0 + math.exp(-epsilon)))


def rr_epsilon(keep_probability) -> float:
    r"""The exact :math:`\varepsilon` of randomized response that keeps the bit with probability ``p``.

    The largest ratio of output probabilities on the two inputs is
    :math:`\max(p/(1-p), (1-p)/p)`, so :math:`\varepsilon = |\log(p/(1-p))|`.

    Parameters
    ----------
    keep_probability : float
        ``p`` in ``(0, 1)``.

    Returns
    -------
    float
        :math:`|\log(p/(1-p))|`, ``>= 0``.

    Raises
    ------
    ValueError
        If ``keep_probability`` is outside ``(0, 1)``.

    Examples
    --------
    >>> round(rr_epsilon(0.75), 12) == round(math.log(3), 12)
    True
    """
    p = check_in_range("keep_probability", keep_probability, 0.0, 1.0,
                       low_inclusive=False, high_inclusive=False)
    if 0.25 <= p <= 0.75:
        # log p - log(1-p) cancels near p = 1/2 (eps = 1e-10 kept only 7 digits); 2p - 1 is exact
        # here (Sterbenz) and log(p/(1-p)) = 2 atanh(2p - 1) is accurate to the last digit
        return float(abs(2.0 * math.atanh(2.0 * p - 1.0)))
    return float(abs(math.log(p) - math.log1p(-p)))


def rr_matrix(epsilon) -> np.ndarray:
    r"""The 2x2 channel of randomized response: ``M[x, y] = Pr[report y | true bit x]``.

    Parameters
    ----------
    epsilon : float
        ``>= 0``.

    Returns
    -------
    ndarray of shape (2, 2)
        Keep probability :func:`rr_keep_probability` on the diagonal, its complement off it.

    Raises
    ------
    ValueError
        If ``epsilon < 0``.

    Examples
    --------
    >>> rr_matrix(math.log(3))
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    p = rr_keep_probability(epsilon)
    # 1 - p formed as e^-eps/(1 + e^-eps): the subtraction 1 - p loses log10(e^eps) digits
    # (a thousandth of the flip probability at eps = 30), and the ratio p/(1-p) must be e^eps
    t = math.exp(-epsilon)
    q = t / (1.0 + t)
    return np.array([[p, q], [q, p]])


def _bits(name: str, x) -> np.ndarray:
    arr = np.asarray(x)
    if arr.size and not np.isin(arr, (0, 1)).all():
        raise ValueError(f"{name} must contain only 0 and 1, got values {np.unique(arr)[:5].tolist()}")
    return arr.astype(np.int8)


def randomized_response(x, epsilon, rng) -> np.ndarray:
    r"""Apply randomized response independently to every bit of ``x``.

    Each bit is reported truthfully with probability
    :func:`rr_keep_probability` and flipped otherwise. Applied to every record of
    a data set this is :math:`\varepsilon`-DP for the replace-one relation.

    Parameters
    ----------
    x : array_like of {0, 1}
        The true bits (any shape).
    epsilon : float
        Privacy parameter, ``>= 0``.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray of int8
        The reported bits, same shape as ``x``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> randomized_response([0, 1, 1, 0], 50.0, rng).tolist()   # huge epsilon: truthful
    [0, 1, 1, 0]
    """
    bits = _bits("x", x)
    p = rr_keep_probability(epsilon)
    rng = check_rng("rng", rng)
    flip = rng.random(bits.shape) >= p
    return (bits ^ flip).astype(np.int8)


def randomized_response_log_pmf(y, x, epsilon) -> np.ndarray:
    r"""Log-probability that record-wise randomized response on data set ``x`` outputs ``y``.

    With keep-probability :math:`p`, :math:`\log \Pr[\mathrm{RR}(x) = y] =
    a \log p + d \log(1-p)` where :math:`a` and :math:`d` count the positions where
    ``y`` agrees and disagrees with ``x``. Both logarithms are formed from
    :math:`\varepsilon` directly (:math:`\log p = -\log(1+e^{-\varepsilon})`,
    :math:`\log(1-p) = \log p - \varepsilon`), so they are exact for every
    :math:`\varepsilon`, also where :math:`p` itself rounds to 1.

    Parameters
    ----------
    y : array_like of {0, 1}, shape (..., n)
        One output vector, or a stack of them (last axis = records).
    x : array_like of {0, 1}, shape (n,)
        The data set.
    epsilon : float
        Privacy parameter, ``>= 0``.

    Returns
    -------
    numpy.ndarray
        Log-probabilities, shape ``y.shape[:-1]``.

    Examples
    --------
    >>> float(np.exp(randomized_response_log_pmf([1, 0], [1, 1], math.log(3))))
    0.1875
    """
    y = _bits("y", y)
    x = _bits("x", x)
    if x.ndim != 1 or y.shape[-1:] != x.shape:
        raise ValueError(f"y must have last axis of length {x.shape[-1] if x.ndim else 0} "
                         f"(the size of x), got shape {y.shape}")
    epsilon = check_in_range("epsilon", epsilon, 0.0)
    # log p and log(1 - p) straight from epsilon: 1 - p formed from a rounded p would lose
    # log10(e^eps) digits and round to 0 (log = -inf, an infinite privacy loss) from eps = 36.7 on
    log_p = -math.log1p(math.exp(-epsilon))        # log(e^eps / (1 + e^eps))
    log_q = log_p - epsilon                         # log(1 / (1 + e^eps))
    disagree = (y != x).sum(axis=-1)
    agree = x.shape[0] - disagree
    return agree * log_p + disagree * log_q


def _analytic_sigma(epsilon: float, delta: float) -> float:
    r"""Smallest :math:`\sigma` (for sensitivity 1) with exact Gaussian profile :math:`\delta(\varepsilon) \le \delta`:
    :func:`_analytic_sigma_root`, moved up to where :func:`dpnotes.loss.gaussian_delta` at :math:`\mu = 1/\sigma` is
    at most ``delta``. The root was a few ulps low in 172 of 207 cases a reviewer ran (8e-15 relative at worst, within
    the stated accuracy but always on the unsafe side), and the first bound was returned on a tie of logarithms
    (:math:`\varepsilon = 10^{-300}`, :math:`\delta = 0.3`: ``erfinv`` had rounded it an ulp past the root)."""
    return _least_at_or_above(lambda s: gaussian_delta(epsilon, 1.0 / s) <= delta, _analytic_sigma_root(epsilon, delta))


def _analytic_sigma_root(epsilon: float, delta: float) -> float:
    r"""The root :math:`\sigma` (for sensitivity 1) of :math:`\delta(\varepsilon; 1/\sigma) = \delta`, to about machine
    precision.

    The profile :math:`\delta(\varepsilon;\mu)` increases in :math:`\mu = 1/\sigma`, so
    the answer is the root of :math:`\log\delta(\varepsilon;\mu) = \log\delta`
    (:cite:`balle2018improving` Theorem 8 gives the profile). Two lower bounds of the root
    start the search: the tail bound :math:`\delta(\varepsilon;\mu) \le
    \Pr[L \ge \varepsilon] = \Phi(\mu/2 - \varepsilon/\mu)`, whose equality case solves to
    :math:`\mu_0 = z + \sqrt{z^2 + 2\varepsilon}` with :math:`z = \Phi^{-1}(\delta)`, and the
    total variation :math:`\delta(\varepsilon;\mu) \le \delta(0;\mu) = \operatorname{erf}(\mu/(2\sqrt2))`,
    equal to :math:`\delta` at :math:`\mu_1 = 2\sqrt2\operatorname{erf}^{-1}(\delta)`. From the
    larger one, Newton's method on :math:`\log\delta` as a function of :math:`\log\mu`, with the
    exact derivative :math:`\partial\delta/\partial\mu = \varphi(\mu/2 - \varepsilon/\mu)`, kept
    inside the bracket its own steps build (doubling, or bisecting, when a step leaves it). Its
    steps use the fast form of the profile wherever that keeps at least six digits; once a step
    is below ``1e-7`` (relative), Newton steps on the cancellation-free profile bring the root to
    machine precision (one step, as a rule). Above :math:`\delta = 1/2`, :func:`_analytic_mu_near_one`.
    """
    special = _special()
    z = float(special.ndtri(delta))
    # sqrt(z^2 + 2 eps) as sqrt(2) sqrt(z^2 / 2 + eps), and 2 eps / (root - z) as 2 (eps / (root - z)): 2 eps overflowed
    # from eps = 9e307 (root inf, mu_0 = inf / inf = nan: "mu must be a real number, got nan", a helper's find)
    root = math.sqrt(2.0) * math.sqrt(0.5 * z * z + epsilon)
    # mu_0 = z + root > 0; for z < 0 that sum cancels (to 0 when epsilon << z^2), the product form does not
    mu_0 = 2.0 * (epsilon / (root - z)) if z < 0.0 else z + root
    mu = max(mu_0, 2.0 * math.sqrt(2.0) * float(special.erfinv(delta)))
    if delta > 0.5:
        return 1.0 / _analytic_mu_near_one(epsilon, delta, mu)
    target = math.log(delta)

    def newton_step(mu, log_delta):
        """Newton step in log(mu): (target - log delta(mu)) / (mu phi(a) / delta(mu)), the derivative of
        log delta in log mu; None where that slope underflows or the step would overflow exp."""
        a = 0.5 * mu - epsilon / mu
        # an exponent past 709 overflows exp; the slope is then at least mu e^709, and a step of
        # (target - log delta) / that is zero in double precision: mu is the root (epsilon = 1e300)
        slope = mu * math.exp(min(-0.5 * a * a - _LOG_SQRT_2PI - log_delta, 709.0))
        if not slope > 0.0:
            return None
        step = (target - log_delta) / slope
        return step if abs(step) < 700.0 else None

    lo, hi = 0.0, math.inf                      # a bracket of the root, from the signs seen so far
    for it in range(200):
        log_delta = _gaussian_log_delta(mu, epsilon, integral_below=1e-6)
        if log_delta < target:
            lo = mu
        elif it == 0:                           # a lower bound already meets delta (by rounding): the root
            return 1.0 / mu
        else:
            hi = mu
        step = newton_step(mu, log_delta)
        new = mu * math.exp(step) if step is not None else math.nan
        if not lo < new < hi:                   # a step out of the bracket (or a zero slope): double or bisect
            step = None
            new = 2.0 * mu if hi == math.inf else math.sqrt(lo) * math.sqrt(hi)
            if not lo < new < hi:               # lo and hi are neighbouring floats
                break
        mu = new
        if step is not None and abs(step) <= 1e-7:
            break
    for _ in range(3):                          # the cancellation-free profile for the last digits
        step = newton_step(mu, _gaussian_log_delta(mu, epsilon))
        if step is None:
            break
        mu *= math.exp(step)
        if abs(step) <= 1e-10:                  # the next step would be below 1e-20 (Newton squares it)
            break
    return 1.0 / mu


def _analytic_mu_near_one(epsilon: float, delta: float, mu_low: float) -> float:
    """The root mu of delta(epsilon; mu) = delta for delta > 1/2, sought on log(1 - delta(epsilon; mu)), which falls in
    mu: two positive terms (:func:`dpnotes.loss._gaussian_log_complement_scalar`), no cancellation. On log delta, as
    below 1/2, the target had no digits left near 1 (log delta ~ -(1 - delta)): sigma was 1e-6 off at 1 - delta =
    1e-12 and 7e-3 at 2^-53 (a helper's measurement against mpmath roots). ``mu_low`` is a lower bound of the root
    (the profile there is at most delta); the bracket's upper end is found by doubling."""
    from scipy.optimize import brentq

    from .loss import _gaussian_log_complement_scalar

    target = math.log1p(-delta)

    def gap(mu):
        return _gaussian_log_complement_scalar(mu, epsilon) - target          # falls in mu, >= 0 at mu_low

    if gap(mu_low) <= 0.0:
        return mu_low
    hi = 2.0 * mu_low
    while gap(hi) > 0.0:
        mu_low, hi = hi, 2.0 * hi
    return float(brentq(gap, mu_low, hi, xtol=5e-324, rtol=4.0 * np.finfo(float).eps, maxiter=400))


def gaussian_sigma(epsilon, delta, sensitivity=1.0, method="classical") -> float:
    r"""Noise standard deviation for the Gaussian mechanism.

    The Gaussian mechanism releases :math:`v_D + \sigma Z`, :math:`Z \sim N(0, I)`
    (or :math:`N(0, M)` with the Mahalanobis sensitivity, see
    :func:`gaussian_mechanism`). Three calibrations of :math:`\sigma`:

    ``"classical"``
        :math:`\sigma = \Delta\sqrt{2\log(1.25/\delta)}/\varepsilon`
        (:cite:`dwork2014algorithmic` Theorem A.1). **Valid for**
        :math:`0 < \varepsilon \le 1` and every :math:`\delta \in (0, 1)`: the theorem is
        proved for :math:`\varepsilon < 1`, and :math:`\varepsilon = 1` follows by continuity
        of the exact profile. Beyond :math:`\varepsilon = 1` it is not proved; it still holds
        for a while and then fails, from a point that depends on :math:`\delta`
        (:math:`\varepsilon \approx 8.42` at :math:`\delta = 10^{-5}`). The formula is returned
        for every :math:`\varepsilon > 0` so that the book can show where it fails; check a
        value outside :math:`\varepsilon \le 1` with :func:`dpnotes.loss.gaussian_delta`.
    ``"hrw"``
        :math:`\sigma = \Delta\, c(\delta)/\varepsilon` with
        :math:`c(\delta) = \sqrt{2\log(2/\delta)}` (:cite:`hall2013differential`,
        source 003, which states it with no range of :math:`\varepsilon`). **Valid for**
        :math:`0 < \varepsilon \le 1` and every :math:`\delta \in (0, 1)`: its :math:`\sigma`
        exceeds the classical one and the exact profile decreases as :math:`\sigma` grows, so
        it is valid wherever ``"classical"`` is. Beyond :math:`\varepsilon = 1` it is not
        proved and fails for large :math:`\varepsilon` (from :math:`\varepsilon \approx 9.39`
        at :math:`\delta = 10^{-5}`). Returned for every :math:`\varepsilon > 0`, like
        ``"classical"``.
    ``"analytic"``
        The smallest :math:`\sigma` whose exact privacy profile satisfies
        :math:`\delta(\varepsilon) \le \delta` (:cite:`balle2018improving`): the root of
        :math:`\Phi(\mu/2 - \varepsilon/\mu) - e^{\varepsilon}\Phi(-\mu/2 - \varepsilon/\mu) = \delta`
        in :math:`\mu = \Delta/\sigma`. Valid for every :math:`\varepsilon > 0` and
        :math:`\delta \in (0, 1)`; accurate to about ``1e-14`` relative (the tests compare it
        with a 50-digit bisection), up to :math:`\delta = 1 - 2^{-53}`: above 1/2 the root is sought on
        :math:`\log(1 - \delta)`, which keeps its digits there.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, ``> 0``.
    delta : float
        Privacy parameter, in ``(0, 1)``.
    sensitivity : float
        The L2 (or Mahalanobis) sensitivity :math:`\Delta`, ``> 0``.
    method : {"classical", "hrw", "analytic"}
        Which calibration (see above).

    Returns
    -------
    float
        The standard deviation :math:`\sigma` (it scales linearly with ``sensitivity``).

    Examples
    --------
    >>> round(gaussian_sigma(1.0, 0.02, method="hrw"), 12) == round(math.sqrt(2 * math.log(100)), 12)
    True
    >>> s = gaussian_sigma(1.0, 1e-5, method="analytic")
    >>> s < gaussian_sigma(1.0, 1e-5, method="classical")
    True
    """
    epsilon = check_positive("epsilon", epsilon)
    delta = check_delta("delta", delta)
    if delta == 0.0:
        raise ValueError("delta must be in (0, 1) for the Gaussian mechanism, got 0")
    sensitivity = check_positive("sensitivity", sensitivity)
    # log(1.25) - log(delta), not log(1.25 / delta): the quotient overflows at a subnormal delta
    if method == "classical":
        c = math.sqrt(2.0 * (math.log(1.25) - math.log(delta)))
    elif method == "hrw":
        c = math.sqrt(2.0 * (math.log(2.0) - math.log(delta)))
    elif method == "analytic":
        return sensitivity * _analytic_sigma(epsilon, delta)
    else:
        raise ValueError(f"method must be one of 'classical', 'hrw', 'analytic', got {method!r}")
    return sensitivity * c / epsilon


# ---------------------------------------------------------------- publish each record with probability delta
def publish_each(x, delta, rng) -> np.ma.MaskedArray:
    r"""Publish every record of ``x`` independently with probability ``delta``; hide the others.

    The output is the data set with each record either shown or replaced by
    :math:`\perp` (a masked entry). On replace-one neighbours the two output laws
    differ only on outputs that show the changed record, which have probability
    ``delta`` under either law, so the mechanism is :math:`(\varepsilon,\delta)`-DP for
    *every* :math:`\varepsilon \ge 0` and for no smaller :math:`\delta` (book,
    approximate-DP chapter). Yet it publishes about :math:`n\delta` records in the clear.

    Parameters
    ----------
    x : array_like, shape (n,)
        The records.
    delta : float
        Publication probability, in ``[0, 1)``.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ma.MaskedArray
        ``x`` with the unpublished records masked.

    Examples
    --------
    >>> out = publish_each([3, 1, 4, 1, 5], 0.0, np.random.default_rng(0))
    >>> int(out.count())            # delta = 0 publishes nothing
    0
    """
    delta = check_delta("delta", delta)
    rng = check_rng("rng", rng)
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"x must be a 1-D array of records, got shape {arr.shape}")
    shown = rng.random(arr.shape[0]) < delta
    return np.ma.masked_array(arr, mask=~shown)


def publish_any_probability(n, delta) -> float:
    r"""Exact probability that :func:`publish_each` shows at least one of ``n`` records.

    :math:`1 - (1-\delta)^n`, computed as ``-expm1(n * log1p(-delta))`` so that it
    stays accurate when :math:`n\delta` is tiny. By Bernoulli's inequality it never
    exceeds :math:`n\delta`, and it is close to :math:`n\delta` only when
    :math:`n\delta \ll 1`.

    Parameters
    ----------
    n : int
        Number of records, ``>= 0``.
    delta : float
        Probability of publishing each record, in ``[0, 1)``.

    Returns
    -------
    float
        :math:`1 - (1-\delta)^n`.

    Raises
    ------
    ValueError
        If ``n`` is not an integer ``>= 0`` or ``delta`` is outside ``[0, 1)``.

    Examples
    --------
    >>> round(publish_any_probability(2, 0.5), 12)
    0.75
    """
    n = check_integer("n", n, low=0)
    delta = check_delta("delta", delta)
    return float(-math.expm1(n * math.log1p(-delta)))


# ---------------------------------------------------------------- sensitivity
def replace_one_neighbours(x, domain):
    r"""Yield every data set that differs from ``x`` in exactly one record (replace-one relation).

    Parameters
    ----------
    x : sequence
        A data set (tuple of records).
    domain : sequence
        The finite set of possible record values.

    Yields
    ------
    tuple
        Each neighbour once, record by record and value by value in the order of ``domain``.

    Raises
    ------
    ValueError
        If ``domain`` is empty (when the iteration starts).

    Examples
    --------
    >>> list(replace_one_neighbours((0, 1), (0, 1)))
    [(1, 1), (0, 0)]
    """
    x = tuple(x)
    domain = tuple(domain)
    if len(domain) < 1:
        raise ValueError("domain must contain at least one value, got an empty domain")
    for i, xi in enumerate(x):
        for value in domain:
            if value != xi:
                yield x[:i] + (value,) + x[i + 1:]


# the most data sets sensitivity() enumerates by brute force
_MAX_DATASETS = 10**4


def sensitivity(query, n, domain, ord=1) -> float:
    r"""Global sensitivity of ``query`` by brute force over all data sets of size ``n``.

    :math:`\Delta_p = \max_{x \sim x'} \lVert f(x) - f(x')\rVert_p` over every data set
    :math:`x \in \text{domain}^n` and every replace-one neighbour :math:`x'`
    (:cite:`dwork2014algorithmic` Definition 3.1 uses :math:`p = 1`). Exponential in
    ``n``: meant for small cases that check a hand-derived sensitivity.

    Parameters
    ----------
    query : callable
        Maps a tuple of ``n`` records to a number or a 1-D array.
    n : int
        Data-set size, ``>= 1`` with ``len(domain) ** n <= 10**4`` (every data set is
        enumerated, each with its ``n (len(domain) - 1)`` neighbours, one query call each:
        ``n <= 13`` for two values, ``n <= 4`` for ten: seconds at the cap).
    domain : sequence
        Finite set of record values (at least two).
    ord : {1, 2, numpy.inf}
        Which norm.

    Returns
    -------
    float
        :math:`\Delta_p`, ``>= 0``.

    Raises
    ------
    ValueError
        If ``n`` is not an integer in that range, ``domain`` holds fewer than two values, ``ord`` is
        not 1, 2 or ``inf``, or ``query`` returns something other than a finite number or 1-D
        array.

    Examples
    --------
    >>> sensitivity(sum, 3, (0, 1))                  # a counting query
    1.0
    >>> sensitivity(lambda x: sum(x) / 4, 4, (0, 1))  # a mean of bits
    0.25
    """
    n = check_integer("n", n, low=1)
    domain = tuple(domain)
    if len(domain) < 2:
        raise ValueError(f"domain must contain at least two values, got {list(domain)}")
    most = 1                                   # the largest n with len(domain) ** n <= 10**4
    while len(domain) ** (most + 1) <= _MAX_DATASETS:
        most += 1
    n = check_integer("n", n, low=1, high=most)
    if ord not in (1, 2, np.inf):
        raise ValueError(f"ord must be one of 1, 2, inf, got {ord!r}")
    def answer(data):
        out = query(data)
        if isinstance(out, (bool, np.bool_)):       # a predicate: its answer counts as 0 or 1
            out = int(out)
        try:
            return np.atleast_1d(check_array("query", out, ndim=(0, 1)))
        except ValueError as exc:
            raise ValueError(f"query must return a finite real number or 1-D array on every data set; "
                             f"on {data!r}: {exc}") from None

    best = 0.0
    for x in itertools.product(domain, repeat=n):
        fx = answer(x)
        for y in replace_one_neighbours(x, domain):
            fy = answer(y)
            best = max(best, _norm(fx - fy, ord))
    return best


def _norm(v: np.ndarray, ord) -> float:
    """The 1-, 2- or max-norm of a vector without overflow or underflow in the squares (numpy's 2-norm
    of a difference of 1e200 is inf, of 1e-200 is 0): math.hypot scales."""
    if ord == 2:
        return float(math.hypot(*v))
    return float(np.linalg.norm(v, ord=ord))


def _check_cov(cov, d: int) -> np.ndarray:
    m = check_array("cov", cov, allow_inf=True, allow_nan=True)
    if m.shape != (d, d):
        raise ValueError(f"cov must be a ({d}, {d}) matrix, got shape {m.shape}")
    if not np.all(np.isfinite(m)) or not np.allclose(m, m.T, rtol=1e-12, atol=1e-12):
        raise ValueError("cov must be a finite symmetric matrix")
    try:
        return np.linalg.cholesky(m)
    except np.linalg.LinAlgError:
        raise ValueError("cov must be positive definite") from None


def mahalanobis_sensitivity(differences, cov) -> float:
    r"""Largest Mahalanobis length :math:`\max_k \lVert M^{-1/2} d_k\rVert_2` of the rows of ``differences``.

    With :math:`d = v_D - v_{D'}` ranging over neighbouring pairs this is the
    sensitivity of source 003's proposition (:cite:`hall2013differential`
    Proposition 3): adding :math:`\sigma Z`, :math:`Z \sim N(0, M)`, gives the same
    privacy as one-dimensional noise :math:`N(0,\sigma^2)` on a query of
    sensitivity :math:`\Delta_M`. Computed as :math:`\lVert L^{-1} d\rVert_2` with the
    Cholesky factor :math:`M = LL^\top`, which equals :math:`\lVert M^{-1/2} d\rVert_2`
    because both square to :math:`d^\top M^{-1} d`.

    Parameters
    ----------
    differences : array_like, shape (k, d) or (d,)
        Difference vectors :math:`v_D - v_{D'}`.
    cov : array_like, shape (d, d)
        Symmetric positive definite :math:`M`.

    Returns
    -------
    float
        :math:`\Delta_M`.

    Raises
    ------
    ValueError
        If ``differences`` is not a finite ``(k, d)`` array or ``cov`` is not a finite, symmetric,
        positive definite ``(d, d)`` matrix.

    Examples
    --------
    >>> mahalanobis_sensitivity([[2.0, 0.0], [0.0, 1.0]], [[4.0, 0.0], [0.0, 1.0]])
    1.0
    """
    diffs = np.atleast_2d(check_array("differences", differences, allow_inf=True, allow_nan=True))
    if diffs.ndim != 2 or not np.all(np.isfinite(diffs)):
        raise ValueError(f"differences must be a finite (k, d) array, got shape {diffs.shape}")
    chol = _check_cov(cov, diffs.shape[1])
    from scipy.linalg import solve_triangular

    white = solve_triangular(chol, diffs.T, lower=True)
    return max(_norm(col, 2) for col in white.T)


# ---------------------------------------------------------------- Laplace mechanism
def _value(value) -> np.ndarray:
    """The true answer of a noise-adding mechanism: a finite real number or array of them."""
    return check_array("value", value, allow_empty=True)


def laplace_scale(epsilon, sensitivity=1.0) -> float:
    r"""Scale :math:`b = \Delta_1/\varepsilon` of the Laplace mechanism.

    With this scale, :math:`f(x) + \mathrm{Lap}(b)` is :math:`\varepsilon`-DP when
    :math:`f` has L1 sensitivity :math:`\Delta_1` (:cite:`dwork2006calibrating`,
    :cite:`dwork2014algorithmic` Theorem 3.6).

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    sensitivity : float
        L1 sensitivity :math:`\Delta_1` of the query, ``> 0``.

    Returns
    -------
    float
        :math:`b = \Delta_1/\varepsilon`.

    Raises
    ------
    ValueError
        If ``epsilon`` or ``sensitivity`` is not ``> 0``.

    Examples
    --------
    >>> laplace_scale(0.5, sensitivity=2.0)
    4.0
    """
    epsilon = check_positive("epsilon", epsilon)
    sensitivity = check_positive("sensitivity", sensitivity)
    return sensitivity / epsilon


def laplace_epsilon(scale, sensitivity=1.0) -> float:
    r"""The exact :math:`\varepsilon` of the Laplace mechanism with scale ``b``: :math:`\Delta_1/b`.

    The log density ratio :math:`(|y - f(x')| - |y - f(x)|)/b` reaches
    :math:`|f(x)-f(x')|/b` (for :math:`y` beyond both centres), so no smaller
    :math:`\varepsilon` holds for a worst-case pair.

    Parameters
    ----------
    scale : float
        The scale :math:`b` of the noise, ``> 0``.
    sensitivity : float
        L1 sensitivity :math:`\Delta_1` of the query, ``> 0``.

    Returns
    -------
    float
        :math:`\Delta_1/b`.

    Raises
    ------
    ValueError
        If ``scale`` or ``sensitivity`` is not ``> 0``.

    Examples
    --------
    >>> laplace_epsilon(4.0, sensitivity=2.0)
    0.5
    """
    scale = check_positive("scale", scale)
    sensitivity = check_positive("sensitivity", sensitivity)
    return sensitivity / scale


def laplace_mechanism(value, epsilon, rng, sensitivity=1.0) -> np.ndarray | float:
    r"""Release ``value`` plus independent Laplace noise of scale :math:`\Delta_1/\varepsilon` per coordinate.

    Parameters
    ----------
    value : float or array_like
        The true answer :math:`f(x)` (scalar or vector).
    epsilon : float
        Privacy parameter, ``> 0``.
    rng : numpy.random.Generator
        Source of randomness.
    sensitivity : float
        L1 sensitivity :math:`\Delta_1` of the query, ``> 0``.

    Returns
    -------
    float or ndarray
        The noisy answer, of the shape of ``value`` (a float for a scalar); the noise is drawn
        with ``rng.laplace``.

    Raises
    ------
    ValueError
        If ``value`` is not finite, ``epsilon`` or ``sensitivity`` is not ``> 0``, or ``rng``
        is not a Generator.

    Notes
    -----
    This is the mechanism of the real-number theorem (:cite:`dwork2014algorithmic`
    Theorem 3.6). Its floating-point output is **not** :math:`\varepsilon`-DP: the set of
    doubles that ``value + noise`` can produce depends on ``value``, so some outputs are
    possible for one input and impossible for its neighbour (:cite:`mironov2012significance`;
    the book's page on floating point exhibits such outputs of this very function). To release
    data, use :func:`dpnotes.discrete.snapping_mechanism` or an exact discrete sampler such as
    :func:`dpnotes.discrete.discrete_laplace_mechanism`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> out = laplace_mechanism([10.0, 20.0], 1.0, rng)
    >>> out.shape
    (2,)
    """
    b = laplace_scale(epsilon, sensitivity)
    rng = check_rng("rng", rng)
    v = _value(value)
    out = v + rng.laplace(0.0, b, size=v.shape)
    return float(out) if out.ndim == 0 else out


# ---------------------------------------------------------------- Gaussian mechanism
def gaussian_mechanism(value, sigma, rng, cov=None) -> np.ndarray | float:
    r"""Release ``value`` plus Gaussian noise :math:`\sigma Z`, :math:`Z \sim N(0, I)` or :math:`N(0, M)`.

    Calibrate ``sigma`` with :func:`gaussian_sigma` using the L2 sensitivity
    (``cov=None``) or the Mahalanobis sensitivity :func:`mahalanobis_sensitivity`
    for the same ``cov`` (source 003's proposition, :cite:`hall2013differential`).

    Parameters
    ----------
    value : float or array_like, shape (d,)
        The true answer.
    sigma : float
        Noise scale, ``> 0``.
    rng : numpy.random.Generator
        Source of randomness.
    cov : array_like, shape (d, d), optional
        Symmetric positive definite shape matrix :math:`M` of the noise.

    Returns
    -------
    float or ndarray
        The noisy answer, of the shape of ``value`` (a float for a scalar without ``cov``).

    Raises
    ------
    ValueError
        If ``value`` is not finite (or not a vector when ``cov`` is given), ``sigma <= 0``,
        ``rng`` is not a Generator, or ``cov`` is not a finite symmetric positive definite
        ``(d, d)`` matrix.

    Notes
    -----
    The privacy guarantee is a theorem about real numbers. As with :func:`laplace_mechanism`,
    the floating-point output is not covered by it: which doubles ``value + sigma * Z`` can
    produce depends on ``value`` (:cite:`mironov2012significance`; the book's page on floating
    point). To release data, use :func:`dpnotes.discrete.discrete_gaussian_mechanism`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> gaussian_mechanism([0.0, 0.0], 1.0, rng, cov=[[2.0, 0.5], [0.5, 1.0]]).shape
    (2,)
    """
    sigma = check_positive("sigma", sigma)
    rng = check_rng("rng", rng)
    v = _value(value)
    if cov is None:
        out = v + sigma * rng.standard_normal(v.shape)
        return float(out) if out.ndim == 0 else out
    if v.ndim != 1:
        raise ValueError(f"value must be a 1-D vector when cov is given, got shape {v.shape}")
    chol = _check_cov(cov, v.shape[0])
    return v + sigma * (chol @ rng.standard_normal(v.shape[0]))
