"""Rule tests for the common core (RULES.md section 1): one or more tests per rule id.

Each test names the rule id it checks. Positions are small specs; legal-move sets are compared
exactly through ``str(move)``. Seed examples are pagat's classic Casino page (seeds 001/003).
"""

from __future__ import annotations

import pytest
from rules_helpers import DECK, PLAIN, SPADES, build, end_hand, mk, moves, rule_of

from casino_env.engine import Move, State, apply_move, legal_moves, new_game, parse_move

# -- helpers (the shared ones are in tests/rules_helpers.py) --------------------------------------

def layout(sides, hold=()) -> list[list[str]]:
    """Capture piles per side. ``sides``: (count or None, special cards) per side; the rest of
    each pile is PLAIN filler (None: every filler left). Every spade, ace and the 10D must be
    named, in a pile or in ``hold`` (cards kept for hands or the table)."""
    named = set(hold) | {c for _, sp in sides for c in sp}
    assert {c for c in DECK if c not in PLAIN} <= named, "name every scoring card"
    pool = [c for c in PLAIN if c not in named]
    piles = []
    for count, special in sides:
        need = len(pool) if count is None else count - len(special)
        assert 0 <= need <= len(pool)
        piles.append(list(special) + pool[:need])
        pool = pool[need:]
    assert not pool or all(count is not None for count, _ in sides)
    return piles


def all_cards(st: State) -> list[str]:
    out = [c for seat in range(st.players) for c in st.hand(seat)]
    for item in st.table:
        out.extend(item["cards"] if isinstance(item, dict) else [item])
    out.extend(st.to_spec()["stock"])
    for side in range(st.sides):
        out.extend(st.pile(side))
    return out


def greedy(st: State) -> Move:
    """A deterministic move that keeps the table small: the biggest capture, else the first
    legal move (so that move lists stay short)."""
    ms = legal_moves(st)
    caps = [m for m in ms if m.kind == "capture"]
    return max(caps, key=lambda m: len(m.taken)) if caps else ms[0]


def play_first_moves(st: State, limit: int = 400):
    """Play ``greedy`` moves until the hand ends (the deal passes or the game ends); yield
    every state on the way, the first state of the next hand last."""
    dealer = st.dealer
    for _ in range(limit):
        yield st
        if st.dealer != dealer or st.game_over:
            return
        st = apply_move(st, greedy(st))
    raise AssertionError("hand did not end")


# -- C-deck ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_c_deck_game_uses_the_52_card_deck_once(players):
    """C-deck: a dealt game holds each of the 52 cards exactly once."""
    st = new_game("casino", players, seed=11)
    cards = all_cards(st)
    assert len(cards) == 52
    assert set(cards) == set(DECK)


def test_c_deck_numerals_capture_by_face_value():
    """C-deck: numerals 2-10 count their face value, the classic Ace 1."""
    st = mk([["10H"], ["KC"]], ["AS", "9C", "4D", "6H"])
    assert moves(st) == {
        "10H trails", "10H captures AS+9C", "10H captures 4D+6H", "10H captures AS+4D+6H+9C"}
    assert {m.value for m in legal_moves(st) if m.kind == "capture"} == {10}


def test_c_deck_classic_ace_is_one_only():
    """C-deck: in classic Casino an Ace is 1 (never 14): it cannot take 8+5+A."""
    st = mk([["AS"], ["KC"]], ["8C", "5D", "AH"])
    assert moves(st) == {"AS trails", "AS captures AH"}
    assert rule_of(st, "AS captures AH+5D+8C") == "C-capture"


def test_c_deck_classic_faces_have_no_value_in_sums():
    """C-deck/C-face: J Q K have no numeric value in classic Casino: 3+K is no sum."""
    st = mk([["10S", "KD"], ["2C"]], ["KH", "3C", "7D"])
    assert moves(st) == {"10S trails", "10S captures 3C+7D", "KD trails", "KD captures KH"}


# -- C-deal ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("players,stock", [(2, 40), (3, 36), (4, 32)])
def test_c_deal_four_each_and_four_to_the_table(players, stock):
    """C-deal: the first deal gives 4 cards to each player and 4 face up to the table."""
    st = new_game("casino", players, seed=3)
    assert [len(st.hand(s)) for s in range(players)] == [4] * players
    assert len(st.table) == 4
    assert all(isinstance(c, str) for c in st.table)
    assert len(st.to_spec()["stock"]) == stock
    assert st.dealer == players - 1 and st.current == 0


@pytest.mark.parametrize("players,deals", [(2, 6), (3, 4), (4, 3)])
def test_c_deal_number_of_deals_per_hand(players, deals):
    """C-deal: 6 deals for 2 players, 4 for 3, 3 for 4; later deals give 4 each and none
    to the table; which deal is the last is public (the stock is empty)."""
    seen = 1
    prev = new_game("casino", players, seed=5)
    for st in play_first_moves(prev):
        if st.dealer != prev.dealer:
            break
        if len(st.stock_ids) < len(prev.stock_ids):
            seen += 1
            assert [len(st.hand(s)) for s in range(players)] == [4] * players
            assert len(st.stock_ids) == len(prev.stock_ids) - 4 * players
            assert st.current == (st.dealer + 1) % players
        assert st.last_deal == (len(st.stock_ids) == 0)
        prev = st
    assert seen == deals
    assert prev.last_deal and prev.to_spec()["stock"] == []


