"""A lean simulator of the rest of a hand under the greedy policy, for search rollouts.

``SearchAgent`` spends nearly all its time in rollouts; playing them through the engine costs
a full legal-move list and a state copy per move. Under a greedy policy only captures and
trails are ever chosen, so this module plays them on plain ints: the best capture of each
hand card (exact subset-sum packing), the build-keeping, owner-trail, face-card and
Dominican no-trail rules, sweeps with cancelling, dealing from the stock, the residue, and
the engine's own hand scoring at the end; with V-swazi-steal the ordered piles, whose tops the
other sides take like loose cards.

It covers the single-card-play rules (``casino``, ``royal``, ``dominican``, ``spade``,
``wippen``, ``swedish``, ``finnish`` and ``swazi`` -- their hand values, sweep limits,
last-capture point, wins by earned points during play and pile tops -- and the building
switches that do not change captures), ``tuxedo`` (the Rook deck; its oranges and sized
sweeps kept as the engine's scoring events, V-tux-score; not its ``orange_calls``),
Hungarian's plays of several hand cards at once (V-hun-play; not its Ulmann, Kovacs, Nagy
or claims switches), and ``krypkasino`` (two decks,
compulsory maximal captures, penalties with tabbes: V-kryp-play, V-kryp-score, any number of
players), whose rollouts follow the engine's own greedy penalty policy move for move;
``supported`` says when a variant needs the engine's rollouts instead. Tests check every move
it makes against the engine's legal moves.
"""

from __future__ import annotations

from functools import cache, lru_cache

from casino_env.engine import Rules, State
from casino_env.engine.cards import SPADE, bit_list
from casino_env.engine.dealing import TABLE_SIZE
from casino_env.engine.scoring import (
    TUX_ORANGE,
    TUX_SWEEP_BIG,
    TUX_SWEEP_SMALL,
    awards,
    earned,
    earned_winner,
    restricted,
    sweep_scores,
)
from casino_env.engine.sets import groups, partitions

from .valuation import _groups, ace14, static_weights

try:  # the engine's hand scoring (restrictions, count-out); awards alone as a fallback
    from casino_env.engine.scoring import finish_hand
except ImportError:  # pragma: no cover
    finish_hand = None

# Switches whose moves this simulator does not model (the engine plays those rollouts).
# (Krypkasino's ``must_capture`` has its own branch: ``_kryp_supported``.)
UNSUPPORTED = ("kovacs", "build_as_card", "build_loose", "owner_may_trail", "orange_calls",
               "nagy", "claims", "ulmann", "difference")


# Rollout policies: (weight per card, weight per point) of a capture.
# "builder" is "cards" plus secure builds: with nothing better to take, it builds a value it
# holds (rather than trailing), as the heuristic does. "events" is "builder" weighing a
# capture by the points it scores, in units of the commonest card's points: each card's
# static points, and under V-tux-score the orange and the sweep (of 10 or 5) it makes, which
# the other policies leave to chance although they are most of tuxedo's points.
# "guard" is "events" looking one reply ahead with two players: each card's best capture (or
# its trail) less the best the next player's hand can then take (``guard_step``).
POLICIES = {"cards": (1.0, 0.05), "points": (0.25, 1.0), "builder": (1.0, 0.05),
            "events": (0.0, 1.0), "guard": (0.0, 1.0)}


def supported(rules: Rules) -> bool:
    """True if greedy rollouts of ``rules`` can be simulated here."""
    if getattr(rules, "must_capture", False):
        return _kryp_supported(rules)
    tuxedo = getattr(rules, "scoring", "casino") == "tuxedo"
    if rules.deck.name != ("rook" if tuxedo else "standard"):
        return False
    return not any(getattr(rules, name, False) for name in UNSUPPORTED)


@lru_cache(maxsize=64)
def _kryp_supported(rules: Rules) -> bool:
    """Krypkasino as preset (V-kryp-play, V-kryp-score): no building, one card a turn, penalty
    scoring in which no card is worth taking (every static weight <= 0), so that the engine's
    greedy policy always prefers a trail to a capture (``scripted.greedy_key``)."""
    if not (rules.penalties and rules.scoring == "kryp" and rules.deck.copies == 2) or \
            rules.building or rules.multi_play or rules.steal or rules.earned_wins:
        return False
    if any(getattr(rules, name, False) for name in UNSUPPORTED):
        return False
    w = static_weights(rules)
    return all(w.value(1 << c) <= 0 for c in range(rules.deck.size))


