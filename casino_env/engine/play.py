"""State transitions: a new game, applying a move, dealing on, ending a hand.

``apply_move`` never changes its input; an illegal move raises ``IllegalMoveError`` naming
the rule it breaks.
"""

from __future__ import annotations

import random

from .cards import SPADE, bit_list
from .dealing import deal, shuffle
from .moves import Move, backs, legal_moves, parse_move
from .rules import make_rules
from .scoring import certain, criteria, finish_hand, restricted
from .sets import partitions
from .state import Build, Sides, State


class IllegalMoveError(ValueError):
    """A move the rules forbid here; ``rule`` is the id of the rule it breaks."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule


def new_game(variant: str = "casino", players: int = 2, seed: int | None = None,
             partnerships: bool | None = None, **switches) -> State:
    """A shuffled, dealt game. ``partnerships`` defaults to the preset's choice (only
    Dominican with 4 players plays as partners); ``seed=None`` draws a random seed."""
    rules = make_rules(variant, players, partnerships, switches)
    if seed is None:
        seed = random.SystemRandom().getrandbits(63)
    elif isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed: must be an int or None, got {seed!r}")
    st = State.__new__(State)
    n, sides = rules.players, rules.sides
    st.rules = rules
    st.dealer = n - 1  # so that seat 0 leads the first hand
    st.current = 0
    st.hands = (0,) * n
    st.loose = 0
    st.builds = ()
    st.stock = ()
    st.piles = (0,) * sides
    st.sweeps = (0,) * sides
    st.scores = Sides((0,) * sides)
    st.hand_points = None
    st.last_capturer = None
    st.seed = seed
    st.game_over = False
    st.winner = None
    st.met = ()
    st.proven = (0,) * n
    st._moves = None
    st._index = None
    _start_hand(st)
    return st


def _start_hand(st: State) -> None:
    """Shuffle from the state's seed and make the first deal of a hand (in place)."""
    r = st.rules
    stock, st.seed = shuffle(r.deck, st.seed)
    st.hands, st.stock, st.loose = deal((0,) * r.players, stock, r.players, st.dealer, True)
    st.builds = ()
    st.piles = (0,) * r.sides
    st.sweeps = (0,) * r.sides
    st.last_capturer = None
    st.met = ()
    st.proven = (0,) * r.players
    st.current = (st.dealer + 1) % r.players


# -- applying a move ----------------------------------------------------------------------------

def apply_move(state: State, move: Move | str) -> State:
    """The state after ``move`` (a Move, or its notation); ``state`` is left unchanged."""
    if isinstance(move, str):
        move = parse_move(move, state)
    elif not isinstance(move, Move):
        raise TypeError(f"move must be a Move or its notation string, got {type(move).__name__}")
    legal = _find(state, move)
    if legal is None:
        rule, message = why_illegal(state, move)
        raise IllegalMoveError(f"illegal move {move}: {message} ({rule})", rule)
    return play(state, legal)


def _find(state: State, move: Move) -> Move | None:
    """The legal move with the same outcome (a capture's value may be any valid reading)."""
    if state.game_over or move.deck is not state.rules.deck:
        return None
    index = state._index
    if index is None:
        index = {}
        for m in legal_moves(state):
            index.setdefault((m.kind, m.played_mask, m.taken_mask, m.for_partner,
                              None if m.kind == "capture" else m.value), m)
        state._index = index
    found = index.get((move.kind, move.played_mask, move.taken_mask, move.for_partner,
                       None if move.kind == "capture" else move.value))
    if found is not None and move.kind == "capture" and move.value is not None \
            and move.value != found.value and not _reads_as(state, found, move.value):
        return None
    return found


def _reads_as(state: State, move: Move, v: int) -> bool:
    """True if the capture ``move`` is also valid with capture value ``v`` (a Royal Ace's
    other reading, C-move)."""
    r = state.rules
    c = bit_list(move.played_mask)[0]
    cv = r.values[c]
    if v not in ((1, 14) if r.royal and cv == 1 else (cv,)):
        return False
    tm = move.taken_mask
    if any(b.value != v for b in state.builds if b.cards & tm):
        return False
    return _partitions_into(r, tm & state.loose, v)


