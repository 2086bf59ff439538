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
  a rigorous upper bound that is tight to a relative ``1e-4``;
- the Gaussian-DP central limit (:func:`clt_gdp_mu`, :func:`clt_gdp_epsilon`):
  an *approximation*, neither an upper nor a lower bound.

Neighbouring relation. The subsampled-Gaussian accountants use the add/remove
relation (the record is present or absent), the one for which DP-SGD is usually
accounted, and report the worse of the two directions. The package's own
convention is replace-one; :func:`amplify_poisson_replace_one` and
:func:`amplify_without_replacement` state what changes under it.

The mechanism. With sampling probability :math:`q` and noise multiplier
:math:`\sigma` (sensitivity 1), one step releases a draw from
:math:`P = \mathcal N(0, \sigma^2)` when the record is absent and from the mixture
:math:`Q = (1-q)\,\mathcal N(0, \sigma^2) + q\,\mathcal N(1, \sigma^2)` when it is
present (Mironov, Talwar & Zhang 2019, Section 3). "remove" is the pair
:math:`(Q, P)`, "add" the pair :math:`(P, Q)`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln, log_ndtr, logsumexp

from ._validate import check_delta, check_in_range, check_integer, check_positive, check_real

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
]

DIRECTIONS = ("remove", "add")

#: Rényi orders used by :func:`subsampled_gaussian_rdp_epsilon` when none are given:
#: fractional orders from 1.05 (small epsilons are found at orders near 1) and
#: integer orders up to 256.
DEFAULT_ORDERS = np.concatenate([np.arange(1.05, 2.0, 0.05), np.arange(2.0, 10.0, 0.25), np.arange(10.0, 64.0),
                                 np.array([64.0, 80.0, 96.0, 128.0, 192.0, 256.0])])


# ---------------------------------------------------------------- validation helpers
def _q(sampling_probability) -> float:
    return check_in_range("sampling_probability", sampling_probability, 0.0, 1.0, low_inclusive=False)


def _sigma(noise_multiplier) -> float:
    return check_positive("noise_multiplier", noise_multiplier)


def _delta(delta) -> float:
    return check_in_range("delta", delta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)


# ---------------------------------------------------------------- amplification theorems
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
    return float(math.log1p(q * math.expm1(epsilon))), q * delta


def amplify_poisson_replace_one(epsilon, sampling_probability) -> float:
    r"""Poisson subsampling seen under replace-one, for a base mechanism that is :math:`\varepsilon`-DP under add/remove.

    Replacing record :math:`i` changes the sample only when :math:`i` is drawn
    (probability :math:`q`); then the base mechanism sees a sample with
    :math:`x_i` instead of :math:`x_i'`, each one add/remove step away from the
    sample without :math:`i`. Bounding the three conditional output laws against
    each other gives

    .. math:: \varepsilon' = \log\frac{1 + q(e^{\varepsilon}-1)}{1 + q(e^{-\varepsilon}-1)},

    about twice the add/remove value :func:`amplify_poisson` for small :math:`q`
    (both are :math:`\approx q(e^{\varepsilon}-1)` and :math:`q(e^{\varepsilon}-e^{-\varepsilon})`),
    and never more than the :math:`2\varepsilon'` of composing a removal and an addition.
    Randomized response on "is the record's value in the sample" attains it.
    If the base mechanism is only DP under replace-one (it may reveal the sample
    size, for example), Poisson sampling gives **no** amplification for pure DP in
    the worst case; fixed-size sampling without replacement does
    (:func:`amplify_without_replacement`).

    Examples
    --------
    >>> e = amplify_poisson_replace_one(math.log(3.0), 0.25)   # 1.5 / (1 + 0.25 * (1/3 - 1))
    >>> round(math.exp(e), 12)
    1.8
    """
    epsilon = check_in_range("epsilon", epsilon, 0.0)
    q = _q(sampling_probability)
    return float(math.log1p(q * math.expm1(epsilon)) - math.log1p(q * math.expm1(-epsilon)))


