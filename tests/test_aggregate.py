"""experiments.aggregate (issue 17 item 1): the IQM over seeds of hands won at each evaluation
point, with bootstrap intervals (rliable's, or scipy's when rliable is missing or broken),
and the table of steps and minutes to 90% against random, 50% against greedy and 50% against
the heuristic, on synthetic learning curves whose answers are known exactly.
"""

from __future__ import annotations

import json
import types
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("scipy")

import experiments.aggregate as agg  # noqa: E402
from experiments.aggregate import aggregate, iqm, iqm_intervals, read_curve, thresholds  # noqa: E402

STEPS = (0, 1000, 2000, 3000)
# win rates of 4 runs (columns) at each step, per opponent
RATES = {
    # IQM 0.65, 0.84, 0.915, 0.95: reaches 90% at step 2000, where one run is at 0 (its mean,
    # 0.695, would not: the IQM does not let one failed seed hide the others)
    "random": [[0.5, 0.6, 0.7, 0.8], [0.70, 0.80, 0.88, 0.99], [0.0, 0.91, 0.92, 0.95],
               [0.93, 0.94, 0.96, 0.97]],
    # IQM 0.25, then exactly 0.5 at step 1000 (reaching the target counts)
    "greedy": [[0.1, 0.2, 0.3, 0.4], [0.45, 0.5, 0.5, 0.6], [0.5, 0.55, 0.6, 0.7],
               [0.6, 0.6, 0.7, 0.7]],
    # never reaches 50%: best IQM 0.425 at step 3000
    "heuristic": [[0.0, 0.05, 0.1, 0.1], [0.1, 0.2, 0.2, 0.3], [0.2, 0.3, 0.3, 0.4],
                  [0.3, 0.4, 0.45, 0.6]],
}
IQM = {"random": [0.65, 0.84, 0.915, 0.95], "greedy": [0.25, 0.5, 0.575, 0.65],
       "heuristic": [0.075, 0.2, 0.3, 0.425]}


def minutes(run: int, step: int) -> float:
    return step / 1000 * (1 + 0.2 * run)  # runs at different speeds: mean 1.3 x step/1000


def write_runs(base: Path) -> list[Path]:
    """Four runs' learning_curve.csv, written by experiments.train's own writer."""
    pytest.importorskip("sb3_contrib")
    from experiments.train import write_curve

    runs = []
    for i in range(4):
        rows = [{"timesteps": s, "minutes": minutes(i, s), "phase": "ppo" if s else "init",
                 "opponent": opp, "hands": 400, "win_rate": RATES[opp][k][i],
                 "wilson_lo": 0.0, "wilson_hi": 1.0, "diff_per_hand": 0.0, "diff_lo": 0.0,
                 "diff_hi": 0.0} for k, s in enumerate(STEPS) for opp in RATES]
        run = base / f"scratch_casino_s{i}"
        write_curve(rows, run)
        runs.append(run)
    return runs


@pytest.fixture(scope="module")
def curves(tmp_path_factory):
    runs = write_runs(tmp_path_factory.mktemp("agg"))
    return {str(r): read_curve(r) for r in runs}, runs


def test_iqm_is_the_mean_of_the_middle_half():
    assert iqm([0.1, 0.2, 0.3, 0.9]) == pytest.approx(0.25)
    assert iqm([9, 1, 2, 3, 4, 5, 6, 0]) == pytest.approx(3.5)  # cuts 2 from each end
    assert iqm([0.2, 0.4, 0.9]) == pytest.approx(0.5)  # three runs: nothing cut, the mean


def test_aggregate_gives_the_exact_iqm_at_each_point(curves):
    data, _ = curves
    rows, method = aggregate(data, reps=500)
    assert "bootstrap" in method
    for opp, expected in IQM.items():
        rs = [r for r in rows if r["opponent"] == opp]
        assert [r["timesteps"] for r in rs] == list(STEPS)
        assert [r["iqm"] for r in rs] == pytest.approx(expected)
        for r, k in zip(rs, range(len(STEPS))):
            assert r["runs"] == 4
            assert r["minutes"] == pytest.approx(np.mean([minutes(i, r["timesteps"])
                                                          for i in range(4)]))
            assert r["mean"] == pytest.approx(np.mean(RATES[opp][k]))
            assert r["min"] - 1e-12 <= r["lo"] <= r["iqm"] <= r["hi"] <= r["max"] + 1e-12


