"""Can a value network learn the last deal from exact values? (issue 18, network alone)

    python -m experiments.endgame_net collect --variant casino --shards 20 --workers 2 \\
        --run runs/endgame_net/casino
    python -m experiments.endgame_net fit --run runs/endgame_net/casino --augment \\
        --out experiments/results/exit/endgame_net_casino
    python -m experiments.endgame_net collect --variant casino --hands 400 --shards 10 \\
        --seed 2 --workers 2 --tree 0.02 --run runs/endgame_net/casino_tree

Exact last-deal play is worth 55.6-57.1% of hands against the heuristic (docs/expert_iteration.md),
about the network-alone target, and the move-scoring networks do not learn it from 50,000
exact labels. This asks the question with the simplest learner that could: a value network
over *afterstates*, trained by regression on exact minimax values.

1. **collect** — the heuristic plays both seats of two-player single hands (15% random moves,
   so the positions vary); at every last-deal decision with a choice (the view determines the
   state) ``agents.endgame.move_values`` values every legal move exactly, and each move's
   afterstate is encoded from the mover's seat (the environment's compact observation plus a
   plane of the opponent's known hand) with that value: the hand's point difference under
   best play by both. Shards of ``--hands`` hands each, written as they finish (a rerun skips
   those on disk).
2. **fit** — an MLP regresses what play adds to each afterstate's static lead (the piles scored
   as they stand, also an input; ``--no-residual``: the value itself), by squared error of each
   move's value (``--loss value``) or of its difference from its decision's mean
   (``centered``); decisions are split into training and held-out ones (10%). Its move at a
   held-out decision is the afterstate it values highest; the measure is the points that move
   loses against exact play, next to the heuristic's move on the same decisions. ``--augment``
   swaps hearts and clubs at random (a symmetry of the scoring where the two suits score alike;
   in tuxedo red and yellow, and green and blue, each pair at random; refused elsewhere).

``collect --tree SHARE`` collects differently: at each hand's first last-deal decision the
whole rest of the deal is solved by memoised minimax (every position's value exact) and a
random SHARE of its positions with a choice are recorded, off the heuristic's lines too, about
a thousand times more decisions per hand (``tree_records``; correlated within a deal, so its
decisions only train: ``fit --extra TREE_RUN [...]`` adds them to the training side of ``--run``'s
split, whose held-out decisions stay the measure). ``fit`` options: ``--dropout``,
``--weight-decay``, ``--ranks`` (per-rank counts of my hand, the loose table and the
opponent's hand as inputs).

Tree shards keep each decision's deal, and a fit whose ``--run`` has them holds out whole
deals (a deal's decisions share its cards). ``collect --heuristic-scores`` ends each row with
the default heuristic's score of the move and its gap to the decision's best (the network
learns a correction to it) and keeps the heuristic's choices;
``collect --walks N`` records the decisions met by N heuristic play-outs of each solved deal
(the positions play reaches, valued from the tree). ``online`` measures points lost on the
heuristic's own line (no random moves), the heuristic's and each saved network's (``--margins``:
each also at each ``endgame_margin``; ``--labels``: the move each cheap labelling values
highest, for deals too large to solve whole, ``LABELS``). ``fit --regret W`` adds W times the
points a softmax choice loses; ``fit --card-weights`` weighs decisions by the cards in hand.

``pipeline --variant V`` does one preset's network-alone last deal end to end, each step
resumed where it stopped: 4 tree shards (seed 7), 24 play-out shards of 20 walks (seed 9), the
set network (64 wide, 2 layers, cosine, 6 epochs, a checkpoint each epoch; ``--hidden`` and
``--lr-schedule`` change the first two), then the cloned policy with it against the heuristic
(2,000 hands, seed 21).

Files: ``RUN/shard_<k>.npz`` and ``RUN/collect.json`` (the collect's settings: a run's shards
are all of one, here and in ``midgame_net`` and ``distill_net``; ``record_collect``); in
``OUT``: ``fits.csv`` (a row per fit) and ``summary.md``;
``online``: ``online.csv`` and ``online.md``.
"""

from __future__ import annotations

import argparse
import csv
import json
import multiprocessing as mp
import random
import time
from pathlib import Path

import numpy as np

HELD_SHARE = 0.1
EXPLORE = 0.15
FIELDS = ("variant", "net", "shards", "decisions", "afterstates", "hidden", "epochs", "augment",
          "residual", "loss", "dropout", "weight_decay", "ranks", "heuristic_scores",
          "regret", "regret_temp", "card_weights", "extra_decisions",
          "train_decisions", "held_decisions", "heuristic_lost", "net_lost", "net_train_lost",
          "held_mse", "fit_minutes", "lr_schedule", "label", "init", "lr", "base")
# what a fit regresses on (``load``'s label): each move's mean hand point difference, or its
# mean hand result (+1 won, 0 drawn, -1 lost; ``y_won``, where rollouts ran to the hand's end)
LABELS_FITTED = ("points", "won")
LR_SCHEDULES = ("constant", "cosine")
LR = 1e-3  # the fits' learning rate (AdamW), unless --lr
BATCH = 128  # decisions a step (all of each decision's moves)
HEARTS, CLUBS = 1, 3  # suit order in a card id (4 * rank + suit): S, H, D, C
ROOK_RED, ROOK_YELLOW, ROOK_GREEN, ROOK_BLUE = 0, 1, 2, 3  # the Rook deck's: R Y G B


def shard_path(run: Path, k: int) -> Path:
    return run / f"shard_{k:03d}.npz"


def record_collect(run: Path, settings: dict, data: bool | None = None) -> None:
    """Write a collect's ``settings`` to ``run``/collect.json, refusing a run whose data on
    disk was collected with others: its shards would be fitted together unseen (every
    collect's guard: here, ``midgame_net``, ``distill_net``, ``endgame_fit``, ``tail_value``).
    ``data``: whether the run holds data (default: any finished shard). A run made before this
    record (no file) is taken as of ``settings``."""
    path = run / "collect.json"
    settings = json.loads(json.dumps(settings))  # tuples as lists, as read back
    if data is None:
        data = any(run.glob("shard_[0-9][0-9][0-9].npz"))
    if data and path.is_file():
        before = json.loads(path.read_text())
        diff = sorted(k for k in before.keys() | settings.keys()
                      if before.get(k) != settings.get(k))
        if diff:
            raise SystemExit(
                f"error: {run} holds data collected with other settings ("
                + "; ".join(f"{k}: {before.get(k)!r} there, {settings.get(k)!r} now"
                            for k in diff)
                + f"); give its settings to add to it, another run folder for these, or "
                f"delete its data and {path.name} to collect it anew")
    run.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=1) + "\n")


def _exact_line(variant: str, hands, seed: int, heuristic, rng: random.Random | None = None,
                max_cards: int = 0):
    """Single hands (numbered by ``hands``, an iterable) played by ``heuristic`` on both seats
    (with ``rng``: a random move instead with probability EXPLORE): at each last-deal decision
    with a choice that the solver values, yields (state, moves, view, the heuristic's move,
    each move's exact value). ``max_cards``: not tried where the mover holds more (swazi's 12
    cards a deal: the solver gives up there only after seconds)."""
    from agents.endgame import move_values, perfect_information
    from casino_env.engine import apply_move, legal_moves, new_game
    from casino_env.engine.view import PlayerView

    for k in hands:
        st = new_game(variant, 2, seed=seed * 100_000 + k)
        hand = st.hand_points
        while not st.game_over and st.hand_points is hand:
            moves = legal_moves(st)
            view = PlayerView(st, st.current)
            own = heuristic.choose(view)
            if len(moves) > 1 and perfect_information(view) and not (
                    max_cards and st.hand_masks[st.current].bit_count() > max_cards):
                values = move_values(st, 200_000)
                if values is not None:
                    yield st, moves, view, own, values
            explore = rng is not None and rng.random() < EXPLORE
            st = apply_move(st, rng.choice(moves) if explore else own)


def collect_shard(job: tuple) -> str:
    """Play ``hands`` hands (see the module text) and save their exact afterstates."""
    from agents.afterstate import afterstate_row, layout_of
    from agents.scripted import HeuristicAgent
    from casino_env.engine import new_game
    from casino_env.engine.play import play

    variant, hands, seed, dest = job
    rng = random.Random(seed)
    heuristic = HeuristicAgent(seed)
    layout = layout_of(new_game(variant, 2, seed=0).rules)
    width = layout.size + 52
    xs, ys, groups, picks = [], [], [], []
    for decision, (st, moves, _, own, values) in enumerate(
            _exact_line(variant, range(hands), seed, heuristic, rng)):
        for m in moves:
            xs.append(afterstate_row(layout, play(st, m, deal_next=False), st.current)
                      .astype(np.float16))
            ys.append(values[m])
            groups.append(decision)
            picks.append(m == own)
    return _save_shard(dest, xs, ys, groups, picks, width)


