"""Rule tests for the section-3 switches of RULES.md and the variant catalogue.

Each test names the rule id it checks: V-build-loose, V-owner-may-trail, V-raise-with-table,
V-build-as-card (with the seed's examples), V-target, V-last-capture, V-countout, V-earned,
and which switch applies to which preset (docs/rules.md's switch table), plus
``list_variants``/``describe_variant``. Seed: pagat's classic Casino page, "Variations"
(seeds 001/003).
"""

from __future__ import annotations

import pytest
from rules_helpers import DECK, PLAIN, build, end_hand, full, mk, moves, rule_of, split

from casino_env.engine import (
    IllegalMoveError,
    State,
    apply_move,
    describe_variant,
    legal_moves,
    list_variants,
    new_game,
)
from casino_env.engine.rules import switch_value

# -- helpers (the shared ones are in tests/rules_helpers.py) --------------------------------------

PRESETS = ["casino", "royal", "dominican", "hungarian", "tuxedo", "spade", "wippen", "swedish",
           "finnish"]
BUILDING = [p for p in PRESETS if p not in ("hungarian", "swedish", "finnish")]
STOCK = ["7D", "8D", "8C", "JH", "JD", "JC", "QD", "QC"]  # a small stock: the hand goes on
LOOSE = {"build_loose": True}

# Side 0 (31 cards with the residue 3H): cards 3, 10D 2, AH 1 = 6;
# side 1 (21 cards): spades 1, 2S 1, AS AD AC 3 = 5.
SIX_FIVE = split(30, ["10D", "AH"])


# -- V-build-loose ------------------------------------------------------------------------------

@pytest.mark.parametrize("variant,extra", [
    ("casino", set()), ("spade", set()), ("wippen", set()),
    ("royal", {"8H builds 13 on 5C"})])  # royal: 8 + 5 = 13 for the King
def test_v_build_loose_trail_and_build_from_table_cards(variant, extra):
    """V-build-loose: a card may trail while other table cards are built in the same turn
    (the seed: "trail a card and simultaneously make a build ... not including the card
    played"); the player needs another card of the build's value."""
    st = mk([["KD", "8H"], ["2C"]], ["3S", "5C"], variant, stock=STOCK, rules=LOOSE)
    assert moves(st) == {"KD trails", "KD trails and builds 8 on 3S+5C", "8H trails",
                         "8H captures 3S+5C"} | extra
    after = apply_move(st, "KD trails and builds 8 on 3S+5C")
    assert after.table == ["KD", build(["3S", "5C"], 8, 0, False)]
    assert after.current == 1 and after.hand(0) == ["8H"]


def test_v_build_loose_royal_faces():
    """V-build-loose (royal): a King trails while 6+7 become a 13-build for the other King."""
    st = mk([["KD", "KH"], ["2C"]], ["6S", "7C"], "royal", stock=STOCK, rules=LOOSE)
    assert moves(st, "KD") == {"KD trails", "KD captures 6S+7C", "KD builds 13 on 6S+7C",
                               "KD trails and builds 13 on 6S+7C"}


def test_v_build_loose_needs_a_card_of_the_value():
    """V-build-loose: without a card of the build's value the trail cannot build."""
    st = mk([["KD", "7H"], ["2C"]], ["3S", "5C"], stock=STOCK, rules=LOOSE)
    assert moves(st) == {"KD trails", "7H trails"}
    assert rule_of(st, "KD trails and builds 8 on 3S+5C") == "V-build-loose"
    # the played card itself does not count: a lone 8 cannot trail and build 8
    st = mk([["8H", "KD"], ["2C"]], ["3S", "5C"], stock=STOCK, rules=LOOSE)
    assert "8H trails and builds 8 on 3S+5C" not in moves(st)


def test_v_build_loose_off_by_default():
    """V-build-loose: without the switch a trail takes no table cards (C-trail)."""
    st = mk([["KD", "8H"], ["2C"]], ["3S", "5C"], stock=STOCK)
    assert moves(st) == {"KD trails", "8H trails", "8H captures 3S+5C"}
    assert rule_of(st, "KD trails and builds 8 on 3S+5C") == "C-trail"


