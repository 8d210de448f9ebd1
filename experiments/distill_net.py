"""A fast student of a shipped afterstate network (issue 18: the network alone at 1,000+
decisions a second on one core).

    python -m experiments.distill_net pipeline --variant casino    # all of it, resumable

    python -m experiments.distill_net collect --variant casino --shards 24 --workers 2 \
        --run runs/distill_net/casino_before_last
    python -m experiments.endgame_net fit --run runs/distill_net/casino_before_last \
        --net mlp --hidden 256 --loss centered --augment --epochs 8 \
        --checkpoint runs/distill_net/casino_before_last_256.ckpt \
        --save experiments/results/exit/distill_net_casino/student_256.pt \
        --out experiments/results/exit/distill_net_casino

The shipped networks are transformers over the cards in play (``agents.afterstate``). Their
forward pass is a hundred small array operations, and on a decision's few afterstates that
costs what the operations cost to dispatch, not their arithmetic: about 0.7 ms of a casino
decision's 1.45 ms on an idle core. An MLP's pass is a handful of matrix products. This fits
one to the transformer's values (knowledge distillation): the teacher's valuations are free
to make in any number, so the student learns from far more afterstates than the teacher
was fitted on, of the positions the network-alone agent reaches.

**collect** -- ``networks:VARIANT`` (the teacher, the preset's shipped networks) plays both
seats of two-player single hands (15% random moves, so the positions vary). At every decision
with a choice in ``--scope`` (``before_last``: the decisions before the last deal, among the
teacher's candidates, the heuristic's best-scored moves; ``last_deal``: every legal move of a
last-deal decision), each move's row is its afterstate as the teacher's network reads it, and
its label is the teacher's value of it. Shards in ``experiments.endgame_net``'s format (the
hand is the held-out unit), written as they finish; a rerun skips those on disk. Its ``fit``
fits them (``--net mlp``) and saves a network of the teacher's scope, which
``networks:VARIANT,midgame_net=PATH`` (``endgame_net=PATH`` for the last deal) plays.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import random
from pathlib import Path

import numpy as np

from experiments.endgame_net import EXPLORE, _save_shard, record_collect, shard_path


def teacher_paths(variant: str, networks: tuple[str, str] | None = None
                  ) -> tuple[str | None, str | None]:
    """The teacher's files before and on the last deal: ``networks`` where given, else the
    shipped ones (``agents.networks.TEACHERS``, ``SET_NETWORKS``; relative to the checkout),
    None where a preset ships none."""
    from agents.networks import SET_NETWORKS, TEACHERS

    if networks is not None:
        return str(networks[0]), str(networks[1])
    return TEACHERS.get(variant), SET_NETWORKS.get(variant, (None, None))[1]


def teacher(variant: str, scope: str, networks: tuple[str, str] | None = None):
    """The preset's network-alone agent with its set networks (before the last deal the one
    a shipped student was fitted to, ``agents.networks.TEACHERS``, on it the set network even
    where a student plays there; or ``networks``, the paths of a preset's set networks before
    and on the last deal, for one that ships none yet) and its network of ``scope``; returns
    (NetworksAgent, AfterstateNet)."""
    from agents.afterstate import SCOPES
    from agents.networks import ROOT, NetworksAgent

    if scope not in SCOPES:
        raise SystemExit(f"error: --scope must be one of {', '.join(SCOPES)}, got {scope!r}")
    mid, end = teacher_paths(variant, networks)
    if networks is None:  # the shipped files, wherever the checkout is
        mid, end = (None if p is None else str(ROOT / p) for p in (mid, end))
    try:
        agent = NetworksAgent(variant, midgame_net=mid, endgame_net=end)
    except ValueError as e:
        raise SystemExit(f"error: {e}") from e
    return agent, agent.midgame_net if scope == "before_last" else agent.endgame_net


def collect_shard(job: tuple) -> str:
    """Play ``hands`` hands (see the module text) and save the teacher's valued afterstates."""
    from agents.afterstate import (
        BEFORE_LAST,
        _scorer,
        afterstate_row,
        heuristic_columns,
        heuristic_pick,
        top_candidates,
    )
    from agents.endgame import perfect_information
    from casino_env.engine import apply_move, legal_moves, new_game
    from casino_env.engine.play import play
    from casino_env.engine.view import PlayerView

    variant, scope, hands, seed, dest, *networks = job
    rng = random.Random(seed)
    agent, net = teacher(variant, scope, networks[0] if networks else None)
    heuristic = _scorer()
    hidden = scope == BEFORE_LAST
    width = net.layout.size + 52 + 2
    xs, ys, groups, picks, deals, decision = [], [], [], [], [], 0
    for k in range(hands):
        st = new_game(variant, 2, seed=seed * 100_000 + k)
        hand = st.hand_points
        while not st.game_over and st.hand_points is hand:
            view = PlayerView(st, st.current)
            moves = legal_moves(st)
            if len(moves) > 1 and perfect_information(view) != hidden:
                scores = heuristic.scores(view, moves)
                cands = moves
                if hidden:
                    order = top_candidates(scores, net.candidates or len(moves))
                    cands, scores = [moves[i] for i in order], [scores[i] for i in order]
                # the mover's view of the true state: before the last deal its rows hide
                # what the view hides (after a round's last move they hold the next round's
                # true cards, as the teacher was fitted: agents.afterstate, midgame_samples)
                values = net.values(st, cands, scores)
                cols = heuristic_columns(st, cands, scores)
                own = cands[heuristic_pick(scores)]
                for m, v, c in zip(cands, values, cols):
                    row = afterstate_row(net.layout, play(st, m, deal_next=False), st.current,
                                         hidden)
                    xs.append(np.r_[row, c].astype(np.float16))
                    ys.append(float(v))
                    groups.append(decision)
                    picks.append(m is own)
                    deals.append(k)
                decision += 1
                chosen = cands[int(np.argmax(values))]
            else:
                chosen = agent.choose(view)
            st = apply_move(st, rng.choice(moves) if rng.random() < EXPLORE else chosen)
    return _save_shard(dest, xs, ys, groups, picks, width, deals, scope=scope,
                       candidates=net.candidates if hidden else 0)


