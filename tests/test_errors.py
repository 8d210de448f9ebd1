"""Illegal-move errors say once, in the player's words, why a move breaks which rule.

``str(err)`` is ``<move>: <reason> (rule <id>; see docs/rules.md#<id lower-cased>)``;
``err.rule``, ``err.reason`` and ``err.move`` carry the parts (issue 16 item 5). One position
per distinct reason the engine gives (C-turn, C-capture, C-build and its sub-rules, C-face,
C-one-per-value, C-owner-trail, C-trail, C-deck, C-game, V-build-loose, V-dom-trail,
V-dom-build, V-partner-build, V-hun-play, V-hun-end, V-tux-score).
"""

from __future__ import annotations

import pickle

import pytest
from rules_helpers import build as b
from rules_helpers import spec

from casino_env.engine import IllegalMoveError, Move, State, apply_move

LOOSE = {"build_loose": True}

# (name, position, move, rule id, reason): every distinct reason the engine gives.
CASES = [
    ("game over", spec([["5H"], ["6H"]], scores=[23, 3], winner=0), "5H trails",
     "C-game", "the game is over (side 0 won)"),
    ("other deck", spec([["5H"], ["6H"]]), Move("trail", "5R"),
     "C-deck", "5R is not a card of this game, which uses the standard deck (AS, ..., KC)"),
    ("claims off", spec([["5H"], ["6H"]]), "claims the game",
     "V-hun-end", "claiming the game needs the rule switch 'claims', which is off in this game"),
    ("claim with cards", spec([["5H"], ["6H"]], variant="hungarian",
                              rules={"claims": True}), Move("claim", ["5H"]),
     "V-hun-end", "a claim plays no cards"),
    ("calls off", spec([["5G"], ["6G"]], variant="tuxedo"), "calls orange",
     "V-tux-score", "calling orange needs the rule switch 'orange_calls', which is off in this "
     "game"),
    ("orange trail", spec([["5G"], ["6G"]], variant="tuxedo",
                          rules={"orange_calls": True}), Move("trail", "5G", orange=True),
     "V-tux-score", "only a capture may call orange, not a trail"),
    ("call with cards", spec([["5G"], ["6G"]], variant="tuxedo",
                             rules={"orange_calls": True}), Move("call", ["5G"]),
     "V-tux-score", "a call plays no cards"),
    ("call by other seat", spec([["5G"], ["6G"]], variant="tuxedo", rules={"orange_calls": True},
                                pending_orange=1), "calls orange",
     "V-tux-score", "only seat 1 may call the missed orange"),
    ("no orange", spec([["5G"], ["6G"]], variant="tuxedo",
                       rules={"orange_calls": True}), "calls orange",
     "V-tux-score", "there is no missed orange to call: only the next player may call one, on "
     "their next turn, before they play"),
    ("no card", spec([["5H"], ["6H"]], ["5S"]), Move("capture", (), ["5S"]),
     "C-turn", "a turn plays a card from hand, and this capture names none"),
    ("not held", spec([["5H"], ["KS"]], ["KD"]), "KS captures KD",
     "C-turn", "seat 0 does not hold KS"),
    ("not held two", spec([["5H"], ["KS", "QS"]], ["KD"]), Move("capture", ["KS", "QS"], ["KD"]),
     "C-turn", "seat 0 does not hold QS and KS"),
    ("two cards", spec([["5H", "6H"], ["KS"]]), Move("trail", ["5H", "6H"]),
     "C-turn", "a turn plays exactly one card from hand, not 2"),
    ("not on table", spec([["5H"], ["KS"]], ["5S"]), "5H captures 5C",
     "C-capture", "5C is not on the table"),
    ("inside build", spec([["8H", "5D"], ["KS"]], [b(["3S", "5C"], 8, 0)]), "5D captures 5C",
     "C-capture", "5C is in the build of 8 (3S+5C), which moves only as a whole"),
    ("partner flag", spec([["5H"], ["KS"]],
                          ["5S"]), Move("capture", "5H", ["5S"], for_partner=True),
     "V-partner-build", "only a build is made for partner, not a capture"),
    # trails
    ("trail build switch off", spec([["KD", "8S"], ["KS"]],
                                    ["3S", "5C"]), "KD trails and builds 8 on 3S+5C",
     "C-trail", "a trail puts the card on the table and takes nothing; trailing and building in "
     "one turn needs the rule switch 'build_loose' (V-build-loose)"),
    ("owner trails", spec([["8H", "2D"], ["KS"]], [b(["3S", "5C"], 8, 0)]), "2D trails",
     "C-owner-trail", "seat 0 owns the build of 8 and may not trail: capture or build instead"),
    ("dom trail", spec([["8H", "2D"], ["KS"]], ["8S"], variant="dominican"), "8H trails",
     "V-dom-trail", "8H matches the loose 8S, so it must capture or build, not trail"),
    ("keep trail", spec([["8H", "2D"], ["KS"]], [b(["3S", "5C"], 8, 0)],
                        rules={"owner_may_trail": True}), "8H trails",
     "C-build-keep", "after playing 8H, seat 0 would hold no card to capture its build of 8"),
    ("loose no value", spec([["KD", "8S"], ["KS"]], ["3S", "5C"],
                            rules=LOOSE), Move("trail", "KD", ["3S", "5C"]),
     "V-build-loose", "a trail that builds needs the build's value"),
    ("loose value range", spec([["KD", "8S"], ["KS"]], ["3S", "5C"],
                               rules=LOOSE), Move("trail", "KD", ["3S", "5C"], 15),
     "V-build-loose", "a build's value is 1 to 10, not 15"),
    ("loose dom build", spec([["KD", "8S"], ["KS", "8C"]], ["3C", b(["3S", "5C"], 8, 1)],
                             variant="royal",
                             rules={"build_loose": True, "dom_build": True}),
     "KD trails and builds 8 on 3S+3C+5C",
     "V-dom-build", "cards added to a build include the card played, so a trail may only make a "
     "new build, not add to the build of 8"),
    ("loose one per value", spec([["KD", "8S"], ["KS", "8C"]], ["3S", "5C", b(["2D", "6D"], 8, 1)],
                                 rules=LOOSE), "KD trails and builds 8 on 3S+5C",
     "C-one-per-value", "a build of 8 (2D+6D) is on the table already: a new set of 8 joins it, "
     "it may not lie beside it"),
    ("loose same build", spec([["KD", "9S"], ["KS", "8C"]], ["AS", b(["3S", "5C"], 8, 1)],
                              variant="royal", rules=LOOSE), "KD trails and builds 9 on 3S+5C",
     "V-build-loose", "3S+5C is the build of 8 already, and a trail does not change its value"),
    ("loose one card", spec([["KD", "8S"], ["KS"]], ["8C"],
                            rules=LOOSE), "KD trails and builds 8 on 8C",
     "V-build-loose", "a new build of table cards needs two cards or more, not KD's trail with "
     "8C alone"),
    ("loose nothing added", spec([["KD", "8S"], ["KS", "8C"]], ["3H", b(["3S", "5C"], 8, 1)],
                                 rules=LOOSE), Move("trail", "KD", ["3S", "5C"], 8),
     "V-build-loose", "nothing would be added to the build of 8"),
    ("loose sum", spec([["KD", "9S"], ["KS"]], ["3S", "5C"],
                       rules=LOOSE), "KD trails and builds 9 on 3S+5C",
     "V-build-loose", "3 + 5 is 8, not 9"),
    ("loose no holder", spec([["KD", "9S"], ["KS"]], ["3S", "5C"],
                             rules=LOOSE), "KD trails and builds 8 on 3S+5C",
     "V-build-loose", "after trailing KD, seat 0 would hold no card of value 8 to capture the "
     "build"),
    ("loose keep", spec([["8H", "7C"], ["KS"]], ["3S", "4D", b(["4S", "4C"], 8, 0)],
                        rules={"build_loose": True, "owner_may_trail": True}),
     "8H trails and builds 7 on 3S+4D",
     "C-build-keep", "after playing 8H, seat 0 would hold no card to capture its build of 8"),
    # captures
    ("capture nothing", spec([["5H"], ["KS"]], ["5S"]), Move("capture", "5H"),
     "C-capture", "a capture takes at least one table card or build, and this one names none"),
    ("face one", spec([["KH"], ["2S"]], ["KS", "3D"]), "KH captures 3D+KS",
     "C-face", "KH has no number value: it captures exactly one loose K and nothing else"),
    ("face none loose", spec([["KH"], ["2S"]], ["QS", "3D"]), "KH captures 3D",
     "C-face", "KH has no number value: it captures exactly one loose K and nothing else, and no "
     "K lies loose on the table"),
    ("face value", spec([["KH"], ["2S"]], ["KS"]), Move("capture", "KH", ["KS"], 13),
     "C-capture", "KH has no number value, so it does not capture as 13"),
    ("face on table", spec([["9H"], ["2S"]], ["KS", "3D"]), "9H captures 3D+KS",
     "C-face", "KS has no number value: only a K captures it"),
    ("capture value", spec([["AH"], ["2S"]], ["AS"],
                           variant="royal"), Move("capture", "AH", ["AS"], 7),
     "C-capture", "AH counts 1 or 14, not 7"),
    ("capture build value", spec([["7H", "8C"], ["2S", "8D"]],
                                 ["4C", b(["3S", "5C"], 8, 1)]), "7H captures 3S+4C+5C",
     "C-capture", "the build of 8 is captured only by a card of value 8, and 7H counts 7"),
    ("capture one card", spec([["7H"], ["2S"]], ["5S"]), "7H captures 5S",
     "C-capture", "5S counts 5, not 7"),
    ("capture sum", spec([["7H"], ["2S"]], ["2D", "3S"]), "7H captures 2D+3S",
     "C-capture", "2 + 3 is 5, not 7"),
    ("capture split", spec([["7H"], ["2S"]], ["5D", "9S"]), "7H captures 5D+9S",
     "C-capture", "5 + 9 is 14, which does not split into sets of 7"),
    ("capture ace reading", spec([["AH"], ["2S"]], ["6S", "8S"],
                                 variant="royal"), Move("capture", "AH", ["6S", "8S"], 1),
     "C-capture", "AH takes 6S+8S only counted as 14, not 1"),
    ("capture dom trail", spec([["4S", "2H"], ["2S"]], ["4D", "AC", "3S"],
                               variant="dominican"), "4S captures AC+3S",
     "V-dom-trail", "a capture with 4S must take every loose card of its rank, and this one "
     "leaves 4D"),
    ("capture keep", spec([["8H", "3C"], ["2S"]], ["8D", b(["4S", "4C"], 8, 0)]), "8H captures 8D",
     "C-build-keep", "after playing 8H, seat 0 would hold no card to capture its build of 8"),
    # builds
    ("build with face", spec([["QH", "8C"], ["2S"]], ["3D"]), "QH builds 8 on 3D",
     "C-face", "QH has no number value, so it never makes or joins a build"),
    ("build no value", spec([["5H", "8C"], ["2S"]], ["3D"]), Move("build", "5H", ["3D"]),
     "C-one-per-value", "a build must name its value"),
    ("build value range", spec([["5H", "8C"], ["2S"]], ["3D"]), Move("build", "5H", ["3D"], 11),
     "C-one-per-value", "a build's value is 1 to 10, not 11"),
    ("build alone", spec([["5H", "8C"], ["2S"]], ["3D"]), Move("build", "5H", (), 5),
     "C-build", "5H alone makes no build: a build combines the played card with table cards"),
    ("build face on table", spec([["5H", "8C"], ["2S"]],
                                 ["3D", "JD"]), Move("build", "5H", ["3D", "JD"], 8),
     "C-face", "JD has no number value and never joins a build"),
    ("partner off", spec([["5H", "8C"], ["2S"], ["3S"], ["4S"]], ["3D"],
                         partnerships=True), "5H builds 8 on 3D for partner",
     "V-partner-build", "you may not build for your partner (only with the rule switch "
     "'partner_build')"),
    ("build no holder", spec([["5D"], ["2S"]], ["3H"], variant="royal"), "5D builds 13 on 3H",
     "C-build", "besides 5D, seat 0 holds no card of value 13 to capture the build with"),
    ("build one per value", spec([["5H", "8C"], ["2S", "8D"]],
                                 ["3D", b(["2C", "6C"], 8, 1)]), "5H builds 8 on 3D",
     "C-one-per-value", "a build of 8 (2C+6C) is on the table already: a new set of 8 joins it, "
     "it may not lie beside it"),
    ("raise two", spec([["2H", "10C"], ["2S", "3H", "4H"]],
                       [b(["AS", "2D"], 3, 1), b(["AC", "3C"], 4, 1)]),
     "2H builds 10 on AS+AC+2D+3C",
     "C-build-raise", "a move raises one build at most, and this one would change the builds of "
     "3 and 4"),
    ("raise multiple", spec([["2H", "6C"], ["4H"]],
                            [b(["AS", "3D", "4D"], 4, 1)]), "2H builds 6 on AS+3D+4D",
     "C-build-raise", "the build of 4 is a multiple build: its value never changes"),
    ("raise wrong", spec([["2H", "9C"], ["4H"]], [b(["AS", "3D"], 4, 1)]), "2H builds 9 on AS+3D",
     "C-build-raise", "2H on the build of 4 makes 4 + 2 = 6, not 9; table cards never change a "
     "single build's value"),
    ("raise with table wrong", spec([["2H", "10C"], ["4H"]], ["AD", b(["AS", "3D"], 4, 1)],
                                    rules={"raise_with_table": True}), "2H builds 10 on AS+AD+3D",
     "C-build-raise", "2H on the build of 4 makes 4 + 2 = 6, not 10, and the loose cards taken "
     "do not add the missing 4"),
    ("dom raise own", spec([["2H", "6C", "4C"], ["4H"]], [b(["AS", "3D"], 4, 0)], variant="royal",
                           rules={"dom_build": True}), "2H builds 6 on AS+3D",
     "V-dom-build", "seat 0 owns the single build of 4 and may not raise it"),
    ("raise loose sets", spec([["2H", "6C"], ["4H"]],
                              ["5S", b(["AS", "3D"], 4, 1)]), "2H builds 6 on AS+3D+5S",
     "C-build-raise", "loose cards joining the build of 6 must make sets of 6: 5S counts 5, not 6"),
    ("table alone", spec([["5H", "8C"], ["2S"]], ["3D", "5D"]), "5H builds 8 on 3D+5D",
     "C-build", "3D+5D make 8 without 5H, and table cards alone never make a build"),
    ("table alone one", spec([["5H", "8C"], ["2S"]], ["8D"]), "5H builds 8 on 8D",
     "C-build", "8D is 8 without 5H, and table cards alone never make a build"),
    ("build sum", spec([["5D", "KC"], ["2S"]], ["3H"], variant="royal"), "5D builds 13 on 3H",
     "C-build", "5 + 3 is 8, not 13"),
    ("build split", spec([["2D", "4C"], ["2S"]], ["7C"]), "2D builds 4 on 7C",
     "C-build", "2 + 7 is 9, which does not split into sets of 4"),
    ("extend", spec([["5H", "8C"], ["2S", "8D"]],
                    ["2D", b(["3S", "5C"], 8, 1)]), "5H builds 8 on 2D+3S+5C",
     "C-build-extend", "to join the build of 8, 5H and the loose cards must make sets of 8: 5 + "
     "2 is 7, not 8"),
    ("dom own single", spec([["2H", "6C", "4C", "9D"], ["4H"]], [b(["AS", "3D"], 4, 0)],
                            variant="royal",
                            rules={"dom_build": True, "build_as_card": True}),
     "2H builds 6 on AS+3D",
     "V-dom-build", "seat 0 may not change the value of its own build of 4"),
    ("build keep", spec([["8H", "10C"], ["2S"]],
                        ["2D", b(["4S", "4C"], 8, 0)]), "8H builds 10 on 2D",
     "C-build-keep", "after playing 8H, seat 0 would hold no card to capture its build of 8"),
    ("partner keep", spec([["5H", "2C"], ["2S"], ["3S"], ["4S"]], ["3D"], partnerships=True,
                          rules={"partner_build": True}), "5H builds 8 on 3D for partner",
     "C-build-keep", "partner (seat 2) holds no card of value 8 to keep the build"),
    ("partner not proven", spec([["5H", "2C"], ["2S"], ["8S"], ["4S"]], ["3D"], partnerships=True,
                                rules={"partner_build": True}), "5H builds 8 on 3D for partner",
     "V-partner-build", "public play does not prove that partner (seat 2) holds a card of value 8"),
    # hungarian
    ("hun build", spec([["5H", "8C"], ["2S"]], ["3D"], variant="hungarian"), "5H builds 8 on 3D",
     "V-hun-play", "there is no building in hungarian"),
    ("hun trail takes", spec([["5H", "8C"], ["2S"]], ["3D"],
                             variant="hungarian"), Move("trail", "5H", ["3D"], 8),
     "V-hun-play", "a trail puts one card on the table and takes nothing"),
    ("hun trail two", spec([["5H", "8C"], ["2S"]], ["3D"],
                           variant="hungarian"), Move("trail", ["5H", "8C"]),
     "V-hun-play", "a trail is exactly one card, not 2"),
    ("hun capture nothing", spec([["5H", "8C"], ["2S"]], ["3D"],
                                 variant="hungarian"), Move("capture", "5H"),
     "C-capture", "a capture takes at least one table card, and this one names none"),
    ("hun not on table", spec([["5H", "8C"], ["2S"]], ["3D"],
                              variant="hungarian"), "5H captures 5D",
     "C-capture", "5D is not on the table"),
    ("hun partner", spec([["5H", "8C"], ["2S"]], ["5D"],
                         variant="hungarian"), Move("capture", "5H", ["5D"], for_partner=True),
     "V-hun-play", "a capture is never made for partner"),
    ("kovacs total", spec([["5H", "9C"], ["2S"]], ["KD", "AD"], variant="hungarian",
                          rules={"kovacs": True}), "5H+9C captures AD+KD",
     "V-hun-play", "with the Kovacs switch no combination may be above 13, and 5 + 9 is 14"),
    ("kovacs value", spec([["AH", "9C"], ["2S"]], ["AD", "KD"], variant="hungarian",
                          rules={"kovacs": True, "ace_14": True}),
     Move("capture", "AH", ["AD"], 14),
     "V-hun-play", "with the Kovacs switch no combination may be above 13, and this capture "
     "counts 14"),
    ("hun value", spec([["5H", "8C"], ["2S"]], ["3D"],
                       variant="hungarian"), Move("capture", ["5H"], ["3D"], 3),
     "V-hun-play", "5H counts 5, not 3"),
    ("ulmann split", spec([["5H", "8C"], ["2S"]], ["6D"], variant="hungarian",
                          rules={"ulmann": True}), Move("capture", ["5H", "8C"], ["6D"], 6),
     "V-hun-play", "5 + 8 is 13, and 5H and 8C do not split into sets of 6"),
    ("hun sum", spec([["5H", "8C"], ["2S"]], ["3D", "KD"],
                     variant="hungarian"), "5H+8C captures 3D+KD",
     "V-hun-play", "5 + 8 is 13; 3 + 13 is 16, which does not split into sets of 13"),
    ("hun one", spec([["5H", "8C"], ["2S"]], ["3D"], variant="hungarian"), "5H captures 3D",
     "V-hun-play", "5H counts 5; 3D counts 3, not 5"),
]


