"""Rule tests for the house switches of RULES.md section 4: V-points (switch `points`, a table
of points per scoring item on any preset), and how the house switches (V-points,
V-spade-bicycle's `bicycle`, V-hun-cut's `cut`) reach the rest of the project: the spec, the
observation layout, the environment's rewards, the OpenSpiel game and the heuristic agent's
card values. The rules of `bicycle` and `cut` themselves are tested in
tests/test_rules_spade_wippen.py and tests/test_rules_hungarian.py. Seed: docs/rules.md
"House switches".
"""

from __future__ import annotations

import json
from functools import partial

import numpy as np
import pytest
from rules_helpers import DECK, end_hand, mk, split

import casino_env
from agents.scripted import HeuristicAgent
from agents.valuation import rules_values
from casino_env.encoding import Layout
from casino_env.engine import Rules, State, apply_move, describe_variant, new_game
from casino_env.engine.rules import ItemPoints, make_rules
from casino_env.engine.scoring import awards
from casino_env.engine.view import PlayerView

# Side 0 (31 cards with the residue 3H): most cards, 10D, AH; side 1 (21 cards): every
# spade (most spades), 2S, AS, AD, AC. C-score: 6 and 5.
SIX_FIVE = split(30, ["10D", "AH"])
EVERYTHING = [[c for c in DECK if c != "3H"], []]
STOCK = ["8D", "8H", "10C", "JH", "JC", "QC"]  # a small stock: the hand goes on
ROOK = [f"{n}{c}" for n in range(1, 11) for c in "RYGB"]
ROOK_PLAIN = [c for c in ROOK if not c.startswith("5")]
tux_end = partial(end_hand, variant="tuxedo", last="3G")
tux_split = partial(split, hold=("3G",), deck=ROOK, plain=ROOK_PLAIN)


def points(**table: int) -> dict:
    return {"points": table}


# -- V-points: scoring ----------------------------------------------------------------------------

def test_v_points_table_replaces_the_presets_values():
    """V-points: each item named in the table scores its points instead of the preset's."""
    assert end_hand(SIX_FIVE, [0, 0]).hand_points == [6, 5]
    rules = points(cards=2, spades=2, big_casino=3, little_casino=2, aces=2)
    # side 0: cards 2, 10D 3, AH 2 = 7; side 1: spades 2, 2S 2, AS AD AC 6 = 10
    assert end_hand(SIX_FIVE, [0, 0], rules=rules).hand_points == [7, 10]


@pytest.mark.parametrize("preset,values", [
    ("casino", (3, 1, 2, 1, 1, 0, 0)), ("royal", (3, 1, 2, 1, 1, 0, 0)),
    ("dominican", (3, 1, 2, 1, 1, 1, 0)), ("hungarian", (3, 1, 2, 1, 1, 1, 0)),
    ("tuxedo", (15, 0, 0, 0, 0, 0, 0)), ("spade", (3, 1, 2, 1, 1, 0, 0)),
    ("wippen", (2, 2, 2, 1, 1, 1, 0)), ("swedish", (1, 2, 2, 1, 1, 1, 1)),
    ("finnish", (1, 2, 2, 1, 1, 1, 0)), ("swazi", (2, 2, 2, 1, 1, 0, 0)),
    ("krypkasino", (0, 1, 3, 2, 1, 5, 0)),
])
def test_v_points_preset_values_are_the_documented_ones(preset, values):
    """V-points: the preset values the switch replaces, as docs/rules.md's table and the line
    under it give them (cards, spades, big_casino, little_casino, aces, sweep, last_capture;
    a sweep or last capture scores only with its switch on)."""
    assert tuple(make_rules(preset, 2).item_points) == values


def test_v_points_items_not_named_keep_the_presets_values():
    """V-points: an item the table leaves out keeps the preset's value."""
    # side 0: cards 1, 10D 2, AH 1 = 4; side 1: 5 as in C-score
    assert end_hand(SIX_FIVE, [0, 0], rules=points(cards=1)).hand_points == [4, 5]


def test_v_points_item_worth_zero_scores_nothing_and_is_not_listed():
    """V-points (decision): an item set to 0 scores nothing and is left out of the awards."""
    st = end_hand(SIX_FIVE, [0, 0], rules=points(aces=0))
    assert st.hand_points == [5, 2]  # 3 + 2; spades 1 + 2S 1
    r = st.rules
    piles = (r.deck.mask(SIX_FIVE[0] + ["3H"]), r.deck.mask(SIX_FIVE[1]))
    assert awards(r, piles, (0, 0)) == [("cards", 0, 3), ("spades", 1, 1), ("10D", 0, 2),
                                        ("2S", 1, 1)]