def test_v_build_loose_owner_trail_still_applies():
    """V-build-loose: the owner of a build may not trail (C-owner-trail), so neither may they
    trail and build."""
    st = mk([["KD", "8H", "6H"], ["2C"]], ["3S", "5C", build(["2H", "4D"], 6, 0)],
            stock=STOCK, rules=LOOSE)
    assert moves(st) == {"6H captures 2H+4D", "8H captures 3S+5C"}
    assert rule_of(st, "KD trails and builds 8 on 3S+5C") == "C-owner-trail"
    assert rule_of(st, "KD trails") == "C-owner-trail"


def test_v_build_loose_table_cards_join_an_existing_build():
    """V-build-loose (C-one-per-value): table cards of the value join the existing build,
    which becomes multiple and changes owner."""
    st = mk([["KD", "8H"], ["2C", "8S"]], ["3S", "5C", build(["2H", "6D"], 8, 1)],
            stock=STOCK, rules=LOOSE)
    assert "KD trails and builds 8 on 2H+3S+5C+6D" in moves(st)
    after = apply_move(st, "KD trails and builds 8 on 2H+3S+5C+6D")
    assert after.table == ["KD", build(["2H", "3S", "5C", "6D"], 8, 0, True)]


def test_v_build_loose_must_add_table_cards():
    """V-build-loose (C-build): the build part must combine table cards; adding nothing to an
    opponent's build is no build, so it cannot take the build over."""
    st = mk([["KD", "8H"], ["2C", "8S"]], ["3S", build(["2H", "6D"], 8, 1)],
            stock=STOCK, rules=LOOSE)
    assert moves(st) == {"KD trails", "8H trails", "8H captures 2H+6D"}
    with pytest.raises(IllegalMoveError):
        apply_move(st, "KD trails and builds 8 on 2H+6D")


def test_v_build_loose_refused_without_building():
    """V-build-loose: refused on hungarian (no building), naming the switch."""
    with pytest.raises(ValueError, match="'build_loose'"):
        new_game("hungarian", 2, seed=1, build_loose=True)


# -- V-owner-may-trail --------------------------------------------------------------------------

def test_v_owner_may_trail_with_a_card_kept_for_the_build():
    """V-owner-may-trail: the owner may trail a card as long as a card of the build's value
    stays in hand (C-build-keep)."""
    st = mk([["KD", "8H", "6H"], ["2C"]], ["3S", build(["2H", "6D"], 8, 0)], stock=STOCK,
            rules={"owner_may_trail": True})
    assert moves(st) == {"KD trails", "6H trails", "8H captures 2H+6D"}
    after = apply_move(st, "KD trails")
    assert after.table == ["3S", "KD", build(["2H", "6D"], 8, 0, False)]


def test_v_owner_may_trail_not_the_last_matching_card():
    """V-owner-may-trail: trailing the only card of the build's value breaks C-build-keep."""
    st = mk([["KD", "8H"], ["2C"]], ["3S", build(["2H", "6D"], 8, 0)], stock=STOCK,
            rules={"owner_may_trail": True})
    assert moves(st) == {"KD trails", "8H captures 2H+6D"}
    assert rule_of(st, "8H trails") == "C-build-keep"


def test_v_owner_may_trail_two_builds_need_two_cards():
    """V-owner-may-trail: an owner of two builds keeps a card for each."""
    st = mk([["KD", "8H", "5C"], ["2C"]],
            ["3S", build(["2H", "6D"], 8, 0), build(["AH", "4D"], 5, 0)], stock=STOCK,
            rules={"owner_may_trail": True})
    assert moves(st) == {"KD trails", "8H captures 2H+6D", "5C captures AH+4D"}


def test_v_owner_may_trail_off_by_default():
    """V-owner-may-trail: without the switch the owner may not trail (C-owner-trail)."""
    st = mk([["KD", "8H", "6H"], ["2C"]], ["3S", build(["2H", "6D"], 8, 0)], stock=STOCK)
    assert moves(st) == {"8H captures 2H+6D"}
    assert rule_of(st, "KD trails") == "C-owner-trail"


# -- V-raise-with-table -------------------------------------------------------------------------

def _example_b(rules=None) -> State:
    # Example B: a 5-build of A+4 (another player's), a loose 2; holding 3, 8, 10.
    return mk([["3H", "8S", "10C"], ["2D", "5S"]], ["2C", build(["AH", "4D"], 5, 1)],
              stock=STOCK, rules=rules or {})