class SimRules:
    """Per-rules constants of the simulator (cached)."""

    __slots__ = ("rules", "values", "rank", "rank_mask", "ace14", "cw", "dom_trail", "sweeps",
                 "cancel", "players", "side", "sides", "hand_size", "packs", "tables", "capv",
                 "same_rank", "build", "max_value", "earned_wins", "spade", "steps",
                 "supported", "multi", "direct", "earned_cap", "kryp", "kw", "hand_values",
                 "low", "kind", "kcw", "orange", "ew", "guard",
                 # krypkasino's tables (SimRules._kryp_tables)
                 "kpen", "kle", "kcaps", "kmax", "kbits", "kreach", "kvs_of", "kvs",
                 "kvs_bits", "kvs_mask", "kreachs", "ksize", "kcards", "kn", "kshift",
                 "kpk", "kby", "kpref", "kvalue", "kdead", "kdeal")

    def __init__(self, rules: Rules, policy: str = "cards") -> None:
        self.rules = rules
        self.supported = supported(rules)  # else ``simulate`` hands every rollout to the engine
        self.values = rules.values  # on the table (and in builds)
        self.rank = rules.deck.rank
        self.rank_mask = rules.deck.rank_mask
        self.ace14 = ace14(rules)
        w = static_weights(rules)
        # What a capture is worth to the rollout policy: "cards" (the greedy agent: cards
        # first, then points) or "points" (the variant's points, a little for each card).
        if policy not in POLICIES:
            raise ValueError(f"rollout policy must be one of {POLICIES}, got {policy!r}")
        per_card, per_point = POLICIES[policy]
        self.build = policy in ("builder", "events", "guard") and rules.building
        self.max_value = rules.max_value
        self.cw = tuple(per_card + per_point * w.value(1 << c) for c in range(rules.deck.size))
        # V-tux-score: a capture taking a red and a yellow card is an orange (colours R Y G B)
        self.orange = rules.deck.suit_mask[:2] if rules.scoring == "tuxedo" else None
        self.ew = None  # "events": (orange, sweep of 4+, smaller sweep) in the cards' units
        if policy in ("events", "guard"):
            # the commonest card's points are 1 (points only in penalty games: krypkasino's
            # rollouts weigh by its own tables, ``kcw``)
            scored = [x for x in self.cw if x > 0]
            plain = max(set(scored), key=scored.count) if scored else 1.0
            self.cw = tuple(x / plain for x in self.cw)
            if self.orange is not None:
                self.ew = (TUX_ORANGE / plain, TUX_SWEEP_BIG / plain, TUX_SWEEP_SMALL / plain)
        self.dom_trail = rules.dom_trail
        self.sweeps = rules.sweeps
        self.cancel = rules.cancel
        self.earned_wins = rules.earned_wins  # V-earned: the game may end during the hand
        if self.earned_wins and self.supported:
            self.direct, self.earned_cap = _earned_parts(rules)
        self.spade = rules.deck.suit_mask[SPADE]
        self.players = rules.players
        self.side = tuple(rules.side(s) for s in range(rules.players))
        self.sides = rules.sides
        self.hand_size = getattr(rules, "hand_size", 4)
        self.packs: dict[int, tuple[float, int]] = {}  # (loose, value) -> best loose capture
        self.tables: dict[int, tuple] = {}  # loose -> (values, ids, reachable sums)
        self.steps: dict[tuple, tuple | None] = {}  # greedy_step's results (simulate)
        # Per card: the values it captures with from hand (None: C-face; V-fin-values) and
        # the mask of its rank.
        self.capv = tuple(None if v is None else (1, 14) if v == 1 and self.ace14 else (v,)
                          for v in getattr(rules, "hand_values", self.values))
        self.same_rank = tuple(self.rank_mask[self.rank[c]] for c in range(rules.deck.size))
        self.multi = rules.multi_play  # V-hun-play: several hand cards may capture at once
        # Krypkasino (V-kryp-play): the engine rollouts' greedy penalty policy, on two decks.
        self.kryp = self.supported and rules.must_capture
        # "guard" reads the one other hand (two players), and weighs captures as points won,
        # not as krypkasino's penalties: there it plays as "events"
        self.guard = policy == "guard" and rules.players == 2 and not self.kryp
        self.kw = w  # (its Weights: the engine greedy's value of a capture) and per card
        self.kcw = tuple(w.value(1 << c) for c in range(rules.deck.size)) if self.kryp else ()
        self.hand_values = getattr(rules, "hand_values", self.values)  # (an Ace 14 from hand)
        self.low = rules.deck.low  # the copy-0 ids (two decks)
        self.kind = rules.deck.kind  # card id -> its one-deck card (two decks: both copies)
        if self.kryp:
            self._kryp_tables(rules.deck.size)

    def _kryp_tables(self, size: int) -> None:
        """Krypkasino's tables and memos (``kryp_step``, ``_simulate_kryp``)."""
        vals, kcw = self.values, self.kcw
        top = max(self.hand_values)  # the highest hand value (an Ace's 14)
        big = max(top, *vals)
        # Penalty points per card: the weights are whole points (<= 0), so int sums and
        # comparisons of these are the engine greedy's float ones exactly.
        self.kpen = tuple(int(-w) for w in kcw)
        if any(p != -w for p, w in zip(self.kpen, kcw)):
            raise ValueError("krypkasino's penalty weights must be whole points")
        # Per value v: the cards that can be in a set of v (value <= v). With ids in ascending
        # value (as the engine's decks number them) no other loose card changes a capture of
        # v, nor its order among the captures, so a capture is memoised on these alone.
        every = (1 << size) - 1
        ascending = all(a <= b for a, b in zip(vals, vals[1:]))
        self.kle = tuple(sum(1 << c for c, x in enumerate(vals) if x <= v) if ascending
                         else every for v in range(top + 1))
        self.kcaps = [{} for _ in range(top + 1)]  # value -> loose -> _kryp_capture
        self.kmax: dict[int, tuple] = {}  # (value, loose values) -> _maximal
        self.kbits = big.bit_length()  # bits of a value in kmax's keys (one value a digit)
        self.kreach = (1 << top + 1) - 1  # the subset sums a hand card can take (<= top)
        # The loose cards' values as one int, a count per value (``count_bits`` bits each):
        # each card adds its ``kvs``. The subset sums (``_kryp_reach``) depend on these alone,
        # and few such multisets occur, so the sums after a capture are memoised on them.
        count_bits = max(map(vals.count, set(vals))).bit_length()
        self.kvs_of = tuple(1 << count_bits * x for x in range(big + 1))  # by value
        self.kvs = tuple(self.kvs_of[x] for x in vals)
        self.kvs_bits = count_bits * (big + 1)
        self.kvs_mask = (1 << self.kvs_bits) - 1
        self.kreachs: dict[int, int] = {}  # loose values (kvs sum) -> _kryp_reach
        # _kryp_capture's packing: the mask in the low ``size`` bits (ksize; kcards masks
        # them), the kvs sum above it, then the number of cards (kn bits) and the penalty
        # points (from kshift up: the capture's part of greedy_key); kpk: each card's own
        # penalty at its place in such a key.
        self.ksize = size
        self.kcards = every
        self.kn = size.bit_length()
        self.kshift = size + self.kvs_bits
        self.kpk = tuple(p << self.kn for p in self.kpen)
        # The trail preference (kryp_step: the most penalized card first, then by id): card
        # -> its bit in that order (kpref) and back (kby); per hand value the bits of its
        # cards (kvalue); ``_kryp_dead``'s masks by subset sums (kdead).
        self.kby = tuple(sorted(range(size), key=lambda c: (kcw[c], c)))
        rank = {c: k for k, c in enumerate(self.kby)}
        self.kpref = tuple(1 << rank[c] for c in range(size))
        self.kvalue = tuple(sum(self.kpref[c] for c in range(size) if self.hand_values[c] == v)
                            for v in range(top + 1))
        self.kdead: list[int | None] = [None] * (self.kreach + 1)  # by reach (<= kreach)
        # A stock card as _kryp_deal takes it: its trail preference bit above its card bit.
        self.kdeal = tuple(self.kpref[c] << size | 1 << c for c in range(size))

    def pack_one(self, loose: int, t: int) -> tuple[float, int]:
        """(weight, mask) of the heaviest single set of loose cards summing to ``t``."""
        key = -(loose << 5 | t) - 1
        got = self.packs.get(key)
        if got is None:
            values = self.values
            pairs = sorted((values[i], i) for i in bit_list(loose) if values[i] is not None)
            vals = tuple(x for x, _ in pairs)
            ids = tuple(i for _, i in pairs)
            got = (0.0, 0)
            if t > 0:
                for g in _groups(vals, t, False):
                    m = 0
                    wt = 0.0
                    for j in bit_list(g):
                        m |= 1 << ids[j]
                        wt += self.cw[ids[j]]
                    if wt > got[0]:
                        got = (wt, m)
            self.packs[key] = got
        return got

    def pack(self, loose: int, v: int) -> tuple[float, int]:
        """(weight, mask) of the heaviest loose collection a value ``v`` takes (memoised)."""
        key = v << 64 | loose  # any v (several played cards may total more than 15)
        got = self.packs.get(key)
        if got is None:
            if len(self.packs) > 200_000:
                self.packs.clear()
                self.tables.clear()
            tab = self.tables.get(loose)
            if tab is None:
                values = self.values
                pairs = sorted((values[i], i) for i in bit_list(loose) if values[i] is not None)
                vals = tuple(x for x, _ in pairs)
                reach = 1
                for x in vals:
                    reach |= reach << x
                tab = self.tables[loose] = (vals, tuple(i for _, i in pairs), reach)
            vals, ids, reach = tab
            lone = self.ace14 and v == 14
            if reach >> v & 1 or (lone and 1 in vals):
                got = _best_pack(vals, ids, v, lone, self.cw)
            else:
                got = (0.0, 0)
            self.packs[key] = got
        return got


