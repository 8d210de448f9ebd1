"""Multi-agent PPO on Ray RLlib through its PettingZoo wrapper, with action masking and shared or
per-seat policies. Small and CPU friendly by default; point it at a Ray cluster to scale out::

    python -m experiments.rllib_train --variant casino --iterations 10 --policies shared
    python -m experiments.rllib_train --variant royal --players 3 --policies per-seat \\
        --iterations 50 --out /tmp/royal_rllib
    python -m experiments.rllib_train --address auto --env-runners 8 --batch 8192 ...  # cluster

Every seat is an agent of ``casino_env.env()`` behind ``ray.rllib``'s ``PettingZooEnv``
(``casino_env.rllib``). ``--policies shared`` maps all seats to one policy (self-play with
parameter sharing); ``per-seat`` trains one policy per seat. Policies are RLlib's
``ActionMaskingTorchRLModule``: masked-out actions get probability zero, and the
``illegal_actions`` metric (masked-out actions taken, ending the hand with -1) stays at 0.

Per iteration: sampled env steps, episodes, mean episode length, mean return per seat (rewards
are zero-sum, so in self-play they hover around 0; "no finished episodes" when no hand ended in
the iteration), per-policy losses (policy, value, entropy) and steps trained, and seconds,
printed and written to ``metrics.csv`` and ``metrics.json`` under ``--out`` (default
``runs/rllib/<variant>``, git-ignored), with the learning curve (returns and losses over env
steps) as ``learning_curve.csv`` and ``learning_curve.png``; ``--checkpoint`` also saves the
algorithm there. Needs ``ray[rllib]`` (see ``pyproject.toml``'s ``rllib`` extra; the plot
needs matplotlib, from the ``train`` extra).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch

from casino_env.rllib import (
    ENV_NAME,
    ILLEGAL_METRIC,
    POLICY_MODES,
    log_illegal_actions,
    policies_for,
    register_rllib_env,
)
from experiments.curves import write_table

DEFAULT_OUT = Path("runs/rllib")
LOSSES = ("policy_loss", "vf_loss", "entropy", "mean_kl_loss")


def default_out(variant: str) -> Path:
    """Where a run writes without ``--out``: ``runs/rllib/<variant>`` (git-ignored)."""
    return DEFAULT_OUT / variant


def env_settings(variant: str, players: int, action_mode: str = "compose",
                 max_moves: int = 32) -> dict[str, Any]:
    """``casino_env.env`` keyword arguments for the RLlib env config."""
    settings: dict[str, Any] = {"variant": variant, "players": players,
                                "action_mode": action_mode}
    if action_mode == "enumerate":
        settings["max_moves"] = max_moves
    return settings


def one_torch_thread(**kwargs: Any) -> None:
    """``on_environment_created`` callback: one torch thread in every EnvRunner process
    (small networks on CPUs run many times slower with more)."""
    torch.set_num_threads(1)


def build_config(env_config: dict[str, Any], policies: str = "shared", *, batch: int = 512,
                 minibatch: int = 128, epochs: int = 1, lr: float = 3e-4,
                 hidden: Sequence[int] = (128, 128), seed: int = 0, env_runners: int = 0,
                 envs_per_runner: int = 1, learners: int = 0) -> Any:
    """The PPO config: the registered casino env, one masked RLModule per policy id, and the
    policy mapping of ``policies`` (``shared`` or ``per-seat``)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    import casino_env

    name = register_rllib_env(ENV_NAME)
    probe = casino_env.raw_env(**env_config)
    policy_ids, mapping = policies_for(policies, list(probe.possible_agents))
    model = {"fcnet_hiddens": list(hidden), "fcnet_activation": "relu",
             "head_fcnet_hiddens": [], "vf_share_layers": False}
    return (
        PPOConfig()
        .framework("torch")
        # The env checker steps a random (usually masked-out) action; the PettingZoo API of
        # casino_env is tested in tests/test_env.py.
        .environment(name, env_config=dict(env_config), disable_env_checking=True)
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=envs_per_runner)
        .learners(num_learners=learners)
        .training(train_batch_size_per_learner=batch, minibatch_size=minibatch,
                  num_epochs=epochs, lr=lr)
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


def curve_fields(agents: Sequence[str], policy_ids: Sequence[str]) -> list[str]:
    """The columns of ``learning_curve.csv``: progress, returns per seat, losses per policy."""
    return (["iteration", "env_steps_total", "episodes"]
            + [f"return_mean_{a}" for a in agents]
            + [f"{pid}_{k}" for pid in policy_ids for k in LOSSES])