def test_v_raise_with_table_seed_example_b():
    """V-raise-with-table (seed): in Example B, playing the 3 on the 5-build with the loose 2
    makes a single build of 10."""
    st = _example_b({"raise_with_table": True})
    assert moves(st) == {"3H trails", "3H builds 8 on AH+4D", "3H builds 10 on AH+2C+4D",
                         "8S trails", "8S builds 10 on 2C", "10C trails"}
    after = apply_move(st, "3H builds 10 on AH+2C+4D")
    assert after.table == [build(["AH", "2C", "3H", "4D"], 10, 0, False)]


def test_v_raise_with_table_off_example_b():
    """V-raise-with-table: without the switch (C-build-raise, seed Example B) the 2 may not
    join the raise."""
    st = _example_b()
    assert moves(st) == {"3H trails", "3H builds 8 on AH+4D", "8S trails",
                         "8S builds 10 on 2C", "10C trails"}
    assert rule_of(st, "3H builds 10 on AH+2C+4D") == "C-build-raise"


@pytest.mark.parametrize("rules", [{}, {"raise_with_table": True}])
def test_v_raise_with_table_played_card_must_change_the_value(rules):
    """V-raise-with-table (seed): a 6-build and a loose 3 with two nines: a nine may not join
    them into a multiple 9-build, the played card must contribute to the change of value."""
    st = mk([["9H", "9S"], ["2D", "6S"]], ["3C", build(["2H", "4D"], 6, 1)], stock=STOCK,
            rules=rules)
    assert moves(st) == {"9H trails", "9S trails"}
    assert rule_of(st, "9H builds 9 on 2H+3C+4D") == "C-build-raise"


def test_v_raise_with_table_not_for_multiple_builds():
    """V-raise-with-table: only a single build is raised; a multiple build never changes
    value."""
    st = mk([["3H", "8S", "10C"], ["2D", "5S"]], ["2C", build(["AH", "4D", "5D"], 5, 1)],
            stock=STOCK, rules={"raise_with_table": True})
    assert moves(st) == {"3H trails", "8S trails", "8S builds 10 on 2C", "10C trails"}
    assert rule_of(st, "3H builds 10 on AH+2C+4D+5D") == "C-build-raise"


# -- V-build-as-card ----------------------------------------------------------------------------

def test_v_build_as_card_capture_build_and_loose_card():
    """V-build-as-card (seed): a 6-build (5+A) and a loose 4: a 10 captures both."""
    st = mk([["10H", "KS"], ["2D", "6S"]], ["4C", build(["5H", "AD"], 6, 1)], stock=STOCK,
            rules={"build_as_card": True})
    assert moves(st) == {"10H trails", "10H captures AD+4C+5H", "KS trails"}
    after = apply_move(st, "10H captures AD+4C+5H")
    assert after.pile(0) == ["AD", "4C", "5H", "10H"] and after.table == []


def test_v_build_as_card_multiple_build_with_two_tens():
    """V-build-as-card (seed): holding two 10s, one 10 joins the 6-build and the 4 into a
    multiple 10-build."""
    st = mk([["10H", "10S"], ["2D", "6S"]], ["4C", build(["5H", "AD"], 6, 1)], stock=STOCK,
            rules={"build_as_card": True})
    assert moves(st) == {"10H trails", "10H captures AD+4C+5H", "10H builds 10 on AD+4C+5H",
                         "10S trails", "10S captures AD+4C+5H", "10S builds 10 on AD+4C+5H"}
    after = apply_move(st, "10H builds 10 on AD+4C+5H")
    assert after.table == [build(["AD", "4C", "5H", "10H"], 10, 0, True)]


def test_v_build_as_card_off_by_default():
    """V-build-as-card: without the switch a build is taken only by its value (C-capture) and
    table cards never change a single build's value (C-build-raise)."""
    st = mk([["10H", "10S"], ["2D", "6S"]], ["4C", build(["5H", "AD"], 6, 1)], stock=STOCK)
    assert moves(st) == {"10H trails", "10S trails"}
    assert rule_of(st, "10H captures AD+4C+5H") == "C-capture"
    assert rule_of(st, "10H builds 10 on AD+4C+5H") == "C-build-raise"


def test_v_build_as_card_only_single_builds():
    """V-build-as-card: a multiple build is not a card: a 7 cannot take a multiple 3-build
    and a loose 4."""
    st = mk([["7H", "5S"], ["2C", "3S"]], ["4C", build(["3H", "2D", "AC"], 3, 1, True)],
            stock=STOCK, rules={"build_as_card": True})
    assert moves(st) == {"7H trails", "5S trails"}
    assert rule_of(st, "7H captures AC+2D+3H+4C") == "C-capture"


