"""Rule tests for the `dominican` preset (Casino in the Dominican Republic) and its switches.

Each test names the rule id it checks: V-dom-trail (pagat's examples 1-5 of restriction 3),
V-dom-build, V-cancel, V-dom-end (with `twenty_by_two_spades`, `restricted_no_sweeps`),
V-soto and V-partner-build. Seeds: pagat's Royal Casino page (000/002).
"""

from __future__ import annotations

from functools import partial

import pytest
from rules_helpers import PLAIN, SCORING, SPADES, build, mk_for, moves, rule_of
from rules_helpers import end_hand as rules_end_hand

from casino_env.engine import State, apply_move, new_game

# -- helpers (the shared ones are in tests/rules_helpers.py) --------------------------------------

mk = mk_for("dominican")
end_hand = partial(rules_end_hand, variant="dominican")


def piles_of(sides, hold=("3H",)) -> list[list[str]]:
    """Capture piles of all 52 cards but ``hold``. ``sides``: (count, special cards) per side
    except the last, which gets every other card."""
    named = set(hold) | {c for _, sp in sides for c in sp}
    pool = [c for c in PLAIN if c not in named]
    piles = []
    for count, special in sides:
        need = count - len(special)
        assert need >= 0
        piles.append(list(special) + pool[:need])
        pool = pool[need:]
    piles.append([c for c in SCORING if c not in named] + pool)
    return piles


def two(count0: int, special0, hold=("3H",)) -> list[list[str]]:
    """Two piles: side 0 ``count0`` cards with ``special0``, side 1 the rest."""
    return piles_of([(count0, special0)], hold)


# -- V-dom-trail ----------------------------------------------------------------------------------

def test_v_dom_trail_example_1_king_on_k_8_7_5_a():
    """V-dom-trail (example 1): K played on K 8 7 5 A: capture K+8+5, K+7+5+A or just the K;
    it may not trail, and every capture takes the loose K."""
    st = mk([["KH"], ["2C"]], ["KS", "8C", "7D", "5H", "AC"])
    assert moves(st) == {"KH captures KS", "KH captures 5H+8C+KS",
                         "KH captures AC+5H+7D+KS"}
    assert rule_of(st, "KH trails") == "V-dom-trail"
    assert rule_of(st, "KH captures 5H+8C") == "V-dom-trail"
    after = apply_move(st, "KH captures KS")
    assert after.table == ["AC", "5H", "7D", "8C"]


def test_v_dom_trail_example_1_second_king_multiple_build():
    """V-dom-trail (example 1): holding a second King, the player may build instead, e.g. the
    multiple build K,K,7,5,A."""
    st = mk([["KH", "KD"], ["2C"]], ["KS", "8C", "7D", "5H", "AC"])
    assert moves(st, "KH") == {
        "KH captures KS", "KH captures 5H+8C+KS", "KH captures AC+5H+7D+KS",
        "KH builds 13 on KS", "KH builds 13 on 5H+8C", "KH builds 13 on 5H+8C+KS",
        "KH builds 13 on AC+5H+7D", "KH builds 13 on AC+5H+7D+KS",
    }
    after = apply_move(st, "KH builds 13 on AC+5H+7D+KS")
    assert after.table == ["8C", build(["AC", "5H", "7D", "KS", "KH"], 13, 0, True)]


def test_v_dom_trail_example_2_queen_on_7_5_4_may_trail():
    """V-dom-trail (example 2): a Queen on 7 5 4 may capture 7+5 or trail (no equal card)."""
    st = mk([["QH"], ["2C"]], ["7S", "5D", "4C"])
    assert moves(st) == {"QH trails", "QH captures 5D+7S"}


def test_v_dom_trail_example_3_ten_must_take_both_tens():
    """V-dom-trail (example 3): layout 10D 10C 8H 6H, the 10S must capture both tens."""
    st = mk([["10S"], ["2C"]], ["10D", "10C", "8H", "6H"])
    assert moves(st) == {"10S captures 10D+10C"}
    assert rule_of(st, "10S captures 10D") == "V-dom-trail"
    assert rule_of(st, "10S captures 10C") == "V-dom-trail"
    assert rule_of(st, "10S trails") == "V-dom-trail"


