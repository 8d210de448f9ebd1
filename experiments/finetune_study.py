"""Why PPO after cloning drifted down, and a fine-tuning recipe that does not (issue 17 item 2).

PPO started from the shipped cloned casino model lowered its win rate against the heuristic
(51.7% before, 48.7-50.0% after 5 minutes; docs/baselines.md). Candidate causes: a critic
that does not predict the policy's returns (the value head was fitted during cloning to the
*search teacher's* duplicate results against another opponent pool), no pull back to the
cloned policy, too high a learning rate, and the reward's variance. This study fine-tunes
the same starting model in several arms that differ in one lever each, with the same seed,
opponent pool, environment deals and budget in environment steps (not minutes: a busy
machine does not change the result), and evaluates every arm at the same points on the same
duplicate deals::

    python -m experiments.finetune_study                      # all default arms, ~70 min idle
    python -m experiments.finetune_study --arms A,E --steps 200000 --hands 1000
    python -m experiments.finetune_study --plan               # the arms' settings, no run

Arms (each a config override of ``--config``, default experiments/configs/casino.toml):

- A ``shipped``: the config's PPO settings as they are (replicates the drift);
- B ``warmup``: the first ``--warmup`` share of the steps trains only the critic
  (``ppo.value_warmup_steps``), then A's PPO;
- C ``low_lr``: the learning rate ``--lr-factor`` (10) times lower;
- D ``anchor``: ``ppo.kl_anchor = --beta``: beta * KL(pi_start || pi) on each minibatch;
- E ``recipe``: B + C + D (the warm-up at the config's learning rate,
  ``ppo.value_warmup_learning_rate``, so that the critic is fitted as fast as in B);
- F ``no_baseline`` (not in the default set): A without the duplicate baseline in the reward
  (``env.baseline = ""``: the reward's variance).

Each arm starts from ``--init`` (default the shipped model) with ``ppo.init_model`` (no
cloning), keeps a copy of its model at ``--points`` evenly spaced step counts
(``run.save_every``; the last one is its final model) and writes its per-iteration
diagnostics (``ppo_diagnostics.csv``: the critic's explained variance, KL to the start
policy, argmax moves changed, entropy, clip fraction, mean |advantage|, losses). The start
model and every saved model then play ``--hands`` single hands on the same duplicate deals
(``--eval-seed``) against the heuristic and ``--unseen-hands`` against ``--unseen``, an
opponent the learner never trained with (default a differently tuned heuristic,
``heuristic:threat=0.3,residue=0.5``: about as strong as the heuristic, which won 49.3%
[46.0%, 52.6%] of 300 hands against it, but different: 46% of 100 deals ended otherwise for
the shipped model than against the heuristic). The change from the start model is a paired
interval over deals (the same deals, so the luck of the cards cancels).

Everything goes to ``--out`` (default runs/finetune_study, git-ignored): per arm
``<arm>/`` (the run of experiments.train: model, copies, diagnostics, checkpoints),
``evals/`` (one JSON per model and opponent, per-deal results), and ``results.csv``,
``results.md``, ``win_rate.png``, ``diagnostics.csv``, ``diagnostics.png``. Every part is
skipped when its results exist and an interrupted arm resumes from its last checkpoint, so
the same command continues a stopped study.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import multiprocessing as mp
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.finetune import DIAG_FIELDS
from experiments.stats import t_interval, wilson_interval

DEFAULT_CONFIG = Path("experiments/configs/casino.toml")
DEFAULT_INIT = Path("experiments/results/train/casino/model.zip")
DEFAULT_OUT = Path("runs/finetune_study")
# Sized on this 2-core machine (docs/baselines.md, "Fine-tuning after cloning"): five arms
# of 491,520 steps (240 iterations) and their evaluations, an estimated 55-75 minutes idle.
DEFAULT_STEPS = 491_520
DEFAULT_ARMS = "A,B,C,D,E"
UNSEEN = "heuristic:threat=0.3,residue=0.5"


@dataclass(frozen=True)
class Arm:
    """One arm of the study: its letter, short name, what it changes, its overrides."""

    letter: str
    name: str
    text: str
    overrides: dict

    @property
    def label(self) -> str:
        return f"{self.letter}_{self.name}"


def iteration_steps(cfg: dict) -> int:
    """Environment steps of one PPO iteration (``n_steps`` x ``n_envs``)."""
    return int(cfg["ppo"]["n_steps"]) * int(cfg["ppo"]["n_envs"])


def plan_steps(cfg: dict, steps: int, points: int, warmup: float) -> dict:
    """The study's step counts, whole PPO iterations: the budget (``steps`` rounded up to
    ``points`` equal parts), the spacing of the evaluated copies and the warm-up length."""
    it = iteration_steps(cfg)
    points = max(1, int(points))
    every = max(1, math.ceil(steps / points / it)) * it
    total = every * points
    warm = 0 if warmup <= 0 else max(1, round(warmup * total / it)) * it
    if warm >= total:
        raise ValueError(f"--warmup {warmup}: the warm-up ({warm:,} steps) must be shorter "
                         f"than the budget ({total:,})")
    return {"steps": total, "every": every, "warmup": warm, "iteration": it}


def make_arms(cfg: dict, warmup_steps: int, beta: float, lr_factor: float) -> dict[str, Arm]:
    """The arms, as overrides of the base config ``cfg`` (their values follow from it)."""
    p = cfg["ppo"]
    lr = float(p["learning_rate"])
    low = {"learning_rate": float(f"{lr / lr_factor:.6g}")}
    if p.get("learning_rate_final") is not None:
        low["learning_rate_final"] = float(f"{float(p['learning_rate_final']) / lr_factor:.6g}")
    warm = {"value_warmup_steps": warmup_steps}
    arms = [
        Arm("A", "shipped", "the config's PPO settings (the drift)", {}),
        Arm("B", "warmup", f"critic only for the first {warmup_steps:,} steps, then A",
            {"ppo": dict(warm)}),
        Arm("C", "low_lr", f"learning rate {lr / lr_factor:.2g} ({lr_factor:g}x lower)",
            {"ppo": dict(low)}),
        Arm("D", "anchor", f"KL anchor beta = {beta:g} to the start policy",
            {"ppo": {"kl_anchor": beta}}),
        Arm("E", "recipe", f"B + C + D (warm-up at lr {lr:.2g})",
            {"ppo": {**warm, **low, "kl_anchor": beta, "value_warmup_learning_rate": lr}}),
        Arm("F", "no_baseline", "A without the duplicate baseline in the reward",
            {"env": {"baseline": ""}}),
    ]
    return {a.letter: a for a in arms}


def parse_arms(text: str, arms: dict[str, Arm]) -> list[Arm]:
    """``"A,C,E"`` (letters or names, any case; ``all``) to arms, in the given order."""
    if text.strip().lower() == "all":
        return list(arms.values())
    by_name = {a.name: a for a in arms.values()}
    out = []
    for part in text.split(","):
        key = part.strip()
        arm = arms.get(key.upper()) or by_name.get(key.lower())
        if arm is None:
            raise SystemExit(f"--arms: unknown arm {key!r} (known: "
                             + ", ".join(f"{a.letter} {a.name}" for a in arms.values()) + ")")
        if arm not in out:
            out.append(arm)
    return out


def base_config(config: Path, init: Path, steps: dict, seed: int, sets: dict,
                progress: bool) -> dict:
    """The config every arm shares: ``config`` fine-tuning ``init`` (no cloning) for
    ``steps["steps"]`` steps, a model copy every ``steps["every"]``, no evaluation inside
    the runs (the study evaluates the copies), no time limit, then ``sets``."""
    from experiments.train import _merge, load_config

    cfg = load_config(config, {
        "bc": {"decisions": 0, "dagger_rounds": 0, "load_demos": "", "save_demos": ""},
        "ppo": {"init_model": str(init)},
        "eval": {"every": 0, "final_hands": {}},
        "run": {"seed": seed, "time_limit_minutes": 1_000_000.0, "progress": progress,
                "verbose": True}})
    cfg = _merge(cfg, sets)
    cfg["ppo"]["timesteps"] = steps["steps"]
    cfg["run"]["save_every"] = steps["every"]
    cfg["run"]["checkpoint_every"] = steps["every"]
    return cfg


def arm_config(base: dict, arm: Arm) -> dict:
    """``base`` with the arm's overrides."""
    from experiments.train import _merge

    cfg = _merge(base, arm.overrides)
    cfg["run"]["name"] = arm.label
    return cfg