def play(state: State, m: Move) -> State:
    """Apply a move already known to be legal (the engine's hot path)."""
    st = state._copy()
    r = st.rules
    seat = st.current
    side = r.side(seat)
    pm, tm = m.played_mask, m.taken_mask
    hands = list(st.hands)
    hands[seat] &= ~pm
    st.hands = tuple(hands)
    lost = ()  # builds this move takes from their owners
    if m.kind == "trail":
        st.loose |= pm
    elif m.kind == "capture":
        st.loose &= ~tm
        if st.builds:
            lost = tuple(b for b in st.builds if b.cards & tm)
            if lost:
                st.builds = tuple(b for b in st.builds if not b.cards & tm)
        piles = list(st.piles)
        piles[side] |= pm | tm
        st.piles = tuple(piles)
        st.last_capturer = seat
        if not st.loose and not st.builds and r.sweeps:
            _record_sweep(st, side)
        if r.dom_end:
            _update_met(st)
    else:
        owner = (seat + 2) % 4 if m.for_partner else seat
        st.loose &= ~tm
        lost = tuple(b for b in st.builds if b.cards & tm)
        kept = [b for b in st.builds if not b.cards & tm]
        kept.append(Build(m.value, tm | pm, owner, m.multiple))
        kept.sort()
        st.builds = tuple(kept)
        lost = tuple(b for b in lost if b.owner != owner)
    if r.partner_build:
        _update_proven(st, seat, pm, lost)
    return _next_turn(st, seat)


def _record_sweep(st: State, side: int) -> None:
    r = st.rules
    if r.restricted_no_sweeps and side in restricted(r, st.scores):
        return
    sweeps = list(st.sweeps)
    sweeps[side] += 1
    if r.cancel and all(sweeps):  # V-cancel
        sweeps = [k - 1 for k in sweeps]
    st.sweeps = tuple(sweeps)


def _update_met(st: State) -> None:
    """V-dom-end: note each restricted side whose criterion just became certain."""
    r = st.rules
    limits = restricted(r, st.scores)
    if not limits:
        return
    everything = st.loose | sum(st.hands) | sum(st.piles)
    for b in st.builds:
        everything |= b.cards
    spade = r.deck.suit_mask[SPADE]
    spades = (everything & spade).bit_count() + sum(1 for c in st.stock if spade >> c & 1)
    in_play = everything.bit_count() + len(st.stock)
    met = list(st.met)
    for side, short in limits.items():
        if side not in met and all(certain(r, item, side, st.piles, in_play, spades)
                                   for item in criteria(r, short)):
            met.append(side)
    st.met = tuple(met)


def _update_proven(st: State, seat: int, played: int, lost: tuple) -> None:
    """V-partner-build: a seat that loses a build to another player provably held its value
    then; playing a card of that value ends the proof."""
    r = st.rules
    proven = list(st.proven)
    for b in lost:
        if b.owner != seat:
            proven[b.owner] |= 1 << b.value
    for c in bit_list(played):
        v = r.values[c]
        if v is not None:
            proven[seat] &= ~(1 << v)
            if v == 1 and r.royal:
                proven[seat] &= ~(1 << 14)
    st.proven = tuple(proven)


def _next_turn(st: State, seat: int) -> State:
    n = st.rules.players
    hands = st.hands
    for k in range(1, n + 1):
        nxt = (seat + k) % n
        if hands[nxt]:
            st.current = nxt
            return st
    return settle(st, fresh=True)