def test_c_deal_later_deal_order_and_no_table_cards():
    """C-deal: when every hand is empty, 4 more to each player from the top of the stock,
    starting after the dealer, and none to the table."""
    st = mk([[], [], []], ["5S", "KH"], dealer=0, current=1,
            stock=["AS", "2S", "3S", "4S", "AH", "2H", "3H", "4H", "AD", "2D", "3D", "4D"])
    assert st.hand(1) == ["AS", "2S", "3S", "4S"]
    assert st.hand(2) == ["AH", "2H", "3H", "4H"]
    assert st.hand(0) == ["AD", "2D", "3D", "4D"]
    assert st.table == ["5S", "KH"]
    assert st.stock_ids == () and st.last_deal
    assert st.current == 1


def test_c_deal_not_last_while_stock_remains():
    """C-deal: the last deal is public: before it the stock is not empty."""
    st = mk([[], []], [], dealer=1, stock=["AS", "2S", "3S", "4S", "AH", "2H", "3H", "4H",
                                            "5C"])
    assert not st.last_deal
    assert st.to_spec()["stock"] == ["5C"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_c_deal_dealer_passes_each_hand(players):
    """C-deal: the deal passes to the next seat each hand; the player after the dealer leads."""
    st = new_game("casino", players, seed=9, target=100)
    dealers = [st.dealer]
    for _ in range(3):
        st = list(play_first_moves(st))[-1]
        assert not st.game_over
        dealers.append(st.dealer)
        assert st.current == (st.dealer + 1) % players
        assert [len(st.hand(s)) for s in range(players)] == [4] * players
        assert len(st.table) == 4
        st = apply_move(st, greedy(st))
    assert dealers == [(players - 1 + k) % players for k in range(4)]


def test_c_deal_partners_sit_opposite():
    """C-deal: with partners, seats 0+2 play against 1+3 (a capture by seat 2 goes to
    side 0's pile)."""
    st = mk([["KS"], ["2C"], ["5H"], ["3D"]], ["5S"], partnerships=True, current=2, dealer=1)
    assert [st.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    after = apply_move(st, "5H captures 5S")
    assert after.pile(0) == ["5S", "5H"] and after.pile(1) == []
    assert after.current == 3


# -- C-turn ---------------------------------------------------------------------------------------

def test_c_turn_every_legal_move_plays_one_card():
    """C-turn: every legal move plays exactly one card from hand and is a capture, build or
    trail."""
    st = new_game("casino", 2, seed=21)
    for s in play_first_moves(st):
        if s.dealer != st.dealer:
            break
        hand = set(s.hand(s.current))
        for m in legal_moves(s):
            assert len(m.played) == 1 and m.played[0] in hand
            assert m.kind in ("trail", "capture", "build")


def test_c_turn_one_card_only():
    """C-turn: playing two cards, or a card not in hand, is illegal."""
    st = mk([["3H", "5D"], ["8C"]], ["8S"])
    assert rule_of(st, "3H+5D captures 8S") == "C-turn"
    assert rule_of(st, "8C captures 8S") == "C-turn"  # seat 1's card
    assert rule_of(st, "9D trails") == "C-turn"


def test_c_turn_passes_to_next_seat():
    """C-turn: after one card the turn passes to the next seat."""
    st = mk([["3H", "5D"], ["8C", "9C"], ["2C", "4C"]], ["8S"], dealer=2)
    assert st.current == 0
    st = apply_move(st, "3H trails")
    assert st.current == 1 and st.hand(0) == ["5D"]
    st = apply_move(st, "8C captures 8S")
    assert st.current == 2
    st = apply_move(st, "2C trails")
    assert st.current == 0


# -- C-capture ------------------------------------------------------------------------------------

def test_c_capture_eight_on_a_2_3_5_6_8():
    """C-capture (seed example): an eight on A 2 3 5 6 8 can take 8 6 2 5 3 or 8 5 2 A, but not
    all six cards; every capture is a union of disjoint sets of 8."""
    st = mk([["8H"], ["KC"]], ["AS", "2C", "3D", "5S", "6H", "8C"])
    assert moves(st) == {
        "8H trails",
        "8H captures 8C",
        "8H captures 2C+6H", "8H captures 2C+6H+8C",
        "8H captures 3D+5S", "8H captures 3D+5S+8C",
        "8H captures 2C+3D+5S+6H", "8H captures 2C+3D+5S+6H+8C",
        "8H captures AS+2C+5S", "8H captures AS+2C+5S+8C",
    }
    after = apply_move(st, "8H captures 2C+3D+5S+6H+8C")
    assert after.table == ["AS"]
    assert after.pile(0) == ["2C", "3D", "5S", "6H", "8H", "8C"]
    assert after.last_capturer == 0
    assert rule_of(st, "8H captures AS+2C+3D+5S+6H+8C") == "C-capture"


def test_c_capture_eight_can_take_several_eights_and_sums():
    """C-capture: an eight takes one, two or three eights, a five and a three, or a four and
    two twos."""
    st = mk([["8H"], ["KC"]], ["8S", "8D", "8C"])
    assert moves(st) == {"8H trails", "8H captures 8S", "8H captures 8D", "8H captures 8C",
                         "8H captures 8S+8D", "8H captures 8S+8C", "8H captures 8D+8C",
                         "8H captures 8S+8D+8C"}
    st = mk([["8H"], ["KC"]], ["2S", "2D", "4C"])
    assert moves(st) == {"8H trails", "8H captures 2S+2D+4C"}


def test_c_capture_builds_only_whole_and_by_their_value():
    """C-capture: cards inside a build are taken only as the whole build, by its value; loose
    sets of that value may be taken with it."""
    table = ["AH", "5D", build(["2C", "4C"], 6, 1)]
    st = mk([["5H", "6S"], ["6D"]], table)
    assert moves(st) == {
        "5H trails", "5H captures 5D", "5H builds 6 on AH+2C+4C",
        "6S trails", "6S captures 2C+4C", "6S captures AH+2C+4C+5D", "6S captures AH+5D",
    }
    assert rule_of(st, "5H captures AH+4C") == "C-capture"
    assert rule_of(st, "5H captures 2C+4C") == "C-capture"
    after = apply_move(st, "6S captures AH+2C+4C+5D")
    assert after.table == []
    assert after.pile(0) == ["AH", "2C", "4C", "5D", "6S"]


def test_c_capture_goes_to_team_pile():
    """C-capture: the played card and everything taken go to the capturing team's pile."""
    st = mk([["KS"], ["7C"], ["2H"], ["3D"]], ["3S", "4H"], partnerships=True, dealer=0,
            current=1)
    after = apply_move(st, "7C captures 3S+4H")
    assert after.pile(1) == ["3S", "4H", "7C"] and after.pile(0) == []
    assert after.last_capturer == 1


# -- C-face ---------------------------------------------------------------------------------------

def test_c_face_queen_on_two_queens_takes_one():
    """C-face (seed example): Q played on Q, Q captures one of them, not both."""
    st = mk([["QH"], ["2C"]], ["QS", "QC"])
    assert moves(st) == {"QH trails", "QH captures QS", "QH captures QC"}
    assert rule_of(st, "QH captures QS+QC") == "C-face"
    after = apply_move(st, "QH captures QC")
    assert after.table == ["QS"]
    assert after.pile(0) == ["QH", "QC"]


def test_c_face_captures_only_its_rank():
    """C-face: a J, Q or K captures only a loose card of its own rank and has no value."""
    st = mk([["KD", "JH"], ["2C"]], ["QS", "KH", "6C", "5D"])
    assert moves(st) == {"KD trails", "KD captures KH", "JH trails"}
    cap = next(m for m in legal_moves(st) if m.kind == "capture")
    assert cap.value is None
    assert rule_of(st, "KD captures QS") == "C-face"
    assert rule_of(st, "KD captures KH+6C") == "C-face"
    assert rule_of(st, "JH captures 5D+6C") == "C-face"


def test_c_face_never_joins_a_build():
    """C-face: a face card never joins a build, neither from hand nor from the table."""
    st = mk([["JH", "3C", "KD"], ["2C"]], ["QS", "KH", "7D"])
    assert all(m.kind != "build" for m in legal_moves(st))
    assert rule_of(st, Move("build", "JH", ("7D",), 10)) == "C-face"
    assert rule_of(st, Move("build", "3C", ("KH",), 10)) == "C-face"


def test_c_face_numeral_never_takes_a_face_card():
    """C-face: a numeral cannot take a face card as part of a sum."""
    st = mk([["10S"], ["2C"]], ["JD", "3H"])
    assert rule_of(st, "10S captures JD") == "C-face"


# -- C-build --------------------------------------------------------------------------------------

def test_c_build_three_on_five_building_eight():
    """C-build (seed example): with a 5 on the table and 3, 8 in hand, the 3 on the 5 is a
    single build of 8, captured only by an 8."""
    st = mk([["3H", "8D"], ["5C", "8C"]], ["5S"])
    assert moves(st) == {"3H trails", "3H builds 8 on 5S", "8D trails"}
    st = apply_move(st, "3H builds 8 on 5S")
    assert st.table == [build(["3H", "5S"], 8, 0, False)]
    assert moves(st) == {"8C captures 3H+5S", "5C trails", "8C trails"}
    assert rule_of(st, "5C captures 5S") == "C-capture"


def test_c_build_ace_two_with_two_threes_and_a_six():
    """C-build (seed example): A and 2 on the table, 3 3 6 in hand: a three captures A+2, or
    builds 6 (single), or builds 3 (multiple)."""
    st = mk([["3H", "3D", "6C"], ["KC"]], ["AS", "2C"])
    assert moves(st) == {
        "3H trails", "3H captures AS+2C", "3H builds 3 on AS+2C", "3H builds 6 on AS+2C",
        "3D trails", "3D captures AS+2C", "3D builds 3 on AS+2C", "3D builds 6 on AS+2C",
        "6C trails",
    }
    single = apply_move(st, "3H builds 6 on AS+2C")
    assert single.table == [build(["AS", "2C", "3H"], 6, 0, False)]
    multiple = apply_move(st, "3H builds 3 on AS+2C")
    assert multiple.table == [build(["AS", "2C", "3H"], 3, 0, True)]


def test_c_build_read_from_notation_plays_as_the_legal_build():
    """C-build: a build read by ``parse_move`` does not say whether it is multiple; the
    engine's hot path ``play`` then plays the legal build it reads as (single or multiple, as
    ``apply_move`` does), and one that is not legal raises naming the rule it breaks."""
    from casino_env.engine import IllegalMoveError
    from casino_env.engine.play import play

    st = mk([["3H", "3D", "6C"], ["KC"]], ["AS", "2C"])
    for text, multiple in (("3H builds 6 on AS+2C", False), ("3H builds 3 on AS+2C", True)):
        after = play(st, parse_move(text, st))
        assert after == apply_move(st, text)
        assert after.table == [build(["AS", "2C", "3H"], int(text.split()[2]), 0, multiple)]
    with pytest.raises(IllegalMoveError, match="C-build"):
        play(st, parse_move("3H builds 9 on AS+2C", st))


def test_c_build_needs_the_value_in_hand():
    """C-build: creating a build needs a card of its value held besides the played card."""
    st = mk([["3H", "9D"], ["KC"]], ["5S"])
    assert moves(st) == {"3H trails", "9D trails"}
    assert rule_of(st, "3H builds 8 on 5S") == "C-build"


def test_c_build_needs_a_table_card():
    """C-build: a build holds at least two cards; the played card alone is no build."""
    st = mk([["3H", "3D"], ["KC"]], ["5S"])
    assert rule_of(st, Move("build", "3H", (), 3)) == "C-build"


def test_c_build_table_cards_alone_never_make_a_build():
    """C-build: table cards alone never make a build: 3 played with 3+5 from the table is no
    build of 8 (the 3 belongs to no set of 8)."""
    st = mk([["3H", "8D"], ["KC"]], ["5S", "3C"])
    assert "3H builds 8 on 5S" in moves(st)
    assert rule_of(st, "3H builds 8 on 3C+5S") == "C-build"


def test_c_build_owner_is_the_last_to_add():
    """C-build: a build belongs to whoever last added a card to it."""
    st = mk([["3H", "8D", "KD"], ["8C", "8S"]], ["5S"])
    st = apply_move(st, "3H builds 8 on 5S")
    assert st.table[0]["owner"] == 0
    st = apply_move(st, "8C builds 8 on 3H+5S")
    assert st.table == [build(["3H", "5S", "8C"], 8, 1, True)]
    assert "KD trails" in moves(st)  # seat 0 no longer owns a build


# -- C-build-raise --------------------------------------------------------------------------------

def test_c_build_raise_example_a():
    """C-build-raise (seed Example A): a single 6-build of two threes; 2 and 8 in hand raise it
    to 8; the next player, holding an ace and a nine, raises it to 9."""
    st = mk([["2H", "8D"], ["AC", "9C", "6H"]], [build(["3S", "3C"], 6, 1)])
    assert moves(st) == {"2H trails", "2H builds 8 on 3S+3C", "8D trails"}
    st = apply_move(st, "2H builds 8 on 3S+3C")
    assert st.table == [build(["2H", "3S", "3C"], 8, 0, False)]
    assert moves(st) == {"AC trails", "AC builds 9 on 2H+3S+3C", "9C trails", "6H trails"}
    st = apply_move(st, "AC builds 9 on 2H+3S+3C")
    assert st.table == [build(["AC", "2H", "3S", "3C"], 9, 1, False)]


def test_c_build_raise_multiple_build_never_changes_value():
    """C-build-raise (seed Example A): had the two threes been a multiple build of 3, neither
    2+5 nor 2+8 could raise it."""
    st = mk([["2H", "8D", "5D"], ["3H", "KC"]], [build(["3S", "3C"], 3, 1)])
    assert moves(st) == {"2H trails", "8D trails", "5D trails"}
    assert rule_of(st, "2H builds 5 on 3S+3C") == "C-build-raise"
    assert rule_of(st, "2H builds 8 on 3S+3C") == "C-build-raise"


def test_c_build_raise_example_b_table_cards_never_raise():
    """C-build-raise (seed Example B): A+4 built as 5, a loose 2; holding 3 8 10 you may build
    8 with the 3 but not take in the 2 to make 10."""
    st = mk([["3H", "8D", "10C"], ["5C", "KH"]], ["2S", build(["AS", "4C"], 5, 1)])
    assert moves(st) == {"3H trails", "3H builds 8 on AS+4C", "8D trails", "8D builds 10 on 2S",
                         "10C trails"}
    assert rule_of(st, "3H builds 10 on AS+2S+4C") == "C-build-raise"


def test_c_build_raise_example_c_with_loose_set():
    """C-build-raise (seed Example C): 3+4 built as 7 and a loose 9; holding 2 and 9, the 2
    raises to 9 and may take the loose 9 in, making a multiple build of 9."""
    st = mk([["2H", "9D"], ["7C", "KH"]], ["9S", build(["3S", "4C"], 7, 1)])
    assert moves(st) == {"2H trails", "2H builds 9 on 3S+4C", "2H builds 9 on 3S+4C+9S",
                         "9D trails", "9D captures 9S"}
    st = apply_move(st, "2H builds 9 on 3S+4C+9S")
    assert st.table == [build(["2H", "3S", "4C", "9S"], 9, 0, True)]


def test_c_build_raise_own_single_build_allowed_in_casino():
    """C-build-raise: raising your own single build is allowed outside `dominican`."""
    st = mk([["2H", "8D", "10C"], ["KH"]], [build(["3S", "5C"], 8, 0)])
    assert "2H builds 10 on 3S+5C" in moves(st)
    after = apply_move(st, "2H builds 10 on 3S+5C")
    assert after.table == [build(["2H", "3S", "5C"], 10, 0, False)]


# -- C-build-extend -------------------------------------------------------------------------------

def test_c_build_extend_nine_build_example():
    """C-build-extend (seed example): 5+4 built as 9 and a loose 3; holding 6 9 9: the 6 with
    the 3 joins the build (multiple 9), then a 9 is added, then the second 9 captures all."""
    st = mk([["6H", "9D", "9C"], ["9H", "KH", "QH"]], ["3S", build(["5S", "4C"], 9, 1)])
    assert moves(st) == {
        "6H trails", "6H builds 9 on 3S+4C+5S",
        "9D trails", "9D captures 4C+5S", "9D builds 9 on 4C+5S",
        "9C trails", "9C captures 4C+5S", "9C builds 9 on 4C+5S",
    }
    st = apply_move(st, "6H builds 9 on 3S+4C+5S")
    assert st.table == [build(["3S", "4C", "5S", "6H"], 9, 0, True)]
    st = apply_move(st, "KH trails")
    assert moves(st) == {"9D builds 9 on 3S+4C+5S+6H", "9D captures 3S+4C+5S+6H",
                         "9C builds 9 on 3S+4C+5S+6H", "9C captures 3S+4C+5S+6H"}
    st = apply_move(st, "9D builds 9 on 3S+4C+5S+6H")
    assert st.table == ["KH", build(["3S", "4C", "5S", "6H", "9D"], 9, 0, True)]
    st = apply_move(st, "QH trails")
    assert moves(st) == {"9C captures 3S+4C+5S+6H+9D"}
    st = apply_move(st, "9C captures 3S+4C+5S+6H+9D")
    assert st.pile(0) == ["3S", "4C", "5S", "6H", "9D", "9C"]
    assert st.table == ["QH", "KH"]


def test_c_build_extend_eight_build_example():
    """C-build-extend (seed example): multiple 8-build 3-5-8, a loose 6, hand 2 8 8 10: add an
    8, or the 2 with the 6 (still 8); the 2 cannot change the value to 10."""
    st = mk([["2H", "8D", "8C", "10S"], ["8S", "KH", "QH"]],
            ["6S", build(["3S", "5C", "8H"], 8, 1, True)])
    assert moves(st) == {
        "2H trails", "2H builds 8 on 3S+5C+6S+8H",
        "8D trails", "8D captures 3S+5C+8H", "8D builds 8 on 3S+5C+8H",
        "8C trails", "8C captures 3S+5C+8H", "8C builds 8 on 3S+5C+8H",
        "10S trails",
    }
    assert rule_of(st, "2H builds 10 on 3S+5C+8H") == "C-build-raise"
    assert rule_of(st, "2H builds 10 on 3S+5C+6S+8H") == "C-build-raise"
    after = apply_move(st, "2H builds 8 on 3S+5C+6S+8H")
    assert after.table == [build(["2H", "3S", "5C", "6S", "8H"], 8, 0, True)]


def test_c_build_extend_single_build_by_card_alone():
    """C-build-extend: a single build may be extended, keeping its value, by an equal card
    alone; it becomes multiple and changes owner."""
    st = mk([["7H", "7D"], ["7C", "KH"]], [build(["3S", "4C"], 7, 1)])
    assert "7H builds 7 on 3S+4C" in moves(st)
    after = apply_move(st, "7H builds 7 on 3S+4C")
    assert after.table == [build(["3S", "4C", "7H"], 7, 0, True)]


def test_c_build_extend_needs_played_card_in_a_set():
    """C-build-extend: extending with loose cards only (played card outside every set) is
    illegal."""
    st = mk([["2H", "8D", "8C"], ["8S", "KH"]],
            ["3D", "5D", build(["3S", "5C", "8H"], 8, 1, True)])
    assert rule_of(st, "2H builds 8 on 3D+3S+5C+5D+8H") == "C-build-extend"


# -- C-build-keep ---------------------------------------------------------------------------------

def test_c_build_keep_last_card_of_value_only_captures_the_build():
    """C-build-keep: the owner of an 8-build holding one 8 may play it only to capture that
    build."""
    st = mk([["8D", "2C"], ["KC"]], ["8C", build(["3H", "5S"], 8, 0)])
    assert moves(st) == {"8D captures 3H+5S", "8D captures 3H+5S+8C"}
    assert rule_of(st, "8D captures 8C") == "C-build-keep"


def test_c_build_keep_second_card_of_value_is_free():
    """C-build-keep: holding two 8s, the owner may capture a loose 8 and keep the other."""
    st = mk([["8D", "8S"], ["KC"]], ["8C", build(["3H", "5S"], 8, 0)])
    assert moves(st, "8D") == {"8D captures 3H+5S", "8D captures 3H+5S+8C", "8D captures 8C",
                               "8D builds 8 on 3H+5S", "8D builds 8 on 3H+5S+8C"}


def test_c_build_keep_no_build_that_spends_the_backing_card():
    """C-build-keep: the owner may not use the build's last matching card to make another
    build."""
    st = mk([["8D", "10C"], ["KC"]], ["2H", build(["3H", "5S"], 8, 0)])
    assert moves(st) == {"8D captures 3H+5S"}
    assert rule_of(st, "8D builds 10 on 2H") == "C-build-keep"


def test_c_build_keep_each_owned_build_keeps_its_card():
    """C-build-keep: owning an 8-build and a 5-build, each needs its own card: the 8 may not
    take a loose 8 while the 8-build stands; the 5 may capture the 5-build."""
    st = mk([["8D", "5H", "KC"], ["2C"]],
            ["8C", build(["3H", "5S"], 8, 0), build(["AS", "4C"], 5, 0)])
    assert moves(st) == {"5H captures AS+4C", "8D captures 3H+5S", "8D captures 3H+5S+8C"}
    assert rule_of(st, "8D captures 8C") == "C-build-keep"


def test_c_build_keep_ends_when_taken_over():
    """C-build-keep: once another player takes the build over, the former owner is free."""
    st = mk([["2H", "10D"], ["8C", "4S"]], ["KC", build(["3H", "5S"], 8, 1)])
    st = apply_move(st, "2H builds 10 on 3H+5S")
    assert moves(st) == {"8C trails", "4S trails"}


# -- C-owner-trail --------------------------------------------------------------------------------

def test_c_owner_trail_owner_may_not_trail():
    """C-owner-trail: the owner of a build may not trail; they can always capture it."""
    st = mk([["8D", "KC", "4H"], ["2C"]], [build(["3H", "5S"], 8, 0)])
    assert moves(st) == {"8D captures 3H+5S"}
    assert rule_of(st, "KC trails") == "C-owner-trail"
    assert rule_of(st, "4H trails") == "C-owner-trail"


def test_c_owner_trail_non_owner_may_trail():
    """C-owner-trail: a player who owns no build may trail."""
    st = mk([["2C", "8C"], ["8D", "KC"]], [build(["3H", "5S"], 8, 1)])
    assert moves(st) == {"2C trails", "8C trails", "8C captures 3H+5S"}


def test_c_owner_trail_binds_the_seat_not_the_team():
    """C-owner-trail: ownership is a seat's: partner of the owner may trail."""
    st = mk([["2C", "KD"], ["4D"], ["8D", "QC"], ["5C"]], [build(["3H", "5S"], 8, 2)],
            partnerships=True)
    assert moves(st) == {"2C trails", "KD trails"}


# -- C-one-per-value ------------------------------------------------------------------------------

def test_c_one_per_value_new_set_joins_existing_build():
    """C-one-per-value: a new set of 8 made while an 8-build exists joins it (multiple, new
    owner)."""
    st = mk([["6H", "8D"], ["8C", "KH"]], ["2C", build(["3H", "5S"], 8, 1)])
    assert moves(st, "6H") == {"6H trails", "6H builds 8 on 2C+3H+5S"}
    assert rule_of(st, "6H builds 8 on 2C") == "C-one-per-value"
    after = apply_move(st, "6H builds 8 on 2C+3H+5S")
    assert after.table == [build(["2C", "3H", "5S", "6H"], 8, 0, True)]


def test_c_one_per_value_raise_merges_builds():
    """C-one-per-value: raising a build to a value another build has merges the two."""
    st = mk([["3C", "8C"], ["5H", "8S"]],
            [build(["AS", "4C"], 5, 1), build(["2D", "6D"], 8, 1)])
    assert moves(st, "3C") == {"3C trails", "3C builds 8 on AS+2D+4C+6D"}
    assert rule_of(st, "3C builds 8 on AS+4C") == "C-one-per-value"
    after = apply_move(st, "3C builds 8 on AS+2D+4C+6D")
    assert after.table == [build(["AS", "2D", "3C", "4C", "6D"], 8, 0, True)]


def test_c_one_per_value_no_build_above_ten():
    """C-one-per-value: classic build values stay within 1..10."""
    st = mk([["3H", "8D"], ["KC"]], ["5S", "3C"])
    assert rule_of(st, "3H builds 11 on 3C+5S") == "C-one-per-value"
    assert all(m.value <= 10 for m in legal_moves(st) if m.kind == "build")


def test_c_one_per_value_spec_rejects_two_builds_of_a_value():
    """C-one-per-value: a spec may not hold two builds of one value."""
    with pytest.raises(ValueError, match="C-one-per-value"):
        mk([["8D", "8C"], ["KC"]], [build(["3H", "5S"], 8, 0), build(["2C", "6C"], 8, 0)])


# -- C-move ---------------------------------------------------------------------------------------

def test_c_move_same_outcome_listed_once():
    """C-move: different groupings of the same cards are one move (A+2, A+2 either way)."""
    st = mk([["3C", "3D"], ["KC"]], ["AS", "AH", "2S", "2H"])
    ms = legal_moves(st)
    assert len(ms) == len(set(ms)) == len({str(m) for m in ms})
    assert moves(st, "3C") == {
        "3C trails",
        "3C captures AS+2S", "3C captures AS+2H", "3C captures AH+2S", "3C captures AH+2H",
        "3C captures AS+AH+2S+2H",
        "3C builds 3 on AS+2S", "3C builds 3 on AS+2H", "3C builds 3 on AH+2S",
        "3C builds 3 on AH+2H", "3C builds 3 on AS+AH+2S+2H",
    }


def test_c_move_identity_and_notation_round_trip():
    """C-move: a move is its outcome; its notation parses back to an equal move."""
    st = mk([["8H", "3C", "8D"], ["KC"]], ["AS", "2C", "3D", "5S", "6H", "8C"])
    for m in legal_moves(st):
        again = parse_move(str(m), st)
        assert again == m and str(again) == str(m)
        assert apply_move(st, m) == apply_move(st, str(m))
    cap = parse_move("8H captures 5S+3D", st)  # table cards in any order
    assert str(cap) == "8H captures 3D+5S"


@pytest.mark.parametrize("seed", [1, 2])
def test_c_move_no_duplicates_in_play(seed):
    """C-move: along a played hand, no state lists the same outcome twice."""
    for st in play_first_moves(new_game("casino", 3, seed=seed)):
        ms = legal_moves(st)
        assert len({(m.kind, m.played, m.taken, m.value) for m in ms}) == len(ms)


# -- C-trail --------------------------------------------------------------------------------------

def test_c_trail_allowed_even_when_a_capture_exists():
    """C-trail: the played card stays on the table as a loose card, even when it could have
    captured (classic Casino)."""
    st = mk([["5H"], ["KC"]], ["5S"])
    assert moves(st) == {"5H trails", "5H captures 5S"}
    after = apply_move(st, "5H trails")
    assert after.table == ["5S", "5H"]
    assert after.pile(0) == [] and after.hand(0) == [] and after.current == 1


def test_c_trail_takes_nothing():
    """C-trail: a trail takes no table cards."""
    st = mk([["5H"], ["KC"]], ["5S"])
    assert rule_of(st, Move("trail", "5H", ("5S",))) == "C-trail"


# -- C-residue ------------------------------------------------------------------------------------

def test_c_residue_goes_to_last_capturer_and_is_no_sweep():
    """C-residue: after the last card the table goes to the last capturer (not a sweep, even
    with sweeps scored)."""
    # side 0: 25 cards with every point card; side 1: 22 plain cards; residue 5 cards.
    table = ["4D", "4H", "9C", "KH"]
    piles = layout([(25, SPADES + ["AH", "AD", "AC", "10D"]), (None, [])],
                   hold=table + ["3H"])
    assert [len(p) for p in piles] == [25, 22]
    # residue to side 1: 22 + 5 = 27 > 25 -> most cards for side 1; no sweep point.
    st = end_hand(piles, [0, 0], table=table, last_capturer=1, rules={"sweeps": True})
    assert st.hand_points == [1 + 2 + 1 + 4, 3]
    # residue to side 0: 30 v 22.
    st = end_hand(piles, [0, 0], table=table, last_capturer=0, rules={"sweeps": True})
    assert st.hand_points == [11, 0]


def test_c_residue_team_of_last_capturer():
    """C-residue: with partners the residue goes to the last capturer's team."""
    table = ["4D", "4H", "9C", "KH"]
    piles = layout([(25, SPADES + ["AH", "AD", "AC", "10D"]), (None, [])],
                   hold=table + ["3H"])
    st = end_hand(piles, [0, 0], table=table, last_capturer=3, partnerships=True)
    assert st.hand_points == [8, 3]
    st = end_hand(piles, [0, 0], table=table, last_capturer=2, partnerships=True)
    assert st.hand_points == [11, 0]


def test_c_residue_nobody_captured_goes_to_dealer():
    """C-residue (decision): if nobody captured in the whole hand, the dealer's side takes the
    table."""
    table = ["4D", "4H", "9C", "KH"]
    piles = layout([(25, SPADES + ["AH", "AD", "AC", "10D"]), (None, [])],
                   hold=table + ["3H"])
    spec = {"variant": "casino", "players": 2, "dealer": 0, "current": 0,
            "hands": [["3H"], []], "table": table, "stock": [], "piles": piles[::-1],
            "seed": 1}
    st = apply_move(State.from_spec(spec), "3H trails")
    assert st.hand_points == [3, 8]


# -- C-sweep --------------------------------------------------------------------------------------

def test_c_sweep_capture_emptying_the_table():
    """C-sweep: a capture that leaves the table empty is a sweep (scored with `sweeps`)."""
    st = mk([["5H", "2D"], ["KC", "3C"]], ["5S"], rules={"sweeps": True})
    assert apply_move(st, "5H captures 5S").sweeps == (1, 0)
    st2 = mk([["5H", "2D"], ["KC", "3C"]], ["5S", "9D"], rules={"sweeps": True})
    assert apply_move(st2, "5H captures 5S").sweeps == (0, 0)


def test_c_sweep_not_recorded_when_sweeps_off():
    """C-sweep: classic Casino does not score sweeps by default."""
    st = mk([["5H", "2D"], ["KC", "3C"]], ["5S"])
    assert apply_move(st, "5H captures 5S").sweeps == (0, 0)


def test_c_sweep_last_card_sweeps_only_if_it_takes_everything():
    """C-sweep: the last card of the hand sweeps only if it captures everything itself; the
    residue taken for the last capture is not a sweep."""
    specials = SPADES + ["AH", "AD", "AC", "10D"]
    # a) last card 4C captures the only table card 4D: a sweep.
    piles = layout([(27, specials), (None, [])], hold=["4D", "4C"])
    spec = {"variant": "casino", "players": 2, "rules": {"sweeps": True}, "dealer": 1,
            "current": 1, "hands": [[], ["4C"]], "table": ["4D"], "stock": [],
            "piles": piles, "last_capturer": 0, "seed": 3}
    st = apply_move(State.from_spec(spec), "4C captures 4D")
    assert [len(p) for p in piles] == [27, 23]
    assert st.hand_points == [11, 1]
    # b) the last card captures 4D only; 9H goes with the last capture, no sweep.
    piles = layout([(27, specials), (None, [])], hold=["4D", "4C", "9H"])
    spec.update(table=["4D", "9H"], piles=piles)
    st = apply_move(State.from_spec(spec), "4C captures 4D")
    assert st.hand_points == [11, 0]


# -- C-score --------------------------------------------------------------------------------------

def test_c_score_exact_points():
    """C-score: most cards 3, most spades 1, 10D 2, 2S 1, each ace 1: 11 in all."""
    piles = layout([(27, SPADES[2:10] + ["10D", "AH", "AS"]),
                    (None, ["2S"] + SPADES[10:] + ["AD", "AC"])], hold=["3H"])
    # side 0 ends with 28 cards (residue 3H), 9 spades; side 1: 24 cards, 4 spades.
    st = end_hand(piles, [0, 0])
    assert st.hand_points == [3 + 1 + 2 + 1 + 1, 1 + 1 + 1]
    assert sum(st.hand_points) == 11
    assert st.scores == [8, 3]
    assert not st.game_over and st.winner is None


def test_c_score_tie_for_most_cards_gives_nothing():
    """C-score: 26-26 cards: nobody scores the 3 points for cards."""
    piles = layout([(25, SPADES[:7] + ["10D", "AH", "AD", "AC"]), (None, SPADES[7:])],
                   hold=["3H"])
    st = end_hand(piles, [0, 0])  # 26 v 26
    assert [len(p) for p in piles] == [25, 26]
    assert st.hand_points == [1 + 2 + 1 + 4, 0]
    assert sum(st.hand_points) == 11 - 3


def test_c_score_tie_for_most_spades_gives_nothing():
    """C-score: a tie for most spades (3 players, 5-5-3) gives the spade point to nobody."""
    piles = layout([(20, SPADES[2:7] + ["10D"]), (16, SPADES[7:11] + ["AS", "AH"]),
                    (None, SPADES[11:] + ["AD", "AC"])], hold=["2S"])
    st = end_hand(piles, [0, 0, 0], last="2S", last_capturer=2)
    # cards 20 / 16 / 15 + 2S; spades 5 / 5 / 3.
    assert [len(p) for p in piles] == [20, 16, 15]
    assert st.hand_points == [3 + 2, 2, 1 + 2]
    assert sum(st.hand_points) == 11 - 1


def test_c_score_most_means_strictly_more_than_every_other():
    """C-score: with three players 18-18-16 cards nobody has most cards."""
    piles = layout([(18, SPADES[:7] + ["10D"]), (18, SPADES[7:] + ["AH"]),
                    (None, ["AD", "AC"])], hold=["3H"])
    st = end_hand(piles, [0, 0, 0], last_capturer=2)
    assert [len(p) for p in piles] == [18, 18, 15]
    assert st.hand_points == [1 + 2 + 1 + 1, 1, 2]


def test_c_score_sweeps_add_to_eleven():
    """C-score: with sweeps scored the points add up to 11 + sweeps."""
    piles = layout([(27, SPADES[2:10] + ["10D", "AH", "AS"]),
                    (None, ["2S"] + SPADES[10:] + ["AD", "AC"])], hold=["3H"])
    st = end_hand(piles, [0, 0], rules={"sweeps": True}, sweeps=[2, 1])
    assert st.hand_points == [8 + 2, 3 + 1]
    assert sum(st.hand_points) == 11 + 3


def test_c_score_partnership_sides():
    """C-score: in a partnership game points go to the two teams."""
    piles = layout([(27, SPADES[2:10] + ["10D", "AH", "AS"]),
                    (None, ["2S"] + SPADES[10:] + ["AD", "AC"])], hold=["3H"])
    st = end_hand(piles, [0, 0], last_capturer=2, partnerships=True)
    assert st.hand_points == [8, 3]


# -- C-game ---------------------------------------------------------------------------------------

SIDE0_8 = ([(27, SPADES[2:10] + ["10D", "AH", "AS"]),
            (None, ["2S"] + SPADES[10:] + ["AD", "AC"])], ["3H"])  # hand points [8, 3]
SIDE0_6 = ([(27, SPADES[2:10] + ["10D"]),
            (None, ["2S"] + SPADES[10:] + ["AS", "AH", "AD", "AC"])], ["3H"])  # [6, 5]


def test_c_game_first_to_21_wins():
    """C-game: the first side to reach 21 wins."""
    st = end_hand(layout(*SIDE0_8), [13, 17])
    assert st.hand_points == [8, 3]
    assert st.scores == [21, 20]
    assert st.game_over and st.winner == 0


def test_c_game_below_target_plays_on():
    """C-game: scores add up over hands; below the target a new hand is dealt."""
    st = end_hand(layout(*SIDE0_8), [12, 10])
    assert st.scores == [20, 13]
    assert not st.game_over and st.winner is None
    assert st.dealer == 0 and st.current == 1
    assert [len(st.hand(s)) for s in range(2)] == [4, 4] and len(st.table) == 4
    assert legal_moves(st)


def test_c_game_several_reach_higher_total_wins():
    """C-game: if several reach 21 in one hand, the higher total wins."""
    st = end_hand(layout(*SIDE0_8), [15, 19])
    assert st.scores == [23, 22]
    assert st.game_over and st.winner == 0


def test_c_game_tie_at_target_plays_another_hand():
    """C-game: several reach the target with equal totals: another hand is played; then the
    higher total wins."""
    st = end_hand(layout(*SIDE0_6), [18, 19])
    assert st.hand_points == [6, 5]
    assert st.scores == [24, 24]
    assert not st.game_over and st.winner is None
    assert [len(st.hand(s)) for s in range(2)] == [4, 4]
    st = end_hand(layout(*SIDE0_6), [24, 24])
    assert st.scores == [30, 29]
    assert st.game_over and st.winner == 0


def test_c_game_over_no_moves():
    """C-game: once the game is over there are no legal moves."""
    st = end_hand(layout(*SIDE0_8), [13, 17])
    assert st.game_over and legal_moves(st) == []
    assert rule_of(st, "3D trails") == "C-game"