# -- V-target -----------------------------------------------------------------------------------

def test_v_target_eleven_uses_difference_scoring():
    """V-target: with target 11 (two sides) only the side with more points scores, the
    difference (6 - 5 = 1)."""
    st = end_hand(SIX_FIVE, [0, 0], rules={"target": 11})
    assert st.rules.difference and st.rules.target == 11
    assert st.hand_points == [1, 0] and st.scores == [1, 0]


@pytest.mark.parametrize("start,over,winner", [([10, 3], True, 0), ([9, 3], False, None)])
def test_v_target_eleven_reached_by_the_difference(start, over, winner):
    """V-target: the game ends when a side's total, scored by differences, reaches 11."""
    st = end_hand(SIX_FIVE, start, rules={"target": 11})
    assert st.scores == [start[0] + 1, 3]
    assert st.game_over is over and st.winner == winner


def test_v_target_eleven_difference_false():
    """V-target: `difference=False` keeps plain scoring with target 11."""
    st = end_hand(SIX_FIVE, [0, 0], rules={"target": 11, "difference": False})
    assert not st.rules.difference and st.hand_points == [6, 5]


def test_v_target_eleven_partnerships_use_difference():
    """V-target: four players as two partnerships are two sides: difference scoring."""
    st = new_game("casino", 4, seed=1, partnerships=True, target=11)
    assert st.rules.difference and st.rules.target == 11


@pytest.mark.parametrize("start,over", [([44, 0], True), ([43, 0], False)])
def test_v_target_fifty(start, over):
    """V-target: target 50 (no difference scoring)."""
    st = end_hand(SIX_FIVE, start, rules={"target": 50})
    assert not st.rules.difference and st.hand_points == [6, 5]
    assert st.game_over is over


def test_v_target_difference_refused_with_three_sides():
    """V-target: difference scoring needs two sides; refused naming the switch."""
    with pytest.raises(ValueError, match="'difference'"):
        new_game("casino", 3, seed=1, difference=True)
    with pytest.raises(ValueError, match="'difference'"):
        new_game("casino", 4, seed=1, partnerships=False, difference=True)


@pytest.mark.parametrize("players", [3, 4])
def test_v_target_eleven_with_three_sides_plays_without_difference(players):
    """V-target: difference scoring is for two sides; with three or four individual players
    target 11 is a plain target."""
    st = new_game("casino", players, seed=1, target=11)
    assert st.rules.target == 11 and not st.rules.difference


def test_v_target_eleven_in_dominican_names_the_switch_it_turns_on():
    """V-target with V-dom-end: target 11 turns difference scoring on (two sides), which
    V-dom-end refuses; the error says that target=11 brought it, and that dom_end is the
    preset's, and both ways out work."""
    with pytest.raises(ValueError, match=r"^target=11 with two sides turns on difference "
                                         r"scoring \(V-target\), which does not combine with "
                                         r"'dom_end' \(V-dom-end, on in the 'dominican' "
                                         r"preset\); set difference=False"):
        new_game("dominican", 2, seed=1, target=11)
    with pytest.raises(ValueError, match=r"'dom_end' \(V-dom-end\); set difference=False"):
        new_game("dominican", 2, seed=1, target=11, dom_end=True)
    plain = new_game("dominican", 2, seed=1, target=11, difference=False)
    assert plain.rules.dom_end and not plain.rules.difference
    scored = new_game("dominican", 2, seed=1, target=11, dom_end=False)
    assert scored.rules.difference and not scored.rules.dom_end
    assert new_game("dominican", 3, seed=1, target=11).rules.dom_end  # three sides: no difference


def test_v_target_refused_when_not_positive():
    """V-target: the target must be a positive int; refused naming the switch."""
    with pytest.raises(ValueError, match="'target'"):
        new_game("casino", 2, seed=1, target=0)
    with pytest.raises(ValueError, match="'target'"):
        new_game("casino", 2, seed=1, target="21")


# -- V-last-capture -----------------------------------------------------------------------------

EVERYTHING = [[c for c in DECK if c != "3H"], []]


