"""Soak run: many random hands per preset with the engine's invariants checked at every move.

Checks at every decision: every card is in exactly one place (hands, table, stock, piles;
under V-swazi-steal each pile's order holds exactly its cards);
each build's owner holds a card of its value and no two builds share a value; there is at
least one legal move and none twice; the chosen move applies; a sample of moves is checked not
to change its input state. Records the slowest legal-move generations met and re-times them
from their specs at the end (best of 5), so the slowest state reported is the state's own cost,
not a pause of the machine. Results go to ``<name>.json`` and ``<name>.csv`` in ``--out``
(default ``runs/soak``, git-ignored; the committed soak.json/.csv were written with
``python -m experiments.soak --hands 100000 --out experiments/results``). The progress bar
counts hands over all presets. Run: ``python -m experiments.soak --hands 100000``.
"""

from __future__ import annotations

import argparse
import csv
import heapq
import json
import random
import time
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

from casino_env.engine import State, apply_move, list_variants, new_game
from casino_env.engine.moves import backs, generate
from casino_env.engine.rules import PRESETS

DEFAULT_OUT = Path("runs/soak")
REPORT_EVERY = 50  # hands between two progress reports of a soak run


def check(st) -> None:
    """Raise AssertionError if an invariant of the state is broken."""
    r = st.rules
    seen = 0
    total = 0
    parts = (list(st.hand_masks) + [st.loose_mask] + [b.cards for b in st.builds]
             + list(st.pile_masks))
    for m in parts:
        assert not seen & m, "a card is in two places"
        seen |= m
        total += m.bit_count()
    for c in st.stock_ids:
        assert not seen >> c & 1, "a stock card is elsewhere too"
        seen |= 1 << c
    assert seen == r.deck.full and total + len(st.stock_ids) == r.deck.size, "cards lost"
    if r.steal:  # V-swazi-steal: each ordered pile holds exactly its pile's cards, once each
        assert len(st.pile_ids) == r.sides, "an ordered pile is missing"
        for ids, mask in zip(st.pile_ids, st.pile_masks):
            order = 0
            for c in ids:
                assert not order >> c & 1, "a card is twice in an ordered pile"
                order |= 1 << c
            assert order == mask, "an ordered pile and its cards differ"
    else:
        assert st.pile_ids == (), "an unordered game keeps ordered piles"
    values = [b.value for b in st.builds]
    assert len(values) == len(set(values)), "two builds share a value (C-one-per-value)"
    for b in st.builds:
        owned = [x.value for x in st.builds if x.owner == b.owner]
        assert backs(r, st.hand_masks[b.owner], owned), "an owner cannot capture its build"


def retime(spec: dict, repeats: int = 5) -> float:
    """Seconds to list the legal moves of the state ``spec`` (best of ``repeats``, each on a
    fresh copy, so a pause of the machine is not blamed on the state)."""
    best = float("inf")
    for _ in range(repeats):
        st = State.from_spec(spec)
        t = time.perf_counter()
        generate(st)
        best = min(best, time.perf_counter() - t)
    return best


def soak(variant: str, players: int, hands: int, seed: int, keep: int = 20,
         progress: Callable[[int], object] | None = None) -> dict:
    """Play ``hands`` random hands of one preset checking every state; the run's figures.
    ``progress(n)`` is told every ``REPORT_EVERY`` hands finished (and the rest at the end)."""
    rng = random.Random(seed)
    unreported = 0
    st = new_game(variant, players, seed=seed)
    done = moves_made = errors = 0
    # The ``keep`` slowest generations met (first timing, which a pause of the machine can
    # inflate) and the ``keep`` longest move lists, all re-timed at the end from their specs.
    slow: list[tuple[float, int, dict]] = []
    big: list[tuple[int, int, dict]] = []
    max_moves = 0
    first_error = ""
    t0 = time.perf_counter()
    while done < hands:
        try:
            if st.game_over:
                st = new_game(variant, players, seed=rng.randrange(2**62))
            check(st)
            t = time.perf_counter()
            moves = generate(st)
            dt = time.perf_counter() - t
            for heap, key in ((slow, dt), (big, len(moves))):
                if len(heap) < keep or key > heap[0][0]:
                    item = (key, moves_made, st.to_spec())
                    if len(heap) < keep:
                        heapq.heappush(heap, item)
                    else:
                        heapq.heapreplace(heap, item)
            assert moves, "no legal move"
            keys = {m.key() for m in moves}
            assert len(keys) == len(moves), "a move listed twice"
            max_moves = max(max_moves, len(moves))
            st._moves = moves
            move = rng.choice(moves)
            before = st.to_spec() if moves_made % 97 == 0 else None
            new = apply_move(st, move)
            if before is not None:
                assert st.to_spec() == before, "apply_move changed its input"
            if new.hand_points is not st.hand_points:
                done += 1
                unreported += 1
                if progress is not None and unreported >= REPORT_EVERY:
                    progress(unreported)
                    unreported = 0
            st = new
            moves_made += 1
        except Exception:  # noqa: BLE001 - a soak run counts every failure
            errors += 1
            if not first_error:
                first_error = traceback.format_exc()
            st = new_game(variant, players, seed=rng.randrange(2**62))
    seconds = time.perf_counter() - t0
    if progress is not None and unreported:
        progress(unreported)
    timed = [(retime(spec), spec) for _, _, spec in slow + big]
    slowest, slowest_state = max(timed, key=lambda x: x[0]) if timed else (0.0, None)
    return dict(variant=variant, players=players, hands=done, moves=moves_made, errors=errors,
                seconds=round(seconds, 1), max_legal_moves=max_moves,
                slowest_generate_ms=round(slowest * 1e3, 3),
                slowest_legal_moves=len(generate(State.from_spec(slowest_state)))
                if slowest_state else 0,
                first_error=first_error, slowest_state=slowest_state)


