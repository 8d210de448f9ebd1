"""Exact play of a hand's end once nothing is hidden: with two sides, an empty stock and at
most one other seat's hand unseen (the last deal of a two-player hand: the unseen cards are
the opponent's hand), the position is one of perfect information and alpha-beta minimax on
the hand's point difference (what the search agent's rollouts estimate) solves it.

Measured on casino (docs/expert_iteration.md): at the last deal the search agent's move loses
about half a point a hand against exact play."""

from __future__ import annotations

import random

from casino_env.engine import Move, State, legal_moves
from casino_env.engine.play import play, settle
from casino_env.engine.view import PlayerView

from .base import check_number

# Moves tried first: a claim or a call (decided at once), then captures, builds, trails.
_ORDER = {"claim": 0, "call": 0, "capture": 0, "build": 1, "trail": 2}


class NodeLimit(Exception):
    """The solver visited more positions than it was allowed."""


def perfect_information(view: PlayerView) -> bool:
    """True when ``view`` determines the whole state: two sides, no stock, and at most one
    other seat holding cards the viewer cannot see."""
    if view.stock_size or view.rules.sides != 2:
        return False
    hidden = [s for s, n in enumerate(view.hand_sizes)
              if n and s != view.seat and s not in view.exposed]
    return len(hidden) <= 1


def points_sign(rules) -> int:
    """1, or -1 where the points are penalties (V-kryp-score): a lead is then the other
    side's points minus mine."""
    return -1 if getattr(rules, "penalties", False) else 1


# V-hun-end claims: a game won or lost by a claim outweighs any hand's points (a false claim
# loses the game though the claimer may lead on the points it has earned).
CLAIMED = 1000.0


def lead(st: State, side: int) -> float:
    """``side``'s points this hand minus the other side's (penalty games: the reverse); with
    ``claims``, plus or minus ``CLAIMED`` once the game is won or lost."""
    sign = points_sign(st.rules)
    hp = st.hand_points
    v = float(sign * (hp[side] - hp[1 - side]))
    if st.game_over and st.winner is not None and st.rules.claims:
        v += CLAIMED if st.winner == side else -CLAIMED
    return v


def _ordered(st: State) -> list[Move]:
    return sorted(legal_moves(st), key=lambda m: _ORDER.get(m.kind, 3))


def _value(st: State, side: int, alpha: float, beta: float, budget: list[int],
           plies: int = -1, residue: bool = False) -> float:
    """Alpha-beta value for ``side``; with ``plies`` >= 0, positions that many moves ahead
    are valued by ``static_lead`` (``lookahead``), else play goes on to the hand's end."""
    budget[0] -= 1
    if budget[0] < 0:
        raise NodeLimit
    if plies == 0:
        return static_lead(st, side, residue)
    maxi = st.rules.side(st.current) == side
    best = -1e9 if maxi else 1e9
    for m in _ordered(st):
        nxt = play(st, m, deal_next=False)
        v = lead(nxt, side) if nxt.hand_points is not st.hand_points or nxt.game_over else \
            _value(nxt, side, alpha, beta, budget, plies - 1, residue)
        if maxi:
            if v > best:
                best = v
            alpha = max(alpha, v)
        else:
            if v < best:
                best = v
            beta = min(beta, v)
        if alpha >= beta:
            break
    return best


def solve(st: State, node_limit: int = 20_000) -> tuple[Move, float] | None:
    """The best move for the seat to move in a perfect-information position and its exact
    value (the side's hand point difference under best play by both sides), or None if that
    takes more than ``node_limit`` positions."""
    try:
        return _root(st, [node_limit])
    except NodeLimit:
        return None


def _root(st: State, budget: list[int], plies: int = -1,
          residue: bool = False) -> tuple[Move, float]:
    """The best move at the root and its value: each move in order, the window narrowed by
    the best so far (``solve`` to the hand's end, ``lookahead`` over ``plies``)."""
    side = st.rules.side(st.current)
    best_move, alpha = None, -1e9
    for m in _ordered(st):
        nxt = play(st, m, deal_next=False)
        v = lead(nxt, side) if nxt.hand_points is not st.hand_points or nxt.game_over \
            else _value(nxt, side, alpha, 1e9, budget, plies - 1, residue)
        if best_move is None or v > alpha:
            best_move, alpha = m, v
    return best_move, alpha


