"""Moves: the ``Move`` value, its notation, and exact legal-move generation.

A move is identified by its outcome (C-move): the card(s) played, the set of table cards
taken (captured, or drawn into the build) and, for a build, its value. Generation works on
bitmasks and cached subset-sum partitions (``sets``), never on permutations.
"""

from __future__ import annotations

import re

from .cards import DOUBLE, ROOK, STANDARD, Deck, bit_list, deck_of_card_text
from .rules import Rules
from .sets import groups, partitions, with_card
from .state import State, _lowest

KINDS = ("trail", "capture", "build", "claim", "call")


class Move:
    """One legal-move outcome. ``kind`` (trail, capture, build; claim and call where the rules
    have them), ``played`` (tuple of card strings), ``taken`` (frozenset of table card
    strings), ``value`` (build value after the move, or the capture value used; None for a
    trail), ``for_partner`` (V-partner-build), ``orange`` (a capture calling orange, Tuxedo).

    Two decks (krypkasino): a card named twice means both copies (``deck`` is then the double
    deck; pass ``deck`` to choose it outright); ``taken`` is a set of names, so
    ``taken_cards`` keeps a card taken twice twice."""

    # ``stolen``: ((card id, side), ...) for taken cards that lie in a capture pile
    # (V-swazi-steal); set only on such moves, so it is read with getattr (default ()).
    __slots__ = ("kind", "played_mask", "taken_mask", "value", "for_partner", "orange", "deck",
                 "multiple", "stolen")

    def __init__(self, kind: str, played: object = (), taken: object = (),
                 value: int | None = None, for_partner: bool = False,
                 orange: bool = False, *, deck: Deck | None = None) -> None:
        if kind not in KINDS:
            raise ValueError(f"move kind must be one of {', '.join(KINDS)}, got {kind!r}")
        played, taken = _card_texts(played, "played"), _card_texts(taken, "taken")
        for name, flag in (("for_partner", for_partner), ("orange", orange)):
            if isinstance(flag, str) or flag not in (True, False):  # (0/1, numpy bools too)
                raise ValueError(f"{name}: must be true or false, got {flag!r}")
        if deck is not None and not isinstance(deck, Deck):
            raise ValueError(f"deck: must be a Deck (e.g. casino_env.engine.cards.STANDARD) "
                             f"or None, got {deck!r}")
        first = (played + taken)[0] if played + taken else ""
        if deck is None:
            deck = deck_of_card_text(first)
            if deck is STANDARD and _named_twice(taken):
                deck = DOUBLE  # a card taken twice: both copies of the two decks
        self.kind = kind
        self.played_mask = _mask(deck, played, "played")
        self.taken_mask = _mask(deck, taken, "taken")
        if len(played) != self.played_mask.bit_count():
            raise ValueError(f"played: a card is named twice in {played!r}")
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"value: must be an int or None, got {value!r}")
        self.value = value
        self.for_partner = bool(for_partner)
        self.orange = bool(orange)
        self.deck = deck
        self.multiple = None

    @classmethod
    def make(cls, deck: Deck, kind: str, played_mask: int, taken_mask: int, value: int | None,
             multiple: bool | None = None, for_partner: bool = False,
             orange: bool = False) -> Move:
        """Internal constructor from masks (no validation)."""
        m = cls.__new__(cls)
        m.kind = kind
        m.played_mask = played_mask
        m.taken_mask = taken_mask
        m.value = value
        m.for_partner = for_partner
        m.orange = orange
        m.deck = deck
        m.multiple = multiple
        return m

    @property
    def played(self) -> tuple[str, ...]:
        return tuple(self.deck.strs(self.played_mask))

    @property
    def taken(self) -> frozenset[str]:
        return frozenset(self.deck.strs(self.taken_mask))

    @property
    def taken_cards(self) -> tuple[str, ...]:
        """The table cards taken, in card order, a card taken twice (two decks) twice."""
        return tuple(self.deck.strs(self.taken_mask))

    def key(self) -> tuple:
        """What makes a move itself: with two decks its cards up to the copies (a move is its
        outcome, whichever copy of a card it plays or takes: docs/rules.md)."""
        pm, tm = self.played_mask, self.taken_mask
        if self.deck.copies > 1:  # each card on its lowest copies (state._lowest)
            low = self.deck.low
            pm, tm = _lowest(pm, 0, low), _lowest(tm, 0, low)
        return (self.kind, pm, tm, self.value, self.for_partner, self.orange)

    def __eq__(self, other: object) -> bool:
        # A move without cards (a claim or a call) is the same in every deck.
        return (isinstance(other, Move) and self.key() == other.key()
                and (self.deck is other.deck or not (self.played_mask or self.taken_mask)))

    def __hash__(self) -> int:
        return hash(self.key())

    def __str__(self) -> str:
        d = self.deck
        played = "+".join(d.strs(self.played_mask))
        taken = "+".join(d.strs(self.taken_mask))
        if self.kind == "claim":
            return "claims the game"
        if self.kind == "call":
            return "calls orange"
        if self.kind == "trail":
            if self.taken_mask:
                return f"{played} trails and builds {self.value} on {taken}"
            return f"{played} trails"
        if self.kind == "capture":
            text = f"{played} captures {taken}" + (" calling orange" if self.orange else "")
        else:
            text = f"{played} builds {self.value} on {taken}"
            if self.for_partner:
                text += " for partner"
        stolen = getattr(self, "stolen", ())
        if stolen:  # V-swazi-steal: "(5S from side 1's pile)"
            text += " (" + ", ".join(f"{d.names[c]} from side {side}'s pile"
                                     for c, side in stolen) + ")"
        return text

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"