def illegal(position: dict, move) -> IllegalMoveError:
    """The error ``move`` raises in ``position`` (which it must leave unchanged)."""
    st = State.from_spec(position)
    before = st.to_spec()
    with pytest.raises(IllegalMoveError) as info:
        apply_move(st, move)
    assert st.to_spec() == before
    return info.value


@pytest.mark.parametrize("position, move, rule, reason", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_message_names_the_move_the_reason_and_the_rule(position, move, rule, reason):
    """The exact message: the move once, why, and the rule id with its docs/rules.md anchor."""
    err = illegal(position, move)
    text = str(move).strip()
    assert (err.rule, err.reason, err.move) == (rule, reason, text)
    assert str(err) == f"{text}: {reason} (rule {rule}; see docs/rules.md#{rule.lower()})"
    assert "illegal move" not in str(err) and str(err).count(text) == 1


def test_issue_examples_word_for_word():
    """The examples of issue 16 item 5: a build whose sum is wrong (C-build) and a card that
    is not in the mover's hand (C-turn)."""
    err = illegal(spec([["5D", "KC"], ["2S"]], ["3H"], variant="royal"), "5D builds 13 on 3H")
    assert str(err) == (
        "5D builds 13 on 3H: 5 + 3 is 8, not 13 (rule C-build; see docs/rules.md#c-build)"
    )
    err = illegal(spec([["5H"], ["KS"]], ["KD"]), "KS captures KD")
    assert str(err) == (
        "KS captures KD: seat 0 does not hold KS (rule C-turn; see docs/rules.md#c-turn)"
    )


def test_every_rule_the_table_names_is_in_the_message():
    """Held-out conformance checks look for the rule id in ``str(err)``."""
    for _, position, move, rule, _ in CASES:
        assert rule in str(illegal(position, move))


def test_error_keeps_its_parts_through_pickling():
    """Worker processes (RLlib, multiprocessing) pickle exceptions: rule, reason and move
    survive."""
    err = illegal(spec([["5H"], ["KS"]], ["KD"]), "KS captures KD")
    back = pickle.loads(pickle.dumps(err))
    assert (str(back), back.rule, back.reason, back.move) == (
        str(err),
        "C-turn",
        "seat 0 does not hold KS",
        "KS captures KD",
    )


def test_error_made_by_hand_keeps_the_old_signature():
    """``IllegalMoveError(message, rule)`` still works; ``reason`` defaults to the message."""
    err = IllegalMoveError("no", "C-turn")
    assert (str(err), err.rule, err.reason, err.move) == ("no", "C-turn", "no", None)
    assert isinstance(err, ValueError)


def test_a_plain_trail_with_a_value_is_refused_for_its_value():
    """C-trail: a trail that takes nothing carries no value; the error says so (it used to
    say the card may not trail, which was legal)."""
    st = State.from_spec(spec([["5H", "9C"], ["6H"]]))
    with pytest.raises(IllegalMoveError) as err:
        apply_move(st, Move("trail", "5H", value=5))
    assert err.value.rule == "C-trail"
    assert err.value.reason == "a trail that takes nothing has no value, and this one says 5"
    assert apply_move(st, Move("trail", "5H")).table == ["5H"]


def test_nordic_builds_are_refused_in_plain_words():
    """V-nordic-play: no building in swedish, so no builds (the message read "so no a")."""
    st = State.from_spec({"variant": "swedish", "players": 2, "hands": [["3H", "8C"], ["6H"]],
                          "table": ["5S"]})
    with pytest.raises(IllegalMoveError) as err:
        apply_move(st, Move("build", "3H", ["5S"], 8))
    assert err.value.rule == "V-nordic-play"
    assert err.value.reason == "there is no building in swedish, so no builds"


@pytest.mark.parametrize(("args", "kwargs", "pattern"), [
    (("capture", 5), {}, r"^played: must be a card string or a list of card strings, got 5"),
    (("capture", "3H", None), {}, r"^taken: must be a card string or a list of card strings"),
    (("trail", "3H"), {"deck": "standard"}, r"^deck: must be a Deck .* got 'standard'"),
    (("build", "3H", ["5S"], 8), {"for_partner": "no"},
     r"^for_partner: must be true or false, got 'no'"),
    (("capture", "3H", ["3S"], 3), {"orange": "yes"}, r"^orange: must be true or false"),
])
def test_move_constructor_names_a_malformed_field(args, kwargs, pattern):
    """A Move built from malformed fields is refused naming the field (it crashed inside, or
    took the string "no" as true)."""
    with pytest.raises(ValueError, match=pattern):
        Move(*args, **kwargs)


def test_move_constructor_takes_any_collection_of_card_names():
    """``taken`` may be any collection of names (a frozenset, as ``Move.taken`` gives), and
    the flags 0/1 as well as booleans."""
    m = Move("capture", "3H", frozenset({"3S"}), 3)
    assert m == Move("capture", ("3H",), ["3S"], 3)
    assert Move("build", "3H", ["5S"], 8, for_partner=0).for_partner is False


def test_two_decks_say_a_card_is_there_only_once():
    """V-kryp-values (two copies of each card): naming a card twice where one copy lies says
    it is there only once (it said the card was not there at all)."""
    st = State.from_spec({"variant": "krypkasino", "players": 2,
                          "hands": [["5S", "9C"], ["6H"]], "table": ["5S", "3D"]})
    cases = [("5S captures 5S+5S", "C-capture", "5S is on the table only once"),
             ("9C+9C trails", "C-turn", "seat 0 holds 9C only once"),
             ("5S captures 4H", "C-capture", "4H is not on the table")]
    for text, rule, reason in cases:
        with pytest.raises(IllegalMoveError) as err:
            apply_move(st, text)
        assert (err.value.rule, err.value.reason) == (rule, reason), text