# -- evaluation -----------------------------------------------------------------------------------

def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def evaluate_model(job: dict) -> dict:
    """Play the model ``job["model"]`` against ``job["opponent"]`` on ``job["hands"]``
    duplicate-deal single hands from ``job["seed"]``; the summary with per-deal results
    (each deal's share of hands won and point difference) for paired comparisons."""
    import torch

    from agents.ppo import PPOAgent
    from agents.tournament import play_match
    from experiments.stats import summarize_pair

    torch.set_num_threads(1)
    t0 = time.perf_counter()
    agent = PPOAgent.load(job["model"])
    cfg = agent.env_config
    deals = max(1, math.ceil(job["hands"] / 2))
    res = play_match([agent, job["opponent"]], cfg["variant"], cfg["players"], deals=deals,
                     seed=job["seed"], mode="hand", partnerships=cfg.get("partnerships"),
                     progress=job.get("progress", False), labels=["ppo", job["opponent"]],
                     **(cfg.get("switches") or {}))
    s = summarize_pair(res)
    by_deal: dict[int, list] = {}
    for g in res.records:
        by_deal.setdefault(g.deal, []).append(g)
    scores, diffs, hands = [], [], []
    for d in sorted(by_deal):
        games = by_deal[d]
        scores.append(sum(1.0 if g.winner == 0 else 0.5 if g.winner is None else 0.0
                          for g in games) / len(games))
        diffs.append(float(sum(p[0] - p[1] for g in games for p in g.points)))
        hands.append(sum(g.hands for g in games))
    return {**{k: job[k] for k in ("label", "opponent", "hands", "seed", "digest")},
            "games": s.games, "wins": s.wins, "draws": s.draws, "losses": s.losses,
            "win_rate": s.win_rate, "paired_lo": s.win_lo, "paired_hi": s.win_hi,
            "diff_per_hand": s.diff_per_hand, "diff_lo": s.diff_lo, "diff_hi": s.diff_hi,
            "deal_scores": scores, "deal_diffs": diffs, "deal_hands": hands,
            "seconds": time.perf_counter() - t0}


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text).strip("-")