def amplify_without_replacement(epsilon, sample_size, population_size, delta=0.0) -> tuple[float, float]:
    r"""Amplification by sampling ``sample_size`` of ``population_size`` records without replacement, under replace-one.

    If :math:`M` is :math:`(\varepsilon,\delta)`-DP under replace-one on data sets
    of :math:`m` records, then :math:`M` applied to a uniformly random subset of
    size :math:`m` of :math:`n` records (kept secret) is
    :math:`(\log(1 + \tfrac mn(e^{\varepsilon}-1)),\ \tfrac mn\delta)`-DP under
    replace-one (:cite:`balle2018subsampling`). The replaced record is in
    the sample with probability :math:`m/n`; otherwise the two samples can be
    coupled to be equal.

    Examples
    --------
    >>> e, d = amplify_without_replacement(math.log(5.0), 10, 40, 1e-6)   # 1 + (1/4) * 4 = 2
    >>> round(math.exp(e), 12), d
    (2.0, 2.5e-07)
    """
    epsilon = check_in_range("epsilon", epsilon, 0.0)
    n = check_integer("population_size", population_size, low=1)
    m = check_integer("sample_size", sample_size, low=1)
    if m > n:
        raise ValueError(f"sample_size must be <= population_size ({n}), got {m}")
    delta = check_delta("delta", delta)
    g = m / n
    return float(math.log1p(g * math.expm1(epsilon))), g * delta


# ---------------------------------------------------------------- one step: exact privacy profile
def _profile(eps: np.ndarray, q: float, sigma: float, direction: str) -> np.ndarray:
    """Hockey-stick divergence H_{e^eps} of one step, vectorized over real ``eps`` (no validation).

    The likelihood ratio is monotone in the output y, so {loss > eps} is a half-line
    {y > y*} ("remove") or {y < y*} ("add"); both masses are normal tails, taken as
    logarithms and subtracted with expm1 (as in dpnotes.loss.gaussian_delta).
    """
    eps = np.asarray(eps, dtype=float)
    out = np.empty_like(eps)
    log_q = math.log(q)
    if direction == "remove":                  # loss >= log(1-q): below it every output counts
        low = eps <= (math.log1p(-q) if q < 1 else -np.inf)
        out[low] = -np.expm1(eps[low])
        e = eps[~low]
        c = np.log1p(-(1.0 - q) * np.exp(-e))  # log(e^eps - 1 + q) - eps
        y = sigma**2 * (e + c - log_q) + 0.5
        la = log_q + log_ndtr((1.0 - y) / sigma)
        lb = e + c + log_ndtr(-y / sigma)
        out[~low] = np.exp(la) * -np.expm1(np.minimum(lb - la, 0.0))
    elif direction == "add":                   # loss <= -log(1-q): above it nothing counts
        high = eps >= (-math.log1p(-q) if q < 1 else np.inf)
        out[high] = 0.0
        e = eps[~high]
        c = np.log1p(-(1.0 - q) * np.exp(e))   # log(e^-eps - 1 + q) + eps
        y = sigma**2 * (c - e - log_q) + 0.5
        la = c + log_ndtr(y / sigma)
        lb = e + log_q + log_ndtr((y - 1.0) / sigma)
        out[~high] = np.exp(la) * -np.expm1(np.minimum(lb - la, 0.0))
    else:
        raise ValueError(f"direction must be one of 'remove', 'add', got {direction!r}")
    return out


def subsampled_gaussian_profile(sampling_probability, noise_multiplier, epsilon, direction="remove"):
    r"""Exact privacy profile :math:`\delta(\varepsilon)` of **one** step of the Poisson-subsampled Gaussian.

    :math:`\delta(\varepsilon) = \sup_S A(S) - e^{\varepsilon}B(S)` for the pair
    :math:`(A, B) = (Q, P)` (``"remove"``) or :math:`(P, Q)` (``"add"``), with
    :math:`P = \mathcal N(0,\sigma^2)` and :math:`Q = (1-q)P + q\,\mathcal N(1,\sigma^2)`.
    The likelihood ratio is monotone in the output, so the optimal :math:`S` is a
    half-line and the answer is a difference of two normal tails
    (:cite:`balle2018improving` Theorem 8 is the case :math:`q = 1`). Defined for every
    real :math:`\varepsilon` (negative ones too): it is the tradeoff curve of the pair.

    Parameters
    ----------
    sampling_probability : float
        :math:`q` in ``(0, 1]``.
    noise_multiplier : float
        :math:`\sigma > 0` (noise standard deviation over sensitivity).
    epsilon : float or array_like
        Real.
    direction : {"remove", "add"}

    Examples
    --------
    >>> from dpnotes.loss import gaussian_delta
    >>> bool(abs(subsampled_gaussian_profile(1.0, 2.0, 0.3) - gaussian_delta(0.3, 0.5)) < 1e-15)
    True
    """
    q = _q(sampling_probability)
    sigma = _sigma(noise_multiplier)
    arr = np.asarray(epsilon, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"epsilon must be finite, got {epsilon!r}")
    out = _profile(np.atleast_1d(arr), q, sigma, direction)
    return float(out[0]) if arr.ndim == 0 else out.reshape(arr.shape)


