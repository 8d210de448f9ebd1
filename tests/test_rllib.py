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
from experiments.rllib_train import build_config, env_settings, train  # noqa: E402

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
