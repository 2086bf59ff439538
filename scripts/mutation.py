"""Mutation testing of dpnotes: how many deliberately broken copies of each module the tests catch.

    make mutation                                  (every module with a goal, below)
    .venv/bin/python scripts/mutation.py svt loss  (some modules)
    .venv/bin/python scripts/mutation.py --report  (rewrite the report from the last run, run nothing)
    .venv/bin/python scripts/mutation.py --survivors svt  (rerun only svt's survivors, after adding tests)
    .venv/bin/python scripts/mutation.py --unexplained svt  (only those without a reason: what new tests target)

mutmut (configured in ``[tool.mutmut]`` of pyproject.toml) copies ``dpnotes/`` into ``mutants/``,
makes many small changes to it ("mutants": ``*`` for ``/``, ``<`` for ``<=``, a dropped
argument...), and runs the unit tests and doctests against each. A mutant the tests pass is a
*survivor*: either a bug the tests would miss, or a change that does not alter behaviour.

This script runs mutmut on the chosen modules, then writes ``benchmarks/mutation-report.md``:
the score of each module (killed / checked) against the goal, and every survivor with the
reason it is harmless, read from ``benchmarks/mutation-survivors.toml``. A survivor without a
reason is listed as UNEXPLAINED. The exit status is non-zero when a module misses its goal or
has unexplained survivors, so the report is also a check.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
REPORT = ROOT / "benchmarks" / "mutation-report.md"
REASONS = ROOT / "benchmarks" / "mutation-survivors.toml"
# Each module's verdicts, committed: mutants/ is a scratch folder that a new machine or a clean
# clone does not have, and a run of the slow modules takes longer than a session, so a run
# stopped at its budget is continued (--resume) from these on any machine. They also hold each run's
# wall time and whether it stopped at its budget: the one record of a run, read by the report.
RESULTS = ROOT / "benchmarks" / "mutation-results"

# The modules the project holds to a goal (fraction of checked mutants killed).
GOAL = 0.90
MODULES = ["_validate", "anonymity", "attacks", "audit", "benchmark", "census", "composition",
           "concentration", "discrete", "divergences", "finite", "flawed", "functional", "local",
           "loss", "mechanisms", "selection", "sgd", "subsampling", "svt", "tradeoff"]
# Modules left out of mutation (do_not_mutate in pyproject.toml), with the reason; the report
# lists them so that MODULES + NOT_MUTATED covers every module of dpnotes (checked in main()).
NOT_MUTATED = {"plotting": "figure style only (rcParams and a colour palette, no computation); "
                           "do_not_mutate in pyproject.toml"}

# mutmut's exit-code convention (mutmut.stats.status_by_exit_code), restated so the report
# can be written without importing mutmut.
KILLED = {"killed", "timeout", "caught by type check"}


def status_of(exit_code: int | None) -> str:
    if exit_code is None:
        return "not checked"
    return {1: "killed", 3: "killed", 2: "not checked", -24: "timeout", 24: "timeout", 36: "timeout",
            0: "survived", 5: "no tests", 33: "no tests", 34: "skipped", 35: "suspicious",
            37: "caught by type check", 152: "timeout", 255: "timeout",
            -11: "segfault", -9: "segfault"}.get(exit_code, "suspicious")


def mutmut_env() -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("MPLBACKEND", "Agg")
    return env


def run(modules: list[str], max_children: int, survivors_only: bool = False,
        budget: float | None = None, resume: bool = False, unexplained_only: bool = False) -> None:
    """Run mutmut on each module in turn, saving its verdicts and wall time (:func:`save_results`).

    With ``survivors_only``, rerun only the mutants of each module that survived its last run
    (after tests were added), keeping the wall time of that full run; with ``unexplained_only``, only
    those without a reason in mutation-survivors.toml (the ones new tests were written to kill: a
    survivor that has a reason survives again, and each costs the whole of its tests). With ``resume``, check
    only the mutants a stopped run left unchecked. With ``budget`` (seconds),
    stop a module's run after that long; mutmut checks the mutants with the cheapest tests first,
    so the report marks such a module's score as partial."""
    (ROOT / "mutants").mkdir(exist_ok=True)
    # mutmut copies a single file of also_copy without creating its folder
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    for path in config.get("also_copy", []):
        if (ROOT / path).is_file():
            (ROOT / "mutants" / path).parent.mkdir(parents=True, exist_ok=True)
    for m in modules:
        names = [f"dpnotes.{m}.*"]
        if survivors_only or unexplained_only:
            names = sorted(k for k, v in statuses(m).items() if v not in KILLED and v != "not checked")
            if unexplained_only:
                reasons = tomllib.loads(REASONS.read_text()).get(m, {}) if REASONS.exists() else {}
                names = [k for k in names if k.split(".", 2)[2] not in reasons]
            if not names:
                print(f"{m}: no survivors to rerun")
                continue
        elif resume and saved_results(m):
            refresh_mutants(m)
            names = sorted(k for k, v in statuses(m).items() if v == "not checked")
            if not names:
                print(f"{m}: every mutant checked")
                continue
        cmd = [str(BIN / "mutmut"), "run", "--max-children", str(max_children), *names]
        print("running:", " ".join(cmd), flush=True)
        t0 = time.perf_counter()
        log = ROOT / "mutants" / f"last-run-{m}.log"
        # mutmut prints a line per mutant: keep it in the log, only the summary on the terminal.
        # Its own session, so that a budget can stop it with its workers; mutmut saves each
        # mutant's verdict as it comes, so a stopped run keeps what it checked.
        with log.open("w") as out:
            proc = subprocess.Popen(cmd, cwd=ROOT, env=mutmut_env(), stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
            try:
                code, stopped = proc.wait(timeout=budget), False
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGTERM)
                code, stopped = proc.wait(), True
        seconds = time.perf_counter() - t0
        print(f"mutmut {'stopped (budget)' if stopped else 'finished'} {m} in {seconds:.0f} s (log: {log.relative_to(ROOT)})")
        if code != 0 and not stopped:
            print(log.read_text()[-3000:])
            raise SystemExit(f"mutmut run failed with exit status {code}")
        if not (survivors_only or unexplained_only):
            # a resumed run adds its time to the stopped one's
            before = saved_results(m)
            earlier = (before.get("wall_seconds") or 0) if resume and before.get("stopped_at_budget") else 0
            save_results(m, round(seconds) + earlier, stopped)
        else:
            save_results(m)


