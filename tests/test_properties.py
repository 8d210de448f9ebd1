"""Property tests: seeded random games per preset and player count, invariants at every step.

Rules checked (RULES.md ids): C-deck (every card accounted for exactly once), C-deal (deal
sizes, deals per hand, dealer rotation, who leads), C-turn (one card from hand per move),
C-trail, C-capture, C-face, C-build, C-build-keep, C-owner-trail, C-one-per-value, C-move
(moves listed once, notation round-trips), C-residue, C-sweep, V-cancel, C-score, C-game,
V-countout, V-dom-trail, V-dom-end; for `swedish` and `finnish` V-nordic-play, V-fin-values,
V-swe-score, V-swe-end, V-fin-score and V-earned; for `krypkasino` (its own seatings: 2-6
players, teams of 4 and 6) V-kryp-values, V-kryp-seats, V-kryp-play (against a brute-force
generator), V-kryp-score and V-kryp-end with two decks' canonical copies; plus the engine
contracts: apply_move never
mutates its input, illegal moves raise IllegalMoveError naming a rule, the spec round-trips,
and the same seed gives the same game (determinism).

The default run plays a modest number of full games per configuration with the heavy checks
on a sample of steps; ``CASINO_SLOW=1`` (or ``-m slow``) adds thousands of games per
configuration.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst
from rules_helpers import mover
from test_rules_kryp import DECK2, expected_moves  # the brute-force V-kryp-play generator

from casino_env.engine import (
    IllegalMoveError,
    Move,
    State,
    apply_move,
    legal_moves,
    new_game,
    parse_move,
)
from casino_env.engine.rules import PRESETS
from casino_env.engine.state import renumber

NORDIC = ("swedish", "finnish")  # no building (V-nordic-play)
VARIANTS = ("casino", "royal", "dominican") + NORDIC + ("swazi",)
ROYAL_VALUES = ("royal", "dominican", "swedish", "swazi")  # an Ace counts 1 or 14 (C-deck)
FROM_HAND = {"2S": 15, "10D": 16}  # V-fin-values: besides every Ace's 14
SEATINGS = ((2, False), (3, False), (4, False), (4, True))
CONFIGS = [(v, p, part) for v in VARIANTS for p, part in SEATINGS]
CONFIG_IDS = [f"{v}-{p}p{'-partners' if part else ''}" for v, p, part in CONFIGS]

GAMES_DEFAULT = 15  # full games to the target per configuration in the default run
GAMES_SLOW = 2000  # per configuration with CASINO_SLOW=1 / -m slow
HEAVY_EVERY = 10  # heavy checks (spec round trip, notation, illegal probes) on every k-th step

RULE_ID = re.compile(r"^[CV]-[a-z0-9-]+$")
SWAZI_DEAL = {2: 12, 3: 16, 4: 12}  # V-swazi-deal: cards to each player a deal


def deal_size(r) -> int:
    """Cards each player gets a deal: 4 (C-deal), swazi's 12 or 16 (V-swazi-deal)."""
    return SWAZI_DEAL[r.players] if r.variant == "swazi" else 4


def deals_per_hand(r) -> int:
    """C-deal: 2 players 6 deals, 3 players 4, 4 players 3; V-swazi-deal: 2, 1, 1."""
    return (52 - 4) // (deal_size(r) * r.players)


# -- small helpers on the public API ----------------------------------------------------------

def loose_mask(st: State) -> int:
    """Loose table cards as a mask (table() lists loose card strings, then build dicts)."""
    return st.rules.deck.mask(x for x in st.table if isinstance(x, str))


def table_mask(st: State) -> int:
    m = loose_mask(st)
    for b in st.builds:
        m |= b.cards
    return m


def stealable_tops(st: State) -> set[str]:
    """V-swazi-steal: the top card of every other side's pile (the last card of each pile as
    ``piles`` lists them bottom first), which the mover may take like a loose card."""
    if st.rules.variant != "swazi":
        return set()
    mine = side_of(st, st.current)
    return {p[-1] for s, p in enumerate(st.piles) if p and s != mine}


def total_in_hands(st: State) -> int:
    return sum(h.bit_count() for h in st.hand_masks)


def side_of(st: State, seat: int) -> int:
    return seat % 2 if st.rules.partnerships else seat


def card_value(st: State, card: str) -> int | None:
    """Capture value of a card inside a set (Ace 1); None for classic J Q K (C-face)."""
    rank = card[:-1]
    if rank == "A":
        return 1
    if rank in ("J", "Q", "K"):
        return None if st.rules.variant == "casino" else {"J": 11, "Q": 12, "K": 13}[rank]
    return int(rank)


def hand_value(st: State, card: str) -> int | None:
    """What a card captures with from hand: its set value, but in `finnish` an Ace 14, the 2S
    15 and the 10D 16 (V-fin-values)."""
    if st.rules.variant == "finnish":
        return 14 if card[0] == "A" else FROM_HAND.get(card, card_value(st, card))
    return card_value(st, card)


def readings(st: State, card: str) -> tuple:
    """The capture values of a hand card (a Royal Ace 1 or 14; C-face cards: (None,))."""
    hv = hand_value(st, card)
    return (1, 14) if hv == 1 and st.rules.variant in ROYAL_VALUES else (hv,)


def rank_class(value: int) -> str:
    """Rank of the cards that capture a build of ``value`` (a Royal 14 is an Ace)."""
    return {1: "A", 14: "A", 11: "J", 12: "Q", 13: "K"}.get(value, str(value))


def splits_into(values: list[int], v: int, lone_ace: bool) -> bool:
    """True if ``values`` split into disjoint groups each summing to ``v`` (a lone Ace may
    count 14 when ``lone_ace``)."""
    if not values:
        return True
    first, rest = values[0], values[1:]
    if lone_ace and first == 1 and splits_into(rest, v, lone_ace):
        return True
    idx = range(len(rest))
    for k in range(len(rest) + 1):
        for combo in combinations(idx, k):
            if first + sum(rest[i] for i in combo) == v:
                left = [rest[i] for i in idx if i not in combo]
                if splits_into(left, v, lone_ace):
                    return True
    return False


def move_key(m: Move) -> tuple:
    return (m.kind, m.played, m.taken, m.value, getattr(m, "for_partner", False))


# -- invariants of one state -----------------------------------------------------------------

def check_state(st: State) -> None:
    """C-deck accounting, builds (C-build, C-build-keep, C-one-per-value), seats and scores."""
    r = st.rules
    deck = r.deck
    n, sides = r.players, r.sides
    assert deck.size == 52  # C-deck
    assert len(st.hand_masks) == n and len(st.pile_masks) == sides
    assert len(st.scores) == sides
    parts = (list(st.hand_masks) + [loose_mask(st)] + [b.cards for b in st.builds]
             + list(st.pile_masks))
    stock = 0
    for cid in st.stock_ids:
        assert not stock >> cid & 1, "card twice in the stock"
        stock |= 1 << cid
    parts.append(stock)
    union = 0
    for p in parts:
        assert not union & p, f"a card is in two places: {deck.strs(union & p)}"
        union |= p
    assert union == deck.full, f"cards missing: {deck.strs(deck.full & ~union)}"  # C-deck
    for side, pile in enumerate(st.piles):  # V-swazi-steal: a pile lists each card once
        assert len(set(pile)) == len(pile) and deck.mask(pile) == st.pile_masks[side]

    # Builds (C-build, C-one-per-value, C-build-keep).
    values = [b.value for b in st.builds]
    assert len(values) == len(set(values)), f"two builds of one value: {values}"
    need: dict[tuple[int, str], int] = {}
    for b in st.builds:
        cards = deck.strs(b.cards)
        assert len(cards) >= 2, f"build of one card: {cards}"
        assert 1 <= b.value <= (14 if r.variant != "casino" else 10)
        assert 0 <= b.owner < n
        vals = [card_value(st, c) for c in cards]
        assert None not in vals, f"face card in a classic build: {cards}"  # C-face
        if b.multiple:
            assert sum(vals) != b.value or b.value == 14
            assert splits_into(sorted(vals, reverse=True), b.value,
                               r.variant != "casino" and b.value == 14), (cards, b.value)
        else:
            assert sum(vals) == b.value, (cards, b.value)
        key = (b.owner, rank_class(b.value))
        need[key] = need.get(key, 0) + 1
    for (owner, rank), k in need.items():
        held = [c for c in st.hand(owner) if c[:-1] == rank]
        assert len(held) >= k, (f"C-build-keep: seat {owner} owns {k} build(s) of rank {rank} "
                                f"but holds {st.hand(owner)}")

    if st.game_over:
        assert st.winner is not None and 0 <= st.winner < sides
        if not r.earned:  # (V-earned: the game may end during a hand)
            assert not any(st.hand_masks) and not st.stock_ids and not st.table
        assert st.scores[st.winner] >= r.target  # C-game
        assert st.hand_points is not None
    else:
        assert st.winner is None
        assert 0 <= st.current < n
        assert st.hand_masks[st.current], "the seat to move holds no cards"
    if not r.sweeps:
        assert not any(st.sweeps)