_MISS = object()


@lru_cache(maxsize=64)
def sim_rules(rules: Rules, policy: str = "cards") -> SimRules:
    return SimRules(rules, policy)


def clear_caches() -> None:
    """Forget every memoised position (greedy moves, packings): the next rollout starts cold.
    For benchmarks, where an agent would otherwise reuse another's positions."""
    sim_rules.cache_clear()


def _best_pack(vals: tuple, ids: tuple, v: int, lone: bool, cw: tuple) -> tuple[float, int]:
    """(weight, card mask) of the heaviest collection of loose cards splitting into sets of v."""
    gs = _groups(vals, v, lone)
    if not gs:
        return 0.0, 0
    opts = []
    for g in gs:
        m = 0
        wt = 0.0
        for j in bit_list(g):
            m |= 1 << ids[j]
            wt += cw[ids[j]]
        opts.append((g, m, wt))
    if len(opts) == 1:
        return opts[0][2], opts[0][1]
    best_w, best_m = 0.0, 0
    # Small tables: exhaustive search over disjoint choices (groups are few in practice).
    stack = [(0, 0, 0.0, 0)]
    n = len(opts)
    while stack:
        i, used, wt, m = stack.pop()
        if wt > best_w:
            best_w, best_m = wt, m
        for k in range(i, n):
            g, gm, gw = opts[k]
            if not g & used:
                stack.append((k + 1, used | g, wt + gw, m | gm))
    return best_w, best_m


def _backs(sr: SimRules, hand: int, values: list[int]) -> bool:
    need: dict[int, int] = {}
    for v in values:
        k = 1 if v == 14 else v
        need[k] = need.get(k, 0) + 1
    rm = sr.rank_mask
    return all((hand & rm[k]).bit_count() >= n for k, n in need.items())


def sim_builds(sr: SimRules, builds: tuple) -> list:
    """The engine's builds as the simulator holds them: (value, cards, owner, weight of the
    cards under ``sr``'s policy)."""
    cw = sr.cw
    return [(b.value, b.cards, b.owner, sum(cw[i] for i in bit_list(b.cards))) for b in builds]


