"""A learned value of a deal boundary, for cutting search rollouts short.

Between two rounds of a two-sided hand every hand is empty and no build stands (an owner must
hold its capturing card), so the only thing hidden from both sides is the stock's order: the
*boundary* is one information set, the same for every seat. A ``TailValue`` network maps it
(where each card lies: unseen, loose on the table, in one side's pile; the sweeps, the last
capturer, the next leader) to the expected point difference of the whole hand under the search's
rollout policy, fitted by ``experiments.tail_value`` to the mean of rollouts from many stock
orders. ``search:tail=PATH`` stops each rollout at the first boundary and adds this value: one
forward pass in place of the rest of a rollout, with the stock's luck averaged out.

The forward pass is plain numpy (no torch at play time) and batched: the search values all the
boundaries one candidate's rollouts reach in a round together."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from threadpoolctl import ThreadpoolController

from casino_env.engine import Rules, new_game
from casino_env.engine.scoring import event_points

# Card locations at a boundary, relative to the side valued: rows [loc * 52 + card] of layer 1.
UNSEEN, TABLE, MINE, THEIRS = range(4)
CARD_ROWS = 4 * 52
# Other inputs: my sweeps /4, their sweeps /4, I captured last, they captured last, I lead the
# next round. (Counts of cards and spades are sums of the planes: the first layer has them.)
EXTRAS = 5
FULL = (1 << 52) - 1


def tail_supported(rules: Rules) -> bool:
    """True where a boundary value is defined here: two sides, two seats, a 52-card deck, and
    no pile order, penalties, points that end the game during a hand, or points scored during
    play as events (tuxedo's oranges and sweeps of 10 or 5: the inputs hold none of them, so
    the hand's result would be partly unseen)."""
    return (rules.sides == 2 and rules.players == 2 and rules.deck.size == 52
            and not event_points(rules)
            and not getattr(rules, "earned_wins", False)
            and not getattr(rules, "steal", False) and not getattr(rules, "penalties", False))


def boundary_inputs(masks: np.ndarray, other: np.ndarray, side: np.ndarray) -> np.ndarray:
    """The network's inputs for ``n`` boundaries, each seen from its ``side`` (0 or 1):
    ``masks`` (n, 3) uint64 of the loose cards and side 0's and side 1's piles; ``other``
    (n, 4) of side 0's and side 1's sweeps, the last capturing side (-1: none yet) and the
    side leading the next round. Columns: a plane per location (``UNSEEN``, ``TABLE``,
    ``MINE``, ``THEIRS``; 52 each), then the ``EXTRAS``."""
    n = len(masks)
    masks = np.asarray(masks, np.uint64)
    other = np.asarray(other, np.float32)
    one = np.asarray(side).astype(bool)
    mine = np.where(one, masks[:, 2], masks[:, 1])
    theirs = np.where(one, masks[:, 1], masks[:, 2])
    unseen = np.uint64(FULL) & ~(masks[:, 0] | mine | theirs)
    m = np.ascontiguousarray(np.stack([unseen, masks[:, 0], mine, theirs], axis=1))
    bits = np.unpackbits(m.view(np.uint8).reshape(n, 4, 8), axis=2,
                         bitorder="little")[:, :, :52]
    x = np.empty((n, CARD_ROWS + EXTRAS), np.float32)
    x[:, :CARD_ROWS] = bits.reshape(n, CARD_ROWS)
    me = one.astype(np.float32)
    x[:, CARD_ROWS] = np.where(one, other[:, 1], other[:, 0]) / 4
    x[:, CARD_ROWS + 1] = np.where(one, other[:, 0], other[:, 1]) / 4
    x[:, CARD_ROWS + 2] = other[:, 2] == me
    x[:, CARD_ROWS + 3] = (other[:, 2] >= 0) & (other[:, 2] != me)
    x[:, CARD_ROWS + 4] = other[:, 3] == me
    return x


class TailValue:
    """A saved boundary value network (``experiments.tail_value fit``): ``value(...)`` is the
    expected hand point difference for ``side``."""

    def __init__(self, path: str | Path) -> None:
        p = Path(path)
        if not p.is_file():
            raise ValueError(f"tail: no such file {str(path)!r} (experiments.tail_value fit "
                             "--save PATH writes one)")
        try:
            with np.load(p, allow_pickle=False) as z:
                self.meta = json.loads(str(z["meta"]))
                # each layer as (weights of shape (in, out), bias): h = h @ w + b
                self.layers = [(np.ascontiguousarray(z[f"w{i}"].astype(np.float32).T),
                                z[f"b{i}"].astype(np.float32))
                               for i in range(self.meta["layers"])]
        except Exception as e:  # a foreign or corrupt file
            raise ValueError(f"tail {path}: not a boundary value network "
                             f"({type(e).__name__}: {e})") from e
        self.path = str(path)
        self.rules = new_game(self.meta["variant"], 2, seed=0).rules
        # BLAS splits even these small products over threads, which then wait on cores the
        # other processes hold (10 ms a batch where one thread takes 0.1 ms): keep it to one.
        self._blas = ThreadpoolController()
        self.scale = float(self.meta.get("scale", 1.0))

    def check(self, rules: Rules) -> None:
        """ValueError unless this network was fitted on ``rules``."""
        if rules != self.rules:
            raise ValueError(f"tail {self.path} was fitted on {self.meta['variant']}; this "
                             "game's rules differ")

    def value(self, loose: int, piles, sweeps, last_side: int | None, leader_side: int,
              side: int) -> float:
        """The expected point difference of the hand for ``side`` from this boundary."""
        return float(self.batch([(loose, piles[0], piles[1], sweeps[0], sweeps[1],
                                  -1 if last_side is None else last_side, leader_side)],
                                side).sum())

    def batch(self, records: list[tuple], side: int) -> np.ndarray:
        """Values for ``side`` of boundaries given as ``(loose, pile0, pile1, sweeps0,
        sweeps1, last_side or -1, leader_side)`` tuples, in one forward pass."""
        n = len(records)
        masks = np.array([r[:3] for r in records], np.uint64)
        other = np.array([r[3:] for r in records], np.float32)
        return self.values(boundary_inputs(masks, other, np.full(n, side)))

    def values(self, x: np.ndarray) -> np.ndarray:
        """Values of input rows (``boundary_inputs``), batched."""
        with self._blas.limit(limits=1, user_api="blas"):
            w0, b0 = self.layers[0]
            h = x @ w0 + b0
            for wt, b in self.layers[1:]:
                np.maximum(h, 0.0, out=h)
                h = h @ wt + b
        return h[:, 0] * self.scale


def save_tail(path: str | Path, weights: list[tuple[np.ndarray, np.ndarray]], meta: dict
              ) -> None:
    """Write a network's layers (float32; each ``(w, b)`` with ``w`` of shape (out, in)) and
    ``meta`` (variant, scale, how it was fitted) to ``path`` (.npz)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    arrays = {}
    for i, (w, b) in enumerate(weights):
        arrays[f"w{i}"] = np.asarray(w, np.float32)
        arrays[f"b{i}"] = np.asarray(b, np.float32)
    meta = dict(meta, layers=len(weights))
    with open(p, "wb") as f:
        np.savez(f, meta=np.array(json.dumps(meta)), **arrays)


def deferred(pending: list):  # -> the ``tail`` callback of ``search.determinization_value``
    """A rollout's boundary callback that records each boundary it reaches in ``pending`` (in
    ``TailValue.batch``'s record form) and counts 0 for now: the caller values them all in one
    batch and adds them."""

    def cut(loose, piles, sweeps, last_side, leader_side) -> float:
        pending.append((loose, piles[0], piles[1], sweeps[0], sweeps[1],
                        -1 if last_side is None else last_side, leader_side))
        return 0.0

    return cut


__all__ = ["TailValue", "deferred", "boundary_inputs", "save_tail",
           "tail_supported"]