def _save_shard(dest: Path, xs: list, ys: list, groups: list, picks: list, width: int,
                deals: list | None = None, scope: str | None = None,
                candidates: int = 0, max_cards: int = 0, won: list | None = None) -> str:
    """Write a shard whole (through a .tmp file, so ``load`` never sees half of one); ``deals``:
    each row's deal, where held-out decisions are to be whole deals; ``scope``: where a
    network fitted on it plays (``agents.afterstate.SCOPES``; none: the last deal), with the
    ``candidates`` it chooses among; ``max_cards``: the most cards a mover held (0: any);
    ``won``: each row's mean hand result besides its points (``y_won``, ``load``'s label)."""
    tmp = dest.with_suffix(".tmp.npz")
    more = {} if deals is None else {"deal": np.array(deals, np.int64)}
    if won is not None:
        more["y_won"] = np.array(won, np.float32)
    if scope is not None:
        more |= {"scope": np.array(scope), "candidates": np.array(candidates)}
    if max_cards:
        more["max_cards"] = np.array(max_cards)
    np.savez_compressed(tmp, x=np.array(xs).reshape(-1, width), y=np.array(ys, np.float32),
                        group=np.array(groups, np.int64), heuristic=np.array(picks, bool),
                        **more)
    tmp.replace(dest)
    return str(dest)


def _value_key(st) -> tuple:
    """What the rest of a last deal's value depends on (not the order cards were taken in)."""
    return (st.current, st.hand_masks, st.loose_mask, st.builds, st.pile_masks, st.pile_ids,
            st.sweeps, st.last_capturer, tuple(sorted(st.events)), st.met, st.pending_orange,
            st.extra_turn)


def tree_records(st, share: float, rng: random.Random, node_limit: int, encode,
                 bias: float = 1.0, annotate=None, walks: int = 0, choose=None
                 ) -> list | None:
    """Exact minimax over the whole last deal from ``st`` (memoised, no pruning, so every
    position's value is exact), recording, at a random ``share`` of the positions with a
    choice (times ``bias`` per card the mover holds beyond one, at most all: the early,
    costly decisions more often than the many deep, easy ones), each move's afterstate
    (``encode(after, seat)``) with its value for the mover: [(decision, row, value)], or None
    past ``node_limit`` positions. ``annotate(position, moves)``, if given, is called at each
    recorded position and its i-th item ends the i-th move's record (a fourth field).

    ``walks``: after the solve, play the deal out that many times from ``st``, each move
    ``choose(position, moves)``'s or, with probability EXPLORE, a random one, and record every
    position with a choice met on the way (once each): the decisions play actually meets,
    valued from the same solved tree."""
    from agents.endgame import lead
    from casino_env.engine import legal_moves
    from casino_env.engine.play import play

    memo: dict = {}
    out: list = []
    budget, recorded = [node_limit], [0]

    def value(s) -> float:  # side 0's lead under best play
        k = _value_key(s)
        got = memo.get(k)
        if got is not None:
            return got
        budget[0] -= 1
        if budget[0] < 0:
            raise OverflowError
        moves = legal_moves(s)
        kids = children(s, moves)
        best = (max if s.rules.side(s.current) == 0 else min)(v for _, v in kids)
        if len(moves) > 1 and rng.random() < share * bias ** (s.hand_masks[s.current]
                                                             .bit_count() - 1):
            record(s, moves, kids)
        memo[k] = best
        return best

    def children(s, moves: list) -> list:  # (afterstate, side 0's lead from it) per move
        kids = []
        for m in moves:
            nxt = play(s, m, deal_next=False)
            end = nxt.hand_points is not s.hand_points or nxt.game_over
            kids.append((nxt, lead(nxt, 0) if end else value(nxt)))
        return kids

    def record(s, moves: list, kids: list) -> None:
        sign = 1 if s.rules.side(s.current) == 0 else -1
        notes = annotate(s, moves) if annotate is not None else None
        for i, (nxt, v) in enumerate(kids):
            rec = (recorded[0], encode(nxt, s.current), sign * v)
            out.append(rec if notes is None else rec + (notes[i],))
        recorded[0] += 1

    try:
        value(st)
    except OverflowError:
        return None
    met: set = set()
    for _ in range(walks):  # every position is solved now: value() only reads the memo
        s = st
        while True:
            moves = legal_moves(s)
            kids = children(s, moves)
            k = _value_key(s)
            if len(moves) > 1 and k not in met:
                met.add(k)
                record(s, moves, kids)
            i = rng.randrange(len(moves)) if rng.random() < EXPLORE else \
                moves.index(choose(s, moves))
            nxt = kids[i][0]
            if nxt.hand_points is not s.hand_points or nxt.game_over:
                break
            s = nxt
    return out


def collect_tree_shard(job: tuple) -> str:
    """Like ``collect_shard``, but at each hand's first last-deal decision the whole rest of
    the deal is solved and a share of all its positions with a choice are recorded (far more
    exact decisions per hand, off the heuristic's own lines too), each with its hand as its
    deal; the hand then ends (``from_cards``, a ninth item of ``job``: at its first last-deal
    decision where the mover holds at most that many cards, for deals too large to solve
    whole; the network fitted on it plays only there). With
    ``scores``, each row ends with the heuristic's columns (``heuristic_columns``) and the
    heuristic's choice at each recorded decision is kept (its top-scored move)."""
    from agents.afterstate import afterstate_row, heuristic_columns, layout_of
    from agents.endgame import perfect_information
    from agents.scripted import HeuristicAgent
    from casino_env.engine import apply_move, legal_moves, new_game
    from casino_env.engine.view import PlayerView

    variant, hands, seed, dest, share, node_limit, bias, scores, walks, *rest = job
    from_cards = rest[0] if rest else 0
    rng = random.Random(seed)
    heuristic = HeuristicAgent(seed)
    rules = new_game(variant, 2, seed=0).rules
    layout = layout_of(rules)
    width = layout.size + 52 + (2 if scores else 0)

    def encode(after, me: int) -> np.ndarray:
        return afterstate_row(layout, after, me).astype(np.float16)

    def annotate(position, moves) -> list:  # (the heuristic's columns, its choice) per move
        cols = heuristic_columns(position, moves)
        top = int(np.argmax(cols[:, 0]))
        return [(c, i == top) for i, c in enumerate(cols)]

    xs, ys, groups, picks, deals, decision = [], [], [], [], [], 0
    for k in range(hands):
        st = new_game(variant, 2, seed=seed * 100_000 + k)
        hand = st.hand_points
        while not st.game_over and st.hand_points is hand:
            view = PlayerView(st, st.current)
            if perfect_information(view) and not (
                    from_cards and st.hand_masks[st.current].bit_count() > from_cards):
                recs = tree_records(st, share, rng, node_limit, encode, bias,
                                    annotate if scores else None, walks,
                                    lambda s, _: heuristic.choose(PlayerView(s, s.current)))
                for d, row, v, *note in recs or ():
                    xs.append(np.r_[row, note[0][0].astype(np.float16)] if note else row)
                    picks.append(bool(note[0][1]) if note else False)
                    ys.append(v)
                    groups.append(decision + d)
                    deals.append(k)
                decision = (groups[-1] + 1) if groups else 0
                break
            moves = legal_moves(st)
            own = heuristic.choose(view)
            st = apply_move(st, rng.choice(moves) if rng.random() < EXPLORE else own)
    return _save_shard(dest, xs, ys, groups, picks, width, deals, max_cards=from_cards)


def player_seat(hand: int) -> int:
    """The seat ``heuristic_line``'s ``player`` takes in its ``hand``-th hand (they alternate,
    so it moves first in half of them)."""
    return hand % 2


def heuristic_line(variant: str, hands: int, seed: int, rng: random.Random, player=None):
    """Every decision of ``hands`` single two-player hands (dealt from ``seed``) that the
    default heuristic (seeded ``seed``) plays on both seats, a random move instead with
    probability ``EXPLORE`` (drawn from ``rng`` after the caller's turn): yields (the hand's
    number, state, view, legal moves, the heuristic's scores of them, its move). The line the
    rollout- and play-out-valued collects record. ``player`` (an agent): it plays seat
    ``player_seat(k)`` of hand ``k`` instead (its own move, or the random one); what is yielded is
    still the heuristic's scores and move there, so the line visits the positions ``player``
    meets against the heuristic."""
    from agents.afterstate import heuristic_pick
    from agents.scripted import HeuristicAgent
    from casino_env.engine import apply_move, legal_moves, new_game
    from casino_env.engine.view import PlayerView

    heuristic = HeuristicAgent(seed)
    for k in range(hands):
        st = new_game(variant, 2, seed=seed * 100_000 + k)
        hand = st.hand_points
        while not st.game_over and st.hand_points is hand:
            view = PlayerView(st, st.current)
            moves = legal_moves(st)
            scores = heuristic.scores(view, moves) if len(moves) > 1 else [0.0]
            own = moves[heuristic_pick(scores)]
            yield k, st, view, moves, scores, own
            if player is not None and st.current == player_seat(k):
                own = player.choose(view) if len(moves) > 1 else own
            st = apply_move(st, rng.choice(moves) if rng.random() < EXPLORE else own)


