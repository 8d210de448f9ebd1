"""What cards and tables are worth, read from a variant's rules and scoring (never hard-coded).

The scripted agents value a set of cards in *points to whoever takes it*:

- card-specific points (10D, 2S, aces, each spade in Spade Casino and its Bicycle values, ...
  whatever ``scoring.awards`` gives a card on its own, with a V-points table in force), found
  by scoring one card against the rest of the deck;
- a share of each *majority* item (most cards, most spades): the expected change in that
  item's points when one more card goes to us rather than to the best other side, from the
  current pile counts and the cards still to be taken (a binomial split of the rest). Early in
  a hand a card is worth about a fifth of a point; at 26-25 with one card left it decides 3.

In a penalty game (krypkasino, V-kryp-score) points are bad for their taker: card values and a
sweep's are negative there.

Everything is a bitmask weight so that valuing a capture is a few ``bit_count`` calls.
The table helpers (``table_after``, ``best_capture``, ``threat``) let a one-ply agent ask
what an opponent could take from the table a move leaves, given the cards it cannot see.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb

from casino_env.engine import Build, Move, Rules
from casino_env.engine.cards import SPADE, TEN_OF_DIAMONDS, TWO_OF_SPADES, bit_list
from casino_env.engine.scoring import awards, criteria, is_orange

# Majority items by the name scoring.awards gives them, and the cards each one counts.
MAJORITY_DOMAINS = {"spades": lambda deck: deck.suit_mask[SPADE]}


class RulesValues:
    """Per-rules constants: card-specific points and the majority items (cached per Rules)."""

    __slots__ = ("rules", "direct", "direct_terms", "majorities", "sweep_points",
                 "last_capture_points", "ranks", "groups")

    def __init__(self, rules: Rules) -> None:
        deck = rules.deck
        n = rules.sides
        full = deck.full
        none = (0,) * n
        sign = -1.0 if getattr(rules, "penalties", False) else 1.0  # V-kryp-score

        def points(piles: tuple) -> float:
            return sign * sum(p for _, s, p in awards(rules, piles, none) if s == 0)

        direct = []
        single_items: set[str] = set()
        for c in range(deck.size):
            bit = 1 << c
            piles = (bit, full & ~bit) + (0,) * (n - 2)
            direct.append(points(piles))
            single_items.update(it for it, s, _ in awards(rules, piles, none) if s == 0)
        self.rules = rules
        self.direct = tuple(direct)
        by_value: dict[float, int] = {}
        for c, p in enumerate(direct):
            if p:
                by_value[p] = by_value.get(p, 0) | 1 << c
        self.direct_terms = tuple((m, p) for p, m in by_value.items())
        # An item that side 0 wins holding everything but never holding one card is a majority.
        self.majorities = tuple(
            (MAJORITY_DOMAINS.get(it, lambda d: d.full)(deck), sign * p)
            for it, s, p in awards(rules, (full,) + (0,) * (n - 1), none)
            if s == 0 and it not in single_items and it != "sweeps")
        # A sweep and the hand's last capture are worth what the rules in force say (the
        # preset's, V-points); Tuxedo's sweeps (10 or 5, scored in play) keep a weight of 1,
        # a simplification the default heuristic keeps (HeuristicAgent's docstring lists them;
        # its ``complete`` evaluation scores them, ``Extras``).
        pts = rules.item_points
        if rules.scoring == "tuxedo":
            self.sweep_points = 1.0 if rules.sweeps else 0.0
        else:
            self.sweep_points = sign * pts.sweep
        self.last_capture_points = sign * pts.last_capture
        # Card ids grouped by rank (index = rank), to reason about what an opponent may hold.
        self.ranks = deck.rank_mask
        # (rank, cards) groups that capture alike: the ranks, with Finnish 2S and 10D apart
        # from their rank (V-fin-values: they capture as 15 and 16 from hand).
        hand = getattr(rules, "hand_values", rules.values)
        groups = []
        for rank in range(1, deck.ranks + 1):
            by_value: dict = {}
            for c in bit_list(deck.rank_mask[rank]):
                by_value[hand[c]] = by_value.get(hand[c], 0) | 1 << c
            groups += [(rank, m) for m in by_value.values()]
        self.groups = tuple(groups)


_RULES_CACHE: dict[Rules, RulesValues] = {}


def rules_values(rules: Rules) -> RulesValues:
    """The cached ``RulesValues`` of ``rules``."""
    rv = _RULES_CACHE.get(rules)
    if rv is None:
        rv = _RULES_CACHE[rules] = RulesValues(rules)
    return rv


@lru_cache(maxsize=1 << 16)
def majority_share(points: float, mine: int, other: int, left: int) -> float:
    """Expected points one more card is worth to its taker in a majority item worth
    ``points``, when we hold ``mine``, the best other side ``other`` and ``left`` cards of
    the item are still to be taken (this one included), each going either way with even odds.
    Half the swing between the card going to us and going to the other side."""
    if left <= 0:
        return 0.0

    def g(a: int, b: int) -> float:
        return points if a > b else (-points if b > a else 0.0)

    rest = left - 1
    total = 0.0
    for x in range(rest + 1):
        p = comb(rest, x) / 2 ** rest
        total += p * (g(mine + 1 + x, other + rest - x) - g(mine + x, other + 1 + rest - x))
    return total / 2


class Weights:
    """Points a set of cards is worth to its taker: ``value(mask)``."""

    __slots__ = ("terms",)

    def __init__(self, terms: tuple[tuple[int, float], ...]) -> None:
        self.terms = terms

    def value(self, mask: int) -> float:
        v = 0.0
        for m, w in self.terms:
            b = mask & m
            if b:
                v += w * b.bit_count()
        return v


def weights(rules: Rules, piles: tuple, side: int) -> Weights:
    """Card weights for ``side`` given the piles so far (majority shares follow the counts)."""
    rv = rules_values(rules)
    taken = 0
    for p in piles:
        taken |= p
    terms = list(rv.direct_terms)
    for domain, pts in rv.majorities:
        counts = [(p & domain).bit_count() for p in piles]
        mine = counts[side]
        other = max(c for s, c in enumerate(counts) if s != side) if len(counts) > 1 else 0
        left = (domain & ~taken).bit_count()
        share = majority_share(pts, mine, other, left)
        if share:
            terms.append((domain, share))
    return Weights(tuple(terms))


def static_weights(rules: Rules) -> Weights:
    """Card weights at the start of a hand (no cards taken): for fast rollout policies."""
    return weights(rules, (0,) * rules.sides, 0)


# -- tables ----------------------------------------------------------------------------------

def table_after(loose: int, builds: tuple, move: Move, seat: int) -> tuple[int, tuple]:
    """The table (loose mask, builds) that ``move`` by ``seat`` leaves (as ``play`` does)."""
    pm, tm = move.played_mask, move.taken_mask
    if move.kind == "trail":
        return loose | pm, builds
    kept = tuple(b for b in builds if not b.cards & tm)
    if move.kind == "capture":
        return loose & ~tm, kept
    owner = (seat + 2) % 4 if move.for_partner else seat
    multiple = bool(move.multiple) if move.multiple is not None else False
    new = tuple(sorted(kept + (Build(move.value, tm | pm, owner, multiple),)))
    return loose & ~tm, new


def ace14(rules: Rules) -> bool:
    """True if an Ace may count 14 (Royal values); read defensively across engine versions."""
    return bool(getattr(rules, "ace14", getattr(rules, "royal", False)))


def value_rank(value: int) -> int:
    """Rank of the cards that capture a build of ``value`` (a Royal 14 is an Ace)."""
    return 1 if value == 14 else value


def capture_values(rules: Rules, card: int) -> tuple[int, ...]:
    """Capture values a card may use from hand (a Royal Ace 1 or 14; V-fin-values); () for a
    C-face card."""
    v = getattr(rules, "hand_values", rules.values)[card]
    if v is None:
        return ()
    if v == 1 and ace14(rules):
        return (1, 14)
    return (v,)


@lru_cache(maxsize=1 << 16)
def _groups(vals: tuple[int, ...], target: int, lone_ace: bool) -> tuple[int, ...]:
    """Position masks of the subsets of ``vals`` (ascending) summing to ``target``; with
    ``lone_ace`` a single Ace is also a set of 14 (Royal)."""
    n = len(vals)
    out: list[int] = []

    def dfs(start: int, total: int, mask: int) -> None:
        for j in range(start, n):
            t = total + vals[j]
            if t > target:
                break
            if t == target:
                out.append(mask | 1 << j)
            else:
                dfs(j + 1, t, mask | 1 << j)

    dfs(0, 0, 0)
    if lone_ace and target == 14:
        out.extend(1 << j for j in range(n) if vals[j] == 1)
    return tuple(out)


class Table:
    """The loose cards of a table with a value, for "what could a card of value v take" queries:
    ``best(v, w)`` is the most valuable collection splitting into sets of ``v`` (exact)."""

    __slots__ = ("ids", "vals", "ace14")

    def __init__(self, rules: Rules, loose: int) -> None:
        values = rules.values
        pairs = sorted((values[i], i) for i in bit_list(loose) if values[i] is not None)
        self.ids = tuple(i for _, i in pairs)
        self.vals = tuple(v for v, _ in pairs)
        self.ace14 = ace14(rules)

    def best(self, v: int, w: Weights) -> tuple[float, int]:
        """(points, card mask) of the best collection of loose cards taken by value ``v``."""
        gs = _groups(self.vals, v, self.ace14 and v == 14)
        if not gs:
            return 0.0, 0
        ids = self.ids
        cards = []
        for g in gs:
            m, rest = 0, g
            while rest:  # the positions of g as card ids
                low = rest & -rest
                m |= 1 << ids[low.bit_length() - 1]
                rest ^= low
            cards.append((g, m, w.value(m) + PER_CARD * m.bit_count()))
        if len(cards) == 1:
            return cards[0][2], cards[0][1]
        memo: dict[int, tuple[float, int]] = {}

        def pack(i: int, used: int) -> tuple[float, int]:
            if i == len(cards):
                return 0.0, 0
            key = i << 64 | used
            got = memo.get(key)
            if got is None:
                got = pack(i + 1, used)
                g, m, val = cards[i]
                if not g & used:
                    sub, sm = pack(i + 1, used | g)
                    if sub + val > got[0]:
                        got = (sub + val, sm | m)
                memo[key] = got
            return got

        return pack(0, 0)


@lru_cache(maxsize=1 << 14)
def _packings(vals: tuple[int, ...], target: int, lone_ace: bool) -> tuple[int, ...]:
    """Position masks of the maximal collections of disjoint sets of ``vals`` summing to
    ``target`` (a collection no further set could join); () if there is no set."""
    groups = _groups(vals, target, lone_ace)
    unions = {0}
    for g in groups:
        unions |= {u | g for u in unions if not u & g}
    return tuple(sorted(u for u in unions if u and all(u & g for g in groups)))


def _packings_of(table: Table, v: int) -> list[int]:
    """The card masks of ``_packings`` on ``table``'s loose cards for value ``v``."""
    ids = table.ids
    out = []
    for g in _packings(table.vals, v, table.ace14 and v == 14):
        m, rest = 0, g
        while rest:
            low = rest & -rest
            m |= 1 << ids[low.bit_length() - 1]
            rest ^= low
        out.append(m)
    return out


