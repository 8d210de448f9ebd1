"""DAgger for behaviour cloning: the student plays, the teacher labels the states it reaches.
The training env answers each agent with its own move in a state; with beta = 1 collection is
exactly the teacher's; with beta = 0 the labels stay the teacher's choices while the states
follow the student; a run with a DAgger round adds the round's decisions, logs it and plays."""

from __future__ import annotations

import csv

import gymnasium  # noqa: F401  (before casino_env.single)
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("torch")

from bc_helpers import bc_config  # noqa: E402

from agents import make_agent, play_match  # noqa: E402
from agents.ppo import PPOAgent  # noqa: E402
from experiments import bc  # noqa: E402
from experiments.train import env_kwargs, train  # noqa: E402
from experiments.train_env import TrainEnv  # noqa: E402


@pytest.fixture(scope="module")
def student(tmp_path_factory) -> tuple:
    """A barely trained policy (one epoch on 100 heuristic decisions): it plays differently
    from the heuristic."""
    out = tmp_path_factory.mktemp("student")
    train(bc_config(), out / "m", out / "runs")
    agent = PPOAgent.load(out / "m" / "model.zip")
    return agent.policy, agent.env_config


def test_expert_action_answers_each_agent_with_its_own_move():
    env = TrainEnv(variant="casino", action_mode="enumerate", dict_obs=True,
                   opponent="random", auto_forced=False)
    env.reset(seed=2)
    greedy, heuristic = make_agent("greedy"), make_agent("heuristic")
    differed = 0
    for _ in range(80):
        g = env.expert_action(greedy)
        h = env.expert_action(heuristic)
        assert env.raw._moves[g] == greedy.act(env.raw.state, env.seat)
        assert env.raw._moves[h] == heuristic.act(env.raw.state, env.seat)
        assert env.expert_action(greedy) == g  # asked again in the same state: same answer
        differed += g != h
        _, _, terminated, _, _ = env.step(h)
        if terminated:
            env.reset()
    assert differed > 0  # the two agents disagree somewhere, so a shared answer would fail


def test_beta_one_is_the_teachers_own_collection(student):
    kw = env_kwargs(bc_config(), ["greedy"])
    plain = bc.collect(kw, "heuristic", 80, explore=0.0, seed=3, progress=False)
    mixed = bc.collect(kw, "heuristic", 80, explore=0.0, seed=3, progress=False,
                       student=student, beta=1.0)
    for k, v in vars(plain).items():
        if v is not None:
            np.testing.assert_array_equal(getattr(mixed, k), v)


def test_student_states_teacher_labels(student):
    """beta = 0: every label is the heuristic's choice in its state (the hints' chosen-move
    column), yet the states differ from the teacher's own play."""
    kw = env_kwargs(bc_config(), ["greedy"])
    plain = bc.collect(kw, "heuristic", 80, explore=0.0, seed=3, progress=False)
    dagger = bc.collect(kw, "heuristic", 80, explore=0.0, seed=3, progress=False,
                        student=student, beta=0.0)
    assert len(dagger) == 80
    for i in range(len(dagger)):
        assert dagger.hints[dagger.start[i] + dagger.action[i], 2] == 1
    assert not np.array_equal(plain.obs, dagger.obs)
    with pytest.raises(ValueError, match="beta must be in"):
        bc.collect(kw, "heuristic", 10, student=student, beta=1.5, progress=False)


def test_run_with_a_dagger_round_adds_its_decisions_and_plays(tmp_path):
    demos_path = tmp_path / "all.npz"
    cfg = bc_config(epochs=2, dagger_rounds=1, dagger_decisions=60, save_demos=str(demos_path))
    log = train(cfg, tmp_path / "out", tmp_path / "runs")
    assert log["bc"]["decisions"] == 160
    assert [r["decisions"] for r in log["bc"]["dagger"]] == [60]
    assert len(bc.load_demos(str(demos_path))) == 160  # saved after the rounds
    with (tmp_path / "out" / "bc_curve.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["epoch"], r["round"]) for r in rows] == [("1", "0"), ("2", "0"), ("3", "1"),
                                                        ("4", "1")]
    res = play_match([make_agent(f"ppo:{tmp_path / 'out' / 'model.zip'}", seed=0), "random"],
                     "casino", 2, deals=2, seed=0, mode="hand")
    assert len(res.records) == 4


def test_dagger_refits_from_the_initial_weights(tmp_path):
    """Each round's policy is fitted afresh to all decisions so far: the same weights as a run
    fitting the saved aggregate from the start; ``dagger_continue`` keeps fitting instead."""
    import torch

    saved = tmp_path / "all.npz"
    train(bc_config(epochs=2, dagger_rounds=1, dagger_decisions=60, save_demos=str(saved)),
          tmp_path / "a", tmp_path / "ra")
    train(bc_config(epochs=2, load_demos=str(saved)), tmp_path / "b", tmp_path / "rb")
    train(bc_config(epochs=2, dagger_rounds=1, dagger_decisions=60, dagger_continue=True),
          tmp_path / "c", tmp_path / "rc")
    a, b, c = (PPOAgent.load(tmp_path / d / "model.zip").policy.state_dict() for d in "abc")
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not all(torch.equal(a[k], c[k]) for k in a)
