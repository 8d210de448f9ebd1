"""Evaluate agents: duplicate-deal tournaments with confidence intervals, ratings and plots,
and the benchmark protocol.

Examples::

    python -m experiments.evaluate --variant royal --agents heuristic greedy --games 200
    python -m experiments.evaluate --ladder --variant casino royal dominican --games 200 \\
        --seed 0 --out experiments/results/ladder
    python -m experiments.evaluate --protocol v1 --agent ppo:PATH [--variant casino] [--quick]

``--games`` counts games: each deal is played once per seat rotation (twice for two agents),
so 200 games are 100 duplicate deals. ``--ladder`` plays greedy v random, heuristic v greedy
and search v heuristic (the pairs of random < greedy < heuristic < search) on every variant.
Writes ``games.csv`` (one row per game), ``summary.csv`` and ``summary.md`` (win rates and
mean point difference per hand with 95% intervals, ratings), ``meta.json`` and ``summary.png``
into ``--out`` (default ``runs/evaluate/<variants>_<agents>`` or ``runs/evaluate/ladder``,
git-ignored; the committed ladder was written with ``--out experiments/results/ladder``).

``--protocol v1 --agent SPEC`` puts one agent through the fixed benchmark protocol
(``experiments/protocols/v1.json``: opponents, duplicate deals and seeds per 2-player preset;
docs/protocol.md) and writes the standard table (``results.csv``, ``results.md``,
``results.json`` with the protocol's version and hash, and ``games.csv``) into ``--out``
(default ``runs/protocol/<agent>_<version>``, git-ignored). Presets the agent cannot play (a
policy trained on another preset) are skipped with a message. ``--quick`` plays a tenth of the
deals, for smoke tests: its numbers are marked ``<version>-quick`` and are not the protocol's.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import platform
import time
from collections.abc import Sequence
from pathlib import Path

from agents.tournament import MatchResult, play_match
from experiments.stats import PairSummary, error_bars, ratings, summarize_pair

LADDER = (("greedy", "random"), ("heuristic", "greedy"), ("search", "heuristic"))
DEFAULT_OUT = Path("runs/evaluate")


def run_matchups(matchups: Sequence[Sequence[str]], variants: Sequence[str], games: int,
                 seed: int = 0, players: int = 2, mode: str = "game", max_hands: int = 60,
                 progress: bool = True, switches: dict | None = None,
                 games_for: dict | None = None) -> list[MatchResult]:
    """Play every matchup on every variant; ``games_for`` may override ``games`` per matchup
    (keyed by the matchup's ``" v ".join``)."""
    results = []
    for variant in variants:
        for agents in matchups:
            n = (games_for or {}).get(" v ".join(agents), games)
            rotations = len(agents)
            deals = max(1, math.ceil(n / rotations))
            res = play_match(list(agents), variant, players, deals=deals, seed=seed, mode=mode,
                             max_hands=max_hands, progress=progress, **(switches or {}))
            results.append(res)
            if progress:
                s = summarize_pair(res)
                print(f"{variant:10s} {s.a} v {s.b}: win {s.win_rate:.3f} "
                      f"[{s.win_lo:.3f}, {s.win_hi:.3f}]  diff/hand {s.diff_per_hand:+.2f} "
                      f"[{s.diff_lo:+.2f}, {s.diff_hi:+.2f}]  {res.seconds:.0f}s", flush=True)
    return results


def write_games_csv(results: Sequence[MatchResult], path: Path) -> None:
    """One row per game."""
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["variant", "mode", "matchup", "deal", "rotation", "seed", "seats", "winner",
                    "hands", "points_a", "points_b", "score_a", "score_b", "moves", "seconds"])
        for res in results:
            matchup = " v ".join(res.labels)
            for g in res.records:
                w.writerow([
                    res.variant, res.mode, matchup, g.deal, g.rotation, g.seed,
                    " ".join(res.labels[i] for i in g.seats),
                    "" if g.winner is None else res.labels[g.winner], g.hands,
                    sum(p[0] for p in g.points), sum(p[1] for p in g.points) if len(
                        res.labels) > 1 else "",
                    g.scores[0], g.scores[1] if len(g.scores) > 1 else "", g.moves,
                    f"{g.seconds:.4f}"])


