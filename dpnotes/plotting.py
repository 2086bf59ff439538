"""The book's single figure style.

Nothing here runs on import: a chapter calls :func:`use_style` once, then draws
with plain matplotlib. Colours are the Okabe-Ito palette, which stays
distinguishable under the common forms of colour blindness; sizes are chosen so
a figure stays readable when the page is read on a phone.

>>> import matplotlib
>>> _ = matplotlib.use("Agg")
>>> from dpnotes import plotting
>>> plotting.use_style()
>>> matplotlib.rcParams["axes.prop_cycle"].by_key()["color"][0] == plotting.PALETTE["blue"]
True
"""

from __future__ import annotations

from cycler import cycler

__all__ = ["PALETTE", "CYCLE", "STYLE", "use_style", "figure"]

#: Okabe & Ito (2008) colour-blind-safe palette, by name.
#:
#: :meta hide-value:
PALETTE = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    "sky": "#56B4E9",
    "yellow": "#F0E442",
    "black": "#000000",
}

#: Order in which lines take colours, yellow last because it is faint on white.
#:
#: :meta hide-value:
CYCLE = [PALETTE[c] for c in ("blue", "orange", "green", "vermillion", "purple", "sky", "black", "yellow")]

#: The rcParams that :func:`use_style` applies.
#:
#: :meta hide-value:
STYLE = {
    "figure.figsize": (6.0, 3.6),
    "figure.dpi": 110,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "font.size": 11,
    "axes.labelsize": 11,
    "axes.titlesize": 11,
    "legend.fontsize": 9.5,
    "legend.frameon": False,
    "xtick.labelsize": 9.5,
    "ytick.labelsize": 9.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "lines.linewidth": 2.0,
    "axes.prop_cycle": cycler(color=CYCLE),
    "mathtext.fontset": "cm",
}


def use_style() -> None:
    """Apply the book's figure style to matplotlib's global ``rcParams``.

    Returns
    -------
    None
        The style (:data:`STYLE`) is applied to ``matplotlib.rcParams`` in place.

    Examples
    --------
    >>> import matplotlib
    >>> use_style()
    >>> matplotlib.rcParams["axes.spines.top"]
    False
    """
    import matplotlib as mpl

    mpl.rcParams.update(STYLE)


def figure(ncols: int = 1, *, width: float | None = None, height: float | None = None, **kwargs):
    """Return ``(fig, axes)`` sized for the book: one panel, or ``ncols`` side by side.

    Parameters
    ----------
    ncols : int
        Number of panels in one row, ``1 <= ncols <= 4``.
    width, height : float, optional
        Figure size in inches; default 6 x 3.6 for one panel, wider for more.
    **kwargs
        Passed to :func:`matplotlib.pyplot.subplots`.

    Returns
    -------
    fig : matplotlib.figure.Figure
        The figure, with the constrained layout.
    axes : matplotlib.axes.Axes or ndarray of Axes
        One axes for ``ncols = 1``, an array of ``ncols`` otherwise.

    Raises
    ------
    ValueError
        If ``ncols`` is not an integer in ``[1, 4]`` or ``width`` or ``height`` is not ``> 0``.

    Examples
    --------
    >>> import matplotlib
    >>> _ = matplotlib.use("Agg")
    >>> fig, axes = figure(2)
    >>> [round(float(v), 1) for v in fig.get_size_inches()], len(axes)
    ([6.8, 3.6], 2)
    """
    import matplotlib.pyplot as plt

    from ._validate import check_integer, check_positive

    ncols = check_integer("ncols", ncols, low=1, high=4)
    w = check_positive("width", width) if width is not None else 6.0 if ncols == 1 else 3.4 * ncols
    h = check_positive("height", height) if height is not None else 3.6
    fig, ax = plt.subplots(1, ncols, figsize=(w, h), layout="constrained", **kwargs)
    return fig, ax
