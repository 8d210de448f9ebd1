"""Rule tests for the `royal` preset (Royal Casino, North America): values, sweeps, count-out.

Each test names the rule id it checks (C-deck Royal values, C-move Ace readings, C-sweep,
V-countout). Seed: pagat's Royal Casino page (seeds 000/002).
"""

from __future__ import annotations

from functools import partial

import pytest
from rules_helpers import SPADES, build, mk_for, moves, rule_of, split
from rules_helpers import end_hand as rules_end_hand

from casino_env.engine import Move, apply_move, legal_moves

# -- helpers (the shared ones are in tests/rules_helpers.py) --------------------------------------

mk = mk_for("royal")
end_hand = partial(rules_end_hand, variant="royal")


# -- C-deck: Royal values -----------------------------------------------------------------------

def test_c_deck_royal_face_values():
    """C-deck (Royal): J 11, Q 12, K 13 capture sums and join builds."""
    st = mk([["QH", "JS", "KD"], ["2C"]], ["5S", "7D", "JD", "2H", "9C"])
    assert moves(st) == {
        "QH trails", "QH captures 5S+7D",
        "JS trails", "JS captures JD", "JS captures 2H+9C", "JS captures 2H+9C+JD",
        "JS builds 13 on 2H",
        "KD trails", "KD captures 2H+JD",
    }
    vals = {str(m): m.value for m in legal_moves(st) if m.kind == "capture"}
    assert vals["QH captures 5S+7D"] == 12 and vals["KD captures 2H+JD"] == 13
    assert vals["JS captures JD"] == 11


def test_c_deck_royal_face_cards_build():
    """C-deck (Royal): a 7 on a 6 builds 13 for a King; an Ace on a Queen builds 13."""
    st = mk([["7H", "KD"], ["2C"]], ["6S"])
    assert moves(st) == {"7H trails", "7H builds 13 on 6S", "KD trails"}
    st = mk([["AS", "KD"], ["2C"]], ["QC"])
    assert moves(st) == {"AS trails", "AS builds 13 on QC", "KD trails"}
    after = apply_move(st, "AS builds 13 on QC")
    assert after.table == [build(["AS", "QC"], 13, 0, False)]


def test_c_deck_royal_ace_captures_king_and_ace():
    """C-deck (Royal seed example): an Ace (14) captures a King and an Ace (13 + 1)."""
    st = mk([["AS"], ["2C"]], ["KH", "AD"])
    assert moves(st) == {"AS trails", "AS captures AD", "AS captures AD+KH"}
    vals = {str(m): m.value for m in legal_moves(st)}
    assert vals["AS captures AD+KH"] == 14
    assert rule_of(st, "AS captures KH") == "C-capture"
    after = apply_move(st, "AS captures AD+KH")
    assert after.pile(0) == ["AS", "AD", "KH"] and after.table == []


def test_c_deck_royal_ace_captures_eight_five_ace():
    """C-deck (Royal seed example): an Ace captures an 8, a 5 and an Ace (8 + 5 + 1 = 14)."""
    st = mk([["AS"], ["2C"]], ["8C", "5D", "AH"])
    assert moves(st) == {"AS trails", "AS captures AH", "AS captures AH+5D+8C"}
    assert rule_of(st, "AS captures 5D+8C") == "C-capture"


def test_c_deck_royal_ace_counts_one_inside_a_set():
    """C-deck (Royal): inside a set of several cards an Ace counts 1 (A+10 is 11, A+2 is 3)."""
    st = mk([["JS", "3H"], ["2C"]], ["AH", "10C", "2D"])
    assert moves(st) == {"JS trails", "JS captures AH+10C", "3H trails", "3H captures AH+2D"}


def test_c_deck_royal_build_up_to_fourteen():
    """C-deck / C-one-per-value (Royal): builds go up to 14, for an Ace."""
    st = mk([["5H", "AC"], ["2C"]], ["9S"])
    assert moves(st) == {"5H trails", "5H builds 14 on 9S", "AC trails"}
    after = apply_move(st, "5H builds 14 on 9S")
    assert after.table == [build(["5H", "9S"], 14, 0, False)]
    assert moves(after) == {"2C trails"}
    assert "AC captures 5H+9S" in moves(apply_move(after, "2C trails"))


