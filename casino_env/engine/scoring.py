"""Scoring a hand (C-score, V-spade, V-spade-bicycle, Wippen, V-tux-score, V-swe-score,
V-fin-score, V-swazi-score, V-kryp-score, V-last-capture, V-points, V-target) and the end of
the game (C-game, V-countout, V-dom-end, V-soto, V-earned, V-swe-end, V-kryp-end).

In krypkasino the points are penalties: lower is better, and the winner is the side with the
lowest total (V-kryp-end).

A hand's points are a list of awards ``(item, side, points)`` in count-out order: most cards,
most spades, 10D, 2S, the aces in the order S C H D, then sweeps (variant items in between).
"""

from __future__ import annotations

from .cards import (
    CLUB,
    DIAMOND,
    HEART,
    JACK_OF_SPADES,
    SPADE,
    TEN_OF_DIAMONDS,
    TWO_OF_SPADES,
)
from .rules import Rules

ACE_ORDER = (SPADE, CLUB, HEART, DIAMOND)  # V-countout order of the aces; an Ace's id is its suit
ACE_OF_SPADES = SPADE
ACE_NAMES = {SPADE: "AS", CLUB: "AC", HEART: "AH", DIAMOND: "AD"}
FIVE_RANK = 5

# V-dom-end / V-soto: what a side short of the target by this many points may still score.
CRITERIA = {3: ("cards",), 2: ("10D",), 1: ("spades",), 5: ("cards", "10D"), 4: ("cards", "spades")}
MAJORITY = ("cards", "spades")  # items decided only once every card is captured
FINNISH_SWEEP_LIMIT = 10  # V-fin-score: no sweeps score once a side starts a hand with 10
# V-tux-score's points scored during play (the state's events): an orange, or a call of one
# (a false call costs as much); a sweep of 4 or more table cards, and of fewer.
TUX_ORANGE = 10
TUX_SWEEP_BIG, TUX_SWEEP_SMALL = 10, 5


def event_points(rules) -> dict[str, set[int]]:
    """The scoring events play records for these rules (the state's ``events``), and the
    points each can carry: V-tux-score's sweeps, oranges and calls; V-kryp-score's tabbes and
    their credits; none in the other games."""
    if rules.scoring == "tuxedo":
        return {"sweep": {TUX_SWEEP_SMALL, TUX_SWEEP_BIG}, "orange": {TUX_ORANGE},
                "orange call": {TUX_ORANGE}, "false call": {-TUX_ORANGE}}
    if rules.scoring == "kryp":
        p = rules.item_points.sweep
        return {"tabbe": {p}, "dubbeltabbe": {2 * p}, "tabbe credit": {-p},
                "dubbeltabbe credit": {-2 * p}}
    return {}


def sweep_scores(rules: Rules, scores: tuple, last_deal: bool) -> bool:
    """Whether a sweep made now is recorded (it scores, and cancels under V-cancel): always,
    except in Finnish during a hand's last deal or when a side started the hand (``scores``)
    with 10 or more (V-fin-score)."""
    if rules.scoring != "finnish":
        return True
    return not last_deal and max(scores) < FINNISH_SWEEP_LIMIT


def strict_max(counts: list[int]) -> int | None:
    """The side with strictly more than every other (C-score "most"), or None on a tie."""
    best = max(counts)
    if counts.count(best) != 1:
        return None
    return counts.index(best)


def _majority(counts: list[int], left: int | None) -> int | None:
    """Side sure of the majority: strictly more than every other side could still reach with
    the ``left`` uncaptured cards (None = the hand is over: strict maximum)."""
    if left is None:
        return strict_max(counts)
    for side, mine in enumerate(counts):
        if all(mine > c + left for s, c in enumerate(counts) if s != side):
            return side
    return None