def refresh_mutants(module: str) -> None:
    """Bring the module's mutants up to date with its source before a resume reads what is unchecked.

    ``mutmut run`` does this itself when it starts, resetting the results of every function whose
    source changed since its mutants were made; but a resume chooses its mutants before that, so
    without this step it left out every changed function (found when a helper resumed audit after
    one message had changed). mutmut's own routine, the one ``mutmut run`` calls, run here first.

    That routine compares the functions' hashes with the saved results only when the source is newer
    than its mutated copy; a results file brought from another checkout (a run continued elsewhere)
    was taken as up to date, and 242 census mutants of changed functions were left out of a resume.
    So the mutated copy is removed first, and the comparison always made."""
    from mutmut.__main__ import create_mutants_for_file

    rel = Path("dpnotes") / f"{module}.py"
    # made again also when it is absent: restore_results removes it, and a resume right after a restore then
    # took every saved verdict as current, those of functions changed since included (found when discrete's
    # threshold changed after its run: "every mutant checked", 143 mutants of the new function never run)
    if not (ROOT / "mutants" / "dpnotes" / f"{module}.py.meta").exists():
        return
    with contextlib.suppress(FileNotFoundError):
        (ROOT / "mutants" / rel).unlink()
    with contextlib.chdir(ROOT):                      # mutmut names mutants by paths relative to the root
        result = create_mutants_for_file(rel, Path("mutants") / rel)
    if result.error is not None:
        raise SystemExit(f"mutmut could not make the mutants of {rel}: {result.error}")


def statuses(module: str) -> dict[str, str]:
    meta = ROOT / "mutants" / "dpnotes" / f"{module}.py.meta"
    if not meta.exists():
        return {}
    data = json.loads(meta.read_text())
    return {name: status_of(code) for name, code in data["exit_code_by_key"].items()}


