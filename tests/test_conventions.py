"""The package keeps the conventions that CONTRIBUTING.md promises contributors.

Every public module has its own test file and a line in the package docstring, and every
public function has a docstring with an example (which then runs as a doctest). Whether a
docstring cites the right theorem is left to review.
"""

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import dpnotes

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(m.name for m in pkgutil.iter_modules(dpnotes.__path__) if not m.name.startswith("_"))


def public_functions(module):
    for name, obj in vars(module).items():
        if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == module.__name__:
            yield name, obj


@pytest.mark.parametrize("name", MODULES)
def test_module_has_tests_and_is_listed(name):
    assert (ROOT / "tests" / f"test_{name}.py").exists(), f"tests/test_{name}.py is missing"
    assert f"``{name}``" in dpnotes.__doc__, f"dpnotes/__init__.py does not list module {name}"


@pytest.mark.parametrize("name", MODULES)
def test_public_functions_have_docstrings_with_examples(name):
    module = importlib.import_module(f"dpnotes.{name}")
    bad = [fn for fn, obj in public_functions(module) if ">>>" not in (inspect.getdoc(obj) or "")]
    assert not bad, f"functions of dpnotes.{name} without a doctest example: {bad}"


@pytest.mark.parametrize("name", MODULES)
def test_module_has_a_docstring(name):
    module = importlib.import_module(f"dpnotes.{name}")
    assert module.__doc__ and len(module.__doc__.strip()) > 20


def test_bibliography_parses_and_keeps_every_entry():
    """Branches append to references.bib; a merge can drop an entry's closing brace. Sphinx then
    fails at start-up with a parser error; this says which entry, in the fast test pass."""
    from pybtex.database import parse_string

    text = (ROOT / "references.bib").read_text(encoding="utf-8")
    starts = [line for line in text.splitlines() if line.startswith("@")]
    entries = parse_string(text, "bibtex").entries  # raises on an unbalanced entry
    assert len(entries) == len(starts), "an entry swallowed the next one (missing closing brace?)"
