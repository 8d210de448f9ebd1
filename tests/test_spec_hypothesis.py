"""Property tests on randomly generated state specs (not reached through ``new_game``).

A hypothesis strategy (``specs``) writes valid JSON specs directly, for every preset (casino,
royal, dominican, hungarian, tuxedo, spade, wippen, swedish, finnish, swazi, krypkasino), 2-4
players (2-6 in Tuxedo and krypkasino), partners when four play (or six in krypkasino,
V-kryp-seats), a random set of rule switches, and a random moment of a
hand: the stock left after some deal of the preset's schedule (C-deal, V-tux-deal), hands
sized as the round has been played so far (the seat to move holds cards; or every hand empty
between deals / at the end of a hand, which ``from_spec`` settles), loose cards, builds that
the rules allow (C-build: single builds whose cards sum to the value, multiple builds of
several sets of the value;
C-one-per-value; C-build-keep: the owner holds a distinct capturing card; C-face), piles,
sweeps (V-cancel), scores, last capturer, dealer, seed, and where the rules have them
``met`` (V-dom-end), ``proven`` (V-partner-build), ``events`` and ``pending_orange``
(V-tux-score), and krypkasino's tabbe events (V-kryp-score). A krypkasino spec names every
card twice, once per copy (V-kryp-values), and its scores may be below 0 (tabbe credits).

Properties: the spec round-trips (``from_spec``/``to_spec``, and through JSON); along random
legal moves from it (through deals and hand ends) every card of the deck is in exactly one
place (C-deck), builds stay valid (C-build, C-build-keep, C-one-per-value), ``apply_move``
never mutates its input and every state round-trips; ``legal_moves`` lists each outcome once
(C-move) and each applies; a card not in hand is refused with IllegalMoveError (C-turn), as
is a plain trail by a build's owner (C-owner-trail) or of a card matching a loose card
(V-dom-trail) or in krypkasino by a card that can capture (V-kryp-play). Krypkasino also:
every card twice (never three times), and the copies canonical: specs or states that differ
only in which copy lies where are one state with one spec (docs/rules.md "Two decks").

A game won during play (V-earned, V-hun-end), also by a capture with the mover's last card,
round-trips too (regression tests at the end: this generator found that bug).
``CASINO_SLOW=1`` runs twenty times as many examples.
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from rules_helpers import mover
from test_properties import check_state  # the random-game checker (52 cards; casino/royal)

from casino_env.engine import IllegalMoveError, Move, State, apply_move, legal_moves
from casino_env.engine.rules import PRESETS, make_rules
from casino_env.engine.scoring import certain, criteria, earned, restricted
from casino_env.engine.state import renumber

VARIANTS = ("casino", "royal", "dominican", "hungarian", "tuxedo", "spade", "wippen", "swedish",
            "finnish", "swazi", "krypkasino")
BUILDING = ("dom_trail", "dom_build", "build_loose", "owner_may_trail", "raise_with_table",
            "build_as_card")
DOM_END = ("dom_end", "soto", "twenty_by_two_spades", "restricted_no_sweeps")
# Rule switches the generator may flip away from the preset's default.
CANDIDATES = {
    "casino": ("sweeps", "cancel", "last_capture", "earned") + BUILDING + DOM_END,
    "royal": ("sweeps", "cancel", "last_capture", "earned") + BUILDING + DOM_END,
    "dominican": ("sweeps", "cancel", "last_capture") + BUILDING + DOM_END,
    "hungarian": ("sweeps", "earned", "ace_14", "ulmann", "kovacs", "claims", "nagy"),
    "tuxedo": ("earned", "orange_calls") + BUILDING,
    "spade": ("sweeps", "last_capture", "earned") + BUILDING,
    "wippen": ("sweeps", "earned") + BUILDING,
    "swedish": ("sweeps", "earned"),
    "finnish": ("sweeps", "cancel", "earned"),
    "swazi": ("dom_build", "countout"),
    "krypkasino": (),  # its switches are `target` and `points` (KRYP_POINTS)
}
# A lower target (not 11: V-target difference scoring).
TARGETS = {"casino": 9, "royal": 9, "dominican": 9, "hungarian": 6, "tuxedo": 40,
           "spade": 25, "wippen": 9, "swedish": 8, "finnish": 8, "swazi": 9,
           "krypkasino": 30}
# V-points tables the generator may give krypkasino (V-kryp-score's items).
KRYP_POINTS = ({"sweep": 3}, {"big_casino": 5, "aces": 2}, {"spades": 0})
KRYP_SCORE_LOW = -30  # krypkasino's penalty totals go below 0 through tabbe credits
FINNISH_SWEEP_LIMIT = 10  # V-fin-score: no sweeps in a hand begun with a side on 10 or more
TABLE_SIZE = 4  # C-deal: four cards face up on the first deal of a hand
MAX_LOOSE = 10  # loose cards on a generated table (keeps legal-move generation quick)

# CASINO_SLOW=1 (as for tests/test_properties.py) runs twenty times as many examples.
SCALE = 20 if os.environ.get("CASINO_SLOW", "").strip() not in ("", "0") else 1
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])


# -- card values, written from RULES.md (independent of the engine's tables) -----------------

def value_kind(variant: str) -> str:
    if variant in ("casino", "spade", "wippen"):
        return "classic"
    if variant == "tuxedo":
        return "rook"
    # (V-fin-values: Finnish cards count on the table as Royal ones do, an Ace only 1)
    return variant if variant in ("hungarian", "finnish") else "royal"


def card_value(kind: str, name: str) -> int | None:
    """A card's value inside a set (an Ace is 1); None for a classic J, Q or K (C-face)."""
    rank = name[:-1]
    if kind == "rook":
        return int(rank)
    if rank == "A":
        return 1
    if rank in ("J", "Q", "K"):
        return None if kind == "classic" else {"J": 11, "Q": 12, "K": 13}[rank]
    return int(rank)


