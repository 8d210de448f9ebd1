"""The ``rllib:PATH`` agent (agents/rllib_agent.py): one tiny RLlib PPO iteration per run (as
tests/test_rllib.py), its checkpoint loaded as an agent that sees exactly what the RLlib env
shows its seat, plays the argmax of the policy's masked logits (legal and deterministic),
refuses another game, names what is missing, and plays a short match; the run's periodic
evaluation goes through this agent."""

from __future__ import annotations

import csv
import json
import os
import random
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("ray.rllib")

import ray  # noqa: E402

from agents import make_agent, play_match  # noqa: E402
from agents.registry import known_agents  # noqa: E402
from agents.rllib_agent import RLlibAgent, resolve_checkpoint  # noqa: E402
from casino_env.encoding import Composer, overflow_order  # noqa: E402
from casino_env.engine import apply_move, legal_moves, new_game  # noqa: E402
from casino_env.engine.rules import make_rules  # noqa: E402
from casino_env.engine.view import PlayerView  # noqa: E402
from casino_env.rllib import SETTINGS, list_checkpoints, rllib_env  # noqa: E402
from experiments.rllib_train import (  # noqa: E402
    CURVE_FIELDS,
    RunOptions,
    build_config,
    env_settings,
    train,
)

HANDS = {"random": 4, "greedy": 2, "heuristic": 2}


def raises(message: str):
    """``pytest.raises(ValueError)`` matching ``message`` exactly (as a whole string)."""
    return pytest.raises(ValueError, match=f"^{re.escape(message)}$")


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


@pytest.fixture(scope="module")
def shared_run(local_ray, tmp_path_factory) -> Path:
    """One iteration of self-play (one shared policy, compose mode, compact observation,
    scaled reward) with evaluations at step 0 and at the end, through the rllib agent."""
    out = tmp_path_factory.mktemp("rllib_shared")
    config = build_config(env_settings("casino", 2, observation="compact", reward_scale=0.1),
                          "shared", batch=256, minibatch=128, epochs=1, hidden=(32, 32), seed=3)
    train(config, 1, out, log=None, run=RunOptions(eval_every=10**9, eval_hands=HANDS))
    return out


@pytest.fixture(scope="module")
def per_seat_run(local_ray, tmp_path_factory) -> Path:
    """One iteration with a policy per seat in enumerate mode, a checkpoint at the end."""
    out = tmp_path_factory.mktemp("rllib_per_seat")
    config = build_config(env_settings("casino", 2, "enumerate", max_moves=16), "per-seat",
                          batch=256, minibatch=128, epochs=1, hidden=(32, 32), seed=4)
    train(config, 1, out, checkpoint=True, log=None)
    return out


# -- the run's files ---------------------------------------------------------------------------

