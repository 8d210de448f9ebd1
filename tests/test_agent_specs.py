"""Agent specs are checked where the agent is made (issue 16 item 3): names, option names,
option types and ranges, duplicates, malformed specs and PPO model files each raise a
ValueError naming the problem and what was expected, before any game starts."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from agents import HeuristicAgent, HeuristicParams, SearchAgent, make_agent, play_match
from agents.base import Agent
from agents.registry import AGENTS, known_agents
from casino_env.engine import new_game
from casino_env.engine.rules import PRESETS, make_rules
from casino_env.players import resolve

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "experiments" / "results" / "train"
SEARCH_OPTIONS = ("simulations, max_candidates, epsilon, game_bonus, fast, policy, prior, "
                  "margin, hand_bonus, guide, guide_temperature, horizon, endgame, tail")
HEURISTIC_OPTIONS = ("threat, build_keep, potential, residue, per_card, params, endgame, "
                     "endgame_net, endgame_margin, midgame_net, midgame_prior, midgame_candidates, "
                     "midgame_samples, complete")


def raises(message: str):
    """``pytest.raises(ValueError)`` matching ``message`` exactly (as a whole string)."""
    return pytest.raises(ValueError, match=f"^{re.escape(message)}$")


# -- names -----------------------------------------------------------------------------------

KNOWN = ("(known: random, greedy, heuristic, search, openspiel-ismcts, ppo:PATH, "
         "openspiel-dqn:PATH, rllib:PATH, networks:PRESET)")


def test_unknown_name_lists_every_known_form() -> None:
    """The known names include the loader forms (``ppo:PATH``)."""
    assert known_agents() == ["random", "greedy", "heuristic", "search", "openspiel-ismcts",
                              "ppo:PATH", "openspiel-dqn:PATH", "rllib:PATH",
                              "networks:PRESET"]
    with raises(f"unknown agent 'nobody' {KNOWN}"):
        make_agent("nobody")
    with raises(f"unknown agent 'heuristc' {KNOWN}; did you mean 'heuristic'?"):
        make_agent("heuristc")
    with raises(f"unknown agent 'nobody' {KNOWN}"):
        make_agent("nobody:simulations=3")


def test_empty_and_non_string_names() -> None:
    with raises(f"the agent name is empty {KNOWN}"):
        make_agent("  ")
    with pytest.raises(TypeError, match=r"^an agent name must be a string \(e\.g\. "
                                         r"'heuristic'\), got 5$"):
        make_agent(5)  # type: ignore[arg-type]


def test_loader_without_its_argument() -> None:
    example = "e.g. ppo:experiments/results/train/casino/model.zip"
    with raises(f"agent 'ppo:': give ppo:PATH, {example}"):
        make_agent("ppo:")
    with raises(f"agent 'ppo': give ppo:PATH, {example}"):
        make_agent("ppo")


# -- option names ----------------------------------------------------------------------------

def test_unknown_option_names_the_known_ones() -> None:
    with raises(f"unknown option 'bogus' for agent 'search' (known: {SEARCH_OPTIONS})"):
        make_agent("search:bogus=1")
    with raises(f"unknown option 'simulation' for agent 'search' (known: {SEARCH_OPTIONS}); "
                "did you mean 'simulations'?"):
        make_agent("search:simulation=5")
    with raises(f"unknown option 'bogus' for agent 'heuristic' (known: {HEURISTIC_OPTIONS})"):
        make_agent("heuristic:bogus=2")
    with raises("unknown option 'x' for agent 'random' (random takes no options)"):
        make_agent("random:x=1")
    with raises("unknown option 'depth' for agent 'greedy' (greedy takes no options)"):
        make_agent("greedy", depth=2)
    # the keyword API says the same
    with raises(f"unknown option 'bogus' for agent 'search' (known: {SEARCH_OPTIONS})"):
        make_agent("search", bogus=1)
    with raises("agent 'random': the seed is not an option (the game seeds its agents; in "
                "Python, make_agent(name, seed=...))"):
        make_agent("random:seed=3")


# -- option types and ranges -----------------------------------------------------------------

BAD_VALUES = [
    ("search:simulations=abc", "simulations must be an int >= 1, got 'abc'"),
    ("search:simulations=0", "simulations must be an int >= 1, got 0"),
    ("search:simulations=-3", "simulations must be an int >= 1, got -3"),
    ("search:simulations=1.5", "simulations must be an int >= 1, got 1.5"),
    ("search:simulations=true", "simulations must be an int >= 1, got True"),
    ("search:max_candidates=0", "max_candidates must be an int >= 1, got 0"),
    ("search:max_candidates=two", "max_candidates must be an int >= 1, got 'two'"),
    ("search:epsilon=2", "epsilon must be a number in [0, 1], got 2"),
    ("search:epsilon=-0.1", "epsilon must be a number in [0, 1], got -0.1"),
    ("search:epsilon=nan", "epsilon must be a number in [0, 1], got nan"),
    ("search:game_bonus=-1", "game_bonus must be a number >= 0, got -1"),
    ("search:game_bonus=big", "game_bonus must be a number >= 0, got 'big'"),
    ("search:fast=yes", "fast must be true or false, got 'yes'"),
    ("search:fast=1", "fast must be true or false, got 1"),
    ("search:policy=fastest", "policy must be one of 'cards', 'points', 'builder', 'events', "
                               "'guard', got 'fastest'"),
    ("search:prior=-0.5", "prior must be a number >= 0, got -0.5"),
    ("search:margin=-1", "margin must be a number >= 0, got -1"),
    ("search:margin=wide", "margin must be a number >= 0, got 'wide'"),
    ("search:hand_bonus=-2", "hand_bonus must be a number >= 0, got -2"),
    ("search:hand_bonus=inf", "hand_bonus must be a number >= 0, got inf"),
    ("search:horizon=-1", "horizon must be an int >= 0, got -1"),
    ("search:horizon=two", "horizon must be an int >= 0, got 'two'"),
    ("heuristic:threat=-1", "threat must be a number >= 0, got -1"),
    ("heuristic:threat=high", "threat must be a number >= 0, got 'high'"),
    ("heuristic:build_keep=1.5", "build_keep must be a number in [0, 1], got 1.5"),
    ("heuristic:potential=-0.2", "potential must be a number >= 0, got -0.2"),
    ("heuristic:residue=x", "residue must be a number >= 0, got 'x'"),
    ("heuristic:per_card=-0.01", "per_card must be a number >= 0, got -0.01"),
    ("heuristic:params=3", "params must be a HeuristicParams, got 3"),
]


@pytest.mark.parametrize(("spec", "message"), BAD_VALUES)
def test_bad_option_values_are_refused_at_make_time(spec: str, message: str) -> None:
    """Every option of every scripted agent: a wrong type or range is named with the value."""
    with raises(message):
        make_agent(spec)


def test_keyword_api_checks_the_same() -> None:
    with raises("simulations must be an int >= 1, got 'abc'"):
        make_agent("search", simulations="abc")
    with raises("simulations must be an int >= 1, got None"):
        make_agent("search", simulations=None)
    with raises("simulations must be an int >= 1, got 0"):
        SearchAgent(simulations=0)  # the class itself checks, not only the registry
    with raises("threat must be a number >= 0, got -1"):
        HeuristicParams(threat=-1)
    with raises("give the heuristic's weights as params or one by one (threat), not both"):
        HeuristicAgent(params=HeuristicParams(), threat=2.0)


def test_good_values_still_work() -> None:
    """The keyword API and the spec form, at the edges of each range."""
    s = make_agent("search", simulations=400)
    assert isinstance(s, SearchAgent) and s.simulations == 400
    s = make_agent("search:simulations=1,max_candidates=1,epsilon=1,game_bonus=0,fast=false,"
                   "policy=points,prior=0,margin=none,hand_bonus=2.5", seed=1)
    assert (s.simulations, s.max_candidates, s.epsilon, s.game_bonus, s.fast, s.policy,
            s.prior, s.margin, s.hand_bonus) == (1, 1, 1, 0, False, "points", 0, None, 2.5)
    assert make_agent("search:margin=3").margin == 3
    h = make_agent("heuristic:threat=0,build_keep=1", seed=2)
    assert h.params == HeuristicParams(threat=0, build_keep=1)
    params = HeuristicParams(residue=0.5)
    assert make_agent("heuristic", params=params).params is params


# -- duplicates and malformed specs ----------------------------------------------------------

@pytest.mark.parametrize(("spec", "message"), [
    ("search:simulations=4,simulations=5",
     "agent spec 'search:simulations=4,simulations=5': option 'simulations' given twice"),
    ("search:", "agent spec 'search:': no options after ':' (expected key=value,...)"),
    ("search:simulations", "agent spec 'search:simulations': expected key=value, got "
                           "'simulations'"),
    ("search:simulations=5,", "agent spec 'search:simulations=5,': expected key=value, got ''"),
    ("search:=5", "agent spec 'search:=5': an option name is missing in '=5'"),
    ("search:simulations=", "agent spec 'search:simulations=': option 'simulations' has no "
                            "value"),
])
def test_malformed_specs(spec: str, message: str) -> None:
    with raises(message):
        make_agent(spec)


def test_option_in_the_name_and_as_a_keyword() -> None:
    with raises("agent 'search:simulations=3': option 'simulations' given in the name and as "
                "a keyword"):
        make_agent("search:simulations=3", simulations=4)


def test_env_layer_resolve_reports_the_same() -> None:
    """``casino_env.players.resolve`` goes through this registry: the same early errors."""
    with raises("simulations must be an int >= 1, got 'abc'"):
        resolve("search:simulations=abc", seed=0)
    with raises(f"unknown option 'bogus' for agent 'search' (known: {SEARCH_OPTIONS})"):
        resolve("search:bogus=1", seed=0)


# -- check_rules -----------------------------------------------------------------------------

def test_scripted_agents_play_every_preset() -> None:
    """``Agent.check_rules`` accepts every preset for the scripted agents."""
    for name in AGENTS:
        agent = make_agent(name, seed=0)
        for variant, preset in PRESETS.items():
            for players in preset.players:
                assert agent.check_rules(make_rules(variant, players)) is None
    assert Agent.check_rules is HeuristicAgent.check_rules


# -- PPO models ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def casino_model() -> Agent:
    pytest.importorskip("sb3_contrib")
    return make_agent(f"ppo:{MODELS / 'casino' / 'model.zip'}", seed=0)


def test_ppo_missing_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sb3_contrib")
    monkeypatch.chdir(tmp_path)
    with raises("ppo model not found: nope.zip"):
        make_agent("ppo:nope.zip")
    with pytest.raises(FileNotFoundError):  # also a FileNotFoundError, for callers that ask
        make_agent("ppo:nope.zip")
    (tmp_path / "empty").mkdir()
    with raises("ppo model not found: empty/model.zip"):
        make_agent("ppo:empty")


def test_ppo_settings_without_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A .json without its .zip names the missing .zip (it said ``onlyjson.zip.zip``)."""
    pytest.importorskip("sb3_contrib")
    monkeypatch.chdir(tmp_path)
    shutil.copy(MODELS / "casino" / "model.json", "onlyjson.json")
    message = ("ppo model not found: onlyjson.zip (its settings onlyjson.json are there, the "
               "model .zip is not)")
    with raises(message):
        make_agent("ppo:onlyjson.zip")
    with raises(message):
        make_agent("ppo:onlyjson.json")