def collect_playout_shard(job: tuple) -> str:
    """The last deal's decisions above the cards the solver starts from (``above``: swazi's
    first moves of a 12-card deal): the heuristic plays single hands (``EXPLORE`` random
    moves), and at each last-deal decision with a choice where the mover holds more than
    ``above`` cards every legal move is valued by ``playout_value`` (the heuristic on both
    seats, solved exactly once no hand holds more than 4 cards: the cheap label that lost
    least against exact play, docs/expert_iteration.md). Rows as ``collect_tree_shard``'s
    with the heuristic's columns; training data beside a ``--from-cards`` run's (``fit
    --extra``), which then plays at any number of cards."""
    from agents.afterstate import afterstate_row, heuristic_columns, layout_of
    from agents.endgame import perfect_information
    from agents.scripted import HeuristicAgent
    from casino_env.engine import new_game
    from casino_env.engine.play import play

    variant, hands, seed, dest, above = job
    rng = random.Random(seed)
    playouts = HeuristicAgent(seed + 1)
    layout = layout_of(new_game(variant, 2, seed=0).rules)
    width = layout.size + 52 + 2
    xs, ys, groups, picks, deals, decision = [], [], [], [], [], 0
    for k, st, view, moves, scores, own in heuristic_line(variant, hands, seed, rng):
        if len(moves) > 1 and perfect_information(view) and \
                st.hand_masks[st.current].bit_count() > above:
            side = st.rules.side(st.current)
            cols = heuristic_columns(st, moves, scores)
            for m, c in zip(moves, cols):
                after = play(st, m, deal_next=False)
                xs.append(np.r_[afterstate_row(layout, after, st.current), c]
                          .astype(np.float16))
                ys.append(playout_value(after, st.hand_points, side, playouts, 4))
                groups.append(decision)
                picks.append(m is own)
                deals.append(k)
            decision += 1
    return _save_shard(dest, xs, ys, groups, picks, width, deals)


def collect(variant: str, hands: int, shards: int, seed: int, workers: int, run: Path,
            tree: float = 0.0, node_limit: int = 2_000_000, bias: float = 1.0,
            scores: bool = False, walks: int = 0, from_cards: int = 0,
            above: int = 0) -> None:
    """``shards`` shards of ``hands`` hands into ``run`` (those on disk are kept; a run of
    other settings is refused: ``record_collect``); the options as ``collect``'s CLI."""
    from tqdm.auto import tqdm

    from agents.tournament import derive_seed

    record_collect(run, {"variant": variant, "hands": hands, "seed": seed, "tree": tree,
                         "node_limit": node_limit, "bias": bias, "scores": scores,
                         "walks": walks, "from_cards": from_cards, "above": above})
    jobs = [(variant, hands, derive_seed("endgame_net", seed, k) % 10**6, shard_path(run, k))
            + ((tree, node_limit, bias, scores, walks, from_cards) if tree or walks else
               (above,) if above else ())
            for k in range(shards) if not shard_path(run, k).exists()]
    work = collect_tree_shard if tree or walks else \
        collect_playout_shard if above else collect_shard
    with mp.get_context("forkserver").Pool(workers) as pool:
        for _ in tqdm(pool.imap_unordered(work, jobs), total=len(jobs),
                      desc=f"{variant} shards"):
            pass


def load(run: Path, label: str = "points", won_weight: float = 0.0) -> dict:
    """All shards of ``run``: afterstates, values (``label``: "won" reads the mean hand results
    instead of the points, where collect stored them; ``won_weight`` W > 0: the points plus W
    times the hand results), decision ids (unique across shards),
    whether the heuristic chose each move, and each decision's deal (``deal_of``: the held-out
    split's unit; each decision its own where a shard has no deals) and the most cards a mover
    held (``max_cards``, 0: any; ``collect --from-cards``) and whose scores their heuristic
    columns hold (``hints``: ``agents.afterstate.HINTS``; a shard without the key, the
    default heuristic's)."""
    from agents.afterstate import DEFAULT_HINTS, LAST_DEAL

    files = sorted(run.glob("shard_[0-9][0-9][0-9].npz"))  # not a .tmp being written
    if not files:
        raise SystemExit(f"error: no shards in {run} (run collect first)")
    parts, offset, deals, kinds = [], 0, 0, set()
    for f in files:
        d = np.load(f)
        kinds.add((str(d["scope"]) if "scope" in d else LAST_DEAL,
                   int(d["candidates"]) if "candidates" in d else 0,
                   int(d["max_cards"]) if "max_cards" in d else 0,
                   str(d["hints"]) if "hints" in d else DEFAULT_HINTS))
        if len(kinds) > 1:
            raise SystemExit(f"error: {f} holds decisions of another scope or hints than the "
                             f"shards before it ({sorted(kinds)})")
        deal = d["deal"] if "deal" in d else d["group"]
        if (label == "won" or won_weight) and "y_won" not in d:
            raise SystemExit(f"error: {f} holds no hand results (y_won); collect it again "
                             "with rollouts to the hand's end (no --tail)")
        if label == "won":
            y = d["y_won"]
        else:  # the points, tilted towards hands won by ``won_weight``
            y = d["y"] + won_weight * d["y_won"] if won_weight else d["y"]
        parts.append((d["x"], y, d["group"] + offset, d["heuristic"], deal + deals))
        offset += int(d["group"].max()) + 1 if len(d["group"]) else 0
        deals += int(deal.max()) + 1 if len(deal) else 0
    x, y, g, h, deal = (np.concatenate([p[i] for p in parts]) for i in range(5))
    deal_of = np.zeros(offset, np.int64)
    deal_of[g] = deal
    _, deal_of = np.unique(deal_of, return_inverse=True)  # numbered 0.. without gaps
    scope, candidates, max_cards, hints = kinds.pop()
    return {"x": x.astype(np.float32), "y": y, "group": g, "heuristic": h,
            "shards": len(files), "decisions": offset, "deal_of": deal_of, "scope": scope,
            "candidates": candidates, "max_cards": max_cards, "hints": hints}


def _label_note(label: str | None) -> str:
    """What a summary row adds after its loss for a label other than the points."""
    if label == "won":
        return " (hand results)"
    if label and label.startswith("points+"):  # ``fit --won-weight W``: "points+Wwon"
        return f" (points + {label.removeprefix('points+').removesuffix('won')} x hand results)"
    return ""


def points_lost(values: np.ndarray, scores: np.ndarray, groups: np.ndarray) -> float:
    """Mean over decisions of (best value - value of the highest-scored move)."""
    order = np.lexsort((-scores, groups))  # by decision, best score first
    g, v = groups[order], values[order]
    first = np.r_[True, g[1:] != g[:-1]]
    best = np.maximum.reduceat(v, np.flatnonzero(first))
    return float((best - v[first]).mean())


def cards_in_hand(x: np.ndarray, copies: int = 1) -> np.ndarray:
    """The cards in the mover's hand at each row's decision: the afterstate's hand plane (the
    layout's first 52 columns; with ``copies`` decks each copy counts 1/copies there) plus
    the card just played."""
    return (x[:, :52].sum(axis=1) * copies).round().astype(np.int64) + 1


def by_cards(cards: np.ndarray, weights: list[float]) -> np.ndarray:
    """Each decision's weight in the loss: ``weights[c - 1]`` with ``c`` cards in hand (the
    last weight for more cards than it lists)."""
    return np.asarray(weights, np.float32)[np.minimum(cards, len(weights)) - 1]


def expected_regret(pred, values, seg, decisions: int, temp: float):
    """Mean over decisions of the points lost by a move drawn from softmax(pred / temp) over
    the decision's moves (``seg``: each row's decision): a differentiable stand-in for the
    points lost by the highest-valued move, which weighs close calls where squared error
    does not."""
    import torch

    z = pred / temp
    top = torch.full((decisions,), -torch.inf).scatter_reduce(0, seg, z.detach(), "amax")
    e = torch.exp(z - top[seg])
    p = e / torch.zeros(decisions).index_add(0, seg, e)[seg]
    best = torch.full((decisions,), -torch.inf).scatter_reduce(0, seg, values, "amax")
    return (p * (best[seg] - values)).sum() / decisions