def eval_path(out: Path, label: str, opponent: str, hands: int, seed: int) -> Path:
    """Where the evaluation of one model against one opponent is kept."""
    return out / "evals" / f"{label}__{_slug(opponent)}__{hands}h_s{seed}.json"


def run_evaluations(out: Path, jobs: list[dict], workers: int, progress: bool) -> list[dict]:
    """The evaluations of ``jobs`` (each: label, model, opponent, hands, seed), reading those
    already done (same model file) and playing the others on ``workers`` processes."""
    results: dict[int, dict] = {}
    todo = []
    for i, job in enumerate(jobs):
        job["digest"] = _digest(Path(job["model"]))
        path = eval_path(out, job["label"], job["opponent"], job["hands"], job["seed"])
        if path.exists():
            done = json.loads(path.read_text())
            if done.get("digest") == job["digest"]:
                results[i] = done
                continue
        todo.append(i)
    if todo:
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=sum(jobs[i]["hands"] for i in todo), unit="hand",
                       desc=f"evaluating {len(todo)} model x opponent pairs")

        def keep(i: int, res: dict) -> None:
            path = eval_path(out, jobs[i]["label"], jobs[i]["opponent"], jobs[i]["hands"],
                             jobs[i]["seed"])
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(res) + "\n")
            results[i] = res
            if bar is not None:
                bar.update(jobs[i]["hands"])
                bar.set_postfix_str(f"{res['label']} v {res['opponent']}: "
                                    f"{res['win_rate']:.1%}")

        if workers <= 1 or len(todo) == 1:
            for i in todo:
                keep(i, evaluate_model(jobs[i]))
        else:
            ctx = mp.get_context("forkserver" if "forkserver" in mp.get_all_start_methods()
                                 else "spawn")
            with ProcessPoolExecutor(max_workers=min(workers, len(todo)),
                                     mp_context=ctx) as pool:
                futures = {pool.submit(evaluate_model, jobs[i]): i for i in todo}
                for f in as_completed(futures):
                    keep(futures[f], f.result())
        if bar is not None:
            bar.close()
    return [results[i] for i in range(len(jobs))]