def greedy_step(sr: SimRules, hand: int, loose: int, builds: list, seat: int
                ) -> tuple[int, int, int] | None:
    """The greedy move of ``seat``: (kind 1 capture / 0 trail, played card, taken mask), or
    None when it would need a build (the caller then asks the engine); under V-hun-play a
    capture by several hand cards is (3, their mask, taken mask). ``builds`` holds
    (value, cards, owner, weight) tuples. Krypkasino: ``kryp_step`` (no builds there)."""
    if sr.kryp:
        return kryp_step(sr, hand, loose)
    cw = sr.cw
    ew = sr.ew
    capv = sr.capv
    same_rank = sr.same_rank
    dom_trail = sr.dom_trail
    owned = [b for b in builds if b[2] == seat] if builds else ()
    pack = sr.pack
    best_key = -1.0
    best_c = best_m = 0
    h = hand
    while h:
        low = h & -h
        h ^= low
        c = low.bit_length() - 1
        vs = capv[c]
        if vs is None:  # C-face: one loose card of its rank
            if owned and not _backs(sr, hand & ~low, [b[0] for b in owned]):
                continue
            t_mask = loose & same_rank[c]
            while t_mask:
                tl = t_mask & -t_mask
                t_mask ^= tl
                key = cw[c] + cw[tl.bit_length() - 1]
                if ew is not None:
                    key += _event_bonus(sr, tl, loose, builds)
                if key > best_key:
                    best_key, best_c, best_m = key, c, tl
            continue
        same = loose & same_rank[c] if dom_trail else 0
        for v in vs:
            wt, m = pack(loose, v) if loose else (0.0, 0)
            bm = 0
            for b in builds:
                if b[0] == v:
                    bm = b[1]
                    m |= bm
                    wt += b[3]
            if not m or same & ~m:
                continue
            if owned and not _backs(sr, hand & ~low, [b[0] for b in owned if not b[1] & m]):
                # Keeping a card for an owned build: take that build alone, if it is legal.
                if not bm or same & ~bm or not _backs(
                        sr, hand & ~low, [b[0] for b in owned if not b[1] & bm]):
                    continue
                m = bm
                wt = sum(b[3] for b in builds if b[1] == bm)
            key = cw[c] + wt
            if ew is not None:
                key += _event_bonus(sr, m, loose, builds)
            if key > best_key:
                best_key, best_c, best_m = key, c, m
    if sr.multi and loose and hand & (hand - 1):  # V-hun-play: two or more cards at once
        several = _best_several(sr, hand, loose)
        if several[0] > best_key:
            return 3, several[1], several[2]
    if sr.build and loose and best_key < 2.5:  # nothing taken, or a pair: consider building
        bv, bc, bm, bval = _best_build(sr, hand, loose, builds, owned)
        if bm and (not best_m or bv > best_key + 1.0):
            return 2, bc, bm | bval << 64
    if best_m:
        return 1, best_c, best_m
    if owned:
        return None  # C-owner-trail: the owner must capture or build
    trail = -1
    h = hand
    while h:
        low = h & -h
        h ^= low
        c = low.bit_length() - 1
        if dom_trail and loose & same_rank[c]:
            continue
        if trail < 0 or cw[c] < cw[trail]:
            trail = c
    if trail < 0:
        return None
    return 0, trail, 0


def guard_step(sr: SimRules, hand: int, loose: int, builds: list, seat: int, other: int
               ) -> tuple[int, int, int] | None:
    """The "guard" policy's move for ``seat`` of two, whose opponent holds ``other`` (known
    in a rollout's deal): each hand card's best capture (or its trail) is worth what it
    takes, less the most the opponent's best reply then takes (each in ``greedy_step``'s
    weights, events included). A build ``greedy_step`` would make, and any position with a
    build of ``seat``'s own (C-build-keep), stay ``greedy_step``'s."""
    base = greedy_step(sr, hand, loose, builds, seat)
    if base is None or base[0] == 2 or not other or hand & (hand - 1) == 0 or \
            any(b[2] == seat for b in builds):
        return base
    best = base
    best_score = None
    h = hand
    while h:
        low = h & -h
        h ^= low
        mv = greedy_step(sr, low, loose, builds, seat)
        if mv is None:
            continue
        gain, after, left = _gain(sr, mv, loose, builds)
        reply = 0.0
        o = other
        while o:
            ol = o & -o
            o ^= ol
            r = greedy_step(sr, ol, after, left, 1 - seat)
            if r is not None and r[0] == 1:
                reply = max(reply, _gain(sr, r, after, left)[0])
        score = gain - reply
        if best_score is None or score > best_score:
            best, best_score = mv, score
    return best


def _gain(sr: SimRules, mv: tuple, loose: int, builds: list) -> tuple[float, int, list]:
    """What a capture or trail ``mv`` (of ``greedy_step``) takes in its weights, and the
    loose cards and builds it leaves."""
    kind, c, m = mv
    if kind != 1:
        return 0.0, loose | 1 << c, builds
    cw = sr.cw
    gain = cw[c] + sum(cw[i] for i in bit_list(m))
    if sr.ew is not None:
        gain += _event_bonus(sr, m, loose, builds)
    return gain, loose & ~m, [b for b in builds if not b[1] & m] if builds else builds


def _event_bonus(sr: SimRules, taken: int, loose: int, builds: list) -> float:
    """What the "events" policy adds for a capture of ``taken`` (table cards, builds' cards
    included): an orange (V-tux-score: a red and a yellow card), and a sweep (no loose card
    and no build left), of 10 with 4 or more table cards taken, else 5."""
    ew = sr.ew
    bonus = ew[0] if taken & sr.orange[0] and taken & sr.orange[1] else 0.0
    if not loose & ~taken and all(b[1] & taken for b in builds):
        bonus += ew[1] if taken.bit_count() >= 4 else ew[2]
    return bonus


def kryp_step(sr: SimRules, hand: int, loose: int) -> tuple[int, int, int]:
    """V-kryp-play under the engine rollouts' greedy penalty policy (``scripted.greedy_key``):
    (1 capture / 0 trail, played card, taken mask), the engine's choice on its move list. A
    trail takes no penalty, so the most penalized card that captures nothing trails (the
    first such card on ties: the first by trail preference, ``SimRules.kpref``, of those
    ``_kryp_dead`` gives); if every card captures, the capture taking the fewest penalty
    points, then the fewest cards, the first in the engine's order on ties (cards in id
    order, one copy of each; ``_kryp_take``)."""
    hand &= ~((hand & sr.low) << 1)  # one copy of each card (``moves.distinct``)
    t = _kryp_prefs(sr, hand) & _kryp_dead(sr, _kryp_reach(sr, loose))
    if t:
        return 0, sr.kby[(t & -t).bit_length() - 1], 0
    c, m, _ = _kryp_take(sr, hand, loose)
    return 1, c, m


def _kryp_reach(sr: SimRules, loose: int) -> int:
    """The sums of sets of loose cards (bit t: some set sums to t), up to the highest hand
    value: all a hand card can capture (higher sums never matter, so the int stays small)."""
    values = sr.values
    reach = 1
    while loose:
        low = loose & -loose
        loose ^= low
        reach |= reach << values[low.bit_length() - 1]
    return reach & sr.kreach


def _kryp_prefs(sr: SimRules, hand: int) -> int:
    """``hand`` by trail preference: the ``SimRules.kpref`` bits of its cards."""
    kpref = sr.kpref
    out = 0
    while hand:
        low = hand & -hand
        hand ^= low
        out |= kpref[low.bit_length() - 1]
    return out


