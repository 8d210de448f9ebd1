"""The agent interface: an agent sees a ``PlayerView`` (its own hand and public facts) and
chooses one of the view's legal moves. Agents are seeded, so tournaments are reproducible.

Agents check their options where they are made (``check_int`` and friends raise ValueError
naming the option, what it must be and the value received), so a bad option never surfaces
mid-game."""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from collections.abc import Iterable
from numbers import Integral, Real

from casino_env.engine import Move, State
from casino_env.engine.play import legal_move_of
from casino_env.engine.rules import SWITCH_TYPES, Rules, make_rules
from casino_env.engine.view import PlayerView


def check_int(name: str, value: object, low: int | None = None) -> int:
    """``value`` if it is an int (not a bool) ``>= low``; else ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, Integral) or (
            low is not None and value < low):
        bound = f" >= {low}" if low is not None else ""
        raise ValueError(f"{name} must be an int{bound}, got {value!r}")
    return value  # type: ignore[return-value]


def check_number(name: str, value: object, low: float | None = None,
                 high: float | None = None) -> float:
    """``value`` if it is a finite number (int or float, not a bool) in [low, high]; else
    ValueError naming ``name`` and the range."""
    ok = (not isinstance(value, bool) and isinstance(value, Real)
          and math.isfinite(value)  # type: ignore[arg-type]
          and (low is None or value >= low) and (high is None or value <= high))
    if not ok:
        if low is not None and high is not None:
            what = f"a number in [{low:g}, {high:g}]"
        elif low is not None:
            what = f"a number >= {low:g}"
        elif high is not None:
            what = f"a number <= {high:g}"
        else:
            what = "a finite number"
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return value  # type: ignore[return-value]


def check_bool(name: str, value: object) -> bool:
    """``value`` if it is True or False; else ValueError naming ``name``."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


def check_choice(name: str, value: object, choices: Iterable[str]) -> str:
    """``value`` if it is one of ``choices``; else ValueError naming ``name`` and them."""
    known = list(choices)
    if not isinstance(value, str) or value not in known:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, known))}, got {value!r}")
    return value


class Agent(ABC):
    """Base class. Subclasses implement ``choose(view)``; ``act(state, seat)`` builds the view
    so that an agent can never read cards its seat cannot see.

    A subclass whose ``__init__`` takes ``**kw`` declares the option names it accepts in a
    class attribute ``options`` (the registry reads them to name an unknown option); otherwise
    the registry reads the ``__init__`` signature."""

    name = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        """Restart the agent's random stream (called before each game of a tournament)."""
        self.seed = seed
        self.rng = random.Random(seed)

    def check_rules(self, rules: Rules) -> None:
        """Raise ValueError if this agent cannot play a game with ``rules`` (called when the
        agent is given to a game). Scripted agents play every preset: nothing to check."""
        return None

    @abstractmethod
    def choose(self, view: PlayerView) -> Move:
        """One of ``view.legal_moves()``."""

    def act(self, state: State, seat: int | None = None) -> Move:
        """The move for ``seat`` (default: the seat to move) in ``state``, from its view only."""
        seat = state.current if seat is None else seat
        move = self.choose(PlayerView(state, seat))
        if state.rules.deck.copies > 1 and seat == state.current:
            # two decks: a view numbers the copies it sees itself (engine.view), so the move
            # is given back as the state's own legal move with its outcome
            move = legal_move_of(state, move) or move
        return move

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


class RandomAgent(Agent):
    """Uniformly random legal move."""

    name = "random"

    def choose(self, view: PlayerView) -> Move:
        return self.rng.choice(view.legal_moves())


def describe_rules(rules: Rules) -> str:
    """A short description of a game's rules: preset, players, partnerships and the switches
    that differ from the preset's defaults, e.g. ``"royal 2p"``, ``"casino 2p with sweeps,
    target=11, difference"``, ``"dominican 4p in partnerships"``."""
    text = f"{rules.variant} {rules.players}p"
    try:
        default = make_rules(rules.variant, rules.players)
    except ValueError:  # Rules built by hand, outside the presets' player counts
        default = Rules(variant=rules.variant, players=rules.players)
    if rules.partnerships:
        text += " in partnerships"
    elif default.partnerships:
        text += " without partnerships"
    mine, base = rules.switches(), default.switches()
    diff = []
    for name, value in mine.items():
        if value == base.get(name):  # (house switches are listed only when in force)
            continue
        if SWITCH_TYPES[name] is bool:
            diff.append(name if value else f"no {name}")
        else:
            diff.append(f"{name}={value}")
    return text + (f" with {', '.join(diff)}" if diff else "")
