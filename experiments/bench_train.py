"""Training speed on this machine: PPO frames per second with one environment against
vectorised ones (in this process, or in worker processes that each step a group of them), for
the settings of a training config (its policy, opponents' pool without snapshots, hints).

    python -m experiments.bench_train --config experiments/configs/casino.toml \\
        --out runs/bench_train/bench_fps

Every setting collects the same rollout size (``--rollout`` steps per PPO iteration, rounded
down to a multiple of its envs; the rates count the frames actually stepped) and runs
``--iterations`` iterations after one warm-up iteration; "rollout" times only the collection
(environment steps + batched policy inference), "ppo" the whole iteration (with the update).
The machine is shared: the load average before and after each measurement is recorded.
Writes ``<out>.csv`` and ``<out>.md`` (default ``runs/bench_train/bench_fps``, git-ignored).
``bench_train()`` is the training-speed benchmark that ``python -m experiments.bench train``
runs and writes into its results.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import time
from collections.abc import Sequence
from pathlib import Path

import gymnasium  # (import before casino_env.single)
import torch
from stable_baselines3.common.callbacks import CallbackList
from tqdm import tqdm

from experiments.bench_common import require_references
from experiments.train import build_model, env_kwargs, load_config, weighted_pool
from experiments.train_env import make_train_vec_env


class ConnectFourVsRandom(gymnasium.Env):
    """The reference of the issue: PettingZoo's connect_four_v3 as a single-agent env with a
    random opponent inside ``step`` and ``action_masks()`` (as in PettingZoo's SB3 action-mask
    tutorial), so MaskablePPO's frames/s on it can be compared with ours in the same run."""

    def __init__(self) -> None:
        import numpy as np
        from pettingzoo.classic import connect_four_v3

        self.np = np
        self.env = connect_four_v3.env()
        self.env.reset(seed=0)
        agent = self.env.possible_agents[0]
        self.observation_space = self.env.observation_space(agent)["observation"]
        self.action_space = self.env.action_space(agent)
        self.rng = np.random.default_rng(0)

    def _obs(self):
        obs, _, term, trunc, _ = self.env.last()
        self._mask = obs["action_mask"]
        return obs["observation"], term or trunc

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.env.reset(seed=seed)
        self.me = self.env.agent_selection
        return self._obs()[0], {}

    def step(self, action):
        self.env.step(int(action))
        reward, done = 0.0, all(self.env.terminations.values())
        if not done:  # the random opponent's move
            obs, _, _, _, _ = self.env.last()
            self.env.step(int(self.rng.choice(self.np.flatnonzero(obs["action_mask"]))))
            done = all(self.env.terminations.values())
        reward = float(self.env._cumulative_rewards[self.me]) if done else 0.0
        obs, _ = self._obs()
        return obs, reward, done, False, {}

    def action_masks(self):
        return self._mask.astype(bool)


class _Narrow(gymnasium.ObservationWrapper):
    """Diagnostic only: the first ``n`` observation features (as many as connect four's), to
    separate the cost of the environment from that of a wider policy input. Not for training."""

    def __init__(self, env: gymnasium.Env, n: int) -> None:
        super().__init__(env)
        self.observation_space = gymnasium.spaces.Box(-1.0, 1.0, (n,), env.observation_space.dtype)
        self.n = n

    def observation(self, obs):
        return obs[: self.n]

    def action_masks(self):
        return self.env.action_masks()


