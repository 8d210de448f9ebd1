"""Rule tests for the `swazi` preset (African Casino, Eswatini; RULES.md section 4).

Each test names the rule id it checks: V-swazi-steal (the top card of another side's capture
pile is an item like a loose card; piles are ordered stacks), V-swazi-deal (4 to the table,
then 12 + 12 each with 2 players, 16 or 12 each at once with 3 or 4; seat order), V-swazi-score
(most cards 2, most spades 2, a tie 1 each; 2S 1, 10D 2, aces 1; no sweeps), V-dom-build and
C-game (target 21) as they apply here. Decisions: docs/rules.md "V-swazi-steal" and following.
"""

from __future__ import annotations

import random
from functools import partial

import numpy as np
import pytest
from rules_helpers import DECK, PLAIN, SPADES, build, mk_for, moves, rule_of, split
from rules_helpers import end_hand as rules_end_hand

from casino_env.engine import (
    IllegalMoveError,
    Move,
    State,
    apply_move,
    describe_variant,
    legal_moves,
    new_game,
    parse_move,
)
from casino_env.engine.rules import make_rules
from casino_env.engine.state import stealable

mk = mk_for("swazi")
end_hand = partial(rules_end_hand, variant="swazi")


def check_places(st: State, complete: bool = True) -> None:
    """Every card is in one place at most (with ``complete``, every card of the deck in
    exactly one place), and each ordered pile is its mask."""
    places = list(st.hand_masks) + [st.loose_mask] + [b.cards for b in st.builds] \
        + list(st.pile_masks) + [sum(1 << c for c in st.stock_ids)]
    seen = 0
    for m in places:
        assert not seen & m
        seen |= m
    assert seen == st.rules.deck.full or not complete
    for ids, mask in zip(st.pile_ids, st.pile_masks):
        assert len(set(ids)) == len(ids) and sum(1 << c for c in ids) == mask


# -- the preset ---------------------------------------------------------------------------------

def test_swazi_preset_players_partners_values_switches():
    """V-swazi-deal / section 4: 2-4 players, 4 as partners; Royal values; V-dom-build on;
    no sweeps; target 21 (C-game)."""
    assert describe_variant("swazi")["players"] == [2, 3, 4]
    assert make_rules("swazi", 4).partnerships
    assert not make_rules("swazi", 3).partnerships
    r = make_rules("swazi", 2)
    assert r.dom_build and not r.sweeps and r.target == 21 and r.ace14 and r.steal
    assert r.values[r.deck.parse("KD")] == 13 and r.values[r.deck.parse("AS")] == 1
    with pytest.raises(ValueError, match="sweeps"):
        make_rules("swazi", 2, switches={"sweeps": True})
    assert not make_rules("royal", 2).steal and not new_game("royal", 2, seed=1).pile_ids


# -- V-swazi-steal ------------------------------------------------------------------------------

# Side 0's pile: 9S at the bottom, 4D on top; side 1's: 4C under 5S.
PILES = [["9S", "4D"], ["4C", "5S"]]


def test_v_swazi_steal_top_card_captured_and_built_like_a_loose_card():
    """V-swazi-steal: the top of the opponent's pile (5S) joins sums like a loose card; the
    card beneath it (4C) and the mover's own top (4D) are no items."""
    st = mk([["7H", "9C", "KD"], ["2H"]], ["2C"], piles=PILES)
    assert stealable(st, 0) == 1 << st.rules.deck.parse("5S")
    assert moves(st) == {
        "7H trails", "9C trails", "KD trails",
        "7H captures 2C+5S (5S from side 1's pile)",
        "7H builds 9 on 2C",
    }
    # A capture of the pile top alone, and a build on it.
    st = mk([["5H", "8D"], ["2H"]], [], piles=PILES)
    assert moves(st) == {"5H trails", "8D trails", "5H captures 5S (5S from side 1's pile)"}
    st = mk([["3H", "8D"], ["2H"]], [], piles=PILES)
    assert moves(st) == {"3H trails", "8D trails", "3H builds 8 on 5S (5S from side 1's pile)"}


