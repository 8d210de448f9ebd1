"""Rule tests for the Nordic presets `swedish` (Kasino in Sweden) and `finnish` (Kasino in
Finland), RULES.md section 4.

Each test names the rule id it checks: V-nordic-play (no building; a single card captures
single cards and sets, several at once, or trails; capturing is never compulsory; C-deal),
V-swe-score (most spades 2, most cards 1, 10D 2, 2S 1, aces 1, last capture 1, each sweep 1,
never cancelled), V-swe-end (first to 16; equal totals go to the most spades of the hand, then
another hand), V-fin-values (from hand A 14, 2S 15, 10D 16; on the table A 1, 2S 2, 10D 10),
V-fin-score (10 a hand, sweeps cancelled and not scored in the last deal nor once a side
started the hand on 10 or more, no last-capture point, points earned during play to 16),
with V-cancel, V-earned and V-points on these presets. Seed: docs/rules.md "Nordic presets"
and the "Swedish and Finnish" decisions.
"""

from __future__ import annotations

import json
import random
from functools import partial

import pytest
from rules_helpers import (
    DECK,
    PLAIN,
    SPADES,
    end_hand,
    mk_for,
    moves,
    random_states,
    rule_of,
    split,
)
from rules_helpers import full as rules_full

from casino_env.engine import (
    IllegalMoveError,
    Move,
    State,
    apply_move,
    describe_variant,
    legal_moves,
    list_variants,
    new_game,
    parse_move,
)
from casino_env.engine.play import play
from casino_env.engine.rules import ItemPoints

# -- helpers (the shared ones are in tests/rules_helpers.py) --------------------------------------

STOCK = ["8D", "8H", "6C", "9H", "9D", "QD", "JH", "JD"]  # a small stock: the hand goes on
swe = mk_for("swedish")
fin = mk_for("finnish")
swe_end = partial(end_hand, variant="swedish")
fin_end = partial(end_hand, variant="finnish")
swe_full = partial(rules_full, variant="swedish")
fin_full = partial(rules_full, variant="finnish")

# Side 0 (31 cards with the residue 3H, last capturer): most cards, 10D, AH; side 1 (21
# cards): every spade, the 2S, AS, AD, AC. V-swe-score: 1 + 2 + 1 + last capture 1 = 5 and
# spades 2 + 2S 1 + aces 3 = 6 (11 a hand); V-fin-score: 4 and 6 (10 a hand).
FIVE_SIX = split(30, ["10D", "AH"])
# The same, 26 cards each (side 0: 25 and the residue): nobody has most cards.
EVEN = split(25, ["10D", "AH"])


def plain(n: int, avoid=()) -> list[str]:
    """``n`` plain (non-scoring) cards, none of ``avoid``."""
    out = [c for c in PLAIN if c not in avoid][:n]
    assert len(out) == n
    return out


def three_piles() -> list[list[str]]:
    """Three piles of all cards but the residue 3H. Spades 5 / 5 / 3 (nobody has most);
    side 0 (15 cards and the residue): 10D; side 1 (16): AH AD AC; side 2 (20, most cards):
    AS 2S."""
    p0 = ["3S", "4S", "5S", "6S", "7S", "10D"]
    p1 = ["8S", "9S", "10S", "JS", "QS", "AH", "AD", "AC"]
    p2 = ["AS", "2S", "KS"]
    rest = plain(35 - 1, avoid={"3H"})  # every plain card but the residue
    p0 += rest[:9]
    p1 += rest[9:17]
    p2 += rest[17:]
    assert (len(p0), len(p1), len(p2)) == (15, 16, 20)
    assert sorted(p0 + p1 + p2 + ["3H"]) == sorted(DECK)
    return [p0, p1, p2]


def refusal(st: State, move: Move | str) -> tuple[str | None, str]:
    """(rule id, reason) of an illegal move (fails the test if the move is legal)."""
    with pytest.raises(IllegalMoveError) as info:
        apply_move(st, move)
    return info.value.rule, info.value.reason


NORDIC = ("swedish", "finnish")
SEATINGS = [(2, False), (3, False), (4, False), (4, True)]


