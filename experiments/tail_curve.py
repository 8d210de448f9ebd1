"""The boundary value's learning curve in play: hands won by the search on networks fitted on
more and more data, against one fixed opponent, over the CPU time of collecting and fitting.

    python -m experiments.tail_curve --run runs/tail_value/casino --shards 1 4 18 \\
        --reference experiments/results/exit/tail1600_endgame_v_endgame240_casino \\
        --hands 500 --out experiments/results/exit/tail_value_casino/play_curve

``--reference`` is a finished or running ``experiments.long_match`` folder whose first agent
is a ``search:tail=PATH,...`` spec: each network plays that agent's spec with its own
``tail=``, against the same opponent, on the same deals (the same seed and chunk size), for the
first ``--hands`` hands. Networks are fitted as ``experiments.tail_value curve`` fits them (the
first N training shards of ``--run``, the same held-out shards, settings and seed) into
``RUN/curve_nets``. A network equal, weight for weight, to the reference's own file is not
played again: its row is the reference match's first ``--hands`` hands. Each network's match
is a ``long_match`` folder ``OUT/shards_N`` (resumable: rerun the command). ``play_curve.csv``
and ``play_curve.png`` get, per network, hands won with the 95% interval over deals, points a
hand, the thinking-time ratio, and the hands-won difference from the network on the most
shards, paired deal by deal. The rows are rebuilt from every ``shards_N`` folder in ``OUT``,
so several processes may each play one ``--shards`` value.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from experiments.curves import Metric, plot_steps_and_minutes, write_table
from experiments.long_match import load_chunks, run, summarize
from experiments.paired import per_deal
from experiments.stats import t_interval
from experiments.tail_value import fit, shard_files

FIELDS = ("train_shards", "train_boundaries", "collect_minutes", "fit_minutes", "minutes",
          "held_out_mse", "hands", "win_rate", "lo", "hi", "diff_per_hand", "diff_lo",
          "diff_hi", "think_ratio", "vs_most", "vs_most_lo", "vs_most_hi", "match", "agent")
TAIL = re.compile(r"tail=([^,]+)")


def same_weights(a: Path, b: Path) -> bool:
    """Whether two saved boundary networks hold the same weights (their notes may differ)."""
    with np.load(a) as za, np.load(b) as zb:
        keys = [k for k in za.files if k != "meta"]
        return sorted(keys) == sorted(k for k in zb.files if k != "meta") and all(
            np.array_equal(za[k], zb[k]) for k in keys)


def first_hands(folder: Path, hands: int) -> tuple[dict, dict[int, list[dict]]]:
    """A match's settings and its finished chunks among the first ``hands`` hands."""
    settings = json.loads((folder / "match.json").read_text())
    n = hands // settings["chunk"]
    return settings, {i: g for i, g in load_chunks(folder / "chunks.jsonl").items() if i < n}


def nets(run_dir: Path, counts: Sequence[int], out: Path, hidden: int, epochs: int) -> dict:
    """Fit (or reuse) the network on the first N training shards for each N of ``counts``;
    their fits are noted in ``OUT/nets.json`` (the fit's CPU seconds are the curve's x)."""
    path = out / "nets.json"
    known = json.loads(path.read_text()) if path.exists() else {}
    for n in counts:
        net = run_dir / "curve_nets" / f"tail_{n}.npz"
        if str(n) in known and net.exists():
            continue
        f = fit(run_dir, net, out, hidden, epochs, 0, shards=n, log=False)
        # read again before writing: another process may have noted its own network meanwhile
        known = {**(json.loads(path.read_text()) if path.exists() else {}), **known,
                 str(n): {"net": str(net), "train_boundaries": f["train_boundaries"],
                          "held_out_mse": f["held_out_mse"], "fit_seconds": f["fit_seconds"]}}
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(known, indent=1) + "\n")
    return known


def play(reference: Path, fitted: dict, counts: Sequence[int], hands: int, out: Path,
         workers: int = 1, progress: bool = True) -> None:
    """Each network's match against the reference's opponent on the reference's deals
    (skipped for a network with the reference's own weights)."""
    ref = json.loads((reference / "match.json").read_text())
    spec, opponent = ref["agents"]
    found = TAIL.search(spec)
    if not spec.startswith("search:") or found is None:
        raise SystemExit(f"tail_curve: the reference's first agent is not a search on a "
                         f"boundary value (search:tail=PATH,...): {spec!r}")
    for n in counts:
        net = Path(fitted[str(n)]["net"])
        if same_weights(net, Path(found.group(1))):
            continue
        settings = {**ref, "hands": hands,
                    "agents": [TAIL.sub(f"tail={net}", spec, count=1), opponent]}
        run(settings, out / f"shards_{n}", workers=workers, progress=progress)


