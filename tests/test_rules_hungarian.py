"""Rule tests for the `hungarian` preset (Kaszino, Casino en deux) and its switches.

Each test names the rule id it checks: V-hun-play (3-card deals, no building, multi-card
captures; switches `ulmann`, `kovacs`, `ace_14`, `nagy`), V-hun-end (earned wins at 11,
`claims`, `ulmann`, Nagy's double game) and V-hun-cut (switch `cut`: the non-dealer sees the
stock's bottom card; its view, observation and determinizations). Seed: pagat's Royal Casino
page, section "Hungarian Casino" (seed 000), and docs/rules.md "Hungarian".
"""

from __future__ import annotations

import json
import random
from functools import partial

import numpy as np
import pytest
from rules_helpers import DECK, PLAIN, SPADES, mk_for, moves, rule_of
from rules_helpers import end_hand as rules_end_hand
from rules_helpers import full as rules_full

from casino_env.encoding import Layout
from casino_env.engine import (
    Move,
    State,
    apply_move,
    legal_moves,
    new_game,
)
from casino_env.engine.text import describe_state
from casino_env.engine.view import PlayerView

# -- helpers (the shared ones are in tests/rules_helpers.py) --------------------------------------

STOCK = ["8D", "8H", "10C", "JH", "JC", "QC"]  # a small stock: the hand goes on
mk = mk_for("hungarian")
full = partial(rules_full, variant="hungarian")
end_hand = partial(rules_end_hand, variant="hungarian")


def plain(n: int, avoid=()) -> list[str]:
    """``n`` plain (non-scoring) cards, none of ``avoid``."""
    out = [c for c in PLAIN if c not in avoid][:n]
    assert len(out) == n
    return out


def split_26(extra0=(), hold=("3H",)) -> list[list[str]]:
    """Piles of all 52 cards but ``hold``: side 0 has 25 plain cards plus ``extra0``, side 1
    every other card (all spades, aces and the 10D not in ``extra0``)."""
    p0 = list(extra0) + plain(25 - len(extra0), avoid=set(hold) | set(extra0))
    p1 = [c for c in DECK if c not in p0 and c not in hold]
    return [p0, p1]


# -- V-hun-play: dealing ------------------------------------------------------------------------

def test_v_hun_play_first_deal_three_cards_each_four_to_the_table():
    """V-hun-play: 3 cards to each player and 4 face up to the table at the start."""
    st = new_game("hungarian", 2, seed=4)
    assert [len(st.hand(0)), len(st.hand(1))] == [3, 3]
    assert len(st.table) == 4 and all(isinstance(c, str) for c in st.table)
    assert len(st.to_spec()["stock"]) == 42
    assert st.current == 0


def test_v_hun_play_eight_deals_of_three_per_hand():
    """V-hun-play: 8 deals per hand, each 3 cards to each player and none to the table."""
    st = new_game("hungarian", 2, seed=4, ulmann=True)  # ulmann: the hand is played out
    deals = 1
    while st.hand_no == 0 and not st.game_over:
        before = len(st.stock_ids)
        m = max(legal_moves(st), key=lambda m: (m.kind == "capture", len(m.taken)))
        st = apply_move(st, m)
        if st.hand_no == 0 and len(st.stock_ids) < before:
            deals += 1
            # 3 cards each, all 6 from the stock: none to the table
            assert [len(st.hand(0)), len(st.hand(1))] == [3, 3]
            assert before - len(st.stock_ids) == 6
    assert deals == 8
    assert st.hand_no == 1 or (st.game_over and not any(st.hand_masks))  # the hand was played out


def test_v_hun_play_uneven_hands_player_with_cards_plays_on():
    """V-hun-play: a player left with cards after the opponent has none plays them on, one
    turn after another; then the next round is dealt."""
    st = mk([["5S", "6H", "7D"], []], ["5H", "QD"], stock=STOCK, dealer=1)
    assert moves(st) == {"5S trails", "6H trails", "7D trails", "5S captures 5H",
                         "5S+7D captures QD"}
    st = apply_move(st, "5S captures 5H")
    assert st.current == 0 and st.hand(0) == ["6H", "7D"]
    st = apply_move(st, "6H trails")
    assert st.current == 0 and st.hand(0) == ["7D"]
    st = apply_move(st, "7D trails")
    assert st.hand(0) == ["8H", "8D", "10C"]
    assert st.hand(1) == ["JH", "JC", "QC"] and st.current == 0


def test_v_hun_play_uneven_hands_after_a_multi_card_capture():
    """V-hun-play (seed): after a player plays all three cards at once, the opponent plays
    the rest of their cards in turn; then the next round is dealt."""
    st = mk([["JS", "QH", "AC"], ["2C", "3D", "6S"]], ["4D", "7H", "KC", "9C"], stock=STOCK,
            dealer=1)
    st = apply_move(st, "JS+QH+AC captures 4D+7H+KC")
    assert st.hand(0) == [] and st.current == 1 and st.table == ["9C"]
    st = apply_move(st, "2C trails")
    assert st.current == 1
    assert moves(st) == {"3D trails", "6S trails", "3D+6S captures 9C"}
    st = apply_move(st, "3D+6S captures 9C")
    assert st.table == ["2C"]
    assert st.hand(0) == ["8H", "8D", "10C"] and st.current == 0


