r"""DP-SGD for logistic regression in numpy: per-example clipping, Gaussian noise, Poisson sampling.

Differentially private stochastic gradient descent (:cite:`abadi2016deep`, Algorithm 1;
:cite:`song2013stochastic`, :cite:`bassily2014private`) trains a model by gradient steps
whose only access to the data is a *noisy, clipped sum* of per-example gradients over a
random batch. One step with parameters :math:`\theta` does:

1. **Poisson sampling.** Every example enters the batch :math:`B` independently with
   probability :math:`q` (``sampling_probability``), so the batch size is
   :math:`\mathrm{Binomial}(n, q)` and varies from step to step.
2. **Per-example gradients** :math:`g_i = \nabla_\theta \ell(\theta; x_i, y_i)`, one row per
   example of the batch.
3. **Clipping** to norm :math:`C` (``clip_norm``):
   :math:`\bar g_i = g_i \min(1, C / \lVert g_i\rVert_2)`. Every clipped row has norm at most
   :math:`C`, so adding or removing one example moves the sum
   :math:`\sum_{i \in B} \bar g_i` by at most :math:`C` in Euclidean norm.
4. **Gaussian noise** of standard deviation :math:`\sigma C` on that sum, where
   :math:`\sigma` is the ``noise_multiplier``: the Gaussian mechanism with sensitivity
   :math:`C` and noise multiplier :math:`\sigma`.
5. **The update** :math:`\theta \leftarrow \theta - \eta \,(\sum_{i\in B} \bar g_i + \sigma C z) / \bar b`
   with :math:`z \sim N(0, I)`, learning rate :math:`\eta` and a **public** divisor
   :math:`\bar b` (``expected_batch_size``): a constant fixed before the data are seen,
   such as the expected batch size :math:`q\bar n` for a size :math:`\bar n` that is
   published anyway. The default is :math:`\bar b = 1` (the step follows the noisy *sum*).
   The divisor must not be computed from the data: under add/remove the size :math:`n`
   of the data set differs between neighbours, so dividing by :math:`qn` (or by the
   realized :math:`|B|`) would make the step depend on private data in a way the
   accountant does not model.

Each step is thus a post-processing (a map that is the same on neighbouring data sets) of
one run of the Poisson-subsampled Gaussian mechanism (sensitivity 1 after dividing by
:math:`C`), and ``steps`` steps are its ``steps``-fold adaptive composition. Its privacy
under the add/remove relation is computed by
:func:`dpnotes.subsampling.subsampled_gaussian_epsilon` (the default accountant). Under
the book's replace-one relation the same mechanism has its own, larger epsilon (a
replacement moves the clipped sum by up to :math:`2C`, and the subsampled pair changes);
two add/remove steps give the cruder bound :math:`(2\varepsilon, (1 + e^{\varepsilon})\delta)`
(see :mod:`dpnotes`). Only the final (or every intermediate) model is released; the loss
curve returned here is computed on the training data *without* noise and is a diagnostic
for the reader, not a private release.

The model is logistic regression with a bias: ``weights`` has length :math:`d + 1`, the
last entry being the bias, labels are 0 or 1, and the per-example loss is
:math:`\ell(\theta; x, y) = \log(1 + e^{\tilde x^\top\theta}) - y\,\tilde x^\top\theta` with
:math:`\tilde x = (x, 1)`, whose gradient is :math:`(\mathrm{expit}(\tilde x^\top\theta) - y)\,\tilde x`.

Randomness: each step draws the batch as ``rng.random(n) < q`` and then the noise as
``rng.standard_normal(d + 1)``, in that order, so a run is reproduced exactly from its seed
(the tests couple seeds this way).
"""

from __future__ import annotations

import math
import numbers
import reprlib
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.special import expit

from ._validate import MAX_ENTRIES, check_in_range, check_integer, check_nonnegative, check_positive, check_rng

__all__ = [
    "logistic_loss",
    "per_example_gradients",
    "clip_gradients",
    "noisy_clipped_sum",
    "poisson_batch",
    "dp_sgd",
    "accuracy",
    "DPSGDResult",
]


