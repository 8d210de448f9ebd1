"""Multi-agent PPO on Ray RLlib through its PettingZoo wrapper, with action masking and shared or
per-seat policies: the RLlib reference baseline of issue 17 (docs/rl_baselines.md) and a small
CPU-friendly trainer that scales out to a Ray cluster::

    python -m experiments.rllib_train --config experiments/configs/rllib/casino.toml --seed 0
    python -m experiments.rllib_train --config experiments/configs/rllib/casino.toml --seed 0 \\
        --resume                       # continue it after an interruption
    python -m experiments.rllib_train --variant casino --iterations 10 --policies shared
    python -m experiments.rllib_train --variant royal --players 3 --policies per-seat \\
        --iterations 50 --out /tmp/royal_rllib
    python -m experiments.rllib_train --address auto --env-runners 8 --batch 8192 ...  # cluster

Every seat is an agent of ``casino_env.env()`` behind ``ray.rllib``'s ``PettingZooEnv``
(``casino_env.rllib``). ``--policies shared`` maps all seats to one policy (self-play with
parameter sharing: the from-scratch setting of the baselines, no scripted agent in training);
``per-seat`` trains one policy per seat. Policies are RLlib's ``ActionMaskingTorchRLModule``:
masked-out actions get probability zero, and the ``illegal_actions`` metric (masked-out actions
taken, ending the hand with -1) stays at 0.

Per iteration: sampled env steps, episodes, mean episode length, mean return per seat (rewards
are zero-sum, so in self-play they hover around 0; "no finished episodes" when no hand ended in
the iteration), per-policy losses (policy, value, entropy) and steps trained, and seconds,
printed and written to ``metrics.csv`` and ``metrics.json`` under ``--out`` (default
``runs/rllib/<name>``, the variant unless the config names the run; git-ignored), with those
returns and losses over env steps as ``training_curve.csv`` and ``training_curve.png``.

Evaluation (``--eval-every N`` env steps, and at step 0 and at the end): the learning policy,
loaded from the checkpoint just written as the ``rllib:PATH`` agent (``agents.rllib_agent``),
plays single hands on duplicate deals (each deal from every seat, ``agents.play_match``)
against each of ``--eval-hands`` (random, greedy, heuristic), the scripted agents' only role;
with more than two sides (``--players 3``) the agent sits on one side and the opponent on all
the others, and a hand is won only when the agent has strictly the most points (a lead it
shares counts half; even play wins a third of the hands, not half) and its points are set
against the opponents' mean (``field_result``);
hands won with 95% intervals (``experiments.stats.summarize_pair``) and points per hand go to
``learning_curve.csv`` and ``learning_curve.png`` (x: env steps and wall-clock minutes), the
columns of ``experiments.train``'s curve, so ``experiments.aggregate`` puts seeds together.

Checkpoints (``<runs>/checkpoints/step_<env steps>/``, ``--runs`` defaulting to ``--out``):
RLlib's ``Algorithm.save_to_path`` (weights, optimizer, counters, env runners' state) with
``casino_env.json`` (the game and policies, for the agent) and ``run_state.json`` (clocks,
counters, metrics and curve rows), written to a temporary folder and renamed into place, the
last two kept; every ``--checkpoint-minutes`` of wall-clock, at every evaluation and at the
end. ``--resume`` rebuilds the algorithm and restores the latest one (``restore_from_path``),
with the same settings (``--iterations``, ``--minutes`` and ``--checkpoint-minutes`` may
change); ``--minutes`` is the wall-clock budget summed over resumptions (periodic evaluations
included, the curve's last point not). A finished run ends by exporting its policies' modules
to ``<out>/model/`` (small; ``rllib:<out>`` plays them). ``--tensorboard`` logs the metrics and
evaluations to ``<runs>/tb``. The frames/s of a run (env steps per second of
``Algorithm.train``; both seats' sub-actions count) are printed and saved beside the
connect-four reference of ``experiments.bench_train``.

``--config FILE.toml`` sets any of the options below by their long names (``eval_hands`` as a
table); flags given on the command line win. Needs ``ray[rllib]`` (see ``pyproject.toml``'s
``rllib`` extra; the plots need matplotlib, from the ``train`` extra).
"""

from __future__ import annotations

import argparse
import csv
import difflib
import json
import math
import os
import platform
import shutil
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover (python 3.10)
    import tomli as tomllib

from casino_env.rllib import (
    ENV_NAME,
    ILLEGAL_METRIC,
    MODULES,
    POLICY_MODES,
    SETTINGS,
    STATE,
    latest_checkpoint,
    list_checkpoints,
    log_illegal_actions,
    policies_for,
    register_rllib_env,
    split_env_config,
)
from experiments.checkpoint_files import fsync_path, publish
from experiments.curves import Metric, plot_steps_and_minutes, write_table

DEFAULT_OUT = Path("runs/rllib")
LOSSES = ("policy_loss", "vf_loss", "entropy", "mean_kl_loss")
KEEP_CHECKPOINTS = 2
# Seconds between rewrites of metrics.csv/json and the training curve during a run (drawing
# the PNG every iteration took a fifth of a 2-minute run), besides the one at the end.
WRITE_SECONDS = 30.0
DEFAULT_EVAL_HANDS = {"random": 400, "greedy": 1000, "heuristic": 1000}
# The learning-curve columns of experiments.train (one row per evaluation and opponent), so that
# experiments.aggregate reads the curves of both trainers.
CURVE_FIELDS = ("timesteps", "minutes", "phase", "opponent", "hands", "wins", "draws", "losses",
                "win_rate", "paired_lo", "paired_hi", "wilson_lo", "wilson_hi",
                "diff_per_hand", "diff_lo", "diff_hi", "seconds")
# Settings a resumed run may change (its budget and checkpoint period); any other difference
# from the checkpoint's settings refuses to resume.
RESUMABLE_CHANGES = ("iterations", "minutes", "checkpoint_minutes")


class RunStateError(Exception):
    """A run cannot start or resume as asked (no checkpoint, another run's checkpoints,
    settings that differ from the checkpoint's); the message says what to do."""


def default_out(variant: str, name: str | None = None) -> Path:
    """Where a run writes without ``--out``: ``runs/rllib/<name>`` (git-ignored), the name
    defaulting to the variant."""
    return DEFAULT_OUT / (name or variant)


def env_settings(variant: str, players: int, action_mode: str = "compose",
                 max_moves: int = 32, observation: str = "full",
                 reward_scale: float = 1.0, *, last_capturer: bool = False) -> dict[str, Any]:
    """The RLlib env config: ``casino_env.env`` keyword arguments, and ``reward_scale`` when
    it is not 1 (``casino_env.rllib.rllib_env`` applies it). ``last_capturer`` is recorded
    only when on, so that the settings of runs without it read as before."""
    settings: dict[str, Any] = {"variant": variant, "players": players,
                                "action_mode": action_mode}
    if action_mode == "enumerate":
        settings["max_moves"] = max_moves
    if observation != "full":
        settings["observation"] = observation
    if last_capturer:
        settings["last_capturer"] = True
    if reward_scale != 1.0:
        settings["reward_scale"] = float(reward_scale)
    return settings


