"""A brute-force reference oracle for legal moves, written straight from RULES.md and the
decisions of docs/rules.md.

It shares no code with the engine: it reads a state spec (``State.to_spec()``), enumerates
every subset of table items (loose cards one by one, builds as whole units), every build
value, and checks each candidate against the rules directly. It is slow on purpose: every
check is the literal rule, so it can be trusted to judge the engine's fast generator.

A move is the tuple ``(kind, played, taken, value, flags)`` (C-move: a move is its outcome):

- ``kind``: ``trail``, ``capture``, ``build``, ``claim`` (V-hun-end) or ``call``
  (V-tux-score);
- ``played``: frozenset of the cards played (one card, several in Hungarian, none for a claim
  or a call);
- ``taken``: frozenset of the table cards taken (captured, or drawn into the build; every card
  of a captured or extended build counts);
- ``value``: the build's value after a build, or after a trail that also builds
  (V-build-loose); ``None`` for a capture (different groupings, Ace readings or Ulmann splits
  of the same cards are one move), a plain trail, a claim and a call;
- ``flags``: frozenset of ``"for_partner"`` (V-partner-build) and ``"orange"`` (a capture
  calling orange under ``orange_calls``, V-tux-score).

Rules implemented: C-deck (values of the classic, Royal, Hungarian and Rook decks; an Ace
counts 14 only as a set on its own), C-turn, C-capture, C-face, C-build (a card of the value
held besides the played one; a table item besides the played card unless joining an existing
build of that value), C-build-raise, C-build-extend, C-build-keep (one card per owned build,
so a Royal 1-build and 14-build need two Aces), C-owner-trail, C-one-per-value (merging),
C-trail, V-dom-trail, V-dom-build, V-partner-build, V-hun-play (multi-card captures, Ulmann,
Kovacs, Ace 1/14), V-hun-end (claims), V-tux-score (orange calls), V-build-loose,
V-owner-may-trail, V-raise-with-table, V-build-as-card; and, for `swedish` and `finnish`,
V-nordic-play (no building; any single card captures or trails) with V-fin-values (Finnish
cards capture from hand as A 14, 2S 15, 10D 16 and count A 1, 2S 2, 10D 10 on the table).
"""

from __future__ import annotations

from functools import cache, lru_cache
from itertools import combinations

RANKS = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10,
         "J": 11, "Q": 12, "K": 13}
CLASSIC = ("casino", "spade", "wippen")  # A=1, 2-10, J Q K without value (C-face)
ROYAL = ("royal", "dominican")  # J 11, Q 12, K 13, Ace 1 or 14
ROOK_SUITS = "RYGB"  # Tuxedo: 1R ... 10B, values 1-10
NORDIC = ("swedish", "finnish")  # no building (V-nordic-play); swedish has Royal values
FINNISH_FROM_HAND = {"2S": 15, "10D": 16}  # V-fin-values, besides every Ace's 14
PRESET_SWITCHES = {"dominican": ("dom_trail", "dom_build")}  # preset defaults that matter here
NONE: frozenset = frozenset()
FOR_PARTNER = frozenset({"for_partner"})
ORANGE = frozenset({"orange"})


@cache
def rank(card: str) -> int:
    """Rank of a card string: A=1 ... 10=10, J=11, Q=12, K=13; Rook ``1R``..``10B``: 1..10."""
    r = card[:-1].upper()
    return RANKS[r] if r in RANKS else int(r)


def move(kind: str, played, taken=(), value: int | None = None, flags=NONE) -> tuple:
    """A move tuple; ``played`` and ``taken`` may be a card string or an iterable of them."""
    played = frozenset((played,) if isinstance(played, str) else played)
    taken = frozenset((taken,) if isinstance(taken, str) else taken)
    return (kind, played, taken, value, frozenset(flags))


def _index_sets(values: tuple[int, ...], need: int, start: int = 0):
    """Index sets of ``values[start:]`` (all positive) whose values sum to ``need``."""
    if need == 0:
        yield ()
        return
    for i in range(start, len(values)):
        if values[i] <= need:
            for more in _index_sets(values, need - values[i], i + 1):
                yield (i,) + more


@lru_cache(maxsize=1 << 20)
def splits(values: tuple[int, ...], target: int, lone_ace: bool) -> bool:
    """True if the items (sorted in-set values) split into disjoint sets each worth ``target``.

    Plain recursion: the set holding the first item is either that item plus items of the rest
    summing with it to ``target``, or (``lone_ace``: an Ace may count 14, and the target is 14)
    a lone Ace, which is worth 14 only as a set on its own (C-deck). The empty collection
    splits trivially.
    """
    if not values:
        return True
    first, rest = values[0], values[1:]
    if lone_ace and target == 14 and first == 1 and splits(rest, target, lone_ace):
        return True
    for idx in _index_sets(rest, target - first):
        chosen = set(idx)
        if splits(tuple(v for i, v in enumerate(rest) if i not in chosen), target, lone_ace):
            return True
    return False


