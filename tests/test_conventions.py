"""The package keeps the conventions that CONTRIBUTING.md promises contributors, and what
contributors read (CONTRIBUTING's parts, the repository's links) agrees with the configuration.

Every public module has its own test file and a line in the package docstring, and every
public function has a docstring with an example (which then runs as a doctest). Whether a
docstring cites the right theorem is left to review.
"""

import importlib
import inspect
import pkgutil
import json
import re
import sys
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


# ---------------------------------------------------------------- what contributors read
def toc_parts(root: Path = ROOT) -> list[tuple[str, str]]:
    """``(caption, folder)`` of every part of ``_toc.yml``, in order: the folder under ``chapters/``
    that holds the part's pages."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    parts = []
    for part in toc["parts"]:
        folders = {Path(c["file"]).parts[1] for c in part["chapters"]}
        assert len(folders) == 1, f"part {part['caption']!r} spans several folders: {sorted(folders)}"
        parts.append((part["caption"], folders.pop()))
    return parts


def contributing_parts(text: str) -> list[tuple[str, str]]:
    """The rows ``| caption | `chapters/folder/` |`` of CONTRIBUTING's table of parts."""
    return re.findall(r"^[ \t]*\|\s*([^|`]+?)\s*\|\s*`chapters/([\w-]+)/`\s*\|\s*$", text, re.M)


def test_contributing_lists_the_parts_of_the_toc():
    """CONTRIBUTING tells a new contributor where a page goes: its table of parts is _toc.yml's."""
    listed = contributing_parts((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    want = toc_parts()
    rows = "\n".join(f"| {caption} | `chapters/{folder}/` |" for caption, folder in want)
    assert listed == want, f"CONTRIBUTING.md's table of parts differs from _toc.yml; it should read:\n{rows}"


def test_the_parts_check_can_fail():
    text = "| Why differential privacy | `chapters/why-dp/` |\n| Composition | `chapters/composition/` |\n"
    assert contributing_parts(text) == [("Why differential privacy", "why-dp"), ("Composition", "composition")]
    assert contributing_parts(text)[:1] != toc_parts()[:2]


sys.path.insert(0, str(ROOT / "scripts"))
import repository  # noqa: E402

# Links that name a GitHub repository: the repository itself, Binder, Colab, GitHub Pages.
_REPO_LINK = re.compile(
    r"https?://(?:(?:www\.)?github\.com/|mybinder\.org/v2/gh/|colab\.research\.google\.com/github/)"
    r"(?P<owner>[\w.-]+)/(?P<name>[\w.-]+)(?P<rest>[^\s)\]\"'`>;,]*)"
    r"|https?://(?P<powner>[\w-]+)\.github\.io/(?P<pname>[\w.-]+)")


def stale_repository_links(text: str, setting: dict) -> list[str]:
    """Links to *this* project's repository (by its name, or the package's, ``dpnotes``) that do not
    name the configured owner, name and branch: they would go stale when the setting changes."""
    bad = []
    for m in _REPO_LINK.finditer(text):
        owner, name = (m["owner"], m["name"]) if m["owner"] else (m["powner"], m["pname"])
        name = re.sub(r"(\.git)?\.*$", "", name)  # a clone URL, or a link at the end of a sentence
        if name.lower() not in {setting["name"].lower(), "dpnotes"}:
            continue  # another project's repository (a library, a paper's code)
        if (owner.lower(), name.lower()) != (setting["owner"].lower(), setting["name"].lower()):
            bad.append(m[0])
        elif m[0].startswith("https://mybinder.org") and not (m["rest"] or "").startswith(f"/{setting['branch']}"):
            bad.append(m[0])
    return bad


def test_every_link_to_the_repository_comes_from_the_one_setting():
    """``repository.url`` and ``repository.branch`` in _config.yml make the launch buttons; the
    README, CONTRIBUTING, the Binder files, the workflows and the chapters name the same repository."""
    setting = repository.setting()
    files = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "intro.md", *sorted((ROOT / "binder").iterdir()),
             *sorted((ROOT / ".github" / "workflows").glob("*.yml")), ROOT / ".ci" / "run",
             *sorted((ROOT / "chapters").rglob("*.md")), *sorted((ROOT / "templates").iterdir())]
    bad = {str(f.relative_to(ROOT)): stale_repository_links(f.read_text(encoding="utf-8"), setting) for f in files}
    bad = {f: links for f, links in bad.items() if links}
    assert not bad, f"links to a repository other than _config.yml's {setting['url']} ({setting['branch']}): {bad}"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = repository.links()
    for key in ("clone", "binder", "pages"):
        assert links[key] in readme, f"README.md does not give the {key} link {links[key]}"


def test_the_repository_check_can_fail(tmp_path):
    setting = {"url": "https://github.com/alice/dpnotes", "owner": "alice", "name": "dpnotes", "branch": "main"}
    text = ("git clone https://github.com/dpnotes/dpnotes.git; [b](https://mybinder.org/v2/gh/alice/dpnotes/dev?x=1) "
            "https://alice.github.io/dpnotes/ https://github.com/alice/dpnotes/issues "
            "https://github.com/google/differential-privacy https://mybinder.org/v2/gh/alice/dpnotes/main")
    assert stale_repository_links(text, setting) == ["https://github.com/dpnotes/dpnotes.git",
                                                     "https://mybinder.org/v2/gh/alice/dpnotes/dev?x=1"]
    (tmp_path / "_config.yml").write_text("repository:\n  url: https://gitlab.com/x\n")
    with pytest.raises(ValueError, match="repository.url must be https://github.com/OWNER/NAME"):
        repository.setting(tmp_path)


def test_mutation_testing_copies_every_page_data_file_a_test_reads():
    # mutmut runs the tests in a copy of the repository holding only [tool.mutmut] also_copy: a
    # page's .json file that a test reads but that is not listed fails every mutant's run
    import tomllib
    also_copy = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]["also_copy"])
    tests_text = "\n".join(p.read_text() for p in (ROOT / "tests").glob("*.py"))
    read = {p.relative_to(ROOT).as_posix() for p in ROOT.glob("chapters/**/*.json") if p.name in tests_text}
    assert read, "no page data file found: the check would pass vacuously"
    assert read <= also_copy, f"add to also_copy in pyproject.toml: {sorted(read - also_copy)}"