def suits_alike(variant: str) -> bool:
    """Whether ``variant`` has the standard deck (one or two of it) with hearts and clubs
    scoring alike (so ``fit --augment`` may swap them in the card planes, which hold the 52
    kinds of card either way): the pipelines augment where it holds."""
    return alike_suits(variant) == [(HEARTS, CLUBS)]


def alike_suits(variant: str) -> list[tuple[int, int]]:
    """The pairs of suits (colours) that score alike in ``variant``, card by card, and that
    ``fit --augment`` may therefore swap: hearts and clubs of the standard deck; red and
    yellow, green and blue of the Rook deck (V-tux-score: an orange takes a red and a yellow
    card, so the swap of the two keeps it one). Empty where none do."""
    from agents.valuation import rules_values
    from casino_env.engine import new_game

    rules = new_game(variant, 2, seed=0).rules
    rv, c, deck = rules_values(rules), rules.deck.copies, rules.deck
    # two decks: card ids 2k and 2k+1, kind k; a card id is 4 * rank + suit
    if deck.size == 52 * c and deck.names[c * HEARTS] == "AH":
        pairs = [(HEARTS, CLUBS)]
    elif deck.name == "rook":
        pairs = [(ROOK_RED, ROOK_YELLOW), (ROOK_GREEN, ROOK_BLUE)]
    else:
        return []
    ranks = deck.size // (4 * c)
    return [(a, b) for a, b in pairs
            if all(rv.direct[c * (4 * r + a)] == rv.direct[c * (4 * r + b)]
                   for r in range(ranks))]


def card_planes(layout) -> list[int]:  # layout: casino_env.encoding.Layout
    """The first columns of a row's 52-wide card planes: the observation's (hand, table,
    piles), then the other seat's hand that ``afterstate_row`` appends."""
    return [o for _, o, n, _ in layout.segments if n == 52] + [layout.size]


def suit_swaps(variant: str, width: int, planes: list[int]) -> list[np.ndarray]:
    """One column permutation per pair of ``alike_suits``, each swapping the pair in every
    card plane (``planes``: their first columns); SystemExit if no two suits score alike in
    ``variant``."""
    pairs = alike_suits(variant)
    if not pairs:
        raise SystemExit(f"error: --augment: no two suits (colours) score alike card by card "
                         f"in {variant}")
    perms = []
    for sa, sb in pairs:
        perm = np.arange(width)
        for base in planes:
            for r in range(13):
                a, b = base + 4 * r + sa, base + 4 * r + sb
                perm[a], perm[b] = b, a
        perms.append(perm)
    return perms


