"""Agents by name: ``make_agent("heuristic", seed=1)``, ``make_agent("search", simulations=400)``.

Names: ``random``, ``greedy``, ``heuristic``, ``search``, ``openspiel-ismcts`` (OpenSpiel's
information-set MCTS; needs the ``openspiel`` extra). Keyword arguments go to the agent's
constructor; a name may carry them too, e.g. ``"search:simulations=400,max_candidates=6"``.
Agents loaded from files (a trained policy, ``"ppo:<path>"``; a preset's shipped value
networks, ``"networks:casino"``) register a *loader* with
``register_loader("ppo", load)``: ``make_agent("ppo:runs/x.zip", seed=1)`` then calls
``load("runs/x.zip", seed=1)``.

Everything is checked where the agent is made, with a ValueError that names the problem: an
unknown name (listing the known ones, loader forms like ``ppo:PATH`` included), an unknown
option (listing the agent's options, with the close match), a bad value (each agent checks
its own options' types and ranges), an option given twice, a malformed spec.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
from collections.abc import Callable

from .base import Agent, RandomAgent
from .openspiel_ismcts import OpenSpielISMCTSAgent
from .scripted import GreedyAgent, HeuristicAgent
from .search import SearchAgent

AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    "search": SearchAgent,
    "openspiel-ismcts": OpenSpielISMCTSAgent,  # (needs the openspiel extra)
}


# Loaders of agents named "prefix:argument", where the argument is not key=value pairs.
LOADERS: dict[str, Callable[..., Agent]] = {}
# Loaders whose modules are imported on first use (``make_agent("ppo:model.zip")``).
LAZY_LOADERS = {"ppo": "agents.ppo", "openspiel-dqn": "agents.openspiel_dqn",
                "rllib": "agents.rllib_agent", "networks": "agents.networks"}
# What a loader's argument is, for messages (``ppo:PATH``).
LOADER_ARGS = {"ppo": "PATH", "openspiel-dqn": "PATH", "rllib": "PATH", "networks": "PRESET"}
EXAMPLES = {"ppo": "ppo:experiments/results/train/casino/model.zip",
            "openspiel-dqn": "openspiel-dqn:runs/openspiel_dqn/casino",
            "rllib": "rllib:runs/rllib/casino", "networks": "networks:casino"}


def register_agent(name: str, factory: Callable[..., Agent]) -> None:
    """Add an agent class or factory ``factory(seed=..., **kw)`` under ``name``."""
    AGENTS[name.lower()] = factory


def register_loader(prefix: str, loader: Callable[..., Agent], arg: str = "PATH") -> None:
    """Add a loader for names ``"prefix:argument"`` (``loader(argument, seed=..., **kw)``);
    ``arg`` names the argument in messages (``ppo:PATH``)."""
    LOADERS[prefix.lower()] = loader
    LOADER_ARGS.setdefault(prefix.lower(), arg)


def known_agents() -> list[str]:
    """Every name ``make_agent`` takes: the agents, then the loader forms (``ppo:PATH``)."""
    prefixes = list(LAZY_LOADERS) + [p for p in LOADERS if p not in LAZY_LOADERS]
    return list(AGENTS) + [f"{p}:{LOADER_ARGS.get(p, 'ARG')}" for p in prefixes]


def _suggest(word: str, known: list[str]) -> str:
    close = difflib.get_close_matches(word, known, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _unknown_agent(name: str) -> ValueError:
    known = known_agents()
    bare = [k.partition(":")[0] for k in known]
    return ValueError(f"unknown agent {name!r} (known: {', '.join(known)})"
                      f"{_suggest(name, bare)}")


def agent_options(factory: Callable[..., Agent], loader: bool = False) -> list[str] | None:
    """The option names ``factory`` takes besides ``seed`` (a loader's first argument, the
    path, excluded): its ``options`` attribute, else its signature; None if it takes
    ``**kw`` without declaring them."""
    declared = getattr(factory, "options", None)
    if declared is not None:
        return list(declared)
    try:
        params = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return None
    if loader and params:
        params = params[1:]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return [p.name for p in params if p.name != "seed"
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _check_options(label: str, factory: Callable[..., Agent], kw: dict,
                   loader: bool = False) -> None:
    known = agent_options(factory, loader)
    if known is None:
        return
    for key in kw:
        if key == "seed":
            raise ValueError(f"agent {label!r}: the seed is not an option (the game seeds its "
                             "agents; in Python, make_agent(name, seed=...))")
        if key not in known:
            if not known:
                raise ValueError(f"unknown option {key!r} for agent {label!r} "
                                 f"({label} takes no options)")
            raise ValueError(f"unknown option {key!r} for agent {label!r} "
                             f"(known: {', '.join(known)}){_suggest(key, known)}")


def _call(label: str, factory: Callable[..., Agent], *args: object, **kw: object) -> Agent:
    """``factory(*args, **kw)``, an unexpected keyword (a factory that takes ``**kw`` without
    declaring its options) reported as a ValueError naming it."""
    try:
        return factory(*args, **kw)
    except TypeError as e:
        if "unexpected keyword argument" not in str(e):
            raise
        bad = str(e).rsplit("argument", 1)[-1].strip()
        raise ValueError(f"unknown option {bad} for agent {label!r}") from e


def _parse_value(text: str) -> object:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if text.lower() == "none":
        return None
    return text


def parse_spec(spec: str) -> tuple[str, dict]:
    """``"search:simulations=400"`` -> ``("search", {"simulations": 400})`` (values read as
    int, float, true/false or none where they can be, else kept as text)."""
    name, colon, args = spec.partition(":")
    kw: dict = {}
    if colon and not args.strip():
        raise ValueError(f"agent spec {spec!r}: no options after ':' "
                         "(expected key=value,...)")
    if args:
        for part in args.split(","):
            key, eq, val = part.partition("=")
            key, val = key.strip(), val.strip()
            if not eq:
                raise ValueError(f"agent spec {spec!r}: expected key=value, got {part!r}")
            if not key:
                raise ValueError(f"agent spec {spec!r}: an option name is missing in {part!r}")
            if not val:
                raise ValueError(f"agent spec {spec!r}: option {key!r} has no value")
            if key in kw:
                raise ValueError(f"agent spec {spec!r}: option {key!r} given twice")
            kw[key] = _parse_value(val)
    return name.strip().lower(), kw


def _loader_arg(name: str, prefix: str, arg: str) -> tuple[str, dict]:
    """A loader's argument and options: ``"model.zip,deterministic=false"`` ->
    ``("model.zip", {"deterministic": False})``; the whole text when it names a file."""
    from pathlib import Path

    head, comma, rest = arg.partition(",")
    if not comma or Path(arg).exists():
        return arg, {}
    return head.strip(), parse_spec(f"{prefix}:{rest}")[1]


def _merge(name: str, extra: dict, kw: dict) -> None:
    """Add the keyword options ``kw`` to those of the spec, refusing one given in both."""
    for k in kw:
        if k in extra:
            raise ValueError(f"agent {name!r}: option {k!r} given in the name and as a keyword")
    extra.update(kw)


def make_agent(name: str, seed: int | None = None, **kw: object) -> Agent:
    """A new agent by registry name (with optional ``:key=value,...`` arguments), or by a
    registered loader prefix (``"ppo:<path>"``); bad names and options raise ValueError here,
    before any game."""
    if not isinstance(name, str):
        raise TypeError(f"an agent name must be a string (e.g. 'heuristic'), got {name!r}")
    if not name.strip():
        raise ValueError(f"the agent name is empty (known: {', '.join(known_agents())})")
    prefix, sep, arg = name.partition(":")
    key = prefix.strip().lower()
    if sep and key not in LOADERS and key in LAZY_LOADERS:
        try:  # the module registers its loader (kept lazy: it imports torch)
            importlib.import_module(LAZY_LOADERS[key])
        except ImportError as e:
            raise ValueError(f"agent {name!r} needs the training extras "
                             f"(pip install -e '.[train]'): {e}") from e
    if key in LOADERS or (not sep and key in LAZY_LOADERS):
        form = f"{key}:{LOADER_ARGS.get(key, 'ARG')}"
        target, extra = _loader_arg(name, key, arg.strip())
        if not target:
            example = f", e.g. {EXAMPLES[key]}" if key in EXAMPLES else ""
            raise ValueError(f"agent {name!r}: give {form}{example}")
        _merge(name, extra, kw)
        _check_options(form, LOADERS[key], extra, loader=True)
        return _call(form, LOADERS[key], target, seed=seed, **extra)
    base, extra = parse_spec(name)
    if base not in AGENTS:
        raise _unknown_agent(base)
    _merge(name, extra, kw)
    factory = AGENTS[base]
    _check_options(base, factory, extra)
    return _call(base, factory, seed=seed, **extra)
