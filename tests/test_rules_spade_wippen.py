"""Rule tests for the `spade` (Spade Casino) and `wippen` (Belgian) presets.

Each test names the rule id it checks: V-spade (each spade 1, J of spades 1 more, 24 points a
hand, target 61), V-spade-bicycle (switch `bicycle`: AS, JS, 2S 2 each as spades, 26 a hand,
a double game when the loser has under 31) and Wippen (preset `wippen`: most cards 2, most
spades 2, 10D 2, 2S 1, aces 1, each sweep (wip) 1, target 21). Seed: pagat's classic Casino
page, "Variations" (seeds 001/003), and docs/rules.md "Spade Casino and Wippen".
"""

from __future__ import annotations

import json
import random

import pytest
from rules_helpers import DECK, SPADES, end_hand, mk_for, moves, split

from casino_env.engine import (
    State,
    apply_move,
    describe_variant,
    legal_moves,
    new_game,
)
from casino_env.engine.scoring import awards
from casino_env.returns import win_returns

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


# -- V-spade-bicycle ----------------------------------------------------------------------------

BICYCLE = {"bicycle": True}


def test_v_spade_bicycle_one_side_takes_everything_scores_26():
    """V-spade-bicycle: a side taking every card scores 26 (cards 3, 10D 2, 2S 1, four aces 4,
    spades AS JS 2S 2 each and the other ten 1 each: 16)."""
    st = end_hand(EVERYTHING, [0, 0], variant="spade", rules=BICYCLE)
    assert st.hand_points == [26, 0] and st.scores == [26, 0]


def test_v_spade_bicycle_ace_jack_two_of_spades_two_each():
    """V-spade-bicycle: the AS, JS and 2S count 2 as spades, other spades 1; the AS keeps its
    ace point and the 2S its little-casino point (10 + 14 = 24 under V-spade becomes
    12 + 14 = 26)."""
    p = split(30, ["AS", "JS", "2S", "5S"])
    # side 0 (31 cards): cards 3, spades 2+2+2+1 = 7, AS ace 1, 2S 1 = 12
    # side 1: nine spades 9, 10D 2, AH AD AC 3 = 14
    assert end_hand(p, [0, 0], variant="spade", rules=BICYCLE).hand_points == [12, 14]
    # V-spade: the same piles score 3 + 4 + JS 1 + AS 1 + 2S 1 = 10 and 14
    assert end_hand(p, [0, 0], variant="spade").hand_points == [10, 14]


def test_v_spade_bicycle_awards_in_count_out_order():
    """V-spade-bicycle (decision): the AS's and 2S's extra points are items of their own,
    after the JS's, before the aces."""
    st = new_game("spade", 2, seed=1, bicycle=True)
    deck = st.rules.deck
    piles = (deck.mask(["AS", "2S", "JS", "5S", "AH"]), deck.mask(["10D", "KS"]))
    assert awards(st.rules, piles, (0, 0)) == [
        ("cards", 0, 3), ("spades", 0, 4), ("spades", 1, 1), ("10D", 1, 2), ("2S", 0, 1),
        ("JS", 0, 1), ("AS bicycle", 0, 1), ("2S bicycle", 0, 1), ("AS", 0, 1), ("AH", 0, 1)]


def test_v_spade_bicycle_sweeps_switch():
    """V-spade-bicycle: sweeps score 1 each with switch `sweeps`, beside the 26."""
    st = end_hand(EVERYTHING, [0, 0], variant="spade", rules={**BICYCLE, "sweeps": True},
                  sweeps=[2, 1])
    assert st.hand_points == [28, 1]


@pytest.mark.parametrize("start,over,winner,stake", [
    ([35, 30], True, 0, 2),  # 61 against 30: double
    ([35, 31], True, 0, 1),  # 61 against 31: single
    ([34, 0], False, None, 1),  # 60: the game goes on
])
def test_v_spade_bicycle_target_61_double_under_31(start, over, winner, stake):
    """V-spade-bicycle: the game is to 61, and a winner whose opponent has under 31 wins a
    double game (stake 2; the win reward is doubled)."""
    st = end_hand(EVERYTHING, start, variant="spade", rules=BICYCLE)
    assert st.scores == [start[0] + 26, start[1]]
    assert st.game_over is over and st.winner == winner and st.stake == stake
    if over:
        assert win_returns(st) == [float(stake), -float(stake)]


