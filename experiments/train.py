"""Train a MaskablePPO agent for one preset: behaviour-cloning warm start, then PPO against an
opponent pool (scripted agents and snapshots of the learner), with periodic evaluation.

One command per result (a TOML file per variant in ``experiments/configs/``)::

    python -m experiments.train --config experiments/configs/casino.toml
    python -m experiments.train --config experiments/configs/casino.toml --steps 20000 \\
        --minutes 5 --out /tmp/casino_try

The shipped baselines were written with ``--out experiments/results/train/<variant>``; without
``--out`` a run goes to ``runs/train/<variant>`` (git-ignored), never over a shipped model.

Pipeline (everything counts against ``run.time_limit_minutes`` except the final evaluation):

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
3. Every ``eval.every`` steps: duplicate-deal single hands against each scripted opponent
   (``agents.play_match``), hands won with Wilson and paired intervals and mean point
   difference, written to ``learning_curve.csv``/``.png`` and TensorBoard.
4. Final model (``model.zip`` + ``model.json``), the config, ``train_log.json`` and the final
   evaluation (``eval_final.md``/``.csv``/``.json``) go to ``--out`` (default
   ``runs/train/<variant>``); checkpoints and TensorBoard logs to ``--runs`` (default
   ``runs/train/<variant>`` too, as ``checkpoints/`` and ``tb/``). ``runs/`` is not kept in git.
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import math
import platform
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium  # noqa: F401  (import before casino_env.single, see experiments/train_env.py)
import torch

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover (python 3.10)
    import tomli as tomllib

from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from agents.ppo import (
    MoveScoringPolicy,
    PPOAgent,
    save_env_config,
    scorer_segments,
    snapshot_policy,
)
from agents.tournament import play_match
from casino_env.encoding import Layout
from casino_env.engine.rules import make_rules
from experiments import bc
from experiments.curves import write_table
from experiments.stats import error_bars, summarize_pair
from experiments.train_env import make_train_vec_env

DEFAULTS: dict[str, Any] = {
    "env": {"variant": "casino", "players": 2, "partnerships": None,
            "action_mode": "enumerate", "max_moves": 128, "episode": "hand",
            "reward": "points", "reward_scale": 0.1, "win_bonus": 0.0, "auto_forced": True,
            "hints": None, "baseline": None, "observation": "full",
            "switches": {}},
    "policy": {"hidden": 256, "pair_hidden": 128, "layers": 2, "net_arch": [256, 256],
               "prior_temperature": 0.0},
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
            "target_kl": None},
    "opponents": {"pool": {"heuristic": 1, "greedy": 1, "random": 1}, "snapshot_every": 0,
                  "snapshots": 4, "snapshot_deterministic": False},
    "eval": {"every": 100_000, "hands": {"random": 100, "greedy": 200, "heuristic": 200},
             "final_hands": {"random": 1000, "greedy": 1000, "heuristic": 1000},
             "seed": 1234, "final_seed": 98765},
    "run": {"seed": 0, "time_limit_minutes": 55.0, "checkpoint_every": 250_000,
            "progress": True, "verbose": True},
}
SCRIPTED = ("random", "greedy", "heuristic", "search")
RUNS = Path("runs/train")  # git-ignored: default results, checkpoints and TensorBoard logs


def default_out(variant: str) -> Path:
    """Where a run writes without ``--out`` (and its checkpoints without ``--runs``):
    ``runs/train/<variant>``, git-ignored, so that no run overwrites a shipped model."""
    return RUNS / variant


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
            "observation": e.get("observation") or "full"}


def env_kwargs(cfg: dict, opponent: object = "random") -> dict:
    """Keyword arguments of ``TrainEnv`` for the learner's environments."""
    e = cfg["env"]
    kw = dict(variant=e["variant"], players=e["players"], partnerships=e.get("partnerships"),
              action_mode=e["action_mode"], episode=e["episode"], reward=e["reward"],
              auto_forced=e["auto_forced"], max_moves=e["max_moves"],
              dict_obs=e["action_mode"] == "enumerate", reward_scale=e["reward_scale"],
              win_bonus=float(e.get("win_bonus") or 0.0), hints=e.get("hints") or None,
              baseline=e.get("baseline") or None, opponent=opponent,
              observation=e.get("observation") or "full")
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