@pytest.mark.parametrize("variant,plain,switched", [
    ("casino", [11, 0], [10, 1]), ("royal", [11, 0], [10, 1]),
    ("dominican", [11, 0], [10, 1]), ("spade", [24, 0], [23, 1])])
def test_v_last_capture_most_cards_two_last_capture_one(variant, plain, switched):
    """V-last-capture: most cards scores 2 and the hand's last capture (the side taking the
    residue) 1."""
    st = end_hand(EVERYTHING, [0, 0], variant=variant, last_capturer=1)
    assert st.hand_points == plain
    rules = {"last_capture": True}
    if variant == "dominican":
        rules["dom_end"] = False  # refused together (docs/rules.md)
    st = end_hand(EVERYTHING, [0, 0], variant=variant, last_capturer=1, rules=rules)
    assert st.hand_points == switched


def test_v_last_capture_same_side():
    """V-last-capture: the side with most cards that also captured last scores 2 + 1."""
    st = end_hand(EVERYTHING, [0, 0], last_capturer=0, rules={"last_capture": True})
    assert st.hand_points == [11, 0]


def test_v_last_capture_nobody_captured():
    """V-last-capture: if nobody captured in the hand, nobody scores the last capture (the
    residue goes to the dealer, C-residue)."""
    st = end_hand(EVERYTHING, [0, 0], last_capturer=None, rules={"last_capture": True})
    assert st.hand_points == [10, 0]


@pytest.mark.parametrize("variant", ["wippen", "tuxedo", "hungarian"])
def test_v_last_capture_refused(variant):
    """V-last-capture: refused where the cards points differ (wippen 2 already, tuxedo 15,
    hungarian), naming the switch."""
    with pytest.raises(ValueError, match="'last_capture'"):
        new_game(variant, 2, seed=1, last_capture=True)


@pytest.mark.parametrize("variant", ["dominican", "casino"])
def test_v_last_capture_refused_with_dom_end(variant):
    """V-last-capture with V-dom-end is refused (decision in docs/rules.md): at 18 a side
    wins by most cards, worth 3 points; under V-last-capture it is worth 2."""
    with pytest.raises(ValueError, match="'dom_end' and 'last_capture'"):
        new_game(variant, 2, seed=1, dom_end=True, last_capture=True)
    assert new_game(variant, 2, seed=1, last_capture=True, dom_end=False).rules.last_capture


# -- V-countout ---------------------------------------------------------------------------------

def test_v_countout_casino_cards_counted_first():
    """V-countout (on casino): both reach 21 in one hand (18 + 6 = 24, 20 + 5 = 25); counting
    cards first, side 0 reaches 21 first and wins."""
    st = end_hand(SIX_FIVE, [18, 20], rules={"countout": True})
    assert st.hand_points == [6, 5] and st.scores == [24, 25]
    assert st.game_over and st.winner == 0


def test_v_countout_casino_off_higher_total_wins():
    """V-countout: off by default in casino: the higher total wins (C-game)."""
    st = end_hand(SIX_FIVE, [18, 20])
    assert st.game_over and st.winner == 1


def test_v_countout_casino_spades_before_big_casino_and_aces():
    """V-countout (on casino): spades are counted before the 10D and the aces: at 19 / 20,
    side 1's most spades reaches 21 first though side 0 ends higher (25 to 22)."""
    piles = split(25, ["10D", "AS", "AH", "AD", "AC"])  # 26-26: no cards points
    st = end_hand(piles, [19, 20], rules={"countout": True})
    # side 0: 10D 2, four aces 4 = 6; side 1: spades 1, 2S 1 = 2
    assert st.hand_points == [6, 2] and st.scores == [25, 22]
    assert st.game_over and st.winner == 1
    st = end_hand(piles, [19, 20])
    assert st.game_over and st.winner == 0