def _card_texts(cards: object, field: str) -> tuple:
    """``cards`` (a card string, or a list or tuple of them) as a tuple; else ValueError."""
    if isinstance(cards, str):
        return (cards,)
    if isinstance(cards, (bytes, dict)) or not hasattr(cards, "__iter__"):
        raise ValueError(f"{field}: must be a card string or a list of card strings, "
                         f"got {cards!r}")
    return tuple(cards)


def _mask(deck: Deck, cards: tuple, field: str) -> int:
    m = 0
    for c in cards:
        try:
            m |= 1 << (deck.parse(c) if deck.copies == 1 else deck.add(m, c))
        except ValueError as e:
            raise ValueError(f"{field}: {e}") from None
    return m


def _named_twice(cards: tuple) -> bool:
    """True if a standard card is named twice in ``cards`` (unreadable names count as not)."""
    ids = []
    for c in cards:
        try:
            ids.append(STANDARD.parse(c))
        except ValueError:
            return False
    return len(set(ids)) < len(ids)


# -- two decks: copies by kind ---------------------------------------------------------------

def pick_copies(deck: Deck, kinds: list[int], where: int) -> int:
    """The mask of one copy per entry of ``kinds`` (one-deck ids; a kind listed twice is both
    copies), the lowest copies in ``where`` first, then copies elsewhere (so that a card the
    position lacks is still named, and judged illegal with its reason)."""
    m = 0
    for k in kinds:
        ids = [k * deck.copies + j for j in range(deck.copies)]
        free = [c for c in ids if not m >> c & 1]
        if not free:
            raise ValueError(f"{deck.names[ids[0]]} is named more often than the {deck.name} "
                             f"deck holds it")
        here = [c for c in free if where >> c & 1]
        m |= 1 << (here or free)[0]
    return m


def _kinds(deck: Deck, mask: int) -> list[int]:
    """The one-deck ids (kinds) of the cards of ``mask``."""
    kind = deck.kind if deck.copies > 1 else None
    return [kind[c] if kind else c for c in bit_list(mask)]


