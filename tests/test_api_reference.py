"""The API reference appendix documents every public name of dpnotes, and the chapters link to it.

Three promises, checked statically (no build needed; the ``-W -n`` build of ``make book``
checks that the pages render and that every ``{py:func}`` role resolves):

1. **Every public name has an entry.** The public names of a module are its ``__all__``
   (modules found with ``pkgutil``, private ``_modules`` left out). Each module has a page
   ``chapters/appendices/api/<module>.md`` in ``_toc.yml`` whose ``automodule`` directive
   documents its members (autodoc follows ``__all__`` and skips members without a docstring,
   hence 2), and a row on the index page ``chapters/appendices/api.md``. A function or class
   defined in a module but missing from its ``__all__`` would have no entry: it fails too.
2. **Every entry is a usable reference.** A public function has a numpy-style docstring with
   a ``Parameters`` section naming every parameter of its signature (none if it takes none) and
   no other, and a ``Returns`` section (``Yields`` for a generator; a function that returns
   nothing says ``None``). A public class has ``Parameters`` or ``Attributes`` naming the fields
   of a dataclass or named tuple and the parameters of its own ``__init__``; its public methods
   follow the function rule. A module constant has a ``#:`` doc comment, and so does a property:
   napoleon reads the first line of those as ``type: description``, so that line must not contain
   a ``: `` outside markup.
3. **Chapters link to the reference.** In every page of the book, the first mention in prose of
   each public function or class of dpnotes is a ``{py:func}`` (``{py:class}``) role to its
   full name. A mention is an inline code span (not a role) whose content is a name, possibly
   dotted (``dpnotes.loss.gaussian_delta``, ``loss.gaussian_delta``, ``mech.sensitivity``), whose
   last part is a public name, possibly followed by a call (``fn.lscv_sensitivity(n, h, d)``).
   Code cells, other fenced code, ``literalinclude``/``eval-rst`` blocks, directive options,
   front matter and ``%`` comments are not prose; the text of other directives (theorems,
   admonitions, exercises, captions) is.

``PENDING_MODULES`` and ``PENDING_CHAPTERS`` are the known gaps left when this test was written
(other helpers were editing those files): each must still fail, so an entry that has been fixed
fails the test until it is removed from its set. ``python tests/test_api_reference.py PAGE...``
rewrites the first mentions of the given pages as links (the words kept as the link's text).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re
import types
import warnings
from pathlib import Path

import pytest
import yaml

import dpnotes

ROOT = Path(__file__).resolve().parents[1]
API_DIR = ROOT / "chapters" / "appendices" / "api"
API_INDEX = ROOT / "chapters" / "appendices" / "api.md"
MODULES = sorted(m.name for m in pkgutil.iter_modules(dpnotes.__path__) if not m.name.startswith("_"))

# Modules whose docstrings were not yet brought to the standard of promise 2 (issue 24; they were
# being edited by others). Their pages exist and their functions are documented as they are.
PENDING_MODULES: set[str] = set()
# Pages whose first mentions are not yet links (issue 24; being edited by others).
PENDING_CHAPTERS: set[str] = set()


def module(name: str) -> types.ModuleType:
    return importlib.import_module(f"dpnotes.{name}")


def public_objects(mod: types.ModuleType):
    """(name, object) for each function and class of ``mod.__all__``."""
    for name in mod.__all__:
        obj = getattr(mod, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            yield name, obj


# ------------------------------------------------------------------------------- docstrings
_SECTION = re.compile(r"^([A-Z][A-Za-z ]*)\n-{3,}[ \t]*$", re.M)


def sections(doc: str) -> dict[str, list[str]]:
    """The numpydoc sections of a docstring (a title underlined with dashes): title -> its lines."""
    doc = inspect.cleandoc(doc or "")
    heads = list(_SECTION.finditer(doc))
    out = {}
    for k, m in enumerate(heads):
        end = heads[k + 1].start() if k + 1 < len(heads) else len(doc)
        out[m.group(1).strip()] = doc[m.end():end].strip("\n").splitlines()
    return out


def entry_names(lines: list[str]) -> set[str]:
    """Names of a Parameters/Attributes section: its unindented ``name[, name] [: type]`` lines."""
    names = set()
    for line in lines:
        if line and not line[0].isspace():
            head = line.split(" : ", 1)[0].rstrip(":").strip()
            names.update(n.strip().lstrip("*") for n in head.split(","))
    return names - {""}


def signature_parameters(fn) -> set[str]:
    params = inspect.signature(fn).parameters
    return {p for p in params if p not in ("self", "cls")}


def function_problems(qualname: str, fn) -> list[str]:
    doc = fn.__doc__
    if not doc or not doc.strip():
        return [f"{qualname}: no docstring"]
    secs = sections(doc)
    problems = []
    wanted = signature_parameters(fn)
    if wanted or "Parameters" in secs:
        if "Parameters" not in secs:
            problems.append(f"{qualname}: no Parameters section")
        else:
            got = entry_names(secs["Parameters"]) | entry_names(secs.get("Other Parameters", []))
            if wanted - got:
                problems.append(f"{qualname}: Parameters does not document {sorted(wanted - got)}")
            if got - wanted:
                problems.append(f"{qualname}: Parameters documents {sorted(got - wanted)}, not in the signature")
    returns = "Yields" if inspect.isgeneratorfunction(fn) else "Returns"
    if returns not in secs or not any(line.strip() for line in secs[returns]):
        problems.append(f"{qualname}: no {returns} section")
    return problems


def napoleon_type_problem(qualname: str, doc: str, what: str) -> list[str]:
    """napoleon reads ``type: text`` from the first line of an attribute's docstring."""
    from sphinx.ext.napoleon import Config, NumpyDocstring

    out = str(NumpyDocstring(doc, Config(napoleon_use_ivar=False), what=what, name=qualname))
    typed = [line for line in out.splitlines() if line.strip().startswith(":type:")]
    return [f"{qualname}: napoleon reads a type from its first line ({typed[0].strip()}); reword it"] if typed else []


