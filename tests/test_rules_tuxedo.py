"""Rule tests for the `tuxedo` preset (Casino with 40 Rook cards) and its `orange_calls` switch.

Each test names the rule id it checks: V-tux-deal (the deck, the uneven last deal for 2-6
players) and V-tux-score (most cards 15, fives 5, oranges 10, sweeps 10 or 5, target 100;
`orange_calls`). Seed: pagat's Royal Casino page, section "Tuxedo" (seed 000), and
docs/rules.md "Tuxedo".
"""

from __future__ import annotations

from functools import partial

import pytest
from rules_helpers import end_hand as rules_end_hand
from rules_helpers import mk_for, moves, rule_of
from rules_helpers import split as rules_split

from casino_env.engine import IllegalMoveError, Move, State, apply_move, legal_moves, new_game

# -- helpers (the shared ones are in tests/rules_helpers.py) --------------------------------------

COLOURS = "RYGB"
DECK = [f"{n}{c}" for n in range(1, 11) for c in COLOURS]
FIVES = [f"5{c}" for c in COLOURS]
PLAIN = [c for c in DECK if not c.startswith("5")]  # 36 cards that score nothing alone
STOCK = ["6R", "7R", "6Y", "10B"]  # a small stock: the hand goes on
CALLS = {"orange_calls": True}
mk = mk_for("tuxedo")
end_hand = partial(rules_end_hand, variant="tuxedo", last="3G")
split = partial(rules_split, hold=("3G",), deck=DECK, plain=PLAIN)  # (count0, fives0)


def table_count(st: State) -> int:
    return sum(len(x["cards"]) if isinstance(x, dict) else 1 for x in st.table)


# -- V-tux-deal ---------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_v_tux_deal_forty_rook_cards(players):
    """V-tux-deal: the game uses the 40 Rook cards 1-10 in four colours, each once; the first
    deal gives 4 to each player and 4 to the table."""
    st = new_game("tuxedo", players, seed=2)
    cards = [c for s in range(players) for c in st.hand(s)] + st.table \
        + st.to_spec()["stock"]
    assert len(cards) == 40 and set(cards) == set(DECK)
    assert [len(st.hand(s)) for s in range(players)] == [4] * players
    assert len(st.table) == 4
    assert len(st.stock_ids) == 40 - 4 * players - 4


@pytest.mark.parametrize("players,left,each,to_table", [
    (2, 4, 2, 0), (3, 12, 4, 0), (4, 4, 1, 0), (5, 16, 3, 1), (6, 12, 2, 0)])
def test_v_tux_deal_last_deal_sizes(players, left, each, to_table):
    """V-tux-deal: the last deal shares what is left equally, the remainder to the table:
    2 players 2 each, 3 players 4 each, 4 players 1 each, 5 players 3 each + 1 to the table,
    6 players 2 each."""
    stock = DECK[:left]
    piles = [DECK[left:]] + [[] for _ in range(players - 1)]
    st = State.from_spec({"variant": "tuxedo", "players": players, "dealer": players - 1,
                          "hands": [[] for _ in range(players)], "stock": stock,
                          "piles": piles})
    assert [len(st.hand(s)) for s in range(players)] == [each] * players
    assert st.stock_ids == () and st.last_deal
    assert table_count(st) == to_table
    # from the top of the stock, the player after the dealer first; the rest to the table
    assert st.hand(0) == sorted(stock[:each], key=DECK.index)
    assert st.table == stock[players * each:]
    assert st.current == 0


@pytest.mark.parametrize("players,deals", [
    (2, [4, 4, 4, 4, 2]), (3, [4, 4, 4]), (4, [4, 4, 1]), (5, [4, 3]), (6, [4, 2])])