# -- V-nordic-play ------------------------------------------------------------------------------

def test_v_nordic_play_presets_listed_and_described():
    """V-nordic-play: both presets are listed and described: 2-4 players, 4 as partners or
    not (individual by default), the standard deck, their switches with defaults."""
    assert {"swedish", "finnish"} <= set(list_variants())
    for name in NORDIC:
        d = describe_variant(name)
        assert d["players"] == [2, 3, 4] and d["partnerships"] is True
        assert d["deck"] == "standard" and "V-nordic-play" in d["description"]
        assert not new_game(name, 4, seed=1).rules.partnerships
        assert new_game(name, 4, seed=1, partnerships=True).rules.sides == 2
    sw = describe_variant("swedish")["switches"]
    assert {k: v["default"] for k, v in sw.items()} == {
        "sweeps": True, "target": 16, "difference": False, "earned": False, "points": {}}
    sw = describe_variant("finnish")["switches"]
    assert {k: v["default"] for k, v in sw.items()} == {
        "sweeps": True, "cancel": True, "target": 16, "difference": False, "earned": True,
        "points": {}}


@pytest.mark.parametrize("variant", NORDIC)
@pytest.mark.parametrize("players,stock", [(2, 40), (3, 36), (4, 32)])
def test_v_nordic_play_deal_as_c_deal(variant, players, stock):
    """V-nordic-play deals as C-deal: four cards each and four to the table, then four each
    (two players: six deals a hand)."""
    st = new_game(variant, players, seed=5)
    assert [len(h) for h in st.hands] == [4] * players
    assert len(st.loose) == 4 and st.stock_size == stock and st.current == 0
    deals = 1
    while st.hand_no == 0 and not st.game_over:
        before = st.stock_size
        ms = legal_moves(st)
        st = play(st, next((m for m in ms if m.kind == "capture"), ms[0]))
        deals += st.stock_size < before and st.hand_no == 0
    assert deals == 48 // (4 * players)


def test_v_nordic_play_swedish_captures_single_cards_and_sets_or_trails():
    """V-nordic-play (swedish): a 7 takes the 7 and the sets 3+4 and 2+5, any of them
    together; a King takes 2+4+7; an Ace counting 14 takes 2+3+4+5, 2+5+7 or 3+4+7. Every
    card may trail (capturing is never compulsory), and nothing builds."""
    st = swe([["7H", "KD", "AS"], ["2C"]], ["3S", "4C", "7D", "2H", "5C"], stock=STOCK)
    assert moves(st) == {
        "7H trails", "7H captures 7D", "7H captures 3S+4C", "7H captures 2H+5C",
        "7H captures 3S+4C+7D", "7H captures 2H+5C+7D", "7H captures 2H+3S+4C+5C",
        "7H captures 2H+3S+4C+5C+7D",
        "KD trails", "KD captures 2H+4C+7D",
        "AS trails", "AS captures 2H+3S+4C+5C", "AS captures 2H+5C+7D", "AS captures 3S+4C+7D"}
    assert len(legal_moves(st)) == 14


def test_v_nordic_play_swedish_ace_one_or_fourteen():
    """V-nordic-play with Royal values (swedish): an Ace takes a lone Ace (1, or 14 as a set of
    its own: one move, C-move) or K+A (14); either reading of AS captures AH is accepted."""
    st = swe([["AS"], ["2C"]], ["AH", "KC", "3D"], stock=STOCK)
    assert moves(st) == {"AS trails", "AS captures AH", "AS captures AH+KC"}
    for value in (1, 14):
        after = apply_move(st, Move("capture", "AS", ["AH"], value=value))
        assert after.piles[0] == ["AS", "AH"]
    assert parse_move("AS captures AH+KC", st).value == 14


def test_v_fin_values_ace_from_hand_does_not_take_a_lone_ace():
    """V-fin-values: the same table in `finnish`: the Ace from hand counts 14, the table's Ace
    1, so AS takes AH+KC (1 + 13) but not AH alone."""
    st = fin([["AS"], ["2C"]], ["AH", "KC", "3D"], stock=STOCK)
    assert moves(st) == {"AS trails", "AS captures AH+KC"}
    assert legal_moves(st)[1].value == 14
    assert rule_of(st, "AS captures AH") == "V-fin-values"


