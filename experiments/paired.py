"""Two long matches against the same opponent on the same deals, compared deal by deal.

    python -m experiments.paired experiments/results/exit/tail1600_endgame_v_search_casino \\
        experiments/results/exit/guided_endgame_v_search_casino

``experiments.long_match`` derives each chunk's deals from its seed and number alone, so two
matches with the same variant, seed and chunk size play the same deals. On the deals both have
finished, each deal's hands won and point difference (the first agent's, averaged over the
deal's two seatings) are paired, and the difference of the two agents' means gets a Student-t
interval over deals: far narrower than comparing two independent intervals, since a deal's
luck is shared.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from experiments.long_match import load_chunks
from experiments.stats import points_sign, t_interval


def per_deal(games: list[dict], sign: int = 1) -> dict[int, tuple[float, float]]:
    """deal -> (hands won, points a hand over the opponent) of agent 0, averaged over the
    deal's seatings (a draw counts half). ``sign`` -1: a penalty game (krypkasino), where the
    points over the opponent are theirs minus agent 0's, as ``stats.summarize_pair`` has it."""
    acc: dict[int, list[tuple[float, float]]] = {}
    for g in games:  # winner and points are per agent (agents.tournament.GameRecord)
        pts = sign * sum(p[0] - p[1] for p in g["points"]) / max(1, g["hands"])
        won = 0.5 if g["winner"] is None else float(g["winner"] == 0)
        acc.setdefault(g["deal"], []).append((won, pts))
    return {d: (sum(w for w, _ in v) / len(v), sum(p for _, p in v) / len(v))
            for d, v in acc.items()}


def compare(a: Path, b: Path) -> dict:
    """The paired comparison of match folders ``a`` and ``b`` on their shared deals
    (ValueError if they are not the same deals against the same opponent)."""
    sa, sb = (json.loads((p / "match.json").read_text()) for p in (a, b))
    for key in ("variant", "players", "seed", "chunk"):
        if sa[key] != sb[key]:
            raise ValueError(f"{a} and {b} differ in {key} ({sa[key]!r} v {sb[key]!r}): "
                             "not the same deals")
    if sa["agents"][1] != sb["agents"][1]:
        raise ValueError(f"{a} and {b} have different opponents ({sa['agents'][1]!r} v "
                         f"{sb['agents'][1]!r})")
    sign = points_sign(sa["variant"])
    da, db = ({d: v for games in load_chunks(p / "chunks.jsonl").values()
               for d, v in per_deal(games, sign).items()} for p in (a, b))
    shared = sorted(set(da) & set(db))
    if not shared:
        raise ValueError(f"{a} and {b} have no finished deal in common")
    out = {"a": sa["agents"][0], "b": sb["agents"][0], "opponent": sa["agents"][1],
           "variant": sa["variant"], "deals": len(shared)}
    for k, name in ((0, "won"), (1, "points")):
        for tag, d in (("a", da), ("b", db)):
            out[f"{tag}_{name}"] = t_interval([d[x][k] for x in shared])[0]
        m, lo, hi = t_interval([da[x][k] - db[x][k] for x in shared])
        out[f"diff_{name}"], out[f"diff_{name}_lo"], out[f"diff_{name}_hi"] = m, lo, hi
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("a", type=Path, help="a long_match folder")
    p.add_argument("b", type=Path, help="another, on the same deals against the same opponent")
    p.add_argument("--out", type=Path, help="write the comparison here as JSON too")
    args = p.parse_args(argv)
    try:
        res = compare(args.a, args.b)
    except (ValueError, FileNotFoundError) as e:
        print(f"paired: {e}", file=sys.stderr)
        return 2
    text = json.dumps(res, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
