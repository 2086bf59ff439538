"""A Sphinx extension of the book's own: robust notebook execution, and a single-page build.

1. Notebook execution that holds up on a loaded machine.

nbclient, which myst-nb uses to execute the chapters, waits only 4 s for a cell's outputs
after the kernel has replied, and 60 s for a kernel to start. Past the first it *drops* the
outputs that are late and carries on (logging a warning outside Sphinx's), so a glued number
or a figure goes missing and the ``-W`` build fails far from the cause; past the second it
gives up. Both happen on a heavily loaded 2-core machine. This extension waits longer and
makes a late output an error of the cell that produced it.

2. The single-page HTML build (the source of the PDF edition, ``make pdf``).
Sphinx looks up how to write an extension's node first under the builder's name and only
if *no* handler at all is registered under that name, under its format ("html").
sphinx-exercise registers its nodes for "singlehtml" by name and sphinx-proof only for
"html", so in a single-page build every theorem box fails with "unknown node type". The
"html" handlers missing under "singlehtml" are copied over when the builder starts.

3. MathJax served by the site itself.

A book about privacy should not send every reader's every page view to a third party, and a
built site should work offline (``make serve`` on a laptop without a network, or the files
opened directly). ``mathjax_path`` in ``_config.yml`` is a path relative to the site's
``_static/`` (``mathjax/tex-mml-chtml.js``), where Sphinx takes a relative path to be, and writes
it relative to each page; this extension copies MathJax 3 from npm (``make book`` installs
``mathjax@3.2.2`` into ``.cache/mathjax``) into that folder of the *output*, for the HTML and
the single-page (PDF) builds alike. Not into the book's own ``_static/`` folder: Jupyter Book
adds every ``.js`` file it finds there to every page as a ``<script>``, which would load all
of MathJax's components at once. What is copied: the one
combined component that ``mathjax_path`` names and everything it can load on demand (TeX
extensions, fonts, the menu, the accessibility explorer and its speech rules), not the other
combined components (``latest.js`` among them, which loads MathJax from a CDN).

4. Markup that assistive technology can read, where the theme's is wrong (found by axe-core in
the browser check, ``tests/sitecheck.py``; the search button's template is overridden in
``_templates/``):

- the sidebar's expand/collapse toggles are ``<summary>`` elements holding only a decorative
  chevron, announced as an unnamed button: each gets a name from the page it expands;
- docutils writes the bibliography as ``role="list"`` holding ``role="doc-biblioentry"``
  entries, a role ARIA 1.2 deprecated and no list item, so a screen reader announces an empty
  list: the entries become ``listitem``;
- myst-nb names the toggle of a hidden code cell "Toggle hidden content" while it shows "Show
  code cell source", a name that omits the visible text (WCAG 2.5.3, label in name): the label
  is dropped, so the toggle is named by what it shows.

5. Figures' alt text with glued numbers.

A screen reader reads a figure's ``alt`` text; without one, Sphinx writes the image's file name
(a hash). ``{glue:figure}`` takes ``:alt:``, but as plain text, and the sentence a listener
needs often states the figure's key numbers, which in this book come from code. So in the
``:alt:`` of a ``{glue:figure}``, `` {glue:text}`key:format` `` (or `` {glue}`key` ``) is
replaced by the glued value, formatted as the same role formats it in prose:

    :alt: Line plot of delta against epsilon, falling from 1 to {glue:text}`adp-delta-end:.2g` at epsilon 4.

6. Doctrees without a copy of the environment.

MyST parses an ``{eval-rst}`` block (each API page's ``automodule``) into a document of its own
and moves the nodes into the page; they keep pointing to that document, whose settings hold
Sphinx's whole build environment. Sphinx saves each page's doctree by pickling it, with what its
nodes point to, so every API page's doctree also carried the environment (0.7 to 0.9 MB each,
against 9 to 90 KB for the page itself), and reading them back cost the build seconds. When
a page has been read, its nodes are made to point to the page's own document.

7. Reading the pages while the chapters are executed.

``scripts/book.py`` (``make book``) executes the chapters with a kernel per core and runs this
build at the same time, naming in ``DPNOTES_EXECUTING`` a folder with the chapters being
executed (``todo.json``, in the kernels' order) and a marker file for each one done. The build
then reads every other page first (the API reference, the appendices), and each of those
chapters in the kernels' order, once its marker exists, from the Jupyter cache as usual. A
chapter whose execution failed has a marker too: myst-nb, finding it uncached, executes it and
reports the error. Without the variable (``jupyter-book build`` run directly, or the tests'
builds, which are seeded with executed chapters) nothing changes.

8. The garbage collector's share of the build.

Python's cyclic garbage collector runs after every so many new objects and, now and then, goes
over every object alive; a Sphinx build creates millions (the environment, every page's
doctree), so it spent a quarter of a build walking objects that live until the end. Loading the
57 saved doctrees back one after another took 2.1 s in a process holding them, 0.11 s with the
collector off. So the build raises the collector's thresholds, and *freezes* what is alive when
this extension starts (the imported modules) and when every page has been read (the
environment): ``gc.freeze`` moves those objects out of the collector's view for good, so each
collection only walks what was created since, such as the doctree of the page being written,
which is still collected. Measured on a cached build (every chapter in the Jupyter cache, fresh
doctrees): 23.4 s before, 17.9 s after, for 44 MB more memory at the peak.

9. One lookup of each bibliography plugin.

sphinxcontrib-bibtex asks pybtex for its plain-text backend once for every citation, and pybtex
looks it up among the installed packages' entry points every time: 2.5 ms, 1.3 s for the
book's 521 citations. The backend is registered with pybtex once (``register_plugin``, pybtex's
way to add a plugin at run time, where every lookup looks first).
"""