def test_v_points_nagy_agreed_values_in_hungarian():
    """V-points: Nagy's agreed values, most spades 2 and most cards 2, in `hungarian`."""
    rules = points(spades=2, cards=2)
    st = end_hand(SIX_FIVE, [0, 0], rules=rules, variant="hungarian")
    # side 0: cards 2, 10D 2, AH 1 = 5; side 1: spades 2, 2S 1, three aces 3 = 6
    assert st.hand_points == [5, 6]
    assert end_hand(SIX_FIVE, [0, 0], variant="hungarian").hand_points == [6, 5]


def test_v_points_sweeps():
    """V-points: each sweep scores the table's `sweep` points (switch `sweeps` on)."""
    st = end_hand(EVERYTHING, [0, 0], rules={"sweeps": True, **points(sweep=3)}, sweeps=[2, 1])
    assert st.hand_points == [11 + 6, 3]


def test_v_points_nagy_first_play_sweep_scores_twice_the_sweep_value():
    """V-points (decision): Nagy's sweep of the four initial cards counts two sweeps, so it is
    worth twice the `sweep` points."""
    hands = [["7S", "KH", "QH"], ["9C", "8C", "JD"]]
    table = ["2H", "5D", "3C", "4H"]
    used = set(table) | {c for h in hands for c in h}
    st = mk(hands, table, variant="hungarian", stock=[c for c in DECK if c not in used],
            rules={"nagy": True, "claims": True, **points(sweep=3)})
    after = apply_move(st, "7S captures 2H+3C+4H+5D")
    assert after.sweeps == (2, 0)
    assert ("sweeps", 0, 6) in awards(after.rules, after.pile_masks, after.sweeps)


def test_v_points_last_capture():
    """V-points: with V-last-capture the hand's last capture scores the table's points."""
    rules = {"last_capture": True, **points(last_capture=3, cards=3)}
    # side 0: cards 3, 10D 2, AH 1, last capture 3 = 9; side 1: 5
    assert end_hand(SIX_FIVE, [0, 0], rules=rules).hand_points == [9, 5]
    assert end_hand(SIX_FIVE, [0, 0], rules={"last_capture": True}).hand_points == [6, 5]


def test_v_points_spade_casino_points_a_spade():
    """V-points (decision): in `spade` the `spades` item is the points of each spade; the
    JS's extra point (and Bicycle's AS and 2S) stay 1."""
    # cards 3, 13 spades x 2, JS 1, 2S 1, four aces 4, 10D 2
    st = end_hand(EVERYTHING, [0, 0], variant="spade", rules=points(spades=2))
    assert st.hand_points == [37, 0]
    st = end_hand(EVERYTHING, [0, 0], variant="spade", rules={"bicycle": True,
                                                              **points(spades=2)})
    assert st.hand_points == [39, 0]


def test_v_points_wippen_and_tuxedo():
    """V-points: Wippen's most cards at 3 (12 a hand); Tuxedo's most cards at 20."""
    assert end_hand(EVERYTHING, [0, 0], variant="wippen",
                    rules=points(cards=3)).hand_points == [12, 0]
    assert tux_end(tux_split(21, ["5R", "5Y"]), [0, 0]).hand_points == [25, 10]
    st = tux_end(tux_split(21, ["5R", "5Y"]), [0, 0], rules=points(cards=20))
    assert st.hand_points == [30, 10]


def test_v_points_earned_wins_count_the_table():
    """V-points with V-earned (Hungarian's default): points count as earned at the table's
    values, so the 10D at 3 takes 8 to 11 during play."""
    hands, table = [["10H", "4C"], ["2C", "5D"]], ["10D", "3H"]
    st = mk(hands, table, variant="hungarian", scores=[8, 4], stock=STOCK,
            rules=points(big_casino=3))
    after = apply_move(st, "10H captures 10D")
    assert after.game_over and after.winner == 0 and after.scores == [11, 4]
    st = mk(hands, table, variant="hungarian", scores=[8, 4], stock=STOCK)
    assert not apply_move(st, "10H captures 10D").game_over


