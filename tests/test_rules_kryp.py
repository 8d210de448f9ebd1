"""Rule tests for `krypkasino`, the Swedish reverse Casino of RULES.md section 4: two decks
(V-kryp-values), teams of two with 4 or 6 players (V-kryp-seats), compulsory maximal captures
and no building (V-kryp-play), penalty points with tabbe and dubbeltabbe (V-kryp-score) and the
end at 50 with the lowest total winning (V-kryp-end); also the two-deck representation
(docs/rules.md "Two decks"): canonical copies, specs naming a card twice, moves up to copies.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from rules_helpers import RANKS, mk_for, moves, rule_of

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
from casino_env.engine.cards import DOUBLE, STANDARD
from casino_env.engine.rules import make_rules
from casino_env.engine.state import renumber

mk = mk_for("krypkasino")
DECK2 = [r + s for r in RANKS for s in "SHDC" for _ in range(2)]  # the 104 cards, card order
# Cards that cost nothing: no spade, no ace, not the 10D (2 x 35 cards).
PLAIN2 = [c for c in DECK2 if c[-1] != "S" and c[0] != "A" and c != "10D"]


def without(cards, *gone) -> list[str]:
    """``cards`` less one copy of each card of ``gone``."""
    left = Counter(cards)
    left.subtract(Counter(gone))
    assert min(left.values()) >= 0
    return sorted(left.elements(), key=DECK2.index)


def play_to_end(st: State) -> State:
    """Play the lowest legal move until the hand is scored (``hand_points`` set)."""
    while st.hand_points is None and not st.game_over:
        st = apply_move(st, legal_moves(st)[0])
    return st


# -- V-kryp-values ----------------------------------------------------------------------------

def test_v_kryp_values_two_decks_of_104_cards():
    """V-kryp-values: a dealt game holds every card twice: 104 cards, named as in one deck."""
    st = new_game("krypkasino", 3, seed=5)
    assert st.rules.deck is DOUBLE and DOUBLE.size == 104
    every = [c for h in st.hands for c in h] + st.loose + st.stock
    assert sorted(every, key=DECK2.index) == DECK2
    assert describe_variant("krypkasino")["deck"] == "double"


def test_v_kryp_values_ace_counts_14_from_hand_and_1_on_the_table():
    """V-kryp-values: an Ace played counts 14 (it takes K + a table Ace, 1), never a lone Ace."""
    st = mk([["AS", "3H"], ["5D"]], ["KH", "AD", "5C"])
    assert moves(st, "AS") == {"AS captures AD+KH"}
    assert moves(st, "3H") == {"3H trails"}  # 5C; AD + nothing makes 3
    assert legal_moves(st)[0].value == 14
    st = mk([["AH"], ["5D"]], ["AS", "5C"])
    assert moves(st) == {"AH trails"}  # the AS on the table counts 1, the AH 14
    st = mk([["3H"], ["5D"]], ["AS", "2C", "9D"])
    assert moves(st) == {"3H captures AS+2C"}


def test_v_kryp_values_rules_values_are_the_table_s_and_hand_values_the_hand_s():
    """V-kryp-values in the engine's convention (as V-fin-values): ``Rules.values`` counts a
    card on the table (an Ace 1), ``Rules.hand_values`` played from hand (an Ace 14); the
    highest value a card captures with is 14."""
    r = make_rules("krypkasino", 2)
    by_kind = {r.deck.names[i]: (r.values[i], r.hand_values[i]) for i in range(r.deck.size)}
    assert by_kind == {**{f"A{s}": (1, 14) for s in "SHDC"},
                       **{f"{k}{s}": (v, v) for k, v in (("J", 11), ("Q", 12), ("K", 13))
                          for s in "SHDC"},
                       **{f"{n}{s}": (n, n) for n in range(2, 11) for s in "SHDC"}}
    assert r.max_value == 14 and not r.ace14
    assert not hasattr(r, "table_values")


def test_v_kryp_values_faces_count_11_to_13():
    """V-kryp-values: J 11, Q 12, K 13, in hand and on the table alike."""
    st = mk([["KS", "JD", "QC"], ["5D"]], ["6H", "7D", "KC", "5H", "QH"])
    assert moves(st, "KS") == {"KS captures 6H+7D+KC"}
    assert moves(st, "JD") == {"JD captures 5H+6H"}
    assert moves(st, "QC") == {"QC captures 5H+7D+QH"}


def test_v_kryp_values_ace_capture_value_named_wrongly():
    """V-kryp-values: an Ace from hand captures as 14; naming 1 is refused with the rule."""
    st = mk([["AS", "3H"], ["5D"]], ["KH", "AD", "5C"])
    assert rule_of(st, Move("capture", "AS", ["KH", "AD"], 1)) == "V-kryp-values"
    assert apply_move(st, Move("capture", "AS", ["KH", "AD"], 14)).piles[0] == [
        "AS", "AD", "KH"]


# -- V-kryp-seats -----------------------------------------------------------------------------

def test_v_kryp_seats_four_players_two_teams():
    """V-kryp-seats: with partners four players are 0+2 v 1+3."""
    r = make_rules("krypkasino", 4, True)
    assert r.sides == 2 and [r.side(s) for s in range(4)] == [0, 1, 0, 1]
    assert r.teams() == "partners 0+2 v 1+3"
    assert make_rules("krypkasino", 4).sides == 4  # no partners unless asked


def test_v_kryp_seats_six_players_three_teams():
    """V-kryp-seats: with partners six players are three teams, 0+3, 1+4, 2+5; a capture goes
    to the capturer's team's pile."""
    r = make_rules("krypkasino", 6, True)
    assert r.sides == 3 and [r.side(s) for s in range(6)] == [0, 1, 2, 0, 1, 2]
    assert r.teams() == "partners 0+3 v 1+4 v 2+5"
    hands = [["9C"], ["9D"], ["9H"], ["9S"], ["7D", "8C"], ["6D"]]
    st = mk(hands, ["3H", "4D", "10C"], partnerships=True, current=4, dealer=3)
    after = apply_move(st, "7D captures 3H+4D")
    assert after.piles == [[], ["3H", "4D", "7D"], []]
    assert after.current == 5 and after.scores == [0, 0, 0]
    assert make_rules("krypkasino", 6).sides == 6


def test_v_kryp_seats_six_player_tabbe_credits_the_team_before():
    """V-kryp-seats with V-kryp-score: seat 4 (team 1) sweeps; seat 3 moved before it, so
    team 0 gets the credit."""
    hands = [["9C"], ["9D"], ["9H"], ["9S"], ["7D", "8C"], ["6D"]]
    st = mk(hands, ["3H", "4D"], partnerships=True, current=4, dealer=3)
    after = apply_move(st, "7D captures 3H+4D")
    assert after.events == ((1, "tabbe", 5), (0, "tabbe credit", -5))
    assert after.sweeps == (0, 1, 0)


def test_v_kryp_seats_other_counts_cannot_be_partners():
    """V-kryp-seats: partnerships need 4 or 6 players; other presets keep 4 only."""
    for n in (2, 3, 5):
        with pytest.raises(ValueError, match="V-kryp-seats"):
            make_rules("krypkasino", n, True)
    with pytest.raises(ValueError, match="need 4 players"):
        make_rules("tuxedo", 6, True)
    assert make_rules("casino", 4, True).sides == 2


# -- V-kryp-play ------------------------------------------------------------------------------

def test_v_kryp_play_capture_is_compulsory_and_maximal():
    """V-kryp-play: a card that can capture must, and it takes every set it can: 7 over
    3+4 and 2+5 takes all four; a card that can capture nothing trails."""
    st = mk([["7S", "KD"], ["5D"]], ["3H", "4D", "2C", "5C"])
    assert moves(st) == {"7S captures 2C+3H+4D+5C", "KD trails"}
    assert rule_of(st, "7S trails") == "V-kryp-play"
    assert rule_of(st, "7S captures 3H+4D") == "V-kryp-play"
    assert rule_of(st, "7S captures 2C+5C") == "V-kryp-play"
    with pytest.raises(IllegalMoveError, match="must capture"):
        apply_move(st, "7S trails")
    with pytest.raises(IllegalMoveError, match="maximal"):
        apply_move(st, "7S captures 3H+4D")


def test_v_kryp_play_choice_among_maximal_captures():
    """V-kryp-play: the player chooses among maximal captures. 7 over 3H, 4D, 4C takes 3H
    with either 4. 10 over 2H 3D 5H 5C 8C: 2+3+5 leaves 5+8 (no 10), 2+8+5+5 leaves 3, but
    2+8 alone leaves 5+5 and 5+5 alone leaves 2+8."""
    st = mk([["7S"], ["5D"]], ["3H", "4D", "4C"])
    assert moves(st) == {"7S captures 3H+4D", "7S captures 3H+4C"}
    st = mk([["10S"], ["5D"]], ["2H", "3D", "5C", "5H", "8C"])
    assert moves(st) == {"10S captures 2H+3D+5H", "10S captures 2H+3D+5C",
                         "10S captures 2H+5H+5C+8C"}
    assert rule_of(st, "10S captures 2H+8C") == "V-kryp-play"
    assert rule_of(st, "10S captures 5H+5C") == "V-kryp-play"


def test_v_kryp_play_duplicate_cards_on_the_table():
    """V-kryp-play with two decks: one of two equal table cards is one outcome (listed once);
    both copies are taken when they make sets."""
    st = mk([["7S"], ["5D"]], ["3H", "4D", "4D"])
    assert [str(m) for m in legal_moves(st)] == ["7S captures 3H+4D"]
    st = mk([["10C"], ["5D"]], ["5S", "5S", "10H"])
    assert moves(st) == {"10C captures 5S+5S+10H"}
    assert legal_moves(st)[0].taken_cards == ("5S", "5S", "10H")
    assert rule_of(st, "10C captures 5S+5S") == "V-kryp-play"  # the 10H is a set of 10 too
    assert rule_of(st, "10C captures 5S+10H") == "C-capture"  # 5 is no set of 10
    st = mk([["8S"], ["5D"]], ["4H", "4H", "4C"])
    # sets of 8: two of the three 4s; whichever two, the third is left: two outcomes
    assert moves(st) == {"8S captures 4H+4H", "8S captures 4H+4C"}


def test_v_kryp_play_duplicate_cards_in_hand():
    """V-kryp-play with two decks: two copies in hand play as one card (one move each), and
    either copy, however written, is that move."""
    st = mk([["7S", "7S", "2H"], ["5D"]], ["7D"])
    assert [str(m) for m in legal_moves(st)] == ["2H trails", "7S captures 7D"]
    after = apply_move(st, "7S captures 7D")
    assert after.hand(0) == ["2H", "7S"]
    assert after == apply_move(st, Move("capture", "7S", "7D"))
    second = 1 << (DOUBLE.index["7S"] + 1)  # the other copy of 7S, in two-deck ids
    assert st.hand_masks[0] & second
    assert apply_move(st, Move.make(DOUBLE, "capture", second, st.loose_mask, 7)) == after


def test_v_kryp_play_every_card_has_a_move():
    """V-kryp-play: any card of the hand may be chosen: it captures if it can, else trails."""
    st = mk([["2C", "3C", "9D", "KS"], ["5D"]], ["AH", "AC", "8H", "6C"])
    by_card = {c: moves(st, c) for c in st.hand(0)}
    assert by_card == {"2C": {"2C captures AH+AC"}, "3C": {"3C trails"},
                       "9D": {"9D captures AH+8H", "9D captures AC+8H"},
                       "KS": {"KS trails"}}


def test_v_kryp_play_no_building():
    """V-kryp-play: there is no building; a build is refused naming the rule."""
    st = mk([["3S", "8H"], ["5D"]], ["5C"])
    assert rule_of(st, "3S builds 8 on 5C") == "V-kryp-play"
    # A trail takes nothing: refused naming the same rule, as V-nordic-play does.
    with pytest.raises(IllegalMoveError, match="no building in krypkasino") as exc:
        apply_move(st, Move("trail", "8H", ["5C"], 13))
    assert exc.value.rule == "V-kryp-play"
    with pytest.raises(ValueError, match="has no building"):
        mk([["3S"], ["5D"]], [{"cards": ["5C", "3H"], "value": 8, "owner": 0}])


def test_v_kryp_play_first_deal():
    """V-kryp-play: four cards each and four to the table, the rest in the stock."""
    for n in range(2, 7):
        st = new_game("krypkasino", n, seed=n)
        assert [len(h) for h in st.hands] == [4] * n
        assert len(st.loose) == 4 and st.stock_size == 104 - 4 - 4 * n


@pytest.mark.parametrize("players,each,to_table", [(2, 2, 0), (3, 1, 1), (4, 1, 0)])
def test_v_kryp_play_last_deal_shares_the_rest(players, each, to_table):
    """V-kryp-play (as V-tux-deal): the four cards of the last deal: 2 each of 2 players; 1
    each of 3 and 1 to the table; 1 each of 4."""
    piles = [["3H"]] + [[] for _ in range(players - 1)]
    st = mk([[] for _ in range(players)], [], piles=piles, stock=["5C", "6C", "7C", "8C"])
    assert [len(h) for h in st.hands] == [each] * players
    assert len(st.loose) == to_table and st.stock_size == 0


def test_v_kryp_play_six_players_last_cards_go_to_the_table():
    """V-kryp-play (decision): with six players the 4 cards that cannot go round join the
    table with the deal before them; a dealt game's stock runs 76, 52, 28, then 0."""
    stock = [c for c in PLAIN2 if c[0] in "23456789"][:28]
    st = mk([[] for _ in range(6)], [], piles=[["KH"]] + [[]] * 5, stock=stock)
    assert [len(h) for h in st.hands] == [4] * 6 and len(st.loose) == 4
    assert st.stock_size == 0 and st.last_deal
    full = new_game("krypkasino", 6, seed=2)
    sizes = []
    while full.hand_no == 0:
        if full.stock_size not in sizes:
            sizes.append(full.stock_size)
        full = apply_move(full, legal_moves(full)[0])
    assert sizes == [76, 52, 28, 0]


