"""Where the search agent departs from the heuristic, and whether its departures hold up
(issue 18: what a network must learn to match search).

    python -m experiments.departures recheck --variant casino --departures 600 --seed 5 \\
        --out experiments/results/exit/departures_casino
    python -m experiments.departures endgame --variant casino --hands 200 --seed 5 \\
        --out experiments/results/exit/endgame_casino
    python -m experiments.departures refit --run runs/exit/exit_casino_s0 --iteration 1 \\
        --weight 10 --min-gap 1 --hands 2000 --out experiments/results/exit/refit_casino

``recheck``: the search agent (``--simulations``, 400 as shipped) plays the learner's seat of
single hands against the heuristic (the seats alternate deal by deal). At each of its
decisions with a choice it notes the heuristic's best move and its own; where they differ (a
*departure*) both moves are scored again with ``--recheck`` paired rollouts (the same search,
its budget spent on those two moves alone), so that the gap the search saw (over a budget
split between up to 8 candidates) can be compared with a far more precise one. One CSV row a
decision (``decisions.csv``, appended hand by hand; a rerun resumes after the last hand), and
``summary.json``/``summary.md``/``summary.png``: departures by the gap the search saw, the
share that holds up (recheck gap above 0) and their mean recheck gap with its standard error.

``endgame``: the search agent plays single hands against the heuristic as above; at each of
its decisions on a two-player hand's last deal (the stock empty: nothing is hidden) every
legal move is valued exactly (``agents.endgame.move_values``), and the points the search's
move and the heuristic's would lose against exact play are written to ``endgame.csv``, with
``endgame.json``/``.md`` (points lost a hand, share of decisions with a loss).

``refit``: fits a fresh network on an expert-iteration run's decisions (``experiments.exit``'s
fit: cross-entropy to softmax(search score / ``--temperature``)) with the policy loss of the
departures whose gap is at least ``--min-gap`` multiplied by ``--weight``, then plays it alone
against the heuristic on duplicate deals; one row per arm in ``arms.csv``, with the network's
agreement with the search, in and out of the fit's sample, on those departures.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from casino_env.engine.view import PlayerView

FIELDS = ("deal", "seat", "stock", "moves", "heuristic", "search", "departs", "gap",
          "recheck_gap")
BUCKETS = ((0.0, 0.25), (0.25, 1.0), (1.0, math.inf))


class _Pair(PlayerView):
    """A view whose legal moves are two given moves (to rescore them alone)."""

    __slots__ = ("_moves",)

    def legal_moves(self):
        return self._moves


def pair_view(view: PlayerView, moves: list) -> PlayerView:
    out = _Pair.__new__(_Pair)
    for name in PlayerView.__slots__:
        setattr(out, name, getattr(view, name))
    out._moves = list(moves)
    return out


def play_hand(variant: str, deal: int, seed: int, simulations: int, visit) -> None:
    """One single hand of deal ``deal`` (each deal is played twice, the search agent in seat
    ``deal % 2``) against the heuristic; at each of the search's decisions ``visit(view,
    state, search, heuristic)`` returns the move to play."""
    from agents.scripted import HeuristicAgent
    from agents.search import SearchAgent
    from agents.tournament import derive_seed
    from casino_env.engine import apply_move, new_game

    s = derive_seed("departures", seed, deal)
    search = SearchAgent(seed=s, simulations=simulations)
    heuristic, opponent = HeuristicAgent(s), HeuristicAgent(s + 2)
    st = new_game(variant, 2, seed=derive_seed("departures-deal", seed, deal // 2))
    seat, hand = deal % 2, st.hand_points
    while not st.game_over and st.hand_points is hand:
        view = PlayerView(st, st.current)
        agent_move = visit(view, st, search, heuristic) if st.current == seat else \
            opponent.choose(view)
        st = apply_move(st, agent_move)


def recheck_hand(variant: str, deal: int, seed: int, simulations: int, recheck: int) -> list[dict]:
    """A row for each of the search's decisions with a choice in ``play_hand``; departures
    from the heuristic's move rescored with ``recheck`` rollouts on the two moves alone."""
    from agents.search import SearchAgent
    from agents.tournament import derive_seed

    judge = SearchAgent(seed=derive_seed("departures", seed, deal) + 1, simulations=recheck,
                        max_candidates=2)
    rows = []

    def visit(view, st, search, heuristic):
        moves = view.legal_moves()
        if len(moves) == 1:
            return moves[0]
        prior = heuristic.scores(view, moves)
        h = moves[max(range(len(moves)), key=lambda i: prior[i])]
        e = search.choose(view)
        row = {"deal": deal, "seat": view.seat, "stock": view.stock_size, "moves": len(moves),
               "heuristic": str(h), "search": str(e), "departs": int(e != h), "gap": "",
               "recheck_gap": ""}
        if e != h:
            scores = dict(search.last_scores)
            judge.choose(pair_view(view, [e, h]))
            again = dict(judge.last_scores)
            row["gap"] = round(scores[e] - scores.get(h, -math.inf), 4)
            row["recheck_gap"] = round(again[e] - again[h], 4)
        rows.append(row)
        return e

    play_hand(variant, deal, seed, simulations, visit)
    return rows


