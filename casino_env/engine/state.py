"""The game state: who holds what, the table, the stock, piles and scores, and its JSON spec.

A ``State`` is never changed after it is made: ``apply_move`` builds a new one. Cards are
int bitmasks inside (see ``cards``); the spec (``to_spec``/``from_spec``) uses notation strings.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

from .cards import Deck, bit_list
from .dealing import TABLE_SIZE
from .rules import BICYCLE_DOUBLE, Rules, make_rules
from .scoring import FINNISH_SWEEP_LIMIT, event_points, sweep_scores
from .sets import partitions


class Build(NamedTuple):
    """A build on the table: its value, its cards (mask), its owning seat, single or multiple."""

    value: int
    cards: int
    owner: int
    multiple: bool


class Sides(tuple):
    """Per-side numbers; a tuple that also compares equal to a list of the same numbers."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, list):
            other = tuple(other)
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = tuple.__hash__


SPEC_KEYS = ("variant", "rules", "players", "partnerships", "dealer", "current", "hands",
             "table", "stock", "piles", "sweeps", "scores", "last_capturer", "seed",
             "hand_points", "met", "proven", "hand", "events", "pending_orange", "extra_turn",
             "winner", "hand_over")
REQUIRED_KEYS = ("variant", "players", "hands")


class State:
    """One moment of a game. Read it; never assign to it (``apply_move`` returns a new one).

    Public: ``current`` (seat to move), ``scores`` (cumulative per side), ``hand_points``
    (per side, last completed hand, or None), ``game_over``, ``winner`` (side or None; in
    krypkasino, ``Rules.penalties``, scores are penalty points and the winner has the lowest),
    ``rules``, ``dealer``; cards as notation strings through ``hands``, ``table``, ``piles``,
    ``stock`` (and ``hand(seat)``, ``pile(side)``, ``stock_size``). The engine's own bitmask
    fields say so in their names: ``hand_masks``, ``loose_mask``, ``pile_masks``, ``stock_ids``
    (card ids, top first), ``pile_ids`` (V-swazi-steal only: per side, the pile's card ids
    bottom first; ``()`` where piles are unordered); ``builds`` holds ``Build`` tuples whose
    ``cards`` is a mask.
    """

    __slots__ = ("rules", "dealer", "current", "hand_masks", "loose_mask", "builds", "stock_ids",
                 "pile_masks", "pile_ids",
                 "sweeps", "scores", "hand_points", "last_capturer", "seed", "game_over",
                 "winner", "met", "proven", "hand_no", "events", "pending_orange", "extra_turn",
                 "_moves", "_index")

    rules: Rules
    dealer: int
    current: int
    hand_masks: tuple  # mask per seat
    loose_mask: int  # mask of loose table cards
    builds: tuple  # Build, sorted by value
    stock_ids: tuple  # card ids, top first
    pile_masks: tuple  # mask per side
    pile_ids: tuple  # V-swazi-steal: per side, card ids bottom first; () for unordered piles
    sweeps: tuple  # uncancelled sweeps per side
    scores: Sides  # cumulative per side (start of this hand while it is being played)
    hand_points: Sides | None
    last_capturer: int | None
    seed: int | None  # seed of the next shuffle
    game_over: bool
    winner: int | None
    met: tuple  # V-dom-end: sides in the order their criterion became certain this hand
    proven: tuple  # V-partner-build: per seat, bitmask of values public play proves it holds
    hand_no: int  # hands completed before this one (0 in the first hand)
    events: tuple  # points scored during play this hand: (side, item, points), in order
    pending_orange: int | None  # V-tux-score: seat that may call the last capture's orange
    extra_turn: bool  # Nagy: the seat to move plays again after this move

    def _copy(self) -> State:
        """A fresh copy for the engine to fill in (states handed out are never changed)."""
        new = State.__new__(State)
        # Field by field (a getattr/setattr loop costs 3x more; every move copies a state).
        # tests/test_spec.py checks that this list is every field.
        new.rules, new.dealer, new.current, new.hand_masks = (self.rules, self.dealer,
                                                              self.current, self.hand_masks)
        new.loose_mask, new.builds, new.stock_ids, new.pile_masks = (
            self.loose_mask, self.builds, self.stock_ids, self.pile_masks)
        new.pile_ids = self.pile_ids
        new.sweeps, new.scores, new.hand_points = self.sweeps, self.scores, self.hand_points
        new.last_capturer, new.seed, new.game_over = self.last_capturer, self.seed, \
            self.game_over
        new.winner, new.met, new.proven, new.hand_no = (self.winner, self.met, self.proven,
                                                        self.hand_no)
        new.events, new.pending_orange, new.extra_turn = (self.events, self.pending_orange,
                                                          self.extra_turn)
        new._moves = None
        new._index = None
        return new

    # -- reading -------------------------------------------------------------------------
    @property
    def deck(self) -> Deck:
        return self.rules.deck

    @property
    def variant(self) -> str:
        return self.rules.variant

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def partnerships(self) -> bool:
        return self.rules.partnerships

    @property
    def sides(self) -> int:
        return self.rules.sides

    def side_of(self, seat: int) -> int:
        return self.rules.side(seat)

    def hand(self, seat: int) -> list[str]:
        return self.deck.strs(self.hand_masks[seat])

    def pile(self, side: int) -> list[str]:
        """A side's capture pile as card strings: bottom first where piles are ordered
        (V-swazi-steal), else in card order."""
        if self.pile_ids:
            names = self.deck.names
            return [names[i] for i in self.pile_ids[side]]
        return self.deck.strs(self.pile_masks[side])

    def pile_top(self, side: int) -> str | None:
        """V-swazi-steal: the top card of a side's pile (None if the pile is empty or the
        rules keep piles unordered)."""
        ids = self.pile_ids[side] if self.pile_ids else ()
        return self.deck.names[ids[-1]] if ids else None

    @property
    def hands(self) -> list[list[str]]:
        """Every seat's hand as card strings (seat order), e.g. ``[["AS", "7H"], ["10D"]]``."""
        strs = self.deck.strs
        return [strs(h) for h in self.hand_masks]

    @property
    def piles(self) -> list[list[str]]:
        """Every side's capture pile as card strings (side order; each bottom first where
        piles are ordered, V-swazi-steal)."""
        if self.pile_ids:
            return [self.pile(side) for side in range(len(self.pile_ids))]
        strs = self.deck.strs
        return [strs(p) for p in self.pile_masks]

    @property
    def loose(self) -> list[str]:
        """The loose cards on the table (not in a build) as card strings."""
        return self.deck.strs(self.loose_mask)

    @property
    def stock(self) -> list[str]:
        """The undealt cards as card strings, top first (hidden from players in play)."""
        names = self.deck.names
        return [names[i] for i in self.stock_ids]

    @property
    def stock_size(self) -> int:
        """How many cards are left to deal (public information)."""
        return len(self.stock_ids)

    @property
    def table(self) -> list:
        """Loose cards as strings, then builds as dicts (the spec's ``table``)."""
        d = self.deck
        out: list = d.strs(self.loose_mask)
        out.extend({"cards": d.strs(b.cards), "value": b.value, "owner": b.owner,
                    "multiple": b.multiple} for b in self.builds)
        return out

    @property
    def stake(self) -> int:
        """What the game is worth: 2 for a double game, else 1. A Nagy game whose winner
        reaches the target during the first hand is double (V-hun-end; not one won on the
        other side's false claim, below it), and so is a Bicycle game whose winner leaves every
        other side under 31 (V-spade-bicycle); the environment's win reward is the stake."""
        if not self.game_over:
            return 1
        r = self.rules
        if (r.nagy and self.hand_no == 0 and self.winner is not None
                and self.scores[self.winner] >= r.target):
            return 2
        if r.bicycle and self.winner is not None and all(
                s < BICYCLE_DOUBLE for side, s in enumerate(self.scores) if side != self.winner):
            return 2
        return 1

    @property
    def played_out(self) -> bool:
        """Every card is in a pile: no hand, the table or the stock holds one."""
        return not any(self.hand_masks) and not self.stock_ids and not self.table_mask()

    @property
    def hand_over(self) -> bool:
        """A hand scored with the next one not dealt (``apply_move(..., deal_next=False)`` at
        a hand's end; its spec says ``hand_over``)."""
        return not self.game_over and self.hand_points is not None and self.played_out

    @property
    def last_deal(self) -> bool:
        """True when the stock is empty: the cards in hand are the hand's last (public)."""
        return not self.stock_ids

    def table_mask(self) -> int:
        m = self.loose_mask
        for b in self.builds:
            m |= b.cards
        return m

    # -- spec ----------------------------------------------------------------------------
    def to_spec(self) -> dict:
        """JSON-serialisable dict that ``State.from_spec`` turns back into this state."""
        d = self.deck
        r = self.rules
        scores = self.scores
        settled = self.hand_points is not None and self.played_out
        if settled:
            # A hand scored, and the game ended with it or the next hand is not dealt yet
            # (``apply_move(..., deal_next=False)``): the spec's scores are those at the start
            # of that hand and from_spec scores it again (``hand_over``: and deals no more).
            scores = tuple(s - p for s, p in zip(self.scores, self.hand_points))
        spec = {
            "variant": r.variant,
            "rules": r.switches(),
            "players": r.players,
            "partnerships": r.partnerships,
            "dealer": self.dealer,
            "current": self.current,
            "hands": [d.strs(h) for h in self.hand_masks],
            "table": self.table,
            "stock": [d.names[i] for i in self.stock_ids],
            "piles": self.piles,
            "sweeps": list(self.sweeps),
            "scores": list(scores),
            "last_capturer": self.last_capturer,
            "seed": self.seed,
        }
        if self.hand_points is not None:
            spec["hand_points"] = list(self.hand_points)
        if self.hand_no:
            spec["hand"] = self.hand_no
        if self.events:
            spec["events"] = [list(e) for e in self.events]
        if self.pending_orange is not None:
            spec["pending_orange"] = self.pending_orange
        if self.extra_turn:
            spec["extra_turn"] = True
        if r.dom_end:
            spec["met"] = list(self.met)
        if r.partner_build:
            spec["proven"] = [[v for v in range(1, 15) if p >> v & 1] for p in self.proven]
        if self.hand_over:
            spec["hand_over"] = True
        if self.game_over and not (settled and State.from_spec(spec) == self):
            # The game ended during play (V-earned, claims), possibly with the winner's last
            # card: the spec keeps the final scores and names the winner.
            spec["scores"] = list(self.scores)
            spec["winner"] = self.winner
        return spec

    @classmethod
    def from_spec(cls, spec: dict) -> State:
        """A state from a JSON-like dict; a malformed spec raises ValueError naming the field.
        ``table``, ``stock`` and ``piles`` may be left out: missing means empty (the contract
        of the spec, so that a position can be written with only the cards that matter).
        ``hand_over``: the hand, every card in a pile, is scored and the next one not dealt
        (the state ``apply_move(..., deal_next=False)`` gives at a hand's end)."""
        from .play import settle  # dealing/scoring when every hand is empty

        st = _parse_spec(spec)
        if not spec.get("hand_over"):
            return settle(st)
        out = settle(st, deal_next=False)
        if st.hand_points is not None and out.hand_points != st.hand_points:
            raise ValueError(f"hand_points: {list(st.hand_points)} is not what the hand over "
                             f"scores from its piles ({list(out.hand_points)})")
        return out

    # -- comparison and display ----------------------------------------------------------
    def _key(self) -> tuple:
        return (self.rules, self.dealer, self.current, self.hand_masks, self.loose_mask,
                self.builds, self.stock_ids, self.pile_masks, self.pile_ids, self.sweeps,
                tuple(self.scores),
                None if self.hand_points is None else tuple(self.hand_points),
                self.last_capturer, self.seed, self.game_over, self.winner, self.met,
                self.proven, self.hand_no, self.events, self.pending_orange, self.extra_turn)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self._key() == other._key()

    def __copy__(self) -> State:
        return self  # never changed once made, so a copy is the state itself

    def __deepcopy__(self, memo: dict) -> State:
        return self  # (searches deep-copy their nodes thousands of times)

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"<State {self.rules.variant} {self.rules.players}p current={self.current} "
                f"scores={list(self.scores)} game_over={self.game_over}>")

    def __str__(self) -> str:
        from .text import describe_state

        return describe_state(self)


