"""Train a MaskablePPO agent for one preset: optionally a behaviour-cloning warm start, then
PPO against an opponent pool (scripted agents and snapshots of the learner), with periodic
evaluation, checkpoints a run can resume from, and a final evaluation.

One command per result (a TOML file per variant in ``experiments/configs/``; the from-scratch
RL baselines in ``experiments/configs/scratch/``, see docs/rl_baselines.md)::

    python -m experiments.train --config experiments/configs/casino.toml
    python -m experiments.train --config experiments/configs/casino.toml --steps 20000 \\
        --minutes 5 --out /tmp/casino_try
    python -m experiments.train --config experiments/configs/scratch/casino.toml --seed 1
    python -m experiments.train --config experiments/configs/scratch/casino.toml --seed 1 \\
        --resume                      # continue it after an interruption
    python -m experiments.train --config experiments/configs/scratch/casino.toml --seed 1 \\
        --minutes 240 --resume        # extend it (a finished run too) to 4 hours in all

The shipped cloned baselines were written with ``--out experiments/results/train/<variant>``;
without ``--out`` a run goes to ``runs/train/<name>`` (git-ignored), never over a shipped
model. ``<name>`` is ``run.name`` with ``{variant}`` and ``{seed}`` filled in (default: the
variant; the scratch configs: ``scratch_<variant>_s<seed>``).

Pipeline (everything counts against ``run.time_limit_minutes``, summed over resumptions,
except the final evaluation):

1. ``bc``: the learning seat of ``TrainEnv`` follows a teacher (the heuristic) for
   ``bc.decisions`` decisions; the policy is fitted to its choices and the critic to the hands'
   results (``experiments.bc``). Skipped when ``bc.decisions = 0``. ``bc.score_temperature``
   > 0 fits the policy to softmax(teacher score / T) over the moves a search teacher scored
   instead of its single choice; ``bc.save_demos`` / ``bc.load_demos`` (an ``.npz`` path)
   keep the collected decisions so that fits can be compared on the same data.
   ``bc.dagger_rounds`` > 0 then runs DAgger: each round the fitted policy plays
   ``bc.dagger_decisions`` decisions (0: ``bc.decisions``; the teacher's move with probability
   ``bc.dagger_beta``), the teacher labels them, and the policy is refitted from its initial
   weights on all decisions so far (``bc.dagger_continue = true``: the fit continues from the
   last round's).
2. ``ppo``: MaskablePPO on ``ppo.n_envs`` environments (``vec = "dummy"``: this process;
   ``"subproc"``: ``ppo.workers`` processes each stepping a group of them). The other seats
   are drawn per hand from ``opponents.pool`` (weights; ``self`` = snapshots of the learner,
   refreshed every ``opponents.snapshot_every`` steps, the last ``opponents.snapshots`` kept).
3. Every ``eval.every`` steps (and once at the end): duplicate-deal single hands against each
   scripted opponent (``agents.play_match``), hands won with Wilson and paired intervals and
   mean point difference, written to ``learning_curve.csv``/``.png`` (x: environment steps
   and wall-clock minutes) and TensorBoard.
4. Final model (``model.zip`` + ``model.json``), the config, ``train_log.json`` (with the
   frames/s beside the connect-four reference of ``experiments.bench_train``) and the final
   evaluation (``eval_final.md``/``.csv``/``.json``) go to ``--out`` (default
   ``runs/train/<name>``); checkpoints and TensorBoard logs to ``--runs`` (default
   ``runs/train/<name>`` too, as ``checkpoints/`` and ``tb/``). ``runs/`` is not kept in git.

Fine-tuning a trained model (issue 17 item 2; docs/baselines.md, "Fine-tuning after
cloning"): ``ppo.init_model = "<model.zip or its folder>"`` starts PPO from that model's
policy and value weights instead of cloning (``bc.decisions`` must be 0; the model's
environment and network must be the config's). ``ppo.value_warmup_steps`` = N: the PPO
iterations of the first N steps update only the critic; ``ppo.kl_anchor`` = beta adds
beta * KL(pi_start || pi) on each minibatch's states to PPO's loss, pi_start being the policy
PPO started from (``experiments.finetune.FineTunePPO``); ``ppo.value_warmup_learning_rate``
is the learning rate of the warm-up iterations (default: the run's). Every run writes
``ppo_diagnostics.csv``/``.png`` (one row per PPO iteration: the critic's explained variance,
KL to the start policy, share of argmax moves changed, entropy, clip fraction, losses, mean
|advantage|); ``run.save_every`` = N keeps a copy of the model every N steps in
``<out>/models/step_<n>/``. With their defaults (none, 0, 0.0, 0) a run is what it was.

``run.from_scratch = true`` marks a config as reinforcement learning from scratch and makes
``train`` refuse it if it gives the learner any scripted agent's knowledge (hints, a
duplicate baseline, behaviour cloning, a heuristic prior); scripted agents may only be
opponents and evaluators. Its ``eval_final.md`` then says "RL from scratch".

Checkpoints (``<runs>/checkpoints/step_<steps>/``: the model with its optimizer state and
step counter, the self-play snapshots, the learning-curve rows, the elapsed time and
counters, the random generators' states) are written every ``run.checkpoint_every`` steps
and every ``run.checkpoint_minutes`` of wall-clock, between PPO iterations, each to a
temporary folder renamed into place (a run killed at any moment leaves the previous ones
whole); the last two are kept. ``--resume`` continues from the latest one with the same
config (``ppo.timesteps``, ``run.time_limit_minutes`` and the checkpoint and final-evaluation
settings may change) and the same TensorBoard log; a finished run resumes the same way when
``--steps`` and ``--minutes`` leave it steps to take and time to take them in (the time limit
counts all sessions). A resumed run is deterministic (resuming the same checkpoint twice
gives the same run) but not identical to one never interrupted: the environments' hands in
flight are not saved, so it continues on newly seeded deals.
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import math
import os
import pickle
import platform
import random
import re
import shutil
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gymnasium  # noqa: F401  (import before casino_env.single, see experiments/train_env.py)
import numpy as np
import torch

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover (python 3.10)
    import tomli as tomllib

from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure as configure_logger
from stable_baselines3.common.vec_env import VecEnv

from agents.ppo import (
    ENV_KEYS,
    MoveScoringPolicy,
    PPOAgent,
    env_config_path,
    save_env_config,
    scorer_segments,
    snapshot_policy,
    table_values,
)
from agents.tournament import play_match
from casino_env.encoding import Layout
from casino_env.engine.rules import make_rules
from experiments import bc
from experiments.checkpoint_files import publish
from experiments.curves import Metric, plot_steps_and_minutes, write_table
from experiments.finetune import DIAG_FIELDS, FineTunePPO, plot_diagnostics
from experiments.stats import summarize_pair
from experiments.train_env import make_train_vec_env

DEFAULTS: dict[str, Any] = {
    "env": {"variant": "casino", "players": 2, "partnerships": None,
            "action_mode": "enumerate", "max_moves": 128, "episode": "hand",
            "reward": "points", "reward_scale": 0.1, "win_bonus": 0.0, "auto_forced": True,
            "hints": None, "baseline": None, "observation": "full", "last_capturer": False,
            "privileged": False,
            "reward_shaping": None, "switches": {}},
    "policy": {"hidden": 256, "pair_hidden": 128, "layers": 2, "net_arch": [256, 256],
               "prior_temperature": 0.0, "table_sums": False},
    "bc": {"teacher": "heuristic", "decisions": 0, "explore": 0.05, "epochs": 3,
           "batch_size": 512, "learning_rate": 1e-3, "value_coef": 0.5, "temperature": 0.0,
           "score_temperature": 0.0, "save_demos": "", "load_demos": "",
           "dagger_rounds": 0, "dagger_decisions": 0, "dagger_beta": 0.0,
           "dagger_continue": False,
           "opponents": {"heuristic": 3, "greedy": 1, "random": 1}, "workers": 2},
    "ppo": {"timesteps": 1_000_000, "n_envs": 16, "vec": "dummy", "workers": 2,
            "n_steps": 128, "batch_size": 512, "n_epochs": 4, "learning_rate": 3e-4,
            "learning_rate_final": None, "gamma": 1.0, "gae_lambda": 0.95,
            "clip_range": 0.2, "ent_coef": 0.01, "vf_coef": 0.5, "max_grad_norm": 0.5,
            "target_kl": None, "init_model": "", "value_warmup_steps": 0,
            "value_warmup_learning_rate": None, "kl_anchor": 0.0},
    "opponents": {"pool": {"heuristic": 1, "greedy": 1, "random": 1}, "snapshot_every": 0,
                  "snapshots": 4, "snapshot_deterministic": False},
    "eval": {"every": 100_000, "hands": {"random": 100, "greedy": 200, "heuristic": 200},
             "final_hands": {"random": 1000, "greedy": 1000, "heuristic": 1000},
             "seed": 1234, "final_seed": 98765},
    "run": {"seed": 0, "name": "", "from_scratch": False, "time_limit_minutes": 55.0,
            "checkpoint_every": 250_000, "checkpoint_minutes": 10.0, "save_every": 0,
            "progress": True, "verbose": True},
}
SCRIPTED = ("random", "greedy", "heuristic", "search")
RUNS = Path("runs/train")  # git-ignored: default results, checkpoints and TensorBoard logs


KEEP_CHECKPOINTS = 2  # checkpoints kept under <runs>/checkpoints (the newest)
# Settings that may differ between a run and its resumption (budgets, checkpoints, output).
RESUMABLE_CHANGES = {("ppo", "timesteps"), ("run", "time_limit_minutes"),
                     ("run", "checkpoint_every"), ("run", "checkpoint_minutes"),
                     ("run", "progress"), ("run", "verbose"), ("eval", "final_hands"),
                     ("eval", "final_seed"), ("run", "save_every")}


class RunStateError(Exception):
    """A run cannot start or resume as asked (no checkpoint, another run's checkpoints,
    a config that differs from the checkpoint's); the message says what to do."""


def default_out(variant: str) -> Path:
    """Where a run writes without ``--out`` (and its checkpoints without ``--runs``):
    ``runs/train/<variant>``, git-ignored, so that no run overwrites a shipped model."""
    return RUNS / variant


def run_name(cfg: dict) -> str:
    """The run's name: ``run.name`` with ``{variant}`` and ``{seed}`` filled in (so that each
    seed of a config gets its own folder), or the variant when it is empty."""
    template = str(cfg["run"].get("name") or "")
    if not template:
        return cfg["env"]["variant"]
    try:
        return template.format(variant=cfg["env"]["variant"], seed=cfg["run"]["seed"])
    except (KeyError, IndexError, ValueError) as exc:
        raise ValueError(f"run.name {template!r}: only {{variant}} and {{seed}} can be filled "
                         f"in ({exc})") from None


def run_dir(cfg: dict) -> Path:
    """``runs/train/<run name>``: the default of both ``--out`` and ``--runs``."""
    return RUNS / run_name(cfg)


def check_from_scratch(cfg: dict) -> None:
    """With ``run.from_scratch = true``, refuse every setting that puts a scripted agent's
    moves, move scores or hand outcomes into the learner's observation, policy prior, initial
    weights or reward (issue 17's definition), so that a run labelled "from scratch" is one.
    Scripted agents remain allowed as opponents (``opponents.pool``) and evaluators."""
    if not cfg["run"].get("from_scratch"):
        return
    e, b, pol = cfg["env"], cfg["bc"], cfg["policy"]
    problems = []
    if e.get("hints"):
        problems.append(f"env.hints = {e['hints']!r} puts the {e['hints']}'s move scores in "
                        "the observation")
    if e.get("baseline"):
        problems.append(f"env.baseline = {e['baseline']!r} puts the {e['baseline']}'s hand "
                        "outcomes in the reward")
    if int(b.get("decisions") or 0) > 0:
        problems.append(f"bc.decisions = {b['decisions']} clones the {b['teacher']}'s moves "
                        "into the initial weights (set it to 0)")
    if b.get("load_demos"):
        problems.append(f"bc.load_demos = {b['load_demos']!r} clones recorded moves")
    if int(b.get("dagger_rounds") or 0) > 0:
        problems.append(f"bc.dagger_rounds = {b['dagger_rounds']} fits a teacher's labels")
    if float(pol.get("prior_temperature") or 0.0) > 0:
        problems.append(f"policy.prior_temperature = {pol['prior_temperature']} starts the "
                        "policy from the heuristic's move scores")
    if cfg["ppo"].get("init_model"):
        problems.append(f"ppo.init_model = {cfg['ppo']['init_model']!r} starts from a trained "
                        "model's weights")
    if problems:
        raise ValueError("run.from_scratch = true, but " + "; ".join(problems) + ". A "
                         "from-scratch run may use scripted agents only as opponents and "
                         "evaluators.")


def check_privileged(cfg: dict) -> None:
    """``env.privileged`` (hidden cards for the critic) needs the move-scoring policy
    (enumerate mode) and no behaviour cloning, whose recorded decisions do not keep them."""
    e, b = cfg["env"], cfg["bc"]
    if not e.get("privileged"):
        return
    if e["action_mode"] != "enumerate":
        raise ValueError("env.privileged feeds the hidden cards to the move-scoring policy's "
                         "critic: it needs env.action_mode = \"enumerate\"")
    if int(b.get("decisions") or 0) or b.get("load_demos"):
        raise ValueError("env.privileged: behaviour cloning (bc.decisions, bc.load_demos) does "
                         "not record the hidden cards the critic reads; set bc.decisions = 0")


def check_shaping(cfg: dict) -> None:
    """``env.reward_shaping`` adds differences of a potential, which leaves every policy's
    ranking alone only without discounting: it needs ``ppo.gamma = 1``."""
    if cfg["env"].get("reward_shaping") and float(cfg["ppo"]["gamma"]) != 1.0:
        raise ValueError(f"env.reward_shaping needs ppo.gamma = 1 (got {cfg['ppo']['gamma']}): "
                         "with discounting the shaped rewards would change which policy is "
                         "best")


def check_fine_tuning(cfg: dict) -> None:
    """The fine-tuning settings make sense together: ``ppo.init_model`` (PPO from a trained
    model's weights) excludes behaviour cloning, which would start from scratch again;
    ``ppo.value_warmup_steps`` >= 0, ``ppo.value_warmup_learning_rate`` > 0 (or unset) and
    ``ppo.kl_anchor`` >= 0."""
    p, b = cfg["ppo"], cfg["bc"]
    if p.get("init_model"):
        cloning = [f"bc.decisions = {b['decisions']}" if int(b.get("decisions") or 0) else "",
                   f"bc.load_demos = {b['load_demos']!r}" if b.get("load_demos") else "",
                   f"bc.dagger_rounds = {b['dagger_rounds']}"
                   if int(b.get("dagger_rounds") or 0) else ""]
        cloning = [c for c in cloning if c]
        if cloning:
            raise ValueError(f"ppo.init_model = {p['init_model']!r} fine-tunes a trained model "
                             f"with PPO, but {', '.join(cloning)} would clone a teacher first; "
                             "set bc.decisions = 0 (--bc-decisions 0) to fine-tune the model "
                             "as it is")
    steps = p.get("value_warmup_steps") or 0
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
        raise ValueError(f"ppo.value_warmup_steps must be a whole number of steps >= 0, got "
                         f"{steps!r}")
    lr = p.get("value_warmup_learning_rate")
    if lr is not None and (isinstance(lr, bool) or not isinstance(lr, (int, float))
                           or not lr > 0):
        raise ValueError(f"ppo.value_warmup_learning_rate must be a number > 0, got {lr!r}")
    beta = p.get("kl_anchor") or 0.0
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not beta >= 0:
        raise ValueError(f"ppo.kl_anchor must be a number >= 0, got {beta!r}")


# -- configuration -------------------------------------------------------------------------------

# Tables replaced as a whole by a config file (weights and counts, not settings to merge).
WHOLE = {("opponents", "pool"), ("bc", "opponents"), ("eval", "hands"), ("eval", "final_hands"),
         ("env", "switches")}


def _merge(base: dict, over: dict, path: tuple = ()) -> dict:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict) and path + (k,) not in WHOLE:
            out[k] = _merge(out[k], v, path + (k,))
        else:
            out[k] = copy.deepcopy(v)
    return out