def read_rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open() as f:
        return list(csv.DictReader(f))


def summarize(rows: list[dict]) -> dict:
    """Departure rate, and per bucket of the gap the search saw: count, share of departures,
    share holding up under the recheck, mean recheck gap and its standard error."""
    choices = len(rows)
    dep = [r for r in rows if int(r["departs"])]
    out = {"hands": len({r["deal"] for r in rows}), "choices": choices,
           "departures": len(dep), "departure_rate": len(dep) / choices if choices else 0.0,
           "buckets": []}
    for lo, hi in BUCKETS:
        g = np.array([float(r["recheck_gap"]) for r in dep if lo <= float(r["gap"]) < hi])
        out["buckets"].append({
            "gap_from": lo, "gap_to": hi, "departures": int(len(g)),
            "share": len(g) / len(dep) if dep else 0.0,
            "holds": float(np.mean(g > 0)) if len(g) else float("nan"),
            "recheck_gap": float(g.mean()) if len(g) else float("nan"),
            "recheck_se": float(g.std(ddof=1) / math.sqrt(len(g))) if len(g) > 1 else
            float("nan")})
    gains = [float(r["recheck_gap"]) for r in dep]
    out["recheck_gap_per_hand"] = sum(gains) / out["hands"] if out["hands"] else 0.0
    return out


def write_summary(out: Path, summary: dict, settings: dict) -> None:
    (out / "summary.json").write_text(json.dumps({"settings": settings, **summary},
                                                 indent=2) + "\n")
    lines = [f"# Search's departures from the heuristic ({settings['variant']})", "",
             f"{summary['hands']} single hands, search:simulations={settings['simulations']} "
             f"against the heuristic; {summary['choices']} decisions with a choice, "
             f"{summary['departures']} departures ({summary['departure_rate']:.1%}), each "
             f"rescored with {settings['recheck']} paired rollouts on the two moves alone. "
             f"Recheck gain of the departures: {summary['recheck_gap_per_hand']:+.2f} points "
             "a hand.", "",
             "| gap the search saw (points) | departures | share | holds (recheck gap > 0) "
             "| mean recheck gap [± 1.96 SE] |", "|---|---|---|---|---|"]
    for b in summary["buckets"]:
        hi = "∞" if math.isinf(b["gap_to"]) else f"{b['gap_to']:g}"
        lines.append(f"| [{b['gap_from']:g}, {hi}) | {b['departures']} | {b['share']:.1%} | "
                     f"{b['holds']:.1%} | {b['recheck_gap']:+.3f} "
                     f"[± {1.96 * b['recheck_se']:.3f}] |")
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    labels = [f"[{b['gap_from']:g}, {'∞' if math.isinf(b['gap_to']) else b['gap_to']:g})"
              if not math.isinf(b["gap_to"]) else f"≥ {b['gap_from']:g}"
              for b in summary["buckets"]]
    ax.bar(labels, [b["recheck_gap"] for b in summary["buckets"]],
           yerr=[1.96 * b["recheck_se"] for b in summary["buckets"]], capsize=4)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("gap the search saw between its move and the heuristic's (points)")
    ax.set_ylabel("recheck gap (points, 95% CI)")
    ax.set_title(f"search's departures from the heuristic, {settings['variant']}")
    fig.tight_layout()
    fig.savefig(out / "summary.png", dpi=110)
    plt.close(fig)