from __future__ import annotations

import gc
import html
import json
import os
import re
import shutil
import time
from pathlib import Path


ROBUST_DEFAULTS = {"iopub_timeout": 120, "raise_on_iopub_timeout": True, "startup_timeout": 600}


def configure_nbclient() -> None:
    """Give every NotebookClient created in this process these defaults (explicit arguments win).

    traitlets caches a class's static defaults when the class is created, and myst-nb
    (through jupyter-cache) creates its clients with no way to pass options, so the
    defaults are supplied to the constructor.
    """
    from nbclient import NotebookClient

    init = NotebookClient.__init__
    if getattr(init, "_dpnotes_robust", False):
        return

    def __init__(self, *args, **kwargs):
        for name, value in ROBUST_DEFAULTS.items():
            kwargs.setdefault(name, value)
        init(self, *args, **kwargs)

    __init__._dpnotes_robust = True
    NotebookClient.__init__ = __init__


def _share_html_handlers(app) -> None:
    handlers = app.registry.translation_handlers
    if app.builder.name == "singlehtml" and "singlehtml" in handlers:
        for node, visitors in handlers.get("html", {}).items():
            handlers["singlehtml"].setdefault(node, visitors)


MATHJAX_NPM = Path(".cache") / "mathjax" / "node_modules" / "mathjax" / "es5"
# The components of es5/ that load on demand; every other top-level .js is a combined
# component of its own (or latest.js, which fetches MathJax from a CDN).
MATHJAX_SUPPORT = {"core.js", "loader.js", "startup.js"}


def mathjax_source(app) -> Path | None:
    """The npm ``mathjax@3`` ``es5/`` folder: ``dpnotes_mathjax_dir``, ``$DPNOTES_MATHJAX_DIR`` or
    ``.cache/mathjax/node_modules/mathjax/es5`` of the book."""
    for candidate in (app.config.dpnotes_mathjax_dir, os.environ.get("DPNOTES_MATHJAX_DIR"),
                      Path(app.confdir) / MATHJAX_NPM):
        if candidate and (Path(candidate) / "tex-mml-chtml.js").is_file():
            return Path(candidate)
    return None


def mathjax_files(es5: Path, bundle: str) -> list[Path]:
    """The files of ``es5/`` that a site loading the combined component ``bundle`` needs."""
    keep = MATHJAX_SUPPORT | {bundle}
    return sorted(f for f in es5.rglob("*") if f.is_file()
                  and (f.parent != es5 or f.name in keep))