def parse_setting(item: str) -> tuple[str, str, Any]:
    """``"section.key=value"`` (value in TOML syntax; a bare word is taken as a string) to
    ``(section, key, value)``; an unknown section or key is an error naming it."""
    name, sep, text = item.partition("=")
    section, dot, key = name.strip().partition(".")
    if not sep or not dot:
        raise SystemExit(f"--set {item!r}: expected SECTION.KEY=VALUE, e.g. bc.epochs=20")
    if section not in DEFAULTS or key not in DEFAULTS[section]:
        known = ", ".join(f"{section}.{k}" for k in DEFAULTS.get(section, {})) or \
            ", ".join(DEFAULTS)
        raise SystemExit(f"--set {item!r}: unknown setting {name.strip()!r} (known: {known})")
    try:
        value = tomllib.loads(f"v = {text.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = text.strip()
    return section, key, value


def load_config(path: str | Path | None = None, overrides: dict | None = None) -> dict:
    """The defaults, updated by a TOML file and then by ``overrides`` (nested dicts)."""
    cfg = copy.deepcopy(DEFAULTS)
    if path is not None:
        with open(path, "rb") as f:
            cfg = _merge(cfg, tomllib.load(f))
    if overrides:
        cfg = _merge(cfg, overrides)
    return cfg


def env_config(cfg: dict) -> dict:
    """What a model needs to rebuild its observations (saved beside it, read by PPOAgent)."""
    e = cfg["env"]
    return {"variant": e["variant"], "players": e["players"],
            "partnerships": e.get("partnerships"), "action_mode": e["action_mode"],
            "max_moves": e["max_moves"], "auto_forced": e["auto_forced"],
            "switches": dict(e.get("switches") or {}), "hints": e.get("hints") or None,
            "observation": e.get("observation") or "full",
            "last_capturer": bool(e.get("last_capturer") or False)}


def env_kwargs(cfg: dict, opponent: object = "random") -> dict:
    """Keyword arguments of ``TrainEnv`` for the learner's environments."""
    e = cfg["env"]
    kw = dict(variant=e["variant"], players=e["players"], partnerships=e.get("partnerships"),
              action_mode=e["action_mode"], episode=e["episode"], reward=e["reward"],
              auto_forced=e["auto_forced"], max_moves=e["max_moves"],
              dict_obs=e["action_mode"] == "enumerate", reward_scale=e["reward_scale"],
              win_bonus=float(e.get("win_bonus") or 0.0), hints=e.get("hints") or None,
              baseline=e.get("baseline") or None, opponent=opponent,
              observation=e.get("observation") or "full",
              last_capturer=e.get("last_capturer") or False)
    if e.get("privileged"):  # hidden cards for the critic only (enumerate mode)
        kw["privileged"] = True
    if e.get("reward_shaping"):  # the points so far as a potential (the game's own scoring)
        kw["reward_shaping"] = e["reward_shaping"]
    kw.update(e.get("switches") or {})
    return kw


def weighted_pool(weights: dict[str, float], snapshots: Sequence[object] = ()) -> list:
    """A list to draw opponents from uniformly that has the given weights: scripted names
    (and agent specs) by weight, ``self`` split evenly over ``snapshots`` (dropped if none)."""
    snaps = list(snapshots)
    w = {k: float(v) for k, v in weights.items() if v and (k != "self" or snaps)}
    if not w:
        raise ValueError("the opponent pool is empty")
    reps = max(1, len(snaps)) if "self" in w else 1
    vals = [v * reps for v in w.values() if v]
    vals += [w["self"]] if "self" in w else []
    # smallest integer multiplier that makes every count (nearly) integral
    scale = 1
    while scale < 100 and any(abs(v * scale - round(v * scale)) > 1e-6 for v in vals):
        scale += 1
    pool: list = []
    for name, v in w.items():
        if name == "self":
            for s in snaps:
                pool += [s] * max(1, round(v * scale))
        else:
            pool += [name] * max(1, round(v * reps * scale))
    return pool


def build_model(cfg: dict, venv, tensorboard_log: str | None, seed: int) -> FineTunePPO:
    """MaskablePPO (``FineTunePPO``: with the defaults, sb3's own training step plus
    diagnostics) with ``MoveScoringPolicy`` (enumerate) or an MLP policy (compose)."""
    p, pol, e = cfg["ppo"], cfg["policy"], cfg["env"]
    lr0, lr1 = p["learning_rate"], p.get("learning_rate_final")
    lr = lr0 if lr1 is None else (lambda progress: lr1 + (lr0 - lr1) * progress)
    if e["action_mode"] == "enumerate":
        if (e.get("observation") or "full") != "full":
            raise ValueError("env.observation: the move-scoring policy (enumerate mode) reads "
                             "the full layout's card planes; use observation = \"full\"")
        layout = Layout(make_rules(e["variant"], e["players"], e.get("partnerships"),
                                   dict(e.get("switches") or {})), compose=False,
                        last_capturer=bool(e.get("last_capturer") or False))
        policy: Any = MoveScoringPolicy
        policy_kwargs = {"scorer_kwargs": {
            "segments": scorer_segments(layout), "deck_size": layout.rules.deck.size,
            "hidden": pol["hidden"], "pair_hidden": pol["pair_hidden"],
            "layers": pol["layers"],
            "prior_temperature": float(pol.get("prior_temperature") or 0.0)}}
        if pol.get("table_sums"):  # which sums the table each move leaves can make
            policy_kwargs["scorer_kwargs"].update(table_values(layout.rules))
    else:
        policy = "MlpPolicy"
        policy_kwargs = {"net_arch": list(pol["net_arch"])}
    return FineTunePPO(policy, venv, learning_rate=lr, n_steps=p["n_steps"],
                       batch_size=p["batch_size"], n_epochs=p["n_epochs"], gamma=p["gamma"],
                       gae_lambda=p["gae_lambda"], clip_range=p["clip_range"],
                       ent_coef=p["ent_coef"], vf_coef=p["vf_coef"],
                       max_grad_norm=p["max_grad_norm"], target_kl=p.get("target_kl"),
                       policy_kwargs=policy_kwargs, tensorboard_log=tensorboard_log,
                       seed=seed, device="cpu", verbose=0,
                       **fine_tuning_kwargs(cfg))


def fine_tuning_kwargs(cfg: dict) -> dict:
    """``FineTunePPO``'s settings from the config (``ppo.value_warmup_steps``,
    ``value_warmup_learning_rate``, ``kl_anchor``)."""
    p = cfg["ppo"]
    lr = p.get("value_warmup_learning_rate")
    return {"value_warmup_steps": int(p.get("value_warmup_steps") or 0),
            "value_warmup_learning_rate": None if lr is None else float(lr),
            "kl_anchor": float(p.get("kl_anchor") or 0.0)}


def _model_file(path: str | Path) -> Path:
    """``path`` as a model file: a folder means its ``model.zip``; ``x`` may stand for
    ``x.zip`` (MaskablePPO.load's convention)."""
    p = Path(path)
    if p.is_dir():
        return p / "model.zip"
    if not p.exists() and p.suffix != ".zip" and Path(f"{p}.zip").is_file():
        return Path(f"{p}.zip")
    return p


def _normal_env(config: dict) -> dict:
    """A model's environment settings with the defaults filled in (older side-cars omit
    ``observation`` and ``last_capturer``; ``switches`` may be null)."""
    out = {k: config.get(k) for k in ENV_KEYS}
    out["observation"] = out["observation"] or "full"
    out["last_capturer"] = bool(out["last_capturer"] or False)
    out["switches"] = dict(out["switches"] or {})
    out["hints"] = out["hints"] or None
    return out


def _architecture(policy) -> dict:
    """What must match for a policy's weights to mean the same in another: its class, its
    observation and action spaces and its network settings."""
    params = policy._get_constructor_parameters()
    arch = {"policy class": type(policy).__name__,
            "observation space": str(policy.observation_space),
            "action space": str(policy.action_space)}
    if "scorer_kwargs" in params:
        kw = dict(params["scorer_kwargs"])
        kw.pop("segments", None)  # follows from the variant, compared with the environment
        arch.update({f"policy.{k}": v for k, v in sorted(kw.items()) if k != "deck_size"})
    else:
        arch["policy.net_arch"] = params.get("net_arch")
    return arch


def load_init_model(model: MaskablePPO, cfg: dict) -> dict:
    """Put the policy (actor and critic) weights of ``ppo.init_model`` into ``model``: PPO
    then fine-tunes that model (a fresh optimizer; the learner's step counter starts at 0).
    The model must have been trained on the config's environment (its ``model.json``) with
    the config's network; a difference is a ValueError naming the settings. Returns what
    the training log records (the path, the file's SHA-256)."""
    import hashlib

    given = str(cfg["ppo"]["init_model"])
    path = _model_file(given)
    where = f"ppo.init_model = {given!r}"
    if not path.is_file():
        raise ValueError(f"{where}: no model file {path}")
    side = env_config_path(path)
    if side.is_file():
        saved = _normal_env(json.loads(side.read_text()))
        now = _normal_env(env_config(cfg))
        diff = [f"env.{k} ({saved[k]!r} in the model, {now[k]!r} in the config)"
                for k in ENV_KEYS if saved[k] != now[k]]
        if diff:
            raise ValueError(f"{where} was trained on another environment: {'; '.join(diff)}")
    states = rng_states()  # loading reseeds the global generators with the model's seed
    try:
        src = MaskablePPO.load(path, device="cpu")
    except Exception as exc:  # a corrupt or foreign file: sb3 raises many kinds
        raise ValueError(f"{where}: {path} does not load as a MaskablePPO model: "
                         f"{type(exc).__name__}: {exc}") from exc
    finally:
        set_rng_states(states)
    a, b = _architecture(src.policy), _architecture(model.policy)
    diff = [f"{k} ({a.get(k)!r} in the model, {b.get(k)!r} in the config)"
            for k in dict.fromkeys([*a, *b]) if a.get(k) != b.get(k)]
    if diff:
        raise ValueError(f"{where} has another network: {'; '.join(diff)}")
    try:
        model.policy.load_state_dict(src.policy.state_dict())
    except RuntimeError as exc:
        raise ValueError(f"{where}: its weights do not fit the config's network: {exc}") \
            from exc
    return {"path": given, "file": str(path),
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


# -- evaluation ---------------------------------------------------------------------------------

def evaluate_agent(agent: PPOAgent, cfg: dict, hands: dict[str, int], seed: int,
                   progress: bool = False) -> list[dict]:
    """Single hands on duplicate deals (each deal once per seat rotation) against each
    opponent; one row per opponent: hands won (draws count half) with the paired interval
    over deals and the Wilson interval over hands, and the mean point difference per hand."""
    e = cfg["env"]
    rows = []
    for opp, n in hands.items():
        if not n:
            continue
        deals = max(1, math.ceil(n / 2))
        t0 = time.perf_counter()
        res = play_match([agent, opp], e["variant"], e["players"], deals=deals, seed=seed,
                         mode="hand", partnerships=e.get("partnerships"), progress=progress,
                         labels=["ppo", opp], **(e.get("switches") or {}))
        s = summarize_pair(res)
        rows.append({"opponent": opp, "hands": s.games, "wins": s.wins, "draws": s.draws,
                     "losses": s.losses, "win_rate": s.win_rate, "paired_lo": s.win_lo,
                     "paired_hi": s.win_hi, "wilson_lo": s.wilson_lo, "wilson_hi": s.wilson_hi,
                     "diff_per_hand": s.diff_per_hand, "diff_lo": s.diff_lo,
                     "diff_hi": s.diff_hi, "seconds": time.perf_counter() - t0})
    return rows


CURVE_FIELDS = ("timesteps", "minutes", "phase", "opponent", "hands", "wins", "draws", "losses",
                "win_rate", "paired_lo", "paired_hi", "wilson_lo", "wilson_hi",
                "diff_per_hand", "diff_lo", "diff_hi", "seconds")


def write_curve(rows: list[dict], out: Path) -> None:
    """``learning_curve.csv`` and ``learning_curve.png`` (win rate per opponent over time)."""
    write_table(out, "learning_curve", CURVE_FIELDS, rows, plot_curve)


def write_diagnostics(rows: list[dict], out: Path) -> None:
    """``ppo_diagnostics.csv`` and ``.png``: one row per PPO iteration (``FineTunePPO``:
    the critic's explained variance, KL to the start policy, entropy, clip fraction, ...)."""
    if rows:
        write_table(out, "ppo_diagnostics", DIAG_FIELDS, rows, plot_diagnostics)


BC_FIELDS = ("epoch", "train_ce", "holdout_ce", "holdout_accuracy", "train_value_mse",
             "holdout_value_mse", "seconds", "round")


def write_bc_curve(epochs: list[dict], out: Path) -> None:
    """``bc_curve.csv`` and ``bc_curve.png``: behaviour cloning's loss and held-out agreement
    with the teacher per epoch (the learning curve of the cloning phase)."""
    if epochs:
        write_table(out, "bc_curve", BC_FIELDS, epochs, plot_bc_curve)


def plot_bc_curve(epochs: list[dict], path: Path) -> None:
    """Cross-entropy to the teacher's move (train, held out) and held-out agreement, per epoch."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [e["epoch"] for e in epochs]
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    axes[0].plot(x, [e["train_ce"] for e in epochs], "o-", ms=3, label="train")
    axes[0].plot(x, [e["holdout_ce"] for e in epochs], "o-", ms=3, label="held out")
    axes[0].set_ylabel("cross-entropy to the teacher's move")
    axes[1].plot(x, [e["holdout_accuracy"] for e in epochs], "o-", ms=3, color="#c44e52")
    axes[1].set_ylabel("held-out agreement with the teacher")
    starts = [e["epoch"] - 0.5 for i, e in enumerate(epochs)
              if i and e.get("round", 0) != epochs[i - 1].get("round", 0)]
    for ax in axes:
        for x0 in starts:  # a DAgger round: the student's states added, the policy refitted
            ax.axvline(x0, color="grey", ls=":", lw=1)
        ax.set_xlabel("behaviour cloning epoch" + (" (dotted: DAgger rounds)" if starts else ""))
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_curve(rows: list[dict], path: Path) -> None:
    """Hands won (Wilson 95% band) and point difference per hand against each opponent, over
    environment steps (left) and wall-clock minutes (right)."""
    steps = max((r["timesteps"] for r in rows), default=0)
    title = (f"learning curve ({steps:,} PPO steps)" if steps else
             "after behaviour cloning (no PPO)" if any(r.get("phase") == "bc" for r in rows)
             else "before training")
    plot_steps_and_minutes(rows, path, [
        Metric("win_rate", "wilson_lo", "wilson_hi", "hands won (draws half), 95% Wilson band",
               refs=((0.5, "--"), (0.95, ":")), ylim=(0, 1.02)),
        Metric("diff_per_hand", "diff_lo", "diff_hi",
               "points per hand, PPO - opponent (95% CI)", refs=((0.0, "-"),))],
        title=title, minutes_label="wall-clock minutes of the run (over resumptions)")


# -- checkpoints --------------------------------------------------------------------------------

@dataclass
class RunState:
    """What a run needs besides its model to continue after an interruption: its counters
    (steps of the next snapshot, evaluation and checkpoint), its clocks (seconds of the whole
    run, of PPO and of the periodic evaluations, summed over resumptions), whether it has
    finished, and the resumptions so far. Saved as ``state.json`` in every checkpoint."""

    run_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    timesteps: int = 0
    elapsed_seconds: float = 0.0
    ppo_seconds: float = 0.0
    eval_seconds: float = 0.0
    next_snapshot: int = 0
    next_eval: int = 0
    next_checkpoint: int = 0
    next_save: int = 0
    last_checkpoint_seconds: float = 0.0
    finished: bool = False
    stopped_by_time: bool = False
    tensorboard_dir: str | None = None
    resumes: list[dict] = field(default_factory=list)

    @classmethod
    def start(cls, cfg: dict) -> RunState:
        """A new run's state: the first snapshot, evaluation and checkpoint one period in."""
        o, ev, r = cfg["opponents"], cfg["eval"], cfg["run"]
        return cls(next_snapshot=int(o.get("snapshot_every") or 0),
                   next_eval=int(ev.get("every") or 0),
                   next_checkpoint=int(r.get("checkpoint_every") or 0),
                   next_save=int(r.get("save_every") or 0))


@dataclass
class Checkpoint:
    """One checkpoint folder read back: its run state, config, learning-curve rows,
    training log and PPO diagnostics (the model, snapshots and random states stay on disk
    until loaded)."""

    path: Path
    state: RunState
    config: dict
    curve: list[dict]
    log: dict
    diagnostics: list[dict] = field(default_factory=list)

    @classmethod
    def read(cls, path: Path) -> Checkpoint:
        data = json.loads((path / "state.json").read_text())
        return cls(path, RunState(**data["state"]), data["config"], data["curve"], data["log"],
                   data.get("diagnostics") or [])


CHECKPOINT = re.compile(r"step_(\d+)$")


def list_checkpoints(root: Path) -> list[Path]:
    """The complete checkpoints under ``root``, oldest first (by step; a folder becomes
    ``step_<n>`` only once everything in it is written, so partial ones never count)."""
    if not root.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in root.iterdir()
             if p.is_dir() and (m := CHECKPOINT.match(p.name)) and (p / "state.json").exists()]
    return [p for _, p in sorted(found)]


def latest_checkpoint(root: Path) -> Path | None:
    """The newest complete checkpoint under ``root``, or None."""
    found = list_checkpoints(root)
    return found[-1] if found else None


def rng_states() -> dict:
    """The global random generators that PPO draws from (action sampling: torch; minibatch
    order: numpy; python's for completeness)."""
    return {"python": random.getstate(), "numpy": np.random.get_state(),
            "torch": torch.get_rng_state()}


def set_rng_states(states: dict) -> None:
    """Put back what ``rng_states`` returned."""
    random.setstate(states["python"])
    np.random.set_state(states["numpy"])
    torch.set_rng_state(states["torch"])


def write_checkpoint(root: Path, model: MaskablePPO, cfg: dict, snapshots: Sequence[PPOAgent],
                     state: RunState, curve: list[dict], log: dict,
                     keep: int = KEEP_CHECKPOINTS) -> Path:
    """Write ``root/step_<steps>``: the model with its optimizer state (``model.zip`` and
    ``model.json``, so that ``ppo:<folder>`` plays it), the self-play snapshots' weights,
    the policy PPO started from (``start_policy.pt``, for the KL anchor and diagnostics),
    the random generators' states and ``state.json`` (run state, config, curve rows, log,
    the PPO diagnostics).
    Everything goes to a temporary folder first, flushed to disk, then renamed into place:
    a run killed at any moment leaves every earlier checkpoint whole. Keeps the newest
    ``keep`` checkpoints and returns the new one's path."""
    root.mkdir(parents=True, exist_ok=True)
    for stale in root.glob(".tmp_*"):  # left by a run killed while writing
        shutil.rmtree(stale, ignore_errors=True)
    step = int(state.timesteps)
    tmp = root / f".tmp_step_{step}_{os.getpid()}"
    tmp.mkdir()
    model.save(tmp / "model.zip")
    save_env_config(tmp / "model.zip", env_config(cfg))
    torch.save([s.policy.state_dict() for s in snapshots], tmp / "snapshots.pt")
    start = getattr(model, "start_policy", None)
    if start is not None:
        torch.save(start.state_dict(), tmp / "start_policy.pt")
    with (tmp / "rng.pkl").open("wb") as f:
        pickle.dump(rng_states(), f)
    (tmp / "state.json").write_text(json.dumps(
        {"state": asdict(state), "config": cfg, "curve": curve, "log": log,
         "diagnostics": list(getattr(model, "diagnostics", []))}, default=float))
    return publish(tmp, root, step, keep, list_checkpoints)


def load_checkpoint(ckpt: Checkpoint, cfg: dict, venv: VecEnv, tensorboard_log: str | None
                    ) -> tuple[FineTunePPO, list[PPOAgent]]:
    """The model (optimizer state, step counter, start policy and diagnostics included) and
    the self-play snapshots of ``ckpt``, with the global random generators put back as they
    were when it was written. (A checkpoint written before ``start_policy.pt`` existed has
    no start policy: its KL diagnostics are NaN; its config has no anchor to need one.)"""
    model = FineTunePPO.load(ckpt.path / "model.zip", env=venv, device="cpu",
                             tensorboard_log=tensorboard_log, **fine_tuning_kwargs(cfg))
    model.diagnostics = list(ckpt.diagnostics)
    if (ckpt.path / "start_policy.pt").exists():
        model.set_start_policy(torch.load(ckpt.path / "start_policy.pt", weights_only=True))
    elif model.kl_anchor > 0:
        raise RunStateError(f"{ckpt.path} has no start_policy.pt, which ppo.kl_anchor needs")
    snapshots = []
    for sd in torch.load(ckpt.path / "snapshots.pt", weights_only=True):
        policy = snapshot_policy(model.policy)
        policy.load_state_dict(sd)
        snapshots.append(PPOAgent(policy, env_config(cfg), deterministic=bool(
            cfg["opponents"]["snapshot_deterministic"])))
    with (ckpt.path / "rng.pkl").open("rb") as f:
        set_rng_states(pickle.load(f))  # after load, which reseeds them from the config seed
    return model, snapshots


def config_changes(saved: dict, cfg: dict) -> list[str]:
    """The settings (``section.key``) in which ``cfg`` differs from a checkpoint's config,
    other than those a resumption may change (``RESUMABLE_CHANGES``)."""
    out = []
    for section in sorted(set(saved) | set(cfg)):
        a, b = saved.get(section) or {}, cfg.get(section) or {}
        default = DEFAULTS.get(section) or {}
        for key in sorted(set(a) | set(b)):
            # a setting added since the checkpoint was written reads as its default there
            old = a[key] if key in a else default.get(key)
            if (section, key) not in RESUMABLE_CHANGES and old != b.get(key):
                out.append(f"{section}.{key} ({old!r} in the checkpoint, "
                           f"{b.get(key)!r} now)")
    return out


def resume_seed(seed: int, steps: int) -> int:
    """The environments' seed after resuming at ``steps``: new deals (not the run's first
    ones again), the same for every resumption from the same checkpoint."""
    return int(np.random.SeedSequence([seed, steps]).generate_state(1)[0])


# -- training --------------------------------------------------------------------------------------

class TrainingCallback(BaseCallback):
    """Self-play snapshots, periodic evaluation and checkpoints between PPO iterations (where
    the model, its step counter and the rollouts agree), the wall-clock budget at every step.

    ``state`` carries the counters and clocks over resumptions; ``t_start`` is the
    ``perf_counter`` time the run would have started at had it never stopped."""

    def __init__(self, cfg: dict, out: Path, runs: Path, t_start: float, curve: list[dict],
                 snapshots: list, state: RunState | None = None,
                 log: dict | None = None) -> None:
        super().__init__()
        self.cfg = cfg
        self.out = out
        self.runs = runs
        self.t_start = t_start
        self.curve = curve
        self.snapshots = snapshots
        self.state = state if state is not None else RunState.start(cfg)
        self.log = log if log is not None else {}
        self.limit = 60 * float(cfg["run"]["time_limit_minutes"])
        o, ev, r = cfg["opponents"], cfg["eval"], cfg["run"]
        self.snap_every = int(o.get("snapshot_every") or 0)
        self.eval_every = int(ev.get("every") or 0)
        self.ckpt_every = int(r.get("checkpoint_every") or 0)
        self.ckpt_seconds = 60 * float(r.get("checkpoint_minutes") or 0.0)
        self.save_every = int(r.get("save_every") or 0)
        self.ppo_seconds0 = self.state.ppo_seconds  # PPO seconds of the earlier sessions
        self.learn_t0 = time.perf_counter()
        self.checkpointed_at = self.state.timesteps  # (a resumed run: its checkpoint's step)

    @property
    def eval_seconds(self) -> float:
        """Seconds of periodic evaluation over the whole run."""
        return self.state.eval_seconds

    @property
    def stopped_by_time(self) -> bool:
        """Whether the time budget stopped PPO."""
        return self.state.stopped_by_time

    def minutes(self) -> float:
        return (time.perf_counter() - self.t_start) / 60

    def _on_training_start(self) -> None:
        self.learn_t0 = time.perf_counter()
        self.state.tensorboard_dir = self.model.logger.dir

    def sync(self) -> RunState:
        """Bring the state's step counter and clocks up to now."""
        now = time.perf_counter()
        self.state.timesteps = int(self.model.num_timesteps)
        self.state.elapsed_seconds = now - self.t_start
        self.state.ppo_seconds = self.ppo_seconds0 + now - self.learn_t0
        return self.state

    def frames_per_second(self) -> float:
        """PPO steps per second of PPO (over resumptions, evaluations included), as of the
        state's clocks or, during PPO, now."""
        if self.state.finished or self.model.num_timesteps == self.state.timesteps:
            return self.state.timesteps / max(self.state.ppo_seconds, 1e-9)
        seconds = self.ppo_seconds0 + time.perf_counter() - self.learn_t0
        return self.model.num_timesteps / max(seconds, 1e-9)

    def _on_rollout_start(self) -> None:
        n = self.num_timesteps = int(self.model.num_timesteps)
        st = self.state
        if self.snap_every and n >= st.next_snapshot:
            while st.next_snapshot <= n:
                st.next_snapshot += self.snap_every
            add_snapshot(self.model, self.cfg, self.snapshots)
            self.training_env.env_method(
                "set_opponent", weighted_pool(self.cfg["opponents"]["pool"], self.snapshots))
        if self.save_every and n >= st.next_save:
            while st.next_save <= n:
                st.next_save += self.save_every
            self.save_copy()
        if self.eval_every and n >= st.next_eval:
            while st.next_eval <= n:
                st.next_eval += self.eval_every
            self.evaluate()
        due_steps = self.ckpt_every and n >= st.next_checkpoint
        due_time = self.ckpt_seconds and (time.perf_counter() - self.t_start
                                          - st.last_checkpoint_seconds >= self.ckpt_seconds)
        if (due_steps or due_time) and n != self.checkpointed_at:
            if self.ckpt_every:
                while st.next_checkpoint <= n:
                    st.next_checkpoint += self.ckpt_every
            self.checkpoint()

    def checkpoint(self, sync: bool = True) -> Path:
        """Write a checkpoint of the run as it is now (see ``write_checkpoint``); without
        ``sync``, with the clocks as they were last brought up to date."""
        st = self.sync() if sync else self.state
        st.last_checkpoint_seconds = st.elapsed_seconds
        self.checkpointed_at = st.timesteps
        write_diagnostics(self.model.diagnostics, self.out)
        return write_checkpoint(self.runs / "checkpoints", self.model, self.cfg, self.snapshots,
                                st, self.curve, self.log)

    def save_copy(self) -> Path:
        """``run.save_every``: keep the model as it is now in ``<out>/models/step_<n>/``
        (``model.zip`` + ``model.json``, what ``ppo:<folder>`` plays), e.g. to evaluate it
        later on more hands than the periodic evaluation plays."""
        folder = self.out / "models" / f"step_{int(self.model.num_timesteps)}"
        folder.mkdir(parents=True, exist_ok=True)
        save_small(self.model, folder / "model.zip")
        save_env_config(folder / "model.zip", env_config(self.cfg))
        write_diagnostics(self.model.diagnostics, self.out)
        return folder

    def _on_step(self) -> bool:
        for done, info in zip(self.locals.get("dones", ()), self.locals.get("infos", ())):
            if done and "raw_reward" in info:  # duplicate scoring: log both sides of it
                self.logger.record_mean("train/hand_reward", info["raw_reward"])
                self.logger.record_mean("train/baseline_hand_reward", info["baseline_reward"])
        if time.perf_counter() - self.t_start > self.limit:
            self.state.stopped_by_time = True
            return False
        return True

    def evaluate(self, minutes: float | None = None, count: bool = True) -> None:
        """Play the current policy against the evaluation opponents (``eval.hands``) and add
        the results to the learning curve (CSV, PNG, TensorBoard) at ``minutes`` (default:
        now); ``count`` adds its seconds to the run's evaluation seconds."""
        t0 = time.perf_counter()
        minutes = self.minutes() if minutes is None else minutes  # when the model was this
        agent = PPOAgent(snapshot_policy(self.model.policy), env_config(self.cfg))
        rows = evaluate_agent(agent, self.cfg, self.cfg["eval"]["hands"],
                              self.cfg["eval"]["seed"])
        n = int(self.model.num_timesteps)
        logger = getattr(self.model, "_logger", None)  # none before a loaded model learns
        for r in rows:
            r.update(timesteps=n, minutes=minutes, phase="ppo")
            if logger is not None:
                logger.record(f"eval/win_rate_{r['opponent']}", r["win_rate"])
                logger.record(f"eval/diff_per_hand_{r['opponent']}", r["diff_per_hand"])
        self.curve.extend(rows)
        write_curve(self.curve, self.out)
        if count:
            self.state.eval_seconds += time.perf_counter() - t0
        if self.cfg["run"].get("verbose", True):
            text = "  ".join(f"{r['opponent']} {r['win_rate']:.3f}" for r in rows)
            print(f"[{minutes:5.1f} min, {n:,} steps, "
                  f"{self.frames_per_second():.0f} frames/s] hands won: {text}", flush=True)


def add_snapshot(model: MaskablePPO, cfg: dict, snapshots: list) -> None:
    """Append a frozen copy of the learner to the self-play pool (keeping the newest few)."""
    snapshots.append(PPOAgent(snapshot_policy(model.policy), env_config(cfg),
                              deterministic=bool(cfg["opponents"]["snapshot_deterministic"])))
    del snapshots[:-max(1, int(cfg["opponents"]["snapshots"]))]


def save_small(model: MaskablePPO, path: Path) -> None:
    """Save ``model`` with a fresh (empty) optimizer state: a third of the size, still loadable
    by ``MaskablePPO.load`` (training on from it restarts Adam's moment estimates; the
    checkpoints under ``--runs`` keep the full state)."""
    policy = model.policy
    kept = policy.optimizer
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=model.lr_schedule(1.0),
                                              **policy.optimizer_kwargs)
    try:
        model.save(path, exclude=["tensorboard_log"])
    finally:
        policy.optimizer = kept