@pytest.mark.parametrize("table,winner", [({}, 0), ({"cards": 2}, 1)])
def test_v_points_count_out_uses_the_table(table, winner):
    """V-points with V-countout (`royal`): items are counted in the usual order at the
    table's values. From 18-20, most cards at 3 takes side 0 to 21 first; at 2 it leaves it on
    20, and side 1's most spades gets there first."""
    st = end_hand(SIX_FIVE, [18, 20], variant="royal", rules=points(**table))
    assert min(st.scores) >= 21 and st.game_over and st.winner == winner


# -- V-points: the switch -------------------------------------------------------------------------

@pytest.mark.parametrize("variant,value,match", [
    ("casino", {"kings": 1}, r"rule switch 'points': unknown item 'kings' \(items: cards, "
                             r"spades, big_casino, little_casino, aces, sweep, last_capture\)"),
    ("casino", {"cards": -1}, "rule switch 'points': item 'cards' must be an int >= 0, got -1"),
    ("casino", {"aces": 1.5}, "rule switch 'points': item 'aces' must be an int >= 0, got 1.5"),
    ("casino", {"aces": True}, "rule switch 'points': item 'aces' must be an int >= 0, got True"),
    ("casino", 3, "rule switch 'points' must be dict, got 3"),
    ("casino", {"sweep": 2}, "rule switch 'points': item 'sweep' needs rule switch 'sweeps'"),
    ("spade", {"last_capture": 2}, "rule switch 'points': item 'last_capture' needs rule "
                                   "switch 'last_capture'"),
    ("tuxedo", {"aces": 1}, "rule switch 'points': item 'aces' does not apply to 'tuxedo' "
                            r"\(it does not score 'aces'"),
    ("tuxedo", {"sweep": 5}, "rule switch 'points': item 'sweep' does not apply to 'tuxedo' "
                             r"\(its sweeps score 10 or 5 by their size"),
    ("dominican", {"cards": 2}, "rule switches 'points' and 'dom_end': item 'cards' must stay "
                                "3"),
    ("dominican", {"big_casino": 3}, "item 'big_casino' must stay 2"),
    ("dominican", {"spades": 2}, "item 'spades' must stay 1"),
])
def test_v_points_bad_tables_refused(variant, value, match):
    """V-points: an unknown item, points that are not an int >= 0, an item the game does not
    score, or (with V-dom-end) a criterion's item at another value raise ValueError naming
    the problem."""
    with pytest.raises(ValueError, match=match):
        new_game(variant, 2, seed=1, points=value)


def test_v_points_refused_in_a_spec_names_the_field():
    """V-points: a spec's bad table is refused with the `rules` field named."""
    with pytest.raises(ValueError, match="rules: rule switch 'points': unknown item 'kings'"):
        State.from_spec({"variant": "casino", "players": 2, "hands": [["2C"], ["3C"]],
                         "rules": {"points": {"kings": 1}}})


def test_v_points_accepted_with_dom_end_when_criteria_keep_their_values():
    """V-points with V-dom-end: items outside the restrictions' criteria may change (the 2S
    too when no side at 20 needs it, spades with `twenty_by_two_spades` alone)."""
    assert new_game("dominican", 2, seed=1, points={"aces": 2}).rules.item_points.aces == 2
    assert new_game("dominican", 2, seed=1, points={"little_casino": 2, "cards": 3}).rules.points \
        == (("cards", 3), ("little_casino", 2))
    st = new_game("dominican", 2, seed=1, twenty_by_two_spades=True, points={"spades": 2})
    assert st.rules.item_points.spades == 2
    with pytest.raises(ValueError, match="item 'little_casino' must stay 1"):
        new_game("dominican", 2, seed=1, twenty_by_two_spades=True, points={"little_casino": 2})
    with pytest.raises(ValueError, match="item 'spades' must stay 1"):  # V-soto's 17
        new_game("dominican", 2, seed=1, twenty_by_two_spades=True, soto=True,
                 points={"spades": 2})


def test_v_points_rules_store_sorted_pairs():
    """V-points (decision): Rules keeps the table as sorted (item, points) pairs, so rules
    compare and hash alike whatever the dict's order; `switches()` gives the dict back."""
    a = make_rules("casino", 2, None, {"points": {"spades": 2, "cards": 2}})
    b = make_rules("casino", 2, None, {"points": {"cards": 2, "spades": 2}})
    assert a.points == (("cards", 2), ("spades", 2)) and a == b and hash(a) == hash(b)
    assert a.switches()["points"] == {"cards": 2, "spades": 2}
    assert a.item_points == ItemPoints(cards=2, spades=2, big_casino=2, little_casino=1, aces=1,
                                       sweep=0, last_capture=0)
    assert Rules(points={"cards": 2}).points == (("cards", 2),)
    assert make_rules("casino", 2, None, {"points": {}}) == make_rules("casino", 2)