def resolve_copies(state, move: Move) -> Move:
    """``move`` in the ids of a two-deck position: its cards matched by kind, the played ones
    to the mover's hand and the taken ones to the table, lowest copies first (a move is its
    outcome up to the copies). A move of another deck family is returned as it is."""
    deck = state.rules.deck
    if move.deck.suits != deck.suits or not (move.played_mask or move.taken_mask):
        return move
    try:
        played = pick_copies(deck, _kinds(move.deck, move.played_mask),
                             state.hand_masks[state.current])
        taken = pick_copies(deck, _kinds(move.deck, move.taken_mask), state.table_mask())
    except ValueError:
        return move
    return Move.make(deck, move.kind, played, taken, move.value, move.multiple,
                     move.for_partner, move.orange)


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
    if len(values) == 2:
        a, b = values
        a = 1 if a == 14 else a
        b = 1 if b == 14 else b
        if a != b:
            return bool(hand & rank_mask[a]) and bool(hand & rank_mask[b])
        return (hand & rank_mask[a]).bit_count() >= 2
    need: dict[int, int] = {}
    for v in values:
        k = 1 if v == 14 else v
        need[k] = need.get(k, 0) + 1
    return all((hand & rank_mask[k]).bit_count() >= n for k, n in need.items())


# -- generation ------------------------------------------------------------------------------

def legal_moves(state) -> list[Move]:
    """Every legal move for ``state.current``, once each, in a stable canonical order: a claim
    or call first (where the rules have them), then by played card: the trail, captures,
    builds (by value); builds for partner come last."""
    try:
        moves = state._moves
    except AttributeError:
        raise TypeError(f"legal_moves: expected a State, got {type(state).__name__} "
                        "(State.from_spec(spec) makes one from a spec)") from None
    if moves is None:
        moves = [] if state.game_over else generate(state)
        state._moves = moves
    return list(moves)


