"""Moves: the ``Move`` value, its notation, and exact legal-move generation.

A move is identified by its outcome (C-move): the card(s) played, the set of table cards
taken (captured, or drawn into the build) and, for a build, its value. Generation works on
bitmasks and cached subset-sum partitions (``sets``), never on permutations.
"""

from __future__ import annotations

import re

from .cards import ROOK, STANDARD, Deck, bit_list, deck_of_card_text
from .rules import Rules
from .sets import groups, partitions

KINDS = ("trail", "capture", "build")


class Move:
    """One legal-move outcome. ``kind``, ``played`` (tuple of card strings), ``taken``
    (frozenset of table card strings), ``value`` (build value after the move, or the capture
    value used; None for a trail), ``for_partner`` (V-partner-build)."""

    __slots__ = ("kind", "played_mask", "taken_mask", "value", "for_partner", "deck", "multiple")

    def __init__(self, kind: str, played: object, taken: object = (), value: int | None = None,
                 for_partner: bool = False) -> None:
        if kind not in KINDS:
            raise ValueError(f"move kind must be one of {', '.join(KINDS)}, got {kind!r}")
        if isinstance(played, str):
            played = (played,)
        if isinstance(taken, str):
            taken = (taken,)
        played, taken = tuple(played), tuple(taken)
        first = (played + taken)[0] if played + taken else ""
        deck = deck_of_card_text(first)
        self.kind = kind
        self.played_mask = _mask(deck, played, "played")
        self.taken_mask = _mask(deck, taken, "taken")
        if len(played) != self.played_mask.bit_count():
            raise ValueError(f"played: a card is named twice in {played!r}")
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"value: must be an int or None, got {value!r}")
        self.value = value
        self.for_partner = bool(for_partner)
        self.deck = deck
        self.multiple = None

    @classmethod
    def make(cls, deck: Deck, kind: str, played_mask: int, taken_mask: int, value: int | None,
             multiple: bool | None = None, for_partner: bool = False) -> Move:
        """Internal constructor from masks (no validation)."""
        m = cls.__new__(cls)
        m.kind = kind
        m.played_mask = played_mask
        m.taken_mask = taken_mask
        m.value = value
        m.for_partner = for_partner
        m.deck = deck
        m.multiple = multiple
        return m

    @property
    def played(self) -> tuple[str, ...]:
        return tuple(self.deck.strs(self.played_mask))

    @property
    def taken(self) -> frozenset[str]:
        return frozenset(self.deck.strs(self.taken_mask))

    def key(self) -> tuple:
        return (self.kind, self.played_mask, self.taken_mask, self.value, self.for_partner)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Move) and self.key() == other.key()
                and self.deck is other.deck)

    def __hash__(self) -> int:
        return hash(self.key())

    def __str__(self) -> str:
        d = self.deck
        played = "+".join(d.strs(self.played_mask))
        taken = "+".join(d.strs(self.taken_mask))
        if self.kind == "trail":
            return f"{played} trails"
        if self.kind == "capture":
            return f"{played} captures {taken}"
        text = f"{played} builds {self.value} on {taken}"
        return text + " for partner" if self.for_partner else text

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"


def _mask(deck: Deck, cards: tuple, field: str) -> int:
    m = 0
    for c in cards:
        try:
            m |= 1 << deck.parse(c)
        except ValueError as e:
            raise ValueError(f"{field}: {e}") from None
    return m


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

def legal_moves(state) -> list[Move]:
    """Every legal move for ``state.current``, once each, in a stable canonical order: by
    played card, then trail, captures, builds (by value); builds for partner come last."""
    moves = state._moves
    if moves is None:
        moves = [] if state.game_over else generate(state)
        state._moves = moves
    return list(moves)


