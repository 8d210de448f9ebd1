"""The heuristic agent's krypkasino evaluation (``agents.scripted.kryp_scores``) on constructed
positions: the choices a Krypkasino player makes under compulsory maximal captures
(V-kryp-play) and penalty scoring with sweeps that cost their capturer and credit the player
before (V-kryp-score). Each test names the move chosen and why."""

from __future__ import annotations

import pytest
from rules_helpers import mk_for

import agents.scripted as scripted
from agents.scripted import HeuristicAgent, KrypParams
from casino_env.engine import legal_moves
from casino_env.engine.view import PlayerView

mk = mk_for("krypkasino")
STOCK = ["9D", "9H", "5D", "5H", "6D", "6C", "QC", "JH"]


def scores(st, **kryp) -> dict[str, float]:
    """The heuristic's score of each legal move of seat 0 (with ``kryp`` weights if given)."""
    view = PlayerView(st, 0)
    moves = legal_moves(st)
    return dict(zip(map(str, moves), scripted.kryp_scores(
        view, moves, scripted.weights(st.rules, st.pile_masks, 0), HeuristicAgent().params,
        KrypParams(**kryp))))


def choice(st) -> str:
    return str(HeuristicAgent().choose(PlayerView(st, 0)))


def test_keeps_the_card_that_can_trail_next_turn():
    """V-kryp-play: both cards trail now, but a trailed 8S would make 2C+8S = 10 for our own
    10C next turn, a forced capture taking the spade back; trailing 10C keeps 8S able to
    trail (no set of 8 among 2C, 7S, 10C). Our forced reply after the opponent's (``follow``)
    is what sees it: without it the heuristic sheds the spade."""
    st = mk([["8S", "10C"], ["3D"]], ["2C", "7S"], stock=STOCK)
    assert {str(m) for m in legal_moves(st)} == {"8S trails", "10C trails"}
    assert choice(st) == "10C trails"
    s = scores(st)
    assert s["10C trails"] > s["8S trails"] + 1
    s = scores(st, follow=0)
    assert s["8S trails"] > s["10C trails"]


def test_sheds_the_ten_of_diamonds_by_a_trail():
    """V-kryp-score: 10D (3 penalty points) and 3H both trail here; holding 10D risks a
    forced capture with it later (it joins our pile), and trailed it is the next player's
    to take with a 10. The heuristic trails 10D; the share of a held card's points counted
    against us (``hand``) is part of the margin."""
    st = mk([["10D", "3H"], ["3D", "4D"]], ["KC", "QH"], stock=STOCK)
    assert {str(m) for m in legal_moves(st)} == {"10D trails", "3H trails"}
    assert choice(st) == "10D trails"
    with_hand, without = scores(st), scores(st, hand=0)
    assert with_hand["10D trails"] - with_hand["3H trails"] > \
        without["10D trails"] - without["3H trails"] > 0


def test_leaves_the_next_player_a_forced_sweep():
    """V-kryp-play, V-kryp-score: trailing 7D beside 6H leaves 13, so a King in the next
    player's hand must take both — a sweep that costs them 5 and credits us 5 — while a
    trailed KC leaves no such sum. With one card left they cannot dodge it (7 of the 101
    unseen cards are Kings); with two they play their other card if they can, so the same
    trail is worth less."""
    one = mk([["KC", "7D"], ["3D"]], ["6H"], stock=STOCK)
    two = mk([["KC", "7D"], ["3D", "4D"]], ["6H"], stock=STOCK)
    assert choice(one) == "7D trails" and choice(two) == "7D trails"
    s1, s2 = scores(one), scores(two)
    assert s1["7D trails"] > s1["KC trails"] + 0.5
    assert s1["7D trails"] == pytest.approx(10 * 7 / 101, abs=0.1)
    assert s2["7D trails"] < s1["7D trails"]


def test_does_not_sweep_when_a_trail_is_possible():
    """V-kryp-score: 8D would have to take 3H+5C, the whole table — a sweep costing 5 and
    crediting the player before 5, a swing of 10 — while 2C captures nothing and trails."""
    st = mk([["8D", "2C"], ["3D"]], ["3H", "5C"], stock=STOCK)
    assert {str(m) for m in legal_moves(st)} == {"8D captures 3H+5C", "2C trails"}
    assert choice(st) == "2C trails"
    s = scores(st)
    assert s["8D captures 3H+5C"] < s["2C trails"] - 9


def test_never_reads_hidden_cards():
    """The evaluation reads only the player's view: two deals that differ only in the
    opponent's hand and the stock give the same scores."""
    a = mk([["8S", "10C"], ["KD"]], ["2C", "7S"], stock=STOCK)
    b = mk([["8S", "10C"], ["9S"]], ["2C", "7S"], stock=["KH"] + STOCK[1:])
    assert scores(a) == scores(b)


def test_more_players_and_partners_play_legal_moves():
    """V-kryp-seats: with 3 players (no follow-up of ours right after the next player) and 4
    as partners, the heuristic picks a legal move."""
    three = mk([["8S", "10C"], ["3D"], ["4D"]], ["2C", "7S"], stock=STOCK)
    four = mk([["8S", "10C"], ["3D"], ["4D"], ["5D"]], ["2C", "7S"], stock=STOCK,
              partnerships=True)
    assert four.rules.sides == 2
    for st in (three, four):
        assert HeuristicAgent().choose(PlayerView(st, 0)) in legal_moves(st)
