"""The legal-move generator as it was before the speed-up of issue 20's presets (commit
b9d11b9), frozen as the order reference: ``tests/test_generate_order.py`` checks that the
engine's ``generate`` lists exactly these moves, in exactly this order (random agents pick by
index, so committed results depend on the order), with the same flags (``multiple``,
``stolen``). Not used by the engine; edit only to follow a deliberate rule change.
"""
# ruff: noqa

from __future__ import annotations

from functools import lru_cache

from casino_env.engine.cards import Deck, bit_list
from casino_env.engine.moves import Move
from casino_env.engine.rules import Rules
from casino_env.engine.state import stealable

@lru_cache(maxsize=1 << 16)
def groups(values: tuple[int, ...], target: int, lone_ace: bool) -> tuple[int, ...]:
    """Position masks of the sets whose values sum to ``target`` (ascending ``values``).

    With ``lone_ace`` (Royal, target 14) a single Ace (value 1) is also a set of 14.
    """
    n = len(values)
    out: list[int] = []

    def dfs(start: int, total: int, mask: int) -> None:
        for j in range(start, n):
            v = values[j]
            t = total + v
            if t > target:
                break
            m = mask | (1 << j)
            if t == target:
                out.append(m)
            else:
                dfs(j + 1, t, m)

    dfs(0, 0, 0)
    if lone_ace and target == 14:
        out.extend(1 << j for j in range(n) if values[j] == 1)
    return tuple(out)


@lru_cache(maxsize=1 << 16)
def partitions(values: tuple[int, ...], target: int, lone_ace: bool) -> tuple[int, ...]:
    """Position masks (0 included) of every sub-collection that splits into disjoint sets of
    ``target``: the loose cards one capture or one multiple build of that value can take."""
    found = {0}
    for g in groups(values, target, lone_ace):
        found.update([m | g for m in found if not m & g])
    return tuple(sorted(found))


@lru_cache(maxsize=1 << 16)
def with_card(values: tuple[int, ...], card: int, target: int,
              lone_ace: bool) -> tuple[int, ...]:
    """For a card of value ``card`` added to the items ``values``: position masks of the item
    collections that, with the card, split into sets of ``target`` with the card in one set,
    each shifted left one bit with 1 in the low bit when the whole is a single set (a single
    build) — the loose part of every build of ``target`` the card can make. The empty
    collection is included when the card alone is a set of ``target`` (it then needs further
    sets or an existing build). (One int per entry keeps the cache small.)"""
    alone = card == target or (lone_ace and card == 1 and target == 14)
    cgroups = ([0] if alone else []) + (list(groups(values, target - card, False))
                                        if target > card else [])
    if not cgroups:
        return ()
    extra = partitions(values, target, lone_ace)
    found: dict[int, bool] = {}
    for g in cgroups:
        for sm in extra:
            if not g & sm:
                u = g | sm
                if u not in found:
                    found[u] = not sm and bool(g)
    return tuple(sorted(u << 1 | single for u, single in found.items()))


# -- the build-keeping rule ----------------------------------------------------------------

def backs(rules: Rules, hand: int, values: list[int]) -> bool:
    """True if ``hand`` holds a distinct capturing card for every build value in ``values``
    (C-build-keep; a Royal 1-build and 14-build owned together need two Aces)."""
    if not values:
        return True
    rank_mask = rules.deck.rank_mask
    if len(values) == 1:
        v = values[0]
        return bool(hand & rank_mask[1 if v == 14 else v])
    need: dict[int, int] = {}
    for v in values:
        k = 1 if v == 14 else v
        need[k] = need.get(k, 0) + 1
    return all((hand & rank_mask[k]).bit_count() >= n for k, n in need.items())


# -- generation ------------------------------------------------------------------------------

