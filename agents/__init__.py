"""Agents for casino-env: scripted opponents and trained baselines, one interface for all.

``make_agent(name, seed=...)`` builds any of them by name (``known_agents()`` lists the names,
loader forms like ``ppo:PATH`` included) and checks the name and options there;
``play_match`` runs a reproducible duplicate-deal tournament between them.
"""

from .base import Agent, RandomAgent
from .registry import AGENTS, known_agents, make_agent, register_agent, register_loader
from .scripted import GreedyAgent, HeuristicAgent, HeuristicParams
from .search import SearchAgent
from .tournament import GameRecord, MatchResult, play_game, play_match

__all__ = [
    "AGENTS",
    "Agent",
    "GameRecord",
    "GreedyAgent",
    "HeuristicAgent",
    "HeuristicParams",
    "MatchResult",
    "RandomAgent",
    "SearchAgent",
    "known_agents",
    "make_agent",
    "play_game",
    "play_match",
    "register_agent",
    "register_loader",
]
