"""Thinking time per decision of agents on the same decisions, side by side (issue 18: the
guided search may use no more time per decision than the search it plays).

    G=search:guide=experiments/results/exit/refit_casino/w1_gap1_T0.5_e8/model.zip,endgame=20000
    python -m experiments.bench_think --variant casino --agents search $G --hands 20 \\
        --out experiments/results/exit/think_casino

The decisions are those of single two-player hands played by the heuristic on both seats
(every decision with a choice; seeded, so the same for every agent and run). At each one every
agent chooses once, in an order that alternates from decision to decision, so a slower or
busier stretch of the machine weighs on all of them alike. Each choice starts with the rollout
simulator's memoised positions forgotten (``agents.fastsim.clear_caches``): agents of one seed
draw the same determinizations, and the second to play them would otherwise find the first's
rollout positions memoised (about 3 times faster on casino decisions). Each agent's row gives
its mean milliseconds per decision and its time relative to the first agent's (the reference),
with a 95% interval by a paired bootstrap over decisions (scipy). A match's thinking times
(``experiments.long_match``) come from cores shared with the other side and any other job;
this isolates the agents' own cost. Writes ``think.csv``, ``think.md`` and ``think.json``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import time
from pathlib import Path

import numpy as np


def decisions(variant: str, hands: int, seed: int) -> list:
    """The views of every decision with a choice in ``hands`` single hands of the heuristic
    against itself (hand k dealt with seed ``seed + k``)."""
    from agents.scripted import HeuristicAgent
    from casino_env.engine import apply_move, new_game
    from casino_env.engine.view import PlayerView

    player = HeuristicAgent(seed)
    views = []
    for k in range(hands):
        st = new_game(variant, 2, seed=seed + k)
        start = st.hand_points
        while st.hand_points is start and not st.game_over:
            view = PlayerView(st, st.current)
            if len(view.legal_moves()) > 1:
                views.append(view)
            st = apply_move(st, player.choose(view))
    return views


def think(variant: str, specs: list[str], hands: int, seed: int,
          progress: bool = True) -> tuple[list[dict], np.ndarray]:
    """Each agent's seconds at each decision (decisions x agents) and a row per agent."""
    import torch
    from scipy.stats import bootstrap
    from tqdm.auto import tqdm

    from agents import make_agent
    from agents.fastsim import clear_caches

    torch.set_num_threads(1)
    agents = [make_agent(s, seed=seed) for s in specs]
    views = decisions(variant, hands, seed)
    if len(views) < 2:
        raise SystemExit(f"error: {hands} hands gave {len(views)} decisions with a choice; "
                         "play more --hands")
    secs = np.zeros((len(views), len(agents)))
    for i, view in enumerate(tqdm(views, desc="decisions", disable=not progress)):
        order = range(len(agents)) if i % 2 == 0 else reversed(range(len(agents)))
        for j in order:
            clear_caches()  # each agent's rollouts start cold (see the module text)
            t0 = time.perf_counter()
            agents[j].choose(view)
            secs[i, j] = time.perf_counter() - t0
    rows = []
    for j, spec in enumerate(specs):
        row = {"agent": spec, "decisions": len(views),
               "ms_per_decision": round(1000 * float(secs[:, j].mean()), 2),
               "ratio_to_first": 1.0, "ratio_low": 1.0, "ratio_high": 1.0}
        if j:
            ci = bootstrap((secs[:, j], secs[:, 0]), lambda a, b: a.mean() / b.mean(),
                           paired=True, n_resamples=2000, method="percentile",
                           random_state=np.random.default_rng(seed)).confidence_interval
            row.update(ratio_to_first=round(float(secs[:, j].mean() / secs[:, 0].mean()), 4),
                       ratio_low=round(float(ci.low), 4), ratio_high=round(float(ci.high), 4))
        rows.append(row)
    return rows, secs


def write(out: Path, rows: list[dict], meta: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with (out / "think.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    md = [f"# Thinking time per decision, {meta['variant']} ({rows[0]['decisions']} decisions "
          f"of {meta['hands']} heuristic hands, seed {meta['seed']})", "",
          "| agent | ms a decision | time relative to the first [95% CI] |", "|---|---|---|"]
    md += [f"| `{r['agent']}` | {r['ms_per_decision']} | {r['ratio_to_first']:.4f} "
           f"[{r['ratio_low']:.4f}, {r['ratio_high']:.4f}] |" for r in rows]
    (out / "think.md").write_text("\n".join(md) + "\n")
    (out / "think.json").write_text(json.dumps({**meta, "rows": rows}, indent=1) + "\n")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m experiments.bench_think", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", default="casino")
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                   help="agent specs (make_agent); the first is the reference")
    p.add_argument("--hands", type=int, default=20, help="heuristic hands (default 20)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, required=True)
    a = p.parse_args(argv)
    if a.hands < 1:
        p.error(f"--hands must be at least 1, got {a.hands}")
    t0 = time.perf_counter()
    rows, _ = think(a.variant, a.agents, a.hands, a.seed)
    meta = {"variant": a.variant, "hands": a.hands, "seed": a.seed,
            "minutes": round((time.perf_counter() - t0) / 60, 1),
            "load_average": os.getloadavg()[0],
            "time": time.strftime("%Y-%m-%d %H:%M:%S")}
    write(a.out, rows, meta)
    print((a.out / "think.md").read_text())


if __name__ == "__main__":
    main()