def class_problems(qualname: str, cls) -> list[str]:
    doc = cls.__dict__.get("__doc__")          # not inherited (an exception would show ValueError's)
    if not doc or not doc.strip():
        return [f"{qualname}: no docstring"]
    secs = sections(doc)
    got = entry_names(secs.get("Parameters", [])) | entry_names(secs.get("Attributes", []))
    wanted = set()
    if dataclasses.is_dataclass(cls):
        wanted |= {f.name for f in dataclasses.fields(cls)}
    if hasattr(cls, "_fields"):                 # a named tuple
        wanted |= set(cls._fields)
    if "__init__" in cls.__dict__:
        wanted |= signature_parameters(cls.__dict__["__init__"])
    problems = []
    if wanted and not ({"Parameters", "Attributes"} & secs.keys()):
        problems.append(f"{qualname}: no Parameters or Attributes section")
    elif wanted - got:
        problems.append(f"{qualname}: Parameters/Attributes do not document {sorted(wanted - got)}")
    for name, member in cls.__dict__.items():
        if name.startswith("_"):
            continue
        if inspect.isfunction(member) or isinstance(member, (staticmethod, classmethod)):
            problems += function_problems(f"{qualname}.{name}", inspect.unwrap(getattr(member, "__func__", member)))
        elif isinstance(member, property) or type(member).__name__ == "cached_property":
            fdoc = (member.fget if isinstance(member, property) else member.func).__doc__
            if not fdoc or not fdoc.strip():
                problems.append(f"{qualname}.{name}: no docstring")
            else:
                problems += napoleon_type_problem(f"{qualname}.{name}", fdoc, "property")
    return problems


def constant_problems(mod: types.ModuleType) -> list[str]:
    from sphinx.pycode import ModuleAnalyzer

    constants = [name for name in mod.__all__
                 if not (inspect.isfunction(getattr(mod, name)) or inspect.isclass(getattr(mod, name)))]
    docs = ModuleAnalyzer.for_module(mod.__name__).find_attr_docs() if constants else {}
    problems = []
    for name in constants:
        if ("", name) not in docs:
            problems.append(f"{mod.__name__}.{name}: no #: doc comment")
        else:
            problems += napoleon_type_problem(f"{mod.__name__}.{name}", "\n".join(docs[("", name)]), "data")
    return problems


def docstring_problems(mod: types.ModuleType) -> list[str]:
    problems = []
    for name, obj in public_objects(mod):
        qualname = f"{mod.__name__}.{name}"
        problems += class_problems(qualname, obj) if inspect.isclass(obj) else function_problems(qualname, obj)
    return problems + constant_problems(mod)