def _function_and_number(name: str) -> tuple[str, int]:
    """``dpnotes.svt.x_f__mutmut_12`` -> ``("x_f", 12)`` (methods are ``xǁClassǁmethod``)."""
    func, _, number = name.split(".", 2)[2].rpartition("__mutmut_")
    return func, int(number)


def saved_results(module: str) -> dict:
    """What :func:`save_results` last wrote for the module (``{}`` if nothing)."""
    path = RESULTS / f"{module}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def save_results(module: str, wall: float | None = None, stopped: bool | None = None) -> None:
    """Write the module's verdicts from mutmut's meta file to ``benchmarks/mutation-results/``.

    Per function: the hash mutmut keeps of its source (so that a restored result is used only while
    the function is unchanged) and the exit code of each of its mutants in order (None: not
    checked). ``wall`` and ``stopped`` default to what the file already says."""
    meta = ROOT / "mutants" / "dpnotes" / f"{module}.py.meta"
    data = json.loads(meta.read_text())
    codes: dict[str, dict[int, int | None]] = {}
    for name, code in data["exit_code_by_key"].items():
        func, number = _function_and_number(name)
        codes.setdefault(func, {})[number] = code
    for func, by_number in codes.items():
        if sorted(by_number) != list(range(1, len(by_number) + 1)):
            raise SystemExit(f"{module}: the mutants of {func} are not numbered 1..{len(by_number)}")
    path = RESULTS / f"{module}.json"
    old = saved_results(module)
    exit_codes = {f: [c[i] for i in range(1, len(c) + 1)] for f, c in sorted(codes.items())}
    before = old.get("exit_codes", {})
    # the date moves only when a mutant was checked: mutmut rewrites every meta file when it starts
    checked_now = any(c is not None and (len(before.get(f, [])) < i or before[f][i - 1] != c)
                      for f, values in exit_codes.items() for i, c in enumerate(values, 1))
    saved = {
        "module": module,
        "run_on": old["run_on"] if old and not checked_now else
        time.strftime("%Y-%m-%d", time.localtime(meta.stat().st_mtime)),
        "wall_seconds": round(wall) if wall is not None else old.get("wall_seconds"),
        "stopped_at_budget": stopped if stopped is not None else old.get("stopped_at_budget", False),
        "hash_by_function": dict(sorted(data["hash_by_function_name"].items())),
        "exit_codes": exit_codes,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    # one function per line: a rerun of one function changes one line of the diff
    lines = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in saved.items())
    path.write_text("{\n" + lines + "\n}\n", encoding="utf-8")


def restore_results(module: str) -> bool:
    """Write mutmut's meta file from the saved verdicts when mutants/ has none (a new machine or
    clone). mutmut then compares each function's hash with the source's and checks the mutants
    of every function that changed again; the others keep their verdicts. Returns whether it wrote."""
    meta = ROOT / "mutants" / "dpnotes" / f"{module}.py.meta"
    path = RESULTS / f"{module}.json"
    if meta.exists() or not path.exists():
        return False
    saved = json.loads(path.read_text(encoding="utf-8"))
    codes = {f"dpnotes.{module}.{func}__mutmut_{i}": c
             for func, values in saved["exit_codes"].items() for i, c in enumerate(values, 1)}
    meta.parent.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps({"exit_code_by_key": codes, "hash_by_function_name": saved["hash_by_function"],
                                "type_check_error_by_key": {}, "durations_by_key": {},
                                "estimated_durations_by_key": {}}, indent=1))
    # the mutated copy is made again from the source, which compares the hashes
    with contextlib.suppress(FileNotFoundError):
        (ROOT / "mutants" / "dpnotes" / f"{module}.py").unlink()
    return True


