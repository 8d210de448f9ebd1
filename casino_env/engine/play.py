"""State transitions: a new game, applying a move, dealing on, ending a hand.

``apply_move`` never changes its input; an illegal move raises ``IllegalMoveError`` naming
the rule it breaks.
"""

from __future__ import annotations

import random

from .cards import SPADE, bit_list
from .dealing import deal, shuffle
from .moves import (
    Items,
    Move,
    backs,
    capture_values,
    legal_moves,
    mark_stolen,
    parse_move,
    resolve_copies,
)
from .rules import make_rules
from .scoring import (
    TUX_ORANGE,
    TUX_SWEEP_BIG,
    TUX_SWEEP_SMALL,
    certain,
    criteria,
    earned,
    earned_winner,
    finish_hand,
    is_orange,
    restricted,
    sweep_scores,
)
from .sets import partitions
from .state import Build, Sides, State, check_seed, pile_of, renumber, stealable

RULES_DOC = "docs/rules.md"  # where every rule id has a heading (anchor: the id lower-cased)


def rule_link(rule: str) -> str:
    """Where a rule id is explained, e.g. ``docs/rules.md#c-build`` for ``C-build``."""
    return f"{RULES_DOC}#{rule.lower()}"


class IllegalMoveError(ValueError):
    """A move the rules forbid here. ``rule`` is the id of the rule it breaks, ``reason`` why
    (in words, without the move) and ``move`` the move's notation, so that a UI can compose its
    own text; ``str(err)`` reads ``5D builds 13 on 3H: 5 + 3 is 8, not 13 (rule C-build; see
    docs/rules.md#c-build)``."""

    def __init__(self, message: str, rule: str | None = None, *, reason: str | None = None,
                 move: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.reason = message if reason is None else reason
        self.move = move

    @classmethod
    def of(cls, move: Move | str, rule: str, reason: str) -> IllegalMoveError:
        """The error for ``move`` breaking ``rule`` because of ``reason``."""
        text = str(move).strip()
        return cls(f"{text}: {reason} (rule {rule}; see {rule_link(rule)})", rule,
                   reason=reason, move=text)

    def __reduce__(self):  # keep rule, reason and move through pickling (worker processes)
        return (_rebuild_error, (self.args[0] if self.args else "", self.rule, self.reason,
                                 self.move))


def _rebuild_error(message: str, rule: str | None, reason: str | None,
                   move: str | None) -> IllegalMoveError:
    return IllegalMoveError(message, rule, reason=reason, move=move)


def new_game(variant: str = "casino", players: int = 2, seed: int | None = None,
             partnerships: bool | None = None, **switches) -> State:
    """A shuffled, dealt game. ``partnerships`` defaults to the preset's choice (Dominican
    and Swazi with 4 players play as partners); ``seed`` is an int >= 0, or None to draw a
    random one (a negative seed raises ValueError)."""
    rules = make_rules(variant, players, partnerships, switches)
    seed = check_seed(seed)
    if seed is None:
        seed = random.SystemRandom().getrandbits(63)
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
                                                      st.dealer, True, r.hand_size,
                                                      r.must_capture)
    st.builds = ()
    st.pile_masks = (0,) * r.sides
    st.pile_ids = ((),) * r.sides if r.steal else ()
    st.sweeps = (0,) * r.sides
    st.last_capturer = None
    st.met = ()
    st.proven = (0,) * r.players
    st.events = ()
    st.pending_orange = None
    st.extra_turn = False
    st.current = (st.dealer + 1) % r.players
    if r.deck.copies > 1:
        renumber(st)


# -- applying a move ----------------------------------------------------------------------------

def apply_move(state: State, move: Move | str, deal_next: bool = True) -> State:
    """The state after ``move`` (a Move, or its notation); ``state`` is left unchanged.

    ``deal_next=False``: a move that ends a hand but not the game returns the position after
    the hand is scored and before the next deal (every hand, the table and the stock empty,
    the piles as captured, ``hand_points`` set): what the players see between hands."""
    if not isinstance(state, State):
        raise TypeError(f"apply_move: expected a State, got {type(state).__name__} "
                        "(State.from_spec(spec) makes one from a spec)")
    if deal_next is not True and deal_next is not False:
        raise TypeError(f"apply_move: deal_next must be True or False, got {deal_next!r}")
    if isinstance(move, str):
        move = parse_move(move, state)
    elif not isinstance(move, Move):
        raise TypeError(f"move must be a Move or its notation string, got {type(move).__name__}")
    legal = legal_move_of(state, move)  # (two decks: the cards matched to copies by kind)
    if legal is None:
        if state.rules.deck.copies > 1:
            move = resolve_copies(state, move)  # named in the position's copies
        rule, reason = why_illegal(state, move)
        if state.pile_ids and move.taken_mask and move.deck is state.rules.deck:
            # V-swazi-steal: the error's move text says which taken cards are pile cards
            move = mark_stolen(state, Move.make(move.deck, move.kind, move.played_mask,
                                                move.taken_mask, move.value, move.multiple,
                                                move.for_partner, move.orange))
        raise IllegalMoveError.of(move, rule, reason)
    return play(state, legal, deal_next)