# ---------------------------------------------------------------- Renyi DP (moments accountant)
def _log_a_integer(alpha: int, q: float, sigma: float) -> float:
    # A_alpha = sum_k C(alpha, k) (1-q)^(alpha-k) q^k exp((k^2 - k) / (2 sigma^2))   (MTZ 2019, Section 3.2)
    k = np.arange(alpha + 1, dtype=float)
    log_binom = gammaln(alpha + 1.0) - gammaln(k + 1.0) - gammaln(alpha - k + 1.0)
    log_one_minus_q = math.log1p(-q) if q < 1 else -np.inf
    with np.errstate(invalid="ignore"):
        terms = log_binom + k * math.log(q) + np.where(alpha - k > 0, (alpha - k) * log_one_minus_q, 0.0) \
            + (k * k - k) / (2.0 * sigma**2)
    return float(logsumexp(terms))


def _log_a_fractional(alpha: float, q: float, sigma: float, rtol: float = 1e-13) -> float:
    # MTZ 2019, Section 3.3: split the integral at z0, where the two mixture
    # components cross, and expand each half in a binomial series with generalized
    # binomial coefficients C(alpha, i) (their sign alternates once i > alpha).
    # The terms decay only polynomially; past i > alpha the series alternates, so the
    # error of stopping is below the first omitted term: add blocks of terms until
    # that term is below rtol * log(A) (log(A) is what the caller needs).
    z0 = sigma**2 * math.log(1.0 / q - 1.0) + 0.5
    log_q, log_1q = math.log(q), math.log1p(-q)
    logs, signs = [], []
    size, start = 256, 0
    while True:
        i = np.arange(start, start + size, dtype=float)
        lg = gammaln(alpha + 1.0) - gammaln(i + 1.0) - gammaln(alpha - i + 1.0)   # log|C(alpha, i)|
        sign = np.where((i > alpha) & (np.floor(i - alpha) % 2 == 1), -1.0, 1.0)
        j = alpha - i
        e0 = lg + i * log_q + j * log_1q + (i * i - i) / (2 * sigma**2) \
            + log_ndtr((z0 - i) / sigma)
        e1 = lg + j * log_q + i * log_1q + (j * j - j) / (2 * sigma**2) \
            + log_ndtr((j - z0) / sigma)
        logs.append(np.logaddexp(e0, e1))
        signs.append(sign)
        allv, alls = np.concatenate(logs), np.concatenate(signs)
        total, sgn = logsumexp(allv, b=alls, return_sign=True)
        log_a = float(total) if sgn > 0 else 0.0
        if start + size > alpha + 2 and allv[-1] < math.log(rtol * max(log_a, 1e-300)) or start > 1_000_000:
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
        Rényi orders, each ``> 1``.

    Returns
    -------
    numpy.ndarray or float
        :math:`\rho` at each order (a float for a scalar order).

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
    arr = np.asarray(orders, dtype=float)
    flat = np.atleast_1d(arr).ravel()
    if not np.all(np.isfinite(flat)) or np.any(flat <= 1):
        bad = flat[~(np.isfinite(flat) & (flat > 1))][0]
        raise ValueError(f"orders must be > 1, got {float(bad)!r}")
    out = np.empty_like(flat)
    for n, a in enumerate(flat):
        if q == 1.0:
            out[n] = a / (2.0 * sigma**2)
        elif float(a).is_integer():
            out[n] = _log_a_integer(int(a), q, sigma) / (a - 1.0)
        else:
            out[n] = _log_a_fractional(float(a), q, sigma) / (a - 1.0)
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
    orders = DEFAULT_ORDERS if orders is None else np.atleast_1d(np.asarray(orders, dtype=float))
    rho = np.atleast_1d(subsampled_gaussian_rdp(sampling_probability, noise_multiplier, orders))
    return rdp_to_dp(orders, steps * rho, delta)