def test_v_swazi_steal_only_the_top_and_never_your_own_pile_illegal_moves_name_the_rule():
    """V-swazi-steal: taking a card under the top, or from the mover's own pile, is illegal
    and the error names the rule and says where the card lies."""
    st = mk([["9C", "7H"], ["2H"]], ["2C"], piles=PILES)
    assert rule_of(st, "9C captures 4C+5S") == "V-swazi-steal"
    assert rule_of(st, "9C captures 4D+5S") == "V-swazi-steal"
    with pytest.raises(IllegalMoveError) as e:
        apply_move(st, "9C captures 4C+5S")
    assert "4C is in side 1's pile under 5S: only a pile's top card may be taken" in str(e.value)
    assert str(e.value).startswith("9C captures 4C+5S (4C from side 1's pile, 5S from side 1's "
                                   "pile)")
    with pytest.raises(IllegalMoveError, match="4D is in side 0's pile, the mover's own side's"):
        apply_move(st, Move("capture", "9C", ["4D", "5S"]))
    # A sum that does not work names the pile top as such.
    with pytest.raises(IllegalMoveError, match=r"5S \(top of side 1's pile\) counts 5, not 9"):
        apply_move(st, "9C captures 5S")
    assert rule_of(st, "9C captures 5S") == "C-capture"


def test_v_swazi_steal_capture_stacks_taken_cards_in_card_order_played_card_on_top():
    """V-swazi-steal (decision): a capture puts the taken cards on the capturer's pile in card
    order (rank, then S H D C), the played card on top; the robbed pile's next card becomes
    its top."""
    st = mk([["7H", "9C", "KD"], ["7C", "2H"]], ["2C"], piles=PILES)
    after = apply_move(st, "7H captures 2C+5S")
    assert after.piles == [["9S", "4D", "2C", "5S", "7H"], ["4C"]]
    assert after.pile_top(0) == "7H" and after.pile_top(1) == "4C"
    assert after.loose == [] and after.current == 1
    check_places(after, complete=False)
    # Seat 1 may now take 7H, seat 0's new top; then 5S is side 0's top again.
    assert "7C captures 7H (7H from side 0's pile)" in moves(after)
    again = apply_move(after, "7C captures 7H")
    assert again.piles == [["9S", "4D", "2C", "5S"], ["4C", "7H", "7C"]]
    assert again.pile_top(0) == "5S"
    # For seat 0 only side 1's new top (7C) is an item: its own top 5S and the 4C under 7H
    # are not.
    assert stealable(again, 0) == 1 << again.rules.deck.parse("7C")


def test_v_swazi_steal_the_card_beneath_becomes_the_top():
    """V-swazi-steal: after the top is taken, the card beneath is the pile's top and an item."""
    st = mk([["5H", "4H"], ["2H", "3C"]], [], piles=PILES)
    after = apply_move(st, "5H captures 5S")
    assert after.pile_top(1) == "4C"
    # Seat 1 to move: side 0's top is now 5H; its 2H can take nothing.
    assert after.pile_top(0) == "5H" and moves(after, "2H") == {"2H trails"}
    after2 = apply_move(after, "2H trails")
    assert "4H captures 4C (4C from side 1's pile)" in moves(after2)
    assert apply_move(after2, "4H captures 4C").pile_ids[1] == ()


def test_v_swazi_steal_three_players_each_other_pile_top():
    """V-swazi-steal: with three players the tops of both other piles are items, even in one
    capture; the mover's own top is not."""
    piles = [["KS"], ["QH", "2C"], ["4S"]]
    st = mk([["6H", "8D"], ["3H"], ["3D"]], [], piles=piles)
    assert moves(st) == {
        "6H trails", "8D trails",
        "6H captures 2C+4S (2C from side 1's pile, 4S from side 2's pile)",
        "6H builds 8 on 2C (2C from side 1's pile)",
    }
    after = apply_move(st, "6H captures 2C+4S")
    assert after.piles == [["KS", "2C", "4S", "6H"], ["QH"], []]
    check_places(after, complete=False)
    # Seat 1 may take seat 0's top, 6H...
    st1 = mk([["2D"], ["6S", "9D"], ["3D"]], [], piles=after.piles, current=1)
    assert moves(st1) == {"6S trails", "9D trails",
                          "6S captures 6H (6H from side 0's pile)"}
    # ... and seat 0 the top of side 1 (QH) with a Q.
    assert "QD captures QH (QH from side 1's pile)" in moves(
        mk([["QD"], ["5C"], ["5D"]], [], piles=after.piles))