def test_v_fin_values_from_hand_and_on_the_table():
    """V-fin-values: from hand 10D 16, 2S 15, AC 14, 9C 9; on the table AD 1, 2C 2, 4D 4, 5S
    5, 10H 10, KH 13. The 10D takes 10+5+1, 10+2+4 or 13+2+1; the 2S 10+5, 13+2, 10+4+1 and
    the disjoint pairs of them; the AC 10+4, 13+1 or both; the 9C 4+5."""
    st = fin([["10D", "2S", "AC", "9C"], ["3C"]], ["10H", "5S", "AD", "KH", "2C", "4D"],
             stock=STOCK)
    assert moves(st) == {
        "10D trails", "10D captures AD+5S+10H", "10D captures 2C+4D+10H",
        "10D captures AD+2C+KH",
        "2S trails", "2S captures 5S+10H", "2S captures 2C+KH", "2S captures AD+4D+10H",
        "2S captures 2C+5S+10H+KH", "2S captures AD+2C+4D+10H+KH",
        "AC trails", "AC captures 4D+10H", "AC captures AD+KH", "AC captures AD+4D+10H+KH",
        "9C trails", "9C captures 4D+5S"}
    values = {str(m): m.value for m in legal_moves(st) if m.kind == "capture"}
    assert values["10D captures AD+2C+KH"] == 16 and values["2S captures 2C+KH"] == 15
    assert values["AC captures AD+KH"] == 14 and values["9C captures 4D+5S"] == 9


def test_v_fin_values_table_cards_count_their_low_value():
    """V-fin-values: on the table the 10D counts 10, the 2S 2 and an Ace 1: a 10 takes the 10D,
    a 3 takes 2S+AH, a Queen takes 10D+2S (10 + 2)."""
    st = fin([["10H", "3C", "QC"], ["4C"]], ["10D", "2S", "AH"], stock=STOCK)
    assert moves(st) == {"10H trails", "10H captures 10D", "3C trails", "3C captures AH+2S",
                         "QC trails", "QC captures 2S+10D"}


def test_v_fin_values_swedish_keeps_royal_values():
    """V-fin-values is Finnish only: in `swedish` the 10D and 2S count 10 and 2 from hand."""
    st = swe([["10D", "2S"], ["4C"]], ["10H", "2C", "6S", "4H", "AD"], stock=STOCK)
    assert moves(st) == {"2S trails", "2S captures 2C", "10D trails", "10D captures 10H",
                         "10D captures 4H+6S", "10D captures 4H+6S+10H"}


def test_v_fin_values_parse_move_reads_the_hand_value():
    """V-fin-values: parse_move gives a capture its value from hand, legal or not."""
    st = fin([["10D", "AS"], ["4C"]], ["6D", "10H", "AH"], stock=STOCK)
    assert parse_move("10D captures 6D+10H", st).value == 16
    assert parse_move("AS captures AH", st).value == 14  # (illegal: AH counts 1)


@pytest.mark.parametrize("variant", NORDIC)
@pytest.mark.parametrize("players,partners", SEATINGS)
def test_v_nordic_play_every_card_trails_and_nothing_builds(variant, players, partners):
    """V-nordic-play: along random games every hand card may trail, every move plays one card,
    and no move builds (nor trails with table cards)."""
    for st in random_states(variant, players, 60, players + 10 * partners, partners):
        ms = legal_moves(st)
        assert {m.kind for m in ms} <= {"trail", "capture"}
        assert all(m.played_mask.bit_count() == 1 for m in ms)
        assert all(not m.taken_mask for m in ms if m.kind == "trail")
        trails = {m.played_mask for m in ms if m.kind == "trail"}
        assert trails == {1 << c for c in range(52) if st.hand_masks[st.current] >> c & 1}