# ---------------------------------------------------------------- Gaussian-DP central limit
def clt_gdp_mu(sampling_probability, noise_multiplier, steps) -> float:
    r"""The central-limit :math:`\mu` of DP-SGD: :math:`\mu = q\sqrt{T(e^{1/\sigma^2}-1)}` (an **approximation**).

    :cite:`bu2020deep` (the central limit theorem of :cite:`dong2022gaussian` applied to DP-SGD):
    as :math:`T\to\infty` with :math:`q\sqrt T` fixed, ``steps`` compositions of the
    Poisson-subsampled Gaussian converge to :math:`\mu`-Gaussian DP. At finite
    :math:`T` it is neither an upper nor a lower bound; the page
    *Three accountants* shows it undershooting the tight value.

    Examples
    --------
    >>> round(clt_gdp_mu(0.01, 1.0, 10_000), 6) == round(0.01 * math.sqrt(1e4 * math.expm1(1.0)), 6)
    True
    """
    q = _q(sampling_probability)
    sigma = _sigma(noise_multiplier)
    steps = check_integer("steps", steps, low=1)
    return float(q * math.sqrt(steps * math.expm1(1.0 / sigma**2)))


def clt_gdp_epsilon(sampling_probability, noise_multiplier, steps, delta) -> float:
    r""":math:`\varepsilon` at ``delta`` of :math:`\mu`-GDP with :math:`\mu` = :func:`clt_gdp_mu` (an **approximation**).

    :math:`\mu`-GDP has the privacy profile of the Gaussian mechanism with
    :math:`\Delta/\sigma = \mu` (:cite:`dong2022gaussian`), so this is
    :func:`dpnotes.loss.gaussian_epsilon` at that :math:`\mu`.

    Examples
    --------
    >>> from dpnotes.loss import gaussian_epsilon
    >>> clt_gdp_epsilon(0.02, 1.5, 900, 1e-5) == gaussian_epsilon(1e-5, clt_gdp_mu(0.02, 1.5, 900))
    True
    """
    from .loss import gaussian_epsilon

    mu = clt_gdp_mu(sampling_probability, noise_multiplier, steps)
    return gaussian_epsilon(_delta(delta), mu)