@pytest.mark.parametrize("players,deals", [(2, 13), (3, 9), (4, 7), (5, 5), (6, 4)])
def test_v_kryp_play_deals_per_hand(players, deals):
    """V-kryp-play: the deals of a hand: 4 each until fewer than a round are left (100 cards
    after the table's 4: 2 players 12 deals of 8, then 2 each; 3 players 8 deals of 12, then 1
    each and 1 to the table; 4: 6 of 16, then 1 each; 5: 5 of 20; 6: 4 of 24, the last with
    the 4 left over)."""
    st = new_game("krypkasino", players, seed=11)
    seen = set()
    while st.hand_no == 0:
        seen.add(st.stock_size)
        st = apply_move(st, legal_moves(st)[0])
    assert len(seen) == deals


# -- V-kryp-score -----------------------------------------------------------------------------

def end_with(piles, scores=None, **kw) -> State:
    """The state after the hand's last card (3H, held by the last seat, the dealer) trails
    onto an empty table; the residue (the 3H) goes to seat 0, the last capturer."""
    players = kw.pop("players", len(piles))
    hands = [[] for _ in range(players)]
    hands[-1] = ["3H"]
    st = mk(hands, [], piles=piles, stock=[], scores=scores or [0] * len(piles),
            last_capturer=0, dealer=players - 1, current=players - 1, seed=3, **kw)
    return apply_move(st, "3H trails")


