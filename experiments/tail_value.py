"""A learned value of deal boundaries to cut search rollouts short (issue 18, value lane).

    python -m experiments.tail_value build --variant casino      # collect + fit, resumable
    python -m experiments.tail_value collect --variant casino --hands 1000 --shards 20 \\
        --run runs/tail_value/casino
    python -m experiments.tail_value fit --run runs/tail_value/casino --hidden 256 \\
        --save experiments/results/exit/tail_value_casino/tail.npz \\
        --out experiments/results/exit/tail_value_casino
    python -m experiments.tail_value regret --variant casino --decisions 300 \\
        --agents search search:tail=PATH,simulations=800 --out DIR
    python -m experiments.tail_value curve --run runs/tail_value/casino --shards 1 2 4 9 18 \\
        --out experiments/results/exit/tail_value_casino/learning

1. **collect** — two-player single hands, each seat played by the heuristic or the greedy
   agent (drawn per hand) with 10% random moves. At every deal boundary inside a hand (a new
   round just dealt) the boundary is recorded and labelled with the mean of ``--rollouts``
   rollouts of the search's policy (``agents.fastsim``, "builder") from it, each on a fresh
   shuffle of the unseen cards (the new hands and the stock): the hand's point difference for
   side 0. ``--policy heuristic`` labels with the heuristic's play in every seat instead (each
   seat seeing only its view): slower, but closer to strong play than the fast rollouts.
   Shards of ``--hands`` hands, written as they finish (a rerun skips those on disk).
2. **fit** — an MLP (``agents.tail_value``: card locations, sweeps, last capturer, leader;
   two hidden layers) regresses those means from both sides' views (side 1's value is the negation);
   the last 10% of shards are held out, and the epoch that predicts them best is saved
   (AdamW, ``--weight-decay``). ``fits.csv`` gets the held-out error next to two
   references: predicting the training mean, and the labels' own noise (the variance of a
   mean of ``--rollouts``), which no fit can beat; ``curve.csv`` and ``curve.png`` the
   held-out error by epoch.
3. **regret** — does the value make search better per unit of time? Decisions of
   heuristic-against-heuristic play (before the last deal, with a choice) are valued by an
   *oracle*: each of the search's candidates played on ``--deals`` shared determinizations
   with full rollouts. Each agent then chooses, timed (the simulator's caches cleared first),
   and loses the oracle's value of its move below the oracle's best: ``regret.csv`` per
   decision, ``regret.md`` per agent (mean points lost with a Student-t interval, seconds
   a decision). The oracle's values are kept (``oracle.json``) and reused.
4. **curve** — the learning curve: one network per number of training shards (``fit`` on the
   first N, the same held-out shards), each measured by ``regret`` inside the search at a
   fixed budget, against the CPU minutes of collecting and fitting: ``learning.csv`` and
   ``learning.png``, with the plain search's regret on the same decisions as a reference.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import time
from pathlib import Path

import numpy as np

from agents.fastsim import clear_caches
from agents.scripted import GreedyAgent, HeuristicAgent
from agents.search import determinization_value, hand_result
from agents.tail_value import TailValue, boundary_inputs, save_tail, tail_supported
from agents.valuation import static_weights
from casino_env.engine import State, new_game
from casino_env.engine.cards import bit_list
from casino_env.engine.moves import generate
from casino_env.engine.play import play
from casino_env.engine.view import PlayerView
from experiments.curves import write_table
from experiments.endgame_net import record_collect

POLICIES = ("builder", "heuristic")  # whose play labels a boundary (``label``)
COLUMNS = ("loose", "pile0", "pile1", "sweeps0", "sweeps1", "last_side", "leader", "mean", "sd")


def heuristic_result(st: State, seed: int) -> float:
    """Side 0's point difference over the rest of the hand from ``st`` with the heuristic in
    every seat, each seeing only its own view."""
    agents = [HeuristicAgent(seed + i) for i in range(st.rules.players)]
    s = st
    while s.hand_points is st.hand_points and not s.game_over:
        s = play(s, agents[s.current].choose(PlayerView(s, s.current)))
    return hand_result(st, s, 0, 0.0)


def label(st: State, rollouts: int, rng: random.Random, policy: str = "builder"
          ) -> tuple[float, float]:
    """Mean and standard deviation, over ``rollouts`` fresh shuffles of the unseen cards (the
    hands just dealt and the stock), of side 0's hand point difference: under fast rollouts
    (``policy`` "builder", the search's own) or the heuristic's play ("heuristic")."""
    if policy not in POLICIES:
        raise ValueError(f"tail_value: label policy must be one of {POLICIES}, got {policy!r}")
    r = st.rules
    w = static_weights(r)
    hs = [h.bit_count() for h in st.hand_masks]
    pool = [c for h in st.hand_masks for c in bit_list(h)] + list(st.stock_ids)
    out = []
    for _ in range(rollouts):
        rng.shuffle(pool)
        s = st._copy()
        hands, pos = [], 0
        for k in hs:
            m = 0
            for c in pool[pos:pos + k]:
                m |= 1 << c
            hands.append(m)
            pos += k
        s.hand_masks = tuple(hands)
        s.stock_ids = tuple(pool[pos:])
        out.append(determinization_value(s, s, 0, w, rng.getrandbits(32))
                   if policy == "builder" else heuristic_result(s, rng.getrandbits(32)))
    a = np.asarray(out, np.float64)
    return float(a.mean()), float(a.std())


def boundaries(variant: str, seed: int, rng: random.Random, epsilon: float = 0.1):
    """The deal boundaries of one single hand of mixed heuristic/greedy play: each state just
    after a round is dealt inside the hand."""
    st = new_game(variant, 2, seed=seed)
    agents = [HeuristicAgent(seed) if rng.random() < 0.5 else GreedyAgent(seed)
              for _ in range(2)]
    hp = st.hand_points
    while st.hand_points is hp and not st.game_over:
        moves = generate(st)
        if len(moves) > 1 and rng.random() < epsilon:
            m = moves[rng.randrange(len(moves))]
        else:
            m = agents[st.current].choose(PlayerView(st, st.current))
        nxt = play(st, m)
        if nxt.hand_points is hp and not nxt.game_over and \
                len(nxt.stock_ids) < len(st.stock_ids) and not nxt.builds:
            yield nxt
        st = nxt


def boundary_record(st: State) -> list[float]:
    """A boundary's columns (``COLUMNS`` but the label)."""
    r = st.rules
    last = None if st.last_capturer is None else r.side(st.last_capturer)
    return [st.loose_mask, st.pile_masks[0], st.pile_masks[1], st.sweeps[0], st.sweeps[1],
            -1 if last is None else last, r.side((st.dealer + 1) % r.players)]


def collect(variant: str, hands: int, shards: int, seed: int, rollouts: int, run: Path,
            policy: str = "builder") -> None:
    from tqdm.auto import tqdm

    rules = new_game(variant, 2, seed=0).rules
    if not tail_supported(rules):
        raise SystemExit(f"tail_value: {variant} is not a two-sided preset of one deck "
                         "without pile order, earned wins, penalties or event points")
    if policy not in POLICIES:
        raise SystemExit(f"tail_value: --policy must be one of {POLICIES}, got {policy!r}")
    run.mkdir(parents=True, exist_ok=True)
    settings = {"variant": variant, "hands": hands, "seed": seed, "rollouts": rollouts}
    if policy != "builder":  # a builder run's file reads as before
        settings["policy"] = policy
    record_collect(run, settings, data=bool(shard_files(run)))  # no mix of settings
    for k in range(shards):
        path = run / f"shard_{k}.npz"
        if path.exists():
            continue
        rng = random.Random(seed * 1_000_003 + k)
        rows = []
        t0 = time.process_time()
        for i in tqdm(range(hands), desc=f"shard {k + 1}/{shards}"):
            for st in boundaries(variant, seed * 1_000_003 + k * hands + i, rng):
                rows.append(boundary_record(st) + list(label(st, rollouts, rng, policy)))
        masks = np.array([r[:3] for r in rows], np.uint64)
        rest = np.array([r[3:] for r in rows], np.float64)
        tmp = path.with_suffix(".tmp.npz")
        # the CPU seconds it took: the x axis of the learning curve (``curve``)
        np.savez(tmp, masks=masks, rest=rest, rollouts=rollouts, hands=hands,
                 seconds=time.process_time() - t0)
        tmp.rename(path)


def shard_files(run: Path) -> list[Path]:
    """The run's finished shards in order (not one cut short: shard_k.tmp.npz)."""
    return sorted((p for p in run.glob("shard_*.npz") if p.stem[6:].isdigit()),
                  key=lambda p: int(p.stem[6:]))


def load(run: Path) -> tuple[list[np.ndarray], list[np.ndarray], int]:
    """Each shard's masks and other columns, in shard order, and the rollouts per label."""
    files = shard_files(run)
    if not files:
        raise SystemExit(f"tail_value: no shards in {run} (run collect first)")
    masks, rest, k = [], [], 0
    for f in files:
        with np.load(f) as z:
            masks.append(z["masks"])
            rest.append(z["rest"])
            k = int(z["rollouts"])
    return masks, rest, k


def features(masks: np.ndarray, rest: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inputs and targets of every boundary from both sides' views (side 1's target is the
    negation of side 0's)."""
    n = len(masks)
    both_m = np.concatenate([masks, masks])
    both_o = np.concatenate([rest[:, :4], rest[:, :4]])
    side = np.repeat([0, 1], n)
    x = boundary_inputs(both_m, both_o, side)
    y = np.concatenate([rest[:, 4], -rest[:, 4]]).astype(np.float32)
    return x, y


def fit(run: Path, save: Path, out: Path, hidden: int, epochs: int, seed: int,
        weight_decay: float = 0.01, shards: int | None = None, log: bool = True) -> dict:
    """Fit on the training shards (the first ``shards`` of them if given; the held-out shards
    are the last tenth of all, whatever ``shards`` is), save the best held-out epoch, and with
    ``log`` append to ``fits.csv`` and write ``curve.csv``/``curve.png`` in ``out``."""
    import torch
    from torch import nn
    from tqdm.auto import tqdm

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    meta = json.loads((run / "collect.json").read_text())
    masks, rest, k = load(run)
    held = max(1, len(masks) // 10)
    train = len(masks) - held if shards is None else shards
    if not 1 <= train <= len(masks) - held:
        raise SystemExit(f"tail_value: shards must be 1..{len(masks) - held} (the training "
                         f"shards in {run}), got {train}")
    t0 = time.process_time()
    xt, yt = features(np.concatenate(masks[:train]), np.concatenate(rest[:train]))
    xh, yh = features(np.concatenate(masks[-held:]), np.concatenate(rest[-held:]))
    noise = float(np.mean(np.concatenate(rest[-held:])[:, 5] ** 2) / k)
    scale = 10.0
    net = nn.Sequential(nn.Linear(xt.shape[1], hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                        nn.ReLU(), nn.Linear(hidden, 1))
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    X, Y = torch.from_numpy(xt), torch.from_numpy(yt / scale)
    XH = torch.from_numpy(xh)
    curve = []
    for _ in tqdm(range(epochs), desc="fit"):
        net.train()
        perm = torch.randperm(len(X))
        for b in range(0, len(X), 512):
            idx = perm[b:b + 512]
            loss = nn.functional.mse_loss(net(X[idx]).squeeze(-1), Y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        net.eval()
        with torch.no_grad():
            ph = net(XH).squeeze(-1).numpy() * scale
        curve.append(float(np.mean((ph - yh) ** 2)))
        if curve[-1] <= min(curve):  # keep the epoch that predicts held-out boundaries best
            best = ([(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy())
                     for m in net if isinstance(m, nn.Linear)], ph)
    weights, ph = best
    save_tail(save, weights, {"variant": meta["variant"], "scale": scale, "hidden": hidden,
                              "epochs": epochs, "best_epoch": int(np.argmin(curve)) + 1,
                              "weight_decay": weight_decay, "run": str(run), "rollouts": k,
                              "policy": meta.get("policy", "builder"),
                              "train_boundaries": len(xt) // 2})
    check = TailValue(save).values(xh)  # the saved file reproduces the fit
    row = {"variant": meta["variant"], "run": str(run), "save": str(save), "hidden": hidden,
           "epochs": epochs, "best_epoch": int(np.argmin(curve)) + 1,
           "weight_decay": weight_decay, "train_shards": train,
           "train_boundaries": len(xt) // 2,
           "held_out_boundaries": len(xh) // 2, "rollouts_per_label": k,
           "held_out_mse": round(min(curve), 4),
           "mean_predictor_mse": round(float(np.mean((yh - yt.mean()) ** 2)), 4),
           "label_noise": round(noise, 4),
           "saved_file_max_diff": float(np.max(np.abs(check - ph))),
           "fit_seconds": round(time.process_time() - t0, 1)}
    if not log:
        return row
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "fits.csv", "a", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(row))
        if f.tell() == 0:
            wr.writeheader()
        wr.writerow(row)
    rows = [{"epoch": i, "held_out_mse": v, "label_noise": noise}
            for i, v in enumerate(curve, 1)]
    write_table(out, "curve", ["epoch", "held_out_mse", "label_noise"], rows,
                lambda rs, path: plot_curve(rs, path, meta["variant"]))
    return row


def plot_curve(rows: list[dict], path: Path, variant: str) -> None:
    """The held-out squared error by epoch, over the labels' noise (the floor)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    x = [r["epoch"] for r in rows]
    ax.plot(x, [r["held_out_mse"] for r in rows], "o-", ms=3, label="held-out boundaries")
    ax.axhline(rows[0]["label_noise"], color="grey", ls="--", lw=1,
               label="labels' own noise (floor)")
    ax.set_xlabel("epoch")
    ax.set_ylabel("squared error (points²)")
    ax.set_title(f"{variant}: boundary value fit")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def decisions(variant: str, count: int, seed: int, share: float = 0.25) -> list[PlayerView]:
    """``count`` views of heuristic-against-heuristic single hands where the mover has a
    choice and cards are left to deal (a boundary lies ahead), each kept with chance
    ``share`` so that they spread over many hands."""
    rng = random.Random(seed)
    out: list[PlayerView] = []
    h = HeuristicAgent(seed)
    i = 0
    while len(out) < count:
        st = new_game(variant, 2, seed=seed * 1_000_003 + i)
        i += 1
        hp = st.hand_points
        while st.hand_points is hp and not st.game_over and len(out) < count:
            view = PlayerView(st, st.current)
            if st.stock_ids and len(generate(st)) > 1 and rng.random() < share:
                out.append(view)
            st = play(st, h.choose(view))
    return out


def oracle(view: PlayerView, candidates: list, deals: int, seed: int) -> list[float]:
    """Each candidate's mean hand point difference for the mover over ``deals`` shared
    determinizations, with full fast rollouts ("builder"): what the search estimates."""
    rng = random.Random(seed)
    rules = view.rules
    side = rules.side(view.seat)
    w = static_weights(rules)
    totals = [0.0] * len(candidates)
    for _ in range(deals):
        det = view.determinize(rng)
        rs = rng.getrandbits(32)
        for j, c in enumerate(candidates):
            totals[j] += determinization_value(det, play(det, c), side, w, rs)
    return [t / deals for t in totals]


def oracle_decisions(variant: str, count: int, seed: int, deals: int, cache: Path
                     ) -> list[tuple[PlayerView, list, list[float]]]:
    """The regret measure's decisions (``decisions``), each with the heuristic's 8 best moves
    and their ``oracle`` values. The values are kept in ``cache`` (JSON) and read back when it
    holds the same decisions and candidates, so each agent or network measured later costs
    only its own choices."""
    from tqdm.auto import tqdm

    views = decisions(variant, count, seed)
    cands = []
    for view in views:
        moves = view.legal_moves()
        scores = HeuristicAgent(seed).scores(view, moves)
        cands.append([moves[i] for i in sorted(range(len(moves)), key=lambda i: -scores[i])[:8]])
    key = {"variant": variant, "decisions": count, "seed": seed, "deals": deals,
           "candidates": [[str(c) for c in cs] for cs in cands]}
    if cache.exists():
        held = json.loads(cache.read_text())
        if {k: held.get(k) for k in key} == key:
            return list(zip(views, cands, held["values"]))
    values = [oracle(view, cs, deals, seed * 7919 + d)
              for d, (view, cs) in enumerate(tqdm(list(zip(views, cands)), desc="oracle"))]
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({**key, "values": values}))
    return list(zip(views, cands, values))


def choice_regret(table: list[tuple[PlayerView, list, list[float]]], spec: str, seed: int
                  ) -> list[dict]:
    """Each decision of ``table``: the agent's move, the points it loses below the oracle's
    best (None outside the candidates) and its CPU seconds (the simulator's caches cleared)."""
    from agents.registry import make_agent

    agent = make_agent(spec, seed=seed)
    rows = []
    for d, (view, cands, values) in enumerate(table):
        clear_caches()
        t0 = time.process_time()
        m = agent.choose(view)
        secs = time.process_time() - t0
        j = next((k for k, c in enumerate(cands) if c == m), None)
        rows.append({"decision": d, "agent": spec, "move": str(m),
                     "regret": None if j is None else round(max(values) - values[j], 4),
                     "seconds": round(secs, 5)})
    return rows


def _summary(rows: list[dict]) -> dict:
    """Mean points lost with its interval, choices outside the candidates, mean seconds."""
    from experiments.stats import t_interval

    lost = [r["regret"] for r in rows if r["regret"] is not None]
    m, lo, hi = t_interval(lost)
    return {"points_lost": m, "lo": lo, "hi": hi, "outside_candidates": len(rows) - len(lost),
            "seconds": float(np.mean([r["seconds"] for r in rows])),
            "regrets": [r["regret"] for r in rows]}


def _paired(a: list, b: list) -> tuple[float, float, float]:
    """Mean of a - b over the decisions where both chose among the candidates, with its
    Student-t interval: the same decisions, so far narrower than two separate intervals."""
    from experiments.stats import t_interval

    return t_interval([x - y for x, y in zip(a, b) if x is not None and y is not None])


def regret(variant: str, count: int, seed: int, specs: list[str], deals: int, out: Path
           ) -> list[dict]:
    """Points each agent's choice loses against the oracle's best candidate, and its time."""
    from tqdm.auto import tqdm

    table = oracle_decisions(variant, count, seed, deals, out / "oracle.json")
    rows = []
    for spec in tqdm(specs, desc="agents"):
        rows += choice_regret(table, spec, seed)
    rows.sort(key=lambda r: r["decision"])  # decision by decision, agents in their order
    with open(out / "regret.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    summary = []
    for spec in specs:
        mine = [r for r in rows if r["agent"] == spec]
        summary.append({"agent": spec, "decisions": len(mine), **_summary(mine)})
    first = summary[0]
    for r in summary:
        r["vs_first"], r["vs_first_lo"], r["vs_first_hi"] = _paired(r["regrets"],
                                                                    first["regrets"])
    lines = [f"# Points lost against a {deals}-determinization oracle ({variant}, seed {seed})",
             "", f"{len(table)} decisions of heuristic play with a choice, before the last "
             "deal. Each agent's move loses the oracle's value of it below the oracle's best "
             "of the heuristic's 8 best moves (full rollouts, the search's policy). The "
             "difference with the first row's agent is paired decision by decision.", "",
             "| agent | points lost a decision [95% CI] | minus the first row's [95% CI] | "
             "seconds a decision | time / first row's |", "|---|---|---|---|---|"]
    for r in summary:
        vs = "–" if r is first else (f"{r['vs_first']:+.3f} [{r['vs_first_lo']:+.3f}, "
                                     f"{r['vs_first_hi']:+.3f}]")
        lines.append(f"| `{r['agent']}` | {r['points_lost']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}]"
                     f" | {vs} | {r['seconds']:.3f} | {r['seconds'] / first['seconds']:.2f} |")
    for r in summary:  # per decision, they are in regret.csv
        del r["regrets"]
    (out / "regret.md").write_text("\n".join(lines) + "\n")
    (out / "regret.json").write_text(json.dumps(
        {"variant": variant, "seed": seed, "decisions": count, "deals": deals,
         "agents": summary}, indent=1))
    return summary


LEARNING_FIELDS = ("train_shards", "train_hands", "train_boundaries", "collect_minutes",
                   "fit_minutes", "minutes", "timesteps", "held_out_mse", "label_noise",
                   "points_lost", "lo", "hi", "vs_most", "vs_most_lo", "vs_most_hi",
                   "outside_candidates", "seconds", "agent")


def learning(run: Path, counts: list[int], count: int, seed: int, deals: int,
             simulations: int, hidden: int, epochs: int, references: list[str], out: Path
             ) -> list[dict]:
    """The learning curve of the search on a boundary value: for each number of training
    shards, a network fitted on the first that many (the same held-out shards, settings and
    seed as ``fit``), then the points ``search:tail=NET,simulations=...`` loses against the
    oracle on fixed decisions (``oracle_decisions``), over the CPU time spent on collecting
    and fitting. ``references`` (agent specs, e.g. the plain search) are measured on the same
    decisions once. ``vs_most``: a network's points lost minus those of the network on the
    most shards, paired decision by decision. Resumable: rows already in ``learning.json``
    are kept."""
    from tqdm.auto import tqdm

    from experiments.curves import Metric, plot_steps_and_minutes

    meta = json.loads((run / "collect.json").read_text())
    variant = meta["variant"]
    seconds = []
    for k in range(max(counts)):
        with np.load(run / f"shard_{k}.npz") as z:
            if "seconds" not in z:
                raise SystemExit(f"tail_value: {run}/shard_{k}.npz has no collection time "
                                 "(collected before it was recorded): collect it again")
            seconds.append(float(z["seconds"]))
    state_path = out / "learning.json"
    state = json.loads(state_path.read_text()) if state_path.exists() else {}
    # the held-out shards are the last tenth of those on disk: the same count, the same split
    settings = {"run": str(run), "run_shards": len(shard_files(run)), "decisions": count,
                "seed": seed, "deals": deals, "simulations": simulations, "hidden": hidden,
                "epochs": epochs}
    if state.get("settings", settings) != settings:
        raise SystemExit(f"tail_value: {state_path} was made with other settings "
                         f"({state['settings']}); give another --out")
    state["settings"] = settings
    table = oracle_decisions(variant, count, seed, deals, out / "oracle.json")
    refs = state.setdefault("references", {})
    for spec in references:
        if spec not in refs:
            refs[spec] = _summary(choice_regret(table, spec, seed))
            state_path.write_text(json.dumps(state, indent=1))
    rows = state.setdefault("rows", {})
    for n in tqdm(sorted(counts), desc="networks"):
        if "regrets" in rows.get(str(n), {}):
            continue
        net = run / "curve_nets" / f"tail_{n}.npz"  # with the data: rebuilt, not committed
        f = fit(run, net, out, hidden, epochs, 0, shards=n, log=False)
        spec = f"search:tail={net},simulations={simulations}"
        collect_min = sum(seconds[:n]) / 60
        fit_min = f["fit_seconds"] / 60
        rows[str(n)] = {"train_shards": n, "train_hands": n * int(meta["hands"]),
                        "train_boundaries": f["train_boundaries"],
                        "collect_minutes": collect_min, "fit_minutes": fit_min,
                        "minutes": collect_min + fit_min, "timesteps": f["train_boundaries"],
                        "held_out_mse": f["held_out_mse"], "label_noise": f["label_noise"],
                        "agent": f"search on the value, {simulations} rollouts",
                        **_summary(choice_regret(table, spec, seed))}
        state_path.write_text(json.dumps(state, indent=1))
    got = [rows[k] for k in sorted(rows, key=int)]
    for r in got:  # each network against the one fitted on the most shards, decision by decision
        r["vs_most"], r["vs_most_lo"], r["vs_most_hi"] = _paired(r["regrets"], got[-1]["regrets"])
    lines = [(spec, r["points_lost"], ("--", ":", "-.")[i % 3])  # one line per reference
             for i, (spec, r) in enumerate(refs.items())]
    metrics = [Metric("points_lost", "lo", "hi", "points lost a decision",
                      refs=[(y, style) for _, y, style in lines]),
               Metric("held_out_mse", "held_out_mse", "held_out_mse",
                      "held-out squared error (points²)",
                      refs=[(got[0]["label_noise"], "--")] if got else [])]
    refs_text = ", ".join(f"{spec} {y:.3f} ({style})" for spec, y, style in lines)
    write_table(out, "learning", LEARNING_FIELDS, got, lambda rs, path: plot_steps_and_minutes(
        rs, path, metrics, group="agent",
        title=f"{variant}: boundary value, by training data (lines: {refs_text}; "
              "labels' noise)", minutes_label="CPU minutes (collect + fit)",
        steps_label="training boundaries"))
    return got


def tail_path(variant: str) -> Path:
    """Where ``build`` writes a preset's boundary value (and where the pipelines look for it)."""
    return Path("experiments/results/exit") / f"tail_value_{variant}" / "tail.npz"


def build(variant: str) -> dict:
    """A preset's boundary value with the shipped settings, resumable: 20 shards of 1,000 hands
    into ``runs/tail_value/<variant>``, then the fit into
    ``experiments/results/exit/tail_value_<variant>/tail.npz``; returns the fit's row."""
    run, tail = Path("runs/tail_value") / variant, tail_path(variant)
    collect(variant, 1000, 20, 0, 16, run)
    return fit(run, tail, tail.parent, 256, 20, 0)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="labelled deal boundaries, in shards")
    c.add_argument("--variant", default="casino")
    c.add_argument("--hands", type=int, default=500, help="hands per shard")
    c.add_argument("--shards", type=int, default=10)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--rollouts", type=int, default=16, help="rollouts per label")
    c.add_argument("--policy", choices=POLICIES, default="builder",
                   help="whose play the rollouts follow: the search's fast rollouts "
                        "(builder) or the heuristic in every seat")
    c.add_argument("--run", type=Path, required=True)
    f = sub.add_parser("fit", help="fit the boundary value network")
    f.add_argument("--run", type=Path, required=True)
    f.add_argument("--save", type=Path, required=True)
    f.add_argument("--out", type=Path, required=True)
    f.add_argument("--hidden", type=int, default=128)
    f.add_argument("--epochs", type=int, default=20)
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--weight-decay", type=float, default=0.01)
    f.add_argument("--shards", type=int, default=None,
                   help="train on the first N shards only (default: all but the held-out tenth)")
    r = sub.add_parser("regret", help="points lost against an oracle, and time, per agent")
    r.add_argument("--variant", default="casino")
    r.add_argument("--decisions", type=int, default=300)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--deals", type=int, default=1000, help="the oracle's determinizations")
    r.add_argument("--agents", nargs="+", required=True)
    r.add_argument("--out", type=Path, required=True)
    lc = sub.add_parser("curve", help="learning curve: networks on more and more shards, "
                        "each measured by regret")
    lc.add_argument("--run", type=Path, required=True)
    lc.add_argument("--shards", type=int, nargs="+", required=True,
                    help="training shard counts, one network each")
    lc.add_argument("--decisions", type=int, default=200)
    lc.add_argument("--seed", type=int, default=1)
    lc.add_argument("--deals", type=int, default=600, help="the oracle's determinizations")
    lc.add_argument("--simulations", type=int, default=400)
    lc.add_argument("--hidden", type=int, default=256)
    lc.add_argument("--epochs", type=int, default=20)
    lc.add_argument("--references", nargs="*", default=["search"],
                    help="agent specs measured once on the same decisions")
    lc.add_argument("--out", type=Path, required=True)
    b = sub.add_parser("build", help="collect (20 shards of 1,000 hands, resumable), then fit")
    b.add_argument("--variant", default="casino")
    a = p.parse_args(argv)
    if a.cmd == "build":
        print(json.dumps(build(a.variant), indent=1))
    elif a.cmd == "collect":
        collect(a.variant, a.hands, a.shards, a.seed, a.rollouts, a.run, a.policy)
    elif a.cmd == "curve":
        for row in learning(a.run, a.shards, a.decisions, a.seed, a.deals, a.simulations,
                            a.hidden, a.epochs, a.references, a.out):
            print(row)
    elif a.cmd == "fit":
        print(json.dumps(fit(a.run, a.save, a.out, a.hidden, a.epochs, a.seed,
                             a.weight_decay, a.shards), indent=1))
    else:
        for row in regret(a.variant, a.decisions, a.seed, a.agents, a.deals, a.out):
            print(row)


if __name__ == "__main__":
    main()