def lone_ace(rules) -> bool:
    """True where an Ace alone may count 14 (C-deck Royal values; Hungarian ``ace_14``)."""
    return value_kind(rules.variant) == "royal" or (rules.variant == "hungarian"
                                                    and rules.ace_14)


def capture_class(kind: str, value: int) -> int:
    """The set value of the cards that capture a build of ``value`` (a 14 is an Ace: 1)."""
    return 1 if value == 14 and kind == "royal" else value


def splits_into(values: list[int], v: int, ace14: bool) -> bool:
    """True if ``values`` split into disjoint groups each summing to ``v`` (a lone Ace may be a
    group of 14 when ``ace14``)."""
    if not values:
        return True
    first, rest = values[0], values[1:]
    if ace14 and v == 14 and first == 1 and splits_into(rest, v, ace14):
        return True

    def pick(start: int, total: int, used: list[int]) -> bool:
        if total == v:
            left = [x for i, x in enumerate(rest) if i not in used]
            return splits_into(left, v, ace14)
        for i in range(start, len(rest)):
            if total + rest[i] <= v and pick(i + 1, total + rest[i], used + [i]):
                return True
        return False

    return pick(0, first, [])


# -- the generator ------------------------------------------------------------------------------

def deal_schedule(size: int, players: int, hand_size: int,
                  leftover_to_table: bool = False) -> list[tuple[int, int]]:
    """(cards to each player, cards to the table) of every deal of a hand (C-deal, V-tux-deal:
    the last deal of an uneven stock gives equal shares and the remainder to the table;
    V-kryp-play with ``leftover_to_table``: fewer cards left than players join the table with
    the deal before, as six players' last 4 of 104)."""
    out = []
    left = size
    first = True
    while left:
        extra = TABLE_SIZE if first else 0
        per = hand_size if left >= hand_size * players + extra else (left - extra) // players
        to_table = extra if first else (left - per * players if per < hand_size else 0)
        if leftover_to_table and 0 < left - per * players - to_table < players:
            to_table = left - per * players
        out.append((per, to_table))
        left -= per * players + to_table
        first = False
    return out


def preset_default(variant: str, name: str):
    return make_rules(variant, PRESETS[variant].players[0]).switches()[name]


@st.composite
def switch_sets(draw, variant: str, partnerships: bool) -> dict:
    """A consistent dict of rule switches for ``variant`` (flipped from the defaults)."""
    pool = list(CANDIDATES[variant])
    if partnerships and "partner_build" in PRESETS[variant].switches:
        pool.append("partner_build")
    flips = draw(st.sets(st.sampled_from(pool), max_size=3)) if pool else set()
    sw = {name: not preset_default(variant, name) for name in flips}
    on = {**{k: preset_default(variant, k) for k in ("sweeps", "cancel", "dom_end", "earned")
             if k in CANDIDATES[variant]}, **sw}
    if any(sw.get(k) for k in DOM_END[1:]) and not on.get("dom_end"):
        sw["dom_end"] = on["dom_end"] = True
    if on.get("dom_end") and on.get("earned"):
        sw["earned"] = on["earned"] = False
    if on.get("dom_end") and sw.get("last_capture"):
        del sw["last_capture"]  # refused together (docs/rules.md)
    if on.get("cancel") and not on.get("sweeps"):
        if "sweeps" in sw:  # sweeps was switched off: cancelling goes with it
            sw["cancel"] = False
        else:
            sw["sweeps"] = True
    if variant == "hungarian":
        if sw.get("claims") and (sw.get("ulmann") or not on.get("earned")):
            del sw["claims"]
        if sw.get("earned") is False and "claims" in sw:
            del sw["claims"]
    if draw(st.booleans()):
        sw["target"] = TARGETS[variant]
    if variant == "krypkasino" and draw(st.integers(0, 3)) == 0:
        sw["points"] = dict(draw(st.sampled_from(KRYP_POINTS)))
    return sw


def _find_group(pool: list[tuple[int, int]], used: set[int], target: int, min_size: int,
                ace14: bool, start: int, budget: list[int]) -> list[int] | None:
    """Positions in ``pool`` (card id, value) of a set of unused cards summing to ``target``
    (a lone Ace counts 14 when ``ace14``), searched from position ``start`` on."""
    n = len(pool)
    order = [(start + k) % n for k in range(n)]
    order = [i for i in order if i not in used]
    if ace14 and target == 14 and min_size <= 1:
        for i in order:
            if pool[i][1] == 1:
                return [i]

    def dfs(k: int, total: int, chosen: list[int]) -> list[int] | None:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        for j in range(k, len(order)):
            i = order[j]
            t = total + pool[i][1]
            if t == target and len(chosen) + 1 >= min_size:
                return chosen + [i]
            if t < target:
                found = dfs(j + 1, t, chosen + [i])
                if found is not None:
                    return found
        return None

    return dfs(0, 0, [])


