"""The book writes neighbouring data sets one way: ``x \\simeq x'`` (appendix "Notation").

``\\sim`` stays free for "distributed as" (``Y \\sim P``, ``t \\sim Y``), so the test looks only for
``\\sim`` (or the Unicode ``∼``) *between two names of data sets*: a name and the same letter with a
prime (``x \\sim x'``, ``D' \\sim D``) or with another subscript (``D_0 \\sim D_1``). A law is never
written that way, and a neighbour relation always is.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([*ROOT.glob("chapters/**/*.md"), ROOT / "intro.md", *ROOT.glob("templates/*.md")])

SIM = r"(?:\\sim(?![A-Za-z])|∼)"          # \sim but not \simeq, \similar; or U+223C
NAME = r"(?<![\\A-Za-z])([A-Za-z])"         # one letter, not the end of a command such as \mu
NEIGHBOUR_SIM = [
    re.compile(NAME + r"(?:'|_\{?\w+\}?)?\s*" + SIM + r"\s*\1(?:'|_)"),   # x ~ x', D_0 ~ D_1, x' ~ x_2
    re.compile(NAME + r"'\s*" + SIM + r"\s*\1(?![A-Za-z'_])"),          # x' ~ x
]


def neighbour_sims(text):
    return [m.group(0) for pattern in NEIGHBOUR_SIM for m in pattern.finditer(text)]


@pytest.mark.parametrize("text", [r"$x \sim x'$", r"$\max_{x\sim x'}$", r"$D \sim D'$", r"$D_0 \sim D_1$",
                                  r"$x' \sim x$", r"$x_{1} \sim x_2$", "$x ∼ x'$", r"$D\sim D'$"])
def test_the_pattern_finds_every_way_of_writing_neighbours_with_sim(text):
    assert neighbour_sims(text), text


@pytest.mark.parametrize("text", [r"$x \simeq x'$", r"$Y \sim P$", r"$t \sim Y$", r"$y\sim Z$",
                                  r"$Z_j \sim \mathrm{Lap}(b)$", r"$X \sim N(0, 1)$", r"$x' \sim N(\mu, 1)$",
                                  r"$\mu \sim \mu'$ is not a data set", r"$F(U)\sim A$",
                                  r"$\mathbb{E}_{y\sim Y}$", r"$Q_m \sim \chi^2_m$"])
def test_the_pattern_leaves_distributed_as_alone(text):
    assert not neighbour_sims(text), text


def test_the_notation_appendix_defines_simeq_for_neighbours():
    table = (ROOT / "chapters/appendices/notation.md").read_text(encoding="utf-8")
    row = next(line for line in table.splitlines() if "neighbouring data sets" in line)
    assert r"$x \simeq x'$" in row


def test_every_page_writes_neighbours_with_simeq():
    bad = {str(p.relative_to(ROOT)): hits for p in PAGES if (hits := neighbour_sims(p.read_text(encoding="utf-8")))}
    assert not bad, f"write neighbours as x \\simeq x' (appendix Notation), not with \\sim: {bad}"
    uses = sum(p.read_text(encoding="utf-8").count(r"\simeq") for p in PAGES)
    assert uses >= 10, "the chapters no longer use \\simeq for neighbours at all"