class Items:
    """The table items that can join sums — loose cards with a value (under V-swazi-steal also
    the other sides' pile tops, which count as loose cards) and, with V-build-as-card, single
    builds — with set queries answered as card masks.

    The work (``sets.groups``/``sets.partitions``) is cached by the items' values only; this
    object memoises the conversion back to card masks and prunes unreachable sums.
    """

    __slots__ = ("masks", "vals", "reach", "aces", "ace14", "_groups", "_parts", "_with",
                 "_sorted", "_chunks")

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
        self._with: dict[int, list[tuple[int, bool]]] = {}  # by cv << 8 | t
        self._sorted: dict[int, list[int]] = {}
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


    def sorted_groups(self, t: int) -> list[int]:
        """``groups(t)`` in ascending card-mask order (for items that are loose cards only,
        the order of ``sets.with_card``'s collections; Royal lone Aces not counted)."""
        g = self._sorted.get(t)
        if g is None:
            g = self._sorted[t] = sorted(self._cards(groups(self.vals, t, False))) \
                if t > 0 and self.reach >> t & 1 else []
        return g

    def cards_of(self, pmasks) -> list[int]:
        """Card masks of the position masks ``pmasks``."""
        return self._cards(pmasks)

    def with_card(self, cv: int, t: int) -> list[tuple[int, bool]]:
        """(card mask, single) of the item collections a card of value ``cv`` builds into
        sets of ``t`` (see ``sets.with_card``)."""
        # Quick exit: no set of items sums to t - cv (and the card is not a set by itself).
        if not (cv == t or (t > cv and self.reach >> (t - cv) & 1)
                or (cv == 1 and t == 14 and self.ace14)):
            return ()
        key = cv << 8 | t
        w = self._with.get(key)
        if w is None:
            found = with_card(self.vals, cv, t, self.ace14 and t == 14)
            if len(found) > 48:  # (many: by byte lookup tables)
                cards = self._cards([f >> 1 for f in found])
                w = self._with[key] = [(cm, f & 1 == 1) for cm, f in zip(cards, found)]
                return w
            masks = self.masks
            w = []
            for f in found:
                pm = f >> 1
                m = 0
                while pm:
                    low = pm & -pm
                    m |= masks[low.bit_length() - 1]
                    pm ^= low
                w.append((m, f & 1 == 1))
            self._with[key] = w
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
    ids = bit_list(hand)
    check = [c for c in ids
             if not _may_trail(r, owned, hand & ~(1 << c), loose & rank_mask[rank_of[c]])]
    if len(check) > 1:
        # Several cards to check: one pass over the hand is cheaper than one per card, and
        # a card's moves in it are those of generate(st, card), in the same order.
        per: dict[int, list[Move]] = {c: [] for c in check}
        for m in generate(st):
            moves = per.get((m.played_mask & -m.played_mask).bit_length() - 1)
            if moves is not None:
                moves.append(m)
    else:
        per = {c: generate(st, c) for c in check}
    out = []
    for c in ids:
        moves = per.get(c)
        if moves is not None:
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
    if only is not None and not hand >> only & 1:
        raise ValueError(f"generate(only={only}): that card is not in the mover's hand")
    values = r.values  # on the table
    hand_values = r.hand_values  # from hand (the same tuple but in Finnish, V-fin-values)
    rank_of = deck.rank
    rank_mask = deck.rank_mask
    loose = st.loose_mask
    builds = st.builds
    ace14 = r.ace14
    dom_trail = r.dom_trail
    if builds:
        by_value = {b.value: b for b in builds}
        owned = [b for b in builds if b.owner == seat]
        singles = [b for b in builds if not b.multiple]  # builds a played card may raise
    else:
        by_value, owned, singles = {}, [], []
    tops = 0
    if r.steal and st.pile_ids:  # V-swazi-steal: the other sides' pile tops are items too
        mine = r.side(seat)
        top_side = {}
        for side, ids in enumerate(st.pile_ids):
            if ids and side != mine:
                tops |= 1 << ids[-1]
                top_side[ids[-1]] = side
    table = Items(loose | tops, values, ace14, tuple(singles) if r.build_as_card else ())
    reach = table.reach
    new = object.__new__
    out: list[Move] = []
    append = out.append
    if st.pending_orange == seat and only is None:
        append(Move.make(deck, "call", 0, 0, None))
    hand_ids = bit_list(hand)
    # Build values the hand backs, as bit masks of values held at least once and twice (a
    # Royal Ace backs 1 and 14): a card may build V if V is held besides the card itself.
    held1 = held2 = 0
    backing = r.backing
    for i in hand_ids:
        b = backing[i]
        held2 |= held1 & b
        held1 |= b
    building = r.building
    calls = r.orange_calls
    build_loose = r.build_loose
    # With no build owned and no V-dom-trail, every card may trail (C-trail).
    free_trail = not owned and not dom_trail
    as_card = r.build_as_card
    # Build values taken as a whole (``by_mask``), reached by raising a single build with a
    # played card (C-build-raise: exactly, ``single_mask`` shifted by the card's value; or,
    # with table cards helping, any value from ``low_single`` plus the card up), and lone
    # Aces of 14 on the table (``aces``); the cards of the seat's own builds and their values.
    by_mask = single_mask = owned_cards = 0
    for b in builds:
        by_mask |= 1 << b.value
        if not b.multiple:
            single_mask |= 1 << b.value
        if b.owner == seat:
            owned_cards |= b.cards
    owned_values = [b.value for b in owned]
    low_single = min(b.value for b in singles) if singles else 0
    raise_all = -1 if singles and r.raise_with_table else 0
    aces = 16384 if table.aces else 0
    takes = reach | by_mask | aces  # values a capture can take something with

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

    # The common case needs no per-card checks: every card may trail, and a capture takes
    # any collection of items splitting into sets of the card's value (no build owned to
    # keep, no V-dom-trail, builds not items, no orange calls).
    plain = free_trail and not build_loose and not as_card and not calls
    vals = table.vals
    masks = table.masks
    play_keys = r.play_keys
    reach1 = reach >> 1
    makes = reach | by_mask | aces  # values the card alone makes a set of, to build on
    sorted_groups = table._sorted

    # Cards of one rank and hand value have the same moves (the rest of the hand backs the
    # same builds): they lie next to each other in id order, and the moves of the first are
    # copied for the others (``group``: its rank and value; ``first``: where its moves start,
    # ``stop``: where they end, -1 until a second card is met).
    group = -1
    first = stop = 0
    for c in hand_ids if only is None else (only,):
        cbit = 1 << c
        key = play_keys[c]
        if key == group:
            if stop < 0:
                stop = len(out)
            for m0 in out[first:stop]:
                m = new(Move)
                m.kind = m0.kind
                m.played_mask = cbit
                m.taken_mask = m0.taken_mask
                m.value = m0.value
                m.for_partner = m0.for_partner
                m.orange = m0.orange
                m.deck = deck
                m.multiple = m0.multiple
                append(m)
            continue
        group = key
        first = len(out)
        stop = -1
        cv = hand_values[c]
        two = cv == 1 and ace14  # (a Royal Ace: captures as 1 and 14, backs builds of both)
        if plain and cv is not None:
            m = new(Move)  # the trail (C-trail)
            m.kind = "trail"
            m.played_mask = cbit
            m.taken_mask = 0
            m.value = None
            m.for_partner = False
            m.orange = False
            m.deck = deck
            m.multiple = None
            append(m)
            if not two and takes >> cv & 1 and (not builds or cv not in by_value):
                for tm in table.parts(cv):  # captures (C-capture; parts lists 0 first)
                    if tm:
                        m = new(Move)
                        m.kind = "capture"
                        m.played_mask = cbit
                        m.taken_mask = tm
                        m.value = cv
                        m.for_partner = False
                        m.orange = False
                        m.deck = deck
                        m.multiple = None
                        append(m)
            elif two or takes >> cv & 1:
                _captures(out, r, table, cbit, cv, by_value, two, 0, None)
        else:
            rest = hand ^ cbit
            same_rank = loose & rank_mask[rank_of[c]]
            # Trail (C-trail, C-owner-trail, V-owner-may-trail, V-dom-trail, V-build-loose).
            if free_trail or _may_trail(r, owned, rest, same_rank):
                append(Move.make(deck, "trail", cbit, 0, None))
            if build_loose and _trail_allowed(r, owned, same_rank):
                targets = _backed(held1, held2, cv, ace14)
                for V in bit_list(targets):
                    vb = by_value.get(V)
                    if vb is not None and r.dom_build:
                        continue  # V-dom-build: what is added to a build includes the card
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
                        append(Move.make(deck, "trail", cbit, tm, V,
                                         vb is not None or total != V))
            # Captures (C-capture, C-face, C-build-keep, V-dom-trail, V-build-as-card).
            if cv is None:
                for t in bit_list(same_rank):
                    _capture(out, r, deck, cbit, 1 << t, None)
                continue
            if two or takes >> cv & 1:
                ok = (lambda tm, rest=rest: keeps(rest, tm, [])) if owned else None
                _captures(out, r, table, cbit, cv, by_value, two,
                          same_rank if dom_trail else 0, ok, owned_cards,
                          (lambda rest=rest: backs(r, rest, owned_values)) if owned else None)

        # Builds (C-build, C-build-raise, C-build-extend, C-one-per-value, V-dom-build).
        if not building:
            continue
        # Values held besides this card, that some items make with it (``Items.with_card``:
        # V - cv made by items, or the card alone a set of V with further sets or a build of V
        # to join) or a single build raised by it reaches: the others build nothing.
        alone = 1 << cv | (16384 if two else 0)
        if singles:
            raised = raise_all << low_single + cv if raise_all else single_mask << cv
            targets = (held1 & ~alone | held2 & alone) & (
                reach1 << cv + 1 | alone & makes | raised)
        else:
            raised = 0
            targets = (held1 & ~alone | held2 & alone) & (reach1 << cv + 1 | alone & makes)
        if not targets:
            continue
        if owned:
            rest = hand ^ cbit
        while targets:
            low = targets & -targets
            targets ^= low
            V = low.bit_length() - 1
            vb = by_value.get(V) if builds else None
            if raise_all or as_card and (vb is not None or raised & low):
                # V-raise-with-table, and V-build-as-card joins and raises: the general loop.
                ok = (lambda tm, V=V, rest=rest: keeps(rest, tm, [V])
                      and not raises_own(tm, V)) if owned else None
                _builds(out, r, st, table, c, cv, V, vb, ok, False)
                continue
            # The plain case (``_builds`` without raises): every set the card makes with
            # items, joined to the build of V if there is one; when the seat owns builds, it
            # must still back them and V (C-build-keep) and not change its own (V-dom-build).
            joins = vb is not None
            vcards = vb.cards if joins else 0
            if owned:
                keep_v = backs(r, rest, owned_values + [V])
            if reach >> V & 1 or V == 14 and aces or as_card:
                # Other sets of V lie on the table: the collections of ``sets.with_card``.
                found = with_card(vals, cv, V, ace14 and V == 14)
                if len(found) > 48:  # (many: card masks by byte lookup tables)
                    cards = table.cards_of([f >> 1 for f in found])
                else:
                    cards = []
                    for f in found:
                        pm = f >> 1
                        lm = 0
                        while pm:
                            bit = pm & -pm
                            lm |= masks[bit.bit_length() - 1]
                            pm ^= bit
                        cards.append(lm)
            else:
                # No items make V: the card with items making V - cv is a single set (in card
                # order, as ``sets.with_card`` sorts them), or alone it joins the build of V.
                found = None
                if V > cv:
                    cards = sorted_groups.get(V - cv)
                    if cards is None:
                        cards = table.sorted_groups(V - cv)
                    if joins and alone & low:
                        cards = [0] + cards
                else:
                    cards = [0] if joins else ()
            for i, lm in enumerate(cards):
                tm = lm | vcards
                if not tm:
                    continue  # the card alone is a trail, not a build
                if owned and not (keep_v if not tm & owned_cards else
                                  keeps(rest, tm, [V]) and not raises_own(tm, V)):
                    continue
                m = new(Move)
                m.kind = "build"
                m.played_mask = cbit
                m.taken_mask = tm
                m.value = V
                m.for_partner = False
                m.orange = False
                m.deck = deck
                m.multiple = joins or found is not None and not found[i] & 1
                append(m)
            if not raised & low:
                continue
            # Raising a single build by the played card to V (C-build-raise), plus further
            # sets of V; as in ``_builds`` (the taken sets all differ: each raise takes its
            # build's cards, which are not items).
            for b in singles:
                if b.value + cv != V:
                    continue
                base = b.cards | vcards
                for sm in table.parts(V):
                    tm = base | sm
                    if owned and not (keeps(rest, tm, [V]) and not raises_own(tm, V)):
                        continue
                    m = new(Move)
                    m.kind = "build"
                    m.played_mask = cbit
                    m.taken_mask = tm
                    m.value = V
                    m.for_partner = False
                    m.orange = False
                    m.deck = deck
                    m.multiple = bool(sm) or joins
                    append(m)
    if r.partner_build:
        _partner_builds(out, st, table, by_value, owned,
                        hand_ids if only is None else [only])
    if tops:  # V-swazi-steal: which taken cards are other sides' pile tops, and whose
        noted: dict[int, tuple] = {}
        for m in out:
            stolen = m.taken_mask & tops
            if stolen:
                note = noted.get(stolen)
                if note is None:
                    note = noted[stolen] = tuple((c, top_side[c]) for c in bit_list(stolen))
                m.stolen = note
    return out