def test_v_kryp_score_penalty_cards():
    """V-kryp-score: 10D 3, 2S 2, each Ace 1, each other spade 1 (the AS 2), per copy; the
    residue is no sweep."""
    st = end_with([["10D", "10D", "2S", "AS", "AH", "5S", "9C"], ["2S", "KS", "AD", "QH"]])
    assert st.hand_points == [6 + 2 + 2 + 1 + 1, 2 + 1 + 1]
    assert st.scores == [12, 4] and not st.game_over
    plain = end_with([["9C"], ["9D"]])
    assert plain.hand_points == [0, 0] and plain.sweeps == (0, 0)


def test_v_kryp_score_42_a_hand():
    """V-kryp-score: the 104 cards hold 42 penalty points, 21 a deck."""
    st = end_with([without(DECK2, "3H"), []])
    assert st.hand_points == [42, 0]
    one_deck = [r + s for r in RANKS for s in "SHDC"]
    st = end_with([without(one_deck, "3H"), one_deck])
    assert st.hand_points == [21, 21]


def tabbe_position(table, hand0=("7D", "3C"), players=2, **kw) -> State:
    """Seat 0 to move with ``hand0``; every other seat holds 2H and 4H; stock empty."""
    hands = [list(hand0)] + [["2H", "4H"] for _ in range(players - 1)]
    return mk(hands, table, stock=[], **kw)


