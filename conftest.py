"""pytest collection of the book's MyST Markdown notebooks through nbval.

nbval only collects ``.ipynb`` files. The chapters are MyST Markdown notebooks
(``.md`` with a jupytext front matter), so this hook hands nbval the notebook
that jupytext reads from the ``.md`` file, in memory. Each code cell becomes a
test; a failing ``assert`` in a cell fails that test. Since ``.md`` files carry
no stored outputs, the assertions in the cells *are* the tests.

A failing cell's report also names the line of the ``.md`` file where that
code cell starts, so a contributor can jump to it.
"""

from __future__ import annotations

import re
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
_CODE_CELL = re.compile(r"^(`{3,}|~{3,})\{code-cell\}")


def _is_myst_notebook(path: Path) -> bool:
    from myst_nb.core.read import is_myst_markdown_notebook

    return is_myst_markdown_notebook(path.read_text(encoding="utf-8"))


def code_cell_lines(text: str) -> list[int]:
    """1-based line numbers of the ``{code-cell}`` fences of a MyST notebook, in order."""
    return [i for i, line in enumerate(text.splitlines(), start=1) if _CODE_CELL.match(line)]


def pytest_collect_file(file_path, parent):
    opt = parent.config.option
    if not (getattr(opt, "nbval", False) or getattr(opt, "nbval_lax", False)):
        return None
    if file_path.suffix != ".md" or "_build" in file_path.parts:
        return None
    if not _is_myst_notebook(file_path):
        return None
    return MystNotebookFile.from_parent(parent, path=file_path)


def _make_file_class():
    import jupytext
    import nbval.plugin as nbval_plugin

    class MystNotebookFile(nbval_plugin.IPyNbFile):
        """An nbval notebook collector that reads a MyST Markdown notebook with jupytext."""

        def collect(self):
            text = Path(self.path).read_text(encoding="utf-8")
            nb = jupytext.reads(text, fmt="md:myst")
            lines = code_cell_lines(text)
            real = nbval_plugin.nbformat
            nbval_plugin.nbformat = types.SimpleNamespace(read=lambda *a, **k: nb)
            try:
                for i, item in enumerate(super().collect()):
                    item.md_line = lines[i] if i < len(lines) else None
                    yield item
            finally:
                nbval_plugin.nbformat = real

    return MystNotebookFile


MystNotebookFile = _make_file_class()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    line = getattr(item, "md_line", None)
    if report.failed and line is not None:
        path = Path(item.path)
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        report.sections.append(("MyST source", f"the failing code cell starts at {shown}:{line}"))