def _kryp_dead(sr: SimRules, reach: int) -> int:
    """The cards (as ``SimRules.kpref`` bits) whose hand values are not in ``reach``
    (``_kryp_reach``): those that capture nothing from that table. Memoised by reach."""
    dead = sr.kdead[reach]
    if dead is None:
        dead = sr.kdead[reach] = sum(m for v, m in enumerate(sr.kvalue) if not reach >> v & 1)
    return dead


def _kryp_take(sr: SimRules, hand: int, loose: int) -> tuple[int, int, int]:
    """The greedy capture when every card of ``hand`` (one copy of each) captures: (played
    card, taken mask, ``SimRules.kvs`` sum of the taken cards); see ``kryp_step``. Each
    card's capture is ``_kryp_capture``'s (memoised by value and the loose cards that can
    be in a set of it, ``SimRules.kle``)."""
    hv = sr.hand_values
    kpk = sr.kpk
    kcaps = sr.kcaps
    kle = sr.kle
    shift = sr.kshift
    best = -1
    best_c = got = 0
    while hand:
        low = hand & -hand
        hand ^= low
        c = low.bit_length() - 1
        # greedy_key as an int to minimise: the penalty points of the card and its capture
        # above the number of cards taken (``SimRules.kshift``). A capture's penalty is not
        # negative and it takes a card at least, so c's key is kpk[c] | 1 or more: with a
        # best key no higher, c need not be looked at (the first of equal keys stays).
        if 0 <= best <= kpk[c] | 1:
            continue
        v = hv[c]
        rel = loose & kle[v]
        cap = kcaps[v].get(rel)
        if cap is None:
            cap = _kryp_capture(sr, rel, v)
        key = kpk[c] + (cap >> shift)
        if best < 0 or key < best:
            best, best_c, got = key, c, cap
    return best_c, got & sr.kcards, got >> sr.ksize & sr.kvs_mask


def _maximal(sr: SimRules, vals: tuple, v: int) -> tuple[tuple, ...]:
    """V-kryp-play: the maximal captures of value ``v`` from loose cards of values ``vals``
    (ascending), in the order ``moves._generate_kryp`` meets them (ascending position mask):
    every collection of disjoint sets of ``v`` that meets every such set. Each as (its
    cards' positions in ``vals``, their ``SimRules.kvs`` sum)."""
    gs = groups(vals, v, False)
    if len(gs) > 1:
        gs = tuple(pm for pm in partitions(vals, v, False) if pm and all(map(pm.__and__, gs)))
    kvs_of = sr.kvs_of
    out = []
    for pm in gs:
        pos = tuple(bit_list(pm))
        out.append((pos, sum([kvs_of[vals[j]] for j in pos])))
    return tuple(out)


def _kryp_capture(sr: SimRules, loose: int, v: int) -> int:
    """V-kryp-play: the greedy pick among the maximal captures of value ``v`` from ``loose``
    (the loose cards that can be in a set of ``v``; collections of disjoint sets of ``v``
    that leave no set of ``v`` loose): the lightest, then the fewest cards, then the first in
    the engine's order (by ascending mask, as ``sets.partitions`` lists them), with a copy
    taken once while both lie loose as the lower one (as ``moves._generate_kryp``). Needs a
    set of ``v`` on the table. Packed in one int (small, and no object for the garbage
    collector to scan in the memo): from the top, its penalty points, its number of cards
    (``SimRules.kn`` bits), its ``SimRules.kvs`` sum (``kvs_bits``) and its mask (the
    deck's size in bits). Memoised in ``SimRules.kcaps``; the captures by position
    (``_maximal``) on the cards' values."""
    memo = sr.kcaps[v]
    if len(memo) > 30_000:  # (some 13 values: about the memory the other memos take)
        memo.clear()
    values = sr.values
    bits = sr.kbits
    ids = []  # the loose cards by id (id order is ascending value, as the engine's Items)
    # _maximal's arguments as one int: v, then their values, a digit of ``bits`` bits each
    # (v >= 1 leads, so the number of digits and each value are read back unambiguously)
    sig = v
    rest = loose
    while rest:
        low = rest & -rest
        rest ^= low
        i = low.bit_length() - 1
        ids.append(i)
        sig = sig << bits | values[i]
    opts = sr.kmax.get(sig)
    if opts is None:
        if len(sr.kmax) > 100_000:
            sr.kmax.clear()
        opts = sr.kmax[sig] = _maximal(sr, tuple([values[i] for i in ids]), v)
    kpen = sr.kpen
    best = None
    for pos, vs in opts:
        m = pen = 0
        for j in pos:
            i = ids[j]
            m |= 1 << i
            pen += kpen[i]
        k = (pen, len(pos))
        if best is None or k < best:
            best, bm, bs = k, m, vs
    once = bm >> 1 & sr.low & ~bm & loose & loose >> 1  # a card taken once by its copy 1
    if once:  # ... while both lie loose: the copy 0 (of the same value: the kvs sum stays)
        bm = bm & ~(once << 1) | once
    got = memo[loose] = ((best[0] << sr.kn | best[1]) << sr.kvs_bits | bs) << sr.ksize | bm
    return got


@cache
def _several(n: int) -> tuple[int, ...]:
    """The subsets of two or more of ``n`` hand cards (bit j: the j-th card), by size, then
    mask: the order of the engine's V-hun-play moves."""
    return tuple(sorted((m for m in range(3, 1 << n) if m & (m - 1)),
                        key=lambda m: (m.bit_count(), m)))


