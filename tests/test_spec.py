"""State specs (``State.from_spec`` / ``State.to_spec``): validation messages, defaults, round
trips, and specs that are settled at once (docs/rules.md "State specs").

Malformed specs raise ValueError whose message names the field; rule ids are named where a
check enforces a rule (C-deck, C-build, C-face, C-one-per-value, C-build-keep, C-deal,
C-score, C-game).
"""

from __future__ import annotations

import copy
import json
import re

import pytest

from casino_env.engine import State, legal_moves, new_game

DECK = new_game("casino", 2, seed=0).rules.deck.names  # the 52 cards in card order


def base(**extra) -> dict:
    """A small valid 2-player classic spec; keyword arguments replace or add keys."""
    spec = {"variant": "casino", "players": 2, "hands": [["AS", "8H"], ["2H"]]}
    spec.update(extra)
    return spec


def build(cards, value, owner, multiple=None) -> dict:
    b = {"cards": list(cards), "value": value, "owner": owner}
    if multiple is not None:
        b["multiple"] = multiple
    return b


def bad(spec: dict, pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        State.from_spec(spec)


# -- keys ------------------------------------------------------------------------------------

def test_unknown_key():
    bad(base(colour="red"), r"unknown key 'colour'")


@pytest.mark.parametrize("key", ["variant", "players", "hands"])
def test_missing_required_key(key):
    spec = base()
    del spec[key]
    bad(spec, rf"^{key}: missing")


def test_spec_must_be_a_dict():
    bad([("variant", "casino")], r"spec: must be a dict")


def test_unknown_build_key():
    bad(base(table=[{**build(["5S", "3H"], 8, 0), "colour": 1}]), r"table\[0\].*unknown build key")


@pytest.mark.parametrize("key", ["cards", "value", "owner"])
def test_build_missing_key(key):
    b = build(["5S", "3H"], 8, 0)
    del b[key]
    bad(base(table=[b]), rf"table\[0\]: a build needs '{key}'")


# -- cards (C-deck) ----------------------------------------------------------------------------

@pytest.mark.parametrize(("card", "problem"), [
    ("1S", r"bad card text '1S'.*AS"),
    ("ZZ", r"bad card text 'ZZ'"),
    ("11H", r"bad card text '11H'"),
    ("10X", r"bad card text '10X'"),
    ("10", r"bad card text '10': not a card of the standard deck"),  # (not "write the ace")
    ("", r"bad card text ''"),
    (5, r"card must be a string.*got 5"),
    (None, r"card must be a string"),
])
@pytest.mark.parametrize("where", ["hands", "table", "stock", "piles"])
def test_bad_card_text(card, problem, where):
    """C-deck: a card is rank then suit; the message names the field and index."""
    spec = base(hands=[["AS"], ["2H"]])
    if where == "hands":
        spec["hands"] = [["AS", card], ["2H"]]
        field = r"hands\[0\]\[1\]"
    elif where == "piles":
        spec["piles"] = [[], [card]]
        field = r"piles\[1\]\[0\]"
    else:
        spec[where] = [card]
        field = rf"{where}\[0\]"
    bad(spec, rf"^{field}: {problem}")


def test_bad_card_in_a_build():
    bad(base(table=[build(["5S", "3Q"], 8, 0)]), r"^table\[0\]\.cards\[1\]: bad card text '3Q'")


def test_accepted_card_spellings():
    """Notation (C-deck): lower case, T for ten and suit symbols are read too."""
    st = State.from_spec(base(hands=[["as", "T♦"], ["2♥"]]))
    assert st.hand(0) == ["AS", "10D"] and st.hand(1) == ["2H"]


@pytest.mark.parametrize(("spec", "pattern"), [
    (base(table=["AS"]), r"^table\[0\]: duplicate card AS \(also in hands\[0\]\[0\]\)"),
    (base(hands=[["AS"], ["AS"]]), r"^hands\[1\]\[0\]: duplicate card AS"),
    (base(hands=[["AS", "AS"], ["2H"]]), r"^hands\[0\]\[1\]: duplicate card AS"),
    (base(stock=["3S"], piles=[["3S"], []]), r"^piles\[0\]\[0\]: duplicate card 3S .*stock\[0\]"),
    (base(stock=["3S", "3S"]), r"^stock\[1\]: duplicate card 3S"),
    (base(piles=[["3S"], ["3S"]]), r"^piles\[1\]\[0\]: duplicate card 3S"),
    (base(table=["5S", build(["5S", "3H"], 8, 0)]), r"table\[1\]\.cards\[0\]: duplicate card 5S"),
    (base(table=[build(["5S", "3H"], 8, 0)], stock=["3H"]), r"^stock\[0\]: duplicate card 3H"),
])
def test_duplicate_card(spec, pattern):
    """C-deck: every card is in one place only."""
    bad(spec, pattern)


# -- list lengths --------------------------------------------------------------------------------

@pytest.mark.parametrize(("key", "value", "pattern"), [
    ("hands", [["AS"], ["2H"], ["3C"]], r"^hands: must be a list of 2 hands"),
    ("hands", [["AS"]], r"^hands: must be a list of 2 hands"),
    ("hands", "AS 2H", r"^hands: must be a list of 2 hands"),
    ("piles", [[]], r"^piles: must be a list of 2 piles"),
    ("piles", [[], [], []], r"^piles: must be a list of 2 piles"),
    ("sweeps", [0], r"^sweeps: must be a list of 2"),
    ("sweeps", [0, 0, 0], r"^sweeps: must be a list of 2"),
    ("scores", [0, 0, 0], r"^scores: must be a list of 2"),
    ("scores", [5], r"^scores: must be a list of 2"),
    ("hand_points", [1, 2, 3], r"^hand_points: must be a list of 2"),
    ("scores", [0, "3"], r"^scores: every entry must be an int"),
    ("scores", [0, True], r"^scores: every entry must be an int"),
    ("table", "AS", r"^table: must be a list"),
    ("stock", "AS", r"^stock: must be a list"),
])
def test_wrong_list_shapes(key, value, pattern):
    spec = base(hands=[["AS"], ["2H"]])
    if key != "hands":
        spec["hands"] = [["4S"], ["2H"]]
    spec[key] = value
    bad(spec, pattern)


def test_a_hand_must_be_a_list():
    bad(base(hands=["AS", ["2H"]]), r"^hands\[0\]: must be a list of cards")


def test_partnership_lists_are_per_side():
    """C-deal: partners (0+2 v 1+3) share a pile, sweeps and a score: two sides, four seats."""
    spec = {"variant": "casino", "players": 4, "partnerships": True,
            "hands": [["AS"], ["2S"], ["3S"], ["4S"]]}
    State.from_spec({**spec, "piles": [[], []], "scores": [3, 4]})
    bad({**spec, "piles": [[], [], [], []]}, r"^piles: must be a list of 2 piles")
    bad({**spec, "scores": [0, 0, 0, 0]}, r"^scores: must be a list of 2")
    bad({**spec, "hands": [["AS"], ["2S"]]}, r"^hands: must be a list of 4 hands")


def test_sweeps_need_the_switch():
    """C-sweep: sweeps are recorded only where they score."""
    bad(base(sweeps=[1, 0]), r"^sweeps: .*'sweeps' is off")
    st = State.from_spec(base(sweeps=[1, 0], rules={"sweeps": True}))
    assert list(st.sweeps) == [1, 0]
    bad(base(sweeps=[-1, 0], rules={"sweeps": True}), r"^sweeps: .*negative")


# -- builds (C-build, C-face, C-one-per-value, C-build-keep) --------------------------------------

@pytest.mark.parametrize(("variant", "item", "pattern"), [
    # cards do not sum to the value of a single build
    ("casino", build(["5S", "3H"], 9, 0, False), r"^table\[0\]: impossible build: .*does not sum"),
    ("casino", build(["5S", "3H"], 9, 0), r"^table\[0\]: impossible build"),
    # cannot split into sets of the value (multiple build)
    ("casino", build(["5S", "3H", "4C"], 4, 0, True), r"^table\[0\]: impossible build: .*sets"),
    ("casino", build(["5S", "3H"], 8, 0, True), r"^table\[0\]: impossible build: .*sets of 8"),
    ("royal", build(["KS", "2D"], 14, 0, True), r"^table\[0\]: impossible build"),
    # value out of range (max 10 classic, 14 Royal)
    ("casino", build(["5S", "6H"], 11, 0), r"^table\[0\]\.value: must be an int 1\.\.10"),
    ("royal", build(["KS", "2D"], 15, 0), r"^table\[0\]\.value: must be an int 1\.\.14"),
    ("casino", build(["5S", "3H"], 0, 0), r"^table\[0\]\.value: must be an int"),
    ("casino", build(["5S", "3H"], "8", 0), r"^table\[0\]\.value: must be an int"),
    ("casino", build(["5S", "3H"], True, 0), r"^table\[0\]\.value: must be an int"),
    # one card only
    ("casino", build(["8S"], 8, 0), r"^table\[0\]\.cards: a build holds at least two cards"),
    ("casino", build([], 8, 0), r"^table\[0\]\.cards: a build holds at least two cards"),
    # a face card in a classic build (C-face)
    ("casino", build(["JS", "2D"], 8, 0), r"^table\[0\]\.cards: JS cannot be in a build.*C-face"),
    ("casino", build(["AD", "KD"], 1, 0), r"^table\[0\]\.cards: KD cannot be in a build"),
    # owner out of range
    ("casino", build(["5S", "3H"], 8, 2), r"^table\[0\]\.owner: must be a seat 0\.\.1, got 2"),
    ("casino", build(["5S", "3H"], 8, -1), r"^table\[0\]\.owner: must be a seat"),
    ("casino", build(["5S", "3H"], 8, True), r"^table\[0\]\.owner: must be a seat"),
    # owner does not hold a card of the value (C-build-keep)
    ("casino", build(["5S", "3H"], 8, 1), r"^table: seat 1 owns a build of 8 .*C-build-keep"),
    ("casino", build(["4S", "3H"], 7, 0), r"^table: seat 0 owns a build of 7 .*C-build-keep"),
    ("casino", build(["5S", "3H"], 8, 0, "yes"), r"^table\[0\]\.multiple: must be true or false"),
])
def test_impossible_builds(variant, item, pattern):
    """C-build, C-face, C-one-per-value, C-build-keep: a build in a spec must be possible."""
    bad(base(variant=variant, hands=[["AS", "8H"], ["2H"]], table=[item]), pattern)


def test_two_builds_with_the_same_value():
    """C-one-per-value: at most one build of each value."""
    bad(base(table=[build(["5S", "3H"], 8, 0), build(["4S", "4H"], 8, 0)]),
        r"^table: two builds of value 8 .*C-one-per-value")


def test_royal_one_and_fourteen_builds_need_two_aces():
    """C-build-keep (docs decision): one Ace cannot back both a 1-build and a 14-build."""
    table = [build(["9S", "5D"], 14, 0), build(["AD", "AC"], 1, 0, True)]
    bad(base(variant="royal", hands=[["AS", "8H"], ["2H"]], table=table),
        r"^table: seat 0 .*C-build-keep")
    st = State.from_spec(base(variant="royal", hands=[["AS", "AH", "8H"], ["2H"]], table=table))
    assert [(b.value, b.owner) for b in st.builds] == [(1, 0), (14, 0)]


def test_valid_builds_and_inferred_multiple():
    """C-build: ``multiple`` may be omitted and is inferred from the cards and the value; a Royal
    lone Ace is a set of 14."""
    st = State.from_spec(base(hands=[["AS", "8H", "4D"], ["2H"]],
                              table=[build(["5S", "3H"], 8, 0), build(["4S", "4H"], 4, 0)]))
    assert [(b.value, b.multiple) for b in st.builds] == [(4, True), (8, False)]
    st = State.from_spec(base(variant="royal", hands=[["AS", "8H"], ["2H"]],
                              table=[build(["AH", "AD"], 14, 0), build(["6S", "2D"], 8, 0)]))
    assert [(b.value, b.multiple) for b in st.builds] == [(8, False), (14, True)]


# -- seats -------------------------------------------------------------------------------------

@pytest.mark.parametrize("field", ["current", "dealer", "last_capturer"])
@pytest.mark.parametrize("value", [2, -1, True, False, "0", 1.0])
def test_bad_seats(field, value):
    bad(base(**{field: value}), rf"^{field}: must be a seat 0\.\.1")


def test_current_must_hold_cards():
    """C-turn: the seat to move holds cards while anyone does."""
    bad(base(hands=[[], ["2H"]], current=0), r"^current: seat 0 holds no cards")


SEED_RULE = "seed: must be a non-negative int or None, got "


@pytest.mark.parametrize("seed", ["7", True, 1.5, -1, -5])
def test_bad_seed(seed):
    """A spec's seed is an int >= 0 or null, as new_game's (issue 16 item 8)."""
    bad(base(seed=seed), rf"^{re.escape(SEED_RULE + repr(seed))}$")


@pytest.mark.parametrize("seed", ["1", True, 2.0, -1, -5])
def test_new_game_refuses_a_seed_that_is_not_a_non_negative_int(seed):
    """C-deal: a negative seed used to shuffle exactly as its absolute value (random.Random
    hashes -5 as 5), so seed=-5 was the same game as seed=5; it is refused now."""
    with pytest.raises(ValueError, match=rf"^{re.escape(SEED_RULE + repr(seed))}$"):
        new_game("royal", seed=seed)


def test_seed_zero_and_big_seeds_are_games():
    """Every int >= 0 is a seed (0 and the 63-bit seeds the engine draws itself)."""
    assert new_game("royal", seed=0).hands != new_game("royal", seed=1).hands
    big = 2 ** 63 - 1
    assert State.from_spec(new_game("royal", seed=big).to_spec()) == new_game("royal", seed=big)


# -- variant, players, rule switches -----------------------------------------------------------

def test_unknown_variant():
    bad(base(variant="poker"), r"unknown variant 'poker'")
    bad(base(variant=None), r"unknown variant None")


@pytest.mark.parametrize("players", [0, 1, 5, 6, -2])
def test_players_out_of_range(players):
    bad(base(players=players), rf"players={players} is not allowed for 'casino'")


@pytest.mark.parametrize("players", ["2", 2.0, True, None])
def test_players_must_be_an_int(players):
    bad(base(players=players), r"players must be an int")


@pytest.mark.parametrize("variant", ["casino", "royal", "dominican"])
@pytest.mark.parametrize("players", [2, 3])
def test_partnerships_need_four_players(variant, players):
    """C-deal: partners sit opposite; a partnership game has four players."""
    hands = [["AS"], ["2H"], ["3C"]][:players]
    bad(base(variant=variant, players=players, hands=hands, partnerships=True),
        r"partnerships need 4 players")


def test_partnerships_must_be_a_bool():
    bad(base(partnerships="yes"), r"partnerships must be true or false")


@pytest.mark.parametrize(("rules", "pattern"), [
    ({"colour": True}, r"^rules: unknown rule switch 'colour'"),
    ({"hungarian": True}, r"^rules: unknown rule switch 'hungarian'"),
    ({"ace_14": True}, r"^rules: rule switch 'ace_14' does not apply to 'casino'"),
    ({"orange_calls": True}, r"^rules: rule switch 'orange_calls' does not apply to 'casino'"),
    ({"sweeps": 1}, r"^rules: rule switch 'sweeps' must be bool, got 1"),
    ({"sweeps": "yes"}, r"^rules: rule switch 'sweeps' must be bool"),
    ({"target": "21"}, r"^rules: rule switch 'target' must be int"),
    ({"target": True}, r"^rules: rule switch 'target' must be int"),
    ({"target": 21.0}, r"^rules: rule switch 'target' must be int"),
    ({"target": 0}, r"^rules: rule switch 'target' must be positive"),
    ({"soto": True}, r"^rules: rule switch 'soto' needs 'dom_end'"),
    ({"cancel": True}, r"^rules: rule switch 'cancel' needs 'sweeps'"),
    ({"partner_build": True}, r"^rules: rule switch 'partner_build' needs partnerships"),
    ({"twenty_by_two_spades": True}, r"^rules: rule switch 'twenty_by_two_spades' needs"),
])
def test_bad_rule_switches(rules, pattern):
    bad(base(rules=rules), pattern)


def test_rules_must_be_a_dict():
    bad(base(rules=["sweeps"]), r"^rules: must be a dict")


def test_new_game_checks_switches_too():
    with pytest.raises(ValueError, match=r"unknown rule switch 'colour'"):
        new_game("casino", 2, seed=1, colour=True)
    with pytest.raises(ValueError, match=r"rule switch 'sweeps' must be bool"):
        new_game("casino", 2, seed=1, sweeps=1)
    with pytest.raises(ValueError, match=r"unknown variant 'poker'"):
        new_game("poker", 2, seed=1)
    with pytest.raises(ValueError, match=r"players=5"):
        new_game("royal", 5, seed=1)
    with pytest.raises(ValueError, match=r"partnerships need 4 players"):
        new_game("dominican", 2, seed=1, partnerships=True)
    with pytest.raises(ValueError, match=r"seed: must be a non-negative int or None"):
        new_game("casino", 2, seed="1")


def test_extra_engine_keys_are_checked():
    bad(base(variant="dominican", met=[2]), r"^met: must be a seat 0\.\.1")
    bad(base(variant="dominican", met="0"), r"^met: must be a list")
    bad(base(proven=[[15], []]), r"^proven: only with rule switch 'partner_build'")
    four = dict(variant="dominican", players=4, rules={"partner_build": True},
                hands=[["AS"], ["2H"], ["3C"], ["4D"]])
    bad(base(**four, proven=[[15], [], [], []]),
        r"^proven\[0\]: values must be build values, ints 1\.\.14, got \[15\]")
    # classic casino builds go to 10 (C-build): a proven 11 cannot be
    classic = dict(four, variant="casino", partnerships=True)
    bad(base(**classic, proven=[[], [11], [], []]),
        r"^proven\[1\]: values must be build values, ints 1\.\.10, got \[11\]")
    assert State.from_spec(base(**classic, proven=[[], [10], [], []])).to_spec()["proven"] == \
        [[], [10], [], []]
    bad(base(proven=[[]]), r"^proven: must be a list of 2")


# -- defaults ------------------------------------------------------------------------------------

def test_minimal_spec_takes_documented_defaults():
    """docs/rules.md: dealer the last seat, current the seat after the dealer, table, stock,
    piles empty, sweeps and scores zeros, last_capturer and seed null, the preset's switches."""
    st = State.from_spec({"variant": "casino", "players": 3,
                          "hands": [["AS"], ["2H"], ["3C"]]})
    spec = st.to_spec()
    assert spec["dealer"] == 2 and spec["current"] == 0
    assert spec["table"] == [] and spec["stock"] == [] and spec["piles"] == [[], [], []]
    assert spec["sweeps"] == [0, 0, 0] and spec["scores"] == [0, 0, 0]
    assert spec["last_capturer"] is None and spec["seed"] is None
    assert spec["partnerships"] is False
    assert spec["rules"] == new_game("casino", 3, seed=1).rules.switches()
    assert "hand_points" not in spec
    assert st.hand_points is None and not st.game_over and st.winner is None
    assert st.current == 0 and st.dealer == 2


def test_minimal_spec_current_follows_dealer():
    st = State.from_spec(base(hands=[["AS"], ["2H"]], dealer=0))
    assert st.current == 1


@pytest.mark.parametrize(("variant", "players", "partnerships"), [
    ("casino", 4, False), ("royal", 4, False), ("dominican", 4, True), ("dominican", 3, False),
])
def test_minimal_spec_partnership_default(variant, players, partnerships):
    """docs/rules.md: only Dominican with 4 players plays as partners by default."""
    hands = [["AS"], ["2H"], ["3C"], ["4D"]][:players]
    st = State.from_spec({"variant": variant, "players": players, "hands": hands})
    assert st.rules.partnerships is partnerships
    assert st.rules.sides == (2 if partnerships else players)
    assert len(st.scores) == st.rules.sides


def test_minimal_spec_preset_switches():
    r = State.from_spec(base(variant="dominican")).rules
    assert (r.sweeps, r.cancel, r.dom_trail, r.dom_build, r.dom_end) == (True,) * 5
    r = State.from_spec(base(variant="royal")).rules
    assert r.countout and not r.sweeps and r.target == 21
    r = State.from_spec(base(variant="royal", rules={"sweeps": True, "target": 11})).rules
    assert r.sweeps and r.target == 11


# -- round trips ---------------------------------------------------------------------------------

HANDCRAFTED = {
    "casino-builds": {
        "variant": "casino", "players": 2, "partnerships": False,
        "rules": {"sweeps": True},
        "dealer": 0, "current": 1,
        "hands": [["2C", "8H", "KD"], ["4D", "9S"]],
        "table": ["3S", "JH", build(["4S", "4H"], 4, 1, True), build(["AD", "2D", "5S"], 8, 0,
                                                                      False)],
        "stock": ["10D", "QS", "7C", "AH", "6H", "6S", "9C", "9H"],
        "piles": [["5H", "7S"], ["3H"]],
        "sweeps": [1, 0], "scores": [12, 15], "last_capturer": 0, "seed": 123456789,
    },
    "royal-3p": {
        "variant": "royal", "players": 3, "partnerships": False,
        "dealer": 1, "current": 2,
        "hands": [["AS", "5C"], ["QD"], ["AC", "KC"]],
        "table": ["2S", build(["2H", "3H"], 5, 0, False), build(["AD", "KS"], 14, 2, False)],
        "stock": [], "piles": [["9S"], [], ["9D"]],
        "scores": [20, 3, 0], "last_capturer": None, "seed": None,
    },
    "dominican-partners": {
        "variant": "dominican", "players": 4, "partnerships": True,
        "rules": {"soto": True, "partner_build": True},
        "dealer": 3, "current": 0,
        "hands": [["5S", "7D"], ["QH"], ["7S"], []],
        "table": ["2C", build(["3D", "4D"], 7, 2, False)],
        "stock": [], "piles": [["10D"], ["AS"]],
        "sweeps": [0, 1], "scores": [17, 18], "last_capturer": 1, "seed": 42,
        "hand_points": [3, 8], "met": [0], "proven": [[], [], [7, 9], []],
    },
}


def normalise(spec: dict) -> dict:
    """The spec with every key and switch written out, as to_spec writes it."""
    st = State.from_spec(copy.deepcopy(spec))
    return st.to_spec()


@pytest.mark.parametrize("name", sorted(HANDCRAFTED))
def test_handcrafted_round_trip(name):
    """to_spec(from_spec(spec)) keeps every field written; from_spec(to_spec(s)) == s."""
    spec = HANDCRAFTED[name]
    st = State.from_spec(copy.deepcopy(spec))
    out = st.to_spec()
    for key, value in spec.items():
        if key == "rules":
            for sw, v in value.items():
                assert out["rules"][sw] == v
        else:
            assert out[key] == value, key
    assert json.loads(json.dumps(out)) == out
    again = State.from_spec(json.loads(json.dumps(out)))
    assert again == st and again.to_spec() == out
    assert [str(m) for m in legal_moves(again)] == [str(m) for m in legal_moves(st)]


def test_to_spec_writes_cards_in_card_order():
    """docs/rules.md: to_spec writes cards in card order (A S H D C, 2 ...), loose cards then
    builds by value; the stock keeps its order (top first)."""
    st = State.from_spec(base(hands=[["8H", "AS", "10C"], ["KD", "3D", "2H"]],
                              table=["9C", "3S", build(["3H", "5S"], 8, 0),
                                     build(["2S", "AD"], 3, 1, False)],
                              stock=["QS", "4C", "7H"]))
    spec = st.to_spec()
    assert spec["hands"] == [["AS", "8H", "10C"], ["2H", "3D", "KD"]]
    assert spec["table"] == ["3S", "9C", build(["AD", "2S"], 3, 1, False),
                             build(["3H", "5S"], 8, 0, False)]
    assert spec["stock"] == ["QS", "4C", "7H"]
    assert st.stock_ids == tuple(DECK.index(c) for c in ["QS", "4C", "7H"])


# -- specs settled at once ---------------------------------------------------------------------

def test_all_hands_empty_with_stock_is_dealt():
    """C-deal: when every hand is empty, 4 more to each player from the top of the stock, the
    player after the dealer first, none to the table; the player after the dealer leads."""
    stock = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS"]
    st = State.from_spec({"variant": "casino", "players": 2, "hands": [[], []], "dealer": 0,
                          "table": ["AH"], "stock": stock,
                          "piles": [["AD"], ["AC"]]})
    assert st.hand(1) == ["2S", "3S", "4S", "5S"]
    assert st.hand(0) == ["6S", "7S", "8S", "9S"]
    assert st.table == ["AH"]
    assert [DECK[i] for i in st.stock_ids] == ["10S", "JS", "QS", "KS"]
    assert st.current == 1 and st.dealer == 0
    assert st.hand_points is None and list(st.scores) == [0, 0]
    assert st.pile(0) == ["AD"] and st.pile(1) == ["AC"]


def _split_deck(side0: list[str]) -> list[list[str]]:
    return [side0, [c for c in DECK if c not in side0]]


def test_all_hands_and_stock_empty_scores_and_deals_next_hand():
    """C-residue, C-score, C-deal: an empty spec is scored; with a seed the next hand is dealt
    exactly as new_game deals from that seed (the deal passes to the next seat)."""
    side0 = [c for c in DECK if c.endswith("S")] + ["10D", "AH", "AD", "AC", "2H", "3H", "4H",
                                                    "5H", "6H", "7H", "8H", "9H", "10H", "JH",
                                                    "QH"]
    piles = _split_deck(side0)
    spec = {"variant": "casino", "players": 2, "hands": [[], []], "dealer": 0,
            "piles": piles, "scores": [2, 5], "seed": 77}
    st = State.from_spec(spec)
    # side 0: 28 cards (3), 13 spades (1), 10D (2), 2S (1), 4 aces (4) = 11; side 1 nothing.
    assert st.hand_points == [11, 0]
    assert st.scores == [13, 5]
    assert not st.game_over
    fresh = new_game("casino", 2, seed=77)
    assert st.dealer == 1 == fresh.dealer
    assert st.hand_masks == fresh.hand_masks and st.stock_ids == fresh.stock_ids
    assert st.table == fresh.table and st.seed == fresh.seed
    assert st.current == 0 and not any(st.pile_masks)


def test_all_hands_and_stock_empty_residue_goes_to_last_capturer():
    """C-residue: the table goes to the last capturer's side (not a sweep), then C-score."""
    piles = [["2S"], ["3S"]]
    rest = [c for c in DECK if c not in ("2S", "3S")]
    spec = {"variant": "casino", "players": 2, "hands": [[], []], "table": rest,
            "piles": piles, "last_capturer": 1, "seed": 5, "rules": {"sweeps": True}}
    st = State.from_spec(spec)
    # side 1 takes the residue: 51 cards, 12 spades, 10D, 4 aces = 3+1+2+4 = 10; side 0: 2S.
    assert st.hand_points == [1, 10]
    assert list(st.sweeps) == [0, 0]


def test_all_hands_and_stock_empty_ends_the_game():
    """C-game: the first side to reach the target wins; the final state keeps the piles and
    round-trips through its spec (from_spec rescores the last hand)."""
    piles = _split_deck(["10D", "2S", "AS"])
    spec = {"variant": "casino", "players": 2, "hands": [[], []], "piles": piles,
            "scores": [19, 10], "seed": 1}
    st = State.from_spec(spec)
    # side 0: 10D 2, 2S 1, AS 1 = 4; side 1: 49 cards 3, 12 spades 1, 3 aces 3 = 7.
    assert st.hand_points == [4, 7]
    assert st.game_over and st.winner == 0 and st.scores == [23, 17]
    assert legal_moves(st) == []
    out = st.to_spec()
    assert out["scores"] == [19, 10] and out["hand_points"] == [4, 7]
    assert State.from_spec(out) == st


def test_all_empty_tied_totals_play_on():
    """C-game: if the highest totals tie at the target, another hand is played."""
    piles = _split_deck(["10D", "2S", "AS"])
    st = State.from_spec({"variant": "casino", "players": 2, "hands": [[], []],
                          "piles": piles, "scores": [17, 14], "seed": 3})
    assert st.hand_points == [4, 7] and st.scores == [21, 21]
    assert not st.game_over and sum(len(st.hand(s)) for s in range(2)) == 8


@pytest.mark.parametrize(("variant", "extra"), [
    ("dominican", {"met": [0]}),
    ("casino", {}),
    ("dominican", {"rules": {"partner_build": True}, "players": 4,
                   "hands": [["AS"], ["2H"], ["3C"], ["4D"]], "proven": [[], [], [5], []]}),
])
def test_engine_keys_round_trip_where_they_apply(variant, extra):
    """docs/rules.md: ``met`` (V-dom-end) and ``proven`` (V-partner-build) are written and read
    back where the rules use them."""
    st = State.from_spec(base(variant=variant, **extra))
    assert State.from_spec(st.to_spec()) == st


@pytest.mark.parametrize("extra,field", [({"met": [0]}, "met"), ({"proven": [[3], []]}, "proven")])
def test_unused_engine_keys_are_refused(extra, field):
    """from_spec(to_spec(s)) == s for every state from_spec accepts: a ``met`` or ``proven``
    entry in a game without V-dom-end / V-partner-build is refused, naming the field."""
    with pytest.raises(ValueError, match=field):
        State.from_spec(base(**extra))


def test_repeated_met_side_and_impossible_cancelled_sweeps_are_refused():
    """V-dom-end: a side meets its criterion once; V-cancel: sweeps on every side cannot be
    left uncancelled."""
    with pytest.raises(ValueError, match="met"):
        State.from_spec(base(variant="dominican", met=[0, 0]))
    with pytest.raises(ValueError, match="sweeps"):
        State.from_spec(base(variant="dominican", sweeps=[1, 1]))


def test_all_cards_in_stock_is_the_first_deal_of_a_hand():
    """C-deal: a spec whose hand has not begun (every card in the stock) is dealt with four
    cards to the table."""
    from casino_env.engine.cards import STANDARD

    st = State.from_spec({"variant": "casino", "players": 2, "hands": [[], []],
                          "stock": list(STANDARD.names)})
    assert [len(st.hand(s)) for s in range(2)] == [4, 4]
    assert len(st.table) == 4 and len(st.stock_ids) == 40


def test_state_copy_copies_every_field() -> None:
    """The engine's internal State._copy (written field by field for speed) copies every
    field and clears only the cached move list and index."""
    from casino_env.engine.state import _FIELDS

    st = new_game("dominican", 4, seed=3, partnerships=True)
    legal_moves(st)
    for name in _FIELDS:  # give every field a distinct marker value
        object.__setattr__(st, name, ("marker", name))
    c = st._copy()
    assert all(getattr(c, name) == ("marker", name) for name in _FIELDS)
    assert c._moves is None and c._index is None
    assert set(_FIELDS) | {"_moves", "_index"} == set(type(st).__slots__)


@pytest.mark.parametrize(("players", "stock"), [(2, ["KC", "9D"]), (2, ["6S"]),
                                                (4, ["KC", "9D", "2S"]),
                                                (2, ["KC", "9D", "2S", "3S", "4S"])])
def test_a_first_deal_needs_four_table_cards_and_one_each(players, stock):
    """C-deal: a hand not begun whose stock cannot give the table four cards and every player
    one is refused naming the stock (it used to deal a card to two places, or recurse for
    ever); the smallest stock that can is dealt with each card in one place."""
    bad({"variant": "casino", "players": players, "hands": [[]] * players, "stock": stock},
        rf"^stock: the hand's first deal needs at least 4 cards for the table and one for "
        rf"each of the {players} players, got {len(stock)} \(C-deal\)")
    st = State.from_spec({"variant": "casino", "players": 2, "hands": [[], []],
                          "stock": ["KC", "9D", "2S", "3S", "4S", "5S"]})
    assert st.hands == [["KC"], ["9D"]] and st.table == ["2S", "3S", "4S", "5S"]
    assert st.stock == []


def test_deal_never_gives_a_card_twice():
    """C-deal: dealing a stock too short for its round gives each card once (an equal share
    each, the rest to the table), never a negative share."""
    from casino_env.engine.dealing import deal

    for n in range(0, 9):
        stock = tuple(range(n))
        for first in (True, False):
            hands, rest, table = deal((0, 0), stock, 2, 1, first)
            held = [c for h in hands for c in range(52) if h >> c & 1]
            on_table = [c for c in range(52) if table >> c & 1]
            assert sorted(held + on_table + list(rest)) == list(stock), (n, first)


@pytest.mark.parametrize(("variant", "events", "pattern"), [
    ("tuxedo", [[0, "bogus", 1000]], r"^events\[0\]: 'bogus' is not an event of 'tuxedo' "
     r"\(its events: sweep, orange, orange call, false call\)"),
    ("tuxedo", [[0, "sweep", 7]], r"^events\[0\]: 'sweep' scores 5 or 10 points here, got 7"),
    ("tuxedo", [[1, "false call", 10]], r"^events\[0\]: 'false call' scores -10 points"),
    ("krypkasino", [[0, "tabbe", 1]], r"^events\[0\]: 'tabbe' scores 5 points here, got 1"),
    ("krypkasino", [[0, "tabbe credit", 5]], r"'tabbe credit' scores -5 points"),
    ("casino", [[0, "sweep", 1]], r"^events\[0\]: 'sweep' is not an event of 'casino' "
     r"\(its events: none\)"),
    ("casino", 5, r"^events: must be a list of \[side, item, points\], got 5"),
    ("casino", None, r"^events: must be a list"),
])
def test_events_name_the_rules_items_and_their_points(variant, events, pattern):
    """V-tux-score, V-kryp-score: a spec's scoring events are the rules' own (tuxedo's sweeps,
    oranges and calls; krypkasino's tabbes and their credits) with their points; an invented
    item or amount is refused (it used to be scored as written)."""
    hands = [["3R"], ["4Y"]] if variant == "tuxedo" else [["3H"], ["4H"]]
    bad({"variant": variant, "players": 2, "hands": hands, "events": events}, pattern)


def test_events_the_rules_make_are_accepted():
    st = State.from_spec({"variant": "tuxedo", "players": 2, "hands": [["3R"], ["4Y"]],
                          "events": [[0, "sweep", 5], [1, "orange", 10], [0, "false call", -10]]})
    assert st.to_spec()["events"] == [[0, "sweep", 5], [1, "orange", 10], [0, "false call", -10]]
    st = State.from_spec({"variant": "krypkasino", "players": 2, "hands": [["3H"], ["4H"]],
                          "events": [[0, "dubbeltabbe", 10], [1, "dubbeltabbe credit", -10]]})
    assert len(st.to_spec()["events"]) == 2


@pytest.mark.parametrize(("key", "value", "pattern"), [
    ("proven", 5, r"^proven: must be a list of 2 lists of values, got 5"),
    ("rules", [], r"^rules: must be a dict of rule switches, got \[\]"),
    ("rules", 0, r"^rules: must be a dict of rule switches, got 0"),
    ("rules", "", r"^rules: must be a dict of rule switches"),
])
def test_wrong_types_are_named_not_ignored(key, value, pattern):
    """A field of the wrong type is named (``proven=5`` crashed inside; ``rules=[]`` or ``0``
    was taken as no switches)."""
    bad(base(**{key: value}), pattern)