def test_v_tux_deal_seeded_hand_deal_sizes(players, deals):
    """V-tux-deal: playing a seeded hand through, the deals are 4 each while the stock allows,
    then the equal share of the rest (5 players: 1 card to the table as well)."""
    st = new_game("tuxedo", players, seed=5)
    sizes = [len(st.hand(0))]
    to_table = []
    while st.hand_no == 0 and not st.game_over:
        before = len(st.stock_ids)
        ms = legal_moves(st)
        caps = [m for m in ms if m.kind == "capture"]
        st = apply_move(st, max(caps, key=lambda m: len(m.taken)) if caps else ms[0])
        if st.hand_no == 0 and len(st.stock_ids) < before:
            hands = [len(st.hand(s)) for s in range(players)]
            assert len(set(hands)) == 1
            sizes.append(hands[0])
            to_table.append(before - len(st.stock_ids) - players * hands[0])
    assert sizes == deals
    assert to_table == [0] * (len(deals) - 2) + [1 if players == 5 else 0]


def test_v_tux_deal_values_one_to_ten():
    """V-tux-deal: mechanics as royal without face cards: values 1-10; a 1 is never 14
    (1G+4G+9R makes 14 but a 1 does not take it); builds as usual."""
    st = mk([["1R", "10Y"], ["2B"]], ["1G", "9R", "4G"], stock=STOCK)
    assert moves(st) == {"1R trails", "1R captures 1G", "1R builds 10 on 9R",
                         "10Y trails", "10Y captures 1G+9R"}
    assert {m.value for m in legal_moves(st) if m.kind == "capture"} == {1, 10}
    assert rule_of(st, "1R captures 1G+4G+9R") == "C-capture"


# -- V-tux-score --------------------------------------------------------------------------------

def test_v_tux_score_most_cards_15_and_fives_5():
    """V-tux-score: most cards 15 points, each Five 5."""
    st = end_hand(split(21, ["5R", "5Y"]), [0, 0])  # 22 cards with the residue, to 18
    assert st.hand_points == [25, 10]
    assert st.scores == [25, 10] and not st.game_over


def test_v_tux_score_tie_for_cards_scores_nothing():
    """V-tux-score (C-score): 20-20 gives no points for cards."""
    st = end_hand(split(19, ["5R"]), [0, 0])
    assert st.hand_points == [5, 15]


def test_v_tux_score_orange_red_and_yellow_from_the_table():
    """V-tux-score: a capture taking a red and a yellow card from the table is an orange:
    10 points at once (decision: automatic by default)."""
    st = mk([["5G", "9B"], ["1B"]], ["2R", "3Y", "1G", "4G"], stock=STOCK)
    assert moves(st, "5G") == {"5G trails", "5G captures 2R+3Y", "5G captures 1G+4G",
                               "5G captures 1G+2R+3Y+4G", "5G builds 9 on 4G",
                               "5G builds 9 on 1G+3Y"}
    after = apply_move(st, "5G captures 2R+3Y")
    assert after.events == ((0, "orange", 10),)
    # red and green is no orange
    assert apply_move(st, "5G captures 1G+4G").events == ()


def test_v_tux_score_orange_needs_both_colours_from_the_table():
    """V-tux-score (decision): the played card does not count: a red card taking a yellow one
    is no orange."""
    st = mk([["5R", "9B"], ["1B"]], ["5Y", "3G"], stock=STOCK)
    assert apply_move(st, "5R captures 5Y").events == ()


def test_v_tux_score_orange_from_a_captured_build():
    """V-tux-score: a red card inside a captured build counts with a loose yellow card."""
    st = mk([["7G", "4B"], ["7B", "1B"]],
            ["7Y", "3Y", {"cards": ["2R", "5B"], "value": 7, "owner": 1}], stock=STOCK)
    after = apply_move(st, "7G captures 2R+5B+7Y")
    assert after.events == ((0, "orange", 10),)


@pytest.mark.parametrize("table,capture,points", [
    (["1R", "2G", "3B", "4B"], "10G captures 1R+2G+3B+4B", 10),
    (["2G", "3B", "5B"], "10G captures 2G+3B+5B", 5),
    (["10R"], "10G captures 10R", 5),
])
def test_v_tux_score_sweeps_ten_or_five(table, capture, points):
    """V-tux-score: a sweep of 4 or more table cards scores 10, of 3 or fewer 5."""
    st = mk([["10G", "6B"], ["1B"]], table, stock=STOCK)
    after = apply_move(st, capture)
    assert after.table == [] and after.events == ((0, "sweep", points),)


