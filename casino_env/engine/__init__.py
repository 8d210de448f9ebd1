"""casino_env.engine: a pure-Python rules engine for the Casino family of fishing games.

Public API: ``new_game``, ``State`` (``from_spec``/``to_spec``), ``legal_moves``,
``apply_move``, ``parse_move``, ``Move``, ``IllegalMoveError``, ``list_variants``,
``describe_variant``. It imports nothing from gymnasium or pettingzoo.
"""

from .moves import Move, legal_moves, parse_move
from .play import IllegalMoveError, apply_move, new_game
from .rules import Rules, describe_variant, list_variants
from .state import Build, State

__all__ = [
    "Build",
    "IllegalMoveError",
    "Move",
    "Rules",
    "State",
    "apply_move",
    "describe_variant",
    "legal_moves",
    "list_variants",
    "new_game",
    "parse_move",
]