def _backed(held1: int, held2: int, cv: int | None, ace14: bool) -> int:
    """The build values (bit mask) held besides a card of hand value ``cv``: ``held1`` and
    ``held2`` are the values the hand holds at least once and twice (a Royal Ace: 1 and 14)."""
    if cv is None:
        return held1
    own = 1 << cv | (16384 if cv == 1 and ace14 else 0)
    return held1 & ~own | held2 & own


def _captures(out: list, r: Rules, table: Items, cbit: int, cv: int, by_value: dict,
              two: bool, need: int, ok, owned_cards: int = 0, keep_all=None) -> None:
    """The captures of the card ``cbit`` of value ``cv`` (C-capture, V-build-as-card; ``two``:
    a Royal Ace, as 1 and 14), in order: every collection of items splitting into sets of the
    value, each also with the build of that value if there is one. ``need``: loose cards the
    capture must take (V-dom-trail); ``ok(tm)``: C-build-keep, or None; ``keep_all()``: the
    same when no own build is taken (``owned_cards``: their cards), asked once."""
    deck = r.deck
    calls = r.orange_calls
    reach = table.reach
    kept = None
    # The same cards can be taken twice only by an Ace (as 1 and 14) or, when builds are items
    # too, as loose cards and with a build (V-build-as-card).
    seen = set() if two or r.build_as_card else None
    for v in (1, 14) if two else (cv,):
        b = by_value.get(v)
        if b is None and not reach >> v & 1 and not (v == 14 and table.aces):
            continue  # nothing makes v
        bcards = b.cards if b is not None else 0
        for cm in table.parts(v):
            for tm in (cm, cm | bcards) if bcards else (cm,):
                if not tm or need & ~tm:
                    continue
                if seen is not None:
                    if tm in seen:
                        continue
                    seen.add(tm)
                if ok is not None:  # C-build-keep
                    if tm & owned_cards:
                        if not ok(tm):
                            continue
                    else:
                        if kept is None:
                            kept = keep_all()
                        if not kept:
                            continue
                out.append(Move.make(deck, "capture", cbit, tm, v))
                if calls:  # V-tux-score: the capturer may call orange (falsely, too)
                    out.append(Move.make(deck, "capture", cbit, tm, v, None, False, True))


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