def one_torch_thread(**kwargs: Any) -> None:
    """``on_environment_created`` callback: one torch thread in every EnvRunner process
    (small networks on CPUs run many times slower with more)."""
    torch.set_num_threads(1)


def build_config(env_config: dict[str, Any], policies: str = "shared", *, batch: int = 512,
                 minibatch: int = 128, epochs: int = 1, lr: float = 3e-4,
                 hidden: Sequence[int] = (128, 128), seed: int = 0, env_runners: int = 0,
                 envs_per_runner: int = 1, learners: int = 0, gamma: float | None = None,
                 gae_lambda: float | None = None, entropy: float | None = None,
                 clip: float | None = None, vf_clip: float | None = None) -> Any:
    """The PPO config: the registered casino env, one masked RLModule per policy id, and the
    policy mapping of ``policies`` (``shared`` or ``per-seat``). ``gamma``, ``gae_lambda``,
    ``entropy`` (coefficient), ``clip`` (PPO's clip parameter) and ``vf_clip`` (the value
    loss clip) keep RLlib's defaults when None."""
    for arg, value in (("batch", batch), ("minibatch", minibatch), ("epochs", epochs)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"build_config: {arg} must be a positive int, got {value!r}")
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    import casino_env

    name = register_rllib_env(ENV_NAME)
    probe = casino_env.raw_env(**split_env_config(env_config)[0])
    policy_ids, mapping = policies_for(policies, list(probe.possible_agents))
    model = {"fcnet_hiddens": list(hidden), "fcnet_activation": "relu",
             "head_fcnet_hiddens": [], "vf_share_layers": False}
    extra = {k: v for k, v in (("gamma", gamma), ("lambda_", gae_lambda),
                               ("entropy_coeff", entropy), ("clip_param", clip),
                               ("vf_clip_param", vf_clip)) if v is not None}
    return (
        PPOConfig()
        .framework("torch")
        # The env checker steps a random (usually masked-out) action; the PettingZoo API of
        # casino_env is tested in tests/test_env.py.
        .environment(name, env_config=dict(env_config), disable_env_checking=True)
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=envs_per_runner)
        .learners(num_learners=learners)
        .training(train_batch_size_per_learner=batch, minibatch_size=minibatch,
                  num_epochs=epochs, lr=lr, **extra)
        .multi_agent(policies=set(policy_ids), policy_mapping_fn=mapping)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            pid: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model)
            for pid in policy_ids}))
        .callbacks(on_episode_end=log_illegal_actions, on_environment_created=one_torch_thread)
        .debugging(seed=seed)
    )


def _num(value: Any) -> float:
    """A metric as a float (NaN when missing)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def metrics_row(result: dict, agents: Sequence[str], policy_ids: Sequence[str],
                seconds: float, seconds_total: float) -> dict[str, Any]:
    """One iteration's metrics from an ``Algorithm.train()`` result, as a flat dict."""
    er = result.get("env_runners", {})
    learners = result.get("learners", {})
    returns = er.get("agent_episode_returns_mean", {}) or {}
    row: dict[str, Any] = {
        "iteration": int(result.get("training_iteration", 0)),
        "env_steps": _num(er.get("num_env_steps_sampled")),
        "env_steps_total": _num(result.get("num_env_steps_sampled_lifetime",
                                           er.get("num_env_steps_sampled_lifetime"))),
        "episodes": _num(er.get("num_episodes", 0)),
        "episode_len_mean": _num(er.get("episode_len_mean")),
        "illegal_actions": _num(er.get(ILLEGAL_METRIC, 0)),
        "seconds": seconds,
        "seconds_total": seconds_total,
    }
    for agent in agents:
        row[f"return_mean_{agent}"] = _num(returns.get(agent))
    for pid in policy_ids:
        lr = learners.get(pid, {})
        row[f"{pid}_steps_trained"] = _num(lr.get("num_module_steps_trained"))
        for key in LOSSES:
            row[f"{pid}_{key}"] = _num(lr.get(key))
    return row


def illegal_actions_total(algo: Any) -> int:
    """Masked-out actions taken in every env of every EnvRunner since they were made."""
    def count(runner: Any) -> int:
        env = getattr(runner, "env", None)
        return sum(e.unwrapped.env.total_illegal_actions for e in env.envs) if env else 0

    return int(sum(algo.env_runner_group.foreach_env_runner(count, local_env_runner=True)))


def _write(out: Path, rows: list[dict], meta: dict) -> None:
    """``metrics.csv`` (one row per iteration) and ``metrics.json`` (settings and rows)."""
    out.mkdir(parents=True, exist_ok=True)
    if rows:
        with open(out / "metrics.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    clean = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
             for r in rows]
    (out / "metrics.json").write_text(json.dumps({**meta, "iterations": clean}, indent=2) + "\n")


def _fmt(value: float, spec: str) -> str:
    """``value`` formatted with ``spec``, or "-" when it is missing (NaN)."""
    return "-" if math.isnan(value) else format(value, spec)


def finished_episodes(row: dict) -> bool:
    """Whether any episode (hand) ended in the iteration of ``row``: without one RLlib has no
    returns to average (they would read NaN)."""
    n = row.get("episodes", 0)
    return not math.isnan(n) and n > 0


def progress_line(row: dict, agents: Sequence[str], policy_ids: Sequence[str]) -> str:
    """A one-line summary of an iteration: steps, episodes, mean return per seat (or "no
    finished episodes"), each policy's losses (or "no update"), illegal actions, seconds."""
    text = (f"iter {row['iteration']:3d}  steps {row['env_steps_total']:8.0f}  "
            f"episodes {_fmt(row['episodes'], '4.0f')}  ")
    if finished_episodes(row):
        rets = " ".join(f"{a}={_fmt(row[f'return_mean_{a}'], '+.2f')}" for a in agents)
        text += f"len {row['episode_len_mean']:6.1f}  return {rets}"
    else:
        text += "no finished episodes"
    losses = []
    for pid in policy_ids:
        pl, vf, ent = (row.get(f"{pid}_{k}", math.nan) for k in LOSSES[:3])
        if all(math.isnan(x) for x in (pl, vf, ent)):
            losses.append(f"{pid}: no update")
        else:
            losses.append(f"{pid}: policy {_fmt(pl, '+.4f')} value {_fmt(vf, '.4f')} "
                          f"entropy {_fmt(ent, '.3f')}")
    return (text + "  loss " + "; ".join(losses)
            + f"  illegal {_fmt(row['illegal_actions'], '.0f')}  {row['seconds']:.1f}s")


def training_fields(agents: Sequence[str], policy_ids: Sequence[str]) -> list[str]:
    """The columns of ``training_curve.csv``: progress, returns per seat, losses per policy."""
    return (["iteration", "env_steps_total", "episodes"]
            + [f"return_mean_{a}" for a in agents]
            + [f"{pid}_{k}" for pid in policy_ids for k in LOSSES])