def test_v_dom_trail_example_4_five_builds_ten_instead():
    """V-dom-trail (example 4): a loose 5, holding 5 and 10: the 5 need not capture the 5; it
    may build 10 (5+5) instead, but may not trail."""
    st = mk([["5H", "10D"], ["2C"]], ["5C", "3D", "KS"])
    assert moves(st) == {"5H captures 5C", "5H builds 10 on 5C", "10D trails"}
    assert rule_of(st, "5H trails") == "V-dom-trail"
    after = apply_move(st, "5H builds 10 on 5C")
    assert after.table == ["3D", "KS", build(["5H", "5C"], 10, 0, False)]


def test_v_dom_trail_example_5_partner_built_nine():
    """V-dom-trail / V-dom-build (example 5): partner built 9 (5+4); holding one 9 you cannot
    add it (you would own the build without another 9), but you may trail it; partner later
    takes the 9 with the build."""
    st = mk([["9H", "2C"], ["3C", "6S"], ["9S", "6D"], ["4D", "8S"]],
            [build(["5S", "4H"], 9, 2)])
    assert moves(st) == {"9H trails", "9H captures 4H+5S", "2C trails"}
    assert rule_of(st, "9H builds 9 on 4H+5S") in ("C-build", "V-dom-build")
    st = apply_move(st, "9H trails")
    st = apply_move(st, "3C trails")
    assert moves(st, "9S") == {"9S captures 4H+5S+9H"}
    assert rule_of(st, "9S captures 4H+5S") == "V-dom-trail"
    after = apply_move(st, "9S captures 4H+5S+9H")
    assert after.pile(0) == ["4H", "5S", "9S", "9H"]


def test_v_dom_trail_equal_build_need_not_be_captured():
    """V-dom-trail: a build of the played card's value need not be captured (non-owner), but
    every loose card of that value must be."""
    st = mk([["9H"], ["9D", "KC"]], ["9C", build(["5S", "4H"], 9, 1)])
    assert moves(st) == {"9H captures 9C", "9H captures 4H+5S+9C"}
    assert rule_of(st, "9H captures 4H+5S") == "V-dom-trail"


def test_v_dom_trail_owner_last_card_captures_build():
    """V-dom-trail + C-build-keep: the owner playing the last card matching the build must
    capture the build (and the equal loose card)."""
    st = mk([["9H", "2D"], ["KC"]], ["9C", build(["5S", "4H"], 9, 0)])
    assert moves(st, "9H") == {"9H captures 4H+5S+9C"}


def test_v_dom_trail_ace_matches_ace():
    """V-dom-trail: a played Ace matches a loose Ace; its captures (as 1 or 14) take it."""
    st = mk([["AS"], ["2C"]], ["AH", "KC"])
    assert moves(st) == {"AS captures AH", "AS captures AH+KC"}
    assert rule_of(st, "AS trails") == "V-dom-trail"


def test_v_dom_trail_off_in_royal():
    """V-dom-trail is a Dominican rule: in `royal` the King may trail beside a King."""
    st = mk([["KH"], ["2C"]], ["KS", "8C", "7D", "5H", "AC"], variant="royal")
    assert "KH trails" in moves(st)
    assert "KH captures 5H+8C" in moves(st)


# -- V-dom-build ----------------------------------------------------------------------------------

def test_v_dom_build_no_raising_own_single_build():
    """V-dom-build: you may not raise the value of your own single build."""
    st = mk([["2H", "AS", "QS"], ["3C"]], [build(["7C", "5D"], 12, 0)])
    assert moves(st) == {"QS captures 5D+7C"}
    assert rule_of(st, "2H builds 14 on 5D+7C") == "V-dom-build"