def test_v_points_item_points_of_each_preset():
    """V-points: the points in force per item, the preset's where the table is silent."""
    want = {
        "casino": (3, 1, 2, 1, 1, 0, 0), "royal": (3, 1, 2, 1, 1, 0, 0),
        "dominican": (3, 1, 2, 1, 1, 1, 0), "hungarian": (3, 1, 2, 1, 1, 1, 0),
        "tuxedo": (15, 0, 0, 0, 0, 0, 0), "spade": (3, 1, 2, 1, 1, 0, 0),
        "wippen": (2, 2, 2, 1, 1, 1, 0),
        "swedish": (1, 2, 2, 1, 1, 1, 1), "finnish": (1, 2, 2, 1, 1, 1, 0),  # V-swe/fin-score
    }
    for variant, pts in want.items():
        assert tuple(make_rules(variant, 2).item_points) == pts, variant
    r = make_rules("casino", 2, None, {"sweeps": True, "last_capture": True,
                                       "points": {"sweep": 4}})
    assert tuple(r.item_points) == (2, 1, 2, 1, 1, 4, 1)


def test_v_points_spec_round_trip():
    """V-points: the table is a dict in the spec's rules, JSON round-trips, and is left out of
    the spec when not set."""
    st = new_game("casino", 2, seed=3, points={"spades": 2, "cards": 2})
    spec = st.to_spec()
    assert spec["rules"]["points"] == {"cards": 2, "spades": 2}
    back = State.from_spec(json.loads(json.dumps(spec)))
    assert back == st and back.rules.points == (("cards", 2), ("spades", 2))
    assert "points" not in new_game("casino", 2, seed=3).to_spec()["rules"]
    assert "points" not in new_game("casino", 2, seed=3, points={}).to_spec()["rules"]


def test_v_points_describe_variant():
    """V-points: every preset lists the switch, default {} (no table)."""
    for variant in ("casino", "royal", "dominican", "hungarian", "tuxedo", "spade", "wippen",
                    "swedish", "finnish"):
        info = describe_variant(variant)["switches"]["points"]
        assert info["default"] == {} and "V-points" in info["doc"]


# -- the house switches in the environment ---------------------------------------------------------

def test_house_segments_only_when_a_house_switch_is_on():
    """V-points, V-spade-bicycle, V-hun-cut: layouts without house switches keep their size
    (1,227 and 257 for 2-player casino, compose mode); a house switch adds the full layout's
    `house` segment (the bicycle and cut flags and the points in force / 10), and `cut` the
    52-slot `cut` segment."""
    plain = make_rules("casino", 2)
    assert Layout(plain, True).size == 1227 and Layout(plain, True, "compact").size == 257
    r = make_rules("casino", 2, None, {"points": {"cards": 2, "aces": 15}})
    full = Layout(r, True)
    assert full.size == 1227 + 9 and Layout(r, True, "compact").size == 257
    st = new_game("casino", 2, seed=1, points={"cards": 2, "aces": 15})
    out = np.zeros(full.size, np.float32)
    full.encode(st, 0, out)
    o = full.offset["house"]
    assert o == full.offset["target"] + 1
    assert out[o:o + 9].tolist() == pytest.approx([0, 0, 0.2, 0.1, 0.2, 0.1, 1.0, 0, 0])
    st = new_game("spade", 2, seed=1, bicycle=True)
    lay = Layout(st.rules, False)
    out = np.zeros(lay.size, np.float32)
    lay.encode(st, 1, out)
    o = lay.offset["house"]
    assert out[o:o + 9].tolist() == pytest.approx([1, 0, 0.3, 0.1, 0.2, 0.1, 0.1, 0, 0])


def test_house_env_observation_spaces():
    """The AEC environment's observation space follows the layout with house segments."""
    for kw in ({"variant": "hungarian", "ulmann": True, "cut": True},
               {"variant": "spade", "bicycle": True},
               {"variant": "royal", "points": {"aces": 2}}):
        env = casino_env.raw_env(**kw)
        env.reset(seed=2)
        size = Layout(env.rules, True).size
        for agent in env.agents:
            assert env.observation_space(agent)["observation"].shape == (size,)
            assert env.observe(agent)["observation"].shape == (size,)


