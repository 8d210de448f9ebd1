"""The engine's State reads in card strings (issue 16 item 9): ``hands``, ``table``, ``piles``,
``loose``, ``stock``, ``stock_size``; the bitmasks live under names that say so."""

from __future__ import annotations

import random

import pytest

from casino_env.engine import (
    IllegalMoveError,
    State,
    apply_move,
    describe_variant,
    legal_moves,
    new_game,
)

SPEC = {
    "variant": "casino", "players": 2, "dealer": 1, "current": 0,
    "hands": [["7H", "3C"], ["8D", "2S"]],
    "table": ["5S", "2C", {"cards": ["4D", "4H"], "value": 8, "owner": 1, "multiple": False}],
    "stock": ["AS", "10D"],
    "piles": [["QS"], []],
}


def test_card_string_properties() -> None:
    st = State.from_spec(SPEC)
    assert sorted(st.hands[0]) == ["3C", "7H"] and sorted(st.hands[1]) == ["2S", "8D"]
    assert sorted(st.loose) == ["2C", "5S"]
    table = st.table
    assert sorted(x for x in table if isinstance(x, str)) == ["2C", "5S"]
    builds = [x for x in table if isinstance(x, dict)]
    assert [(sorted(b["cards"]), b["value"], b["owner"], b["multiple"]) for b in builds] == [
        (["4D", "4H"], 8, 1, False)]
    assert st.piles == [["QS"], []]
    assert st.stock == ["AS", "10D"] and st.stock_size == 2
    # the masks are still there, under names that say so
    assert isinstance(st.hand_masks[0], int) and isinstance(st.loose_mask, int)
    assert isinstance(st.pile_masks[0], int) and len(st.stock_ids) == 2


def test_table_is_a_property_after_apply_move() -> None:
    """``apply_move(...).table`` is the table, not a bound method."""
    st = State.from_spec(SPEC)
    after = apply_move(st, "7H captures 5S+2C")
    assert not callable(after.table)
    assert [x for x in after.table if isinstance(x, str)] == []
    assert sorted(after.piles[0]) == ["2C", "5S", "7H", "QS"]


def test_properties_are_read_only() -> None:
    st = new_game("royal", seed=3)
    for name in ("hands", "table", "piles", "loose", "stock", "stock_size"):
        with pytest.raises(AttributeError):
            setattr(st, name, None)


def test_missing_table_stock_piles_mean_empty() -> None:
    """The spec contract: missing ``table``/``stock``/``piles`` mean empty (documented)."""
    st = State.from_spec({"variant": "casino", "players": 2, "dealer": 1, "current": 0,
                          "hands": [["7H"], ["KD"]]})
    assert st.table == [] and st.stock == [] and st.stock_size == 0 and st.piles == [[], []]


def test_api_functions_name_a_spec_passed_for_a_state() -> None:
    """legal_moves and apply_move given a spec dict (or None) instead of a State say so, and
    how to make one (they failed with an AttributeError inside)."""
    spec = {"variant": "casino", "players": 2, "hands": [["3H"], ["4H"]]}
    with pytest.raises(TypeError, match=r"^legal_moves: expected a State, got dict "
                                        r"\(State\.from_spec\(spec\) makes one"):
        legal_moves(spec)
    with pytest.raises(TypeError, match=r"^apply_move: expected a State, got NoneType"):
        apply_move(None, "3H trails")
    assert [str(m) for m in legal_moves(State.from_spec(spec))] == ["3H trails"]


def test_describe_variant_and_new_game_argument_types() -> None:
    """describe_variant with a non-string is an unknown variant (not an unhashable-type
    crash); new_game takes a numpy integer for ``players`` as it does for ``seed``; a preset
    that turns on a switch another needs says so (V-cancel)."""
    import numpy as np

    with pytest.raises(ValueError, match=r"^unknown variant \['casino'\] \(known: casino"):
        describe_variant(["casino"])
    assert new_game("casino", np.int64(2), seed=np.int64(3)).to_spec() == \
        new_game("casino", 2, seed=3).to_spec()
    with pytest.raises(ValueError, match=r"rule switch 'cancel' needs 'sweeps' \(V-cancel\); "
                                         r"the 'finnish' preset turns 'cancel' on, so set "
                                         r"cancel=False too"):
        new_game("finnish", 2, sweeps=False)
    new_game("finnish", 2, sweeps=False, cancel=False)


