"""PettingZoo classic's three wrappers, subclassed only to read hot attributes faster.

PettingZoo's wrappers reach the environment's ``rewards``, ``terminations``, ``agent_selection``
... through a chain of ``__getattr__`` calls, which costs tens of microseconds per agent-step.
These subclasses read them straight from the raw environment; behaviour is unchanged (they are
still instances of the PettingZoo wrappers and raise the same errors before ``reset``).
"""

from __future__ import annotations

from pettingzoo.utils import wrappers as pzw

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
    def __init__(self, env, illegal_reward: float) -> None:
        pzw.TerminateIllegalWrapper.__init__(self, env, illegal_reward)
        self._remember_raw()


class AssertOutOfBoundsWrapper(_Fast, pzw.AssertOutOfBoundsWrapper):
    def __init__(self, env) -> None:
        pzw.AssertOutOfBoundsWrapper.__init__(self, env)
        self._remember_raw()

    def step(self, action) -> None:
        # Fast path for the usual in-range int (what Discrete.contains accepts); anything
        # else goes through PettingZoo's own check and its AssertionError.
        if type(action) is int and 0 <= action < self._raw.n_actions:
            self.env.step(action)
        else:
            pzw.AssertOutOfBoundsWrapper.step(self, action)


class OrderEnforcingWrapper(_Fast, pzw.OrderEnforcingWrapper):
    def __init__(self, env) -> None:
        pzw.OrderEnforcingWrapper.__init__(self, env)
        self._remember_raw()


for _n in _BEFORE_RESET:
    setattr(OrderEnforcingWrapper, _n, _guarded(_n))