def write(rows: list[dict], name: str = "soak", out: Path = DEFAULT_OUT) -> Path:
    """<name>.json (everything, incl. the slowest state and first error) and <name>.csv in
    ``out``; returns the json's path."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(rows, indent=1))
    fields = [k for k in rows[0] if k not in ("first_error", "slowest_state")]
    with open(out / f"{name}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return out / f"{name}.json"


def retime_recorded(name: str = "soak", repeats: int = 20, out: Path = DEFAULT_OUT) -> int:
    """Re-time the slowest state recorded per preset (a long run shares the machine with
    other work, which can inflate even a best-of-5 timing); rewrites <name>.json/.csv."""
    path = out / f"{name}.json"
    if not path.exists():
        raise SystemExit(f"{path} not found: run the soak first (or give the --out it used)")
    rows = json.loads(path.read_text())
    for r in rows:
        if r.get("slowest_state"):
            ms = round(retime(r["slowest_state"], repeats) * 1e3, 3)
            print(f"{r['variant']:10s} {r['players']}p {r['slowest_legal_moves']} moves: "
                  f"{r['slowest_generate_ms']} ms recorded, {ms} ms re-timed")
            r["slowest_generate_ms"] = ms
            r["retimed"] = time.strftime("%Y-%m-%d %H:%M:%S")
    write(rows, name, out)
    print(f"rewrote {path} and {path.with_suffix('.csv')}")
    return 0


def _soak_job(variant: str, players: int, hands: int, seed: int, queue) -> dict:
    """``soak`` in a worker process, reporting finished hands on ``queue``."""
    return soak(variant, players, hands, seed, progress=queue.put)


def run(jobs: Sequence[tuple[str, int]], hands: int, seed: int, workers: int,
        on_row: Callable[[list[dict]], object] | None = None,
        bar_out=None) -> list[dict]:
    """Soak every (variant, players) of ``jobs`` in ``workers`` processes, with one progress bar
    over all their hands; ``on_row(rows so far, in jobs' order)`` after each preset ends."""
    import multiprocessing
    import queue as queue_mod

    try:
        from tqdm import tqdm

        bar = tqdm(total=hands * len(jobs), desc="soak", unit="hand", file=bar_out)
    except ImportError:  # pragma: no cover
        bar = None
    results: dict[int, dict] = {}
    with multiprocessing.Manager() as manager, ProcessPoolExecutor(workers) as pool:
        q = manager.Queue()

        def drain() -> None:
            while True:
                try:
                    n = q.get_nowait()
                except queue_mod.Empty:
                    return
                if bar is not None:
                    bar.update(n)

        futures = {pool.submit(_soak_job, v, n, hands, seed, q): i
                   for i, (v, n) in enumerate(jobs)}
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
            drain()
            for f in finished:
                results[futures[f]] = f.result()
                if bar is not None:
                    bar.set_postfix_str(f"{len(results)}/{len(jobs)} presets done")
            if finished and on_row is not None:
                on_row([results[i] for i in sorted(results)])
        drain()
    if bar is not None:
        bar.close()
    return [results[i] for i in sorted(results)]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line of ``main``."""
    p = argparse.ArgumentParser(prog="python -m experiments.soak", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hands", type=int, default=100_000, help="hands per preset")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--all-players", action="store_true", help="every player count, not only 2")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--variants", nargs="*", default=None, help="presets (default: all)")
    p.add_argument("--name", default="soak", help="results file name (default soak)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help=f"results folder (default {DEFAULT_OUT}, git-ignored; the committed "
                        "soak was written with --out experiments/results)")
    p.add_argument("--retime", action="store_true",
                   help="play nothing: re-time the slowest state of each preset recorded in "
                        "<out>/<name>.json (best of 20), e.g. once the machine is quiet again")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Soak the chosen presets (or re-time a recorded run); 1 if any error was met."""
    args = parse_args(argv)
    if args.retime:
        return retime_recorded(args.name, out=args.out)
    jobs = [(v, n) for v in (args.variants or list_variants()) for n in PRESETS[v].players
            if args.all_players or n == 2]
    # written after every preset, so a long run can be read while it goes on
    rows = run(jobs, args.hands, args.seed, args.workers,
               on_row=lambda rows: write(rows, args.name, args.out))
    for r in rows:
        print(f"{r['variant']:10s} {r['players']}p hands={r['hands']} moves={r['moves']} "
              f"errors={r['errors']} slowest={r['slowest_generate_ms']} ms "
              f"max_moves={r['max_legal_moves']} ({r['seconds']} s)")
    path = args.out / f"{args.name}.json"
    print(f"results in {path} and {path.with_suffix('.csv')}")
    return 1 if any(r["errors"] for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