def test_v_swazi_steal_partners_may_not_take_from_their_own_pile():
    """V-swazi-steal: partners share one pile; neither may take its top (here 5C, played by
    seat 2), while the opponents may."""
    piles = [["KS", "5C"], ["JH", "3D"]]
    hands = [["8H", "2S"], ["5D", "QC"], ["4H", "9S"], ["6C", "7C"]]
    st = mk(hands, ["5H"], piles=piles)
    assert st.rules.partnerships
    assert moves(st, "8H") == {"8H trails", "8H captures 3D+5H (3D from side 1's pile)"}
    assert rule_of(st, "8H captures 3D+5C") == "V-swazi-steal"
    with pytest.raises(IllegalMoveError, match="partners may not take from their own pile"):
        apply_move(st, "8H captures 3D+5C")
    # Seat 2, seat 0's partner, neither; seat 1 (the other side) may take 5C.
    st2 = mk(hands, ["5H"], piles=piles, current=2)
    assert "4H captures 4H" not in moves(st2)
    assert stealable(st2, 2) == 1 << st.rules.deck.parse("3D")
    st1 = mk(hands, ["5H"], piles=piles, current=1)
    assert "5D captures 5H+5C (5C from side 0's pile)" in moves(st1)
    assert stealable(st1, 3) == stealable(st1, 1) == 1 << st.rules.deck.parse("5C")


def test_v_swazi_steal_a_stolen_card_joins_a_build_and_stays_in_it():
    """V-swazi-steal: a pile top built on leaves its pile and stays in the build like any
    table card; capturing the build takes it."""
    st = mk([["3H", "8D"], ["2H", "QS"]], [], piles=PILES)
    after = apply_move(st, "3H builds 8 on 5S")
    assert after.table == [{"cards": ["3H", "5S"], "value": 8, "owner": 0, "multiple": False}]
    assert after.piles == [["9S", "4D"], ["4C"]]
    check_places(after, complete=False)
    after = apply_move(after, "2H trails")
    done = apply_move(after, "8D captures 3H+5S")
    assert done.piles == [["9S", "4D", "3H", "5S", "8D"], ["4C"]]


def test_v_swazi_steal_a_build_can_be_raised_and_extended_with_a_pile_top():
    """V-swazi-steal: extending a build with a set made of the played card and a pile top."""
    st = mk([["3C", "8D"], ["8H"]], [build(["6H", "2D"], 8, 1)], piles=PILES)
    # 3C + 5S (side 1's top) make a second set of 8: the build becomes multiple and seat 0's.
    assert "3C builds 8 on 2D+5S+6H (5S from side 1's pile)" in moves(st)
    after = apply_move(st, "3C builds 8 on 2D+5S+6H")
    assert after.builds[0].multiple and after.builds[0].owner == 0
    assert after.piles == [["9S", "4D"], ["4C"]]


def test_v_swazi_steal_move_notation_round_trips_and_the_clause_is_checked():
    """V-swazi-steal: the printed move names the pile it takes from; parse_move reads it back,
    also without the clause (a card lies in one place); a wrong clause is refused."""
    st = mk([["7H", "9C", "KD"], ["2H"]], ["2C"], piles=PILES)
    m = parse_move("7H captures 2C+5S", st)
    assert str(m) == "7H captures 2C+5S (5S from side 1's pile)"
    assert parse_move(str(m), st) == m and str(parse_move(str(m), st)) == str(m)
    for bad, what in (("7H captures 2C+5S (5S from side 0's pile)", "not in side 0's pile"),
                      ("7H captures 2C+5S (2C from side 1's pile)", "not in side 1's pile"),
                      ("7H captures 2C+5S (4C from side 1's pile)", "not among the cards"),
                      ("7H captures 2C+5S (5S from the pile)", "expected e.g."),
                      ("7H trails (5S from side 1's pile)", "a trail takes no pile card")):
        with pytest.raises(ValueError, match=what):
            parse_move(bad, st)
    rng = random.Random(3)
    for seed in range(6):
        st = new_game("swazi", 2 + seed % 3, seed=seed)
        while not st.game_over:
            for mv in legal_moves(st):
                assert parse_move(str(mv), st) == mv
                assert str(parse_move(str(mv), st)) == str(mv)
            st = apply_move(st, rng.choice(legal_moves(st)))