def copy_config(config_path: str | Path, out: Path) -> None:
    """Keep the config file beside the results as ``config.toml`` (nothing to do when it is
    already that file, e.g. re-evaluating with ``--config <out>/config.toml``)."""
    dest = out / "config.toml"
    if not (dest.exists() and Path(config_path).resolve() == dest.resolve()):
        shutil.copy(config_path, dest)


def behaviour_cloning(cfg: dict, policy, out: Path, seed: int, progress: bool) -> dict:
    """Phase 1: fit ``policy`` to the teacher's decisions, then run the DAgger rounds (the
    fitted policy plays, the teacher labels the states it reaches, the policy is fitted to all
    decisions so far); writes ``bc_curve.*`` and returns the phase's log."""
    b = cfg["bc"]
    initial = copy.deepcopy(policy.state_dict())  # the prior, before any fit
    epochs: list[dict] = []
    rounds: list[dict] = []
    demos = None
    for r in range(int(b.get("dagger_rounds") or 0) + 1):
        t0 = time.perf_counter()
        if r == 0 and b.get("load_demos"):
            new = bc.load_demos(b["load_demos"])
        else:
            student = (snapshot_policy(policy), env_config(cfg)) if r else None
            n = int(b.get("dagger_decisions") or b["decisions"]) if r else int(b["decisions"])
            new = bc.collect(env_kwargs(cfg, list(weighted_pool(b["opponents"]))),
                             b["teacher"], n, b["explore"], seed + 1000 * r,
                             int(b.get("workers", 1)), progress, student=student,
                             beta=float(b.get("dagger_beta") or 0.0))
        demos = new if demos is None else bc.merge([demos, new])
        t1 = time.perf_counter()
        if r and not b.get("dagger_continue"):
            # Refit from the initial weights on all decisions (DAgger's new policy per round):
            # continuing the fitted policy for another cosine cycle lost 3 points against the
            # heuristic in Tuxedo (47.5% v 50.6%, same decisions).
            policy.load_state_dict(initial)
        stats = bc.pretrain(policy, demos, b["epochs"], b["batch_size"], b["learning_rate"],
                            b["value_coef"], seed=seed, progress=progress,
                            log=lambda row, r=r: epochs.append(
                                {**row, "round": r, "epoch": len(epochs) + 1}),
                            temperature=float(b.get("temperature") or 0.0),
                            score_temperature=float(b.get("score_temperature") or 0.0))
        rounds.append({"round": r, "decisions": len(new), "collect_seconds": t1 - t0,
                       "fit_seconds": time.perf_counter() - t1, **stats})
        if r and cfg["run"].get("verbose", True):
            print(f"DAgger round {r}: {len(new)} decisions of the student's play labelled in "
                  f"{t1 - t0:.0f}s, {len(demos)} in all, held-out accuracy "
                  f"{stats['holdout_accuracy']:.3f}", flush=True)
    if b.get("save_demos"):
        bc.save_demos(demos, b["save_demos"])
    write_bc_curve(epochs, out)
    collect_seconds = sum(x["collect_seconds"] for x in rounds)
    fit_seconds = sum(x["fit_seconds"] for x in rounds)
    log = {"decisions": len(demos), "collect_seconds": collect_seconds,
           "decisions_per_second": len(demos) / max(collect_seconds, 1e-9),
           "fit_seconds": fit_seconds, "epochs": epochs, **stats}
    if len(rounds) > 1:
        log["dagger"] = rounds[1:]
    if cfg["run"].get("verbose", True):
        print(f"behaviour cloning: {len(demos)} decisions collected in {collect_seconds:.0f}s, "
              f"fitted in {fit_seconds:.0f}s, held-out accuracy "
              f"{stats['holdout_accuracy']:.3f}", flush=True)
    return log