def test_v_dom_build_raise_other_players_build_seed_example():
    """V-dom-build (seed example): another player owns 7+5; holding a 2 and an Ace, add the 2
    to make 14 for the Ace, becoming the owner."""
    st = mk([["2H", "AS"], ["3C", "QS"]], [build(["7C", "5D"], 12, 1)])
    assert moves(st) == {"2H builds 14 on 5D+7C", "2H trails", "AS trails"}
    after = apply_move(st, "2H builds 14 on 5D+7C")
    assert after.table == [build(["2H", "5D", "7C"], 14, 0, False)]


def test_v_dom_build_raise_partners_build():
    """V-dom-build: raising your partner's single build is allowed."""
    st = mk([["2H", "AS"], ["3C"], ["QS", "4D"], ["6C"]], [build(["7C", "5D"], 12, 2)])
    assert st.partnerships
    assert moves(st) == {"2H builds 14 on 5D+7C", "2H trails", "AS trails"}
    after = apply_move(st, "2H builds 14 on 5D+7C")
    assert after.table == [build(["2H", "5D", "7C"], 14, 0, False)]


def test_v_dom_build_own_build_may_become_multiple():
    """V-dom-build: converting your own single build to multiple (same value) is allowed."""
    st = mk([["QH", "QD", "3S"], ["3C"]], [build(["7C", "5D"], 12, 0)])
    assert moves(st) == {"QH builds 12 on 5D+7C", "QH captures 5D+7C",
                         "QD builds 12 on 5D+7C", "QD captures 5D+7C"}
    after = apply_move(st, "QH builds 12 on 5D+7C")
    assert after.table == [build(["5D", "7C", "QH"], 12, 0, True)]


def test_v_dom_build_converting_to_multiple_takes_ownership():
    """V-dom-build: converting another player's build to multiple makes you the owner."""
    st = mk([["QH", "QD"], ["QC", "3C"]], [build(["7C", "5D"], 12, 1)])
    after = apply_move(st, "QH builds 12 on 5D+7C")
    assert after.table == [build(["5D", "7C", "QH"], 12, 0, True)]


def test_v_dom_build_not_in_royal():
    """V-dom-build is a Dominican rule: in `royal` you may raise your own single build."""
    st = mk([["2H", "AS", "QS"], ["3C"]], [build(["7C", "5D"], 12, 0)], variant="royal")
    assert "2H builds 14 on 5D+7C" in moves(st)


def test_v_dom_build_switch_alone():
    """V-dom-build: the switch `dom_build` alone forbids raising your own build in `royal`."""
    st = mk([["2H", "AS", "QS"], ["3C"]], [build(["7C", "5D"], 12, 0)], variant="royal",
            rules={"dom_build": True})
    assert rule_of(st, "2H builds 14 on 5D+7C") == "V-dom-build"


# -- V-cancel -------------------------------------------------------------------------------------

def test_v_cancel_two_players():
    """V-cancel: when both players have a sweep, each cancels one."""
    st = mk([["2D", "8C"], ["5H", "KC"]], ["5S"], current=1, dealer=0, sweeps=[1, 0])
    assert apply_move(st, "5H captures 5S").sweeps == (0, 0)
    st = mk([["2D", "8C"], ["5H", "KC"]], ["5S"], current=1, dealer=0, sweeps=[2, 0])
    assert apply_move(st, "5H captures 5S").sweeps == (1, 0)
    st = mk([["2D", "8C"], ["5H", "KC"]], ["5S"], current=1, dealer=0, sweeps=[0, 1])
    assert apply_move(st, "5H captures 5S").sweeps == (0, 2)


def test_v_cancel_three_players_individual():
    """V-cancel: with three individual players, sweeps cancel only when all three have one."""
    hands = [["2D", "8C"], ["6D", "9C"], ["5H", "KC"]]
    st = mk(hands, ["5S"], current=2, dealer=1, sweeps=[1, 1, 0])
    assert apply_move(st, "5H captures 5S").sweeps == (0, 0, 0)
    st = mk(hands, ["5S"], current=2, dealer=1, sweeps=[1, 0, 0])
    assert apply_move(st, "5H captures 5S").sweeps == (1, 0, 1)
    st = mk(hands, ["5S"], current=2, dealer=1, sweeps=[2, 1, 0])
    assert apply_move(st, "5H captures 5S").sweeps == (1, 0, 0)