def settle(st: State, fresh: bool = False) -> State:
    """While every hand is empty: deal from the stock, or end the hand (C-residue, C-score,
    C-game) and start the next one. ``fresh`` means ``st`` is the engine's own copy."""
    if any(st.hands) or st.game_over:
        return st
    if not fresh:
        st = st._copy()
    r = st.rules
    if st.stock:
        st.hands, st.stock, extra = deal(st.hands, st.stock, r.players, st.dealer, False)
        st.loose |= extra
        st.current = (st.dealer + 1) % r.players
        return settle(st, fresh=True)
    # End of the hand: the residue goes to the last capturer's side (C-residue).
    taker = st.last_capturer if st.last_capturer is not None else st.dealer
    residue = st.loose
    for b in st.builds:
        residue |= b.cards
    if residue:
        piles = list(st.piles)
        piles[r.side(taker)] |= residue
        st.piles = tuple(piles)
        st.loose = 0
        st.builds = ()
        if r.dom_end:
            _update_met(st)
    points, winner = finish_hand(r, tuple(st.scores), st.piles, st.sweeps, st.met)
    st.hand_points = Sides(points)
    st.scores = Sides(s + p for s, p in zip(st.scores, points))
    if winner is not None:
        st.game_over = True
        st.winner = winner
        return st
    if st.seed is None:
        st.seed = random.SystemRandom().getrandbits(63)
    st.dealer = (st.dealer + 1) % r.players
    _start_hand(st)
    return st


# -- explaining an illegal move -----------------------------------------------------------------