def legal_move_of(state: State, move: Move) -> Move | None:
    """The legal move of ``state`` with the outcome of ``move`` (two decks: its cards matched
    to the state's copies by kind, as ``apply_move`` does), or None if it is illegal here."""
    legal = _find(state, move)
    if legal is None and state.rules.deck.copies > 1:
        legal = _find(state, resolve_copies(state, move))
    return legal


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
    vals = tuple(r.hand_values[c] for c in bit_list(move.played_mask))
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
    return _partitions_into(r, tm & _loose_items(state), v)


def play(state: State, m: Move, deal_next: bool = True) -> State:
    """Apply a move already known to be legal (the engine's hot path); ``deal_next`` as in
    ``apply_move``. A build read by ``parse_move`` does not say whether it is multiple, so it
    goes through ``apply_move``, which plays the legal move it reads as."""
    st = state._copy()
    r = st.rules
    seat = st.current
    side = r.side(seat)
    kind = m.kind
    if kind == "claim":
        return _claim(st, side)
    if kind == "call":  # V-tux-score: the previous capture's orange, called by the next player
        st.events = st.events + ((side, "orange call", TUX_ORANGE),)
        st.pending_orange = None
        if r.earned_wins:  # V-earned: points scored in play, a call's too, may end the game
            _earned_win(st)
        return st
    pm, tm = m.played_mask, m.taken_mask
    if r.deck.copies > 1 and (pm & ~st.hand_masks[seat] or tm & ~st.table_mask()):
        # two decks: a move is its outcome up to the copies, and a view numbers the copies it
        # sees among themselves (engine.view), so its moves name copies by kind here
        m = resolve_copies(st, m)
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
        if st.pile_ids:
            _stack(st, side, tm, pm)
        else:
            piles = list(st.pile_masks)
            piles[side] |= pm | tm
            st.pile_masks = tuple(piles)
        st.last_capturer = seat
        swept = not st.loose_mask and not st.builds
        if swept and r.sweeps:
            _record_sweep(st, side, 2 if first_play else 1, tm.bit_count())
            if r.penalties:
                _tabbe(state, st, seat, side, pm, tm)
        if r.scoring == "tuxedo":
            _orange(st, seat, side, tm, m.orange)
        if r.dom_end:
            _update_met(st)
    else:
        if kind == "trail":
            st.loose_mask |= pm
        if tm:  # a build, or a trail that also builds (V-build-loose)
            if m.multiple is None:  # read from notation, it does not say whether it is
                return apply_move(state, m, deal_next)  # multiple: the legal move does
            owner = (seat + 2) % 4 if m.for_partner else seat
            if st.pile_ids:
                _stack(st, None, tm, 0)  # V-swazi-steal: pile tops taken join the build
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
    if r.deck.copies > 1:
        renumber(st, stock=False)  # two decks: the copies that moved take canonical ids
    return _next_turn(st, seat, swept, deal_next)


def _tabbe(before: State, st: State, seat: int, side: int, pm: int, tm: int) -> None:
    """V-kryp-score: a sweep (tabbe) costs its capturer's side the ``sweep`` points and
    credits the side of the seat who played just before as much; a dubbeltabbe (the played
    card takes the other copy of itself, alone on the table) counts twice. The hand's first
    move has no one before it and credits no one (decision)."""
    r = st.rules
    kind = r.deck.kind
    double = tm.bit_count() == 1 and kind[tm.bit_length() - 1] == kind[pm.bit_length() - 1]
    item = "dubbeltabbe" if double else "tabbe"
    pts = r.item_points.sweep * (2 if double else 1)
    events = ((side, item, pts),)
    if not _first_play(before):
        events += ((r.side((seat - 1) % r.players), item + " credit", -pts),)
    st.events = st.events + events


def _stack(st: State, side: int | None, taken: int, played: int) -> None:
    """V-swazi-steal (in place): the pile tops among ``taken`` leave their piles, and with
    ``side`` set the taken cards go on that side's pile in card order, the played card on
    top (``side`` None: the tops joined a build)."""
    ids = list(st.pile_ids)
    masks = list(st.pile_masks)
    for s, pile in enumerate(ids):
        if pile and taken >> pile[-1] & 1:
            ids[s] = pile[:-1]
            masks[s] &= ~(1 << pile[-1])
    if side is not None:
        ids[side] = ids[side] + tuple(bit_list(taken)) + tuple(bit_list(played))
        masks[side] |= taken | played
    st.pile_ids, st.pile_masks = tuple(ids), tuple(masks)


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
    if not sweep_scores(r, st.scores, not st.stock_ids):  # V-fin-score
        return
    sweeps = list(st.sweeps)
    sweeps[side] += count
    if r.cancel and all(sweeps):  # V-cancel
        sweeps = [k - 1 for k in sweeps]
    st.sweeps = tuple(sweeps)
    if r.scoring == "tuxedo":  # V-tux-score: 10 for a sweep of 4 or more table cards, else 5
        st.events = st.events + ((side, "sweep", TUX_SWEEP_BIG if size >= 4 else TUX_SWEEP_SMALL),)


