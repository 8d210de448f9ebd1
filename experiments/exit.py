"""Expert iteration (issue 18): search improves the network, the network guides search.

Each iteration ``k`` has three stages, each resumable (a run may span several sessions):

1. **collect**: the expert plays the learner's seat of single hands against the opponent pool
   and records, for every decision, the observation, the legal moves and the expert's score
   of each move it searched (``SearchAgent.last_scores``). Iteration 0's expert is the search
   agent as shipped (the heuristic's scores as its prior); iteration ``k`` >= 1's is the same
   search guided by network ``k - 1`` (``search:guide=PATH``: the network's logits as the
   prior and the choice of candidates). Decisions are written in shards
   (``data/it<k>_s<j>.npz``) as they finish, so an interrupted stage loses at most the shards
   in flight; both cores collect.
2. **fit**: a move-scoring network (``agents.ppo.MoveScoringPolicy``, fresh weights) is
   fitted to the decisions of the last ``data.window`` iterations: cross-entropy to
   softmax(expert score / ``fit.score_temperature``) over the searched moves (the expert's
   whole ranking, not only its choice) and the critic to the hand's result. The model is an
   ordinary MaskablePPO file (``it<k>/model.zip`` + side-car), playable as ``ppo:PATH``.
3. **eval**: the network alone (argmax, no search) against the heuristic and greedy on
   duplicate deals, and optionally the guided search against plain search; rows go to
   ``curve.csv`` / ``curve.png`` (strength against search decisions and wall-clock minutes).

Run: ``python -m experiments.exit --config experiments/configs/exit/casino.toml`` (rerun the
same command to resume; ``--iterations N`` to go further). Writes ``runs/exit/<name>``.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from experiments import bc

DEFAULTS: dict = {
    "env": {"variant": "casino", "players": 2, "partnerships": None, "max_moves": 64,
            "hints": "heuristic", "observation": "full", "switches": {},
            "reward_scale": 0.1},
    "policy": {"hidden": 256, "pair_hidden": 128, "layers": 2, "prior_temperature": 0.0,
               "table_sums": False},
    "expert": {"spec": "search", "guided": True},
    "data": {"decisions": 20_000, "shard": 1_000, "explore": 0.05, "window": 2,
             "opponents": {"heuristic": 2, "greedy": 1, "self": 2}, "workers": 2},
    "fit": {"epochs": 8, "batch_size": 512, "learning_rate": 1e-3, "value_coef": 0.5,
            "score_temperature": 0.5},
    "eval": {"hands": {"heuristic": 2000, "greedy": 400}, "guided_hands": 0,
             "guided_against": "search", "workers": 2},
    "run": {"name": "exit_{variant}_s{seed}", "seed": 0, "iterations": 3},
}
STAGES = ("collect", "fit", "eval")


# -- configuration ------------------------------------------------------------------------------

def _merge(base: dict, extra: dict, where: str = "") -> dict:
    out = dict(base)
    for k, v in extra.items():
        if k not in base:
            known = ", ".join(sorted(base))
            raise ValueError(f"config: unknown setting '{where}{k}' (known: {known})")
        # Tables of weights/counts are replaced whole, not merged key by key.
        whole = k in ("opponents", "hands", "switches")
        out[k] = _merge(base[k], v, f"{where}{k}.") if isinstance(base[k], dict) and \
            isinstance(v, dict) and not whole else v
    return out


def load_config(path: str | Path | None, overrides: dict | None = None) -> dict:
    """The defaults updated by the TOML file, then by ``overrides``; unknown keys are errors."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    cfg = json.loads(json.dumps(DEFAULTS))
    if path is not None:
        with open(path, "rb") as f:
            cfg = _merge(cfg, tomllib.load(f))
    if overrides:
        cfg = _merge(cfg, overrides)
    d = cfg["data"]
    for key in ("decisions", "shard", "window", "workers"):
        if not isinstance(d[key], int) or d[key] < 1:
            raise ValueError(f"config: data.{key} must be an integer >= 1, got {d[key]!r}")
    if cfg["fit"]["score_temperature"] <= 0:
        raise ValueError("config: fit.score_temperature must be > 0 (points)")
    return cfg


def train_cfg(cfg: dict) -> dict:
    """The ``experiments.train`` view of the settings (its env_kwargs / env_config read it)."""
    e = cfg["env"]
    return {"env": {**e, "action_mode": "enumerate", "episode": "hand", "reward": "points",
                    "auto_forced": True, "win_bonus": 0.0, "baseline": None}}


def run_dir(cfg: dict, out: str | None) -> Path:
    r = cfg["run"]
    return Path(out) if out else Path("runs/exit") / r["name"].format(
        variant=cfg["env"]["variant"], seed=r["seed"])