def why_illegal(state: State, move: Move) -> tuple[str, str]:
    """(rule id, reason) for a move that is not among the legal moves."""
    r = state.rules
    d = r.deck
    if state.game_over:
        return "C-game", "the game is over"
    if move.deck is not d:
        return "C-deck", f"this game uses the {d.name} deck"
    seat = state.current
    hand = state.hands[seat]
    pm, tm = move.played_mask, move.taken_mask
    if pm.bit_count() != 1:
        return "C-turn", "a turn plays exactly one card from hand"
    if pm & ~hand:
        return "C-turn", f"{d.names[bit_list(pm)[0]]} is not in seat {seat}'s hand"
    c = bit_list(pm)[0]
    cname = d.names[c]
    cv = r.values[c]
    rest = hand & ~pm
    owned = [b for b in state.builds if b.owner == seat]
    same_rank = state.loose & d.rank_mask[d.rank[c]]
    table = state.table_mask()
    if tm & ~table:
        return f"C-{move.kind}", f"{'+'.join(d.strs(tm & ~table))} not on the table"
    for b in state.builds:
        if b.cards & tm and b.cards & ~tm:
            return f"C-{move.kind}", (f"cards inside the build of {b.value} move only with the "
                                      "whole build")
    taken_builds = [b for b in state.builds if b.cards & tm]
    loose_taken = tm & state.loose
    if move.kind == "trail":
        if tm:
            return "C-trail", "a trail takes no table cards"
        if owned:
            return "C-owner-trail", (f"seat {seat} owns the build of {owned[0].value} and may "
                                     "not trail: capture or build")
        if r.dom_trail and same_rank:
            return "V-dom-trail", (f"{cname} matches the loose {d.strs(same_rank)[0]}: it must "
                                   "capture or build, not trail")
        return "C-trail", "this trail is not allowed here"
    if move.kind == "capture":
        if not tm:
            return "C-capture", "a capture takes at least one table card or build"
        if cv is None:
            if taken_builds or tm.bit_count() != 1 or not tm & same_rank:
                return "C-face", f"{cname} captures exactly one loose card of its rank"
        faces = [i for i in bit_list(tm) if r.values[i] is None]
        if faces and cv is not None:
            return "C-face", f"{d.names[faces[0]]} has no value: only a card of its rank takes it"
        vs = (1, 14) if r.royal and cv == 1 else (cv,)
        if move.value is not None and move.value not in vs:
            return "C-capture", f"{cname} captures with value {'/'.join(map(str, vs))}, not {move.value}"
        ok = [v for v in vs if all(b.value == v for b in taken_builds)
              and _partitions_into(r, loose_taken, v)]
        if not ok:
            for b in taken_builds:
                if b.value not in vs:
                    return "C-capture", f"the build of {b.value} is captured only by a {b.value}"
            return "C-capture", (f"{'+'.join(d.strs(loose_taken))} cannot be split into sets "
                                 f"of {'/'.join(map(str, vs))}")
        if move.value is not None and move.value not in ok:
            return "C-capture", (f"{cname} does not take {'+'.join(d.strs(tm))} with value "
                                 f"{move.value} (only with {ok[0]})")
        if r.dom_trail and same_rank & ~tm:
            return "V-dom-trail", (f"a capture with {cname} must take every loose card of its "
                                   f"value ({'+'.join(d.strs(same_rank & ~tm))} left)")
        left = [b.value for b in owned if not b.cards & tm]
        if not backs(r, rest, left):
            return "C-build-keep", (f"seat {seat} owns the build of {_unbacked(r, rest, left)} "
                                    "and would be left without a card to capture it")
        return "C-capture", "this capture is not allowed here"
    # build
    if not r.building:
        return "C-build", f"{r.variant!r} has no building"
    V = move.value
    if cv is None:
        return "C-face", f"{cname} has no value and never joins a build"
    if V is None or not 1 <= V <= r.max_value:
        return "C-one-per-value", f"a build's value is 1..{r.max_value}, got {V}"
    if not tm:
        return "C-build", "a build combines the played card with table cards"
    if any(r.values[i] is None for i in bit_list(tm)):
        return "C-face", "J, Q and K never join a build in classic Casino"
    if move.for_partner and not r.partner_build:
        return "V-partner-build", "you may not build for your partner"
    holder_hand = rest if not move.for_partner else state.hands[(seat + 2) % 4]
    if not move.for_partner and not backs(r, rest, [V]):
        return "C-build", f"seat {seat} holds no other card of value {V} to capture the build"
    vb = next((b for b in state.builds if b.value == V), None)
    raised = [b for b in taken_builds if b.value != V]
    if vb is not None and not vb.cards & tm:
        return "C-one-per-value", f"a new set of {V} joins the build of {V} already on the table"
    if len(raised) > 1:
        return "C-build-raise", "a move raises at most one build"
    if raised:
        b = raised[0]
        if b.multiple:
            return "C-build-raise", f"the multiple build of {b.value} can never change value"
        if b.value + cv != V:
            return "C-build-raise", (f"{cname} on the build of {b.value} makes {b.value + cv}, "
                                     f"not {V}; table cards never change a single build's value")
        if r.dom_build and b.owner == seat:
            return "V-dom-build", "you may not raise the value of your own single build"
        if not _partitions_into(r, loose_taken, V):
            return "C-build-raise", f"loose cards joining the build must form sets of {V}"
    else:
        with_card = loose_taken | pm
        if not _partitions_into(r, with_card, V):
            if vb is None and loose_taken and _partitions_into(r, loose_taken, V):
                return "C-build", (f"{'+'.join(d.strs(loose_taken))} make {V} without {cname}: "
                                   "table cards alone never make a build")
            if vb is None:
                return "C-build", (f"{'+'.join(d.strs(with_card))} cannot be split into sets of "
                                   f"{V} (a new build's sets must each make its value)")
            return "C-build-extend", (f"{'+'.join(d.strs(with_card))} cannot be split into sets "
                                      f"of {V} with {cname} in one of them")
        if not loose_taken and vb is None:
            return "C-build", "a build needs at least one table card besides the played card"
    after = [b.value for b in owned if not b.cards & tm]
    if not move.for_partner:
        after.append(V)
    if not backs(r, rest, after):
        return "C-build-keep", (f"seat {seat} would be left without a card to capture its "
                                f"build of {_unbacked(r, rest, after)}")
    if move.for_partner:
        if not backs(r, holder_hand, [V]):
            return "C-build-keep", f"partner could not keep a card for the build of {V}"
        return "V-partner-build", f"public play does not prove that partner holds a {V}"

    return "C-build", "this build is not allowed here"


def _unbacked(r, hand: int, values: list[int]) -> int:
    """The first build value in ``values`` that ``hand`` cannot back (C-build-keep)."""
    for i in range(len(values)):
        if not backs(r, hand, values[:i + 1]):
            return values[i]
    return values[-1]


def _partitions_into(r, mask: int, v: int) -> bool:
    """True if the cards of ``mask`` split into disjoint sets of value ``v``."""
    ids = bit_list(mask)
    vals = tuple(r.values[i] for i in ids)
    if None in vals:
        return False
    return (1 << len(ids)) - 1 in partitions(vals, v, r.royal and v == 14)