def _orange(st: State, seat: int, side: int, tm: int, called: bool) -> None:
    """V-tux-score: a capture taking a red and a yellow card is an orange (10 points)."""
    orange = is_orange(st.rules, tm)
    if not st.rules.orange_calls:
        if orange:
            st.events = st.events + ((side, "orange", TUX_ORANGE),)
        return
    if called:
        st.events = st.events + ((side, "orange", TUX_ORANGE) if orange
                                 else (side, "false call", -TUX_ORANGE),)
    elif orange:
        st.pending_orange = -1  # set to the next seat to move in _next_turn


def _earned_win(st: State) -> bool:
    """V-earned / V-hun-end: the game ends as soon as a side's points, counted as earned,
    bring it to the target with the highest total (in place; True if it ended). Sides tied on
    the highest total at or above the target play on (C-game: a tie plays another hand), so
    a hand begun on such a tie goes on until one of them is ahead."""
    r = st.rules
    points = _earned_now(st)
    totals = [s + p for s, p in zip(st.scores, points)]
    winner = earned_winner(totals, r.target)
    if winner is None:
        return False
    _end_game(st, points, winner)
    return True


def uncaptured(st: State) -> tuple[int, int]:
    """(cards, spades) not yet captured this hand: in hands, on the table (loose or in builds)
    and in the stock."""
    everything = st.loose_mask | sum(st.hand_masks)
    for b in st.builds:
        everything |= b.cards
    spade = st.rules.deck.suit_mask[SPADE]
    spades = (everything & spade).bit_count() + sum(1 for c in st.stock_ids if spade >> c & 1)
    return everything.bit_count() + len(st.stock_ids), spades


def _earned_now(st: State, left: tuple[int, int] | None = None) -> list[int]:
    """The points each side has earned so far this hand (V-earned, V-hun-end); ``left`` is
    ``uncaptured(st)`` where ``st`` cannot tell it (a view: ``PlayerView.uncaptured``)."""
    return earned(st.rules, st.pile_masks, st.sweeps, st.events, left or uncaptured(st))


def claim_wins(st: State, left: tuple[int, int] | None = None) -> bool:
    """V-hun-end claims: whether a claim by the seat to move wins now (its side's score and
    the points it has earned this hand reach the target); ``left`` as in ``_earned_now``."""
    side = st.rules.side(st.current)
    return st.scores[side] + _earned_now(st, left)[side] >= st.rules.target


def _claim(st: State, side: int) -> State:
    """V-hun-end claims: a correct claim (earned points reach the target) wins, a false one
    loses."""
    r = st.rules
    points = _earned_now(st)
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
    left, left_spades = uncaptured(st)
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


def _next_turn(st: State, seat: int, swept: bool = False, deal_next: bool = True) -> State:
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
            if r.nagy and swept and nxt != seat:  # the sweeper's opponent, if it holds cards
                st.extra_turn = True
            return st
    # Nobody holds cards: deal on. A missed orange made with the round's last card stays
    # callable by the player who leads the next round of the same hand (V-tux-score).
    return settle(st, fresh=True, deal_next=deal_next)


def settle(st: State, fresh: bool = False, deal_next: bool = True) -> State:
    """While every hand is empty: deal from the stock, or end the hand (C-residue, C-score,
    C-game) and start the next one (``deal_next=False``: stop once the hand is scored).
    ``fresh`` means ``st`` is the engine's own copy."""
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
                                                  st.dealer, first, r.hand_size, r.must_capture)
        st.loose_mask |= extra
        if r.deck.copies > 1:
            renumber(st)
        st.current = (st.dealer + 1) % r.players
        if r.nagy and st.last_capturer is not None:
            st.current = st.last_capturer  # Nagy: the last capturer leads the next round
        if st.pending_orange == -1:
            st.pending_orange = st.current  # V-tux-score: the next player, on their next turn
        return settle(st, fresh=True, deal_next=deal_next)
    st.pending_orange = None  # the hand ends: there is no next turn to call a missed orange in
    # End of the hand: the residue goes to the last capturer's side (C-residue).
    taker = st.last_capturer if st.last_capturer is not None else st.dealer
    residue = st.loose_mask
    for b in st.builds:
        residue |= b.cards
    if residue:
        if st.pile_ids:  # V-swazi-steal: the residue goes on top, in card order
            _stack(st, r.side(taker), residue, 0)
        else:
            piles = list(st.pile_masks)
            piles[r.side(taker)] |= residue
            st.pile_masks = tuple(piles)
        st.loose_mask = 0
        st.builds = ()
        if r.deck.copies > 1:
            renumber(st, stock=False)  # two decks: the residue's copies take canonical ids
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
    if not deal_next:
        return st
    if st.seed is None:
        st.seed = random.SystemRandom().getrandbits(63)
    st.dealer = (st.dealer + 1) % r.players
    st.hand_no += 1
    _start_hand(st)
    return st


# -- explaining an illegal move -----------------------------------------------------------------
#
# A reason says why, in the player's words, with the cards and numbers involved; IllegalMoveError
# puts the move in front and the rule's id and where to read it behind.

