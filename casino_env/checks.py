"""Input checks shared by every entry point of the env layer (raw_env, env(), the Gymnasium
view and the RLlib wrapper), so that one rule and one message hold everywhere.

- an action is a Python int or a numpy integer scalar in 0..n-1, or an integer numpy array
  with shape () or (1,) holding one (the documented action shape (1,)); anything else is
  a ValueError naming the value received;
- a seed is an int >= 0 or None (the engine's ``new_game`` rule);
- a yes/no argument (``last_capturer``) is a bool (or a numpy bool), nothing else;
- a keyword that is neither an argument nor a rule switch is reported with its close match.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import numpy as np

from .engine.rules import PRESETS, SWITCHES
from .engine.state import check_seed  # noqa: F401 (the engine's one rule for seeds)


def _what(value: object) -> str:
    """``value`` as an error message shows it: its repr and its type (and shape)."""
    if isinstance(value, np.ndarray):
        return f"{value!r} (ndarray of {value.dtype}, shape {value.shape})"
    return f"{value!r} ({type(value).__name__})"


def action_index(action: object, n: int) -> int:
    """The action as an int in 0..n-1; anything else (out of range, a float, a string, a
    bool, None, an array of another shape or dtype) raises ValueError naming the value."""
    expected = f"action must be an int in 0..{n - 1}"
    if type(action) is int:  # (the usual case first)
        if 0 <= action < n:
            return action
        raise ValueError(f"{expected}, got {action}")
    if action is None:
        raise ValueError(f"{expected}, got None (None is only for agents that are done)")
    value = action
    if isinstance(action, np.ndarray):
        if action.shape not in ((), (1,)):
            raise ValueError(f"{expected} (or an integer array of shape (1,)), got "
                             f"{_what(action)}")
        value = action.reshape(())[()]  # a numpy scalar of the array's dtype
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{expected}, got {_what(action)}")
    a = int(value)
    if not 0 <= a < n:
        raise ValueError(f"{expected}, got {_what(action)}")
    return a


def check_flag(name: str, value: object) -> bool:
    """``value`` as a bool if it is one (or a numpy bool); anything else (0/1, a string, None)
    raises ValueError naming the argument ``name`` and the value."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name} must be True or False, got {_what(value)}")


def check_keywords(given: Iterable[str], variant: object, arguments: Iterable[str],
                   where: str) -> None:
    """Refuse a keyword of ``where`` that is neither one of its ``arguments`` nor a rule
    switch, suggesting the close match among the arguments and the preset's switches (a
    misspelt ``action_mdoe=`` would otherwise be reported as an unknown rule switch)."""
    if not isinstance(variant, str) or variant not in PRESETS:
        return  # make_rules names the unknown variant
    arguments = tuple(arguments)
    known = [*arguments, *PRESETS[variant].switches]
    for name in given:
        if name in SWITCHES or name in arguments:
            continue  # (make_rules checks that a switch applies, and its value)
        close = difflib.get_close_matches(name, known, n=1)
        hint = (f"did you mean {close[0]}?" if close else
                f"arguments: {', '.join(arguments)}; switches of {variant}: "
                f"{', '.join(PRESETS[variant].switches) or 'none'}")
        raise ValueError(f"{name} is neither an argument of {where} nor a rule switch of "
                         f"{variant} ({hint})")