# ---------------------------------------------------------------- privacy loss distribution by FFT
class _PLD:
    """The ``steps``-fold composition of one direction's discretized privacy loss distribution.

    ``mass[j]`` is the probability of loss ``(offset + j) * h`` (indices wrap modulo
    ``mass.size``: the FFT's circular convolution), ``extra`` an upper bound on the
    probability of an infinite loss plus the probability of losses above the window.
    """

    def __init__(self, disc, steps: int, a: float, b: float, guide):
        """Compose ``steps`` copies of the one-step discretization ``disc`` on the loss window [a, b].

        ``guide``, a coarser discretization of the same step, only picks the Chernoff exponent.
        """
        i0, h, w, w_inf = disc
        n = 1 << max(8, math.ceil(math.log2((b - a) / h + 2)))
        start = math.floor(a / h)
        # circular FFT power; the mass of loss k*h sits at index k mod n
        buf = np.zeros(n)
        np.add.at(buf, (i0 + np.arange(w.size)) % n, w)
        comp = np.fft.irfft(np.fft.rfft(buf) ** steps, n)
        np.maximum(comp, 0.0, out=comp)
        self.h, self.n = h, n
        self.loss = (start + np.arange(n)) * h
        self.mass = comp[(start + np.arange(n)) % n]
        # what the window misses: an infinite loss in some step, and the finite
        # composed loss reaching above the window's top (Chernoff bound)
        self.extra = -math.expm1(steps * math.log1p(-w_inf)) + _chernoff_upper(disc, steps, (start + n) * h, guide)

    @classmethod
    def build(cls, q: float, sigma: float, steps: int, direction: str, delta_hint: float, eps_scale=None):
        # 1. one step's loss range: the losses of outputs within z standard deviations,
        #    z such that the mass beyond is below 1e-7 * delta_hint / steps
        z = -_ndtri_log(math.log(1e-7 * delta_hint / steps))
        lo, hi = sorted(_loss(np.array([-sigma * z, 1.0 + sigma * z]), q, sigma, direction))
        if q < 1:
            lo, hi = (max(lo, math.log1p(-q)), hi) if direction == "remove" else (lo, min(hi, -math.log1p(-q)))
        # 2. a coarse pass: the top of the window from a Chernoff bound (the top must hold
        #    all but a negligible mass: that mass is added to delta), its bottom from the
        #    coarse composed distribution itself (mass below the bottom only folds back
        #    into the window: harmless for the bound, kept small for accuracy), and an
        #    estimate of epsilon
        tail = 1e-9 * delta_hint
        h_c = (hi - lo) / 2000.0
        coarse = _ctd(q, sigma, direction, lo, hi, h_c)
        a, b = _window(coarse, steps, tail)
        h_2 = max(h_c, (b - a) / 32768)
        rough = cls(_ctd(q, sigma, direction, lo, hi, h_2), steps, a, b, coarse)
        below = np.cumsum(rough.mass)
        a = float(rough.loss[max(int(np.searchsorted(below, tail)) - 8, 0)])
        if eps_scale is None:
            # the coarse value over-estimates by ~ steps h_2^2 (1 + 5/s) / 12 (below)
            eps_scale = rough.epsilon(delta_hint) - steps * h_2**2 / 2.0
        # 3. the fine mesh: connect-the-dots moves the composed loss up by about
        #    steps * h^2 / 12 and widens its standard deviation s by steps * h^2 / (12 s);
        #    at z ~ 5 standard deviations that moves epsilon by ~ steps h^2 (1 + 5 / s) / 12:
        #    keep it near _MESH / 12 of epsilon
        loss, w = _points(coarse)
        s = math.sqrt(steps * max(np.dot(w, loss**2) / w.sum() - (np.dot(w, loss) / w.sum()) ** 2, 1e-300))
        h = math.sqrt(_MESH * max(eps_scale, 1e-3) / (steps * (1.0 + 5.0 / s)))
        h = min(h, (b - a) / 256.0, (hi - lo) / 500.0)
        h = max(h, (b - a) / ((1 << 22) - 2))
        return cls(_ctd(q, sigma, direction, lo, hi, h), steps, a, b, coarse)

    def delta(self, eps: float) -> float:
        sel = self.loss > eps
        return float(np.dot(self.mass[sel], -np.expm1(eps - self.loss[sel])) + self.extra)

    def epsilon(self, delta: float) -> float:
        """Smallest eps >= 0 with self.delta(eps) <= delta, solved exactly between grid points."""
        from scipy.signal import lfilter

        c, h = self.mass, self.h
        # above[j] = sum_{k>j} c_k;  tilted[j] = sum_{k>j} c_k exp(l_j - l_k), by the
        # stable recursion tilted[j] = e^-h (c_{j+1} + tilted[j+1]) run backwards
        above = np.concatenate([np.cumsum(c[::-1])[::-1][1:], [0.0]]) + self.extra
        tilted = lfilter([0.0, math.exp(-h)], [1.0, -math.exp(-h)], c[::-1])[::-1]
        at_grid = above - tilted                 # delta(l_j)
        if self.delta(0.0) <= delta:
            return 0.0
        over = np.nonzero(at_grid > delta)[0]
        if over.size == 0 or over[-1] == c.size - 1:
            raise ValueError(f"delta must be larger than the accountant's truncation error "
                             f"{self.extra:.3g}, got {delta!r}")
        j = int(over[-1])                       # delta(l_j) > delta >= delta(l_{j+1})
        # on [l_j, l_{j+1}): delta(eps) = above_j - exp(eps - l_j) * tilted_j
        eps = self.loss[j] + math.log((above[j] - delta) / tilted[j])
        eps = max(eps, 0.0)
        while self.delta(eps) > delta:           # guard the upper-bound side against round-off
            eps = eps + 1e-12 * max(abs(eps), 1.0)
        return float(eps)


def _ndtri_log(logp: float) -> float:
    from scipy.special import ndtri_exp    # the normal quantile of exp(logp)

    return float(ndtri_exp(logp))


def _loss(y: np.ndarray, q: float, sigma: float, direction: str) -> np.ndarray:
    # remove: log(Q/P)(y) = log(1 - q + q exp((2y-1)/(2 sigma^2))); add: its negative
    r = (2.0 * y - 1.0) / (2.0 * sigma**2)
    lr = np.logaddexp(math.log1p(-q) if q < 1 else -np.inf, math.log(q) + r)
    return lr if direction == "remove" else -lr