def paired_change(after: dict, before: dict) -> dict:
    """The change from ``before`` to ``after`` on the same deals: win rate and points per
    hand, each with a 95% t interval over deals."""
    if len(after["deal_scores"]) != len(before["deal_scores"]):
        raise ValueError("paired_change: the two evaluations played different deals")
    dw = [a - b for a, b in zip(after["deal_scores"], before["deal_scores"])]
    dp = [(a - b) / max(h, 1) for a, b, h in zip(after["deal_diffs"], before["deal_diffs"],
                                                  after["deal_hands"])]
    w, wlo, whi = t_interval(dw)
    p, plo, phi = t_interval(dp)
    return {"delta": w, "delta_lo": wlo, "delta_hi": whi, "points_delta": p,
            "points_delta_lo": plo, "points_delta_hi": phi}


# -- the study ------------------------------------------------------------------------------------

RESULT_FIELDS = ("arm", "name", "steps", "opponent", "hands", "win_rate", "paired_lo",
                 "paired_hi", "wilson_lo", "wilson_hi", "delta", "delta_lo", "delta_hi",
                 "diff_per_hand", "diff_lo", "diff_hi", "points_delta", "points_delta_lo",
                 "points_delta_hi")


def model_points(arm_out: Path) -> list[tuple[int, Path]]:
    """(steps, model file) of an arm's saved copies and its final model, by steps."""
    found = []
    for d in (arm_out / "models").glob("step_*"):
        if (d / "model.zip").exists():
            found.append((int(d.name[5:]), d / "model.zip"))
    log = arm_out / "train_log.json"
    if (arm_out / "model.zip").exists() and log.exists():
        steps = int(json.loads(log.read_text()).get("ppo", {}).get("timesteps", 0))
        found.append((steps, arm_out / "model.zip"))
    return sorted(dict(found).items())


def train_arm(cfg: dict, arm_out: Path) -> dict:
    """Run (or resume, or find finished) one arm's fine-tuning; its training log."""
    from experiments.train import latest_checkpoint, train

    resume = latest_checkpoint(arm_out / "checkpoints") is not None
    return train(cfg, arm_out, arm_out, resume=resume)


def result_rows(arm: Arm | None, evals: list[dict], start: dict[str, dict],
                steps: list[int]) -> list[dict]:
    """Rows of results.csv for one arm's evaluations (or the start model's, ``arm=None``)."""
    rows = []
    for ev, n in zip(evals, steps):
        base = start[ev["opponent"]]
        lo, hi = wilson_interval(ev["wins"] + 0.5 * ev["draws"], ev["games"])
        row = {"arm": arm.letter if arm else "start", "name": arm.name if arm else "start",
               "steps": n, "opponent": ev["opponent"], "hands": ev["games"],
               "win_rate": ev["win_rate"], "paired_lo": ev["paired_lo"],
               "paired_hi": ev["paired_hi"], "wilson_lo": lo, "wilson_hi": hi,
               "diff_per_hand": ev["diff_per_hand"], "diff_lo": ev["diff_lo"],
               "diff_hi": ev["diff_hi"]}
        row.update(paired_change(ev, base))
        rows.append(row)
    return rows