def test_v_cancel_four_players_individual():
    """V-cancel: four individual players (no partners) cancel when all four have a sweep."""
    hands = [["2D"], ["6D"], ["5H", "KC"], ["9C"]]
    st = mk(hands, ["5S"], partnerships=False, current=2, dealer=1, sweeps=[1, 1, 0, 1])
    assert st.sides == 4
    assert apply_move(st, "5H captures 5S").sweeps == (0, 0, 0, 0)
    st = mk(hands, ["5S"], partnerships=False, current=2, dealer=1, sweeps=[1, 0, 0, 1])
    assert apply_move(st, "5H captures 5S").sweeps == (1, 0, 1, 1)


def test_v_cancel_four_players_partners():
    """V-cancel: in the partnership game the two teams cancel."""
    hands = [["2D"], ["6D"], ["9C"], ["5H", "KC"]]
    st = mk(hands, ["5S"], current=3, dealer=2, sweeps=[1, 0])
    assert st.partnerships and st.sides == 2
    assert apply_move(st, "5H captures 5S").sweeps == (0, 0)
    hands = [["2D"], ["6D"], ["5H", "KC"], ["9C"]]
    st = mk(hands, ["5S"], current=2, dealer=1, sweeps=[1, 0])
    assert apply_move(st, "5H captures 5S").sweeps == (2, 0)


def test_v_cancel_cancelled_sweeps_score_nothing():
    """V-cancel: only uncancelled sweeps score (11 + 1 points, not 11 + 3)."""
    piles = two(27, [])
    st = end_hand(piles, [0, 0], sweeps=[1, 0])
    assert st.hand_points == [3 + 1, 8]
    # the hand's last card sweeps for seat 1: both sides' sweeps cancel.
    piles = piles_of([(27, [])], hold=("4D", "4C"))
    spec = {"variant": "dominican", "players": 2, "dealer": 1, "current": 1,
            "hands": [[], ["4C"]], "table": ["4D"], "stock": [], "piles": piles,
            "sweeps": [2, 0], "last_capturer": 0, "seed": 3}
    st = apply_move(State.from_spec(spec), "4C captures 4D")
    assert st.hand_points == [3 + 1, 8]


def test_v_cancel_not_in_royal():
    """V-cancel is Dominican: `royal` with sweeps keeps both sides' sweeps."""
    st = mk([["2D", "8C"], ["5H", "KC"]], ["5S"], variant="royal", rules={"sweeps": True},
            current=1, dealer=0, sweeps=[1, 0])
    assert apply_move(st, "5H captures 5S").sweeps == (1, 1)


# -- V-dom-end ------------------------------------------------------------------------------------

def test_v_dom_end_18_wins_by_most_cards_at_once():
    """V-dom-end: a side at 18 taking most cards wins at once, whatever the other scores (the
    other reaches 25 here)."""
    st = end_hand(two(27, []), [18, 17])
    assert st.hand_points == [3, 8]
    assert st.scores == [21, 25]
    assert st.game_over and st.winner == 0


def test_v_dom_end_18_scores_nothing_without_most_cards():
    """V-dom-end: at 18 a side that takes everything but most cards scores nothing; the other
    scores normally."""
    st = end_hand(two(20, SCORING), [18, 10])
    assert st.hand_points == [0, 3]
    assert st.scores == [18, 13]
    assert not st.game_over


def test_v_dom_end_19_wins_only_by_ten_of_diamonds():
    """V-dom-end: at 19 only the 10D counts: with it the side wins at once; without it (most
    cards, spades, 2S and aces) it scores nothing."""
    st = end_hand(two(10, ["10D"]), [19, 10])
    assert st.hand_points == [2, 3 + 1 + 1 + 4]
    assert st.game_over and st.winner == 0
    st = end_hand(two(30, [c for c in SCORING if c != "10D"]), [19, 10])
    assert st.hand_points == [0, 2]
    assert st.scores == [19, 12] and not st.game_over