# -- V-hun-play: captures -----------------------------------------------------------------------

def test_v_hun_play_queen_taken_by_nine_and_three():
    """V-hun-play (seed example): a Queen on the table is taken by a 9 and a 3 from hand."""
    st = mk([["9S", "3H", "5C"], ["2C"]], ["QD", "4H"], stock=STOCK)
    assert moves(st) == {"9S trails", "3H trails", "5C trails", "3H+9S captures QD"}
    m = next(m for m in legal_moves(st) if m.kind == "capture")
    assert m.value == 12 and m.played == ("3H", "9S")
    after = apply_move(st, "9S+3H captures QD")
    assert after.pile(0) == ["3H", "9S", "QD"] and after.hand(0) == ["5C"]
    assert after.table == ["4H"] and after.current == 1


def test_v_hun_play_ten_and_two_taken_by_seven_and_five():
    """V-hun-play (seed example): a 10 and a 2 on the table are taken by a 7 and a 5."""
    st = mk([["7S", "5H", "KC"], ["2C"]], ["10D", "2H"], stock=STOCK)
    assert moves(st) == {"7S trails", "5H trails", "KC trails", "5H+7S captures 2H+10D"}
    after = apply_move(st, "7S+5H captures 10D+2H")
    assert after.pile(0) == ["2H", "5H", "7S", "10D"] and after.table == []


def test_v_hun_play_jack_queen_ace_take_four_seven_king():
    """V-hun-play (seed example): J Q A played together take 4, 7 and K
    (11 + 12 + 1 = 24 = 4 + 7 + 13)."""
    st = mk([["JS", "QH", "AC"], ["2C"]], ["4D", "7H", "KC"], stock=STOCK)
    assert moves(st) == {
        "JS trails", "QH trails", "AC trails",
        "JS captures 4D+7H", "AC+QH captures KC", "AC+JS+QH captures 4D+7H+KC"}
    vals = {str(m): m.value for m in legal_moves(st) if m.kind == "capture"}
    assert vals == {"JS captures 4D+7H": 11, "AC+QH captures KC": 13,
                    "AC+JS+QH captures 4D+7H+KC": 24}
    after = apply_move(st, "JS+QH+AC captures 4D+7H+KC")
    assert after.hand(0) == [] and after.table == []
    assert sorted(after.pile(0)) == sorted(["JS", "QH", "AC", "4D", "7H", "KC"])


def test_v_hun_play_several_sets_of_the_played_total():
    """V-hun-play: the played total t takes every set of table cards totalling t."""
    st = mk([["8S", "4H"], ["2C"]], ["QD", "5C", "7H", "9C"], stock=STOCK)
    assert moves(st) == {"8S trails", "4H trails", "4H+8S captures QD",
                         "4H+8S captures 5C+7H", "4H+8S captures 5C+7H+QD"}


def test_v_hun_play_no_building():
    """V-hun-play: there is no building; a build move is illegal under V-hun-play."""
    st = mk([["3H", "8C"], ["2C"]], ["5S"], stock=STOCK)
    assert moves(st) == {"3H trails", "8C trails"}
    assert rule_of(st, "3H builds 8 on 5S") == "V-hun-play"
    with pytest.raises(ValueError, match="has no building"):
        mk([["3H", "8C"], ["2C"]], [{"cards": ["3S", "5S"], "value": 8, "owner": 0}])


def test_v_hun_play_trail_is_exactly_one_card():
    """V-hun-play: a trail plays exactly one card; two cards cannot trail together."""
    st = mk([["JS", "7H", "4C"], ["2C"]], ["KD"], stock=STOCK)
    assert {str(m) for m in legal_moves(st) if m.kind == "trail"} == {
        "JS trails", "7H trails", "4C trails"}
    assert rule_of(st, Move("trail", ["JS", "7H"])) == "V-hun-play"
    assert rule_of(st, "JS+7H+4C captures KD") == "V-hun-play"  # 22 is not 13


def test_v_hun_play_ulmann_split_hand_cards():
    """V-hun-play (Ulmann, seed example): J 7 4 played together take a Jack (J = 7 + 4 = 11)
    with switch `ulmann`, and not without it."""
    hands = [["JS", "7H", "4C"], ["2C"]]
    plain_st = mk(hands, ["JD"], stock=STOCK)
    assert moves(plain_st) == {"JS trails", "7H trails", "4C trails", "JS captures JD",
                               "4C+7H captures JD"}
    assert rule_of(plain_st, "JS+7H+4C captures JD") == "V-hun-play"
    st = mk(hands, ["JD"], stock=STOCK, rules={"ulmann": True})
    assert moves(st) == {"JS trails", "7H trails", "4C trails", "JS captures JD",
                         "4C+7H captures JD", "4C+7H+JS captures JD"}
    m = next(m for m in legal_moves(st) if len(m.played) == 3)
    assert m.value == 11
    after = apply_move(st, "JS+7H+4C captures JD")
    assert after.hand(0) == [] and sorted(after.pile(0)) == ["4C", "7H", "JD", "JS"]


