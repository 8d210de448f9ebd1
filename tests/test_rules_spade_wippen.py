"""Rule tests for the `spade` (Spade Casino) and `wippen` (Belgian) presets.

Each test names the rule id it checks: V-spade (each spade 1, J of spades 1 more, 24 points a
hand, target 61) and Wippen (preset `wippen`: most cards 2, most spades 2, 10D 2, 2S 1, aces 1,
each sweep (wip) 1, target 21). Seed: pagat's classic Casino page, "Variations" (seeds
001/003), and docs/rules.md "Spade Casino and Wippen".
"""

from __future__ import annotations

import pytest
from rules_helpers import DECK, SPADES, end_hand, mk_for, moves, split

from casino_env.engine import (
    apply_move,
    describe_variant,
    new_game,
)

# -- helpers (the shared ones are in tests/rules_helpers.py) --------------------------------------

STOCK = ["8H", "8D", "6C", "9H", "9D", "9C", "JH", "JD"]  # a small stock: the hand goes on
mk = mk_for("spade")


EVERYTHING = [[c for c in DECK if c != "3H"], []]


# -- V-spade ------------------------------------------------------------------------------------

def test_v_spade_one_side_takes_everything_scores_24():
    """V-spade: a side taking every card scores exactly 24 (cards 3, 10D 2, four aces and the
    2S and JS extra 6, thirteen spades 13)."""
    st = end_hand(EVERYTHING, [0, 0], variant="spade")
    assert st.hand_points == [24, 0] and st.scores == [24, 0]


def test_v_spade_each_spade_one_and_jack_of_spades_one_more():
    """V-spade: each spade 1, the JS 1 more, aces and the 2S keep their points; most spades
    scores nothing (the 24 points split 10 + 14)."""
    p = split(30, ["JS", "5S", "7S", "10D", "AH"])
    st = end_hand(p, [0, 0], variant="spade")
    # side 0 (31 cards): cards 3, spades 3, JS 1, 10D 2, AH 1 = 10
    # side 1: ten spades 10 (AS, 2S among them), 2S 1, AS 1, AD 1, AC 1 = 14
    assert st.hand_points == [10, 14]


def test_v_spade_most_spades_not_scored_separately():
    """V-spade: holding most spades earns nothing beyond 1 a spade."""
    p = split(20, SPADES[2:10])  # side 0: 3S..10S (8 spades), 20 cards
    st = end_hand(p, [0, 0], variant="spade")
    # side 0: 8 spades 8 (fewer cards); side 1 (31 cards): cards 3, AS 2S JS QS KS 5,
    # 2S 1, JS 1, four aces 4, 10D 2
    assert st.hand_points == [8, 16]


def test_v_spade_sweeps_as_casino():
    """V-spade: sweeps are not scored by default; with switch `sweeps` each scores 1."""
    assert describe_variant("spade")["switches"]["sweeps"]["default"] is False
    st = end_hand(EVERYTHING, [0, 0], variant="spade", rules={"sweeps": True}, sweeps=[2, 1])
    assert st.hand_points == [26, 1]
    st = mk([["5H", "KD"], ["2C"]], ["5C"], stock=STOCK)
    assert apply_move(st, "5H captures 5C").sweeps == (0, 0)


def test_v_spade_values_as_casino():
    """V-spade: values as `casino` (C-face): a King takes only a King, Aces are 1."""
    st = mk([["KD", "AS"], ["2C"]], ["KH", "3C", "8C", "5D", "AH"], stock=STOCK)
    assert moves(st) == {"KD trails", "KD captures KH", "AS trails", "AS captures AH"}


@pytest.mark.parametrize("start,over,winner", [([37, 0], True, 0), ([36, 0], False, None)])
def test_v_spade_target_61(start, over, winner):
    """V-spade (decision): the game is played to 61."""
    assert new_game("spade", 2, seed=1).rules.target == 61
    st = end_hand(EVERYTHING, start, variant="spade")
    assert st.scores == [start[0] + 24, 0]
    assert st.game_over is over and st.winner == winner


# -- Wippen -------------------------------------------------------------------------------------

def test_wippen_one_side_takes_everything_scores_11():
    """Wippen: most cards 2, most spades 2, 10D 2, 2S 1, aces 1 each: 11 without sweeps."""
    st = end_hand(EVERYTHING, [0, 0], variant="wippen")
    assert st.hand_points == [11, 0]


def test_wippen_points_split():
    """Wippen: most cards 2 and most spades 2 go to different sides; 10D 2, 2S 1, aces 1."""
    p = split(30, ["10D", "AH", "AD"])  # side 0: 31 cards with the residue, no spade
    st = end_hand(p, [0, 0], variant="wippen")
    # side 0: cards 2, 10D 2, AH AD 2 = 6; side 1: spades 2, 2S 1, AS AC 2 = 5
    assert st.hand_points == [6, 5]


def test_wippen_tie_for_cards_scores_nothing():
    """Wippen (C-score): 26-26 gives nobody the 2 points for cards."""
    p = split(25, ["10D"])  # 26 with the residue
    st = end_hand(p, [0, 0], variant="wippen")
    # side 0: 10D 2; side 1: spades 2, 2S 1, aces 4
    assert st.hand_points == [2, 7]


def test_wippen_each_wip_scores_one_never_cancelled():
    """Wippen: a sweep (wip) scores 1 each, for both sides (no cancelling)."""
    assert describe_variant("wippen")["switches"]["sweeps"]["default"] is True
    st = end_hand(EVERYTHING, [0, 0], variant="wippen", sweeps=[3, 2])
    assert st.hand_points == [14, 2]


def test_wippen_sweep_recorded_in_play():
    """Wippen: capturing every table card is a wip, recorded at once for both players."""
    st = mk([["5H", "KD"], ["7C", "QC"]], ["5C"], variant="wippen", stock=STOCK)
    st = apply_move(st, "5H captures 5C")
    assert st.sweeps == (1, 0)
    st = apply_move(apply_move(st, "7C trails"), "KD trails")
    st = apply_move(st, "QC trails")  # round over: a new round is dealt
    assert st.sweeps == (1, 0)
    st = mk([["5H", "KD"], ["5S", "QC"]], ["5C"], variant="wippen", stock=STOCK,
            sweeps=[0, 1])
    assert apply_move(st, "5H captures 5C").sweeps == (1, 1)


def test_wippen_sweeps_switch_off():
    """Wippen: with `sweeps` off a sweep scores nothing."""
    st = mk([["5H", "KD"], ["7C"]], ["5C"], variant="wippen", stock=STOCK,
            rules={"sweeps": False})
    assert apply_move(st, "5H captures 5C").sweeps == (0, 0)


@pytest.mark.parametrize("start,over,winner", [([10, 0], True, 0), ([9, 0], False, None)])
def test_wippen_target_21(start, over, winner):
    """Wippen: the game is played to 21."""
    assert new_game("wippen", 2, seed=1).rules.target == 21
    st = end_hand(EVERYTHING, start, variant="wippen")
    assert st.game_over is over and st.winner == winner


def test_wippen_values_as_casino():
    """Wippen: values as `casino` (C-face: a Queen takes only a Queen)."""
    st = mk([["QD", "7S"], ["2C"]], ["QH", "3C", "4D"], variant="wippen", stock=STOCK)
    assert moves(st) == {"QD trails", "QD captures QH", "7S trails", "7S captures 3C+4D"}