def test_v_swazi_steal_pile_tops_are_not_table_cards_for_sweeps_and_residue():
    """V-swazi-steal (decision): a capture that empties the table is a sweep whatever lies on
    the piles (and sweeps score nothing here); the residue is the loose cards and builds only,
    and goes on top of the last capturer's pile in card order."""
    st = mk([["5H"], ["2H"]], ["5D"], piles=PILES, stock=["9H", "9D"])
    after = apply_move(st, "5H captures 5D")
    assert after.sweeps == (0, 0) and after.loose == [] and after.pile_top(1) == "5S"
    last = State.from_spec({"variant": "swazi", "players": 2, "hands": [[], ["QH"]],
                            "table": ["8C", "3S"], "piles": PILES, "current": 1,
                            "dealer": 1, "last_capturer": 0, "stock": [], "seed": 5})
    done = apply_move(last, "QH trails")
    # Hand over: the residue 3S 8C QH went to side 0, the piles' cards stayed where they were.
    assert done.hand_points is not None
    assert done.dealer == 0 and done.hand_no == 1  # the next hand is dealt


def test_v_swazi_steal_residue_order():
    """V-swazi-steal (decision): the residue goes on top of the last capturer's pile in card
    order (checked on a finished game, where the piles stay in the final state)."""
    piles = [["9S", "4D"], [c for c in DECK if c not in ("9S", "4D", "8C", "3S", "QH")]]
    last = State.from_spec({"variant": "swazi", "players": 2, "hands": [[], ["QH"]],
                            "table": ["8C", "3S"], "piles": piles, "current": 1,
                            "dealer": 1, "last_capturer": 0, "stock": [], "seed": 5,
                            "scores": [0, 20]})
    done = apply_move(last, "QH trails")
    assert done.game_over and done.piles[0] == ["9S", "4D", "3S", "8C", "QH"]
    check_places(done)


def test_v_swazi_steal_random_games_keep_every_card_in_one_place():
    """V-swazi-steal: in random games every card stays in exactly one place and each ordered
    pile matches its mask; each capture leaves the played card on top."""
    rng = random.Random(11)
    for seed in range(8):
        st = new_game("swazi", 2 + seed % 3, seed=seed)
        while not st.game_over:
            check_places(st)
            m = rng.choice(legal_moves(st))
            side = st.rules.side(st.current)
            nxt = apply_move(st, m)
            if m.kind == "capture" and nxt.hand_no == st.hand_no and not nxt.game_over:
                assert nxt.pile_ids[side][-1] == m.played_mask.bit_length() - 1
            st = nxt
        check_places(st)


# -- V-dom-build in swazi -----------------------------------------------------------------------

def test_v_dom_build_in_swazi_no_raising_your_own_build_no_building_for_partner():
    """V-dom-build: the owner may not raise its single build (with a pile top either), and no
    build is made for partner."""
    st = mk([["2C", "8D", "10H"], ["2H"]], [build(["6H", "2D"], 8, 0)], piles=PILES)
    assert rule_of(st, "2C builds 10 on 2D+6H") == "V-dom-build"
    assert not any(m.value == 10 for m in legal_moves(st))
    hands = [["2C", "9D"], ["5D"], ["7H", "9H"], ["6C"]]
    st4 = mk(hands, ["7S"], piles=[[], []])
    assert rule_of(st4, Move("build", "2C", ["7S"], 9, for_partner=True)) == "V-partner-build"
    assert moves(st4, "2C") == {"2C trails", "2C builds 9 on 7S"}


# -- V-swazi-deal -------------------------------------------------------------------------------

@pytest.mark.parametrize("players,each", [(3, 16), (4, 12)])
def test_v_swazi_deal_three_or_four_players_everything_at_once(players, each):
    """V-swazi-deal: 3 or 4 players: 4 to the table and all the rest at once (16 / 12 each)."""
    st = new_game("swazi", players, seed=4)
    assert [len(h) for h in st.hands] == [each] * players
    assert len(st.loose) == 4 and st.stock == [] and st.last_deal
    assert 4 + each * players == 52


