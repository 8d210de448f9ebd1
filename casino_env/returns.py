"""Episode outcomes as rewards, shared by the PettingZoo env and the OpenSpiel game.

``points``: each side's points minus the mean of the other sides' (zero-sum; negated in
krypkasino, whose points are penalties). ``win``: the
stake to the winning side and ``-stake/(sides-1)`` to each other side, 0 to all on a draw; a
one-hand episode is won by the side with strictly the most points that hand (worth 1; by the
game's winner where the game was decided during the hand: a claim, an earned win), a game by
the game's winner (a game stopped early: the strict leader of the scores so far).
"""

from __future__ import annotations

from collections.abc import Sequence

from .engine import State
from .engine.cards import SPADE
from .engine.play import uncaptured
from .engine.scoring import awards


def points_returns(points: Sequence[int], penalties: bool = False) -> list[float]:
    """Per side: its points minus the mean of the other sides' points; with ``penalties``
    (krypkasino, V-kryp-end: lower is better) the other sides' mean minus its own."""
    s = len(points)
    total = sum(points)
    sign = -1 if penalties else 1
    return [sign * (p - (total - p) / (s - 1)) for p in points]


def _leader(points: Sequence[int], penalties: bool) -> int | None:
    """The side with strictly the most points (the fewest in a penalty game), else None."""
    pts = [-p for p in points] if penalties else list(points)
    best = max(pts)
    return pts.index(best) if pts.count(best) == 1 else None


def win_returns(st: State, episode: str = "game") -> list[float]:
    """Per side: +stake to the winner, -stake/(sides-1) to the others, zeros on a draw. A
    one-hand episode (``episode="hand"``) is won by the hand's strict leader, worth 1, even
    when that hand also ends the game (but by the game's winner where the game was decided
    with cards still to play: a claim, an earned win); a game by its winner, worth
    ``st.stake`` (2 for a double game); a game stopped before its end (OpenSpiel's
    ``max_hands``) by the strict leader of the scores so far, worth 1 (krypkasino: the fewest
    points lead)."""
    s = st.rules.sides
    stake = 1.0
    if episode == "hand" and st.game_over and st.winner is not None and not st.played_out:
        # the game was decided during the hand (V-hun-end claims: a false claim loses
        # whatever the points; V-earned): its winner wins the hand too
        winner = st.winner
    elif episode == "hand":
        winner = _leader(st.hand_points, st.rules.penalties)
    elif st.game_over:
        winner = st.winner
        stake = float(st.stake)  # a Nagy or Bicycle double game is worth 2
    else:
        winner = _leader(st.scores, st.rules.penalties)
    if winner is None:
        return [0.0] * s
    return [stake if i == winner else -stake / (s - 1) for i in range(s)]


def side_returns(st: State, episode: str, reward: str) -> list[float]:
    """Per side: the return of an episode (``hand`` or ``game``) that ended in ``st``."""
    if reward == "win":
        return win_returns(st, episode)
    return points_returns(st.hand_points if episode == "hand" else st.scores,
                          st.rules.penalties)


def running_points(st: State) -> list[float]:
    """Per side, the points of the hand in play so far (krypkasino: penalties): the items the
    side is already sure of (``scoring.awards`` with the cards not yet captured, as V-earned
    counts them) plus, for a majority item not yet decided (most cards, most spades), its
    points times the side's share of those cards in play. An estimate of the hand's points
    from what was captured, for truncated search rollouts and reward shaping; the hand's end
    scores it exactly."""
    rules = st.rules
    piles = st.pile_masks
    left_cards, left_spades = uncaptured(st)
    points = [0.0] * rules.sides
    got = set()
    for item, side, pts in awards(rules, piles, st.sweeps, st.events, None,
                                  (left_cards, left_spades)):
        points[side] += pts
        got.add(item)
    if rules.scoring != "kryp":
        pts = rules.item_points
        shares = []
        if pts.cards and "cards" not in got:
            counts = [p.bit_count() for p in piles]
            shares.append((pts.cards, counts, left_cards + sum(counts)))
        if pts.spades and rules.scoring not in ("spade", "tuxedo") and "spades" not in got:
            spade = rules.deck.suit_mask[SPADE]
            counts = [(p & spade).bit_count() for p in piles]
            shares.append((pts.spades, counts, left_spades + sum(counts)))
        for worth, counts, total in shares:
            if total:
                for side, c in enumerate(counts):
                    points[side] += worth * c / total
    return points


def points_so_far(st: State) -> list[float]:
    """``running_points`` as ``points_returns`` counts them: per side, its points so far
    minus the others' mean (krypkasino: negated)."""
    return points_returns(running_points(st), st.rules.penalties)