# -- the stages -----------------------------------------------------------------------------------

def expert_spec(cfg: dict, out: Path, k: int) -> str:
    """Iteration ``k``'s expert: the configured search, guided by network ``k-1`` if k > 0."""
    spec = cfg["expert"]["spec"]
    if k == 0 or not cfg["expert"]["guided"]:
        return spec
    guide = f"guide={out / f'it{k - 1}' / 'model.zip'}"
    return f"{spec},{guide}" if ":" in spec else f"{spec}:{guide}"


def opponent_pool(cfg: dict, out: Path, k: int) -> list:
    """The opponents of the learner's seat while collecting: scripted names by weight, and
    ``self`` = network ``k-1`` (dropped at iteration 0)."""
    from agents.ppo import PPOAgent
    from experiments.train import weighted_pool

    snaps = [PPOAgent.load(out / f"it{k - 1}" / "model.zip")] if k else []
    return weighted_pool(dict(cfg["data"]["opponents"]), snaps)


def _collect_shard(job: tuple) -> tuple[str, bc.Demos]:
    path, env_kw, expert, n, explore, seed = job
    import torch

    torch.set_num_threads(1)
    return path, bc._collect_worker((env_kw, expert, n, explore, seed, False, None, 0.0))


def collect(cfg: dict, out: Path, k: int, progress: bool = True) -> int:
    """Stage 1: write iteration ``k``'s missing shards; returns the decisions collected now."""
    from experiments.train import env_kwargs

    d = cfg["data"]
    n_shards = math.ceil(d["decisions"] / d["shard"])
    data = out / "data"
    data.mkdir(parents=True, exist_ok=True)
    kw = env_kwargs(train_cfg(cfg), opponent_pool(cfg, out, k))
    kw["dict_obs"] = True
    expert = expert_spec(cfg, out, k)
    seed = int(cfg["run"]["seed"])
    jobs = [(str(data / f"it{k}_s{j}.npz"), kw, expert, d["shard"], d["explore"],
             seed * 1_000_003 + k * 10_007 + j)
            for j in range(n_shards) if not (data / f"it{k}_s{j}.npz").exists()]
    if not jobs:
        return 0
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(jobs) * d["shard"], desc=f"it{k} collect ({expert})",
                   unit="dec")
    done = 0
    workers = min(d["workers"], len(jobs))
    pool = mp.get_context("forkserver").Pool(workers) if workers > 1 else None
    try:
        results = pool.imap_unordered(_collect_shard, jobs) if pool else \
            map(_collect_shard, jobs)
        for path, demos in results:
            tmp = Path(path).with_suffix(".tmp.npz")
            bc.save_demos(demos, str(tmp))
            tmp.replace(path)  # a shard is there whole or not at all
            done += len(demos)
            if bar is not None:
                bar.update(len(demos))
    finally:
        if pool is not None:
            pool.terminate()
        if bar is not None:
            bar.close()
    return done


def shards(out: Path, k: int) -> list[Path]:
    """Iteration ``k``'s finished shard files."""
    return sorted(p for p in (out / "data").glob(f"it{k}_s*.npz")
                  if not p.name.endswith(".tmp.npz"))


def window_demos(cfg: dict, out: Path, k: int) -> bc.Demos:
    """The decisions of iterations ``k - window + 1 .. k`` (all their shards)."""
    lo = max(0, k - cfg["data"]["window"] + 1)
    files = [p for i in range(lo, k + 1) for p in shards(out, i)]
    if not files:
        raise FileNotFoundError(f"no decisions for iterations {lo}..{k} in {out / 'data'}")
    return bc.merge([bc.load_demos(str(p)) for p in files])