def plot_training_curve(rows: list[dict], path: Path, agents: Sequence[str],
                        policy_ids: Sequence[str]) -> None:
    """Mean return per seat, and each policy's policy loss, value loss and entropy, over env
    steps (iterations without a finished episode have no return point)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [r["env_steps_total"] for r in rows]
    fig, axes = plt.subplots(1, 4, figsize=(15, 3.6))
    for a in agents:
        axes[0].plot(x, [r[f"return_mean_{a}"] for r in rows], "o-", ms=3, label=a)
    axes[0].axhline(0, color="grey", lw=1)
    axes[0].set_ylabel("mean return per hand")
    for ax, key, label in zip(axes[1:], LOSSES[:3], ("policy loss", "value loss", "entropy")):
        for pid in policy_ids:
            ax.plot(x, [r[f"{pid}_{key}"] for r in rows], "o-", ms=3, label=pid)
        ax.set_ylabel(label)
    for ax in axes:
        ax.set_xlabel("env steps sampled")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"RLlib PPO training ({len(rows)} iterations)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_training_curve(out: Path, rows: list[dict], agents: Sequence[str],
                         policy_ids: Sequence[str]) -> None:
    """``training_curve.csv`` and ``.png``: returns per seat and losses per policy over env
    steps (the CSV+PNG writer that experiments.train uses)."""
    write_table(out, "training_curve", training_fields(agents, policy_ids), rows,
                lambda rs, path: plot_training_curve(rs, path, agents, policy_ids))


# -- evaluation -----------------------------------------------------------------------------------

def game_of(env_config: dict[str, Any]) -> tuple[str, int, bool | None, dict[str, Any]]:
    """(variant, players, partnerships, switches) of an RLlib env config, for
    ``agents.play_match`` (the switches are the ``casino_env.env`` arguments that are no
    argument of ``raw_env`` itself)."""
    from casino_env.aec import RAW_ENV_ARGS

    kwargs, _ = split_env_config(env_config)
    switches = {k: v for k, v in kwargs.items() if k not in RAW_ENV_ARGS}
    return (str(kwargs.get("variant", "casino")), int(kwargs.get("players", 2)),
            kwargs.get("partnerships"), switches)


def field_result(res: Any) -> Any:
    """A match of agent 0 against ``k - 1`` copies of one opponent (``agents.play_match``
    with ``k`` sides) as a match of two: agent 0 against "the opponents". A hand is won when
    agent 0 won it (the env's one-hand winner: strictly the most points, krypkasino the
    fewest), drawn when no side won it and agent 0 shares the lead, else lost; its points
    against the opponents' mean (the env's reward, ``casino_env.returns.points_returns``).
    Two agents are returned as they are."""
    from dataclasses import replace

    from experiments.stats import points_sign

    if len(res.labels) <= 2:
        return res
    sign = points_sign(res.variant)
    k = len(res.labels)

    def pair(values: Sequence[float], mean: bool) -> tuple[float, float]:
        rest = sum(values[1:])
        return (values[0], rest / (k - 1) if mean else rest)

    records = []
    for g in res.records:
        if g.winner == 0:
            winner = 0
        elif g.winner is None:  # a tie at the top: a draw if agent 0 is in it, else a loss
            total = [sign * sum(p[i] for p in g.points) for i in range(k)]
            winner = None if total[0] == max(total) else 1
        else:
            winner = 1
        records.append(replace(
            g, seats=tuple(min(a, 1) for a in g.seats), winner=winner,
            points=[pair(p, True) for p in g.points], scores=pair(g.scores, True),
            decision_seconds=pair(g.decision_seconds, False)))
    return replace(res, labels=[res.labels[0], "opponents"], records=records)


def evaluate_checkpoint(path: Path, env_config: dict[str, Any], hands: dict[str, int],
                        seed: int, progress: bool = False) -> list[dict]:
    """The policy of checkpoint ``path``, as the ``rllib:PATH`` agent, against each opponent
    of ``hands`` (name -> hands): single hands on duplicate deals, the agent on one side and
    the opponent on every other (any player count), each deal once per rotation so the agent
    plays it from every side (``agents.play_match``, deals from ``seed``); one row per
    opponent with hands won (draws half; with more than two sides see ``field_result``, and
    even play wins 1/sides of them), the paired interval over deals and the Wilson interval
    over hands, and the mean point difference per hand (against the opponents' mean) with
    its bootstrap interval (``experiments.stats.summarize_pair``; all 95%)."""
    from agents.rllib_agent import RLlibAgent
    from agents.tournament import play_match
    from casino_env.engine.rules import make_rules
    from experiments.stats import summarize_pair

    agent = RLlibAgent(path)
    variant, players, partnerships, switches = game_of(env_config)
    sides = make_rules(variant, players, partnerships, switches).sides
    rows = []
    for opp, n in hands.items():
        if not n:
            continue
        deals = max(1, math.ceil(n / sides))
        t0 = time.perf_counter()
        res = play_match([agent] + [opp] * (sides - 1), variant, players, deals=deals,
                         seed=seed, mode="hand", partnerships=partnerships, progress=progress,
                         labels=["rllib"] + [opp] * (sides - 1), **switches)
        s = summarize_pair(field_result(res))
        rows.append({"opponent": opp, "hands": s.games, "wins": s.wins, "draws": s.draws,
                     "losses": s.losses, "win_rate": s.win_rate, "paired_lo": s.win_lo,
                     "paired_hi": s.win_hi, "wilson_lo": s.wilson_lo, "wilson_hi": s.wilson_hi,
                     "diff_per_hand": s.diff_per_hand, "diff_lo": s.diff_lo,
                     "diff_hi": s.diff_hi, "seconds": time.perf_counter() - t0})
    return rows


def plot_learning_curve(rows: list[dict], path: Path) -> None:
    """Hands won (Wilson 95% band) and point difference per hand against each opponent, over
    env steps (left) and wall-clock minutes (right)."""
    steps = max((r["timesteps"] for r in rows), default=0)
    plot_steps_and_minutes(rows, path, [
        Metric("win_rate", "wilson_lo", "wilson_hi", "hands won (draws half), 95% Wilson band",
               refs=((0.5, "--"), (0.95, ":")), ylim=(0, 1.02)),
        Metric("diff_per_hand", "diff_lo", "diff_hi",
               "points per hand, RLlib policy - opponent (95% CI)", refs=((0.0, "-"),))],
        title=f"RLlib PPO learning curve ({steps:,} env steps)",
        minutes_label="wall-clock minutes of the run (over resumptions)")


def write_learning_curve(out: Path, rows: list[dict]) -> None:
    """``learning_curve.csv`` and ``.png``: the evaluations, in ``experiments.train``'s
    columns (``CURVE_FIELDS``)."""
    write_table(out, "learning_curve", CURVE_FIELDS, rows, plot_learning_curve)


# -- run state and checkpoints --------------------------------------------------------------------

@dataclass
class RunOptions:
    """How ``train`` runs besides the algorithm's config: where checkpoints go (``runs``,
    default the results folder), the wall-clock budget in ``minutes`` (over resumptions),
    checkpoints (``checkpoint``: at the end; every ``checkpoint_minutes``; implied by
    evaluations and ``resume``), evaluations every ``eval_every`` env steps against
    ``eval_hands`` on deals from ``eval_seed``, ``resume`` / ``fresh``, TensorBoard, progress
    bars and how many checkpoints to keep."""

    runs: Path | None = None
    minutes: float | None = None
    checkpoint: bool = False
    checkpoint_minutes: float = 0.0
    eval_every: int = 0
    eval_hands: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_EVAL_HANDS))
    eval_seed: int = 1
    resume: bool = False
    fresh: bool = False
    tensorboard: bool = False
    progress: bool = False
    keep: int = KEEP_CHECKPOINTS

    def __post_init__(self) -> None:
        """Refuse a budget or period that would never end or never run (a negative
        ``eval_every`` looped forever), naming the field."""
        if self.minutes is not None and not self.minutes > 0:
            raise ValueError(f"RunOptions.minutes must be positive (or None: no budget), "
                             f"got {self.minutes!r}")
        if not self.checkpoint_minutes >= 0:
            raise ValueError(f"RunOptions.checkpoint_minutes must be 0 or more, got "
                             f"{self.checkpoint_minutes!r}")
        if self.eval_every < 0:
            raise ValueError(f"RunOptions.eval_every must be 0 (no evaluations) or more env "
                             f"steps, got {self.eval_every!r}")
        if self.keep < 1:
            raise ValueError(f"RunOptions.keep must be 1 or more, got {self.keep!r}")

    @property
    def checkpoints(self) -> bool:
        """Whether the run writes checkpoints at all."""
        return bool(self.checkpoint or self.checkpoint_minutes or self.eval_every
                    or self.resume)


@dataclass
class RunState:
    """What a run needs besides the algorithm to continue after an interruption, saved as
    ``run_state.json`` in every checkpoint: counters (iterations, env steps, the next
    evaluation's step), clocks summed over resumptions (the run's wall-clock, the seconds in
    ``Algorithm.train``, the periodic evaluations'), the settings it was started with, the
    metric rows and learning-curve rows so far, and the resumptions."""

    run_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    iteration: int = 0
    env_steps: int = 0
    elapsed_seconds: float = 0.0
    train_seconds: float = 0.0
    eval_seconds: float = 0.0
    next_eval: int = 0
    last_checkpoint_seconds: float = 0.0
    finished: bool = False
    stopped_by_time: bool = False
    settings: dict = field(default_factory=dict)
    resumes: list[dict] = field(default_factory=list)
    rows: list[dict] = field(default_factory=list)
    curve: list[dict] = field(default_factory=list)


def _hidden(config: Any) -> list[int] | None:
    """The MLP layer sizes of the config's (first) RLModule, or None when it has none."""
    try:
        specs = config.rl_module_spec.rl_module_specs
        return list(next(iter(specs.values())).model_config["fcnet_hiddens"])
    except (AttributeError, KeyError, StopIteration, TypeError):
        return None


def experiment_settings(config: Any, run: RunOptions, iterations: int) -> dict[str, Any]:
    """The settings that define a run (the env, policies, PPO's hyperparameters, the network,
    the seed, the evaluations, the budget), JSON-normalised: a resumption must match them,
    ``RESUMABLE_CHANGES`` aside."""
    settings = {
        "env_config": dict(config.env_config), "policies": sorted(config.policies),
        "batch": getattr(config, "train_batch_size_per_learner", None),
        "minibatch": getattr(config, "minibatch_size", None),
        "epochs": getattr(config, "num_epochs", None), "lr": getattr(config, "lr", None),
        "gamma": getattr(config, "gamma", None), "gae_lambda": getattr(config, "lambda_", None),
        "entropy": getattr(config, "entropy_coeff", None),
        "clip": getattr(config, "clip_param", None),
        "vf_clip": getattr(config, "vf_clip_param", None), "hidden": _hidden(config),
        "seed": getattr(config, "seed", None), "eval_every": run.eval_every,
        "eval_hands": dict(run.eval_hands) if run.eval_every else {},
        "eval_seed": run.eval_seed if run.eval_every else None,
        "iterations": iterations, "minutes": run.minutes,
        "checkpoint_minutes": run.checkpoint_minutes}
    return json.loads(json.dumps(settings, default=str))


def config_changes(saved: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """The settings in which ``now`` differs from a checkpoint's, as "key (saved in the
    checkpoint, now)", except ``RESUMABLE_CHANGES``."""
    return [f"{k} ({saved.get(k)!r} in the checkpoint, {now.get(k)!r} now)"
            for k in sorted(set(saved) | set(now))
            if k not in RESUMABLE_CHANGES and saved.get(k) != now.get(k)]


def resume_seed(seed: int | None, steps: int) -> int:
    """The env runners' seed after resuming at ``steps``: new deals (not the run's first ones
    again), the same for every resumption from the same checkpoint."""
    import numpy as np

    return int(np.random.SeedSequence([int(seed or 0), int(steps)]).generate_state(1)[0])


def write_state(folder: Path, state: RunState) -> None:
    """(Re)write ``run_state.json`` in a checkpoint folder atomically (a temporary file
    renamed over it)."""
    tmp = folder / f".{STATE}.{os.getpid()}"
    tmp.write_text(json.dumps(asdict(state), default=float) + "\n")
    fsync_path(tmp)
    os.replace(tmp, folder / STATE)


def read_state(folder: Path) -> RunState:
    """The ``RunState`` saved in a checkpoint folder."""
    return RunState(**json.loads((folder / STATE).read_text()))


def checkpoint_step(folder: Path | None) -> int | None:
    """The env steps of a ``step_<n>`` checkpoint folder, or None."""
    if folder is None or not folder.name.startswith("step_"):
        return None
    return int(folder.name.removeprefix("step_"))


def write_checkpoint(algo: Any, root: Path, settings: dict[str, Any], state: RunState,
                     keep: int = KEEP_CHECKPOINTS) -> Path:
    """Write ``root/step_<env steps>``: ``algo.save_to_path``, ``casino_env.json``
    (``settings``: the env config and policies the agent needs) and ``run_state.json``, into
    a temporary folder flushed to disk and then renamed into place, so that a run killed at
    any moment leaves the earlier checkpoints whole; keeps the newest ``keep`` and returns
    the new one's path."""
    root.mkdir(parents=True, exist_ok=True)
    for stale in root.glob(".tmp_*"):  # left by a run killed while writing
        shutil.rmtree(stale, ignore_errors=True)
    step = int(state.env_steps)
    tmp = root / f".tmp_step_{step}_{os.getpid()}"
    algo.save_to_path(str(tmp.resolve()))
    (tmp / SETTINGS).write_text(json.dumps(settings, indent=2, sort_keys=True) + "\n")
    (tmp / STATE).write_text(json.dumps(asdict(state), default=float) + "\n")
    return publish(tmp, root, step, keep, list_checkpoints)


def export_model(checkpoint: Path, dest: Path, policy_ids: Sequence[str]) -> Path:
    """Copy the policies' RLModules and ``casino_env.json`` of ``checkpoint`` to ``dest``
    (``dest/<policy>/``: weights without optimizer or env-runner state, what ``rllib:dest``
    plays), replacing an earlier export."""
    tmp = dest.parent / f".tmp_{dest.name}_{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    shutil.copy2(checkpoint / SETTINGS, tmp / SETTINGS)
    for pid in policy_ids:
        shutil.copytree(checkpoint / MODULES / pid, tmp / pid)
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    return dest


def remove_export(dest: Path) -> None:
    """Delete an exported model ``dest`` (``<out>/model``): renamed away first, so that
    ``rllib:<out>`` sees either the whole export or none (then the latest checkpoint)."""
    if not dest.exists():
        return
    gone = dest.parent / f".old_{dest.name}_{os.getpid()}"
    shutil.rmtree(gone, ignore_errors=True)
    dest.rename(gone)
    shutil.rmtree(gone, ignore_errors=True)


def check_checkpoints(root: Path, run: RunOptions) -> Path | None:
    """The latest checkpoint under ``root`` if the run may start as ``run`` asks, else
    RunStateError saying what to do: a new run over an earlier run's checkpoints (without
    ``fresh``), or ``resume`` with no checkpoint. Cheap: ``main`` calls it before starting
    Ray."""
    latest = latest_checkpoint(root)
    if run.resume and latest is None:
        raise RunStateError(f"--resume: no checkpoint in {root}, so nothing to resume; run "
                            "without --resume to start the run")
    if not run.resume and latest is not None and not run.fresh:
        raise RunStateError(
            f"{root} holds the checkpoints of an earlier run (latest {latest.name}): add "
            "--resume to continue it, --fresh to delete them and start again, or give "
            "another --out or --runs")
    return latest


def prepare_run(root: Path, settings: dict[str, Any], run: RunOptions
                ) -> tuple[Path | None, RunState]:
    """The checkpoint to resume from (None for a new run) and the run's state. A new run
    refuses a folder holding another run's checkpoints unless ``run.fresh`` (which deletes
    them); ``run.resume`` needs a checkpoint written with the same settings."""
    latest = check_checkpoints(root, run)
    if not run.resume:
        if run.fresh and root.exists():
            shutil.rmtree(root)
        return None, RunState(settings=settings, next_eval=int(run.eval_every))
    assert latest is not None  # (check_checkpoints refused a resumption without one)
    state = read_state(latest)
    changes = config_changes(state.settings, settings)
    if changes:
        raise RunStateError(f"--resume: the settings differ from those {latest} was written "
                            f"with in {'; '.join(changes)}; resume with the same settings or "
                            "start a new run elsewhere (--out, --runs)")
    state.settings = settings  # (the budget may have changed)
    return latest, state


# -- speed ----------------------------------------------------------------------------------------

def speed(state: RunState) -> dict[str, Any]:
    """Env steps, seconds and frames/s of a run over all its sessions: ``frames_per_second``
    counts the seconds inside ``Algorithm.train`` (sampling and learning),
    ``frames_per_second_run`` the run's whole wall-clock (evaluations, checkpoints, start-up);
    with the connect-four reference of ``experiments.bench_train`` beside."""
    out: dict[str, Any] = {
        "env_steps": int(state.env_steps), "train_seconds": state.train_seconds,
        "eval_seconds": state.eval_seconds, "elapsed_seconds": state.elapsed_seconds,
        "frames_per_second": state.env_steps / max(state.train_seconds, 1e-9),
        "frames_per_second_run": state.env_steps / max(state.elapsed_seconds, 1e-9),
        "stopped_by_time_limit": state.stopped_by_time, "resumptions": len(state.resumes)}
    try:
        from experiments.train import connect_four_reference
    except ImportError:  # (the train extra missing)
        return out
    ref = connect_four_reference()
    if ref is not None:
        out["connect_four_reference"] = ref
        out["vs_connect_four"] = out["frames_per_second"] / ref["frames_per_second"]
    return out


def speed_text(sp: dict[str, Any]) -> str:
    """"12,345 env steps in 2.0 min of Algorithm.train, 1,234 frames/s (...)": the ratio to
    the connect-four reference measured right after the run where there is one, and to the
    committed figure of experiments.bench_train (measured on another day)."""
    text = (f"{sp['env_steps']:,} env steps in {sp['train_seconds'] / 60:.1f} min of "
            f"Algorithm.train, {sp['frames_per_second']:,.0f} frames/s")
    ref = sp.get("connect_four_reference")
    now = sp.get("connect_four_measured")
    if now:
        text += (f" ({sp['vs_connect_four_measured']:.2f}x the connect_four_v3 reference "
                 f"measured right after the run, {now['frames_per_second']:,.0f} frames/s on "
                 "one env")
        if ref:
            text += (f"; {sp['vs_connect_four']:.2f}x the committed "
                     f"{ref['frames_per_second']:,.0f} of experiments.bench_train")
        text += ")"
    elif ref:
        text += (f" ({sp['vs_connect_four']:.2f}x the connect_four_v3 reference of "
                 f"experiments.bench_train, {ref['frames_per_second']:,.0f} frames/s on one "
                 "env, measured on another day)")
    return text


def add_measured_reference(out: Path | None, summary: dict[str, Any], frames: int) -> None:
    """Measure the connect-four reference now (``train.measured_connect_four_reference``), put
    it and the run's ratio to it into ``summary`` and ``out/metrics.json``: a ratio to a
    reference measured on the same machine the same hour is what compares across days."""
    try:
        from experiments.train import measured_connect_four_reference
    except ImportError:  # (the train extra missing)
        return
    ref = measured_connect_four_reference(frames)
    if ref is None:
        return
    extra = {"connect_four_measured": ref,
             "vs_connect_four_measured": summary["frames_per_second"] / ref["frames_per_second"]}
    summary.update(extra)
    path = Path(out or ".") / "metrics.json"
    if out is not None and path.exists():
        meta = json.loads(path.read_text())
        meta.update(extra)
        path.write_text(json.dumps(meta, indent=2) + "\n")


# -- training -------------------------------------------------------------------------------------

class _TensorBoard:
    """Scalars to ``<runs>/tb`` (the same folder on resumption), or nothing when off."""

    def __init__(self, folder: Path | None) -> None:
        self.writer = None
        if folder is not None:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(folder))

    def iteration(self, row: dict, agents: Sequence[str], policy_ids: Sequence[str]) -> None:
        if self.writer is None:
            return
        step = int(row["env_steps_total"]) if math.isfinite(row["env_steps_total"]) else 0
        for a in agents:
            if math.isfinite(row[f"return_mean_{a}"]):
                self.writer.add_scalar(f"return/{a}", row[f"return_mean_{a}"], step)
        for pid in policy_ids:
            for k in LOSSES:
                if math.isfinite(row.get(f"{pid}_{k}", math.nan)):
                    self.writer.add_scalar(f"{pid}/{k}", row[f"{pid}_{k}"], step)
        self.writer.add_scalar("time/iteration_seconds", row["seconds"], step)

    def evaluation(self, rows: list[dict]) -> None:
        if self.writer is None:
            return
        for r in rows:
            self.writer.add_scalar(f"eval/win_rate_{r['opponent']}", r["win_rate"],
                                   int(r["timesteps"]))
            self.writer.add_scalar(f"eval/diff_per_hand_{r['opponent']}", r["diff_per_hand"],
                                   int(r["timesteps"]))

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def _finished_summary(meta: dict, state: RunState, out: Path | None, ckpt: Path,
                      policy_ids: Sequence[str], say: Callable[[str], None]) -> dict[str, Any]:
    """A finished run resumed with no budget left: nothing trained; the results a run killed
    in its last steps may lack (the exported model, metrics, learning curve) written."""
    say(f"{ckpt.parent}: the run is finished ({state.env_steps:,} env steps, "
        f"{state.elapsed_seconds / 60:.1f} min); nothing to resume")
    meta.update(speed(state), checkpoint=str(ckpt), resumes=state.resumes)
    if out is not None:  # what a run killed in its last steps may not have written
        if not (out / "model" / SETTINGS).is_file():
            export_model(ckpt, out / "model", policy_ids)
        if not (out / "metrics.json").is_file():
            _write(out, state.rows, meta)
        if state.curve and not (out / "learning_curve.csv").is_file():
            write_learning_curve(out, state.curve)
    return {**meta, "iterations": state.rows, "curve": state.curve, "already_finished": True}


def python_hash_seed() -> str:
    """This process's ``PYTHONHASHSEED`` ("random" when unset): with RLlib the seed fixes a
    run only together with it."""
    return os.environ.get("PYTHONHASHSEED", "random")


def train(config: Any, iterations: int, out: str | Path | None = None,
          checkpoint: bool = False, log: Callable[[str], None] | None = print,
          run: RunOptions | None = None) -> dict[str, Any]:
    """Build the algorithm from ``config`` (or, with ``run.resume``, restore it from the
    latest checkpoint) and train until ``iterations`` iterations in all or the wall-clock
    budget ``run.minutes`` (over resumptions) is spent. Writes the metrics and the training
    curve under ``out`` (if given) every ``WRITE_SECONDS`` and at the end; checkpoints and
    evaluations as ``run`` says (``checkpoint``: one at the end); and, when it checkpoints,
    at the end the learning curve's last point, a final checkpoint and the exported model.
    Returns settings, rows, curve rows, speed and illegal-action totals (Ray must be
    initialised, or RLlib starts a local runtime)."""
    torch.set_num_threads(1)  # more threads are ~25x slower for these small networks on CPU
    import ray

    import casino_env

    run = run if run is not None else RunOptions()
    if checkpoint:
        run.checkpoint = True
    say = log if log is not None else (lambda text: None)
    env_config = dict(config.env_config)
    agents = list(casino_env.raw_env(**split_env_config(env_config)[0]).possible_agents)
    policy_ids = sorted(config.policies)
    mapping = {a: config.policy_mapping_fn(a, None) for a in agents}
    meta: dict[str, Any] = {
        "env_config": env_config, "policies": policy_ids, "policy_mapping": mapping,
        "train_batch_size_per_learner": config.train_batch_size_per_learner,
        "minibatch_size": config.minibatch_size, "num_epochs": config.num_epochs,
        "lr": config.lr, "num_env_runners": config.num_env_runners,
        "machine": f"{platform.machine()} python {platform.python_version()} "
                   f"torch {torch.__version__} ray {ray.__version__}",
        # RLlib orders the seats through string hashing: the same seed trains the same only
        # under the same PYTHONHASHSEED (docs/rl_baselines.md)
        "python_hash_seed": python_hash_seed(),
    }
    out = Path(out) if out is not None else None
    runs = Path(run.runs) if run.runs is not None else out
    if run.checkpoints and runs is None:
        raise ValueError("checkpoints and evaluations need a folder: give out or run.runs")
    root = runs / "checkpoints" if runs is not None else Path(".")
    settings = experiment_settings(config, run, iterations)
    if run.checkpoints:
        ckpt, state = prepare_run(root, settings, run)
    else:
        ckpt, state = None, RunState(settings=settings)
    limit = 60 * run.minutes if run.minutes else None
    if ckpt is not None:
        left = len(state.rows) < iterations and (limit is None
                                                 or state.elapsed_seconds < limit)
        if state.finished and not left:
            return _finished_summary(meta, state, out, ckpt, policy_ids, say)
        state.resumes.append({"env_steps": state.env_steps, "iteration": state.iteration,
                              "minutes": state.elapsed_seconds / 60, "checkpoint": ckpt.name,
                              "python_hash_seed": python_hash_seed(),
                              "at": time.strftime("%Y-%m-%d %H:%M:%S")})
        say(f"resuming {root} from {ckpt.name}: {state.env_steps:,} env steps, iteration "
            f"{state.iteration}, {state.elapsed_seconds / 60:.1f} min used"
            + (f" of {run.minutes:g}" if run.minutes else "")
            + f", {len(state.curve)} learning-curve rows")
        config = config.copy(copy_frozen=False).debugging(
            seed=resume_seed(settings.get("seed"), state.env_steps))
    if out is not None and run.checkpoints:
        # An earlier export (a new run's predecessor, or this run's when a finished run is
        # extended) would be played by rllib:<out> instead of the checkpoints to come until
        # the run ends; it is exported again then.
        remove_export(out / "model")
    state.finished = state.stopped_by_time = False
    rows, curve = state.rows, state.curve
    ckpt_settings = {"env_config": env_config, "policies": policy_ids,
                     "policy_mapping": mapping,
                     "algorithm": "ray.rllib PPO, ActionMaskingTorchRLModule",
                     "ray": ray.__version__}
    clock_stopped = False
    t_start = time.perf_counter() - state.elapsed_seconds  # the budget spans resumptions
    algo = config.build_algo()
    meta["build_seconds"] = time.perf_counter() - t_start - state.elapsed_seconds
    tb = _TensorBoard(runs / "tb" if run.tensorboard and runs is not None else None)
    last: Path | None = ckpt

    def elapsed() -> float:
        return time.perf_counter() - t_start

    def save() -> Path:
        nonlocal last
        if not clock_stopped:
            state.elapsed_seconds = elapsed()
        state.last_checkpoint_seconds = state.elapsed_seconds
        last = write_checkpoint(algo, root, ckpt_settings, state, run.keep)
        return last

    def evaluate(count: bool = True) -> None:
        path = last if checkpoint_step(last) == state.env_steps else save()
        minutes = state.elapsed_seconds / 60  # when the policy was this one
        t0 = time.perf_counter()
        found = evaluate_checkpoint(path, env_config, run.eval_hands, run.eval_seed,
                                    run.progress)
        for r in found:
            r.update(timesteps=state.env_steps, minutes=minutes,
                     phase="ppo" if state.env_steps else "init")
        curve.extend(found)
        if count:
            state.eval_seconds += time.perf_counter() - t0
            state.elapsed_seconds = elapsed()
        write_state(path, state)  # the checkpoint's state, with this evaluation in its curve
        if out is not None:
            write_learning_curve(out, curve)
        tb.evaluation(found)
        say(f"evaluation at {state.env_steps:,} env steps ({minutes:.1f} min): hands won "
            + "  ".join(f"{r['opponent']} {r['win_rate']:.3f} [{r['paired_lo']:.3f}, "
                        f"{r['paired_hi']:.3f}]" for r in found)
            + f"  ({time.perf_counter() - t0:.0f}s)")

    try:
        if ckpt is not None:
            algo.restore_from_path(str(ckpt.resolve()))
        elif run.eval_every:
            evaluate()  # the untrained policy: the curve's first point
        ckpt_seconds = 60 * run.checkpoint_minutes
        written = -math.inf  # when the metrics and the training curve were last written
        while len(rows) < iterations:
            if limit is not None and elapsed() >= limit:
                state.stopped_by_time = True
                break
            t0 = time.perf_counter()
            result = algo.train()
            t1 = time.perf_counter()
            state.train_seconds += t1 - t0
            row = metrics_row(result, agents, policy_ids, t1 - t0, t1 - t_start)
            rows.append(row)
            state.iteration = row["iteration"]
            if math.isfinite(row["env_steps_total"]):
                state.env_steps = int(row["env_steps_total"])
            say(progress_line(row, agents, policy_ids))
            if out is not None and t1 - written >= WRITE_SECONDS:
                _write(out, rows, meta)
                write_training_curve(out, rows, agents, policy_ids)
                written = time.perf_counter()
            tb.iteration(row, agents, policy_ids)
            if run.eval_every and state.env_steps >= state.next_eval:
                while state.next_eval <= state.env_steps:
                    state.next_eval += run.eval_every
                evaluate()
            elif ckpt_seconds and elapsed() - state.last_checkpoint_seconds >= ckpt_seconds:
                save()
        state.elapsed_seconds = elapsed()  # the clock stops: the rest is outside the budget
        clock_stopped = True
        state.stopped_by_time = state.stopped_by_time or (
            limit is not None and state.elapsed_seconds >= limit)
        if run.checkpoints:
            if run.eval_every and state.env_steps and (
                    not curve or curve[-1]["timesteps"] < state.env_steps):
                evaluate(count=False)  # the curve's last point: the final policy
            state.finished = True
            if checkpoint_step(last) == state.env_steps:
                write_state(last, state)
            else:
                save()
            if out is not None:
                export_model(last, out / "model", policy_ids)
            meta["checkpoint"] = str(last)
        meta["illegal_actions_total"] = illegal_actions_total(algo)
        meta["resumes"] = state.resumes
        meta.update(speed(state))
        if out is not None:
            _write(out, rows, meta)
            write_training_curve(out, rows, agents, policy_ids)
            if curve:
                write_learning_curve(out, curve)
    finally:
        algo.stop()
        tb.close()
    return {**meta, "iterations": rows, "curve": curve}


# -- command line ---------------------------------------------------------------------------------

# Options a --config file cannot set (where the run is and how it starts).
NOT_IN_CONFIG = ("help", "config", "address", "out", "runs", "resume", "fresh")


def parse_hidden(value: object) -> list[int]:
    """MLP layer sizes from "256,256" or [256, 256]; ValueError naming the value otherwise."""
    items = value.split(",") if isinstance(value, str) else value
    try:
        sizes = [int(h) for h in items if str(h).strip()]  # type: ignore[union-attr]
    except (TypeError, ValueError):
        sizes = []
    if not sizes or any(h < 1 for h in sizes) or any(isinstance(h, bool) for h in items):
        raise ValueError(f"hidden: expected layer sizes like 256,256, got {value!r}")
    return sizes


def parse_hands(value: object) -> dict[str, int]:
    """Evaluation opponents and hands from "random=400,greedy=1000" or a TOML table;
    ValueError naming the problem (an unknown agent, a count that is no int >= 0)."""
    from agents.registry import make_agent

    if isinstance(value, str):
        pairs = []
        for part in value.split(","):
            name, eq, n = part.partition("=")
            if not eq or not name.strip():
                raise ValueError(f"eval_hands: expected opponent=hands,..., got {value!r}")
            try:
                pairs.append((name.strip(), int(n)))
            except ValueError:
                raise ValueError(f"eval_hands: {name.strip()}: hands must be an int, got "
                                 f"{n.strip()!r}") from None
    elif isinstance(value, dict):
        pairs = list(value.items())
    else:
        raise ValueError(f"eval_hands: expected a table of opponent = hands, got {value!r}")
    hands: dict[str, int] = {}
    for name, n in pairs:
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"eval_hands: {name}: hands must be an int >= 0, got {n!r}")
        make_agent(str(name))  # an unknown opponent fails here, naming the known ones
        hands[str(name)] = n
    return hands