def listed_once(st: State, moves: list[Move], key) -> bool:
    """C-turn, C-move: no move once the game is over, else at least one, each outcome (by
    ``key``) and each notation once; whether the game is still on."""
    if st.game_over:
        assert moves == []
        return False
    assert moves, "no legal move while the game is on"
    keys = [key(m) for m in moves]
    assert len(keys) == len(set(keys)), "a move is listed twice (C-move)"
    texts = [str(m) for m in moves]
    assert len(texts) == len(set(texts)), "two moves share a notation"
    return True


def check_moves(st: State, moves: list[Move]) -> None:
    """C-turn, C-trail, C-capture, C-face, C-build, C-owner-trail, V-dom-trail, C-move."""
    r = st.rules
    if not listed_once(st, moves, move_key):
        return
    seat = st.current
    hand = set(st.hand(seat))
    loose = {x for x in st.table if isinstance(x, str)}
    table = set(st.rules.deck.strs(table_mask(st)))
    tops = stealable_tops(st)
    owns = any(b.owner == seat for b in st.builds)
    for m in moves:
        assert len(m.played) == 1 and m.played[0] in hand  # C-turn
        card = m.played[0]
        assert m.taken <= table | tops  # V-swazi-steal: other sides' pile tops too
        for b in st.builds:  # cards in a build move only with the whole build
            bc = set(r.deck.strs(b.cards))
            assert not (bc & m.taken) or bc <= m.taken
        if m.kind == "trail":
            assert not m.taken and m.value is None
            assert not owns, "C-owner-trail: the owner of a build trailed"
            if r.dom_trail:
                assert not any(x[:-1] == card[:-1] for x in loose), "V-dom-trail"
        elif m.kind == "capture":
            assert m.taken
            if card_value(st, card) is None:  # C-face
                assert len(m.taken) == 1 and next(iter(m.taken))[:-1] == card[:-1]
                assert m.value is None
            else:  # Move.value is the capture value used (a Royal Ace 1 or 14; V-fin-values)
                assert m.value in readings(st, card)
                if r.dom_trail:  # (a classic face card takes one card: C-face wins, docs)
                    same = {x for x in loose if x[:-1] == card[:-1]}
                    assert same <= m.taken, "V-dom-trail: a loose card of its rank is left"
        else:
            assert m.kind == "build"
            assert m.taken and card_value(st, card) is not None
            assert 1 <= m.value <= (10 if r.variant == "casino" else 14)
            if getattr(m, "for_partner", False):  # V-partner-build: partner must hold it
                assert r.partner_build
                partner = st.hand((seat + 2) % 4)
                assert any(c[:-1] == rank_class(m.value) for c in partner)
    # docs/rules.md "Order": by played card, then the trail, captures, builds by value; builds
    # for partner last.
    names = r.deck.names
    kinds = {"trail": 0, "capture": 1, "build": 2}
    partner = [getattr(m, "for_partner", False) for m in moves]
    assert partner == sorted(partner), "builds for partner come last"
    own = [m for m, p in zip(moves, partner) if not p]
    order = [(names.index(m.played[0]), kinds[m.kind], m.value if m.kind == "build" else 0)
             for m in own]
    assert order == sorted(order), "legal_moves is not in the documented order"


# -- per-transition checks --------------------------------------------------------------------

class Tracker:
    """Follows one game and checks each transition against the rules (C-deal, C-sweep,
    V-cancel, C-residue, C-score, C-game, V-dom-end)."""

    def __init__(self, st: State) -> None:
        r = st.rules
        self.rules = r
        self.hands_done = 0
        self.check_new_hand(st, first=True)

    def check_new_hand(self, st: State, first: bool = False) -> None:
        r = self.rules
        n = r.players
        per = deal_size(r)
        assert [h.bit_count() for h in st.hand_masks] == [per] * n  # C-deal, V-swazi-deal
        assert loose_mask(st).bit_count() == 4 and not st.builds
        assert len(st.stock_ids) == 52 - per * n - 4
        assert not any(st.pile_masks) and not any(st.sweeps)
        assert st.current == (st.dealer + 1) % n  # the player after the dealer leads
        if first:
            assert st.dealer == n - 1
        self.sweeps = [0] * r.sides
        self.deals = 1
        self.met: list[int] = []

    def note_met(self, prev: State, piles: list[int]) -> None:
        """V-dom-end: record restricted sides in the order their criterion became certain."""
        for s, short in restrictions(self.rules, tuple(prev.scores)).items():
            if s not in self.met and certain_now(self.rules, s, short, piles):
                self.met.append(s)

    def step(self, prev: State, move: Move, new: State) -> None:
        r = self.rules
        deck = r.deck
        seat = prev.current
        side = side_of(prev, seat)
        played = deck.mask(move.played)
        taken = deck.mask(move.taken)
        assert played.bit_count() == 1 and prev.hand_masks[seat] & played
        before_table = table_mask(prev)
        # Table and piles right after the move, before any deal or hand end. V-swazi-steal:
        # the pile tops taken leave their piles (a capture stacks the taken cards in card
        # order, then the played card; a build keeps them).
        stolen = taken & ~before_table
        assert stolen == deck.mask(set(move.taken) & stealable_tops(prev))
        piles = [p & ~stolen for p in prev.pile_masks]
        order = [p[:-1] if p and deck.mask(p[-1:]) & stolen else list(p) for p in prev.piles]
        if move.kind == "capture":
            order[side] += deck.strs(taken) + list(move.played)
        last_capturer = prev.last_capturer
        if move.kind == "capture":
            table_after = before_table & ~taken
            piles[side] |= played | taken
            last_capturer = seat
            if not table_after and r.sweeps and sweep_counts(r, prev):  # C-sweep, V-fin-score
                restricted = restrictions(r, prev.scores)
                if not (r.restricted_no_sweeps and side in restricted):
                    self.sweeps[side] += 1
                    if r.cancel and all(self.sweeps):  # V-cancel
                        self.sweeps = [k - 1 for k in self.sweeps]
        else:
            table_after = before_table | played | taken
        left_in_hands = total_in_hands(prev) - 1

        if move.kind == "capture":
            self.note_met(prev, piles)
            if r.earned and self.earned_win(prev, piles, new):
                return
        if left_in_hands:  # the hand goes on, no deal
            assert new.stock_ids == prev.stock_ids
            assert table_mask(new) == table_after
            assert list(new.pile_masks) == piles
            if r.variant == "swazi":
                assert new.piles == order
            assert list(new.sweeps) == self.sweeps
            assert new.scores == prev.scores and new.dealer == prev.dealer
            if r.dom_end:
                assert new.to_spec()["met"] == self.met
            if move.kind == "build":
                owner = (seat + 2) % 4 if getattr(move, "for_partner", False) else seat
                match = [b for b in new.builds if b.value == move.value]
                assert len(match) == 1
                assert match[0].cards == played | taken and match[0].owner == owner
            # The turn passes to the next seat that holds cards (C-turn).
            n = r.players
            order = [(seat + k) % n for k in range(1, n + 1)]
            assert new.current == next(s for s in order if new.hand_masks[s])
            return
        if prev.stock_ids:  # a new round is dealt, none to the table (C-deal)
            self.deals += 1
            n = r.players
            per = deal_size(r)
            assert [h.bit_count() for h in new.hand_masks] == [per] * n
            assert len(new.stock_ids) == len(prev.stock_ids) - per * n
            assert table_mask(new) == table_after
            assert list(new.pile_masks) == piles and list(new.sweeps) == self.sweeps
            assert new.current == (prev.dealer + 1) % n
            if not new.stock_ids:
                assert self.deals == deals_per_hand(r)
            return
        # The hand ends (C-residue, C-score, C-game).
        assert self.deals == deals_per_hand(r)
        taker = last_capturer if last_capturer is not None else prev.dealer
        piles[side_of(prev, taker)] |= table_after
        self.note_met(prev, piles)
        start = tuple(prev.scores)
        last_side = None if last_capturer is None else side_of(prev, last_capturer)
        expected, instant, counted = expected_points(r, start, piles, self.sweeps, last_side)
        assert new.hand_points == expected, (new.hand_points, expected)
        totals = [s + p for s, p in zip(prev.scores, expected)]
        assert new.scores == totals
        if r.variant == "swazi" and not r.points:
            # V-swazi-score: 11 a hand (a two-way tie 1 + 1); only four single players can
            # tie three or four ways, each tied side scoring 1.
            assert sum(new.hand_points) == 11 or (r.sides == 4 and sum(new.hand_points) > 11)
        elif r.variant != "dominican" and not getattr(r, "difference", False):
            # C-score: 7 points always (10D, 2S, aces), 3 + 1 more unless tied (V-points: the
            # table's values)
            pts = item_points(r)
            low = pts["big_casino"] + pts["little_casino"] + 4 * pts["aces"]
            high = (low + pts["cards"] + pts["spades"] + pts["sweep"] * sum(self.sweeps)
                    + pts["last_capture"])
            assert low <= sum(new.hand_points) <= high
        self.hands_done += 1
        check_game_end(r, start, totals, instant, self.met, counted, new, piles)
        if new.game_over:
            assert list(new.pile_masks) == piles  # the last hand's piles stay visible
        else:
            assert new.dealer == (prev.dealer + 1) % r.players  # the deal passes on
            self.check_new_hand(new)


    def earned_win(self, prev: State, piles: list[int], new: State) -> bool:
        """V-earned (`finnish`): after a capture, the points each side is sure of (most cards
        and most spades once no other side can catch up, each 10D, 2S, Ace, sweep); reaching
        the target ends the game at once. True if it did."""
        r = self.rules
        pts = item_points(r)
        got = [0] * r.sides
        for name, counts, total in (("cards", [p.bit_count() for p in piles], 52),
                                    ("spades", [spade_count(r.deck, p) for p in piles], 13)):
            left = total - sum(counts)
            for s, mine in enumerate(counts):
                if all(mine > c + left for o, c in enumerate(counts) if o != s):
                    got[s] += pts[name]
        for item, s, p in hand_awards(r, piles, self.sweeps, None):
            got[s] += 0 if item in ("cards", "spades") else p  # (majorities: above)
        totals = [a + b for a, b in zip(prev.scores, got)]
        # Reaching the target wins only ahead of every other side: a tie on the highest total
        # plays on (C-game), also in a hand begun on such a tie.
        if max(totals) < r.target or totals.count(max(totals)) > 1:
            if any(new.hand_masks):  # (the hand's end may still win it: C-game)
                assert not new.game_over
            return False
        assert new.game_over and new.hand_points == got and new.scores == totals
        assert new.winner == totals.index(max(totals))
        self.hands_done += 1
        return True