def build_model(cfg: dict, venv, tensorboard_log: str | None, seed: int) -> MaskablePPO:
    """MaskablePPO with ``MoveScoringPolicy`` (enumerate) or an MLP policy (compose)."""
    p, pol, e = cfg["ppo"], cfg["policy"], cfg["env"]
    lr0, lr1 = p["learning_rate"], p.get("learning_rate_final")
    lr = lr0 if lr1 is None else (lambda progress: lr1 + (lr0 - lr1) * progress)
    if e["action_mode"] == "enumerate":
        if (e.get("observation") or "full") != "full":
            raise ValueError("env.observation: the move-scoring policy (enumerate mode) reads "
                             "the full layout's card planes; use observation = \"full\"")
        layout = Layout(make_rules(e["variant"], e["players"], e.get("partnerships"),
                                   dict(e.get("switches") or {})), compose=False)
        policy: Any = MoveScoringPolicy
        policy_kwargs = {"scorer_kwargs": {
            "segments": scorer_segments(layout), "deck_size": layout.rules.deck.size,
            "hidden": pol["hidden"], "pair_hidden": pol["pair_hidden"],
            "layers": pol["layers"],
            "prior_temperature": float(pol.get("prior_temperature") or 0.0)}}
    else:
        policy = "MlpPolicy"
        policy_kwargs = {"net_arch": list(pol["net_arch"])}
    return MaskablePPO(policy, venv, learning_rate=lr, n_steps=p["n_steps"],
                       batch_size=p["batch_size"], n_epochs=p["n_epochs"], gamma=p["gamma"],
                       gae_lambda=p["gae_lambda"], clip_range=p["clip_range"],
                       ent_coef=p["ent_coef"], vf_coef=p["vf_coef"],
                       max_grad_norm=p["max_grad_norm"], target_kl=p.get("target_kl"),
                       policy_kwargs=policy_kwargs, tensorboard_log=tensorboard_log,
                       seed=seed, device="cpu", verbose=0)


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
    wall-clock minutes (timesteps on the top axis of the first panel)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    colors = {"random": "#55a868", "greedy": "#4c72b0", "heuristic": "#c44e52",
              "search": "#8172b2"}
    for opp in dict.fromkeys(r["opponent"] for r in rows):
        rs = [r for r in rows if r["opponent"] == opp]
        x = [r["minutes"] for r in rs]
        c = colors.get(opp)
        for ax, y, lo, hi in ((axes[0], "win_rate", "wilson_lo", "wilson_hi"),
                              (axes[1], "diff_per_hand", "diff_lo", "diff_hi")):
            ys = [r[y] for r in rs]
            if len(rs) == 1:  # one evaluation (behaviour cloning only): a point with its bar
                ax.errorbar(x, ys, yerr=error_bars(ys, [rs[0][lo]], [rs[0][hi]]), fmt="o",
                            color=c, label=opp, ms=4, capsize=4)
            else:
                ax.plot(x, ys, "o-", color=c, label=opp, ms=3)
                ax.fill_between(x, [r[lo] for r in rs], [r[hi] for r in rs], color=c,
                                alpha=0.15)
    axes[0].axhline(0.5, color="grey", lw=1, ls="--")
    axes[0].axhline(0.95, color="grey", lw=1, ls=":")
    axes[0].set_ylim(0, 1.02)
    axes[0].set_ylabel("hands won (draws half), 95% Wilson band")
    axes[1].axhline(0, color="grey", lw=1)
    axes[1].set_ylabel("points per hand, PPO - opponent (95% CI)")
    xs = [r["minutes"] for r in rows]
    for ax in axes:
        ax.set_xlabel("wall-clock minutes (behaviour cloning from 0, then PPO)")
        ax.ticklabel_format(axis="x", useOffset=False)
        if xs and max(xs) - min(xs) < 0.5:  # a single evaluation: give it some room
            ax.set_xlim(min(xs) - 1, max(xs) + 1)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    steps = [r["timesteps"] for r in rows]
    if steps:
        fig.suptitle(f"learning curve ({max(steps):,} PPO steps)" if max(steps) else
                     "after behaviour cloning (no PPO)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# -- training --------------------------------------------------------------------------------------

class TrainingCallback(BaseCallback):
    """Self-play snapshots, periodic evaluation, checkpoints and the wall-clock budget."""

    def __init__(self, cfg: dict, out: Path, runs: Path, t_start: float, curve: list[dict],
                 snapshots: list) -> None:
        super().__init__()
        self.cfg = cfg
        self.out = out
        self.runs = runs
        self.t_start = t_start
        self.curve = curve
        self.snapshots = snapshots
        self.limit = 60 * float(cfg["run"]["time_limit_minutes"])
        o, ev, r = cfg["opponents"], cfg["eval"], cfg["run"]
        self.snap_every = int(o.get("snapshot_every") or 0)
        self.eval_every = int(ev.get("every") or 0)
        self.ckpt_every = int(r.get("checkpoint_every") or 0)
        self.next_snap = self.snap_every
        self.next_eval = self.eval_every
        self.next_ckpt = self.ckpt_every
        self.eval_seconds = 0.0
        self.stopped_by_time = False

    def minutes(self) -> float:
        return (time.perf_counter() - self.t_start) / 60

    def _on_step(self) -> bool:
        n = self.num_timesteps
        for done, info in zip(self.locals.get("dones", ()), self.locals.get("infos", ())):
            if done and "raw_reward" in info:  # duplicate scoring: log both sides of it
                self.logger.record_mean("train/hand_reward", info["raw_reward"])
                self.logger.record_mean("train/baseline_hand_reward", info["baseline_reward"])
        if self.snap_every and n >= self.next_snap:
            self.next_snap += self.snap_every
            add_snapshot(self.model, self.cfg, self.snapshots)
            self.training_env.env_method(
                "set_opponent", weighted_pool(self.cfg["opponents"]["pool"], self.snapshots))
        if self.eval_every and n >= self.next_eval:
            self.next_eval += self.eval_every
            self.evaluate()
        if self.ckpt_every and n >= self.next_ckpt:
            self.next_ckpt += self.ckpt_every
            path = self.runs / "checkpoints" / f"step_{n}.zip"
            path.parent.mkdir(parents=True, exist_ok=True)
            self.model.save(path)
            save_env_config(path, env_config(self.cfg))
        if time.perf_counter() - self.t_start > self.limit:
            self.stopped_by_time = True
            return False
        return True

    def evaluate(self) -> None:
        t0 = time.perf_counter()
        agent = PPOAgent(snapshot_policy(self.model.policy), env_config(self.cfg))
        rows = evaluate_agent(agent, self.cfg, self.cfg["eval"]["hands"],
                              self.cfg["eval"]["seed"])
        minutes = self.minutes()
        for r in rows:
            r.update(timesteps=self.num_timesteps, minutes=minutes, phase="ppo")
            self.logger.record(f"eval/win_rate_{r['opponent']}", r["win_rate"])
            self.logger.record(f"eval/diff_per_hand_{r['opponent']}", r["diff_per_hand"])
        self.curve.extend(rows)
        write_curve(self.curve, self.out)
        self.eval_seconds += time.perf_counter() - t0
        if self.cfg["run"].get("verbose", True):
            text = "  ".join(f"{r['opponent']} {r['win_rate']:.3f}" for r in rows)
            print(f"[{minutes:5.1f} min, {self.num_timesteps:,} steps] hands won: {text}",
                  flush=True)


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


def train(cfg: dict, out: str | Path, runs: str | Path | None = None,
          config_path: str | Path | None = None) -> dict:
    """Run the whole pipeline of one config; returns the training log (also in ``out``)."""
    torch.set_num_threads(1)  # more threads are 25x slower on this machine's small batches
    out = Path(out)
    runs = Path(runs) if runs is not None else default_out(cfg["env"]["variant"])
    out.mkdir(parents=True, exist_ok=True)
    runs.mkdir(parents=True, exist_ok=True)
    progress = bool(cfg["run"].get("progress", True))
    seed = int(cfg["run"]["seed"])
    (out / "config.json").write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n")
    if config_path is not None:
        copy_config(config_path, out)
    t_start = time.perf_counter()
    log: dict[str, Any] = {"config": str(config_path) if config_path else None,
                           "machine": f"{platform.machine()} python {platform.python_version()}"
                           f" torch {torch.__version__}", "bc": {}, "ppo": {}}
    p = cfg["ppo"]
    venv = make_train_vec_env(env_kwargs(cfg), p["n_envs"], seed, p["vec"], p["workers"])
    curve: list[dict] = []
    try:
        model = build_model(cfg, venv, str(runs / "tb"), seed)
        log["parameters"] = sum(t.numel() for t in model.policy.parameters())
        # 1. behaviour cloning
        b = cfg["bc"]
        if b.get("decisions"):
            log["bc"] = behaviour_cloning(cfg, model.policy, out, seed, progress)
        if cfg["eval"].get("every"):
            t0 = time.perf_counter()
            agent = PPOAgent(snapshot_policy(model.policy), env_config(cfg))
            rows = evaluate_agent(agent, cfg, cfg["eval"]["hands"], cfg["eval"]["seed"])
            for r in rows:
                r.update(timesteps=0, minutes=(time.perf_counter() - t_start) / 60,
                         phase="bc" if b.get("decisions") else "init")
            curve.extend(rows)
            write_curve(curve, out)
            log["eval_seconds_before_ppo"] = time.perf_counter() - t0
            if cfg["run"].get("verbose", True):
                print("before PPO: hands won " + "  ".join(
                    f"{r['opponent']} {r['win_rate']:.3f}" for r in rows), flush=True)
        # 2. PPO against the pool
        snapshots: list = []
        if cfg["opponents"]["pool"].get("self"):
            add_snapshot(model, cfg, snapshots)
        venv.env_method("set_opponent", weighted_pool(cfg["opponents"]["pool"], snapshots))
        cb = TrainingCallback(cfg, out, runs, t_start, curve, snapshots)
        t0 = time.perf_counter()
        if int(p["timesteps"]) > 0 and (time.perf_counter() - t_start
                                         < 60 * cfg["run"]["time_limit_minutes"]):
            model.learn(int(p["timesteps"]), callback=cb, progress_bar=progress,
                        tb_log_name="ppo")
        ppo_seconds = time.perf_counter() - t0
        train_seconds = time.perf_counter() - t_start
        log["ppo"] = {"timesteps": int(model.num_timesteps), "seconds": ppo_seconds,
                      "eval_seconds": cb.eval_seconds,
                      "frames_per_second": model.num_timesteps / max(ppo_seconds, 1e-9),
                      "frames_per_second_excluding_eval": model.num_timesteps / max(
                          ppo_seconds - cb.eval_seconds, 1e-9),
                      "stopped_by_time_limit": cb.stopped_by_time}
        log["train_minutes"] = train_seconds / 60
        model_path = out / "model.zip"
        save_small(model, model_path)
        save_env_config(model_path, env_config(cfg))
    finally:
        venv.close()
    # 3. final evaluation of the saved model (not part of the training budget)
    final_evaluation(cfg, out, log, progress)
    return log


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


def write_final(rows: list[dict], cfg: dict, out: Path, log: dict) -> None:
    """``eval_final.csv``/``.json``/``.md``: the saved model against each opponent."""
    with (out / "eval_final.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    (out / "eval_final.json").write_text(json.dumps(rows, indent=2) + "\n")
    e = cfg["env"]
    lines = [f"# PPO agent, {e['variant']} {e['players']} players ({e['action_mode']} mode)",
             "",
             f"Trained {log.get('train_minutes', 0):.1f} min: " + _trained_text(cfg, log) + ".",
             "",
             "Single hands on duplicate deals (each deal played from both seats), the agent "
             "choosing the argmax move. Win rate counts draws as half; paired = t interval over "
             "deals, Wilson = over hands; points = mean point difference per hand "
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
                    help=f"results dir (default {RUNS}/<variant>, git-ignored; the shipped "
                         "baselines: --out experiments/results/train/<variant>)")
    ap.add_argument("--runs", type=Path, default=None,
                    help=f"checkpoints and TensorBoard dir (default {RUNS}/<variant>)")
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
    cfg = load_config(a.config, over)
    variant = cfg["env"]["variant"]
    out = a.out or default_out(variant)
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
        log = train(cfg, out, a.runs, a.config)
    md = out / "eval_final.md"
    if md.exists():
        print(md.read_text())
    print(f"trained {log['train_minutes']:.1f} min; results in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