def write_csv(path: Path, fields: Sequence[str], rows: list[dict]) -> None:
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(fields), extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.5g}" if isinstance(v, float) else v) for k, v in r.items()})


def diagnostics_rows(out: Path, arms: list[Arm]) -> list[dict]:
    """Every arm's ppo_diagnostics.csv rows, with the arm's letter."""
    rows = []
    for arm in arms:
        path = out / arm.label / "ppo_diagnostics.csv"
        if not path.exists():
            continue
        with path.open(newline="") as f:
            for r in csv.DictReader(f):
                row: dict[str, Any] = {"arm": arm.letter}
                for k, v in r.items():
                    try:
                        row[k] = float(v) if k != "phase" else v
                    except ValueError:
                        row[k] = v
                rows.append(row)
    return rows


def summarize_diagnostics(rows: list[dict]) -> dict:
    """The diagnostics of one arm in a few numbers: the critic's explained variance over
    the first 10 iterations of PPO proper and over the last 10, the KL to the start
    policy and the share of argmax moves changed at the end, the mean |advantage|."""
    ppo = [r for r in rows if r.get("phase") == "ppo"]
    if not ppo:
        return {}

    def mean(key: str, part: list[dict]) -> float:
        vals = [r[key] for r in part if isinstance(r[key], float) and not math.isnan(r[key])]
        return sum(vals) / len(vals) if vals else math.nan

    return {"ev_first": mean("explained_variance", ppo[:10]),
            "ev_last": mean("explained_variance", ppo[-10:]),
            "kl_end": mean("kl_to_start", ppo[-3:]),
            "changed_end": mean("argmax_changed", ppo[-3:]),
            "adv": mean("mean_abs_advantage", ppo)}


def _pct(x: float) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.1%}"


def _signed(x: float, lo: float, hi: float) -> str:
    return f"{x * 100:+.1f} [{lo * 100:+.1f}, {hi * 100:+.1f}]"


