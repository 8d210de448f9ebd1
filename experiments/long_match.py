"""A long duplicate-deal match that survives interruptions: two agents, thousands of single
hands (issue 18's targets are on 5,000), played in chunks that are saved as they finish.

    python -m experiments.long_match --variant casino \\
        --agents search:guide=runs/exit/exit_casino_s0/it1/model.zip search \\
        --hands 5000 --seed 7 --workers 2 --out runs/long/guided_v_search

Each chunk is ``--chunk`` hands (half as many deals, each played from both seats) with its own
seed derived from ``--seed`` and the chunk's number, so the match is the same however often it
is stopped and rerun (the same command resumes: finished chunks are read back, the others
played). ``--out`` gets ``chunks.jsonl`` (one line per finished chunk: its games), and after
every chunk ``summary.json`` and ``summary.md``: hands won by the first agent (draws half)
with the 95% interval over deals, points per hand with its bootstrap interval, and each
agent's thinking seconds per hand (experiments.stats.summarize_pair). A rerun with other
agents, variant, chunk size or seed in the same folder is refused.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

FIELDS = ("variant", "players", "agents", "hands", "chunk", "seed")


def _play_chunk(job: tuple) -> tuple[int, list[dict]]:
    """Play chunk ``i``: its deals numbered after those of the chunks before it."""
    i, agents, variant, players, chunk, seed = job
    import torch

    from agents.tournament import derive_seed, play_match

    torch.set_num_threads(1)
    deals = chunk // 2
    res = play_match(list(agents), variant, players, deals, derive_seed("long", seed, i),
                     mode="hand")
    rows = []
    for g in res.records:
        row = asdict(g)
        row["deal"] = i * deals + g.deal
        rows.append(row)
    return i, rows


def load_chunks(path: Path) -> dict[int, list[dict]]:
    """The finished chunks of ``chunks.jsonl`` (a line cut short by an interruption is
    ignored: its chunk is played again)."""
    done: dict[int, list[dict]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            done[int(rec["chunk"])] = rec["games"]
    return done


def summarize(settings: dict, chunks: dict[int, list[dict]]) -> dict:
    """The pair summary of the games of ``chunks`` (first agent over second)."""
    from agents.tournament import GameRecord, MatchResult
    from experiments.stats import summarize_pair

    a, b = settings["agents"]
    labels = [a, b] if a != b else [f"{a}#0", f"{b}#1"]
    res = MatchResult(labels, settings["variant"], settings["players"], "hand",
                      settings["seed"])
    for i in sorted(chunks):
        for g in chunks[i]:
            g = dict(g)
            for key in ("seats", "scores", "decision_seconds"):
                g[key] = tuple(g[key])
            g["points"] = [tuple(p) for p in g["points"]]
            res.records.append(GameRecord(**g))
    s = summarize_pair(res)
    return {"agent": a, "opponent": b, "variant": settings["variant"],
            "chunks_done": len(chunks), "chunks": settings["hands"] // settings["chunk"],
            "hands": s.hands, "deals": s.deals, "win_rate": s.win_rate, "lo": s.win_lo,
            "hi": s.win_hi, "diff_per_hand": s.diff_per_hand, "diff_lo": s.diff_lo,
            "diff_hi": s.diff_hi, "think_seconds_per_hand": [s.think_a, s.think_b],
            "think_ratio": [s.think_ratio, s.think_ratio_lo, s.think_ratio_hi]}


def think_ratio_text(summary: dict) -> str:
    """"1.009 [1.002, 1.016]", or "–" for a summary written before the ratio was kept."""
    r = summary.get("think_ratio")
    return f"{r[0]:.3f} [{r[1]:.3f}, {r[2]:.3f}]" if r else "–"


def write_summary(out: Path, summary: dict) -> None:
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    s = summary
    done = "" if s["chunks_done"] == s["chunks"] else \
        f" (so far: {s['chunks_done']} of {s['chunks']} chunks)"
    md = [f"# {s['agent']} v {s['opponent']}, {s['variant']}{done}", "",
          "Single hands on duplicate deals (each deal from both seats); hands won count draws "
          "as half, 95% interval over deals; points per hand: bootstrap interval over deals.",
          "", "| hands | won [95% CI] | points/hand [95% CI] | think s/hand (first, second) "
          "| first's thinking time / second's [95% CI] |",
          "|---|---|---|---|---|",
          f"| {s['hands']:,} | {s['win_rate']:.1%} [{s['lo']:.1%}, {s['hi']:.1%}] | "
          f"{s['diff_per_hand']:+.2f} [{s['diff_lo']:+.2f}, {s['diff_hi']:+.2f}] | "
          f"{s['think_seconds_per_hand'][0]:.2f}, {s['think_seconds_per_hand'][1]:.2f} | "
          f"{think_ratio_text(s)} |"]
    (out / "summary.md").write_text("\n".join(md) + "\n")


def run(settings: dict, out: Path, workers: int = 1, progress: bool = True) -> dict:
    """Play (or finish) the match of ``settings`` in ``out``; returns its summary."""
    out.mkdir(parents=True, exist_ok=True)
    saved = out / "match.json"
    if saved.exists():
        before = json.loads(saved.read_text())
        if before != settings:
            diff = [k for k in FIELDS if before.get(k) != settings.get(k)]
            if diff == ["hands"] and settings["hands"] > before["hands"]:
                pass  # a longer match: its first chunks are the shorter one's
            else:
                raise ValueError(f"{out} holds another match ({', '.join(diff)} differ: "
                                 f"{saved}); give the same settings or another --out")
    saved.write_text(json.dumps(settings, indent=2) + "\n")
    path = out / "chunks.jsonl"
    if path.exists():  # drop a line cut short by an interruption before appending to it
        text = path.read_text()
        if text and not text.endswith("\n"):
            path.write_text(text[:text.rfind("\n") + 1])
    done = load_chunks(path)
    n_chunks = settings["hands"] // settings["chunk"]
    todo = [i for i in range(n_chunks) if i not in done]
    jobs = [(i, tuple(settings["agents"]), settings["variant"], settings["players"],
             settings["chunk"], settings["seed"]) for i in todo]
    bar = None
    if progress and todo:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_chunks, initial=n_chunks - len(todo), unit="chunk",
                   desc=" v ".join(settings["agents"]))

    def record(i: int, games: list[dict]) -> None:
        with path.open("a") as f:
            f.write(json.dumps({"chunk": i, "games": games}) + "\n")
        done[i] = games
        write_summary(out, summarize(settings, done))
        if bar is not None:
            bar.update(1)

    if workers > 1 and len(jobs) > 1:
        with mp.get_context("forkserver").Pool(min(workers, len(jobs))) as pool:
            for i, games in pool.imap(_play_chunk, jobs):  # in order: the same file each run
                record(i, games)
    else:
        for job in jobs:
            record(*_play_chunk(job))
    if bar is not None:
        bar.close()
    summary = summarize(settings, {i: done[i] for i in range(n_chunks)})
    write_summary(out, summary)
    return summary


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m experiments.long_match",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", default="casino")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--agents", nargs=2, required=True, metavar="SPEC",
                   help="the agent measured and its opponent (make_agent specs)")
    p.add_argument("--hands", type=int, default=5000, help="single hands in all (default 5000)")
    p.add_argument("--chunk", type=int, default=100,
                   help="hands a saved chunk (even; default 100)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1, help="processes playing chunks")
    p.add_argument("--out", required=True, help="folder of the match (resumable)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    a = parse_args(argv)
    if a.chunk < 2 or a.chunk % 2:
        print(f"error: --chunk must be an even number of hands >= 2, got {a.chunk}",
              file=sys.stderr)
        return 2
    if a.hands < a.chunk or a.hands % a.chunk:
        print(f"error: --hands ({a.hands}) must be a whole number of chunks of {a.chunk}",
              file=sys.stderr)
        return 2
    settings = {"variant": a.variant, "players": a.players, "agents": list(a.agents),
                "hands": a.hands, "chunk": a.chunk, "seed": a.seed}
    try:
        s = run(settings, Path(a.out), a.workers, progress=not a.quiet)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{s['agent']} v {s['opponent']}: {s['win_rate']:.1%} [{s['lo']:.1%}, {s['hi']:.1%}] "
          f"of {s['hands']:,} hands, {s['diff_per_hand']:+.2f} points/hand; {a.out}/summary.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