def test_v_swazi_deal_two_players_two_deals_of_twelve():
    """V-swazi-deal: 2 players: 4 to the table, then two deals of 12 each (4 + 24 + 24)."""
    st = new_game("swazi", 2, seed=9)
    assert [len(h) for h in st.hands] == [12, 12]
    assert len(st.loose) == 4 and st.stock_size == 24 and not st.last_deal
    rng = random.Random(0)
    plays = 0
    while st.stock_size:
        st = apply_move(st, rng.choice(legal_moves(st)))
        plays += 1
    assert plays == 24
    assert [len(h) for h in st.hands] == [12, 12] and st.last_deal and st.hand_no == 0
    check_places(st)


def test_v_swazi_deal_seat_order_follows_play_and_lead():
    """V-swazi-deal (decision): seat numbers follow the order of play, which runs the other way
    round the table (to the right); so the engine's turn order is seat + 1, the player after
    the dealer leads and partners are seats 0+2 v 1+3."""
    st = new_game("swazi", 4, seed=2)
    assert st.dealer == 3 and st.current == 0
    order = []
    for _ in range(4):
        order.append(st.current)
        st = apply_move(st, legal_moves(st)[0])
    assert order == [0, 1, 2, 3]
    assert st.rules.side(2) == 0 and st.rules.side(3) == 1


# -- V-swazi-score ------------------------------------------------------------------------------

def test_v_swazi_score_eleven_points_one_side_takes_everything():
    """V-swazi-score: most cards 2, most spades 2, 2S 1, 10D 2, four aces 4: 11 a hand."""
    everything = [[c for c in DECK if c != "3H"], []]
    assert end_hand(everything, [0, 0]).hand_points == [11, 0]


def test_v_swazi_score_split_and_tie_for_cards_one_each():
    """V-swazi-score: a tie for most cards gives 1 each (not nothing, as C-score)."""
    # side 0: 31 cards (with the residue 3H), 10D, AH: 2 + 2 + 1 = 5; side 1: spades 2, 2S 1,
    # AS AD AC 3 = 6.
    assert end_hand(split(30, ["10D", "AH"]), [0, 0]).hand_points == [5, 6]
    # 26 - 26: 1 each. side 0: 1 + 2 + 1 = 4; side 1: 1 + 2 + 1 + 3 = 7.
    st = end_hand(split(25, ["10D", "AH"]), [0, 0])
    assert st.hand_points == [4, 7] and sum(st.hand_points) == 11


def test_v_swazi_score_three_players_ties_for_most_cards_and_spades():
    """V-swazi-score: with three sides only the sides tied for most share, 1 each."""
    spades = SPADES  # AS 2S ... KS
    pool = [c for c in PLAIN if c != "3H"]
    # side 0: 5 spades (AS..5S) + 14 plain = 19 cards (+ residue 3H = 20), side 1: 5 spades
    # (6S..10S) + 15 others = 20, side 2: the other 3 spades and the rest = 12.
    p0 = spades[:5] + pool[:14]
    p1 = spades[5:10] + pool[14:29]
    p2 = [c for c in DECK if c not in p0 and c not in p1 and c != "3H"]
    assert (len(p0) + 1, len(p1), len(p2)) == (20, 20, 12)
    st = end_hand([p0, p1, p2], [0, 0, 0])
    # side 0: cards 1, spades 1, AS 1, 2S 1 = 4; side 1: cards 1, spades 1 = 2; side 2: 10D,
    # AH AD AC = 5 (it holds the 10D and three aces: they are not in PLAIN).
    assert st.hand_points == [4, 2, 5] and sum(st.hand_points) == 11


def test_v_swazi_score_ties_with_a_points_table_score_half_each():
    """V-swazi-score with V-points (decision): sides tied for most score half the item's
    points, rounded down: cards worth 4 give 2 each, worth 3 give 1 each."""
    # 26 - 26 cards; side 1 has every spade. side 0: cards 2, 10D 2, AH 1 = 5 (cards 4).
    st = end_hand(split(25, ["10D", "AH"]), [0, 0], rules={"points": {"cards": 4}})
    assert st.hand_points == [5, 8]  # side 1: cards 2, spades 2, 2S 1, three aces 3
    st = end_hand(split(25, ["10D", "AH"]), [0, 0], rules={"points": {"cards": 3}})
    assert st.hand_points == [4, 7]
    assert make_rules("swazi", 2).item_points == (2, 2, 2, 1, 1, 0, 0)