def why_illegal(state: State, move: Move) -> tuple[str, str]:
    """(rule id, reason) for a move that is not among the legal moves."""
    r = state.rules
    d = r.deck
    if state.game_over:
        won = "" if state.winner is None else f" (side {state.winner} won)"
        return "C-game", f"the game is over{won}"
    if state.hand_over:
        return "C-deal", ("the hand is over and the next one is not dealt (hand_over): "
                          "State.from_spec({**state.to_spec(), 'hand_over': False}) deals it")
    if move.deck is not d and (move.played_mask or move.taken_mask):
        if move.deck.copies > d.copies and move.deck.suits == d.suits:
            return "C-deck", ("it names a card twice, as two copies, and this game has one of "
                              f"each card (the {d.name} deck)")
        alien = move.played_mask | move.taken_mask
        return "C-deck", (f"{_cards(move.deck, alien)} "
                          f"{'is not a card' if alien.bit_count() == 1 else 'are not cards'} "
                          f"of this game, which uses the {d.name} deck "
                          f"({d.names[0]}, ..., {d.names[-1]})")
    seat = state.current
    hand = state.hand_masks[seat]
    pm, tm = move.played_mask, move.taken_mask
    if move.kind == "claim":
        if not r.claims:
            return "V-hun-end", ("claiming the game needs the rule switch 'claims', which is off "
                                 "in this game")
        return "V-hun-end", "a claim plays no cards"
    if move.kind == "call" or move.orange:
        if not r.orange_calls:
            return "V-tux-score", ("calling orange needs the rule switch 'orange_calls', which is "
                                   "off in this game")
        if move.kind not in ("call", "capture"):
            return "V-tux-score", f"only a capture may call orange, not a {move.kind}"
        if move.kind == "call":
            if pm or tm:
                return "V-tux-score", "a call plays no cards"
            if state.pending_orange is not None and state.pending_orange != seat:
                return "V-tux-score", f"only seat {state.pending_orange} may call the missed orange"
            return "V-tux-score", ("there is no missed orange to call: only the next player may "
                                   "call one, on their next turn, before they play")
    if not pm:
        return "C-turn", f"a turn plays a card from hand, and this {move.kind} names none"
    if pm & ~hand:
        return "C-turn", _absent(d, pm & ~hand, hand, f"seat {seat} does not hold {{cards}}",
                                 f"seat {seat} holds {{cards}} only once")
    if r.multi_play:
        return _why_multi(state, move)
    if pm.bit_count() != 1:
        return "C-turn", f"a turn plays exactly one card from hand, not {pm.bit_count()}"
    if move.kind == "trail" and not tm and move.value is not None:
        return "C-trail", (f"a trail that takes nothing has no value, and this one says "
                           f"{move.value}")
    if r.preset.play and (move.kind == "build" or move.kind == "trail" and tm):
        # V-nordic-play, V-kryp-play: a card captures or trails, and a trail takes nothing.
        what = "builds" if move.kind == "build" else "trails that take table cards"
        return r.preset.play, f"there is no building in {r.variant}, so no {what}"
    c = bit_list(pm)[0]
    cname = d.names[c]
    cv = r.hand_values[c]  # what it captures with from hand (V-fin-values)
    rest = hand & ~pm
    owned = [b for b in state.builds if b.owner == seat]
    same_rank = state.loose_mask & d.rank_mask[d.rank[c]]
    table = state.table_mask()
    if r.steal and tm & ~table:
        why = _why_steal(state, tm & ~table)
        if why is not None:
            return why
    table |= _loose_items(state) & ~state.loose_mask
    if tm & ~table:
        return f"C-{move.kind}", _absent(d, tm & ~table, table, "{cards} {verb} not on the table",
                                         "{cards} {verb} on the table only once")
    if r.must_capture:
        return _why_kryp(state, move, c, cname)
    for b in state.builds:
        if b.cards & tm and b.cards & ~tm:
            return f"C-{move.kind}", (f"{_cards(d, b.cards & tm)} {_is(b.cards & tm)} in the build "
                                      f"of {b.value} ({'+'.join(d.strs(b.cards))}), which moves "
                                      "only as a whole")
    taken_builds = [b for b in state.builds if b.cards & tm]
    loose_taken = tm & _loose_items(state)
    if move.for_partner and move.kind != "build":
        return "V-partner-build", f"only a build is made for partner, not a {move.kind}"
    if move.kind == "trail":
        return _why_trail(state, move, cname, rest, owned, same_rank, taken_builds)
    if move.kind == "capture":
        if not tm:
            return "C-capture", ("a capture takes at least one table card or build, and this one "
                                 "names none")
        if cv is None:
            if taken_builds or tm.bit_count() != 1 or not tm & same_rank:
                rank = cname[:-1]
                none = "" if same_rank else f", and no {rank} lies loose on the table"
                return "C-face", (f"{cname} has no number value: it captures exactly one loose "
                                  f"{rank} and nothing else{none}")
            if move.value is not None:
                return "C-capture", (f"{cname} has no number value, so it does not capture as "
                                     f"{move.value}")
            vs = ok = [None]  # one loose card of its rank (C-face)
            two = 0
        else:
            faces = [i for i in bit_list(tm) if r.values[i] is None]
            if faces:
                face = d.names[faces[0]]
                return "C-face", f"{face} has no number value: only a {face[:-1]} captures it"
            vs = list(capture_values(r, cv))
            two = _two_valued(r, pm | tm)  # V-fin-values: cards counting apart from hand
            if move.value is not None and move.value not in vs:
                if two & pm:
                    return "V-fin-values", (f"{cname} counts {cv} played from hand (it counts "
                                            f"{r.values[c]} only on the table), not "
                                            f"{move.value}")
                return "C-capture", f"{cname} counts {_or(vs)}, not {move.value}"
            ok = [v for v in vs if _items_split(r, state, tm, v)]
        if not ok:
            for b in taken_builds:
                if b.value not in vs and not (r.build_as_card and not b.multiple):
                    return "C-capture", (f"the build of {b.value} is captured only by a card "
                                         f"of value {b.value}, and {cname} counts {_or(vs)}")
            why = _sum_reason(_items(r, state, tm, vs), vs)
            if two & pm:
                return "V-fin-values", (f"{cname} counts {cv} played from hand ({r.values[c]} "
                                        f"only on the table), and {why}")
            if two:
                ids = bit_list(two)
                return "V-fin-values", (
                    f"on the table {_and([d.names[i] for i in ids])} "
                    f"count{'s' if len(ids) == 1 else ''} "
                    f"{_and([str(r.values[i]) for i in ids])} "
                    f"({_and([str(r.hand_values[i]) for i in ids])} only from hand): {why}")
            return "C-capture", why
        if move.value is not None and move.value not in ok:
            return "C-capture", (f"{cname} takes {'+'.join(d.strs(tm))} only counted as "
                                 f"{ok[0]}, not {move.value}")
        if r.dom_trail and same_rank & ~tm:
            return "V-dom-trail", (f"a capture with {cname} must take every loose card of its "
                                   f"rank, and this one leaves {_cards(d, same_rank & ~tm)}")
        left = [b.value for b in owned if not b.cards & tm]
        if not backs(r, rest, left):
            return "C-build-keep", _keep_reason(r, seat, cname, rest, left)
        return "C-capture", f"{cname} may not capture {'+'.join(d.strs(tm))} here"
    return _why_build(state, move, cname, cv, rest, owned, taken_builds, loose_taken)