@st.composite
def specs(draw, variants: tuple[str, ...] = VARIANTS) -> dict:
    """A valid JSON spec of a random moment of a random game (see the module docstring)."""
    variant = draw(st.sampled_from(variants))
    preset = PRESETS[variant]
    players = draw(st.sampled_from(preset.players))
    # partners when four play (V-kryp-seats: or six in krypkasino)
    partnerships = players in preset.teams and variant != "hungarian" and draw(st.booleans())
    switches = draw(switch_sets(variant, partnerships))
    rules = make_rules(variant, players, partnerships, switches)
    kind = value_kind(variant)
    deck = rules.deck
    names = deck.names
    n, sides = players, rules.sides
    side_of = rules.side
    order = draw(st.permutations(range(deck.size)))
    schedule = deal_schedule(deck.size, n, rules.hand_size, variant == "krypkasino")
    dealer = draw(st.integers(0, n - 1))
    leader = (dealer + 1) % n
    seed = draw(st.integers(0, 2**63 - 1))
    spec: dict = {"variant": variant, "players": players, "partnerships": partnerships,
                  "dealer": dealer, "seed": seed}
    if switches:
        spec["rules"] = switches
    target = rules.target
    low_score = KRYP_SCORE_LOW if rules.penalties else 0

    # The hand not dealt yet (every card in the stock) now and then; else after some deal.
    stage = -1 if draw(st.integers(0, 15)) == 5 else draw(st.integers(0, len(schedule) - 1))
    if stage < 0:
        spec.update(hands=[[] for _ in range(n)], stock=[names[i] for i in order],
                    current=draw(st.integers(0, n - 1)),
                    scores=[draw(st.integers(low_score, target - 1)) for _ in range(sides)])
        return spec

    dealt = schedule[:stage + 1]
    stock_size = deck.size - sum(per * n + tt for per, tt in dealt)
    per = schedule[stage][0]
    # Rounds of play done in this deal; now and then all of them (every hand empty).
    tricks = per if draw(st.integers(0, 7)) == 3 else draw(st.integers(0, per - 1))
    current = draw(st.integers(0, n - 1))
    if tricks == per:
        sizes = [0] * n
    else:
        before = (current - leader) % n  # seats after the leader and before ``current`` played
        sizes = [per - tricks - (1 if (s - leader) % n < before else 0) for s in range(n)]
    played = sum(p * n for p, _ in dealt) - sum(sizes)  # cards played this hand
    pos = stock_size
    stock = list(order[:pos])
    hands = []
    for s in range(n):
        hands.append(list(order[pos:pos + sizes[s]]))
        pos += sizes[s]
    rest = list(order[pos:])  # table and piles

    # Builds (C-build, C-one-per-value, C-build-keep, C-face): an owner holding a spare card
    # of the value; one or more sets of table cards each making the value.
    builds = []
    if rules.building and played:
        count = min(played, draw(st.sampled_from((0, 1, 1, 2, 2, 3))))
        pool = [(c, card_value(kind, names[c])) for c in rest[:16]]
        pool = [(c, v) for c, v in pool if v is not None]
        used: set[int] = set()
        backing = {s: set() for s in range(n)}  # hand cards already backing a build
        values_used: set[int] = set()
        for _ in range(3 * count):  # a few tries: an attempt may find no sets of its value
            if len(builds) == count:
                break
            options = [(s, c) for s in range(n) for c in hands[s]
                       if c not in backing[s] and card_value(kind, names[c]) is not None]
            if not options or not pool:
                break
            owner, card = draw(st.sampled_from(options))
            cv = card_value(kind, names[card])
            vals = [cv] + ([14] if cv == 1 and kind == "royal" else [])
            vals = [v for v in vals if v not in values_used]
            if not vals:
                continue
            value = draw(st.sampled_from(vals))
            want = draw(st.integers(1, 3))
            budget = [3000]
            sets_: list[list[int]] = []
            for _ in range(want):
                g = _find_group(pool, used | {i for s_ in sets_ for i in s_}, value,
                                2 if want == 1 else 1, kind == "royal",
                                draw(st.integers(0, len(pool) - 1)), budget)
                if g is None:
                    break
                sets_.append(g)
            cards = [pool[i][0] for g in sets_ for i in g]
            if len(cards) < 2:
                continue
            total = sum(card_value(kind, names[c]) for c in cards)
            multiple = len(sets_) > 1 and total != value
            if not multiple and total != value:
                continue
            used.update(i for g in sets_ for i in g)
            backing[owner].add(card)
            values_used.add(value)
            builds.append({"cards": [names[c] for c in cards], "value": value, "owner": owner,
                           "multiple": multiple})
        taken = {pool[i][0] for i in used}
        rest = [c for c in rest if c not in taken]

    # Loose cards and piles: nothing is captured before the first card is played.
    if played:
        n_loose = draw(st.integers(0, min(len(rest), MAX_LOOSE)))
    else:
        n_loose = len(rest)
    loose, piled = rest[:n_loose], rest[n_loose:]
    piles: list[list[int]] = [[] for _ in range(sides)]
    for side in range(sides - 1):
        k = draw(st.integers(0, len(piled)))
        piles[side], piled = piled[:k], piled[k:]
    piles[sides - 1] = piled

    capturers = [s for s in range(n) if piles[side_of(s)]]
    last_capturer = draw(st.sampled_from(capturers)) if capturers else None
    sweeps = [0] * sides
    if rules.sweeps:
        sweeps = [draw(st.integers(0, 2)) if piles[side] else 0 for side in range(sides)]
        if rules.cancel and all(sweeps):  # V-cancel
            low = min(sweeps)
            sweeps = [k - low for k in sweeps]
    scores = [draw(st.integers(low_score, target - 1)) for _ in range(sides)]
    if rules.restricted_no_sweeps:
        for side in restricted(rules, tuple(scores)):
            sweeps[side] = 0
    if variant == "finnish" and max(scores) >= FINNISH_SWEEP_LIMIT:
        sweeps = [0] * sides  # V-fin-score: none recorded in such a hand
    events = []
    if rules.scoring == "tuxedo":  # V-tux-score: sweeps and oranges score during play
        for side in range(sides):
            events += [[side, "sweep", draw(st.sampled_from((5, 10)))] for _ in range(sweeps[side])]
            pile = {names[c][-1] for c in piles[side]}
            if {"R", "Y"} <= pile and not rules.orange_calls and draw(st.booleans()):
                events.append([side, "orange", 10])
    if rules.penalties:  # V-kryp-score: each sweep an event, the seat before credited
        events = kryp_events(draw, rules, sweeps, bool(played))
    piles_m = tuple(sum(1 << c for c in p) for p in piles)
    uncaptured = [c for c in range(deck.size) if not any(p >> c & 1 for p in piles_m)]
    if rules.earned_wins:  # V-earned: a side already at the target would have won
        left = (len(uncaptured), sum(1 for c in uncaptured if names[c][-1] == "S"))
        points = earned(rules, piles_m, tuple(sweeps), tuple(tuple(e) for e in events), left)
        scores = [max(0, min(s, target - 1 - p)) for s, p in zip(scores, points)]

    spec.update(current=current, hands=[[names[c] for c in h] for h in hands],
                table=[names[c] for c in loose] + builds, stock=[names[c] for c in stock],
                piles=[[names[c] for c in p] for p in piles], sweeps=sweeps, scores=scores,
                last_capturer=last_capturer)
    if events:
        spec["events"] = events
    hand_no = draw(st.integers(0, 3))
    if hand_no:
        spec["hand"] = hand_no
        spec["hand_points"] = [draw(st.integers(min(s, 0), max(s, 0))) for s in scores]
    if rules.dom_end:  # V-dom-end: restricted sides whose criterion is already certain
        limits = restricted(rules, tuple(scores))
        met = [s for s, short in limits.items()
               if all(certain(rules, item, s, piles_m, deck.size, 13)
                      for item in criteria(rules, short))]
        spec["met"] = draw(st.permutations(met))
    if rules.partner_build:  # V-partner-build: values public play proves a seat holds
        proven = []
        for s in range(n):
            vals = [card_value(kind, names[c]) for c in hands[s]]
            held = sorted({v for v in vals if v is not None}
                          | ({14} if kind == "royal" and 1 in vals else set()))
            proven.append([v for v in held if draw(st.booleans())])
        spec["proven"] = [sorted(p) for p in proven]
    if (rules.orange_calls and any(sizes) and last_capturer is not None
            and last_capturer != current and draw(st.booleans())):
        spec["pending_orange"] = current
    return spec


