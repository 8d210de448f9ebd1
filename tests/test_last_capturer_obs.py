"""The opt-in ``last_capturer`` observation segment (``last_capturer=True``): who captured last
this hand, as a relative-seat one-hot after ``flags``; off by default, where every layout and
every observation stays as it was (the shipped models read those)."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from pettingzoo.test import api_test

import casino_env
from agents.ppo import encode_view
from casino_env.encoding import Layout
from casino_env.engine import State, legal_moves
from casino_env.engine.play import play
from casino_env.engine.rules import make_rules
from casino_env.engine.view import PlayerView
from casino_env.single import CasinoEnv

# casino, seat 0 to move; seat 1 may capture the 5S with its 5D
SPEC = {"variant": "casino", "players": 2, "dealer": 1, "current": 0,
        "hands": [["3H", "8C"], ["5D", "KS"]], "table": ["5S", "9D"],
        "piles": [["10D"], ["7C"]], "stock": ["3C", "4C", "6C", "JC"]}
# docs/environment.md's position: swedish, one card each, five on the table, stock empty; no
# card can take anything, so the table goes to the last capturer at the hand's end
SWEDISH = {"variant": "swedish", "players": 2, "dealer": 1, "current": 0,
           "hands": [["2H"], ["3D"]], "table": ["9S", "10D", "JS", "QH", "KC"], "stock": [],
           "piles": [["4C", "5C"], ["6C", "7C"]]}


def segment(obs: np.ndarray, layout: Layout) -> list[float]:
    start, n = layout.offset["last_capturer"], layout.rules.players
    return [float(x) for x in obs[start:start + n]]


def encoded(st: State, seat: int, layout: Layout) -> np.ndarray:
    out = np.zeros(layout.size, np.float32)
    layout.encode(st, seat, out)
    return out


@pytest.mark.parametrize("kind", ["full", "compact"])
def test_the_segment_follows_flags_and_grows_the_layout_by_n(kind):
    for players in (2, 3, 4):
        r = make_rules("casino", players)
        for compose in (True, False):
            plain, on = Layout(r, compose, kind), Layout(r, compose, kind, last_capturer=True)
            assert on.size == plain.size + players
            assert "last_capturer" not in plain.offset
            names = [s[0] for s in on.segments]
            assert names[names.index("flags") + 1] == "last_capturer"
            assert on.offset["last_capturer"] == on.offset["flags"] + 3
            # the segments before it keep their offsets, those after shift by n
            for name, start, size, _ in plain.segments:
                shift = players if start > plain.offset["flags"] else 0
                assert on.offset[name] == start + shift and \
                    dict((s[0], s[2]) for s in on.segments)[name] == size


def test_default_sizes_are_the_documented_ones():
    r = make_rules("casino", 2)
    assert Layout(r, True).size == 1227 and Layout(r, True, "compact").size == 257
    assert Layout(r, True, last_capturer=True).size == 1229
    assert Layout(r, True, "compact", last_capturer=True).size == 259
    e = casino_env.env()
    assert e.observation_space("player_0")["observation"].shape == (1227,)
    assert casino_env.env(observation="compact").observation_space(
        "player_0")["observation"].shape == (257,)


@pytest.mark.parametrize("kind", ["full", "compact"])
def test_values_on_concrete_states(kind):
    st = State.from_spec(SPEC)
    lay = Layout(st.rules, True, kind, last_capturer=True)
    assert st.last_capturer is None
    assert segment(encoded(st, 0, lay), lay) == [0.0, 0.0]  # nobody has captured
    assert segment(encoded(st, 1, lay), lay) == [0.0, 0.0]
    # seat 0 trails its 3H, seat 1 takes the 5S with its 5D
    st = play(st, next(m for m in legal_moves(st) if m.kind == "trail" and "3H" in str(m)))
    st = play(st, next(m for m in legal_moves(st) if m.kind == "capture" and "5D" in str(m)))
    assert st.last_capturer == 1
    assert segment(encoded(st, 0, lay), lay) == [0.0, 1.0]  # relative seat 1 from seat 0
    assert segment(encoded(st, 1, lay), lay) == [1.0, 0.0]  # seat 1 itself
    # with the option off the encoding is that of the layout without it, value for value
    plain = Layout(st.rules, True, kind)
    a, b = encoded(st, 0, plain), encoded(st, 0, lay)
    cut = plain.offset["flags"] + 3
    np.testing.assert_array_equal(a[:cut], b[:cut])
    np.testing.assert_array_equal(a[cut:], b[cut + 2:])


def test_three_players_relative_seats():
    st = State.from_spec({**{k: v for k, v in SPEC.items() if k not in ("hands", "piles")},
                          "players": 3, "hands": [["3H"], ["5D"], ["KS"]],
                          "piles": [[], [], []], "last_capturer": 2})
    lay = Layout(st.rules, True, last_capturer=True)
    assert segment(encoded(st, 0, lay), lay) == [0.0, 0.0, 1.0]
    assert segment(encoded(st, 1, lay), lay) == [0.0, 1.0, 0.0]
    assert segment(encoded(st, 2, lay), lay) == [1.0, 0.0, 0.0]


def _hand_points(spec: dict) -> list[int]:
    st = State.from_spec(spec)
    while st.hand_points is None:
        st = play(st, legal_moves(st)[0], deal_next=False)
    return list(st.hand_points)


@pytest.mark.parametrize("kind", ["full", "compact"])
def test_the_swedish_position_is_told_apart_only_with_the_option(kind):
    """Two states that differ only in who captured last (docs/environment.md): the same
    observation without the option, different ones with it; and the hand's result differs."""
    a, b = ({**SWEDISH, "last_capturer": seat} for seat in (0, 1))
    assert _hand_points(a) != _hand_points(b)
    for last_capturer, differ in ((False, False), (True, True)):
        obs = []
        for spec in (a, b):
            e = casino_env.raw_env(variant="swedish", observation=kind,
                                   last_capturer=last_capturer)
            e.reset(options={"state": spec})
            obs.append(e.observe("player_0")["observation"].copy())
        assert (not np.array_equal(*obs)) == differ