def _why_kryp(state: State, move: Move, c: int, cname: str) -> tuple[str, str]:
    """Why a krypkasino move is illegal (V-kryp-play, V-kryp-values, C-capture)."""
    r = state.rules
    d = r.deck
    tm = move.taken_mask
    cv = r.hand_values[c]  # V-kryp-values: an Ace 14 from hand, 1 on the table
    if move.for_partner:  # (builds and trails that take cards: V-kryp-play in why_illegal)
        return "V-kryp-play", f"there is no building in {r.variant}, so nothing for partner"
    loose = state.loose_mask
    sets = Items(loose, r.values, False).groups(cv)
    if move.kind == "trail":
        if sets:
            can = "+".join(d.strs(sets[0]))
            return "V-kryp-play", (f"{cname} counts {cv} and can capture {can}, so it must "
                                   "capture: only a card that can capture nothing may trail")
        return "C-trail", f"{cname} may not trail here"
    if not tm:
        return "C-capture", "a capture takes at least one table card, and this one names none"
    if move.value is not None and move.value != cv:
        ace = ", 1 only as a table card" if d.rank[c] == 1 else ""
        return "V-kryp-values", f"{cname} played from hand counts {cv}{ace}, not {move.value}"
    if not _partitions_into(r, tm, cv):
        return "C-capture", _sum_reason(_items(r, state, tm, (cv,)), (cv,))
    left = Items(loose & ~tm, r.values, False).groups(cv)
    if left:
        what = f"{'+'.join(d.strs(left[0]))} {'makes' if left[0] & left[0] - 1 else 'is'}"
        return "V-kryp-play", (f"a capture must be maximal, and this one leaves {what} {cv} on "
                               f"the table for {cname} to take too")
    return "V-kryp-play", f"{cname} may not capture {'+'.join(d.strs(tm))} here"


