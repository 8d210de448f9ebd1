"""A small behaviour-cloning-only training config shared by the cloning tests."""

from __future__ import annotations

from experiments.train import load_config


def bc_config(**bc_over) -> dict:
    """2-player casino in enumerate mode with heuristic hints, a small policy, cloning only
    (no PPO) against greedy opponents, 4 final hands against random; ``bc_over`` sets [bc]."""
    return load_config(None, {
        "env": {"variant": "casino", "action_mode": "enumerate", "max_moves": 32,
                "hints": "heuristic"},
        "policy": {"hidden": 32, "pair_hidden": 16},
        "bc": {"teacher": "heuristic", "decisions": 100, "epochs": 1, "batch_size": 32,
               "workers": 1, "opponents": {"greedy": 1}, **bc_over},
        "ppo": {"timesteps": 0, "n_envs": 2, "vec": "dummy"},
        "opponents": {"pool": {"greedy": 1}},
        "eval": {"every": 0, "final_hands": {"random": 4}},
        "run": {"progress": False, "verbose": False},
    })