@pytest.mark.parametrize("variant", NORDIC)
def test_v_nordic_play_no_building_names_the_rule(variant):
    """V-nordic-play: a build, or a trail that also builds, is refused naming V-nordic-play
    (even when C-build would allow it elsewhere)."""
    st = (swe if variant == "swedish" else fin)(
        [["7H", "3D", "KD"], ["2C"]], ["3S", "4C", "5H"], stock=STOCK)
    for text in ("3D builds 7 on 4C", "3D builds 8 on 5H", "KD trails and builds 7 on 3S+4C"):
        rule, reason = refusal(st, text)
        assert rule == "V-nordic-play" and reason.startswith(f"there is no building in {variant}")
    assert rule_of(st, "7H+3D captures 4C+5H") == "C-turn"
    assert rule_of(st, "7H captures 3S+5H") == "C-capture"


@pytest.mark.parametrize("move,rule,reason", [
    ("AS captures AH", "V-fin-values",
     "AS counts 14 played from hand (1 only on the table), and AH counts 1, not 14"),
    ("10D captures 10H", "V-fin-values",
     "10D counts 16 played from hand (10 only on the table), and 10H counts 10, not 16"),
    ("KC captures AH+10H", "V-fin-values",
     "on the table AH counts 1 (14 only from hand): 1 + 10 is 11, not 13"),
    (Move("capture", "10D", ["10H", "4D", "2C"], value=10), "V-fin-values",
     "10D counts 16 played from hand (it counts 10 only on the table), not 10"),
    ("9C captures 4D+2C", "C-capture", "2 + 4 is 6, not 9"),
])
def test_v_fin_values_illegal_captures_explain_both_values(move, rule, reason):
    """V-fin-values: a Finnish capture failing with an Ace, the 2S or the 10D names the rule
    and says what the card counts from hand and on the table; other failures name C-capture
    (10D takes 10H+4D+2C only as 16)."""
    st = fin([["AS", "10D", "KC", "9C"], ["4C"]], ["AH", "10H", "4D", "2C"], stock=STOCK)
    assert refusal(st, move) == (rule, reason)
    assert apply_move(st, "10D captures 2C+4D+10H").piles[0] == ["2C", "4D", "10H", "10D"]


# -- V-swe-score --------------------------------------------------------------------------------

def test_v_swe_score_eleven_a_hand():
    """V-swe-score: most cards 1, most spades 2, 10D 2, 2S 1, each Ace 1, the last capture 1:
    5 for the last capturer with most cards, 10D and AH; 6 for the side with every spade."""
    st = swe_end(FIVE_SIX, [0, 0])
    assert st.hand_points == [5, 6] and st.scores == [5, 6] and st.hand_no == 1
    r = st.rules
    assert r.item_points == ItemPoints(cards=1, spades=2, big_casino=2, little_casino=1,
                                       aces=1, sweep=1, last_capture=1)
    assert swe_end(FIVE_SIX, [0, 0], last_capturer=1).hand_points == [4, 7]


def test_v_swe_score_ties_score_nothing():
    """V-swe-score: 26 cards each gives nobody the point for cards; three players splitting
    the spades 5 / 5 / 3 give nobody the spades' 2."""
    assert swe_end(EVEN, [0, 0]).hand_points == [4, 6]
    # side 0: 10D 2 + last capture 1; side 1: three aces; side 2: cards 1, AS 1, 2S 1
    assert swe_end(three_piles(), [0, 0, 0]).hand_points == [3, 3, 3]


def test_v_swe_score_sweeps_score_one_and_never_cancel():
    """V-swe-score: each sweep (tabbe) is 1 and sweeps never cancel: a sweep by side 0 while
    side 1 has one leaves both standing, and each scores at the end of the hand."""
    st = swe([["7H", "4C"], ["2C"]], ["7D"], stock=STOCK, sweeps=[0, 1])
    after = apply_move(st, "7H captures 7D")
    assert after.sweeps == (1, 1)
    assert swe_end(FIVE_SIX, [0, 0], sweeps=[2, 1]).hand_points == [7, 7]


