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
5. **The update** :math:`\theta \leftarrow \theta - \eta \,(\sum_{i\in B} \bar g_i + \sigma C z) / (q n)`
   with :math:`z \sim N(0, I)` and learning rate :math:`\eta`. The divisor is the
   *expected* batch size :math:`qn`, a public constant when the size :math:`n` is public
   (replace-one; under add/remove pass ``expected_batch_size``, a constant fixed in
   advance): dividing by the realized size :math:`|B|` would make the released quantity
   depend on the private batch size in a way the accountant does not model.

Each step is thus one run of the Poisson-subsampled Gaussian mechanism (sensitivity 1 after
dividing by :math:`C`), and ``steps`` steps are its ``steps``-fold adaptive composition. Its
privacy is the add/remove guarantee computed by
:func:`dpnotes.subsampling.subsampled_gaussian_epsilon` (the default accountant); under the
book's replace-one relation a replacement is a removal followed by an addition (see
:mod:`dpnotes`). Only the final (or every intermediate) model is released; the loss curve
returned here is computed on the training data *without* noise and is a diagnostic for the
reader, not a private release.

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
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ._validate import check_in_range, check_integer, check_nonnegative, check_positive, check_rng

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
def _data(features, labels) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(features, dtype=float)
    if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] == 0:
        raise ValueError(f"features must be a non-empty 2-D array (n, d), got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("features must be finite, got a nan or an infinite entry")
    y = np.asarray(labels, dtype=float)
    if y.shape != (x.shape[0],):
        raise ValueError(f"labels must have shape ({x.shape[0]},) to match features, got {y.shape}")
    if not np.all((y == 0) | (y == 1)):
        bad = y[~((y == 0) | (y == 1))][0]
        raise ValueError(f"labels must be 0 or 1, got {float(bad)!r}")
    return x, y


def _weights(weights, d: int) -> np.ndarray:
    w = np.asarray(weights, dtype=float)
    if w.shape != (d + 1,):
        raise ValueError(f"weights must have shape ({d + 1},) (d features and a bias), got {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError("weights must be finite, got a nan or an infinite entry")
    return w


def _gradients(gradients) -> np.ndarray:
    g = np.asarray(gradients, dtype=float)
    if g.ndim != 2:
        raise ValueError(f"gradients must be a 2-D array (one row per example), got shape {g.shape}")
    if not np.all(np.isfinite(g)):
        raise ValueError("gradients must be finite, got a nan or an infinite entry")
    return g


def _augment(x: np.ndarray) -> np.ndarray:
    return np.hstack([x, np.ones((x.shape[0], 1))])


def _grads(xa: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per-example logistic-loss gradients, rows (expit(x.w) - y) x, for augmented features."""
    return (expit(xa @ w) - y)[:, None] * xa


def _clip(g: np.ndarray, clip_norm: float) -> np.ndarray:
    """Rows scaled by min(1, C / norm) = C / max(norm, C): no division by a zero norm."""
    norms = np.linalg.norm(g, axis=1)
    return g * (clip_norm / np.maximum(norms, clip_norm))[:, None]


# --------------------------------------------------------------------------- the model
def logistic_loss(weights, features, labels) -> float:
    r"""Mean logistic (cross-entropy) loss of a logistic-regression model.

    :math:`\frac1n \sum_i \log(1 + e^{\tilde x_i^\top\theta}) - y_i \tilde x_i^\top\theta`,
    computed stably with :func:`numpy.logaddexp`.

    Parameters
    ----------
    weights : array of shape (d + 1,)
        Coefficients, the last entry being the bias.
    features : array of shape (n, d)
    labels : array of shape (n,) with entries 0 or 1

    Examples
    --------
    >>> round(logistic_loss([0.0, 0.0], [[1.0], [2.0]], [0, 1]), 6)   # log 2 at theta = 0
    0.693147
    """
    x, y = _data(features, labels)
    w = _weights(weights, x.shape[1])
    z = _augment(x) @ w
    return float(np.mean(np.logaddexp(0.0, z) - y * z))


def per_example_gradients(weights, features, labels) -> np.ndarray:
    r"""Gradients of the logistic loss, one row per example (vectorized, no loop).

    Row :math:`i` is :math:`(\mathrm{expit}(\tilde x_i^\top\theta) - y_i)\,\tilde x_i`, the
    gradient of :math:`\ell(\theta; x_i, y_i)` with respect to ``weights``.

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

    Rows already within the ball are returned unchanged; longer rows keep their direction
    and get norm exactly ``clip_norm``. This bounds each example's contribution to a sum
    by ``clip_norm`` (:cite:`abadi2016deep`, Algorithm 1).

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

    The Gaussian mechanism applied to the clipped sum, whose add/remove sensitivity is
    ``clip_norm`` :math:`= C`; ``noise_multiplier`` :math:`= \sigma` is the noise standard
    deviation in units of :math:`C`. The noise is ``sigma * C * rng.standard_normal(d)``.

    Examples
    --------
    >>> g = [[3.0, 4.0], [0.3, 0.4]]
    >>> noisy_clipped_sum(g, 1.0, 0.0, rng=np.random.default_rng(0))   # no noise: the clipped sum
    array([0.9, 1.2])
    """
    clipped = clip_gradients(gradients, clip_norm)
    noise_multiplier = check_nonnegative("noise_multiplier", noise_multiplier)
    rng = check_rng("rng", rng)
    noise = rng.standard_normal(clipped.shape[1])
    return clipped.sum(axis=0) + noise_multiplier * clip_norm * noise


def poisson_batch(n, sampling_probability, *, rng) -> np.ndarray:
    r"""Indices of a Poisson sample: each of ``n`` examples is kept independently with probability ``q``.

    The batch size is :math:`\mathrm{Binomial}(n, q)`, not fixed. This is the sampling
    that the subsampled-Gaussian accountant assumes; a shuffled fixed-size batch is a
    different mechanism. Draws ``rng.random(n)`` and keeps the indices below ``q``.

    Examples
    --------
    >>> poisson_batch(10, 0.3, rng=np.random.default_rng(1))
    array([2, 9])
    """
    n = check_integer("n", n, low=1)
    q = check_in_range("sampling_probability", sampling_probability, 0.0, 1.0, low_inclusive=False)
    rng = check_rng("rng", rng)
    return np.flatnonzero(rng.random(n) < q)


def accuracy(weights, features, labels) -> float:
    r"""Fraction of examples whose label the model predicts (predict 1 when :math:`\tilde x^\top\theta > 0`).

    Examples
    --------
    >>> accuracy([1.0, 0.0], [[2.0], [-1.0], [0.5]], [1, 0, 0])
    0.6666666666666666
    """
    x, y = _data(features, labels)
    w = _weights(weights, x.shape[1])
    return float(np.mean((_augment(x) @ w > 0) == (y == 1)))


# --------------------------------------------------------------------------- training
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
        The size of every Poisson batch, in order.
    steps_per_epoch : int
        ``round(1 / sampling_probability)``.
    """

    weights: np.ndarray
    losses: np.ndarray
    epsilons: np.ndarray | None
    batch_sizes: np.ndarray
    steps_per_epoch: int


def dp_sgd(features, labels, *, clip_norm, noise_multiplier, sampling_probability, epochs,
           learning_rate, rng, delta=None, accountant=None, initial_weights=None,
           expected_batch_size=None) -> DPSGDResult:
    r"""Train logistic regression with DP-SGD (:cite:`abadi2016deep`, Algorithm 1, with Poisson sampling).

    Runs ``epochs * round(1 / sampling_probability)`` steps of the update described in
    :mod:`dpnotes.sgd`: Poisson batch, per-example gradients clipped to ``clip_norm``, noise
    ``noise_multiplier * clip_norm`` on their sum, step ``learning_rate`` times the noisy sum
    over the expected batch size ``sampling_probability * n``.

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
    sampling_probability : float in (0, 1]
        :math:`q`, each example's probability of being in a batch.
    epochs : int >= 1
    learning_rate : float > 0
    rng : numpy.random.Generator
    delta : float in (0, 1), optional
        If given, the accountant's epsilon at this delta is reported after every epoch.
    accountant : callable ``(q, sigma, steps, delta) -> epsilon``, optional
        Defaults to :func:`dpnotes.subsampling.subsampled_gaussian_epsilon` (add/remove
        relation, Poisson sampling). Not called when ``noise_multiplier`` is 0.
    initial_weights : array of shape (d + 1,), optional
        Starting point (default zeros).
    expected_batch_size : float > 0, optional
        The public divisor of the noisy sum. Default ``sampling_probability * n``, which
        treats the data set size ``n`` as public, as the replace-one relation does; under
        add/remove, where ``n`` differs between neighbours, pass a constant fixed in advance.

    Returns
    -------
    DPSGDResult

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(200, 2)); y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(float)
    >>> fake = lambda q, sigma, steps, delta: steps * q / sigma      # any (q, sigma, steps, delta) -> eps
    >>> run = dp_sgd(x, y, clip_norm=1.0, noise_multiplier=1.0, sampling_probability=0.1, epochs=3,
    ...              learning_rate=0.5, rng=rng, delta=1e-5, accountant=fake)
    >>> run.batch_sizes.size, run.epsilons.tolist()
    (30, [1.0, 2.0, 3.0])
    >>> accuracy(run.weights, x, y) > 0.9
    True
    """
    x, y = _data(features, labels)
    n, d = x.shape
    clip_norm = check_positive("clip_norm", clip_norm)
    sigma = check_nonnegative("noise_multiplier", noise_multiplier)
    q = check_in_range("sampling_probability", sampling_probability, 0.0, 1.0, low_inclusive=False)
    epochs = check_integer("epochs", epochs, low=1)
    lr = check_positive("learning_rate", learning_rate)
    rng = check_rng("rng", rng)
    if delta is not None:
        delta = check_in_range("delta", delta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
        if accountant is None and sigma > 0:
            from .subsampling import subsampled_gaussian_epsilon as accountant  # lazy: optional dependency
    elif accountant is not None:
        raise ValueError("delta must be given when an accountant is given, got None")
    w = np.zeros(d + 1) if initial_weights is None else _weights(initial_weights, d).copy()
    if expected_batch_size is None:
        expected_batch = q * n
    else:
        expected_batch = check_positive("expected_batch_size", expected_batch_size)

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
            w = w - lr * noisy / expected_batch
            batch_sizes[epoch * steps_per_epoch + step] = batch.size
        z = xa @ w
        losses[epoch] = np.mean(np.logaddexp(0.0, z) - y * z)
        if epsilons is not None:
            steps = (epoch + 1) * steps_per_epoch
            epsilons[epoch] = math.inf if sigma == 0 else float(accountant(q, sigma, steps, delta))
    return DPSGDResult(w, losses, epsilons, batch_sizes, steps_per_epoch)
