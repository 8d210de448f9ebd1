"""Players for the env layer: any object with the Agent interface, or a name looked up in the
one agent registry.

The environment, records and replays take any object with ``act(state, seat) -> Move`` and
``reset(seed)`` (the ``agents`` package's ``Agent`` interface). A name (``"heuristic"``,
``"search:simulations=200"``, ``"ppo:model.zip"``) is resolved by the registry that the
``casino_env.agents`` entry point names (``agents.registry:make_agent`` in this project's
pyproject.toml), so this layer imports nothing above it. An agent may also have
``check_rules(rules)``, which raises ValueError when it cannot play that game (a policy trained
on another preset); ``resolve`` calls it when given the game's rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from .engine import Move, State

GROUP = "casino_env.agents"
_registry: Callable[..., Any] | None = None


@runtime_checkable
class Player(Protocol):
    """What the env layer needs of an agent."""

    def act(self, state: State, seat: int | None = None) -> Move: ...

    def reset(self, seed: int | None = None) -> None: ...


def is_player(obj: object) -> bool:
    """True if ``obj`` has the Agent interface (``act`` and ``reset``): an agent, not an
    agent class (whose ``act`` is unbound; a class is a callable that makes one)."""
    return not isinstance(obj, type) and callable(getattr(obj, "act", None)) and \
        callable(getattr(obj, "reset", None))


def set_registry(make: Callable[..., Any] | None) -> None:
    """Use ``make(name, seed=...)`` to resolve agent names (None: the entry point again)."""
    global _registry
    _registry = make


def registry() -> Callable[..., Any]:
    """The function that makes an agent from its name (loaded once from the entry point)."""
    global _registry
    if _registry is None:
        from importlib.metadata import entry_points

        found = [ep for ep in entry_points(group=GROUP) if ep.name == "make_agent"]
        if not found:
            raise ValueError(
                "agent names need the agent registry, which is registered when the project is "
                "installed (pip install -e .); or pass an object with act(state, seat) and "
                "reset(seed)")
        _registry = found[0].load()
    return _registry


def known_agents() -> list[str]:
    """The agent names the registry knows (``known_agents`` of the same entry point group;
    empty when the project is not installed)."""
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group=GROUP) if ep.name == "known_agents"]
    return list(found[0].load()()) if found else []


def resolve(spec: object, seed: int | None = None, rules: Any = None) -> Any:
    """An agent from a name (through the registry) or an object with the Agent interface;
    with ``rules``, also checks that the agent can play that game (``check_rules``)."""
    if isinstance(spec, str):
        agent = registry()(spec, seed=seed)
    elif is_player(spec):
        agent = spec
    elif isinstance(spec, type):
        raise TypeError(f"an agent must be a name (e.g. 'heuristic') or an object with "
                        f"act(state, seat) and reset(seed), got the class {spec.__name__}: "
                        f"pass an instance, {spec.__name__}(...)")
    else:
        raise TypeError(f"an agent must be a name (e.g. 'heuristic') or an object with "
                        f"act(state, seat) and reset(seed), got {spec!r}")
    if rules is not None and callable(getattr(agent, "check_rules", None)):
        agent.check_rules(rules)
    return agent