class Items:
    """The table items that can join sums — loose cards with a value (under V-swazi-steal also
    the other sides' pile tops, which count as loose cards) and, with V-build-as-card, single
    builds — with set queries answered as card masks.

    The work (``sets.groups``/``sets.partitions``) is cached by the items' values only; this
    object memoises the conversion back to card masks and prunes unreachable sums.
    """

    __slots__ = ("masks", "vals", "reach", "aces", "ace14", "_groups", "_parts", "_with",
                 "_chunks")

    def __init__(self, loose: int, values: tuple, ace14: bool, builds: tuple = ()) -> None:
        masks: list[int] = []
        vals: list[int] = []
        reach = 1
        m = loose
        while m:  # one pass over the loose cards: position masks, values, reachable sums
            low = m & -m
            v = values[low.bit_length() - 1]
            if v is not None:
                masks.append(low)
                vals.append(v)
                reach |= reach << v
            m ^= low
        if builds:
            items = sorted(list(zip(vals, masks)) + [(b.value, b.cards) for b in builds],
                           key=lambda it: (it[0], it[1] & -it[1]))
            masks = [m for _, m in items]
            vals = [v for v, _ in items]
            for b in builds:
                reach |= reach << b.value
        self.masks = masks
        self.vals = vals = tuple(vals)
        self.reach = reach
        self.aces = ace14 and 1 in vals
        self.ace14 = ace14
        self._groups: dict[int, list[int]] = {}
        self._parts: dict[int, list[int]] = {}
        self._with: dict[tuple[int, int], list[tuple[int, bool]]] = {}
        self._chunks: list[list[int]] | None = None

    def _cards(self, pmasks) -> list[int]:
        """Card masks of position masks (byte lookup tables once there are many)."""
        masks = self.masks
        if len(pmasks) > 48:
            chunks = self._chunks
            if chunks is None:
                chunks = self._chunks = []
                for base in range(0, len(masks), 8):
                    part = masks[base:base + 8]
                    table = [0] * (1 << len(part))
                    for k in range(1, len(table)):
                        low = k & -k
                        table[k] = table[k ^ low] | part[low.bit_length() - 1]
                    chunks.append(table)
            if len(chunks) == 1:
                t0 = chunks[0]
                return [t0[pm] for pm in pmasks]
            if len(chunks) == 2:
                t0, t1 = chunks
                return [t0[pm & 255] | t1[pm >> 8] for pm in pmasks]
            out = []
            for pm in pmasks:
                m = 0
                for table in chunks:
                    m |= table[pm & 255]
                    pm >>= 8
                out.append(m)
            return out
        out = []
        for pm in pmasks:
            m = 0
            while pm:
                low = pm & -pm
                m |= masks[low.bit_length() - 1]
                pm ^= low
            out.append(m)
        return out

    def groups(self, t: int) -> list[int]:
        """Card masks of the sets of items whose values sum to ``t``."""
        g = self._groups.get(t)
        if g is None:
            lone = self.ace14 and t == 14
            if t <= 0 or not (self.reach >> t & 1 or (lone and self.aces)):
                g = []
            else:
                g = self._cards(groups(self.vals, t, lone))
            self._groups[t] = g
        return g

    def parts(self, t: int) -> list[int]:
        """Card masks (0 first) of the item collections that split into sets of ``t``."""
        p = self._parts.get(t)
        if p is None:
            lone = self.ace14 and t == 14
            if t <= 0 or not (self.reach >> t & 1 or (lone and self.aces)):
                p = [0]
            else:
                p = self._cards(partitions(self.vals, t, lone))
            self._parts[t] = p
        return p


    def with_card(self, cv: int, t: int) -> list[tuple[int, bool]]:
        """(card mask, single) of the item collections a card of value ``cv`` builds into
        sets of ``t`` (see ``sets.with_card``)."""
        # Quick exit: no set of items sums to t - cv (and the card is not a set by itself).
        if not (cv == t or (t > cv and self.reach >> (t - cv) & 1)
                or (cv == 1 and t == 14 and self.ace14)):
            return ()
        key = (cv, t)
        w = self._with.get(key)
        if w is None:
            found = with_card(self.vals, cv, t, self.ace14 and t == 14)
            cards = self._cards([f >> 1 for f in found])
            w = self._with[key] = [(cm, f & 1 == 1) for cm, f in zip(cards, found)]
        return w


