"""A brute-force reference oracle for legal moves, written straight from RULES.md.

It shares no code with the engine: it reads a state spec (``State.to_spec()``), enumerates
every subset of table items (loose cards one by one, builds as whole units), every build
value, and checks each candidate against the rules directly. It is slow on purpose: every
check is the literal rule, so it can be trusted to judge the engine's fast generator.

A move is ``(kind, played_card, frozenset(taken_cards), value)``: ``value`` is the build's
value for a build and ``None`` for a capture or a trail (C-move: a capture is its played card
and the cards it takes; different groupings or Ace readings are one move).

Rules implemented: C-deck (values; a Royal Ace is 14 only as a set on its own), C-turn,
C-capture, C-face, C-build (a card from hand besides the played one; at least one table card
unless joining an existing build of that value), C-build-raise, C-build-extend, C-build-keep
(one card per owned build, so a Royal 1-build and 14-build need two Aces), C-owner-trail,
C-one-per-value (merging), C-trail, V-dom-trail, V-dom-build. V-partner-build (moves "for
partner") is not modelled: ``reference_moves`` refuses specs with ``partner_build`` on.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

RANKS = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10,
         "J": 11, "Q": 12, "K": 13}
ROYAL_VARIANTS = ("royal", "dominican")


def rank(card: str) -> int:
    """Rank of a card string: A=1 ... 10=10, J=11, Q=12, K=13 (suit is the last letter)."""
    return RANKS[card[:-1].upper()]


def set_value(card: str, royal: bool) -> int | None:
    """Value of a card inside a set of several cards (C-deck): Ace 1; classic J/Q/K None."""
    r = rank(card)
    if not royal and r > 10:
        return None  # C-face: classic J, Q, K have no numeric value
    return r


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
def splits(values: tuple[int, ...], target: int, royal: bool) -> bool:
    """True if the cards (sorted in-set values) split into disjoint sets each worth ``target``.

    Plain recursion: the set holding the first card is either that card plus cards of the
    rest summing with it to ``target``, or (Royal, target 14) a lone Ace, which is worth 14 only
    as a set on its own (C-deck). The empty collection splits trivially.
    """
    if not values:
        return True
    first, rest = values[0], values[1:]
    if royal and target == 14 and first == 1 and splits(rest, target, royal):
        return True
    for idx in _index_sets(rest, target - first):
        chosen = set(idx)
        if splits(tuple(v for i, v in enumerate(rest) if i not in chosen), target, royal):
            return True
    return False


def _split(values: tuple[int, ...] | None, target: int, royal: bool) -> bool:
    """``splits`` for loose cards; ``None`` (a classic J/Q/K among them) never splits."""
    return values is not None and splits(values, target, royal)


def backing_rank(value: int) -> int:
    """The rank that captures a build of ``value`` (a 14-build is taken by an Ace)."""
    return 1 if value == 14 else value


def backs(cards: list[str], build_values: list[int]) -> bool:
    """C-build-keep: ``cards`` hold a distinct capturing card for every value listed."""
    need: dict[int, int] = {}
    for v in build_values:
        need[backing_rank(v)] = need.get(backing_rank(v), 0) + 1
    ranks = [rank(c) for c in cards]
    return all(ranks.count(r) >= n for r, n in need.items())


def reference_moves(spec: dict, *, build_keep: bool = True) -> set[tuple]:
    """Every legal move of seat ``spec["current"]``, found by brute force (see module doc).

    ``build_keep=False`` drops C-build-keep for the seat's other builds (a new build still
    needs a card of its value besides the played one): tests use it to tell which rule an
    illegal move breaks.
    """
    rules = spec.get("rules") or {}
    if rules.get("partner_build"):
        raise NotImplementedError("V-partner-build is not modelled by the reference")
    royal = spec["variant"] in ROYAL_VARIANTS
    max_value = 14 if royal else 10
    dom_trail = bool(rules.get("dom_trail", spec["variant"] == "dominican"))
    dom_build = bool(rules.get("dom_build", spec["variant"] == "dominican"))
    seat = spec["current"]
    hand = list(spec["hands"][seat])
    table = spec.get("table", [])
    loose = [x for x in table if isinstance(x, str)]
    builds = [x for x in table if isinstance(x, dict)]
    items: list = [("loose", c) for c in loose] + [("build", i) for i in range(len(builds))]
    owned = [i for i, b in enumerate(builds) if b["owner"] == seat]
    by_value = {b["value"]: i for i, b in enumerate(builds)}

    # Every non-empty subset of table items: loose cards, their sorted in-set values (None if
    # one has no value), build indices, all cards taken.
    subsets = []
    for k in range(1, len(items) + 1):
        for combo in combinations(items, k):
            sl = [c for kind, c in combo if kind == "loose"]
            sb = frozenset(i for kind, i in combo if kind == "build")
            cards = set(sl)
            for i in sb:
                cards.update(builds[i]["cards"])
            vals = [set_value(c, royal) for c in sl]
            sv = None if None in vals else tuple(sorted(vals))  # type: ignore[type-var]
            subsets.append((sl, sv, sb, frozenset(cards)))

    moves: set[tuple] = set()
    for card in hand:
        rest = list(hand)
        rest.remove(card)
        r = rank(card)
        same_rank = [c for c in loose if rank(c) == r]
        cv = set_value(card, royal)

        # C-trail, C-owner-trail, V-dom-trail.
        if not owned and not (dom_trail and same_rank):
            moves.add(("trail", card, frozenset(), None))

        for sl, sv, sb, taken in subsets:
            # Owned builds not in this subset stay on the table and must stay backed.
            kept = [builds[i]["value"] for i in owned if i not in sb] if build_keep else []
            # -- captures (C-capture, C-face, C-build-keep, V-dom-trail) --
            if cv is None:
                # C-face: exactly one loose card of the same rank, nothing else.
                if not sb and len(sl) == 1 and rank(sl[0]) == r and backs(rest, kept):
                    moves.add(("capture", card, taken, None))
                continue  # C-face: J Q K never join a build
            for v in ((1, 14) if royal and r == 1 else (cv,)):
                if (all(builds[i]["value"] == v for i in sb)
                        and _split(sv, v, royal)
                        and not (dom_trail and any(c not in sl for c in same_rank))
                        and backs(rest, kept)):
                    moves.add(("capture", card, taken, None))
            # -- builds (C-build, C-build-raise, C-build-extend, C-one-per-value,
            #    C-build-keep, V-dom-build) --
            with_card = None if sv is None else tuple(sorted(sv + (cv,)))
            for V in range(1, max_value + 1):
                vb = by_value.get(V)
                # A card of V held besides the played one, and every other owned build backed.
                backed = None
                # Make or extend: played card + loose cards form sets of V; an existing V-build
                # must be absorbed (C-one-per-value); no other build takes part; a new build
                # needs a table card besides the played card.
                if (sb == (frozenset({vb}) if vb is not None else frozenset())
                        and (vb is not None or sl)
                        and _split(with_card, V, royal)):
                    backed = backs(rest, kept + [V])
                    if backed:
                        moves.add(("build", card, taken, V))
                # Raise one single build by the played card alone; loose cards only as extra
                # sets of V; the V-build, if any, merges.
                raised = [i for i in sb if i != vb]
                if len(raised) == 1 and (vb is None or vb in sb):
                    b = builds[raised[0]]
                    if (not _is_multiple(b, royal) and b["value"] + cv == V
                            and not (dom_build and b["owner"] == seat)
                            and _split(sv, V, royal)
                            and (backed if backed is not None else backs(rest, kept + [V]))):
                        moves.add(("build", card, taken, V))
    return moves


def _is_multiple(build: dict, royal: bool) -> bool:
    """A build's ``multiple`` flag, inferred when the spec omits it (cards not summing to it)."""
    if build.get("multiple") is not None:
        return bool(build["multiple"])
    return sum(set_value(c, royal) or 0 for c in build["cards"]) != build["value"]
