"""Agents by name: ``make_agent("heuristic", seed=1)``, ``make_agent("search", simulations=400)``.

Names: ``random``, ``greedy``, ``heuristic``, ``search``. Keyword arguments go to the agent's
constructor; a name may carry them too, e.g. ``"search:simulations=400,max_candidates=6"``.
Agents loaded from a file (a trained policy, ``"ppo:<path>"``) register a *loader* with
``register_loader("ppo", load)``: ``make_agent("ppo:runs/x.zip", seed=1)`` then calls
``load("runs/x.zip", seed=1)``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from .base import Agent, RandomAgent
from .scripted import GreedyAgent, HeuristicAgent
from .search import SearchAgent

AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    "search": SearchAgent,
}


# Loaders of agents named "prefix:argument", where the argument is not key=value pairs.
LOADERS: dict[str, Callable[..., Agent]] = {}
# Loaders whose modules are imported on first use (``make_agent("ppo:model.zip")``).
LAZY_LOADERS = {"ppo": "agents.ppo"}


def register_agent(name: str, factory: Callable[..., Agent]) -> None:
    """Add an agent class or factory ``factory(seed=..., **kw)`` under ``name``."""
    AGENTS[name.lower()] = factory


def register_loader(prefix: str, loader: Callable[..., Agent]) -> None:
    """Add a loader for names ``"prefix:argument"`` (``loader(argument, seed=..., **kw)``)."""
    LOADERS[prefix.lower()] = loader


def _parse_value(text: str) -> object:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def parse_spec(spec: str) -> tuple[str, dict]:
    """``"search:simulations=400"`` -> ``("search", {"simulations": 400})``."""
    name, _, args = spec.partition(":")
    kw: dict = {}
    if args:
        for part in args.split(","):
            key, eq, val = part.partition("=")
            if not eq:
                raise ValueError(f"agent spec {spec!r}: expected key=value, got {part!r}")
            kw[key.strip()] = _parse_value(val.strip())
    return name.strip().lower(), kw


def make_agent(name: str, seed: int | None = None, **kw: object) -> Agent:
    """A new agent by registry name (with optional ``:key=value,...`` arguments), or by a
    registered loader prefix (``"ppo:<path>"``)."""
    prefix, sep, arg = name.partition(":")
    key = prefix.strip().lower()
    if sep and key not in LOADERS and key in LAZY_LOADERS:
        try:  # the module registers its loader (kept lazy: it imports torch)
            importlib.import_module(LAZY_LOADERS[key])
        except ImportError as e:
            raise ValueError(f"agent {name!r} needs the training extras "
                             f"(pip install -e '.[train]'): {e}") from e
    if sep and key in LOADERS:
        return LOADERS[key](arg, seed=seed, **kw)
    base, extra = parse_spec(name)
    if base not in AGENTS:
        raise ValueError(f"unknown agent {base!r} (known: {', '.join(AGENTS)})")
    extra.update(kw)
    return AGENTS[base](seed=seed, **extra)