def _ppo_fps(make_env, n_envs: int, vec: str, frames: int) -> float:
    """MaskablePPO (sb3-contrib defaults, MlpPolicy) frames/s over ``frames`` after a warm-up
    iteration, on ``n_envs`` copies of ``make_env``."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    cls = SubprocVecEnv if vec == "subproc" else DummyVecEnv
    venv = make_vec_env(make_env, n_envs=n_envs, seed=0, vec_env_cls=cls)
    try:
        n_steps = max(64, 2048 // n_envs)
        model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=64, seed=0)
        model.learn(n_steps * n_envs)  # warm-up
        t0 = time.perf_counter()
        model.learn(frames, reset_num_timesteps=False)
        return (model.num_timesteps - n_steps * n_envs) / (time.perf_counter() - t0)
    finally:
        venv.close()


# (label, environment, n_envs, vec, observation): the settings of ``bench_train``
TRAIN_JOBS = [("connect_four_v3 (reference)", "connect_four", 1, "dummy", ""),
              ("casino 2p, 1 env, compact observation", "compact", 1, "dummy", "compact"),
              ("casino 2p, 1 env", "full", 1, "dummy", "full"),
              ("casino 2p, 1 env, observation cut to 84 features (diagnostic)", "cut84", 1,
               "dummy", ""),
              ("casino 2p, 8 envs, compact observation", "compact", 8, "dummy", "compact"),
              ("casino 2p, 8 envs", "full", 8, "dummy", "full"),
              ("casino 2p, 8 envs in 2 processes", "full", 8, "subproc", "full")]


def _job_fps(index: int, frames: int) -> float:
    """Frames/s of ``TRAIN_JOBS[index]`` (run in a fresh interpreter by ``bench_train``)."""
    from casino_env.single import CasinoEnv

    torch.set_num_threads(1)
    _, env, n, vec, _ = TRAIN_JOBS[index]
    make = {"connect_four": ConnectFourVsRandom,
            "full": lambda: CasinoEnv("casino", opponent="random"),
            "compact": lambda: CasinoEnv("casino", opponent="random", observation="compact"),
            "cut84": lambda: _Narrow(CasinoEnv("casino", opponent="random"), 84)}[env]
    return _ppo_fps(make, n, vec, frames)


def bench_train(quick: bool = False, rounds: int | None = None,
                frames: int | None = None) -> list[dict]:
    """MaskablePPO frames/s on the single-agent view (compose mode, random opponent) with one
    env and with 8 vectorised envs (batched inference; in-process and in 2 worker processes),
    for the full and the compact observation, and on the connect-four reference measured the
    same way in the same run. Every measurement runs in a fresh interpreter (so none inherits
    the memory and garbage of another), once per round; the reference is measured before
    every round and after the last, and a round's ratios are against the geometric mean of the
    two reference runs around it, so a slow spell of the shared machine hits both sides. The
    median round is reported, with every round's figures beside it.
    ``vs_single_env``: against one env of the same observation. ``frames`` per measurement
    default to 2048 quick, else 8192; ``rounds`` to 1 quick, else 5."""
    import json
    import subprocess
    import sys
    from statistics import median

    require_references()
    frames = frames or (2048 if quick else 8192)
    rounds = rounds or (1 if quick else 5)
    root = Path(__file__).resolve().parents[1]
    code = ("import json, sys; from experiments.bench_train import _job_fps; "
            "print(json.dumps(_job_fps(int(sys.argv[1]), int(sys.argv[2]))))")

    def measure(i: int) -> float:
        out = subprocess.run([sys.executable, "-c", code, str(i), str(frames)],
                             capture_output=True, text=True, check=True, cwd=root)
        return json.loads(out.stdout.strip().splitlines()[-1])

    ref_name = TRAIN_JOBS[0][0]
    fps: dict[str, list[float]] = {job[0]: [] for job in TRAIN_JOBS}
    marks = []  # the reference before every round and after the last one
    bar = tqdm(total=rounds * len(TRAIN_JOBS) + 1, desc="bench train", unit="run")
    for r in range(rounds + 1):
        bar.set_postfix_str(ref_name)
        marks.append(measure(0))
        bar.update()
        if r == rounds:
            break
        for i, (name, *_) in enumerate(TRAIN_JOBS[1:], 1):
            bar.set_postfix_str(name[:40])
            fps[name].append(measure(i))
            bar.update()
    bar.close()
    # A round's reference: the geometric mean of the measurements that bracket it.
    fps[ref_name] = [math.sqrt(a * b) for a, b in zip(marks, marks[1:])]
    ref = fps[ref_name]
    single = {obs: fps[name] for name, _, n, _, obs in TRAIN_JOBS if n == 1 and obs}

    def ratios(a: list[float], b: list[float]) -> list[float]:
        return [x / y for x, y in zip(a, b, strict=True)]

    rows = []
    for name, _, _, _, obs in TRAIN_JOBS:
        vs_ref = ratios(fps[name], ref)
        rows.append(dict(setting=name, observation=obs or "-",
                         frames_per_s=round(median(fps[name])),
                         frames_per_s_rounds=" / ".join(f"{x:.0f}" for x in fps[name]),
                         vs_connect_four=round(median(vs_ref), 2),
                         vs_connect_four_rounds=" / ".join(f"{x:.2f}" for x in vs_ref),
                         vs_single_env=round(median(ratios(fps[name], single[obs])), 2)
                         if obs else ""))
    return rows


SETTINGS = (("single env", 1, "dummy", 1), ("16 envs, one process", 16, "dummy", 1),
            ("16 envs, 2 worker processes", 16, "subproc", 2))


def measure(cfg: dict, n_envs: int, vec: str, workers: int, rollout: int,
            iterations: int) -> dict:
    """Rollout-only and full-iteration frames/s of one vectorisation setting, each over the
    frames actually stepped (``n_steps = rollout // n_envs`` per env, so a ``rollout`` that is
    not a multiple of ``n_envs`` steps fewer than ``rollout`` frames an iteration)."""
    cfg = load_config(None, cfg)
    n_steps = max(1, rollout // n_envs)
    cfg["ppo"].update(n_envs=n_envs, vec=vec, workers=workers, n_steps=n_steps)
    pool = {k: v for k, v in cfg["opponents"]["pool"].items() if k != "self"}
    venv = make_train_vec_env(env_kwargs(cfg, weighted_pool(pool)), n_envs, 0, vec, workers)
    try:
        model = build_model(cfg, venv, None, seed=0)
        model.learn(rollout)  # warm-up (process start, first allocations)
        load0 = os.getloadavg()[0]
        cb = CallbackList([])
        cb.init_callback(model)
        n0, t0 = model.num_timesteps, time.perf_counter()
        for _ in range(iterations):
            model.collect_rollouts(model.env, cb, model.rollout_buffer, model.n_steps)
        t_roll = time.perf_counter() - t0
        roll_frames = model.num_timesteps - n0
        # Ask for exactly `iterations` whole iterations; count what was stepped all the same.
        n0, t0 = model.num_timesteps, time.perf_counter()
        model.learn(n_steps * n_envs * iterations, reset_num_timesteps=False)
        t_ppo = time.perf_counter() - t0
        ppo_frames = model.num_timesteps - n0
        load1 = os.getloadavg()[0]
    finally:
        venv.close()
    return {"rollout_fps": roll_frames / t_roll, "ppo_fps": ppo_frames / t_ppo,
            "load_before": load0, "load_after": load1}


DEFAULT_OUT = Path("runs/bench_train/bench_fps")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line of ``main``."""
    ap = argparse.ArgumentParser(prog="python -m experiments.bench_train", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", type=Path, default=Path("experiments/configs/casino.toml"))
    ap.add_argument("--modes", nargs="+", default=["enumerate", "compose"])
    ap.add_argument("--rollout", type=int, default=2048)
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT,
                    help=f"results path without suffix (default {DEFAULT_OUT}: .csv and .md)")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Measure rollout and PPO frames/s for every setting and mode; write <out>.csv/.md."""
    a = parse_args(argv)
    torch.set_num_threads(1)
    base = load_config(a.config)
    rows = []
    for mode in a.modes:
        cfg = load_config(None, base)
        cfg["env"]["action_mode"] = mode
        if mode == "compose":
            cfg["env"]["hints"] = None
        for label, n, vec, workers in SETTINGS:
            r = measure(cfg, n, vec, workers, a.rollout, a.iterations)
            r.update(mode=mode, setting=label, hints=cfg["env"].get("hints") or "")
            rows.append(r)
            print(f"{mode:9s} {label:28s} rollout {r['rollout_fps']:6.0f} fps  "
                  f"ppo {r['ppo_fps']:6.0f} fps  load {r['load_before']:.1f}->"
                  f"{r['load_after']:.1f}", flush=True)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    fields = ["mode", "setting", "hints", "rollout_fps", "ppo_fps", "load_before", "load_after"]
    with a.out.with_suffix(".csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: (round(r[k], 1) if isinstance(r[k], float) else r[k])
                        for k in fields})
    lines = [f"# PPO training speed ({a.config.name}, {os.cpu_count()} cores, shared)", "",
             "Frames = learner decisions. rollout: collection only; ppo: collection + update. "
             f"{a.iterations} iterations of {a.rollout} frames (rounded down to a multiple of the "
             "envs) after a warm-up; rates over the frames actually stepped.", "",
             "| mode | setting | hints | rollout fps | ppo fps | load avg before/after |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['mode']} | {r['setting']} | {r['hints']} | "
                     f"{r['rollout_fps']:.0f} | {r['ppo_fps']:.0f} | "
                     f"{r['load_before']:.1f} / {r['load_after']:.1f} |")
    a.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print(f"wrote {a.out.with_suffix('.csv')} and {a.out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