def kryp_events(draw, rules, sweeps: list[int], played: bool) -> list[list]:
    """V-kryp-score: the events of a hand's ``sweeps``: each a tabbe (the ``sweep`` points) or
    a dubbeltabbe (twice that) for the side, and the same negated for the side of the seat
    before one of its seats (none for a sweep by the hand's first move)."""
    pts = rules.item_points.sweep
    n = rules.players
    out: list[list] = []
    for side in range(rules.sides):
        for _ in range(sweeps[side]):
            item, k = draw(st.sampled_from((("tabbe", 1), ("dubbeltabbe", 2))))
            out.append([side, item, k * pts])
            seat = draw(st.sampled_from([s for s in range(n) if rules.side(s) == side]))
            if played and draw(st.integers(0, 7)):
                out.append([rules.side((seat - 1) % n), item + " credit", -k * pts])
    return out


# -- checks -------------------------------------------------------------------------------------

def check_invariants(s: State) -> None:
    """C-deck (every card in exactly one place), C-build, C-one-per-value, C-build-keep,
    C-face, whose turn it is, sweeps (C-sweep, V-cancel)."""
    r = s.rules
    deck = r.deck
    kind = value_kind(r.variant)
    parts = [("hand", h) for h in s.hand_masks] + [("loose", s.loose_mask)]
    parts += [("build", b.cards) for b in s.builds] + [("pile", p) for p in s.pile_masks]
    stock = 0
    for cid in s.stock_ids:
        assert not stock >> cid & 1, f"{deck.names[cid]} twice in the stock"
        stock |= 1 << cid
    parts.append(("stock", stock))
    union = 0
    for where, m in parts:
        assert not union & m, f"C-deck: {deck.strs(union & m)} in two places (one: {where})"
        union |= m
    assert union == deck.full, f"C-deck: cards missing: {deck.strs(deck.full & ~union)}"
    if r.variant == "swazi":  # V-swazi-steal: the ordered piles hold each pile's cards once
        for side, pile in enumerate(s.piles):
            assert len(set(pile)) == len(pile) and deck.mask(pile) == s.pile_masks[side]
    if deck.copies > 1:  # V-kryp-values: every card twice, the copies numbered canonically
        assert deck.size == 104 and r.variant == "krypkasino"
        names = [c for h in s.hands for c in h] + s.loose + s.stock
        names += [c for p in s.piles for c in p]
        assert Counter(names) == Counter({c: 2 for c in deck.names}), "a card not twice"
        same = s._copy()
        renumber(same)
        assert same == s, "V-kryp-values: the copies are not numbered canonically"
        # V-kryp-score: one tabbe or dubbeltabbe event per sweep of the hand
        swept = Counter(e[0] for e in s.events if e[1] in ("tabbe", "dubbeltabbe"))
        assert [swept[side] for side in range(r.sides)] == list(s.sweeps), s.events

    values = [b.value for b in s.builds]
    assert len(values) == len(set(values)), f"C-one-per-value: two builds of one value {values}"
    need: dict[tuple[int, int], int] = {}
    for b in s.builds:
        cards = deck.strs(b.cards)
        assert r.building
        assert len(cards) >= 2, f"C-build: a build of one card {cards}"
        assert 1 <= b.value <= (10 if kind in ("classic", "rook") else 14)
        vals = [card_value(kind, c) for c in cards]
        assert None not in vals, f"C-face: a face card in a classic build {cards}"
        if b.multiple:
            assert sum(vals) != b.value and splits_into(sorted(vals), b.value,
                                                        kind == "royal"), (cards, b.value)
        else:
            assert sum(vals) == b.value, (cards, b.value)
        key = (b.owner, capture_class(kind, b.value))
        need[key] = need.get(key, 0) + 1
    for (owner, v), k in need.items():
        held = [c for c in s.hand(owner) if card_value(kind, c) == v]
        assert len(held) >= k, (f"C-build-keep: seat {owner} owns {k} build(s) taken by a {v} "
                                f"but holds {s.hand(owner)}")

    if s.game_over and r.penalties:  # V-kryp-end: the unique lowest total, a side at target
        assert s.winner is not None and max(s.scores) >= r.target
        assert list(s.scores).count(min(s.scores)) == 1 and s.scores[s.winner] == min(s.scores)
        assert legal_moves(s) == []
    elif s.game_over:
        assert s.winner is not None and 0 <= s.winner < r.sides
        # C-game; a false claim loses (V-hun-end); a restricted side meeting its criterion
        # wins at once (V-dom-end), short of the target if its items are worth less (e.g.
        # most cards 2 under V-last-capture).
        assert s.scores[s.winner] >= r.target or r.claims or r.dom_end
        assert legal_moves(s) == []
    else:
        assert s.winner is None
        assert s.hand_masks[s.current], "the seat to move holds no cards"
    if not r.sweeps:
        assert not any(s.sweeps)
    if r.cancel:
        assert not all(s.sweeps), f"V-cancel: {list(s.sweeps)}"
    if r.variant in ("casino", "royal", "dominican") and not r.earned and not (
            s.game_over and r.dom_end):  # (check_state expects the winner at the target)
        check_state(s)  # the same invariants as written for the seeded random games