def _ctd(q, sigma, direction, lo, hi, h):
    """Connect-the-dots discretization (:cite:`doroshenko2022connect`) on the grid ``k*h``.

    Masses on grid points whose hockey-stick curve equals the true one at every
    grid point and is linear in ``t = e^eps`` between them: the true curve is convex
    in ``t``, so the chord lies above it and the discrete pair dominates the true one
    (a pessimistic discretization). Below ``lo`` the curve is the chord to
    ``(t=0, 1)``; above ``hi`` all that is left, ``D(hi)``, is put at +infinity.
    Returns ``(i0, h, w, w_inf)``: mass ``w[j]`` at loss ``(i0 + j) * h``.
    """
    i0, i1 = math.floor(lo / h), math.ceil(hi / h)
    grid = np.arange(i0, i1 + 1) * h
    d = _profile(grid, q, sigma, direction)
    em1 = math.expm1(h)
    diff = np.diff(d)                       # D_{i+1} - D_i  (<= 0)
    w = np.empty(grid.size)
    # slope in t on [t_i, t_{i+1}] is diff_i / (e^{l_i} (e^h - 1)); a grid point's
    # mass is e^{l_i} times the change of slope there
    w[1:-1] = (diff[1:] - math.exp(h) * diff[:-1]) / em1
    w[0] = diff[0] / em1 + 1.0 - d[0]
    w[-1] = -math.exp(h) * diff[-1] / em1
    np.maximum(w, 0.0, out=w)               # round-off only; adding mass keeps the bound an upper bound
    return i0, h, w, float(d[-1])


_LAMBDAS = np.geomspace(1e-2, 1e3, 26)
_MESH = 3.6e-4   # 12 times the target relative error of the composed loss (3e-5)


def _points(disc):
    """(loss, mass) of a one-step discretization's finite part."""
    i0, h, w, _ = disc
    return (i0 + np.arange(w.size)) * h, w


def _log_mgf(points, lams):
    """log E[exp(lam * L); L finite] of one discretized step, for each lam (rows)."""
    loss, w = points
    keep = w > 0
    lw, loss = np.log(w[keep]), loss[keep]
    return logsumexp(lw[None, :] + np.asarray(lams)[:, None] * loss[None, :], axis=1)


def _window(disc, steps, tail):
    """A loss interval [a, b] that holds all but about ``tail`` of the composed finite mass (Chernoff, both sides)."""
    loss, w = _points(disc)
    b = float(np.min((steps * _log_mgf((loss, w), _LAMBDAS) - math.log(tail)) / _LAMBDAS))
    a = float(-np.min((steps * _log_mgf((-loss, w), _LAMBDAS) - math.log(tail)) / _LAMBDAS))
    return a, b


def _chernoff_upper(disc, steps, top, guide):
    """Chernoff bound on P[sum of ``steps`` finite losses >= top] for the discrete steps (rigorous).

    exp(steps * K(lam) - lam * top): the exponent lam is picked on a grid with the
    coarser ``guide`` discretization, then the bound is evaluated on ``disc`` itself
    at that lam and its two neighbours (any lam > 0 gives a valid bound).
    """
    lam = _LAMBDAS[int(np.argmin(steps * _log_mgf(_points(guide), _LAMBDAS) - _LAMBDAS * top))]
    lams = lam * np.array([0.7, 1.0, 1.4])
    bound = np.min(steps * _log_mgf(_points(disc), lams) - lams * top)
    return float(math.exp(min(bound, 0.0)))


def _validate_pld(sampling_probability, noise_multiplier, steps):
    return _q(sampling_probability), _sigma(noise_multiplier), check_integer("steps", steps, low=1)


