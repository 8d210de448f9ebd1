"""experiments.departures: search's departures from the heuristic rescored (resumable), the
summary's buckets, the weights that stress large departures, and a refit arm."""

from __future__ import annotations

import csv
import json
import math

import gymnasium  # noqa: F401  (before casino_env.single)
import numpy as np
import pytest

from experiments import departures as dp

SETTINGS = {"variant": "casino", "departures": 3, "simulations": 8, "recheck": 16, "seed": 2}


def test_recheck_rows_are_the_searchs_decisions_and_a_rerun_resumes(tmp_path):
    out = tmp_path / "dep"
    s = dp.recheck(SETTINGS, out, progress=False)
    rows = dp.read_rows(out / "decisions.csv")
    assert s["departures"] >= 3 and s["choices"] == len(rows)
    for r in rows:
        assert int(r["moves"]) >= 2 and int(r["seat"]) == int(r["deal"]) % 2
        departs = int(r["departs"])
        assert departs == (r["search"] != r["heuristic"])
        assert (r["gap"] != "") == bool(departs) and (r["recheck_gap"] != "") == bool(departs)
        if departs:
            assert float(r["gap"]) >= 0  # the search's own choice scores highest
    for name in ("summary.json", "summary.md", "summary.png"):
        assert (out / name).exists()
    # more departures: the first hands are kept as they were, new hands follow
    dp.recheck({**SETTINGS, "departures": s["departures"] + 2}, out, progress=False)
    again = dp.read_rows(out / "decisions.csv")
    assert again[:len(rows)] == rows and len(again) > len(rows)
    assert [int(r["deal"]) for r in again] == sorted(int(r["deal"]) for r in again)
    with pytest.raises(ValueError, match="other settings"):
        dp.recheck({**SETTINGS, "recheck": 32}, out, progress=False)


def test_summary_buckets_by_the_gap_the_search_saw():
    rows = [{"deal": "0", "departs": "0"}, {"deal": "0", "departs": "0"},
            {"deal": "0", "departs": "1", "gap": "0.1", "recheck_gap": "-0.5"},
            {"deal": "1", "departs": "1", "gap": "0.2", "recheck_gap": "0.5"},
            {"deal": "1", "departs": "1", "gap": "2.0", "recheck_gap": "3.0"},
            {"deal": "1", "departs": "0"}]
    s = dp.summarize(rows)
    assert s["choices"] == 6 and s["departures"] == 3 and s["departure_rate"] == 0.5
    small, mid, big = s["buckets"]
    assert small["departures"] == 2 and small["holds"] == 0.5 and small["recheck_gap"] == 0.0
    assert small["recheck_se"] == pytest.approx(0.5)  # sd 0.707 over sqrt(2)
    assert mid["departures"] == 0 and math.isnan(mid["holds"])
    assert big["departures"] == 1 and big["holds"] == 1.0 and big["recheck_gap"] == 3.0
    assert s["recheck_gap_per_hand"] == pytest.approx(3.0 / 2)


def test_departure_weights_stress_only_large_departures():
    from experiments.bc import Demos

    # decision 0: search's best (move 1) departs from the heuristic's (move 0) by 1.5 points;
    # 1: departs by 0.5; 2: agrees; 3: forced
    scores = np.array([0.0, 1.5, 0.0, 0.5, 2.0, 1.0, 0.0], np.float32)
    hints = np.array([[5.0], [1.0], [5.0], [1.0], [5.0], [1.0], [0.0]], np.float32)
    demos = Demos(obs=np.zeros((4, 1), np.float16), action=np.zeros(4, int),
                  ret=np.zeros(4, np.float32), n=np.array([2, 2, 2, 1]),
                  start=np.array([0, 2, 4, 6]), rows=np.zeros((7, 1), np.uint8),
                  hints=hints, scores=scores)
    w, big = dp.departure_weights(demos, 10.0, 1.0)
    assert big.tolist() == [True, False, False, False]
    np.testing.assert_allclose(w, np.array([10, 1, 1, 1]) / 3.25)


def test_a_refit_arm_is_fitted_evaluated_and_recorded(tmp_path):
    pytest.importorskip("sb3_contrib")
    from experiments import exit as ex

    tiny = {"env": {"max_moves": 24}, "policy": {"hidden": 32, "pair_hidden": 16},
            "expert": {"spec": "search:simulations=12"},
            "data": {"decisions": 30, "shard": 15, "workers": 1,
                     "opponents": {"greedy": 1, "self": 1}},
            "fit": {"epochs": 1, "batch_size": 16},
            "eval": {"hands": {"greedy": 2}, "guided_hands": 0, "workers": 1}}
    run = tmp_path / "run"
    ex.run(ex.load_config(None, tiny), run, 1, progress=False, log=lambda _: None)
    row = dp.refit(run, 0, 5.0, 0.0, 0.5, 1, 4, tmp_path / "arms")
    assert row["decisions"] == 30 and row["hands"] == 4 and 0 <= row["win_rate"] <= 1
    assert (tmp_path / "arms" / row["arm"] / "model.zip").exists()
    meta = json.loads((tmp_path / "arms" / row["arm"] / "model.json").read_text())
    assert meta["score_temperature"] == 0.5 and "weighted 5" in meta["trained_by"]
    with (tmp_path / "arms" / "arms.csv").open() as f:
        assert [r["arm"] for r in csv.DictReader(f)] == [row["arm"]]


def test_endgame_rows_are_last_deal_decisions_with_losses_against_exact_play(tmp_path):
    settings = {"variant": "casino", "hands": 4, "simulations": 8, "node_limit": 200_000,
                "seed": 1}
    s = dp.endgame(settings, tmp_path, progress=False)
    with (tmp_path / "endgame.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert s["decisions"] == len(rows) > 0
    for r in rows:
        assert 1 <= int(r["cards"]) <= 4 and int(r["moves"]) >= 2
        assert float(r["search_loss"]) >= 0 and float(r["heuristic_loss"]) >= 0
    lost = sum(float(r["search_loss"]) for r in rows) / 4
    assert s["search"]["points_lost_per_hand"] == pytest.approx(lost)
    assert (tmp_path / "endgame.md").read_text().startswith("# The last deal")
