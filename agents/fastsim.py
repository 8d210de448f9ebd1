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
switches that do not change captures), and Hungarian's plays of several hand cards at once
(V-hun-play; not its Ulmann, Kovacs, Nagy or claims switches), and ``krypkasino`` (two decks,
compulsory maximal captures, penalties with tabbes: V-kryp-play, V-kryp-score, any number of
players), whose rollouts follow the engine's own greedy penalty policy move for move;
``supported`` says when a variant needs the engine's rollouts instead. Tests check every move
it makes against the engine's legal moves.
"""

from __future__ import annotations

from functools import cache, lru_cache

from casino_env.engine import Rules, State
from casino_env.engine.cards import SPADE, bit_list
from casino_env.engine.dealing import deal
from casino_env.engine.scoring import awards, earned, earned_winner, sweep_scores
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
# holds (rather than trailing), as the heuristic does.
POLICIES = {"cards": (1.0, 0.05), "points": (0.25, 1.0), "builder": (1.0, 0.05)}


def supported(rules: Rules) -> bool:
    """True if greedy rollouts of ``rules`` can be simulated here."""
    if getattr(rules, "must_capture", False):
        return _kryp_supported(rules)
    if rules.deck.name != "standard" or getattr(rules, "scoring", "casino") == "tuxedo":
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
                 "low", "kind", "kcaps", "kcw")

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
        self.build = policy == "builder" and rules.building
        self.max_value = rules.max_value
        self.cw = tuple(per_card + per_point * w.value(1 << c) for c in range(rules.deck.size))
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
        self.kw = w  # (its Weights: the engine greedy's value of a capture) and per card
        self.kcw = tuple(w.value(1 << c) for c in range(rules.deck.size)) if self.kryp else ()
        self.hand_values = getattr(rules, "hand_values", self.values)  # (an Ace 14 from hand)
        self.low = rules.deck.low  # the copy-0 ids (two decks)
        self.kind = rules.deck.kind  # card id -> its one-deck card (two decks: both copies)
        self.kcaps: dict[int, tuple | None] = {}  # (loose, value) -> greedy maximal capture

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
    _maximal.cache_clear()


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


def greedy_step(sr: SimRules, hand: int, loose: int, builds: list, seat: int
                ) -> tuple[int, int, int] | None:
    """The greedy move of ``seat``: (kind 1 capture / 0 trail, played card, taken mask), or
    None when it would need a build (the caller then asks the engine); under V-hun-play a
    capture by several hand cards is (3, their mask, taken mask). ``builds`` holds
    (value, cards, owner, weight) tuples. Krypkasino: ``kryp_step`` (no builds there)."""
    if sr.kryp:
        return kryp_step(sr, hand, loose)
    cw = sr.cw
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


def kryp_step(sr: SimRules, hand: int, loose: int) -> tuple[int, int, int]:
    """V-kryp-play under the engine rollouts' greedy penalty policy (``scripted.greedy_key``):
    (1 capture / 0 trail, played card, taken mask), the engine's choice on its move list. A
    trail takes no penalty, so the most penalized card that captures nothing trails (the
    first such card on ties); if every card captures, the capture taking the fewest penalty
    points, then the fewest cards, the first in the engine's order on ties (cards in id
    order, one copy of each; ``_kryp_capture``)."""
    hand &= ~((hand & sr.low) << 1)  # one copy of each card (``moves.distinct``)
    values = sr.values
    reach = 1  # the sums of sets of loose cards
    m = loose
    while m:
        low = m & -m
        m ^= low
        reach |= reach << values[low.bit_length() - 1]
    hv = sr.hand_values
    kcw = sr.kcw
    trail = -1
    tw = 0.0
    h = hand
    while h:
        low = h & -h
        h ^= low
        c = low.bit_length() - 1
        if not reach >> hv[c] & 1:  # no set of its value on the table: it trails
            w = kcw[c]
            if trail < 0 or w < tw:
                trail, tw = c, w
    if trail >= 0:
        return 0, trail, 0
    best = None
    best_c = best_m = 0
    h = hand
    while h:
        low = h & -h
        h ^= low
        c = low.bit_length() - 1
        wt, n, m = _kryp_capture(sr, loose, hv[c])
        # (weights are whole penalty points: this sum is greedy_key's value of both cards)
        key = (kcw[c] + wt, -1 - n)
        if best is None or key > best:
            best, best_c, best_m = key, c, m
    return 1, best_c, best_m


@lru_cache(maxsize=1 << 16)
def _maximal(vals: tuple, v: int) -> tuple[int, ...]:
    """V-kryp-play: position masks of the maximal captures of value ``v`` from loose cards
    of values ``vals`` (ascending), in ascending order as ``moves._generate_kryp`` meets them:
    every collection of disjoint sets of ``v`` that meets every such set."""
    gs = groups(vals, v, False)
    if len(gs) <= 1:
        return gs
    return tuple(pm for pm in partitions(vals, v, False) if pm and all(g & pm for g in gs))


def _kryp_capture(sr: SimRules, loose: int, v: int) -> tuple[float, int, int]:
    """V-kryp-play: (penalty weight, cards, mask) of the greedy pick among the maximal
    captures of value ``v`` (collections of disjoint sets of ``v`` that leave no set of ``v``
    loose): the lightest, then the fewest cards, then the first in the engine's order (by
    ascending mask, as ``sets.partitions`` lists them), with a copy taken once while both lie
    loose as the lower one (as ``moves._generate_kryp``). Needs a set of ``v`` on the table."""
    key = v << 128 | loose
    got = sr.kcaps.get(key)
    if got is None:
        if len(sr.kcaps) > 200_000:
            sr.kcaps.clear()
        ids = bit_list(loose)  # (id order is ascending value, as the engine's Items)
        values = sr.values
        vals = tuple([values[i] for i in ids])
        kcw = sr.kcw
        best = None
        bm = 0
        for pm in _maximal(vals, v):
            m = 0
            wt = 0.0  # (whole penalty points: the Weights' value of m, exactly)
            while pm:
                low = pm & -pm
                pm ^= low
                i = ids[low.bit_length() - 1]
                m |= 1 << i
                wt += kcw[i]
            k = (wt, -m.bit_count())
            if best is None or k > best:
                best, bm = k, m
        low = sr.low
        once = bm >> 1 & low & ~bm & loose & loose >> 1  # a card taken once by its copy 1 ...
        if once:
            bm = bm & ~(once << 1) | once  # ... while both lie loose: the copy 0
        got = sr.kcaps[key] = (best[0], -best[1], bm)
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
             tail=None) -> float:
    """Play the rest of the hand of ``st`` greedily for every seat and return what ``side``
    gains minus the best other side (points), +/- ``game_bonus`` if the hand ends the game.

    ``fallback(state) -> float`` evaluates ``st`` with engine rollouts instead; it is used
    when the greedy move would be a build (an owner with no capture), which is rare, and for
    the whole rollout where the rules are not ``supported`` (tuxedo's scoring, say).
    ``tail(loose, piles, sweeps, last_side, leader_side) -> float``, if given, ends the
    rollout at the first deal boundary (every hand empty, no build, cards left to deal) and
    returns its value there instead of dealing on (``agents.tail_value``)."""
    r = st.rules
    sr = sim_rules(r, policy)
    if not sr.supported:
        return fallback(st)
    if sr.kryp:
        if tail is not None:
            raise ValueError("tail: boundary values do not cover penalty games (krypkasino)")
        return _simulate_kryp(st, sr, side, game_bonus)
    n = sr.players
    hands = list(st.hand_masks)
    loose = st.loose_mask
    cw = sr.cw
    builds = [(b.value, b.cards, b.owner, sum(cw[i] for i in bit_list(b.cards)))
              for b in st.builds]
    stock = list(st.stock_ids)
    piles = list(st.pile_masks)
    order = [list(p) for p in st.pile_ids] if st.pile_ids else None  # V-swazi-steal
    sweeps = list(st.sweeps)
    last = st.last_capturer
    seat = st.current
    dealer = st.dealer
    sides = sr.side
    steps = sr.steps
    while True:
        if not hands[seat]:
            nxt = None
            for k in range(1, n + 1):
                if hands[(seat + k) % n]:
                    nxt = (seat + k) % n
                    break
            if nxt is None:
                if not stock:
                    break
                if tail is not None and not builds:
                    return tail(loose, piles, sweeps, None if last is None else sides[last],
                                sides[(dealer + 1) % n])
                hs = sr.hand_size
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
        mv = steps.get(key, _MISS)
        if mv is _MISS:
            if len(steps) > 200_000:
                steps.clear()
            mv = steps[key] = greedy_step(sr, hands[seat], items, builds, seat)
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
                  game_bonus)


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
    loose = st.loose_mask
    stock = tuple(st.stock_ids)
    piles = list(st.pile_masks)
    sweeps = list(st.sweeps)
    events = list(st.events)
    last = st.last_capturer
    seat = st.current
    dealer = st.dealer
    sides = sr.side
    steps = sr.steps
    kind = sr.kind
    per_sweep = r.item_points.sweep
    first_stock = r.deck.size - 4 - hs * n  # the stock after a hand's first deal
    while True:
        hand = hands[seat]
        if not hand:
            nxt = None
            for k in range(1, n + 1):
                if hands[(seat + k) % n]:
                    nxt = (seat + k) % n
                    break
            if nxt is None:
                if not stock:
                    break
                first = not loose and not any(piles)
                dealt, stock, extra = deal(tuple(hands), stock, n, dealer, first, hs, True)
                hands = list(dealt)
                loose |= extra
                nxt = (dealer + 1) % n
            seat = nxt
            continue
        key = (hand, loose)
        mv = steps.get(key)
        if mv is None:
            if len(steps) > 200_000:
                steps.clear()
            mv = steps[key] = kryp_step(sr, hand, loose)
        kind_, c, tm = mv
        hands[seat] = hand & ~(1 << c)
        if kind_:
            before = loose
            loose &= ~tm
            sd = sides[seat]
            piles[sd] |= tm | 1 << c
            if not loose and sr.sweeps:  # a tabbe (play._record_sweep, play._tabbe)
                # the hand's first move (play._first_play) credits no one
                opening = (before.bit_count() == 4 and len(stock) == first_stock
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
        else:
            loose |= 1 << c
        seat = (seat + 1) % n
    taker = last if last is not None else dealer
    piles[sides[taker]] |= loose
    points, winner = finish_hand(r, tuple(st.scores), tuple(piles), tuple(sweeps), st.met,
                                 tuple(events), None if last is None else sides[last])
    return _result([-p for p in points], winner, side, game_bonus)


def _unstack(order: list, piles: list, taken: int) -> None:
    """V-swazi-steal: the pile tops among ``taken`` leave their piles (in place)."""
    for sd, p in enumerate(order):
        if p and taken >> p[-1] & 1:
            piles[sd] &= ~(1 << p.pop())


def _score(st: State, r: Rules, piles: list, sweeps: list, last_side: int | None, side: int,
           game_bonus: float) -> float:
    start = tuple(st.scores)
    winner = None
    points = None
    if finish_hand is not None:
        try:
            points, winner = finish_hand(r, start, tuple(piles), tuple(sweeps), st.met, (),
                                         last_side)
        except TypeError:  # pragma: no cover - another engine version
            points = None
    if points is None:
        points = [0] * r.sides
        for _, s, p in awards(r, tuple(piles), tuple(sweeps), (), last_side):
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