_FIELDS = State.__slots__[:-2]


# -- two decks: canonical copies ----------------------------------------------------------------

def _lowest(mask: int, used: int, low: int) -> int:
    """``mask`` with its cards moved to the lowest copies not in ``used`` (two-copy deck:
    ``low`` is the mask of the copy-0 ids)."""
    lo = mask & low
    hi = mask >> 1 & low
    both = lo & hi
    one = lo ^ hi
    first = one & ~used
    return both | both << 1 | first | (one & ~first) << 1


def renumber(st: State, stock: bool = True) -> None:
    """Number the copies of a two-deck game canonically (in place, on the engine's own copy):
    the stock (top first), then the hands by seat, the loose cards and the piles by side each
    take the lowest copies still free, so that positions differing only in which copy lies
    where are equal. ``stock=False`` when only cards outside the stock moved: the stock keeps
    its copies and the other places share the rest (found without reading the stock, so this
    holds for any state whose places do not overlap, a determinized one included)."""
    low = st.rules.deck.low
    if stock:
        used = 0
        ids = []
        for c in st.stock_ids:
            c &= ~1
            if used >> c & 1:
                c |= 1
            used |= 1 << c
            ids.append(c)
        st.stock_ids = tuple(ids)
    else:  # everything not in a hand, on the table or in a pile (the stock, absent cards)
        used = st.loose_mask
        for m in st.hand_masks:
            used |= m
        for m in st.pile_masks:
            used |= m
        used = st.rules.deck.full & ~used
    places = _lowest_all(st.hand_masks + (st.loose_mask,) + st.pile_masks, used, low)
    n = len(st.hand_masks)
    st.hand_masks, st.loose_mask, st.pile_masks = places[:n], places[n], places[n + 1:]