def test_house_bicycle_double_game_doubles_the_win_reward():
    """V-spade-bicycle: the environment's win reward is 2 / -2 when the loser ends under 31."""
    piles = EVERYTHING
    spec = {"variant": "spade", "players": 2, "rules": {"bicycle": True}, "dealer": 1,
            "current": 1, "hands": [[], ["3H"]], "stock": [], "piles": piles,
            "scores": [35, 30], "last_capturer": 0, "seed": 7}
    env = casino_env.raw_env(variant="spade", bicycle=True, episode="game", reward="win")
    env.reset(seed=0, options={"state": spec})
    for a in env.action_for("3H trails"):
        env.step(a)
    assert env.state.game_over and env.state.stake == 2
    assert env.rewards == {"player_0": 2.0, "player_1": -2.0}


def test_house_cut_encode_view_matches_the_environment():
    """V-hun-cut: an agent's observation built from its PlayerView (agents.ppo.encode_view)
    is the environment's, the cut card included, for both seats."""
    pytest.importorskip("sb3_contrib")
    from agents.ppo import encode_view

    st = new_game("hungarian", 2, seed=5, ulmann=True, cut=True)
    for kind in ("full", "compact"):
        layout = Layout(st.rules, False, kind)
        o = layout.offset["cut"]
        for seat, shown in ((0, [st.stock_ids[-1]]), (1, [])):  # seat 1 deals
            env_obs = np.zeros(layout.size, np.float32)
            layout.encode(st, seat, env_obs)
            assert np.flatnonzero(env_obs[o:o + 52]).tolist() == shown
            mine = encode_view(layout, PlayerView(st, seat), np.zeros(layout.size, np.float32))
            assert np.array_equal(mine, env_obs)


def test_house_openspiel_parameters():
    """OpenSpiel: `bicycle` and `cut` are on/off parameters; `points` is not a parameter
    (documented: OpenSpiel's game strings hold no dicts)."""
    pyspiel = pytest.importorskip("pyspiel")
    import casino_env.openspiel  # noqa: F401

    game = pyspiel.load_game("python_casino", {"variant": "spade", "bicycle": "on"})
    assert game.rules.bicycle and game.rules.target == 61
    game = pyspiel.load_game("python_casino", {"variant": "hungarian", "ulmann": "on",
                                               "cut": "on"})
    assert game.rules.cut
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'points'"):
        pyspiel.load_game("python_casino", {"variant": "casino", "points": "cards"})


# -- the heuristic agent reads the scoring in force ----------------------------------------------

def test_house_heuristic_card_values_follow_the_scoring():
    """The heuristic values cards by the rules' scoring: Bicycle's AS and 2S are worth 3
    (ace or little casino 1, spade 2), the JS 2; a points table's values; a sweep's points."""
    names = DECK
    spade = rules_values(make_rules("spade", 2)).direct
    bicycle = rules_values(make_rules("spade", 2, None, {"bicycle": True})).direct
    for card, plain, bike in (("AS", 2, 3), ("2S", 2, 3), ("JS", 2, 2), ("5S", 1, 1),
                              ("10D", 2, 2), ("AH", 1, 1), ("7H", 0, 0)):
        assert (spade[names.index(card)], bicycle[names.index(card)]) == (plain, bike), card
    table = rules_values(make_rules("casino", 2, None, {"sweeps": True, "points": {
        "aces": 3, "big_casino": 0, "little_casino": 4, "sweep": 2}}))
    assert [table.direct[names.index(c)] for c in ("AH", "10D", "2S", "7H")] == [3, 0, 4, 0]
    assert table.sweep_points == 2.0
    assert rules_values(make_rules("casino", 2, None, {"sweeps": True})).sweep_points == 1.0
    assert rules_values(make_rules("casino", 2, None, {"last_capture": True, "points": {
        "last_capture": 3}})).last_capture_points == 3.0


@pytest.mark.parametrize("table,move", [(None, "AC captures AD"),
                                        ({"big_casino": 5}, "10C captures 10D")])
def test_house_heuristic_plays_for_the_table(table, move):
    """The heuristic chooses by the points in force: with C-score it takes the two aces, with
    the 10D worth 5 the 10D."""
    rules = {"points": table} if table else {}
    st = mk([["10C", "AC", "6H"], ["7D", "8D", "9H"]], ["10D", "AD", "KS"],
            stock=["2H", "3H", "4H", "5H", "6D", "7C"], rules=rules)
    assert str(HeuristicAgent(seed=0).choose(PlayerView(st, 0))) == move