def test_v_swe_score_last_card_sweep_counts():
    """V-swe-score (C-sweep): the hand's last card sweeps when it takes the whole table, and
    that sweep scores with the last capture."""
    piles = split(30, ["10D", "AH"], hold=("7H", "7D"))
    st = swe([["7H"], []], ["7D"], stock=[], piles=piles, last_capturer=1)
    after = apply_move(st, "7H captures 7D")
    assert after.hand_no == 1 and after.hand_points == [6, 6]  # 1 + 2 + 1 + last 1 + sweep 1


def test_v_swe_score_residue_to_the_last_capturer_is_not_a_sweep():
    """V-swe-score (C-residue): the cards left on the table (5D and the last card 3H) go to the
    last capturer with the last-capture point; taking them is no sweep."""
    piles = split(29, ["10D", "AH"], hold=("3H", "5D"))
    st = swe_end(piles, [0, 0], table=["5D"])
    assert st.hand_points == [5, 6]  # as FIVE_SIX: no sweep point for the residue
    st = swe_end(piles, [0, 0], table=["5D"], last_capturer=1)
    assert st.hand_points == [4, 7]  # side 1 (23 cards) scores the last capture


def test_v_swe_score_partners():
    """V-swe-score with four players as partners: each team's pile scores as one side."""
    st = swe_end(FIVE_SIX, [0, 0], partnerships=True)
    assert st.rules.sides == 2 and st.hand_points == [5, 6]


def test_v_swe_score_points_table():
    """V-points on `swedish`: most spades 1 and no last-capture point (4 and 5); the 2S at 3."""
    st = swe_end(FIVE_SIX, [0, 0], rules={"points": {"spades": 1, "last_capture": 0}})
    assert st.hand_points == [4, 5]
    st = swe_end(FIVE_SIX, [0, 0], rules={"points": {"little_casino": 3}})
    assert st.hand_points == [5, 8]


def test_v_swe_score_switches():
    """V-swe-score: the last-capture point is the preset's (`last_capture=False` is refused,
    C-sweep's `sweeps=False` scores no sweeps); sweeps never cancel (`cancel` refused)."""
    with pytest.raises(ValueError, match="rule switch 'last_capture' does not apply to "
                                         "'swedish'"):
        new_game("swedish", 2, seed=1, last_capture=False)
    with pytest.raises(ValueError, match="rule switch 'cancel' does not apply"):
        new_game("swedish", 2, seed=1, cancel=True)
    for name in ("build_loose", "countout", "dom_end", "ace_14"):
        with pytest.raises(ValueError, match=f"'{name}'"):
            new_game("swedish", 2, seed=1, **{name: True})
    st = swe_end(FIVE_SIX, [0, 0], rules={"sweeps": False})
    assert st.hand_points == [5, 6] and st.rules.item_points.sweep == 0


# -- V-swe-end ----------------------------------------------------------------------------------

@pytest.mark.parametrize("start,winner", [([10, 0], None), ([11, 9], 0), ([12, 10], 0),
                                          ([10, 10], 1), ([11, 10], 1)])
def test_v_swe_end_first_to_sixteen_higher_total_then_spades(start, winner):
    """V-swe-end: the game is to 16; if both sides reach it in the hand the higher total wins
    ([12, 10] + [5, 6] = 17 to 16); equal totals ([11, 10]: 16 each) go to the side with more
    spades in the hand (side 1, all 13)."""
    st = swe_end(FIVE_SIX, start)
    assert st.game_over is (winner is not None) and st.winner == winner
    assert st.scores == [start[0] + 5, start[1] + 6]


def test_v_swe_end_equal_totals_and_spades_play_another_hand():
    """V-swe-end: three players, two of them reach 16 with equal totals and 5 spades each: a
    further hand is played; one point more wins outright."""
    st = swe_end(three_piles(), [13, 13, 0])
    assert st.scores == [16, 16, 3] and not st.game_over and st.hand_no == 1
    assert st.hand(0) and st.dealer == 0  # the next hand is dealt
    st = swe_end(three_piles(), [13, 12, 0])
    assert st.game_over and st.winner == 0