def fit(run: Path, out: Path, variant: str, hidden: int, epochs: int, augment: bool,
        seed: int, residual: bool = True, loss_kind: str = "value", dropout: float = 0.0,
        weight_decay: float = 0.0, ranks: bool = False, extra: Path | list | None = None,
        save: Path | None = None, use_scores: bool = True, regret: float = 0.0,
        regret_temp: float = 0.5, card_weights: list[float] | None = None,
        kind: str = "mlp", layers: int = 2, lr_schedule: str = "constant",
        checkpoint: Path | None = None, stop_after: int | None = None,
        threads: int = 1, label: str = "points", init: Path | None = None,
        lr: float = LR, base: str = "static", won_weight: float = 0.0) -> dict | None:
    """Fit an afterstate value network to exact move values; write its row to ``out``'s
    fits.csv (None when ``stop_after`` epochs end the run early, its ``checkpoint`` kept).
    ``label`` "won": to the moves' mean hand results instead of their points (not residual:
    the static lead it would add is in points).
    ``lr_schedule`` "cosine" anneals the learning rate to 0 over the epochs; ``checkpoint``
    is written after each epoch and resumed from when it exists (bit for bit the same fit).
    ``init``: a saved network (``save``) of the same shape to start from instead of random
    weights (a fine-tune on new decisions; 0 epochs measures it as it is); ``lr``: the
    learning rate (cosine: where it starts). ``base``: the residual network's base
    (``agents.afterstate.BASES``: the static lead, or only the points already banked).
    ``won_weight`` W > 0: to the moves' mean points plus W times their mean hand results (a
    label tilted from points towards hands won, in points; residual as the points are)."""
    import torch
    from tqdm.auto import tqdm

    from agents.afterstate import (
        BASES,
        DEFAULT_HINTS,
        LAST_DEAL,
        build_net,
        layout_of,
        net_inputs,
        save_net,
    )
    from casino_env.engine import new_game

    if lr_schedule not in LR_SCHEDULES:
        raise SystemExit(f"error: --lr-schedule must be one of {', '.join(LR_SCHEDULES)}, "
                         f"got {lr_schedule!r}")
    if stop_after is not None and (checkpoint is None or stop_after < 1):
        raise SystemExit("error: --stop-after N needs --checkpoint PATH and N >= 1 (the "
                         "checkpoint is what a later run resumes from)")
    if label not in LABELS_FITTED:
        raise SystemExit(f"error: --label must be one of {', '.join(LABELS_FITTED)}, got "
                         f"{label!r}")
    if label == "won" and residual:
        raise SystemExit("error: --label won needs --no-residual (the static lead a residual "
                         "network adds is in points, the hand results are not)")
    if not won_weight >= 0 or (won_weight and label != "points"):
        raise SystemExit(f"error: --won-weight must be >= 0 and adds hand results to the "
                         f"points label, got {won_weight} with --label {label}")
    # before the shards load (minutes on large runs)
    if base not in BASES:
        raise SystemExit(f"error: --base must be one of {', '.join(BASES)}, got {base!r}")
    if base != "static" and not residual:
        raise SystemExit(f"error: --base {base} is what a residual network adds its output "
                         "to; drop --no-residual")
    if not lr > 0:
        raise SystemExit(f"error: --lr must be > 0, got {lr}")
    if init is not None and not Path(init).is_file():
        raise SystemExit(f"error: --init {init}: no such file (fit --save PATH writes one)")
    torch.set_num_threads(max(1, threads))
    torch.manual_seed(seed)
    d = load(run, label, won_weight)
    rng = np.random.default_rng(seed)
    # held out: whole deals (each decision its own deal in shards without deals, as before)
    held_decision = (rng.random(int(d["deal_of"].max()) + 1) < HELD_SHARE)[d["deal_of"]]
    extra_decisions = 0
    if isinstance(extra, (str, Path)):
        extra = [extra]
    for more in extra or ():  # more training decisions; the held-out ones stay ``run``'s
        e = load(Path(more), label, won_weight)
        if (e["scope"], e["candidates"]) != (d["scope"], d["candidates"]):
            raise SystemExit(f"error: {more}'s decisions are of scope {e['scope']}, {run}'s "
                             f"of {d['scope']} (a network plays one or the other)")
        if e["hints"] != d["hints"]:
            raise SystemExit(f"error: {more}'s heuristic columns are the {e['hints']} "
                             f"heuristic's, {run}'s the {d['hints']}'s (a network reads one)")
        # the network plays where any of its runs' decisions were (0: any number of cards)
        d["max_cards"] = 0 if 0 in (e["max_cards"], d["max_cards"]) else \
            max(e["max_cards"], d["max_cards"])
        if e["x"].shape[1] != d["x"].shape[1]:
            raise SystemExit(f"error: {more}'s rows have {e['x'].shape[1]} columns, {run}'s "
                             f"{d['x'].shape[1]} (collect both with or without "
                             f"--heuristic-scores)")
        d["x"] = np.concatenate([d["x"], e["x"]])
        d["y"] = np.concatenate([d["y"], e["y"]])
        d["group"] = np.concatenate([d["group"], e["group"] + d["decisions"] + extra_decisions])
        d["heuristic"] = np.concatenate([d["heuristic"], e["heuristic"]])
        held_decision = np.r_[held_decision, np.zeros(e["decisions"], bool)]
        extra_decisions += e["decisions"]
    if not held_decision.any():
        raise SystemExit(f"error: none of {run}'s {int(d['deal_of'].max()) + 1} deals fell in "
                         f"the held-out share ({HELD_SHARE:.0%}); collect more hands")
    x, y, g = d["x"], d["y"], d["group"]
    rules = new_game(variant, 2, seed=0).rules
    if regret < 0 or (regret and not regret_temp > 0):
        raise SystemExit(f"error: --regret must be >= 0 and --regret-temp > 0, got "
                         f"{regret} and {regret_temp}")
    if card_weights and (min(card_weights) < 0 or not max(card_weights) > 0):
        raise SystemExit(f"error: --card-weights must be >= 0 and not all 0, got "
                         f"{card_weights}")
    if card_weights and layout_of(rules).segments[0][:3] != ("hand", 0, 52):
        raise SystemExit(f"error: --card-weights: {variant}'s afterstates do not begin with "
                         "the mover's hand (a 52-card plane)")
    # before any column is added
    held_cards = cards_in_hand(x, rules.deck.copies) if card_weights else None
    # rows of collect --heuristic-scores end with the heuristic's two columns
    scores = x.shape[1] == layout_of(rules).size + 54
    if scores and not use_scores:  # the same decisions, without the heuristic's columns
        x, scores = x[:, :-2], False
    # the static lead and rank counts come after the card planes, so the suit swap leaves
    # them be (both are suit-blind); the target is what play adds to the static lead
    x, lead = net_inputs(rules, x, residual, ranks, base_kind=base)
    held = held_decision[g]
    held_idx = np.flatnonzero(held)
    perms = ([torch.as_tensor(p) for p in suit_swaps(variant, x.shape[1],
                                                     card_planes(layout_of(rules)))]
             if augment else [])
    target = y - lead
    if kind == "set" and dropout:
        raise SystemExit("error: --dropout applies to the MLP only")
    net = build_net({"kind": kind, "width": x.shape[1], "hidden": hidden, "layers": layers,
                     "dropout": dropout}, rules)
    if init is not None:
        _init_from(net, Path(init), {"variant": variant, "kind": kind, "width": x.shape[1],
                                     "hidden": hidden, "layers": layers, "residual": residual,
                                     "ranks": ranks, "heuristic_scores": scores,
                                     "base": base})
    opt = torch.optim.AdamW(net.parameters(), lr, weight_decay=weight_decay)
    xt, yt = torch.as_tensor(x), torch.as_tensor(target)
    # exact values, what a choice loses (the regret term only)
    vt = torch.as_tensor(y, dtype=torch.float32) if regret else None
    # whole decisions per batch: the "centered" loss compares each move's value with the
    # mean of its decision's moves (only the differences between moves choose one)
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    counts = np.diff(np.r_[starts, len(g)])
    train_dec = np.flatnonzero(~held_decision[g[starts]])
    cw = None if not card_weights else by_cards(held_cards[starts], card_weights)
    steps = epochs * -(-len(train_dec) // BATCH)
    sched = (torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
             if lr_schedule == "cosine" and steps else None)
    settings = {"run": str(run), "extra": [str(e) for e in extra or ()], "kind": kind,
                "hidden": hidden, "layers": layers, "epochs": epochs, "seed": seed,
                "lr_schedule": lr_schedule, "loss": loss_kind, "augment": augment,
                "rows": len(y)}
    if label != "points":  # so a points fit's checkpoint still resumes as before
        settings["label"] = label
    if init is not None or lr != LR:  # likewise
        settings |= {"init": str(init or ""), "lr": lr}
    if base != "static":  # likewise
        settings["base"] = base
    if won_weight:  # likewise
        settings["won_weight"] = won_weight
    done, spent = _resume(checkpoint, settings, net, opt, sched, rng, train_dec)
    t0 = time.perf_counter() - spent
    for epoch in tqdm(range(done, epochs), desc="fit", initial=done, total=epochs):
        if stop_after is not None and epoch >= stop_after:
            print(f"stopped after {epoch} epochs; resume from {checkpoint}")
            return None
        rng.shuffle(train_dec)
        for j in range(0, len(train_dec), BATCH):
            dec = train_dec[j:j + BATCH]
            n = counts[dec]
            rows = np.repeat(starts[dec] - np.r_[0, np.cumsum(n)[:-1]], n) + np.arange(n.sum())
            seg = torch.as_tensor(np.repeat(np.arange(len(dec)), n))
            xb = xt[rows]
            for perm in perms:  # each swap per decision, so its moves stay comparable
                flip = (torch.rand(len(dec)) < 0.5)[seg]
                xb = torch.where(flip[:, None], xb[:, perm], xb)
            pb, tb = net(xb).squeeze(-1), yt[rows]
            if loss_kind == "centered":
                nt = torch.as_tensor(n, dtype=torch.float32)
                pm = torch.zeros(len(dec)).index_add(0, seg, pb) / nt
                tm = torch.zeros(len(dec)).index_add(0, seg, tb) / nt
                err = ((pb - pm[seg]) - (tb - tm[seg])) ** 2
            else:
                err = (pb - tb) ** 2
            if cw is None:
                loss = err.mean()
            else:  # each row weighted by its decision's weight
                wr = torch.as_tensor(cw[dec])[seg]
                loss = (err * wr).sum() / wr.sum()
            if regret:
                loss = loss + regret * expected_regret(pb + (vt[rows] - tb), vt[rows], seg,
                                                       len(dec), regret_temp)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if sched is not None:
                sched.step()
        if checkpoint is not None:
            _checkpoint(checkpoint, settings, epoch + 1, net, opt, sched, rng, train_dec,
                        time.perf_counter() - t0)
    net.eval()
    if save is not None:  # playable: heuristic:endgame_net=PATH, ppo:MODEL,endgame_net=PATH
        scope = ({} if d["scope"] == LAST_DEAL else
                 {"scope": d["scope"], "candidates": d["candidates"]}) | \
            ({"max_cards": d["max_cards"]} if d["max_cards"] else {}) | \
            ({"hints": d["hints"]} if d["hints"] != DEFAULT_HINTS else {})
        save_net(save, net, {"variant": variant, "kind": kind, "layers": layers,
                             "width": x.shape[1], "hidden": hidden,
                             "residual": residual, "ranks": ranks,
                             "heuristic_scores": scores, **scope,
                             **({"base": base} if base != "static" else {})})
    with torch.no_grad():  # in chunks: the set network's attention is large on all rows
        pred = np.concatenate([net(xt[i:i + 8192]).squeeze(-1).numpy()
                               for i in range(0, len(xt), 8192)]) + lead
    # the training decisions' measure on as many of them as are held out
    seen = np.flatnonzero(~held_decision)[:int(held_decision.sum())]
    sample = np.flatnonzero(np.isin(g, seen))
    row = {"variant": variant, "net": kind if kind == "mlp" else f"set, {layers} layers",
           "shards": d["shards"], "decisions": d["decisions"],
           "afterstates": len(y), "hidden": hidden, "epochs": epochs, "augment": augment,
           "residual": residual, "loss": loss_kind, "dropout": dropout,
           "weight_decay": weight_decay, "ranks": ranks, "heuristic_scores": scores,
           "regret": regret, "regret_temp": regret_temp,
           "card_weights": " ".join(f"{w:g}" for w in card_weights or ()),
           "extra_decisions": extra_decisions,
           "train_decisions": int((~held_decision).sum()),
           "held_decisions": int(held_decision.sum()),
           "heuristic_lost": round(points_lost(y[held_idx], d["heuristic"][held_idx]
                                               .astype(float), g[held_idx]), 4),
           "net_lost": round(points_lost(y[held_idx], pred[held_idx], g[held_idx]), 4),
           "net_train_lost": round(points_lost(y[sample], pred[sample], g[sample]), 4),
           "held_mse": round(float(((pred[held_idx] - y[held_idx]) ** 2).mean()), 3),
           "fit_minutes": round((time.perf_counter() - t0) / 60, 1),
           "lr_schedule": lr_schedule,
           "label": f"points+{won_weight:g}won" if won_weight else label,
           "init": str(init or ""), "lr": lr,
           "base": base}
    out.mkdir(parents=True, exist_ok=True)
    path = out / "fits.csv"
    rows = []
    if path.exists():  # rows of fits made before a column existed get its default
        with path.open() as f:
            rows = [{"net": "mlp", "dropout": 0.0, "weight_decay": 0.0, "ranks": False,
                     "extra_decisions": 0, "lr_schedule": "constant",
                     "heuristic_scores": False, "regret": 0.0, "regret_temp": 0.5,
                     "card_weights": "", "label": "points", "init": "", "lr": LR,
                     "base": "static", **r}
                    for r in csv.DictReader(f)]
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        w.writerows(rows + [row])
    write_summary(out)
    return row


def _checkpoint(path: Path, settings: dict, epochs_done: int, net, opt, sched, rng,
                order: np.ndarray, seconds: float) -> None:
    """Write what resuming a fit after ``epochs_done`` epochs needs (atomically)."""
    import torch

    state = {"settings": settings, "epochs_done": epochs_done, "net": net.state_dict(),
             "opt": opt.state_dict(), "sched": None if sched is None else sched.state_dict(),
             "rng": rng.bit_generator.state, "torch_rng": torch.get_rng_state(),
             "order": order.copy(), "seconds": seconds}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(state, tmp)
    tmp.replace(path)


def _resume(path: Path | None, settings: dict, net, opt, sched, rng,
            order: np.ndarray) -> tuple[int, float]:
    """Load a fit's checkpoint into its network, optimizer, schedule and generators; the
    epochs it had done and the seconds it had spent (0, 0.0 without one). A constant-rate
    fit may be extended: its checkpoint resumes a fit of the same settings but more epochs."""
    import torch

    if path is None or not path.exists():
        return 0, 0.0
    state = torch.load(path, map_location="cpu", weights_only=False)
    # at a constant rate the epochs count changes nothing before the last: a fit asked for
    # more epochs than its checkpoint's goes on from it, the same fit as those from scratch
    longer = (settings["lr_schedule"] == "constant"
              and state["settings"] == {**settings, "epochs": state["settings"].get("epochs")}
              and int(state["epochs_done"]) <= settings["epochs"])
    if state["settings"] != settings and not longer:
        diff = sorted(k for k in settings if state["settings"].get(k) != settings[k])
        raise SystemExit(f"error: checkpoint {path} is of another fit (it differs in "
                         f"{', '.join(diff)}); delete it or give another --checkpoint")
    net.load_state_dict(state["net"])
    opt.load_state_dict(state["opt"])
    if sched is not None:
        sched.load_state_dict(state["sched"])
    rng.bit_generator.state = state["rng"]
    torch.set_rng_state(state["torch_rng"])
    order[:] = state["order"]
    return int(state["epochs_done"]), float(state["seconds"])


def _epochs_cell(row: dict) -> str:
    cosine = row.get("lr_schedule") == "cosine"
    cell = f"{row['epochs']} (cosine)" if cosine else str(row["epochs"])
    if float(row.get("lr") or LR) != LR:
        cell += f", rate {float(row['lr']):g}"
    return cell + (f", from {Path(row['init']).parent.name}/{Path(row['init']).name}"
                   if row.get("init") else "")


def _init_from(net, path: Path, meta: dict) -> None:
    """Load a saved network's weights into ``net`` (a fit's start), checked to be of the
    network ``meta`` describes (the same variant, shape and inputs)."""
    import torch

    saved = torch.load(path, map_location="cpu", weights_only=True)
    have = {"kind": "mlp", "layers": 2, "residual": True, "ranks": False,
            "heuristic_scores": False, "base": "static"} | saved["meta"]
    diff = sorted(k for k in meta if have.get(k) != meta[k])
    if diff:
        raise SystemExit(f"error: --init {path} is another network (it differs in "
                         f"{', '.join(f'{k} {have.get(k)!r}, here {meta[k]!r}' for k in diff)})")
    net.load_state_dict({k: v.float() for k, v in saved["state_dict"].items()})


def _regret_cell(row: dict) -> str:
    weight = float(row.get("regret") or 0)
    return f"{weight:g} (T {float(row.get('regret_temp') or 0.5):g})" if weight else "0"


def write_summary(out: Path) -> None:
    with (out / "fits.csv").open() as f:
        rows = list(csv.DictReader(f))
    lines = ["# An afterstate value network on the exact last deal (issue 18)", "",
             "Held-out decisions (10%, of whole deals where the shards record them): points "
             "a move loses against exact play, the network's (the afterstate it values "
             "highest) and the heuristic's. Regret: the weight and temperature of the "
             "expected-points-lost term (`--regret`; 0: squared error alone); card weights: "
             "a decision's weight with 1, 2, ... cards in hand (`--card-weights`).", "",
             "| variant | network | decisions (afterstates) | hidden | epochs | augment "
             "| residual | loss "
             "| regret | card weights | dropout | weight decay | rank counts | heuristic scores "
             "| extra decisions | heuristic lost | network lost | network lost in training "
             "| held-out MSE | fit min |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['variant']} | {r.get('net') or 'mlp'} "
                     f"| {int(r['decisions']):,} ({int(r['afterstates']):,}) "
                     f"| {r['hidden']} | {_epochs_cell(r)} | {r['augment']} | {r['residual']} "
                     f"| {r['loss']}{_label_note(r.get('label'))} "
                     f"| {_regret_cell(r)} | {r.get('card_weights') or '–'} "
                     f"| {r['dropout']} "
                     f"| {r['weight_decay']} | {r['ranks']} "
                     f"| {r.get('heuristic_scores') or False} "
                     f"| {int(r['extra_decisions']):,} "
                     f"| {r['heuristic_lost']} "
                     f"| {r['net_lost']} | {r['net_train_lost']} | {r['held_mse']} "
                     f"| {r['fit_minutes']} |")
    (out / "summary.md").write_text("\n".join(lines) + "\n")


def write_rows(path: Path, rows: list[dict]) -> None:
    """``rows`` as a CSV file, the first row's keys as its header (its folder made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, list(rows[0]))
        w.writeheader()
        w.writerows(rows)


LABELS = ("builder", "heuristic", "heuristic+exact4")  # ``online --labels``: cheap labellers


def playout_value(st, hand, side: int, agent, exact_cards: int = 0) -> float:
    """``side``'s lead at the end of the hand whose points were ``hand``, ``agent`` playing
    every seat from ``st`` (a last-deal afterstate: the view is the state); with
    ``exact_cards``, once no hand holds more cards, the solver's exact value instead (where it
    finishes within 200,000 positions). A cheap label where the whole deal is too large to
    solve (swazi)."""
    from agents.endgame import lead, solve
    from casino_env.engine.play import play
    from casino_env.engine.view import PlayerView

    while not st.game_over and st.hand_points is hand:
        if exact_cards and max(m.bit_count() for m in st.hand_masks) <= exact_cards:
            got = solve(st, 200_000)
            if got is not None:
                return got[1] if st.rules.side(st.current) == side else -got[1]
        st = play(st, agent.choose(PlayerView(st, st.current)), deal_next=False)
    return lead(st, side)


def label_choice(label: str, st, moves: list, view, rng: random.Random, agent):
    """The move a cheap labelling (``LABELS``) values highest: ``builder``, 8 fast rollouts
    of the builder policy (the search agent's valuation); ``heuristic``, one play-out by
    ``agent`` (the heuristic) on both seats; ``heuristic+exact4``, the same with the solver
    once no hand holds more than 4 cards."""
    from casino_env.engine.play import play
    from experiments.midgame_net import rollout_values

    if label == "builder":
        values = rollout_values(view, moves, 8, rng)
    else:
        side, exact = st.rules.side(st.current), 4 if label.endswith("exact4") else 0
        values = [playout_value(play(st, m, deal_next=False), st.hand_points, side, agent,
                                exact) for m in moves]
    return moves[int(np.argmax(values))]


def online(variant: str, nets: list[Path], hands: int, seed: int, out: Path,
           margins: list[float] | None = None, depths: list[int] | None = None,
           residue: bool = False, labels: list[str] | None = None,
           max_cards: int = 0) -> list[dict]:
    """Points lost against exact play per decision on the heuristic's own line: the default
    heuristic plays both seats (no random moves) and at each last-deal decision with a choice
    every move is valued exactly; the heuristic's move and each network's are scored, overall
    and by the cards in the mover's hand (``margins``: each network at each
    ``endgame_margin`` as well; ``depths``: minimax over that many plies with the piles scored
    as they stand past them, ``agents.endgame.lookahead``; ``residue``: the table's cards
    counted to the last capturer there as well; ``labels``: the move each cheap labelling of
    ``LABELS`` values highest, ``label_choice``; ``max_cards``: only decisions where the mover
    holds at most that many cards). Writes ``OUT/online.csv`` and
    ``online.md``."""
    import torch
    from tqdm.auto import tqdm

    from agents.afterstate import AfterstateNet
    from agents.endgame import lookahead
    from agents.scripted import HeuristicAgent

    torch.set_num_threads(1)
    players = {"heuristic": None} | {
        str(n) + (f" (margin {m:g})" if m else ""): AfterstateNet(n, m)
        for n in nets for m in (margins or [0.0])} | {
        f"lookahead {d} plies": d for d in (depths or [])} | {
        f"lookahead {d} plies, table to last capturer": -d for d in (depths or [])
        if residue} | {f"{label} label": label for label in (labels or [])}
    for label in labels or []:
        if label not in LABELS:
            raise SystemExit(f"error: --labels: unknown labelling {label!r} (known: "
                             f"{', '.join(LABELS)})")
    heuristic, rng = HeuristicAgent(seed), random.Random(seed)
    playouts = HeuristicAgent(seed + 1)
    lost: dict[str, list] = {k: [] for k in players}
    cards: list[int] = []
    for st, moves, view, own, values in _exact_line(
            variant, tqdm(range(hands), desc="hands"), seed, heuristic, max_cards=max_cards):
        best = max(values.values())
        for name, net in players.items():
            move = own if net is None else \
                lookahead(st, abs(net), net < 0)[0] if isinstance(net, int) else \
                label_choice(net, st, moves, view, rng, playouts) if isinstance(net, str) \
                else net.choose(view, moves)
            lost[name].append(best - values[move])
        cards.append(st.hand_masks[st.current].bit_count())
    held = np.array(cards)
    sizes = sorted(set(cards))
    rows = [{"player": name, "decisions": len(v), "points_lost": round(float(np.mean(v)), 4),
             **{f"lost_{c}_cards": round(float(np.array(v)[held == c].mean()), 4)
                for c in sizes},
             **{f"decisions_{c}_cards": int((held == c).sum()) for c in sizes}}
            for name, v in lost.items()]
    write_rows(out / "online.csv", rows)
    lines = [f"# Points lost per last-deal decision on the heuristic's own line ({variant}, "
             f"{hands} hands, seed {seed})", "",
             "| player | decisions | points lost | " + " | ".join(f"with {c} cards"
                                                         for c in sizes) + " |",
             "|---|---|---|" + "---|" * len(sizes)]
    lines += [f"| {r['player']} | {r['decisions']:,} | {r['points_lost']:.3f} | "
              + " | ".join(f"{r[f'lost_{c}_cards']:.3f}" for c in sizes) + " |" for r in rows]
    (out / "online.md").write_text("\n".join(lines) + "\n")
    return rows


def pipeline(variant: str, out: Path, runs: Path = Path("runs/endgame_net"),
             tree_shards: int = 4, walk_shards: int = 24, epochs: int = 6, hands: int = 2000,
             workers: int = 1, threads: int = 1, policy: str | None = None,
             shard_hands: int = 200, hidden: int = 64, lr_schedule: str = "cosine",
             from_cards: int = 0, above_shards: int = 0, keep_other: bool = False) -> dict:
    """The network-alone last deal of one preset, end to end and resumable: tree and play-out
    decisions (shards on disk are kept; solved from ``from_cards`` cards in hand where set,
    and then ``above_shards`` shards of the decisions above that valued by the heuristic's
    play-outs, ``collect --above-cards``), the set network (a checkpoint each epoch), and the
    cloned policy with it against the heuristic (``experiments.long_match``, by chunks; none
    with ``hands`` 0, so a preset without a cloned policy needs none). Returns the match's
    summary ({} without one; ``keep_other``: see ``closing_match``)."""
    policy = policy or f"experiments/results/train/{variant}/model.zip"
    if hands and not Path(policy).is_file():
        raise SystemExit(f"error: no policy {policy} for {variant} (give --policy PATH)")
    tree, walks = runs / f"{variant}_tree_h", runs / f"{variant}_walks"
    net = out / "set_net.pt"
    # the shards only feed the fit: a fresh checkout need not remake them
    if fitted(net, walk_shards, hidden):
        print(f"[1-3/4] {net} is there (delete it to collect and fit again)", flush=True)
    else:
        unrecorded(net)
        print(f"[1/4] {tree_shards} tree shards into {tree}", flush=True)
        collect(variant, shard_hands, tree_shards, 7, workers, tree, 0.02, scores=True,
                from_cards=from_cards)
        print(f"[2/4] {walk_shards} play-out shards into {walks}", flush=True)
        collect(variant, shard_hands, walk_shards, 9, workers, walks, 0.0, scores=True,
                walks=20, from_cards=from_cards)
        extra = [tree]
        if from_cards and above_shards:
            above = runs / f"{variant}_above{from_cards}"
            print(f"[2/4] {above_shards} shards of the decisions above {from_cards} cards, "
                  f"valued by the heuristic's play-outs, into {above}", flush=True)
            collect(variant, shard_hands, above_shards, 11, workers, above, above=from_cards)
            extra.append(above)
        print(f"[3/4] the set network into {net}", flush=True)
        fit_set_net(walks, out, variant, epochs, net, runs / f"{variant}_set.ckpt", threads,
                    extra=extra, hidden=hidden, lr_schedule=lr_schedule)
    if not hands:
        print("[4/4] no closing match (--hands 0)", flush=True)
        return {}
    print(f"[4/4] the network alone against the heuristic, {hands:,} hands", flush=True)
    return closing_match(variant, f"ppo:{policy},endgame_net={net}",
                         out / "network_alone_v_heuristic", hands, workers, keep_other)


def fitted(net: Path, shards: int, hidden: int) -> bool:
    """Whether a pipeline's fit of ``net`` is done: the network is on disk and its folder's
    fits.csv holds a row of a fit on ``shards`` shards ``hidden`` wide, written after it, so a
    fit cut between the two is done again (from its checkpoint: only its tail)."""
    rows = net.parent / "fits.csv"
    if not net.is_file() or not rows.is_file():
        return False
    with rows.open() as f:
        return any((int(r["shards"]), int(r["hidden"])) == (shards, hidden)
                   for r in csv.DictReader(f))


def unrecorded(net: Path) -> None:
    """Say so where ``net`` is on disk but not its fit's row (``fitted``): the step runs again."""
    if net.exists():
        print(f"{net} is there but {net.parent / 'fits.csv'} holds no row of its fit (cut "
              "short): its fit is finished again", flush=True)


