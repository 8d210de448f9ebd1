"""Ray RLlib: one PPO training iteration on a local Ray runtime through RLlib's PettingZoo
wrapper, with per-seat and shared policies; every sampled action is legal under the mask, both
seats' rewards arrive (zero-sum), each policy is trained, and results are written.
"""

from __future__ import annotations

import json
import math
import os
import time

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("ray.rllib")

import ray  # noqa: E402

from casino_env.rllib import (  # noqa: E402
    RLlibObservations,
    per_seat_policy,
    policies_for,
    rllib_env,
    shared_policy,
)
from experiments.rllib_train import (  # noqa: E402
    RunOptions,
    build_config,
    env_settings,
    train,
)

AGENTS = ["player_0", "player_1"]


@pytest.fixture(scope="module")
def local_ray():
    """A small local Ray runtime shared by this module's tests."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield
    if started:
        ray.shutdown()


def test_wrapper_gives_rllib_observations_and_counts_masked_out_actions():
    env = rllib_env({"variant": "casino", "players": 2})
    space = env.observation_space["player_0"]
    assert set(space.spaces) == {"observations", "action_mask"}
    assert space["action_mask"].dtype == np.float32
    obs, _ = env.reset(seed=3)
    (agent, o), = obs.items()
    assert space.contains(o) and o["action_mask"].dtype == np.float32
    inner = env.env
    assert isinstance(inner, RLlibObservations)
    # A legal action is not counted; a masked-out one is, and ends the hand with -1 for its taker.
    legal = int(np.flatnonzero(o["action_mask"])[0])
    obs, *_ = env.step({agent: legal})
    (agent, o), = obs.items()
    assert inner.illegal_actions == 0
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    obs, rewards, terminated, truncated, _ = env.step({agent: illegal})
    assert inner.illegal_actions == 1 and inner.total_illegal_actions == 1
    assert terminated["__all__"] and rewards[agent] == -1
    env.reset(seed=4)
    assert inner.illegal_actions == 0 and inner.total_illegal_actions == 1


def test_reward_scale_multiplies_what_rllib_reads():
    """The same deal and actions with reward_scale 0.1: every reward RLlib receives is a tenth
    (the AEC env's own rewards unchanged), and reward_scale is no casino_env.env argument."""
    def play(config: dict) -> list[float]:
        env = rllib_env(config)
        obs, _ = env.reset(seed=5)
        rng = np.random.default_rng(2)
        got: list[float] = []
        while True:
            (agent, o), = obs.items()
            action = int(rng.choice(np.flatnonzero(o["action_mask"])))
            obs, rewards, terminated, _, _ = env.step({agent: action})
            got.extend(rewards[a] for a in sorted(rewards))
            if terminated["__all__"]:
                return got

    plain = play({"variant": "casino", "players": 2})
    scaled = play({"variant": "casino", "players": 2, "reward_scale": 0.1})
    assert any(plain) and scaled == pytest.approx([r / 10 for r in plain])
    with pytest.raises(ValueError, match="^reward_scale must be a number > 0, got 0$"):
        rllib_env({"variant": "casino", "reward_scale": 0})


def test_enumerate_mode_puts_move_features_in_the_observation():
    env = rllib_env({"variant": "casino", "players": 2, "action_mode": "enumerate",
                     "max_moves": 16})
    raw = env.env.unwrapped
    space = env.observation_space["player_0"]
    assert space["observations"].shape == (raw.layout.size + 16 * 126,)
    assert space["action_mask"].shape == (16,)


def test_policy_mappings():
    assert policies_for("shared", AGENTS) == (["shared"], shared_policy)
    assert policies_for("per-seat", AGENTS) == (AGENTS, per_seat_policy)
    assert [per_seat_policy(a, None) for a in AGENTS] == AGENTS
    with pytest.raises(ValueError):
        policies_for("league", AGENTS)


@pytest.mark.parametrize("policies,mode", [("per-seat", "compose"), ("shared", "enumerate")])
def test_one_training_iteration(local_ray, tmp_path, policies, mode):
    config = build_config(env_settings("casino", 2, mode, max_moves=32), policies,
                          batch=512, minibatch=128, epochs=1, hidden=(64, 64), seed=1)
    t0 = time.perf_counter()
    summary = train(config, 1, tmp_path, log=None)
    assert time.perf_counter() - t0 < 60
    (row,) = summary["iterations"]
    assert row["iteration"] == 1
    assert row["env_steps"] >= 512 and row["env_steps_total"] >= 512
    # Hands are ~100-160 decisions in compose mode and ~48 in enumerate mode: some finished.
    assert row["episodes"] >= 1 and row["episode_len_mean"] >= 48
    # The masked policies never took a masked-out action (it would end the hand with -1).
    assert row["illegal_actions"] == 0 and summary["illegal_actions_total"] == 0
    # Both seats received their final reward, and the rewards are zero-sum.
    r0, r1 = row["return_mean_player_0"], row["return_mean_player_1"]
    assert math.isfinite(r0) and math.isfinite(r1) and abs(r0 + r1) < 1e-6
    expected = AGENTS if policies == "per-seat" else ["shared"]
    assert summary["policies"] == expected
    assert summary["policy_mapping"] == {a: (a if policies == "per-seat" else "shared")
                                         for a in AGENTS}
    for pid in expected:
        assert row[f"{pid}_steps_trained"] > 0
        for key in ("policy_loss", "vf_loss", "entropy"):
            assert math.isfinite(row[f"{pid}_{key}"]), (pid, key)
    saved = json.loads((tmp_path / "metrics.json").read_text())
    assert saved["iterations"][0]["env_steps"] == row["env_steps"]
    assert (tmp_path / "metrics.csv").read_text().startswith("iteration,env_steps,")


def test_resume_restores_the_algorithm_and_its_counters(local_ray, tmp_path):
    """A run stopped after one iteration continues from its checkpoint (Algorithm
    .restore_from_path): iteration 2 and the lifetime env steps go on from the first's."""
    config = build_config(env_settings("casino", 2), "shared", batch=256, minibatch=128,
                          epochs=1, hidden=(32, 32), seed=2)
    first = train(config, 1, tmp_path, log=None, run=RunOptions(checkpoint=True))
    (row,) = first["iterations"]
    assert first["checkpoint"] == str(tmp_path / "checkpoints" / f"step_{first['env_steps']}")
    lines: list[str] = []
    second = train(config, 2, tmp_path, log=lines.append,
                   run=RunOptions(checkpoint=True, resume=True))
    assert [r["iteration"] for r in second["iterations"]] == [1, 2]
    assert second["iterations"][0]["env_steps_total"] == row["env_steps_total"]  # (saved)
    assert second["iterations"][1]["env_steps_total"] == (
        row["env_steps_total"] + second["iterations"][1]["env_steps"])
    assert lines[0].startswith(f"resuming {tmp_path / 'checkpoints'} from step_")
    assert second["resumes"][0]["iteration"] == 1