def _mutant_diff(name: str) -> str:
    """What ``mutmut show NAME`` prints after its first line, computed in this process by the routine
    ``mutmut show`` calls: a ``mutmut show`` per survivor is a process of its own (half a second each,
    and a report shows a thousand survivors)."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    with contextlib.chdir(ROOT):                      # mutmut reads mutants/ relative to the root
        return get_diff_for_mutant(name, path=Path("dpnotes") / f"{name.split('.')[1]}.py")


def diff_of(name: str) -> str:
    """The changed lines of a mutant (``mutmut show``), without the diff header."""
    try:
        text = _mutant_diff(name)
    except (ImportError, OSError):                    # mutmut's internals moved: ask mutmut itself
        text = subprocess.run([str(BIN / "mutmut"), "show", name], cwd=ROOT, env=mutmut_env(),
                              capture_output=True, text=True).stdout
    lines = [ln for ln in text.splitlines()
             if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    return " / ".join(ln.strip() for ln in lines)[:160]


def previous_report() -> tuple[dict[str, dict], dict[str, list]]:
    """The module rows and survivors of the report on disk, to keep modules not run this time.

    The report is written by this script, so its two tables have a fixed layout. Rows written
    before the "run on" column existed take the date in the report's first paragraph.
    """
    if not REPORT.exists():
        return {}, {}
    text = REPORT.read_text()
    date = re.search(r"on (\d{4}-\d{2}-\d{2})", text)
    rows, survivors, table = {}, {}, None
    for line in text.splitlines():
        if line.startswith("| module | mutants checked"):
            header, table = [c.strip() for c in line.strip("|").split("|")], "rows"
        elif line.startswith("| module | mutant |"):
            table = "survivors"
        elif line.startswith("|---"):
            continue
        elif not line.startswith("| "):
            table = None
        elif table == "rows":
            row = dict(zip(header, (c.strip() for c in line.strip("|").split("|"))))
            row.setdefault("run on", date.group(1) if date else "?")
            row.setdefault("wall time", "?")
            rows[row["module"]] = row
        elif table == "survivors":
            m = re.match(r"^\| (\S+) \| `([^`]+)` \| ([^|]+?) \| `(.*?)` \| ", line)
            if m:
                survivors.setdefault(m[1], []).append((m[2], m[3], m[4]))
    return rows, survivors


def _wall(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def report(modules: list[str]) -> bool:
    """Write the report for ``modules``; a module without results in mutants/ keeps the row and
    survivors of the previous report (marked with the date of that run), its survivors checked
    against the current reasons."""
    reasons = tomllib.loads(REASONS.read_text()) if REASONS.exists() else {}
    old_rows, old_survivors = previous_report()
    rows, survivors, ok = [], [], True
    for m in modules:
        known = reasons.get(m, {})
        st = statuses(m)
        checked = {k: v for k, v in st.items() if v != "not checked"}
        if checked:
            killed = sum(v in KILLED for v in checked.values())
            left = sorted((k for k, v in checked.items() if v not in KILLED),
                          key=lambda k: (k.split("__mutmut_")[0], int(k.rsplit("_", 1)[1])))
            found = [(k.split(".", 2)[2], checked[k], diff_of(k)) for k in left]
            n, score = len(checked), killed / len(checked)
            save_results(m)                           # also what a run stopped from outside checked
            saved = saved_results(m)
            when = saved["run_on"]
            wall = _wall(saved["wall_seconds"]) if saved.get("wall_seconds") else "?"
            if len(checked) < len(st):
                when += f" ({len(st) - len(checked)} of {len(st)} mutants not checked"
                when += ": run stopped at its time budget; the cheapest mutants go first, so the score is partial)" \
                    if saved.get("stopped_at_budget") else ")"
        elif m in old_rows and old_rows[m]["killed"] != "-":
            row = old_rows[m]
            found = old_survivors.get(m, [])
            n, killed = int(row["mutants checked"]), int(row["killed"])
            score = killed / n
            date, _, detail = row["run on"].partition(" (")
            detail = detail.removesuffix(")").removeprefix("not run this time").removeprefix("; then ")
            when = date + " (not run this time" + (f"; then {detail}" if detail else "") + ")"
            wall = row["wall time"]
        else:
            rows.append((m, "-", "-", "-", "-", "not run", "never" + (f" ({len(st)} mutants)" if st else ""), "-"))
            ok = False
            continue
        unexplained = [name for name, _, _ in found if name not in known]
        verdict = ("ok" if score >= GOAL and not unexplained else "BELOW GOAL" if score < GOAL
                   else f"{len(unexplained)} unexplained survivors")
        if "mutants not checked" in when or (m in old_rows and not checked
                                             and old_rows[m]["verdict"].startswith("partial")):
            verdict = f"partial ({verdict} so far)"
        ok &= verdict == "ok"
        rows.append((m, n, killed, len(found), f"{100 * score:.1f} %", verdict, when, wall))
        survivors += [(m, name, status, diff, known.get(name, "UNEXPLAINED")) for name, status, diff in found]
    rows += [(m, "-", "-", "-", "-", "not mutated: " + why, "-", "-") for m, why in NOT_MUTATED.items()]
    lines = [
        "# Mutation testing report",
        "",
        f"Written by `scripts/mutation.py` (`make mutation`) on {time.strftime('%Y-%m-%d')}: mutmut on the unit "
        f"tests and doctests. Goal: at least {100 * GOAL:.0f} % of the checked mutants of each module killed, and "
        "every survivor explained in `benchmarks/mutation-survivors.toml`. A module not run this time keeps the "
        "results of its last run (its date in \"run on\"), checked against the current reasons; wall time is "
        "mutmut's on a shared 2-core machine (one or two workers, `--max-children`, under `nice`), including its test-suite runs "
        "before the mutants (about 5 min with tracing when its stats are rebuilt). The tests are those "
        "`[tool.mutmut]` of pyproject.toml selects: the unit tests and doctests, without the site, Sphinx "
        "and prose checks (the 2026-11-25 runs also without `tests/test_bad_input.py`, red on main then; it is back).",
        "",
        "| module | mutants checked | killed | survived | score | verdict | run on | wall time |",
        "|---|---|---|---|---|---|---|---|",
        *("| " + " | ".join(str(c) for c in r) + " |" for r in rows),
        "",
        "## Survivors and why they are harmless",
        "",
        "| module | mutant | status | change | reason |",
        "|---|---|---|---|---|",
        *(f"| {m} | `{n}` | {s} | `{d.replace('|', '¦')}` | {r.replace('|', chr(92) + '|')} |"
          for m, n, s, d, r in survivors),
        "",
    ]
    REPORT.write_text("\n".join(lines))
    print("\n".join(lines[:8 + len(rows)]))
    print(f"report: {REPORT.relative_to(ROOT)}")
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("modules", nargs="*", help=f"modules of dpnotes (default: {' '.join(MODULES)})")
    ap.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--report", action="store_true", help="only rewrite the report from the last run")
    ap.add_argument("--budget", type=float, help="stop each module's run after this many minutes")
    ap.add_argument("--resume", action="store_true",
                    help="check only the mutants that a run stopped at its budget left unchecked")
    ap.add_argument("--survivors", action="store_true",
                    help="rerun only the last run's survivors of the modules (after adding tests)")
    ap.add_argument("--unexplained", action="store_true",
                    help="rerun only the survivors without a reason (the ones new tests target)")
    args = ap.parse_args()
    every = {p.stem for p in (ROOT / "dpnotes").glob("*.py")} - {"__init__"}
    if every != set(MODULES) | set(NOT_MUTATED):
        raise SystemExit(f"MODULES and NOT_MUTATED must list every module of dpnotes: missing "
                         f"{sorted(every - set(MODULES) - set(NOT_MUTATED))}, unknown "
                         f"{sorted(set(MODULES) | set(NOT_MUTATED) - every)}")
    modules = args.modules or MODULES
    restored = [m for m in MODULES if restore_results(m)]
    if restored:
        print("restored the saved verdicts of", " ".join(restored), "from", RESULTS.relative_to(ROOT))
    if not args.report:
        run(modules, args.max_children, survivors_only=args.survivors,
            budget=60 * args.budget if args.budget else None, resume=args.resume,
            unexplained_only=args.unexplained)
    # report on every module with a goal (a partial run keeps the others' last results)
    # and on any other module named
    sys.exit(0 if report(MODULES + sorted(set(modules) - set(MODULES))) else 1)


if __name__ == "__main__":
    main()
