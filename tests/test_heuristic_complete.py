"""``HeuristicAgent(complete=True)``: the heuristic's evaluation with the scoring facts the
default one leaves out (V-tux-score's oranges and sweep sizes, V-dom-end's restrictions,
V-fin-score's last-deal sweeps, V-kryp-score's first-move tabbe, C-sweep's last card, Nagy's
double first sweep, C-residue's dealer). Each position is checked against the engine
(``apply_move``'s events, sweeps and hand points), the default's move against complete's;
and the default evaluation is shown unchanged."""

from __future__ import annotations

import random

import pytest

from agents import make_agent
from agents.scripted import HeuristicAgent
from casino_env.engine import State, apply_move, legal_moves
from casino_env.engine.play import new_game
from casino_env.engine.rules import make_rules
from casino_env.engine.view import PlayerView

DECK = [r + s for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split() for s in "SHDC"]
TUX_DECK = list(make_rules("tuxedo", 2).deck.names)


def position(variant: str, hands, table, deck=None, **spec) -> State:
    """Seat 0 to move (dealer 1), the rest of ``deck`` in the stock unless given."""
    used = set(sum(hands, [])) | set(table)
    spec.setdefault("stock", [c for c in (deck or DECK) if c not in used])
    return State.from_spec({"variant": variant, "players": 2, "dealer": 1, "current": 0,
                            "hands": hands, "table": table, "seed": 3, **spec})


def picks(st: State, seat: int = 0) -> tuple[str, str]:
    """(the default heuristic's move, the complete one's)."""
    v = PlayerView(st, seat)
    return str(HeuristicAgent().choose(v)), str(HeuristicAgent(complete=True).choose(v))


def scored(st: State, seat: int = 0, **kw) -> dict[str, float]:
    v = PlayerView(st, seat)
    moves = v.legal_moves()
    return dict(zip(map(str, moves), HeuristicAgent(**kw).scores(v, moves)))


def after(st: State, move: str, **kw) -> State:
    return apply_move(st, next(m for m in legal_moves(st) if str(m) == move), **kw)


# -- V-tux-score ----------------------------------------------------------------------------

def test_tuxedo_orange_over_a_five_V_tux_score():
    """V-tux-score: 7G taking 3R+4Y is an orange (10, automatic); 5B taking 5G gets the two
    Fives (10 too, but leaves the orange on the table to the opponent's 7). The default counts
    no orange and takes the Fives."""
    st = position("tuxedo", [["5B", "7G"], ["8G", "6G"]], ["5G", "3R", "4Y"], TUX_DECK)
    assert after(st, "7G captures 3R+4Y").events == ((0, "orange", 10),)
    assert picks(st) == ("5B captures 5G", "7G captures 3R+4Y")


def test_tuxedo_small_sweep_scores_5_V_tux_score():
    """V-tux-score: a sweep of 3 table cards scores 5 (the default counts 1): 9G sweeping
    2G+3B+4B beats 5B taking 2G+3B."""
    st = position("tuxedo", [["9G", "5B"], ["8G", "7G"]], ["2G", "3B", "4B"], TUX_DECK)
    assert after(st, "9G captures 2G+3B+4B").events == ((0, "sweep", 5),)
    assert picks(st) == ("5B captures 2G+3B", "9G captures 2G+3B+4B")


def test_tuxedo_big_sweep_scores_10_V_tux_score():
    """V-tux-score: a sweep of 4 or more table cards scores 10: 10G sweeping five cards beats
    5B taking four of them (its own Five into our pile)."""
    st = position("tuxedo", [["10G", "5B"], ["8G", "7G"]], ["1G", "2G", "3B", "4B", "10B"],
                  TUX_DECK)
    assert after(st, "10G captures 1G+2G+3B+4B+10B").events == ((0, "sweep", 10),)
    assert picks(st) == ("5B captures 1G+2G+3B+4B", "10G captures 1G+2G+3B+4B+10B")


def test_tuxedo_reply_orange_V_tux_score():
    """V-tux-score in the opponent's reply: trailing 3Y next to 2R offers their Five an orange
    (2R+3Y, 10 points); trailing 3B offers none. The default sees the two trails alike and
    plays the first; complete keeps the yellow card."""
    st = position("tuxedo", [["3Y", "3B"], ["5G", "7G"]], ["2R", "9G"], TUX_DECK)
    s = scored(st)
    assert s["3Y trails"] == s["3B trails"]  # the default: a tie
    t = after(st, "3Y trails")
    assert after(t, "5G captures 2R+3Y").events == ((1, "orange", 10),)
    assert picks(st) == ("3Y trails", "3B trails")


def test_tuxedo_orange_calls_unchanged_for_our_move():
    """With ``orange_calls`` our capture's orange is ``_orange_call``'s in both evaluations
    (complete adds no second 10)."""
    st = position("tuxedo", [["5B", "7G"], ["8G", "6G"]], ["5G", "3R", "4Y"], TUX_DECK,
                  rules={"orange_calls": True})
    d, c = scored(st), scored(st, complete=True)
    call = next(k for k in d if k.startswith("7G captures 3R+4Y") and "orange" in k)
    assert c[call] - d[call] < 10


