"""A policy trained by ``experiments/rllib_train.py`` (Ray RLlib PPO) as an agent:
``make_agent("rllib:PATH")``, ``make_agent("rllib:PATH,policy=player_0")``.

``PATH`` is what the training run wrote, any of:

- a checkpoint folder (``<runs>/checkpoints/step_<env steps>/``: RLlib's
  ``Algorithm.save_to_path`` folders plus ``casino_env.json``, the env config and policies);
- a run's exported model (``<out>/model/``: ``casino_env.json`` and one RLModule folder per
  policy, written when a run ends; small enough to commit);
- a run folder: its ``model/`` if the run finished, else the latest checkpoint under its
  ``checkpoints/``.

The agent loads the RLModule of a policy (the shared one of a self-play run; in a per-seat run
each seat's own, or the one ``policy=`` names for every seat) and plays greedily, the argmax of
the masked logits (RLlib's ``forward_inference``), from its ``PlayerView`` only: it deals the
hidden cards at random consistently with the view (``view.determinize``) and encodes that state
with the env's ``Layout`` for its seat, which is the observation the RLlib env
(``casino_env.rllib.RLlibObservations``) gives that seat, because a seat's encoding never reads
the cards it cannot see. In compose mode it pushes sub-actions one at a time with
``casino_env.encoding.Composer`` (over the view's own moves and hand, whose copies of a
two-deck card are numbered as the view numbers them) until a move is complete (a forced
sub-action is taken without asking the network: the argmax over one legal action is that
action); in enumerate mode it
scores the env's move slots with their ``action_features``. Needs ``ray[rllib]`` and torch.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from casino_env.encoding import N_FEATURES, Composer, moves_features, overflow_order
from casino_env.engine import Move, State
from casino_env.engine.rules import Rules
from casino_env.engine.view import PlayerView
from casino_env.rllib import MODULES, SETTINGS, latest_checkpoint, split_env_config

from .base import Agent, describe_rules
from .registry import register_loader


class CheckpointNotFoundError(FileNotFoundError, ValueError):
    """A checkpoint or its settings file that is not there (a ValueError too, like every bad
    agent spec)."""


def resolve_checkpoint(path: str | Path) -> Path:
    """The folder holding ``casino_env.json`` that ``path`` names: itself (a checkpoint or an
    exported model), its ``model/`` (a finished run), or the latest complete checkpoint under
    its ``checkpoints/`` (or under itself). Raises ``CheckpointNotFoundError`` naming the path
    when there is none."""
    p = Path(path)
    if not p.exists():
        raise CheckpointNotFoundError(f"rllib checkpoint not found: {path}")
    if p.is_file():
        if p.name != SETTINGS:
            raise ValueError(f"rllib:PATH takes a checkpoint or run folder written by "
                             f"experiments/rllib_train.py, got the file {path}")
        p = p.parent
    if (p / SETTINGS).is_file():
        return p
    if (p / "model" / SETTINGS).is_file():
        return p / "model"
    latest = latest_checkpoint(p / "checkpoints") or latest_checkpoint(p)
    if latest is not None:
        return latest
    raise CheckpointNotFoundError(
        f"rllib checkpoint not found in {path}: no {SETTINGS} (experiments/rllib_train.py "
        "writes it into every checkpoint and exported model), no model/ and no complete "
        "checkpoints/step_<n>/")


def read_settings(folder: Path) -> dict[str, Any]:
    """The ``casino_env.json`` of a checkpoint folder, checked: ``env_config`` (a dict with the
    variant), ``policies`` (a non-empty list) and ``policy_mapping`` (seat -> policy)."""
    path = folder / SETTINGS
    try:
        settings = json.loads(path.read_text())
        env_config, policies = settings["env_config"], settings["policies"]
        mapping = settings["policy_mapping"]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as e:
        raise ValueError(f"rllib checkpoint settings {path} do not read: "
                         f"{type(e).__name__}: {e}") from e
    if not isinstance(env_config, dict) or "variant" not in env_config:
        raise ValueError(f"rllib checkpoint settings {path}: env_config must be an object "
                         f"with the variant, got {env_config!r}")
    if not isinstance(policies, list) or not policies or not isinstance(mapping, dict):
        raise ValueError(f"rllib checkpoint settings {path}: expected a list of policies and "
                         f"a policy mapping, got {policies!r} and {mapping!r}")
    return settings


def module_folder(folder: Path, policy: str) -> Path:
    """Where the RLModule of ``policy`` is in a checkpoint (``learner_group/learner/
    rl_module/<policy>``) or an exported model (``<policy>``)."""
    inside = folder / MODULES / policy
    return inside if (folder / MODULES).is_dir() else folder / policy


def load_module(folder: Path, policy: str) -> Any:
    """The RLModule of ``policy`` in the checkpoint ``folder`` (``RLModule.from_checkpoint``;
    Ray need not be running)."""
    try:
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError as e:
        raise ValueError(f"rllib:{folder} needs Ray RLlib (pip install -e '.[rllib]'): "
                         f"{e}") from e
    where = module_folder(folder, policy)
    if not where.is_dir():
        raise CheckpointNotFoundError(f"rllib checkpoint {folder}: the module of policy "
                                      f"{policy!r} is not there ({where})")
    try:
        return RLModule.from_checkpoint(str(where.resolve()))  # (pyarrow: an absolute path)
    except Exception as e:  # a corrupt or foreign folder: RLlib raises many kinds
        raise ValueError(f"rllib checkpoint {where} does not load as an RLModule: "
                         f"{type(e).__name__}: {e}") from e


class RLlibAgent(Agent):
    """Greedy play of an RLlib PPO policy (``ActionMaskingTorchRLModule``) from a checkpoint
    of ``experiments/rllib_train.py``; ``policy`` picks one of a per-seat run's policies for
    every seat (default: each seat plays the policy it was trained with)."""

    name = "rllib"

    def __init__(self, path: str | Path, seed: int | None = None,
                 policy: str | None = None) -> None:
        super().__init__(seed)
        import torch

        import casino_env

        torch.set_num_threads(1)  # more threads are much slower for one observation at a time
        self._torch = torch
        self.path = str(path)
        self.folder = resolve_checkpoint(path)
        settings = read_settings(self.folder)
        self.env_config: dict[str, Any] = dict(settings["env_config"])
        kwargs, _ = split_env_config(self.env_config)
        try:
            raw = casino_env.raw_env(**kwargs)
        except (TypeError, ValueError) as e:
            raise ValueError(f"rllib checkpoint settings {self.folder / SETTINGS}: the env "
                             f"config {self.env_config} does not make an env: {e}") from e
        self.rules: Rules = raw.rules
        self.layout = raw.layout
        self.compose = raw.compose
        self.max_moves = raw.max_moves
        self.n_actions = raw.n_actions
        self.policies: list[str] = [str(p) for p in settings["policies"]]
        if policy is not None and policy not in self.policies:
            raise ValueError(f"rllib:{path}: no policy {policy!r} in the checkpoint "
                             f"(policies: {', '.join(self.policies)})")
        mapping = settings["policy_mapping"]
        try:
            self.seat_policy = [policy or str(mapping[a]) for a in raw.possible_agents]
        except KeyError as e:
            raise ValueError(f"rllib checkpoint settings {self.folder / SETTINGS}: the policy "
                             f"mapping {mapping} has no seat {e}") from e
        self.policy = policy
        self.modules = {pid: load_module(self.folder, pid) for pid in dict.fromkeys(
            self.seat_policy)}
        size = self.layout.size + (0 if self.compose else self.max_moves * N_FEATURES)
        for pid, module in self.modules.items():
            got = module.observation_space["observations"].shape[0]
            if got != size or module.action_space.n != self.n_actions:
                raise ValueError(f"rllib checkpoint {self.folder}: policy {pid!r} takes "
                                 f"{got} features and {module.action_space.n} actions, the "
                                 f"env of its settings makes {size} and {self.n_actions}")
        self._obs = np.zeros(self.layout.size, np.float32)

    def check_rules(self, rules: Rules) -> None:
        """ValueError unless ``rules`` are the rules the policy was trained on (its
        observations and action numbering are those of that game only)."""
        if rules != self.rules:
            raise ValueError(f"this policy was trained on {describe_rules(self.rules)}, "
                             f"this game is {describe_rules(rules)}")

    # -- observations ---------------------------------------------------------------------
    def observation(self, state: State, composer: Composer | None = None,
                    moves: Sequence[Move] | None = None) -> dict[str, np.ndarray]:
        """What ``RLlibObservations`` shows the seat to move in ``state`` (any state the
        seat's view allows: its encoding does not read the hidden cards): in compose mode with
        ``composer``'s sub-actions taken so far, in enumerate mode for the move slots
        ``moves`` (the env's order, at most K)."""
        base = self._obs
        self.layout.encode(state, state.current, base)
        mask = np.zeros(self.n_actions, np.float32)
        if self.compose:
            if composer is None:
                raise ValueError("compose mode: give the composer of the move in progress")
            obs = base.copy()
            if composer.prefix:
                self.layout.encode_compose(state, composer.prefix, obs)
            mask[list(composer.options())] = 1
            return {"observations": obs, "action_mask": mask}
        if moves is None:
            raise ValueError("enumerate mode: give the moves of the slots")
        feats = np.zeros((self.max_moves, N_FEATURES), np.float32)
        moves_features(list(moves), feats)
        mask[:len(moves)] = 1
        return {"observations": np.concatenate([base, feats.reshape(-1)]),
                "action_mask": mask}

    def logits(self, obs: dict[str, np.ndarray], policy: str) -> np.ndarray:
        """The masked logits of ``policy`` for one observation (``forward_inference``)."""
        torch = self._torch
        batch = {"obs": {k: torch.as_tensor(v).unsqueeze(0) for k, v in obs.items()}}
        with torch.no_grad():
            out = self.modules[policy].forward_inference(batch)
        return out["action_dist_inputs"][0].numpy()

    def _best(self, obs: dict[str, np.ndarray], policy: str) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        return int(legal[np.argmax(self.logits(obs, policy)[legal])])

    # -- choosing ---------------------------------------------------------------------------
    def choose(self, view: PlayerView) -> Move:
        self.check_rules(view.rules)
        moves = view.legal_moves()
        if len(moves) == 1:
            return moves[0]
        policy = self.seat_policy[view.seat]
        state = view.determinize(self.rng)
        if not self.compose:
            slots = overflow_order(moves)[:self.max_moves] if len(moves) > self.max_moves \
                else moves
            return slots[self._best(self.observation(state, moves=slots), policy)]
        # The composer narrows the view's own moves on the view's state: with two decks the
        # dealt state numbers the copies afresh, so its hand would not match these moves.
        # Tokens are card kinds, so the observation of the dealt state fits this composer.
        comp = Composer(view.state, moves)
        while True:
            options = comp.options()
            if len(options) == 1:
                token = next(iter(options))
            else:
                token = self._best(self.observation(state, composer=comp), policy)
            move = comp.push(token)
            if move is not None:
                return move

    def __repr__(self) -> str:
        return (f"RLlibAgent({self.path!r}, {describe_rules(self.rules)}, "
                f"policies {self.seat_policy}, seed={self.seed})")


def load_rllib(path: str, seed: int | None = None, policy: str | None = None) -> RLlibAgent:
    """The loader behind ``rllib:PATH`` (``rllib:PATH,policy=player_0``)."""
    return RLlibAgent(path, seed=seed, policy=policy)


register_loader("rllib", load_rllib)

__all__ = ["CheckpointNotFoundError", "RLlibAgent", "load_rllib", "resolve_checkpoint"]