def _say(cfg: dict, text: str) -> None:
    if cfg["run"].get("verbose", True):
        print(text, flush=True)


def prepare_run(cfg: dict, out: Path, runs: Path, resume: bool, fresh: bool
                ) -> Checkpoint | None:
    """Check that the run can start (or resume) as asked and return the checkpoint to resume
    from (None for a new run). A new run refuses a ``--runs`` folder that holds another run's
    checkpoints unless ``fresh`` (which deletes them); ``resume`` needs a checkpoint written
    with the same config (``RESUMABLE_CHANGES`` aside)."""
    root = runs / "checkpoints"
    latest = latest_checkpoint(root)
    if not resume:
        if latest is not None and not fresh:
            raise RunStateError(
                f"{root} holds the checkpoints of an earlier run (latest {latest.name}): add "
                "--resume to continue it, --fresh to delete them and start again, or give "
                "another --runs")
        if fresh and root.exists():
            shutil.rmtree(root)
        return None
    if latest is None:
        raise RunStateError(f"--resume: no checkpoint in {root}, so nothing to resume (a run "
                            "writes its first one when PPO starts); run without --resume to "
                            "start it")
    ckpt = Checkpoint.read(latest)
    changes = config_changes(ckpt.config, cfg)
    if changes:
        raise RunStateError(f"--resume: the config differs from the one {latest} was written "
                            f"with in {'; '.join(changes)}; resume with the same config or "
                            "start a new run elsewhere (--runs, --out)")
    return ckpt


