"""The OpenSpiel DQN example (issue 19): a short self-play run writes a network that
``make_agent("openspiel-dqn:PATH")`` plays, checked against the game it was trained on."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("torch")

from agents import make_agent, play_match  # noqa: E402
from casino_env.engine import legal_moves, new_game  # noqa: E402
from casino_env.engine.rules import make_rules  # noqa: E402
from experiments import openspiel_dqn  # noqa: E402


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("dqn")
    args = openspiel_dqn.parse_args(["--minutes", "0.02", "--eval-every", "0.3",
                                     "--eval-hands", "2", "--hidden", "32", "--out", str(out)])
    openspiel_dqn.train(args)
    return out


def test_training_writes_the_network_settings_and_curve(trained):
    meta = json.loads((trained / "openspiel_dqn.json").read_text())
    assert meta["game"] == {"variant": "casino", "players": 2, "episode": "hand",
                            "reward": "points"}
    assert meta["hidden"] == [32] and meta["episodes"] >= 1 and meta["steps"] > 0
    assert (trained / "q_network.pt").stat().st_size > 0
    head = (trained / "learning_curve.csv").read_text().splitlines()[0]
    assert head == "seconds,episodes,steps,won_vs_random"


def test_the_network_plays_as_an_agent(trained):
    agent = make_agent(f"openspiel-dqn:{trained}", seed=0)
    st = new_game("casino", 2, seed=4)
    assert agent.act(st) in legal_moves(st)
    r = play_match([f"openspiel-dqn:{trained}", "random"], "casino", 2, deals=1, seed=0,
                   mode="hand")
    assert len(r.records) == 2 and all(g.moves == 48 for g in r.records)


def test_wrong_game_and_missing_files_are_named(trained, tmp_path):
    agent = make_agent(f"openspiel-dqn:{trained}")
    with pytest.raises(ValueError, match="^this network was trained on casino 2p, this game "
                                         "is royal 2p$"):
        agent.check_rules(make_rules("royal", 2))
    with pytest.raises(ValueError, match="openspiel-dqn model not found: .*q_network.pt"):
        make_agent(f"openspiel-dqn:{tmp_path}")
    (tmp_path / "q_network.pt").write_bytes((trained / "q_network.pt").read_bytes())
    with pytest.raises(ValueError, match="openspiel-dqn model settings not found"):
        make_agent(f"openspiel-dqn:{tmp_path}")


def test_the_settings_file_names_the_model_and_other_files_are_refused(trained, tmp_path):
    """Was: any path with a suffix was taken for the weights, so openspiel_dqn.json failed in
    torch.load ("Weights only load failed"), and settings whose layer sizes differ from the
    weights' raised torch's raw size mismatch."""
    agent = make_agent(f"openspiel-dqn:{trained / 'openspiel_dqn.json'}", seed=0)
    st = new_game("casino", 2, seed=4)
    assert agent.act(st) == make_agent(f"openspiel-dqn:{trained}", seed=0).act(st)
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(ValueError, match=re.escape(
            "openspiel-dqn:PATH takes the folder experiments/openspiel_dqn.py writes (or its "
            f"q_network.pt or openspiel_dqn.json), got the file {tmp_path / 'notes.txt'}")):
        make_agent(f"openspiel-dqn:{tmp_path / 'notes.txt'}")
    (tmp_path / "openspiel_dqn.json").write_text((trained / "openspiel_dqn.json").read_text())
    (tmp_path / "q_network.pt").write_text("not torch")
    with pytest.raises(ValueError, match=f"^openspiel-dqn weights "
                       f"{re.escape(str(tmp_path / 'q_network.pt'))} do not load as a saved "
                       "Q-network state dict: "):
        make_agent(f"openspiel-dqn:{tmp_path}")
    (tmp_path / "q_network.pt").write_bytes((trained / "q_network.pt").read_bytes())
    meta = json.loads((trained / "openspiel_dqn.json").read_text())
    (tmp_path / "openspiel_dqn.json").write_text(json.dumps({**meta, "hidden": [16]}))
    with pytest.raises(ValueError, match=re.escape(
            f"openspiel-dqn weights {tmp_path / 'q_network.pt'} do not fit the network of "
            f"{tmp_path / 'openspiel_dqn.json'} (") + r"\d+ inputs, hidden \[16\], \d+ "
            r"actions\): the settings must be the ones written with these weights$"):
        make_agent(f"openspiel-dqn:{tmp_path}")


def test_bad_arguments(capsys):
    with pytest.raises(SystemExit):
        openspiel_dqn.parse_args(["--minutes", "0"])
    # (--eval-hands 0 divided by zero at the first evaluation, mid-training)
    for flag in ("--eval-hands", "--games"):
        with pytest.raises(SystemExit):
            openspiel_dqn.parse_args([flag, "0"])
        assert f"error: {flag} must be >= 1, got 0" in capsys.readouterr().err
