"""Agents for casino-env: scripted opponents and trained baselines, one interface for all."""

from .base import Agent, RandomAgent

__all__ = ["Agent", "RandomAgent"]