# --------------------------------------------------------------------------- validation
def _array(name: str, value) -> np.ndarray:
    """``value`` as a float array, or a ValueError naming ``name`` (None, strings, ragged lists)."""
    if value is None or isinstance(value, (str, bytes)):
        raise ValueError(f"{name} must be an array of numbers, got {reprlib.repr(value)}")
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of numbers, got {reprlib.repr(value)}") from None


def _data(features, labels) -> tuple[np.ndarray, np.ndarray]:
    x = _array("features", features)
    if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] == 0:
        raise ValueError(f"features must be a non-empty 2-D array (n, d), got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("features must be finite, got a nan or an infinite entry")
    y = _array("labels", labels)
    if y.shape != (x.shape[0],):
        raise ValueError(f"labels must have shape ({x.shape[0]},) to match features, got {y.shape}")
    if not np.all((y == 0) | (y == 1)):
        bad = y[~((y == 0) | (y == 1))][0]
        raise ValueError(f"labels must be 0 or 1, got {float(bad)!r}")
    return x, y


def _weights(weights, d: int, name: str = "weights") -> np.ndarray:
    w = _array(name, weights)
    if w.shape != (d + 1,):
        raise ValueError(f"{name} must have shape ({d + 1},) (d features and a bias), got {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{name} must be finite, got a nan or an infinite entry")
    return w


def _gradients(gradients) -> np.ndarray:
    g = _array("gradients", gradients)
    if g.ndim != 2:
        raise ValueError(f"gradients must be a 2-D array (one row per example), got shape {g.shape}")
    if not np.all(np.isfinite(g)):
        raise ValueError("gradients must be finite, got a nan or an infinite entry")
    return g


def _augment(x: np.ndarray) -> np.ndarray:
    return np.hstack([x, np.ones((x.shape[0], 1))])


def _scores(xa: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Scores x~ . w; an overflow to +-inf is kept (the loss and the prediction handle it), inf - inf is refused.

    A row where a product or a partial sum may overflow (the sum of the products' magnitudes is
    not finite) is scored by :func:`_exact_score` instead of the matrix product, whose overflow
    depends on the BLAS kernel: one that fuses a multiply and an add (OpenBLAS on AMD EPYC) carried
    the overflowed 1e200 * 1e200 into the next product as +inf, so [1e200, 1e200] . [1e200, -1e200]
    came out +inf there and nan elsewhere. Every other row's products and sums are finite, and
    kernels differ there only by rounding."""
    with np.errstate(over="ignore", invalid="ignore"):
        z = xa @ w
        # max |x| * sum |w| bounds every row's sum of magnitudes; twice it finite leaves room for rounding,
        # and then no row comes near overflow (the usual case, decided without a copy of xa)
        near = xa.size > 0 and not math.isfinite(2.0 * max(float(xa.max()), -float(xa.min())) * float(np.abs(w).sum()))
        rows = np.flatnonzero(~np.isfinite(np.abs(xa) @ np.abs(w))) if near else []
    for i in rows:
        z[i] = _exact_score(xa[i], w)
    if np.isnan(z).any():
        raise ValueError("features and weights must give scores x . weights that are numbers, "
                         "got nan (an overflow to +inf and -inf in one sum)")
    return z


def _exact_score(x: np.ndarray, w: np.ndarray) -> float:
    """The score of one row on any machine: its products x_j w_j, each rounded (an overflow to +-inf),
    summed exactly and rounded once; nan when a product is +inf and another -inf. math.fsum sums
    exactly but refuses an overflow on the way, which the exact rational sum does not."""
    with np.errstate(over="ignore"):
        p = np.asarray(x, dtype=float) * np.asarray(w, dtype=float)
    if np.isinf(p).any():
        return math.nan if np.isposinf(p).any() and np.isneginf(p).any() else float(p[np.isinf(p)][0])
    try:
        return math.fsum(p.tolist())
    except OverflowError:
        total = sum(Fraction(v) for v in p.tolist())
        try:
            return float(total)
        except OverflowError:
            return math.inf if total > 0 else -math.inf


def _mean_loss(z: np.ndarray, y: np.ndarray) -> float:
    """Mean of log(1 + e^z) - y z, written log(1 + e^{-z}) for y = 1 and log(1 + e^z) for y = 0.

    That form has no inf - inf at |z| = inf and no e^z overflow; the mean is taken of the
    terms divided by the largest one, so terms near the largest float do not overflow it.
    """
    terms = np.logaddexp(0.0, np.where(y == 1, -z, z))
    top = float(terms.max())
    return top if top == 0.0 or math.isinf(top) else top * float(np.mean(terms / top))


def _grads(xa: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per-example logistic-loss gradients, rows (expit(x.w) - y) x, for augmented features."""
    return (expit(_scores(xa, w)) - y)[:, None] * xa


def _clip(g: np.ndarray, clip_norm: float) -> np.ndarray:
    """Rows scaled by min(1, C / norm) = C / max(norm, C): exactly 1 (the row unchanged) when norm <= C."""
    if g.size and (np.abs(g).max() > 1e150 or clip_norm < 1e-140):
        return _clip_extreme(g, clip_norm)
    norms = np.sqrt(np.einsum("ij,ij->i", g, g))
    return g * (clip_norm / np.maximum(norms, clip_norm))[:, None]


def _clip_extreme(g: np.ndarray, clip_norm: float) -> np.ndarray:
    """_clip for entries above 1e150 or C below 1e-140, where squaring the entries over- or underflows.

    A row with an entry near 1e155 would get norm inf and be clipped to zero, and with C
    tiny the rows that matter could have squares below the smallest float. Each row is
    scaled by its largest entry first, so its norm is right to a few ulps (no library
    routine does this row-wise on a 2-D array).
    """
    top = np.max(np.abs(g), axis=1)
    u = g / np.where(top > 0, top, 1.0)[:, None]           # max |u| = 1 in every non-zero row
    r = np.sqrt(np.sum(u * u, axis=1))                       # in [1, sqrt(d)]
    with np.errstate(over="ignore"):
        long = top * r > clip_norm                           # top * r is the norm (inf only beyond every float)
    out = g.copy()
    out[long] = u[long] / r[long, None] * clip_norm
    return out


# --------------------------------------------------------------------------- the model
def logistic_loss(weights, features, labels) -> float:
    r"""Mean logistic (cross-entropy) loss of a logistic-regression model.

    :math:`\frac1n \sum_i \log(1 + e^{z_i}) - y_i z_i` with scores
    :math:`z_i = \tilde x_i^\top\theta`, :math:`\tilde x = (x, 1)`. Each term is computed as
    :math:`\log(1 + e^{-z})` when :math:`y = 1` and :math:`\log(1 + e^{z})` when :math:`y = 0`
    (the same number) with :func:`numpy.logaddexp`, so no :math:`e^z` overflows and a
    score that overflows to :math:`\pm\infty` still gives the right limit.

    Parameters
    ----------
    weights : array of shape (d + 1,)
        Finite coefficients, the last entry being the bias.
    features : array of shape (n, d)
        Finite feature vectors, ``n >= 1`` and ``d >= 1``.
    labels : array of shape (n,)
        Each 0 or 1.

    Returns
    -------
    float
        The mean loss, :math:`\ge 0` (``inf`` only when a term exceeds the largest float).

    Raises
    ------
    ValueError
        If an argument is not an array of numbers (``None``, a string, a ragged list), has
        the wrong shape or a nan or infinite entry, a label is not 0 or 1, or a score
        :math:`\tilde x^\top\theta` overflows to both signs in one sum (nan).

    Examples
    --------
    >>> round(logistic_loss([0.0, 0.0], [[1.0], [2.0]], [0, 1]), 6)   # log 2 at theta = 0
    0.693147
    """
    x, y = _data(features, labels)
    w = _weights(weights, x.shape[1])
    return _mean_loss(_scores(_augment(x), w), y)


def per_example_gradients(weights, features, labels) -> np.ndarray:
    r"""Gradients of the logistic loss, one row per example (vectorized, no loop).

    Row :math:`i` is :math:`(\mathrm{expit}(\tilde x_i^\top\theta) - y_i)\,\tilde x_i`, the
    gradient of :math:`\ell(\theta; x_i, y_i) = \log(1 + e^{\tilde x_i^\top\theta}) - y_i\tilde x_i^\top\theta`
    with respect to ``weights`` (:math:`\tilde x = (x, 1)`). Its norm is at most
    :math:`\lVert \tilde x_i \rVert_2`.

    Parameters
    ----------
    weights : array of shape (d + 1,)
        Finite coefficients, the last entry being the bias.
    features : array of shape (n, d)
        Finite feature vectors, ``n >= 1`` and ``d >= 1``.
    labels : array of shape (n,)
        Each 0 or 1.

    Returns
    -------
    ndarray of shape (n, d + 1)

    Raises
    ------
    ValueError
        If an argument is not an array of numbers (``None``, a string, a ragged list), has
        the wrong shape or a nan or infinite entry, a label is not 0 or 1, or a score
        :math:`\tilde x^\top\theta` overflows to both signs in one sum (nan).

    Examples
    --------
    >>> per_example_gradients([0.0, 0.0], [[2.0], [-1.0]], [1, 0])
    array([[-1. , -0.5],
           [-0.5,  0.5]])
    """
    x, y = _data(features, labels)
    w = _weights(weights, x.shape[1])
    return _grads(_augment(x), y, w)


def clip_gradients(gradients, clip_norm) -> np.ndarray:
    r"""Scale every row to Euclidean norm at most ``clip_norm``: :math:`g \min(1, C/\lVert g\rVert_2)`.

    Rows already within the ball are returned unchanged (bit for bit); longer rows keep
    their direction and get norm ``clip_norm``. This bounds each example's contribution to
    a sum by ``clip_norm`` (:cite:`abadi2016deep`, Algorithm 1). Norms are computed with
    each row scaled by its largest entry, so rows with entries near the largest or the
    smallest float are clipped correctly.

    Parameters
    ----------
    gradients : array of shape (m, d)
        Finite rows, one per example; ``m = 0`` (an empty batch) is allowed.
    clip_norm : float
        :math:`C`, finite and ``> 0``.

    Returns
    -------
    ndarray of shape (m, d)

    Raises
    ------
    ValueError
        If ``gradients`` is not a 2-D array of finite numbers or ``clip_norm`` is not a
        finite number ``> 0``.

    Examples
    --------
    >>> clip_gradients([[3.0, 4.0], [0.3, 0.4]], clip_norm=1.0)
    array([[0.6, 0.8],
           [0.3, 0.4]])
    """
    g = _gradients(gradients)
    return _clip(g, check_positive("clip_norm", clip_norm))


def noisy_clipped_sum(gradients, clip_norm, noise_multiplier, *, rng) -> np.ndarray:
    r"""Sum of the clipped rows plus Gaussian noise :math:`N(0, \sigma^2 C^2 I)`.

    The Gaussian mechanism (:cite:`dwork2014algorithmic`; the noise step of
    :cite:`abadi2016deep`, Algorithm 1) applied to the clipped sum, whose add/remove
    sensitivity is ``clip_norm`` :math:`= C`; ``noise_multiplier`` :math:`= \sigma` is the
    noise standard deviation in units of :math:`C`. The noise is exactly
    ``noise_multiplier * clip_norm * rng.standard_normal(d)`` (one draw, after nothing else).

    Parameters
    ----------
    gradients : array of shape (m, d)
        Finite rows; ``m = 0`` gives pure noise.
    clip_norm : float
        :math:`C > 0`, finite.
    noise_multiplier : float
        :math:`\sigma \ge 0`, finite (0: no noise).
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (d,)

    Raises
    ------
    ValueError
        As :func:`clip_gradients`, or if ``noise_multiplier`` is not a finite number
        ``>= 0``, or ``rng`` is not a Generator.

    Examples
    --------
    >>> g = [[3.0, 4.0], [0.3, 0.4]]
    >>> noisy_clipped_sum(g, 1.0, 0.0, rng=np.random.default_rng(0))   # no noise: the clipped sum
    array([0.9, 1.2])
    """
    clipped = clip_gradients(gradients, clip_norm)
    clip_norm = float(clip_norm)
    noise_multiplier = check_nonnegative("noise_multiplier", noise_multiplier)
    rng = check_rng("rng", rng)
    noise = rng.standard_normal(clipped.shape[1])
    return clipped.sum(axis=0) + noise_multiplier * clip_norm * noise


def poisson_batch(n, sampling_probability, *, rng) -> np.ndarray:
    r"""Indices of a Poisson sample: each of ``n`` examples is kept independently with probability ``q``.

    The batch size is :math:`\mathrm{Binomial}(n, q)`, not fixed, and a set :math:`S` is
    drawn with probability :math:`q^{|S|}(1-q)^{n-|S|}`. This is the sampling that the
    subsampled-Gaussian accountant assumes (:cite:`abadi2016deep`;
    :cite:`balle2018subsampling`); a shuffled fixed-size batch is a different mechanism.
    Draws ``rng.random(n)`` and keeps the indices below ``q``.

    Parameters
    ----------
    n : int
        The number of examples, in ``[1, 10**8]`` (an array of n uniform draws: 800 MB at the
        cap).
    sampling_probability : float
        :math:`q \in (0, 1]`.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int
        The kept indices, increasing, in ``[0, n)``.

    Raises
    ------
    ValueError
        If ``n`` is not an integer ``>= 1``, ``sampling_probability`` is not in ``(0, 1]``,
        or ``rng`` is not a Generator.

    Examples
    --------
    >>> poisson_batch(10, 0.3, rng=np.random.default_rng(1))
    array([2, 9])
    """
    n = check_integer("n", n, low=1, high=MAX_ENTRIES)
    q = check_in_range("sampling_probability", sampling_probability, 0.0, 1.0, low_inclusive=False)
    rng = check_rng("rng", rng)
    return np.flatnonzero(rng.random(n) < q)


def accuracy(weights, features, labels) -> float:
    r"""Fraction of examples whose label the model predicts (predict 1 when :math:`\tilde x^\top\theta > 0`).

    Parameters
    ----------
    weights : array of shape (d + 1,)
        Finite coefficients, the last entry being the bias.
    features : array of shape (n, d)
        Finite feature vectors, ``n >= 1`` and ``d >= 1``.
    labels : array of shape (n,)
        Each 0 or 1.

    Returns
    -------
    float
        In :math:`[0, 1]`, a multiple of :math:`1/n`.

    Raises
    ------
    ValueError
        If an argument is not an array of numbers (``None``, a string, a ragged list), has
        the wrong shape or a nan or infinite entry, a label is not 0 or 1, or a score
        :math:`\tilde x^\top\theta` overflows to both signs in one sum (nan).

    Examples
    --------
    >>> accuracy([1.0, 0.0], [[2.0], [-1.0], [0.5]], [1, 0, 0])
    0.6666666666666666
    """
    x, y = _data(features, labels)
    w = _weights(weights, x.shape[1])
    return float(np.mean((_scores(_augment(x), w) > 0) == (y == 1)))


# --------------------------------------------------------------------------- training
def _accountant_epsilon(value) -> float:
    """An accountant's answer as a float in [0, inf], or a ValueError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value) or value < 0:
        raise ValueError(f"accountant must return a number >= 0 (inf allowed), got {reprlib.repr(value)}")
    return float(value)


@dataclass(frozen=True)
class DPSGDResult:
    """What :func:`dp_sgd` returns.

    Attributes
    ----------
    weights : ndarray of shape (d + 1,)
        The trained model (last entry: bias).
    losses : ndarray of shape (epochs,)
        Mean training loss after each epoch (a non-private diagnostic).
    epsilons : ndarray of shape (epochs,) or None
        The accountant's epsilon after each epoch at ``delta`` (``inf`` when
        ``noise_multiplier`` is 0); ``None`` when no ``delta`` was given.
    batch_sizes : ndarray of shape (steps,)
        The size of every Poisson batch, in order (a non-private diagnostic: the sizes
        are functions of the secret batches).
    steps_per_epoch : int
        ``round(1 / sampling_probability)``.
    """

    weights: np.ndarray
    losses: np.ndarray
    epsilons: np.ndarray | None
    batch_sizes: np.ndarray
    steps_per_epoch: int


_MIN_SAMPLING_PROBABILITY = 1e-9      # dp_sgd runs round(1 / q) steps an epoch: at most 1e9


def dp_sgd(features, labels, *, clip_norm, noise_multiplier, sampling_probability, epochs,
           learning_rate, rng, delta=None, accountant=None, initial_weights=None,
           expected_batch_size=None) -> DPSGDResult:
    r"""Train logistic regression with DP-SGD (:cite:`abadi2016deep`, Algorithm 1, with Poisson sampling).

    Runs ``epochs * round(1 / sampling_probability)`` steps of the update described in
    :mod:`dpnotes.sgd`: Poisson batch, per-example gradients clipped to ``clip_norm``, noise
    ``noise_multiplier * clip_norm`` on their sum, step ``learning_rate`` times the noisy sum
    divided by the public constant ``expected_batch_size``.

    **What is public.** The accountant's guarantee covers the released weights because
    every quantity of the update other than the batch's clipped sum is fixed before the
    data are seen: ``clip_norm``, ``noise_multiplier``, ``sampling_probability``,
    ``epochs`` (hence the number of steps), ``learning_rate``, ``initial_weights`` and
    the divisor ``expected_batch_size``. None of them is computed here from ``features``;
    in particular the divisor is *not* ``sampling_probability * len(features)``, which
    under add/remove differs between neighbouring data sets.

    Parameters
    ----------
    features : array of shape (n, d)
        Finite feature vectors.
    labels : array of shape (n,)
        0 or 1.
    clip_norm : float > 0
        :math:`C`, the bound on each per-example gradient's Euclidean norm.
    noise_multiplier : float >= 0
        :math:`\sigma`; the noise standard deviation is :math:`\sigma C`. With 0 the run is
        not private (epsilon ``inf``).
    sampling_probability : float in [1e-9, 1]
        :math:`q`, each example's probability of being in a batch. An epoch is
        ``round(1 / q)`` steps, each one run and its batch size kept: at most ``1e9``.
    epochs : int in [1, 10**6]
        Arrays of one loss (and epsilon) per epoch and one batch size per step are kept, and
        each epoch runs ``round(1 / sampling_probability)`` steps: a million epochs is far past
        any run the book makes.
    learning_rate : float > 0
    rng : numpy.random.Generator
    delta : float in (0, 1), optional
        If given, the accountant's epsilon at this delta is reported after every epoch.
    accountant : callable ``(q, sigma, steps, delta) -> epsilon``, optional
        Called with the noise multiplier :math:`\sigma` (never :math:`\sigma C`). Defaults
        to :func:`dpnotes.subsampling.subsampled_gaussian_epsilon` (add/remove relation,
        Poisson sampling). Not called when ``noise_multiplier`` is 0.
    initial_weights : array of shape (d + 1,), optional
        Starting point (default zeros).
    expected_batch_size : float > 0, optional
        :math:`\bar b`, the public divisor of the noisy sum, for instance the expected batch
        size :math:`q\bar n` for a data set size :math:`\bar n` that is public. Default 1:
        the step is ``learning_rate`` times the noisy sum itself. Any default computed from
        the data would change when a record is added, and the mechanism would no longer be
        the one the add/remove accountant describes. Small enough (``5e-324``), the steps
        take the weights beyond the doubles: a ``ValueError``.

    Returns
    -------
    DPSGDResult

    Raises
    ------
    ValueError
        If the data are invalid (as in :func:`logistic_loss`), a parameter is out of its
        range or not a number (``sampling_probability`` below ``1e-9`` included), ``accountant``
        is given without ``delta`` or is not callable, the accountant returns something other
        than a number ``>= 0``, or an update takes a weight beyond the doubles (``learning_rate``
        over ``expected_batch_size`` times the noisy sum above ``1.8e308``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(200, 2)); y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(float)
    >>> fake = lambda q, sigma, steps, delta: steps * q / sigma      # any (q, sigma, steps, delta) -> eps
    >>> run = dp_sgd(x, y, clip_norm=1.0, noise_multiplier=1.0, sampling_probability=0.1, epochs=3,
    ...              learning_rate=0.5, rng=rng, delta=1e-5, accountant=fake, expected_batch_size=20)
    >>> run.batch_sizes.size, run.epsilons.tolist()
    (30, [1.0, 2.0, 3.0])
    >>> accuracy(run.weights, x, y) > 0.9
    True
    """
    x, y = _data(features, labels)
    n, d = x.shape
    clip_norm = check_positive("clip_norm", clip_norm)
    sigma = check_nonnegative("noise_multiplier", noise_multiplier)
    # round(1 / q) steps an epoch, each one recorded: below 1e-9, more than 1e9 steps an epoch (q = 1e-300
    # asked numpy for an array of 1e300 batch sizes, "Maximum allowed dimension exceeded"; 5e-324 made 1 / q inf)
    q = check_in_range("sampling_probability", sampling_probability, _MIN_SAMPLING_PROBABILITY, 1.0)
    epochs = check_integer("epochs", epochs, low=1, high=10**6)
    lr = check_positive("learning_rate", learning_rate)
    rng = check_rng("rng", rng)
    if accountant is not None and not callable(accountant):
        raise ValueError(f"accountant must be a callable (q, sigma, steps, delta) -> epsilon, "
                         f"got {reprlib.repr(accountant)}")
    if delta is not None:
        delta = check_in_range("delta", delta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
        if accountant is None and sigma > 0:
            from .subsampling import subsampled_gaussian_epsilon as accountant  # lazy: optional dependency
    elif accountant is not None:
        raise ValueError("delta must be given when an accountant is given, got None")
    w = np.zeros(d + 1) if initial_weights is None else _weights(initial_weights, d, "initial_weights").copy()
    # the public divisor: a constant of the call, never a function of the data (see the docstring)
    divisor = 1.0 if expected_batch_size is None else check_positive("expected_batch_size", expected_batch_size)

    xa = _augment(x)
    steps_per_epoch = max(1, round(1.0 / q))
    losses = np.empty(epochs)
    epsilons = None if delta is None else np.empty(epochs)
    batch_sizes = np.empty(epochs * steps_per_epoch, dtype=int)
    for epoch in range(epochs):
        for step in range(steps_per_epoch):
            batch = np.flatnonzero(rng.random(n) < q)          # Poisson sampling
            g = _clip(_grads(xa[batch], y[batch], w), clip_norm)
            noisy = g.sum(axis=0) + sigma * clip_norm * rng.standard_normal(d + 1)
            with np.errstate(over="ignore", invalid="ignore"):      # an overflow is refused just below
                w = w - lr * noisy / divisor
            if not np.all(np.isfinite(w)):
                # the weights are beyond the doubles (expected_batch_size = 5e-324 made them +-inf, then their
                # scores inf - inf = nan, refused with a message naming features and weights)
                raise ValueError(
                    "learning_rate * (clipped sum + noise_multiplier * clip_norm * noise) / expected_batch_size "
                    f"must keep the weights finite (below 1.8e308), got a weight {float(w[~np.isfinite(w)][0])!r} at step "
                    f"{epoch * steps_per_epoch + step + 1} (learning_rate = {lr!r}, expected_batch_size = "
                    f"{divisor!r})")
            batch_sizes[epoch * steps_per_epoch + step] = batch.size
        losses[epoch] = _mean_loss(_scores(xa, w), y)
        if epsilons is not None:
            steps = (epoch + 1) * steps_per_epoch
            if sigma == 0:
                epsilons[epoch] = math.inf
            else:
                epsilons[epoch] = _accountant_epsilon(accountant(q, sigma, steps, delta))
    return DPSGDResult(w, losses, epsilons, batch_sizes, steps_per_epoch)