def capture_values(rules: Rules, cv: int) -> tuple[int, ...]:
    """The values a card of hand value ``cv`` captures with (a Royal Ace: 1 or 14)."""
    return (1, 14) if rules.ace14 and cv == 1 else (cv,)


def _trail_allowed(r: Rules, owned: list, same_rank: int) -> bool:
    """Whether the rules let the mover trail a card at all (C-owner-trail, V-owner-may-trail,
    V-dom-trail): ``owned`` its builds, ``same_rank`` the loose cards of the card's rank."""
    return (not owned or r.owner_may_trail) and not (r.dom_trail and same_rank)


def _may_trail(r: Rules, owned: list, rest: int, same_rank: int) -> bool:
    """Whether the plain trail of a card is legal (C-trail): allowed, and the rest of the hand
    ``rest`` still backs every build the mover owns (C-build-keep)."""
    return _trail_allowed(r, owned, same_rank) and (
        not owned or backs(r, rest, [b.value for b in owned]))


def playable_cards(st, made: dict | None = None) -> list[int]:
    """The hand cards of the seat to move that have at least one legal move, in id order
    (exact: a card that cannot trail is checked by generating its moves, which are stored in
    ``made`` by card if given). Not for multi-card play (V-hun-play)."""
    r = st.rules
    if r.multi_play:
        raise ValueError("playable_cards: the rules let several cards be played at once")
    seat = st.current
    hand = st.hand_masks[seat]
    if r.must_capture:  # V-kryp-play: every card captures or trails; one copy per card
        return bit_list(distinct(r, hand))
    owned = [b for b in st.builds if b.owner == seat]
    if not owned and not r.dom_trail:
        return bit_list(hand)  # every card can trail
    rank_of, rank_mask = r.deck.rank, r.deck.rank_mask
    loose = st.loose_mask
    out = []
    for c in bit_list(hand):
        if not _may_trail(r, owned, hand & ~(1 << c), loose & rank_mask[rank_of[c]]):
            moves = generate(st, c)
            if made is not None:
                made[c] = moves
            if not moves:
                continue
        out.append(c)
    return out