class Game:
    """What the oracle needs from a spec: values, switches, seats, hands, table."""

    def __init__(self, spec: dict) -> None:
        self.variant = variant = spec["variant"]
        rules = dict(spec.get("rules") or {})
        for name in PRESET_SWITCHES.get(variant, ()):
            rules.setdefault(name, True)
        self.on = {k: bool(v) for k, v in rules.items() if isinstance(v, bool)}
        self.classic = variant in CLASSIC
        self.hungarian = variant == "hungarian"
        self.nordic = variant in NORDIC
        self.ace14 = variant in ROYAL + ("swedish",) or (self.hungarian
                                                          and self.switch("ace_14"))
        self.max_value = {"finnish": 16, "swedish": 14}.get(variant,
                                                             14 if variant in ROYAL else 10)
        self.seat = spec["current"]
        self.hands = [list(h) for h in spec["hands"]]
        self.hand = self.hands[self.seat]
        table = spec.get("table", [])
        self.loose = [x for x in table if isinstance(x, str)]
        self.builds = [x for x in table if isinstance(x, dict)]
        self.players = spec.get("players", len(self.hands))
        self.partners = bool(spec.get("partnerships", variant == "dominican"
                                      and self.players == 4))
        self.pending_orange = spec.get("pending_orange")
        self.proven = spec.get("proven") or [[] for _ in self.hands]

    def switch(self, name: str) -> bool:
        return self.on.get(name, False)

    def value(self, card: str) -> int | None:
        """In-set value (C-deck): Ace 1; classic J/Q/K None (C-face)."""
        r = rank(card)
        return None if self.classic and r > 10 else r

    def hand_value(self, card: str) -> int | None:
        """What a card captures with when played (V-fin-values: Finnish A 14, 2S 15, 10D 16;
        elsewhere its in-set value)."""
        if self.variant != "finnish":
            return self.value(card)
        return 14 if rank(card) == 1 else FINNISH_FROM_HAND.get(card.upper(), rank(card))

    def values(self, cards) -> list:
        return [self.value(c) for c in cards]

    def is_multiple(self, b: dict) -> bool:
        if b.get("multiple") is not None:
            return bool(b["multiple"])
        return sum(self.value(c) or 0 for c in b["cards"]) != b["value"]

    def split(self, values: list, target: int) -> bool:
        """The items of ``values`` (``None``: a classic face card) split into sets of target."""
        if None in values:
            return False
        lone_ace = self.ace14 and target == 14
        if not lone_ace and sum(values) % target:
            return False  # a quick necessary condition: sets of target add up to a multiple
        return splits(tuple(sorted(values)), target, lone_ace)


def backs(cards: list[str], build_values: list[int]) -> bool:
    """C-build-keep: ``cards`` hold a distinct capturing card for every value listed (a
    14-build is captured by an Ace)."""
    need: dict[int, int] = {}
    for v in build_values:
        k = 1 if v == 14 else v
        need[k] = need.get(k, 0) + 1
    ranks = [rank(c) for c in cards]
    return all(ranks.count(r) >= n for r, n in need.items())


def reference_moves(spec: dict, *, build_keep: bool = True, prove_all: bool = False
                    ) -> set[tuple]:
    """Every legal move of seat ``spec["current"]``, found by brute force (see module doc).

    ``build_keep=False`` drops C-build-keep for the seat's existing builds (a new build still
    needs a card of its value besides the played one); ``prove_all=True`` treats every value
    as proven for partner (V-partner-build). Tests use them to tell which rule an illegal move
    breaks.
    """
    g = Game(spec)
    if g.hungarian:
        return _hungarian_moves(g)
    if g.nordic:
        return _nordic_moves(g)
    return _building_moves(g, build_keep, prove_all)


# -- Swedish and Finnish (V-nordic-play, V-fin-values) ---------------------------------------

def _nordic_moves(g: Game) -> set[tuple]:
    """V-nordic-play: every hand card trails; a card captures each non-empty set of loose cards
    that splits into groups worth its capture value (a Swedish Ace 1 or 14; a Finnish card its
    value from hand, the table cards their table values). No building."""
    moves: set[tuple] = set()
    table = [(c, g.value(c)) for c in g.loose]
    subsets = [combo for k in range(1, len(table) + 1) for combo in combinations(table, k)]
    for card in g.hand:
        moves.add(move("trail", card))
        v = g.hand_value(card)
        targets = (1, 14) if g.ace14 and v == 1 else (v,)
        for combo in subsets:
            if any(g.split([x for _, x in combo], t) for t in targets):
                moves.add(move("capture", card, [c for c, _ in combo]))
    return moves


