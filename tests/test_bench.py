"""The benchmark script's counting parts (never its timings) and its missing-reference error."""

from __future__ import annotations

import importlib.util
import statistics

import pytest

from casino_env.engine import legal_moves
from experiments import bench


def test_missing_references_name_the_packages_and_the_fix(monkeypatch):
    """bench env/train stop at the start, naming what to install, when PettingZoo's classic
    references cannot import (pygame, rlcard are not PettingZoo dependencies)."""
    real = importlib.util.find_spec
    gone = {"pygame", "rlcard"}
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in gone else real(name, *a))
    with pytest.raises(SystemExit,
                       match=r"need pygame and rlcard: pip install -e \"\.\[bench\]\""):
        bench.require_references()
    gone = {"rlcard"}  # (pygame present or not, only rlcard named)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in gone
                        else object())
    with pytest.raises(SystemExit, match=r"need rlcard: pip"):
        bench.require_references()


def test_engine_rows_count_legal_moves_of_the_same_states():
    """One row per preset and player count; mean/max legal moves are those of the seeded
    random states (recounted here through the public API)."""
    rows = bench.bench_engine(states_per_config=30, hands=1)
    assert [(r["variant"], r["players"]) for r in rows] == \
        [(v, n) for v, n, _ in bench.configs()]
    casino = next(r for r in rows if (r["variant"], r["players"]) == ("casino", 2))
    counts = [len(legal_moves(s)) for s in bench.random_states("casino", 2, None, 30)]
    assert casino["mean_moves"] == round(statistics.mean(counts), 2)
    assert casino["max_moves"] == max(counts)
    assert all(r["legal_lists_per_s"] > 0 and r["hands_per_s"] > 0 for r in rows)
    # moves_per_s: legal moves listed a second (lists/s times the mean list length)
    assert all(abs(r["moves_per_s"] - r["legal_lists_per_s"] * r["mean_moves"])
               <= 0.01 * r["legal_lists_per_s"] + 1 for r in rows)


def test_random_states_are_mid_game_and_seeded():
    """Engine benchmark states: seeded (same list twice) and all with cards left in the stock."""
    a = bench.random_states("royal", 2, None, 25, seed=3)
    b = bench.random_states("royal", 2, None, 25, seed=3)
    assert [s.to_spec() for s in a] == [s.to_spec() for s in b]
    assert all(s.stock_ids for s in a)


def test_random_states_of_a_single_deal_hand():
    """With swazi's 3 or 4 players all cards are dealt at once (V-swazi-deal), so no state has
    a stock: every state counts as mid-game (the benchmark used to wait for one for ever)."""
    states = bench.random_states("swazi", 3, None, 10, seed=1)
    assert len(states) == 10 and not any(s.stock_ids for s in states)
    assert all(s.stock_ids for s in bench.random_states("swazi", 2, None, 10, seed=1))


def test_memory_rows_mark_every_tenth_of_the_run():
    """The memory benchmark records resident memory and the subset-sum cache fill at every
    tenth of the run, through the engine and through the wrapped env; caches only grow."""
    for through in ("engine", "env"):
        rows = bench._memory_rows(30, "casino", through)
        assert [r["hands"] for r in rows] == list(range(3, 31, 3))
        assert all(r["through"] == through and r["rss_mb"] > 0 for r in rows)
        fill = [r["subset_sum_cache_entries"] for r in rows]
        assert fill == sorted(fill) and fill[-1] > 0


def test_the_command_line_defaults_and_refuses_an_unknown_benchmark():
    """No argument means engine and env (argparse 3.11 used to refuse the default list against
    its choices); a misspelt benchmark is named with the known ones."""
    assert bench.parse_args([]).what == ["engine", "env"]
    assert bench.parse_args(["moves", "--quick"]).what == ["moves"]
    with pytest.raises(SystemExit):
        bench.parse_args(["engnie"])


def test_unknown_benchmark_message(capsys):
    with pytest.raises(SystemExit):
        bench.parse_args(["engine", "engnie"])
    assert "unknown benchmark 'engnie': expected some of engine, env, moves, memory, train, " \
        "openspiel, all" in capsys.readouterr().err


def test_bench_openspiel_rows():
    """Random play through the OpenSpiel game beside the PettingZoo env (issue 19)."""
    pytest.importorskip("pyspiel")
    from experiments.bench import bench_openspiel

    rows = bench_openspiel(steps=300, repeats=1, variants=("casino",))
    assert [r["env"] for r in rows] == ["openspiel actions",
                                        "openspiel actions + info-state tensor",
                                        "pettingzoo env() compose",
                                        "pettingzoo raw_env() compose"]
    assert all(r["variant"] == "casino 2p" and r["steps_per_s"] > 0 for r in rows)
    assert rows[2]["vs_pettingzoo_env"] == 1.0


def test_train_measure_divides_by_the_frames_actually_stepped(monkeypatch):
    """bench_train.measure with a rollout that is not a multiple of the envs (10 over 3 envs:
    9 frames an iteration) rates the frames stepped, not the 10 asked for, and its PPO block
    runs exactly the asked iterations (learn used to run a whole extra one past the target)."""
    import itertools
    import types

    import torch

    from experiments import bench_train
    from experiments.train import load_config

    torch.set_num_threads(1)
    clock = itertools.count()  # every timed block lasts one tick
    monkeypatch.setattr(bench_train, "time",
                        types.SimpleNamespace(perf_counter=lambda: float(next(clock))))
    cfg = load_config(bench_train.Path("experiments/configs/casino.toml"))
    cfg["env"]["action_mode"] = "compose"
    cfg["env"]["hints"] = None
    r = bench_train.measure(cfg, 3, "dummy", 1, rollout=10, iterations=1)
    assert (r["rollout_fps"], r["ppo_fps"]) == (9, 9)


def test_bench_meta_keeps_a_record_per_benchmark(tmp_path, monkeypatch):
    """bench_meta.json held only the Python version and time, overwritten by every run, so a
    --quick table beside full ones could not be told apart; each benchmark's record (quick,
    sizes, time) is now merged into the file, the top-level python and time kept."""
    import json

    monkeypatch.setattr(bench, "bench_engine", lambda states_per_config, hands: [
        {"what": "engine", "states_per_config": states_per_config, "hands": hands}])
    monkeypatch.setattr(bench, "bench_memory", lambda hands: [{"what": "memory",
                                                                "hands": hands}])
    assert bench.main(["memory", "--out", str(tmp_path)]) == 0
    assert bench.main(["--quick", "engine", "--out", str(tmp_path)]) == 0
    meta = json.loads((tmp_path / "bench_meta.json").read_text())
    assert {"python", "time"} <= set(meta)
    runs = meta["benchmarks"]
    assert runs["memory"]["quick"] is False and runs["memory"]["sizes"] == {"hands": 40_000}
    assert runs["engine"]["quick"] is True
    assert runs["engine"]["sizes"] == {"states_per_config": 300, "hands": 5}
    assert all({"time", "python"} <= set(r) for r in runs.values())
    assert "states_per_config,hands" in (tmp_path / "bench_engine.csv").read_text()
