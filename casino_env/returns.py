"""Episode outcomes as rewards, shared by the PettingZoo env and the OpenSpiel game.

``points``: each side's points minus the mean of the other sides' (zero-sum; negated in
krypkasino, whose points are penalties). ``win``: the
stake to the winning side and ``-stake/(sides-1)`` to each other side, 0 to all on a draw; a
one-hand episode is won by the side with strictly the most points that hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from .engine import State


def points_returns(points: Sequence[int], penalties: bool = False) -> list[float]:
    """Per side: its points minus the mean of the other sides' points; with ``penalties``
    (krypkasino, V-kryp-end: lower is better) the other sides' mean minus its own."""
    s = len(points)
    total = sum(points)
    sign = -1 if penalties else 1
    return [sign * (p - (total - p) / (s - 1)) for p in points]


def win_returns(st: State) -> list[float]:
    """Per side: +stake to the winner, -stake/(sides-1) to the others, zeros on a draw (the
    game's winner once it is over, else the hand's strict leader)."""
    s = st.rules.sides
    winner = st.winner
    if winner is None and st.hand_points is not None:
        pts = list(st.hand_points)
        if st.rules.penalties:  # krypkasino: the fewest penalty points lead
            pts = [-p for p in pts]
        best = max(pts)
        winner = pts.index(best) if pts.count(best) == 1 else None
    if winner is None:
        return [0.0] * s
    stake = float(st.stake)  # a Nagy double game is worth 2
    return [stake if i == winner else -stake / (s - 1) for i in range(s)]


def side_returns(st: State, episode: str, reward: str) -> list[float]:
    """Per side: the return of an episode (``hand`` or ``game``) that ended in ``st``."""
    if reward == "win":
        return win_returns(st)
    return points_returns(st.hand_points if episode == "hand" else st.scores,
                          st.rules.penalties)