def write_summary(summaries: Sequence[PairSummary], rating_rows: Sequence[dict], out: Path,
                  meta: dict) -> None:
    """summary.csv, summary.md and meta.json."""
    rows = [s.row() for s in summaries]
    with (out / "summary.csv").open("w", newline="") as f:
        if rows:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            for r in rows:
                w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    (out / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    (out / "summary.md").write_text(markdown(summaries, rating_rows, meta))


def markdown(summaries: Sequence[PairSummary], rating_rows: Sequence[dict], meta: dict) -> str:
    """The results as markdown tables."""
    lines = [
        f"# Agent evaluation ({meta.get('mode', 'game')}s, seed {meta.get('seed')})",
        "",
        "Duplicate deals: every deal is played once per seat rotation; intervals are 95% and "
        "use the deal as the unit (win rate: t interval over deals; point difference per hand:"
        " bootstrap over deals). Wilson: interval over single games, for reference.",
        "",
        "| variant | A v B | games | A wins | win rate A [95% CI] | Wilson | "
        "points/hand A-B [95% CI] | s/hand A | s/hand B | time A/B [95% CI] |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries:
        lines.append(
            f"| {s.variant} | {s.a} v {s.b} | {s.games} | {s.wins} | "
            f"{s.win_rate:.1%} [{s.win_lo:.1%}, {s.win_hi:.1%}] | "
            f"[{s.wilson_lo:.1%}, {s.wilson_hi:.1%}] | "
            f"{s.diff_per_hand:+.2f} [{s.diff_lo:+.2f}, {s.diff_hi:+.2f}] | "
            f"{s.think_a:.3f} | {s.think_b:.3f} | {s.think_ratio:.3f} "
            f"[{s.think_ratio_lo:.3f}, {s.think_ratio_hi:.3f}] |")
    if rating_rows:
        lines += ["", "## Ratings (all games above)", "",
                  "| agent | system | mu | sigma | ordinal | games |", "|---|---|---|---|---|---|"]
        for r in rating_rows:
            sig = "" if math.isnan(r["sigma"]) else f"{r['sigma']:.2f}"
            lines.append(f"| {r['agent']} | {r['system']} | {r['mu']:.2f} | {sig} | "
                         f"{r['ordinal']:.2f} | {r['games']} |")
    lines += ["", f"Total time {meta.get('seconds', 0):.0f} s on {meta.get('machine', '')}.", ""]
    return "\n".join(lines)


def plot(summaries: Sequence[PairSummary], path: Path) -> None:
    """Win rate and point difference per hand with their 95% intervals, one bar per matchup."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{s.variant}\n{s.a} v {s.b}" for s in summaries]
    x = range(len(summaries))
    fig, axes = plt.subplots(1, 2, figsize=(max(6.0, 1.3 * len(summaries) + 3), 4.2))
    ax = axes[0]
    wr = [s.win_rate for s in summaries]
    ax.bar(x, wr, color="#4c72b0",
           yerr=error_bars(wr, [s.win_lo for s in summaries], [s.win_hi for s in summaries]),
           capsize=4)
    ax.axhline(0.5, color="grey", lw=1, ls="--")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("win rate of A (95% CI)")
    ax.set_xticks(list(x), labels, fontsize=7, rotation=45, ha="right")
    ax = axes[1]
    d = [s.diff_per_hand for s in summaries]
    ax.bar(x, d, color="#dd8452",
           yerr=error_bars(d, [s.diff_lo for s in summaries], [s.diff_hi for s in summaries]),
           capsize=4)
    ax.axhline(0, color="grey", lw=1)
    ax.set_ylabel("points per hand, A - B (95% CI)")
    ax.set_xticks(list(x), labels, fontsize=7, rotation=45, ha="right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def evaluate(matchups: Sequence[Sequence[str]], variants: Sequence[str], games: int,
             out: Path, seed: int = 0, players: int = 2, mode: str = "game",
             max_hands: int = 60, progress: bool = True, switches: dict | None = None,
             games_for: dict | None = None) -> list[PairSummary]:
    """Run the tournaments and write every output file into ``out``; the pair summaries."""
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    version = _git_version()
    results = run_matchups(matchups, variants, games, seed, players, mode, max_hands, progress,
                           switches, games_for)
    summaries = [summarize_pair(r) for r in results]
    meta = {"matchups": [list(m) for m in matchups], "variants": list(variants),
            "games": games, "games_for": games_for or {}, "seed": seed, "players": players,
            "mode": mode, "max_hands": max_hands, "switches": switches or {},
            "seconds": time.perf_counter() - t0, "version": version,
            "machine": f"{platform.machine()} python {platform.python_version()}"}
    write_games_csv(results, out / "games.csv")
    write_summary(summaries, ratings(results), out, meta)
    plot(summaries, out / "summary.png")
    return summaries


def _git_version() -> str:
    """The repository's commit (with "+dirty" when the work tree has changes), if known."""
    import subprocess

    try:
        root = Path(__file__).resolve().parent.parent
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root,
                                capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=root, capture_output=True, text=True,
                               timeout=10).stdout.strip()
        return commit + ("+dirty" if dirty else "") if commit else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def _switch(text: str) -> tuple[str, object]:
    key, eq, val = text.partition("=")
    if not eq:
        raise argparse.ArgumentTypeError(f"expected name=value, got {text!r}")
    low = val.lower()
    if low in ("true", "false"):
        return key, low == "true"
    try:
        return key, int(val)
    except ValueError:
        return key, val


# Tournament options the protocol fixes, with their defaults when no protocol is given.
TOURNAMENT_DEFAULTS = {"variants": ["casino"], "games": 200, "seed": 0, "players": 2,
                       "mode": "game", "max_hands": 60}


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line: ``--agents A B`` (two or more) or ``--ladder`` for a tournament, or
    ``--protocol VERSION --agent SPEC`` for the benchmark protocol; mixing them, or giving an
    option the protocol fixes (--games, --seed, ...), is an error that says so."""
    p = argparse.ArgumentParser(prog="python -m experiments.evaluate", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", "--variants", nargs="+", default=None, dest="variants",
                   help="preset(s) to play (default casino; with --protocol, all of its "
                        "presets)")
    p.add_argument("--agents", nargs="+", default=None,
                   help="agent specs, e.g. heuristic greedy or search:simulations=400")
    p.add_argument("--ladder", action="store_true",
                   help="play greedy v random, heuristic v greedy, search v heuristic")
    p.add_argument("--protocol", default=None, metavar="VERSION",
                   help="run the benchmark protocol VERSION (e.g. v1, or a protocol .json "
                        "file) for the agent of --agent")
    p.add_argument("--agent", default=None, metavar="SPEC",
                   help="with --protocol: the agent to evaluate (any make_agent name, e.g. "
                        "ppo:PATH, search:simulations=400, openspiel-ismcts)")
    p.add_argument("--quick", action="store_true",
                   help="with --protocol: a tenth of the deals, for smoke tests (marked "
                        "<version>-quick, never the protocol's numbers)")
    p.add_argument("--opponents", nargs="+", default=None,
                   help="with --protocol: only these of its opponents (default all)")
    p.add_argument("--workers", type=int, default=1,
                   help="with --protocol: play sets of deals in this many processes "
                        "(same numbers; default 1)")
    p.add_argument("--games", type=int, default=None,
                   help="games per matchup and variant (default 200)")
    p.add_argument("--games-for", nargs="*", default=[], metavar="'A v B=N'",
                   help="override --games for a matchup, e.g. 'search v heuristic=300'")
    p.add_argument("--seed", type=int, default=None, help="tournament seed (default 0)")
    p.add_argument("--players", type=int, default=None, help="players (default 2)")
    p.add_argument("--mode", choices=("game", "hand"), default=None,
                   help="play whole games to the target, or single hands (default game)")
    p.add_argument("--max-hands", type=int, default=None,
                   help="a game stops (drawn) after this many hands (default 60)")
    p.add_argument("--switch", action="append", type=_switch, default=[], metavar="NAME=VALUE",
                   help="rule switch, repeatable (e.g. sweeps=true)")
    p.add_argument("--out", type=Path, default=None,
                   help=f"output dir (default {DEFAULT_OUT}/<variants>_<agents>, or "
                        f"{DEFAULT_OUT}/ladder, or runs/protocol/<agent>_<version>; "
                        "git-ignored)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    a = p.parse_args(argv)
    if a.protocol is not None:
        _check_protocol_args(p, a)
        return a
    for flag, value in (("--agent", a.agent), ("--quick", a.quick or None),
                        ("--opponents", a.opponents)):
        if value is not None:
            p.error(f"{flag} goes with --protocol VERSION (e.g. --protocol v1 --agent SPEC); "
                    "to play agents against each other give --agents A B")
    if a.workers != 1:
        p.error("--workers goes with --protocol")
    for key, default in TOURNAMENT_DEFAULTS.items():
        if getattr(a, key) is None:
            setattr(a, key, list(default) if isinstance(default, list) else default)
    if not a.ladder and not (a.agents and len(a.agents) >= 2):
        p.error("give --agents A B (two or more) or --ladder")
    for flag, value in (("--games", a.games), ("--max-hands", a.max_hands)):
        if value < 1:
            p.error(f"{flag} must be at least 1, got {value}")
    counts = {}  # --games-for read once: matchup ("A v B") -> games
    for item in a.games_for:
        key, _, n = item.rpartition("=")
        if not key or not n.strip().isdigit() or int(n) < 1:
            p.error(f"--games-for {item!r}: expected 'A v B=N' with N a whole number >= 1")
        counts[" v ".join(k.strip() for k in key.split(" v "))] = int(n)
    a.games_for = counts
    if not a.ladder and a.players % len(a.agents):
        p.error(f"{len(a.agents)} agents cannot share {a.players} seats evenly (each deal is "
                "played once per seat rotation): give as many agents as --players, or a divisor "
                "of it, and play other pairs in their own runs")
    return a


def _check_protocol_args(p: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    """``--protocol`` evaluates one agent on what the protocol fixes: refuse the tournament
    options and name the protocol's own way; load the protocol (unknown version: error)."""
    if a.agents is not None:
        p.error("--protocol evaluates one agent against the protocol's opponents: give "
                "--agent SPEC, not --agents")
    if a.ladder:
        p.error("--protocol and --ladder are different runs: give one of them")
    if not a.agent:
        p.error("--protocol needs the agent to evaluate: --agent SPEC (e.g. --agent "
                "ppo:experiments/results/train/casino/model.zip)")
    fixed = {"--games": a.games, "--seed": a.seed, "--players": a.players, "--mode": a.mode,
             "--max-hands": a.max_hands, "--switch": a.switch or None,
             "--games-for": a.games_for or None}
    given = [flag for flag, value in fixed.items() if value is not None]
    if given:
        p.error(f"{', '.join(given)}: fixed by the protocol (its deals, seeds, players and "
                "modes), not options of a protocol run; --variant and --opponents choose "
                "among its presets and opponents")
    if a.workers < 1:
        p.error(f"--workers must be >= 1, got {a.workers}")
    from experiments.protocol import load_protocol

    try:
        a.protocol_def = load_protocol(a.protocol)
    except ValueError as e:
        p.error(str(e))
    for flag, chosen, known in (("--variant", a.variants, a.protocol_def.presets),
                                ("--opponents", a.opponents, a.protocol_def.opponents)):
        bad = [x for x in chosen or [] if x not in known]
        if bad:
            p.error(f"{flag} {' '.join(bad)}: not in protocol {a.protocol_def.version} "
                    f"(it has: {', '.join(known)})")


def matchups_of(a: argparse.Namespace) -> list[list[str]]:
    """The matchups the command line asks for: the ladder's, or the one of ``--agents``."""
    return [list(m) for m in LADDER] if a.ladder else [list(a.agents)]


def out_dir(a: argparse.Namespace) -> Path:
    """``--out``, or a folder under ``runs/evaluate`` named after the variants and agents
    (``runs/protocol/<agent>_<version>`` for a protocol run)."""
    if a.out is not None:
        return a.out
    if a.protocol is not None:
        from experiments.protocol import default_out

        return default_out(a.agent, a.protocol_def.version + ("-quick" if a.quick else ""))
    return DEFAULT_OUT / ("ladder" if a.ladder else "_".join(a.variants + matchups_of(a)[0]))


def check_tournament(matchups: Sequence[Sequence[str]], variants: Sequence[str], players: int,
                     switches: dict) -> None:
    """ValueError naming the first thing a tournament cannot play: an unknown variant or
    switch, a player count the rules refuse, partners holding different agents, an unknown
    agent or option, or an agent that refuses the game (a policy trained on another)."""
    from agents import make_agent
    from agents.tournament import check_sides, lineups
    from casino_env.engine.rules import make_rules

    for variant in variants:
        rules = make_rules(variant, players, None, switches)
        for m in matchups:  # partners must be one agent: a side's wins go to its agent
            check_sides(lineups(len(m), players), rules)
        for spec in dict.fromkeys(s for m in matchups for s in m):  # (in the given order)
            check = getattr(make_agent(spec), "check_rules", None)
            if callable(check):
                check(rules)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the tournaments of the command line and print the summary."""
    import sys

    a = parse_args(argv)
    if a.protocol is not None:
        return protocol_main(a)
    matchups = matchups_of(a)
    try:  # an unknown agent, variant or switch, or a table the rules refuse: named, status 2
        check_tournament(matchups, a.variants, a.players, dict(a.switch))
    except ValueError as e:
        print(f"python -m experiments.evaluate: error: {e}", file=sys.stderr)
        return 2
    out = out_dir(a)
    summaries = evaluate(matchups, a.variants, a.games, out, a.seed, a.players, a.mode,
                         a.max_hands, not a.quiet, dict(a.switch), a.games_for)
    print((out / "summary.md").read_text())
    print(f"results in {out} (games.csv, summary.csv, summary.md, meta.json, summary.png)")
    return 0 if summaries else 1


def protocol_main(a: argparse.Namespace) -> int:
    """Run the benchmark protocol of the command line, print the table and where it wrote;
    a bad agent spec, or an agent that can play none of the presets, is an error (status 2)."""
    import sys

    from experiments.protocol import markdown as protocol_markdown
    from experiments.protocol import run_protocol, write_outputs

    try:
        run = run_protocol(a.protocol_def, a.agent, a.variants, a.opponents, quick=a.quick,
                           workers=a.workers, progress=not a.quiet)
    except ValueError as e:
        print(f"python -m experiments.evaluate: error: {e}", file=sys.stderr)
        return 2
    out = out_dir(a)
    write_outputs(run, out)
    print(protocol_markdown(run))
    print(f"results in {out} (results.csv, results.md, results.json, games.csv)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