def collect(variant: str, scope: str, hands: int, shards: int, seed: int, workers: int,
            run: Path, networks: tuple[str, str] | None = None) -> None:
    """``shards`` shards of ``hands`` hands into ``run`` (those on disk are kept); the
    teacher is ``networks`` where given (see ``teacher``). A run of shards of other settings
    (another teacher included) is refused (``endgame_net.record_collect``)."""
    from tqdm.auto import tqdm

    from agents.tournament import derive_seed

    if hands < 1 or shards < 1 or workers < 1:
        raise SystemExit(f"error: --hands, --shards and --workers must be >= 1, got {hands}, "
                         f"{shards} and {workers}")
    teacher(variant, scope, networks)  # a preset without networks fails here, not in a worker
    # the teacher's files as named (the shipped ones where none are given: those may change)
    record_collect(run, {"variant": variant, "scope": scope, "hands": hands, "seed": seed,
                         "teacher": list(teacher_paths(variant, networks))})
    jobs = [(variant, scope, hands, derive_seed("distill_net", seed, k) % 10**6,
             shard_path(run, k), networks) for k in range(shards)
            if not shard_path(run, k).exists()]
    with mp.get_context("forkserver").Pool(workers) as pool:
        for _ in tqdm(pool.imap_unordered(collect_shard, jobs), total=len(jobs),
                      desc=f"{variant} {scope} shards"):
            pass


def pipeline(variant: str, scope: str, out: Path, runs: Path, shards: int, hands: int,
             workers: int, hidden: int, epochs: int, match_hands: int,
             networks: tuple[str, str] | None = None, beside: str | None = None,
             keep_other: bool = False) -> dict:
    """Collect, fit the student (checkpointed: a rerun resumes), save it in ``out`` and play
    the network-alone agent with it against the heuristic (``out``/student_WIDTH_v_heuristic);
    the teacher is ``networks`` where given (see ``teacher``), and beside the student the
    match plays ``beside`` (a network of the other scope, e.g. the before-last student beside
    a last deal's), else the teacher's. Returns the match's summary ({} where ``keep_other``
    leaves a match of other agents in its folder: ``endgame_net.closing_match``)."""
    from experiments.endgame_net import closing_match, fit, fitted, suits_alike, unrecorded

    run = runs / f"{variant}_{scope}"
    save = out / f"student_{hidden}.pt"
    # the shards only feed the fit: a fresh checkout need not remake them
    if fitted(save, shards, hidden):
        print(f"[1-2/3] {save} is there (delete it to collect and fit again)", flush=True)
    else:
        unrecorded(save)
        print(f"[1/3] {shards} shards of the teacher's values into {run}", flush=True)
        collect(variant, scope, hands, shards, 1, workers, run, networks)
        print(f"[2/3] the student ({hidden} wide) into {save}", flush=True)
        fit(run, out, variant, hidden, epochs, suits_alike(variant), 0, True, "centered",
            save=save, checkpoint=runs / f"{variant}_{scope}_{hidden}.ckpt", threads=1)
    option = "midgame_net" if scope == "before_last" else "endgame_net"
    print(f"[3/3] the network alone with the student against the heuristic, "
          f"{match_hands:,} hands", flush=True)
    agent = f"networks:{variant},{option}={save}"
    if networks is not None or beside is not None:  # a network of the other scope beside it
        option, k = ("endgame_net", 1) if scope == "before_last" else ("midgame_net", 0)
        agent += f",{option}={beside if beside is not None else networks[k]}"
    return closing_match(variant, agent,
                         out / f"student_{hidden}_v_heuristic", match_hands, workers,
                         keep_other)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="the teacher's valued afterstates")
    p = sub.add_parser("pipeline", help="collect, fit, closing match")
    for q in (c, p):
        q.add_argument("--variant", default="casino")
        q.add_argument("--scope", default="before_last", help="before_last or last_deal")
        q.add_argument("--hands", type=int, default=500, help="hands a shard (default 500)")
        q.add_argument("--shards", type=int, default=24)
        q.add_argument("--workers", type=int, default=2)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--run", type=Path, required=True)
    p.add_argument("--out", type=Path, default=None,
                   help="default experiments/results/exit/distill_net_VARIANT")
    p.add_argument("--runs", type=Path, default=Path("runs/distill_net"))
    p.add_argument("--hidden", type=int, default=256, help="the MLP's width (default 256)")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--match-hands", type=int, default=5000,
                   help="of the closing match against the heuristic (default 5000)")
    p.add_argument("--networks", nargs=2, default=None, metavar=("BEFORE_LAST", "LAST_DEAL"),
                   help="the teacher's two set networks (default: the preset's shipped ones)")
    a = ap.parse_args(argv)
    if a.cmd == "collect":
        collect(a.variant, a.scope, a.hands, a.shards, a.seed, a.workers, a.run)
    else:
        out = a.out or Path(f"experiments/results/exit/distill_net_{a.variant}")
        print(pipeline(a.variant, a.scope, out, a.runs, a.shards, a.hands, a.workers,
                       a.hidden, a.epochs, a.match_hands,
                       tuple(a.networks) if a.networks else None))


if __name__ == "__main__":
    main()