def _best_several(sr: SimRules, hand: int, loose: int) -> tuple[float, int, int]:
    """(weight, played mask, taken mask) of the heaviest capture by two or more hand cards
    together (V-hun-play: their total t takes loose sets each totalling t); weight -1 if none.
    Subsets by size, then mask, as the engine lists them: the first of equal weights wins."""
    ids = bit_list(hand)
    values, cw = sr.values, sr.cw
    best = (-1.0, 0, 0)
    for pm in _several(len(ids)):
        t = 0
        played = 0
        pw = 0.0
        for j, c in enumerate(ids):
            if pm >> j & 1:
                t += values[c]
                played |= 1 << c
                pw += cw[c]
        wt, m = sr.pack(loose, t)
        if m and pw + wt > best[0]:
            best = (pw + wt, played, m)
    return best


def _best_build(sr: SimRules, hand: int, loose: int, builds: list, owned
                ) -> tuple[float, int, int, int]:
    """The most valuable new single build the hand can secure: (weight of the cards it will
    capture next turn, played card, loose cards used, value); weight 0 if none. Only new
    values (no build of that value on the table, C-one-per-value) with a capturing card kept
    besides the played one (C-build) and every owned build still backed (C-build-keep)."""
    if not loose:
        return 0.0, 0, 0, 0
    values = sr.values
    cw = sr.cw
    rank_mask = sr.rank_mask
    taken_values = {b[0] for b in builds}
    owned_values = [b[0] for b in owned]
    best = (0.0, 0, 0, 0)
    h = hand
    while h:
        low = h & -h
        h ^= low
        c = low.bit_length() - 1
        cv = values[c]
        if cv is None:
            continue
        rest = hand & ~low
        held = set()
        for i in bit_list(rest):
            x = values[i]
            if x is not None:
                held.add(14 if x == 1 and sr.ace14 else x)
        for V in held:
            if V <= cv or V > sr.max_value or V in taken_values:
                continue
            if owned_values and not _backs(sr, rest, owned_values + [V]):
                continue
            wt, m = sr.pack_one(loose, V - cv)
            if not m:
                continue
            keep = rest & rank_mask[1 if V == 14 else V]
            kw = max(cw[i] for i in bit_list(keep))
            val = wt + cw[c] + kw
            if val > best[0] or (val == best[0] and (c, V) < (best[1], best[3])):
                best = (val, c, m, V)
    return best


def simulate(st: State, side: int, game_bonus: float, fallback, policy: str = "cards",
             tail=None, last_deal=None) -> float:
    """Play the rest of the hand of ``st`` greedily for every seat and return what ``side``
    gains minus the best other side (points), +/- ``game_bonus`` if the hand ends the game.

    ``fallback(state) -> float`` evaluates ``st`` with engine rollouts instead; it is used
    when the greedy move would be a build (an owner with no capture), which is rare, and for
    the whole rollout where the rules are not ``supported`` (tuxedo's scoring, say) or a side
    is under V-dom-end's endgame restrictions (the engine tracks who meets them first).
    ``tail(loose, piles, sweeps, last_side, leader_side) -> float``, if given, ends the
    rollout at the first deal boundary (every hand empty, no build, cards left to deal) and
    returns its value there instead of dealing on (``agents.tail_value``). ``last_deal(loose,
    piles, sweeps, last, events, stock) -> float | None``, if given, is asked at the boundary
    before the hand's last deal (every hand empty, no build, this deal empties the stock) and
    its value, unless None, ends the rollout there (``agents.endgame.last_deal_value``: the last
    deal played exactly)."""
    r = st.rules
    sr = sim_rules(r, policy)
    if not sr.supported or (r.dom_end and restricted(r, st.scores)):
        # (V-dom-end with a side under endgame restrictions: which side met its criterion
        # first, and restricted_no_sweeps, are the engine's to track)
        return fallback(st)
    if sr.kryp:
        if tail is not None:
            raise ValueError("tail: boundary values do not cover penalty games (krypkasino)")
        return _simulate_kryp(st, sr, side, game_bonus)
    n = sr.players
    hands = list(st.hand_masks)
    loose = st.loose_mask
    cw = sr.cw
    builds = sim_builds(sr, st.builds)
    stock = list(st.stock_ids)
    piles = list(st.pile_masks)
    order = [list(p) for p in st.pile_ids] if st.pile_ids else None  # V-swazi-steal
    sweeps = list(st.sweeps)
    events = list(st.events)  # V-tux-score: oranges and sweeps by size, as the engine records
    last = st.last_capturer
    seat = st.current
    dealer = st.dealer
    sides = sr.side
    steps = sr.steps
    while True:
        if not hands[seat]:
            nxt = _next_holder(hands, seat, n)
            if nxt is None:
                if not stock:
                    break
                if tail is not None and not builds:
                    return tail(loose, piles, sweeps, None if last is None else sides[last],
                                sides[(dealer + 1) % n])
                hs = sr.hand_size
                if last_deal is not None and not builds and len(stock) <= hs * n:
                    v = last_deal(loose, piles, sweeps, last, events, stock)
                    if v is not None:
                        return v
                per = hs if len(stock) >= hs * n else len(stock) // n
                pos = 0
                for k in range(1, n + 1):
                    s = (dealer + k) % n
                    for cid in stock[pos:pos + per]:
                        hands[s] |= 1 << cid
                    pos += per
                stock = stock[pos:]
                if per < hs:  # an uneven last deal: the remainder goes to the table
                    for cid in stock:
                        loose |= 1 << cid
                    stock = []
                nxt = (dealer + 1) % n
            seat = nxt
            continue
        items = loose
        if order is not None:  # V-swazi-steal: the other sides' pile tops are items too
            me = sides[seat]
            for sd, p in enumerate(order):
                if p and sd != me:
                    items |= 1 << p[-1]
        # greedy_step is a pure function of these (the seat only through its owned builds):
        # memoised, since rollouts of one decision meet the same positions again and again.
        key = (hands[seat], items, seat, tuple(builds)) if builds else (hands[seat], items)
        if sr.guard:  # it also reads the other hand
            key = (*key, hands[1 - seat])
        mv = steps.get(key, _MISS)
        if mv is _MISS:
            if len(steps) > 200_000:
                steps.clear()
            mv = steps[key] = (guard_step(sr, hands[seat], items, builds, seat,
                                          hands[1 - seat]) if sr.guard else
                               greedy_step(sr, hands[seat], items, builds, seat))
        if mv is None:  # rare (an owner that must build): replay this hand with the engine
            return fallback(st)
        kind, c, tm = mv
        played = c if kind == 3 else 1 << c  # kind 3: several cards (V-hun-play)
        hands[seat] &= ~played
        if kind == 2:  # a new single build: tm carries the loose cards and the value
            value = tm >> 64
            tm &= (1 << 64) - 1
            if order is not None:
                _unstack(order, piles, tm)
            loose &= ~tm
            cards = tm | 1 << c
            builds.append((value, cards, seat, sum(cw[i] for i in bit_list(cards))))
        elif kind:
            sd = sides[seat]
            loose &= ~tm
            if builds:
                builds = [b for b in builds if not b[1] & tm]
            if order is not None:
                _unstack(order, piles, tm)
                order[sd] += bit_list(tm) + bit_list(played)
            piles[sd] |= tm | played
            last = seat
            if sr.sweeps and not loose and not builds and sweep_scores(r, st.scores, not stock):
                sweeps[sd] += 1
                if sr.cancel and all(sweeps):
                    sweeps = [k - 1 for k in sweeps]
                if sr.orange:
                    events.append((sd, "sweep", TUX_SWEEP_BIG if tm.bit_count() >= 4
                                   else TUX_SWEEP_SMALL))
            if sr.orange and tm & sr.orange[0] and tm & sr.orange[1]:
                events.append((sd, "orange", TUX_ORANGE))
            if sr.earned_wins:  # V-earned: the capture may bring a side to the target
                v = _earned_end(st, sr, piles, sweeps, side, game_bonus)
                if v is not None:
                    return v
        else:
            loose |= 1 << c
        seat = (seat + 1) % n
    # End of hand: the residue to the last capturer's side (C-residue), then score.
    taker = last if last is not None else dealer
    residue = loose
    for b in builds:
        residue |= b[1]
    piles[sides[taker]] |= residue
    return _score(st, r, piles, sweeps, None if last is None else sides[last], side,
                  game_bonus, tuple(events))