# -- notation --------------------------------------------------------------------------------

_CARDS = r"[^\s+]+(?:\s*\+\s*[^\s+]+)*"
_MOVE_RE = re.compile(
    rf"^\s*(?P<played>{_CARDS})\s+(?:(?P<trail>trails?)(?:\s+and\s+builds?\s+(?P<tvalue>\d+)"
    rf"\s+(?:on\s+)?(?P<ttaken>{_CARDS}))?"
    rf"|(?P<capture>captures?|takes?)\s+(?P<ctaken>{_CARDS})(?P<orange>\s+calling\s+orange)?"
    rf"|(?P<build>builds?)\s+(?P<bvalue>\d+)\s+(?:on\s+)?(?P<btaken>{_CARDS})"
    rf"(?P<partner>\s+for\s+partner)?)(?:\s*\((?P<piles>[^)]*)\))?\s*$",
    re.IGNORECASE,
)
_FROM_PILE_RE = re.compile(r"^\s*(?P<card>\S+)\s+from\s+side\s+(?P<side>\d+)'s\s+pile\s*$",
                           re.IGNORECASE)
_CLAIM_RE = re.compile(r"^\s*claims?(\s+the\s+game)?\s*$", re.IGNORECASE)
_CALL_RE = re.compile(r"^\s*calls?\s+orange\s*$", re.IGNORECASE)