def fit_set_net(run: Path, out: Path, variant: str, epochs: int, save: Path, checkpoint: Path,
                threads: int, extra: Path | list | None = None, hidden: int = 64,
                lr_schedule: str = "cosine") -> dict | None:
    """The pipelines' fit: the set network (``hidden`` wide, 2 layers, centered loss, suit
    swaps where hearts and clubs score alike, ``lr_schedule``, a checkpoint each epoch)."""
    return fit(run, out, variant, hidden, epochs, suits_alike(variant), 0, True, "centered",
               extra=extra, save=save, kind="set", layers=2, lr_schedule=lr_schedule,
               checkpoint=checkpoint, threads=threads)


def closing_match(variant: str, agent: str, out: Path, hands: int, workers: int,
                  keep_other: bool = False) -> dict:
    """The pipelines' closing match: ``agent`` against the heuristic, ``hands`` hands, seed 21,
    by chunks into ``out`` (resumed); prints and returns its summary. ``keep_other``: where
    ``out`` already holds a match of other agents (a committed report), leave it, print a note
    naming them and return {} instead of refusing (the match reports on the networks; the
    networks are what a build makes)."""
    from experiments import long_match

    settings = {"variant": variant, "players": 2, "agents": [agent, "heuristic"],
                "hands": hands, "chunk": min(100, hands), "seed": 21}
    saved = out / "match.json"
    if keep_other and saved.is_file():
        held = json.loads(saved.read_text()).get("agents")
        if held != settings["agents"]:
            print(f"closing match skipped: {out} holds a match of {' v '.join(map(str, held))} "
                  f"(kept; play {agent} v heuristic with experiments.long_match --out elsewhere)",
                  flush=True)
            return {}
    s = long_match.run(settings, out, workers, progress=False)
    print(f"{s['agent']} v heuristic: {s['win_rate']:.1%} [{s['lo']:.1%}, {s['hi']:.1%}] of "
          f"{s['hands']:,} hands, {s['diff_per_hand']:+.2f} points/hand")
    return s