def sweep_counts(r, prev: State) -> bool:
    """V-fin-score: in `finnish` no sweep counts in the last deal (the stock is empty) nor in a
    hand that began with a side on 10 or more."""
    if r.variant != "finnish":
        return True
    return bool(prev.stock_ids) and max(prev.scores) < 10


def restrictions(r, start: tuple) -> dict[int, int]:
    """V-dom-end / V-soto: side -> points short of the target, for restricted sides (none in
    a hand that starts with a side at the target)."""
    if not r.dom_end or max(start) >= r.target:
        return {}
    low = 5 if r.soto else 3
    return {s: r.target - x for s, x in enumerate(start) if 1 <= r.target - x <= low}


def criterion(r, short: int) -> list[str]:
    """V-dom-end (18: cards, 19: 10D, 20: spades or 2S) and V-soto (16, 17)."""
    if short == 1 and r.twenty_by_two_spades:
        return ["2S"]
    return {3: ["cards"], 2: ["10D"], 1: ["spades"], 5: ["cards", "10D"],
            4: ["cards", "spades"]}[short]


def spade_count(deck, mask: int) -> int:
    return sum(1 for c in deck.strs(mask) if c.endswith("S"))


C_SCORE = {"cards": 3, "spades": 1, "big_casino": 2, "little_casino": 1, "aces": 1, "sweep": 1,
           "last_capture": 0}
NORDIC_SCORE = {  # V-swe-score, V-fin-score: most spades 2, most cards 1
    "swedish": {**C_SCORE, "cards": 1, "spades": 2, "last_capture": 1},
    "finnish": {**C_SCORE, "cards": 1, "spades": 2},
}


# V-swazi-score: most cards 2, most spades 2 (a tie: 1 each), 10D 2, 2S 1, aces 1, no sweeps.
SWAZI_SCORE = {"cards": 2, "spades": 2, "big_casino": 2, "little_casino": 1, "aces": 1,
               "sweep": 0, "last_capture": 0}


def item_points(r) -> dict[str, int]:
    """The preset's points per item (C-score, V-swe-score, V-fin-score, V-swazi-score), with a
    V-points table over them."""
    base = SWAZI_SCORE if r.variant == "swazi" else NORDIC_SCORE.get(r.variant, C_SCORE)
    return {**base, **dict(getattr(r, "points", ()))}