def move_values(st: State, node_limit: int = 200_000) -> dict[Move, float] | None:
    """Every legal move's exact value (full windows: slower than ``solve``), or None past
    ``node_limit`` positions: labels for learning."""
    side = st.rules.side(st.current)
    budget = [node_limit]
    out = {}
    try:
        for m in legal_moves(st):
            nxt = play(st, m, deal_next=False)
            out[m] = lead(nxt, side) if nxt.hand_points is not st.hand_points or \
                nxt.game_over else _value(nxt, side, -1e9, 1e9, budget)
    except NodeLimit:
        return None
    return out


def last_deal_value(st: State, side: int, loose: int, piles, sweeps, last: int | None,
                    events, stock, node_limit: int = 200_000) -> float | None:
    """``side``'s hand point difference when the hand's last deal, dealt from ``stock``, is
    played exactly by both: ``st``'s hand at the boundary before that deal (every hand empty,
    no build) with the table, piles, sweeps, last capturer and events given (a rollout's, as
    ``agents.fastsim.simulate`` holds them). None past ``node_limit`` positions, where the last
    deal is too large to solve, or where piles are ordered (V-swazi-steal)."""
    if st.pile_ids:
        return None
    b = st._copy()
    b.hand_masks = (0,) * st.rules.players
    b.loose_mask, b.builds, b.stock_ids = loose, (), tuple(stock)
    b.pile_masks, b.sweeps, b.events = tuple(piles), tuple(sweeps), tuple(events)
    b.last_capturer, b.pending_orange = last, None
    b = settle(b, fresh=True, deal_next=False)
    if b.hand_points is not st.hand_points or b.game_over:  # no cards were left to play
        return lead(b, side)
    return solved_value(b, side, node_limit)


def solved_value(st: State, side: int, node_limit: int = 200_000) -> float | None:
    """``side``'s exact hand point difference from the perfect-information position ``st``
    under best play by both (``solve``'s value, seen from ``side``), or None past
    ``node_limit`` positions."""
    got = solve(st, node_limit)
    if got is None:
        return None
    return got[1] if st.rules.side(st.current) == side else -got[1]


def static_lead(st: State, side: int, residue: bool = False) -> float:
    """``side``'s point difference if the hand were scored on the piles as they stand (penalty
    games: the reverse): what the cards taken so far decide. The table's cards stay unassigned,
    or with ``residue`` go to the last capturer, as they would if nobody captured again."""
    from casino_env.engine.scoring import awards

    piles, last = st.pile_masks, None
    if residue and st.last_capturer is not None:
        last = st.rules.side(st.last_capturer)
        table = st.loose_mask
        for b in st.builds:
            table |= b.cards
        piles = tuple(m | table if k == last else m for k, m in enumerate(piles))
    sign = points_sign(st.rules)
    return float(sign * sum(p if s == side else -p for _, s, p in
                            awards(st.rules, piles, st.sweeps, st.events, last)))


def lookahead(st: State, plies: int, residue: bool = False) -> tuple[Move, float]:
    """The best move by minimax over the next ``plies`` moves (both sides'), positions past
    them valued by ``static_lead`` (with ``residue``: the table to the last capturer) and the
    hand's end by its score: a depth-limited stand-in for ``solve``, to measure how much
    look-ahead the last deal needs (issue 18)."""
    check_number("plies", plies, 1)
    return _root(st, [1 << 62], plies, residue)


def solve_view(view: PlayerView, node_limit: int = 20_000) -> tuple[Move, float] | None:
    """``solve`` from a player's view when it determines the state, else None."""
    if not perfect_information(view):
        return None
    return solve(view.determinize(random.Random(0)), node_limit)


__all__ = ["last_deal_value", "lead", "lookahead", "move_values", "perfect_information",
           "solve", "solve_view", "solved_value", "static_lead"]