def test_v_dom_end_20_wins_only_by_most_spades():
    """V-dom-end: at 20 only most spades counts."""
    st = end_hand(two(10, SPADES[2:9]), [20, 15])
    assert st.hand_points == [1, 3 + 2 + 1 + 4]
    assert st.scores == [21, 25]
    assert st.game_over and st.winner == 0
    st = end_hand(two(30, ["2S", "AS", "10D", "AH", "AD", "AC"]), [20, 15])
    assert st.hand_points == [0, 1]
    assert st.scores == [20, 16] and not st.game_over


def test_v_dom_end_seed_example_19_v_15():
    """V-dom-end (seed example): A at 19 takes most cards, two aces and two sweeps; B at 15
    takes most spades, 10D, 2S and two aces: A scores nothing, B scores 6 and wins with 21."""
    piles = two(29, SPADES[7:] + ["AH", "AD"])  # A: 30 cards, 6 spades
    st = end_hand(piles, [19, 15], sweeps=[2, 0])
    assert st.hand_points == [0, 1 + 2 + 1 + 2]
    assert st.scores == [19, 21]
    assert st.game_over and st.winner == 1


def test_v_dom_end_restricted_sweeps_do_not_score():
    """V-dom-end: a side at 18 or more scores no sweeps (its criterion only)."""
    st = end_hand(two(27, []), [18, 10], sweeps=[2, 0])
    assert st.hand_points == [3, 8]
    st = end_hand(two(20, []), [18, 10], sweeps=[2, 0])
    assert st.hand_points == [0, 3 + 8]
    st = end_hand(two(20, []), [18, 5], sweeps=[0, 2])
    assert st.hand_points == [0, 3 + 8 + 2]


def test_v_dom_end_restricted_sweeps_still_cancel():
    """V-dom-end: sweeps of a restricted side are still recorded and cancel."""
    st = mk([["5H", "2D"], ["KC", "3C"]], ["5S"], scores=[18, 10], sweeps=[0, 1])
    assert apply_move(st, "5H captures 5S").sweeps == (0, 0)
    st = mk([["5H", "2D"], ["KC", "3C"]], ["5S"], scores=[18, 10])
    assert apply_move(st, "5H captures 5S").sweeps == (1, 0)


def test_v_dom_end_switch_restricted_no_sweeps():
    """V-dom-end switch `restricted_no_sweeps`: restricted sides record no sweeps at all, so
    they cannot cancel; other sides record theirs."""
    rules = {"restricted_no_sweeps": True}
    st = mk([["5H", "2D"], ["KC", "3C"]], ["5S"], scores=[18, 10], sweeps=[0, 1], rules=rules)
    assert apply_move(st, "5H captures 5S").sweeps == (0, 1)
    st = mk([["2D", "8C"], ["5H", "KC"]], ["5S"], scores=[18, 10], current=1, dealer=0,
            rules=rules)
    assert apply_move(st, "5H captures 5S").sweeps == (0, 1)


def test_v_dom_end_switch_twenty_by_two_spades():
    """V-dom-end switch `twenty_by_two_spades`: at 20 a side wins only by the 2S (seed 001)."""
    rules = {"twenty_by_two_spades": True}
    with_2s = two(30, ["2S", "AS", "10D", "AH", "AD", "AC"])  # no most spades
    st = end_hand(with_2s, [20, 15], rules=rules)
    assert st.hand_points == [1, 1]
    assert st.game_over and st.winner == 0
    most_spades = two(10, SPADES[2:9])  # most spades, no 2S
    st = end_hand(most_spades, [20, 15], rules=rules)
    assert st.hand_points == [0, 3 + 2 + 1 + 4]
    assert st.scores == [20, 25]
    assert st.game_over and st.winner == 1