def pipeline_out(name: str, variant: str) -> Path:
    """Where a pipeline (``name``: its module) writes a preset's results by default."""
    return Path("experiments/results/exit") / f"{name}_{variant}_pipeline"


def pipeline_parser(sub, what: str, name: str) -> argparse.ArgumentParser:
    """The ``pipeline`` subcommand with the options every pipeline takes (``name``: the
    module, which names the results folder and the runs folder)."""
    q = sub.add_parser("pipeline", help=what)
    q.add_argument("--variant", default="casino")
    q.add_argument("--out", type=Path, default=None,
                   help=f"default experiments/results/exit/{name}_<variant>_pipeline")
    q.add_argument("--runs", type=Path, default=Path(f"runs/{name}"),
                   help="where the shards and the fit's checkpoint go (default %(default)s)")
    q.add_argument("--epochs", type=int, default=6)
    q.add_argument("--hands", type=int, default=2000, help="of the closing match (default 2000)")
    q.add_argument("--workers", type=int, default=1)
    q.add_argument("--threads", type=int, default=1, help="the fit's torch threads")
    q.add_argument("--hidden", type=int, default=64, help="the set network's width (default 64)")
    q.add_argument("--lr-schedule", choices=LR_SCHEDULES, default="cosine",
                   help="the fit's learning rate (default %(default)s)")
    return q


