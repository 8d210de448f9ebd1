"""Helpers shared by the rule tests (tests/test_rules_*.py, tests/test_errors.py).

Positions are small specs (``State.from_spec``); legal moves are compared as sets of
notation strings; ``rule_of`` gives the rule id an illegal move breaks; ``end_hand`` plays the
last card of a hand whose capture piles the test chose, so that its scoring can be checked.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

import pytest

from casino_env.engine import IllegalMoveError, Move, State, apply_move, legal_moves, new_game
from casino_env.engine.cards import Deck
from casino_env.engine.play import play

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
DECK = [r + s for r in RANKS for s in "SHDC"]
SPADES = [r + "S" for r in RANKS]
# Cards that score nothing by themselves: no spade, no ace, not the 10D (35 cards).
PLAIN = [r + s for s in "HDC" for r in RANKS[1:] if r + s != "10D"]
SCORING = SPADES + ["AH", "AD", "AC", "10D"]


def spec(hands: Iterable, table: Iterable = (), variant: str = "casino", **kw) -> dict:
    """A spec dict; ``players`` is the number of hands, ``kw`` any other spec keys."""
    out = {"variant": variant, "players": len(hands), "hands": [list(h) for h in hands],
           "table": list(table)}
    out.update(kw)
    return out


def mk(hands: Iterable, table: Iterable = (), variant: str = "casino", **kw) -> State:
    """A state from a spec; ``players`` is the number of hands."""
    return State.from_spec(spec(hands, table, variant, **kw))


def mk_for(default: str) -> Callable[..., State]:
    """``mk`` with another default variant (each preset's test file has its own)."""

    def make(hands: Iterable, table: Iterable = (), variant: str = default, **kw) -> State:
        return mk(hands, table, variant, **kw)

    make.__doc__ = f"A {default} state from a spec; ``players`` is the number of hands."
    return make


def build(cards: Iterable[str], value: int, owner: int, multiple: bool | None = None) -> dict:
    """A build as a spec's table item."""
    b = {"cards": list(cards), "value": value, "owner": owner}
    if multiple is not None:
        b["multiple"] = multiple
    return b


def moves(st: State, card: str | None = None) -> set[str]:
    """The legal moves as strings (only those playing ``card`` if given)."""
    return {str(m) for m in legal_moves(st) if card is None or m.played == (card,)}


def rule_of(st: State, move: Move | str) -> str | None:
    """The rule id an illegal move breaks (fails the test if the move is legal)."""
    with pytest.raises(IllegalMoveError) as exc:
        apply_move(st, move)
    return exc.value.rule


def mover(st: State) -> tuple[Deck, int, list[str], list[str]]:
    """(deck, seat, hand) of the seat to move, and the cards of the deck not in that hand."""
    deck, seat = st.rules.deck, st.current
    hand = st.hand(seat)
    return deck, seat, hand, [c for c in deck.names if c not in hand]


def end_hand(piles: list, scores: Iterable[int], *, variant: str = "casino", last: str = "3H",
             last_capturer: int = 0, table: Iterable = (), rules: dict | None = None,
             sweeps: Iterable[int] | None = None, events: list | None = None, seed: int = 7,
             partnerships: bool | None = None) -> State:
    """The state after the last card of the hand (held by the dealer, the last seat) trails;
    the residue (``table`` plus ``last``) goes to ``last_capturer``'s side. One pile per side;
    with ``partnerships`` four players, else one player per pile (at least two)."""
    players = 4 if partnerships else max(len(piles), 2)
    hands: list[list[str]] = [[] for _ in range(players)]
    hands[-1] = [last]
    s = {"variant": variant, "players": players, "dealer": players - 1,
         "current": players - 1, "hands": hands, "table": list(table), "stock": [],
         "piles": piles, "scores": list(scores), "last_capturer": last_capturer, "seed": seed}
    if rules:
        s["rules"] = rules
    if sweeps is not None:
        s["sweeps"] = list(sweeps)
    if events:
        s["events"] = events
    if partnerships is not None:
        s["partnerships"] = partnerships
    return apply_move(State.from_spec(s), f"{last} trails")


def split(count0: int, special0: Iterable[str] = (), hold: Iterable[str] = ("3H",),
          deck: list[str] = DECK, plain: list[str] = PLAIN) -> list[list[str]]:
    """Two capture piles of the whole ``deck`` but ``hold``: side 0 has ``special0`` and plain
    cards up to ``count0`` cards, side 1 every other card."""
    special0, hold = list(special0), set(hold)
    pool = [c for c in plain if c not in hold and c not in special0]
    p0 = special0 + pool[:count0 - len(special0)]
    assert len(p0) == count0, "not enough plain cards"
    p1 = [c for c in deck if c not in p0 and c not in hold]
    return [p0, p1]


def full(hands: Iterable, table: Iterable, piles: Iterable, variant: str = "casino",
         **kw) -> State:
    """A state holding all 52 cards: those not in hands, table or piles make the stock."""
    named = {c for h in hands for c in h} | {c for p in piles for c in p}
    for item in table:
        named |= set(item["cards"]) if isinstance(item, dict) else {item}
    stock = [c for c in DECK if c not in named]
    return mk(hands, table, variant, piles=[list(p) for p in piles], stock=stock, **kw)


def random_states(variant: str, players: int, count: int, seed: int = 0,
                  partnerships: bool | None = None) -> list[State]:
    """States reached by random play (about one in seven, over as many seeded games as it
    takes)."""
    rng = random.Random(seed)
    out: list[State] = []
    g = 0
    while len(out) < count:
        st = new_game(variant, players, seed=seed * 1000 + g, partnerships=partnerships)
        g += 1
        while not st.game_over and len(out) < count:
            if rng.random() < 0.15:
                out.append(st)
            st = play(st, rng.choice(legal_moves(st)))
    return out
