"""Benchmarks: engine and environment speed, legal-move counts, memory, training throughput.

Every speed is measured next to a reference in the same run (PettingZoo's texas_holdem_v4 and
connect_four_v3 for the environment; a fixed pure-Python workload for the engine), so the
ratios are what counts on a noisy machine. Results go to ``bench_<what>.csv`` and ``.md`` in
``--out``, and ``bench_meta.json`` there keeps a record per benchmark (quick or not, sizes,
time) merged across runs (default ``runs/bench``, git-ignored; the committed results
were written with ``--out experiments/results``). Run:
``python -m experiments.bench [engine|env|moves|memory|train|all] [--out DIR]``
(the references need the ``bench`` extra: ``pip install -e ".[bench]"``).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from casino_env.engine import apply_move, legal_moves, list_variants, new_game
from casino_env.engine.moves import generate
from casino_env.engine.rules import PRESETS
from experiments.bench_common import DEFAULT_OUT, require_references


def _progress(it, **kw):
    try:
        from tqdm import tqdm

        return tqdm(it, **kw)
    except ImportError:  # pragma: no cover
        return it


def configs(players=(2, 3, 4)):
    for v in list_variants():
        for n in PRESETS[v].players:
            if n in players:
                yield v, n, (True if (n == 4 and v == "dominican") else None)


def random_states(variant, players, partnerships, count, seed=0, mid_game=True):
    """States met in seeded random play (the mix an RL agent sees); ``mid_game``: only states
    with cards left in the stock, where a hand has more than one deal (in swazi with 3 or 4
    players everything is dealt at once, V-swazi-deal: then every state counts)."""
    rng = random.Random(seed)
    st = new_game(variant, players, seed=seed, partnerships=partnerships)
    one_deal = not st.stock_ids  # (a fresh hand: its first deal made)
    out = []
    while len(out) < count:
        if st.game_over:
            st = new_game(variant, players, seed=rng.randrange(2**62), partnerships=partnerships)
        moves = legal_moves(st)
        if not mid_game or st.stock_ids or one_deal:
            out.append(st)
        st = apply_move(st, rng.choice(moves))
    return out


def calibration(seconds=0.3) -> float:
    """Loops/s of a fixed pure-Python workload (dict, int and list work like the engine's)."""
    n = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        d = {}
        acc = 0
        for i in range(200):
            acc ^= (i * 2654435761) & 0xFFFFFFFF
            d[acc & 255] = i
        n += len(d) + len([x for x in range(50) if x & 1])
    return n / (time.perf_counter() - t0)


def _clear(states):
    for s in states:
        s._moves = None
        s._index = None


def bench_engine(states_per_config=3000, hands=60, seed=0) -> list[dict]:
    rows = []
    calib = calibration()
    for variant, n, part in _progress(list(configs()), desc="engine"):
        states = random_states(variant, n, part, states_per_config, seed)
        counts = [len(generate(s)) for s in states]
        _clear(states)
        reps, best = 3, 0.0
        slowest = 0.0
        for _ in range(reps):
            t0 = time.perf_counter()
            for s in states:
                generate(s)
            best = max(best, len(states) / (time.perf_counter() - t0))
        for s in states[:2000]:
            t0 = time.perf_counter()
            generate(s)
            slowest = max(slowest, time.perf_counter() - t0)
        rng = random.Random(seed)
        t0 = time.perf_counter()
        done = 0
        st = new_game(variant, n, seed=seed, partnerships=part)
        while done < hands:
            before = st.hand_points
            st = apply_move(st, rng.choice(legal_moves(st)))
            if st.hand_points is not before:
                done += 1
            if st.game_over:
                st = new_game(variant, n, seed=rng.randrange(2**62), partnerships=part)
        hands_s = hands / (time.perf_counter() - t0)
        rows.append(dict(variant=variant, players=n, partnerships=bool(part),
                         legal_lists_per_s=round(best), slowest_ms=round(slowest * 1e3, 3),
                         hands_per_s=round(hands_s, 1),
                         mean_moves=round(statistics.mean(counts), 2),
                         moves_per_s=round(best * statistics.mean(counts)),
                         max_moves=max(counts), calibration_loops_per_s=round(calib),
                         lists_per_calib=round(best / calib, 4)))
    return rows


def bench_moves(decisions=200_000, seed=0) -> list[dict]:
    """Distribution of legal-move counts per decision in random play (sizes enumerate's K)."""
    rows = []
    for variant, n, part in configs():
        rng = random.Random(seed)
        st = new_game(variant, n, seed=seed, partnerships=part)
        counts = []
        for _ in _progress(range(decisions), desc=f"moves {variant} {n}p", leave=False):
            if st.game_over:
                st = new_game(variant, n, seed=rng.randrange(2**62), partnerships=part)
            moves = legal_moves(st)
            counts.append(len(moves))
            st = apply_move(st, rng.choice(moves))
        a = np.array(counts)
        rows.append(dict(variant=variant, players=n, decisions=len(a), mean=round(a.mean(), 2),
                         median=float(np.median(a)), p99=float(np.percentile(a, 99)),
                         p999=float(np.percentile(a, 99.9)), max=int(a.max()),
                         over_128=int((a > 128).sum()), over_256=int((a > 256).sum()),
                         one_move=round(float((a == 1).mean()), 4)))
    return rows


def _env_rate(make, steps, seed=0) -> float:
    """Agent-steps per second of random masked play (the same loop for every env)."""
    env = make()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    done = 0
    t0 = time.perf_counter()
    while done < steps:
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            done += 1
            if done >= steps:
                break
        env.reset()
    return done / (time.perf_counter() - t0)


def bench_env(steps=20_000, repeats=3, variants=None, players=(2,)) -> list[dict]:
    import warnings

    import casino_env

    warnings.filterwarnings("ignore")
    require_references()
    from pettingzoo.classic import connect_four_v3, texas_holdem_v4

    refs = {"texas_holdem_v4": texas_holdem_v4.env, "connect_four_v3": connect_four_v3.env}
    ours = []
    for variant, n, part in configs(players):
        if variants and variant not in variants:
            continue
        for mode in ("compose", "enumerate"):
            ours.append((f"{variant} {n}p {mode}",
                         lambda v=variant, n=n, p=part, m=mode: casino_env.env(
                             variant=v, players=n, partnerships=p, action_mode=m)))
    rows = []
    rates: dict[str, list[float]] = {}
    jobs = list(refs.items()) + ours
    for _ in _progress(range(repeats), desc="env repeats"):
        for name, make in jobs:
            rates.setdefault(name, []).append(_env_rate(make, steps))
    med = {k: statistics.median(v) for k, v in rates.items()}
    for name, _ in jobs:
        rows.append(dict(env=name, steps_per_s=round(med[name]),
                         vs_texas_holdem=round(med[name] / med["texas_holdem_v4"], 2),
                         vs_connect_four=round(med[name] / med["connect_four_v3"], 2)))
    return rows


def _openspiel_rate(game, steps: int, observe: bool, seed: int = 0) -> float:
    """Player actions per second of uniform random play through an OpenSpiel game (chance
    outcomes applied on the way, not counted); ``observe``: also read the mover's
    information-state tensor before each action, as a learning agent does."""
    rng = random.Random(seed)
    done = 0
    t0 = time.perf_counter()
    while done < steps:
        s = game.new_initial_state()
        while not s.is_terminal() and done < steps:
            if s.is_chance_node():
                s.apply_action(rng.choice(s.chance_outcomes())[0])
                continue
            if observe:
                s.information_state_tensor(s.current_player())
            s.apply_action(rng.choice(s.legal_actions()))
            done += 1
    return done / (time.perf_counter() - t0)


def bench_openspiel(steps=20_000, repeats=3, variants=("casino", "royal", "dominican"),
                    players=2) -> list[dict]:
    """Random play through the OpenSpiel game ``python_casino`` next to the PettingZoo env
    (compose mode, the same action ids) on the same machine in the same run."""
    import casino_env
    import casino_env.openspiel as cos

    rows = []
    for variant in _progress(variants, desc="openspiel"):
        game = cos.pyspiel.load_game(cos.GAME_NAME, {"variant": variant, "players": players})
        jobs = {
            "openspiel actions": lambda g=game: _openspiel_rate(g, steps, False),
            "openspiel actions + info-state tensor": lambda g=game: _openspiel_rate(
                g, steps, True),
            "pettingzoo env() compose": lambda v=variant: _env_rate(
                lambda: casino_env.env(variant=v, players=players), steps),
            "pettingzoo raw_env() compose": lambda v=variant: _env_rate(
                lambda: casino_env.raw_env(variant=v, players=players), steps),
        }
        rates = {k: statistics.median(f() for _ in range(repeats)) for k, f in jobs.items()}
        base = rates["pettingzoo env() compose"]
        for name, rate in rates.items():
            rows.append(dict(variant=f"{variant} {players}p", env=name, steps_per_s=round(rate),
                             vs_pettingzoo_env=round(rate / base, 2)))
    return rows


def _status_mb(field: str) -> float:
    """A memory figure of this process in MB from /proc/self/status (VmRSS: resident now;
    VmHWM: peak, fresh after exec unlike ru_maxrss); ru_maxrss where there is no /proc."""
    import resource

    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:  # pragma: no cover - not Linux
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _memory_rows(hands: int, variant: str, through: str) -> list[dict]:
    """Play ``hands`` random hands (engine calls, or random masked play through the wrapped
    ``env()``) and record resident memory at every tenth: flat means no growth."""
    import gc

    from casino_env.engine import sets

    rng = random.Random(0)
    if through == "env":  # one episode = one hand (the default)
        import casino_env

        env = casino_env.env(variant=variant)
        env.reset(seed=0)

        def play_hand() -> None:
            while True:
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    break
                env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
            env.reset(seed=rng.randrange(2**31))
    else:
        game = [new_game(variant, 2, seed=0)]

        def play_hand() -> None:
            st = game[0]
            before = st.hand_points
            while st.hand_points is before and not st.game_over:
                st = apply_move(st, rng.choice(legal_moves(st)))
            game[0] = new_game(variant, 2, seed=rng.randrange(2**62)) if st.game_over else st

    rows = []
    for done in range(1, hands + 1):
        play_hand()
        if done % (hands // 10) == 0:
            gc.collect()
            rows.append(dict(through=through, hands=done, rss_mb=round(_status_mb("VmRSS"), 1),
                             peak_rss_mb=round(_status_mb("VmHWM"), 1),
                             subset_sum_cache_entries=sum(
                                 f.cache_info().currsize
                                 for f in (sets.groups, sets.partitions, sets.with_card))))
    return rows


def bench_memory(hands=40_000, variant="casino") -> list[dict]:
    """Resident memory over many random hands, engine and env, each in a fresh interpreter
    (so earlier benchmarks do not count). It grows only while the subset-sum caches of
    ``engine.sets`` fill (bounded: 3 x 65,536 entries, full after about 8,000 hands), then
    stays flat."""
    import subprocess

    rows = []
    for through in ("engine", "env"):
        code = ("import json, sys; from experiments.bench import _memory_rows; "
                "print(json.dumps(_memory_rows(*json.loads(sys.argv[1]))))")
        out = subprocess.run([sys.executable, "-c", code, json.dumps([hands, variant, through])],
                             capture_output=True, text=True, check=True,
                             cwd=Path(__file__).resolve().parents[1])
        rows += json.loads(out.stdout.strip().splitlines()[-1])
    return rows


def write(name: str, rows: list[dict], out: Path = DEFAULT_OUT) -> list[Path]:
    """``bench_<name>.csv`` and ``.md`` in ``out``; prints the table and the files written."""
    if not rows:
        return []
    out.mkdir(parents=True, exist_ok=True)
    csv_path, md_path = out / f"bench_{name}.csv", out / f"bench_{name}.md"
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    md = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    md += ["| " + " | ".join(str(v) for v in r.values()) + " |" for r in rows]
    md_path.write_text("\n".join(md) + "\n")
    print(f"\n## {name}\n" + "\n".join(md))
    print(f"wrote {csv_path} and {md_path}")
    return [csv_path, md_path]


WHAT = ("engine", "env", "moves", "memory", "train", "openspiel", "all")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line: what to measure, --quick and --out."""
    p = argparse.ArgumentParser(prog="python -m experiments.bench", description=__doc__)
    # (choices checked below: argparse 3.11 refuses an empty nargs="*" list given choices)
    p.add_argument("what", nargs="*", default=["engine", "env"],
                   help=f"what to measure, of {', '.join(WHAT)} (default: engine env)")
    p.add_argument("--quick", action="store_true", help="small sizes (smoke run)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help=f"results folder (default {DEFAULT_OUT}, git-ignored; the committed "
                        "results are written with --out experiments/results)")
    args = p.parse_args(argv)
    unknown = [w for w in args.what if w not in WHAT]
    if unknown:
        p.error(f"unknown benchmark {', '.join(map(repr, unknown))}: expected some of "
                f"{', '.join(WHAT)}")
    return args


def sizes(name: str, quick: bool) -> dict:
    """The keyword arguments a benchmark runs with (``--quick``: small ones), as recorded."""
    q = quick
    return {"engine": dict(states_per_config=300 if q else 3000, hands=5 if q else 60),
            "env": dict(steps=2000 if q else 20_000, repeats=1 if q else 3),
            "moves": dict(decisions=5000 if q else 1_000_000),
            "memory": dict(hands=200 if q else 40_000),
            "openspiel": dict(steps=2000 if q else 20_000, repeats=1 if q else 3),
            "train": dict(quick=q, frames=2048 if q else 8192, rounds=1 if q else 5)}[name]


def record(out: Path, name: str, quick: bool, kwargs: dict) -> None:
    """Merge one benchmark's record (quick or not, its sizes, when, which Python) into
    ``out/bench_meta.json`` under ``benchmarks``, keeping the others' records, so the file
    says how each table beside it was made; the top-level python and time are the latest."""
    path = out / "bench_meta.json"
    meta: dict = {}
    if path.exists():
        try:
            meta = json.loads(path.read_text())
        except ValueError as exc:
            print(f"warning: {path} is not JSON ({exc}): its records are replaced")
        if not isinstance(meta, dict):
            meta = {}
    now = dict(python=sys.version.split()[0], time=time.strftime("%Y-%m-%d %H:%M:%S"))
    benchmarks = meta.get("benchmarks") if isinstance(meta.get("benchmarks"), dict) else {}
    benchmarks[name] = dict(quick=quick, sizes=kwargs, **now)
    meta.update(now, benchmarks=benchmarks)
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(meta, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmarks and write their tables into ``--out``, each recorded in
    ``bench_meta.json`` as it finishes."""
    args = parse_args(argv)
    out = args.out
    what = set(args.what)
    if "all" in what:
        what = {"engine", "env", "moves", "memory", "train", "openspiel"}
    runners = dict(engine=bench_engine, env=bench_env, moves=bench_moves, memory=bench_memory,
                   openspiel=bench_openspiel, train=None)
    for name, run in runners.items():
        if name not in what:
            continue
        if run is None:
            from experiments.bench_train import bench_train as run
        kwargs = sizes(name, args.quick)
        write(name, run(**kwargs), out)
        record(out, name, args.quick, kwargs)
    print(f"results in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
