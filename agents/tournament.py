"""Tournaments between agents on any preset, with duplicate deals and seat rotation.

Each *deal* is one game seed (which fixes every shuffle of the game). It is played once per
seat rotation: with two agents in a 2-player game, A sits in seat 0 then in seat 1 on the same
cards, so luck of the deal cancels within the pair (the pair is the statistical unit; see
``experiments.stats``). With k agents the lineup rotates k times; with 4 players and 2 agents
each agent holds two seats (a partnership when the preset plays partners).

Agents are re-seeded before every game from (tournament seed, deal, rotation, agent), so a
tournament is reproducible, and an agent never sees anything but its ``PlayerView``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from casino_env.engine import State, legal_moves, new_game
from casino_env.engine.play import play
from casino_env.returns import win_returns

from .base import Agent


@dataclass
class GameRecord:
    """One game: who sat where and what happened. Agent indices refer to the match's list."""

    deal: int
    rotation: int
    seed: int
    seats: tuple[int, ...]  # agent index per seat
    winner: int | None  # agent index of the winning side; None for a draw (hand tie, cap)
    hands: int
    points: list[tuple[float, ...]]  # per hand: points per agent (sum over its sides)
    scores: tuple[float, ...]  # final score per agent
    moves: int
    seconds: float
    decision_seconds: tuple[float, ...]  # thinking time per agent


@dataclass
class MatchResult:
    """All games of a tournament, plus what is needed to describe it."""

    labels: list[str]
    variant: str
    players: int
    mode: str
    seed: int
    switches: dict = field(default_factory=dict)
    records: list[GameRecord] = field(default_factory=list)
    seconds: float = 0.0


def derive_seed(*parts: object) -> int:
    """A deterministic 63-bit seed from any parts (stable across runs and interpreters)."""
    return random.Random("/".join(map(str, parts))).getrandbits(63)


def _instantiate(spec: object, seed: int | None) -> Agent:
    if isinstance(spec, Agent):
        return spec
    if isinstance(spec, str):
        from .registry import make_agent

        return make_agent(spec, seed=seed)
    if callable(spec):
        agent = spec(seed)
        if not isinstance(agent, Agent):
            raise TypeError(f"agent factory returned {type(agent).__name__}, not an Agent")
        return agent
    raise TypeError(f"an agent spec is a name, an Agent or a factory, got {spec!r}")


def _label(spec: object) -> str:
    if isinstance(spec, str):
        return spec
    if isinstance(spec, Agent):
        return spec.name
    return getattr(spec, "__name__", "agent")


def lineups(n_agents: int, players: int) -> list[tuple[int, ...]]:
    """Seat -> agent index for each rotation: agent (seat + r) mod k, r = 0..k-1."""
    if n_agents < 1 or players % n_agents:
        raise ValueError(f"{n_agents} agents cannot share {players} seats evenly")
    return [tuple((s + r) % n_agents for s in range(players)) for r in range(n_agents)]


def play_game(seat_agents: Sequence[Agent], variant: str = "casino", seed: int = 0,
              mode: str = "game", max_hands: int = 60, partnerships: bool | None = None,
              **switches: object) -> tuple[State, list[tuple[int, ...]], int, list[float]]:
    """Play one game (or one hand, ``mode="hand"``) with one agent per seat.

    Returns the final state, the points of each side in each hand, the number of moves and the
    thinking time per seat. A game stops after ``max_hands`` hands (counted as a draw)."""
    if mode not in ("game", "hand"):
        raise ValueError(f"mode must be 'game' or 'hand', got {mode!r}")
    players = len(seat_agents)
    st = new_game(variant, players, seed=seed, partnerships=partnerships, **switches)
    for agent in seat_agents:  # before the first move: a policy trained on another game
        check = getattr(agent, "check_rules", None)
        if callable(check):
            check(st.rules)
    hand_points: list[tuple[int, ...]] = []
    think = [0.0] * players
    moves = 0
    hp = st.hand_points
    start = tuple(st.scores)  # scores when the current hand began
    while not st.game_over:
        seat = st.current
        t0 = time.perf_counter()
        move = seat_agents[seat].act(st, seat)
        think[seat] += time.perf_counter() - t0
        legal = legal_moves(st)
        if move not in legal:
            raise RuntimeError(f"{seat_agents[seat]!r} chose an illegal move {move} in seat {seat}")
        st = play(st, legal[legal.index(move)])
        moves += 1
        if st.hand_points is not hp:
            hp = st.hand_points
            hand_points.append(tuple(hp))
            start = tuple(st.scores)
            if mode == "hand" or len(hand_points) >= max_hands:
                break
        elif st.game_over:
            # The game ended during play (points counted as earned, a claim): the hand's
            # points are what the scores gained since it began.
            hand_points.append(tuple(b - a for a, b in zip(start, st.scores)))
    return st, hand_points, moves, think


