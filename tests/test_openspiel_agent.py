"""The ``openspiel-ismcts`` agent (issue 19): OpenSpiel's information-set MCTS on the
``python_casino`` game, made by name, seeded, reading only its player's view."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspiel")

from agents import make_agent, play_match  # noqa: E402
from agents.openspiel_ismcts import OpenSpielISMCTSAgent  # noqa: E402
from casino_env.engine import State, legal_moves, new_game  # noqa: E402

SPEC = {"variant": "casino", "players": 2, "dealer": 1, "current": 0,
        "hands": [["10S", "3C", "4H", "6S"], ["7C", "8C", "9H", "JD"]],
        "table": ["10D", "KH", "QC", "2H"], "stock": ["AS", "2C", "5D", "9S"]}


def test_made_by_name_with_options() -> None:
    a = make_agent("openspiel-ismcts:simulations=7,uct_c=1.5", seed=3)
    assert isinstance(a, OpenSpielISMCTSAgent)
    assert (a.simulations, a.uct_c, a.rollouts) == (7, 1.5, 1)


@pytest.mark.parametrize("spec,match", [
    ("openspiel-ismcts:simulations=0", "simulations must be an int >= 1, got 0"),
    ("openspiel-ismcts:simulations=abc", "simulations must be an int >= 1, got 'abc'"),
    ("openspiel-ismcts:uct_c=-1", "uct_c must be a number >= 0, got -1"),
    ("openspiel-ismcts:final_policy=best", "final_policy must be one of max_visit_count"),
    ("openspiel-ismcts:budget=3", "unknown option 'budget' for agent 'openspiel-ismcts'"),
])
def test_bad_options_are_refused_when_made(spec: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make_agent(spec)


def test_plays_a_legal_move_and_is_seeded() -> None:
    st = State.from_spec(SPEC)
    moves = [make_agent("openspiel-ismcts:simulations=20", seed=s).act(st) for s in (1, 1, 2)]
    assert all(m in legal_moves(st) for m in moves)
    assert moves[0] == moves[1]


def test_sees_only_its_view() -> None:
    """The opponent's hand and the stock order do not change its choice (same seed)."""
    st = State.from_spec(SPEC)
    other = State.from_spec({**SPEC, "hands": [SPEC["hands"][0], ["AS", "2C", "5D", "9S"]],
                             "stock": ["7C", "8C", "9H", "JD"]})
    a = make_agent("openspiel-ismcts:simulations=20", seed=4).act(st)
    b = make_agent("openspiel-ismcts:simulations=20", seed=4).act(other)
    assert a == b


def test_multi_hand_game_state_and_other_presets() -> None:
    """It plays from any engine state, later hands and other presets included."""
    for variant in ("royal", "dominican", "tuxedo"):
        st = new_game(variant, 2, seed=5)
        m = make_agent("openspiel-ismcts:simulations=5", seed=0).act(st)
        assert m in legal_moves(st)


def test_beats_random_play() -> None:
    """Two duplicate deals of 2-player casino (4 hands): it wins at least 3 of them."""
    r = play_match(["openspiel-ismcts:simulations=20", "random"], "casino", 2, deals=2, seed=0,
                   mode="hand")
    won = sum(1 for g in r.records if g.winner == 0)  # (agent index 0: ISMCTS)
    assert len(r.records) == 4 and won >= 3, [(g.seats, g.winner, g.points) for g in r.records]


def test_the_cli_plays_against_it() -> None:
    """``casino-env play --opponent openspiel-ismcts:...`` (names reach the registry)."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "casino_env", "play", "--variant", "casino",
                          "--opponent", "openspiel-ismcts:simulations=2", "--watch", "--seed",
                          "1", "--delay", "0"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "final scores" in out.stdout and "openspiel-ismcts" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "casino_env", "play", "--opponent",
                          "openspiel-ismcts:simulations=0"], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode != 0 and "simulations must be an int >= 1, got 0" in bad.stderr
    assert "Traceback" not in bad.stderr
