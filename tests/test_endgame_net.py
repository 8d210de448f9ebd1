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


def test_the_static_lead_scores_the_piles_read_back_from_the_encoding() -> None:
    from casino_env.encoding import Layout
    from casino_env.engine import new_game
    from experiments.endgame_net import static_leads

    def rows(variant: str) -> np.ndarray:
        rules = new_game(variant, 2).rules
        layout = Layout(rules, compose=False, kind="compact")
        x = np.zeros((2, layout.size + 52), np.float32)
        piles = layout.offset["piles"]
        for card in ("10D", "AS", "2S"):  # mine: 2 + 1 + 1, most cards 3, most spades 1
            x[0, piles + rules.deck.index[card]] = 1
        x[0, piles + rules.deck.index["3H"]] = -1
        x[1] = x[0]
        x[1, piles + rules.deck.index["10D"]] = -1  # 10D to the other side: 2 cards each
        x[1, layout.offset["sweeps"] + 1] = 0.2  # and two sweeps to the other side
        return x

    # casino: 8 points to none; then spades, AS and 2S (3) against 10D (2); no sweep points
    assert list(static_leads("casino", rows("casino"))) == [8.0, 1.0]
    # dominican scores sweeps: the other side's two count
    assert list(static_leads("dominican", rows("dominican"))) == [8.0, -1.0]


def test_a_fit_is_reproducible_and_writes_its_row(tmp_path) -> None:
    from experiments.endgame_net import fit

    run = tmp_path / "run"
    run.mkdir()
    collect_shard(("casino", 6, 3, run / "shard_000.npz"))
    rows = [fit(run, tmp_path / f"out{i}", "casino", 16, 1, True, 0, True, "centered")
            for i in range(2)]
    assert rows[0] == {**rows[1], "fit_minutes": rows[0]["fit_minutes"]}
    assert 0 <= rows[0]["heuristic_lost"] and 0 <= rows[0]["net_lost"]
    assert (tmp_path / "out0" / "summary.md").read_text().count("| casino |") == 1