def round_trip(s: State) -> dict:
    """from_spec(to_spec(s)) == s, to_spec is stable, and so is the JSON text."""
    spec = s.to_spec()
    back = State.from_spec(spec)
    assert back == s
    assert back.to_spec() == spec
    text = json.dumps(spec)
    again = State.from_spec(json.loads(text))
    assert again == s
    assert json.dumps(again.to_spec()) == text
    return spec


def normalise(spec: dict) -> dict:
    """A spec with card lists as sets and builds as a set, for comparing specs."""
    out = {k: v for k, v in spec.items() if k not in ("hands", "table", "piles", "rules")}
    out["hands"] = [sorted(h) for h in spec["hands"]]  # (multisets: two decks, V-kryp-values)
    out["piles"] = [sorted(p) for p in spec["piles"]]
    out["loose"] = sorted(x for x in spec["table"] if isinstance(x, str))
    out["builds"] = frozenset((frozenset(b["cards"]), b["value"], b["owner"], b["multiple"])
                              for b in spec["table"] if isinstance(b, dict))
    out["proven"] = [sorted(p) for p in spec.get("proven", [])]
    for key, empty in (("events", []), ("met", []), ("proven", []), ("hand", 0)):
        if out.get(key, empty) == empty:
            out.pop(key, None)
    return out


