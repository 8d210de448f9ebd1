"""experiments.endgame_net: exact last-deal afterstates and the points-lost measure."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.endgame_net import collect_shard, points_lost, suit_swap


def test_points_lost_takes_each_decisions_top_scored_move() -> None:
    groups = np.array([0, 0, 1, 1, 1])
    values = np.array([1.0, 3.0, 0.0, 2.0, -1.0])
    scores = np.array([5.0, 1.0, 0.0, 0.0, 9.0])  # picks 1 (loses 2), then -1 (loses 3)
    assert points_lost(values, scores, groups) == pytest.approx(2.5)
    assert points_lost(values, values, groups) == 0.0


def test_a_shard_holds_every_moves_exact_afterstate(tmp_path) -> None:
    from casino_env.encoding import Layout
    from casino_env.engine import new_game

    dest = tmp_path / "shard_000.npz"
    collect_shard(("casino", 3, 7, dest))
    d = np.load(dest)
    width = Layout(new_game("casino", 2).rules, compose=False, kind="compact").size + 52
    assert d["x"].shape == (len(d["y"]), width) and len(d["y"]) > 10
    decisions, rows = np.unique(d["group"], return_counts=True)
    assert (rows >= 2).all()  # decisions with a choice only
    # the heuristic's own move is exactly one of each decision's moves
    assert (np.bincount(d["group"], weights=d["heuristic"]) == 1).all()
    # on the last deal the opponent's hand is known: its plane holds 1-4 cards
    opp = d["x"][:, -52:].sum(axis=1)
    assert ((opp >= 0) & (opp <= 4)).all() and opp.max() >= 1
    assert np.isfinite(d["y"]).all()


def test_the_suit_swap_exchanges_hearts_and_clubs_in_card_planes() -> None:
    perm = suit_swap("casino", 60, [0])
    assert (perm[perm] == np.arange(60)).all()
    assert perm[1] == 3 and perm[3] == 1 and perm[0] == 0 and perm[2] == 2
    assert perm[53] == 53  # beyond the planes: untouched