def _lowest_all(masks: tuple, used: int, low: int) -> tuple:
    """``_lowest`` of each mask in turn, each taking copies the ones before left free."""
    out = []
    for m in masks:
        m = _lowest(m, used, low)
        used |= m
        out.append(m)
    return tuple(out)


# -- spec parsing ---------------------------------------------------------------------------

def check_seed(seed: object) -> int | None:
    """A seed is an int >= 0 or None (a numpy integer counts as its int); anything else, a
    negative int included, raises ValueError naming it. One rule for ``new_game`` and specs
    (a negative seed would otherwise shuffle exactly as its absolute value)."""
    if seed is None or type(seed) is int and seed >= 0:
        return seed
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and seed >= 0:
        return int(seed)
    raise ValueError(f"seed: must be a non-negative int or None, got {seed!r}")


def _seat(value: object, n: int, field: str, allow_none: bool = False) -> int | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
        raise ValueError(f"{field}: must be a seat 0..{n - 1}{' or null' if allow_none else ''}"
                         f", got {value!r}")
    return value


def _int_list(value: object, n: int, field: str, what: str = "number") -> tuple:
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise ValueError(f"{field}: must be a list of {n} {what}s (one per side), got {value!r}")
    for x in value:
        if isinstance(x, bool) or not isinstance(x, int):
            raise ValueError(f"{field}: every entry must be an int, got {x!r}")
    return tuple(value)