def test_v_kryp_score_tabbe_costs_5_and_credits_the_player_before():
    """V-kryp-score: a sweep costs its capturer 5 and gives the player who moved before -5;
    no penalty cards: the hand scores exactly the tabbe."""
    st = apply_move(tabbe_position(["3H", "4D"]), "7D captures 3H+4D")
    assert st.events == ((0, "tabbe", 5), (1, "tabbe credit", -5))
    assert st.sweeps == (1, 0)
    st = play_to_end(st)
    assert st.hand_points == [5, -5] and st.scores == [5, -5]


def test_v_kryp_score_dubbeltabbe():
    """V-kryp-score: the played card taking its own twin, alone on the table, is a
    dubbeltabbe: +10 and -10; the same rank in another suit is a plain tabbe."""
    st = apply_move(tabbe_position(["7D"]), "7D captures 7D")
    assert st.events == ((0, "dubbeltabbe", 10), (1, "dubbeltabbe credit", -10))
    assert play_to_end(st).hand_points == [10, -10]
    st = apply_move(tabbe_position(["7H"]), "7D captures 7H")
    assert st.events == ((0, "tabbe", 5), (1, "tabbe credit", -5))
    st = apply_move(tabbe_position(["3D", "4D"]), "7D captures 3D+4D")
    assert st.events == ((0, "tabbe", 5), (1, "tabbe credit", -5))