PER_CARD = 0.01  # a tie-break: of two collections worth the same points, take more cards


def best_capture(rules: Rules, loose: int, builds: tuple, card: int, w: Weights,
                 table: Table | None = None) -> tuple[float, int]:
    """The most valuable capture a ``card`` could make on a table: (points of the cards
    taken, taken mask); (0, 0) if it captures nothing. Ignores build-keeping constraints."""
    vals = capture_values(rules, card)
    if not vals:  # C-face: one loose card of the same rank
        same = loose & rules.deck.rank_mask[rules.deck.rank[card]]
        best, bm = 0.0, 0
        for t in bit_list(same):
            v = w.value(1 << t)
            if bm == 0 or v > best:
                best, bm = v, 1 << t
        return best, bm
    if table is None:
        table = Table(rules, loose)
    best, bm = 0.0, 0
    for v in vals:
        val, m = table.best(v, w)
        for b in builds:
            if b.value == v:
                m |= b.cards
                val += w.value(b.cards) + PER_CARD * b.cards.bit_count()
        if m and (bm == 0 or val > best):
            best, bm = val, m
    return best, bm


def table_mask(loose: int, builds: tuple) -> int:
    m = loose
    for b in builds:
        m |= b.cards
    return m


def hold_probability(unseen: int, hand: int, group: int) -> float:
    """P(a random ``hand``-card subset of ``unseen`` cards meets ``group`` of them)."""
    if hand <= 0 or group <= 0:
        return 0.0
    if hand > unseen - group:
        return 1.0
    return 1.0 - comb(unseen - group, hand) / comb(unseen, hand)