def test_every_entry_point_accepts_it_and_its_space_matches():
    for kind, size in (("full", 1229), ("compact", 259)):
        for make in (casino_env.env, casino_env.raw_env):
            e = make(observation=kind, last_capturer=True)
            e.reset(seed=0)
            space = e.observation_space("player_0")["observation"]
            assert space.shape == (size,) and e.observe("player_0")["observation"].shape == \
                (size,)
            assert space.contains(e.observe("player_0")["observation"])
        env = CasinoEnv(observation=kind, last_capturer=True)
        obs, _ = env.reset(seed=0)
        assert env.observation_space.shape == (size,) and obs.shape == (size,)
        g = gym.make("casino_env/Royal-v0", observation=kind, last_capturer=True)
        obs, _ = g.reset(seed=0)
        assert g.observation_space.shape == (size,) and obs.shape == (size,)
    assert "last_capturer" in casino_env.aec.RAW_ENV_ARGS
    assert "last_capturer" in casino_env.single.CASINO_ENV_ARGS


def test_train_env_and_the_rllib_wrapper_take_it():
    from casino_env.rllib import RLlibObservations, split_env_config
    from experiments.train_env import TrainEnv

    env = TrainEnv(observation="compact", last_capturer=True)
    assert env.observation_space.shape == (259,)
    kwargs, _ = split_env_config({"variant": "casino", "last_capturer": True})
    wrapped = RLlibObservations(casino_env.env(**kwargs))
    assert wrapped.observation_space("player_0")["observations"].shape == (1229,)


@pytest.mark.parametrize("bad", [1, 0, "yes", None, 1.0, [True]])
def test_a_non_bool_is_refused_naming_the_argument(bad):
    for make in (casino_env.env, casino_env.raw_env, CasinoEnv):
        with pytest.raises(ValueError, match="last_capturer must be True or False"):
            make(last_capturer=bad)
    with pytest.raises(ValueError, match="last_capturer"):
        gym.make("casino_env/Casino-v0", last_capturer=bad)
    with pytest.raises(ValueError, match="last_capturer"):
        Layout(make_rules("casino", 2), True, last_capturer=bad)


def test_numpy_bools_are_accepted():
    assert casino_env.raw_env(last_capturer=np.bool_(True)).layout.size == 1229


def test_default_observations_are_unchanged():
    """Off (the default, or False given) every observation equals the plain layout's."""
    a, b = casino_env.raw_env(), casino_env.raw_env(last_capturer=False)
    a.reset(seed=5)
    b.reset(seed=5)
    lay = Layout(a.rules, True)
    for _ in range(40):
        if not a.agents:
            break
        agent = a.agent_selection
        oa, ob = a.observe(agent), b.observe(agent)
        np.testing.assert_array_equal(oa["observation"], ob["observation"])
        assert oa["observation"].shape == (1227,)
        if not a.layout.size == lay.size:
            raise AssertionError("default layout changed")
        action = int(np.flatnonzero(oa["action_mask"])[0])
        a.step(action)
        b.step(action)