def test_v_tux_score_sweep_counts_build_cards():
    """V-tux-score: the cards of a swept build count: a 2-card build and 2 loose cards are
    a sweep of 4 (10)."""
    st = mk([["8G", "6B"], ["8B", "1B"]], ["6G", "2B", {"cards": ["3G", "5B"], "value": 8,
                                                       "owner": 1}],
            stock=STOCK)
    after = apply_move(st, "8G captures 2B+3G+5B+6G")
    assert after.events == ((0, "sweep", 10),)


def test_v_tux_score_events_added_at_the_end_of_the_hand():
    """V-tux-score: oranges and sweeps scored during play are added to the hand's points."""
    st = end_hand(split(21, ["5R", "5Y"]), [0, 0],
                  events=[[0, "orange", 10], [1, "sweep", 5], [1, "sweep", 10]])
    assert st.hand_points == [35, 25]


def test_v_tux_score_played_hand_sweep_and_orange():
    """V-tux-score: a short played-out hand: a sweep of 4 with an orange, then the rest."""
    rest = [c for c in DECK if c not in ("5G", "1R", "1Y", "1G", "2B", "9B", "6B")]
    st = mk([["5G", "9B"], ["6B"]], ["1R", "1Y", "1G", "2B"], stock=[], piles=[rest, []],
            dealer=1, seed=3)
    st = apply_move(st, "5G captures 1R+1Y+1G+2B")
    assert st.events == ((0, "sweep", 10), (0, "orange", 10))
    st = apply_move(st, "6B trails")
    st = apply_move(st, "9B trails")  # last card; residue 6B+9B to side 0
    # side 0: 40 cards (15), four fives (20), sweep 10, orange 10
    assert st.hand_points == [55, 0] and st.scores == [55, 0]


@pytest.mark.parametrize("start,over,winner", [([90, 50], True, 0), ([74, 50], False, None),
                                               ([80, 98], True, 1), ([80, 95], False, None)])
def test_v_tux_score_target_100(start, over, winner):
    """V-tux-score: the first to 100 wins; if both reach it, the higher total (C-game); equal
    totals play another hand."""
    st = end_hand(split(21, ["5R", "5Y"]), start)  # +25 / +10
    assert st.scores == [start[0] + 25, start[1] + 10]
    assert st.game_over is over and st.winner == winner


# -- V-tux-score: orange_calls ------------------------------------------------------------------

def test_v_tux_score_orange_calls_capture_listed_with_and_without_call():
    """V-tux-score (`orange_calls`): every capture is listed plain and calling orange."""
    st = mk([["5G", "9B"], ["1B"]], ["2R", "3Y", "4G"], stock=STOCK, rules=CALLS)
    assert moves(st) == {
        "5G trails", "5G builds 9 on 4G", "5G captures 2R+3Y", "5G captures 2R+3Y calling orange",
        "9B trails", "9B captures 2R+3Y+4G", "9B captures 2R+3Y+4G calling orange"}
    called = [m for m in legal_moves(st) if m.orange]
    assert all(m.kind == "capture" for m in called) and len(called) == 2


def test_v_tux_score_orange_calls_correct_call_scores_10():
    """V-tux-score (`orange_calls`): a correct call scores 10."""
    st = mk([["5G", "9B"], ["1B"]], ["2R", "3Y", "4G"], stock=STOCK, rules=CALLS)
    after = apply_move(st, "5G captures 2R+3Y calling orange")
    assert after.events == ((0, "orange", 10),) and after.pending_orange is None
    assert after.current == 1
    after = apply_move(st, Move("capture", ["5G"], ["2R", "3Y"], orange=True))
    assert after.events == ((0, "orange", 10),)