def hand_awards(r, piles: list[int], sweeps: list[int],
                last_side: int | None = None) -> list[tuple[str, int, int]]:
    """C-score items as (item, side, points) in V-countout order: most cards, most spades,
    10D, 2S, aces S C H D, then sweeps (where they score) and the last capture (V-swe-score);
    V-points: the table's values, an item worth 0 left out."""
    deck = r.deck
    pts = item_points(r)
    out = []
    for name, counts in (("cards", [p.bit_count() for p in piles]),
                         ("spades", [spade_count(deck, p) for p in piles])):
        best = max(counts)
        if counts.count(best) == 1 and pts[name]:  # "most": strictly more than every other
            out.append((name, counts.index(best), pts[name]))
        elif r.variant == "swazi" and pts[name] // 2:  # V-swazi-score: a tie, half each
            out.extend((name, s, pts[name] // 2) for s, k in enumerate(counts) if k == best)
    for card, item in (("10D", "big_casino"), ("2S", "little_casino"), ("AS", "aces"),
                       ("AC", "aces"), ("AH", "aces"), ("AD", "aces")):
        for s, p in enumerate(piles):
            if card in deck.strs(p) and pts[item]:
                out.append((card, s, pts[item]))
    if r.sweeps and pts["sweep"]:
        out.extend(("sweeps", s, k * pts["sweep"]) for s, k in enumerate(sweeps) if k)
    if last_side is not None and pts["last_capture"]:
        out.append(("last capture", last_side, pts["last_capture"]))
    return out


def expected_points(r, start: tuple, piles: list[int], sweeps: list[int],
                    last_side: int | None = None) -> tuple[list[int], list[int], list[tuple]]:
    """(points per side, restricted sides that met their whole criterion, counted awards):
    C-score (V-swe-score, V-fin-score) with V-dom-end / V-soto restrictions."""
    awards = hand_awards(r, piles, sweeps, last_side)
    limits = restrictions(r, start)
    points = [0] * r.sides
    instant = []
    counted = []
    for s in range(r.sides):
        mine = [a for a in awards if a[1] == s]
        if s in limits:
            crit = criterion(r, limits[s])
            mine = [a for a in mine if a[0] in crit]
            if len(mine) == len(crit):
                instant.append(s)
            elif limits[s] <= 3:
                mine = []  # 18-20: a side that misses its criterion scores nothing
        points[s] = sum(a[2] for a in mine)
        counted += mine
    if getattr(r, "difference", False) and not instant:
        # V-target (docs: target 11 with two sides): only the side with more points in the
        # hand scores, the difference.
        a, b = points
        points = [max(a - b, 0), max(b - a, 0)]
        counted = []
    counted.sort(key=awards.index)
    return points, instant, counted


def certain_now(r, side: int, short: int, piles: list[int]) -> bool:
    """V-dom-end: the side's whole criterion can no longer be missed this hand."""
    deck = r.deck
    ok = []
    for item in criterion(r, short):
        if item in ("10D", "2S"):
            ok.append(item in deck.strs(piles[side]))
            continue
        if item == "cards":
            counts = [p.bit_count() for p in piles]
            left = 52 - sum(counts)
        else:
            counts = [spade_count(deck, p) for p in piles]
            left = 13 - sum(counts)
        ok.append(all(counts[side] > c + left for s, c in enumerate(counts) if s != side))
    return all(ok)


def check_game_end(r, start: tuple, totals: list[int], instant: list[int], met: list[int],
                   counted: list[tuple], new: State, piles: list[int]) -> None:
    """C-game (higher total wins, a tie plays on), V-countout, V-dom-end, V-swe-end (equal
    totals: more spades in the hand's ``piles``)."""
    target = r.target
    if instant:  # V-dom-end: a restricted side meeting its criterion wins at once
        assert new.game_over
        first = [s for s in met if s in instant]
        assert first, (met, instant)
        assert new.winner == first[0], (new.winner, met, instant)
        return
    reached = [s for s, t in enumerate(totals) if t >= target]
    if not reached:
        assert not new.game_over
        return
    difference = getattr(r, "difference", False)
    if r.countout and not difference and len(reached) > 1 and max(start) < target:
        run = list(start)
        first = None
        by_item: dict = {}  # item -> its awards (an item may give several sides points)
        for item, s, pts in counted:
            if item != "sweeps":
                by_item.setdefault(item, []).append((s, pts))
        for awards in by_item.values():  # (dicts keep the count's order)
            for s, pts in awards:
                run[s] += pts
            crossed = [s for s in range(len(run)) if run[s] >= target]
            if crossed:
                first = crossed  # one side: it wins; several at once: none was first
                break
        if first is not None and len(first) == 1:
            assert new.game_over and new.winner == first[0], (new.winner, first)
            return
        if first is None:
            swept = {s: sum(p for it, sd, p in counted if it == "sweeps" and sd == s)
                     for s in reached}
            tops = [s for s in reached if swept[s] == max(swept.values())]
            if len(tops) == 1:
                assert new.game_over and new.winner == tops[0]
            else:
                assert not new.game_over
            return
    best = max(totals)
    tops = [s for s, t in enumerate(totals) if t == best]
    if len(tops) > 1 and r.variant == "swedish":  # V-swe-end
        spades = [spade_count(r.deck, piles[s]) for s in tops]
        tops = [tops[spades.index(max(spades))]] if spades.count(max(spades)) == 1 else tops
    if len(tops) == 1:
        assert new.game_over and new.winner == tops[0]
    else:
        assert not new.game_over


# -- heavy checks (sampled) -----------------------------------------------------------------

def check_spec_round_trip(st: State, moves: list[Move]) -> None:
    """to_spec is JSON-serialisable and from_spec(to_spec(s)) == s with the same moves."""
    spec = st.to_spec()
    text = json.dumps(spec)
    back = State.from_spec(json.loads(text))
    assert back == st
    assert back.to_spec() == spec
    assert [move_key(m) for m in legal_moves(back)] == [move_key(m) for m in moves]


def check_notation(st: State, moves: list[Move]) -> None:
    """str(move) round-trips through parse_move; the public Move constructor agrees (C-move)."""
    for m in moves:
        parsed = parse_move(str(m), st)
        assert parsed == m, (str(m), parsed)
        assert move_key(parsed) == move_key(m)
        made = Move(m.kind, m.played, m.taken, m.value, getattr(m, "for_partner", False))
        assert made == m, str(m)


def snapshot(st: State) -> tuple:
    """Every public attribute of a state, to detect mutation cheaply."""
    return (st.rules, st.dealer, st.current, st.hand_masks, st.table, st.builds, st.stock_ids,
            st.pile_masks, st.sweeps, tuple(st.scores),
            None if st.hand_points is None else tuple(st.hand_points), st.last_capturer,
            st.seed, st.game_over, st.winner)


def assert_illegal(st: State, move: Move, before: tuple) -> None:
    with pytest.raises(IllegalMoveError) as info:
        apply_move(st, move)
    assert isinstance(info.value, ValueError)
    assert info.value.rule and RULE_ID.match(info.value.rule), info.value.rule
    assert snapshot(st) == before


def check_illegal_probes(st: State, moves: list[Move], rng: random.Random) -> None:
    """A few random moves that are not listed raise IllegalMoveError naming a rule."""
    if st.game_over:
        return
    deck, seat, hand, elsewhere = mover(st)
    listed = {move_key(m) for m in moves}
    captures = {(m.played, m.taken) for m in moves if m.kind == "capture"}
    before = snapshot(st)

    # A card not in the player's hand (C-turn).
    card = rng.choice(elsewhere)
    assert_illegal(st, Move("trail", card), before)
    # Two cards at once (C-turn), a trail that takes cards (C-trail).
    if len(hand) >= 2:
        assert_illegal(st, Move("trail", tuple(rng.sample(hand, 2))), before)
    table = deck.strs(table_mask(st))
    if table:
        assert_illegal(st, Move("trail", rng.choice(hand), (rng.choice(table),)), before)
    if st.rules.variant == "swazi":  # V-swazi-steal: pile cards, tops or not, may be probed
        table = table + [c for p in st.piles for c in p[-2:]]

    # Random captures and builds: illegal unless they are listed.
    for _ in range(3):
        card = rng.choice(hand)
        k = rng.randint(0, min(4, len(table)))
        taken = tuple(rng.sample(table, k))
        cap = Move("capture", card, taken)
        if ((card,), frozenset(taken)) in captures:
            assert apply_move(st, cap) == apply_move(st, next(
                m for m in moves if m.kind == "capture" and m.played == (card,)
                and m.taken == frozenset(taken)))
        else:
            assert_illegal(st, cap, before)
        value = rng.randint(1, 15)
        bld = Move("build", card, taken, value)
        if move_key(bld) in listed:
            assert apply_move(st, bld) == apply_move(st, bld)
        else:
            assert_illegal(st, bld, before)


# -- an independent move generator (small tables) ------------------------------------------

def holds_for(st: State, cards: list[str], values: list[int]) -> bool:
    """C-build-keep: ``cards`` hold a distinct capturing card for every build value (a Royal
    1-build and 14-build owned together need two Aces, docs/rules.md)."""
    need: dict[str, int] = {}
    for v in values:
        need[rank_class(v)] = need.get(rank_class(v), 0) + 1
    return all(sum(1 for c in cards if c[:-1] == rank) >= k for rank, k in need.items())


def reference_moves(st: State) -> set[tuple]:
    """Every legal outcome, written straight from RULES.md by trying every collection of table
    items (C-trail, C-owner-trail, C-capture, C-face, C-build, C-build-raise, C-build-extend,
    C-build-keep, C-one-per-value, V-dom-trail, V-dom-build). Without V-partner-build."""
    r = st.rules
    royal = r.variant in ROYAL_VALUES
    top = 14 if royal else 10
    deck = r.deck
    seat = st.current
    hand = st.hand(seat)
    loose = [x for x in st.table if isinstance(x, str)]
    builds = list(st.builds)
    by_value = {b.value: b for b in builds}
    # V-swazi-steal: the other sides' pile tops are items like loose cards.
    items = [(x, None) for x in loose + sorted(stealable_tops(st))] + [(None, b) for b in builds]
    owned = [b.value for b in builds if b.owner == seat]
    out: set[tuple] = set()
    for c in hand:
        rest = [x for x in hand if x != c]
        cv = card_value(st, c)
        same = {x for x in loose if x[:-1] == c[:-1]}
        if not owned and not (r.dom_trail and same):
            out.add(("trail", c, frozenset(), None))
        values = readings(st, c)  # V-fin-values: a Finnish card captures by its hand value
        for k in range(1, len(items) + 1):
            for chosen in combinations(items, k):
                s_loose = [x for x, b in chosen if x is not None]
                s_builds = [b for x, b in chosen if b is not None]
                taken = set(s_loose)
                for b in s_builds:
                    taken.update(deck.strs(b.cards))
                taken = frozenset(taken)
                lvals = [card_value(st, x) for x in s_loose]
                # Captures.
                if cv is None:  # C-face
                    if k == 1 and s_loose and s_loose[0][:-1] == c[:-1]:
                        out.add(("capture", c, taken, None))
                    continue
                if None in lvals:
                    continue
                desc = sorted(lvals, reverse=True)
                ok = [v for v in values if all(b.value == v for b in s_builds)
                      and splits_into(desc, v, royal and v == 14)]
                if ok and not (r.dom_trail and not same <= set(s_loose)):
                    left = [b.value for b in builds if b.owner == seat and b not in s_builds]
                    if holds_for(st, rest, left):
                        out.add(("capture", c, taken, ok[0]))
                if not r.building:
                    continue
                # Builds.
                mine_left = [b.value for b in builds if b.owner == seat and b not in s_builds]
                candidates = []
                if len({b.value for b in s_builds}) <= 1:  # make / extend / merge
                    with_card = sorted(lvals + [cv], reverse=True)
                    total = sum(with_card)
                    for V in range(1, top + 1):
                        if s_builds and s_builds[0].value != V:
                            continue
                        if V in by_value and by_value[V] not in s_builds:
                            continue  # C-one-per-value: a new set of V joins the V-build
                        lone = royal and V == 14
                        if (lone or total % V == 0) and splits_into(with_card, V, lone):
                            candidates.append(V)
                for b in s_builds:  # C-build-raise by the played card
                    V = b.value + cv
                    if b.multiple or V > top or (r.dom_build and b.owner == seat):
                        continue
                    others = [x for x in s_builds if x is not b]
                    vb = by_value.get(V)
                    if others != ([vb] if vb is not None else []):
                        continue
                    if splits_into(desc, V, royal and V == 14):
                        candidates.append(V)
                for V in candidates:
                    if holds_for(st, rest, mine_left + [V]):
                        out.add(("build", c, taken, V))
    return out


def engine_outcomes(moves: list[Move]) -> set[tuple]:
    return {(m.kind, m.played[0], m.taken, m.value) for m in moves}


def compare_with_reference(st: State) -> None:
    moves = legal_moves(st)
    ref = reference_moves(st)
    got = engine_outcomes(moves)
    assert len(got) == len(moves)
    missing = sorted(map(str, ref - got))
    extra = sorted(map(str, got - ref))
    assert not missing and not extra, (
        f"legal_moves differs from RULES.md\nstate: {json.dumps(st.to_spec())}\n"
        f"missing: {missing}\nextra: {extra}")


# -- the random-game driver ----------------------------------------------------------------

def play_game(variant: str, players: int, partnerships: bool, seed: int, heavy_every: int,
              *, check: bool = True) -> tuple[list[str], State]:
    """Play one seeded game with random legal moves, checking everything on the way."""
    rng = random.Random(seed * 7919 + players)
    st = new_game(variant, players, seed=seed, partnerships=partnerships)
    tracker = Tracker(st) if check else None
    history: list[str] = []
    step = 0
    while not st.game_over:
        moves = legal_moves(st)
        heavy = heavy_every and step % heavy_every == 0
        if check:
            check_state(st)
            check_moves(st, moves)
            if heavy:
                check_spec_round_trip(st, moves)
                check_notation(st, moves)
                check_illegal_probes(st, moves, rng)
        move = rng.choice(moves)
        before = (st.to_spec() if heavy else snapshot(st)) if check else None
        new = apply_move(st, move)
        if check:
            after = st.to_spec() if heavy else snapshot(st)
            assert after == before, "apply_move changed its input"
            tracker.step(st, move, new)
        history.append(str(move))
        st = new
        step += 1
        assert step < 5000, "game does not end"
    if check:
        check_state(st)
        check_moves(st, legal_moves(st))
        check_spec_round_trip(st, [])
        assert tracker.hands_done >= 1
    return history, st


@pytest.mark.parametrize(("variant", "players", "partnerships"), CONFIGS, ids=CONFIG_IDS)
def test_random_games(variant: str, players: int, partnerships: bool) -> None:
    """C-deck, C-deal, C-turn, C-capture, C-build*, C-one-per-value, C-move, C-residue,
    C-sweep, V-cancel, C-score, C-game, V-countout, V-dom-trail, V-dom-end over many seeded
    random games, plus non-mutation, spec round trip, notation round trip, illegal probes."""
    for seed in range(GAMES_DEFAULT):
        play_game(variant, players, partnerships, seed, HEAVY_EVERY if seed else 1)


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "players", "partnerships"), CONFIGS, ids=CONFIG_IDS)
def test_random_games_slow(variant: str, players: int, partnerships: bool) -> None:
    """The same invariants over thousands of games per configuration (CASINO_SLOW=1)."""
    for seed in range(10_000, 10_000 + GAMES_SLOW):
        play_game(variant, players, partnerships, seed, 25)