def test_v_kryp_score_credit_goes_to_the_seat_before():
    """V-kryp-score: with three players seat 1's sweep credits seat 0, seat 0's seat 2; with
    four partners seat 1's sweep credits side 0."""
    hands = [["9C"], ["7D", "8C"], ["6D"]]
    st = apply_move(mk(hands, ["3H", "4D"], current=1), "7D captures 3H+4D")
    assert st.events == ((1, "tabbe", 5), (0, "tabbe credit", -5))
    st = apply_move(tabbe_position(["3H", "4D"], players=3), "7D captures 3H+4D")
    assert st.events == ((0, "tabbe", 5), (2, "tabbe credit", -5))
    hands = [["9C"], ["7D", "8C"], ["6D"], ["6C"]]
    st = apply_move(mk(hands, ["3H", "4D"], current=1, partnerships=True), "7D captures 3H+4D")
    assert st.events == ((1, "tabbe", 5), (0, "tabbe credit", -5))


def test_v_kryp_score_first_move_of_a_hand_credits_nobody():
    """V-kryp-score (decision): a sweep with the hand's first card costs 5 and credits no
    one (nobody moved before)."""
    hands = [["AH", "9C", "9D", "8C"], ["6H", "6D", "7H", "7C"]]
    table = ["2C", "3C", "4C", "5C"]
    stock = without(DECK2, *hands[0], *hands[1], *table)
    st = mk(hands, table, stock=stock)
    assert moves(st, "AH") == {"AH captures 2C+3C+4C+5C"}
    after = apply_move(st, "AH captures 2C+3C+4C+5C")
    assert after.events == ((0, "tabbe", 5),)


def test_v_kryp_score_last_card_sweep_and_its_hand_score():
    """V-kryp-score: the hand's last card capturing everything is a tabbe too (C-sweep)."""
    st = mk([["7D"], []], ["3H", "4D"], stock=[], seed=1)
    after = apply_move(st, "7D captures 3H+4D")
    assert after.hand_points == [5, -5] and after.hand_no == 1


# -- V-kryp-end -------------------------------------------------------------------------------

PENALTY_6 = ["10D", "10D", "9C"]  # 6 penalty points


def test_v_kryp_end_lowest_total_wins_once_a_side_reaches_50():
    """V-kryp-end: side 0 goes from 45 to 51: the game ends and side 1 (30) wins."""
    st = end_with([PENALTY_6, ["9D"]], [45, 30])
    assert st.scores == [51, 30] and st.game_over and st.winner == 1
    st = end_with([["9D"], PENALTY_6], [20, 48])
    assert st.scores == [20, 54] and st.winner == 0


def test_v_kryp_end_below_50_plays_on():
    """V-kryp-end: no side at 50: another hand."""
    st = end_with([PENALTY_6, ["9D"]], [40, 30])
    assert st.scores == [46, 30] and not st.game_over and st.hand_no == 1


def test_v_kryp_end_lowest_of_all_wins():
    """V-kryp-end: with three players the lowest of all wins, not only against the side that
    reached 50."""
    st = end_with([PENALTY_6, ["9D"], ["9S"]], [47, 49, 12])
    assert st.scores == [53, 49, 13] and st.winner == 2


def test_v_kryp_end_tie_for_lowest_plays_another_hand():
    """V-kryp-end: a tie for the lowest total: another hand, then the lowest wins."""
    st = end_with([PENALTY_6, ["9D"], ["9H"]], [48, 40, 40])
    assert st.scores == [54, 40, 40] and not st.game_over and st.winner is None
    assert st.hand_no == 1
    st = end_with([["9C"], ["9D"], ["5S"]], [54, 40, 40])
    assert st.scores == [54, 40, 41] and st.game_over and st.winner == 1


def test_v_kryp_end_target_switch():
    """V-kryp-end: the switch `target` sets the total that ends the game."""
    st = end_with([PENALTY_6, ["9D"]], [25, 3], rules={"target": 30})
    assert st.game_over and st.winner == 1
    assert make_rules("krypkasino", 2).target == 50