def test_thresholds_are_found_at_the_first_point_that_reaches_them(curves):
    data, _ = curves
    rows, _ = aggregate(data, reps=500)
    table = {t["opponent"]: t for t in thresholds(rows, agg.DEFAULT_TARGETS)}
    assert (table["random"]["timesteps"], table["random"]["minutes"]) == (2000,
                                                                           pytest.approx(2.6))
    assert table["random"]["iqm"] == pytest.approx(0.915)
    assert (table["greedy"]["timesteps"], table["greedy"]["minutes"]) == (1000,
                                                                           pytest.approx(1.3))
    assert table["heuristic"]["timesteps"] is None and table["heuristic"]["minutes"] is None
    assert table["heuristic"]["best_iqm"] == pytest.approx(0.425)
    assert table["heuristic"]["best_timesteps"] == 3000
    md = agg.thresholds_markdown(list(table.values()), 4)
    assert "| random | 90% | 2,000 | 2.6 | 91.5% [" in md
    assert "| greedy | 50% | 1,000 | 1.3 | 50.0% [" in md
    assert "| heuristic | 50% | not reached | not reached | - | 42.5% (3,000) |" in md


def test_the_command_writes_the_table_the_curves_and_the_plot(curves, tmp_path, capsys):
    _, runs = curves
    out = tmp_path / "casino"
    assert agg.main([*map(str, runs), "--out", str(out), "--reps", "300"]) == 0
    printed = capsys.readouterr().out
    assert "| heuristic | 50% | not reached | not reached |" in printed
    for name in ("aggregate.csv", "aggregate.png", "thresholds.csv", "thresholds.md",
                 "aggregate.json"):
        assert (out / name).exists(), name
    assert (out / "aggregate.png").stat().st_size > 1000
    header = (out / "aggregate.csv").read_text().splitlines()[0]
    assert header == "opponent,timesteps,minutes,iqm,lo,hi,mean,min,max,runs"
    meta = json.loads((out / "aggregate.json").read_text())
    assert meta["runs"] == [str(r) for r in runs] and meta["reps"] == 300
    assert "not reached" in (out / "thresholds.csv").read_text()
    assert agg.default_out(runs) == Path("runs/aggregate/scratch_casino")
    # other targets
    assert agg.main([*map(str, runs), "--out", str(out), "--reps", "300",
                     "--target", "heuristic=40%"]) == 0
    assert "| heuristic | 40% | 3,000 | 3.9 | 42.5% [" in capsys.readouterr().out


def test_without_rliable_scipy_bootstraps_the_same_iqm(monkeypatch):
    scores = np.array([RATES["random"][k] for k in range(4)]).T  # runs x points
    monkeypatch.setattr(agg, "_rliable", lambda: None)
    point, lo, hi, method = iqm_intervals(scores, reps=1000, seed=1)
    assert method.startswith("scipy percentile bootstrap over runs")
    assert "rliable not installed" in method
    assert point == pytest.approx(IQM["random"])
    assert np.all(lo <= point) and np.all(point <= hi)
    again = iqm_intervals(scores, reps=1000, seed=1)
    assert np.array_equal(again[1], lo) and np.array_equal(again[2], hi)  # seeded


def test_a_broken_rliable_falls_back_to_scipy_and_says_why(monkeypatch):
    def broken(*args, **kwargs):
        raise TypeError("Input `random_state` has type RandomState.")

    monkeypatch.setattr(agg, "_rliable",
                        lambda: types.SimpleNamespace(get_interval_estimates=broken))
    _, lo, hi, method = iqm_intervals(np.array([[0.1, 0.2], [0.3, 0.5], [0.4, 0.4]]), reps=200)
    assert "rliable failed: TypeError: Input `random_state`" in method
    assert np.all(lo <= hi)


def test_rliable_when_it_works_gives_an_interval_around_the_iqm():
    library = agg._rliable()
    scores = np.array([RATES["greedy"][k] for k in range(4)]).T
    if library is None:
        pytest.skip("rliable is not installed")
    try:
        agg._rliable_intervals(library, scores, 100, 0, 0.95)
    except Exception as exc:  # e.g. rliable 1.2 with arch 8
        pytest.skip(f"rliable does not run here: {exc}")
    point, lo, hi, method = iqm_intervals(scores, reps=1000)
    assert method.startswith("rliable stratified bootstrap")
    assert point == pytest.approx(IQM["greedy"])
    assert np.all(lo <= point) and np.all(point <= hi)


