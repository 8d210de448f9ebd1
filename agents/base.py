"""The agent interface: an agent sees a ``PlayerView`` (its own hand and public facts) and
chooses one of the view's legal moves. Agents are seeded, so tournaments are reproducible."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod

from casino_env.engine import Move, State
from casino_env.engine.view import PlayerView


class Agent(ABC):
    """Base class. Subclasses implement ``choose(view)``; ``act(state, seat)`` builds the view
    so that an agent can never read cards its seat cannot see."""

    name = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        """Restart the agent's random stream (called before each game of a tournament)."""
        self.seed = seed
        self.rng = random.Random(seed)

    @abstractmethod
    def choose(self, view: PlayerView) -> Move:
        """One of ``view.legal_moves()``."""

    def act(self, state: State, seat: int | None = None) -> Move:
        """The move for ``seat`` (default: the seat to move) in ``state``, from its view only."""
        seat = state.current if seat is None else seat
        return self.choose(PlayerView(state, seat))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


class RandomAgent(Agent):
    """Uniformly random legal move."""

    name = "random"

    def choose(self, view: PlayerView) -> Move:
        return self.rng.choice(view.legal_moves())