# -- Hungarian (V-hun-play, V-hun-end) ------------------------------------------------------

def _hungarian_moves(g: Game) -> set[tuple]:
    """V-hun-play: a non-empty set of hand cards whose total t (Ulmann: which split into sets
    each totalling t; Kovacs: t <= 13; ace_14: a lone Ace counts 1 or 14) captures a non-empty
    collection of loose cards splitting into sets of t; or one card trails. V-hun-end: with
    ``claims`` a claim is always available. No building."""
    moves: set[tuple] = set()
    if g.switch("claims"):
        moves.add(move("claim", ()))
    for card in g.hand:
        moves.add(move("trail", card))
    table = [(c, g.value(c)) for c in g.loose]
    subsets = [combo for k in range(1, len(table) + 1) for combo in combinations(table, k)]
    for k in range(1, len(g.hand) + 1):
        for played in combinations(g.hand, k):
            vals = [g.value(c) for c in played]
            totals = {sum(vals)}
            if g.ace14 and vals == [1]:
                totals.add(14)
            if g.switch("ulmann"):
                totals.update(t for t in range(1, sum(vals) + 14) if g.split(vals, t))
            if g.switch("kovacs"):
                totals = {t for t in totals if t <= 13}
            for combo in subsets:
                if any(g.split([v for _, v in combo], t) for t in totals):
                    moves.add(move("capture", played, [c for c, _ in combo]))
    return moves


# -- presets with building -------------------------------------------------------------------

