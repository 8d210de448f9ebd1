"""PettingZoo classic's three wrappers, subclassed only to read hot attributes faster.

PettingZoo's wrappers reach the environment's ``rewards``, ``terminations``, ``agent_selection``
... through a chain of ``__getattr__`` calls, which costs tens of microseconds per agent-step.
These subclasses read them straight from the raw environment and take a direct path for the
usual legal, in-range action after reset; they are still instances of the PettingZoo wrappers,
and errors before ``reset`` and masked-out actions run PettingZoo's own code. One change:
``AssertOutOfBoundsWrapper`` checks an action as ``raw_env`` does (a ValueError naming the value
instead of a bare ``AssertionError``), so every entry point follows one rule for actions.
"""

from __future__ import annotations

import numpy as np
from pettingzoo.utils import wrappers as pzw

from .checks import action_index

_HOT = ("rewards", "terminations", "truncations", "infos", "agent_selection", "agents",
        "_cumulative_rewards", "possible_agents")
_BEFORE_RESET = {"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"}


def _plain(name: str) -> property:
    return property(lambda self: getattr(self._raw, name))


def _guarded(name: str) -> property:
    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(get)


class _Fast:
    """Mixin: hot attributes come straight from the raw environment."""

    def _remember_raw(self) -> None:
        self.__dict__["_raw"] = self.env.unwrapped

    @property
    def unwrapped(self):
        return self._raw

    def _repr_html_(self) -> str:
        """Jupyter: the table picture of the raw environment."""
        return self._raw._repr_html_()


for _n in _HOT:
    setattr(_Fast, _n, _plain(_n))


class TerminateIllegalWrapper(_Fast, pzw.TerminateIllegalWrapper):
    """PettingZoo's wrapper with its ``observe`` and ``step`` reading the raw environment
    directly (the same logic; the illegal-action path is PettingZoo's own)."""

    def __init__(self, env, illegal_reward: float) -> None:
        pzw.TerminateIllegalWrapper.__init__(self, env, illegal_reward)
        self._remember_raw()

    def observe(self, agent):
        obs = self.env.observe(agent)
        raw = self._raw
        if agent == raw.agent_selection:
            self._prev_obs = obs
            self._prev_info = raw.infos.get(agent, {})
        return obs

    def step(self, action) -> None:
        raw = self._raw
        agent = raw.agent_selection
        if self._prev_obs is None:
            self.observe(agent)
        prev = self._prev_obs
        if (not isinstance(prev, dict) or self._terminated or raw.terminations[agent]
                or raw.truncations[agent] or not isinstance(action, (int, np.integer))
                or not prev["action_mask"][action]):
            pzw.TerminateIllegalWrapper.step(self, action)  # the rare paths, unchanged
            return
        self._prev_obs = self._prev_info = None
        self.env.step(action)


class AssertOutOfBoundsWrapper(_Fast, pzw.AssertOutOfBoundsWrapper):
    """PettingZoo's wrapper, with the check of ``raw_env`` in place of its bare assertion:
    an action that is no action id raises ValueError naming it (checks.action_index), and a
    numpy integer or integer array of shape (1,) reaches the environment as a plain int."""

    def __init__(self, env) -> None:
        pzw.AssertOutOfBoundsWrapper.__init__(self, env)
        self._remember_raw()

    def step(self, action) -> None:
        raw = self._raw
        if type(action) is int and 0 <= action < raw.n_actions:  # the usual case
            self.env.step(action)
            return
        agent = getattr(raw, "agent_selection", None)
        if raw.state is None or not raw.agents or raw.terminations[agent] \
                or raw.truncations[agent]:
            self.env.step(action)  # (the done agent's None, or the raw env's own error)
            return
        self.env.step(action_index(action, raw.n_actions))


class OrderEnforcingWrapper(_Fast, pzw.OrderEnforcingWrapper):
    """PettingZoo's wrapper with direct ``step``, ``observe`` and ``last`` once reset (the
    same checks; before reset, PettingZoo's own errors)."""

    def __init__(self, env) -> None:
        pzw.OrderEnforcingWrapper.__init__(self, env)
        self._remember_raw()

    def step(self, action) -> None:
        if self._has_reset and self._raw.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            pzw.OrderEnforcingWrapper.step(self, action)

    def observe(self, agent):
        if not self._has_reset:
            return pzw.OrderEnforcingWrapper.observe(self, agent)
        return self.env.observe(agent)

    def last(self, observe: bool = True):
        if not self._has_reset:
            return pzw.OrderEnforcingWrapper.last(self, observe)
        raw = self._raw
        agent = raw.agent_selection
        obs = self.env.observe(agent) if observe else None
        return (obs, raw._cumulative_rewards[agent], raw.terminations[agent],
                raw.truncations[agent], raw.infos[agent])


for _n in _BEFORE_RESET:
    setattr(OrderEnforcingWrapper, _n, _guarded(_n))