SWITCHED = [
    ("casino", 2, False, {"sweeps": True}),
    ("casino", 4, True, {"sweeps": True}),
    ("royal", 3, False, {"sweeps": True, "countout": False}),
    ("dominican", 4, True, {"soto": True, "partner_build": True}),
    ("dominican", 2, False, {"twenty_by_two_spades": True, "restricted_no_sweeps": True}),
    ("dominican", 3, False, {"cancel": False}),
    ("casino", 2, False, {"target": 11}),  # two sides: difference scoring (V-target)
    ("royal", 2, False, {"target": 11, "difference": False}),
    ("casino", 3, False, {"target": 11}),  # three sides: a plain target of 11
    ("royal", 4, True, {"target": 50}),
    # V-points: house scoring tables
    ("casino", 2, False, {"sweeps": True, "points": {"cards": 2, "spades": 2, "aces": 2,
                                                     "sweep": 3}}),
    ("royal", 3, False, {"points": {"big_casino": 4, "little_casino": 0}}),
    ("dominican", 2, False, {"points": {"aces": 2, "sweep": 2}}),
    # The Nordic presets' switches (V-swe-score, V-fin-score, V-cancel, V-earned, V-target)
    ("swedish", 3, False, {"points": {"spades": 1, "last_capture": 0, "sweep": 2}}),
    ("swedish", 2, False, {"sweeps": False}),
    ("swedish", 2, False, {"target": 11}),
    ("finnish", 2, False, {"earned": False}),
    ("finnish", 4, True, {"cancel": False, "points": {"cards": 2}}),
    ("swazi", 3, False, {"points": {"cards": 4, "spades": 3}}),  # ties: 2 and 1 each
    ("swazi", 2, False, {"dom_build": False, "target": 11}),
]


@pytest.mark.parametrize(("variant", "players", "partnerships", "switches"), SWITCHED,
                         ids=[f"{v}-{p}p-{'-'.join(s)}" for v, p, _, s in SWITCHED])
def test_random_games_with_switches(variant, players, partnerships, switches) -> None:
    """C-sweep, V-cancel, V-soto, V-partner-build, V-dom-end switches, C-game, V-target
    (target 11 with difference scoring for two sides, a plain target otherwise, target 50) and
    V-points (house scoring tables): the same invariants with rule switches on."""
    for seed in range(8):
        rng = random.Random(seed)
        st = new_game(variant, players, seed=seed, partnerships=partnerships, **switches)
        tracker = Tracker(st)
        while not st.game_over:
            moves = legal_moves(st)
            check_state(st)
            check_moves(st, moves)
            if rng.random() < 0.1:
                check_spec_round_trip(st, moves)
                check_notation(st, moves)
                check_illegal_probes(st, moves, rng)
            move = rng.choice(moves)
            before = st.to_spec()
            new = apply_move(st, move)
            assert st.to_spec() == before
            tracker.step(st, move, new)
            st = new
        check_state(st)
        check_spec_round_trip(st, [])


@pytest.mark.parametrize(("variant", "players", "partnerships"), CONFIGS, ids=CONFIG_IDS)
def test_same_seed_same_game(variant: str, players: int, partnerships: bool) -> None:
    """Determinism: the same seed gives identical move lists and final specs."""
    for seed in (3, 12345):
        h1, s1 = play_game(variant, players, partnerships, seed, 0, check=False)
        h2, s2 = play_game(variant, players, partnerships, seed, 0, check=False)
        assert h1 == h2
        assert s1.to_spec() == s2.to_spec()
        assert s1 == s2


# -- hypothesis: random seeds and random move indices ----------------------------------------

HYPOTHESIS_CONFIGS = [(v, p, part, {}) for v, p, part in CONFIGS] + SWITCHED


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=hst.sampled_from(HYPOTHESIS_CONFIGS),
    seed=hst.integers(min_value=0, max_value=2**63 - 1),
    picks=hst.lists(hst.integers(min_value=0, max_value=10**6), min_size=1, max_size=160),
)
def test_hypothesis_random_walks(config, seed, picks) -> None:
    """C-deck and build invariants (C-build, C-build-keep, C-one-per-value) hold,
    to_spec/from_spec round-trips and apply_move never mutates its input along any sequence
    of legal moves, with and without rule switches."""
    variant, players, partnerships, switches = config
    st = new_game(variant, players, seed=seed, partnerships=partnerships, **switches)
    check_state(st)
    for i, pick in enumerate(picks):
        if st.game_over:
            break
        moves = legal_moves(st)
        check_moves(st, moves)
        move = moves[pick % len(moves)]
        spec = st.to_spec()
        new = apply_move(st, move)
        assert st.to_spec() == spec
        assert State.from_spec(spec) == st
        check_state(new)
        if i % 10 == 0:
            check_spec_round_trip(new, legal_moves(new))
        st = new
    check_spec_round_trip(st, legal_moves(st))


def reference_games(variant: str, players: int, partnerships: bool, seeds: range,
                    every: int, max_items: int) -> int:
    checked = 0
    for seed in seeds:
        rng = random.Random(seed)
        st = new_game(variant, players, seed=seed, partnerships=partnerships)
        step = 0
        while not st.game_over:
            if step % every == 0 and len(st.table) <= max_items:
                compare_with_reference(st)
                checked += 1
            st = apply_move(st, rng.choice(legal_moves(st)))
            step += 1
    return checked


@pytest.mark.parametrize(("variant", "players", "partnerships"), CONFIGS, ids=CONFIG_IDS)
def test_legal_moves_match_reference(variant: str, players: int, partnerships: bool) -> None:
    """C-move and every move rule: legal_moves lists exactly the outcomes an independent
    brute-force reading of RULES.md allows, on states sampled from random games."""
    assert reference_games(variant, players, partnerships, range(3), 4, 7) > 40


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "players", "partnerships"), CONFIGS, ids=CONFIG_IDS)
def test_legal_moves_match_reference_slow(variant: str, players: int,
                                          partnerships: bool) -> None:
    """As test_legal_moves_match_reference, every other state with up to 9 table items of 100
    games per configuration (CASINO_SLOW=1)."""
    assert reference_games(variant, players, partnerships, range(100, 200), 2, 9) > 1000


