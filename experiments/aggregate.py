"""Aggregate the learning curves of several runs (seeds) of one config, the way rliable
recommends (Agarwal et al. 2021, "Deep RL at the edge of the statistical precipice"): at each
evaluation point, the interquartile mean (IQM: the mean of the middle 50% of runs) of the
hands won against each opponent, with a 95% stratified-bootstrap interval over runs; and
the table "steps and minutes to 90% against random, 50% against greedy, 50% against the
heuristic" (the first evaluation point whose IQM reaches the target, else "not reached").

    python -m experiments.aggregate runs/train/scratch_casino_s0 runs/train/scratch_casino_s1 \\
        runs/train/scratch_casino_s2 --out runs/aggregate/casino

Each run is a folder holding the ``learning_curve.csv`` of ``experiments.train`` (or the CSV
itself). Runs are aligned on environment steps (the runs of one config evaluate at the same
steps); a point counts when all runs have it (``--min-runs`` to lower that), and its minutes
are the mean over those runs of their wall-clock minutes there. Writes ``aggregate.csv`` and
``aggregate.png`` (x: steps and minutes, one line per opponent, shaded interval),
``thresholds.csv``/``.md`` and ``aggregate.json`` into ``--out`` (default
``runs/aggregate/<first run's name without _s<seed>>``, git-ignored).

The bootstrap is rliable's (``rliable.library.get_interval_estimates``, percentile method)
when rliable imports; otherwise scipy's percentile bootstrap over runs, which for one
opponent at one point is the same resampling (rliable stratifies by task, and here each
opponent is aggregated on its own). ``aggregate.json`` records which one was used.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy import stats as sps

from experiments.curves import Metric, plot_steps_and_minutes, write_table

DEFAULT_TARGETS = {"random": 0.9, "greedy": 0.5, "heuristic": 0.5}
DEFAULT_OUT = Path("runs/aggregate")
FIELDS = ("opponent", "timesteps", "minutes", "iqm", "lo", "hi", "mean", "min", "max", "runs")
THRESHOLD_FIELDS = ("opponent", "target", "timesteps", "minutes", "iqm", "lo", "hi",
                    "best_iqm", "best_timesteps")


def iqm(values: Sequence[float] | np.ndarray) -> float:
    """Interquartile mean: the mean after cutting 25% of the values from each end
    (``scipy.stats.trim_mean(x, 0.25)``, as rliable's ``aggregate_iqm``; with fewer than
    four values nothing is cut and it is the mean)."""
    return float(sps.trim_mean(np.asarray(values, dtype=float), 0.25, axis=None))


def read_curve(run: str | Path) -> list[dict]:
    """The rows of a run's ``learning_curve.csv`` (``run`` is its folder or the file) with
    ``timesteps`` as int and ``minutes`` and ``win_rate`` as floats; an error names a
    missing file or column."""
    path = Path(run)
    if path.is_dir():
        path = path / "learning_curve.csv"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no learning curve (experiments.train writes "
                                "learning_curve.csv into the run's folder)")
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    missing = {"timesteps", "minutes", "opponent", "win_rate"} - set(rows[0] if rows else {})
    if missing:
        raise ValueError(f"{path}: no column {', '.join(sorted(missing))} (or no rows)")
    return [{**r, "timesteps": int(float(r["timesteps"])), "minutes": float(r["minutes"]),
             "win_rate": float(r["win_rate"])} for r in rows]


def _rliable():
    """rliable's library module, or None when it is missing or does not import (rliable 1.2
    pins arch < 8, whose releases fail to import with pandas 3)."""
    try:
        from rliable import library
    except Exception:  # ImportError, or arch's TypeError at import with a newer pandas
        return None
    return library


def _rliable_intervals(library, scores: np.ndarray, reps: int, seed: int, conf: float
                       ) -> tuple[np.ndarray, np.ndarray]:
    """rliable's stratified bootstrap interval of the IQM at each point (runs x points;
    one task: each opponent is aggregated on its own)."""
    def func(x: np.ndarray) -> np.ndarray:
        return np.array([iqm(x[..., j]) for j in range(x.shape[-1])])

    # rliable 1.2 draws its resamples from numpy's global generator (StratifiedBootstrap.
    # update_indices), whatever random_state says: seed that too, and put it back after.
    saved = np.random.get_state()
    np.random.seed(seed)
    try:
        with warnings.catch_warnings():  # arch 7: random_state is deprecated (still works)
            warnings.simplefilter("ignore", FutureWarning)
            _, ci = library.get_interval_estimates(
                {"run": scores[:, None, :]}, func, reps=reps, confidence_interval_size=conf,
                random_state=np.random.RandomState(seed))
    finally:
        np.random.set_state(saved)
    return np.asarray(ci["run"][0], float), np.asarray(ci["run"][1], float)


def _scipy_intervals(scores: np.ndarray, reps: int, seed: int, conf: float
                     ) -> tuple[np.ndarray, np.ndarray]:
    """scipy's percentile bootstrap over runs of the IQM at each point: for one task the
    same resampling as rliable's stratified bootstrap."""
    rng = np.random.default_rng(seed)
    n_points = scores.shape[1]
    lo, hi = np.empty(n_points), np.empty(n_points)
    for j in range(n_points):
        x = scores[:, j]
        if np.all(x == x[0]):
            lo[j] = hi[j] = x[0]
            continue
        res = sps.bootstrap((x,), lambda a, axis: sps.trim_mean(a, 0.25, axis=axis),
                            n_resamples=reps, confidence_level=conf, method="percentile",
                            random_state=rng, vectorized=True)
        lo[j], hi[j] = res.confidence_interval.low, res.confidence_interval.high
    return lo, hi