def _why_trail(state: State, move: Move, cname: str, rest: int, owned: list, same_rank: int,
               taken_builds: list) -> tuple[str, str]:
    """Why a trail (or, with V-build-loose, a trail that also builds) is illegal."""
    r = state.rules
    d = r.deck
    seat = state.current
    tm = move.taken_mask
    if tm and not r.build_loose:
        return "C-trail", ("a trail puts the card on the table and takes nothing; trailing and "
                           "building in one turn needs the rule switch 'build_loose' "
                           "(V-build-loose)")
    if owned and not r.owner_may_trail:
        return "C-owner-trail", (f"seat {seat} owns {_builds_of(owned)} and may not trail: "
                                 "capture or build instead")
    if r.dom_trail and same_rank:
        return "V-dom-trail", (f"{cname} matches the loose {_cards(d, same_rank)}, so it must "
                               "capture or build, not trail")
    if not tm:
        values = [b.value for b in owned]
        if owned and not backs(r, rest, values):
            return "C-build-keep", _keep_reason(r, seat, cname, rest, values)
        return "C-trail", f"{cname} may not trail here"
    V = move.value
    if V is None:
        return "V-build-loose", "a trail that builds needs the build's value"
    if not 1 <= V <= r.max_value:
        return "V-build-loose", f"a build's value is 1 to {r.max_value}, not {V}"
    vb = next((b for b in state.builds if b.value == V), None)
    if r.dom_build and vb is not None and vb.cards & tm:
        return "V-dom-build", (f"cards added to a build include the card played, so a trail may "
                               f"only make a new build, not add to the build of {V}")
    if vb is not None and not vb.cards & tm:
        return "C-one-per-value", _one_per_value(d, vb)
    if vb is None:
        same = next((b for b in taken_builds if b.cards == tm), None)
        if same is not None:
            return "V-build-loose", (f"{'+'.join(d.strs(tm))} is the build of {same.value} "
                                     "already, and a trail does not change its value")
        if tm.bit_count() < 2:
            return "V-build-loose", (f"a new build of table cards needs two cards or more, not "
                                     f"{cname}'s trail with {_cards(d, tm)} alone")
    elif not tm & ~vb.cards:
        return "V-build-loose", f"nothing would be added to the build of {V}"
    if not _items_split(r, state, tm, V):
        return "V-build-loose", _sum_reason(_items(r, state, tm, (V,)), (V,))
    if not backs(r, rest, [V]):
        return "V-build-loose", (f"after trailing {cname}, seat {seat} would hold no "
                                 f"{_card_of(r, V)} to capture the build")
    after = [b.value for b in owned if not b.cards & tm] + [V]
    if not backs(r, rest, after):
        return "C-build-keep", _keep_reason(r, seat, cname, rest, after)
    own = _own_single(state, seat, taken_builds, V)
    if own is not None:
        return "V-dom-build", f"seat {seat} may not change the value of its own build of {own}"
    return "V-build-loose", f"{cname} may not trail and build {V} here"


def _why_build(state: State, move: Move, cname: str, cv: int | None, rest: int, owned: list,
               taken_builds: list, loose_taken: int) -> tuple[str, str]:
    """Why a build is illegal (C-build and its sub-rules, V-dom-build, V-partner-build)."""
    r = state.rules
    d = r.deck
    seat = state.current
    pm, tm = move.played_mask, move.taken_mask
    if not r.building:
        return "C-build", f"there is no building in {r.variant}"
    V = move.value
    if cv is None:
        return "C-face", f"{cname} has no number value, so it never makes or joins a build"
    if V is None:
        return "C-one-per-value", "a build must name its value"
    if not 1 <= V <= r.max_value:
        return "C-one-per-value", f"a build's value is 1 to {r.max_value}, not {V}"
    if not tm:
        return "C-build", (f"{cname} alone makes no build: a build combines the played card with "
                           "table cards")
    faces = sum(1 << i for i in bit_list(tm) if r.values[i] is None)
    if faces:
        one = faces.bit_count() == 1
        return "C-face", (f"{_cards(d, faces)} {'has' if one else 'have'} no number value and "
                          f"never join{'s' if one else ''} a build")
    partner = (seat + 2) % 4
    if move.for_partner and not r.partner_build:
        return "V-partner-build", ("you may not build for your partner (only with the rule "
                                   "switch 'partner_build')")
    if not move.for_partner and not backs(r, rest, [V]):
        return "C-build", (f"besides {cname}, seat {seat} holds no {_card_of(r, V)} to capture "
                           "the build with")
    vb = next((b for b in state.builds if b.value == V), None)
    raised = [b for b in taken_builds if b.value != V]
    if vb is not None and not vb.cards & tm:
        return "C-one-per-value", _one_per_value(d, vb)
    as_cards = r.build_as_card and (vb is None or vb.cards & tm) and \
        _items_split(r, state, tm, V, (cv,))
    if as_cards:
        pass  # V-build-as-card: the played card, loose cards and single builds make sets of V
    elif len(raised) > 1:
        return "C-build-raise", (f"a move raises one build at most, and this one would change "
                                 f"{_builds_of(raised)}")
    elif raised:
        b = raised[0]
        if b.multiple:
            return "C-build-raise", (f"the build of {b.value} is a multiple build: its value "
                                     "never changes")
        missing = V - b.value - cv
        helped = r.raise_with_table and _raised_with_table(r, loose_taken, missing, V)
        if missing and not helped:
            why = (f"{cname} on the build of {b.value} makes {b.value} + {cv} = {b.value + cv}, "
                   f"not {V}")
            if not r.raise_with_table:
                return "C-build-raise", why + "; table cards never change a single build's value"
            if missing > 0:
                return "C-build-raise", why + (f", and the loose cards taken do not add the "
                                               f"missing {missing}")
            return "C-build-raise", why
        if r.dom_build and b.owner == seat:
            return "V-dom-build", (f"seat {seat} owns the single build of {b.value} and may not "
                                   "raise it")
        if not helped and not _partitions_into(r, loose_taken, V):
            return "C-build-raise", (f"loose cards joining the build of {V} must make sets of "
                                     f"{V}: " + _sum_reason(_items(r, state, loose_taken, ()),
                                                            (V,)))
    else:
        with_card = loose_taken | pm
        items = [(cname, cv)] + _items(r, state, loose_taken, ())
        if not _partitions_into(r, with_card, V):
            if vb is None and loose_taken and _partitions_into(r, loose_taken, V):
                alone = (f"{d.strs(loose_taken)[0]} is" if loose_taken.bit_count() == 1
                         else f"{'+'.join(d.strs(loose_taken))} make")
                return "C-build", (f"{alone} {V} without {cname}, and table cards alone never "
                                   "make a build")
            if vb is None:
                return "C-build", _sum_reason(items, (V,))
            return "C-build-extend", (f"to join the build of {V}, {cname} and the loose cards "
                                      f"must make sets of {V}: " + _sum_reason(items, (V,)))
        if not loose_taken and vb is None:
            return "C-build", (f"{cname} alone makes no build: a build combines the played card "
                               "with table cards")
    own = _own_single(state, seat, taken_builds, V)
    if own is not None:
        return "V-dom-build", f"seat {seat} may not change the value of its own build of {own}"
    after = [b.value for b in owned if not b.cards & tm]
    if not move.for_partner:
        after.append(V)
    if not backs(r, rest, after):
        return "C-build-keep", _keep_reason(r, seat, cname, rest, after)
    if move.for_partner:
        if not backs(r, state.hand_masks[partner], [V]):
            return "C-build-keep", (f"partner (seat {partner}) holds no {_card_of(r, V)} to "
                                    "keep the build")
        return "V-partner-build", (f"public play does not prove that partner (seat {partner}) "
                                   f"holds a {_card_of(r, V)}")
    return "C-build", f"{cname} may not build {V} here"