def awards(rules: Rules, piles: tuple, sweeps: tuple, events: tuple = (),
           last_side: int | None = None, left: tuple | None = None) -> list:
    """The hand's scoring items by side, in count-out order, worth the points in force
    (``Rules.item_points``: the preset's, V-last-capture, V-points); items worth 0 are left out.

    ``left`` = (cards, spades) not yet captured: then only points already certain are
    listed (V-earned, V-hun-end); None scores the finished hand.
    """
    deck = rules.deck
    spade = deck.suit_mask[SPADE]
    scoring = rules.scoring
    pts = rules.item_points
    if scoring == "kryp":
        return _kryp_awards(rules, piles, events)
    out: list[tuple[str, int, int]] = []
    shared = scoring == "swazi" and left is None  # V-swazi-score: a tie for most gives 1 each
    if pts.cards:
        counts = [p.bit_count() for p in piles]
        s = _majority(counts, left[0] if left else None)
        if s is not None:
            out.append(("cards", s, pts.cards))
        elif shared:
            _tied(out, "cards", counts, pts.cards)
    if scoring == "tuxedo":
        five = deck.rank_mask[FIVE_RANK]
        for side, p in enumerate(piles):
            k = (p & five).bit_count()
            if k:
                out.append(("fives", side, 5 * k))
        for side, item, points in events:
            out.append((item, side, points))
        return out
    if scoring == "spade":  # V-spade: each spade scores (V-points: ``spades`` a spade)
        if pts.spades:
            for side, p in enumerate(piles):
                k = (p & spade).bit_count()
                if k:
                    out.append(("spades", side, k * pts.spades))
    elif pts.spades:
        counts = [(p & spade).bit_count() for p in piles]
        s = _majority(counts, left[1] if left else None)
        if s is not None:
            out.append(("spades", s, pts.spades))
        elif shared:
            _tied(out, "spades", counts, pts.spades)
    named = [(TEN_OF_DIAMONDS, "10D", pts.big_casino), (TWO_OF_SPADES, "2S", pts.little_casino)]
    if scoring == "spade":
        named.append((JACK_OF_SPADES, "JS", 1))  # V-spade: the JS scores 1 more as a spade
        if rules.bicycle:  # V-spade-bicycle: so do the AS and the 2S
            named += [(ACE_OF_SPADES, "AS bicycle", 1), (TWO_OF_SPADES, "2S bicycle", 1)]
    for card, name, points in named:
        if points:
            for side, p in enumerate(piles):
                if p >> card & 1:
                    out.append((name, side, points))
    if pts.aces:
        for ace in ACE_ORDER:
            for side, p in enumerate(piles):
                if p >> ace & 1:
                    out.append((ACE_NAMES[ace], side, pts.aces))
    if rules.sweeps and pts.sweep:
        for side, k in enumerate(sweeps):
            if k:
                out.append(("sweeps", side, k * pts.sweep))
    if rules.last_capture and pts.last_capture and last_side is not None and left is None:
        out.append(("last capture", last_side, pts.last_capture))
    return out


def _kryp_awards(rules: Rules, piles: tuple, events: tuple) -> list:
    """V-kryp-score: penalty points per side for the cards captured (each copy: 10D 3, 2S 2,
    each Ace 1, each other spade 1, so the AS 2 as Ace and spade) and, as recorded in play,
    each tabbe and dubbeltabbe and their credits to the player before."""
    deck = rules.deck
    pts = rules.item_points
    ranks, suits = deck.rank_mask, deck.suit_mask
    ten_d = ranks[10] & suits[DIAMOND]
    two_s = ranks[2] & suits[SPADE]
    items = (("10D", ten_d, pts.big_casino), ("2S", two_s, pts.little_casino),
             ("spades", suits[SPADE] & ~two_s, pts.spades), ("aces", ranks[1], pts.aces))
    out: list[tuple[str, int, int]] = []
    for name, mask, each in items:
        if each:
            for side, p in enumerate(piles):
                k = (p & mask).bit_count()
                if k:
                    out.append((name, side, k * each))
    for side, item, points in events:
        out.append((item, side, points))
    return out


