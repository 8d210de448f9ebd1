"""The lean rollout simulator (``agents.fastsim``) in krypkasino: compulsory maximal captures
(V-kryp-play), Aces 14 from hand (V-kryp-values), tabbes and dubbeltabbes with their credits
(V-kryp-score) and whole hands played exactly as the engine's greedy rollout plays them
(``agents.search.rollout``), penalties counted against their side (V-kryp-end)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from rules_helpers import RANKS, mk_for, random_states

import agents.fastsim as fastsim
from agents.fastsim import greedy_step, sim_rules, simulate, supported
from agents.scripted import greedy_choice
from agents.search import hand_result, rollout
from agents.valuation import static_weights
from casino_env.engine import State, legal_moves, new_game
from casino_env.engine.moves import generate
from casino_env.engine.play import play

mk = mk_for("krypkasino")
DECK2 = [r + s for r in RANKS for s in "SHDC" for _ in range(2)]  # the 104 cards, card order


def without(cards, *gone) -> list[str]:
    """``cards`` less one copy of each card of ``gone``."""
    left = Counter(cards)
    left.subtract(Counter(gone))
    assert min(left.values()) >= 0
    return sorted(left.elements(), key=DECK2.index)


def step(st: State) -> tuple[str, str, set[str]]:
    """greedy_step of the seat to move, as (kind, played card, taken cards) by name."""
    names = st.rules.deck.names
    kind, card, taken = greedy_step(sim_rules(st.rules), st.hand_masks[st.current],
                                    st.loose_mask, [], st.current)
    return ("capture" if kind else "trail"), names[card], set(st.rules.deck.strs(taken))


def engine_pick(st: State):
    """The engine rollout's move (``search.rollout``: greedy_choice on the legal moves)."""
    moves = generate(st)
    return moves[0] if len(moves) == 1 else greedy_choice(moves, static_weights(st.rules), True)


def assert_engine_move(st: State) -> None:
    """greedy_step's move is a legal move, and the very one the engine's rollout plays."""
    kind, card, taken = greedy_step(sim_rules(st.rules), st.hand_masks[st.current],
                                    st.loose_mask, [], st.current)
    m = engine_pick(st)
    assert (m.kind, m.played_mask, m.taken_mask) == (
        "capture" if kind else "trail", 1 << card, taken), str(st)
    assert m in legal_moves(st)


def engine_hand(st: State) -> State:
    """The engine rollout played to the hand's scoring (``deal_next=False``: the final state
    keeps the hand's piles, events and points), checking greedy_step at every move."""
    hp = st.hand_points
    while st.hand_points is hp and not st.game_over:
        assert_engine_move(st)
        st = play(st, engine_pick(st), deal_next=False)
    return st


def kinds(rules, mask: int) -> list[str]:
    """A pile by card names (two decks: which copy is which is the engine's numbering)."""
    return sorted(rules.deck.strs(mask))


class Spy:
    """Wraps ``fastsim.finish_hand`` to record the piles and events the simulator scores."""

    def __init__(self, monkeypatch) -> None:
        self.calls: list[tuple] = []
        real = fastsim.finish_hand

        def spy(rules, start, piles, sweeps, met, events=(), last_side=None):
            out = real(rules, start, piles, sweeps, met, events, last_side)
            self.calls.append((piles, events, out))
            return out

        monkeypatch.setattr(fastsim, "finish_hand", spy)


def test_krypkasino_is_supported():
    """The simulator plays krypkasino itself (no engine fallback) for every number of
    players and with partners (V-kryp-seats)."""
    for n in (2, 3, 4, 5, 6):
        assert supported(new_game("krypkasino", n).rules)
    assert supported(new_game("krypkasino", 4, partnerships=True).rules)
    st = mk([["7D"], ["2H"]], ["3H"], stock=[])
    assert simulate(st, 0, 0.0, lambda s: pytest.fail("engine fallback used")) == 0.0


def test_a_capture_must_be_maximal():
    """V-kryp-play: 9H may not take 4C+5C alone, which leaves 2H+7C (another 9) on the
    table; the simulator takes all four, the only legal capture, leaving KH."""
    st = mk([["9H"], ["3D"]], ["4C", "5C", "2H", "7C", "KH"], stock=[])
    assert step(st) == ("capture", "9H", {"4C", "5C", "2H", "7C"})
    assert {str(m) for m in legal_moves(st)} == {"9H captures 2H+4C+5C+7C"}
    assert_engine_move(st)