# -- random handcrafted positions (builds of every kind) -------------------------------------

def random_position(rng: random.Random, variant: str, players: int, partnerships: bool,
                    switches: dict | None = None) -> State | None:
    """A random legal-looking position with builds, via from_spec; None if the spec is refused
    (e.g. it needs two Aces for a 1-build and a 14-build)."""
    royal = variant != "casino"
    top = 14 if royal else 10
    names = [c for c in new_game(variant, players, seed=0).rules.deck.names]
    rng.shuffle(names)
    pool = list(names)

    def value(c: str) -> int | None:
        rank = c[:-1]
        if rank == "A":
            return 1
        if rank in "JQK":
            return {"J": 11, "Q": 12, "K": 13}[rank] if royal else None
        return int(rank)

    hands: list[list[str]] = [[] for _ in range(players)]
    table: list = []
    used_values: set[int] = set()
    for _ in range(rng.randint(0, 3) if PRESETS[variant].building else 0):
        V = rng.randint(1, top)
        if V in used_values:
            continue
        sets = rng.choice((1, 1, 2, 3))
        cards: list[str] = []
        for _ in range(sets):
            group = _random_group(rng, pool, value, V, royal)
            if group is None:
                break
            cards += group
        if len(cards) < 2:  # C-build: a build holds at least two cards
            pool += cards
            continue
        owner = rng.randrange(players)
        keeper = next((c for c in pool if c[:-1] == rank_class(V)), None)
        if keeper is None:
            pool += cards
            continue
        pool.remove(keeper)
        hands[owner].append(keeper)
        used_values.add(V)
        single = sum(value(c) for c in cards) == V
        table.append({"cards": cards, "value": V, "owner": owner, "multiple": not single})
    for seat in range(players):
        for _ in range(rng.randint(1, 4) - len(hands[seat]) if len(hands[seat]) < 4 else 0):
            hands[seat].append(pool.pop())
    for _ in range(rng.randint(0, 6)):
        table.append(pool.pop())
    sides = 2 if partnerships else players
    piles: list[list[str]] = [[] for _ in range(sides)]
    stock = pool[:rng.choice((0, 0, 4 * players))]
    for c in pool[len(stock):]:
        piles[rng.randrange(sides)].append(c)
    spec = {"variant": variant, "players": players, "partnerships": partnerships,
            "hands": hands, "table": table, "stock": stock, "piles": piles,
            "current": rng.randrange(players), "dealer": rng.randrange(players),
            "last_capturer": rng.choice([None, *range(players)]), "seed": rng.randrange(10**6)}
    if switches:
        spec["rules"] = switches
    try:
        return State.from_spec(spec)
    except ValueError:
        return None


def _random_group(rng, pool, value, V, royal) -> list[str] | None:
    """Up to a few tries at a set of pool cards summing to V (a lone Ace for a Royal 14)."""
    if royal and V == 14 and rng.random() < 0.3:
        ace = next((c for c in pool if c[0] == "A"), None)
        if ace is not None:
            pool.remove(ace)
            return [ace]
    for _ in range(20):
        group: list[str] = []
        total = 0
        for c in list(pool):
            v = value(c)
            if v is None or total + v > V or rng.random() < 0.6:
                continue
            group.append(c)
            total += v
            if total == V:
                break
        if total == V and len(group) >= 1:
            for c in group:
                pool.remove(c)
            return group
    return None


@pytest.mark.parametrize(("variant", "players", "partnerships"), CONFIGS, ids=CONFIG_IDS)
def test_random_positions_match_reference(variant: str, players: int,
                                          partnerships: bool) -> None:
    """C-build, C-build-raise, C-build-extend, C-build-keep, C-one-per-value, C-owner-trail,
    V-dom-trail, V-dom-build on random positions with single and multiple builds: the legal
    moves equal the brute-force reading of RULES.md, every one applies to a state that keeps
    the invariants, and random other moves are refused."""
    made = random_positions(variant, players, partnerships, f"{variant}{players}{partnerships}",
                            120, 7)
    assert made >= 50


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "players", "partnerships"), CONFIGS, ids=CONFIG_IDS)
def test_random_positions_match_reference_slow(variant: str, players: int,
                                               partnerships: bool) -> None:
    """As test_random_positions_match_reference on thousands of positions (CASINO_SLOW=1)."""
    assert random_positions(variant, players, partnerships, "slow", 4000, 9) >= 2000


def random_positions(variant: str, players: int, partnerships: bool, seed: str, tries: int,
                     max_items: int) -> int:
    rng = random.Random(seed)
    made = 0
    for _ in range(tries):
        st = random_position(rng, variant, players, partnerships)
        if st is None or st.game_over or len(st.table) > max_items:
            continue
        made += 1
        check_state(st)
        moves = legal_moves(st)
        check_moves(st, moves)
        compare_with_reference(st)
        check_notation(st, moves)
        check_spec_round_trip(st, moves)
        check_illegal_probes(st, moves, rng)
        before = snapshot(st)
        for m in moves:
            check_state(apply_move(st, m))
        assert snapshot(st) == before
    return made


# -- krypkasino: two decks, compulsory maximal captures, penalties ---------------------------
#
# V-kryp-values (104 cards, two copies of each, an Ace 14 from hand and 1 on the table),
# V-kryp-seats (teams 0+2 v 1+3 of four, 0+3, 1+4, 2+5 of six), V-kryp-play (no building; a
# card that can capture must, maximally; the deal of V-tux-deal, six players' leftover to the
# table), V-kryp-score (penalties 10D 3, 2S 2, aces and other spades 1: 42 a hand; tabbe +5
# and -5 to the seat before, dubbeltabbe +-10), V-kryp-end (after a hand with a side at 50,
# the lowest total wins; a tie for it plays on). Cards are followed as multisets of names, so
# the checks do not depend on which copy the engine numbers where; canonical numbering is
# checked on its own.

KRYP_SEATINGS = ((2, False), (3, False), (4, False), (4, True), (5, False), (6, False),
                 (6, True))
KRYP_CONFIGS = [("krypkasino", p, part) for p, part in KRYP_SEATINGS]
KRYP_IDS = [f"krypkasino-{p}p{'-partners' if part else ''}" for _, p, part in KRYP_CONFIGS]
KRYP_GAMES = 4  # full games per seating in the default run (a game is 2-4 hands of 104 cards)
KRYP_DEALS = {2: 13, 3: 9, 4: 7, 5: 5, 6: 4}  # V-kryp-play: deals in a hand of 104 cards
KRYP_ORACLE_TABLE = 8  # the brute-force generator runs on tables of up to this many cards
KRYP_SCORE = {"big_casino": 3, "little_casino": 2, "aces": 1, "spades": 1, "sweep": 5}


def kryp_points(r) -> dict[str, int]:
    """V-kryp-score's penalty per item, with a V-points table over it."""
    return {**KRYP_SCORE, **dict(getattr(r, "points", ()))}


def kryp_penalty(r, card: str) -> int:
    """V-kryp-score: one copy's penalty: 10D 3, 2S 2, an Ace 1, a spade other than the 2S 1
    (so the AS 2)."""
    pts = kryp_points(r)
    out = pts["big_casino"] if card == "10D" else 0
    out += pts["little_casino"] if card == "2S" else 0
    out += pts["aces"] if card[0] == "A" else 0
    out += pts["spades"] if card[-1] == "S" and card != "2S" else 0
    return out


def kryp_value(card: str, from_hand: bool) -> int:
    """V-kryp-values: J 11, Q 12, K 13; an Ace 14 from hand, 1 on the table."""
    rank = card[:-1]
    if rank == "A":
        return 14 if from_hand else 1
    return {"J": 11, "Q": 12, "K": 13}.get(rank) or int(rank)


def sums_reachable(values) -> int:
    """Bit ``s`` set when some sub-multiset of ``values`` sums to ``s`` (``s`` > 0)."""
    reach = 1
    for v in values:
        reach |= reach << v
    return reach & ~1


def kryp_side(r, seat: int) -> int:
    """V-kryp-seats: seat s plays for side s % sides (0+2 v 1+3; 0+3, 1+4, 2+5)."""
    return seat % r.sides if r.partnerships else seat


def kryp_places(st: State) -> Counter:
    """Every card of the state by name, wherever it is (hands, table, stock, piles)."""
    every = [c for h in st.hands for c in h] + st.loose + st.stock
    return Counter(every + [c for p in st.piles for c in p])