@pytest.mark.parametrize("variant", ["casino", "royal", "swazi", "krypkasino"])
def test_deal_next_false_stops_a_finished_hand_before_the_next_deal(variant) -> None:
    """apply_move(deal_next=False): a move that ends a hand (not the game) gives the hand's
    final position: scored as the default gives it (same hand_points and scores), the residue
    in the last capturer's pile (C-residue: every card in a pile), nothing dealt; on any
    other move it is the default's state."""
    import random

    rng = random.Random(1)
    st = new_game(variant, 2, seed=7)
    checked_mid = 0
    while True:
        move = rng.choice(legal_moves(st))
        nxt = apply_move(st, move)
        end = apply_move(st, move, deal_next=False)
        if nxt.hand_points is not st.hand_points:
            break
        if checked_mid < 20:
            assert end.to_spec() == nxt.to_spec()
            checked_mid += 1
        st = nxt
    assert not nxt.game_over
    assert end.hand_points == nxt.hand_points and end.scores == nxt.scores
    assert not any(end.hand_masks) and end.loose_mask == 0 and not end.builds
    assert not end.stock_ids and not end.game_over
    deck = st.rules.deck
    assert sum(p.bit_count() for p in end.pile_masks) == deck.size
    assert legal_moves(end) == []
    assert nxt.hand_masks[0] and end.dealer == st.dealer != nxt.dealer
    # the spec round-trips (C-score: the hand is not scored twice, nothing is dealt): its
    # scores are those at the start of the hand, and hand_over says it is scored
    spec = end.to_spec()
    assert spec["hand_over"] is True and spec["scores"] == list(st.scores)
    assert State.from_spec(spec) == end
    assert State.from_spec({**spec, "hand_over": False}) == nxt  # scored, then dealt on


def test_hand_over_specs_are_checked() -> None:
    """``hand_over`` (a hand scored, the next not dealt): a bool, only with every hand, the
    table and the stock empty and no winner, and its hand_points must be what the piles score
    (C-score: most cards 3, most spades 1, 10D 2, 2S 1, each ace 1)."""
    spades = [r + "S" for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split()]
    piles = [spades + ["10D", "AH", "AD", "AC"], ["2H", "3H"]]  # 17 cards against 2
    base = {"variant": "casino", "players": 2, "hands": [[], []], "piles": piles,
            "scores": [3, 4], "last_capturer": 0, "seed": 5, "hand_over": True}
    st = State.from_spec(base)
    assert st.hand_points == (11, 0) and st.scores == (14, 4) and not st.game_over
    assert not any(st.hand_masks) and st.to_spec()["hand_over"] is True
    assert State.from_spec({**base, "hand_points": [11, 0]}) == st
    with pytest.raises(ValueError, match=r"^hand_points: \[9, 2\] is not what the hand over "
                                         r"scores from its piles \(\[11, 0\]\)$"):
        State.from_spec({**base, "hand_points": [9, 2]})
    with pytest.raises(ValueError, match="^hand_over: must be true or false, got 1$"):
        State.from_spec({**base, "hand_over": 1})
    for key, value in (("hands", [["KD"], ["QD"]]), ("table", ["KD"]), ("stock", ["KD"]),
                       ("winner", 0)):
        with pytest.raises(ValueError, match="^hand_over: a hand is over only with every hand"):
            State.from_spec({**base, key: value})
    done = State.from_spec({**base, "scores": [12, 4]})  # the hand takes side 0 to 23: won
    assert done.game_over and done.winner == 0 and done.scores == (23, 4)
    assert "hand_over" not in done.to_spec() and State.from_spec(done.to_spec()) == done