def threat(rules: Rules, loose: int, builds: tuple, unseen: int, hand_size: int,
           certain_values: tuple[int, ...], w: Weights, sweeps: bool = True,
           extras: Extras | None = None) -> float:
    """Expected points of the best capture an opponent holding ``hand_size`` random cards
    out of ``unseen`` can make on this table, plus a sweep's worth if it clears it (and
    ``sweeps``: a sweep would count now). ``certain_values``: build values the opponent is
    known to hold a card for. ``extras``: their captures score these points in play instead
    (an orange, a sweep by its size; ``best_capture_scored``; ``HeuristicAgent(complete=True)``)."""
    if hand_size <= 0 or not (loose or builds):
        return 0.0
    full_table = table_mask(loose, builds)
    table = Table(rules, loose)
    rv = rules_values(rules)
    sweep = rv.sweep_points if sweeps else 0.0
    options: list[tuple[float, int]] = []  # (value, number of unseen cards giving it)
    sure = 0.0
    for rank, group in rv.groups:
        cards = unseen & group
        certain = bool(certain_values) and any(value_rank(v) == rank for v in certain_values)
        if not cards and not certain:
            continue
        some = cards or group
        probe = (some & -some).bit_length() - 1  # the group's lowest card
        if extras is None:
            val, m = best_capture(rules, loose, builds, probe, w, table)
        else:
            val, m = best_capture_scored(rules, loose, builds, probe, w, table, extras,
                                         full_table)
        if not m:
            continue
        val += w.value(cards) / max(1, cards.bit_count())  # the card played joins their pile
        if m == full_table and extras is None:
            val += sweep
        if certain:
            sure = max(sure, val)
        elif cards:
            options.append((val, cards.bit_count()))
    return _expected_best(options, sure, unseen.bit_count(), hand_size)


