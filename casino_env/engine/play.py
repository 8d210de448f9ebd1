"""State transitions: a new game, applying a move, dealing on, ending a hand.

``apply_move`` never changes its input; an illegal move raises ``IllegalMoveError`` naming
the rule it breaks.
"""

from __future__ import annotations

import random

from .cards import SPADE, bit_list
from .dealing import deal, shuffle
from .moves import Move, backs, capture_values, legal_moves, parse_move
from .rules import make_rules
from .scoring import certain, criteria, earned, finish_hand, restricted
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
    st.scores = Sides((0,) * sides)
    st.hand_points = None
    st.seed = seed
    st.game_over = False
    st.winner = None
    st.hand_no = 0
    st._moves = None
    st._index = None
    _start_hand(st)
    return st


def _start_hand(st: State) -> None:
    """Shuffle from the state's seed and make the first deal of a hand (in place)."""
    r = st.rules
    stock, st.seed = shuffle(r.deck, st.seed)
    st.hand_masks, st.stock_ids, st.loose_mask = deal((0,) * r.players, stock, r.players,
                                                      st.dealer, True, r.hand_size)
    st.builds = ()
    st.pile_masks = (0,) * r.sides
    st.sweeps = (0,) * r.sides
    st.last_capturer = None
    st.met = ()
    st.proven = (0,) * r.players
    st.events = ()
    st.pending_orange = None
    st.extra_turn = False
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
    cardless = not (move.played_mask or move.taken_mask)  # a claim or call: any deck
    if state.game_over or (move.deck is not state.rules.deck and not cardless):
        return None
    index = state._index
    if index is None:
        index = {}
        for m in legal_moves(state):
            index.setdefault((m.kind, m.played_mask, m.taken_mask, m.for_partner, m.orange,
                              None if m.kind == "capture" else m.value), m)
        state._index = index
    found = index.get((move.kind, move.played_mask, move.taken_mask, move.for_partner,
                       move.orange, None if move.kind == "capture" else move.value))
    if found is not None and move.kind == "capture" and move.value is not None \
            and move.value != found.value and not _reads_as(state, found, move.value):
        return None
    return found


def _reads_as(state: State, move: Move, v: int) -> bool:
    """True if the capture ``move`` is also valid with capture value ``v`` (C-move: another
    Ace reading, or another Ulmann split of the hand cards)."""
    r = state.rules
    vals = tuple(r.values[c] for c in bit_list(move.played_mask))
    if None in vals:
        return False
    if r.multi_play:
        if r.kovacs and v > 13:
            return False
        ok = sum(vals) == v or (r.ace14 and vals == (1,) and v == 14) or (
            r.ulmann and (1 << len(vals)) - 1 in partitions(vals, v, r.ace14 and v == 14))
    else:
        ok = v in capture_values(r, vals[0])
    tm = move.taken_mask
    if not ok or any(b.value != v for b in state.builds if b.cards & tm):
        return False
    return _partitions_into(r, tm & state.loose_mask, v)


def play(state: State, m: Move) -> State:
    """Apply a move already known to be legal (the engine's hot path)."""
    st = state._copy()
    r = st.rules
    seat = st.current
    side = r.side(seat)
    kind = m.kind
    if kind == "claim":
        return _claim(st, side)
    if kind == "call":  # V-tux-score: the previous capture's orange, called by the next player
        st.events = st.events + ((side, "orange call", 10),)
        st.pending_orange = None
        return st
    pm, tm = m.played_mask, m.taken_mask
    hands = list(st.hand_masks)
    hands[seat] &= ~pm
    st.hand_masks = tuple(hands)
    st.pending_orange = None
    lost = ()  # builds this move takes from their owners
    swept = False
    if kind == "capture":
        first_play = r.nagy and _first_play(state)
        st.loose_mask &= ~tm
        if st.builds:
            lost = tuple(b for b in st.builds if b.cards & tm)
            if lost:
                st.builds = tuple(b for b in st.builds if not b.cards & tm)
        piles = list(st.pile_masks)
        piles[side] |= pm | tm
        st.pile_masks = tuple(piles)
        st.last_capturer = seat
        swept = not st.loose_mask and not st.builds
        if swept and r.sweeps:
            _record_sweep(st, side, 2 if first_play else 1, tm.bit_count())
        if r.scoring == "tuxedo":
            _orange(st, seat, side, tm, m.orange)
        if r.dom_end:
            _update_met(st)
    else:
        if kind == "trail":
            st.loose_mask |= pm
        if tm:  # a build, or a trail that also builds (V-build-loose)
            owner = (seat + 2) % 4 if m.for_partner else seat
            st.loose_mask &= ~tm
            lost = tuple(b for b in st.builds if b.cards & tm)
            kept = [b for b in st.builds if not b.cards & tm]
            cards = tm | pm if kind == "build" else tm
            kept.append(Build(m.value, cards, owner, m.multiple))
            kept.sort()
            st.builds = tuple(kept)
            lost = tuple(b for b in lost if b.owner != owner)
    if r.partner_build:
        _update_proven(st, seat, pm, lost)
    if r.earned_wins and kind == "capture" and _earned_win(st):
        return st
    return _next_turn(st, seat, swept)