class _Cards:
    """Parses card lists and catches a card named twice anywhere in the spec."""

    def __init__(self, deck: Deck) -> None:
        self.deck = deck
        self.where: dict[int, str] = {}

    def one(self, text: object, field: str) -> int:
        try:
            cid = self.deck.parse(text)  # type: ignore[arg-type]
        except ValueError as e:
            raise ValueError(f"{field}: {e}") from None
        if self.deck.copies > 1 and cid in self.where and cid + 1 not in self.where:
            cid += 1  # two decks: a card named twice is both copies (V-kryp-values)
        if cid in self.where:
            if self.deck.copies > 1:
                raise ValueError(f"{field}: card {self.deck.names[cid]} named a third time (the "
                                 f"two decks hold two copies; also in {self.where[cid]} and "
                                 f"{self.where[cid + 1]})")
            raise ValueError(f"{field}: duplicate card {self.deck.names[cid]} "
                             f"(also in {self.where[cid]})")
        self.where[cid] = field
        return cid

    def mask(self, texts: object, field: str) -> int:
        if not isinstance(texts, (list, tuple)):
            raise ValueError(f"{field}: must be a list of cards, got {texts!r}")
        m = 0
        for i, t in enumerate(texts):
            m |= 1 << self.one(t, f"{field}[{i}]")
        return m