class Loose:
    """The loose numeric cards of one state, with set queries answered as card masks.

    The work (``sets.groups``/``sets.partitions``) is cached by the cards' values only; this
    object memoises the conversion back to card masks and prunes unreachable sums.
    """

    __slots__ = ("ids", "vals", "reach", "aces", "royal", "_groups", "_parts")

    def __init__(self, loose: int, values: tuple, royal: bool) -> None:
        ids = [i for i in bit_list(loose) if values[i] is not None]
        self.ids = ids
        self.vals = vals = tuple(values[i] for i in ids)
        reach = 1
        for v in vals:
            reach |= reach << v
        self.reach = reach
        self.aces = royal and 1 in vals
        self.royal = royal
        self._groups: dict[int, list[int]] = {}
        self._parts: dict[int, list[int]] = {}

    def _cards(self, pmasks) -> list[int]:
        ids = self.ids
        out = []
        for pm in pmasks:
            m = 0
            while pm:
                low = pm & -pm
                m |= 1 << ids[low.bit_length() - 1]
                pm ^= low
            out.append(m)
        return out

    def groups(self, t: int) -> list[int]:
        """Card masks of the sets of loose cards whose values sum to ``t``."""
        g = self._groups.get(t)
        if g is None:
            lone = self.royal and t == 14
            if t <= 0 or not (self.reach >> t & 1 or (lone and self.aces)):
                g = []
            else:
                g = self._cards(groups(self.vals, t, lone))
            self._groups[t] = g
        return g

    def parts(self, t: int) -> list[int]:
        """Card masks (0 first) of the loose collections that split into sets of ``t``."""
        p = self._parts.get(t)
        if p is None:
            lone = self.royal and t == 14
            if not (self.reach >> t & 1 or (lone and self.aces)):
                p = [0]
            else:
                p = self._cards(partitions(self.vals, t, lone))
            self._parts[t] = p
        return p


def generate(st) -> list[Move]:
    """The legal moves of ``st`` (uncached; ``legal_moves`` caches them on the state)."""
    r = st.rules
    deck = r.deck
    seat = st.current
    hand = st.hands[seat]
    values = r.values
    rank_of = deck.rank
    rank_mask = deck.rank_mask
    loose = st.loose
    builds = st.builds
    royal = r.royal
    dom_trail = r.dom_trail
    by_value = {b.value: b for b in builds}
    owned = [b.value for b in builds if b.owner == seat]
    table = Loose(loose, values, royal)
    make = Move.make
    out: list[Move] = []
    hand_ids = bit_list(hand)
    in_hand: dict[int, int] = {}  # build values the hand can back -> how many cards
    for i in hand_ids:
        v = values[i]
        if v is not None:
            in_hand[v] = in_hand.get(v, 0) + 1
            if v == 1 and royal:
                in_hand[14] = in_hand.get(14, 0) + 1

    for c in hand_ids:
        cbit = 1 << c
        rest = hand & ~cbit
        cv = values[c]
        same_rank = loose & rank_mask[rank_of[c]]

        # Trail (C-trail, C-owner-trail, V-dom-trail).
        if not owned and not (dom_trail and same_rank):
            out.append(make(deck, "trail", cbit, 0, None))

        # Captures (C-capture, C-face, C-build-keep, V-dom-trail).
        if cv is None:
            for t in bit_list(same_rank):
                out.append(make(deck, "capture", cbit, 1 << t, None))
            continue
        need = same_rank if dom_trail else 0
        keep_loose = backs(r, rest, owned)
        seen: set[int] = set()
        for v in ((1, 14) if royal and cv == 1 else (cv,)):
            b = by_value.get(v)
            keep_build = b is not None and (
                keep_loose if b.owner != seat else backs(r, rest, _without(owned, v)))
            if not keep_loose and not keep_build:
                continue
            for cm in table.parts(v):
                if need & ~cm:
                    continue
                if cm and keep_loose and cm not in seen:
                    seen.add(cm)
                    out.append(make(deck, "capture", cbit, cm, v))
                if keep_build:
                    tm = cm | b.cards
                    if tm not in seen:
                        seen.add(tm)
                        out.append(make(deck, "capture", cbit, tm, v))

        # Builds (C-build, C-build-raise, C-build-extend, C-one-per-value, V-dom-build).
        if not r.building:
            continue
        for V in sorted(in_hand):
            if in_hand[V] - (cv == V or (V == 14 and cv == 1 and royal)) <= 0:
                continue  # no other card in hand captures a build of V
            vb = by_value.get(V)
            # A set holding the played card (alone, or with loose cards) plus loose sets of V;
            # it joins the V-build if there is one (C-build, C-build-extend, C-one-per-value).
            if backs(r, rest, _without(owned, V) + [V]):
                alone = cv == V or (royal and cv == 1 and V == 14)
                cgroups = ([0] if alone else []) + (table.groups(V - cv) if V > cv else [])
                if cgroups:
                    extra = table.parts(V)
                    vcards = vb.cards if vb is not None else 0
                    made: set[int] = set()
                    for g in cgroups:
                        for sm in extra:
                            if g & sm:
                                continue
                            lm = g | sm
                            if (not lm and vb is None) or lm in made:
                                continue  # the card alone is a trail, not a build
                            made.add(lm)
                            out.append(make(deck, "build", cbit, lm | vcards, V,
                                            vb is not None or sm != 0))
            # Raising a single build by the played card (C-build-raise), plus loose sets of V.
            for b in builds:
                if b.multiple or b.value + cv != V or (r.dom_build and b.owner == seat):
                    continue
                if not backs(r, rest, _without(_without(owned, b.value), V) + [V]):
                    continue
                base = b.cards | (vb.cards if vb is not None else 0)
                for lm in table.parts(V):
                    out.append(make(deck, "build", cbit, base | lm, V, bool(lm) or vb is not None))
    if r.partner_build:
        out.extend(partner_builds(st))
    return out