def test_v_hun_play_kovacs_no_combination_above_13():
    """V-hun-play (Kovacs): no played or captured combination above 13: J Q A can no longer
    take 4 7 K (24), and 9+5 cannot take K+A (14)."""
    st = mk([["JS", "QH", "AC"], ["2C"]], ["4D", "7H", "KC"], stock=STOCK,
            rules={"kovacs": True})
    assert moves(st) == {"JS trails", "QH trails", "AC trails", "JS captures 4D+7H",
                         "AC+QH captures KC"}
    assert rule_of(st, "JS+QH+AC captures 4D+7H+KC") == "V-hun-play"
    hands, table = [["9S", "5H", "3C"], ["2C"]], ["KD", "AH", "8C"]
    assert "5H+9S captures AH+KD" in moves(mk(hands, table, stock=STOCK))
    st = mk(hands, table, stock=STOCK, rules={"kovacs": True})
    assert moves(st) == {"9S trails", "5H trails", "3C trails", "3C+5H captures 8C",
                         "9S captures AH+8C"}
    assert rule_of(st, "9S+5H captures KD+AH") == "V-hun-play"


def test_v_hun_play_kovacs_with_ulmann_split_sets_each_within_13():
    """V-hun-play (Kovacs with Ulmann): J 7 4 split into sets of 11 stays legal."""
    st = mk([["JS", "7H", "4C"], ["2C"]], ["JD"], stock=STOCK,
            rules={"ulmann": True, "kovacs": True})
    assert "4C+7H+JS captures JD" in moves(st)


def test_v_hun_play_ace_is_one_by_default():
    """V-hun-play: the Hungarian Ace counts 1 only: a lone Ace takes only Aces, and
    9+5 (14) takes K+A but not a lone Ace."""
    st = mk([["AS", "9H", "5C"], ["2C"]], ["KD", "AH", "8C", "5D"], stock=STOCK)
    assert moves(st) == {
        "AS trails", "9H trails", "5C trails",
        "AS captures AH", "5C captures 5D", "9H captures AH+8C", "AS+5C captures AH+5D",
        "5C+9H captures AH+KD", "5C+9H captures AH+5D+8C"}


def test_v_hun_play_ace_14_switch():
    """V-hun-play (`ace_14`): a lone Ace may count 14 (takes K+A or 8+5+A); a lone table Ace
    is a set of 14 for 9+5; inside a set of several cards the Ace counts 1."""
    st = mk([["AS", "9H", "5C"], ["2C"]], ["KD", "AH", "8C", "5D"], stock=STOCK,
            rules={"ace_14": True})
    assert moves(st) == {
        "AS trails", "9H trails", "5C trails",
        "AS captures AH", "AS captures AH+KD", "AS captures AH+5D+8C",
        "5C captures 5D", "9H captures AH+8C", "AS+5C captures AH+5D",
        "5C+9H captures AH", "5C+9H captures AH+KD", "5C+9H captures AH+5D+8C"}
    vals = {str(m): m.value for m in legal_moves(st) if m.kind == "capture"}
    assert vals["AS captures AH+KD"] == 14 and vals["AS+5C captures AH+5D"] == 6
    assert vals["AS captures AH"] in (1, 14)


# -- V-hun-end: earned wins ---------------------------------------------------------------------

def test_v_hun_end_ten_of_diamonds_at_nine_ends_the_game():
    """V-hun-end: at 9, capturing the 10D (2 points, earned at once) reaches 11: the game
    ends during play and that side wins."""
    st = full([["10H", "4C"], ["2C", "5D"]], ["10D", "3H"], [[], []], scores=[9, 4])
    after = apply_move(st, "10H captures 10D")
    assert after.game_over and after.winner == 0
    assert after.hand_points == [2, 0] and after.scores == [11, 4]
    assert legal_moves(after) == []
    assert rule_of(after, "2C trails") == "C-game"


def test_v_hun_end_ten_of_diamonds_at_eight_plays_on():
    """V-hun-end: at 8, the 10D's 2 points make 10: the game goes on."""
    st = full([["10H", "4C"], ["2C", "5D"]], ["10D", "3H"], [[], []], scores=[8, 4])
    after = apply_move(st, "10H captures 10D")
    assert not after.game_over and after.winner is None and after.current == 1
    assert after.scores == [8, 4]


@pytest.mark.parametrize("had,over", [(25, True), (24, False)])
def test_v_hun_end_majority_of_cards_certain_at_27(had, over):
    """V-hun-end: most cards (3) is earned once a side holds 27 of the 52 cards; 26 is not
    enough (26-26 scores no cards points)."""
    p0 = plain(had, avoid={"5H", "5D", "KH", "KC", "QH"})
    st = full([["5H", "QH"], ["KC"]], ["5D", "KH"], [p0, []], scores=[8, 0])
    after = apply_move(st, "5H captures 5D")
    assert len(after.pile(0)) == had + 2
    assert after.game_over is over
    if over:
        assert after.winner == 0 and after.hand_points == [3, 0] and after.scores == [11, 0]
    else:
        assert after.winner is None and after.scores == [8, 0]