def write_markdown(out: Path, args: argparse.Namespace, plan: dict, arms: list[Arm],
                   rows: list[dict], diag: dict[str, dict], logs: dict[str, dict]) -> None:
    """``results.md``: the design, then one line per arm and opponent: the final model
    against the start model on the same deals."""
    lines = ["# Fine-tuning after cloning: why PPO drifted (issue 17 item 2)", "",
             f"Start model `{args.init}`; config `{args.config}`; every arm {plan['steps']:,} "
             f"PPO steps (seed {args.seed}, the same environment deals and opponent pool), "
             f"evaluated every {plan['every']:,} steps on the same duplicate deals (seed "
             f"{args.eval_seed}): {args.hands} hands against the heuristic"
             + (f", {args.unseen_hands} against `{args.unseen}` (never a training opponent)"
                if args.unseen_hands > 0 else "") + ". "
             "Win rates count draws as half; intervals are 95%, the change from the start "
             "model paired over deals (percentage points).", "",
             "| arm | what changes | opponent | start | end | change [95% CI] | "
             "points/hand change | EV first / last 10 it. | KL to start (end) | "
             "argmax moved (end) | frames/s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    by_arm: dict[str, list[dict]] = {}
    for r in rows:
        by_arm.setdefault(r["arm"], []).append(r)
    for arm in arms:
        arm_rows = by_arm.get(arm.letter, [])
        if not arm_rows:
            lines.append(f"| {arm.letter} {arm.name} | {arm.text} | not run yet | | | | | | "
                         "| | |")
            continue
        last = max(r["steps"] for r in arm_rows)
        d = diag.get(arm.letter, {})
        fps = (logs.get(arm.letter) or {}).get("ppo", {}).get("frames_per_second")
        for r in sorted((r for r in arm_rows if r["steps"] == last),
                        key=lambda r: r["opponent"] != "heuristic"):
            start = next(x for x in rows if x["arm"] == "start"
                         and x["opponent"] == r["opponent"])
            lines.append(
                f"| {arm.letter} {arm.name} | {arm.text} | {r['opponent']} | "
                f"{_pct(start['win_rate'])} | {_pct(r['win_rate'])} | "
                f"{_signed(r['delta'], r['delta_lo'], r['delta_hi'])} | "
                f"{r['points_delta']:+.2f} [{r['points_delta_lo']:+.2f}, "
                f"{r['points_delta_hi']:+.2f}] | "
                f"{d.get('ev_first', math.nan):.2f} / {d.get('ev_last', math.nan):.2f} | "
                f"{d.get('kl_end', math.nan):.4f} | {_pct(d.get('changed_end', math.nan))} | "
                f"{f'{fps:,.0f}' if fps else 'n/a'} |")
    timing = []
    for arm in arms:
        log = logs.get(arm.letter)
        if log:
            ppo = log.get("ppo") or {}
            timing.append(f"{arm.letter} {log.get('train_minutes', 0):.1f} min training "
                          f"({ppo.get('frames_per_second', 0):,.0f} frames/s), "
                          f"{log.get('study_eval_seconds', 0) / 60:.1f} min of evaluation "
                          "games (summed over the evaluation processes)")
    if timing:
        lines += ["", "Time per arm: " + "; ".join(timing) + "."]
    lines += ["", "Every evaluation point: results.csv and win_rate.png; every PPO iteration "
              "of every arm: diagnostics.csv and diagnostics.png (EV = the critic's explained "
              "variance on the rollout before the update; KL(start || policy) and the share "
              "of decisions whose argmax move differs from the start policy's, on the "
              "rollout's states).", ""]
    (out / "results.md").write_text("\n".join(lines) + "\n")


ARM_COLORS = {"A": "#c44e52", "B": "#dd8452", "C": "#4c72b0", "D": "#8172b2", "E": "#55a868",
              "F": "#937860"}


def plot_win_rates(rows: list[dict], arms: list[Arm], opponents: list[str], path: Path) -> None:
    """Win rate against each evaluation opponent over PPO steps, one line per arm, with the
    95% paired interval of each point (the start model at step 0 for every arm)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(opponents), figsize=(6 * len(opponents), 4.2),
                             squeeze=False)
    steps_max = max((r["steps"] for r in rows), default=1) or 1
    for ax, opp in zip(axes[0], opponents):
        start = [r for r in rows if r["arm"] == "start" and r["opponent"] == opp]
        for k, arm in enumerate(arms):
            rs = sorted((r for r in rows if r["arm"] == arm.letter and r["opponent"] == opp),
                        key=lambda r: r["steps"])
            if not rs:
                continue
            rs = start + rs
            dx = (k - (len(arms) - 1) / 2) * steps_max * 0.006  # keep the bars apart
            x = [r["steps"] + dx for r in rs]
            y = [r["win_rate"] for r in rs]
            err = [[max(0.0, r["win_rate"] - r["paired_lo"]) for r in rs],
                   [max(0.0, r["paired_hi"] - r["win_rate"]) for r in rs]]
            ax.errorbar(x, y, yerr=err, fmt="o-", ms=3, capsize=3, lw=1.2,
                        color=ARM_COLORS.get(arm.letter), label=f"{arm.letter} {arm.name}")
        ax.axhline(0.5, color="grey", lw=1, ls="--")
        if start:
            ax.axhline(start[0]["win_rate"], color="black", lw=0.8, ls=":",
                       label="start model")
        ax.set_title(f"against {opp} ({start[0]['hands'] if start else '?'} hands a point)",
                     fontsize=10)
        ax.set_xlabel("PPO steps")
        ax.set_ylabel("hands won (draws half), 95% paired CI")
        ax.ticklabel_format(axis="x", style="plain", useOffset=False)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_diagnostics(rows: list[dict], arms: list[Arm], path: Path) -> None:
    """Per-iteration diagnostics of every arm (moving average over 5 iterations)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [("explained_variance", "critic's explained variance (rollout)"),
              ("kl_to_start", "KL(start || policy), rollout states"),
              ("argmax_changed", "share of choices whose argmax moved"),
              ("entropy", "entropy"), ("clip_fraction", "clip fraction"),
              ("mean_abs_advantage", "mean |advantage|")]
    fig, axes = plt.subplots(2, 3, figsize=(14, 7))
    for ax, (key, title) in zip(axes.flat, panels):
        for arm in arms:
            rs = [r for r in rows if r["arm"] == arm.letter]
            if not rs:
                continue
            x = [r["timesteps"] for r in rs]
            y = [r[key] if isinstance(r[key], float) else math.nan for r in rs]
            smooth = [sum(y[max(0, i - 4):i + 1]) / len(y[max(0, i - 4):i + 1])
                      for i in range(len(y))]
            ax.plot(x, smooth, lw=1.2, color=ARM_COLORS.get(arm.letter),
                    label=f"{arm.letter} {arm.name}")
        warm = [r["timesteps"] for r in rows if r.get("phase") == "warmup"]
        if warm:  # the arms with a value warm-up update only the critic up to here
            ax.axvline(max(warm), color="grey", lw=1, ls=":")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("environment steps (dotted: end of the value warm-up)", fontsize=8)
        ax.grid(alpha=0.3)
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def report(out: Path, args: argparse.Namespace, plan: dict, arms: list[Arm],
           rows: list[dict], logs: dict[str, dict], opponents: list[str]) -> None:
    """Write results.csv/.md, win_rate.png, diagnostics.csv/.png from what exists so far."""
    write_csv(out / "results.csv", RESULT_FIELDS, rows)
    diag_rows = diagnostics_rows(out, arms)
    if diag_rows:
        write_csv(out / "diagnostics.csv", ("arm",) + DIAG_FIELDS, diag_rows)
    diag = {a.letter: summarize_diagnostics([r for r in diag_rows if r["arm"] == a.letter])
            for a in arms}
    write_markdown(out, args, plan, arms, rows, diag, logs)
    for plot, target, name in ((plot_win_rates, (rows, arms, opponents), "win_rate.png"),
                               (plot_diagnostics, (diag_rows, arms), "diagnostics.png")):
        try:
            plot(*target, out / name)
        except Exception as exc:  # a plot must never lose the study's results
            print(f"{name} failed: {exc}", flush=True)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m experiments.finetune_study",
                                 description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", type=Path, default=DEFAULT_CONFIG)
    ap.add_argument("--init", type=Path, default=DEFAULT_INIT,
                    help="the model every arm starts from (ppo.init_model)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--steps", type=int, default=DEFAULT_STEPS,
                    help="PPO steps per arm (rounded up to whole iterations per point)")
    ap.add_argument("--arms", default=DEFAULT_ARMS,
                    help="arms to run, e.g. A,E or all (A shipped, B warmup, C low_lr, "
                    "D anchor, E recipe, F no_baseline)")
    ap.add_argument("--hands", type=int, default=2000,
                    help="hands against the heuristic per evaluation point")
    ap.add_argument("--unseen", default=UNSEEN,
                    help="the opponent the learner never trained with")
    ap.add_argument("--unseen-hands", type=int, default=1000,
                    help="hands against --unseen per evaluation point (0: none)")
    ap.add_argument("--points", type=int, default=3,
                    help="evaluation points per arm after the start (evenly spaced)")
    ap.add_argument("--warmup", type=float, default=0.1,
                    help="share of the steps that trains only the critic (arms B, E)")
    ap.add_argument("--beta", type=float, default=1.0, help="KL anchor (arms D, E)")
    ap.add_argument("--lr-factor", type=float, default=10.0,
                    help="how many times lower the learning rate of arms C and E is")
    ap.add_argument("--seed", type=int, default=0, help="training seed of every arm")
    ap.add_argument("--eval-seed", type=int, default=4242, help="seed of the evaluation deals")
    ap.add_argument("--workers", type=int, default=2, help="evaluation processes")
    ap.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                    help="override a setting of every arm's config (as experiments.train)")
    ap.add_argument("--plan", action="store_true",
                    help="print the arms and step counts, run nothing")
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    a = parse_args(argv)
    from experiments.train import _model_file, parse_setting

    sets: dict[str, dict] = {}
    for item in a.set:
        section, key, value = parse_setting(item)
        sets.setdefault(section, {})[key] = value
    if not _model_file(a.init).is_file():
        raise SystemExit(f"--init {a.init}: no such model")
    a.init = _model_file(a.init)  # (a folder: its model.zip)
    probe = base_config(a.config, a.init, {"steps": 0, "every": 0}, a.seed, sets, True)
    try:
        plan = plan_steps(probe, a.steps, a.points, a.warmup)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    base = base_config(a.config, a.init, plan, a.seed, sets, not a.quiet)
    all_arms = make_arms(base, plan["warmup"], a.beta, a.lr_factor)
    arms = parse_arms(a.arms, all_arms)
    opponents = ["heuristic"] + ([a.unseen] if a.unseen_hands > 0 else [])
    hands = {"heuristic": a.hands, a.unseen: a.unseen_hands}
    print(f"fine-tuning study: {len(arms)} arms x {plan['steps']:,} PPO steps "
          f"({plan['steps'] // plan['iteration']} iterations of {plan['iteration']:,}), "
          f"evaluated at step 0 and every {plan['every']:,} steps on "
          + " and ".join(f"{hands[o]:,} hands against {o}" for o in opponents)
          + f"; results in {a.out}", flush=True)
    for arm in arms:
        print(f"  {arm.letter} {arm.name}: {arm.text}  "
              f"{json.dumps(arm.overrides) if arm.overrides else '(no override)'}", flush=True)
    if a.plan:
        return 0
    out = a.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "study.json").write_text(json.dumps(
        {"args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(a).items()},
         "plan": plan, "arms": {x.letter: x.overrides for x in arms}}, indent=2) + "\n")
    progress = not a.quiet
    start_jobs = [{"label": "start", "model": str(a.init), "opponent": o, "hands": hands[o],
                   "seed": a.eval_seed} for o in opponents]
    start_evals = run_evaluations(out, start_jobs, a.workers, progress)
    start = {e["opponent"]: e for e in start_evals}
    rows = result_rows(None, start_evals, start, [0] * len(start_evals))
    logs: dict[str, dict] = {}
    t_study = time.perf_counter()
    for k, arm in enumerate(arms, 1):
        cfg = arm_config(base, arm)
        arm_out = out / arm.label
        print(f"\n[{k}/{len(arms)}] arm {arm.letter} {arm.name}: {arm.text} "
              f"({(time.perf_counter() - t_study) / 60:.0f} min into the study)", flush=True)
        t0 = time.perf_counter()
        logs[arm.letter] = train_arm(cfg, arm_out)
        points = [(n, p) for n, p in model_points(arm_out) if n > 0]
        jobs = [{"label": f"{arm.label}_step_{n}", "model": str(p), "opponent": o,
                 "hands": hands[o], "seed": a.eval_seed} for n, p in points for o in opponents]
        evals = run_evaluations(out, jobs, a.workers, progress)
        logs[arm.letter]["study_eval_seconds"] = sum(e["seconds"] for e in evals)
        rows += result_rows(arm, evals, start, [n for n, _ in points for _ in opponents])
        report(out, a, plan, arms, rows, logs, opponents)
        last = [r for r in rows if r["arm"] == arm.letter and r["steps"] == points[-1][0]]
        print(f"arm {arm.letter} done in {(time.perf_counter() - t0) / 60:.1f} min: " + "; ".join(
            f"{r['opponent']} {r['win_rate']:.1%} ({r['delta'] * 100:+.1f} points "
            f"[{r['delta_lo'] * 100:+.1f}, {r['delta_hi'] * 100:+.1f}])" for r in last),
            flush=True)
    report(out, a, plan, arms, rows, logs, opponents)
    print(f"\nstudy done in {(time.perf_counter() - t_study) / 60:.1f} min: "
          f"{out / 'results.md'}", flush=True)
    print((out / "results.md").read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["Arm", "evaluate_model", "main", "make_arms", "paired_change", "plan_steps"]