def _finished_results(out: Path, ckpt: Checkpoint) -> dict | None:
    """The final log in ``out`` if the finished run of ``ckpt`` completed its final step
    (model saved, final evaluation written), else None."""
    path = out / "train_log.json"
    if not (ckpt.state.finished and (out / "model.zip").exists() and path.exists()):
        return None
    log = json.loads(path.read_text())
    return log if log.get("run_id") == ckpt.state.run_id and log.get("finished") else None


def budget_left(cfg: dict, state: RunState) -> bool:
    """Whether ``cfg``'s budget goes past where the run of ``state`` stopped: PPO steps still
    to take and time to take them in (``run.time_limit_minutes`` counts all sessions)."""
    return (int(cfg["ppo"]["timesteps"]) > state.timesteps
            and 60 * float(cfg["run"]["time_limit_minutes"]) > state.elapsed_seconds)


def how_to_extend(cfg: dict, state: RunState) -> str:
    """What a resumption of the finished run of ``state`` must raise to train on."""
    need = []
    if int(cfg["ppo"]["timesteps"]) <= state.timesteps:
        need.append(f"--steps above {state.timesteps:,}")
    if 60 * float(cfg["run"]["time_limit_minutes"]) <= state.elapsed_seconds:
        need.append(f"--minutes above {state.elapsed_seconds / 60:.2f} (the limit counts all "
                    "its sessions)")
    return "to extend it, resume with " + " and ".join(need)