@pytest.mark.parametrize("had,over", [(6, True), (5, False)])
def test_v_hun_end_majority_of_spades_certain_at_7(had, over):
    """V-hun-end: most spades (1) is earned once a side holds 7 of the 13 spades."""
    p0 = SPADES[2:2 + had]  # 3S upwards: no Ace, no 2S
    st = full([["9H", "QH"], ["KC"]], ["9S", "KD"], [p0, []], scores=[10, 0])
    after = apply_move(st, "9H captures 9S")
    assert after.game_over is over
    if over:
        assert after.winner == 0 and after.hand_points == [1, 0]


def test_v_hun_end_sweep_counts_at_once():
    """V-hun-end: each sweep is earned as it happens: a sweep at 10 wins."""
    st = full([["7H", "4C"], ["2C"]], ["7D"], [[], []], scores=[10, 3])
    after = apply_move(st, "7H captures 7D")
    assert after.game_over and after.winner == 0
    assert after.sweeps == (1, 0) and after.hand_points == [1, 0]
    st = full([["7H", "4C"], ["2C"]], ["7D"], [[], []], scores=[10, 3],
              rules={"sweeps": False})
    after = apply_move(st, "7H captures 7D")
    assert not after.game_over and after.sweeps == (0, 0)


def test_v_hun_end_aces_and_two_of_spades_count_as_captured():
    """V-hun-end: each scoring card counts as captured: AH (1) and 2S (1) at 9 reach 11."""
    st = full([["3H", "4C"], ["2C"]], ["AH", "2S", "KD"], [[], []], scores=[9, 0])
    after = apply_move(st, "3H captures AH+2S")
    assert after.game_over and after.winner == 0 and after.hand_points == [2, 0]


def test_v_hun_end_no_cards_points_at_26_26():
    """V-hun-end (C-score): with the cards divided 26-26 nobody scores the 3 points for
    cards; at 27-25 the 27 score them."""
    # side 0: 25 plain cards + the residue 3H = 26; side 1: the other 26 cards
    st = end_hand(split_26(), [0, 0])
    assert st.hand_points == [0, 8]  # side 1: spades 1, 10D 2, 2S 1, four aces 4
    assert st.scores == [0, 8] and not st.game_over and st.hand_no == 1
    # the same hand with one plain card moved from side 1 to side 0: 27-25
    piles = split_26()
    moved = next(c for c in piles[1] if c in PLAIN)
    piles = [piles[0] + [moved], [c for c in piles[1] if c != moved]]
    st = end_hand(piles, [0, 0])
    assert st.hand_points == [3, 8]


def test_v_hun_end_hand_end_scoring_reaches_eleven():
    """V-hun-end: points scored at the end of the hand (the residue's cards) win too."""
    st = end_hand(split_26(), [1, 3])
    assert st.game_over and st.winner == 1 and st.scores == [1, 11]


# -- V-hun-end: claims --------------------------------------------------------------------------

def test_v_hun_end_claims_switch_turns_off_the_automatic_win():
    """V-hun-end (`claims`): reaching 11 does not end the game by itself; the claim is a move
    of the player to move, listed first."""
    st = mk([["10H", "4C"], ["2C", "5D"]], ["10D", "3H"], scores=[9, 4], stock=STOCK,
            rules={"claims": True})
    assert [str(m) for m in legal_moves(st)][0] == "claims the game"
    assert moves(st) == {"claims the game", "10H captures 10D", "10H trails", "4C trails"}
    after = apply_move(st, "10H captures 10D")
    assert not after.game_over and after.current == 1


def test_v_hun_end_correct_claim_wins():
    """V-hun-end (`claims`): a correct claim (earned points reach 11) wins."""
    st = mk([["10H", "4C"], ["2C", "5D"]], ["10D", "3H"], scores=[9, 4], stock=STOCK,
            rules={"claims": True})
    st = apply_move(apply_move(st, "10H captures 10D"), "2C trails")
    after = apply_move(st, "claims the game")
    assert after.game_over and after.winner == 0
    assert after.hand_points == [2, 0] and after.scores == [11, 4]


def test_v_hun_end_false_claim_loses():
    """V-hun-end (`claims`): a false claim loses the game (decision)."""
    st = mk([["10H", "4C"], ["2C", "5D"]], ["10D", "3H"], scores=[9, 4], stock=STOCK,
            rules={"claims": True})
    after = apply_move(st, "claims the game")  # only 9 so far
    assert after.game_over and after.winner == 1
    # the opponent claiming after side 0 reached 11 also loses
    st = apply_move(st, "10H captures 10D")
    after = apply_move(st, "claims the game")
    assert after.game_over and after.winner == 0


def test_v_hun_end_claim_only_with_the_switch():
    """V-hun-end: without `claims` there is no claim move."""
    st = mk([["10H"], ["2C"]], ["10D", "3H"], scores=[9, 4], stock=STOCK)
    assert "claims the game" not in moves(st)
    assert rule_of(st, "claims the game") == "V-hun-end"


def test_v_hun_end_claims_unclaimed_hand_scored_normally():
    """V-hun-end (`claims`): a hand played out without a claim is scored normally."""
    st = end_hand(split_26(), [1, 3], rules={"claims": True})
    assert st.game_over and st.winner == 1 and st.scores == [1, 11]


# -- V-hun-end: Ulmann --------------------------------------------------------------------------