def test_chooses_among_maximal_captures_the_fewest_penalties_then_cards():
    """V-kryp-play: the player chooses among maximal captures. 9D takes 4S+5H or 4C+5H
    (either leaves no 9); the rollout policy takes the one without the spade. 10D takes
    5H+5D, 5H+2C+3C or 5D+2C+3C (each leaves no 10): no penalties either way, so the fewest
    cards, 5H+5D. Of equal captures it takes the engine's first (4H before 4C)."""
    st = mk([["9D"], ["3D"]], ["4S", "4C", "5H"], stock=[])
    assert step(st) == ("capture", "9D", {"4C", "5H"})
    assert_engine_move(st)
    st = mk([["10H"], ["3D"]], ["5H", "5D", "2C", "3C"], stock=[])
    assert len(legal_moves(st)) == 3
    assert step(st) == ("capture", "10H", {"5H", "5D"})
    assert_engine_move(st)
    st = mk([["9D"], ["3D"]], ["4C", "4H", "5D"], stock=[])
    assert step(st) == ("capture", "9D", {"4H", "5D"})
    assert_engine_move(st)


def test_only_cards_that_capture_nothing_trail():
    """V-kryp-play: 9H can take 4C+5C so it may not trail; KC captures nothing and trails
    (a trail takes no penalty). With only 9H it must capture 4S+5S, two spades and the whole
    table, though a trail would cost less. Of several cards that capture nothing, the most
    penalized trails (10D: 3)."""
    st = mk([["9H", "KC"], ["3D"]], ["4C", "5C"], stock=[])
    assert step(st) == ("trail", "KC", set())
    assert_engine_move(st)
    st = mk([["9H"], ["3D"]], ["4S", "5S"], stock=[])
    assert step(st) == ("capture", "9H", {"4S", "5S"})
    assert {str(m) for m in legal_moves(st)} == {"9H captures 4S+5S"}
    st = mk([["3H", "10D", "KC", "9H"], ["3D"]], ["4C", "5C"], stock=[])
    assert step(st) == ("trail", "10D", set())
    assert_engine_move(st)


def test_an_ace_from_hand_counts_14():
    """V-kryp-values: AH from hand is 14, so it takes 6C+8C and AC+KC (an Ace on the table
    is 1), but not a lone AC, where it captures nothing and trails."""
    st = mk([["AH"], ["3D"]], ["6C", "8C", "2D"], stock=[])
    assert step(st) == ("capture", "AH", {"6C", "8C"})
    assert_engine_move(st)
    st = mk([["AH"], ["3D"]], ["AC", "KC", "2D"], stock=[])
    assert step(st) == ("capture", "AH", {"AC", "KC"})
    assert_engine_move(st)
    st = mk([["AH"], ["3D"]], ["AC"], stock=[])
    assert step(st) == ("trail", "AH", set())
    assert_engine_move(st)


def test_a_tabbe_costs_5_and_credits_the_player_before(monkeypatch):
    """V-kryp-score: with three players seat 1's 7D must sweep 3H+4D (its only card): a
    tabbe, +5 to side 1 and -5 to seat 0 who moved before; no penalty cards otherwise, so
    the hand is worth 5 to side 0, -10 to side 1 and -5 to side 2 (lowest wins, V-kryp-end),
    as the engine counts it."""
    spy = Spy(monkeypatch)
    st = mk([["9C"], ["7D"], ["6D"]], ["3H", "4D"], stock=[], current=1)
    values = [simulate(st, s, 0.0, None) for s in range(3)]
    assert values == [5.0, -10.0, -5.0]
    piles, events, (points, winner) = spy.calls[0]
    assert events == ((1, "tabbe", 5), (0, "tabbe credit", -5))
    assert points == (-5, 5, 0) and winner is None
    end = engine_hand(st)
    assert end.events == events and end.hand_points == list(points)
    w = static_weights(st.rules)
    assert values == [hand_result(st, rollout(st, w, random.Random(0)), s, 0.0)
                      for s in range(3)]


def test_a_dubbeltabbe_is_10(monkeypatch):
    """V-kryp-score: 7D taking the other 7D, alone on the table, is a dubbeltabbe: +10 for
    its taker, -10 for the player before (a swing of 20); 7D taking 7H is a plain tabbe."""
    spy = Spy(monkeypatch)
    st = mk([["7D"], ["2H"]], ["7D"], stock=[])
    assert step(st) == ("capture", "7D", {"7D"})
    assert simulate(st, 0, 0.0, None) == -20.0
    assert spy.calls[-1][1] == ((0, "dubbeltabbe", 10), (1, "dubbeltabbe credit", -10))
    assert simulate(st, 1, 0.0, None) == 20.0
    assert engine_hand(st).events == spy.calls[-1][1]
    st = mk([["7D"], ["2H"]], ["7H"], stock=[])
    assert simulate(st, 0, 0.0, None) == -10.0
    assert spy.calls[-1][1] == ((0, "tabbe", 5), (1, "tabbe credit", -5))