def _race(scores, first_seat):
    """Two restricted sides; seat ``first_seat`` plays first. Table 10D and 5D; the seat
    holding 10H takes the 10D, the one holding 5C takes the 5D. Piles: 48 cards, 23 for the
    10D-taker's side and 25 for the other side."""
    hold = ("10D", "5D", "10H", "5C")
    piles = piles_of([(23, SPADES[:7] + ["AH"])], hold=hold)  # 10D side 23, other 25
    ten_seat = 0 if scores[0] == 19 else 1
    if ten_seat == 1:
        piles = piles[::-1]
    hands = [[], []]
    hands[ten_seat] = ["10H"]
    hands[1 - ten_seat] = ["5C"]
    spec = {"variant": "dominican", "players": 2, "dealer": 1 - first_seat,
            "current": first_seat, "hands": hands, "table": ["10D", "5D"], "stock": [],
            "piles": piles, "scores": list(scores), "seed": 5}
    return State.from_spec(spec), ten_seat


@pytest.mark.parametrize("scores,first_seat", [([19, 18], 0), ([19, 18], 1), ([18, 19], 0),
                                               ([18, 19], 1)])
def test_v_dom_end_two_restricted_first_to_meet_wins(scores, first_seat):
    """V-dom-end: two restricted sides both meet their criterion (19: 10D, 18: most cards);
    the one that met it first in play wins."""
    st, ten_seat = _race(scores, first_seat)
    moves_by_seat = {ten_seat: "10H captures 10D", 1 - ten_seat: "5C captures 5D"}
    st = apply_move(st, moves_by_seat[first_seat])
    assert st.to_spec()["met"] == [first_seat]  # the 10D, or the 27th card of 52
    st = apply_move(st, moves_by_seat[1 - first_seat])
    assert st.game_over and st.winner == first_seat
    pts = [0, 0]
    pts[ten_seat] = 2
    pts[1 - ten_seat] = 3
    assert st.hand_points == pts


def test_v_dom_end_majority_not_certain_before_27():
    """V-dom-end: most cards is met when it is certain (27 of 52 with two sides), not
    before."""
    st, ten_seat = _race([19, 18], 0)
    st = apply_move(st, "10H captures 10D")  # side 0: 25 cards, side 1: 25, 2 left
    assert st.to_spec()["met"] == [0]


def _spade_race(first_seat):
    """Side 0 at 20 (most spades: 6 spades in its pile, 5S on the table); side 1 at 19
    (10D on the table). Seat 0 holds 5C, seat 1 holds 10H."""
    hold = ("5S", "5C", "10D", "10H")
    piles = piles_of([(20, SPADES[6:12])], hold=hold)  # side 1: the other 6 spades
    spec = {"variant": "dominican", "players": 2, "dealer": 1 - first_seat,
            "current": first_seat, "hands": [["5C"], ["10H"]], "table": ["5S", "10D"],
            "stock": [], "piles": piles, "scores": [20, 19], "seed": 5}
    return State.from_spec(spec)


@pytest.mark.parametrize("first_seat", [0, 1])
def test_v_dom_end_first_to_meet_spades_race(first_seat):
    """V-dom-end: at 20 most spades becomes certain with the 7th spade of 13; at 19 the 10D
    on its capture; the first met wins."""
    st = _spade_race(first_seat)
    move = {0: "5C captures 5S", 1: "10H captures 10D"}
    st = apply_move(st, move[first_seat])
    assert st.to_spec()["met"] == [first_seat]
    st = apply_move(st, move[1 - first_seat])
    assert st.hand_points == [1, 2]
    assert st.game_over and st.winner == first_seat


def test_v_dom_end_criterion_met_by_residue():
    """V-dom-end / C-residue: the 10D left on the table goes to the last capturer at the end
    of the hand; a side at 19 meets its criterion that way and wins."""
    hold = ("10D", "3H")
    piles = piles_of([(10, [])], hold=hold)
    spec = {"variant": "dominican", "players": 2, "dealer": 1, "current": 1,
            "hands": [[], ["3H"]], "table": ["10D"], "stock": [], "piles": piles,
            "scores": [19, 10], "last_capturer": 0, "seed": 2}
    st = apply_move(State.from_spec(spec), "3H trails")
    assert st.hand_points == [2, 3 + 1 + 1 + 4]
    assert st.game_over and st.winner == 0