def iqm_intervals(scores: np.ndarray, reps: int = 2000, seed: int = 0, conf: float = 0.95,
                  use_rliable: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """IQM over runs at each point of ``scores`` (runs x points) with its 95% percentile
    bootstrap interval (resampling runs): ``(iqm, lo, hi, method)``. rliable's when it
    works, else scipy's (``method`` says which, and why). One run (or identical scores)
    gives a zero-width interval."""
    scores = np.asarray(scores, dtype=float)
    n_runs, n_points = scores.shape
    point = np.array([iqm(scores[:, j]) for j in range(n_points)])
    if n_runs < 2:
        return point, point.copy(), point.copy(), "none (one run)"
    library = _rliable() if use_rliable else None
    why = "rliable not installed or not importable" if use_rliable else "rliable not used"
    if library is not None:
        try:
            lo, hi = _rliable_intervals(library, scores, reps, seed, conf)
            method = f"rliable stratified bootstrap (percentile, {reps} resamples)"
        except Exception as exc:  # rliable 1.2 with arch 8: random_state is refused
            library = None
            why = f"rliable failed: {type(exc).__name__}: {str(exc).splitlines()[0]}"
    if library is None:
        lo, hi = _scipy_intervals(scores, reps, seed, conf)
        method = f"scipy percentile bootstrap over runs ({reps} resamples; {why})"
    # a bound a rounding error past the estimate (all resamples equal) is the estimate
    return point, np.minimum(lo, point), np.maximum(hi, point), method


def aggregate(curves: dict[str, list[dict]], reps: int = 2000, seed: int = 0,
              min_runs: int | None = None) -> tuple[list[dict], str]:
    """One row per opponent and evaluation step that at least ``min_runs`` runs (default:
    all) have: the IQM of their win rates with its 95% interval, their mean, min and max,
    and the mean of their minutes there. Returns the rows and the bootstrap method(s) used
    (more than one when some points have a single run)."""
    need = len(curves) if min_runs is None else max(1, int(min_runs))
    opponents = list(dict.fromkeys(r["opponent"] for rows in curves.values() for r in rows))
    out: list[dict] = []
    methods: list[str] = []
    for opp in opponents:
        at: dict[int, dict[str, dict]] = {}  # step -> run -> its (last) row there
        for run, rows in curves.items():
            for r in rows:
                if r["opponent"] == opp:
                    at.setdefault(r["timesteps"], {})[run] = r
        steps = sorted(s for s, runs in at.items() if len(runs) >= need)
        if not steps:
            continue
        # the bootstrap resamples whole runs, so each point uses the runs that all have it
        groups: dict[tuple[str, ...], list[int]] = {}
        for s in steps:
            groups.setdefault(tuple(sorted(at[s])), []).append(s)
        for runs, group in groups.items():
            scores = np.array([[at[s][run]["win_rate"] for s in group] for run in runs])
            point, lo, hi, method = iqm_intervals(scores, reps, seed)
            methods.append(method)
            for j, s in enumerate(group):
                col = scores[:, j]
                out.append({"opponent": opp, "timesteps": s,
                            "minutes": float(np.mean([at[s][r]["minutes"] for r in runs])),
                            "iqm": float(point[j]), "lo": float(lo[j]), "hi": float(hi[j]),
                            "mean": float(col.mean()), "min": float(col.min()),
                            "max": float(col.max()), "runs": len(runs)})
    out.sort(key=lambda r: (opponents.index(r["opponent"]), r["timesteps"]))
    return out, "; ".join(dict.fromkeys(methods)) or "none"


NO_POINTS = "no common evaluation points"


def thresholds(rows: list[dict], targets: dict[str, float]) -> list[dict]:
    """For each opponent and target win rate: the first evaluation point (steps, minutes)
    whose IQM reaches the target, or None for both ("not reached"), with the best IQM (None
    too when the opponent has no aggregated point: NO_POINTS, not "not reached")."""
    table = []
    for opp, target in targets.items():
        rs = sorted((r for r in rows if r["opponent"] == opp), key=lambda r: r["timesteps"])
        hit = next((r for r in rs if r["iqm"] >= target), None)
        best = max(rs, key=lambda r: r["iqm"], default=None)
        table.append({"opponent": opp, "target": target,
                      "timesteps": hit["timesteps"] if hit else None,
                      "minutes": hit["minutes"] if hit else None,
                      "iqm": hit["iqm"] if hit else None, "lo": hit["lo"] if hit else None,
                      "hi": hit["hi"] if hit else None,
                      "best_iqm": best["iqm"] if best else None,
                      "best_timesteps": best["timesteps"] if best else None})
    return table


def thresholds_markdown(table: list[dict], n_runs: int) -> str:
    """The threshold table in markdown: steps and minutes to each target, or "not reached"
    (with the best IQM, to say by how much), or NO_POINTS for an opponent with no point."""
    lines = [f"Steps and minutes until the IQM over {n_runs} runs of hands won reaches each "
             "target (first evaluation point; 95% bootstrap interval of the IQM there).", "",
             "| opponent | target | steps | minutes | IQM there [95% CI] | best IQM (at steps) |",
             "|---|---|---|---|---|---|"]
    for t in table:
        best = ("-" if t["best_iqm"] is None else
                f"{t['best_iqm']:.1%} ({t['best_timesteps']:,})")
        if t["best_iqm"] is None:
            lines.append(f"| {t['opponent']} | {t['target']:.0%} | {NO_POINTS} | - | - | - |")
        elif t["timesteps"] is None:
            lines.append(f"| {t['opponent']} | {t['target']:.0%} | not reached | not reached "
                         f"| - | {best} |")
        else:
            lines.append(f"| {t['opponent']} | {t['target']:.0%} | {t['timesteps']:,} | "
                         f"{t['minutes']:.1f} | {t['iqm']:.1%} [{t['lo']:.1%}, {t['hi']:.1%}] "
                         f"| {best} |")
    return "\n".join(lines) + "\n"


def plot_aggregate(rows: list[dict], path: Path, n_runs: int = 0,
                   targets: dict[str, float] | None = None) -> None:
    """IQM of hands won per opponent with its shaded interval, over steps and minutes."""
    refs = sorted({(float(v), "--" if v == 0.5 else ":")
                   for v in (targets or DEFAULT_TARGETS).values()})
    plot_steps_and_minutes(rows, path, [
        Metric("iqm", "lo", "hi", f"hands won: IQM of {n_runs} runs, 95% CI",
               refs=tuple(refs), ylim=(0, 1.02))],
        title=f"learning curves aggregated over {n_runs} runs",
        minutes_label="wall-clock minutes (mean over runs)")


def default_out(runs: Sequence[str | Path]) -> Path:
    """``runs/aggregate/<name>``: the first run's folder name without its ``_s<seed>``."""
    first = Path(runs[0])
    name = (first.parent if first.suffix == ".csv" else first).name
    return DEFAULT_OUT / (re.sub(r"_s\d+$", "", name) or "runs")


def parse_target(text: str) -> tuple[str, float]:
    """``"heuristic=0.5"`` (or ``50%``) to ``("heuristic", 0.5)``."""
    name, sep, value = text.partition("=")
    try:
        v = float(value.rstrip("%")) / (100 if value.endswith("%") else 1)
    except ValueError:
        v = math.nan
    if not sep or not name or not 0 <= v <= 1:
        raise argparse.ArgumentTypeError(f"--target {text!r}: expected OPPONENT=RATE with a "
                                         "rate in [0, 1] or a percentage, e.g. random=0.9")
    return name, v


def positive_int(text: str) -> int:
    """An integer of at least 1 (``--min-runs``)."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number of runs, at least 1")
    return n


def unaggregated(curves: dict[str, list[dict]], rows: list[dict], targets: dict[str, float],
                 need: int) -> list[str]:
    """Warnings naming each opponent (evaluated, or a target's) that has no aggregated point,
    so its thresholds say NO_POINTS rather than a silent gap or a false "not reached"."""
    evaluated = list(dict.fromkeys(r["opponent"] for rs in curves.values() for r in rs))
    kept = {r["opponent"] for r in rows}
    notes = [f"warning: opponent {o!r} has no evaluation step common to {need} of the "
             f"{len(curves)} runs: left out of the aggregate, its thresholds say {NO_POINTS} "
             "(--min-runs lowers the count)" for o in evaluated if o not in kept]
    notes += [f"warning: target opponent {o!r} is evaluated in none of the runs: its "
              f"thresholds say {NO_POINTS}"
              for o in targets if o not in evaluated]
    return notes


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line of ``main``."""
    ap = argparse.ArgumentParser(prog="python -m experiments.aggregate", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", type=Path,
                    help="run folders (or their learning_curve.csv), one per seed")
    ap.add_argument("--out", type=Path, default=None,
                    help=f"output folder (default {DEFAULT_OUT}/<run name without _s<seed>>)")
    ap.add_argument("--target", action="append", type=parse_target, default=None,
                    metavar="OPPONENT=RATE",
                    help="a threshold of the table (repeatable; default random=0.9 "
                    "greedy=0.5 heuristic=0.5)")
    ap.add_argument("--reps", type=int, default=2000, help="bootstrap resamples (2000)")
    ap.add_argument("--seed", type=int, default=0, help="the bootstrap's seed (0)")
    ap.add_argument("--min-runs", type=positive_int, default=None,
                    help="aggregate a point that at least this many runs have (default: all)")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Aggregate the runs' curves; write the CSV, PNG, thresholds and metadata; print the
    threshold table."""
    a = parse_args(argv)
    names = [str(r) for r in a.runs]
    if len(set(names)) != len(names):
        raise SystemExit("the same run is given twice: " + ", ".join(
            sorted({n for n in names if names.count(n) > 1})))
    try:
        curves = {str(r): read_curve(r) for r in a.runs}
    except (OSError, ValueError) as exc:
        raise SystemExit(str(exc)) from None
    targets = dict(a.target) if a.target else dict(DEFAULT_TARGETS)
    n = len(curves)
    need = a.min_runs or n
    if need > n:
        raise SystemExit(f"--min-runs {need} is more than the {n} runs given")
    rows, method = aggregate(curves, a.reps, a.seed, need)
    if not rows:
        raise SystemExit(f"no evaluation step is common to {need} of the "
                         f"{len(curves)} runs: runs of one config evaluate at the same steps "
                         "(eval.every, ppo.n_envs x ppo.n_steps); --min-runs lowers the count")
    for note in unaggregated(curves, rows, targets, need):
        print(note, file=sys.stderr)
    out = a.out or default_out(a.runs)
    write_table(out, "aggregate", FIELDS, rows,
                lambda rs, path: plot_aggregate(rs, path, n, targets))
    table = thresholds(rows, targets)
    with (out / "thresholds.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=THRESHOLD_FIELDS)
        w.writeheader()
        w.writerows({k: ((NO_POINTS if t["best_iqm"] is None else "not reached")
                         if v is None and k in ("timesteps", "minutes") else v)
                     for k, v in t.items()} for t in table)
    md = thresholds_markdown(table, n)
    (out / "thresholds.md").write_text(md)
    (out / "aggregate.json").write_text(json.dumps(
        {"runs": names, "bootstrap": method, "reps": a.reps, "seed": a.seed,
         "min_runs": need, "targets": targets, "thresholds": table},
        indent=2) + "\n")
    print(md)
    print(f"bootstrap: {method}\nwrote aggregate.csv, aggregate.png, thresholds.csv, "
          f"thresholds.md and aggregate.json in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