def test_v_tux_score_orange_calls_false_call_costs_10():
    """V-tux-score (`orange_calls`): a false call costs 10."""
    st = mk([["5G", "9B"], ["1B"]], ["2R", "3G", "4G"], stock=STOCK, rules=CALLS)
    after = apply_move(st, "5G captures 2R+3G calling orange")
    assert after.events == ((0, "false call", -10),)


def test_v_tux_score_orange_calls_uncalled_orange_scores_nothing_for_capturer():
    """V-tux-score (`orange_calls`): an orange not called scores nothing for the capturer."""
    st = mk([["5G", "9B"], ["1B", "7G"]], ["2R", "3Y", "4G"], stock=STOCK, rules=CALLS)
    after = apply_move(st, "5G captures 2R+3Y")
    assert after.events == () and after.pending_orange == 1


def test_v_tux_score_orange_calls_next_player_calls_missed_orange():
    """V-tux-score (`orange_calls`): the next player may call the missed orange before they
    play, for 10 to their side; then they play their card."""
    st = mk([["5G", "9B"], ["1B", "7G"]], ["2R", "3Y", "4G"], stock=STOCK, rules=CALLS)
    st = apply_move(st, "5G captures 2R+3Y")
    assert moves(st) == {"calls orange", "1B trails", "7G trails"}
    assert str(legal_moves(st)[0]) == "calls orange"
    after = apply_move(st, "calls orange")
    assert after.events == ((1, "orange call", 10),)
    assert after.current == 1 and after.hand(1) == ["1B", "7G"]
    assert moves(after) == {"1B trails", "7G trails"}
    assert rule_of(after, "calls orange") == "V-tux-score"


def test_v_tux_score_orange_calls_chance_lapses_after_playing():
    """V-tux-score (`orange_calls`): once the next player plays, the missed orange can no
    longer be called."""
    st = mk([["5G", "9B"], ["1B", "7G"]], ["2R", "3Y", "4G"], stock=STOCK, rules=CALLS)
    st = apply_move(apply_move(st, "5G captures 2R+3Y"), "1B trails")
    assert st.pending_orange is None and st.current == 0
    assert "calls orange" not in moves(st)
    assert rule_of(st, "calls orange") == "V-tux-score"
    assert st.events == ()


def test_v_tux_score_orange_calls_only_the_next_player():
    """V-tux-score (`orange_calls`, decision): with three players only the next player may
    call the missed orange."""
    st = mk([["5G", "9B"], ["1B", "7G"], ["2B", "8G"]], ["2R", "3Y", "4G"], stock=STOCK,
            rules=CALLS)
    st = apply_move(st, "5G captures 2R+3Y")
    assert st.pending_orange == 1
    st = apply_move(st, "1B trails")
    assert st.current == 2 and "calls orange" not in moves(st)


# Side 0's pile for the deal-ending orange: 10 cards with one Five (5R), so that side 0 takes
# most cards (15) and a Five (5) in the hand that the last-card capture ends.
PILE0 = ["1G", "1B", "2G", "3G", "4G", "5R", "6G", "8G", "9G", "10G"]


def deal_ending_orange(stock) -> State:
    """Seat 1 (the dealer) plays the round's last card, 7G, taking 3R+4Y: an orange it does
    not call; the 9B stays on the table. ``stock`` is what is left to deal."""
    st = mk([[], ["7G"]], ["3R", "4Y", "9B"], stock=list(stock), rules=CALLS, dealer=1,
            current=1, piles=[PILE0, []], seed=3)
    return apply_move(st, "7G captures 3R+4Y")