def test_c_deck_royal_ace_on_ace_builds():
    """C-deck (Royal decision): A on A is a single build of 2, or a multiple build of 1 or of
    14, when the matching card is held."""
    st = mk([["AS", "AD", "2C"], ["3C"]], ["AH"])
    assert moves(st) == {
        "AS trails", "AS captures AH", "AS builds 1 on AH", "AS builds 2 on AH",
        "AS builds 14 on AH",
        "AD trails", "AD captures AH", "AD builds 1 on AH", "AD builds 2 on AH",
        "AD builds 14 on AH",
        "2C trails",
    }
    assert apply_move(st, "AS builds 2 on AH").table == [build(["AS", "AH"], 2, 0, False)]
    assert apply_move(st, "AS builds 1 on AH").table == [build(["AS", "AH"], 1, 0, True)]
    assert apply_move(st, "AS builds 14 on AH").table == [build(["AS", "AH"], 14, 0, True)]


def test_c_deck_royal_ace_on_ace_needs_matching_card():
    """C-deck (Royal): without another Ace or a 2 in hand, A on A builds nothing."""
    st = mk([["AS", "5D"], ["3C"]], ["AH"])
    assert moves(st, "AS") == {"AS trails", "AS captures AH"}
    assert rule_of(st, "AS builds 14 on AH") == "C-build"


def test_c_build_keep_royal_one_and_fourteen_builds_need_two_aces():
    """C-build-keep (Royal decision): a seat owning a 1-build and a 14-build needs two Aces;
    one Ace cannot back both."""
    table = ["AC", build(["5S", "9S"], 14, 0)]
    st = mk([["AH", "AD", "3C"], ["2C"]], table)
    assert "AH builds 1 on AC" not in moves(st)
    assert rule_of(st, "AH builds 1 on AC") == "C-build-keep"
    st = mk([["AH", "AD", "AS"], ["2C"]], table)
    assert "AH builds 1 on AC" in moves(st)
    after = apply_move(st, "AH builds 1 on AC")
    assert after.table == [build(["AH", "AC"], 1, 0, True), build(["5S", "9S"], 14, 0, False)]


def test_c_move_royal_ace_readings_listed_once():
    """C-move: an Ace taking only an Ace is one move (both readings give the same outcome),
    listed once with value 1; apply_move accepts either reading."""
    st = mk([["AS"], ["2C"]], ["AH"])
    caps = [m for m in legal_moves(st) if m.kind == "capture"]
    assert [str(m) for m in caps] == ["AS captures AH"]
    assert caps[0].value == 1
    as14 = apply_move(st, Move("capture", "AS", ("AH",), 14))
    as1 = apply_move(st, Move("capture", "AS", ("AH",), 1))
    assert as14 == as1
    assert as1.pile(0) == ["AS", "AH"]


def test_c_capture_royal_classic_faces_differ():
    """C-face does not apply in Royal: a Queen on two Queens may take both (12 + 12 sets)."""
    st = mk([["QH"], ["2C"]], ["QS", "QC"])
    assert moves(st) == {"QH trails", "QH captures QS", "QH captures QC", "QH captures QS+QC"}


def test_c_trail_royal_allowed_with_equal_card():
    """C-trail (Royal): captures are not compulsory; a card may trail beside an equal card."""
    st = mk([["KH"], ["2C"]], ["KS", "8C", "7D", "5H", "AC"])
    assert "KH trails" in moves(st)


# -- C-sweep: Royal sweeps switch ---------------------------------------------------------------

def test_c_sweep_royal_off_by_default():
    """C-sweep (Royal): sweeps are not scored by default; a spec may not record any."""
    st = mk([["5H", "2D"], ["KC", "3C"]], ["5S"])
    assert st.rules.sweeps is False
    assert apply_move(st, "5H captures 5S").sweeps == (0, 0)
    with pytest.raises(ValueError, match="sweeps"):
        mk([["5H"], ["KC"]], ["5S"], sweeps=[1, 0])


def test_c_sweep_royal_on_scores_one_each_never_cancelled():
    """C-sweep (Royal, switch `sweeps`): each sweep is 1 point; sweeps are never cancelled."""
    st = mk([["5H", "2D"], ["KC", "3C"]], ["5S"], rules={"sweeps": True}, sweeps=[0, 1],
            current=0, dealer=1)
    after = apply_move(st, "5H captures 5S")
    assert after.sweeps == (1, 1)