def _ship_mathjax(app) -> None:
    """Copy MathJax into the output where ``mathjax_path`` points (a path relative to ``_static/``)."""
    if app.builder.format != "html" or "://" in app.config.mathjax_path or app.config.mathjax_path.startswith("/"):
        return  # another builder, or MathJax from a CDN (not this book's choice)
    from sphinx.errors import ExtensionError

    es5 = mathjax_source(app)
    if es5 is None:
        raise ExtensionError(
            "MathJax 3 is not installed: the site serves its own copy. `make book` installs it "
            f"(npm install mathjax@3.2.2 in .cache/mathjax); or set DPNOTES_MATHJAX_DIR to an npm mathjax@3 es5/ folder")
    target = Path(app.outdir) / "_static" / Path(app.config.mathjax_path).parent
    bundle = Path(app.config.mathjax_path).name
    if not (es5 / bundle).is_file():
        raise ExtensionError(f"mathjax_path names {bundle}, which {es5} does not have")
    for f in mathjax_files(es5, bundle):
        dest = target / f.relative_to(es5)
        if not dest.exists() or dest.stat().st_mtime < f.stat().st_mtime or dest.stat().st_size != f.stat().st_size:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, dest)
    licence = es5.parent / "LICENSE"
    if licence.is_file():
        shutil.copy2(licence, target / "LICENSE")


_NAMELESS_TOGGLE = re.compile(
    r'(<a class="reference internal" href="[^"]*">(?P<title>.*?)</a>\s*<details(?: open="open")?>\s*)<summary>'
    r'(?=\s*<span class="toctree-toggle")', re.S)


def label_toggles(nav):
    """Name each sidebar toggle after the page whose sub-pages it shows or hides. ``nav`` is the
    theme's navigation: HTML text, or (for some of the theme's callers) a BeautifulSoup tree."""
    if not isinstance(nav, str):
        for summary in nav.select("li > details > summary"):
            link = summary.parent.find_previous_sibling("a")
            if link is not None and not summary.get_text(strip=True) and not summary.get("aria-label"):
                summary["aria-label"] = f"Sections of {link.get_text(strip=True)}"
        return nav

    def named(m):
        title = html.escape(html.unescape(re.sub(r"<[^>]+>", "", m["title"])).strip(), quote=True)
        return f'{m[1]}<summary aria-label="Sections of {title}">'
    return _NAMELESS_TOGGLE.sub(named, nav)


def _accessible_markup(app, pagename, templatename, context, doctree) -> None:
    make_nav = context.get("generate_toctree_html")
    if make_nav is not None and not getattr(make_nav, "_dpnotes", False):
        def generate_toctree_html(*args, **kwargs):
            return label_toggles(make_nav(*args, **kwargs))
        generate_toctree_html._dpnotes = True
        context["generate_toctree_html"] = generate_toctree_html
    if "body" in context:
        context["body"] = (context["body"].replace('role="doc-biblioentry"', 'role="listitem"')
                           .replace('<summary aria-label="Toggle hidden content">', "<summary>"))


_GLUE_ROLE = re.compile(r"\{glue(?::text)?\}`([^`]+)`")


def _alt_glue_figure():
    from myst_nb.core.variables import RetrievalError, format_plain_text
    from myst_nb.ext.glue.directives import PasteFigureDirective
    from myst_nb.ext.glue.utils import glue_warning, retrieve_glue_data

    class AltGlueFigure(PasteFigureDirective):
        """``{glue:figure}`` whose ``:alt:`` may contain glued numbers (``{glue:text}`key:fmt```)."""

        def glued_text(self, match) -> str:
            key, _, fmt = match[1].rpartition(":") if ":" in match[1] else (match[1], "", "s")
            data = retrieve_glue_data(self.document, key).data
            if "text/plain" not in data:
                raise RetrievalError(f"no text/plain in the glue data of {key!r}")
            return format_plain_text(data["text/plain"], fmt)

        def run(self):
            if "alt" in self.options:
                try:
                    self.options["alt"] = _GLUE_ROLE.sub(self.glued_text, self.options["alt"])
                except (RetrievalError, ValueError, TypeError) as exc:
                    return [glue_warning(f"alt text of figure {self.arguments[0]!r}: {exc}", self.document, self.line)]
            return super().run()

    return AltGlueFigure