def test_v_tux_score_orange_calls_missed_orange_survives_a_new_deal():
    """V-tux-score (`orange_calls`): a missed orange made by the capture that ends a deal may
    be called by the next player on their next turn, after the next deal of the same hand
    (RULES.md's clarification); the call scores 10 in the hand's points."""
    st = deal_ending_orange(["8R", "6B"])
    assert st.hands == [["8R"], ["6B"]] and st.stock_size == 0  # the next deal was dealt
    assert st.current == 0 and st.pending_orange == 0
    assert moves(st) == {"calls orange", "8R trails"}
    # The chance survives a spec round trip across the new deal.
    spec = st.to_spec()
    assert spec["pending_orange"] == 0 and State.from_spec(spec) == st
    assert moves(State.from_spec(spec)) == {"calls orange", "8R trails"}
    called = apply_move(st, "calls orange")
    assert called.events == ((0, "orange call", 10),) and called.pending_orange is None
    assert moves(called) == {"8R trails"}
    end = apply_move(apply_move(called, "8R trails"), "6B trails")
    # Side 0: most cards 15 (10 against 6), the Five 5R 5, the call 10; side 1: nothing (its
    # orange was not called; it takes the residue 9B 8R 6B as last capturer).
    assert end.hand_points == [30, 0] and end.scores == [30, 0]
    assert end.hand_no == 1 and end.events == ()


def test_v_tux_score_orange_calls_missed_orange_lapses_when_the_next_player_plays():
    """V-tux-score (`orange_calls`): after the new deal, playing a card instead of calling
    ends the chance; the hand then scores no call."""
    st = apply_move(deal_ending_orange(["8R", "6B"]), "8R trails")
    assert st.pending_orange is None and "calls orange" not in moves(st)
    end = apply_move(st, "6B trails")
    assert end.hand_points == [20, 0]  # most cards 15 and the Five 5, no call


def test_v_tux_score_orange_calls_missed_orange_lapses_at_the_end_of_the_hand():
    """V-tux-score (`orange_calls`): a missed orange made with the hand's last card lapses:
    there is no next turn in that hand, and the next hand starts without it."""
    st = deal_ending_orange([])
    assert st.hand_no == 1 and st.pending_orange is None and st.events == ()
    assert "calls orange" not in moves(st)
    # Side 0: most cards 15 (10 against 5: 7G 3R 4Y and the residue 9B) and the Five 5.
    assert st.hand_points == [20, 0]
    err = pytest.raises(IllegalMoveError, apply_move, st, "calls orange").value
    assert err.rule == "V-tux-score" and err.reason.startswith("there is no missed orange")


def test_v_tux_score_calls_only_with_the_switch():
    """V-tux-score: without `orange_calls` there is no calling: both call moves are illegal."""
    st = mk([["5G", "9B"], ["1B"]], ["2R", "3Y", "4G"], stock=STOCK)
    assert not any(m.orange for m in legal_moves(st))
    assert rule_of(st, "5G captures 2R+3Y calling orange") == "V-tux-score"
    assert rule_of(st, "calls orange") == "V-tux-score"


def test_v_tux_score_with_earned_a_call_that_reaches_the_target_ends_the_game():
    """V-earned with V-tux-score's orange_calls: a call's 10 are earned at once, so a call
    that takes its side to the target ends the game there (95 + 10 = 105 against 96). The
    game played on, and the other side won by its next capture."""
    rook = [f"{n}{c}" for n in range(1, 11) for c in "RYGB"]
    hands, table = [["3G", "10B"], ["9B", "8B"]], ["1R", "2Y", "5G", "5B"]
    used = set(sum(hands, [])) | set(table)
    rest = [c for c in rook if c not in used and c[:-1] != "5"] + ["5R", "5Y"]
    st = State.from_spec({"variant": "tuxedo", "players": 2, "hands": hands, "table": table,
                          "stock": rest[-8:], "piles": [rest[:13], rest[13:-8]],
                          "scores": [96, 95], "dealer": 1, "current": 0,
                          "rules": {"earned": True, "orange_calls": True}})
    st = apply_move(st, "3G captures 1R+2Y")  # an orange, not called
    assert not st.game_over and [str(m) for m in legal_moves(st)][0] == "calls orange"
    st = apply_move(st, "calls orange")
    assert st.game_over and st.winner == 1 and st.events == ((1, "orange call", 10),)