def test_v_kryp_end_a_whole_game():
    """V-kryp-end: a game played out ends with a side at 50 or more and the lowest winning."""
    st = new_game("krypkasino", 3, seed=4)
    rng = random.Random(4)
    while not st.game_over:
        st = apply_move(st, rng.choice(legal_moves(st)))
    assert max(st.scores) >= 50
    assert st.scores[st.winner] == min(st.scores)
    assert list(st.scores).count(min(st.scores)) == 1


def test_v_kryp_score_points_switch():
    """V-points in krypkasino (V-kryp-score's items): a penalty can be changed; items
    krypkasino does not score are refused."""
    st = end_with([["10D", "2S", "AS", "5S"], ["9D"]], rules={"points": {"big_casino": 5}})
    assert st.hand_points == [5 + 2 + 2 + 1, 0]
    with pytest.raises(ValueError, match="does not apply to 'krypkasino'"):
        make_rules("krypkasino", 2, switches={"points": {"cards": 1}})
    st = apply_move(tabbe_position(["3H", "4D"], rules={"points": {"sweep": 3}}),
                    "7D captures 3H+4D")
    assert st.events == ((0, "tabbe", 3), (1, "tabbe credit", -3))


# -- two decks: specs, notation, canonical copies ---------------------------------------------

def test_two_decks_spec_names_a_card_twice_for_both_copies():
    """V-kryp-values: a spec naming a card twice means both copies; a third time is an error
    naming the field."""
    st = mk([["5S", "KD"], ["5S", "2C"]], ["KD", "9H"], piles=[["9H"], []],
            stock=["QC", "QC"])
    spec = st.to_spec()
    assert spec["hands"] == [["5S", "KD"], ["2C", "5S"]] and spec["stock"] == ["QC", "QC"]
    assert State.from_spec(spec) == st and State.from_spec(spec).to_spec() == spec
    with pytest.raises(ValueError, match=r"table\[0\].*third"):
        mk([["5S", "5S"], ["2C"]], ["5S"])
    with pytest.raises(ValueError, match="duplicate card 5S"):
        State.from_spec({"variant": "casino", "players": 2, "hands": [["5S"], ["5S"]]})


def test_two_decks_copies_are_canonical():
    """Two decks: whichever copy moved, the state numbers copies the one canonical way
    (stock, hands, table, piles take the lowest copies in turn), so equal positions are
    equal states."""
    st = mk([["5S", "KD"], ["5S", "2C"]], ["9H"])
    assert st.hand_masks[0] >> DOUBLE.index["5S"] & 1
    after = apply_move(st, "5S trails")
    # seat 1's 5S is now the first copy, the table's the second
    assert after.hand_masks[1] >> DOUBLE.index["5S"] & 1
    assert after.loose_mask >> (DOUBLE.index["5S"] + 1) & 1
    assert State.from_spec(after.to_spec()) == after
    copy = after._copy()
    renumber(copy)
    assert copy == after


def test_two_decks_notation_round_trip():
    """Two decks: str(move) names a card taken twice twice; parse_move reads it back against
    the position; the Move constructor reads a repeated card as both copies."""
    st = mk([["10C", "10C"], ["5D"]], ["5S", "5S", "10H"])
    (m,) = legal_moves(st)
    assert str(m) == "10C captures 5S+5S+10H"
    assert parse_move(str(m), st) == m
    made = Move("capture", "10C", ["5S", "5S", "10H"])
    assert made.deck is DOUBLE and made.taken_cards == ("5S", "5S", "10H")
    assert apply_move(st, made) == apply_move(st, m) == apply_move(st, str(m))
    assert Move("capture", "10C", ["5S", "10H"]).deck is STANDARD
    one_deck = mk_for("casino")([["10C"], ["5D"]], ["5S", "10H"])
    with pytest.raises(IllegalMoveError, match="names a card twice"):
        apply_move(one_deck, made)
    with pytest.raises(ValueError, match="named more often"):
        parse_move("10C captures 5S+5S+5S", st)


def test_two_decks_illegal_moves_name_the_rule():
    """Two decks: a card the mover does not hold, or a card not on the table, is refused
    (C-turn, C-capture), also when its other copy is elsewhere."""
    st = mk([["7S", "2H"], ["7S"]], ["3H", "4D"])
    assert rule_of(st, "7D captures 3H+4D") == "C-turn"
    assert rule_of(st, "7S captures 3H+4D+4D") == "C-capture"
    assert rule_of(st, "2H captures 3H") == "C-capture"


# -- exact legal moves against an independent generator ----------------------------------------