def move_key(m: Move) -> tuple:
    """A move's outcome (C-move): a capture's value is only a reading of the same outcome."""
    return (m.kind, m.played_mask, m.taken_mask, None if m.kind == "capture" else m.value,
            m.for_partner, m.orange)


def check_moves(s: State) -> list[Move]:
    """C-move: each outcome once; every listed move applies (as a Move and in notation) and
    leaves its input unchanged."""
    moves = legal_moves(s)
    if s.game_over:
        assert moves == []
        return moves
    assert moves, "no legal move while the game is on"
    keys = [move_key(m) for m in moves]
    assert len(keys) == len(set(keys)), "C-move: a move is listed twice"
    before = s.to_spec()
    for m in moves:
        after = apply_move(s, m)
        assert isinstance(after, State)
        assert apply_move(s, str(m)) == after, str(m)
    assert s.to_spec() == before
    return moves


def expect_illegal(s: State, move: Move, rule: str, text: str) -> None:
    before = s.to_spec()
    with pytest.raises(IllegalMoveError, match=text) as info:
        apply_move(s, move)
    assert info.value.rule == rule, (str(move), info.value.rule, str(info.value))
    assert s.to_spec() == before


# -- properties ---------------------------------------------------------------------------------

@settings(max_examples=150 * SCALE, **SETTINGS)
@given(spec=specs())
def test_generated_specs_are_accepted(spec):
    """Every generated spec is valid: from_spec accepts it without changing it, and the state
    keeps C-deck, C-build, C-build-keep and C-one-per-value."""
    original = copy.deepcopy(spec)
    s = State.from_spec(spec)
    assert spec == original, "from_spec changed its input"
    check_invariants(s)


@settings(max_examples=120 * SCALE, **SETTINGS)
@given(spec=specs())
def test_spec_round_trip(spec):
    """C-deck: from_spec(to_spec(s)) == s, to_spec is stable and JSON-safe; a spec with a
    hand to play comes back as written (cards in card order, builds as given)."""
    s = State.from_spec(spec)
    out = round_trip(s)
    if any(spec["hands"]):  # not settled by from_spec: nothing to deal or score
        mine = normalise(spec)
        theirs = normalise(out)
        for key, value in mine.items():
            assert theirs.get(key) == value, (key, value, theirs.get(key))
        assert out["rules"] == {**out["rules"], **spec.get("rules", {})}
        if s.rules.steal:  # V-swazi-steal: each pile comes back in its order, bottom first
            assert out["piles"] == spec["piles"]
        if "hand_points" not in spec:
            assert "hand_points" not in out


@settings(max_examples=100 * SCALE, **SETTINGS)
@given(spec=specs(), data=st.data())
def test_random_walks_keep_invariants(spec, data):
    """Along up to 40 random legal moves from a generated state (through deals, hand ends and
    new hands): C-deck, C-build, C-build-keep, C-one-per-value hold; apply_move never mutates
    its input; every state round-trips through to_spec/from_spec; no move is listed twice
    (C-move)."""
    s = State.from_spec(spec)
    check_invariants(s)
    for _ in range(40):
        if s.game_over:
            break
        moves = legal_moves(s)
        assert moves, "no legal move while the game is on"
        keys = [move_key(m) for m in moves]
        assert len(keys) == len(set(keys)), "C-move: a move is listed twice"
        # Keep the table small enough for quick move lists: with many loose cards, capture
        # (C-move lists every outcome; a table of 30 loose cards has millions of captures).
        captures = [m for m in moves if m.kind == "capture"]
        if s.loose_mask.bit_count() >= MAX_LOOSE and captures:
            moves = captures
        move = moves[data.draw(st.integers(0, len(moves) - 1), label="move")]
        before = s.to_spec()
        new = apply_move(s, move)
        assert s.to_spec() == before, "apply_move changed its input"
        assert State.from_spec(before) == s
        check_invariants(new)
        round_trip(new)
        s = new


@settings(max_examples=80 * SCALE, **SETTINGS)
@given(spec=specs(), data=st.data())
def test_legal_moves_apply_and_others_are_refused(spec, data):
    """C-move: legal_moves lists each outcome once and each applies (also from its notation);
    C-turn: a card not in the mover's hand raises IllegalMoveError naming its card and seat;
    C-owner-trail: a build's owner may not trail (unless V-owner-may-trail); V-dom-trail: a
    card matching a loose card may not trail."""
    s = State.from_spec(spec)
    check_moves(s)
    if s.game_over:
        return
    deck, seat, hand, elsewhere = mover(s)
    card = data.draw(st.sampled_from(elsewhere), label="card not in hand")
    expect_illegal(s, Move("trail", card), "C-turn", f"seat {seat} does not hold {card} ")
    expect_illegal(s, Move("capture", card, deck.strs(s.loose_mask)[:1]), "C-turn",
                   f": seat {seat} does not hold {card} ")
    other = "5S" if deck.name == "rook" else "5R"  # a card of another deck (C-deck)
    expect_illegal(s, Move("trail", other), "C-deck", f"uses the {deck.name} deck")

    r = s.rules
    trails = {m.played_mask for m in legal_moves(s) if m.kind == "trail" and not m.taken_mask}
    mine = data.draw(st.sampled_from(hand), label="card in hand")
    owns = any(b.owner == seat for b in s.builds)
    if owns and not r.owner_may_trail:
        assert not trails
        expect_illegal(s, Move("trail", mine), "C-owner-trail", "may not trail")
    elif r.must_capture:  # V-kryp-play: a card that can capture may not trail
        if any(m.kind == "capture" and m.played == (mine,) for m in legal_moves(s)):
            assert 1 << deck.parse(mine) not in trails
            expect_illegal(s, Move("trail", mine), "V-kryp-play", "must capture")
        else:
            assert trails
    elif r.dom_trail and not r.multi_play:
        loose_ranks = {c[:-1] for c in deck.strs(s.loose_mask)}
        if mine[:-1] in loose_ranks:
            assert 1 << deck.parse(mine) not in trails
            expect_illegal(s, Move("trail", mine), "V-dom-trail", "must capture or build")