def subsampled_gaussian_delta(sampling_probability, noise_multiplier, steps, epsilon) -> float:
    r"""Upper bound on :math:`\delta(\varepsilon)` of ``steps`` Poisson-subsampled Gaussian steps (PLD by FFT).

    The worse of the add and remove directions of :func:`subsampled_gaussian_epsilon`'s
    computation, evaluated at one :math:`\varepsilon`.

    Examples
    --------
    >>> from dpnotes.loss import gaussian_delta
    >>> d = subsampled_gaussian_delta(1.0, 2.0, 16, 1.0)        # q = 1: the Gaussian with mu = 4 / 2
    >>> bool(gaussian_delta(1.0, 2.0) <= d <= gaussian_delta(1.0, 2.0) * (1 + 1e-4))
    True
    """
    q, sigma, steps = _validate_pld(sampling_probability, noise_multiplier, steps)
    epsilon = check_real("epsilon", epsilon)
    return max(_PLD.build(q, sigma, steps, d, 1e-12, max(abs(epsilon), 1e-3)).delta(epsilon) for d in DIRECTIONS)


def subsampled_gaussian_epsilon(sampling_probability, noise_multiplier, steps, delta) -> float:
    r"""Tight :math:`\varepsilon` of ``steps`` compositions of the Poisson-subsampled Gaussian (add/remove), an upper bound.

    Each step releases the gradient sum plus :math:`\mathcal N(0, \sigma^2)` noise
    (sensitivity 1) on a Poisson sample with rate :math:`q`. For each direction
    (remove: the pair :math:`(Q, P)`, add: :math:`(P, Q)`) the privacy loss
    distribution of one step (:cite:`koskela2020computing`, :cite:`koskela2021tight`) is
    discretized on a grid of mesh :math:`h` by *connect-the-dots*
    (:cite:`doroshenko2022connect`): a discrete pair whose privacy profile equals the
    exact one (:func:`subsampled_gaussian_profile`) at every grid point and is linear
    in :math:`e^{\varepsilon}` in between, hence dominates it. Its ``steps``-fold
    convolution is one FFT power. Rigorous pieces of the upper bound:

    - losses above the one-step grid go to :math:`+\infty`, losses below it are lifted
      to its first point (both pessimistic, both inside the connect-the-dots pair);
    - the FFT's circular convolution folds composed mass from outside the window back
      into it; that only adds mass (an over-estimate), and the mass *above* the window
      is bounded by a Chernoff bound on the discrete steps and added to
      :math:`\delta`.

    Only floating-point round-off in the FFT is outside the bound (it is ~1e-16 per
    entry). The mesh is chosen so that the connect-the-dots error, about
    :math:`T h^2/12` in the loss, stays near ``1e-6``: the result is within a
    relative ``1e-4`` of the true :math:`\varepsilon` (checked in the tests against the
    exact Gaussian at :math:`q=1` and against quadrature for few steps).

    Parameters
    ----------
    sampling_probability : float
        :math:`q` in ``(0, 1]``.
    noise_multiplier : float
        :math:`\sigma > 0`.
    steps : int
        :math:`T \ge 1`.
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float
        The smallest :math:`\varepsilon \ge 0` at which the bound on
        :math:`\delta(\varepsilon)` is ``<= delta``, for the worse direction.

    Examples
    --------
    >>> from dpnotes.loss import gaussian_epsilon
    >>> e = subsampled_gaussian_epsilon(1.0, 4.0, 9, 1e-5)        # q = 1: Gaussian, mu = 3 / 4
    >>> bool(gaussian_epsilon(1e-5, 0.75) <= e <= gaussian_epsilon(1e-5, 0.75) * (1 + 1e-4))
    True
    """
    q, sigma, steps = _validate_pld(sampling_probability, noise_multiplier, steps)
    delta = _delta(delta)
    return max(_PLD.build(q, sigma, steps, d, delta).epsilon(delta) for d in DIRECTIONS)


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
    epochs = check_integer("epochs", epochs, low=1)
    delta = _delta(delta)
    tau = 1.5 + sigma * np.linspace(-4.0, 12.0, 4001)
    rest = (t - 1) * log_ndtr(tau / sigma)
    p_in = -np.expm1(log_ndtr((tau - 2.0) / sigma) + rest)       # target present: spike 2
    p_out = -np.expm1(log_ndtr((tau - 1.0) / sigma) + rest)      # target removed: spike 1
    best = 0.0
    for k in range(1, epochs + 1):
        a, b = binom.sf(k - 1, epochs, p_in), binom.sf(k - 1, epochs, p_out)
        ok = (a > delta) & (b > 0)
        if np.any(ok):
            best = max(best, float(np.max(np.log((a[ok] - delta) / b[ok]))))
    return best