def _value(card: str, in_hand: bool) -> int:
    rank = RANKS.index(card[:-1]) + 1
    return 14 if rank == 1 and in_hand else rank


def _splits(vals: list[int], v: int) -> bool:
    """True if ``vals`` split into disjoint groups each summing to ``v``."""
    if not vals:
        return True
    first, rest = vals[0], vals[1:]
    for k in range(len(rest) + 1):
        for combo in combinations(range(len(rest)), k):
            if first + sum(rest[i] for i in combo) == v and \
                    _splits([rest[i] for i in range(len(rest)) if i not in combo], v):
                return True
    return False


def _has_set(vals: list[int], v: int) -> bool:
    return any(sum(c) == v for k in range(1, len(vals) + 1) for c in combinations(vals, k))


def expected_moves(hand: list[str], table: list[str]) -> set[str]:
    """V-kryp-play by brute force over the sub-multisets of the table."""
    out = set()
    table_values = [_value(c, False) for c in table]
    for card in set(hand):
        v = _value(card, True)
        if not _has_set(table_values, v):
            out.add(f"{card} trails")
            continue
        for k in range(1, len(table) + 1):
            for combo in combinations(range(len(table)), k):
                left = [table_values[i] for i in range(len(table)) if i not in combo]
                if _splits([table_values[i] for i in combo], v) and not _has_set(left, v):
                    names = sorted((table[i] for i in combo), key=DECK2.index)
                    out.add(f"{card} captures {'+'.join(names)}")
    return out


@pytest.mark.parametrize("seed", range(40))
def test_v_kryp_play_exact_moves_random_positions(seed):
    """V-kryp-play, V-kryp-values: the legal moves of random small positions, duplicates
    included, are exactly those of a brute-force generator, each outcome once."""
    rng = random.Random(seed)
    pool = [c for c in DECK2 if c[:-1] in ("A", "2", "3", "4", "5", "6", "7", "9", "K")]
    cards = rng.sample(pool, 12)
    hand, table = cards[:rng.randint(1, 4)], cards[4:4 + rng.randint(1, 8)]
    st = mk([hand, ["QH"]], table)
    listed = [str(m) for m in legal_moves(st)]
    assert len(listed) == len(set(listed))
    assert set(listed) == expected_moves(hand, table)


# -- random play: invariants --------------------------------------------------------------------

@pytest.mark.parametrize("players,partners", [(2, False), (3, False), (4, True), (5, False),
                                              (6, True)])
def test_two_decks_random_play_invariants(players, partners):
    """Along random games: 104 cards always, each outcome listed once, notation and specs
    round-trip, states stay canonical, the same seed plays the same game."""
    def run() -> list:
        st = new_game("krypkasino", players, seed=players, partnerships=partners)
        rng = random.Random(players)
        seen = []
        for _ in range(150):
            ms = legal_moves(st)
            keys = [(m.kind, m.played, m.taken_cards, m.value) for m in ms]
            assert len(set(keys)) == len(keys)
            every = [c for h in st.hands for c in h] + st.loose + st.stock + \
                [c for p in st.piles for c in p]
            assert sorted(every, key=DECK2.index) == DECK2
            assert State.from_spec(st.to_spec()) == st
            m = rng.choice(ms)
            assert parse_move(str(m), st) == m
            st = apply_move(st, m)
            seen.append(st)
            if st.game_over:
                break
        return seen

    first = run()
    assert first == run()


@pytest.mark.parametrize("players", [2, 3, 6])
def test_two_decks_determinized_states_stay_whole(players):
    """A seat's determinization (hidden copies dealt at random, its own ids kept) plays on
    through deals without losing or doubling a card: the stock keeps its copies and the other
    places share the rest."""
    from casino_env.engine.view import PlayerView

    st = new_game("krypkasino", players, seed=players)
    rng = random.Random(players)
    for _ in range(30):
        st = apply_move(st, rng.choice(legal_moves(st)))
    view = PlayerView(st, st.current)
    for k in range(5):
        det = view.determinize(random.Random(k))
        det = apply_move(det, legal_moves(st)[0])  # a move of the real position
        while det.hand_no == 0:
            every = [c for h in det.hands for c in h] + det.loose + det.stock + \
                [c for p in det.piles for c in p]
            assert sorted(every, key=DECK2.index) == DECK2
            det = apply_move(det, rng.choice(legal_moves(det)))
        # 42 card points; every tabbe (none can be the hand's first move here) nets 0
        assert sum(det.hand_points) == 42