def _without(values: list[int], v: int) -> list[int]:
    return [x for x in values if x != v] if v in values else values


def partner_builds(st) -> list[Move]:
    """V-partner-build: builds made for partner when public play proves partner holds the
    value (partner owns that build, or built that value before and has not played it)."""
    r = st.rules
    deck = r.deck
    seat = st.current
    partner = (seat + 2) % 4
    provable = st.proven[partner]
    for b in st.builds:
        if b.owner == partner:
            provable |= 1 << b.value
    if not provable:
        return []
    values = r.values
    hand = st.hands[seat]
    p_hand = st.hands[partner]
    builds = st.builds
    by_value = {b.value: b for b in builds}
    owned = [b.value for b in builds if b.owner == seat]
    p_owned = [b.value for b in builds if b.owner == partner]
    ids = [i for i in bit_list(st.loose) if values[i] is not None]
    vals = tuple(values[i] for i in ids)
    royal = r.royal
    out = []
    for c in bit_list(hand):
        cv = values[c]
        if cv is None:
            continue
        cbit = 1 << c
        rest = hand & ~cbit
        pos = sum(1 for i in ids if i < c)
        c_ids = ids[:pos] + [c] + ids[pos:]
        c_vals = vals[:pos] + (cv,) + vals[pos:]
        cpos = 1 << pos
        for V in range(1, r.max_value + 1):
            if not provable >> V & 1:
                continue
            vb = by_value.get(V)
            mine_after = _without(owned, V)
            if backs(r, rest, mine_after) and backs(r, p_hand, _without(p_owned, V) + [V]):
                for pm in partitions(c_vals, V, royal and V == 14):
                    if not pm & cpos:
                        continue
                    lm = 0
                    total = cv
                    for j in bit_list(pm & ~cpos):
                        lm |= 1 << c_ids[j]
                        total += c_vals[j]
                    if vb is None and not lm:
                        continue
                    taken = lm | (vb.cards if vb is not None else 0)
                    out.append(Move.make(deck, "build", cbit, taken, V,
                                         vb is not None or total != V, True))
            for b in builds:
                if b.multiple or b.value + cv != V or (r.dom_build and b.owner == seat):
                    continue
                if not (backs(r, rest, _without(_without(owned, b.value), V))
                        and backs(r, p_hand, _without(_without(p_owned, b.value), V) + [V])):
                    continue
                base = b.cards | (vb.cards if vb is not None else 0)
                for pm in partitions(vals, V, royal and V == 14):
                    lm = 0
                    for j in bit_list(pm):
                        lm |= 1 << ids[j]
                    out.append(Move.make(deck, "build", cbit, base | lm, V,
                                         bool(lm) or vb is not None, True))
    return out