def test_one_run_and_uneven_runs(curves, tmp_path):
    data, runs = curves
    one = {k: v for k, v in list(data.items())[:1]}
    rows, method = aggregate(one)
    assert method == "none (one run)" and all(r["lo"] == r["iqm"] == r["hi"] for r in rows)
    # a run stopped earlier: its missing points are left out unless --min-runs allows them
    short = dict(data)
    last = list(short)[-1]
    short[last] = [r for r in short[last] if r["timesteps"] < 3000]
    rows, _ = aggregate(short, reps=200)
    assert max(r["timesteps"] for r in rows) == 2000
    rows, _ = aggregate(short, reps=200, min_runs=3)
    at_end = [r for r in rows if r["timesteps"] == 3000]
    assert at_end and all(r["runs"] == 3 for r in at_end)


def test_errors_name_the_problem(curves, tmp_path):
    _, runs = curves
    with pytest.raises(SystemExit, match="no learning curve"):
        agg.main([str(tmp_path / "nothing"), "--out", str(tmp_path / "o")])
    other = tmp_path / "other"
    other.mkdir()
    (other / "learning_curve.csv").write_text(
        "timesteps,minutes,opponent,win_rate\n512,1.0,random,0.5\n")
    with pytest.raises(SystemExit, match="no evaluation step is common to 2 of the 2 runs"):
        agg.main([str(runs[0]), str(other), "--out", str(tmp_path / "o")])
    with pytest.raises(SystemExit, match="the same run is given twice"):
        agg.main([str(runs[0]), str(runs[0]), "--out", str(tmp_path / "o")])
    with pytest.raises(SystemExit):
        agg.parse_args([str(runs[0]), "--target", "random"])


def test_rliable_intervals_are_seeded_and_leave_numpys_generator_alone():
    """rliable 1.2 resamples with numpy's global generator: the same seed gives the same
    interval, and the caller's global random state is as it was."""
    library = agg._rliable()
    if library is None:
        pytest.skip("rliable is not installed (pip install -e '.[stats]')")
    scores = np.array([RATES["greedy"][k] for k in range(4)]).T
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    a = agg._rliable_intervals(library, scores, 300, 5, 0.95)
    b = agg._rliable_intervals(library, scores, 300, 5, 0.95)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert np.array_equal(np.random.get_state()[1], before)


def test_an_opponent_without_common_points_is_named_not_called_not_reached(curves, tmp_path,
                                                                           capsys):
    """An opponent that no step has in all the runs (greedy missing from one run), and a
    target's opponent that no run evaluates, say "no common evaluation points" with a
    warning naming them, not "not reached" (they used to be dropped in silence)."""
    _, runs = curves
    cut = tmp_path / "no_greedy_s9"
    cut.mkdir()
    text = (runs[0] / "learning_curve.csv").read_text().splitlines()
    (cut / "learning_curve.csv").write_text(
        "\n".join(line for line in text if ",greedy," not in line) + "\n")
    out = tmp_path / "o"
    assert agg.main([*map(str, runs[1:]), str(cut), "--out", str(out), "--reps", "200",
                     "--target", "greedy=0.5", "--target", "krypkasino=0.5"]) == 0
    printed = capsys.readouterr()
    assert "opponent 'greedy' has no evaluation step common to 4 of the 4 runs" in printed.err
    assert "target opponent 'krypkasino' is evaluated in none of the runs" in printed.err
    assert "| greedy | 50% | no common evaluation points | - | - | - |" in printed.out
    assert "| krypkasino | 50% | no common evaluation points |" in printed.out
    assert "not reached" not in (out / "thresholds.md").read_text()
    assert "greedy,0.5,no common evaluation points" in (out / "thresholds.csv").read_text()


def test_min_runs_below_one_is_refused_and_the_count_used_is_recorded(curves, tmp_path,
                                                                       capsys):
    """--min-runs 0 was taken as 1 while aggregate.json recorded all the runs; now it is
    refused at parse time, and aggregate.json records the count the points needed."""
    _, runs = curves
    with pytest.raises(SystemExit):
        agg.parse_args([str(runs[0]), "--min-runs", "0"])
    assert "at least 1" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="--min-runs 5 is more than the 4 runs given"):
        agg.main([*map(str, runs), "--min-runs", "5", "--out", str(tmp_path / "o")])
    out = tmp_path / "o2"
    assert agg.main([*map(str, runs), "--min-runs", "2", "--out", str(out), "--reps",
                     "100"]) == 0
    assert json.loads((out / "aggregate.json").read_text())["min_runs"] == 2
    assert agg.main([*map(str, runs), "--out", str(out), "--reps", "100"]) == 0
    assert json.loads((out / "aggregate.json").read_text())["min_runs"] == 4
