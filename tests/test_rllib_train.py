"""experiments/rllib_train.py's console line and learning curve (issue 16 item 10), on fake
``Algorithm.train()`` results: no Ray training here (tests/test_rllib.py runs one iteration)."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("torch")
pytest.importorskip("ray")

from experiments import rllib_train  # noqa: E402
from experiments.rllib_train import metrics_row, progress_line  # noqa: E402

AGENTS = ["player_0", "player_1"]


def fake_result(iteration: int, episodes: int, trained: bool = True) -> dict:
    """What ``Algorithm.train()`` returns, reduced to the keys rllib_train reads."""
    runners: dict = {"num_env_steps_sampled": 512, "num_episodes": episodes}
    if episodes:
        runners.update(episode_len_mean=120.5,
                       agent_episode_returns_mean={"player_0": 1.25, "player_1": -1.25})
    learners = {"shared": {"num_module_steps_trained": 512, "policy_loss": -0.01234,
                           "vf_loss": 0.56789, "entropy": 1.2345,
                           "mean_kl_loss": 0.002}} if trained else {}
    return {"training_iteration": iteration, "num_env_steps_sampled_lifetime": 512 * iteration,
            "env_runners": runners, "learners": learners}


def test_an_iteration_without_a_finished_episode_says_so():
    """Was: `return player_0=+nan player_1=+nan`; the losses were missing."""
    row = metrics_row(fake_result(1, 0), AGENTS, ["shared"], 2.04, 2.04)
    assert math.isnan(row["return_mean_player_0"])
    assert progress_line(row, AGENTS, ["shared"]) == (
        "iter   1  steps      512  episodes    0  no finished episodes  "
        "loss shared: policy -0.0123 value 0.5679 entropy 1.234  illegal 0  2.0s")


def test_the_line_shows_returns_and_every_policys_losses():
    row = metrics_row(fake_result(2, 4), AGENTS, ["shared"], 1.5, 3.5)
    assert progress_line(row, AGENTS, ["shared"]) == (
        "iter   2  steps     1024  episodes    4  len  120.5  return player_0=+1.25 "
        "player_1=-1.25  loss shared: policy -0.0123 value 0.5679 entropy 1.234  "
        "illegal 0  1.5s")
    # a policy the learners did not update in this iteration
    row = metrics_row(fake_result(2, 4, trained=False), AGENTS, AGENTS, 1.5, 3.5)
    assert progress_line(row, AGENTS, AGENTS).endswith(
        "loss player_0: no update; player_1: no update  illegal 0  1.5s")


def test_help_promises_what_the_line_prints():
    help_text = rllib_train.__doc__
    assert "per-policy losses (policy, value, entropy)" in help_text
    assert "no finished episodes" in help_text and "learning_curve.png" in help_text


class FakeAlgo:
    """Stands in for the built PPO algorithm: ``train()`` gives the fake results in turn."""

    def __init__(self, results: list[dict]) -> None:
        self.results = iter(results)
        self.env_runner_group = SimpleNamespace(
            foreach_env_runner=lambda fn, local_env_runner: [0])
        self.stopped = False

    def train(self) -> dict:
        return next(self.results)

    def stop(self) -> None:
        self.stopped = True


def test_train_writes_the_learning_curve_csv_and_png(tmp_path: Path):
    """Like experiments.train, each run leaves learning_curve.csv and .png (returns per seat
    and each policy's losses over env steps) beside metrics.csv/json."""
    algo = FakeAlgo([fake_result(1, 0), fake_result(2, 3), fake_result(3, 5)])
    config = SimpleNamespace(
        env_config={"variant": "casino", "players": 2}, policies={"shared"},
        policy_mapping_fn=lambda agent, episode: "shared", train_batch_size_per_learner=512,
        minibatch_size=128, num_epochs=1, lr=3e-4, num_env_runners=0,
        build_algo=lambda: algo)
    lines: list[str] = []
    summary = rllib_train.train(config, 3, tmp_path, log=lines.append)
    assert algo.stopped and summary["illegal_actions_total"] == 0
    assert ["no finished episodes" in line for line in lines] == [True, False, False]
    assert all("return player_0=+1.25 player_1=-1.25" in line for line in lines[1:])
    with (tmp_path / "learning_curve.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == rllib_train.curve_fields(AGENTS, ["shared"])
    assert [r["env_steps_total"] for r in rows] == ["512", "1024", "1536"]
    assert [r["return_mean_player_0"] for r in rows] == ["nan", "1.25", "1.25"]
    assert rows[2]["shared_vf_loss"] == "0.56789"
    png = (tmp_path / "learning_curve.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5000
    assert (tmp_path / "metrics.csv").exists() and (tmp_path / "metrics.json").exists()