def unlisted_names(mod: types.ModuleType) -> list[str]:
    """Public functions and classes defined in ``mod`` but absent from its ``__all__``."""
    return sorted(
        name for name, obj in vars(mod).items()
        if not name.startswith("_") and (inspect.isfunction(obj) or inspect.isclass(obj))
        and obj.__module__ == mod.__name__ and name not in mod.__all__
    )


# ------------------------------------------------------------------------------- API pages
_DIRECTIVE = re.compile(r"^\.\. (auto\w+):: *(\S+)[ \t]*\n((?:[ \t]+:[\w-]+:.*\n)*)", re.M)


def documented_by_page(text: str, modname: str, names: list[str]) -> set[str]:
    """The names of ``names`` (members of ``modname``) that the autodoc directives of a page document."""
    covered = set()
    for kind, target, opts in _DIRECTIVE.findall(text):
        options = dict(re.findall(r":([\w-]+):[ \t]*(.*)", opts))
        if kind == "automodule" and target == modname and "members" in options:
            if "ignore-module-all" in options:
                continue
            listed = {n.strip() for n in options["members"].split(",") if n.strip()}
            excluded = {n.strip() for n in options.get("exclude-members", "").split(",")}
            covered |= {n for n in names if (not listed or n in listed) and n not in excluded}
        elif kind in ("autofunction", "autoclass", "autodata", "autoexception"):
            covered |= {n for n in names if target in (f"{modname}.{n}", n)}
    return covered


def toc_files() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(entries):
        for entry in entries:
            if "file" in entry:
                files.append(entry["file"])
            for key in ("chapters", "sections", "parts"):
                walk(entry.get(key, []))

    walk(toc.get("parts", []) + toc.get("chapters", []))
    return files


@pytest.mark.parametrize("name", MODULES)
def test_every_public_name_has_an_entry_in_the_api_pages(name):
    mod = module(name)
    page = API_DIR / f"{name}.md"
    assert page.exists(), f"dpnotes.{name} has no API page {page.relative_to(ROOT)}"
    assert f"chapters/appendices/api/{name}" in toc_files(), f"{page.relative_to(ROOT)} is not in _toc.yml"
    assert re.search(rf"\{{py:mod\}}`~?dpnotes\.{name}`", API_INDEX.read_text()), \
        f"the API index {API_INDEX.relative_to(ROOT)} has no row for dpnotes.{name}"
    names = list(mod.__all__)
    missing = sorted(set(names) - documented_by_page(page.read_text(), mod.__name__, names))
    assert not missing, f"{page.relative_to(ROOT)} documents no entry for {missing}"
    assert not unlisted_names(mod), f"public but not in dpnotes.{name}.__all__ (so not documented): {unlisted_names(mod)}"


@pytest.mark.parametrize("name", MODULES)
def test_docstrings_have_the_sections_a_reference_needs(name):
    problems = docstring_problems(module(name))
    if name in PENDING_MODULES:
        assert problems, f"dpnotes.{name} now meets the docstring standard: remove it from PENDING_MODULES"
    else:
        assert not problems, "docstrings not up to the reference's standard:\n" + "\n".join(problems)


@pytest.mark.parametrize("name", MODULES)
def test_docstrings_with_backslashes_are_raw_strings(name):
    r"""LaTeX in a docstring needs a raw string: in a plain one ``\frac`` becomes a form feed and
    ``\beta`` a backspace, silently, and ``\min`` is an invalid escape (a warning now, an error
    in a later Python)."""
    path = ROOT / "dpnotes" / f"{name}.py"
    with warnings.catch_warnings():
        warnings.simplefilter("error", SyntaxWarning)
        warnings.simplefilter("error", DeprecationWarning)
        compile(path.read_text(), str(path), "exec")
    mod = module(name)
    docs = {mod.__name__: mod.__doc__}
    for obj_name, obj in public_objects(mod):
        docs[obj_name] = obj.__doc__
        if inspect.isclass(obj):
            docs.update({f"{obj_name}.{k}": getattr(v, "__doc__", None) for k, v in vars(obj).items()})
    bad = sorted(k for k, doc in docs.items() if isinstance(doc, str) and re.search("[\a\b\f\v]", doc))
    assert not bad, f"control characters (an escaped backslash) in the docstrings of {bad}"