def test_v_countout_an_item_that_takes_two_sides_to_the_target_names_no_one_first():
    """V-countout (decision, docs/rules.md Count-out): an item that gives points to several
    sides is counted for all at once; if it takes more than one to the target none was first
    and the higher total wins (C-game). Swazi's cards tied 26-26 give 1 each (20 + 1 both);
    spade's spades give each side its own (58 + 3, 60 + 10). It went to side 0 whichever
    piles it held."""
    swazi = split(26, ["AS", "3S", "4S", "5S", "6S", "7S", "10D"], hold=())
    for piles, winner in ((swazi, 1), (swazi[::-1], 0)):
        st = end_hand(piles[:1] + [piles[1][:-1]], [20, 20], variant="swazi",
                      last=piles[1][-1], last_capturer=1, rules={"countout": True})
        assert sorted(st.scores) == [24, 27] and st.game_over and st.winner == winner
        assert st.scores[winner] == 27
    spade = split(26, ["3S", "4S", "5S"], hold=())
    for piles, start, winner in ((spade, [58, 60], 1), (spade[::-1], [60, 58], 0)):
        st = end_hand(piles[:1] + [piles[1][:-1]], start, variant="spade",
                      last=piles[1][-1], last_capturer=1, rules={"countout": True})
        assert sorted(st.scores) == [61, 78] and st.game_over and st.winner == winner


# -- V-earned -----------------------------------------------------------------------------------

def test_v_earned_game_ends_during_play():
    """V-earned: points count as earned; the hand stops as soon as a side reaches the target
    (19 + the 10D's 2 = 21)."""
    st = full([["10H", "4C"], ["2C", "5D"]], ["10D", "KH"], [[], []], scores=[19, 4],
              rules={"earned": True})
    after = apply_move(st, "10H captures 10D")
    assert after.game_over and after.winner == 0
    assert after.hand_points == [2, 0] and after.scores == [21, 4]
    assert legal_moves(after) == []


def test_v_earned_off_by_default():
    """V-earned: without the switch the hand is played out."""
    st = full([["10H", "4C"], ["2C", "5D"]], ["10D", "KH"], [[], []], scores=[19, 4])
    after = apply_move(st, "10H captures 10D")
    assert not after.game_over and after.current == 1


@pytest.mark.parametrize("had,over", [(25, True), (24, False)])
def test_v_earned_most_cards_certain_at_27(had, over):
    """V-earned: most cards (3) counts once a side holds 27 of the 52 cards."""
    p0 = [c for c in PLAIN if c not in ("5H", "5D", "KH", "KC", "QH")][:had]
    st = full([["5H", "QH"], ["KC"]], ["5D", "KH"], [p0, []], scores=[18, 0],
              rules={"earned": True})
    after = apply_move(st, "5H captures 5D")
    assert after.game_over is over
    if over:
        assert after.winner == 0 and after.hand_points == [3, 0]


def test_v_earned_spade_casino_each_spade_as_captured():
    """V-earned (on spade): each spade counts as it is captured: at 59, the JS (1 + 1) wins."""
    st = full([["JH", "4C"], ["2C", "5D"]], ["JS", "KH"], [[], []], variant="spade",
              scores=[59, 0], rules={"earned": True})
    after = apply_move(st, "JH captures JS")
    assert after.game_over and after.winner == 0 and after.hand_points == [2, 0]


@pytest.mark.parametrize("had,over", [(19, True), (18, False)])
def test_v_earned_tuxedo_most_cards_certain_at_21_of_40(had, over):
    """V-earned (on tuxedo): most cards (15) counts once a side holds 21 of the 40 cards."""
    rook = [f"{n}{c}" for n in range(1, 11) for c in "RYGB"]
    used = {"6R", "6Y", "8G", "9G", "7B"}
    p0 = [c for c in rook if not c.startswith("5") and c not in used][:had]
    stock = [c for c in rook if c not in used and c not in p0]
    st = mk([["6R", "8G"], ["7B"]], ["6Y", "9G"], "tuxedo", piles=[p0, []], stock=stock,
            scores=[85, 0], rules={"earned": True})
    after = apply_move(st, "6R captures 6Y")
    assert after.game_over is over
    if over:
        assert after.winner == 0 and after.hand_points == [15, 0] and after.scores == [100, 0]


def test_v_earned_sweep_counts_at_once():
    """V-earned (with `sweeps`): a sweep counts as it happens."""
    st = full([["10H", "4C"], ["2C", "5D"]], ["10C"], [[], []], scores=[20, 4],
              rules={"earned": True, "sweeps": True})
    after = apply_move(st, "10H captures 10C")
    assert after.game_over and after.winner == 0 and after.hand_points == [1, 0]


def test_v_earned_refused_with_countout():
    """V-earned: not combined with V-countout (each decides who reaches the target first);
    switching earned on turns royal's default count-out off, an explicit count-out is
    refused."""
    with pytest.raises(ValueError, match="'earned'"):
        new_game("casino", 2, seed=1, earned=True, countout=True)
    with pytest.raises(ValueError, match="'earned'"):
        new_game("royal", 2, seed=1, earned=True, countout=True)
    st = new_game("royal", 2, seed=1, earned=True)
    assert st.rules.earned and not st.rules.countout


