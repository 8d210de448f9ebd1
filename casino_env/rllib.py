"""Ray RLlib glue: the AEC environment behind RLlib's ``PettingZooEnv``, with observations in the
form RLlib's action-masking RLModule expects, picklable policy-mapping and metric callbacks, and
the layout of the checkpoints ``experiments/rllib_train.py`` writes (shared with the agent that
plays them, ``agents.rllib_agent``, which may not import ``experiments``).

``ray`` is imported only inside the functions that need it, so this module imports without it.
``experiments/rllib_train.py`` shows the whole training setup (PPO, shared or per-seat policies).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper

from .checks import action_index

ENV_NAME = "casino_env"
SHARED_POLICY = "shared"
POLICY_MODES = ("shared", "per-seat")
ILLEGAL_METRIC = "illegal_actions"
# Keys of an RLlib env config that are this module's, not ``casino_env.env`` arguments.
RLLIB_KEYS = ("reward_scale",)

# Checkpoints: ``<root>/step_<env steps>/`` holds ``Algorithm.save_to_path``'s folders plus
# ``SETTINGS`` (the env config and policies, so a checkpoint says which game it plays) and
# ``STATE`` (the training run's counters, written last: a folder without it is incomplete).
SETTINGS = "casino_env.json"
STATE = "run_state.json"
CHECKPOINT = re.compile(r"step_(\d+)$")
# Where an algorithm checkpoint keeps its policies' RLModules (one folder per policy id).
MODULES = Path("learner_group", "learner", "rl_module")


class RLlibObservations(BaseWrapper):
    """AEC wrapper giving observations as ``{"observations", "action_mask"}`` (both float32), the
    keys of RLlib's ``ActionMaskingTorchRLModule``, and counting masked-out actions taken.

    In enumerate mode ``action_features`` (K x 126) is flattened onto the end of
    ``observations``, so the policy sees what each move slot means. ``illegal_actions`` counts
    masked-out actions this episode and ``total_illegal_actions`` since construction (the wrapped
    ``casino_env.env()`` ends the episode with reward -1 on one).

    ``reward_scale`` multiplies the rewards RLlib reads (``last()``): hand point differences
    reach 11, and PPO's value loss is clipped at ``vf_clip_param``, so the baselines scale them
    as ``experiments.train`` does (0.1). The masked-out action's -1 is scaled too.
    """

    def __init__(self, env: Any, reward_scale: float = 1.0) -> None:
        super().__init__(env)
        self.reward_scale = float(reward_scale)
        raw = env.unwrapped
        self._features = not raw.compose
        size = raw.layout.size
        if self._features:
            size += int(np.prod(raw.observation_space(raw.possible_agents[0])
                                ["action_features"].shape))
        self._space = spaces.Dict({
            "observations": spaces.Box(-1.0, 1.0, (size,), np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (raw.n_actions,), np.float32),
        })
        self.illegal_actions = 0
        self.total_illegal_actions = 0

    def observation_space(self, agent: str) -> spaces.Dict:
        """The same Dict space for every agent: ``observations`` and a float32 ``action_mask``."""
        return self._space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The wrapped observation with RLlib's key names and dtypes."""
        return self._convert(self.env.observe(agent))

    def _convert(self, obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Rename ``observation`` to ``observations``, flatten features, cast the mask."""
        vec = obs["observation"]
        if self._features:
            vec = np.concatenate([vec, obs["action_features"].reshape(-1)])
        return {"observations": vec.astype(np.float32, copy=False),
                "action_mask": obs["action_mask"].astype(np.float32)}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict]:
        """``AECEnv.last`` with the reward times ``reward_scale`` (what ``PettingZooEnv``
        hands to RLlib)."""
        obs, reward, terminated, truncated, info = super().last(observe)
        return obs, reward * self.reward_scale, terminated, truncated, info

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Reset the game and this episode's illegal-action count."""
        self.illegal_actions = 0
        self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        """Check the action as every entry point does (an int id: ValueError otherwise),
        count it if the acting agent's mask forbids it, then step."""
        agent = self.env.agent_selection
        if not (self.env.terminations[agent] or self.env.truncations[agent]):
            mask = self.env.observe(agent)["action_mask"]
            action = action_index(action, len(mask))
            if not mask[action]:
                self.illegal_actions += 1
                self.total_illegal_actions += 1
        self.env.step(action)


def split_env_config(config: dict | None) -> tuple[dict[str, Any], float]:
    """(``casino_env.env`` keyword arguments, reward scale) of an RLlib env config: the config
    less ``RLLIB_KEYS``, and its ``reward_scale`` (default 1)."""
    kwargs = dict(config or {})
    scale = kwargs.pop("reward_scale", 1.0)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not scale > 0:
        raise ValueError(f"reward_scale must be a number > 0, got {scale!r}")
    return kwargs, float(scale)


def rllib_env(config: dict | None = None) -> Any:
    """RLlib env creator: ``PettingZooEnv`` around ``RLlibObservations(casino_env.env(**config))``;
    ``config`` holds ``casino_env.env`` keyword arguments and optionally ``reward_scale`` (an
    RLlib ``EnvContext`` works)."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from .aec import env as make_env

    kwargs, scale = split_env_config(config)
    return PettingZooEnv(RLlibObservations(make_env(**kwargs), reward_scale=scale))


def register_rllib_env(name: str = ENV_NAME) -> str:
    """Register ``rllib_env`` with Ray Tune's registry under ``name`` and return the name."""
    from ray.tune.registry import register_env

    register_env(name, rllib_env)
    return name


def shared_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Policy mapping: every seat plays the one ``shared`` policy (parameter sharing)."""
    return SHARED_POLICY


def per_seat_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Policy mapping: each seat ``player_i`` has its own policy, named like the seat."""
    return agent_id


def policies_for(mode: str, agents: list[str]) -> tuple[list[str], Any]:
    """Policy ids and mapping function for ``mode`` (``shared`` or ``per-seat``)."""
    if mode == "shared":
        return [SHARED_POLICY], shared_policy
    if mode == "per-seat":
        return list(agents), per_seat_policy
    raise ValueError(f"policies must be one of {', '.join(POLICY_MODES)}, got {mode!r}")


def log_illegal_actions(*, episode: Any, env: Any, env_index: int, metrics_logger: Any,
                        **kwargs: Any) -> None:
    """``on_episode_end`` callback: log the episode's masked-out actions as the
    ``env_runners/illegal_actions`` metric (summed over the episodes of an iteration)."""
    sub = env.envs[env_index].unwrapped.env  # PettingZooEnv -> RLlibObservations
    metrics_logger.log_value(ILLEGAL_METRIC, sub.illegal_actions, reduce="sum")


def list_checkpoints(root: str | Path) -> list[Path]:
    """The complete checkpoints (``step_<n>`` folders holding ``STATE``) under ``root``,
    oldest first by step; [] when ``root`` is not a folder."""
    root = Path(root)
    if not root.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in root.iterdir()
             if p.is_dir() and (m := CHECKPOINT.match(p.name)) and (p / STATE).is_file()]
    return [p for _, p in sorted(found)]


def latest_checkpoint(root: str | Path) -> Path | None:
    """The newest complete checkpoint under ``root``, or None."""
    found = list_checkpoints(root)
    return found[-1] if found else None