def test_v_spade_bicycle_double_needs_every_other_side_under_31():
    """V-spade-bicycle (decision): with three sides the game is double only when both losers
    have under 31."""
    piles = [[c for c in DECK if c != "3H"], [], []]
    st = end_hand(piles, [35, 30, 12], variant="spade", rules=BICYCLE)
    assert st.winner == 0 and st.stake == 2
    assert win_returns(st) == [2.0, -1.0, -1.0]
    st = end_hand(piles, [35, 31, 12], variant="spade", rules=BICYCLE)
    assert st.winner == 0 and st.stake == 1


def test_v_spade_bicycle_off_never_double():
    """V-spade-bicycle: without the switch a Spade Casino game is never double (V-spade)."""
    st = end_hand(EVERYTHING, [37, 0], variant="spade")
    assert st.game_over and st.winner == 0 and st.stake == 1


def test_v_spade_bicycle_refused_elsewhere_and_with_another_target():
    """V-spade-bicycle: the switch exists only in `spade`, plays only to 61, and is a bool."""
    for variant in ("casino", "royal", "dominican", "hungarian", "tuxedo", "wippen"):
        with pytest.raises(ValueError, match=f"rule switch 'bicycle' does not apply to "
                                             f"'{variant}'"):
            new_game(variant, 2, seed=1, bicycle=True)
    with pytest.raises(ValueError, match=r"rule switch 'bicycle' plays to 61 .* got "
                                         r"target=50"):
        new_game("spade", 2, seed=1, bicycle=True, target=50)
    with pytest.raises(ValueError, match="rule switch 'bicycle' must be bool, got 'yes'"):
        new_game("spade", 2, seed=1, bicycle="yes")
    assert new_game("spade", 2, seed=1, bicycle=True, target=61).rules.target == 61


def test_v_spade_bicycle_spec_round_trip():
    """V-spade-bicycle: the switch is in the spec's rules (only when on) and round-trips
    through JSON."""
    st = new_game("spade", 3, seed=5, bicycle=True)
    spec = st.to_spec()
    assert spec["rules"]["bicycle"] is True
    back = State.from_spec(json.loads(json.dumps(spec)))
    assert back == st and back.rules.bicycle
    assert "bicycle" not in new_game("spade", 3, seed=5).to_spec()["rules"]


def _final_piles(st: State, move) -> list[int]:
    """The piles after ``move``, the hand's last card, and the residue (C-residue)."""
    piles = list(st.pile_masks)
    table = st.table_mask()
    taker = st.last_capturer if st.last_capturer is not None else st.dealer
    if move.kind == "capture":
        piles[st.current] |= move.played_mask | move.taken_mask
        table &= ~move.taken_mask
        taker = st.current
    else:
        table |= move.played_mask
    piles[taker] |= table
    return piles


def test_v_spade_bicycle_random_games_score_26_a_hand():
    """V-spade-bicycle: in seeded random games every hand's points add up to 26 (sweeps off;
    23 when most cards is tied 26-26), the game ends at 61 or more, and the stake is 2
    exactly when the loser has under 31."""
    for seed in range(3):
        rng = random.Random(seed)
        st = new_game("spade", 2, seed=seed, bicycle=True)
        hands = 0
        while not st.game_over:
            move = rng.choice(legal_moves(st))
            last = not st.stock_ids and sum(h.bit_count() for h in st.hand_masks) == 1
            piles = _final_piles(st, move) if last else None
            st = apply_move(st, move)
            if last:
                hands += 1
                tie = piles[0].bit_count() == piles[1].bit_count() == 26
                assert sum(st.hand_points) == (23 if tie else 26)
        assert hands >= 3 and max(st.scores) >= 61 and st.winner == st.scores.index(
            max(st.scores))
        loser = st.scores[1 - st.winner]
        assert st.stake == (2 if loser < 31 else 1)


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