def test_v_hun_end_ulmann_hand_played_to_the_end_higher_total_wins():
    """V-hun-end (`ulmann`): reaching 11 during play does not end the game; the hand is played
    out and, both at 11 or more, the higher total wins."""
    used = {"10H", "10D", "3H", "KD"}
    p0 = plain(10, avoid=used)
    p1 = [c for c in DECK if c not in p0 and c not in used]
    spec = dict(piles=[p0, p1], scores=[9, 8], stock=[], dealer=1, seed=7)
    default = mk([["10H"], ["3H"]], ["10D", "KD"], **spec)
    assert apply_move(default, "10H captures 10D").game_over  # the earned win
    st = mk([["10H"], ["3H"]], ["10D", "KD"], rules={"ulmann": True}, **spec)
    st = apply_move(st, "10H captures 10D")
    assert not st.game_over and st.current == 1
    st = apply_move(st, "3H trails")  # last card; the residue KD+3H goes to side 0
    # side 0: 10D 2 -> 11; side 1: cards 3, spades 1, 2S 1, aces 4 -> 17
    assert st.hand_points == [2, 9]
    assert st.game_over and st.winner == 1 and st.scores == [11, 17]


def test_v_hun_end_ulmann_equal_totals_play_another_hand():
    """V-hun-end (`ulmann`, C-game): both at 11 or more with equal totals: another hand."""
    p0 = ["10D", "AD"] + SPADES[2:9] + plain(16, avoid={"3H"})  # 26 with the residue 3H
    p1 = [c for c in DECK if c not in p0 and c != "3H"]  # 2S AS AH AC and 4 spades
    assert len(p1) == 26
    st = end_hand([p0, p1], [9, 9], rules={"ulmann": True})
    assert st.hand_points == [4, 4]  # 10D 2 + AD + spades / 2S + AS + AH + AC
    assert not st.game_over and st.scores == [13, 13] and st.hand_no == 1


# -- Nagy ---------------------------------------------------------------------------------------

NAGY = {"nagy": True}


def test_v_hun_play_nagy_opponent_plays_twice_after_a_sweep():
    """V-hun-play (`nagy`): after a sweep the opponent plays twice in a row."""
    st = mk([["5S", "9H"], ["2C", "3C", "4C"]], ["5H"], stock=STOCK, rules=NAGY)
    st = apply_move(st, "5S captures 5H")
    assert st.sweeps == (1, 0) and st.current == 1 and st.extra_turn
    st = apply_move(st, "2C trails")
    assert st.current == 1 and not st.extra_turn
    st = apply_move(st, "3C trails")
    assert st.current == 0


def test_v_hun_play_nagy_sweep_with_the_opponent_out_of_cards_gives_no_double_turn():
    """V-hun-play (`nagy`): the double turn is the opponent's "if they have cards"; when the
    sweeper's opponent holds none, the sweeper plays on as the only seat with cards and no
    double turn is recorded (the state, its spec and its observation flag say none)."""
    st = mk([["7H", "4C"], []], ["7D"], stock=STOCK, rules=NAGY)
    st = apply_move(st, "7H captures 7D")
    assert st.sweeps == (1, 0) and st.current == 0 and not st.extra_turn
    assert "extra_turn" not in st.to_spec()
    assert st == mk([["4C"], []], [], stock=STOCK, rules=NAGY, piles=[["7H", "7D"], []],
                    sweeps=[1, 0], last_capturer=0)
    st = apply_move(st, "4C trails")  # the round's last card: the next deal follows
    assert [m.bit_count() for m in st.hand_masks] == [3, 3] and not st.extra_turn
    assert st.current == 0  # Nagy: the last capturer leads the next round


def test_v_hun_play_no_double_turn_without_nagy():
    """V-hun-play: without `nagy` the turn simply passes after a sweep."""
    st = mk([["5S", "9H"], ["2C", "3C", "4C"]], ["5H"], stock=STOCK)
    st = apply_move(st, "5S captures 5H")
    assert st.current == 1 and not st.extra_turn
    st = apply_move(st, "2C trails")
    assert st.current == 0


def test_v_hun_play_nagy_sweep_during_double_turn_passes_it_back():
    """V-hun-play (`nagy`, decision): a sweep made during a double turn passes the turn, and a
    double turn, back."""
    st = mk([["5S", "9H"], ["4C", "4D", "9C"]], ["5H"], stock=STOCK, rules=NAGY)
    st = apply_move(st, "5S captures 5H")
    st = apply_move(st, "4C trails")
    st = apply_move(st, "4D captures 4C")
    assert st.sweeps == (1, 1) and st.current == 0 and st.extra_turn


@pytest.mark.parametrize("rules,leader", [(NAGY, 1), ({}, 0)])
def test_v_hun_play_nagy_last_capturer_leads_next_round(rules, leader):
    """V-hun-play (`nagy`): the last capturer leads the next round (otherwise the player after
    the dealer does)."""
    st = mk([["5S"], ["KC"]], ["KD"], stock=STOCK, dealer=1, rules=rules)
    st = apply_move(st, "5S trails")
    st = apply_move(st, "KC captures KD")
    assert st.hand(0) == ["8H", "8D", "10C"] and st.hand(1) == ["JH", "JC", "QC"]
    assert st.current == leader