def reopen(state: RunState, log: dict, curve: list[dict], cfg: dict) -> None:
    """Make a finished run's state that of a run interrupted at its last checkpoint, to train
    on with a larger budget; its curve's last evaluation (of that step) is not repeated."""
    state.finished = state.stopped_by_time = False
    log.pop("finished", None)
    every = int(cfg["eval"].get("every") or 0)
    while every and curve and state.next_eval <= int(curve[-1]["timesteps"]):
        state.next_eval += every


def train(cfg: dict, out: str | Path, runs: str | Path | None = None,
          config_path: str | Path | None = None, resume: bool = False,
          fresh: bool = False) -> dict:
    """Run the whole pipeline of one config, or with ``resume`` continue it from its latest
    checkpoint under ``runs``; returns the training log (also in ``out``). ``fresh`` deletes
    an earlier run's checkpoints under ``runs`` instead of refusing to start over them."""
    torch.set_num_threads(1)  # more threads are 25x slower on this machine's small batches
    check_from_scratch(cfg)
    check_fine_tuning(cfg)
    check_privileged(cfg)
    check_shaping(cfg)
    out = Path(out)
    runs = Path(runs) if runs is not None else run_dir(cfg)
    ckpt = prepare_run(cfg, out, runs, resume, fresh)
    progress = bool(cfg["run"].get("progress", True))
    if ckpt is not None and ckpt.state.finished and not budget_left(cfg, ckpt.state):
        done = _finished_results(out, ckpt)
        if done is not None:
            print(f"{runs}: the run is finished ({ckpt.state.timesteps:,} PPO steps, "
                  f"{ckpt.state.elapsed_seconds / 60:.1f} min of training); nothing to resume "
                  f"({how_to_extend(cfg, ckpt.state)}). Results in {out}", flush=True)
            done["already_finished"] = True
            return done
        _say(cfg, f"{runs}: the run finished training at {ckpt.path.name}; writing its model "
                  "and final evaluation")
        log = ckpt.log
        model = MaskablePPO.load(ckpt.path / "model.zip", device="cpu")
        out.mkdir(parents=True, exist_ok=True)
        (out / "config.json").write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n")
        if config_path is not None:
            copy_config(config_path, out)
        save_small(model, out / "model.zip")
        save_env_config(out / "model.zip", env_config(cfg))
        if ckpt.curve:
            write_curve(ckpt.curve, out)
        write_diagnostics(ckpt.diagnostics, out)
        final_evaluation(cfg, out, log, progress)
        return log
    out.mkdir(parents=True, exist_ok=True)
    runs.mkdir(parents=True, exist_ok=True)
    seed = int(cfg["run"]["seed"])
    (out / "config.json").write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n")
    if config_path is not None:
        copy_config(config_path, out)
    p = cfg["ppo"]
    limit = 60 * float(cfg["run"]["time_limit_minutes"])
    if ckpt is None:
        state = RunState.start(cfg)
        t_start = time.perf_counter()
        log: dict[str, Any] = {
            "config": str(config_path) if config_path else None, "run": run_name(cfg),
            "run_id": state.run_id, "from_scratch": bool(cfg["run"].get("from_scratch")),
            "machine": f"{platform.machine()} python {platform.python_version()}"
                       f" torch {torch.__version__}", "bc": {}, "ppo": {}}
        curve: list[dict] = []
    else:
        state, log, curve = ckpt.state, ckpt.log, ckpt.curve
        if state.finished:  # with a larger budget (budget_left): trains on from its end
            reopen(state, log, curve, cfg)
        t_start = time.perf_counter() - state.elapsed_seconds  # the budget spans resumptions
        state.resumes.append({"step": state.timesteps, "minutes": state.elapsed_seconds / 60,
                              "checkpoint": ckpt.path.name,
                              "at": time.strftime("%Y-%m-%d %H:%M:%S")})
        _say(cfg, f"resuming {runs} from {ckpt.path.name}: {state.timesteps:,} PPO steps, "
                  f"{state.elapsed_seconds / 60:.1f} of {limit / 60:g} min used, "
                  f"{len(curve)} learning-curve rows")
        if curve:
            write_curve(curve, out)
    venv_seed = seed if ckpt is None else resume_seed(seed, state.timesteps)
    venv = make_train_vec_env(env_kwargs(cfg), p["n_envs"], venv_seed, p["vec"], p["workers"])
    try:
        if ckpt is None:
            model = build_model(cfg, venv, str(runs / "tb"), seed)
            log["parameters"] = sum(t.numel() for t in model.policy.parameters())
            # 1. behaviour cloning, or the weights of a trained model (ppo.init_model)
            b = cfg["bc"]
            if p.get("init_model"):
                log["init_model"] = load_init_model(model, cfg)
                _say(cfg, f"fine-tuning {log['init_model']['file']}")
            if b.get("decisions"):
                log["bc"] = behaviour_cloning(cfg, model.policy, out, seed, progress)
            if cfg["eval"].get("every"):
                t0 = time.perf_counter()
                minutes = (t0 - t_start) / 60
                agent = PPOAgent(snapshot_policy(model.policy), env_config(cfg))
                rows = evaluate_agent(agent, cfg, cfg["eval"]["hands"], cfg["eval"]["seed"])
                for r in rows:
                    r.update(timesteps=0, minutes=minutes,
                             phase="bc" if b.get("decisions") else "init")
                curve.extend(rows)
                write_curve(curve, out)
                log["eval_seconds_before_ppo"] = time.perf_counter() - t0
                _say(cfg, "before PPO: hands won " + "  ".join(
                    f"{r['opponent']} {r['win_rate']:.3f}" for r in rows))
            model.set_start_policy()  # pi_start of the KL anchor and diagnostics
            snapshots: list = []
            if cfg["opponents"]["pool"].get("self"):
                add_snapshot(model, cfg, snapshots)
        else:
            model, snapshots = load_checkpoint(ckpt, cfg, venv, str(runs / "tb"))
            venv.seed(venv_seed)  # (loading reseeded them with the config's seed)
            if state.tensorboard_dir:  # the same TensorBoard run folder goes on
                model.set_logger(configure_logger(state.tensorboard_dir, ["tensorboard"]))
        # 2. PPO against the pool
        venv.env_method("set_opponent", weighted_pool(cfg["opponents"]["pool"], snapshots))
        cb = TrainingCallback(cfg, out, runs, t_start, curve, snapshots, state, log)
        if ckpt is None:
            cb.init_callback(model)
            cb.checkpoint()  # step 0: a resumption skips behaviour cloning
        remaining = int(p["timesteps"]) - int(model.num_timesteps)
        if remaining > 0 and time.perf_counter() - t_start < limit:
            model.learn(remaining, callback=cb, progress_bar=progress, tb_log_name="ppo",
                        reset_num_timesteps=ckpt is None)
        else:
            cb.init_callback(model)
        cb.sync()  # training ends here: the clocks stop before the curve's last evaluation
        if (cfg["eval"].get("every") and model.num_timesteps
                and (not curve or curve[-1]["timesteps"] < model.num_timesteps)):
            t0 = time.perf_counter()
            # the last point of the curve: the model that is saved (outside the budget, like
            # the final evaluation)
            cb.evaluate(minutes=state.elapsed_seconds / 60, count=False)
            log["last_curve_eval_seconds"] = time.perf_counter() - t0
            if getattr(model, "_logger", None) is not None:
                model.logger.dump(model.num_timesteps)
        state.finished = True
        state.stopped_by_time = state.stopped_by_time or state.elapsed_seconds >= limit
        log["ppo"] = ppo_log(state)
        log["train_minutes"] = state.elapsed_seconds / 60
        log["finished"] = True
        cb.checkpoint(sync=False)
        if state.timesteps:
            _say(cfg, f"PPO: {state.timesteps:,} steps in {state.ppo_seconds / 60:.1f} min, "
                      + frames_text(log["ppo"]))
        model_path = out / "model.zip"
        save_small(model, model_path)
        save_env_config(model_path, env_config(cfg))
    finally:
        venv.close()
    # 3. final evaluation of the saved model (not part of the training budget)
    final_evaluation(cfg, out, log, progress)
    return log