def _building_moves(g: Game, build_keep: bool, prove_all: bool) -> set[tuple]:
    """Trails, captures and builds (C-trail, C-capture, C-build*, section-3 switches,
    V-partner-build) of a preset with building, by brute force over table-item subsets."""
    seat = g.seat
    hand = g.hand
    loose, builds = g.loose, g.builds
    dom_trail, dom_build = g.switch("dom_trail"), g.switch("dom_build")
    as_card = g.switch("build_as_card")
    with_table = g.switch("raise_with_table")
    build_loose = g.switch("build_loose")
    items: list = [("loose", c) for c in loose] + [("build", i) for i in range(len(builds))]
    owned = [i for i, b in enumerate(builds) if b["owner"] == seat]
    owned_values = [builds[i]["value"] for i in owned]
    by_value = {b["value"]: i for i, b in enumerate(builds)}
    single = {i for i, b in enumerate(builds) if not g.is_multiple(b)}
    partner = (seat + 2) % 4 if g.partners and g.switch("partner_build") else None
    provable: set[int] = set()
    if partner is not None:
        provable = set(range(1, g.max_value + 1)) if prove_all else set(g.proven[partner])
        provable |= {b["value"] for b in builds if b["owner"] == partner}

    # Every non-empty subset of table items: loose cards, build indices, all cards taken.
    subsets = []
    for k in range(1, len(items) + 1):
        for combo in combinations(items, k):
            sl = [c for kind, c in combo if kind == "loose"]
            sb = frozenset(i for kind, i in combo if kind == "build")
            cards = set(sl)
            for i in sb:
                cards.update(builds[i]["cards"])
            subsets.append((sl, sb, frozenset(cards)))
    loose_values = {c: g.value(c) for c in loose}

    def card_values(sl: list, bs) -> list:
        """In-set values of loose cards plus builds counted as cards (V-build-as-card)."""
        return [loose_values[c] for c in sl] + [builds[i]["value"] for i in bs]

    def as_cards(bs) -> bool:
        """Builds that may stand as cards in a set: none, or single ones (V-build-as-card)."""
        return not bs or (as_card and bs <= single)

    # Per hand card: the rest of the hand, its value, and whether it may trail (C-trail,
    # C-owner-trail; V-owner-may-trail while every owned build stays backed; V-dom-trail).
    cards_info = []
    moves: set[tuple] = set()
    if g.pending_orange is not None and g.pending_orange == seat and g.switch("orange_calls"):
        moves.add(move("call", ()))
    for card in hand:
        rest_hand = list(hand)
        rest_hand.remove(card)
        r = rank(card)
        same_rank = [c for c in loose if rank(c) == r]
        may_trail = (not owned or g.switch("owner_may_trail")) and not (dom_trail and same_rank)
        if may_trail and (not build_keep or backs(rest_hand, owned_values)):
            moves.add(move("trail", card))
        cards_info.append((card, rest_hand, r, g.value(card), same_rank, may_trail))

    for sl, sb, taken in subsets:
        def vals_of(bs: frozenset, sl: list = sl, memo: dict = {}) -> tuple:  # noqa: B006
            """(values, their sum or None) of the loose cards plus builds ``bs`` as cards."""
            got = memo.get(bs)
            if got is None:
                vals = card_values(sl, bs)
                got = memo[bs] = (vals, None if None in vals else sum(vals))
            return got

        # Owned builds not taken stay on the table and must stay backed (C-build-keep).
        kept = [builds[i]["value"] for i in owned if i not in sb] if build_keep else []
        p_kept = [b["value"] for i, b in enumerate(builds) if b["owner"] == partner
                  and i not in sb]

        # -- captures (C-capture, C-face, C-build-keep, V-dom-trail, V-build-as-card) --
        for card, rest_hand, r, cv, same_rank, _ in cards_info:
            if not backs(rest_hand, kept):
                continue
            if cv is None:
                # C-face: exactly one loose card of the same rank, nothing else.
                if not sb and len(sl) == 1 and rank(sl[0]) == r:
                    _add_capture(g, moves, card, taken)
                continue
            if dom_trail and any(c not in sl for c in same_rank):
                continue  # V-dom-trail: a capture takes every loose card of the card's value
            for v in ((1, 14) if g.ace14 and r == 1 else (cv,)):
                # Builds of value v are taken whole (a set each); other builds only as cards.
                whole = frozenset(i for i in sb if builds[i]["value"] == v)
                cardlike = sb - whole
                if as_cards(cardlike) and g.split(card_values(sl, cardlike) + [v] * len(whole),
                                                  v):
                    _add_capture(g, moves, card, taken)
                    break

        # -- builds of value V (C-build*, C-one-per-value, C-build-keep, V-dom-build,
        #    V-partner-build, V-raise-with-table, V-build-as-card) and V-build-loose --
        for V in range(1, g.max_value + 1):
            vb = by_value.get(V)
            if vb is not None and vb not in sb:
                continue  # C-one-per-value: a set of V joins the V-build
            if dom_build and any(builds[i]["owner"] == seat and i in single
                                 and builds[i]["value"] != V for i in sb):
                continue  # V-dom-build: no changing the value of one's own single build
            rest = sb - {vb}
            lone = g.ace14 and V == 14  # sums say nothing when Aces may count 14
            # Make or extend: the played card in a set of V, the other items in sets of V;
            # a new build needs a table item besides the played card.
            make, msum = vals_of(rest) if as_cards(rest) and (vb is not None or sl or rest) \
                else (None, None)
            # Raise one single build b by the played card (and, V-raise-with-table, loose items
            # in the same set); further items in sets of V.
            raises = [(builds[b]["value"],) + vals_of(rest - {b}) for b in rest
                      if b in single and as_cards(rest - {b})]
            raises = [(bv, vals, vs) for bv, vals, vs in raises if vs is not None]
            for card, rest_hand, _, cv, _, _ in cards_info:
                if cv is None:
                    continue  # C-face: J Q K never join a build
                if not ((msum is not None and (lone or (msum + cv) % V == 0)
                         and g.split(make + [cv], V))
                        or any((bv + cv == V and g.split(vals, V))
                               or (with_table and bv + cv < V and (lone or (vs + bv + cv) % V == 0)
                                   and g.split(vals + [bv + cv], V))
                               for bv, vals, vs in raises)):
                    continue
                if backs(rest_hand, kept + [V]):
                    moves.add(move("build", card, taken, V))
                if V in provable and backs(rest_hand, kept) and backs(g.hands[partner],
                                                                      p_kept + [V]):
                    moves.add(move("build", card, taken, V, FOR_PARTNER))
            # V-build-loose: a trail that also makes or extends a build of table items alone.
            if build_loose and _loose_build(g, sl, sb, V, by_value, single):
                for card, rest_hand, _, _, _, may_trail in cards_info:
                    if may_trail and backs(rest_hand, kept + [V]):
                        moves.add(move("trail", card, taken, V))
    return moves


def _loose_build(g: Game, sl: list, sb: frozenset, V: int, by_value: dict, single: set) -> bool:
    """V-build-loose: table items alone make a new build of V (two table cards or more,
    splitting into sets of V) or extend the V-build (adding at least one set of V). Single
    builds join sets only as cards (V-build-as-card); table cards never raise a build."""
    vb = by_value.get(V)
    if vb is not None and vb not in sb:
        return False
    rest = sb - {vb}
    if rest and not (g.switch("build_as_card") and rest <= single):
        return False
    if not sl and not rest:
        return False  # nothing made or added
    if vb is None and len(sl) + sum(len(g.builds[i]["cards"]) for i in rest) < 2:
        return False
    return g.split([g.value(c) for c in sl] + [g.builds[i]["value"] for i in rest], V)


def _add_capture(g: Game, moves: set, card: str, taken: frozenset) -> None:
    moves.add(move("capture", card, taken))
    if g.switch("orange_calls"):  # V-tux-score: every capture may call orange
        moves.add(move("capture", card, taken, None, ORANGE))
