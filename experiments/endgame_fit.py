"""Teach a move-scoring network the last deal from exact play (issue 18).

    python -m experiments.endgame_fit --base MODEL --run runs/endgame_fit/casino \\
        --out experiments/results/exit/endgame_fit_casino --decisions 60000 --workers 2

On a two-player hand's last deal nothing is hidden, and ``agents.endgame`` values every move
exactly; there the networks trained on search (docs/expert_iteration.md) lose about as much
as the heuristic. This fine-tunes such a network (``--base``) on its own play:

1. **collect** — the network plays the learner's seat of single hands against an opponent
   pool (heuristic 2, greedy 1, the base network 2) with 5% random moves. Each decision is
   labelled by a teacher that is exact play where the view determines the state (every move
   scored with its exact value, in points) and the base network elsewhere (its logits times
   its score temperature: the target there is its own policy, so the rest of its play stays
   put while the last deal is learnt). The exact teacher's move is played, so later states
   of the deal are those good play reaches.
2. **fit** — the base network trained on to softmax(score / temperature), decisions with an
   exact label weighted ``--exact-weight`` (mean weight 1).
3. **eval** — the base and the new network alone against the heuristic on the same
   duplicate deals (hands won, points a hand), and on their own last-deal decisions the
   points each loses a hand against exact play.

Files: ``RUN/demos.npz`` (its settings in ``RUN/collect.json``: another --base, --config,
--decisions or --seed is refused there, not fitted on them), ``RUN/<arm>/model.zip``
(+ side-car), and in ``OUT``:
``arms.csv`` (one row per network, several runs may share it) and ``summary.md``. A rerun
skips the stages done.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import numpy as np

from agents.base import Agent
from casino_env.engine import Move
from casino_env.engine.view import PlayerView

CONFIG = Path("experiments/results/exit/casino_s0/config.json")
FIELDS = ("arm", "model", "hands", "win_rate", "lo", "hi", "diff_per_hand", "diff_lo", "diff_hi",
          "endgame_hands", "endgame_lost_per_hand", "endgame_choices", "endgame_share_losing",
          "decisions", "exact", "holdout_accuracy", "held_exact", "held_exact_loss_before",
          "held_exact_loss_after")


class EndgameTeacher(Agent):
    """Exact play where the view determines the state, a network's own choice elsewhere; keeps
    ``last_scores`` (per move: exact points, or the network's logit times its temperature)
    and ``last_exact`` for the collector."""

    name = "endgame-teacher"

    def __init__(self, model: str, node_limit: int = 200_000, seed: int | None = None) -> None:
        from agents.ppo import PPOAgent, env_config_path

        super().__init__(seed)
        self.net = PPOAgent.load(model, seed=seed)
        meta = json.loads(env_config_path(model).read_text())
        self.temperature = float(meta.get("score_temperature") or 1.0)
        self.node_limit = node_limit
        self.last_scores: list[tuple[Move, float]] = []
        self.last_exact = False

    def choose(self, view: PlayerView) -> Move:
        from agents.endgame import move_values, perfect_information

        moves = view.legal_moves()
        if perfect_information(view):
            values = move_values(view.determinize(random.Random(0)), self.node_limit)
            if values is not None:
                self.last_exact = True
                self.last_scores = [(m, values[m]) for m in moves]
                return max(moves, key=values.__getitem__)
        self.last_exact = False
        logits = self.net.move_logits(view, moves)
        self.last_scores = [(m, float(x) * self.temperature)
                            for m, x in zip(moves, logits) if np.isfinite(x)]
        return moves[int(np.argmax(logits))]


def collect(base: str, cfg: dict, decisions: int, seed: int, workers: int,
            progress: bool = True):
    """``decisions`` labelled decisions of the base network's seat (see the module text)."""
    from agents.ppo import PPOAgent
    from experiments import bc
    from experiments import exit as ex
    from experiments.train import env_kwargs, weighted_pool

    pool = weighted_pool(dict(cfg["data"]["opponents"]), [PPOAgent.load(base)])
    kw = env_kwargs(ex.train_cfg(cfg), pool)
    return bc.collect(kw, partial(EndgameTeacher, base), decisions,
                      explore=cfg["data"]["explore"], seed=seed, workers=workers,
                      progress=progress)


def fit(base: str, demos, dest: Path, exact_weight: float, epochs: int, learning_rate: float,
        seed: int, progress: bool = True) -> dict:
    """Train the base network on ``demos``; saves ``dest/model.zip``; returns the fit's
    final statistics with its held-out agreement with exact play."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.ppo import env_config_path
    from experiments import bc

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    meta = json.loads(env_config_path(base).read_text())
    temperature = float(meta.get("score_temperature") or 1.0)
    model = MaskablePPO.load(base, device="cpu")
    w = np.where(demos.exact, exact_weight, 1.0)
    # bc.pretrain's held-out split: the exact decisions in it measure what was learnt
    order = np.random.default_rng(seed).permutation(len(demos))
    held = order[:max(1, int(len(demos) * 0.05))]
    held = held[demos.exact[held] & (demos.n[held] > 1)]
    before = exact_gaps(model.policy, demos, held)
    stats = bc.pretrain(model.policy, demos, epochs, 512, learning_rate, 0.5, seed=seed,
                        progress=progress, score_temperature=temperature,
                        weights=w / w.mean())
    dest.mkdir(parents=True, exist_ok=True)
    model.save(dest / "model.zip")
    meta["trained_by"] = (f"{meta.get('trained_by', base)}; then fitted {epochs} epochs on "
                          f"{len(demos)} decisions of its own play labelled by exact play on "
                          f"the last deal ({int(demos.exact.sum())}, weight {exact_weight:g}) "
                          "and by itself elsewhere (experiments.endgame_fit)")
    env_config_path(dest / "model.zip").write_text(json.dumps(meta, indent=2, sort_keys=True)
                                                   + "\n")
    after = exact_gaps(model.policy, demos, held)
    stats = {k: v for k, v in stats.items() if isinstance(v, (int, float))}
    stats.update(held_exact=len(held), held_exact_loss_before=float(before.mean()),
                 held_exact_loss_after=float(after.mean()),
                 held_exact_best_before=float(np.mean(before == 0)),
                 held_exact_best_after=float(np.mean(after == 0)))
    return stats


def exact_gaps(policy, demos, idx: np.ndarray) -> np.ndarray:
    """Per decision of ``idx`` (exact labels): the points the policy's argmax move loses
    against the best move's exact value."""
    import torch

    from experiments import bc

    policy.set_training_mode(False)
    out = np.zeros(len(idx))
    with torch.no_grad():
        for b in range(0, len(idx), 1024):
            part = idx[b:b + 1024]
            obs, _, mask, _ = bc._batch(demos, part, policy.action_space.n, True)
            pred = policy.get_distribution(obs, action_masks=mask).distribution.logits
            for j, (i, p) in enumerate(zip(part, pred.argmax(-1).numpy())):
                s = demos.scores[demos.start[i]:demos.start[i] + demos.n[i]]
                out[b + j] = s.max() - s[p]
    return out


def endgame_loss(model: str, variant: str, hands: int, seed: int,
                 node_limit: int = 200_000) -> dict:
    """``model`` alone against the heuristic on ``hands`` single hands (departures.play_hand's
    deals): the points it loses a hand against exact play on its last-deal decisions."""
    from agents import make_agent
    from agents.endgame import move_values, perfect_information
    from experiments.departures import play_hand

    lost, choices, losing = 0.0, 0, 0
    net = make_agent(f"ppo:{model}")
    for deal in range(hands):
        def visit(view, st, _search, _heuristic):
            nonlocal lost, choices, losing
            move = net.choose(view)
            if len(view.legal_moves()) > 1 and perfect_information(view):
                values = move_values(st, node_limit)
                if values is not None:
                    gap = max(values.values()) - values[move]
                    lost += gap
                    choices += 1
                    losing += gap > 0
            return move

        play_hand(variant, deal, seed, 1, visit)
    return {"endgame_lost_per_hand": lost / hands, "endgame_choices": choices,
            "endgame_share_losing": losing / max(choices, 1)}


def _loss_part(job: tuple) -> dict:
    model, variant, hands, seed = job
    import torch

    torch.set_num_threads(1)
    return endgame_loss(model, variant, hands, seed)


def evaluate(name: str, model: str, cfg: dict, hands: int, loss_hands: int, seed: int,
             workers: int) -> dict:
    """One ``arms.csv`` row: hands won against the heuristic (duplicate deals) and points
    lost a hand on the last deal against exact play."""
    import multiprocessing as mp

    from experiments import exit as ex

    row = {"arm": name, "model": model}
    row.update(ex.duplicate_match(f"ppo:{model}", "heuristic", cfg, hands, seed, workers))
    jobs = [(model, cfg["env"]["variant"], loss_hands // workers, seed * 10 + i)
            for i in range(workers)]
    with mp.get_context("forkserver").Pool(workers) as pool:
        parts = pool.map(_loss_part, jobs)
    n = sum(j[2] for j in jobs)
    row["endgame_hands"] = n
    row["endgame_lost_per_hand"] = sum(p["endgame_lost_per_hand"] * j[2]
                                       for p, j in zip(parts, jobs)) / n
    row["endgame_choices"] = sum(p["endgame_choices"] for p in parts)
    row["endgame_share_losing"] = sum(p["endgame_share_losing"] * p["endgame_choices"]
                                      for p in parts) / max(row["endgame_choices"], 1)
    return row


def read_arms(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open() as f:
        return list(csv.DictReader(f))


def write_summary(out: Path, rows: list[dict], settings: dict) -> None:
    lines = ["# The last deal learnt from exact play (casino)\n",
             f"Settings: `{json.dumps(settings, sort_keys=True)}`\n",
             "Arms: `d<decisions>k_w<exact weight>_e<epochs>_lr<learning rate>`.\n",
             "| network | hands v heuristic | won [95% CI] | points/hand [95% CI] | "
             "last deal: points lost a hand v exact | decisions with a loss |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        f = {k: float(r[k]) for k in ("win_rate", "lo", "hi", "diff_per_hand", "diff_lo",
                                      "diff_hi", "endgame_lost_per_hand",
                                      "endgame_share_losing")}
        lines.append(f"| {r['arm']} | {int(float(r['hands'])):,} | {f['win_rate']:.1%} "
                     f"[{f['lo']:.1%}, {f['hi']:.1%}] | {f['diff_per_hand']:+.2f} "
                     f"[{f['diff_lo']:+.2f}, {f['diff_hi']:+.2f}] | "
                     f"{f['endgame_lost_per_hand']:.3f} | {f['endgame_share_losing']:.1%} |")
    (out / "summary.md").write_text("\n".join(lines) + "\n")


def run(a: argparse.Namespace) -> list[dict]:
    from experiments import bc
    from experiments.endgame_net import record_collect

    run_dir, out = Path(a.run), Path(a.out)
    run_dir.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    cfg = json.loads(Path(a.config).read_text())
    data = run_dir / "demos.npz"
    # the decisions depend on these: another --base or --seed must not reuse them unseen
    record_collect(run_dir, {"base": a.base, "config": a.config, "decisions": a.decisions,
                             "seed": a.seed}, data.exists())
    if data.exists():
        demos = bc.load_demos(str(data))
    else:
        demos = collect(a.base, cfg, a.decisions, a.seed, a.workers, not a.quiet)
        bc.save_demos(demos, str(run_dir / "demos.tmp.npz"))
        (run_dir / "demos.tmp.npz").replace(data)
    arm = f"d{len(demos) // 1000}k_w{a.exact_weight:g}_e{a.epochs}_lr{a.learning_rate:g}"
    dest = run_dir / arm
    fit_log = dest / "fit.json"
    if not fit_log.exists():
        stats = fit(a.base, demos, dest, a.exact_weight, a.epochs, a.learning_rate, a.seed,
                    not a.quiet)
        stats["decisions"], stats["exact"] = len(demos), int(demos.exact.sum())
        fit_log.write_text(json.dumps(stats, indent=2) + "\n")
    arms = out / "arms.csv"
    rows = read_arms(arms)
    done = {r["arm"] for r in rows}
    for name, model in (("base", a.base), (arm, str(dest / "model.zip"))):
        if name in done:
            continue
        row = evaluate(name, model, cfg, a.hands, a.loss_hands, a.eval_seed, a.workers)
        row.update({k: v for k, v in json.loads(fit_log.read_text()).items()
                    if k in ("holdout_accuracy", "decisions", "exact", "held_exact",
                             "held_exact_loss_before", "held_exact_loss_after")}
                   if name != "base"
                   else {})
        rows.append(row)
        with arms.open("w", newline="") as f:  # rewritten whole: the arms' fields differ
            wr = csv.DictWriter(f, FIELDS, extrasaction="ignore", restval="")
            wr.writeheader()
            wr.writerows(rows)
    settings = {k: getattr(a, k) for k in ("base", "hands", "loss_hands", "eval_seed")}
    write_summary(out, rows, settings)
    return rows


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m experiments.endgame_fit",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--base", required=True, help="an enumerate-mode model.zip (with side-car)")
    p.add_argument("--config", default=str(CONFIG), help="an experiments.exit config.json")
    p.add_argument("--run", required=True, help="folder for the decisions and networks")
    p.add_argument("--out", required=True, help="folder for arms.csv and summary.md")
    p.add_argument("--decisions", type=int, default=60_000)
    p.add_argument("--exact-weight", type=float, default=1.0)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--hands", type=int, default=4000)
    p.add_argument("--loss-hands", type=int, default=600)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-seed", type=int, default=93_000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--quiet", action="store_true")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    a = parse_args(argv)
    run(a)
    print((Path(a.out) / "summary.md").read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

__all__ = ["EndgameTeacher", "collect", "endgame_loss", "evaluate", "fit", "run"]