def test_c_sweep_royal_points_at_end_of_hand():
    """C-sweep / C-score (Royal with sweeps): uncancelled sweeps of both sides score."""
    piles = split(27, [])  # side 0 most cards only
    st = end_hand(piles, [0, 0], rules={"sweeps": True}, sweeps=[2, 3])
    assert st.hand_points == [3 + 2, 8 + 3]
    assert sum(st.hand_points) == 11 + 5


# -- V-countout ---------------------------------------------------------------------------------

def test_v_countout_cards_counted_first():
    """V-countout: both reach 21 in one hand; points are counted cards first, so the side at
    18 taking most cards wins although the other ends higher."""
    piles = split(27, [])  # side 0: 28 cards; side 1: every other point (8)
    st = end_hand(piles, [18, 19])
    assert st.hand_points == [3, 8]
    assert st.scores == [21, 27]
    assert st.game_over and st.winner == 0


def test_v_countout_off_higher_total_wins():
    """V-countout off (C-game): the same hand goes to the higher total."""
    piles = split(27, [])
    st = end_hand(piles, [18, 19], rules={"countout": False})
    assert st.scores == [21, 27]
    assert st.game_over and st.winner == 1


@pytest.mark.parametrize("aces0,aces1,winner", [
    (["AC"], ["AS", "AH", "AD"], 0),  # AS takes side 1 to 20, then AC side 0 to 21
    (["AH"], ["AS", "AC", "AD"], 1),  # AS then AC take side 1 to 21 first
    (["AS"], ["AC", "AH", "AD"], 0),  # AS takes side 0 to 21 first
])
def test_v_countout_aces_in_order_spades_clubs_hearts_diamonds(aces0, aces1, winner):
    """V-countout: cards, spades, 10D, 2S, then aces in the order S C H D; the first side to
    the target wins. From 17-15: side 1 cards (18) and 2S (19); side 0 spades and 10D (20)."""
    special0 = SPADES[2:9] + ["10D"] + aces0  # 7 spades: 3S..9S
    piles = split(10, special0)
    assert "2S" in piles[1] and all(a in piles[1] for a in aces1)
    st = end_hand(piles, [17, 15])
    assert st.hand_points == [1 + 2 + len(aces0), 3 + 1 + len(aces1)]
    assert st.game_over and st.winner == winner


def test_v_countout_differs_from_totals():
    """V-countout: the count-out winner can have the lower total (21 v 22); without
    count-out the higher total wins."""
    special0 = SPADES[2:9] + ["10D", "AC"]
    piles = split(10, special0)
    st = end_hand(piles, [17, 15])
    assert st.scores == [21, 22] and st.winner == 0
    st = end_hand(piles, [17, 15], rules={"countout": False})
    assert st.scores == [21, 22] and st.winner == 1


def test_v_countout_sweeps_last():
    """V-countout: if the cards, spades, casinos and aces bring nobody to the target, the side
    with more sweeps wins (sweeps are counted last)."""
    # side 0: cards, spades, 10D, 2S, AS -> 12 + 8 = 20, + 1 sweep = 21;
    # side 1: AH AD AC -> 15 + 3 = 18, + 3 sweeps = 21.
    special0 = SPADES + ["10D"]
    piles = split(30, special0)
    st = end_hand(piles, [12, 15], rules={"sweeps": True}, sweeps=[1, 3])
    assert st.hand_points == [3 + 1 + 2 + 1 + 1 + 1, 3 + 3]
    assert st.scores == [21, 21]
    assert st.game_over and st.winner == 1


def test_v_countout_equal_sweeps_play_another_hand():
    """V-countout: if the sweeps are equal too, another hand is played."""
    special0 = SPADES + ["10D"]
    piles = split(30, special0)
    st = end_hand(piles, [11, 16], rules={"sweeps": True}, sweeps=[2, 2])
    assert st.scores == [21, 21]
    assert not st.game_over and st.winner is None


def test_v_countout_not_in_tie_break_hand():
    """V-countout (decision): when the hand began with sides at the target (a tie-break
    hand), the higher total wins."""
    piles = split(27, [])
    st = end_hand(piles, [21, 21])
    assert st.scores == [24, 29]
    assert st.game_over and st.winner == 1


def test_v_countout_single_side_reaching_wins():
    """V-countout / C-game: only one side reaches the target: it wins."""
    piles = split(27, [])
    st = end_hand(piles, [18, 5])
    assert st.scores == [21, 13]
    assert st.game_over and st.winner == 0