# -- V-dom-end ------------------------------------------------------------------------------

def test_dominican_at_19_takes_the_10D_V_dom_end():
    """V-dom-end: a side at 19 wins only by the 10D and scores nothing else that hand: 10S
    taking 10D (which then wins the game) over AH taking three cards with two aces."""
    st = position("dominican", [["10S", "AH", "5C", "9C"], ["3D", "8H", "9H", "7C"]],
                  ["10D", "AC", "AD", "QH"], scores=[19, 5])
    assert picks(st) == ("AH captures AD+AC+QH", "10S captures 10D")
    s = scored(st, complete=True)
    assert abs(s["AH captures AD+AC+QH"]) < 1  # aces are worth nothing to a side at 19


def test_dominican_denies_a_restricted_opponent_V_dom_end():
    """V-dom-end, the other side: with the opponent at 19 the 10D wins them the game, so
    taking it is worth more to us than its 2 points (and leaving it costs their win)."""
    st = position("dominican", [["10S", "AH", "5C", "9C"], ["3D", "8H", "9H", "7C"]],
                  ["10D", "AC", "AD", "QH"], scores=[5, 19])
    d, c = scored(st), scored(st, complete=True)
    assert c["10S captures 10D"] - d["10S captures 10D"] > 15
    assert picks(st)[1] == "10S captures 10D"


# -- V-fin-score ----------------------------------------------------------------------------

FIN_REST = [c for c in DECK if c not in {"4H", "4C", "9D", "9C", "9H", "9S", "KH", "KD", "KC",
                                         "QH", "QD"}]


def test_finnish_reply_in_the_last_deal_scores_no_sweep_V_fin_score():
    """V-fin-score: our last card of the deal before the last takes 4C and leaves 9D alone;
    the opponent's 9 would sweep it, but in the last deal, where no sweep scores. The default
    counts that sweep against the capture and trails."""
    st = State.from_spec({
        "variant": "finnish", "players": 2, "dealer": 1, "current": 1, "hands": [[], ["4H"]],
        "table": ["4C", "9D"], "stock": ["9C", "9H", "9S", "KH", "KD", "KC", "QH", "QD"],
        "piles": [FIN_REST[:21], FIN_REST[21:]], "last_capturer": 0, "seed": 3})
    a = after(st, "4H captures 4C")
    assert not a.stock_ids and a.current == 0
    b = apply_move(a, next(m for m in legal_moves(a) if str(m) == "9S captures 9D"))
    assert not b.loose_mask and b.sweeps == (0, 0)
    assert picks(st, 1) == ("4H trails", "4H captures 4C")


# -- V-hun-play (Nagy) -----------------------------------------------------------------------

def test_nagy_first_sweep_counts_2_V_hun_play():
    """V-hun-play, Nagy: sweeping the four initial table cards scores 2. KD taking all four
    beats 6H+10D taking three (the default counts the sweep 1 and prefers the 10D's 2)."""
    st = position("hungarian", [["6H", "10D", "KD"], ["7S", "9C", "KH"]],
                  ["3H", "4S", "9S", "10C"], rules={"nagy": True})
    assert after(st, "KD captures 3H+4S+9S+10C").sweeps == (2, 0)
    assert picks(st) == ("6H+10D captures 3H+4S+9S", "KD captures 3H+4S+9S+10C")
    d, c = scored(st), scored(st, complete=True)
    assert c["KD captures 3H+4S+9S+10C"] - d["KD captures 3H+4S+9S+10C"] == pytest.approx(1)


# -- the items that change the scores, not the move -------------------------------------------

def test_kryp_first_move_tabbe_credits_no_one_V_kryp_score():
    """V-kryp-score: a tabbe on the hand's first move costs its capturer 5 and credits no one
    (the default counts the credit too: 10). The cheap trails stay the choice either way."""
    deck = list(make_rules("krypkasino", 2).deck.names)
    hands = [["KH", "9C", "9D", "9H"], ["2H", "3C", "4D", "JH"]]
    table = ["6H", "7C", "5D", "8C"]
    stock = list(deck)
    for c in sum(hands, []) + table:
        stock.remove(c)
    st = State.from_spec({"variant": "krypkasino", "players": 2, "dealer": 1, "current": 0,
                          "hands": hands, "table": table, "stock": stock, "seed": 3})
    sweep = "KH captures 5D+6H+7C+8C"
    assert after(st, sweep).events == ((0, "tabbe", 5),)
    d, c = scored(st), scored(st, complete=True)
    assert c[sweep] - d[sweep] == pytest.approx(5)
    assert all(c[k] == d[k] for k in d if k != sweep)
    assert picks(st) == ("9H trails", "9H trails")