def _why_multi(state: State, move: Move) -> tuple[str, str]:
    """V-hun-play: why a Hungarian move is illegal."""
    r = state.rules
    d = r.deck
    pm, tm = move.played_mask, move.taken_mask
    if move.kind == "build":
        return "V-hun-play", f"there is no building in {r.variant}"
    if move.kind == "trail":
        if tm:
            return "V-hun-play", "a trail puts one card on the table and takes nothing"
        return "V-hun-play", f"a trail is exactly one card, not {pm.bit_count()}"
    if not tm:
        return "C-capture", "a capture takes at least one table card, and this one names none"
    if tm & ~state.loose_mask:
        missing = tm & ~state.loose_mask
        return "C-capture", _absent(d, missing, state.loose_mask, "{cards} {verb} not on the table",
                                    "{cards} {verb} on the table only once")
    if move.for_partner:
        return "V-hun-play", "a capture is never made for partner"
    played = [(d.names[i], r.values[i]) for i in bit_list(pm)]
    vals = tuple(v for _, v in played)
    total = sum(vals)
    if len(played) == 1:
        counts = f"{played[0][0]} counts {total}"
    else:
        counts = f"{' + '.join(map(str, vals))} is {total}"
    v = move.value if move.value is not None else total
    if r.kovacs and (v > 13 or total > 13 and not r.ulmann):
        over = counts if total > 13 and not r.ulmann else f"this capture counts {v}"
        return "V-hun-play", f"with the Kovacs switch no combination may be above 13, and {over}"
    if v != total:
        split = r.ulmann and (1 << len(vals)) - 1 in partitions(vals, v, r.ace14 and v == 14)
        if not split and not (r.ace14 and vals == (1,) and v == 14):
            if r.ulmann and len(vals) > 1:
                return "V-hun-play", (f"{counts}, and {_and(d.strs(pm))} do not split into sets "
                                      f"of {v}")
            return "V-hun-play", f"{counts}, not {v}"
        counts = f"{_and(d.strs(pm))} count {v}"
    if _partitions_into(r, tm, v):
        return "V-hun-play", f"{'+'.join(d.strs(pm))} may not capture {'+'.join(d.strs(tm))} here"
    return "V-hun-play", f"{counts}; " + _sum_reason(_items(r, state, tm, ()), (v,))


def _two_valued(r, mask: int) -> int:
    """The cards of ``mask`` that count otherwise from hand than on the table (V-fin-values:
    Finnish A, 2S and 10D; V-kryp-values: krypkasino's Aces); 0 in every other preset."""
    if r.hand_values is r.values:
        return 0
    return sum(1 << i for i in bit_list(mask) if r.hand_values[i] != r.values[i])


def _own_single(state: State, seat: int, taken_builds: list, V: int) -> int | None:
    """V-dom-build: the value of the seat's own single build this move would change, if any."""
    if not state.rules.dom_build:
        return None
    return next((b.value for b in taken_builds if b.owner == seat and not b.multiple
                 and b.value != V), None)