def test_v_swazi_score_sweeps_score_nothing():
    """V-swazi-score: a capture that empties the table records no sweep and scores nothing."""
    st = mk([["5H", "9C"], ["2H", "9D"]], ["5D"], stock=["QH", "QD"])
    after = apply_move(st, "5H captures 5D")
    assert after.loose == [] and after.sweeps == (0, 0) and after.events == ()
    with pytest.raises(ValueError, match="sweeps"):
        mk([["5H"], ["2H"]], [], sweeps=[1, 0])


def test_v_swazi_score_partners_score_as_one_side():
    """V-swazi-score: four players as partners score per side (two sides)."""
    everything = [[c for c in DECK if c != "3H"], []]
    st = end_hand(everything, [0, 0], partnerships=True)
    assert st.hand_points == [11, 0]


def test_v_swazi_score_random_hands_always_eleven():
    """V-swazi-score: whatever happens, a hand scores 11 in all (ties split 2 into 1 + 1)."""
    rng = random.Random(5)
    for seed in range(6):
        st = new_game("swazi", 2 + seed % 3, seed=100 + seed)
        while not st.game_over and st.hand_no < 2:
            before = st.hand_no
            st = apply_move(st, rng.choice(legal_moves(st)))
            if st.hand_no != before or st.game_over:
                assert sum(st.hand_points) == 11


# -- C-game -------------------------------------------------------------------------------------

@pytest.mark.parametrize("start,winner", [([18, 0], 0), ([10, 0], None), ([19, 19], 1)])
def test_c_game_swazi_target_21(start, winner):
    """C-game: first to 21; several at once: the higher total wins (side 0 scores 5, side 1
    6 here; 19 + 5 = 24 < 19 + 6 = 25)."""
    st = end_hand(split(30, ["10D", "AH"]), start)
    assert st.hand_points == [5, 6]
    assert st.winner == winner and st.game_over == (winner is not None)


# -- specs --------------------------------------------------------------------------------------

def test_v_swazi_steal_spec_lists_piles_bottom_first_and_round_trips():
    """V-swazi-steal: a spec lists each pile bottom first; to_spec/from_spec keep the order
    (two piles with the same cards in another order are different states)."""
    st = mk([["7H"], ["2H"]], ["2C"], piles=[["KS", "4D", "9S"], ["5S", "4C"]])
    assert st.to_spec()["piles"] == [["KS", "4D", "9S"], ["5S", "4C"]]
    assert st.pile_top(0) == "9S" and st.pile_top(1) == "4C"
    assert State.from_spec(st.to_spec()) == st
    other = mk([["7H"], ["2H"]], ["2C"], piles=[["KS", "9S", "4D"], ["5S", "4C"]])
    assert other != st and other.pile_masks == st.pile_masks
    rng = random.Random(2)
    for seed in range(4):
        g = new_game("swazi", 2 + seed % 3, seed=seed)
        for _ in range(30):
            if g.game_over:
                break
            assert State.from_spec(g.to_spec()) == g
            g = apply_move(g, rng.choice(legal_moves(g)))


@pytest.mark.parametrize("piles,field", [
    ([["KS", "XX"], []], r"piles\[0\]\[1\]"),
    ([["KS"], "4C"], r"piles\[1\]"),
    ([["KS"], ["KS"]], r"piles\[1\]\[0\]: duplicate card KS"),
    ([["7H"], []], r"piles\[0\]\[0\]: duplicate card 7H"),
    ([["KS"]], "piles"),
])
def test_v_swazi_steal_malformed_pile_names_the_field(piles, field):
    """V-swazi-steal: a malformed ordered pile names the field."""
    with pytest.raises(ValueError, match=field):
        mk([["7H"], ["2H"]], [], piles=piles)


# -- the scripted agents (agents/scripted.py, agents/fastsim.py) --------------------------------

def _heuristic_scores(st: State) -> dict[str, float]:
    from agents.scripted import HeuristicAgent
    from casino_env.engine.view import PlayerView

    view = PlayerView(st, st.current)
    moves = view.legal_moves()
    return dict(zip(map(str, moves), HeuristicAgent().scores(view, moves)))


