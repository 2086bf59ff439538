"""dpnotes: the tested helper package of the *dpnotes* textbook on differential privacy.

Every figure and every number in the book is produced by this package, and every
function in it is unit-tested, so the text and the code cannot disagree.

Conventions (used by every module, stated once here)
----------------------------------------------------
Logarithms
    ``log`` is the natural logarithm; ``epsilon`` is measured in nats, so a
    probability ratio bounded by ``exp(epsilon)`` means ``epsilon``-DP.
Neighbouring data sets
    Two data sets ``x`` and ``x'`` of the same size ``n`` are *neighbours* when
    they differ in exactly one record (the *replace-one*, or bounded, relation).
    Under the add/remove relation a replacement is two steps, so an
    ``epsilon``-DP guarantee for add/remove gives ``2*epsilon`` for replace-one.
    Group privacy counts distance in the same replace-one (Hamming) metric.
Privacy parameters
    ``epsilon`` is a float ``> 0`` unless a function says it accepts ``0``;
    ``delta`` lies in ``[0, 1)``; ``sensitivity`` is ``> 0``.
Randomness
    Every random function takes ``rng``, a :class:`numpy.random.Generator`
    (``numpy.random.default_rng(seed)``); nothing draws from global state.
Errors
    Bad input raises :class:`ValueError` whose message names the parameter, the
    allowed range and the value received, e.g.
    ``ValueError("epsilon must be > 0, got -1")``.

Importing the package has no side effects: the figure style is applied only by
an explicit call to :func:`dpnotes.plotting.use_style`.

Modules
-------
``anonymity``     equivalence classes, k-anonymity, l-diversity, t-closeness and the EMD
``attacks``       census reconstruction and the Dinur-Nissim attacks
``mechanisms``    randomized response, Laplace and Gaussian mechanisms, calibrations, sampling
``loss``          privacy loss distributions, hockey-stick divergence, privacy profiles
``finite``        exact epsilon of mechanisms with finitely many inputs and outputs
``tradeoff``      the hypothesis-testing view: error pairs of tests, the privacy region
``divergences``   max, approximate max, KL and Rényi divergences
``concentration`` Azuma and Hoeffding bounds, simulated privacy-loss martingales
``composition``   basic, advanced and optimal composition; conversions between variants
``selection``     private selection: exponential mechanism, report noisy max, permute-and-flip
``svt``           AboveThreshold, Sparse, NumericSparse: samplers, exact output laws, accuracy
``local``         local randomizers (k-RR, unary encoding), frequency estimation, shuffle amplification
``sgd``           DP-SGD for logistic regression: per-example clipping, Gaussian noise, Poisson sampling
``discrete``      exact discrete Laplace and Gaussian samplers and profiles; floating-point noise
``functional``    kernels, Gaussian processes, RKHS norms, private kernel density estimation
``audit``         lower bounds on epsilon from error counts, black-box audits, one-run auditing
``flawed``        published mechanisms whose privacy claims are false, kept as test subjects
``benchmark``     the auditing benchmark of DP-Sniper and StatDP: twenty mechanisms and floating point
``subsampling``   amplification by subsampling; subsampled-Gaussian RDP, tight PLD (FFT) and GDP accounting
``census``        the 2020 Census in miniature: TopDown's measurements and post-processing, exact accounting
``plotting``      the book's single figure style
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