def rows(run_dir: Path, reference: Path, fitted: dict, hands: int, out: Path) -> list[dict]:
    """One row per fitted network with a match (its own, or the reference's)."""
    seconds = []
    for f in shard_files(run_dir):
        with np.load(f) as z:
            seconds.append(float(z["seconds"]))
    ref_net = Path(TAIL.search(json.loads((reference / "match.json").read_text())
                               ["agents"][0]).group(1))
    got = []
    for key, f in sorted(fitted.items(), key=lambda kv: int(kv[0])):
        n = int(key)
        folder = reference if same_weights(Path(f["net"]), ref_net) else out / f"shards_{n}"
        if not (folder / "chunks.jsonl").exists():
            continue
        settings, chunks = first_hands(folder, hands)
        if not chunks:
            continue
        s = summarize(settings, chunks)
        collect_min, fit_min = sum(seconds[:n]) / 60, f["fit_seconds"] / 60
        got.append({"train_shards": n, "train_boundaries": f["train_boundaries"],
                    "collect_minutes": collect_min, "fit_minutes": fit_min,
                    "minutes": collect_min + fit_min, "timesteps": f["train_boundaries"],
                    "held_out_mse": f["held_out_mse"], "hands": s["hands"],
                    "win_rate": s["win_rate"], "lo": s["lo"], "hi": s["hi"],
                    "diff_per_hand": s["diff_per_hand"], "diff_lo": s["diff_lo"],
                    "diff_hi": s["diff_hi"], "think_ratio": s["think_ratio"][0],
                    "match": str(folder), "agent": f"search on the value v {s['opponent']}",
                    "_deals": {d: v[0] for g in chunks.values() for d, v in per_deal(g).items()}})
    if got:
        last = got[-1]["_deals"]
        for r in got:  # hands won minus the most-data network's, deal by deal
            shared = sorted(set(r["_deals"]) & set(last))
            r["vs_most"], r["vs_most_lo"], r["vs_most_hi"] = t_interval(
                [r["_deals"][d] - last[d] for d in shared]) if r is not got[-1] else (
                0.0, 0.0, 0.0)
    return [{k: v for k, v in r.items() if k != "_deals"} for r in got]


def write(out: Path, got: list[dict], variant: str) -> None:
    """``play_curve.csv`` and ``play_curve.png``."""
    metrics = [Metric("win_rate", "lo", "hi", "hands won v the opponent", refs=[(0.5, "--")]),
               Metric("held_out_mse", "held_out_mse", "held_out_mse",
                      "held-out squared error (points²)")]
    write_table(out, "play_curve", FIELDS, got, lambda rs, path: plot_steps_and_minutes(
        rs, path, metrics, group="agent",
        title=f"{variant}: search on boundary values fitted on more data, in play "
              "(dashed: even)", minutes_label="CPU minutes (collect + fit)",
        steps_label="training boundaries"))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--run", type=Path, required=True, help="experiments.tail_value collect run")
    p.add_argument("--shards", type=int, nargs="+", required=True,
                   help="training shard counts, one network and one match each")
    p.add_argument("--reference", type=Path, required=True,
                   help="long_match folder of a search:tail=... agent against the opponent")
    p.add_argument("--hands", type=int, default=500)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--table-only", action="store_true",
                   help="rebuild the table from the matches on disk; fit and play nothing")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    a = p.parse_args(argv)
    if not (a.reference / "match.json").exists():
        raise SystemExit(f"tail_curve: {a.reference} is not a long_match folder (no match.json)")
    if a.table_only:
        path = a.out / "nets.json"
        fitted = json.loads(path.read_text()) if path.exists() else {}
    else:
        fitted = nets(a.run, a.shards, a.out, a.hidden, a.epochs)
        play(a.reference, fitted, a.shards, a.hands, a.out, a.workers, not a.quiet)
    got = rows(a.run, a.reference, fitted, a.hands, a.out)
    variant = json.loads((a.reference / "match.json").read_text())["variant"]
    write(a.out, got, variant)
    for r in got:
        print(f"{r['train_shards']:>3} shards: {r['win_rate']:.1%} [{r['lo']:.1%}, "
              f"{r['hi']:.1%}] of {r['hands']:,} hands, v most data {r['vs_most']:+.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
