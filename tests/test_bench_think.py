"""experiments.bench_think: agents' thinking time on the same decisions (issue 18)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from experiments import bench_think


def test_the_decisions_are_the_heuristics_choices_with_a_choice() -> None:
    views = bench_think.decisions("casino", 2, 5)
    again = bench_think.decisions("casino", 2, 5)
    assert len(views) > 20 and all(len(v.legal_moves()) > 1 for v in views)
    # seeded: the same positions every time
    assert [v.state.hand_masks for v in views] == [v.state.hand_masks for v in again]
    assert [v.state.loose_mask for v in views] == [v.state.loose_mask for v in again]


def test_each_agent_times_every_decision_against_the_first(tmp_path) -> None:
    rows, secs = bench_think.think("casino", ["greedy", "heuristic"], 2, 5, progress=False)
    assert secs.shape == (rows[0]["decisions"], 2) and (secs > 0).all()
    assert rows[0]["ratio_to_first"] == 1.0
    ratio = secs[:, 1].mean() / secs[:, 0].mean()
    assert rows[1]["ratio_to_first"] == pytest.approx(ratio, abs=1e-4)
    assert rows[1]["ratio_low"] <= rows[1]["ratio_to_first"] <= rows[1]["ratio_high"]
    bench_think.main(["--variant", "casino", "--agents", "greedy", "random", "--hands", "1",
                      "--out", str(tmp_path)])
    saved = json.loads((tmp_path / "think.json").read_text())
    assert [r["agent"] for r in saved["rows"]] == ["greedy", "random"]
    assert (tmp_path / "think.md").read_text().count("| `") == 2
    assert np.isfinite([r["ms_per_decision"] for r in saved["rows"]]).all()


def test_no_hands_is_refused_by_name() -> None:
    with pytest.raises(SystemExit):
        bench_think.main(["--agents", "greedy", "--hands", "0", "--out", "unused"])


def test_every_choice_starts_with_the_simulators_caches_empty(monkeypatch) -> None:
    """Agents of one seed draw the same determinizations: without clearing, the second to
    choose would reuse the first's memoised rollout positions."""
    from agents import fastsim
    from casino_env.engine.rules import make_rules

    calls = []
    monkeypatch.setattr(fastsim, "clear_caches", lambda: calls.append(1))
    rows, secs = bench_think.think("casino", ["greedy", "heuristic"], 1, 5, progress=False)
    assert len(calls) == secs.size  # once before every timed choice
    # and clearing gives a fresh simulator with nothing memoised
    monkeypatch.undo()
    sr = fastsim.sim_rules(make_rules("casino"), "builder")
    sr.steps[(1, 2)] = None
    fastsim.clear_caches()
    fresh = fastsim.sim_rules(make_rules("casino"), "builder")
    assert fresh is not sr and fresh.steps == {} and fresh.packs == {}