def generate(st, only: int | None = None) -> list[Move]:
    """The legal moves of ``st`` (uncached; ``legal_moves`` caches them on the state). With
    ``only`` (a card id in the mover's hand): just the moves that play that card, in the same
    order (no call; not with multi-card play)."""
    r = st.rules
    if r.multi_play:
        if only is not None:
            raise ValueError("generate(only=...): the rules let several cards be played")
        return _generate_multi(st)
    if r.must_capture:
        return _generate_kryp(st, only)
    deck = r.deck
    seat = st.current
    hand = st.hand_masks[seat]
    values = r.values  # on the table
    hand_values = r.hand_values  # from hand (the same tuple but in Finnish, V-fin-values)
    rank_of = deck.rank
    rank_mask = deck.rank_mask
    loose = st.loose_mask
    builds = st.builds
    ace14 = r.ace14
    dom_trail = r.dom_trail
    by_value = {b.value: b for b in builds}
    owned = [b for b in builds if b.owner == seat]
    singles = [b for b in builds if not b.multiple]  # builds a played card may raise
    tops = stealable(st, seat) if r.steal else 0  # V-swazi-steal: other sides' pile tops
    table = Items(loose | tops, values, ace14, tuple(singles) if r.build_as_card else ())
    make = Move.make
    new = object.__new__
    out: list[Move] = []
    append = out.append
    if st.pending_orange == seat and only is None:
        out.append(make(deck, "call", 0, 0, None))
    hand_ids = bit_list(hand)
    in_hand = _held_values(r, hand_ids)
    if only is not None and not hand >> only & 1:
        raise ValueError(f"generate(only={only}): that card is not in the mover's hand")

    def keeps(rest: int, tm: int, extra: list[int]) -> bool:
        """C-build-keep after a move taking ``tm``: the seat still backs its other builds."""
        if not owned:
            return not extra or backs(r, rest, extra)
        left = [b.value for b in owned if not b.cards & tm] + extra
        return backs(r, rest, left)

    def raises_own(tm: int, V: int) -> bool:
        """V-dom-build: the move would change the value of the seat's own single build."""
        return r.dom_build and any(b.owner == seat and not b.multiple and b.value != V
                                   and b.cards & tm for b in builds)

    for c in hand_ids if only is None else (only,):
        cbit = 1 << c
        rest = hand & ~cbit
        cv = hand_values[c]
        same_rank = loose & rank_mask[rank_of[c]]
        targets = [V for V in in_hand if in_hand[V] > (cv == V or (V == 14 and cv == 1 and ace14))]

        # Trail (C-trail, C-owner-trail, V-owner-may-trail, V-dom-trail, V-build-loose).
        if _may_trail(r, owned, rest, same_rank):
            m = new(Move)
            m.kind, m.played_mask, m.taken_mask, m.value = "trail", cbit, 0, None
            m.for_partner = m.orange = False
            m.deck, m.multiple = deck, None
            append(m)
        if r.build_loose and _trail_allowed(r, owned, same_rank):
            for V in targets:
                vb = by_value.get(V)
                if vb is not None and r.dom_build:
                    continue  # V-dom-build: what is added to a build includes the played card
                vcards = vb.cards if vb is not None else 0
                made: set[int] = set()
                for sm in table.parts(V):
                    if not sm & ~vcards or vb is None and (sm.bit_count() < 2 or any(
                            b.cards == sm for b in builds)):
                        continue  # table cards must be added; a new build needs two
                    tm = sm | vcards
                    if tm in made or not keeps(rest, tm, [V]) or raises_own(tm, V):
                        continue
                    made.add(tm)
                    total = sum(values[i] for i in bit_list(sm))
                    out.append(make(deck, "trail", cbit, tm, V, vb is not None or total != V))

        # Captures (C-capture, C-face, C-build-keep, V-dom-trail, V-build-as-card).
        if cv is None:
            for t in bit_list(same_rank):
                _capture(out, r, deck, cbit, 1 << t, None)
            continue
        need = same_rank if dom_trail else 0
        seen: set[int] = set()
        calls = r.orange_calls
        for v in capture_values(r, cv):
            b = by_value.get(v)
            bcards = b.cards if b is not None else 0
            for cm in table.parts(v):
                for tm in (cm, cm | bcards) if bcards else (cm,):
                    if not tm or tm in seen or need & ~tm or (owned and not keeps(rest, tm, [])):
                        continue
                    seen.add(tm)
                    m = new(Move)
                    m.kind, m.played_mask, m.taken_mask, m.value = "capture", cbit, tm, v
                    m.for_partner = m.orange = False
                    m.deck, m.multiple = deck, None
                    append(m)
                    if calls:  # V-tux-score: the capturer may call orange (falsely, too)
                        append(make(deck, "capture", cbit, tm, v, None, False, True))

        # Builds (C-build, C-build-raise, C-build-extend, C-one-per-value, V-dom-build).
        if not r.building:
            continue
        for V in targets:
            # Nothing to build: no items make V with the card and no single build to raise.
            if not table.with_card(cv, V) and not any(b.value + cv <= V for b in singles):
                continue
            # Ownership checks only matter when the seat owns builds (C-build-keep) or may
            # not raise its own (V-dom-build); otherwise holding V besides c is enough.
            ok = (lambda tm, V=V, rest=rest: keeps(rest, tm, [V]) and not raises_own(tm, V)) \
                if owned else None
            _builds(out, r, st, table, c, cv, V, by_value.get(V), ok, False)
    if r.partner_build:
        _partner_builds(out, st, table, by_value, owned,
                        hand_ids if only is None else [only])
    if tops:
        for m in out:
            if m.taken_mask & tops:
                mark_stolen(st, m)
    return out


def mark_stolen(st, m: Move) -> Move:
    """Note on ``m`` (in place) which of its taken cards lie in a capture pile of ``st``, and
    whose (V-swazi-steal), so that its notation says so; returns ``m``."""
    found = []
    if st.pile_ids:
        for c in bit_list(m.taken_mask & ~st.loose_mask):
            for side, p in enumerate(st.pile_masks):
                if p >> c & 1:
                    found.append((c, side))
    m.stolen = tuple(found)
    return m


