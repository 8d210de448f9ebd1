"""Afterstate values before the last deal, learned from rollouts (issue 18, network alone).

    python -m experiments.midgame_net pipeline --variant royal   # all of it, resumable

    T=experiments/results/exit/tail_value_casino/tail.npz
    python -m experiments.midgame_net collect --variant casino --shards 60 --seed 2 \
        --rollouts 32 --tail $T --workers 1 --run runs/midgame_net/casino_tail
    python -m experiments.endgame_net fit --run runs/midgame_net/casino_tail --augment \
        --loss centered --net set --hidden 64 --layers 2 --epochs 6 --lr-schedule cosine \
        --checkpoint runs/midgame_net/tail.ckpt --save runs/midgame_net/tail_net.pt \
        --out experiments/results/exit/midgame_net_casino
    python -m experiments.long_match --variant casino --agents \
        "heuristic:midgame_net=runs/midgame_net/tail_net.pt" heuristic --hands 2000 ...

The cloned policy with a perfect last deal wins about 56% of hands against the heuristic
(docs/expert_iteration.md), so the network-alone target needs the deals before the last one
played better too. The search agent's edge there comes from rollouts: it plays each of the
heuristic's best moves on deals of the unseen cards and rolls the hand out. This learns that
valuation once, instead of at every decision: a value network over the afterstates of those
moves, as the mover sees them (its observation; the opponent's hand unseen), regressed on the
rollouts' mean results.

**collect** -- the heuristic plays both seats of two-player single hands (15% random moves,
so the positions vary). At every decision with a choice before the last deal, its
``--candidates`` best-scored moves (the search agent's candidates) are each played on the
same ``--rollouts`` deals of the unseen cards and rolled out to the hand's end
(``agents.search.determinization_value``: fast rollouts, the builder policy on every seat; the
same deals and rollout seeds for every move, so their differences have low variance; with
``--tail PATH`` each rollout stops at the next deal boundary and takes a boundary value
network's value there, as ``search:tail=PATH`` does: on casino decisions a sixth of the label
noise of full rollouts, in a quarter of the time). Each
move's row is its afterstate from the mover's seat (``agents.afterstate.afterstate_row``,
hidden: no opponent plane) with the heuristic's columns; its value is the mean hand point
difference for the mover (rollouts to the hand's end also store the mean hand result, +1
won, 0 drawn, -1 lost, as ``y_won``: ``endgame_net fit --label won`` fits that instead).
Shards of ``--hands`` hands each (the hand is the held-out unit), written as they finish; a
rerun skips those on disk. The rows are those of ``experiments.endgame_net`` (scope
``before_last`` stored with them), so its ``fit`` fits them and saves a network that
``midgame_net=PATH`` plays (heuristic and ppo agents). With ``--play AGENT`` that agent plays
one seat of each hand instead, and only its decisions are recorded: the positions it meets
against the heuristic (``fit --init`` then fine-tunes its network on them). With ``--stock N``
only the decisions made with N cards left in the stock are valued (one deal's, more of them
for the same rollouts). With ``--exact-last`` each rollout plays the hand's last deal exactly
(``agents.endgame.last_deal_value``: the solver on the rollout's deal of the cards) instead of
by the builder policy, as the agents play it.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import random
from pathlib import Path

import numpy as np

from experiments.endgame_net import (
    _save_shard,
    heuristic_line,
    pipeline_out,
    pipeline_parser,
    player_seat,
    record_collect,
    shard_path,
    write_rows,
)

CANDIDATES = 8  # the search agent's max_candidates
ROLLOUTS = 16


def rollout_values(view, moves: list, rollouts: int, rng: random.Random,
                   tail=None, won: list | None = None, exact_last: bool = False) -> list[float]:
    """Each move's mean hand point difference for the mover over ``rollouts`` deals of the
    cards ``view`` cannot see, every move played on the same deals with the same rollout
    seeds (the search agent's valuation, without its prior). ``tail``: a boundary value
    (``agents.tail_value.TailValue``) where each rollout stops at the next deal boundary and
    takes its value, as ``search:tail=PATH`` does (less of the later deals' luck in each).
    ``won`` (rollouts to the hand's end only) gets each move's mean hand result on the same
    rollouts too: +1 a hand won, 0 drawn, -1 lost (what hands won count, not points)."""
    from agents.fastsim import supported
    from agents.search import determinization_value
    from agents.tail_value import deferred
    from agents.valuation import static_weights
    from casino_env.engine.play import play
    from casino_env.engine.scoring import restricted

    if won is not None and tail is not None:
        raise ValueError("a hand result needs rollouts to the hand's end, not a boundary value")
    rules = view.rules
    side, w, fast = rules.side(view.seat), static_weights(rules), supported(rules)
    cut, pending = None, []
    if tail is not None and not restricted(rules, view.state.scores):
        tail.check(rules)
        cut = deferred(pending)
    deals = [(view.determinize(rng), rng.getrandbits(32)) for _ in range(rollouts)]
    totals = []
    for m in moves:
        samples = [determinization_value(det, play(det, m), side, w, seed, 0.0, "builder",
                                         fast, tail=cut, exact_last=exact_last)
                   for det, seed in deals]
        total = sum(samples)
        if won is not None:  # the hand's points difference: its sign is the hand's result
            won.append(sum((v > 0) - (v < 0) for v in samples) / rollouts)
        if pending:
            total += float(tail.batch(pending, side).sum())
            pending.clear()
        totals.append(total / rollouts)
    return totals


def collect_shard(job: tuple) -> str:
    """Play ``hands`` hands (see the module text) and save their rollout-valued afterstates."""
    from agents.afterstate import (
        BEFORE_LAST,
        afterstate_row,
        heuristic_columns,
        layout_of,
        top_candidates,
    )
    from agents.endgame import perfect_information
    from casino_env.engine import new_game
    from casino_env.engine.play import play

    variant, hands, seed, dest, rollouts, candidates, tail_path, *more = job
    player_name = more[0] if more else None  # an agent: it plays one seat (``collect``)
    stock = more[1] if len(more) > 1 else None  # only decisions with this many cards left
    exact_last = bool(more[2]) if len(more) > 2 else False  # rollouts solve the last deal
    rng = random.Random(seed)
    player = None
    if player_name is not None:  # its seat's decisions only: the positions it meets
        from agents import make_agent

        player = make_agent(player_name, seed=seed)
    tail = None
    if tail_path is not None:
        from agents.tail_value import TailValue

        tail = TailValue(tail_path)
    layout = layout_of(new_game(variant, 2, seed=0).rules)
    width = layout.size + 52 + 2
    xs, ys, groups, picks, deals, decision = [], [], [], [], [], 0
    # rollouts to the hand's end also give each move's mean hand result (``y_won``)
    results: list | None = [] if tail is None else None
    for k, st, view, moves, scores, own in heuristic_line(variant, hands, seed, rng, player):
        if player is not None and st.current != player_seat(k):
            continue
        if stock is not None and len(st.stock_ids) != stock:
            continue
        if len(moves) > 1 and not perfect_information(view):
            order = top_candidates(scores, candidates)
            cands = [moves[i] for i in order]
            values = rollout_values(view, cands, rollouts, rng, tail, results, exact_last)
            cols = heuristic_columns(st, cands, [scores[i] for i in order])
            for m, v, c in zip(cands, values, cols):
                # (after a round's last move the row holds the next round's true cards, which
                # the labels average over: agents.afterstate, midgame_samples)
                row = afterstate_row(layout, play(st, m, deal_next=False), st.current,
                                     hidden=True)
                xs.append(np.r_[row, c].astype(np.float16))
                ys.append(v)
                groups.append(decision)
                picks.append(m is own)
                deals.append(k)
            decision += 1
    return _save_shard(dest, xs, ys, groups, picks, width, deals, scope=BEFORE_LAST,
                       candidates=candidates, won=results)


def collect(variant: str, hands: int, shards: int, seed: int, workers: int, run: Path,
            rollouts: int = ROLLOUTS, candidates: int = CANDIDATES,
            tail: Path | None = None, play: str | None = None,
            stock: int | None = None, exact_last: bool = False) -> None:
    """``shards`` shards of ``hands`` hands into ``run`` (those on disk are kept); ``tail``:
    rollouts stop at the next deal boundary and take this boundary value network's value;
    ``play``: an agent (``make_agent`` name) plays one seat against the heuristic and only
    its decisions are recorded (the positions it meets, valued as before); ``stock`` N: only
    the decisions made with N cards left in the stock are valued and recorded (one deal's,
    for a fraction of the rollouts; the random moves then differ from a full collection's);
    ``exact_last``: each rollout plays the hand's last deal exactly (two-player presets; not
    with ``tail``). A run of shards of other settings is refused
    (``endgame_net.record_collect``)."""
    from tqdm.auto import tqdm

    from agents.tournament import derive_seed

    if rollouts < 1 or candidates < 2:
        raise SystemExit(f"error: --rollouts must be >= 1 and --candidates >= 2, got "
                         f"{rollouts} and {candidates}")
    if stock is not None and stock < 1:
        raise SystemExit(f"error: --stock must be >= 1 (a deal before the last), got {stock}")
    if exact_last and tail is not None:
        raise SystemExit("error: --exact-last plays the rollouts' last deal, which a --tail "
                         "boundary value stops them before")
    if play is not None:
        from agents import make_agent

        try:  # a bad name fails here, before any worker starts
            make_agent(play)
        except ValueError as e:
            raise SystemExit(f"error: --play {play!r}: {e}") from None
    record_collect(run, {"variant": variant, "hands": hands, "seed": seed, "rollouts": rollouts,
                         "candidates": candidates, "tail": None if tail is None else str(tail),
                         "play": play, "stock": stock, "exact_last": exact_last})
    jobs = [(variant, hands, derive_seed("midgame_net", seed, k) % 10**6, shard_path(run, k),
             rollouts, candidates, None if tail is None else str(tail), play, stock, exact_last)
            for k in range(shards) if not shard_path(run, k).exists()]
    with mp.get_context("forkserver").Pool(workers) as pool:
        for _ in tqdm(pool.imap_unordered(collect_shard, jobs), total=len(jobs),
                      desc=f"{variant} shards"):
            pass


def label_noise(variant: str, hands: int, seed: int, settings: list[tuple[int, Path | None]],
                out: Path) -> list[dict]:
    """How noisy each labelling is: at every decision before the last deal of ``hands``
    hands of the heuristic against itself, the candidates are valued twice on independent
    deals; per setting (rollouts, boundary value or none), the mean over decisions of the
    variance of the two labellings' difference (each centered on its decision's mean, halved:
    one labelling's noise), the centered values' variance (signal and noise), and the time a
    decision takes. Writes ``OUT/noise.csv`` and ``noise.md``."""
    import time

    from agents.afterstate import top_candidates
    from agents.endgame import perfect_information
    from agents.scripted import HeuristicAgent
    from agents.tail_value import TailValue
    from experiments.bench_think import decisions

    heuristic = HeuristicAgent(0)
    views = [v for v in decisions(variant, hands, seed) if not perfect_information(v)]
    rows = []
    for rollouts, tail_path in settings:
        tail = None if tail_path is None else TailValue(tail_path)
        rng = random.Random(seed)
        noise, spread, t0 = [], [], time.perf_counter()
        for view in views:
            moves = view.legal_moves()
            scores = heuristic.scores(view, moves)
            cands = [moves[i] for i in top_candidates(scores, CANDIDATES)]
            a, b = (np.array(rollout_values(view, cands, rollouts, rng, tail))
                    for _ in range(2))
            a, b = a - a.mean(), b - b.mean()
            noise.append(float(((a - b) ** 2).mean() / 2))
            spread.append(float((((a + b) / 2) ** 2).mean()))
        rows.append({"rollouts": rollouts, "boundary_value": str(tail_path or ""),
                     "decisions": len(views), "noise_var": round(float(np.mean(noise)), 4),
                     "centered_var": round(float(np.mean(spread)), 4),
                     "ms_per_decision": round((time.perf_counter() - t0) / len(views) / 2
                                              * 1e3, 1)})
    write_rows(out / "noise.csv", rows)
    lines = [f"# Label noise of rollout values before the last deal ({variant}, {len(views):,} "
             f"decisions of {hands} hands, seed {seed})", "",
             "| rollouts | boundary value | noise variance (one labelling) | variance of the "
             "centered values | ms a decision |", "|---|---|---|---|---|"]
    lines += [f"| {r['rollouts']} | {r['boundary_value'] or 'none (to the hand end)'} "
              f"| {r['noise_var']:.4f} | {r['centered_var']:.4f} | {r['ms_per_decision']} |"
              for r in rows]
    (out / "noise.md").write_text("\n".join(lines) + "\n")
    return rows


def pipeline(variant: str, out: Path, runs: Path = Path("runs/midgame_net"),
             shards: int = 60, rollouts: int = 32, epochs: int = 6, hands: int = 2000,
             workers: int = 1, threads: int = 1, tail: Path | None = None,
             endgame: Path | None = None, shard_hands: int = 200, hidden: int = 64,
             lr_schedule: str = "cosine", keep_other: bool = False,
             net_name: str = "tail_net.pt", match_out: Path | None = None) -> dict:
    """One preset's network-alone agent end to end and resumable (each step skipped once its
    output is on disk): the boundary value (``experiments.tail_value build``; where the rules
    have none, ``agents.tail_value.tail_supported``, rollouts go to the hand's end) and the last
    deal's network (``experiments.endgame_net pipeline``) where not given and not yet made,
    the rollout-valued afterstates before the last deal (``collect``), their set network (a
    checkpoint each epoch), and the two networks (``make_agent("networks:V,...")``) against
    the heuristic by chunks. Returns the match's summary ({} where ``keep_other`` leaves a
    match of other agents in its folder: ``endgame_net.closing_match``). ``net_name``: the
    network's file in ``out``; ``match_out``: the match's folder (default
    ``out``/networks_v_heuristic), both for a network made before this pipeline named its."""
    from agents.networks import width_suffix
    from agents.tail_value import tail_supported
    from casino_env.engine import new_game
    from experiments import endgame_net, tail_value

    if tail is None and tail_supported(new_game(variant, 2, seed=0).rules):
        tail = tail_value.tail_path(variant)
        if not tail.is_file():
            print(f"[0/3] the boundary value into {tail} (experiments.tail_value build)",
                  flush=True)
            tail_value.build(variant)
    if tail is not None and not tail.is_file():
        raise SystemExit(f"error: no boundary value {tail} (experiments.tail_value makes one)")
    if endgame is None:
        made = pipeline_out("endgame_net", variant)
        endgame = made / "set_net.pt"
        if not endgame.is_file():
            print(f"[0/3] the last deal's network into {endgame} (experiments.endgame_net "
                  "pipeline)", flush=True)
            endgame_net.pipeline(variant, made, workers=workers, threads=threads,
                                 hidden=hidden, lr_schedule=lr_schedule)
    if not endgame.is_file():
        raise SystemExit(f"error: no last-deal network {endgame} (experiments.endgame_net "
                         "pipeline makes one)")
    run = runs / f"{variant}_tail"
    # named by the shard count (and a width other than 64): a refit on more shards, or wider,
    # in the same work folder resumes its own fit, never the earlier one's
    ckpt = runs / f"{variant}_tail_{shards}{width_suffix(hidden)}.ckpt"
    net = out / net_name
    # the shards only feed the fit: a fresh checkout need not remake them
    if endgame_net.fitted(net, shards, hidden):
        print(f"[1-2/3] {net} is there (delete it and {ckpt} to collect and fit again)",
              flush=True)
    else:
        endgame_net.unrecorded(net)
        to = tail or "the hand's end (no boundary value is defined for these rules)"
        print(f"[1/3] {shards} shards of {shard_hands} hands valued by {rollouts} rollouts "
              f"to {to} into {run}", flush=True)
        collect(variant, shard_hands, shards, 2, workers, run, rollouts, CANDIDATES, tail)
        print(f"[2/3] the set network into {net}", flush=True)
        endgame_net.fit_set_net(run, out, variant, epochs, net, ckpt, threads, hidden=hidden,
                                lr_schedule=lr_schedule)
    print(f"[3/3] the two networks against the heuristic, {hands:,} hands", flush=True)
    return endgame_net.closing_match(
        variant, f"networks:{variant},midgame_net={net},endgame_net={endgame}",
        match_out or out / "networks_v_heuristic", hands, workers, keep_other)


CURVE_FIELDS = ("shards", "train_decisions", "cpu_minutes", "heuristic_lost", "net_lost",
                "hands", "won", "won_lo", "won_hi", "points_per_hand", "match")


def curve(fits: Path, points: list[tuple[int, Path | None]], shard_minutes: float,
          out: Path) -> list[dict]:
    """The learning curve of networks before the last deal: for each (shards, match folder
    or None) of ``points``, the last row of ``fits`` (``endgame_net fit``'s fits.csv) fitted
    on that many shards, the CPU minutes it cost (``shard_minutes`` a shard collected, plus
    the fit's), its held-out points lost (and the heuristic's on the same decisions) and,
    where a ``long_match`` of the agent with it against the heuristic is given, the hands it
    won with their interval. Writes ``curve.csv`` and ``curve.png``."""
    import csv
    import json

    from experiments.curves import write_table

    by_shards = {int(r["shards"]): r for r in csv.DictReader(fits.open())}
    rows = []
    for shards, match in points:
        if shards not in by_shards:
            raise SystemExit(f"error: {fits} has no fit on {shards} shards (it has "
                             f"{', '.join(map(str, sorted(by_shards)))})")
        f = by_shards[shards]
        row = {"shards": shards, "train_decisions": int(f["train_decisions"]),
               "cpu_minutes": round(shards * shard_minutes + float(f["fit_minutes"]), 1),
               "heuristic_lost": float(f["heuristic_lost"]), "net_lost": float(f["net_lost"]),
               "hands": "", "won": "", "won_lo": "", "won_hi": "", "points_per_hand": "",
               "match": ""}
        if match is not None:
            summary = match / "summary.json"
            if not summary.is_file():
                raise SystemExit(f"error: no match summary {summary}")
            m = json.loads(summary.read_text())
            if m["opponent"] != "heuristic":
                raise SystemExit(f"error: {match} is a match against {m['opponent']}, not "
                                 "the heuristic")
            row.update(hands=m["hands"], won=m["win_rate"], won_lo=m["lo"], won_hi=m["hi"],
                       points_per_hand=m["diff_per_hand"], match=str(match))
        rows.append(row)
    rows.sort(key=lambda r: r["shards"])
    write_table(out, "curve", CURVE_FIELDS, rows, _plot_curve)
    return rows


def _plot_curve(rows: list[dict], path: Path) -> None:
    """Held-out points lost and hands won against the heuristic, over CPU minutes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [r["cpu_minutes"] for r in rows]
    fig, (lost, won) = plt.subplots(1, 2, figsize=(10, 4))
    lost.plot(x, [r["net_lost"] for r in rows], "o-", label="network")
    lost.plot(x, [r["heuristic_lost"] for r in rows], "--", color="grey", label="heuristic")
    lost.set(xlabel="CPU minutes (collection + fit)", ylabel="points lost a held-out decision",
             title="held-out decisions")
    lost.legend()
    played = [r for r in rows if r["hands"] != ""]
    px = [r["cpu_minutes"] for r in played]
    mid = [100 * r["won"] for r in played]
    won.errorbar(px, mid, yerr=[[m - 100 * r["won_lo"] for m, r in zip(mid, played)],
                                [100 * r["won_hi"] - m for m, r in zip(mid, played)]],
                 fmt="o-", capsize=3, label="networks alone v heuristic")
    for level, style in ((50, ":"), (55, "--")):
        won.axhline(level, color="grey", linestyle=style, linewidth=1)
    won.set(xlabel="CPU minutes (collection + fit)", ylabel="hands won (%), 95% CI",
            title="in play")
    won.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m experiments.midgame_net",
                                 description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="rollout-valued afterstates before the last deal")
    c.add_argument("--variant", default="casino")
    c.add_argument("--hands", type=int, default=200, help="hands a shard (default 200)")
    c.add_argument("--shards", type=int, default=8)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--workers", type=int, default=1)
    c.add_argument("--rollouts", type=int, default=ROLLOUTS,
                   help=f"deals of the unseen cards a decision (default {ROLLOUTS})")
    c.add_argument("--candidates", type=int, default=CANDIDATES,
                   help=f"the heuristic's best moves valued (default {CANDIDATES})")
    c.add_argument("--tail", type=Path, default=None, metavar="PATH",
                   help="a boundary value network (experiments.tail_value): each rollout "
                        "stops at the next deal boundary and takes its value")
    c.add_argument("--play", default=None, metavar="AGENT",
                   help="an agent (e.g. networks:tuxedo) plays one seat of each hand against "
                        "the heuristic; only its decisions are recorded (the positions it "
                        "meets; the rollouts still play the heuristic)")
    c.add_argument("--stock", type=int, default=None, metavar="N",
                   help="value and record only the decisions made with N cards left in the "
                        "stock (one deal before the last)")
    c.add_argument("--exact-last", action="store_true",
                   help="each rollout plays the hand's last deal exactly (the solver on its "
                        "deal of the cards) instead of by the rollout policy")
    c.add_argument("--run", type=Path, required=True)
    n = sub.add_parser("noise", help="how noisy each labelling is (noise.csv, noise.md)")
    n.add_argument("--variant", default="casino")
    n.add_argument("--hands", type=int, default=12)
    n.add_argument("--seed", type=int, default=3)
    n.add_argument("--tail", type=Path, default=None, metavar="PATH")
    n.add_argument("--rollouts", type=int, nargs="+", default=[16, 64], metavar="N",
                   help="with the boundary value (the first also without it)")
    n.add_argument("--out", type=Path, required=True)
    q = pipeline_parser(sub, "one preset's network-alone agent end to end: boundary value, "
                        "last-deal network, collect, fit, play (resumable)", "midgame_net")
    q.add_argument("--shards", type=int, default=60, help="of 200 hands (default 60)")
    q.add_argument("--rollouts", type=int, default=32)
    q.add_argument("--tail", type=Path, default=None, metavar="PATH",
                   help="the boundary value (default experiments/results/exit/"
                        "tail_value_<variant>/tail.npz, made if missing)")
    q.add_argument("--endgame-net", type=Path, default=None, metavar="PATH",
                   help="the last deal's network (default experiments/results/exit/"
                        "endgame_net_<variant>_pipeline/set_net.pt, made if missing)")
    cv = sub.add_parser("curve", help="learning curve of fits on more shards (curve.csv, "
                        "curve.png)")
    cv.add_argument("--fits", type=Path, required=True, help="endgame_net fit's fits.csv")
    cv.add_argument("--points", nargs="+", required=True, metavar="SHARDS[=MATCH]",
                    help="the fits on SHARDS shards, each with its long_match against the "
                         "heuristic where given")
    cv.add_argument("--shard-minutes", type=float, required=True,
                    help="CPU minutes a shard took to collect")
    cv.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.cmd == "curve":
        pts = []
        for p in args.points:
            shards, eq, match = p.partition("=")
            if not shards.isdigit():
                ap.error(f"--points: expected SHARDS or SHARDS=MATCH, got {p!r}")
            pts.append((int(shards), Path(match) if eq else None))
        for row in curve(args.fits, pts, args.shard_minutes, args.out):
            print(row)
        return
    if args.cmd == "pipeline":
        out = args.out or pipeline_out("midgame_net", args.variant)
        pipeline(args.variant, out, args.runs, args.shards, args.rollouts, args.epochs,
                 args.hands, args.workers, args.threads, args.tail, args.endgame_net,
                 hidden=args.hidden, lr_schedule=args.lr_schedule)
        return
    if args.cmd == "noise":
        settings = [(args.rollouts[0], None)] + \
            ([(r, args.tail) for r in args.rollouts] if args.tail else [])
        for r in label_noise(args.variant, args.hands, args.seed, settings, args.out):
            print(r)
        return
    if args.tail is not None and not args.tail.is_file():
        raise SystemExit(f"error: --tail {args.tail}: no such file")
    collect(args.variant, args.hands, args.shards, args.seed, args.workers, args.run,
            args.rollouts, args.candidates, args.tail, args.play, args.stock, args.exact_last)


if __name__ == "__main__":
    main()