def recheck(settings: dict, out: Path, progress: bool = True) -> dict:
    """Play hands until ``departures`` departures are rescored (resuming from the CSV)."""
    out.mkdir(parents=True, exist_ok=True)
    saved = out / "settings.json"
    if saved.exists() and json.loads(saved.read_text()) | {"departures": 0} != \
            settings | {"departures": 0}:
        raise ValueError(f"{out} holds a recheck with other settings ({saved}): use another "
                         "--out")
    saved.write_text(json.dumps(settings, indent=2) + "\n")
    path = out / "decisions.csv"
    rows = read_rows(path)
    deal = max((int(r["deal"]) for r in rows), default=-1) + 1
    found = sum(int(r["departs"]) for r in rows)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=settings["departures"], initial=min(found, settings["departures"]),
                   desc="departures rescored", unit="dep")
    new = not path.exists()
    with path.open("a", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        if new:
            w.writeheader()
        while found < settings["departures"]:
            got = recheck_hand(settings["variant"], deal, settings["seed"],
                               settings["simulations"], settings["recheck"])
            w.writerows(got)
            f.flush()  # a hand is saved whole before the next starts
            rows += [{k: str(v) for k, v in r.items()} for r in got]
            n = sum(r["departs"] for r in got)
            found += n
            deal += 1
            if bar is not None:
                bar.update(n)
    if bar is not None:
        bar.close()
    summary = summarize(rows)
    write_summary(out, summary, settings)
    return summary


# -- the last deal, solved ------------------------------------------------------------------------

def endgame_hand(variant: str, deal: int, seed: int, simulations: int,
                 node_limit: int) -> list[dict]:
    """A row for each of the search's decisions with a choice on a two-player hand's last
    deal in ``play_hand``: the points its move and the heuristic's lose against the best move
    (exact values; skipped past ``node_limit`` positions)."""
    from agents.endgame import move_values, perfect_information

    rows = []

    def visit(view, st, search, heuristic):
        moves = view.legal_moves()
        move = search.choose(view)
        if len(moves) > 1 and perfect_information(view):
            values = move_values(st, node_limit)
            if values is not None:
                best = max(values.values())
                rows.append({"deal": deal, "cards": len(view.state.hand(view.seat)),
                             "moves": len(moves), "search_loss": best - values[move],
                             "heuristic_loss": best - values[heuristic.choose(view)]})
        return move

    play_hand(variant, deal, seed, simulations, visit)
    return rows


def endgame(settings: dict, out: Path, progress: bool = True) -> dict:
    """Play ``hands`` hands and summarise the points lost on the last deal."""
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    hands = range(settings["hands"])
    if progress:
        from tqdm.auto import tqdm

        hands = tqdm(hands, desc="hands", unit="hand")
    for deal in hands:
        rows += endgame_hand(settings["variant"], deal, settings["seed"],
                             settings["simulations"], settings["node_limit"])
    with (out / "endgame.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, ["deal", "cards", "moves", "search_loss", "heuristic_loss"])
        w.writeheader()
        w.writerows(rows)
    n = settings["hands"]
    summary = {"settings": settings, "decisions": len(rows)}
    for who in ("search", "heuristic"):
        loss = [r[f"{who}_loss"] for r in rows]
        summary[who] = {"points_lost_per_hand": sum(loss) / n,
                        "share_losing": sum(x > 0 for x in loss) / len(loss) if loss else 0.0}
    (out / "endgame.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out / "endgame.md").write_text(
        f"# The last deal against exact play ({settings['variant']})\n\n"
        f"{n} single hands, search:simulations={settings['simulations']} against the "
        f"heuristic; {len(rows)} of the search's last-deal decisions with a choice, each "
        "move valued exactly (alpha-beta on the hand's point difference).\n\n"
        "| agent | points lost a hand against exact play | decisions with a loss |\n"
        "|---|---|---|\n" + "".join(
            f"| {who} | {summary[who]['points_lost_per_hand']:.3f} | "
            f"{summary[who]['share_losing']:.1%} |\n" for who in ("search", "heuristic")))
    return summary


# -- refitting an expert-iteration network with weighted departures ------------------------------

def departure_weights(demos, weight: float, min_gap: float) -> tuple[np.ndarray, np.ndarray]:
    """Per decision: the loss weight (``weight`` on departures with a gap of at least
    ``min_gap`` points between the search's best score and the heuristic's move, 1 elsewhere,
    normalised to mean 1) and the mask of those departures."""
    n = len(demos)
    big = np.zeros(n, bool)
    for i, (a, k) in enumerate(zip(demos.start, demos.n)):
        if k < 2:
            continue
        s, h = demos.scores[a:a + k], demos.hints[a:a + k, 0]
        e, hc = int(np.argmax(s)), int(np.argmax(h))
        big[i] = e != hc and s[e] - s[hc] >= min_gap  # (an unscored move: -inf, a big gap)
    w = np.where(big, weight, 1.0)
    return w / w.mean(), big


def refit(run: Path, iteration: int, weight: float, min_gap: float, temperature: float,
          epochs: int, hands: int, out: Path, workers: int = 1, seed: int = 0) -> dict:
    """Fit a network on ``run``'s window of decisions up to ``iteration`` with weighted
    departures; its agreement with the search on them and its hands won v the heuristic."""
    import torch

    from agents.ppo import save_env_config
    from experiments import bc
    from experiments import exit as ex
    from experiments.train import env_config

    torch.set_num_threads(1)
    cfg = json.loads((run / "config.json").read_text())
    demos = ex.window_demos(cfg, run, iteration)
    w, big = departure_weights(demos, weight, min_gap)
    arm = f"w{weight:g}_gap{min_gap:g}_T{temperature:g}_e{epochs}"
    dest = out / arm
    dest.mkdir(parents=True, exist_ok=True)
    fit_seed = 7919 * (seed + 1) + iteration
    torch.manual_seed(fit_seed)
    model = ex.new_model(cfg, fit_seed)
    stats = bc.pretrain(model.policy, demos, epochs, cfg["fit"]["batch_size"],
                        cfg["fit"]["learning_rate"], cfg["fit"]["value_coef"], seed=fit_seed,
                        progress=False, score_temperature=temperature,
                        weights=None if weight == 1 else w)
    model.save(dest / "model.zip")
    side = save_env_config(dest / "model.zip", env_config(ex.train_cfg(cfg)))
    meta = json.loads(side.read_text())
    meta.update(score_temperature=temperature, trained_by=f"refit of {run} iterations up to "
                f"{iteration}: departures with gap >= {min_gap} weighted {weight}")
    side.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    # the fit's held-out split (bc.pretrain's): agreement with the search on the departures
    order = np.random.default_rng(fit_seed).permutation(len(demos))
    held = np.zeros(len(demos), bool)
    held[order[:max(1, int(len(demos) * 0.05))]] = True
    pol = model.policy
    pol.set_training_mode(False)
    pred = np.zeros(len(demos), int)
    with torch.no_grad():
        for b in range(0, len(demos), 1024):
            idx = np.arange(b, min(len(demos), b + 1024))
            obs, _, mask, _ = bc._batch(demos, idx, pol.action_space.n, True)
            logits = pol.get_distribution(obs, action_masks=mask).distribution.logits
            pred[idx] = logits.argmax(-1).numpy()
    best = np.array([int(np.argmax(demos.scores[a:a + k])) for a, k in
                     zip(demos.start, demos.n)])
    match = ex.duplicate_match(f"ppo:{dest / 'model.zip'}", "heuristic", cfg, hands,
                               91_000 + seed, workers)
    row = {"arm": arm, "weight": weight, "min_gap": min_gap, "temperature": temperature,
           "epochs": epochs, "decisions": len(demos), "departures": int(big.sum()),
           "agree_in_sample": float(np.mean(pred[big & ~held] == best[big & ~held])),
           "agree_held_out": float(np.mean(pred[big & held] == best[big & held]))
           if (big & held).any() else float("nan"),
           "holdout_accuracy": stats.get("holdout_accuracy", float("nan")), **match}
    path = out / "arms.csv"
    new = not path.exists()
    with path.open("a", newline="") as f:
        wr = csv.DictWriter(f, list(row))
        if new:
            wr.writeheader()
        wr.writerow(row)
    return row


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m experiments.departures",
                                description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("recheck", help="rescore search's departures from the heuristic")
    r.add_argument("--variant", default="casino")
    r.add_argument("--departures", type=int, default=600)
    r.add_argument("--simulations", type=int, default=400)
    r.add_argument("--recheck", type=int, default=4000)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--out", required=True)
    r.add_argument("--quiet", action="store_true")
    g = sub.add_parser("endgame", help="points lost on the last deal against exact play")
    g.add_argument("--variant", default="casino")
    g.add_argument("--hands", type=int, default=200)
    g.add_argument("--simulations", type=int, default=400)
    g.add_argument("--node-limit", type=int, default=200_000)
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--out", required=True)
    g.add_argument("--quiet", action="store_true")
    f = sub.add_parser("refit", help="refit an expert-iteration network, departures weighted")
    f.add_argument("--run", required=True, help="an experiments.exit run folder")
    f.add_argument("--iteration", type=int, default=1)
    f.add_argument("--weight", type=float, default=1.0)
    f.add_argument("--min-gap", type=float, default=1.0)
    f.add_argument("--temperature", type=float, default=0.5)
    f.add_argument("--epochs", type=int, default=8)
    f.add_argument("--hands", type=int, default=2000)
    f.add_argument("--workers", type=int, default=1)
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--out", required=True)
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    a = parse_args(argv)
    if a.command == "recheck":
        for name in ("departures", "simulations", "recheck"):
            if getattr(a, name) < 1:
                print(f"error: --{name} must be at least 1", file=sys.stderr)
                return 2
        settings = {"variant": a.variant, "departures": a.departures,
                    "simulations": a.simulations, "recheck": a.recheck, "seed": a.seed}
        try:
            s = recheck(settings, Path(a.out), progress=not a.quiet)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print((Path(a.out) / "summary.md").read_text())
        print(f"{s['departures']} departures in {s['choices']} decisions")
        return 0
    if a.command == "endgame":
        s = endgame({"variant": a.variant, "hands": a.hands, "simulations": a.simulations,
                     "node_limit": a.node_limit, "seed": a.seed}, Path(a.out),
                    progress=not a.quiet)
        print((Path(a.out) / "endgame.md").read_text())
        return 0
    row = refit(Path(a.run), a.iteration, a.weight, a.min_gap, a.temperature, a.epochs,
                a.hands, Path(a.out), a.workers, a.seed)
    print(json.dumps(row, indent=2, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

__all__ = ["departure_weights", "endgame", "endgame_hand", "pair_view", "play_hand",
           "recheck", "recheck_hand", "refit", "summarize"]