def _held_values(r: Rules, ids: list[int]) -> dict[int, int]:
    """Build values the cards ``ids`` can back -> how many cards (a Royal Ace backs 1 and 14)."""
    held: dict[int, int] = {}
    values = r.values
    for i in ids:
        v = values[i]
        if v is not None:
            held[v] = held.get(v, 0) + 1
            if v == 1 and r.ace14:
                held[14] = held.get(14, 0) + 1
    return dict(sorted(held.items()))


def _capture(out: list, r: Rules, deck: Deck, cbit: int, tm: int, v: int | None) -> None:
    out.append(Move.make(deck, "capture", cbit, tm, v))
    if r.orange_calls:  # V-tux-score: the capturer may call orange (falsely, too)
        out.append(Move.make(deck, "capture", cbit, tm, v, None, False, True))


def _builds(out: list, r: Rules, st, table: Items, c: int, cv: int, V: int, vb, ok,
            for_partner: bool) -> None:
    """Build moves of value ``V`` made by playing card ``c``; ``ok(taken)`` checks ownership
    (None: every build of V is fine). The hot loop of crowded tables, so Moves are made inline."""
    deck = r.deck
    cbit = 1 << c
    vcards = vb.cards if vb is not None else 0
    made: set[int] = set()
    append = out.append
    new = object.__new__
    # A set holding the played card (alone, or with items) plus further sets of V; it joins
    # the build of value V if there is one (C-build, C-build-extend, C-one-per-value).
    joins = vb is not None
    raisable = [b for b in st.builds if not b.multiple and b.value + cv <= V]
    # The collections are distinct, so a taken set can repeat only when the build of V is also
    # an item (V-build-as-card); ``made`` is otherwise kept only for the raises below.
    track = bool(raisable) or (joins and r.build_as_card)
    for lm, single in table.with_card(cv, V):
        tm = lm | vcards  # (V-build-as-card: the build of V may also be an item of lm)
        if not tm or (ok is not None and not ok(tm)):
            continue  # the card alone is a trail, not a build
        if track:
            if tm in made:
                continue
            made.add(tm)
        m = new(Move)
        m.kind, m.played_mask, m.taken_mask, m.value = "build", cbit, tm, V
        m.for_partner, m.orange, m.deck = for_partner, False, deck
        m.multiple = joins or not single
        append(m)
    # Raising a single build by the played card (C-build-raise), with table cards helping
    # under V-raise-with-table, plus further sets of V.
    for b in raisable:
        rise = V - b.value - cv
        if rise == 0:
            helpers = [0]
        elif r.raise_with_table:
            helpers = [t for t in table.groups(rise) if not t & b.cards]
        else:
            continue
        base = b.cards | vcards
        for t in helpers:
            for sm in table.parts(V):
                if sm & (t | b.cards):
                    continue
                tm = base | t | sm
                if tm in made or (ok is not None and not ok(tm)):
                    continue
                made.add(tm)
                append(Move.make(deck, "build", cbit, tm, V, bool(sm) or vb is not None,
                                 for_partner))


def _partner_builds(out: list, st, table: Items, by_value: dict, owned: list,
                    cards: list[int]) -> None:
    """V-partner-build: builds made for partner with the hand cards ``cards`` when public play
    proves partner holds the value (partner owns that build, or built that value before and
    has not played it)."""
    r = st.rules
    seat = st.current
    partner = (seat + 2) % 4
    provable = st.proven[partner]
    for b in st.builds:
        if b.owner == partner:
            provable |= 1 << b.value
    if not provable:
        return
    hand = st.hand_masks[seat]
    p_hand = st.hand_masks[partner]
    p_owned = [b for b in st.builds if b.owner == partner]
    for c in cards:
        cv = r.values[c]
        if cv is None:
            continue
        rest = hand & ~(1 << c)
        for V in range(1, r.max_value + 1):
            if not provable >> V & 1:
                continue

            def ok(tm: int, V: int = V, rest: int = rest) -> bool:
                mine = [b.value for b in owned if not b.cards & tm]
                theirs = [b.value for b in p_owned if not b.cards & tm] + [V]
                own_raise = r.dom_build and any(
                    b.owner == seat and not b.multiple and b.value != V and b.cards & tm
                    for b in st.builds)
                return backs(r, rest, mine) and backs(r, p_hand, theirs) and not own_raise

            _builds(out, r, st, table, c, cv, V, by_value.get(V), ok, True)