def plot_curve(rows: list[dict], path: Path, agents: Sequence[str],
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
    fig.suptitle(f"RLlib PPO learning curve ({len(rows)} iterations)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_curve(out: Path, rows: list[dict], agents: Sequence[str],
                policy_ids: Sequence[str]) -> None:
    """``learning_curve.csv`` and ``.png`` (the CSV+PNG writer that experiments.train uses)."""
    write_table(out, "learning_curve", curve_fields(agents, policy_ids), rows,
                lambda rs, path: plot_curve(rs, path, agents, policy_ids))


def train(config: Any, iterations: int, out: str | Path | None = None,
          checkpoint: bool = False, log: Callable[[str], None] | None = print) -> dict[str, Any]:
    """Build the algorithm from ``config``, run ``iterations`` training iterations, write the
    metrics and the learning curve under ``out`` (if given) after each; returns settings, rows
    and illegal-action totals (Ray must be initialised, or RLlib starts a local runtime)."""
    torch.set_num_threads(1)  # more threads are ~25x slower for these small networks on CPU
    import ray

    import casino_env

    env_config = dict(config.env_config)
    agents = list(casino_env.raw_env(**env_config).possible_agents)
    policy_ids = sorted(config.policies)
    meta: dict[str, Any] = {
        "env_config": env_config, "policies": policy_ids,
        "policy_mapping": {a: config.policy_mapping_fn(a, None) for a in agents},
        "train_batch_size_per_learner": config.train_batch_size_per_learner,
        "minibatch_size": config.minibatch_size, "num_epochs": config.num_epochs,
        "lr": config.lr, "num_env_runners": config.num_env_runners,
        "machine": f"{platform.machine()} python {platform.python_version()} "
                   f"torch {torch.__version__} ray {ray.__version__}",
    }
    out = Path(out) if out is not None else None
    rows: list[dict] = []
    t_start = time.perf_counter()
    algo = config.build_algo()
    meta["build_seconds"] = time.perf_counter() - t_start
    try:
        t_train = time.perf_counter()
        for _ in range(iterations):
            t0 = time.perf_counter()
            result = algo.train()
            t1 = time.perf_counter()
            rows.append(metrics_row(result, agents, policy_ids, t1 - t0, t1 - t_train))
            if log is not None:
                log(progress_line(rows[-1], agents, policy_ids))
            if out is not None:
                _write(out, rows, meta)
                write_curve(out, rows, agents, policy_ids)
        meta["illegal_actions_total"] = illegal_actions_total(algo)
        if checkpoint and out is not None:
            meta["checkpoint"] = str(algo.save_to_path((out / "checkpoint").resolve()))
        if out is not None:
            _write(out, rows, meta)
    finally:
        algo.stop()
    return {**meta, "iterations": rows}


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line of ``main``."""
    ap = argparse.ArgumentParser(prog="python -m experiments.rllib_train", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="casino")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--policies", choices=POLICY_MODES, default="shared",
                    help="one policy for every seat, or one per seat")
    ap.add_argument("--action-mode", choices=("compose", "enumerate"), default="compose")
    ap.add_argument("--max-moves", type=int, default=32, help="K in enumerate mode")
    ap.add_argument("--batch", type=int, default=512, help="env steps per iteration")
    ap.add_argument("--minibatch", type=int, default=128)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--lr", type=float, default=3e-4)
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
    ap.add_argument("--out", type=Path, default=None,
                    help=f"results dir (default {DEFAULT_OUT}/<variant>, git-ignored)")
    ap.add_argument("--checkpoint", action="store_true", help="save the algorithm under --out")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: parse arguments, start or join Ray, train, write results."""
    a = parse_args(argv)
    import ray

    if a.address:
        ray.init(address=a.address)
    else:
        ray.init(num_cpus=a.num_cpus, include_dashboard=False)
    try:
        config = build_config(
            env_settings(a.variant, a.players, a.action_mode, a.max_moves), a.policies,
            batch=a.batch, minibatch=a.minibatch, epochs=a.epochs, lr=a.lr,
            hidden=[int(h) for h in a.hidden.split(",") if h.strip()], seed=a.seed,
            env_runners=a.env_runners, envs_per_runner=a.envs_per_runner, learners=a.learners)
        out = a.out or default_out(a.variant)
        summary = train(config, a.iterations, out, checkpoint=a.checkpoint)
    finally:
        ray.shutdown()
    print(f"illegal actions taken: {summary['illegal_actions_total']}; results in {out} "
          "(metrics.csv, metrics.json, learning_curve.csv, learning_curve.png)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