def check_sides(rots: Sequence[tuple[int, ...]], rules) -> None:
    """Every side is one agent in every lineup: a side's points and wins are credited to
    its agent, so partners holding two different agents would be counted for one of them."""
    for lineup in rots:
        holder: dict[int, tuple[int, int]] = {}
        for s, a in enumerate(lineup):
            seat, b = holder.setdefault(rules.side(s), (s, a))
            if b != a:
                raise ValueError(
                    f"seats {seat} and {s} are partners in {rules.variant} with {rules.players} "
                    f"players, but {len(set(lineup))} agents would put different agents on "
                    f"one side (agents {b} and {a}); give one agent per side "
                    f"({rules.sides} agents, or one that divides {rules.sides})")


def play_match(agents: Sequence[object], variant: str = "casino", players: int = 2,
               deals: int = 100, seed: int = 0, mode: str = "game", max_hands: int = 60,
               partnerships: bool | None = None, progress: bool = False,
               labels: Sequence[str] | None = None, **switches: object) -> MatchResult:
    """Play ``deals`` duplicate deals between ``agents`` (names for ``make_agent``, Agent
    instances, or factories ``seed -> Agent``); every deal is played once per rotation of the
    lineup, so there are ``deals * len(agents)`` games. Reproducible for a given ``seed``."""
    k = len(agents)
    rots = lineups(k, players)
    check_sides(rots, new_game(variant, players, seed=seed, partnerships=partnerships,
                               **switches).rules)
    names = list(labels) if labels else [_label(a) for a in agents]
    if len(set(names)) != len(names):  # same agent twice: tell them apart
        names = [f"{n}#{i}" for i, n in enumerate(names)]
    result = MatchResult(names, variant, players, mode, seed, dict(switches))
    # One instance per (agent, seat slot) so that seats never share a random stream.
    pool: dict[tuple[int, int], Agent] = {}
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=deals * len(rots), desc=f"{variant} {' v '.join(names)}", leave=False)
    t_start = time.perf_counter()
    for d in range(deals):
        game_seed = derive_seed("deal", seed, d)
        for r, lineup in enumerate(rots):
            seat_agents = []
            for s, a in enumerate(lineup):
                slot = sum(1 for x in lineup[:s] if x == a)
                key = (a, slot)
                if key not in pool:
                    pool[key] = _instantiate(agents[a], derive_seed("agent", seed, a, slot))
                agent = pool[key]
                agent.reset(derive_seed("agent", seed, d, r, a, slot))
                seat_agents.append(agent)
            t0 = time.perf_counter()
            st, hps, moves, think = play_game(seat_agents, variant, game_seed, mode, max_hands,
                                              partnerships, **switches)
            secs = time.perf_counter() - t0
            rules = st.rules
            side_agent = {rules.side(s): a for s, a in enumerate(lineup)}
            per_hand = []
            for hp in hps:
                pts = [0] * k
                for sd, p in enumerate(hp):
                    pts[side_agent[sd]] += p
                per_hand.append(tuple(pts))
            scores = [0] * k
            for sd, p in enumerate(st.scores):
                scores[side_agent[sd]] += p
            if mode == "hand":
                # the environment's one-hand winner (casino_env.returns): the hand's strict
                # leader (krypkasino: the fewest points), or the game's winner where a claim
                # or an earned win decided the game during the hand
                won = [sd for sd, x in enumerate(win_returns(st, "hand")) if x > 0]
                winner = side_agent[won[0]] if won else None
            else:
                winner = side_agent[st.winner] if st.game_over and st.winner is not None \
                    else None
            dthink = [0.0] * k
            for s, a in enumerate(lineup):
                dthink[a] += think[s]
            result.records.append(GameRecord(d, r, game_seed, lineup, winner, len(hps),
                                             per_hand, tuple(scores), moves, secs,
                                             tuple(dthink)))
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    result.seconds = time.perf_counter() - t_start
    return result