def _parse_spec(spec: object) -> State:
    if not isinstance(spec, dict):
        raise ValueError(f"spec: must be a dict, got {type(spec).__name__}")
    for k in spec:
        if k not in SPEC_KEYS:
            raise ValueError(f"spec: unknown key {k!r} (known: {', '.join(SPEC_KEYS)})")
    for k in REQUIRED_KEYS:
        if k not in spec:
            raise ValueError(f"{k}: missing (a spec needs {', '.join(REQUIRED_KEYS)})")
    switches = spec.get("rules")
    if switches is None:
        switches = {}
    if not isinstance(switches, dict):
        raise ValueError(f"rules: must be a dict of rule switches, got {switches!r}")
    rules = make_rules(spec["variant"], spec["players"], spec.get("partnerships"), switches,
                       where="rules" if switches else "spec")
    n, sides, deck = rules.players, rules.sides, rules.deck
    cards = _Cards(deck)

    hands_spec = spec["hands"]
    if not isinstance(hands_spec, (list, tuple)) or len(hands_spec) != n:
        raise ValueError(f"hands: must be a list of {n} hands (one per seat), got {hands_spec!r}")
    hands = tuple(cards.mask(h, f"hands[{i}]") for i, h in enumerate(hands_spec))

    loose = 0
    builds: list[Build] = []
    table_spec = spec.get("table", [])
    if not isinstance(table_spec, (list, tuple)):
        raise ValueError(f"table: must be a list of cards and builds, got {table_spec!r}")
    for i, item in enumerate(table_spec):
        if isinstance(item, dict):
            builds.append(_parse_build(item, f"table[{i}]", rules, cards))
        else:
            loose |= 1 << cards.one(item, f"table[{i}]")
    builds.sort()
    for a, b in zip(builds, builds[1:]):
        if a.value == b.value:
            raise ValueError(f"table: two builds of value {a.value} (C-one-per-value: at most "
                             "one build of each value)")

    stock_spec = spec.get("stock", [])
    if not isinstance(stock_spec, (list, tuple)):
        raise ValueError(f"stock: must be a list of cards (top first), got {stock_spec!r}")
    stock = tuple(cards.one(t, f"stock[{i}]") for i, t in enumerate(stock_spec))

    piles_spec = spec.get("piles", [[] for _ in range(sides)])
    if not isinstance(piles_spec, (list, tuple)) or len(piles_spec) != sides:
        raise ValueError(f"piles: must be a list of {sides} piles (one per side), "
                         f"got {piles_spec!r}")
    piles = tuple(cards.mask(p, f"piles[{i}]") for i, p in enumerate(piles_spec))
    # V-swazi-steal: each pile is a stack, listed bottom first (``mask`` checked the lists).
    pile_ids = tuple(tuple(deck.parse(t) for t in p)
                     for p in piles_spec) if rules.steal else ()

    sweeps = _int_list(spec.get("sweeps", [0] * sides), sides, "sweeps")
    if any(x < 0 for x in sweeps):
        raise ValueError(f"sweeps: counts cannot be negative, got {list(sweeps)}")
    if any(sweeps) and not rules.sweeps:
        raise ValueError("sweeps: this game does not score sweeps (rule switch 'sweeps' is off)")
    scores = _int_list(spec.get("scores", [0] * sides), sides, "scores")
    hp = spec.get("hand_points")
    hand_points = None if hp is None else Sides(_int_list(hp, sides, "hand_points"))

    dealer = _seat(spec.get("dealer", n - 1), n, "dealer")
    current = _seat(spec.get("current", (dealer + 1) % n), n, "current")
    last_capturer = _seat(spec.get("last_capturer"), n, "last_capturer", allow_none=True)
    seed = check_seed(spec.get("seed"))
    if any(hands) and not hands[current] and spec.get("winner") is None:
        raise ValueError(f"current: seat {current} holds no cards while others do")

    if sweeps and rules.cancel and all(sweeps):
        raise ValueError(f"sweeps: {list(sweeps)} cannot happen under V-cancel (when every side "
                         "has a sweep, each cancels one)")
    if any(sweeps) and spec.get("winner") is None and not sweep_scores(rules, scores, False):
        raise ValueError(f"sweeps: {list(sweeps)} cannot happen in a {rules.variant} hand begun "
                         f"with scores {list(scores)} (V-fin-score: no sweep counts once a "
                         f"side has {FINNISH_SWEEP_LIMIT})")
    met_spec = spec.get("met", [])
    if not isinstance(met_spec, (list, tuple)):
        raise ValueError(f"met: must be a list of sides, got {met_spec!r}")
    if met_spec and not rules.dom_end:
        raise ValueError("met: only with rule switch 'dom_end' (V-dom-end)")
    met = tuple(_seat(s, sides, "met") for s in met_spec)
    if len(set(met)) != len(met):
        raise ValueError(f"met: a side is listed twice in {list(met)}")
    if "proven" in spec and not isinstance(spec["proven"], (list, tuple)):
        raise ValueError(f"proven: must be a list of {n} lists of values, got {spec['proven']!r}")
    if "proven" in spec and not rules.partner_build and any(spec["proven"] or []):
        raise ValueError("proven: only with rule switch 'partner_build' (V-partner-build)")
    proven_spec = spec.get("proven", [[] for _ in range(n)])
    if not isinstance(proven_spec, (list, tuple)) or len(proven_spec) != n:
        raise ValueError(f"proven: must be a list of {n} lists of values")
    proven = []
    for i, vals in enumerate(proven_spec):
        m = 0
        for v in vals if isinstance(vals, (list, tuple)) else [None]:
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= rules.max_value:
                raise ValueError(f"proven[{i}]: values must be build values, ints "
                                 f"1..{rules.max_value}, got {vals!r}")
            m |= 1 << v
        proven.append(m)

    hand_no = spec.get("hand", 0)
    if isinstance(hand_no, bool) or not isinstance(hand_no, int) or hand_no < 0:
        raise ValueError(f"hand: must be a non-negative int (hands completed), got {hand_no!r}")
    events = []
    events_spec = spec.get("events", [])
    if not isinstance(events_spec, (list, tuple)):
        raise ValueError(f"events: must be a list of [side, item, points], got {events_spec!r}")
    allowed = event_points(rules)
    for i, e in enumerate(events_spec):
        if (not isinstance(e, (list, tuple)) or len(e) != 3 or not isinstance(e[1], str)
                or isinstance(e[2], bool) or not isinstance(e[2], int)):
            raise ValueError(f"events[{i}]: must be [side, item, points], got {e!r}")
        if e[1] not in allowed:
            raise ValueError(f"events[{i}]: {e[1]!r} is not an event of {rules.variant!r} "
                             f"(its events: {', '.join(allowed) or 'none'})")
        if e[2] not in allowed[e[1]]:
            raise ValueError(f"events[{i}]: {e[1]!r} scores "
                             f"{' or '.join(map(str, sorted(allowed[e[1]])))} points here, "
                             f"got {e[2]!r}")
        events.append((_seat(e[0], sides, f"events[{i}][0]"), e[1], e[2]))
    pending = _seat(spec.get("pending_orange"), n, "pending_orange", allow_none=True)
    if pending is not None and not rules.orange_calls:
        raise ValueError("pending_orange: only with rule switch 'orange_calls' (V-tux-score)")
    extra_turn = spec.get("extra_turn", False)
    if not isinstance(extra_turn, bool) or (extra_turn and not rules.nagy):
        raise ValueError(f"extra_turn: must be false, or true under rule switch 'nagy', "
                         f"got {extra_turn!r}")
    winner = _seat(spec.get("winner"), sides, "winner", allow_none=True)
    hand_over = spec.get("hand_over", False)
    if not isinstance(hand_over, bool):
        raise ValueError(f"hand_over: must be true or false, got {hand_over!r}")
    if hand_over and (any(hands) or loose or builds or stock or winner is not None):
        raise ValueError("hand_over: a hand is over only with every hand, the table and the "
                         "stock empty and no winner named (its piles are scored)")

    if (stock and winner is None and not any(hands) and not loose and not builds
            and not any(piles) and len(stock) < TABLE_SIZE + n):
        raise ValueError(f"stock: the hand's first deal needs at least {TABLE_SIZE} cards for "
                         f"the table and one for each of the {n} players, got {len(stock)} "
                         "(C-deal)")
    st = State.__new__(State)
    for name, value in (("rules", rules), ("dealer", dealer), ("current", current),
                        ("hand_masks", hands), ("loose_mask", loose),
                        ("builds", tuple(builds)), ("stock_ids", stock), ("pile_masks", piles),
                        ("pile_ids", pile_ids),
                        ("sweeps", sweeps),
                        ("scores", Sides(scores)), ("hand_points", hand_points),
                        ("last_capturer", last_capturer), ("seed", seed),
                        ("game_over", winner is not None), ("winner", winner), ("met", met),
                        ("proven", tuple(proven)), ("hand_no", hand_no),
                        ("events", tuple(events)), ("pending_orange", pending),
                        ("extra_turn", extra_turn), ("_moves", None), ("_index", None)):
        setattr(st, name, value)
    for b in st.builds:
        _check_owner_holds(st, b)
    if deck.copies > 1:
        renumber(st)
    return st