# -- the switch table of docs/rules.md ----------------------------------------------------------

DOC_TABLE = {
    "sweeps": ["casino", "royal", "dominican", "hungarian", "spade", "wippen", "swedish",
               "finnish"],
    "cancel": ["casino", "royal", "dominican", "finnish"],
    "countout": ["casino", "royal", "dominican", "spade", "wippen"],
    "dom_trail": BUILDING, "dom_build": BUILDING,
    "dom_end": ["casino", "royal", "dominican"], "soto": ["casino", "royal", "dominican"],
    "twenty_by_two_spades": ["casino", "royal", "dominican"],
    "restricted_no_sweeps": ["casino", "royal", "dominican"],
    "partner_build": BUILDING,
    "build_loose": BUILDING, "owner_may_trail": BUILDING, "raise_with_table": BUILDING,
    "build_as_card": BUILDING,
    "target": PRESETS, "difference": [p for p in PRESETS if p != "hungarian"],
    "earned": PRESETS,
    "last_capture": ["casino", "royal", "dominican", "spade"],
    "ace_14": ["hungarian"], "ulmann": ["hungarian"], "kovacs": ["hungarian"],
    "nagy": ["hungarian"], "claims": ["hungarian"],
    "orange_calls": ["tuxedo"],
    "bicycle": ["spade"], "cut": ["hungarian"], "points": PRESETS,
}


def _setting(switch: str, variant: str) -> tuple[dict, int, bool | None]:
    """A non-default value of ``switch`` on ``variant`` plus the companions it needs:
    (switches, players, partnerships)."""
    default = describe_variant(variant)["switches"][switch]["default"]
    value = 50 if switch == "target" else not default
    if switch == "points":  # V-points: a table of an item the preset scores
        value = {"cards": 10} if variant == "tuxedo" else {"aces": 2}
    sw = {switch: value}
    if switch == "cut":
        sw["ulmann"] = True  # V-hun-cut is played with Ulmann's rules
    if switch == "cancel":
        sw["sweeps"] = True
    if switch == "sweeps" and variant in ("dominican", "finnish"):
        sw["cancel"] = False  # (V-cancel needs sweeps)
    if (switch, variant) == ("difference", "finnish"):
        sw["earned"] = False  # (difference scoring nets whole hands)
    if switch in ("soto", "twenty_by_two_spades", "restricted_no_sweeps"):
        sw["dom_end"] = True
    if variant == "royal" and (switch in ("earned", "soto", "twenty_by_two_spades",
                                          "restricted_no_sweeps", "dom_end")):
        sw["countout"] = False
    if variant == "dominican" and switch in ("countout", "earned", "difference", "last_capture"):
        sw["dom_end"] = False
    if switch == "partner_build":
        return sw, 4, True
    return sw, 2, None


_ACCEPT = [pytest.param(s, v, id=f"{s}-{v}") for s, vs in DOC_TABLE.items() for v in vs]


@pytest.mark.parametrize("switch,variant", _ACCEPT)
def test_switch_accepted_where_docs_say(switch, variant):
    """Section-3 switches (and the others): each switch can be set on the presets the
    docs/rules.md table lists (V-build-loose, V-owner-may-trail, V-raise-with-table,
    V-build-as-card, V-target, V-last-capture, V-countout, V-earned, ...)."""
    sw, players, partners = _setting(switch, variant) if switch in \
        describe_variant(variant)["switches"] else ({switch: 50 if switch == "target"
                                                     else True}, 2, None)
    st = new_game(variant, players, seed=1, partnerships=partners, **sw)
    assert switch_value(st.rules, switch) == sw[switch]


_REFUSE = [(s, v) for s, vs in DOC_TABLE.items() for v in PRESETS if v not in vs]


@pytest.mark.parametrize("switch,variant", _REFUSE, ids=[f"{s}-{v}" for s, v in _REFUSE])
def test_switch_refused_where_it_makes_no_sense(switch, variant):
    """Switches are refused, with a ValueError naming them, on presets where they make no
    sense (e.g. V-build-loose on hungarian, V-last-capture on wippen)."""
    value = not getattr(new_game(variant, 2, seed=1).rules, switch)
    with pytest.raises(ValueError, match=f"'{switch}'"):
        new_game(variant, 2, seed=1, **{switch: value})