def _tied(out: list, item: str, counts: list[int], points: int) -> None:
    """V-swazi-score: every side tied for the most scores half the item's points (rounded
    down: 1 each of the 2 points in force unless V-points changes them)."""
    best = max(counts)
    if points // 2:
        out.extend((item, side, points // 2) for side, k in enumerate(counts) if k == best)


def is_orange(rules: Rules, taken: int) -> bool:
    """V-tux-score: a capture whose table cards (``taken``) include a red and a yellow card."""
    suit = rules.deck.suit_mask  # colours R Y G B
    return bool(taken & suit[0]) and bool(taken & suit[1])


def earned_winner(totals: list[int], target: int) -> int | None:
    """V-earned: the side whose total, earned points included, reaches ``target`` strictly
    ahead of every other side; None while none does (sides tied on the highest total play on,
    C-game)."""
    best = max(totals)
    if best < target or totals.count(best) > 1:
        return None
    return totals.index(best)


def earned(rules: Rules, piles: tuple, sweeps: tuple, events: tuple, left: tuple) -> list[int]:
    """Points each side is already sure of during play (V-earned, V-hun-end)."""
    points = [0] * rules.sides
    for _, side, pts in awards(rules, piles, sweeps, events, None, left):
        points[side] += pts
    return points


def restricted(rules: Rules, scores: tuple) -> dict[int, int]:
    """V-dom-end: side -> points short of the target, for sides under endgame restrictions.
    None apply once any side has reached the target (tie-break hands are unrestricted)."""
    if not rules.dom_end or max(scores) >= rules.target:
        return {}
    low = 5 if rules.soto else 3
    return {side: rules.target - s for side, s in enumerate(scores)
            if 1 <= rules.target - s <= low}


def criteria(rules: Rules, short: int) -> tuple[str, ...]:
    if short == 1 and rules.twenty_by_two_spades:
        return ("2S",)
    return CRITERIA[short]


def certain(rules: Rules, item: str, side: int, piles: tuple, in_play: int,
            spades_in_play: int) -> bool:
    """True once ``side`` is sure of ``item`` whatever happens in the rest of the hand."""
    if item == "10D":
        return bool(piles[side] >> TEN_OF_DIAMONDS & 1)
    if item == "2S":
        return bool(piles[side] >> TWO_OF_SPADES & 1)
    if item == "cards":
        counts = [p.bit_count() for p in piles]
        left = in_play - sum(counts)
    else:
        spade = rules.deck.suit_mask[SPADE]
        counts = [(p & spade).bit_count() for p in piles]
        left = spades_in_play - sum(counts)
    return _majority(counts, left) == side


def finish_hand(rules: Rules, start: tuple, piles: tuple, sweeps: tuple, met: tuple,
                events: tuple = (), last_side: int | None = None) -> tuple[tuple, int | None]:
    """Points each side adds for the hand and the winning side, or None to play on."""
    aw = awards(rules, piles, sweeps, events, last_side)
    n = rules.sides
    limits = restricted(rules, start)
    points = [0] * n
    instant = []
    counted = []
    for side in range(n):
        mine = [a for a in aw if a[1] == side]
        if side in limits:
            need = criteria(rules, limits[side])
            got = [a for a in mine if a[0] in need]
            if len(got) == len(need):
                instant.append(side)
            elif limits[side] <= 3:
                got = []  # V-dom-end: a restricted side that misses its criterion scores nothing
            mine = got
        points[side] = sum(a[2] for a in mine)
        counted.extend(mine)
    if instant:
        first = [s for s in met if s in instant]
        return tuple(points), (first[0] if first else instant[0])
    if rules.difference:
        # V-target: only the side with more points scores, the difference.
        a, b = points
        points = [max(a - b, 0), max(b - a, 0)]
        counted = []
    counted.sort(key=aw.index)
    return tuple(points), decide(rules, start, points, counted, piles)


def decide(rules: Rules, start: tuple, points: list[int], counted: list,
           piles: tuple = ()) -> int | None:
    """C-game (higher total wins, a tie plays on), V-countout when several reach the target,
    or V-swe-end (equal totals: the side with more spades in ``piles``, this hand's);
    V-kryp-end: once a side's penalties reach the target the lowest total wins (a tie for it
    plays on)."""
    target = rules.target
    totals = [s + p for s, p in zip(start, points)]
    if rules.penalties:
        if max(totals) < target:
            return None
        low = min(totals)
        return totals.index(low) if totals.count(low) == 1 else None
    reached = [s for s, t in enumerate(totals) if t >= target]
    if len(reached) <= 1:
        return reached[0] if reached else None
    if rules.countout and counted and max(start) < target:
        run = list(start)
        items = [(item, side, pts) for item, side, pts in counted if item != "sweeps"]
        for k, (item, side, pts) in enumerate(items):
            run[side] += pts
            if k + 1 < len(items) and items[k + 1][0] == item:
                continue  # an item's awards are counted together (a tie gives each side some)
            crossed = [s for s in range(len(run)) if run[s] >= target]
            if len(crossed) == 1:
                return crossed[0]
            if crossed:  # several reach the target on one item: none first (decision: C-game)
                break
        else:  # nobody reached it before the sweeps: the most sweeps among those who did
            swept = {s: sum(p for it, sd, p in counted if it == "sweeps" and sd == s)
                     for s in reached}
            best = max(swept.values())
            tops = [s for s in reached if swept[s] == best]
            return tops[0] if len(tops) == 1 else None
    best = max(totals)
    tops = [s for s, t in enumerate(totals) if t == best]
    if len(tops) > 1 and rules.preset.tiebreak == "spades" and piles:
        spade = rules.deck.suit_mask[SPADE]
        counts = [(piles[s] & spade).bit_count() for s in tops]
        most = strict_max(counts)
        return None if most is None else tops[most]
    return tops[0] if len(tops) == 1 else None