# -- the generator reaches what it should ---------------------------------------------------

NO_SHRINK = settings(max_examples=400, phases=[Phase.generate], deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                            HealthCheck.data_too_large], database=None)


@pytest.mark.parametrize("variant", [v for v in VARIANTS if PRESETS[v].building])
def test_generator_makes_multiple_builds(variant):
    """The generator is not vacuous: it makes multiple builds (C-build) owned by a seat that
    holds the capturing card (C-build-keep) in every preset with building."""
    spec = find(specs((variant,)), lambda sp: any(
        isinstance(x, dict) and x["multiple"] for x in sp.get("table", [])), settings=NO_SHRINK)
    check_invariants(State.from_spec(spec))


@pytest.mark.parametrize("what", ["settled", "several builds", "partners", "sweeps"])
def test_generator_reaches_special_cases(what):
    """Specs with every hand empty (settled by from_spec: C-deal, C-score), with two or more
    builds (C-one-per-value), with partners, with sweeps recorded (C-sweep)."""
    tests = {
        "settled": lambda sp: not any(sp["hands"]) and not sp["stock"],
        "several builds": lambda sp: sum(isinstance(x, dict) for x in sp.get("table", [])) >= 2,
        "partners": lambda sp: sp["partnerships"],
        "sweeps": lambda sp: any(sp.get("sweeps", [])),
    }
    spec = find(specs(), tests[what], settings=NO_SHRINK)
    check_invariants(State.from_spec(spec))


KRYP_SPECIAL = {  # V-kryp-values, V-kryp-seats, V-kryp-score
    "kryp both copies in one hand": lambda sp: any(len(set(h)) < len(h) for h in sp["hands"]),
    "kryp both copies on the table": lambda sp: len(set(sp.get("table", [])))
    < len(sp.get("table", [])),
    "kryp six partners": lambda sp: sp["players"] == 6 and sp["partnerships"],
    "kryp dubbeltabbe and credit": lambda sp: any(
        e[1] == "dubbeltabbe credit" for e in sp.get("events", [])),
}


@pytest.mark.parametrize("what", list(KRYP_SPECIAL))
def test_generator_reaches_krypkasino_cases(what):
    """The krypkasino specs are not vacuous: both copies of a card in one hand or on the
    table (V-kryp-values), six players as three teams (V-kryp-seats), a dubbeltabbe with its
    credit (V-kryp-score)."""
    spec = find(specs(("krypkasino",)), KRYP_SPECIAL[what], settings=NO_SHRINK)
    check_invariants(State.from_spec(spec))


# -- krypkasino: two decks in specs (V-kryp-values, docs/rules.md "Two decks") ------------------

def spec_cards(spec: dict) -> list[tuple[str, str]]:
    """(field, card) for every card a spec names (hands, table, stock, piles)."""
    out = [(f"hands[{i}]", c) for i, h in enumerate(spec["hands"]) for c in h]
    out += [("table", c) for c in spec.get("table", []) if isinstance(c, str)]
    out += [("stock", c) for c in spec.get("stock", [])]
    out += [(f"piles[{i}]", c) for i, p in enumerate(spec.get("piles", [])) for c in p]
    return out


@settings(max_examples=80 * SCALE, **SETTINGS)
@given(spec=specs(("krypkasino",)), data=st.data())
def test_kryp_specs_name_every_card_twice(spec, data):
    """V-kryp-values: a generated krypkasino spec names every card exactly twice (both
    copies) over hands, table, stock and piles, never three times; from_spec accepts it and
    it round-trips; naming a card a third time anywhere is refused naming a field."""
    named = Counter(c for _, c in spec_cards(spec))
    assert named == Counter({c: 2 for c in make_rules("krypkasino", 2).deck.names})
    s = State.from_spec(spec)
    check_invariants(s)
    round_trip(s)
    card = data.draw(st.sampled_from(sorted(named)), label="third copy")
    fields = ([("hands", i) for i in range(len(spec["hands"]))] + [("table", None)]
              + [("stock", None)] + [("piles", i) for i in range(len(spec.get("piles", [])))])
    key, i = data.draw(st.sampled_from(fields), label="where")
    bad = copy.deepcopy(spec)
    (bad.setdefault(key, []) if i is None else bad[key][i]).append(card)
    with pytest.raises(ValueError, match=rf"^(hands|table|stock|piles)(\[\d+\])+: card "
                       rf"{card} named a third time"):
        State.from_spec(bad)