def connect_four_reference() -> dict | None:
    """The connect-four reference of ``experiments.bench_train`` as committed in
    ``experiments/results/bench_train.csv`` (MaskablePPO frames/s on PettingZoo's
    connect_four_v3 against a random opponent, one environment, this machine), or None."""
    path = Path(__file__).resolve().parent / "results" / "bench_train.csv"
    try:
        with path.open(newline="") as f:
            for row in csv.DictReader(f):
                if row["setting"].startswith("connect_four_v3"):
                    return {"setting": row["setting"],
                            "frames_per_second": float(row["frames_per_s"]),
                            "source": "experiments/results/bench_train.csv"}
    except (OSError, KeyError, ValueError):
        return None
    return None


def measured_connect_four_reference(frames: int = 8192) -> dict | None:
    """The connect-four reference measured now, on the machine as it is (MaskablePPO on
    PettingZoo's connect_four_v3 against random, one env, ``frames`` steps after a warm-up
    iteration): the committed figure is from another day, and this machine's speed varies
    from day to day. None when ``frames`` is 0 or the reference cannot run (it needs pygame,
    the ``bench`` extra)."""
    if frames <= 0:
        return None
    from gymnasium.error import DependencyNotInstalled

    try:
        from experiments.bench_train import _job_fps

        fps = _job_fps(0, frames)  # TRAIN_JOBS[0]: connect_four_v3, torch at 1 thread
    except (ImportError, DependencyNotInstalled):
        return None
    return {"setting": "connect_four_v3 (reference)", "frames_per_second": fps,
            "source": f"measured right after the run ({frames:,} frames)"}


def ppo_log(state: RunState) -> dict:
    """The PPO part of ``train_log.json``: steps, seconds and frames/s over the whole run
    (all sessions), with the connect-four reference of ``experiments.bench_train`` beside."""
    steps, secs = state.timesteps, state.ppo_seconds
    out = {"timesteps": int(steps), "seconds": secs, "eval_seconds": state.eval_seconds,
           "frames_per_second": steps / max(secs, 1e-9),
           "frames_per_second_excluding_eval": steps / max(secs - state.eval_seconds, 1e-9),
           "stopped_by_time_limit": state.stopped_by_time,
           "resumptions": len(state.resumes), "resumed_at_steps": [
               r["step"] for r in state.resumes]}
    ref = connect_four_reference()
    if ref is not None:
        out["connect_four_reference"] = ref
        out["vs_connect_four"] = out["frames_per_second"] / ref["frames_per_second"]
    return out


def frames_text(ppo: dict) -> str:
    """"1,234 frames/s (1.49x the connect_four_v3 reference, 830 frames/s)" for logs."""
    text = f"{ppo.get('frames_per_second', 0):,.0f} frames/s"
    ref = ppo.get("connect_four_reference")
    if ref:
        text += (f" ({ppo['vs_connect_four']:.2f}x the connect_four_v3 reference of "
                 f"experiments.bench_train, {ref['frames_per_second']:,.0f} frames/s on one env)")
    return text