def main(argv: list[str] | None = None) -> None:
    from agents.afterstate import BASES

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="exact last-deal afterstates, in shards")
    c.add_argument("--variant", default="casino")
    c.add_argument("--hands", type=int, default=500, help="hands a shard (default 500)")
    c.add_argument("--shards", type=int, default=20)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--workers", type=int, default=2)
    c.add_argument("--tree", type=float, default=0.0, metavar="SHARE",
                   help="solve each hand's whole last deal and record this share of its "
                        "positions with a choice (default 0: the heuristic's own decisions)")
    c.add_argument("--node-limit", type=int, default=2_000_000,
                   help="--tree: skip a deal whose tree has more positions")
    c.add_argument("--tree-bias", type=float, default=1.0, metavar="B",
                   help="--tree: record a position B times more often per card the mover "
                        "holds beyond one (default 1: evenly)")
    c.add_argument("--walks", type=int, default=0, metavar="N",
                   help="solve each hand's last deal as --tree does, then record the decisions "
                        "met by N heuristic play-outs of it (15%% random moves); with "
                        "--tree 0, only those")
    c.add_argument("--from-cards", type=int, default=0, metavar="N",
                   help="--tree/--walks: solve from the first last-deal decision where the "
                        "mover holds at most N cards (a deal too large to solve whole); the "
                        "network fitted on it plays only there (default 0: from the first)")
    c.add_argument("--above-cards", type=int, default=0, metavar="N",
                   help="only last-deal decisions where the mover holds more than N cards, "
                        "each move valued by the heuristic's play-out, solved exactly from 4 "
                        "cards a hand (training data beside a --from-cards N run)")
    c.add_argument("--heuristic-scores", action="store_true",
                   help="--tree: end each row with the heuristic's score of the move (a fit "
                        "on such rows learns a correction to it) and keep its choices")
    c.add_argument("--run", type=Path, required=True)
    f = sub.add_parser("fit", help="fit the value network, measure it on held-out decisions")
    f.add_argument("--run", type=Path, required=True)
    f.add_argument("--variant", default="casino")
    f.add_argument("--hidden", type=int, default=512,
                   help="the MLP's width; --net set: the tokens' width (default 512)")
    f.add_argument("--net", dest="kind", choices=("mlp", "set"), default="mlp",
                   help="mlp: layers over the row; set: attention over the cards in play "
                        "(agents.afterstate.set_value_net)")
    f.add_argument("--layers", type=int, default=2, help="--net set: attention layers")
    f.add_argument("--epochs", type=int, default=20)
    f.add_argument("--augment", action="store_true",
                   help="swap the suits that score alike at random: hearts and clubs; in "
                   "tuxedo red and yellow, green and blue")
    f.add_argument("--no-residual", dest="residual", action="store_false",
                   help="regress the value itself, not what play adds to the static lead")
    f.add_argument("--loss", choices=("value", "centered"), default="value",
                   help="value: squared error of each move's value; centered: of its "
                        "difference from its decision's mean")
    f.add_argument("--dropout", type=float, default=0.0, help="after the first two layers")
    f.add_argument("--weight-decay", type=float, default=0.0, help="AdamW's (default 0)")
    f.add_argument("--ranks", action="store_true",
                   help="add per-rank counts of my hand, the loose table and the opponent's hand")
    f.add_argument("--extra", type=Path, nargs="+", default=None, metavar="RUN",
                   help="another run's shards (e.g. collect --tree), all of them for training")
    f.add_argument("--no-heuristic-scores", dest="use_scores", action="store_false",
                   help="leave out the heuristic's columns of rows that have them")
    f.add_argument("--regret", type=float, default=0.0, metavar="W",
                   help="add W x the expected points lost by a softmax choice (default 0)")
    f.add_argument("--regret-temp", type=float, default=0.5, metavar="T",
                   help="the softmax's temperature in points (default 0.5)")
    f.add_argument("--card-weights", type=float, nargs="+", default=None, metavar="W",
                   help="each decision's weight in the loss by the cards in hand: W for 1 "
                        "card, 2 cards, ... (the last for more; default: all alike)")
    f.add_argument("--save", type=Path, default=None, metavar="PATH",
                   help="write the fitted network (an agent's endgame_net=PATH)")
    f.add_argument("--lr-schedule", choices=LR_SCHEDULES, default="constant",
                   help="the learning rate: constant 1e-3, or cosine from 1e-3 to 0 over "
                        "the epochs")
    f.add_argument("--checkpoint", type=Path, default=None, metavar="PATH",
                   help="write the fit's state here after each epoch, and resume from it "
                        "when it exists (a fit may span sessions; at a constant rate a "
                        "checkpoint of fewer epochs is extended to --epochs)")
    f.add_argument("--stop-after", type=int, default=None, metavar="N",
                   help="with --checkpoint: stop once N epochs are done (resume later)")
    f.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    f.add_argument("--label", choices=LABELS_FITTED, default="points",
                   help="fit the moves' mean hand points (default) or their mean hand "
                        "results, +1 won, 0 drawn, -1 lost (shards of rollouts to the hand's "
                        "end; with --no-residual)")
    f.add_argument("--init", type=Path, default=None, metavar="PATH",
                   help="start from this saved network (fit --save) instead of random "
                        "weights: a fine-tune on this run's decisions; --epochs 0 measures it")
    f.add_argument("--lr", type=float, default=LR,
                   help=f"the learning rate (cosine: its start; default {LR:g})")
    f.add_argument("--base", choices=BASES, default="static",
                   help="what the residual network's output is added to: the piles scored "
                        "as they stand (default), or only the points already certain, events "
                        "scored in play included (banked)")
    f.add_argument("--won-weight", type=float, default=0.0, metavar="W",
                   help="fit the moves' mean points plus W times their mean hand results "
                        "(+1 won, 0 drawn, -1 lost): a label tilted towards hands won "
                        "(default 0: the points alone)")
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--out", type=Path, required=True)
    q = pipeline_parser(sub, "one preset's network-alone last deal end to end: collect, fit, "
                        "play (resumable)", "endgame_net")
    q.add_argument("--tree-shards", type=int, default=4)
    q.add_argument("--walk-shards", type=int, default=24)
    q.add_argument("--policy", default=None,
                   help="the cloned policy (default experiments/results/train/<variant>/model.zip)")
    q.add_argument("--from-cards", type=int, default=0, metavar="N",
                   help="solve from the first last-deal decision where the mover holds at most "
                        "N cards (collect --from-cards; default 0: from the first)")
    q.add_argument("--above-shards", type=int, default=0, metavar="S",
                   help="with --from-cards: S shards of the decisions above N cards valued by "
                        "the heuristic's play-outs (collect --above-cards), training data too")
    o = sub.add_parser("online", help="points lost on the heuristic's own last-deal decisions")
    o.add_argument("--variant", default="casino")
    o.add_argument("--nets", type=Path, nargs="*", default=[], metavar="PATH")
    o.add_argument("--hands", type=int, default=300)
    o.add_argument("--seed", type=int, default=9)
    o.add_argument("--margins", type=float, nargs="+", default=None, metavar="M",
                   help="also each network at each endgame_margin M (0: none)")
    o.add_argument("--depths", type=int, nargs="+", default=None, metavar="D",
                   help="also minimax over D plies, the piles scored as they stand past them")
    o.add_argument("--labels", nargs="+", default=None, choices=LABELS, metavar="L",
                   help=f"also the move each cheap labelling values highest ({', '.join(LABELS)})")
    o.add_argument("--max-cards", type=int, default=0, metavar="N",
                   help="only decisions where the mover holds at most N cards (default: all)")
    o.add_argument("--residue", action="store_true",
                   help="--depths: also each depth with the table counted to the last capturer")
    o.add_argument("--out", type=Path, required=True)
    a = p.parse_args(argv)
    if a.command == "pipeline":
        out = a.out or pipeline_out("endgame_net", a.variant)
        pipeline(a.variant, out, a.runs, a.tree_shards, a.walk_shards, a.epochs, a.hands,
                 a.workers, a.threads, a.policy, hidden=a.hidden, lr_schedule=a.lr_schedule,
                 from_cards=a.from_cards, above_shards=a.above_shards)
    elif a.command == "online":
        print(json.dumps(online(a.variant, a.nets, a.hands, a.seed, a.out, a.margins,
                                a.depths, a.residue, a.labels, a.max_cards)))
    elif a.command == "collect":
        if a.heuristic_scores and not (a.tree or a.walks):
            p.error("--heuristic-scores needs --tree or --walks")
        if a.from_cards and not (a.tree or a.walks):
            p.error("--from-cards needs --tree or --walks")
        if a.above_cards and (a.tree or a.walks):
            p.error("--above-cards collects play-out labels: not with --tree or --walks")
        collect(a.variant, a.hands, a.shards, a.seed, a.workers, a.run, a.tree, a.node_limit,
                a.tree_bias, a.heuristic_scores, a.walks, a.from_cards, a.above_cards)
    else:
        print(json.dumps(fit(a.run, a.out, a.variant, a.hidden, a.epochs, a.augment, a.seed,
                              a.residual, a.loss, a.dropout, a.weight_decay, a.ranks, a.extra,
                              a.save, a.use_scores, a.regret, a.regret_temp,
                              a.card_weights, a.kind, a.layers, a.lr_schedule,
                              a.checkpoint, a.stop_after, a.threads, a.label, a.init,
                              a.lr, a.base, a.won_weight)))


if __name__ == "__main__":
    main()