@pytest.mark.parametrize("variant", ["casino", "tuxedo", "krypkasino"])
def test_a_view_does_not_hold_the_next_shuffle(variant) -> None:
    """A seat does not know the seed of the next hands' shuffles: its view holds none, so two
    states that differ only in it give one view and one determinization (its seed drawn with
    the hidden cards from the rng: the same rng, the same state); play past the hand's end
    from a determinization does not deal the real next hand."""
    import random

    from casino_env.engine.view import PlayerView

    st = new_game(variant, 2, seed=3)
    twin = State.from_spec({**st.to_spec(), "seed": 99})
    assert twin.seed != st.seed and twin.hand_masks == st.hand_masks
    view, other = PlayerView(st, 0), PlayerView(twin, 0)
    assert view.state.seed is None and view.state == other.state
    det = view.determinize(random.Random(5))
    assert det == other.determinize(random.Random(5)) == view.determinize(random.Random(5))
    assert det.seed is not None and det.seed != st.seed

    def next_hand(s: State, rng: random.Random) -> State:  # random moves to the next deal
        while s.hand_no == 0 and not s.game_over:
            s = apply_move(s, rng.choice(legal_moves(s)))
        return s

    real = next_hand(st, random.Random(1))
    guess = next_hand(det, random.Random(1))
    if not real.game_over and not guess.game_over:
        assert real.to_spec()["stock"] != guess.to_spec()["stock"]


def test_parse_move_names_a_state_that_is_not_one() -> None:
    """parse_move(text, state): a spec dict or anything else in place of the State is refused
    at once, naming the type (as apply_move does), not deep inside."""
    from casino_env.engine import parse_move

    st = new_game("casino", 2, seed=1)
    for bad in (st.to_spec(), 5, "casino"):
        with pytest.raises(TypeError, match=r"^parse_move: expected a State \(or None: the "
                                            r"standard deck\), got "):
            parse_move("KD trails", bad)
    assert parse_move("KD trails", None) == parse_move("KD trails", st)


def test_a_move_on_a_hand_that_is_over_says_so() -> None:
    """After ``apply_move(..., deal_next=False)`` ends a hand no move is legal; one tried is
    refused naming the hand's end and how to deal on (C-deal), not a card the seat lacks; a
    ``deal_next`` that is not a bool is refused by name."""
    st = new_game("casino", 2, seed=7)
    end = apply_move(st, legal_moves(st)[-1], deal_next=False)
    while any(end.hand_masks):  # (a round's end deals the next round of the hand)
        st, end = end, apply_move(end, legal_moves(end)[-1], deal_next=False)
    assert not end.game_over and legal_moves(end) == []
    with pytest.raises(IllegalMoveError, match=r"the hand is over and the next one is not "
                                               r"dealt \(hand_over\).*\(rule C-deal"):
        apply_move(end, "KD trails")
    with pytest.raises(TypeError, match="^apply_move: deal_next must be True or False, "
                                        "got 'no'$"):
        apply_move(st, legal_moves(st)[0], deal_next="no")


def test_determinize_deals_a_build_owner_as_often_as_the_deals_allow():
    """C-build-keep in determinize: among the deals where the owner of a 6-build holds a 6,
    every deal equally likely. Here the owner holds 3 of 27 unseen cards, 3 of them sixes:
    it holds one six in 91.9% of those deals, two in 8.0%; giving it a six first and the rest
    at random (the old sampler) made two sixes 14.8%."""
    from math import comb

    from casino_env.engine.view import PlayerView

    found = None
    rng = random.Random(0)
    for g in range(500):
        st = new_game("casino", 2, seed=g)
        while not st.game_over and st.stock_ids:
            opp = 1 - st.current
            bs = [b for b in st.builds if b.owner == opp]
            if len(bs) == 1 and st.hand_masks[opp].bit_count() >= 3 and (
                    PlayerView(st, st.current).unseen
                    & st.rules.deck.rank_mask[bs[0].value]).bit_count() >= 3:
                found = st
                break
            st = apply_move(st, rng.choice(legal_moves(st)))
        if found:
            break
    st, opp = found, 1 - found.current
    view = PlayerView(st, st.current)
    rank = st.rules.deck.rank_mask[next(b.value for b in st.builds if b.owner == opp)]
    u, k, h = view.unseen.bit_count(), (view.unseen & rank).bit_count(), view.hand_sizes[opp]
    assert (u, k, h) == (27, 3, 3)
    n, draw = 4000, random.Random(1)
    twos = sum((view.determinize(draw).hand_masks[opp] & rank).bit_count() == 2
               for _ in range(n))
    exact = comb(k, 2) * comb(u - k, h - 2) / (comb(u, h) - comb(u - k, h))
    assert exact == pytest.approx(0.080, abs=0.001)
    assert twos / n == pytest.approx(exact, abs=0.015)  # (old sampler: 0.148)