def _expected_best(options: list[tuple[float, int]], sure: float, n: int,
                   hand_size: int) -> float:
    """The expected best of ``options`` ((value, how many of the ``n`` unseen cards give it))
    for a hand of ``hand_size`` of them, ``sure`` at least (a value the hand is known to
    have)."""
    options.sort(reverse=True)
    total = 0.0
    k = 0
    none_before = 1.0
    denom = comb(n, hand_size) if hand_size <= n else 0
    for val, cnt in options:
        if val <= sure:
            break
        k += cnt
        none_now = comb(n - k, hand_size) / denom if denom and n - k >= hand_size else 0.0
        total += val * (none_before - none_now)
        none_before = none_now
    return total + sure * none_before


# -- points scored in play (HeuristicAgent's ``complete`` evaluation) ------------------------

class Extras:
    """Points a capture scores in play besides its cards, for an evaluation that counts them
    (``HeuristicAgent(complete=True)``): V-tux-score's orange (``orange`` points when the
    cards taken include a red and a yellow one) and a sweep, worth ``big`` if it takes 4 or
    more table cards and ``small`` otherwise (V-tux-score's 10 and 5; elsewhere both the
    variant's sweep points, or 0 where a sweep would not score)."""

    __slots__ = ("rules", "orange", "small", "big")

    def __init__(self, rules: Rules, orange: float, small: float, big: float) -> None:
        self.rules, self.orange, self.small, self.big = rules, orange, small, big

    def of(self, taken: int, full: int) -> float:
        """The points in play of a capture taking ``taken`` from a table of ``full``."""
        x = 0.0
        if self.orange and is_orange(self.rules, taken):
            x += self.orange
        if taken == full:
            x += self.big if taken.bit_count() >= 4 else self.small
        return x


