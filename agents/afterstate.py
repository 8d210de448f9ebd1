"""A learned value of the position a move leaves (its *afterstate*). On the two-player last
deal, where the view determines the state, a network fitted by ``experiments.endgame_net`` to
exact minimax values; before it (scope ``before_last``), one fitted by
``experiments.midgame_net`` to rollout values of the heuristic's best-scored moves, seen
without the opponent's hand. Playing the afterstate it values highest takes one forward pass
over the moves and no search; ``heuristic:endgame_net=PATH`` and ``ppo:MODEL,endgame_net=PATH``
play the last deal by one, ``midgame_net=PATH`` the deals before it (elsewhere they play as
usual).

An afterstate's inputs: the environment's compact observation from the mover's seat, a plane
of the opponent's hand (known on the last deal; empty before it), the static lead (the piles
scored as they stand, /10) and optionally per-rank counts and the heuristic's score of the move
that led there (``heuristic_columns``: the network then learns a correction to the heuristic's
evaluation); the network predicts what play adds to the static lead (or, fitted with base
``banked``, to the points already certain: ``BASES``)."""

from __future__ import annotations

import random
from functools import cache, lru_cache
from pathlib import Path

import numpy as np

from casino_env.encoding import N_CARDS, Layout, card_bits, kind_planes
from casino_env.engine import Move, Rules, State, new_game
from casino_env.engine.play import play
from casino_env.engine.view import PlayerView

from .base import check_int, check_number
from .endgame import perfect_information, points_sign, solve_view


@cache
def layout_of(rules: Rules) -> Layout:
    """The compact observation layout the rows are made of (one per rules: it is read-only)."""
    return Layout(rules, compose=False, kind="compact")


LAST_DEAL, BEFORE_LAST = "last_deal", "before_last"  # where a network plays (its scope)
SCOPES = (LAST_DEAL, BEFORE_LAST)
# whose scores a network reads (``heuristic_columns``, its candidates): the default heuristic's,
# or ``heuristic:complete=1``'s (its meta's ``hints``; shards record theirs, ``endgame_net.load``)
DEFAULT_HINTS = "default"
HINTS = (DEFAULT_HINTS, "complete")


def afterstate_row(layout: Layout, after: State, me: int, hidden: bool = False) -> np.ndarray:
    """``after`` seen from seat ``me``: its compact observation, then the other seat's hand
    (left empty when ``hidden``: before the last deal the mover cannot see it)."""
    row = np.zeros(layout.size + 52, np.float32)
    layout.encode(after, me, row[:layout.size])
    if not hidden:
        mask = after.hand_masks[1 - me]
        # as the observation's planes: a card 1, or with two decks each copy of it 1/2
        row[layout.size:] = (kind_planes([mask])[0] if layout.rules.deck.copies > 1
                             else card_bits(mask))
    return row


def top_candidates(scores: list[float], k: int) -> list[int]:
    """The indices of the ``k`` best-scored moves, best first (ties in the moves' order): the
    moves the search agent considers, and those a ``before_last`` network chooses among."""
    return sorted(range(len(scores)), key=lambda i: -scores[i])[:k]