def _first_play(st: State) -> bool:
    """Nagy: no card has been played yet this hand (the four initial cards lie alone)."""
    r = st.rules
    return (not any(st.pile_masks) and st.loose_mask.bit_count() == 4 and not st.builds
            and all(h.bit_count() == r.hand_size for h in st.hand_masks)
            and len(st.stock_ids) == r.deck.size - 4 - r.hand_size * r.players)


def _record_sweep(st: State, side: int, count: int, size: int) -> None:
    r = st.rules
    if r.restricted_no_sweeps and side in restricted(r, st.scores):
        return
    sweeps = list(st.sweeps)
    sweeps[side] += count
    if r.cancel and all(sweeps):  # V-cancel
        sweeps = [k - 1 for k in sweeps]
    st.sweeps = tuple(sweeps)
    if r.scoring == "tuxedo":  # V-tux-score: 10 for a sweep of 4 or more table cards, else 5
        st.events = st.events + ((side, "sweep", 10 if size >= 4 else 5),)


def _orange(st: State, seat: int, side: int, tm: int, called: bool) -> None:
    """V-tux-score: a capture taking a red and a yellow card is an orange (10 points)."""
    suit = st.rules.deck.suit_mask
    is_orange = bool(tm & suit[0]) and bool(tm & suit[1])  # colours R Y G B
    if not st.rules.orange_calls:
        if is_orange:
            st.events = st.events + ((side, "orange", 10),)
        return
    if called:
        st.events = st.events + ((side, "orange", 10) if is_orange else (side, "false call", -10),)
    elif is_orange:
        st.pending_orange = -1  # set to the next seat to move in _next_turn


def _earned_win(st: State) -> bool:
    """V-earned / V-hun-end: the game ends as soon as a side's points, counted as earned,
    bring it to the target (in place; True if it ended)."""
    r = st.rules
    points = earned(r, st.pile_masks, st.sweeps, st.events, _left(st))
    totals = [s + p for s, p in zip(st.scores, points)]
    reached = [s for s, t in enumerate(totals) if t >= r.target]
    if not reached:
        return False
    best = max(totals[s] for s in reached)
    tops = [s for s in reached if totals[s] == best]
    side = r.side(st.current)
    winner = side if side in tops else tops[0]
    _end_game(st, points, winner)
    return True


def _left(st: State) -> tuple[int, int]:
    """(cards, spades) not yet captured this hand."""
    everything = st.loose_mask | sum(st.hand_masks)
    for b in st.builds:
        everything |= b.cards
    spade = st.rules.deck.suit_mask[SPADE]
    spades = (everything & spade).bit_count() + sum(1 for c in st.stock_ids if spade >> c & 1)
    return everything.bit_count() + len(st.stock_ids), spades


def _claim(st: State, side: int) -> State:
    """V-hun-end claims: a correct claim (earned points reach the target) wins, a false one
    loses."""
    r = st.rules
    points = earned(r, st.pile_masks, st.sweeps, st.events, _left(st))
    correct = st.scores[side] + points[side] >= r.target
    _end_game(st, points, side if correct else next(s for s in range(r.sides) if s != side))
    return st


def _end_game(st: State, points: list[int], winner: int) -> None:
    st.hand_points = Sides(points)
    st.scores = Sides(s + p for s, p in zip(st.scores, points))
    st.game_over = True
    st.winner = winner
    st.pending_orange = None
    st.extra_turn = False