def test_the_run_writes_checkpoints_an_exported_model_and_the_learning_curve(shared_run):
    checkpoints = list_checkpoints(shared_run / "checkpoints")
    assert [p.name for p in checkpoints][0] == "step_0"  # evaluated before training
    assert len(checkpoints) == 2 and checkpoints[1].name.startswith("step_")
    settings = json.loads((checkpoints[-1] / SETTINGS).read_text())
    assert settings["env_config"] == {"variant": "casino", "players": 2,
                                      "action_mode": "compose", "observation": "compact",
                                      "reward_scale": 0.1}
    assert settings["policies"] == ["shared"]
    assert settings["policy_mapping"] == {"player_0": "shared", "player_1": "shared"}
    model = shared_run / "model"
    assert sorted(p.name for p in model.iterdir()) == [SETTINGS, "shared"]
    assert (model / SETTINGS).read_text() == (checkpoints[-1] / SETTINGS).read_text()
    with (shared_run / "learning_curve.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == list(CURVE_FIELDS)
    steps = int(checkpoints[-1].name.removeprefix("step_"))
    assert [(int(r["timesteps"]), r["phase"], r["opponent"], int(r["hands"])) for r in rows] == [
        (0, "init", "random", 4), (0, "init", "greedy", 2), (0, "init", "heuristic", 2),
        (steps, "ppo", "random", 4), (steps, "ppo", "greedy", 2),
        (steps, "ppo", "heuristic", 2)]
    for r in rows:
        assert int(r["wins"]) + int(r["draws"]) + int(r["losses"]) == int(r["hands"])
        assert float(r["wilson_lo"]) <= float(r["win_rate"]) <= float(r["wilson_hi"])
    assert (shared_run / "learning_curve.png").read_bytes().startswith(b"\x89PNG")


def test_paths_resolve_to_the_model_or_the_latest_checkpoint(shared_run, tmp_path):
    latest = list_checkpoints(shared_run / "checkpoints")[-1]
    assert resolve_checkpoint(shared_run) == shared_run / "model"
    assert resolve_checkpoint(shared_run / "model" / SETTINGS) == shared_run / "model"
    assert resolve_checkpoint(latest) == latest
    assert resolve_checkpoint(shared_run / "checkpoints") == latest
    run = tmp_path / "run"  # a run still going: no model/ yet
    shutil.copytree(shared_run / "checkpoints", run / "checkpoints")
    assert resolve_checkpoint(run) == run / "checkpoints" / latest.name
    assert RLlibAgent(run).folder == run / "checkpoints" / latest.name


# -- what the agent sees and plays --------------------------------------------------------

def _walk(env, rng: np.random.Generator, hands: int, check) -> int:
    """Step the RLlib env with random legal actions for ``hands`` hands, calling
    ``check(raw_env, observation)`` at every decision; returns the decisions seen."""
    raw = env.env.unwrapped
    n = 0
    for seed in range(hands):
        obs, _ = env.reset(seed=seed)
        while True:
            (agent, o), = obs.items()
            check(raw, o)
            n += 1
            action = int(rng.choice(np.flatnonzero(o["action_mask"])))
            obs, _, terminated, truncated, _ = env.step({agent: action})
            if terminated["__all__"] or truncated["__all__"]:
                break
    return n


def test_the_agent_sees_what_the_env_shows_its_seat_compose(shared_run):
    agent = make_agent(f"rllib:{shared_run}", seed=0)
    env = rllib_env(agent.env_config)

    def check(raw, o):
        view = PlayerView(raw.state, raw.state.current)
        state = view.determinize(random.Random(len(raw._composer.prefix)))
        comp = Composer(view.state, view.legal_moves())  # as the agent composes
        for token in raw._composer.prefix:
            comp.push(token)
        mine = agent.observation(state, composer=comp)
        assert mine["observations"].dtype == np.float32
        np.testing.assert_array_equal(mine["observations"], o["observations"])
        np.testing.assert_array_equal(mine["action_mask"], o["action_mask"])

    assert _walk(env, np.random.default_rng(0), 3, check) == 434  # sub-actions of 3 hands


def _stand_in(env_config: dict, seed: int = 0) -> RLlibAgent:
    """An ``RLlibAgent`` for ``env_config`` whose network is a fixed random linear map of the
    observation (no training, no checkpoint): for games no test run trains."""
    import casino_env
    from agents.base import Agent
    from casino_env.rllib import split_env_config

    agent = RLlibAgent.__new__(RLlibAgent)
    Agent.__init__(agent, seed)
    raw = casino_env.raw_env(**split_env_config(env_config)[0])
    agent.env_config, agent.rules, agent.layout = dict(env_config), raw.rules, raw.layout
    agent.compose, agent.max_moves, agent.n_actions = raw.compose, raw.max_moves, raw.n_actions
    agent.seat_policy = ["shared"] * raw.rules.players
    agent._obs = np.zeros(agent.layout.size, np.float32)
    weights = np.random.default_rng(seed).normal(size=(agent.n_actions, agent.layout.size))
    agent.logits = lambda obs, policy: weights @ obs["observations"][:agent.layout.size]
    return agent


def test_the_agent_sees_what_the_env_shows_its_seat_krypkasino_compose():
    """Two decks: the dealt state numbers the copies afresh, yet the agent's observation and
    mask (composing over the view's own moves) are the env's at every sub-action."""
    agent = _stand_in({"variant": "krypkasino", "players": 2})
    env = rllib_env(agent.env_config)

    def check(raw, o):
        view = PlayerView(raw.state, raw.state.current)
        state = view.determinize(random.Random(len(raw._composer.prefix)))
        comp = Composer(view.state, view.legal_moves())
        for token in raw._composer.prefix:
            comp.push(token)
        mine = agent.observation(state, composer=comp)
        np.testing.assert_array_equal(mine["observations"], o["observations"])
        np.testing.assert_array_equal(mine["action_mask"], o["action_mask"])

    assert _walk(env, np.random.default_rng(2), 1, check) > 100


def _argmax_moves(agent, env, seed: int, deal_next: bool = True) -> int:
    """Drive ``env`` from ``reset(seed)`` to the episode's end with the policy's argmax
    sub-action at every step, checking that each move made is the one the agent chooses from
    its view; the number of moves."""
    raw = env.env.unwrapped
    obs, _ = env.reset(seed=seed)
    done, moves = False, 0
    while not done:
        before = raw.state
        expected = agent.act(before)
        assert expected in legal_moves(before)
        while raw.state is before and not done:
            (name, o), = obs.items()
            legal = np.flatnonzero(o["action_mask"])
            action = int(legal[np.argmax(agent.logits(o, "shared")[legal])])
            obs, _, terminated, truncated, _ = env.step({name: action})
            done = terminated["__all__"] or truncated["__all__"]
        assert raw.state == apply_move(before, expected, deal_next=deal_next)
        moves += 1
    return moves


def test_the_agent_plays_krypkasino_compose_as_the_env_argmax():
    """With two decks the agent composes a legal move at every decision (it failed on 74 of
    200 with 'cannot continue any legal move': its composer mixed the dealt state's copies
    with the view's moves), the move the env makes from the same argmax sub-actions."""
    agent = _stand_in({"variant": "krypkasino", "players": 2}, seed=1)
    assert _argmax_moves(agent, rllib_env(agent.env_config), 4, deal_next=False) >= 20


def test_the_agent_sees_what_the_env_shows_its_seat_enumerate(per_seat_run):
    agent = make_agent(f"rllib:{per_seat_run}", seed=0)
    env = rllib_env(agent.env_config)

    def check(raw, o):
        view = PlayerView(raw.state, raw.state.current)
        moves = view.legal_moves()
        slots = overflow_order(moves)[:16] if len(moves) > 16 else moves
        mine = agent.observation(view.determinize(random.Random(1)), moves=slots)
        np.testing.assert_array_equal(mine["observations"], o["observations"])
        np.testing.assert_array_equal(mine["action_mask"], o["action_mask"])

    assert _walk(env, np.random.default_rng(1), 3, check) == 144  # 3 hands of 48 moves


def test_the_agent_plays_the_argmax_of_the_masked_logits(shared_run):
    """Driving the env with the policy's argmax sub-action at every step makes exactly the
    moves the agent chooses from its view."""
    agent = make_agent(f"rllib:{shared_run}", seed=5)
    env = rllib_env(agent.env_config)
    moves = sum(_argmax_moves(agent, env, seed) for seed in range(2))
    # A hand is 48 moves, or fewer when the table reaches 24 cards (max_table; an untrained
    # policy that only trails): at least 20 moves each.
    assert moves >= 40


def test_the_agent_is_deterministic_and_legal(shared_run):
    a, b = make_agent(f"rllib:{shared_run}", seed=1), make_agent(f"rllib:{shared_run}", seed=2)
    st = new_game("casino", 2, seed=11)
    for _ in range(40):
        move = a.act(st)
        assert move in legal_moves(st) and b.act(st) == move and a.act(st) == move
        st = apply_move(st, move)
        if st.hand_points is not None:
            break
    first = play_match([f"rllib:{shared_run}", "random"], "casino", 2, deals=3, seed=7,
                       mode="hand")
    again = play_match([f"rllib:{shared_run}", "random"], "casino", 2, deals=3, seed=7,
                       mode="hand")
    assert len(first.records) == 6 and all(g.hands == 1 for g in first.records)
    assert [(g.seats, g.points, g.winner, g.moves) for g in first.records] == \
        [(g.seats, g.points, g.winner, g.moves) for g in again.records]
    assert {g.moves for g in first.records} == {48}


def test_per_seat_policies_and_the_policy_option(per_seat_run):
    both = make_agent(f"rllib:{per_seat_run}")
    assert both.seat_policy == ["player_0", "player_1"] and both.policies == both.seat_policy
    one = make_agent(f"rllib:{per_seat_run},policy=player_1")
    assert one.seat_policy == ["player_1", "player_1"] and list(one.modules) == ["player_1"]
    with raises(f"rllib:{per_seat_run}: no policy 'shared' in the checkpoint (policies: "
                "player_0, player_1)"):
        make_agent(f"rllib:{per_seat_run},policy=shared")
    r = play_match([f"rllib:{per_seat_run},policy=player_0", "greedy"], "casino", 2, deals=1,
                   seed=0, mode="hand")
    assert len(r.records) == 2 and all(g.moves == 48 for g in r.records)


# -- refusals and errors ---------------------------------------------------------------------

def test_another_game_is_refused(shared_run):
    agent = make_agent(f"rllib:{shared_run}")
    assert agent.rules == make_rules("casino", 2)
    agent.check_rules(make_rules("casino", 2))
    with raises("this policy was trained on casino 2p, this game is royal 2p"):
        agent.check_rules(make_rules("royal", 2))
    with raises("this policy was trained on casino 2p, this game is casino 3p"):
        play_match([agent, "random", "random"], "casino", 3, deals=1, seed=0, mode="hand")
    with raises("this policy was trained on casino 2p, this game is royal 2p"):
        agent.act(new_game("royal", 2, seed=0))


def test_missing_and_broken_checkpoints_are_named(shared_run, tmp_path):
    with raises(f"rllib checkpoint not found: {tmp_path / 'nowhere'}"):
        make_agent(f"rllib:{tmp_path / 'nowhere'}")
    with raises(f"rllib checkpoint not found in {tmp_path}: no {SETTINGS} "
                "(experiments/rllib_train.py writes it into every checkpoint and exported "
                "model), no model/ and no complete checkpoints/step_<n>/"):
        make_agent(f"rllib:{tmp_path}")
    (tmp_path / "notes.txt").write_text("x")
    with raises("rllib:PATH takes a checkpoint or run folder written by "
                f"experiments/rllib_train.py, got the file {tmp_path / 'notes.txt'}"):
        make_agent(f"rllib:{tmp_path / 'notes.txt'}")
    model = tmp_path / "model"
    shutil.copytree(shared_run / "model", model)
    shutil.rmtree(model / "shared")
    with raises(f"rllib checkpoint {model}: the module of policy 'shared' is not there "
                f"({model / 'shared'})"):
        make_agent(f"rllib:{model}")
    (model / SETTINGS).write_text("{not json")
    with pytest.raises(ValueError, match=f"^rllib checkpoint settings {re.escape(str(model))}"
                                         f"/{SETTINGS} do not read: JSONDecodeError"):
        make_agent(f"rllib:{model}")
    with raises("agent 'rllib:': give rllib:PATH, e.g. rllib:runs/rllib/casino"):
        make_agent("rllib:")
    with raises("unknown option 'polcy' for agent 'rllib:PATH' (known: policy); did you "
                "mean 'policy'?"):
        make_agent(f"rllib:{shared_run},polcy=shared")
    assert "rllib:PATH" in known_agents()


def test_a_relative_checkpoint_path_loads(shared_run, monkeypatch):
    """A run given as a relative path (the documented commands use ``runs/rllib/...``) loads:
    RLlib's checkpoint reader (pyarrow) refuses a relative path, so the agent resolves it
    (a relative --runs made the first evaluation of a training run fail)."""
    monkeypatch.chdir(shared_run.parent)
    agent = RLlibAgent(shared_run.name)
    st = new_game("casino", 2, seed=5)
    assert agent.act(st, st.current) in legal_moves(st)
