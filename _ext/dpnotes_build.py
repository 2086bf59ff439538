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
"""

from __future__ import annotations


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


def setup(app):
    configure_nbclient()
    app.connect("builder-inited", _share_html_handlers)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