def _own_document(app, doctree) -> None:
    """Point every node of a page read by Sphinx to the page's document (item 6 above)."""
    for node in doctree.findall():
        if node.document is not doctree:
            node.document = doctree


EXECUTION_WAIT = 3600      # seconds a page waits for its chapter's kernel, then myst-nb executes it


def execution_marker(folder: Path, docname: str) -> Path:
    """The file that says the chapter ``docname`` is executed, or failed (``scripts/book.py`` writes it)."""
    return Path(folder) / (docname.replace("/", "__") + ".done")


def _executing() -> tuple[Path, list[str]] | None:
    """The folder and the chapters (docnames, in execution order) that ``scripts/book.py`` is
    executing while this build runs (item 7 above), or None."""
    folder = os.environ.get("DPNOTES_EXECUTING")
    if not folder or not (Path(folder) / "todo.json").is_file():
        return None
    return Path(folder), json.loads((Path(folder) / "todo.json").read_text())


def _read_executed_last(app, env, docnames) -> None:
    """Read the other pages first, then the chapters being executed, in the kernels' order."""
    executing = _executing()
    if executing is not None:
        order = {name: i for i, name in enumerate(executing[1])}
        docnames.sort(key=lambda name: (name in order, order.get(name, 0)))


def _wait_for_execution(app, docname, source) -> None:
    """Before a chapter being executed is read: wait for its marker (cached, or failed)."""
    executing = _executing()
    if executing is None or docname not in executing[1]:
        return
    done = execution_marker(executing[0], docname)
    deadline = time.monotonic() + EXECUTION_WAIT
    while not done.exists() and time.monotonic() < deadline:
        time.sleep(0.02)


def _refresh_own_static(app, exception) -> None:
    """Sphinx copies ``_static/`` only when some page was rewritten: an edit to the book's own CSS
    alone left the old file in the site. Copy the book's ``_static/`` files that differ."""
    if exception is not None or app.builder.format != "html":
        return
    own = Path(app.confdir) / "_static"
    for f in own.rglob("*") if own.is_dir() else ():
        dest = Path(app.outdir) / "_static" / f.relative_to(own)
        if f.is_file() and (not dest.exists() or dest.read_bytes() != f.read_bytes()):
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, dest)


# gen0: collect after 100,000 new container objects (default 700); gen1/gen2: after 50 and 100
# younger collections (defaults 10 and 10).
GC_THRESHOLDS = (100_000, 50, 100)


def tune_gc() -> None:
    """Raise the collector's thresholds and freeze what is alive now (see 8. above)."""
    gc.set_threshold(*GC_THRESHOLDS)
    gc.freeze()


def _freeze_read_pages(app, env) -> None:
    gc.freeze()


# (plugin group, name) of the pybtex plugins sphinxcontrib-bibtex looks up once per citation
PYBTEX_PER_CITATION = [("pybtex.backends", "plaintext")]


def register_pybtex_plugins() -> None:
    """Register with pybtex, once, the plugins looked up for every citation (see 9. above)."""
    import pybtex.plugin

    for group, name in PYBTEX_PER_CITATION:
        pybtex.plugin.register_plugin(group, name, pybtex.plugin.find_plugin(group, name), force=True)


def setup(app):
    tune_gc()
    app.connect("env-updated", _freeze_read_pages)
    register_pybtex_plugins()
    configure_nbclient()
    app.connect("build-finished", _refresh_own_static)
    app.connect("doctree-read", _own_document)
    app.connect("env-before-read-docs", _read_executed_last)
    app.connect("source-read", _wait_for_execution)
    app.add_directive_to_domain("glue", "figure", _alt_glue_figure(), override=True)
    app.add_config_value("dpnotes_mathjax_dir", None, "env")
    app.connect("builder-inited", _share_html_handlers)
    app.connect("builder-inited", _ship_mathjax)
    # after the theme's own handler (priority 500), which puts generate_toctree_html in the context
    app.connect("html-page-context", _accessible_markup, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