def test_two_decks_determinized_copy_moved_to_the_stock():
    """The case that needs the stock-first numbering: seat 1 holds the second 5S; a
    determinization may put seat 0's 5S into the stock, and play on from there must never put
    a copy in two places or lose a card (40 determinizations, played to the hand's end)."""
    from casino_env.engine.view import PlayerView

    stock = ["9C", "9D", "8C", "8D", "7C", "7H", "4S", "6H"]
    st = mk([["5S", "2H"], ["5S", "KD"]], ["3C"], stock=stock, current=1, dealer=0)
    view = PlayerView(st, 1)
    moved = 0
    for k in range(40):
        det = view.determinize(random.Random(k))
        moved += "5S" in det.stock
        det = apply_move(det, "KD trails")
        rng = random.Random(k)
        while det.hand_no == 0:
            places = list(det.hand_masks) + [det.loose_mask] + list(det.pile_masks)
            outside = 0
            for m in places:
                assert not m & outside  # no copy in two places
                outside |= m
            assert not any(outside >> c & 1 for c in det.stock_ids)
            assert len(set(det.stock_ids)) == len(det.stock_ids)
            assert outside.bit_count() + len(det.stock_ids) == 13
            det = apply_move(det, rng.choice(legal_moves(det)))
    assert moved  # the case did arise


def test_two_decks_a_view_does_not_tell_where_the_other_copy_lies():
    """A view hides the hidden cards' places even through copy ids (docs/rules.md, canonical
    copies): the state numbers its copies stock first, so seat 0's 5S is another copy when the
    other 5S lies in the stock than when seat 1 holds it; the two views are one, and so are
    their determinizations, which are the engine's canonical states (they round-trip)."""
    import json

    from agents import make_agent
    from casino_env.engine.view import PlayerView

    base = dict(dealer=1, current=0, table=["3H", "4C", "9D", "QS"], piles=[["KH", "KC"], []],
                last_capturer=0, seed=1)
    a = mk([["5S", "7D"], ["8C", "JH"]], stock=["5S", "2C", "6D", "10H"], **base)
    b = mk([["5S", "7D"], ["8C", "5S"]], stock=["JH", "2C", "6D", "10H"], **base)
    assert a.hand_masks[0] != b.hand_masks[0]  # the states number seat 0's 5S differently
    va, vb = PlayerView(a, 0), PlayerView(b, 0)
    assert va.state == vb.state and va.unseen == vb.unseen
    assert va.legal_moves() == vb.legal_moves()
    for k in range(5):
        da, db = va.determinize(random.Random(k)), vb.determinize(random.Random(k))
        assert da == db
        assert State.from_spec(json.loads(json.dumps(da.to_spec()))) == da
    # a view's move is the state's move up to the copies: equal, in its legal moves, played
    for s, v in ((a, va), (b, vb)):
        for m in v.legal_moves():
            assert m in legal_moves(s)
            assert apply_move(s, m) == apply_move(s, legal_moves(s)[legal_moves(s).index(m)])
        move = make_agent("heuristic").act(s)  # act gives the state's own move object
        assert move in legal_moves(s) and move.played_mask & s.hand_masks[0] == move.played_mask


def test_two_decks_moves_are_equal_up_to_the_copies():
    """C-move with two decks: a move is its outcome whichever copy it plays or takes: the
    same cards on the other copies make an equal move with the same hash; both copies of a
    card where the move has one do not."""
    st = mk([["5S", "7D"], ["KD"]], ["5H", "3C"], stock=["9C"] * 2)
    flip = lambda mask: 1 << (mask.bit_length() - 1 ^ 1)  # noqa: E731 (the other copy)
    trail = next(m for m in legal_moves(st) if str(m) == "7D trails")
    other = Move.make(DOUBLE, "trail", flip(trail.played_mask), 0, None)
    assert other.played == trail.played and other.played_mask != trail.played_mask
    assert other == trail and hash(other) == hash(trail) and other in legal_moves(st)
    capture = next(m for m in legal_moves(st) if str(m) == "5S captures 5H")
    other = Move.make(DOUBLE, "capture", flip(capture.played_mask), flip(capture.taken_mask),
                      capture.value)
    assert other == capture and hash(other) == hash(capture)
    assert apply_move(st, other) == apply_move(st, capture)
    from casino_env.engine.play import play  # the hot path takes it up to the copies too

    assert play(st, other) == play(st, capture)
    both = Move.make(DOUBLE, "capture", capture.played_mask,
                     capture.taken_mask | flip(capture.taken_mask), capture.value)
    assert both.taken_cards == ("5H", "5H") and both != capture