def best_capture_scored(rules: Rules, loose: int, builds: tuple, card: int, w: Weights,
                        table: Table, extras: Extras, full: int) -> tuple[float, int]:
    """As ``best_capture``, but each candidate capture also scores ``extras`` (an orange, a
    sweep of its size), so the best one may differ: every maximal collection of loose sets
    of the card's value, with the builds of that value, is compared. ``full``: the whole
    table (loose cards and builds)."""
    vals = capture_values(rules, card)
    per = PER_CARD if vals else 0.0  # one face card: no tie-break, as in ``best_capture``
    if not vals:  # C-face: one loose card of the same rank
        cands = [1 << t for t in bit_list(loose & rules.deck.rank_mask[rules.deck.rank[card]])]
    else:
        cands = []
        for v in vals:
            bm = 0
            for b in builds:
                if b.value == v:
                    bm |= b.cards
            packs = _packings_of(table, v)
            if packs:
                cands += [m | bm for m in packs]
            elif bm:
                cands.append(bm)
    best, bm = 0.0, 0
    for m in cands:
        val = w.value(m) + per * m.bit_count() + extras.of(m, full)
        if bm == 0 or val > best:
            best, bm = val, m
    return best, bm


def criterion_weights(rules: Rules, piles: tuple, side: int, short: int,
                      game: float) -> Weights:
    """V-dom-end / V-soto: the card weights of ``side``, ``short`` points from the target at
    the start of the hand, under endgame restrictions: only its criterion's items (``scoring.
    criteria``: most cards, most spades, 10D, 2S) count. Short by 3 or less, meeting the
    criterion wins the game and missing it scores nothing: its items are worth ``game``
    points; short by 4 or 5 (V-soto) they keep their points (the side keeps what it scores
    of them)."""
    pts = rules.item_points
    deck = rules.deck
    taken = 0
    for p in piles:
        taken |= p
    terms = []
    for item in criteria(rules, short):
        value = game if short <= 3 else float(
            {"cards": pts.cards, "spades": pts.spades, "10D": pts.big_casino,
             "2S": pts.little_casino}[item])
        if item in ("10D", "2S"):
            terms.append((1 << (TEN_OF_DIAMONDS if item == "10D" else TWO_OF_SPADES), value))
            continue
        domain = deck.full if item == "cards" else deck.suit_mask[SPADE]
        counts = [(p & domain).bit_count() for p in piles]
        other = max(c for s, c in enumerate(counts) if s != side) if len(counts) > 1 else 0
        share = majority_share(value, counts[side], other, (domain & ~taken).bit_count())
        if share:
            terms.append((domain, share))
    return Weights(tuple(terms))