def test_the_hands_first_move_sweeping_credits_nobody(monkeypatch):
    """V-kryp-score (the engine's decision): a tabbe with the hand's first card costs 5 and
    credits no one. AH (14) sweeps 2C+3C+4C+5C, as each of our Aces would (AH the first of
    the least penalized); the whole hand's piles, events and points then agree with the
    engine's rollout."""
    spy = Spy(monkeypatch)
    hands = [["AH", "AD", "AS", "AC"], ["6H", "6D", "7H", "7C"]]
    table = ["2C", "3C", "4C", "5C"]
    st = mk(hands, table, stock=without(DECK2, *hands[0], *hands[1], *table), dealer=1)
    assert step(st) == ("capture", "AH", {"2C", "3C", "4C", "5C"})
    value = simulate(st, 0, 0.0, None)
    piles, events, (points, _) = spy.calls[-1]
    assert events[0] == (0, "tabbe", 5)
    assert len(events) == 1 or "credit" not in events[1][1]
    end = engine_hand(st)
    assert end.events == events and end.hand_points == list(points)
    assert [kinds(st.rules, p) for p in piles] == [kinds(st.rules, p) for p in end.pile_masks]
    assert value == float(points[1] - points[0])


@pytest.mark.parametrize("players,partnerships", [(2, None), (3, None), (4, True), (6, None)])
def test_whole_hands_are_the_engines_rollouts(monkeypatch, players, partnerships):
    """V-kryp-play, V-kryp-score: from fresh deals and from states met in play, the simulated
    hand makes the engine rollout's move at every turn (``engine_hand`` checks greedy_step
    there), ends with the same piles (card by card), events and points, and ``simulate`` is
    exactly ``hand_result`` of the engine's rollout, the fallback the search would use."""
    spy = Spy(monkeypatch)
    states = [new_game("krypkasino", players, seed=s, partnerships=partnerships)
              for s in range(3)]
    states += random_states("krypkasino", players, 6, seed=5, partnerships=partnerships)
    sweeps = 0
    for st in states:
        side = st.rules.side(st.current)
        got = simulate(st, side, 5.0, None)
        piles, events, (points, _) = spy.calls[-1]
        end = engine_hand(st)
        assert end.hand_points == list(points) and end.events == events
        assert [kinds(st.rules, p) for p in piles] == \
            [kinds(st.rules, p) for p in end.pile_masks]
        w = static_weights(st.rules)
        assert got == hand_result(st, rollout(st, w, random.Random(0)), side, 5.0)
        sweeps += sum(1 for e in events if "credit" not in e[1])
    assert sweeps > 0  # (tabbes happened: their events were compared)


def test_a_hand_that_ends_the_game_counts_the_bonus():
    """V-kryp-end: with penalty totals near 50 the hand ends the game and the lowest total
    wins; ``simulate`` adds or takes off the game bonus as the engine's rollout result does."""
    ended = 0
    for st in random_states("krypkasino", 2, 12, seed=3):
        spec = st.to_spec()
        spec["scores"] = [46, 44]
        st = State.from_spec(spec)
        w = static_weights(st.rules)
        end = rollout(st, w, random.Random(0))
        ended += end.game_over
        for side in (0, 1):
            assert simulate(st, side, 7.0, None) == hand_result(st, end, side, 7.0)
    assert ended > 0


def test_the_deal_is_the_engines():
    """The simulator's deal (``fastsim._kryp_deal``, on its own card encoding) gives the same
    hands, table cards and rest of the stock as ``dealing.deal`` with V-kryp-play's leftover
    rule, for every stock size, player count, dealer and first deal or not."""
    from casino_env.engine.dealing import deal

    for players in (2, 3, 4, 5, 6):
        sr = sim_rules(new_game("krypkasino", players).rules)
        rng = random.Random(players)
        for size in range(105):
            ids = rng.sample(range(104), size)
            for first in (False, True):
                dealer = rng.randrange(players)
                hands, rest, table = deal((0,) * players, tuple(ids), players, dealer, first, 4,
                                          True)
                got, prefs = [0] * players, [0] * players
                skip = rng.randrange(3)  # cards already dealt from the simulator's stock
                stock = [sr.kdeal[c] for c in rng.sample(range(104), skip) + ids]
                dealt, extra = fastsim._kryp_deal(sr, got, prefs, stock, skip, players, dealer,
                                                  first, 4)
                assert tuple(got) == hands and extra == table
                assert stock[dealt:] == [sr.kdeal[c] for c in rest]
                assert prefs == [fastsim._kryp_prefs(sr, h) for h in hands]