def test_the_api_index_lists_only_modules_that_exist():
    listed = set(re.findall(r"\{py:mod\}`~?dpnotes\.(\w+)`", API_INDEX.read_text()))
    assert listed == set(MODULES), f"API index rows without a module: {sorted(listed - set(MODULES))}"
    pages = {p.stem for p in API_DIR.glob("*.md")}
    assert pages == set(MODULES), f"API pages without a module: {sorted(pages - set(MODULES))}"
    assert set(PENDING_MODULES) <= set(MODULES)


def test_the_api_index_describes_each_module_as_the_package_docstring_does():
    """The index repeats the one-line descriptions of ``dpnotes/__init__.py``: they must not drift apart."""
    source = dict(re.findall(r"^``(\w+)``\s+(.+?)\s*$", dpnotes.__doc__, re.M))
    index = dict(re.findall(r"^- \{py:mod\}`~?dpnotes\.(\w+)` — (.+?)\s*$", API_INDEX.read_text(), re.M))
    differ = {m: (index.get(m), d) for m, d in source.items() if index.get(m) != d}
    assert not differ, f"API index and package docstring disagree (index, docstring): {differ}"


# The build's exceptions to -n (``nitpick_ignore_regex`` in _config.yml): the objects of other
# packages (no intersphinx offline) and private helpers, for good; and, only while a module is
# pending, names its docstrings use that have no entry yet (they must go when it leaves the set).
NITPICK_IGNORED = [["py:.*", "(numpy|scipy|matplotlib|statistics|random|fractions)([.].*)?"],
                   ["py:.*", "(.*[.])?_[A-Za-z].*"]]
PENDING_NITPICK: dict[str, list] = {}       # discrete's two (BitSource.getrandbits, reads) went with it


def test_build_exceptions_are_only_those_of_pending_modules():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"]
    pending = [entry for mod in sorted(PENDING_NITPICK) if mod in PENDING_MODULES for entry in PENDING_NITPICK[mod]]
    assert config.get("nitpick_ignore_regex", []) == NITPICK_IGNORED + pending, \
        "nitpick_ignore_regex in _config.yml must be NITPICK_IGNORED and the PENDING_NITPICK entries of pending modules"
    assert not config.get("nitpick_ignore")


# --------------------------------------------------------------- the checker can fail
def _planted_module():
    """A module with a public function of each kind the docstring rule must reject or accept."""
    mod = types.ModuleType("dpnotes.planted")

    def undocumented(x):
        return x

    def no_sections(x):
        """Only a summary line."""

    def no_returns(x, y):
        """Summary.

        Parameters
        ----------
        x, y : float
            Numbers.
        """

    def missing_parameter(x, *, rng):
        """Summary.

        Parameters
        ----------
        x : float

        Returns
        -------
        float
        """

    def extra_parameter(x):
        """Summary.

        Parameters
        ----------
        x : float
        z : float

        Returns
        -------
        float
        """

    def good(x, y=1, *, rng=None):
        """Summary.

        Parameters
        ----------
        x, y : float
            Numbers.
        rng : numpy.random.Generator, optional

        Returns
        -------
        float
        """

    def good_without_parameters():
        """Summary.

        Returns
        -------
        None
        """

    @dataclasses.dataclass
    class Record:
        """A record.

        Attributes
        ----------
        a : int
        """

        a: int
        b: float

    for fn in (undocumented, no_sections, no_returns, missing_parameter, extra_parameter, good,
               good_without_parameters, Record):
        fn.__module__ = mod.__name__
        setattr(mod, fn.__name__, fn)
    mod.__all__ = ["undocumented", "no_sections", "no_returns", "missing_parameter", "extra_parameter", "good",
                   "good_without_parameters", "Record"]
    return mod


def test_the_docstring_check_fails_for_each_kind_of_gap():
    problems = "\n".join(docstring_problems(_planted_module()))
    for expected in ("undocumented: no docstring", "no_sections: no Parameters section",
                     "no_sections: no Returns section", "no_returns: no Returns section",
                     "missing_parameter: Parameters does not document ['rng']",
                     "extra_parameter: Parameters documents ['z']",
                     "Record: Parameters/Attributes do not document ['b']"):
        assert expected in problems, f"{expected!r} not reported in:\n{problems}"
    assert ".good:" not in problems and "good_without_parameters" not in problems, problems