def _and(names: list[str]) -> str:
    """``KS``, ``KS and QS``, ``KS, QS and JS``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _cards(d, mask: int) -> str:
    return _and(d.strs(mask))


def _is(mask: int) -> str:
    return "is" if mask.bit_count() == 1 else "are"


def _absent(d, missing: int, there: int, absent: str, once: str) -> str:
    """Why the cards ``missing`` are not in a place holding ``there``: ``absent``, or with two
    decks, when the other copy of each is there, ``once`` (templates of {cards} and {verb})."""
    if d.copies > 1:
        kinds = {d.kind[c] for c in bit_list(there)}
        if all(d.kind[c] in kinds for c in bit_list(missing)):
            absent = once
    return absent.format(cards=_cards(d, missing), verb=_is(missing))


def _or(values) -> str:
    return " or ".join(str(v) for v in values)


def _builds_of(builds: list) -> str:
    """``the build of 8`` or ``the builds of 5 and 8``."""
    values = [str(b.value) for b in builds]
    return f"the build{'s' if len(values) > 1 else ''} of {_and(values)}"


def _card_of(r, v: int) -> str:
    """``card of value 8``; a Royal 14 is an Ace."""
    return f"card of value {v}" + (" (an Ace)" if v == 14 and r.ace14 else "")


def _one_per_value(d, vb: Build) -> str:
    """C-one-per-value: a second build of the same value."""
    return (f"a build of {vb.value} ({'+'.join(d.strs(vb.cards))}) is on the table already: a "
            f"new set of {vb.value} joins it, it may not lie beside it")


def _keep_reason(r, seat: int, cname: str, rest: int, values: list[int]) -> str:
    """C-build-keep: the seat would be left without a card for one of its builds."""
    v = _unbacked(r, rest, values)
    return f"after playing {cname}, seat {seat} would hold no card to capture its build of {v}"


def _loose_items(state: State) -> int:
    """The cards that count as loose table cards for the seat to move: the loose cards and,
    under V-swazi-steal, the top card of every other side's pile."""
    return state.loose_mask | stealable(state, state.current)


def _why_steal(state: State, off_table: int) -> tuple[str, str] | None:
    """V-swazi-steal: why pile cards among ``off_table`` may not be taken (None if they are
    every one another side's pile top, or none lies in a pile)."""
    d = state.rules.deck
    mine = state.rules.side(state.current)
    for c in bit_list(off_table):
        side = pile_of(state, c)
        if side is None:
            continue
        name = d.names[c]
        if side == mine:
            whose = "partners may not take" if state.rules.partnerships else "no one takes"
            return "V-swazi-steal", (f"{name} is in side {side}'s pile, the mover's own side's, "
                                     f"and {whose} from their own pile")
        top = state.pile_ids[side][-1]
        if top != c:
            return "V-swazi-steal", (f"{name} is in side {side}'s pile under {d.names[top]}: "
                                     "only a pile's top card may be taken")
    return None


def _items(r, state: State, tm: int, skip: tuple) -> list[tuple[str, int | None]]:
    """(name, value) of the table items in ``tm``: loose cards, then builds whose value is not
    in ``skip`` (a build of a set's own value is a whole set)."""
    d = r.deck
    tops = _loose_items(state) & ~state.loose_mask
    out = [(d.names[i] + (f" (top of side {pile_of(state, i)}'s pile)" if tops >> i & 1 else ""),
            r.values[i]) for i in bit_list(tm & (state.loose_mask | tops))]
    out += [(f"the build of {b.value}", b.value) for b in state.builds
            if b.cards & tm and b.value not in skip]
    return out


def _sum_reason(items: list[tuple[str, int | None]], targets: tuple) -> str:
    """Why ``items`` do not make sets of a value in ``targets``: ``5 + 3 is 8, not 13``,
    ``4 + 6 is 10, which does not split into sets of 3``, ``5S counts 5, not 7``."""
    goal = _or(targets)
    faces = [name for name, v in items if v is None]
    if faces:
        return f"{_and(faces)} {'has' if len(faces) == 1 else 'have'} no number value"
    if not items:
        return f"they do not make sets of {goal}"
    if len(items) == 1:
        name, v = items[0]
        return f"{name} counts {v}, not {goal}"
    vals = [v for _, v in items]
    total = sum(vals)
    expr = " + ".join(map(str, vals))
    if any(1 < t < total for t in targets):
        return f"{expr} is {total}, which does not split into sets of {goal}"
    return f"{expr} is {total}, not {goal}"


def _items_split(r, state: State, tm: int, v: int, extra: tuple = ()) -> bool:
    """True if the table items in ``tm`` (loose cards; single builds too under
    V-build-as-card), plus items of the values ``extra``, split into sets of ``v``; a build of
    value ``v`` is a whole set by itself."""
    vals = [r.values[i] for i in bit_list(tm & _loose_items(state))] + list(extra)
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
    """True if the cards of ``mask`` split into disjoint sets of value ``v`` (counted as table
    cards, ``Rules.values``)."""
    ids = bit_list(mask)
    vals = tuple(r.values[i] for i in ids)
    if None in vals:
        return False
    return (1 << len(ids)) - 1 in partitions(vals, v, r.ace14 and v == 14)