def stealable(st: State, seat: int) -> int:
    """V-swazi-steal: the mask of the top cards of every other side's pile, the items ``seat``
    may capture or build with besides the loose cards (0 where piles are not ordered)."""
    if not st.pile_ids:
        return 0
    mine = st.rules.side(seat)
    m = 0
    for side, ids in enumerate(st.pile_ids):
        if ids and side != mine:
            m |= 1 << ids[-1]
    return m


def pile_of(st: State, card: int) -> int | None:
    """The side whose capture pile holds card id ``card``, or None."""
    for side, p in enumerate(st.pile_masks):
        if p >> card & 1:
            return side
    return None


def _parse_build(item: dict, field: str, rules: Rules, cards: _Cards) -> Build:
    known = ("cards", "value", "owner", "multiple")
    for k in item:
        if k not in known:
            raise ValueError(f"{field}: unknown build key {k!r} (known: {', '.join(known)})")
    for k in ("cards", "value", "owner"):
        if k not in item:
            raise ValueError(f"{field}: a build needs {k!r}")
    if not rules.building:
        raise ValueError(f"{field}: {rules.variant!r} has no building")
    mask = cards.mask(item["cards"], f"{field}.cards")
    value = item["value"]
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= rules.max_value:
        raise ValueError(f"{field}.value: must be an int 1..{rules.max_value} "
                         f"(C-one-per-value), got {value!r}")
    owner = _seat(item["owner"], rules.players, f"{field}.owner")
    ids = bit_list(mask)
    if len(ids) < 2:
        raise ValueError(f"{field}.cards: a build holds at least two cards (C-build)")
    vals = [rules.values[i] for i in ids]
    if None in vals:
        raise ValueError(f"{field}.cards: {rules.deck.names[ids[vals.index(None)]]} cannot be in "
                         "a build (C-face: J Q K have no value in classic Casino)")
    single = sum(vals) == value
    full = (1 << len(ids)) - 1
    multiple_ok = full in partitions(tuple(vals), value, rules.ace14 and value == 14) and not single
    multiple = item.get("multiple")
    if multiple is None:
        multiple = not single
    if not isinstance(multiple, bool):
        raise ValueError(f"{field}.multiple: must be true or false, got {multiple!r}")
    if multiple and not multiple_ok:
        raise ValueError(f"{field}: impossible build: {'+'.join(rules.deck.strs(mask))} cannot be "
                         f"split into sets of {value} (C-build)")
    if not multiple and not single:
        raise ValueError(f"{field}: impossible build: {'+'.join(rules.deck.strs(mask))} does not "
                         f"sum to {value} (a single build's value is its sum, C-build)")
    return Build(value, mask, owner, multiple)


def _check_owner_holds(st: State, b: Build) -> None:
    from .moves import backs

    owned = [x.value for x in st.builds if x.owner == b.owner]
    if not backs(st.rules, st.hand_masks[b.owner], owned):
        raise ValueError(f"table: seat {b.owner} owns a build of {b.value} but does not hold a "
                         f"card to capture it (C-build-keep)")