def _simulate_kryp(st: State, sr: SimRules, side: int, game_bonus: float) -> float:
    """``simulate`` for krypkasino: the engine's greedy rollout (``search.rollout``) on ints
    (V-kryp-play via ``kryp_step``; deals as ``dealing.deal``, V-kryp-play's last deal), each
    tabbe and dubbeltabbe recorded as ``play._tabbe`` does (V-kryp-score), the residue to the
    last capturer, and the engine's ``finish_hand`` with the events; the penalty points are
    negated for ``_result``, as ``search.hand_result`` counts them against their side."""
    r = sr.rules
    n = sr.players
    hs = sr.hand_size
    hands = list(st.hand_masks)
    # Each hand also by trail preference (SimRules.kpref): its trail, if any, is then its
    # lowest card among those of values no set of loose cards makes (SimRules.kdead).
    prefs = [_kryp_prefs(sr, h) for h in hands]
    loose = st.loose_mask
    # Kept with loose: its values (SimRules.kvs) and their subset sums (_kryp_reach). A
    # trail adds to both; a capture takes its cards' values off and looks the sums up.
    vsig, reach = _kryp_sums(sr, loose)
    stock = list(map(sr.kdeal.__getitem__, st.stock_ids))  # (as _kryp_deal takes it)
    dealt = 0  # stock[dealt:] is still to deal
    piles = list(st.pile_masks)
    sweeps = list(st.sweeps)
    events = list(st.events)
    last = st.last_capturer
    seat = st.current
    dealer = st.dealer
    sides = sr.side
    kind = sr.kind
    values = sr.values
    kvs = sr.kvs
    within = sr.kreach
    reaches = sr.kreachs
    deads = sr.kdead
    by_pref = sr.kby
    distinct = sr.low
    per_sweep = r.item_points.sweep
    first_stock = r.deck.size - TABLE_SIZE - hs * n  # the stock after a hand's first deal
    while True:
        hand = hands[seat]
        if not hand:
            nxt = _next_holder(hands, seat, n)
            if nxt is None:
                if dealt == len(stock):
                    break
                first = not loose and not any(piles)
                dealt, extra = _kryp_deal(sr, hands, prefs, stock, dealt, n, dealer, first, hs)
                if extra:
                    loose |= extra
                    vsig, reach = _kryp_sums(sr, loose)
                nxt = (dealer + 1) % n
            seat = nxt
            continue
        dead = deads[reach]
        if dead is None:
            dead = _kryp_dead(sr, reach)
        t = prefs[seat] & dead
        if t:  # kryp_step's trail: the most penalized card capturing nothing, first on ties
            low = t & -t
            prefs[seat] ^= low
            c = by_pref[low.bit_length() - 1]
            hands[seat] = hand ^ 1 << c
            loose |= 1 << c
            vsig += kvs[c]
            reach = (reach | reach << values[c]) & within
            seat = (seat + 1) % n
            continue
        c, tm, tsig = _kryp_take(sr, hand & ~((hand & distinct) << 1), loose)
        hands[seat] = hand ^ 1 << c
        prefs[seat] ^= sr.kpref[c]
        before = loose
        loose &= ~tm
        vsig -= tsig
        reach = reaches.get(vsig)
        if reach is None:
            if len(reaches) > 200_000:
                reaches.clear()
            reach = reaches[vsig] = _kryp_reach(sr, loose)
        sd = sides[seat]
        piles[sd] |= tm | 1 << c
        if not loose and sr.sweeps:  # a tabbe (play._record_sweep, play._tabbe)
            # the hand's first move (play._first_play) credits no one
            opening = (before.bit_count() == 4 and len(stock) - dealt == first_stock
                       and piles[sd] == tm | 1 << c and not any(piles[:sd] + piles[sd + 1:])
                       and hand.bit_count() == hs
                       and all(x.bit_count() == hs for s, x in enumerate(hands) if s != seat))
            sweeps[sd] += 1
            if sr.cancel and all(sweeps):
                sweeps = [k - 1 for k in sweeps]
            double = (tm & (tm - 1)) == 0 and kind[tm.bit_length() - 1] == kind[c]
            item = "dubbeltabbe" if double else "tabbe"
            pts = per_sweep * (2 if double else 1)
            events.append((sd, item, pts))
            if not opening:
                events.append((sides[(seat - 1) % n], item + " credit", -pts))
        last = seat
        seat = (seat + 1) % n
    taker = last if last is not None else dealer
    piles[sides[taker]] |= loose
    points, winner = finish_hand(r, tuple(st.scores), tuple(piles), tuple(sweeps), st.met,
                                 tuple(events), None if last is None else sides[last])
    return _result([-p for p in points], winner, side, game_bonus)