@pytest.mark.parametrize("variant", ["wippen", "swedish", "hungarian", "dominican"])
def test_last_card_sweeps_C_sweep(variant):
    """C-sweep: the hand's last card sweeps when its own capture clears the table; complete
    counts the sweep point (the default already takes it, by its per-card tie-break)."""
    st = State.from_spec({"variant": variant, "players": 2, "dealer": 1, "current": 1,
                          "hands": [[], ["7H"]], "table": ["5C", "2D", "7C"], "stock": [],
                          "piles": [["9H", "9D"], ["8H", "8D"]], "last_capturer": 0,
                          "seed": 3})
    sweep = "7H captures 2D+5C+7C"
    assert after(st, sweep, deal_next=False).sweeps == (0, 1)
    d, c = scored(st, 1), scored(st, 1, complete=True)
    assert c[sweep] - d[sweep] == pytest.approx(1)
    assert all(c[k] == d[k] for k in d if k != sweep)
    assert picks(st, 1) == (sweep, sweep)


def test_uncaptured_residue_goes_to_the_dealer_C_residue():
    """C-residue: nobody captured in the hand, so its residue goes to the dealer (seat 1, to
    move): trailing the last card is worth the table to us, not to the opponent."""
    st = State.from_spec({"variant": "casino", "players": 2, "dealer": 1, "current": 1,
                          "hands": [[], ["5H"]], "table": ["9C", "KD", "5C", "10D"],
                          "stock": [], "seed": 3})
    a = after(st, "5H trails", deal_next=False)
    assert a.pile_masks[0] == 0 and a.pile_masks[1].bit_count() == 5
    d, c = scored(st, 1), scored(st, 1, complete=True)
    assert d["5H trails"] < 0 < c["5H trails"]
    assert c["5H captures 5C"] == d["5H captures 5C"]
    assert picks(st, 1) == ("5H captures 5C", "5H captures 5C")


# -- the option ------------------------------------------------------------------------------

def test_spec_builds_complete():
    for spec in ("heuristic:complete=1", "heuristic:complete=true", "heuristic:complete=True"):
        assert make_agent(spec).complete is True
    assert make_agent("heuristic:complete=0").complete is False
    assert make_agent("heuristic").complete is False
    assert "complete" in HeuristicAgent.options


@pytest.mark.parametrize("bad", ["2", "yes", "0.5"])
def test_spec_refuses_an_unknown_value(bad):
    with pytest.raises(ValueError, match="complete must be true or false"):
        make_agent(f"heuristic:complete={bad}")


PRESETS = ["casino", "royal", "dominican", "tuxedo", "finnish", "hungarian", "wippen",
           "krypkasino", "swazi", "spade"]


def random_views(variant: str, n: int, seed: int, **switches):
    """``n`` decisions with several legal moves, from random play."""
    rng = random.Random(seed)
    out = []
    g = 0
    while len(out) < n:
        st = new_game(variant, 2, seed=seed * 1000 + g, **switches)
        g += 1
        while not st.game_over and st.hand_no == 0 and len(out) < n:
            moves = legal_moves(st)
            if len(moves) > 1:
                out.append(PlayerView(st, st.current))
            st = apply_move(st, rng.choice(moves))
    return out


def test_complete_off_is_the_default_evaluation():
    """``complete=False`` scores every position as the default agent does (the benchmark,
    and ``agents.afterstate._scorer()``'s), over random positions of several presets; with it
    on, tuxedo's scores differ somewhere."""
    from agents.afterstate import _scorer
    default, off, on = HeuristicAgent(), HeuristicAgent(complete=False), \
        HeuristicAgent(complete=True)
    assert not _scorer().complete
    total = 0
    for i, variant in enumerate(PRESETS):
        for v in random_views(variant, 30, 11 + i):
            moves = v.legal_moves()
            assert off.scores(v, moves) == default.scores(v, moves)
            total += 1
    assert total >= 300
    differs = sum(on.scores(v, v.legal_moves()) != default.scores(v, v.legal_moves())
                  for v in random_views("tuxedo", 40, 5))
    assert differs > 5


@pytest.mark.parametrize("variant", ["casino", "royal", "spade", "wippen"])
def test_complete_adds_nothing_where_no_item_applies(variant):
    """Presets scoring no points in play and no endgame restrictions at 0-0: before the hand's
    last move, ``complete`` scores every move as the default does (its opponent's reply,
    ``threat`` with ``extras``, is the default's: a face card's capture, C-face, takes no per-card
    tie-break in either, which once flipped casino's choice between two trails)."""
    default, on = HeuristicAgent(), HeuristicAgent(complete=True)
    checked = 0
    for v in random_views(variant, 60, 3):
        if v.stock_size == 0 and sum(v.hand_sizes) <= 1:
            continue  # the hand's last move: the dealer's residue may differ (C-residue)
        moves = v.legal_moves()
        assert on.scores(v, moves) == pytest.approx(default.scores(v, moves), abs=1e-9)
        checked += 1
    assert checked >= 50