def test_pettingzoo_api_test_with_the_option():
    api_test(casino_env.env(last_capturer=True), num_cycles=200)
    api_test(casino_env.env(observation="compact", action_mode="enumerate",
                            last_capturer=True), num_cycles=200)


def test_env_agrees_with_the_view_encoding_through_a_hand():
    """The env's observation and ``encode_view`` (what PPOAgent reads) agree, last capturer
    included, at every decision of a hand."""
    e = casino_env.raw_env(action_mode="enumerate", last_capturer=True)
    e.reset(seed=2)
    seen, rng = set(), np.random.default_rng(0)
    buf = np.zeros(e.layout.size, np.float32)
    while e.agents:
        agent = e.agent_selection
        seat = e._seat[agent]
        if e.terminations[agent] or e.truncations[agent]:
            e.step(None)
            continue
        obs = e.observe(agent)
        np.testing.assert_array_equal(obs["observation"],
                                      encode_view(e.layout, PlayerView(e.state, seat), buf))
        seen.add(e.state.last_capturer)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert seen - {None}  # someone captured during the hand


# -- saved models -------------------------------------------------------------------------------

def _compose_model(tmp_path, last_capturer: bool | None):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from agents.ppo import save_env_config

    kw = {} if last_capturer is None else {"last_capturer": last_capturer}
    env = CasinoEnv("casino", opponent="random", observation="compact", **kw)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1,
                                    seed=0, device="cpu")
    path = tmp_path / "model.zip"
    model.save(path)
    config = {"variant": "casino", "players": 2, "action_mode": "compose", "max_moves": 128,
              "auto_forced": True, "observation": "compact", **kw}
    save_env_config(path, config)
    if last_capturer is None:  # a side-car written before the option: no key at all
        side = path.with_suffix(".json")
        data = json.loads(side.read_text())
        data.pop("last_capturer", None)
        side.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("flag,size", [(None, 257), (False, 257), (True, 259)])
def test_ppo_agent_rebuilds_the_layout_from_its_side_car(tmp_path, flag, size):
    from agents import RandomAgent
    from agents.ppo import PPOAgent
    from agents.tournament import play_game

    path = _compose_model(tmp_path, flag)
    agent = PPOAgent.load(path, seed=0)
    assert agent.layout.size == size
    assert ("last_capturer" in agent.layout.offset) == bool(flag)
    final, hands, _, _ = play_game([agent, RandomAgent(1)], "casino", seed=4, mode="hand")
    assert final.hand_points is not None and len(hands) == 1
    # the other setting does not fit the policy
    with pytest.raises(ValueError, match=f"expects observations of size {size}"):
        PPOAgent(agent.policy, {**agent.env_config, "last_capturer": not flag})


def test_ppo_side_car_with_a_non_bool_is_refused():
    from agents.ppo import check_env_config

    with pytest.raises(ValueError, match="model.json: last_capturer must be True or False"):
        check_env_config({"variant": "casino", "players": 2, "action_mode": "compose",
                          "last_capturer": "yes"}, "model.json")


def test_every_committed_ppo_side_car_loads_without_it():
    """The committed models were saved before the option: they read as last_capturer=False."""
    from pathlib import Path

    from agents.ppo import ENV_KEYS

    root = Path(__file__).resolve().parents[1]
    cars = [p for p in root.glob("experiments/**/*.json")
            if p.with_suffix(".zip").is_file()]
    assert cars
    for side in cars:
        data = json.loads(side.read_text())
        if set(data) <= set(ENV_KEYS) and "variant" in data:
            assert not data.get("last_capturer")
    pytest.importorskip("sb3_contrib")
    from agents.ppo import PPOAgent

    agent = PPOAgent.load(root / "experiments/results/scratch/casino_s0/model.zip", seed=0)
    assert "last_capturer" not in agent.layout.offset


def test_training_records_it():
    from experiments.rllib_train import env_settings
    from experiments.train import DEFAULTS, env_config, env_kwargs, load_config

    assert DEFAULTS["env"]["last_capturer"] is False
    cfg = load_config(overrides={"env": {"last_capturer": True, "action_mode": "compose"}})
    assert env_config(cfg)["last_capturer"] is True
    assert env_kwargs(cfg)["last_capturer"] is True
    assert env_config(load_config())["last_capturer"] is False
    assert "last_capturer" not in env_settings("casino", 2)  # old run settings read the same
    assert env_settings("casino", 2, last_capturer=True)["last_capturer"] is True