@pytest.mark.parametrize("rules,stock,shown", [
    (NAGY, [], ["4C", "4D", "9C"]), (NAGY, STOCK, []), ({}, [], [])])
def test_v_hun_play_nagy_last_round_exposed(rules, stock, shown):
    """V-hun-play (`nagy`): the last round (stock empty) is played with hands exposed: a
    player's view shows the other hand; not before, and not without `nagy`."""
    st = mk([["5S", "9H"], ["4C", "4D", "9C"]], ["5H"], stock=stock, rules=rules)
    view = PlayerView(st, 0)
    assert sorted(view.state.hand(1)) == sorted(shown)
    assert view.state.hand(0) == ["5S", "9H"]
    assert view.hand_sizes == (2, 3)


def _first_play(rules) -> State:
    hands = [["7S", "KH", "QH"], ["9C", "8C", "JD"]]
    table = ["2H", "5D", "3C", "4H"]
    used = set(table) | {c for h in hands for c in h}
    return mk(hands, table, stock=[c for c in DECK if c not in used], scores=[9, 0],
              rules=rules)


@pytest.mark.parametrize("rules,sweeps", [(NAGY, (2, 0)), ({}, (1, 0))])
def test_v_hun_play_nagy_initial_four_card_sweep_scores_two(rules, sweeps):
    """V-hun-play (`nagy`): sweeping the four initial table cards with the first play counts
    two sweeps (2 points); otherwise a sweep is 1."""
    st = _first_play(dict(rules, claims=True))  # claims: no automatic win, the hand goes on
    after = apply_move(st, "7S captures 2H+3C+4H+5D")
    assert after.sweeps == sweeps and not after.game_over


def test_v_hun_play_nagy_later_four_card_sweep_scores_one():
    """V-hun-play (`nagy`): a four-card sweep that is not the hand's first play is 1."""
    hands = [["7S", "KH"], ["9C", "8C"]]
    table = ["2H", "5D", "3C", "4H"]
    st = mk(hands, table, stock=STOCK, piles=[["QH", "JD"], []], rules=NAGY)
    assert apply_move(st, "7S captures 2H+3C+4H+5D").sweeps == (1, 0)


def test_v_hun_end_nagy_double_game_in_the_first_hand():
    """V-hun-end (`nagy`): a game won during the first hand is a double game (stake 2)."""
    after = apply_move(_first_play(NAGY), "7S captures 2H+3C+4H+5D")
    assert after.game_over and after.winner == 0 and after.hand_points == [2, 0]
    assert after.stake == 2


def test_v_hun_end_nagy_single_game_after_the_first_hand():
    """V-hun-end (`nagy`): a game won in a later hand is worth 1; without `nagy` always 1."""
    st = mk([["10H", "4C"], ["2C", "5D"]], ["10D", "3H"], scores=[9, 4], stock=STOCK,
            rules=NAGY, hand=1)
    after = apply_move(st, "10H captures 10D")
    assert after.game_over and after.stake == 1
    st = mk([["10H", "4C"], ["2C", "5D"]], ["10D", "3H"], scores=[9, 4], stock=STOCK)
    after = apply_move(st, "10H captures 10D")
    assert after.game_over and after.stake == 1
    st = mk([["10H", "4C"], ["2C", "5D"]], ["10D", "3H"], scores=[9, 4], stock=STOCK,
            rules=NAGY)
    assert apply_move(st, "10H captures 10D").stake == 2
    assert st.stake == 1  # not over yet


def test_v_hun_end_nagy_false_claim_in_the_first_hand_is_a_single_game():
    """V-hun-end (`nagy` with `claims`): the double game is for reaching 11 in the first hand
    (seed 002: "a player who reaches 11 points in the first deal wins a double game"); a game
    won on the other side's false claim, below 11, is a single one, and the win reward is 1.
    A correct claim, or a false one made after the other side reached 11, is double."""
    from casino_env.returns import win_returns

    rules = {"nagy": True, "claims": True}
    st = mk([["10H", "4C"], ["2C", "5D"]], ["10D", "3H"], scores=[9, 4], stock=STOCK,
            rules=rules)
    lost = apply_move(st, "claims the game")  # side 0 has 9: a false claim
    assert lost.game_over and lost.winner == 1 and lost.scores == [9, 4]
    assert lost.stake == 1 and win_returns(lost) == [-1.0, 1.0]
    st = apply_move(st, "10H captures 10D")  # side 0 reaches 11, earned
    right = apply_move(apply_move(st, "2C trails"), "claims the game")
    assert right.winner == 0 and right.scores == [11, 4] and right.stake == 2
    wrong = apply_move(st, "claims the game")  # side 1's false claim; side 0 is at 11
    assert wrong.winner == 0 and wrong.scores[0] >= 11 and wrong.stake == 2
    assert win_returns(wrong) == [2.0, -2.0]
    later = mk([["10H", "4C"], ["2C", "5D"]], ["10D", "3H"], scores=[9, 4], stock=STOCK,
               rules=rules, hand=1)
    assert apply_move(later, "claims the game").stake == 1


# -- V-hun-cut ------------------------------------------------------------------------------------

CUT = {"ulmann": True, "cut": True}