# A stock of cards the two positions share, so that the unseen cards are the same.
REST = [c for c in DECK if c not in ("9S", "9H", "9C", "9D", "4C", "4D", "10D", "QD", "KH",
                                      "KD", "2H", "5H")]


def test_v_swazi_steal_heuristic_values_taking_an_opponents_pile_top():
    """V-swazi-steal: the heuristic rates taking the opponent's top above taking a loose card
    worth the same (the robbed side loses it), and its choice takes the top."""
    from agents.scripted import HeuristicAgent
    from casino_env.engine.view import PlayerView

    st = mk([["9S", "KD"], ["2H", "5H"]], ["9H"], piles=[["4D"], ["4C", "9C"]], stock=REST)
    scores = _heuristic_scores(st)
    steal, loose = "9S captures 9C (9C from side 1's pile)", "9S captures 9H"
    assert scores[steal] > scores[loose]
    assert "9C" in HeuristicAgent().choose(PlayerView(st, 0)).taken  # (9H+9C, both sets)


def test_v_swazi_steal_heuristic_guards_a_valuable_top_of_its_own_pile():
    """V-swazi-steal: the heuristic counts a valuable card left on top of its own pile against
    the move (the opponent may hold its rank): the same trail rates lower with the 10D on top
    than with the 4D, and covering the 10D by a capture gains from it."""
    base = dict(stock=REST)
    hands = [["QD", "KH"], ["2H", "5H"]]
    exposed = _heuristic_scores(mk(hands, ["9H"], piles=[["4D", "10D"], ["4C"]], **base))
    plain = _heuristic_scores(mk(hands, ["9H"], piles=[["10D", "4D"], ["4C"]], **base))
    assert exposed["KH trails"] < plain["KH trails"] - 0.1
    # Covering the top: in the exposed position a capture buries the 10D, a trail leaves it.
    st = mk([["9S", "KH"], ["2H", "5H"]], ["9H"], piles=[["4D", "10D"], ["4C"]], **base)
    scores = _heuristic_scores(st)
    plain_st = mk([["9S", "KH"], ["2H", "5H"]], ["9H"], piles=[["10D", "4D"], ["4C"]], **base)
    plain_scores = _heuristic_scores(plain_st)
    margin = scores["9S captures 9H"] - scores["KH trails"]
    assert margin > plain_scores["9S captures 9H"] - plain_scores["KH trails"] + 0.1


def test_v_swazi_steal_fastsim_moves_are_legal_and_take_pile_tops():
    """V-swazi-steal: the lean rollout simulator (agents/fastsim.py) offers pile tops like the
    engine, so its greedy move here is the engine's legal steal."""
    from agents.fastsim import greedy_step, sim_rules, supported

    st = mk([["9S", "KD"], ["2H", "5H"]], [], piles=[["4D"], ["4C", "9C"]], stock=REST)
    assert supported(st.rules)
    sr = sim_rules(st.rules)
    items = st.loose_mask | stealable(st, 0)
    kind, card, taken = greedy_step(sr, st.hand_masks[0], items, [], 0)
    move = next(m for m in legal_moves(st) if m.played_mask == 1 << card
                and m.taken_mask == taken)
    assert str(move) == "9S captures 9C (9C from side 1's pile)" and kind == 1


# -- the environment: observation, actions, records, play, pictures -----------------------------