def _kryp_sums(sr: SimRules, loose: int) -> tuple[int, int]:
    """The loose cards' values (their ``SimRules.kvs`` sum) and subset sums (``_kryp_reach``)."""
    kvs = sr.kvs
    vsig = 0
    rest = loose
    while rest:
        low = rest & -rest
        rest ^= low
        vsig += kvs[low.bit_length() - 1]
    return vsig, _kryp_reach(sr, loose)


def _kryp_deal(sr: SimRules, hands: list, prefs: list, stock: list, dealt: int, players: int,
               dealer: int, first: bool, hand_size: int) -> tuple[int, int]:
    """``dealing.deal`` with ``leftover_to_table`` (krypkasino) from ``stock[dealt:]``, into
    ``hands`` (and their ``prefs``, ``_kryp_prefs``) in place: (the new ``dealt``, mask of the
    cards put on the table); the same cards to the same places. Each stock card is its
    ``SimRules.kdeal``: its trail preference bit above its card bit, so that one sum of
    distinct such ints gives both unions."""
    size, cards = sr.ksize, sr.kcards
    n = len(stock) - dealt
    table = TABLE_SIZE if first else 0
    per = hand_size if n >= hand_size * players + table else max(0, n - table) // players
    pos = dealt
    for k in range(1, players + 1):
        both = sum(stock[pos:pos + per])
        seat = (dealer + k) % players
        hands[seat] |= both & cards
        prefs[seat] |= both >> size
        pos += per
    to_table = min(TABLE_SIZE, n - (pos - dealt)) if first else \
        (n - (pos - dealt) if per < hand_size else 0)
    left = n - (pos - dealt) - to_table
    if 0 < left < players:  # too few for another round of a card each (V-kryp-play)
        to_table += left
    return pos + to_table, sum(stock[pos:pos + to_table]) & cards


def _next_holder(hands: list, seat: int, n: int) -> int | None:
    """The first seat after ``seat`` (in turn, itself last) still holding cards, or None when
    every hand is empty (deal again, or the hand ends)."""
    for k in range(1, n + 1):
        if hands[(seat + k) % n]:
            return (seat + k) % n
    return None


def _unstack(order: list, piles: list, taken: int) -> None:
    """V-swazi-steal: the pile tops among ``taken`` leave their piles (in place)."""
    for sd, p in enumerate(order):
        if p and taken >> p[-1] & 1:
            piles[sd] &= ~(1 << p.pop())


def _score(st: State, r: Rules, piles: list, sweeps: list, last_side: int | None, side: int,
           game_bonus: float, events: tuple = ()) -> float:
    start = tuple(st.scores)
    winner = None
    points = None
    if finish_hand is not None:
        try:
            points, winner = finish_hand(r, start, tuple(piles), tuple(sweeps), st.met, events,
                                         last_side)
        except TypeError:  # pragma: no cover - another engine version
            points = None
    if points is None:
        points = [0] * r.sides
        for _, s, p in awards(r, tuple(piles), tuple(sweeps), events, last_side):
            points[s] += p
    return _result(points, winner, side, game_bonus)


def _result(points, winner: int | None, side: int, game_bonus: float) -> float:
    """What ``side`` gained minus the best other side, +/- ``game_bonus`` if the game ended."""
    v = float(points[side] - max(p for s, p in enumerate(points) if s != side))
    if winner is not None and game_bonus:
        v += game_bonus if winner == side else -game_bonus
    return v


def _earned_parts(rules: Rules) -> tuple[tuple, int]:
    """What bounds a side's earned points (V-earned) from above: the (card bit, points) of
    every card that scores by itself (``awards`` of a one-card pile, no majority certain),
    and the most the rest can add besides sweeps (both majorities)."""
    n = rules.sides
    big = (rules.deck.size, rules.deck.size)  # so many cards left that no majority is certain
    direct = []
    for c in range(rules.deck.size):
        pts = sum(p for _, s, p in awards(rules, (1 << c,) + (0,) * (n - 1), (0,) * n, (),
                                          None, big) if s == 0)
        if pts:
            direct.append((1 << c, pts))
    ip = rules.item_points
    return tuple(direct), ip.cards + (0 if rules.scoring == "spade" else ip.spades)


def _earned_end(st: State, sr: SimRules, piles: list, sweeps: list, side: int,
                game_bonus: float) -> float | None:
    """V-earned, as the engine plays it: the result if the points each side is sure of now
    bring one to the target ahead of every other side, else None (a tie plays on, C-game).
    An upper bound of every side's total first: mostly no side can have reached the target."""
    r = sr.rules
    per_sweep = r.item_points.sweep if r.sweeps else 0
    for s, p in enumerate(piles):
        cap = st.scores[s] + sr.earned_cap + sweeps[s] * per_sweep
        for bit, pts in sr.direct:
            if p & bit:
                cap += pts
        if cap >= r.target:
            break
    else:
        return None
    taken = 0
    for p in piles:
        taken |= p
    left = (r.deck.size - taken.bit_count(), (sr.spade & ~taken).bit_count())
    points = earned(r, tuple(piles), tuple(sweeps), (), left)
    totals = [s + p for s, p in zip(st.scores, points)]
    winner = earned_winner(totals, r.target)
    return None if winner is None else _result(points, winner, side, game_bonus)