def _update_met(st: State) -> None:
    """V-dom-end: note each restricted side whose criterion just became certain."""
    r = st.rules
    limits = restricted(r, st.scores)
    if not limits:
        return
    left, left_spades = _left(st)
    piled = sum(st.pile_masks)
    spade = r.deck.suit_mask[SPADE]
    in_play = left + piled.bit_count()
    spades = left_spades + (piled & spade).bit_count()
    met = list(st.met)
    for side, short in limits.items():
        if side not in met and all(certain(r, item, side, st.pile_masks, in_play, spades)
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
            if v == 1 and r.ace14:
                proven[seat] &= ~(1 << 14)
    st.proven = tuple(proven)


def _next_turn(st: State, seat: int, swept: bool = False) -> State:
    """Pass the turn to the next seat holding cards (Nagy: a seat plays twice after the
    opponent's sweep); deal or end the hand when no one holds any."""
    r = st.rules
    n = r.players
    hands = st.hand_masks
    if r.nagy:
        again = st.extra_turn and not swept and hands[seat]
        st.extra_turn = False
        if again:
            return st
    for k in range(1, n + 1):
        nxt = (seat + k) % n
        if hands[nxt]:
            st.current = nxt
            if st.pending_orange == -1:
                st.pending_orange = nxt
            if r.nagy and swept:
                st.extra_turn = True
            return st
    st.pending_orange = None
    return settle(st, fresh=True)


def settle(st: State, fresh: bool = False) -> State:
    """While every hand is empty: deal from the stock, or end the hand (C-residue, C-score,
    C-game) and start the next one. ``fresh`` means ``st`` is the engine's own copy."""
    if any(st.hand_masks) or st.game_over:
        return st
    if not fresh:
        st = st._copy()
    r = st.rules
    st.extra_turn = False
    if st.stock_ids:
        # Nothing on the table and nothing captured: the hand has not begun, so this is its
        # first deal, with four cards to the table (C-deal).
        first = not st.loose_mask and not st.builds and not any(st.pile_masks)
        st.hand_masks, st.stock_ids, extra = deal(st.hand_masks, st.stock_ids, r.players,
                                                  st.dealer, first, r.hand_size)
        st.loose_mask |= extra
        st.current = (st.dealer + 1) % r.players
        if r.nagy and st.last_capturer is not None:
            st.current = st.last_capturer  # Nagy: the last capturer leads the next round
        return settle(st, fresh=True)
    # End of the hand: the residue goes to the last capturer's side (C-residue).
    taker = st.last_capturer if st.last_capturer is not None else st.dealer
    residue = st.loose_mask
    for b in st.builds:
        residue |= b.cards
    if residue:
        piles = list(st.pile_masks)
        piles[r.side(taker)] |= residue
        st.pile_masks = tuple(piles)
        st.loose_mask = 0
        st.builds = ()
        if r.dom_end:
            _update_met(st)
    points, winner = finish_hand(r, tuple(st.scores), st.pile_masks, st.sweeps, st.met, st.events,
                                 r.side(taker) if st.last_capturer is not None else None)
    st.hand_points = Sides(points)
    st.scores = Sides(s + p for s, p in zip(st.scores, points))
    if winner is not None:
        st.game_over = True
        st.winner = winner
        return st
    if st.seed is None:
        st.seed = random.SystemRandom().getrandbits(63)
    st.dealer = (st.dealer + 1) % r.players
    st.hand_no += 1
    _start_hand(st)
    return st


# -- explaining an illegal move -----------------------------------------------------------------

def why_illegal(state: State, move: Move) -> tuple[str, str]:
    """(rule id, reason) for a move that is not among the legal moves."""
    r = state.rules
    d = r.deck
    if state.game_over:
        return "C-game", "the game is over"
    if move.deck is not d and (move.played_mask or move.taken_mask):
        return "C-deck", f"this game uses the {d.name} deck"
    seat = state.current
    hand = state.hand_masks[seat]
    pm, tm = move.played_mask, move.taken_mask
    if move.kind == "claim":
        return ("V-hun-end", "claims are made only under rule switch 'claims'") if not r.claims \
            else ("V-hun-end", "a claim plays no cards")
    if move.kind == "call":
        if not r.orange_calls:
            return "V-tux-score", "oranges are called only under rule switch 'orange_calls'"
        return "V-tux-score", f"there is no missed orange for seat {seat} to call"
    if move.orange and not (r.orange_calls and move.kind == "capture"):
        return "V-tux-score", "only a capture calls orange, under rule switch 'orange_calls'"
    if not pm:
        return "C-turn", "a turn plays a card from hand"
    if pm & ~hand:
        return "C-turn", f"{'+'.join(d.strs(pm & ~hand))} not in seat {seat}'s hand"
    if r.multi_play:
        return _why_multi(state, move)
    if pm.bit_count() != 1:
        return "C-turn", "a turn plays exactly one card from hand"
    c = bit_list(pm)[0]
    cname = d.names[c]
    cv = r.values[c]
    rest = hand & ~pm
    owned = [b for b in state.builds if b.owner == seat]
    same_rank = state.loose_mask & d.rank_mask[d.rank[c]]
    table = state.table_mask()
    if tm & ~table:
        return f"C-{move.kind}", f"{'+'.join(d.strs(tm & ~table))} not on the table"
    for b in state.builds:
        if b.cards & tm and b.cards & ~tm:
            return f"C-{move.kind}", (f"cards inside the build of {b.value} move only with the "
                                      "whole build")
    taken_builds = [b for b in state.builds if b.cards & tm]
    loose_taken = tm & state.loose_mask
    if move.kind == "trail":
        if tm and not r.build_loose:
            return "C-trail", ("a trail takes no table cards (trailing and building in one turn "
                               "needs rule switch 'build_loose', V-build-loose)")
        if owned and not r.owner_may_trail:
            return "C-owner-trail", (f"seat {seat} owns the build of {owned[0].value} and may "
                                     "not trail: capture or build")
        if r.dom_trail and same_rank:
            return "V-dom-trail", (f"{cname} matches the loose {d.strs(same_rank)[0]}: it must "
                                   "capture or build, not trail")
        if not tm:
            if owned and not backs(r, rest, [b.value for b in owned]):
                return "C-build-keep", (f"seat {seat} owns the build of "
                                        f"{_unbacked(r, rest, [b.value for b in owned])} and "
                                        "would be left without a card to capture it")
            return "C-trail", "this trail is not allowed here"
        V = move.value
        if V is None or not 1 <= V <= r.max_value:
            return "V-build-loose", f"a build's value is 1..{r.max_value}, got {V}"
        vb = next((b for b in state.builds if b.value == V), None)
        if r.dom_build and vb is not None and vb.cards & tm:
            return "V-dom-build", ("a card added to a build includes the card played: a trail "
                                   "may only make a new build")
        if vb is not None and not vb.cards & tm:
            return "C-one-per-value", f"a new set of {V} joins the build of {V} on the table"
        if not _items_split(r, state, tm, V) or not tm & ~(vb.cards if vb else 0) or (
                vb is None and (tm.bit_count() < 2 or any(b.cards == tm for b in taken_builds))):
            return "V-build-loose", (f"{'+'.join(d.strs(tm))} do not make a build of {V} from "
                                     "table cards")
        if not backs(r, rest, [V]):
            return "V-build-loose", f"seat {seat} holds no card of value {V} to capture the build"
        after = [b.value for b in owned if not b.cards & tm] + [V]
        if not backs(r, rest, after):
            return "C-build-keep", (f"seat {seat} would be left without a card to capture its "
                                    f"build of {_unbacked(r, rest, after)}")
        if r.dom_build and any(b.owner == seat and not b.multiple and b.value != V
                               for b in taken_builds):
            return "V-dom-build", "you may not raise the value of your own single build"
        return "V-build-loose", "this trail and build is not allowed here"

    if move.kind == "capture":
        if not tm:
            return "C-capture", "a capture takes at least one table card or build"
        if cv is None:
            if taken_builds or tm.bit_count() != 1 or not tm & same_rank:
                return "C-face", f"{cname} captures exactly one loose card of its rank"
        faces = [i for i in bit_list(tm) if r.values[i] is None]
        if faces and cv is not None:
            return "C-face", f"{d.names[faces[0]]} has no value: only a card of its rank takes it"
        vs = capture_values(r, cv) if cv is not None else (None,)
        if move.value is not None and move.value not in vs:
            return "C-capture", (f"{cname} captures with value {'/'.join(map(str, vs))}, "
                                 f"not {move.value}")
        ok = [v for v in vs if _items_split(r, state, tm, v)]
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
    holder_hand = rest if not move.for_partner else state.hand_masks[(seat + 2) % 4]
    if not move.for_partner and not backs(r, rest, [V]):
        return "C-build", f"seat {seat} holds no other card of value {V} to capture the build"
    vb = next((b for b in state.builds if b.value == V), None)
    raised = [b for b in taken_builds if b.value != V]
    if vb is not None and not vb.cards & tm:
        return "C-one-per-value", f"a new set of {V} joins the build of {V} already on the table"
    as_cards = r.build_as_card and (vb is None or vb.cards & tm) and \
        _items_split(r, state, tm, V, (cv,))
    if as_cards:
        pass  # V-build-as-card: the played card, loose cards and single builds make sets of V
    elif len(raised) > 1:
        return "C-build-raise", "a move raises at most one build"
    elif raised:
        b = raised[0]
        if b.multiple:
            return "C-build-raise", f"the multiple build of {b.value} can never change value"
        helped = r.raise_with_table and _raised_with_table(r, loose_taken, V - b.value - cv, V)
        if b.value + cv != V and not helped:
            return "C-build-raise", (f"{cname} on the build of {b.value} makes {b.value + cv}, "
                                     f"not {V}; table cards never change a single build's value")
        if r.dom_build and b.owner == seat:
            return "V-dom-build", "you may not raise the value of your own single build"
        if not helped and not _partitions_into(r, loose_taken, V):
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
    if r.dom_build and any(b.owner == seat and not b.multiple and b.value != V
                           for b in taken_builds):
        return "V-dom-build", "you may not raise the value of your own single build"
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


def _why_multi(state: State, move: Move) -> tuple[str, str]:
    """V-hun-play: why a Hungarian move is illegal."""
    r = state.rules
    d = r.deck
    pm, tm = move.played_mask, move.taken_mask
    if move.kind == "build":
        return "V-hun-play", f"there is no building in {r.variant!r}"
    if move.kind == "trail":
        return "V-hun-play", "a trail is exactly one card and takes nothing"
    if not tm:
        return "C-capture", "a capture takes at least one table card"
    if tm & ~state.loose_mask:
        return "C-capture", f"{'+'.join(d.strs(tm & ~state.loose_mask))} not on the table"
    vals = tuple(r.values[c] for c in bit_list(pm))
    total = sum(vals)
    if r.kovacs and (total > 13 and not r.ulmann or move.value is not None and move.value > 13):
        return "V-hun-play", "Kovacs: no played or captured combination above 13"
    v = move.value if move.value is not None else total
    return "V-hun-play", (f"{'+'.join(d.strs(pm))} (total {total}) cannot take "
                          f"{'+'.join(d.strs(tm))} as sets of {v}")


def _items_split(r, state: State, tm: int, v: int, extra: tuple = ()) -> bool:
    """True if the table items in ``tm`` (loose cards; single builds too under
    V-build-as-card), plus items of the values ``extra``, split into sets of ``v``; a build of
    value ``v`` is a whole set by itself."""
    vals = [r.values[i] for i in bit_list(tm & state.loose_mask)] + list(extra)
    for b in state.builds:
        if b.cards & tm and b.value != v:
            if not (r.build_as_card and not b.multiple):
                return False
            vals.append(b.value)
    if None in vals:
        return False
    if not vals:
        return True
    vals.sort()
    return (1 << len(vals)) - 1 in partitions(tuple(vals), v, r.ace14 and v == 14)


def _raised_with_table(r, loose_taken: int, rise: int, v: int) -> bool:
    """V-raise-with-table: some loose cards add ``rise`` to the raise and the rest form sets."""
    if rise <= 0:
        return False
    ids = bit_list(loose_taken)
    for k in range(1, 1 << len(ids)):
        part = sum(1 << ids[j] for j in range(len(ids)) if k >> j & 1)
        if sum(r.values[i] for i in bit_list(part)) == rise and \
                (part == loose_taken or _partitions_into(r, loose_taken & ~part, v)):
            return True
    return False


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
    return (1 << len(ids)) - 1 in partitions(vals, v, r.ace14 and v == 14)