def _config_value(path: Path, key: str, value: object, action: argparse.Action) -> object:
    """``value`` of option ``key`` in the config file if its type fits the option's; else
    SystemExit naming the file, the key and what it must be."""
    def bad(what: str) -> SystemExit:
        return SystemExit(f"{path}: {key} must be {what}, got {value!r}")

    if key == "hidden":
        try:
            return parse_hidden(value)
        except ValueError as e:
            raise SystemExit(f"{path}: {e}") from None
    if key == "eval_hands":
        try:
            return parse_hands(value)
        except ValueError as e:
            raise SystemExit(f"{path}: {e}") from None
    if isinstance(action, argparse._StoreTrueAction):
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if action.type is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise bad("an int")
    if action.type is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad("a number")
        value = float(value)
    if action.type is None and not isinstance(value, str):
        raise bad("a string")
    if action.choices is not None and value not in action.choices:
        raise bad(f"one of {', '.join(map(repr, action.choices))}")
    return value


def load_options(path: Path, ap: argparse.ArgumentParser) -> dict[str, Any]:
    """The options a TOML file sets, by the long names of the flags (dashes as underscores),
    at the top level or in any ``[section]`` (sections only group them); SystemExit naming
    the file and the problem for a missing or malformed file, an unknown or repeated option
    or a value of the wrong type."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise SystemExit(f"--config: {path} not found") from None
    except tomllib.TOMLDecodeError as e:
        raise SystemExit(f"--config {path}: not valid TOML: {e}") from None
    actions = {a.dest: a for a in ap._actions if a.dest not in NOT_IN_CONFIG}
    items: list[tuple[str, str, object]] = []
    for key, value in data.items():
        if isinstance(value, dict) and key not in actions:
            items.extend((f"[{key}]", k, v) for k, v in value.items())
        else:
            items.append(("the top level", key, value))
    found: dict[str, Any] = {}
    for where, key, value in items:
        if key in NOT_IN_CONFIG:
            raise SystemExit(f"{path}: {key} is set on the command line only")
        if key not in actions:
            close = difflib.get_close_matches(key, list(actions), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise SystemExit(f"{path}: unknown option {key!r} in {where} (known: "
                             f"{', '.join(sorted(actions))}){hint}")
        if key in found:
            raise SystemExit(f"{path}: option {key!r} is set twice")
        found[key] = _config_value(path, key, value, actions[key])
    return found


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``main`` (and the option names of a ``--config`` file)."""
    ap = argparse.ArgumentParser(prog="python -m experiments.rllib_train", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", type=Path, default=None,
                    help="TOML file of options by their long names (e.g. batch = 4096, "
                    "eval_hands = {random = 400}); flags given here win")
    ap.add_argument("--variant", default="casino")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=10,
                    help="training iterations in all (over resumptions)")
    ap.add_argument("--minutes", type=float, default=None,
                    help="wall-clock budget in minutes, over resumptions (default: none)")
    ap.add_argument("--policies", choices=POLICY_MODES, default="shared",
                    help="one policy for every seat (self-play), or one per seat")
    ap.add_argument("--action-mode", choices=("compose", "enumerate"), default="compose")
    ap.add_argument("--max-moves", type=int, default=32, help="K in enumerate mode")
    ap.add_argument("--observation", choices=("full", "compact"), default="full",
                    help="observation layout (docs/environment.md)")
    ap.add_argument("--last-capturer", action="store_true",
                    help="add who captured last to the observation (docs/environment.md)")
    ap.add_argument("--reward-scale", type=float, default=1.0,
                    help="multiplies the hand's point difference (the reward)")
    ap.add_argument("--batch", type=int, default=512, help="env steps per iteration")
    ap.add_argument("--minibatch", type=int, default=128)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--gamma", type=float, default=None, help="discount (RLlib's default 0.99)")
    ap.add_argument("--gae-lambda", type=float, default=None,
                    help="GAE lambda (RLlib's default 1.0)")
    ap.add_argument("--entropy", type=float, default=None,
                    help="entropy coefficient (RLlib's default 0)")
    ap.add_argument("--clip", type=float, default=None,
                    help="PPO clip parameter (RLlib's default 0.3)")
    ap.add_argument("--vf-clip", type=float, default=None,
                    help="value loss clip (RLlib's default 10)")
    ap.add_argument("--hidden", default="128,128", help="MLP layer sizes, comma-separated")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--env-runners", type=int, default=0,
                    help="remote EnvRunner actors (0 = sample in this process)")
    ap.add_argument("--envs-per-runner", type=int, default=1)
    ap.add_argument("--learners", type=int, default=0,
                    help="remote Learner actors (0 = learn in this process)")
    ap.add_argument("--address", default=None,
                    help="Ray cluster to join (e.g. 'auto'); default: start a local runtime")
    ap.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local runtime")
    ap.add_argument("--eval-every", type=int, default=0,
                    help="env steps between evaluations against --eval-hands (0: none)")
    ap.add_argument("--eval-hands", default="random=400,greedy=1000,heuristic=1000",
                    help="evaluation opponents and hands (duplicate deals, both seats)")
    ap.add_argument("--eval-seed", type=int, default=1, help="seed of the evaluation deals")
    ap.add_argument("--checkpoint-minutes", type=float, default=0.0,
                    help="wall-clock minutes between checkpoints (0: at evaluations and the "
                    "end only)")
    ap.add_argument("--name", default=None,
                    help="run name for the default --out, runs/rllib/<name> ({variant} and "
                    "{seed} filled in; default: the variant)")
    ap.add_argument("--out", type=Path, default=None,
                    help=f"results dir (default {DEFAULT_OUT}/<name>, git-ignored)")
    ap.add_argument("--runs", type=Path, default=None,
                    help="checkpoints and TensorBoard dir (default: --out)")
    ap.add_argument("--checkpoint", action="store_true",
                    help="save a checkpoint at the end (and export the model to <out>/model)")
    ap.add_argument("--resume", action="store_true",
                    help="continue the run from its latest checkpoint (same settings; "
                    "--iterations, --minutes and --checkpoint-minutes may change)")
    ap.add_argument("--fresh", action="store_true",
                    help="delete an earlier run's checkpoints and start again")
    ap.add_argument("--reference-frames", type=int, default=8192,
                    help="after the run, measure the connect-four reference of "
                    "experiments.bench_train for this many frames (about 15 s; needs the "
                    "bench extra) and report frames/s against it (0: only the committed "
                    "figure)")
    ap.add_argument("--tensorboard", action="store_true",
                    help="log metrics and evaluations to <runs>/tb")
    return ap


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line of ``main``: the defaults, then ``--config``'s options, then the flags
    given; ``hidden`` as a list of ints and ``eval_hands`` as a dict."""
    ap = build_parser()
    first, _ = ap.parse_known_args(argv)
    if first.config is not None:
        ap.set_defaults(**load_options(first.config, ap))
    a = ap.parse_args(argv)
    if a.resume and a.fresh:
        ap.error("--resume and --fresh cannot go together")
    for flag, value, least in (("--batch", a.batch, 1), ("--minibatch", a.minibatch, 1),
                               ("--epochs", a.epochs, 1), ("--eval-every", a.eval_every, 0)):
        if value < least:
            ap.error(f"{flag} must be {'positive' if least else '0 or more'}, got {value}")
    if a.minutes is not None and not a.minutes > 0:
        ap.error(f"--minutes must be positive (leave it out for no budget), got {a.minutes}")
    if not a.checkpoint_minutes >= 0:
        ap.error(f"--checkpoint-minutes must be 0 or more, got {a.checkpoint_minutes}")
    try:
        a.hidden = parse_hidden(a.hidden)
        a.eval_hands = parse_hands(a.eval_hands)
    except ValueError as e:
        ap.error(str(e))
    return a


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: parse arguments, start or join Ray, train (or resume), write results."""
    a = parse_args(argv)
    import ray

    name = a.name.format(variant=a.variant, seed=a.seed) if a.name else None
    out = a.out or default_out(a.variant, name)
    run = RunOptions(runs=a.runs, minutes=a.minutes, checkpoint=a.checkpoint,
                     checkpoint_minutes=a.checkpoint_minutes, eval_every=a.eval_every,
                     eval_hands=a.eval_hands, eval_seed=a.eval_seed, resume=a.resume,
                     fresh=a.fresh, tensorboard=a.tensorboard, progress=sys.stderr.isatty())
    if run.checkpoints:  # refused before Ray starts (the settings are checked after)
        try:
            check_checkpoints(Path(run.runs or out) / "checkpoints", run)
        except RunStateError as e:
            raise SystemExit(str(e)) from None
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if a.address:
        ray.init(address=a.address)
    else:
        ray.init(num_cpus=a.num_cpus, include_dashboard=False)
    try:
        config = build_config(
            env_settings(a.variant, a.players, a.action_mode, a.max_moves, a.observation,
                         a.reward_scale, last_capturer=a.last_capturer), a.policies,
            batch=a.batch, minibatch=a.minibatch, epochs=a.epochs, lr=a.lr, hidden=a.hidden,
            seed=a.seed, env_runners=a.env_runners, envs_per_runner=a.envs_per_runner,
            learners=a.learners, gamma=a.gamma, gae_lambda=a.gae_lambda, entropy=a.entropy,
            clip=a.clip, vf_clip=a.vf_clip)
        summary = train(config, a.iterations, out, log=print, run=run)
    except RunStateError as e:
        raise SystemExit(str(e)) from None
    finally:
        ray.shutdown()
    if summary.get("already_finished"):
        return 0
    if a.reference_frames and summary.get("env_steps"):
        add_measured_reference(out, summary, a.reference_frames)
    files = "metrics.csv, metrics.json, training_curve.csv/.png"
    if summary.get("curve"):
        files += ", learning_curve.csv/.png"
    if "checkpoint" in summary:
        files += ", model/ (rllib:" + str(out) + ")"
    print(f"illegal actions taken: {summary['illegal_actions_total']}; "
          f"{speed_text(summary)}; results in {out} ({files})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
