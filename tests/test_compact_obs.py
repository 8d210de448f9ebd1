"""The compact observation layout (``observation="compact"``): what each signed per-card plane
holds on a known position, that it hides what the player cannot see, and that the AEC env,
the single-agent view and PPOAgent build the same vectors."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

import casino_env
from agents.ppo import encode_view
from casino_env.encoding import BUILD, CAPTURE, PLAY, SELECT, VALUE, Layout
from casino_env.engine.cards import STANDARD
from casino_env.engine.rules import make_rules
from casino_env.engine.view import PlayerView
from casino_env.single import CasinoEnv

IX = STANDARD.index
SPEC = {"variant": "casino", "players": 2, "hands": [["3H", "8C", "4H"], ["2S", "4S"]],
        "table": ["5S", "9D", {"cards": ["AD", "3S"], "value": 4, "owner": 1}],
        "piles": [["10D", "QH"], ["7C"]], "stock": ["3C", "4C", "5C", "6C"]}


def plane(obs: np.ndarray, layout: Layout, name: str) -> dict[str, float]:
    """The non-zero slots of a 52-card plane, by card name."""
    start = layout.offset[name]
    return {STANDARD.names[c]: float(obs[start + c]) for c in range(52) if obs[start + c]}


def observe(spec: dict, agent: str = "player_0", **kw) -> tuple[np.ndarray, Layout]:
    e = casino_env.raw_env(observation="compact", **kw)
    e.reset(options={"state": spec})
    return e.observe(agent)["observation"], e.layout


def test_compact_layout_is_a_quarter_of_the_full_one():
    r = make_rules("casino", 2)
    assert Layout(r, True, "compact").size == 257 and Layout(r, True).size == 1227
    assert Layout(r, False, "compact").size == 201
    # segments the rules cannot use are left out; those that can appear are kept
    assert "proven" not in Layout(r, True, "compact").offset
    assert "proven" in Layout(make_rules("casino", 4, True, {"partner_build": True}), True,
                              "compact").offset
    assert "known_hands" in Layout(make_rules("hungarian", 2, None, {"nagy": True}), True,
                                   "compact").offset


def test_compact_planes_on_a_known_position():
    obs, lay = observe(SPEC)
    assert obs.shape == (257,) and obs.dtype == np.float32
    assert plane(obs, lay, "hand") == {"3H": 1.0, "8C": 1.0, "4H": 1.0}
    # loose cards 1, the cards of the build of 4 -4/14
    assert plane(obs, lay, "table") == pytest.approx(
        {"5S": 1.0, "9D": 1.0, "AD": -4 / 14, "3S": -4 / 14})
    assert plane(obs, lay, "piles") == {"10D": 1.0, "QH": 1.0, "7C": -1.0}
    o = lay.offset
    # build of 4 owned by the other seat: -1 in row 4 of the signed owner vector
    assert list(obs[o["build_owner"]:o["build_owner"] + 14]) == [0] * 3 + [-1] + [0] * 10
    assert obs[o["build_multiple"] + 3] == 0
    assert list(obs[o["hand_sizes"]:o["hand_sizes"] + 2]) == [3 / 8, 2 / 8]
    assert obs[o["stock"]] == pytest.approx(4 / 52)
    # seen from the other seat: own hand, piles' signs flip, build now "mine" (relative seat 0)
    obs1, _ = observe(SPEC, "player_1")
    assert plane(obs1, lay, "hand") == {"2S": 1.0, "4S": 1.0}
    assert plane(obs1, lay, "piles") == {"10D": -1.0, "QH": -1.0, "7C": 1.0}
    assert list(obs1[o["build_owner"]:o["build_owner"] + 14]) == [0] * 3 + [1] + [0] * 10


def test_compact_build_owner_tells_partner_from_opponent():
    """4 players in partnerships: own build 1, partner's 0.5, an opponent's -1."""
    spec = {"variant": "casino", "players": 4, "partnerships": True, "dealer": 3,
            "current": 0, "hands": [["3H"], ["4C"], ["6H"], ["2S"]],
            "table": ["5S", {"cards": ["AD", "3S"], "value": 4, "owner": 1},
                      {"cards": ["2D", "4D"], "value": 6, "owner": 2}], "stock": []}
    e = casino_env.raw_env(players=4, partnerships=True, observation="compact")
    e.reset(options={"state": spec})
    o = e.layout.offset["build_owner"]
    for agent, want4, want6 in (("player_0", -1, 0.5), ("player_1", 1, -1),
                                ("player_2", -1, 1), ("player_3", 0.5, -1)):
        obs = e.observe(agent)["observation"]
        assert (obs[o + 3], obs[o + 5]) == (want4, want6), agent


def test_compact_compose_marks_played_and_selected_cards():
    e = casino_env.raw_env(observation="compact")
    e.reset(options={"state": SPEC})
    lay = e.layout
    e.step(PLAY + IX["4H"])
    obs = e.observe("player_0")["observation"]
    assert plane(obs, lay, "hand") == {"3H": 1.0, "8C": 1.0, "4H": 0.5}
    e.step(CAPTURE)
    e.step(SELECT + IX["AD"])  # the build of 4, selected by its lowest card
    obs = e.observe("player_0")["observation"]
    assert plane(obs, lay, "c_selected") == {"AD": 1.0, "3S": 1.0}
    assert list(obs[lay.offset["c_kind"]:lay.offset["c_kind"] + 3]) == [0, 1, 0]  # capture
    # the cached base encoding is untouched by the compose marks
    e2 = casino_env.raw_env(observation="compact")
    e2.reset(options={"state": SPEC})
    e2.step(PLAY + IX["3H"])
    e2.step(BUILD)
    e2.step(VALUE + 7)
    obs = e2.observe("player_0")["observation"]
    assert obs[lay.offset["c_value"]] == pytest.approx(8 / 14)  # declared 8, one scalar
    assert plane(obs, lay, "hand") == {"3H": 0.5, "8C": 1.0, "4H": 1.0}
    assert e2.observe("player_1")["observation"][lay.offset["hand"] + IX["2S"]] == 1


def test_compact_observation_hides_the_other_hand_and_the_stock():
    other = {**SPEC, "hands": [["3H", "8C", "4H"], ["4D", "JD"]],
             "stock": ["2S", "4S", "5C", "3C"]}
    a, _ = observe(SPEC)
    b, _ = observe(other)
    np.testing.assert_array_equal(a, b)


def test_compact_env_passes_the_pettingzoo_api_test():
    api_test(casino_env.env(variant="royal", observation="compact"), num_cycles=100)


def test_single_agent_view_and_ppo_agent_encode_compact_the_same_way():
    env = CasinoEnv("casino", opponent="random", seat=0, observation="compact")
    obs, _ = env.reset(seed=3)
    assert env.observation_space.shape == (257,) and obs.shape == (257,)
    mine = encode_view(env.raw.layout, PlayerView(env.raw.state, 0), np.zeros(257, np.float32))
    np.testing.assert_array_equal(obs, mine)


def test_unknown_observation_kind_is_named():
    with pytest.raises(ValueError, match="observation must be one of full, compact"):
        casino_env.env(observation="tiny")
    with pytest.raises(ValueError, match="observation must be one of"):
        CasinoEnv("casino", observation="planes")


def test_ppo_agent_plays_a_model_trained_on_the_compact_view(tmp_path):
    """A MaskablePPO MLP trained a few steps on the compact single-agent view is saved with
    ``observation="compact"`` beside it; PPOAgent rebuilds the same observations and plays
    only legal moves (play_game checks every move against the engine)."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from agents import RandomAgent
    from agents.ppo import PPOAgent, save_env_config
    from agents.tournament import play_game

    env = CasinoEnv("casino", opponent="random", observation="compact")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1,
                                    seed=0, device="cpu")
    model.learn(64)
    path = tmp_path / "model.zip"
    model.save(path)
    save_env_config(path, {"variant": "casino", "players": 2, "action_mode": "compose",
                           "max_moves": 128, "auto_forced": True, "observation": "compact"})
    agent = PPOAgent.load(path, seed=0)
    assert agent.layout.size == 257
    final, hands, moves, _ = play_game([agent, RandomAgent(1)], "casino", seed=4, mode="hand")
    assert final.hand_points is not None and len(hands) == 1 and moves >= 48
    with pytest.raises(ValueError, match="expects observations of size 257"):
        PPOAgent(agent.policy, {**agent.env_config, "observation": "full"})


@pytest.mark.parametrize("observation", ["full", "compact"])
def test_compose_observations_match_a_fresh_encoding_at_every_sub_step(observation):
    """The env extends the mover's compose view one sub-action at a time; it must equal
    encoding the state and the whole prefix from scratch, whoever was observed in between."""
    e = casino_env.raw_env(variant="royal", observation=observation)
    e.reset(seed=11)
    lay, rng = e.layout, np.random.default_rng(0)
    fresh = np.zeros(lay.size, np.float32)
    for _ in range(600):
        if not e.agents:
            e.reset()
        agent = e.agent_selection
        other = next(a for a in e.possible_agents if a != agent)
        e.observe(other)  # rewrites the cached base view for the other seat
        obs = e.observe(agent)
        lay.encode(e.state, e._seat[agent], fresh)
        done = e.terminations[agent] or e.truncations[agent]
        if not done:  # (a finished hand shows no move in progress)
            lay.encode_compose(e.state, e._composer.prefix, fresh)
        np.testing.assert_array_equal(obs["observation"], fresh)
        e.step(None if done else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
