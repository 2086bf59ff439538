"""The book's repository, set once: ``repository.url`` and ``repository.branch`` in ``_config.yml``.

    .venv/bin/python scripts/repository.py            print the setting and the links made from it
    .venv/bin/python scripts/repository.py --github   in a GitHub workflow: warn when the site being
                                                      published comes from another repository (a fork),
                                                      whose launch buttons would open this setting's

Jupyter Book builds the launch buttons (Binder, Live Code, the repository and issue buttons)
from that setting. Everything else that names the repository reads it here too:
``tests/test_conventions.py`` checks that every link to the repository in the README,
CONTRIBUTING, the Binder files and the workflows is one of ``links()``, and
``tests/test_site.py`` that the built pages' buttons are.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def setting(root: Path = ROOT) -> dict:
    """``{"url", "owner", "name", "branch"}`` from ``_config.yml``'s ``repository`` section."""
    import yaml

    repo = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))["repository"]
    url = repo["url"].rstrip("/")
    prefix = "https://github.com/"
    if not url.startswith(prefix) or url[len(prefix):].count("/") != 1:
        raise ValueError(f"repository.url must be https://github.com/OWNER/NAME, got {url!r}")
    owner, name = url[len(prefix):].split("/")
    return {"url": url, "owner": owner, "name": name, "branch": repo.get("branch", "main")}


def links(root: Path = ROOT) -> dict[str, str]:
    """The links a reader or contributor needs, each made from the one setting."""
    s = setting(root)
    return {
        "repository": s["url"],
        "clone": s["url"] + ".git",
        "issues": s["url"] + "/issues",
        "binder": f"https://mybinder.org/v2/gh/{s['owner']}/{s['name']}/{s['branch']}",
        "pages": f"https://{s['owner'].lower()}.github.io/{s['name']}/",
    }


def main(argv: list[str]) -> int:
    s = setting()
    if "--github" in argv:
        here = f"{os.environ.get('GITHUB_SERVER_URL', 'https://github.com')}/{os.environ.get('GITHUB_REPOSITORY', '')}"
        if here.rstrip("/").lower() != s["url"].lower():
            print(f"::warning::_config.yml's repository.url is {s['url']}, but this site is built from {here}: "
                  "its launch buttons and links open that repository. Set repository.url to publish a fork's own.")
        return 0
    for key, value in links().items():
        print(f"{key:11s}{value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