def final_evaluation(cfg: dict, out: Path, log: dict, progress: bool = True) -> None:
    """Play ``out/model.zip`` against each opponent of ``eval.final_hands`` (seat-swapped
    duplicate deals from ``eval.final_seed``) and write eval_final.* and train_log.json."""
    torch.set_num_threads(1)
    final_hands = cfg["eval"].get("final_hands") or {}
    if final_hands:
        t0 = time.perf_counter()
        agent = PPOAgent.load(out / "model.zip")
        rows = evaluate_agent(agent, cfg, final_hands, cfg["eval"]["final_seed"], progress)
        write_final(rows, cfg, out, log)
        log["final_eval_seconds"] = time.perf_counter() - t0
        log["final_eval"] = rows
    (out / "train_log.json").write_text(json.dumps(log, indent=2, default=float) + "\n")


def _trained_text(cfg: dict, log: dict) -> str:
    """What the training did, in words: PPO steps, cloning, or both."""
    cloned = (f"cloning {log['bc']['decisions']:,} {cfg['bc']['teacher']} decisions"
              if log.get("bc") else "")
    steps = log["ppo"].get("timesteps", 0)
    if not steps:
        return f"{cloned} (behaviour cloning only, no PPO)" if cloned else "no training"
    ppo = f"{steps:,} PPO steps at {log['ppo'].get('frames_per_second', 0):.0f} frames/s"
    return f"{ppo} after {cloned}" if cloned else ppo


def policy_text(cfg: dict) -> str:
    """The policy in words: "MlpPolicy [256, 256]" (compose) or "MoveScoringPolicy"."""
    if cfg["env"]["action_mode"] == "enumerate":
        return "MoveScoringPolicy"
    return f"MlpPolicy {list(cfg['policy']['net_arch'])}"


def opponents_text(cfg: dict) -> str:
    """The training opponents in words: "random 1, greedy 1, heuristic 2 and self-play
    snapshots 2 (the last 4, one every 200,000 steps)" (pool weights)."""
    o = cfg["opponents"]
    parts = []
    for name, w in o["pool"].items():
        if not w:
            continue
        if name == "self":
            parts.append(f"self-play snapshots {w:g} (the last {o['snapshots']}, one every "
                         f"{int(o.get('snapshot_every') or 0):,} steps)")
        else:
            parts.append(f"{name} {w:g}")
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1] \
        if parts else "none"


def scratch_text(cfg: dict, log: dict) -> str:
    """The from-scratch description of ``eval_final.md``: "RL from scratch: MaskablePPO
    MlpPolicy [256, 256], 1,000,000 steps, opponents ...", and what from scratch excludes."""
    ppo = log.get("ppo") or {}
    shaping = " shaped by the points so far (potential-based, env.reward_shaping)" if \
        cfg["env"].get("reward_shaping") else ""
    return (f"RL from scratch: MaskablePPO {policy_text(cfg)}, {ppo.get('timesteps', 0):,} "
            f"steps in {log.get('train_minutes', 0):.1f} min at "
            f"{ppo.get('frames_per_second', 0):,.0f} frames/s on {cfg['ppo']['n_envs']} "
            f"environments ({cfg['ppo']['vec']}), opponents weighted {opponents_text(cfg)}; "
            f"reward: hand points x {cfg['env']['reward_scale']:g}{shaping}, observation "
            f"{cfg['env'].get('observation') or 'full'!r}, seed {cfg['run']['seed']}. No "
            "scripted agent's moves, move scores or hand outcomes in the learner's "
            "observation, policy prior, initial weights or reward (run.from_scratch = true); "
            "scripted agents are only opponents and evaluators.")


def write_final(rows: list[dict], cfg: dict, out: Path, log: dict) -> None:
    """``eval_final.csv``/``.json``/``.md``: the saved model against each opponent."""
    with (out / "eval_final.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    (out / "eval_final.json").write_text(json.dumps(rows, indent=2) + "\n")
    e = cfg["env"]
    where = f"{e['variant']} {e['players']} players ({e['action_mode']} mode)"
    if cfg["run"].get("from_scratch"):
        lines = [f"# RL from scratch: MaskablePPO {policy_text(cfg)}, {where}", "",
                 scratch_text(cfg, log), ""]
    else:
        lines = [f"# PPO agent, {where}", "",
                 f"Trained {log.get('train_minutes', 0):.1f} min: " + _trained_text(cfg, log)
                 + ".", ""]
    lines += ["Single hands on duplicate deals (each deal played from both seats), the agent "
              "choosing the argmax move. Win rate counts draws as half; paired = t interval "
              "over deals, Wilson = over hands; points = mean point difference per hand "
              "(bootstrap over deals). All intervals 95%.",
              "",
              "| opponent | hands | won | drawn | lost | win rate | paired CI | Wilson CI | "
              "points/hand [CI] |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['opponent']} | {r['hands']} | {r['wins']} | {r['draws']} | "
                     f"{r['losses']} | {r['win_rate']:.1%} | [{r['paired_lo']:.1%}, "
                     f"{r['paired_hi']:.1%}] | [{r['wilson_lo']:.1%}, {r['wilson_hi']:.1%}] | "
                     f"{r['diff_per_hand']:+.2f} [{r['diff_lo']:+.2f}, {r['diff_hi']:+.2f}] |")
    (out / "eval_final.md").write_text("\n".join(lines) + "\n")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line of ``main``."""
    ap = argparse.ArgumentParser(prog="python -m experiments.train", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", type=Path, required=True, help="TOML file of the variant")
    ap.add_argument("--steps", type=int, default=None, help="PPO timesteps (ppo.timesteps)")
    ap.add_argument("--minutes", type=float, default=None,
                    help="wall-clock budget in minutes (run.time_limit_minutes)")
    ap.add_argument("--bc-decisions", type=int, default=None,
                    help="teacher decisions to clone (bc.decisions; 0 = no warm start)")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--out", type=Path, default=None,
                    help=f"results dir (default {RUNS}/<name>: run.name, else the variant; "
                         "git-ignored; the shipped baselines: --out "
                         "experiments/results/train/<variant>)")
    ap.add_argument("--runs", type=Path, default=None,
                    help=f"checkpoints and TensorBoard dir (default {RUNS}/<name>)")
    ap.add_argument("--resume", action="store_true",
                    help="continue the interrupted run from its latest checkpoint under --runs "
                    "(same config; --steps and --minutes may raise its budget, which extends "
                    "a finished run; the minutes count all sessions)")
    ap.add_argument("--fresh", action="store_true",
                    help="delete an earlier run's checkpoints under --runs and start again "
                    "(without it a new run refuses to start over them)")
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    ap.add_argument("--evaluate-only", action="store_true",
                    help="no training: re-run the final evaluation of the model already in "
                    "--out with the config's eval.final_hands")
    ap.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                    help="override one setting of the config, VALUE in TOML syntax, e.g. "
                    "--set bc.score_temperature=1.0 --set 'bc.teacher=\"search\"' "
                    "(repeatable; recorded in the results' config.json)")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Train (or re-evaluate) one config's model and print its final evaluation."""
    a = parse_args(argv)
    over: dict[str, Any] = {"run": {}, "ppo": {}, "bc": {}}
    for item in a.set:
        section, key, value = parse_setting(item)
        over.setdefault(section, {})[key] = value
    if a.steps is not None:
        over["ppo"]["timesteps"] = a.steps
    if a.minutes is not None:
        over["run"]["time_limit_minutes"] = a.minutes
    if a.bc_decisions is not None:
        over["bc"]["decisions"] = a.bc_decisions
    if a.seed is not None:
        over["run"]["seed"] = a.seed
    if a.quiet:
        over["run"]["progress"] = False
    if a.resume and (a.fresh or a.evaluate_only):
        raise SystemExit("--resume cannot go with --fresh or --evaluate-only")
    cfg = load_config(a.config, over)
    try:
        check_from_scratch(cfg)
        check_fine_tuning(cfg)
        check_privileged(cfg)
        check_shaping(cfg)
        out = a.out or run_dir(cfg)
    except ValueError as exc:
        raise SystemExit(f"{a.config}: {exc}") from None
    if a.evaluate_only:
        log_path = out / "train_log.json"
        if not (out / "model.zip").exists() or not log_path.exists():
            raise SystemExit(f"--evaluate-only: no trained model (model.zip, train_log.json) "
                             f"in {out}")
        log = json.loads(log_path.read_text())
        final_evaluation(cfg, out, log, cfg["run"].get("progress", True))
        (out / "config.json").write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n")
        copy_config(a.config, out)
    else:
        try:
            log = train(cfg, out, a.runs, a.config, resume=a.resume, fresh=a.fresh)
        except RunStateError as exc:
            raise SystemExit(str(exc)) from None
        if log.get("already_finished"):
            return 0
    md = out / "eval_final.md"
    if md.exists():
        print(md.read_text())
    ppo = log.get("ppo") or {}
    speed = f" ({ppo['timesteps']:,} PPO steps, {frames_text(ppo)})" if ppo.get("timesteps") \
        else ""
    print(f"trained {log['train_minutes']:.1f} min{speed}; results in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