def test_the_page_check_fails_for_a_name_without_an_entry():
    names = ["f", "g"]
    page = ".. automodule:: dpnotes.x\n   :members:\n   :exclude-members: g\n"
    assert documented_by_page(page, "dpnotes.x", names) == {"f"}
    assert documented_by_page(".. automodule:: dpnotes.x\n", "dpnotes.x", names) == set()
    assert documented_by_page(".. automodule:: dpnotes.y\n   :members:\n", "dpnotes.x", names) == set()
    assert documented_by_page(".. autofunction:: dpnotes.x.g\n", "dpnotes.x", names) == {"g"}


def test_a_constant_with_a_colon_in_its_first_line_is_reported():
    assert napoleon_type_problem("x.C", "Source 1, table 2: a table.", "data")
    assert not napoleon_type_problem("x.C", "A table (source 1, table 2).", "data")
    assert not napoleon_type_problem("x.C", "The rows of :data:`X`, in order.", "data")


# -------------------------------------------------------------------- chapters link
_FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})\s*(.*?)\s*$")
_LITERAL_DIRECTIVES = {"code-cell", "code", "code-block", "sourcecode", "literalinclude", "eval-rst", "raw",
                       "math", "glue:math"}
_SPAN = re.compile(r"(\{[\w:.+-]+\})?(`+)(.+?)(?<!`)\2(?!`)")
_MENTION = re.compile(r"~?(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)(?:\(.*\))?")
LINK_ROLES = {"{py:func}": "function", "{py:class}": "class"}


def prose_lines(text: str):
    """(line number, line) for the prose lines of a MyST page (see the module docstring)."""
    lines = text.splitlines()
    i = 0
    if lines and lines[0].strip() == "---":                     # front matter
        i = next((j for j in range(1, len(lines)) if lines[j].strip() == "---"), len(lines)) + 1
    stack = []                                                 # open fences: (char, length, literal)
    options = False
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        literal = bool(stack) and stack[-1][2]
        if fence:
            char, length, info = fence.group(1)[0], len(fence.group(1)), fence.group(2)
            if not info and stack and stack[-1][0] == char and length >= stack[-1][1]:
                stack.pop()
                i += 1
                options = False
                continue
            if not literal:
                directive = re.match(r"\{([\w:.-]+)\}", info)
                lit = directive is None or directive.group(1) in _LITERAL_DIRECTIVES
                stack.append((char, length, lit))
                i += 1
                options = not lit
                if options and i < len(lines) and lines[i].strip() == "---":   # YAML options block
                    i = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "---"), len(lines)) + 1
                continue
        if literal or (options and re.match(r"^\s*:[\w-]+:", line)) or line.lstrip().startswith("%"):
            i += 1
            continue
        options = False
        yield i + 1, line
        i += 1


def public_callables() -> dict[str, tuple[str, str]]:
    """Public function or class name -> (module, "function" or "class")."""
    out = {}
    for name in MODULES:
        for obj_name, obj in public_objects(module(name)):
            assert obj_name not in out, f"{obj_name} is public in two modules: mentions would be ambiguous"
            out[obj_name] = (name, "class" if inspect.isclass(obj) else "function")
    return out


def link_problems(text: str, public: dict[str, tuple[str, str]]) -> list[str]:
    """First prose mentions of public names that are not a role to the right full name."""
    seen, problems = set(), []
    for lineno, line in prose_lines(text):
        for span in _SPAN.finditer(line):
            role, content = span.group(1), span.group(3).strip()
            if role in LINK_ROLES:
                target = re.sub(r"^.*<(.*)>$", r"\1", content).lstrip("~")
                name = target.rsplit(".", 1)[-1]
                if name not in public:
                    continue
                modname, kind = public[name]
                if target != f"dpnotes.{modname}.{name}" or LINK_ROLES[role] != kind:
                    problems.append(f"line {lineno}: {span.group(0)} should be "
                                    f"{{py:{'func' if kind == 'function' else 'class'}}}`...dpnotes.{modname}.{name}`")
                seen.add(name)
            elif role is None:
                mention = _MENTION.fullmatch(content)
                if mention and mention.group(1) in public and mention.group(1) not in seen:
                    seen.add(mention.group(1))
                    problems.append(f"line {lineno}: first mention `{content}` is not a link to its API entry")
    return problems


def chapter_pages() -> list[str]:
    pages = [f + ".md" for f in toc_files() if not f.startswith("chapters/appendices/api")]
    return [p for p in pages if (ROOT / p).exists()]