def check_kryp_state(st: State) -> None:
    """V-kryp-values: 104 cards, each card in exactly one place and every kind exactly twice;
    no builds (V-kryp-play); the copies numbered canonically; V-kryp-end at the game's end."""
    r = st.rules
    deck = r.deck
    assert deck.size == 104 and deck.copies == 2  # V-kryp-values
    assert len(st.hand_masks) == r.players and len(st.pile_masks) == len(st.scores) == r.sides
    parts = list(st.hand_masks) + [st.loose_mask] + list(st.pile_masks)
    stock = 0
    for cid in st.stock_ids:
        assert not stock >> cid & 1, "a card id twice in the stock"
        stock |= 1 << cid
    union = stock
    for p in parts:
        assert not union & p, f"a card copy is in two places: {deck.strs(union & p)}"
        union |= p
    assert union == deck.full, f"cards missing: {deck.strs(deck.full & ~union)}"
    assert kryp_places(st) == Counter(DECK2), "a card is not there exactly twice"
    assert not st.builds and all(isinstance(x, str) for x in st.table)  # V-kryp-play
    same = st._copy()
    renumber(same)
    assert same == st, "the copies are not numbered canonically"
    if not r.sweeps:
        assert not any(st.sweeps)
    if st.game_over:  # V-kryp-end: a side reached the target; the unique lowest total won
        assert st.winner is not None and max(st.scores) >= r.target
        assert st.scores[st.winner] == min(st.scores)
        assert list(st.scores).count(min(st.scores)) == 1
        assert legal_moves(st) == []
    else:
        assert st.winner is None
        assert st.hand_masks[st.current], "the seat to move holds no cards"
        swept = [e for e in st.events if e[1] in ("tabbe", "dubbeltabbe")]
        assert sum(st.sweeps) == len(swept)


def kryp_move_key(m: Move) -> tuple:
    return (m.kind, m.played, tuple(sorted(m.taken_cards, key=DECK2.index)), m.value)


def check_kryp_moves(st: State, moves: list[Move]) -> None:
    """V-kryp-play, V-kryp-values, C-move: every card of the hand has a move; a card that can
    capture only captures, maximally (no set of its value left among the loose cards), and
    every card that can capture nothing trails; each outcome is listed once; on small tables
    the moves are exactly those of the brute-force generator of tests/test_rules_kryp.py."""
    if not listed_once(st, moves, kryp_move_key):
        return
    hand = st.hand(st.current)
    loose = Counter(st.loose)
    reach = sums_reachable(kryp_value(c, False) for c in st.loose)
    assert {m.played[0] for m in moves} == set(hand), "a card of the hand has no move"
    for m in moves:
        card = m.played[0]
        v = kryp_value(card, True)
        can = bool(reach >> v & 1)
        assert len(m.played) == 1 and card in hand  # C-turn
        if m.kind == "trail":
            assert not can, f"V-kryp-play: {card} can capture but trails"
            assert not m.taken_cards and m.value is None
            continue
        assert m.kind == "capture", "V-kryp-play: no building"
        assert can and m.value == v
        taken = Counter(m.taken_cards)
        assert not taken - loose, "a capture takes cards that are not on the table"
        vals = sorted((kryp_value(c, False) for c in m.taken_cards), reverse=True)
        if len(vals) <= 10:
            assert splits_into(vals, v, False), f"{m}: not sets of {v}"
        left = (loose - taken).elements()
        assert not sums_reachable(kryp_value(c, False) for c in left) >> v & 1, (
            f"V-kryp-play: {m} is not maximal")
    if len(st.loose) <= KRYP_ORACLE_TABLE:
        texts = [str(m) for m in moves]
        want = expected_moves(hand, st.loose)
        assert set(texts) == want, (
            f"legal_moves differs from V-kryp-play\nstate: {json.dumps(st.to_spec())}\n"
            f"missing: {sorted(want - set(texts))}\nextra: {sorted(set(texts) - want)}")


def check_kryp_probes(st: State, moves: list[Move], rng: random.Random) -> None:
    """Moves not listed raise IllegalMoveError naming a rule: a card the mover does not hold
    (C-turn), the trail of a card that can capture (V-kryp-play), a build (V-kryp-play), and
    random captures (C-capture or V-kryp-play unless listed); listed ones apply the same
    whichever way they are written."""
    if st.game_over:
        return
    deck, seat, hand, elsewhere = mover(st)
    before = snapshot(st)
    card = rng.choice(elsewhere)
    with pytest.raises(IllegalMoveError) as info:
        apply_move(st, Move("trail", card))
    assert info.value.rule == "C-turn" and snapshot(st) == before
    capturing = {m.played[0] for m in moves if m.kind == "capture"}
    for c in capturing:
        with pytest.raises(IllegalMoveError, match="must capture") as info:
            apply_move(st, Move("trail", c))
        assert info.value.rule == "V-kryp-play"
    if st.loose:
        with pytest.raises(IllegalMoveError) as info:
            apply_move(st, Move("build", rng.choice(hand), st.loose[:1], 14))
        assert info.value.rule == "V-kryp-play"
    listed = {(m.played[0], kryp_move_key(m)[2]): m for m in moves if m.kind == "capture"}
    for _ in range(4):
        c = rng.choice(hand)
        taken = tuple(sorted(rng.sample(st.loose, rng.randint(1, min(4, len(st.loose)))),
                             key=DECK2.index)) if st.loose else ()
        if not taken:
            break
        probe = Move("capture", c, list(taken))
        if (c, taken) in listed:
            assert apply_move(st, probe) == apply_move(st, listed[(c, taken)])
        else:
            assert_illegal(st, probe, before)
    assert snapshot(st) == before


class KrypTracker:
    """Follows one krypkasino game with cards as multisets of names and checks each
    transition: V-kryp-play deals, captures, trails and turns; V-kryp-score tabbe and
    dubbeltabbe events and each hand's penalty points; V-kryp-end."""

    def __init__(self, st: State) -> None:
        self.rules = st.rules
        self.hands_done = 0
        self.check_new_hand(st, first=True)

    def check_new_hand(self, st: State, first: bool = False) -> None:
        r = self.rules
        n = r.players
        assert [len(h) for h in st.hands] == [4] * n  # V-kryp-play: 4 each, 4 to the table
        assert len(st.loose) == 4 and len(st.stock) == 104 - 4 - 4 * n
        assert not any(st.piles) and not any(st.sweeps) and not st.events
        assert st.current == (st.dealer + 1) % n
        if first:
            assert st.dealer == n - 1 and st.scores == [0] * r.sides
        self.deals = 1
        self.moved = 0  # moves made in this hand

    def step(self, prev: State, move: Move, new: State) -> None:
        r = self.rules
        n = r.players
        seat = prev.current
        side = kryp_side(r, seat)
        card = move.played[0]
        loose = Counter(prev.loose)
        piles = [Counter(p) for p in prev.piles]
        events = list(prev.events)
        sweeps = list(prev.sweeps)
        last = prev.last_capturer
        if move.kind == "capture":
            taken = Counter(move.taken_cards)
            assert not taken - loose
            loose -= taken
            piles[side] += taken + Counter([card])
            last = seat
            if not loose and r.sweeps:  # V-kryp-score: a tabbe, or a dubbeltabbe
                double = list(move.taken_cards) == [card]
                pts = kryp_points(r)["sweep"] * (2 if double else 1)
                item = "dubbeltabbe" if double else "tabbe"
                events.append((side, item, pts))
                if self.moved:  # (decision: the hand's first move credits no one)
                    events.append((kryp_side(r, (seat - 1) % n), item + " credit", -pts))
                sweeps[side] += 1
        else:
            assert move.kind == "trail"
            loose[card] += 1
        self.moved += 1
        hands = [Counter(h) for h in prev.hands]
        hands[seat][card] -= 1
        left_in_hands = sum(sum(h.values()) for h in hands)
        if left_in_hands:  # the hand goes on
            assert Counter(new.loose) == loose and [Counter(p) for p in new.piles] == piles
            assert [Counter(h) for h in new.hands] == [+h for h in hands]
            assert new.stock == prev.stock and new.events == tuple(events)
            assert list(new.sweeps) == sweeps and new.last_capturer == last
            assert new.scores == prev.scores and new.dealer == prev.dealer
            order = [(seat + k) % n for k in range(1, n + 1)]
            assert new.current == next(s for s in order if new.hand_masks[s])  # C-turn
            return
        if prev.stock:  # a new deal (V-kryp-play: 4 each, else a share and the rest up)
            self.deals += 1
            left = len(prev.stock)
            per = 4 if left >= 4 * n else left // n
            to_table = left - per * n if per < 4 or left - 4 * n < n else 0
            assert [len(h) for h in new.hands] == [per] * n, (left, new.hands)
            assert len(new.stock) == left - per * n - to_table
            dealt = Counter(prev.stock[:per * n + to_table])
            assert Counter(new.loose) == loose + dealt - Counter(c for h in new.hands
                                                                 for c in h)
            assert [Counter(p) for p in new.piles] == piles and new.events == tuple(events)
            assert new.current == (prev.dealer + 1) % n
            if not new.stock:
                assert self.deals == KRYP_DEALS[n]
            return
        # The hand ends: the residue to the last capturer (C-residue, no sweep), penalties.
        assert self.deals == KRYP_DEALS[n]
        taker = last if last is not None else prev.dealer
        piles[kryp_side(r, taker)] += loose
        cards = [sum(kryp_penalty(r, c) * k for c, k in p.items()) for p in piles]
        if not getattr(r, "points", ()):
            assert sum(cards) == 42  # V-kryp-score: 21 a deck
        expected = list(cards)
        for s, _, pts in events:
            expected[s] += pts
        assert new.hand_points == expected, (new.hand_points, expected, events)
        totals = [a + b for a, b in zip(prev.scores, expected)]
        assert new.scores == totals
        self.hands_done += 1
        low = min(totals)
        if max(totals) >= r.target and totals.count(low) == 1:  # V-kryp-end
            assert new.game_over and new.winner == totals.index(low)
            assert [Counter(p) for p in new.piles] == piles  # the last hand stays visible
        else:
            assert not new.game_over
            assert new.dealer == (prev.dealer + 1) % n and new.hand_no == prev.hand_no + 1
            self.check_new_hand(new)