# -- notation --------------------------------------------------------------------------------

_MOVE_RE = re.compile(
    r"^\s*(?P<played>[^\s]+(?:\s*\+\s*[^\s+]+)*)\s+(?P<verb>trails?|captures?|takes?|builds?)"
    r"(?:\s+(?P<value>\d+))?(?:\s+(?:on|from)?\s*(?P<taken>[^\s]+(?:\s*\+\s*[^\s+]+)*))?"
    r"(?P<partner>\s+for\s+partner)?\s*$",
    re.IGNORECASE,
)


def parse_move(text: str, state) -> Move:
    """Read a move in notation (``7H captures 5S+2C``, ``3H builds 8 on 5S``, ``KD trails``).

    Only the syntax and the cards are checked here; ``apply_move`` judges legality. A capture
    written without its value takes the value of the matching legal move (or the card's).
    """
    if not isinstance(text, str):
        raise ValueError(f"move text must be a string, got {text!r}")
    m = _MOVE_RE.match(text)
    if not m:
        raise ValueError(f"cannot read move {text!r}: expected e.g. '7H captures 5S+2C', "
                         "'3H builds 8 on 5S' or 'KD trails'")
    deck = state.rules.deck if state is not None else STANDARD
    verb = m["verb"].lower()
    kind = "trail" if verb.startswith("trail") else "build" if verb.startswith("build") else "capture"
    played = _parse_cards(m["played"], deck, text)
    taken = _parse_cards(m["taken"], deck, text) if m["taken"] else 0
    value = int(m["value"]) if m["value"] else None
    if kind == "trail" and (taken or value is not None):
        raise ValueError(f"cannot read move {text!r}: a trail takes no table cards")
    if kind == "capture" and value is not None and m["taken"] is None:
        raise ValueError(f"cannot read move {text!r}: a capture names the cards it takes")
    if kind == "capture" and not taken:
        raise ValueError(f"cannot read move {text!r}: a capture names the cards it takes")
    if kind == "build" and (value is None or not taken):
        raise ValueError(f"cannot read move {text!r}: write a build as '3H builds 8 on 5S'")
    if m["partner"] and kind != "build":
        raise ValueError(f"cannot read move {text!r}: only a build is made 'for partner'")
    if kind == "capture" and value is None:
        value = _capture_value(state, played, taken, deck)
    return Move.make(deck, kind, played, taken, value, None, bool(m["partner"]))


def _parse_cards(text: str, deck: Deck, whole: str) -> int:
    mask = 0
    for part in text.split("+"):
        part = part.strip()
        try:
            cid = deck.parse(part)
        except ValueError:
            other = ROOK if deck is STANDARD else STANDARD
            hint = f" (that is a {other.name}-deck card)" if part.upper() in other.index else ""
            raise ValueError(f"cannot read move {whole!r}: bad card text {part!r}{hint}") from None
        if mask >> cid & 1:
            raise ValueError(f"cannot read move {whole!r}: {part} is named twice")
        mask |= 1 << cid
    return mask


def _capture_value(state, played: int, taken: int, deck: Deck) -> int | None:
    if state is not None:
        for mv in legal_moves(state):
            if mv.kind == "capture" and mv.played_mask == played and mv.taken_mask == taken:
                return mv.value
        values = state.rules.values
    else:
        values = tuple(r if r <= 10 else None for r in deck.rank)
    total = 0
    for i in bit_list(played):
        v = values[i]
        if v is None:
            return None  # C-face: a J, Q or K captures by rank, with no value
        total += v
    return total