@settings(max_examples=80 * SCALE, **SETTINGS)
@given(spec=specs(("krypkasino",)), data=st.data())
def test_kryp_copies_are_canonical(spec, data):
    """Two decks, "Canonical copies": specs that differ only in the order of each place's
    cards (so in which place the parser meets a card's first copy) give one state and one
    spec; a state whose two copies of a card trade places is the same position: the same
    spec, from_spec gives back the original state, and renumbering makes it the original."""
    s = State.from_spec(spec)
    if s.game_over:  # a finished game's spec is its last hand unscored, which from_spec settles;
        return  # (its round trip: test_kryp_game_end_round_trips) a traded copy is no state of it
    rng = random.Random(data.draw(st.integers(0, 2**32), label="shuffle"))
    shuffled = copy.deepcopy(spec)
    for place in shuffled["hands"] + [shuffled.get("table", [])] + shuffled.get("piles", []):
        rng.shuffle(place)  # (not the stock: its order is the order of the deals)
    again = State.from_spec(shuffled)
    assert again == s and again.to_spec() == s.to_spec()

    # Trade the two copies of a card that lie in two places.
    places = list(s.hand_masks) + [s.loose_mask] + list(s.pile_masks)
    stock = list(s.stock_ids)
    where: dict[int, list] = {}
    for p, m in enumerate(places):
        for cid in range(s.rules.deck.size):
            if m >> cid & 1:
                where.setdefault(cid // 2, []).append(("place", p, cid))
    for pos, cid in enumerate(stock):
        where.setdefault(cid // 2, []).append(("stock", pos, cid))
    apart = sorted(k for k, w in where.items() if w[0][:2] != w[1][:2])
    if not apart:
        return
    kind = data.draw(st.sampled_from(apart), label="card")
    for what, at, cid in where[kind]:
        other = cid ^ 1  # the card's other copy
        if what == "place":
            places[at] = places[at] & ~(1 << cid) | 1 << other
        else:
            stock[at] = other
    traded = s._copy()
    n = s.rules.players
    traded.hand_masks, traded.loose_mask = tuple(places[:n]), places[n]
    traded.pile_masks, traded.stock_ids = tuple(places[n + 1:]), tuple(stock)
    assert traded != s  # (the copies really did trade)
    assert traded.to_spec() == s.to_spec()
    assert State.from_spec(traded.to_spec()) == s
    renumber(traded)
    assert traded == s


@settings(max_examples=60, phases=[Phase.generate], derandomize=True, database=None, **SETTINGS)
@given(spec=specs(("krypkasino",)))
def test_kryp_game_end_round_trips(spec):
    """Two decks: a generated krypkasino position played on (the first legal move each turn)
    to the end of the game gives a final state that round-trips and is canonical."""
    s = State.from_spec(spec)
    for _ in range(300):
        if s.game_over:
            break
        s = apply_move(s, legal_moves(s)[0])
    if s.game_over:
        same = s._copy()
        renumber(same)
        assert same == s
        back = State.from_spec(s.to_spec())
        assert back == s and back.to_spec() == s.to_spec()


# -- regressions: a game won during play (V-earned) round-trips --------------------------------


def test_earned_win_round_trip_others_hold_cards():
    """V-earned: seat 0 wins by capturing with its last card while seat 1 still holds one.
    The spec names the winner, so from_spec accepts seat 0 to move with no cards."""
    spec = {"variant": "hungarian", "players": 2, "hands": [["5S"], ["2H"]], "table": ["5H"],
            "scores": [10, 0]}
    won = apply_move(State.from_spec(spec), "5S captures 5H")
    assert won.game_over and won.winner == 0
    assert State.from_spec(won.to_spec()) == won


def test_earned_win_round_trip_every_hand_empty():
    """V-earned: seat 0 wins with the round's last card while the stock still holds cards.
    The spec names the winner and keeps the final scores: from_spec does not deal on."""
    spec = {"variant": "hungarian", "players": 2, "hands": [["5S"], []], "table": ["5H"],
            "stock": ["2H", "3H", "4H", "6H", "7H", "8H"], "scores": [10, 0], "current": 0,
            "seed": 1}
    won = apply_move(State.from_spec(spec), "5S captures 5H")
    assert won.game_over and won.winner == 0
    back = State.from_spec(won.to_spec())
    assert back.game_over and back.winner == 0 and back.scores == won.scores
    assert back == won


def test_earned_win_round_trip_cards_left_on_table():
    """V-earned: seat 0 wins with the hand's last card, leaving 3C on the table: the hand
    is not settled again (no C-residue to the last capturer)."""
    spec = {"variant": "hungarian", "players": 2, "hands": [["5S"], []], "table": ["5H", "3C"],
            "piles": [["AS"], []], "scores": [10, 0], "current": 0, "seed": 1}
    won = apply_move(State.from_spec(spec), "5S captures 5H")
    assert won.game_over and won.winner == 0 and won.table == ["3C"]
    assert State.from_spec(won.to_spec()) == won