@pytest.mark.parametrize("page", chapter_pages())
def test_first_mention_of_each_function_links_to_the_api_reference(page):
    problems = link_problems((ROOT / page).read_text(), public_callables())
    if page in PENDING_CHAPTERS:
        assert problems, f"{page} now links every first mention: remove it from PENDING_CHAPTERS"
    else:
        assert not problems, f"{page}:\n" + "\n".join(problems)


def test_pending_chapters_are_pages_of_the_book():
    assert PENDING_CHAPTERS <= set(chapter_pages())


def test_the_link_check_reads_prose_only_and_can_fail():
    public = {"gaussian_delta": ("loss", "function"), "BitSource": ("discrete", "class")}
    page = "\n".join([
        "---", "title: `gaussian_delta`", "---",
        "```{code-cell} ipython3", "loss.gaussian_delta(1, 1, 1)  # `gaussian_delta`", "```",
        "```{literalinclude} ../../dpnotes/loss.py", ":pyobject: gaussian_delta", "```",
        "````{prf:theorem}", ":label: `gaussian_delta`", "```python", "`gaussian_delta`", "```",
        "The profile `loss.gaussian_delta(mu, eps)` of the Gaussian.", "````",
        "% `gaussian_delta` in a comment", "Then {py:func}`~dpnotes.loss.gaussian_delta` again.",
        "A {glue:text}`BitSource` glue name, then `dsc.BitSource`.",
    ])
    problems = link_problems(page, public)
    assert problems == ["line 15: first mention `loss.gaussian_delta(mu, eps)` is not a link to its API entry",
                        "line 19: first mention `dsc.BitSource` is not a link to its API entry"], problems
    good = "See {py:func}`loss.gaussian_delta <dpnotes.loss.gaussian_delta>`, then `gaussian_delta`."
    assert link_problems(good, public) == []
    wrong = "See {py:func}`~dpnotes.mechanisms.gaussian_delta` and {py:func}`~dpnotes.discrete.BitSource`."
    assert len(link_problems(wrong, public)) == 2


def link_first_mentions(text: str, public: dict[str, tuple[str, str]]) -> str:
    """``text`` with each first prose mention turned into a role to its entry, its words kept as the
    link's text (``fn.lscv`` becomes ``{py:func}`fn.lscv <dpnotes.functional.lscv>```)."""
    lines = text.splitlines(keepends=True)
    seen, edits = set(), []
    for lineno, line in prose_lines(text):
        for span in _SPAN.finditer(line):
            role, content = span.group(1), span.group(3).strip()
            if role in LINK_ROLES:
                seen.add(re.sub(r"^.*<(.*)>$", r"\1", content).rsplit(".", 1)[-1])
            elif role is None:
                mention = _MENTION.fullmatch(content)
                if mention and mention.group(1) in public and mention.group(1) not in seen:
                    name = mention.group(1)
                    seen.add(name)
                    modname, kind = public[name]
                    role_name = "{py:func}" if kind == "function" else "{py:class}"
                    edits.append((lineno, span.start(), span.end(), f"{role_name}`{content} <dpnotes.{modname}.{name}>`"))
    for lineno, start, end, new in sorted(edits, key=lambda e: (e[0], -e[1])):
        line = lines[lineno - 1]
        lines[lineno - 1] = line[:start] + new + line[end:]
    return "".join(lines)


def test_the_link_fixer_makes_a_page_pass():
    public = {"gaussian_delta": ("loss", "function"), "BitSource": ("discrete", "class")}
    page = "Use `loss.gaussian_delta(mu, eps)`, then `gaussian_delta`.\n```python\n`BitSource`\n```\nA `dsc.BitSource`.\n"
    fixed = link_first_mentions(page, public)
    assert link_problems(fixed, public) == []
    assert fixed.splitlines()[0] == ("Use {py:func}`loss.gaussian_delta(mu, eps) <dpnotes.loss.gaussian_delta>`, "
                                     "then `gaussian_delta`.")
    assert fixed.splitlines()[2] == "`BitSource`"          # code is left alone


if __name__ == "__main__":
    # python tests/test_api_reference.py PAGE...: link the first mentions of each page in place.
    import sys

    for page in sys.argv[1:]:
        path = Path(page)
        path.write_text(link_first_mentions(path.read_text(), public_callables()))
        print(page, "linked")