def test_v_swe_end_a_side_already_at_sixteen():
    """V-swe-end: a hand that starts with a side at 16 or more (after a tied hand) is decided
    the same way: the higher total ([16, 10] + [5, 6]: 21 to 16), then this hand's spades
    ([16, 15]: 21 each, side 1 has the 13 spades)."""
    st = swe_end(FIVE_SIX, [16, 10])
    assert st.game_over and st.winner == 0
    st = swe_end(FIVE_SIX, [16, 15])
    assert st.game_over and st.winner == 1 and st.scores == [21, 21]


def test_v_swe_end_finnish_has_no_spade_tie_break():
    """V-swe-end is Swedish only: Finnish equal totals at the end of a hand play on (C-game)."""
    st = fin_end(FIVE_SIX, [12, 10])
    assert st.hand_points == [4, 6] and st.scores == [16, 16] and not st.game_over


# -- V-fin-score --------------------------------------------------------------------------------

def test_v_fin_score_ten_a_hand_no_last_capture_point():
    """V-fin-score: most cards 1, most spades 2, 10D 2, 2S 1, each Ace 1 (10 a hand); the last
    capturer takes the residue but scores no point for it."""
    st = fin_end(FIVE_SIX, [0, 0])
    assert st.hand_points == [4, 6]
    assert st.rules.item_points == ItemPoints(cards=1, spades=2, big_casino=2, little_casino=1,
                                              aces=1, sweep=1, last_capture=0)
    assert fin_end(FIVE_SIX, [0, 0], last_capturer=1).hand_points == [4, 6]  # (side 1: 22)


def test_v_fin_score_ties_score_nothing_and_carry_nothing():
    """V-fin-score: 26-26 cards, or spades 5 / 5 / 3, score for nobody; the next hand starts
    from the scores as they are (nothing carried over)."""
    st = fin_end(EVEN, [0, 0])
    assert st.hand_points == [3, 6] and st.scores == [3, 6]
    st = fin_end(three_piles(), [0, 0, 0])
    assert st.hand_points == [2, 3, 3] and st.scores == [2, 3, 3]


def test_v_fin_score_sweeps_cancel():
    """V-fin-score (V-cancel): a sweep by side 0 while side 1 has one cancels both."""
    st = fin([["7H", "4C"], ["2C"]], ["7D"], stock=STOCK, sweeps=[0, 1])
    assert apply_move(st, "7H captures 7D").sweeps == (0, 0)
    st = fin([["7H", "4C"], ["2C"]], ["7D"], stock=STOCK)
    assert apply_move(st, "7H captures 7D").sweeps == (1, 0)
    assert fin_end(FIVE_SIX, [0, 0], sweeps=[2, 0]).hand_points == [6, 6]


def test_v_fin_score_no_sweeps_in_the_last_deal():
    """V-fin-score: in the hand's last deal (the stock is empty) a sweep is not recorded: it
    neither scores nor cancels the other side's."""
    st = fin([["7H", "4C"], ["2C", "9S"]], ["7D"], stock=[], sweeps=[0, 1])
    assert apply_move(st, "7H captures 7D").sweeps == (0, 1)
    piles = split(30, ["10D", "AH"], hold=("7H", "7D"))
    st = fin([["7H"], []], ["7D"], stock=[], piles=piles, last_capturer=1)
    after = apply_move(st, "7H captures 7D")
    assert after.hand_no == 1 and after.hand_points == [4, 6]  # the last card's sweep: none


@pytest.mark.parametrize("scores,recorded", [([9, 9], True), ([10, 0], False),
                                             ([0, 12], False), ([9, 0], True)])
def test_v_fin_score_no_sweeps_once_a_side_has_ten(scores, recorded):
    """V-fin-score: no sweep counts in a hand that began with any side (the sweeper's own or
    another) on 10 or more."""
    st = fin([["7H", "4C"], ["2C"]], ["7D"], stock=STOCK, scores=scores)
    assert apply_move(st, "7H captures 7D").sweeps == ((1, 0) if recorded else (0, 0))