def test_switch_describe_matches_doc_table():
    """Switch table (all section-3 ids, V-hun-*, V-tux-score, V-dom-*): describe_variant lists,
    for each preset, exactly the switches of the docs table."""
    for variant in PRESETS:
        listed = set(describe_variant(variant)["switches"])
        doc = {s for s, vs in DOC_TABLE.items() if variant in vs}
        assert listed == doc, variant


def test_switch_unknown_or_wrong_type_refused():
    """Switches (V-build-loose, V-raise-with-table, V-target): an unknown switch or a value of
    the wrong type raises ValueError naming it."""
    with pytest.raises(ValueError, match="'no_such_rule'"):
        new_game("casino", 2, seed=1, no_such_rule=True)
    with pytest.raises(ValueError, match="'build_loose'"):
        new_game("casino", 2, seed=1, build_loose=1)
    with pytest.raises(ValueError, match="'target'"):
        new_game("casino", 2, seed=1, target=True)
    with pytest.raises(ValueError, match="'raise_with_table'"):
        State.from_spec({"variant": "casino", "players": 2, "hands": [["2C"], ["3C"]],
                         "rules": {"raise_with_table": "yes"}})


# -- list_variants / describe_variant -----------------------------------------------------------

DEFAULTS = {
    "casino": {"sweeps": False, "countout": False, "target": 21, "difference": False},
    "royal": {"sweeps": False, "countout": True, "target": 21},
    "dominican": {"sweeps": True, "cancel": True, "dom_trail": True, "dom_build": True,
                  "dom_end": True, "target": 21},
    "hungarian": {"sweeps": True, "earned": True, "target": 11, "ace_14": False,
                  "ulmann": False, "kovacs": False, "nagy": False, "claims": False},
    "tuxedo": {"orange_calls": False, "target": 100, "difference": False},
    "spade": {"sweeps": False, "target": 61},
    "wippen": {"sweeps": True, "target": 21},
    "swedish": {"sweeps": True, "target": 16},
    "finnish": {"sweeps": True, "cancel": True, "earned": True, "target": 16},
}


def test_list_variants_every_preset():
    """list_variants: the seven presets of RULES.md section 2 (casino, royal, dominican,
    hungarian V-hun-play, tuxedo V-tux-deal, spade V-spade, wippen) first, in that order, then
    those of section 4 in the order added (swedish V-swe-score, finnish V-fin-score, swazi:
    V-swazi-steal, V-swazi-deal, V-swazi-score; krypkasino, tested in tests/test_rules_kryp.py)."""
    assert list_variants() == PRESETS + ["swazi", "krypkasino"]


@pytest.mark.parametrize("variant", PRESETS)
def test_describe_variant_every_preset(variant):
    """describe_variant (RULES.md section 2 presets): players, deck, description, and each
    switch with its default, the one a new game gets (C-game target, C-sweep, V-countout,
    V-dom-*, V-hun-end, V-tux-score, V-spade)."""
    d = describe_variant(variant)
    assert d["name"] == variant and d["title"] and d["description"]
    assert d["players"] == {"hungarian": [2], "tuxedo": [2, 3, 4, 5, 6]}.get(variant,
                                                                              [2, 3, 4])
    assert d["deck"] == ("rook" if variant == "tuxedo" else "standard")
    assert d["partnerships"] is (variant != "hungarian")
    for name, value in DEFAULTS[variant].items():
        assert d["switches"][name]["default"] == value, name
    st = new_game(variant, 2, seed=1)
    for name, info in d["switches"].items():
        assert set(info) == {"default", "doc"} and info["doc"]
        assert switch_value(st.rules, name) == info["default"], name
    # every default switch value other than those listed is off (V-points: no table)
    rest = {k: v["default"] for k, v in d["switches"].items() if k not in DEFAULTS[variant]}
    assert rest.pop("points") == {}
    assert all(v is False for v in rest.values()), rest


def test_describe_variant_unknown():
    """describe_variant (RULES.md section 2): an unknown preset raises ValueError."""
    with pytest.raises(ValueError, match="nope"):
        describe_variant("nope")
    with pytest.raises(ValueError, match="nope"):
        new_game("nope", 2)