def _obs(st: State, seat: int, kind: str = "full", compose: bool = True) -> np.ndarray:
    """The environment's observation of ``seat`` (the layout the AEC env encodes with)."""
    layout = Layout(st.rules, compose, kind)
    out = np.zeros(layout.size, np.float32)
    layout.encode(st, seat, out)
    return out


def _segment(st: State, seat: int, name: str, kind: str = "full") -> list[str]:
    """The cards a 52-slot segment of the observation marks."""
    layout = Layout(st.rules, True, kind)
    o = layout.offset[name]
    return st.rules.deck.strs(sum(1 << int(c) for c in np.flatnonzero(_obs(st, seat, kind)
                                                                        [o:o + 52])))


def _without_house(st: State, seat: int, kind: str = "full") -> np.ndarray:
    """The observation with the `cut` and `house` segments taken out."""
    layout = Layout(st.rules, True, kind)
    obs = _obs(st, seat, kind)
    keep = np.ones(layout.size, bool)
    for name, start, size, _ in layout.segments:
        if name in ("cut", "house"):
            keep[start:start + size] = False
    return obs[keep]


def test_v_hun_cut_non_dealer_sees_the_bottom_card():
    """V-hun-cut: the non-dealer's view holds the stock's bottom card (not among its unseen
    cards); the dealer's view has none, and its unseen cards are those of the game without
    the switch."""
    st = new_game("hungarian", 2, seed=11, **CUT)
    assert st.dealer == 1 and len(st.stock_ids) == 42
    bottom = st.stock_ids[-1]
    mine = PlayerView(st, 0)
    assert mine.cut == bottom and not mine.unseen >> bottom & 1
    assert mine.unseen.bit_count() == 3 + 41  # the dealer's hand and the rest of the stock
    dealer = PlayerView(st, 1)
    assert dealer.cut is None and dealer.unseen >> bottom & 1
    plain = new_game("hungarian", 2, seed=11, ulmann=True)
    assert plain.stock_ids == st.stock_ids
    for seat in (0, 1):
        assert PlayerView(plain, seat).cut is None
    assert PlayerView(plain, 1).unseen == dealer.unseen
    assert PlayerView(plain, 0).unseen == mine.unseen | 1 << bottom


def test_v_hun_cut_card_goes_to_the_dealer_in_the_last_deal():
    """V-hun-cut: the bottom card is the dealer's last card: the last deal gives the
    non-dealer the first three cards of the stock and the dealer the last three."""
    stock = ["8D", "8H", "10C", "JH", "JC", "QC"]
    named = {"5H", "9C", "KD", "2C", *stock}
    rest = [c for c in DECK if c not in named]
    st = mk([["5H"], ["9C"]], ["KD", "2C"], stock=stock, piles=[rest[:20], rest[20:]],
            rules=CUT)
    assert PlayerView(st, 0).cut == st.rules.deck.parse("QC")
    assert PlayerView(st, 1).cut is None
    st = apply_move(apply_move(st, "5H trails"), "9C trails")
    assert st.stock_ids == () and st.hand(1) == ["JH", "JC", "QC"]
    assert st.hand(0) == ["8H", "8D", "10C"]
    assert PlayerView(st, 0).cut is None  # dealt: every card seat 0 has not seen is seat 1's
    assert PlayerView(st, 0).unseen == st.hand_masks[1]


def test_v_hun_cut_observation_of_the_non_dealer_only():
    """V-hun-cut: the non-dealer's observation marks the cut card in its `cut` segment (full
    and compact layouts); the dealer's is empty, and every other feature of both is the
    observation of the same game without the switch."""
    st = new_game("hungarian", 2, seed=11, **CUT)
    plain = State.from_spec({**st.to_spec(), "rules": {"ulmann": True}})
    name = st.rules.deck.names[st.stock_ids[-1]]
    for kind in ("full", "compact"):
        assert _segment(st, 0, "cut", kind) == [name]
        assert _segment(st, 1, "cut", kind) == []
    for seat in (0, 1):
        assert np.array_equal(_without_house(st, seat), _obs(plain, seat))
        assert np.array_equal(_without_house(st, seat, "compact"), _obs(plain, seat, "compact"))
    size = Layout(plain.rules, True).size
    assert Layout(st.rules, True).size == size + 52 + 9  # the `cut` and `house` segments
    assert Layout(st.rules, True, "compact").size == Layout(plain.rules, True,
                                                             "compact").size + 52


def _shuffled(st: State, keep_cut: bool, seed: int) -> State:
    """``st`` with the dealer's hand and the stock shuffled among themselves (the cut card
    kept at the bottom if ``keep_cut``)."""
    rng = random.Random(seed)
    stock = list(st.stock_ids)
    fixed = stock.pop() if keep_cut else None
    hidden = [c for c in range(52) if st.hand_masks[1] >> c & 1] + stock
    rng.shuffle(hidden)
    k = st.hand_masks[1].bit_count()
    spec = st.to_spec()
    names = st.rules.deck.names
    spec["hands"][1] = [names[c] for c in hidden[:k]]
    spec["stock"] = [names[c] for c in hidden[k:]] + ([names[fixed]] if keep_cut else [])
    return State.from_spec(spec)