def test_v_fin_score_spec_with_impossible_sweeps_refused():
    """V-fin-score: a spec recording sweeps in a hand begun with a side on 10 or more is
    refused, naming the field (no sweep can have counted); a game won during play keeps its
    sweeps with the final scores."""
    with pytest.raises(ValueError, match=r"sweeps: \[1, 0\] cannot happen in a finnish hand "
                                         r"begun with scores \[3, 10\] \(V-fin-score"):
        fin([["2C"], ["3C"]], stock=STOCK, sweeps=[1, 0], scores=[3, 10])
    assert fin([["2C"], ["3C"]], stock=STOCK, sweeps=[1, 0], scores=[9, 9]).sweeps == (1, 0)
    piles = [["10D", "2S", "AH", "AD", "AC"], []]
    won = apply_move(fin_full([["7H", "4C"], ["2C"]], ["7D"], piles, scores=[9, 0]),
                     "7H captures 7D")
    assert won.game_over and State.from_spec(won.to_spec()) == won


def test_v_fin_score_switches():
    """V-fin-score: `cancel=False` keeps both sweeps; `sweeps=False` (with `cancel=False`)
    records none; no last-capture point can be set (V-points refuses the item)."""
    st = fin([["7H", "4C"], ["2C"]], ["7D"], stock=STOCK, sweeps=[0, 1],
             rules={"cancel": False})
    assert apply_move(st, "7H captures 7D").sweeps == (1, 1)
    st = fin([["7H", "4C"], ["2C"]], ["7D"], stock=STOCK,
             rules={"sweeps": False, "cancel": False})
    assert apply_move(st, "7H captures 7D").sweeps == (0, 0)
    with pytest.raises(ValueError, match="'cancel' needs 'sweeps'"):
        new_game("finnish", 2, seed=1, sweeps=False)
    with pytest.raises(ValueError, match="rule switch 'points': item 'last_capture' does not "
                                         "apply to 'finnish' \\(it does not score"):
        new_game("finnish", 2, seed=1, points={"last_capture": 1})
    with pytest.raises(ValueError, match="rule switch 'last_capture' does not apply"):
        new_game("finnish", 2, seed=1, last_capture=True)


# -- V-fin-score with V-earned: the game ends during a hand -----------------------------------

@pytest.mark.parametrize("start,over", [([14, 3], True), ([13, 3], False)])
def test_v_fin_score_earned_ten_of_diamonds_ends_the_game(start, over):
    """V-fin-score / V-earned: at 14 the 10D's 2 points, earned when captured, reach 16 and
    end the game during the hand; at 13 play goes on."""
    st = fin_full([["10H", "4C"], ["2C", "5D"]], ["10D", "3H"], [[], []], scores=start)
    after = apply_move(st, "10H captures 10D")
    assert after.game_over is over
    if over:
        assert after.winner == 0 and after.hand_points == [2, 0] and after.scores == [16, 3]
        assert legal_moves(after) == [] and rule_of(after, "2C trails") == "C-game"
    else:
        assert after.scores == start and after.current == 1


def test_v_fin_score_earned_aces_two_of_spades_and_spades():
    """V-earned in `finnish`: each Ace and the 2S count as captured (a 3 takes 2S+AH: 2 points
    at 14), and most spades (2) once a side holds 7 of the 13."""
    st = fin_full([["3H", "4C"], ["2C"]], ["AH", "2S", "KD"], [[], []], scores=[14, 0])
    after = apply_move(st, "3H captures AH+2S")
    assert after.game_over and after.winner == 0 and after.hand_points == [2, 0]
    st = fin_full([["9H", "QH"], ["KC"]], ["9S", "KD"], [SPADES[2:8], []], scores=[14, 0])
    after = apply_move(st, "9H captures 9S")  # 7 spades: most spades is certain
    assert after.game_over and after.hand_points == [2, 0] and after.scores == [16, 0]
    st = fin_full([["9H", "QH"], ["KC"]], ["9S", "KD"], [SPADES[2:7], []], scores=[14, 0])
    assert not apply_move(st, "9H captures 9S").game_over  # 6 spades


