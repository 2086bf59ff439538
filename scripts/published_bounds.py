"""The published bounds of DP-Sniper's benchmark, read from the logs in its repository.

    .venv/bin/python scripts/published_bounds.py --repo PATH [--write]

``PATH`` is a clone of https://github.com/eth-sri/dp-sniper (a work tree or a bare git
directory). Without ``--write`` the script reads the six logs of ``eval_sp2021/reference-results/``
at the commit recorded in ``chapters/auditing/published-bounds.json`` and checks that every
number of that file is what the logs say (exit status 1 and the differences otherwise); with
``--write`` it rewrites the file from the logs at the repository's HEAD. ``make bench`` runs
the check when ``DPSNIPER_REPO`` names such a clone, and says so loudly when it does not.

What is read (the numbers of the paper's Figure 4, as its plotting script
``eval_sp2021/plots/create_plots.py`` reads them):

* ``dd_search_reg_data.log``, ``dd_search_mlp_data.log``: DP-Sniper with logistic regression and
  with a neural network; per mechanism ``eps_lcb`` (the bound), the input pair of
  ``best_result``, and the seconds ``time_dd_search + time_final_estimate_eps``;
* ``statdp_1_data.log``, ``statdp_2_data.log``: StatDP run twice through DP-Sniper's wrapper;
  per mechanism ``statdp_result.eps_lcb`` (the wrapper's bound from a final estimate of the
  event StatDP found, not StatDP's own p-values), its pair, and ``statdp_time``;
* ``floating_point_data.log``, ``floating_fixed_data.log``: DP-Sniper's neural network on the 64
  bits of numpy's Laplace output and of the snapping mechanism.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "chapters" / "auditing" / "published-bounds.json"
LOGS = "eval_sp2021/reference-results"
SOURCES = {
    "dpsniper_reg": "dd_search_reg_data.log",
    "dpsniper_mlp": "dd_search_mlp_data.log",
    "statdp_1": "statdp_1_data.log",
    "statdp_2": "statdp_2_data.log",
    "floating_point": "floating_point_data.log",
    "floating_fixed": "floating_fixed_data.log",
}


def git(repo: Path, *args: str) -> str:
    where = ["--git-dir", str(repo)] if (repo / "HEAD").is_file() and not (repo / ".git").exists() else ["-C", str(repo)]
    return subprocess.run(["git", *where, *args], check=True, capture_output=True, text=True).stdout


def read_log(text: str) -> dict:
    """{mechanism: {key: value}} from one log (one JSON object per line, keyed by its context)."""
    out: dict = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        entry = json.loads(line)
        mech = entry.pop("ctx")[0]
        (key, value), = entry.items()
        out.setdefault(mech, {})[key] = value
    return out


def _pair(best) -> list:
    """DP-Sniper logs its pair as numpy's print of an array, e.g. "[0 1 1 1 1]" or "[1.]"."""
    return [float(v) for v in best.strip("[]").split()]


def collect(repo: Path, commit: str) -> dict:
    rows: dict = {}
    for source, name in SOURCES.items():
        log = read_log(git(repo, "show", f"{commit}:{LOGS}/{name}"))
        for mech, entry in log.items():
            if source.startswith("statdp"):
                res = entry.get("statdp_result")
                if res is None:
                    continue
                rec = {"eps_lcb": res["eps_lcb"], "pair": [list(map(float, res["a1"])), list(map(float, res["a2"]))],
                       "seconds": entry["statdp_time"]}
            else:
                best = entry["best_result"]
                rec = {"eps_lcb": entry["eps_lcb"], "pair": [_pair(best["a1"]), _pair(best["a2"])],
                       "seconds": entry["time_dd_search"] + entry["time_final_estimate_eps"]}
            rec["log"] = f"{LOGS}/{name}"
            rows.setdefault(mech, {})[source] = rec
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", required=True, type=Path, help="a clone of eth-sri/dp-sniper (work tree or bare)")
    ap.add_argument("--write", action="store_true", help="rewrite the data file from the logs at HEAD")
    args = ap.parse_args()
    if args.write:
        commit = git(args.repo, "rev-parse", "HEAD").strip()
        data = {"repository": "https://github.com/eth-sri/dp-sniper", "commit": commit,
                "confidence": 0.9, "note": "eps_lcb: 90% lower confidence bound (two one-sided 95% "
                "Clopper-Pearson bounds) on 2e8 runs per input; seconds: search and final estimate",
                "mechanisms": collect(args.repo, commit)}
        DATA.write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {DATA.relative_to(ROOT)} from commit {commit}")
        return 0
    stored = json.loads(DATA.read_text())
    again = collect(args.repo, stored["commit"])
    if again != stored["mechanisms"]:
        for mech in sorted(set(again) | set(stored["mechanisms"])):
            if again.get(mech) != stored["mechanisms"].get(mech):
                print(f"differs: {mech}\n  logs: {again.get(mech)}\n  file: {stored['mechanisms'].get(mech)}")
        return 1
    n = sum(len(v) for v in again.values())
    print(f"published-bounds.json: all {n} entries match the logs at {stored['commit'][:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