def distinct(r: Rules, hand: int) -> int:
    """``hand`` with one card of each kind (two decks: a copy-1 card whose copy 0 is there too
    is left out, since playing either copy is one move)."""
    if r.deck.copies == 1:
        return hand
    return hand & ~((hand & r.deck.low) << 1)


def _generate_kryp(st, only: int | None) -> list[Move]:
    """V-kryp-play: each card (one copy of each) captures maximally if it can capture at all:
    every collection of loose cards that splits into sets of its value (an Ace from hand
    counts 14, on the table 1) and leaves no set of that value on the table; a card that
    captures nothing trails. No building. A card taken once while both copies lie loose is
    the lower copy, so each outcome is listed once."""
    r = st.rules
    deck = r.deck
    hand = st.hand_masks[st.current]
    hand_values = r.hand_values  # from hand (V-kryp-values: an Ace 14)
    loose = st.loose_mask
    table = Items(loose, r.values, False)  # on the table (an Ace 1)
    low = deck.low
    pairs = loose & loose >> 1 & low  # kinds with both copies loose (their copy-0 bits)
    if only is None:
        cards = bit_list(distinct(r, hand))
    else:
        if not hand >> only & 1:
            raise ValueError(f"generate(only={only}): that card is not in the mover's hand")
        if only & 1 and hand >> (only - 1) & 1:
            return []  # the same card's lower copy is the one its moves play
        cards = [only]
    out: list[Move] = []
    make = Move.make
    for c in cards:
        cbit = 1 << c
        v = hand_values[c]
        sets = table.groups(v)
        if not sets:
            out.append(make(deck, "trail", cbit, 0, None))
            continue
        seen: set[int] = set()
        for tm in table.parts(v):
            if not tm or not all(g & tm for g in sets):
                continue  # nothing taken, or a set of v would stay on the table
            once = tm >> 1 & low & ~tm & pairs  # a kind taken once by its copy 1 ...
            if once:
                tm = tm & ~(once << 1) | once  # ... is its copy 0
            if tm not in seen:
                seen.add(tm)
                out.append(make(deck, "capture", cbit, tm, v))
    return out


def _generate_multi(st) -> list[Move]:
    """V-hun-play: several hand cards whose total t capture items or sets each totalling t
    (Ulmann: hand cards split into sets each totalling t; Kovacs: t at most 13), or one card
    trails. No building."""
    r = st.rules
    deck = r.deck
    seat = st.current
    hand = st.hand_masks[seat]
    values = r.values
    table = Items(st.loose_mask, values, r.ace14)
    out: list[Move] = []
    if r.claims:
        out.append(Move.make(deck, "claim", 0, 0, None))
    ids = bit_list(hand)
    subsets = sorted((m for m in range(1, 1 << len(ids))),
                     key=lambda m: (m.bit_count(), m))
    for pm in subsets:
        cards = [ids[j] for j in range(len(ids)) if pm >> j & 1]
        pmask = 0
        for i in cards:
            pmask |= 1 << i
        vals = tuple(values[i] for i in cards)
        if len(cards) == 1:
            out.append(Move.make(deck, "trail", pmask, 0, None))
        totals = {sum(vals)}
        if r.ace14 and vals == (1,):
            totals.add(14)
        if r.ulmann and len(cards) > 1:
            full = (1 << len(vals)) - 1
            top = max(sum(vals), 14 if r.ace14 and 1 in vals else 0)
            for t in range(1, top + 1):
                if full in partitions(vals, t, r.ace14 and t == 14):
                    totals.add(t)
        seen: set[int] = set()
        for t in sorted(totals):
            if r.kovacs and t > 13:
                continue
            for tm in table.parts(t):
                if tm and tm not in seen:
                    seen.add(tm)
                    out.append(Move.make(deck, "capture", pmask, tm, t))
    return out