def parse_move(text: str, state) -> Move:
    """Read a move in notation: ``KD trails``, ``7H captures 5S+2C``, ``3H builds 8 on 5S``,
    ``3H builds 9 on 6S for partner``, ``KD trails and builds 8 on 3S+5C`` (V-build-loose),
    ``9S+3H captures QD`` (Hungarian), ``5R captures 2Y+3G calling orange``, ``calls orange``,
    ``claims the game``, ``7H captures 2C+5S (5S from side 1's pile)`` (V-swazi-steal: the
    clause naming where pile cards come from may be left out, since a card lies in one place
    only; given, it must agree with ``state``).

    Only the syntax and the cards are checked here; ``apply_move`` judges legality. A capture
    written without its value takes the value of the matching legal move (or the cards').
    """
    if not isinstance(text, str):
        raise ValueError(f"move text must be a string, got {text!r}")
    if state is not None and not isinstance(state, State):
        raise TypeError(f"parse_move: expected a State (or None: the standard deck), got "
                        f"{type(state).__name__} (State.from_spec(spec) makes one from a spec)")
    deck = state.rules.deck if state is not None else STANDARD
    if _CLAIM_RE.match(text):
        return Move.make(deck, "claim", 0, 0, None)
    if _CALL_RE.match(text):
        return Move.make(deck, "call", 0, 0, None)
    m = _MOVE_RE.match(text)
    if not m:
        raise ValueError(f"cannot read move {text!r}: expected e.g. '7H captures 5S+2C', "
                         "'3H builds 8 on 5S' or 'KD trails'")
    if deck.copies > 1:  # two decks: the cards named are copies in the hand and on the table
        hand, table = state.hand_masks[state.current], state.table_mask()
    else:
        hand = table = 0
    played = _parse_cards(m["played"], deck, text, hand)
    if m["piles"] is not None:
        if m["trail"]:
            raise ValueError(f"cannot read move {text!r}: a trail takes no pile card")
        move = _parse_taking(m, played, deck, state, text, table)
        return _check_stolen(move, m["piles"], deck, state, text)
    if m["trail"]:
        taken = _parse_cards(m["ttaken"], deck, text, table) if m["ttaken"] else 0
        value = int(m["tvalue"]) if m["tvalue"] else None
        return Move.make(deck, "trail", played, taken, value)
    move = _parse_taking(m, played, deck, state, text, table)
    if state is not None and state.pile_ids:
        mark_stolen(state, move)
    return move