def test_v_swazi_steal_observation_pile_tops_segment_full_and_compact():
    """V-swazi-steal: the `pile_tops` segment (swazi only) shows each pile's order by depth,
    1/(d+1) for a card d deep, per relative side (full) or signed mine +/others - (compact);
    hand sizes are scaled by the deal (12 here)."""
    from casino_env.encoding import N_CARDS, Layout

    st = mk([["7H"], ["2H"]], ["2C"], piles=[["KS", "4D", "9S"], ["5S", "4C"]])
    d = st.rules.deck
    for kind in ("full", "compact"):
        lay = Layout(st.rules, True, kind)
        assert "pile_tops" in lay.offset and lay.hand_scale == 12
        out = np.zeros(lay.size, np.float32)
        lay.encode(st, 1, out)  # seat 1 observes: its side first
        o = lay.offset["pile_tops"]
        seg = out[o:o + lay.segments[[s[0] for s in lay.segments].index("pile_tops")][2]]
        if kind == "full":
            mine, theirs = seg[:N_CARDS], seg[N_CARDS:]
            assert mine[d.parse("4C")] == 1 and mine[d.parse("5S")] == 0.5
            assert theirs[d.parse("9S")] == 1 and theirs[d.parse("4D")] == 0.5
            assert theirs[d.parse("KS")] == pytest.approx(1 / 3)
        else:
            assert seg[d.parse("4C")] == 1 and seg[d.parse("9S")] == -1
            assert seg[d.parse("KS")] == pytest.approx(-1 / 3)
        assert np.count_nonzero(seg) == 5
        assert out[lay.offset["hand_sizes"]] == pytest.approx(1 / 12)
    for variant in ("casino", "royal", "dominican"):
        assert "pile_tops" not in Layout(make_rules(variant, 2), True, "full").offset
    assert Layout(make_rules("casino", 2), True, "full").size == 1227
    assert Layout(make_rules("casino", 2), True, "compact").size == 257


def test_v_swazi_steal_compose_selects_a_pile_top_by_its_card_id():
    """V-swazi-steal: in compose mode a pile top is selected with SELECT + its card id (a card
    is in one place only); enumerate mode's features show it among the cards taken."""
    from casino_env.encoding import (
        CAPTURE,
        FINISH,
        N_CARDS,
        N_FEATURES,
        PLAY,
        SELECT,
        Composer,
        move_features,
        move_tokens,
    )

    st = mk([["7H", "9C", "KD"], ["2H"]], ["2C"], piles=PILES)
    d = st.rules.deck
    steal = parse_move("7H captures 2C+5S", st)
    toks = (PLAY + d.parse("7H"), CAPTURE, SELECT + d.parse("2C"), SELECT + d.parse("5S"),
            FINISH)
    assert move_tokens(st, steal) == toks
    comp = Composer.for_state(st)
    for t in toks[:-1]:
        assert t in comp.options() and comp.push(t) is None
    assert SELECT + d.parse("4C") not in comp.options()
    assert comp.push(FINISH) == steal
    feats = np.zeros(N_FEATURES, np.float32)
    move_features(steal, feats)
    assert feats[N_CARDS + d.parse("5S")] == 1 and feats[N_CARDS + d.parse("2C")] == 1


def test_v_swazi_env_plays_and_records_replay(tmp_path):
    """The swazi env plays whole games in both action modes, and a recorded game replays."""
    from test_env import play_random

    import casino_env
    from casino_env.records import record_game, replay

    for mode in ("compose", "enumerate"):
        env = casino_env.env(variant="swazi", players=3, action_mode=mode)
        env.reset(seed=5)
        totals = play_random(env, 0)
        assert not env.agents and sum(totals.values()) == pytest.approx(0.0)
    path = tmp_path / "swazi.jsonl"
    st, _ = record_game(["heuristic", "greedy"], "swazi", seed=4, path=path)
    assert st.game_over and replay(path) == st
    assert "from side" in path.read_text()  # moves that take pile tops say so


def test_v_swazi_play_cli_picture_and_gym_id():
    """The play CLI plays swazi (its printed moves replay through parse_move), the pictures
    show the pile tops, and `casino_env/Swazi-v0` is registered."""
    import io

    import gymnasium as gym

    from casino_env.picture import state_svg
    from casino_env.terminal import play_terminal

    out = io.StringIO()
    st = play_terminal(variant="swazi", players=2, opponent="heuristic", seed=6,
                       input=io.StringIO("1\n" * 400), output=out)
    text = out.getvalue()
    assert st.game_over and "top " in text
    replayed = new_game("swazi", 2, seed=6)
    for line in text.splitlines():
        parts = line.split(": ", 1)
        if len(parts) == 2 and parts[0].strip().split(". ")[0].isdigit() and " seat " in line:
            replayed = apply_move(replayed, parse_move(parts[1], replayed))
    assert replayed == st
    mid = mk([["7H"], ["2H"]], ["2C"], piles=PILES)
    assert "top 5S" in state_svg(mid) and "top 4D" in state_svg(mid)
    env = gym.make("casino_env/Swazi-v0")
    env.reset(seed=1)
    assert env.unwrapped.raw.variant == "swazi"