# A backslash escape written into a non-raw Python string when a script edits a page ("\v" of
# "\varepsilon" is a vertical tab, "\b" of "\bot" a backspace) leaves a control character that
# neither -W nor MathJax reports: the formula just renders as "arepsilon". No source file may hold one.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TEXT_SUFFIXES = {".md", ".py", ".yml", ".yaml", ".toml", ".bib", ".json", ".txt", ".cfg", ".html", ".css", ".js"}


def control_characters(paths) -> list[str]:
    found = []
    for path in paths:
        # split on newlines only: str.splitlines would take a vertical tab or a form feed as a line end
        for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
            m = _CONTROL.search(line.rstrip("\r"))
            if m:
                found.append(f"{path.name}:{n}: {m.group()!r} in {line.strip(' ')[:60]!r}")
    return found


def _tracked_text_files():
    import subprocess

    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / f for f in out.splitlines() if Path(f).suffix in _TEXT_SUFFIXES and (ROOT / f).is_file()]


def test_no_source_file_holds_a_control_character():
    files = _tracked_text_files()
    assert any(f.name == "benchmark.md" for f in files)          # the scan reaches the chapters
    assert control_characters(files) == []


def test_the_control_character_check_can_fail(tmp_path):
    bad = tmp_path / "page.md"
    bad.write_text("the true $\varepsilon$\nand $\\varepsilon$\n")   # as a script would write it: a vertical tab
    assert control_characters([bad]) == ["page.md:1: '\\x0b' in 'the true $\\x0barepsilon$'"]


def test_every_mutation_reason_names_a_survivor_of_the_report():
    """benchmarks/mutation-survivors.toml explains survivors; a reason whose mutant the report no
    longer lists as a survivor (killed by a later test, or renumbered by a code change) is stale,
    and a stale 'as mutmut_3' in another reason would point at nothing. A mutant that the saved
    verdicts (benchmarks/mutation-results/) mark as not checked yet keeps its reason."""
    import tomllib

    reasons = tomllib.loads((ROOT / "benchmarks" / "mutation-survivors.toml").read_text(encoding="utf-8"))
    report = (ROOT / "benchmarks" / "mutation-report.md").read_text(encoding="utf-8")
    stale = {}
    for module, table in reasons.items():
        if not isinstance(table, dict):
            continue
        survivors = set(re.findall(rf"^\| {re.escape(module)} \| `([^`]+)`", report, re.M))
        # a mutant a stopped run has not reached yet keeps its reason for the run that continues it
        saved = ROOT / "benchmarks" / "mutation-results" / f"{module}.json"
        codes = json.loads(saved.read_text(encoding="utf-8"))["exit_codes"] if saved.exists() else {}
        pending = {f"{func}__mutmut_{i}" for func, values in codes.items() for i, c in enumerate(values, 1) if c is None}
        extra = sorted(set(table) - survivors - pending)
        if extra:
            stale[module] = extra
    assert not stale, f"reasons for mutants that are not survivors in the report: {stale}"