def test_v_dom_end_tie_at_21_then_unrestricted_hand():
    """V-dom-end: both reach 21 with equal totals (15-15, 6 each): further hands are played
    without restrictions."""
    piles = two(27, ["10D", "AH"])  # side 0: cards, 10D, AH = 6; side 1: 5 + a sweep
    st = end_hand(piles, [15, 15], sweeps=[0, 1])
    assert st.hand_points == [6, 6]
    assert st.scores == [21, 21]
    assert not st.game_over and st.winner is None
    assert [len(st.hand(s)) for s in range(2)] == [4, 4]


def test_v_dom_end_no_restrictions_in_tie_break_hand():
    """V-dom-end: in a hand that starts with sides at the target, a side at 19 is not
    restricted: its most cards and aces count, and the highest total wins."""
    piles = piles_of([(13, ["10D"] + SPADES[2:9]), (13, ["2S"] + SPADES[9:])])
    st = end_hand(piles, [21, 21, 19], last_capturer=2)
    assert [len(p) for p in piles] == [13, 13, 25]
    assert st.hand_points == [1 + 2, 1, 3 + 4]
    assert st.scores == [24, 22, 26]
    assert st.game_over and st.winner == 2


def test_v_dom_end_off_in_royal():
    """V-dom-end is Dominican: in `royal` a side at 19 scores everything it takes."""
    piles = two(30, [c for c in SCORING if c != "10D"])
    spec = {"variant": "royal", "players": 2, "dealer": 1, "current": 1,
            "hands": [[], ["3H"]], "table": [], "stock": [], "piles": piles,
            "scores": [19, 10], "last_capturer": 0, "seed": 1}
    st = apply_move(State.from_spec(spec), "3H trails")
    assert st.hand_points == [9, 2]
    assert st.game_over and st.winner == 0


# -- V-soto ---------------------------------------------------------------------------------------

SOTO = {"soto": True}


def test_v_soto_16_cards_and_ten_wins_at_once():
    """V-soto: at 16 a side taking most cards and the 10D (5) wins at once, whatever the
    other scores."""
    st = end_hand(two(27, ["10D"]), [16, 15], rules=SOTO)
    assert st.hand_points == [5, 6]
    assert st.scores == [21, 21]
    assert st.game_over and st.winner == 0


def test_v_soto_16_part_is_kept():
    """V-soto: at 16 taking only most cards keeps 3 (aces do not count); the other scores
    normally and may win."""
    st = end_hand(two(27, ["AH", "AD"]), [16, 15], rules=SOTO)
    assert st.hand_points == [3, 1 + 2 + 1 + 2]
    assert st.scores == [19, 21]
    assert st.game_over and st.winner == 1


def test_v_soto_16_ten_of_diamonds_only():
    """V-soto: at 16 taking only the 10D keeps its 2 points."""
    st = end_hand(two(10, ["10D", "AH"]), [16, 12], rules=SOTO)
    assert st.hand_points == [2, 3 + 1 + 1 + 3]
    assert st.scores == [18, 20]
    assert not st.game_over


def test_v_soto_17_cards_and_spades_wins_at_once():
    """V-soto: at 17 most cards and most spades (4) win at once."""
    st = end_hand(two(27, SPADES[2:9]), [17, 15], rules=SOTO)
    assert st.hand_points == [4, 2 + 1 + 4]
    assert st.game_over and st.winner == 0


def test_v_soto_17_spades_only_kept():
    """V-soto: at 17 only most cards and/or most spades score (the 10D does not)."""
    st = end_hand(two(10, SPADES[2:9] + ["10D"]), [17, 12], rules=SOTO)
    assert st.hand_points == [1, 3 + 1 + 4]
    assert st.scores == [18, 20]
    assert not st.game_over


def test_v_soto_off_16_unrestricted():
    """V-soto is a switch: without it a side at 16 scores normally."""
    st = end_hand(two(27, ["AH", "AD"]), [16, 10])
    assert st.hand_points == [5, 6]
    assert st.scores == [21, 16]
    assert st.game_over and st.winner == 0
    st = end_hand(two(27, ["AH", "AD"]), [16, 10], rules=SOTO)
    assert st.scores == [19, 16] and not st.game_over