def test_v_fin_score_earned_sweep_wins():
    """V-earned in `finnish`: a sweep counts at once: at 9 with 10D, 2S and three Aces (6)
    captured, a sweep makes 16; the same sweep at 10 counts nothing (V-fin-score)."""
    piles = [["10D", "2S", "AH", "AD", "AC"], []]
    st = fin_full([["7H", "4C"], ["2C"]], ["7D"], piles, scores=[9, 0])
    after = apply_move(st, "7H captures 7D")
    assert after.game_over and after.winner == 0 and after.hand_points == [7, 0]
    st = fin_full([["7H", "4C"], ["2C"]], ["7D"], [[], []], scores=[10, 0])
    after = apply_move(st, "7H captures 7D")
    assert not after.game_over and after.sweeps == (0, 0)


def test_v_fin_score_earned_with_a_points_table():
    """V-points with V-earned in `finnish`: the 10D at 3 takes 13 to 16 during play."""
    st = fin_full([["10H", "4C"], ["2C", "5D"]], ["10D", "3H"], [[], []], scores=[13, 3],
                  rules={"points": {"big_casino": 3}})
    after = apply_move(st, "10H captures 10D")
    assert after.game_over and after.scores == [16, 3]


def test_v_fin_score_earned_a_tie_at_sixteen_plays_on():
    """C-game with V-earned: a hand begun with two sides tied at 16 (a tie plays another hand)
    goes on until one of them is ahead: a capture earning nothing does not end it (it once
    ended the game at the first capture, for the mover's side), the 10D's 2 points do."""
    st = fin([["3H", "9C"], ["10C", "7D"]], ["3D", "10D"], scores=[16, 16],
             stock=["8C", "8D", "8H", "8S"])
    after = apply_move(st, "3H captures 3D")
    assert not after.game_over and after.winner is None and after.scores == [16, 16]
    after = apply_move(after, "10C captures 10D")
    assert after.game_over and after.winner == 1 and after.scores == [16, 18]
    assert after.hand_points == [0, 2]


def test_v_fin_score_hand_end_points_reach_sixteen():
    """V-fin-score: points scored at the end of the hand (most cards with the residue) win
    too; without `earned` the game ends only at the end of a hand."""
    st = fin_end(FIVE_SIX, [12, 3])
    assert st.game_over and st.winner == 0 and st.scores == [16, 9]
    st = fin_full([["10H", "4C"], ["2C", "5D"]], ["10D", "3H"], [[], []], scores=[14, 3],
                  rules={"earned": False})
    assert not apply_move(st, "10H captures 10D").game_over


# -- both presets: specs and random play --------------------------------------------------------

@pytest.mark.parametrize("variant", NORDIC)
def test_v_nordic_play_spec_round_trip(variant):
    """V-nordic-play: states of random games go through JSON specs and back unchanged, and a
    spec naming a build is refused (there is no building)."""
    for st in random_states(variant, 3, 15, 3):
        spec = json.loads(json.dumps(st.to_spec()))
        assert State.from_spec(spec) == st
    with pytest.raises(ValueError, match=f"table\\[0\\]: '{variant}' has no building"):
        State.from_spec({"variant": variant, "players": 2, "hands": [["7H"], ["2C"]],
                         "table": [{"cards": ["3S", "4C"], "value": 7, "owner": 0}]})


@pytest.mark.parametrize("variant", NORDIC)
@pytest.mark.parametrize("players,partners", SEATINGS)
def test_v_nordic_play_random_games_end_with_a_winner(variant, players, partners):
    """V-swe-end / V-fin-score: random games end with one winner at 16 or more, and every
    hand's points are at most the hand's 11 (10 in Finnish) plus the sweeps recorded."""
    rng = random.Random(players)
    for seed in range(4):
        st = new_game(variant, players, seed=seed, partnerships=partners)
        while not st.game_over:
            before = st
            st = play(st, rng.choice(legal_moves(st)))
            if st.hand_points is not None and st.hand_points is not before.hand_points:
                base = 11 if variant == "swedish" else 10
                assert sum(st.hand_points) <= base + sum(before.sweeps) + 1
        assert st.winner is not None and st.scores[st.winner] >= 16
        assert st.scores[st.winner] == max(st.scores)