def new_model(cfg: dict, seed: int):
    """A MaskablePPO holding a fresh ``MoveScoringPolicy`` for the configured game."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.ppo import MoveScoringPolicy, scorer_segments, table_values
    from casino_env.encoding import Layout
    from casino_env.engine.rules import make_rules
    from experiments.train import env_kwargs
    from experiments.train_env import TrainEnv

    e, pol = cfg["env"], cfg["policy"]
    layout = Layout(make_rules(e["variant"], e["players"], e.get("partnerships"),
                               dict(e.get("switches") or {})), compose=False)
    kw = env_kwargs(train_cfg(cfg), "random")
    venv = DummyVecEnv([lambda: TrainEnv(**kw)])
    scorer = {"segments": scorer_segments(layout), "deck_size": layout.rules.deck.size,
              "hidden": pol["hidden"], "pair_hidden": pol["pair_hidden"],
              "layers": pol["layers"], "prior_temperature": float(pol["prior_temperature"])}
    if pol["table_sums"]:
        scorer.update(table_values(layout.rules))
    return MaskablePPO(MoveScoringPolicy, venv, n_steps=64, batch_size=64, seed=seed,
                       device="cpu", verbose=0, policy_kwargs={"scorer_kwargs": scorer})


def fit(cfg: dict, out: Path, k: int, progress: bool = True) -> dict:
    """Stage 2: fit network ``k`` on the window's decisions; saves it; returns the fit's log."""
    import torch

    from agents.ppo import save_env_config
    from experiments.train import env_config

    torch.set_num_threads(1)
    f = cfg["fit"]
    seed = int(cfg["run"]["seed"]) * 7919 + k
    torch.manual_seed(seed)
    demos = window_demos(cfg, out, k)
    model = new_model(cfg, seed)
    epochs: list[dict] = []
    stats = bc.pretrain(model.policy, demos, f["epochs"], f["batch_size"], f["learning_rate"],
                        f["value_coef"], seed=seed, progress=progress, log=epochs.append,
                        score_temperature=float(f["score_temperature"]))
    dest = out / f"it{k}"
    dest.mkdir(parents=True, exist_ok=True)
    model.save(dest / "model.zip")
    side = save_env_config(dest / "model.zip", env_config(train_cfg(cfg)))
    settings = json.loads(side.read_text())
    settings["score_temperature"] = float(f["score_temperature"])
    settings["trained_by"] = (f"expert iteration {k}: fitted to {len(demos)} decisions of "
                              f"{expert_spec(cfg, out, k)} (iterations "
                              f"{max(0, k - cfg['data']['window'] + 1)}..{k})")
    side.write_text(json.dumps(settings, indent=2, sort_keys=True) + "\n")
    return {"decisions": len(demos), **{k2: v for k2, v in stats.items()
                                        if isinstance(v, (int, float))}}


def _match_part(job: tuple) -> list:
    model, opponent, variant, players, deals, seed, mode = job
    import torch

    from agents import make_agent
    from agents.tournament import play_match

    torch.set_num_threads(1)
    res = play_match([lambda s: make_agent(model, seed=s),
                      lambda s: make_agent(opponent, seed=s)], variant, players, deals,
                     seed, mode=mode, labels=["network", opponent])
    return res.records


def duplicate_match(model: str, opponent: str, cfg: dict, hands: int, seed: int,
                    workers: int) -> dict:
    """``model`` (an agent spec) against ``opponent`` on ``hands`` single hands of duplicate
    deals (each deal once per seat), split over ``workers`` processes; the pair summary."""
    from agents.tournament import MatchResult
    from experiments.stats import summarize_pair

    e = cfg["env"]
    deals = max(1, hands // 2)
    parts = [deals // workers + (i < deals % workers) for i in range(workers)]
    jobs = [(model, opponent, e["variant"], e["players"], n, seed * 100 + i, "hand")
            for i, n in enumerate(parts) if n]
    if len(jobs) == 1:
        chunks = [_match_part(jobs[0])]
    else:
        with mp.get_context("forkserver").Pool(len(jobs)) as pool:
            chunks = pool.map(_match_part, jobs)
    res = MatchResult(["network", opponent], e["variant"], e["players"], "hand", seed)
    offset = 0
    for chunk in chunks:  # deals renumbered so each part's deals stay distinct units
        for g in chunk:
            g.deal += offset
        res.records.extend(chunk)
        offset = max((g.deal for g in res.records), default=-1) + 1
    s = summarize_pair(res)
    return {"hands": s.hands, "win_rate": s.win_rate, "lo": s.win_lo, "hi": s.win_hi,
            "diff_per_hand": s.diff_per_hand, "diff_lo": s.diff_lo, "diff_hi": s.diff_hi}


def evaluate(cfg: dict, out: Path, k: int) -> list[dict]:
    """Stage 3: network ``k`` alone against each evaluation opponent (and, if configured,
    the search it guides against ``eval.guided_against``)."""
    ev = cfg["eval"]
    model = f"ppo:{out / f'it{k}' / 'model.zip'}"
    seed = 90_000 + k  # fresh deals each iteration, not those of the training data
    rows = []
    for opp, hands in ev["hands"].items():
        rows.append({"agent": "network", "opponent": opp,
                     **duplicate_match(model, opp, cfg, int(hands), seed, ev["workers"])})
    if ev["guided_hands"] and cfg["expert"]["guided"]:
        guided = expert_spec(cfg, out, k + 1)
        rows.append({"agent": "guided search", "opponent": ev["guided_against"],
                     **duplicate_match(guided, ev["guided_against"], cfg,
                                       int(ev["guided_hands"]), seed, ev["workers"])})
    return rows


# -- the run --------------------------------------------------------------------------------------

def _load_progress(out: Path) -> dict:
    p = out / "progress.json"
    return json.loads(p.read_text()) if p.exists() else {"iterations": []}


def _save_progress(out: Path, prog: dict) -> None:
    tmp = out / "progress.json.tmp"
    tmp.write_text(json.dumps(prog, indent=2) + "\n")
    tmp.replace(out / "progress.json")


def curve_rows(prog: dict) -> list[dict]:
    """One row per (iteration, evaluation): cumulative search decisions and minutes."""
    rows, decisions, minutes = [], 0, 0.0
    for it in prog["iterations"]:
        decisions += it.get("collected", 0)
        minutes += sum(it.get("minutes", {}).values())
        for r in it.get("eval", []):
            rows.append({"iteration": it["k"], "timesteps": decisions, "minutes": minutes,
                         "group": f"{r['agent']} v {r['opponent']}", **r})
    return rows


def write_curve(out: Path, prog: dict) -> None:
    from experiments.curves import Metric, plot_steps_and_minutes, write_table

    rows = curve_rows(prog)
    fields = ["iteration", "timesteps", "minutes", "agent", "opponent", "hands", "win_rate",
              "lo", "hi", "diff_per_hand", "diff_lo", "diff_hi"]
    metrics = [Metric("win_rate", "lo", "hi", "hands won (95% CI)", ((0.5, "--"), (0.55, ":")),
                      (0.0, 1.0)),
               Metric("diff_per_hand", "diff_lo", "diff_hi", "points per hand (95% CI)",
                      ((0.0, "--"),))]
    write_table(out, "curve", fields, rows, lambda rs, path: plot_steps_and_minutes(
        rs, path, metrics, group="group", title=f"expert iteration: {out.name}",
        steps_label="search decisions collected"))


def run(cfg: dict, out: Path, iterations: int | None = None, progress: bool = True,
        log=print) -> dict:
    """Run (or resume) expert iteration up to ``iterations``; returns the progress record."""
    out.mkdir(parents=True, exist_ok=True)
    saved = out / "config.json"
    def core(c: dict) -> dict:  # everything but how far to go
        return {**c, "run": {k: v for k, v in c["run"].items() if k != "iterations"}}

    if saved.exists():
        before = core(json.loads(saved.read_text()))
        if before != core(cfg):
            raise ValueError(f"{out} holds a run with other settings ({saved}); resume with "
                             "the same config, or give another --out")
    saved.write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n")
    prog = _load_progress(out)
    total = int(iterations or cfg["run"]["iterations"])
    for k in range(total):
        if k == len(prog["iterations"]):
            prog["iterations"].append({"k": k, "done": [], "minutes": {}, "collected": 0})
        it = prog["iterations"][k]
        for stage in STAGES:
            if stage in it["done"]:
                continue
            t0 = time.perf_counter()
            if stage == "collect":
                collect(cfg, out, k, progress)
                # what is on disk (shards written before an interruption count too)
                it["collected"] = len(shards(out, k)) * cfg["data"]["shard"]
                log(f"it{k}: {it['collected']} decisions of {expert_spec(cfg, out, k)}")
            elif stage == "fit":
                it["fit"] = fit(cfg, out, k, progress)
                log(f"it{k}: network fitted on {it['fit']['decisions']} decisions, held-out "
                    f"agreement with the expert {it['fit'].get('holdout_accuracy', 0):.3f}")
            else:
                it["eval"] = evaluate(cfg, out, k)
                for r in it["eval"]:
                    log(f"it{k}: {r['agent']} v {r['opponent']}: {r['win_rate']:.1%} "
                        f"[{r['lo']:.1%}, {r['hi']:.1%}] of {r['hands']} hands, "
                        f"{r['diff_per_hand']:+.2f} points/hand")
            it["minutes"][stage] = it["minutes"].get(stage, 0.0) + \
                (time.perf_counter() - t0) / 60
            it["done"].append(stage)
            _save_progress(out, prog)
            write_curve(out, prog)
    last = out / f"it{total - 1}"
    if (last / "model.zip").exists():
        for name in ("model.zip", "model.json"):
            shutil.copy(last / name, out / name)
    return prog


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m experiments.exit",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--config", help="TOML file (experiments/configs/exit/<preset>.toml)")
    p.add_argument("--seed", type=int, help="overrides run.seed")
    p.add_argument("--iterations", type=int, help="overrides run.iterations")
    p.add_argument("--out", help="run folder (default runs/exit/<run.name>)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    a = parse_args(argv)
    over: dict = {"run": {}}
    if a.seed is not None:
        over["run"]["seed"] = a.seed
    try:
        cfg = load_config(a.config, over)
        out = run_dir(cfg, a.out)
        run(cfg, out, a.iterations, progress=not a.quiet)
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"results in {out} (curve.csv, curve.png, it<k>/model.zip)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

__all__ = ["collect", "evaluate", "expert_spec", "fit", "load_config", "run"]
