"""OpenSpiel's information-set MCTS as an agent: ``make_agent("openspiel-ismcts:simulations=100")``.

The agent runs ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` on the ``python_casino`` game
of the same rules (one hand, points reward: the hand's point difference, as the search agent
plays), one search per compose sub-action. It sees only its player's view: the search's root
is one determinization of the view, and every simulation deals the hidden cards again from
the player's information (``CasinoState.resample_from_infostate``), seeded by the agent.
Needs the ``openspiel`` extra (``pip install -e ".[openspiel]"``).
"""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np

from casino_env.engine import Move
from casino_env.engine.rules import Rules
from casino_env.engine.view import PlayerView

from .base import Agent

FINAL_POLICIES = ("max_visit_count", "max_value")


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    return value


@lru_cache(maxsize=32)
def _game(rules: Rules):
    """The ``python_casino`` game of ``rules`` (one hand, points), loaded once per rules."""
    import pyspiel

    from casino_env import openspiel as cos

    params: dict[str, object] = {"variant": rules.variant, "players": rules.players,
                                 "partnerships": "on" if rules.partnerships else "off",
                                 "episode": "hand", "reward": "points"}
    for name, value in rules.switches().items():
        params[name] = ("on" if value else "off") if isinstance(value, bool) else value
    return pyspiel.load_game(cos.GAME_NAME, params)


class OpenSpielISMCTSAgent(Agent):
    """Information-set MCTS from OpenSpiel with random rollouts; ``simulations`` a sub-action
    (a move takes one search per choice of card, kind and item), ``uct_c`` exploration,
    ``rollouts`` random playouts per leaf."""

    name = "openspiel-ismcts"

    def __init__(self, seed: int | None = None, simulations: int = 100, uct_c: float = 2.0,
                 rollouts: int = 1, final_policy: str = "max_visit_count") -> None:
        super().__init__(seed)
        try:
            from open_spiel.python.algorithms import ismcts  # noqa: F401
        except ImportError as e:
            raise ValueError("openspiel-ismcts needs OpenSpiel: pip install -e '.[openspiel]' "
                             f"({e})") from e
        self.simulations = _positive_int("simulations", simulations)
        self.rollouts = _positive_int("rollouts", rollouts)
        if isinstance(uct_c, bool) or not isinstance(uct_c, (int, float)) or uct_c < 0:
            raise ValueError(f"uct_c must be a number >= 0, got {uct_c!r}")
        self.uct_c = float(uct_c)
        if final_policy not in FINAL_POLICIES:
            raise ValueError(f"final_policy must be one of {', '.join(FINAL_POLICIES)}, "
                             f"got {final_policy!r}")
        self.final_policy = final_policy

    def _bot(self, game):
        from open_spiel.python.algorithms import ismcts, mcts

        np_rng = np.random.RandomState(self.rng.getrandbits(32))
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, np_rng)
        policy = (ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT
                  if self.final_policy == "max_visit_count"
                  else ismcts.ISMCTSFinalPolicyType.MAX_VALUE)
        bot = ismcts.ISMCTSBot(game, evaluator, self.uct_c, self.simulations,
                               random_state=np_rng, final_policy_type=policy)
        draw = random.Random(self.rng.getrandbits(63)).random
        # every world is dealt from the player's information, seeded by this agent
        bot.set_resampler(lambda state, player: state.resample_from_infostate(player, draw))
        return bot

    def choose(self, view: PlayerView) -> Move:
        moves = view.legal_moves()
        if len(moves) == 1:
            return moves[0]
        game = _game(view.rules)
        state = game.state_from_engine(view.determinize(self.rng))
        bot = self._bot(game)
        while True:
            legal = state.legal_actions()
            action = legal[0] if len(legal) == 1 else int(bot.step(state))
            move = state.push_sub_action(action)
            if move is not None:
                break
        for m in moves:  # the same move among the view's own (its hand and table are real)
            if m == move:
                return m
        raise RuntimeError(f"ISMCTS chose {move}, which is not among the legal moves")