def play_kryp_game(players: int, partnerships: bool, seed: int, heavy_every: int, *,
                   check: bool = True, switches: dict | None = None) -> tuple[list[str], State]:
    """One seeded krypkasino game of random legal moves, checked at every move."""
    rng = random.Random(seed * 7919 + players)
    st = new_game("krypkasino", players, seed=seed, partnerships=partnerships,
                  **(switches or {}))
    tracker = KrypTracker(st) if check else None
    history: list[str] = []
    step = 0
    while not st.game_over:
        moves = legal_moves(st)
        if check:
            check_kryp_state(st)
            check_kryp_moves(st, moves)
            if heavy_every and step % heavy_every == 0:
                check_spec_round_trip(st, moves)
                for m in moves:
                    assert parse_move(str(m), st) == m, str(m)
                check_kryp_probes(st, moves, rng)
        move = rng.choice(moves)
        before = (st.to_spec(), snapshot(st)) if check else None
        new = apply_move(st, move)
        if check:
            assert (st.to_spec(), snapshot(st)) == before, "apply_move changed its input"
            tracker.step(st, move, new)
        history.append(str(move))
        st = new
        step += 1
        assert step < 5000, "game does not end"
    if check:
        check_kryp_state(st)
        assert tracker.hands_done >= 1
    return history, st


@pytest.mark.parametrize(("variant", "players", "partnerships"), KRYP_CONFIGS, ids=KRYP_IDS)
def test_kryp_random_games(variant: str, players: int, partnerships: bool) -> None:
    """V-kryp-values, V-kryp-seats, V-kryp-play, V-kryp-score, V-kryp-end, C-move over seeded
    random games at every seating: 104 cards each in one place, the legal moves those of
    compulsory maximal capture (brute force on small tables), each hand's penalties with
    tabbe and dubbeltabbe, the game's end; non-mutation, spec and notation round trips,
    illegal probes."""
    for seed in range(KRYP_GAMES):
        play_kryp_game(players, partnerships, seed, HEAVY_EVERY if seed else 1)


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "players", "partnerships"), KRYP_CONFIGS, ids=KRYP_IDS)
def test_kryp_random_games_slow(variant: str, players: int, partnerships: bool) -> None:
    """The same over hundreds of games per seating (CASINO_SLOW=1)."""
    for seed in range(10_000, 10_000 + GAMES_SLOW // 4):
        play_kryp_game(players, partnerships, seed, 25)


@pytest.mark.parametrize(("players", "partnerships", "switches"), [
    (2, False, {"points": {"sweep": 3, "big_casino": 5}}),
    (3, False, {"target": 20}),
    (6, True, {"points": {"aces": 2, "spades": 0}, "target": 30}),
])
def test_kryp_random_games_with_switches(players, partnerships, switches) -> None:
    """V-points and the `target` switch (V-kryp-end) in krypkasino: the same checks."""
    for seed in range(2):
        play_kryp_game(players, partnerships, seed, HEAVY_EVERY, switches=switches)


@pytest.mark.parametrize(("variant", "players", "partnerships"), KRYP_CONFIGS, ids=KRYP_IDS)
def test_kryp_same_seed_same_game(variant: str, players: int, partnerships: bool) -> None:
    """Determinism: the same seed gives identical moves and final states."""
    h1, s1 = play_kryp_game(players, partnerships, 12345, 0, check=False)
    h2, s2 = play_kryp_game(players, partnerships, 12345, 0, check=False)
    assert h1 == h2 and s1.to_spec() == s2.to_spec() and s1 == s2


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=hst.sampled_from(KRYP_SEATINGS),
    seed=hst.integers(min_value=0, max_value=2**63 - 1),
    picks=hst.lists(hst.integers(min_value=0, max_value=10**6), min_size=1, max_size=120),
)
def test_kryp_hypothesis_random_walks(config, seed, picks) -> None:
    """V-kryp-values (every card twice, each copy in one place, canonical copies) and
    V-kryp-play (the legal moves) along any sequence of legal moves; to_spec/from_spec
    round-trips and apply_move never mutates its input."""
    players, partnerships = config
    st = new_game("krypkasino", players, seed=seed, partnerships=partnerships)
    for i, pick in enumerate(picks):
        check_kryp_state(st)
        if st.game_over:
            break
        moves = legal_moves(st)
        check_kryp_moves(st, moves)
        spec = st.to_spec()
        new = apply_move(st, moves[pick % len(moves)])
        assert st.to_spec() == spec and State.from_spec(spec) == st
        if i % 10 == 0:
            check_spec_round_trip(new, legal_moves(new))
        st = new
    check_kryp_state(st)


def test_kryp_final_state_is_canonical_small() -> None:
    """Two decks (docs/rules.md "Canonical copies"): the state that ends the game numbers its
    copies canonically and round-trips. 5C trails onto 4H, the hand's last card; the residue
    (4H, 5C) goes to side 1, the last capturer, whose 60 ends the game (V-kryp-end)."""
    spec = {"variant": "krypkasino", "players": 2, "hands": [["5C"], []], "table": ["4H"],
            "piles": [["4H"], ["9C"]], "stock": [], "current": 0, "dealer": 0,
            "last_capturer": 1, "scores": [10, 60]}
    end = apply_move(State.from_spec(spec), "5C trails")
    assert end.game_over and end.winner == 0
    assert end.piles == [["4H"], ["4H", "5C", "9C"]]
    same = end._copy()
    renumber(same)
    assert same == end
    assert State.from_spec(end.to_spec()) == end


@pytest.mark.parametrize(("variant", "players", "partnerships"), KRYP_CONFIGS, ids=KRYP_IDS)
def test_kryp_final_state_is_canonical(variant: str, players: int, partnerships: bool) -> None:
    """Two decks: every finished random game's last state is canonical and round-trips (the
    spec and the legal moves, none)."""
    for seed in range(KRYP_GAMES):
        _, st = play_kryp_game(players, partnerships, seed, 0, check=False)
        same = st._copy()
        renumber(same)
        assert same == st
        check_spec_round_trip(st, [])


@pytest.mark.parametrize("seed", range(3))
def test_kryp_first_move_tabbe_then_random_play(seed: int) -> None:
    """V-kryp-score (decision: the hand's first move credits no one): a hand whose first move
    sweeps the four table cards (the AH counts 14 from hand: 2C+3C+4C+5C), the stock shuffled
    by ``seed``, played out at random to the game's end with every check of the random games;
    the tracker expects the tabbe without a credit."""
    hands = [["AH", "9C", "9D", "8C"], ["6H", "6D", "7H", "7C"]]
    table = ["2C", "3C", "4C", "5C"]
    left = Counter(DECK2) - Counter(table + hands[0] + hands[1])
    stock = list(left.elements())
    random.Random(seed).shuffle(stock)
    st = State.from_spec({"variant": "krypkasino", "players": 2, "hands": hands,
                          "table": table, "stock": stock, "seed": seed})
    tracker = KrypTracker(st)
    rng = random.Random(seed)
    move = parse_move("AH captures 2C+3C+4C+5C", st)
    while True:
        moves = legal_moves(st)
        check_kryp_state(st)
        check_kryp_moves(st, moves)
        check_kryp_probes(st, moves, rng)
        before = snapshot(st)
        new = apply_move(st, move)
        assert snapshot(st) == before
        tracker.step(st, move, new)
        if move.played == ("AH",) and tracker.moved == 1:
            assert new.events == ((0, "tabbe", 5),)
        st = new
        if st.game_over:
            break
        move = rng.choice(legal_moves(st))
    check_kryp_state(st)
    assert tracker.hands_done >= 1