def test_ppo_model_without_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A .zip without its .json names the missing .json (it used to be the only message)."""
    pytest.importorskip("sb3_contrib")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.zip").symlink_to(MODELS / "casino" / "model.zip")
    with raises("ppo model settings not found: m.json (the game m.zip was trained on: "
                "variant, players, action_mode, ...; experiments.train writes it beside the "
                "model)"):
        make_agent("ppo:m.zip")


def test_ppo_unreadable_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sb3_contrib")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.zip").symlink_to(MODELS / "casino" / "model.zip")
    Path("m.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"^ppo model settings m\.json do not read: "
                                         r"Expecting property name"):
        make_agent("ppo:m.zip")
    Path("m.json").write_text(json.dumps({"players": 2, "action_mode": "enumerate"}))
    with raises("ppo model settings m.json: missing 'variant' (the environment the policy was "
                "trained on)"):
        make_agent("ppo:m.zip")
    Path("m.json").write_text(json.dumps({"variant": "casino", "players": 2,
                                          "action_mode": "guess"}))
    with raises("ppo model settings m.json: action_mode must be one of enumerate, compose, got "
                "'guess'"):
        make_agent("ppo:m.zip")
    Path("m.json").write_text(json.dumps({"variant": "poker", "players": 2,
                                          "action_mode": "enumerate"}))
    with pytest.raises(ValueError, match=r"^ppo model settings m\.json: unknown variant "
                                         r"'poker'"):
        make_agent("ppo:m.zip")
    Path("bad.zip").write_text("not a zip")
    shutil.copy(MODELS / "casino" / "model.json", "bad.json")
    with pytest.raises(ValueError, match=r"^ppo model bad\.zip does not load as a MaskablePPO "
                                         r"model: "):
        make_agent("ppo:bad.zip")


def test_ppo_paths_and_options(casino_model: Agent) -> None:
    """The model loads from its .zip, its folder, its .json or the path without .zip;
    ``deterministic``, ``endgame_net``, ``endgame_margin``, ``endgame`` and ``midgame_net`` are
    its options, in the spec or as keywords."""
    folder = MODELS / "casino"
    for arg in (folder, folder / "model.json", folder / "model"):
        agent = make_agent(f"ppo:{arg}", seed=0)
        assert agent.path == str(folder / "model.zip") and agent.deterministic
    assert make_agent(f"ppo:{folder / 'model.zip'},deterministic=false").deterministic is False
    assert make_agent(f"ppo:{folder}", deterministic=False).deterministic is False
    with raises("deterministic must be true or false, got 'maybe'"):
        make_agent(f"ppo:{folder / 'model.zip'},deterministic=maybe")
    with raises("unknown option 'bogus' for agent 'ppo:PATH' (known: deterministic, "
                "endgame_net, endgame_margin, endgame, midgame_net)"):
        make_agent(f"ppo:{folder / 'model.zip'},bogus=1")


def test_ppo_model_on_another_game(casino_model: Agent) -> None:
    """A casino policy on a royal game says so in one line (it was a 979-character dump)."""
    message = "this policy was trained on casino 2p, this game is royal 2p"
    royal = new_game("royal", 2, seed=0)
    with raises(message):
        casino_model.check_rules(royal.rules)
    with raises(message):  # choose keeps its check, with the same short message
        casino_model.act(royal)
    with raises(message):  # the env layer checks when the agent is given to a game
        resolve(casino_model, rules=royal.rules)
    with raises(message):  # a tournament, before the first move
        play_match([casino_model, "random"], "royal", 2, deals=1, mode="hand")
    assert casino_model.check_rules(new_game("casino", 2).rules) is None
    with raises("this policy was trained on casino 2p, this game is casino 2p with sweeps, "
                "target=11, difference"):
        casino_model.check_rules(make_rules("casino", 2, None, {"sweeps": True, "target": 11}))
    with raises("this policy was trained on casino 2p, this game is dominican 4p in "
                "partnerships"):
        casino_model.check_rules(make_rules("dominican", 4))
    with raises("this policy was trained on casino 2p, this game is dominican 4p without "
                "partnerships with no sweeps, no cancel"):
        casino_model.check_rules(make_rules("dominican", 4, False, {"sweeps": False,
                                                                    "cancel": False}))


def test_guide_temperature_is_checked_without_a_guide_too():
    """search's guide_temperature is refused when bad, and without a guide to scale (it was
    checked only when a guide was given, and otherwise ignored)."""
    with pytest.raises(ValueError, match=r"guide_temperature must be a number >= 0, got -1"):
        make_agent("search:guide_temperature=-1")
    with pytest.raises(ValueError, match=r"^guide_temperature: scales a guide's logits, so it "
                                         r"needs guide"):
        make_agent("search:guide_temperature=2")