def _parse_taking(m: re.Match, played: int, deck: Deck, state, text: str, table: int) -> Move:
    """The capture or build of a matched move text (``table``: where two decks' copies are
    matched, see ``_parse_cards``)."""
    if m["capture"]:
        taken = _parse_cards(m["ctaken"], deck, text, table)
        value = _capture_value(state, played, taken, deck)
        return Move.make(deck, "capture", played, taken, value, None, False, bool(m["orange"]))
    taken = _parse_cards(m["btaken"], deck, text, table)
    return Move.make(deck, "build", played, taken, int(m["bvalue"]), None, bool(m["partner"]))


def _check_stolen(move: Move, clause: str, deck: Deck, state, text: str) -> Move:
    """V-swazi-steal: read ``(5S from side 1's pile, ...)``; each card named must be taken by
    the move and, given a state, lie in that side's pile (the move then notes it)."""
    named = set()
    for part in clause.split(","):
        f = _FROM_PILE_RE.match(part)
        if not f:
            raise ValueError(f"cannot read move {text!r}: expected e.g. \"(5S from side 1's "
                             f"pile)\" after the cards, got ({clause})")
        cid = _parse_cards(f["card"], deck, text).bit_length() - 1
        side = int(f["side"])
        if not move.taken_mask >> cid & 1:
            raise ValueError(f"cannot read move {text!r}: {deck.names[cid]} is named as a pile "
                             "card but is not among the cards taken")
        if state is not None and not (side < len(state.pile_masks)
                                      and state.pile_masks[side] >> cid & 1):
            raise ValueError(f"cannot read move {text!r}: {deck.names[cid]} is not in side "
                             f"{side}'s pile (V-swazi-steal)")
        named.add((cid, side))
    if state is None:
        move.stolen = tuple(sorted(named))
        return move
    mark_stolen(state, move)
    missing = [deck.names[c] for c, side in move.stolen if (c, side) not in named]
    if missing:
        raise ValueError(f"cannot read move {text!r}: {', '.join(missing)} also "
                         f"come{'s' if len(missing) == 1 else ''} from a pile; name "
                         "every pile card in the brackets, or none")
    return move


def _parse_cards(text: str, deck: Deck, whole: str, where: int = 0) -> int:
    """The mask of the cards of ``text`` (two decks: copies matched by kind to ``where``, the
    hand or the table, lowest first; a card named twice is both copies)."""
    mask = 0
    kinds = []
    for part in text.split("+"):
        part = part.strip()
        try:
            cid = deck.parse(part)
        except ValueError:
            other = ROOK if deck.suits == "SHDC" else STANDARD
            hint = f" (that is a {other.name}-deck card)" if part.upper() in other.index else ""
            raise ValueError(f"cannot read move {whole!r}: bad card text {part!r}{hint}") from None
        if deck.copies > 1:
            kinds.append(deck.kind[cid])
            continue
        if mask >> cid & 1:
            raise ValueError(f"cannot read move {whole!r}: {part} is named twice")
        mask |= 1 << cid
    if kinds:
        try:
            return pick_copies(deck, kinds, where)
        except ValueError as e:
            raise ValueError(f"cannot read move {whole!r}: {e}") from None
    return mask


def _capture_value(state, played: int, taken: int, deck: Deck) -> int | None:
    if state is not None:
        for mv in legal_moves(state):
            if mv.kind == "capture" and mv.played_mask == played and mv.taken_mask == taken:
                return mv.value
        values = state.rules.hand_values
    else:
        values = tuple(r if r <= 10 else None for r in deck.rank)
    total = 0
    for i in bit_list(played):
        v = values[i]
        if v is None:
            return None  # C-face: a J, Q or K captures by rank, with no value
        total += v
    return total