def test_v_soto_18_still_only_most_cards():
    """V-soto: at 18 the V-dom-end restriction applies (most cards only)."""
    st = end_hand(two(20, SCORING), [18, 10], rules=SOTO)
    assert st.hand_points == [0, 3]


# -- V-partner-build ------------------------------------------------------------------------------

def _partner_spec(switch: bool) -> State:
    spec = {"variant": "dominican", "players": 4, "dealer": 1, "current": 2,
            "hands": [["3C", "8D"], ["6H", "2D"], ["AH", "QD"], ["QS", "KC"]],
            "table": ["4S", "7C", "9H"]}
    if switch:
        spec["rules"] = {"partner_build": True}
    return State.from_spec(spec)


def test_v_partner_build_seed_example():
    """V-partner-build (seed example): table 4 7 9; partner builds 12 with an Ace on 4+7; the
    next player captures it with a Queen; you hold a 3 and no Queen: with the switch you may
    play the 3 on the 9 to build 12 for partner, who then owns it and must keep the Queen."""
    st = _partner_spec(True)
    st = apply_move(st, "AH builds 12 on 4S+7C")
    st = apply_move(st, "QS captures AH+4S+7C")
    assert st.current == 0
    assert moves(st) == {"3C builds 12 on 9H for partner", "3C trails", "8D trails"}
    st = apply_move(st, "3C builds 12 on 9H for partner")
    assert st.table == [build(["3C", "9H"], 12, 2, False)]
    st = apply_move(st, "6H trails")
    assert st.current == 2
    assert moves(st) == {"QD captures 3C+9H"}


def test_v_partner_build_off_by_default():
    """V-partner-build: without the switch, building for partner is illegal."""
    st = _partner_spec(False)
    st = apply_move(st, "AH builds 12 on 4S+7C")
    st = apply_move(st, "QS captures AH+4S+7C")
    assert moves(st) == {"3C trails", "8D trails"}
    assert rule_of(st, "3C builds 12 on 9H for partner") == "V-partner-build"


def test_v_partner_build_augment_partners_build():
    """V-partner-build: augmenting partner's build without changing its value is always
    provable; the build stays partner's."""
    table = [build(["5S", "4H"], 9, 2)]
    hands = [["9H", "2C"], ["3C", "6S"], ["9S", "6D"], ["4D", "8S"]]
    st = mk(hands, table, rules={"partner_build": True})
    assert "9H builds 9 on 4H+5S for partner" in moves(st)
    after = apply_move(st, "9H builds 9 on 4H+5S for partner")
    assert after.table == [build(["4H", "5S", "9H"], 9, 2, True)]
    st = mk(hands, table)
    assert rule_of(st, "9H builds 9 on 4H+5S for partner") == "V-partner-build"


def test_v_partner_build_proof_ends_when_partner_plays_the_value():
    """V-partner-build: the proof ends once partner has played a card of that value."""
    spec = {"variant": "dominican", "players": 4, "dealer": 1, "current": 2,
            "rules": {"partner_build": True},
            "hands": [["3C", "8D", "5C"], ["6H", "2D", "JD"], ["AH", "QD", "QH"],
                      ["QS", "KC", "JC"]],
            "table": ["4S", "7C", "9H"]}
    st = State.from_spec(spec)
    st = apply_move(st, "AH builds 12 on 4S+7C")
    st = apply_move(st, "QS captures AH+4S+7C")
    st = apply_move(st, "8D trails")
    st = apply_move(st, "6H trails")
    st = apply_move(st, "QD trails")  # partner plays a Queen
    st = apply_move(st, "KC trails")
    assert st.current == 0
    assert "3C builds 12 on 9H for partner" not in moves(st)
    assert rule_of(st, "3C builds 12 on 9H for partner") == "V-partner-build"


def test_v_partner_build_needs_partnerships():
    """V-partner-build: the switch needs a partnership game."""
    with pytest.raises(ValueError, match="partner_build"):
        new_game("dominican", 2, seed=1, partner_build=True)
