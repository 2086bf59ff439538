"""Unit tests of dpnotes.plotting."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from dpnotes import plotting  # noqa: E402


def test_use_style_sets_cycle_and_sizes():
    with matplotlib.rc_context():
        plotting.use_style()
        assert matplotlib.rcParams["axes.prop_cycle"].by_key()["color"] == plotting.CYCLE
        assert matplotlib.rcParams["axes.spines.top"] is False


def test_palette_is_okabe_ito_and_distinct():
    # the eight colours of Okabe & Ito (2008)
    assert set(plotting.PALETTE.values()) == {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7",
                                               "#56B4E9", "#F0E442", "#000000"}
    assert len(set(plotting.CYCLE)) == len(plotting.CYCLE) == 8


def test_figure_sizes_and_panels():
    fig, ax = plotting.figure()
    assert tuple(fig.get_size_inches()) == pytest.approx((6.0, 3.6))
    plt.close(fig)
    fig, axes = plotting.figure(3)
    assert len(axes) == 3 and fig.get_size_inches()[0] == pytest.approx(10.2)
    plt.close(fig)


@pytest.mark.parametrize("kwargs, match", [(dict(ncols=0), "ncols"), (dict(ncols=5), "ncols"),
                                           (dict(width=-1), "width must be > 0"),
                                           (dict(height=0), "height must be > 0")])
def test_figure_bad_inputs(kwargs, match):
    with pytest.raises(ValueError, match=match):
        plotting.figure(**kwargs)