def test_v_hun_cut_hidden_cards_other_than_the_cut_card_do_not_show():
    """V-hun-cut: shuffling the dealer's hand and the stock above the cut card leaves the
    non-dealer's observation unchanged; moving the cut card changes exactly its segment."""
    st = new_game("hungarian", 2, seed=11, **CUT)
    st = apply_move(st, legal_moves(st)[0])  # the dealer to move, the non-dealer observes
    base = _obs(st, 0)
    for seed in range(5):
        other = _shuffled(st, True, seed)
        assert other.hand_masks[1] != st.hand_masks[1] or other.stock_ids != st.stock_ids
        assert np.array_equal(_obs(other, 0), base)
        assert np.array_equal(_obs(other, 0, "compact"), _obs(st, 0, "compact"))
    moved = _shuffled(st, False, 3)
    assert moved.stock_ids[-1] != st.stock_ids[-1]
    diff = np.flatnonzero(_obs(moved, 0) != base)
    o = Layout(st.rules, True).offset["cut"]
    assert sorted(diff) == sorted([o + st.stock_ids[-1], o + moved.stock_ids[-1]])


def test_v_hun_cut_determinize_keeps_the_cut_card_at_the_bottom():
    """V-hun-cut: the non-dealer's determinizations keep the cut card at the bottom of the
    stock (the dealer's last card) and out of the dealer's hand; the dealer's, which never saw
    it, put any unseen card there."""
    st = new_game("hungarian", 2, seed=11, **CUT)
    bottom = st.stock_ids[-1]
    rng = random.Random(0)
    view = PlayerView(st, 0)
    for _ in range(20):
        det = view.determinize(rng)
        assert det.stock_ids[-1] == bottom and len(det.stock_ids) == 42
        assert det.hand_masks[0] == st.hand_masks[0] and not det.hand_masks[1] >> bottom & 1
        assert det.hand_masks[1].bit_count() == 3
        everything = det.hand_masks[0] | det.hand_masks[1] | det.table_mask()
        assert everything | sum(1 << c for c in det.stock_ids) == (1 << 52) - 1
    dealer = PlayerView(st, 1)
    bottoms = {dealer.determinize(rng).stock_ids[-1] for _ in range(20)}
    assert len(bottoms) > 1


def test_v_hun_cut_text_shows_it_to_the_non_dealer_only():
    """V-hun-cut: the text picture names the cut card for the non-dealer (and the whole
    state), not for the dealer."""
    st = new_game("hungarian", 2, seed=11, **CUT)
    name = st.rules.deck.names[st.stock_ids[-1]]
    line = f"cut    {name} (bottom of the stock, seen by seat 0; the dealer gets it in the " \
        "last deal)"
    assert line in describe_state(st).splitlines()
    assert line in describe_state(st, 0).splitlines()
    assert not any(x.startswith("cut") for x in describe_state(st, 1).splitlines())


def test_v_hun_cut_refused_without_ulmann_and_elsewhere():
    """V-hun-cut: the switch needs `ulmann` and exists only in `hungarian`."""
    with pytest.raises(ValueError, match="rule switch 'cut' needs 'ulmann'"):
        new_game("hungarian", 2, seed=1, cut=True)
    with pytest.raises(ValueError, match="rules: rule switch 'cut' needs 'ulmann'"):
        State.from_spec({"variant": "hungarian", "players": 2, "hands": [["2C"], ["3C"]],
                         "rules": {"cut": True}})
    for variant in ("casino", "royal", "dominican", "tuxedo", "spade", "wippen"):
        with pytest.raises(ValueError, match=f"rule switch 'cut' does not apply to "
                                             f"'{variant}'"):
            new_game(variant, 2, seed=1, cut=True)


def test_v_hun_cut_spec_round_trip():
    """V-hun-cut: the switch is in the spec's rules and round-trips through JSON, mid-hand
    too."""
    st = new_game("hungarian", 2, seed=11, **CUT)
    for _ in range(5):
        spec = st.to_spec()
        assert spec["rules"]["cut"] is True and spec["rules"]["ulmann"] is True
        back = State.from_spec(json.loads(json.dumps(spec)))
        assert back == st and PlayerView(back, 0).cut == PlayerView(st, 0).cut
        st = apply_move(st, legal_moves(st)[-1])


def test_v_hun_cut_random_games():
    """V-hun-cut: over seeded random games, at every move the non-dealer's view holds the
    stock's bottom card while the stock lasts and the dealer's none, determinizing the
    non-dealer's view keeps it there, and the hand is dealt as V-hun-play says."""
    for seed in range(3):
        rng = random.Random(seed)
        st = new_game("hungarian", 2, seed=seed, **CUT)
        while not st.game_over:
            non_dealer = 1 - st.dealer
            cut = PlayerView(st, non_dealer).cut
            assert cut == (st.stock_ids[-1] if st.stock_ids else None)
            assert PlayerView(st, st.dealer).cut is None
            if st.stock_ids and rng.random() < 0.2:
                det = PlayerView(st, non_dealer).determinize(rng)
                assert det.stock_ids[-1] == cut and len(det.stock_ids) == len(st.stock_ids)
            before = st.stock_ids
            st = apply_move(st, rng.choice(legal_moves(st)))
            if len(before) == 6 and not st.stock_ids:  # the last deal: the dealer got it
                assert st.hand_masks[st.dealer] >> before[-1] & 1