def _pile_bytes(rules: Rules, piles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows' two piles (mine, the other side's) as card masks packed eight cards a byte,
    read from the compact pile plane (one deck: mine 1, the other's -1; two decks: each copy
    of mine 1/2, of the other's -1/4, so that every split of two copies reads back: the
    copies of kind k are bits 2k and 2k+1, mine first)."""
    if rules.deck.copies == 1:
        return (np.packbits(piles > 0.5, axis=1, bitorder="little"),
                np.packbits(piles < -0.5, axis=1, bitorder="little"))
    q = np.rint(piles * 4).astype(np.int8)  # 0.5 m - 0.25 o, times 4: 2m - o
    m = np.where(q > 0, (q + 1) // 2, 0)  # 4: 2 mine, 2: 1, 1: 1 (and 1 other's), else 0
    o = 2 * m - q
    copy = np.arange(2)
    mine = (copy < m[..., None]).reshape(len(piles), -1)
    other = ((copy >= m[..., None]) & (copy < (m + o)[..., None])).reshape(len(piles), -1)
    return (np.packbits(mine, axis=1, bitorder="little"),
            np.packbits(other, axis=1, bitorder="little"))


# what a residual network's output is added to: ``static``, the piles scored as they stand
# (the majorities to whoever leads them now); ``banked``, only the points already certain
# (``scoring.earned``: a majority once no one can catch up) plus the points scored as events
# during play (Tuxedo's oranges and sized sweeps, krypkasino's tabbes): what play cannot undo
BASES = ("static", "banked")


def _check_base(base: str) -> None:
    if base not in BASES:
        raise ValueError(f"unknown base {base!r} (known: {', '.join(BASES)})")


def static_leads(rules: Rules, x: np.ndarray, base: str = "static") -> np.ndarray:
    """Each row's point difference for the mover if the hand were scored on the piles as they
    stand (``scoring.awards``; the table's residue unassigned, the points scored as events
    during play left to the inputs' bonus plane), read back from the pile plane and sweep
    counts: what the cards already taken decide (penalty games: the reverse). ``base``
    "banked": only the points certain (see ``BASES``), the bonus plane's events included."""
    _check_base(base)
    o = layout_of(rules).offset
    mine, other = _pile_bytes(rules, x[:, o["piles"]:o["piles"] + N_CARDS])
    sweeps = np.rint(x[:, o["sweeps"]:o["sweeps"] + 2] * 10).astype(int).tolist()
    banked = base == "banked"
    memo: dict = {}
    out = np.empty(len(x), np.float32)
    for i in range(len(x)):
        key = (int.from_bytes(mine[i].tobytes(), "little"),
               int.from_bytes(other[i].tobytes(), "little"), *sweeps[i])
        got = memo.get(key)
        if got is None:
            got = memo[key] = _pile_lead(rules, *key, banked)
        out[i] = got
    if banked:  # the bonus plane: each side's event points / target, clipped to -1..1
        b = np.rint(x[:, o["bonus"]:o["bonus"] + 2] * rules.target)
        out += points_sign(rules) * (b[:, 0] - b[:, 1]).astype(np.float32)
    return out


@lru_cache(maxsize=1 << 16)
def _pile_lead(rules: Rules, mine: int, other: int, my_sweeps: int, other_sweeps: int,
               banked: bool = False) -> float:
    """``static_leads``' number for one pair of piles and sweep counts (memoised: a trail
    leaves the piles as they were, so positions of a hand share them); ``banked``: only the
    points certain while the cards neither pile holds are still to be captured."""
    from casino_env.engine.cards import SPADE
    from casino_env.engine.scoring import awards, earned

    piles, sweeps = (mine, other), (my_sweeps, other_sweeps)
    if banked:  # what V-earned counts as certain, the cards neither pile holds uncaptured
        taken, spades = mine | other, rules.deck.suit_mask[SPADE]
        left = (rules.deck.size - taken.bit_count(),
                spades.bit_count() - (taken & spades).bit_count())
        sure = earned(rules, piles, sweeps, (), left)
        return float(points_sign(rules) * (sure[0] - sure[1]))
    return float(points_sign(rules) * sum(p if s == 0 else -p for _, s, p in
                                    awards(rules, piles, sweeps)))


def _event_lead(rules: Rules, st: State, side: int) -> float:
    """The points ``side`` scored as events this hand minus the other side's, each clipped to
    the target as the bonus plane holds them (penalty games: the reverse)."""
    totals = [0, 0]
    for s, _, pts in st.events:
        totals[s != side] += pts
    t = rules.target
    return float(points_sign(rules) * (min(max(totals[0], -t), t) - min(max(totals[1], -t), t)))


def static_leads_of(rules: Rules, afters: list[State], me: int, base: str = "static"
                    ) -> np.ndarray:
    """``static_leads`` of the rows of ``afters`` seen from seat ``me``, read from the states
    instead of the rows (the same numbers: the other sides' piles as one, sweeps counted to
    10 as the observation has them); two-player games."""
    _check_base(base)
    side = rules.side(me)
    banked = base == "banked"
    out = np.empty(len(afters), np.float32)
    for i, st in enumerate(afters):
        piles, sweeps = st.pile_masks, st.sweeps
        out[i] = _pile_lead(rules, piles[side], piles[1 - side],
                            min(sweeps[side], 10), min(sweeps[1 - side], 10), banked)
        if banked and st.events:
            out[i] += _event_lead(rules, st, side)
    return out


def rank_counts(rules: Rules, x: np.ndarray) -> np.ndarray:
    """Per rank, the cards of it in my hand, loose on the table and in the opponent's hand
    (13 columns each, suits summed; two decks: copies / 2): what captures and builds add up,
    suit-blind."""
    layout = layout_of(rules)
    o = layout.offset

    def ranks(plane: np.ndarray) -> np.ndarray:
        return plane.reshape(len(x), 13, 4).sum(axis=2)

    return np.hstack([ranks(x[:, o["hand"]:o["hand"] + 52]),
                      ranks(np.maximum(x[:, o["table"]:o["table"] + 52], 0)),
                      ranks(x[:, layout.size:layout.size + 52])]).astype(np.float32)


def net_inputs(rules: Rules, x: np.ndarray, residual: bool, ranks: bool,
               leads: np.ndarray | None = None, base_kind: str = "static"
               ) -> tuple[np.ndarray, np.ndarray]:
    """The network's inputs for rows ``x`` and the base its output is added to (the static
    lead of kind ``base_kind``, see ``BASES``, or zeros without ``residual``; ``leads``: the
    rows' leads of that kind, if known)."""
    if not residual:
        base = np.zeros(len(x), np.float32)
    else:
        base = static_leads(rules, x, base_kind) if leads is None else leads
    parts = [x] + ([base[:, None] / 10] if residual else []) + \
        ([rank_counts(rules, x)] if ranks else [])
    return np.hstack(parts).astype(np.float32), base


@cache
def _scorer(complete: bool = False):  # -> HeuristicAgent (agents.scripted imports this module)
    """The heuristic whose scores networks read (``complete``: ``heuristic:complete=1``'s, for a
    network whose meta says ``hints: complete``; otherwise the default's)."""
    from .scripted import HeuristicAgent

    return HeuristicAgent(0, complete=complete)


def heuristic_columns(st: State, moves: list[Move], scores: list[float] | None = None
                      ) -> np.ndarray:
    """Per move, the default heuristic's score of it from the mover's view and its gap to the
    decision's best score (both /10): a hand-written evaluation the network can correct
    (``scores``: the heuristic's scores of ``moves``, if already known)."""
    if scores is None:
        scores = _scorer().scores(PlayerView(st, st.current), moves)
    s = np.asarray(scores, np.float32)
    return np.stack([s / 10, (s - s.max()) / 10], axis=1)


def heuristic_pick(scores: list[float]) -> int:
    """The index of the move the heuristic plays given its scores (the first best, as
    ``HeuristicAgent.choose`` picks it)."""
    best = 0
    for i, s in enumerate(scores):
        if s > scores[best] + 1e-9:
            best = i
    return best


def value_net(width: int, hidden: int, dropout: float = 0.0):  # -> torch.nn.Module
    """The MLP: two layers of ``hidden``, one of ``hidden // 2``, one output."""
    from torch import nn

    return nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Dropout(dropout),
                         nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(dropout),
                         nn.Linear(hidden, hidden // 2), nn.ReLU(), nn.Linear(hidden // 2, 1))


def set_value_net(rules: Rules, width: int, dim: int = 64, layers: int = 2,
                  heads: int = 4):  # -> torch.nn.Module
    """A network over the cards as a set: one token per card still in play (my hand, the
    opponent's, the table; rank, suit, where it lies, its build's value, owner and kind),
    attention between them, and a summary token projected from the whole row (piles, counts,
    static lead, the heuristic's columns). It takes the MLP's rows, so fitting, suit swaps and
    saving are the same; what it adds is relations between cards (sums, pairs, who holds
    what)."""
    import torch
    from torch import nn

    from casino_env.encoding import MAX_VALUE

    layout = layout_of(rules)
    o, size = layout.offset, layout.size

    class SetValueNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            # where the planes lie in a row
            self.hand_at, self.table_at, self.opp_at = o["hand"], o["table"], size
            self.multiple, self.owner = o["build_multiple"], o["build_owner"]
            self.max_value = MAX_VALUE
            self.rank, self.suit = nn.Embedding(13, dim), nn.Embedding(4, dim)
            self.value = nn.Embedding(MAX_VALUE + 1, dim)  # 0: not in a build
            self.where = nn.Linear(6, dim)
            self.summary = nn.Linear(width, dim)
            block = nn.TransformerEncoderLayer(dim, heads, 2 * dim, dropout=0.0,
                                               batch_first=True, norm_first=True)
            self.encoder = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
            self.head = nn.Sequential(nn.Linear(2 * dim, dim), nn.ReLU(), nn.Linear(dim, 1))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            hand = x[:, self.hand_at:self.hand_at + 52]
            table = x[:, self.table_at:self.table_at + 52]
            opp = x[:, self.opp_at:self.opp_at + 52]
            live = (hand != 0) | (table != 0) | (opp != 0)
            n = int(live.sum(1).max())
            ids = torch.argsort(live.to(torch.int8), dim=1, descending=True, stable=True)[:, :n]
            pad = ~torch.gather(live, 1, ids)
            t = torch.gather(table, 1, ids)
            value = torch.round(-t.clamp(max=0) * self.max_value).long()
            slot = (value - 1).clamp(min=0)
            build = (value > 0).float()
            owner = x[:, self.owner:self.owner + self.max_value]
            multiple = x[:, self.multiple:self.multiple + self.max_value]
            # in whose hand, loose: 1 (two decks: each copy 1/2, as the planes hold them)
            feats = torch.stack([
                torch.gather(hand, 1, ids), torch.gather(opp, 1, ids), t.clamp(min=0), build,
                build * torch.gather(owner, 1, slot),
                build * torch.gather(multiple, 1, slot)], dim=2)
            tokens = self.rank(ids // 4) + self.suit(ids % 4) + self.value(value) + \
                self.where(feats)
            seq = torch.cat([self.summary(x)[:, None], tokens], 1)
            mask = torch.cat([torch.zeros(x.shape[0], 1, dtype=torch.bool), pad], 1)
            out = self.encoder(seq, src_key_padding_mask=mask)
            keep = (~pad).float()[..., None]
            pooled = (out[:, 1:] * keep).sum(1) / keep.sum(1).clamp(min=1.0)
            return self.head(torch.cat([out[:, 0], pooled], 1))

    return SetValueNet()


def build_net(meta: dict, rules: Rules):  # -> torch.nn.Module
    """The network ``meta`` describes (``kind`` "set": ``set_value_net``; else the MLP)."""
    if meta.get("kind") == "set":
        return set_value_net(rules, meta["width"], meta["hidden"], meta.get("layers", 2))
    return value_net(meta["width"], meta["hidden"], meta.get("dropout", 0.0))


def save_net(path: Path, net, meta: dict) -> None:
    """Write ``net``'s weights (float16, small) with what rebuilding it needs (``meta``:
    variant, width, hidden, residual, ranks), through a temporary file replaced at once, so
    that a kill mid-write leaves no truncated network at ``path``."""
    import torch

    path = Path(path)
    state = {k: v.half() for k, v in net.state_dict().items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save({"meta": meta, "state_dict": state}, tmp)
    tmp.replace(path)


def _load_member(path: str, option: str) -> tuple:  # -> (forward pass, dict, Rules)
    """One saved network (``save_net``), its meta and its game's rules, its forward pass in
    numpy for play (``agents.numpy_nets``: the same function, without torch's per-operation
    cost on a decision's few rows)."""
    import torch

    from casino_env.encoding import MAX_VALUE

    from .numpy_nets import numpy_net

    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{option}: no such file {path!r} (experiments.endgame_net "
                         f"fit --save PATH writes one)")
    try:
        saved = torch.load(p, map_location="cpu", weights_only=True)
        meta = saved["meta"]
        rules = new_game(meta["variant"], 2, seed=0).rules
        net = build_net(meta, rules)
        state = {k: v.float() for k, v in saved["state_dict"].items()}
        net.load_state_dict(state)  # checks the names and shapes against ``meta``'s network
    except Exception as e:  # a foreign or corrupt file: torch raises many kinds
        raise ValueError(f"{option} {path}: not an afterstate value network "
                         f"({type(e).__name__}: {e})") from e
    if meta.get("base", "static") not in BASES:
        raise ValueError(f"{option} {path}: unknown base {meta['base']!r} (known: "
                         f"{', '.join(BASES)})")
    layout = layout_of(rules)
    offsets = dict(layout.offset, opp=layout.size)
    forward = numpy_net(meta, {k: v.numpy() for k, v in state.items()}, offsets, MAX_VALUE)
    return forward, meta, rules


class AfterstateNet:
    """A saved afterstate value network (``save_net``), ready to value a view's moves. Its
    ``scope`` (from the file) says where it plays: ``last_deal`` (the two-player last deal)
    or ``before_last`` (every two-player decision before it, among the heuristic's
    ``candidates`` best-scored moves). ``path`` may join several files of one preset and
    scope with ``+`` (``a.pt+b.pt``): an ensemble, valuing each afterstate by their mean (the
    members' errors partly cancel). A last-deal network fitted only where the mover held at
    most ``max_cards`` cards (``experiments.endgame_net collect --from-cards``: a deal too
    large to solve whole) plays only there."""

    def __init__(self, path: str | Path, margin: float = 0.0,
                 option: str = "endgame_net", prior: float = 0.0,
                 candidates: int | None = None, samples: int | None = None) -> None:
        # depart from the heuristic's move only for an afterstate valued at least this many
        # points above the heuristic's (0: always play the best-valued one)
        self.margin = check_number("endgame_margin", margin, 0.0)
        # before the last deal: each candidate's value plus ``prior`` times the heuristic's
        # score of it, the rule of the search whose rollouts label these networks
        self.prior = check_number("midgame_prior", prior, 0.0)
        paths = str(path).split("+") if not Path(path).is_file() else [str(path)]
        self.members = [_load_member(p.strip(), option) for p in paths]
        self.net, meta, self.rules = self.members[0]
        self.meta = meta
        self.path = str(path)
        self.option = option  # the agent option that named it, for messages
        self.layout = layout_of(self.rules)
        self._checked = self.rules  # the last rules found equal to the network's
        self.scope = meta.get("scope", LAST_DEAL)
        if self.scope not in SCOPES:
            raise ValueError(f"{option} {path}: unknown scope {self.scope!r} (known: "
                             f"{', '.join(SCOPES)})")
        self.candidates = int(meta.get("candidates", 0))  # 0: every legal move
        if candidates is not None:  # the fitted count replaced at play time
            self.candidates = check_int("midgame_candidates", candidates, 0)
        # before the last deal, a move that ends a round is valued with the next round dealt
        # (as in fitting): the mean over this many deals of it (1: one, the first)
        self.samples = 1 if samples is None else check_int("midgame_samples", samples, 1)
        self.max_cards = int(meta.get("max_cards", 0))  # 0: any
        # whose scores the network read in fitting (its heuristic columns and, before the
        # last deal, its candidates): the default heuristic's, or heuristic:complete=1's
        hints = meta.get("hints", DEFAULT_HINTS)
        if hints not in HINTS:
            raise ValueError(f"{option} {path}: unknown hints {hints!r} (known: "
                             f"{', '.join(HINTS)})")
        self.complete = hints == "complete"
        for p, (_, m, _) in zip(paths[1:], self.members[1:]):
            for key, default in (("variant", None), ("scope", LAST_DEAL), ("candidates", 0),
                                 ("max_cards", 0), ("hints", DEFAULT_HINTS)):
                if m.get(key, default) != meta.get(key, default):
                    raise ValueError(f"{option} {path}: an ensemble's networks must share "
                                     f"their {key} ({paths[0]}: {meta.get(key, default)!r}, "
                                     f"{p}: {m.get(key, default)!r})")
        if self.scope == BEFORE_LAST and self.margin:
            raise ValueError("endgame_margin: a margin over the heuristic's move applies to a "
                             f"last-deal network; {path} plays before the last deal")
        if self.scope == LAST_DEAL and self.prior:
            raise ValueError("midgame_prior: the heuristic's scores as a prior apply to a "
                             f"network before the last deal; {path} plays on the last deal")
        if self.scope == LAST_DEAL and samples is not None:
            raise ValueError("midgame_samples: the deals a network before the last deal values "
                             f"a round's last move over; {path} plays on the last deal")
        if self.scope == LAST_DEAL and candidates is not None:
            raise ValueError("midgame_candidates: the heuristic's best-scored moves a network "
                             f"chooses among before the last deal; {path} plays on the last "
                             "deal, among every legal move")

    def values(self, st: State, moves: list[Move], scores: list[float] | None = None
               ) -> np.ndarray:
        """The predicted hand point difference for the mover after each of ``moves`` (the
        members' mean; ``scores``: the heuristic's scores of them, if already known)."""
        me = st.current
        hidden = self.scope == BEFORE_LAST
        afters = [play(st, m, deal_next=False) for m in moves]
        rows = np.stack([afterstate_row(self.layout, a, me, hidden) for a in afters])
        leads_of: dict[str, np.ndarray] = {}  # per base kind (an ensemble's may differ)
        total = None
        for net, meta, _ in self.members:
            kind = meta.get("base", "static")
            if kind not in leads_of:
                leads_of[kind] = static_leads_of(self.rules, afters, me, kind)
            leads = leads_of[kind]
            x = rows
            if meta.get("heuristic_scores"):
                if scores is None:
                    scores = _scorer(self.complete).scores(PlayerView(st, st.current), moves)
                x = np.hstack([rows, heuristic_columns(st, moves, scores)])
            inputs, base = net_inputs(self.rules, x, meta["residual"], meta["ranks"], leads,
                                      kind)
            out = net(inputs) + base
            total = out if total is None else total + out
        return total if len(self.members) == 1 else total / len(self.members)

    def choose(self, view: PlayerView, moves: list[Move]) -> Move | None:
        """The move to the best-valued afterstate where the network plays (its ``scope``: the
        two-player last deal, where ``view`` determines the state, with at most ``max_cards``
        in the mover's hand where set, or the decisions before it), else None; ValueError on
        another game's rules."""
        if view.rules is not self._checked:  # rules are frozen: one comparison a game
            if view.rules != self.rules:
                raise ValueError(f"{self.option} {self.path} was fitted on "
                                 f"{self.meta['variant']}; this game's rules differ")
            self._checked = view.rules
        if len(moves) < 2:
            return None
        if self.scope == BEFORE_LAST:
            if perfect_information(view):
                return None
            # the afterstates are encoded as the mover sees them (its observation, no other
            # hand), so any full state consistent with the view gives the same rows, except
            # after a move that ends a round: there the next round is dealt into them, as in
            # fitting (midgame_samples averages over such deals). The view's own state is
            # redacted (no stock, no other hand), which play would misread.
            scores = _scorer(self.complete).scores(view, moves)
            order = top_candidates(scores, self.candidates or len(moves))
            cands = [moves[i] for i in order]
            pri = [scores[i] for i in order]
            v = self.values(view.determinize(random.Random(0)), cands, pri)
            if self.samples > 1 and ends_round(view, cands):
                # the afterstates hold the next round's cards: a guess, so average over deals
                for i in range(1, self.samples):
                    v = v + self.values(view.determinize(random.Random(i)), cands, pri)
                v = v / self.samples
            if self.prior:
                v = v + self.prior * np.asarray(pri, np.float32)
            return cands[int(np.argmax(v))]
        if not perfect_information(view) or (
                self.max_cards and view.hand_sizes[view.seat] > self.max_cards):
            return None
        st = view.determinize(random.Random(0))
        if not self.margin:
            return moves[int(np.argmax(self.values(st, moves)))]
        scores = _scorer(self.complete).scores(PlayerView(st, st.current), moves)
        v = self.values(st, moves, scores)
        best, own = int(np.argmax(v)), heuristic_pick(scores)
        return moves[best if v[best] - v[own] >= self.margin else own]


def ends_round(view: PlayerView, moves: list[Move]) -> bool:
    """Whether one of ``moves`` ends a round with cards still in the stock (every hand empty
    after it: the next round is dealt into the afterstate)."""
    if not view.stock_size or any(n for s, n in enumerate(view.hand_sizes) if s != view.seat):
        return False
    hand = view.state.hand_masks[view.seat]
    return any(not hand & ~m.played_mask for m in moves)


def exact_or_learned(view: PlayerView, moves: list[Move], endgame: int,
                     nets: tuple) -> Move | None:
    """The move an agent's solver or afterstate networks play here, if one does: the exact
    minimax move within ``endgame`` positions (0: never), else that of the first of ``nets``
    (networks or None) whose scope this decision is in; None leaves the choice to the agent."""
    if endgame:
        solved = solve_view(view, endgame)
        if solved is not None:
            return solved[0]
    for net in nets:
        learned = None if net is None else net.choose(view, moves)
        if learned is not None:
            return learned
    return None


def afterstate_nets(endgame_net: str | None, endgame_margin: float | None,
                    midgame_net: str | None, midgame_prior: float | None = None,
                    midgame_candidates: int | None = None, midgame_samples: int | None = None
                    ) -> tuple[AfterstateNet | None, AfterstateNet | None]:
    """The agents' options ``endgame_net`` (with ``endgame_margin``) and ``midgame_net``
    (with ``midgame_prior``, ``midgame_candidates`` and ``midgame_samples``) loaded (None
    where not given), each checked to be a network of its scope (ValueError naming the
    option)."""
    if endgame_margin is not None and endgame_net is None:
        raise ValueError("endgame_margin: a margin for an endgame_net's departures from the "
                         "heuristic, so it needs endgame_net")
    if midgame_prior is not None and midgame_net is None:
        raise ValueError("midgame_prior: the heuristic's scores added to a midgame_net's "
                         "values, so it needs midgame_net")
    if midgame_samples is not None and midgame_net is None:
        raise ValueError("midgame_samples: the deals a midgame_net values a round's last move "
                         "over, so it needs midgame_net")
    if midgame_candidates is not None and midgame_net is None:
        raise ValueError("midgame_candidates: how many of the heuristic's best-scored moves a "
                         "midgame_net chooses among, so it needs midgame_net")
    nets = []
    for option, path, scope, other in (("endgame_net", endgame_net, LAST_DEAL, "midgame_net"),
                                       ("midgame_net", midgame_net, BEFORE_LAST, "endgame_net")):
        net = None
        if path is not None:
            net = AfterstateNet(path, (endgame_margin or 0.0) if option == "endgame_net"
                                else 0.0, option,
                                (midgame_prior or 0.0) if option == "midgame_net" else 0.0,
                                midgame_candidates if option == "midgame_net" else None,
                                midgame_samples if option == "midgame_net" else None)
            if net.scope != scope:
                where = "the last deal" if net.scope == LAST_DEAL else "before the last deal"
                raise ValueError(f"{option} {path} plays {where} (give it as {other})")
        nets.append(net)
    return nets[0], nets[1]


__all__ = ["BASES", "BEFORE_LAST", "LAST_DEAL", "SCOPES", "AfterstateNet", "afterstate_nets",
           "exact_or_learned", "afterstate_row", "build_net", "heuristic_columns",
           "heuristic_pick", "net_inputs", "rank_counts", "save_net", "set_value_net",
           "static_leads", "static_leads_of", "top_candidates", "value_net"]
