"""What one seat may know: a redacted state, and sampling the hidden cards consistently.

``PlayerView(state, seat)`` keeps the seat's own hand and everything public (table, piles,
scores, sweeps, build owners, ...) and removes the other hands and the stock, keeping only
their sizes. Scripted agents read views, never states, so they cannot see hidden cards.
``determinize`` deals the hidden cards back at random, consistent with what the seat has
seen: every build owner holds a card of its value (C-build-keep), every value public play
proves a seat holds is held (V-partner-build), and a cut card the seat has seen stays at the
bottom of the stock (V-hun-cut).
"""

from __future__ import annotations

import random
from zlib import crc32

from .cards import bit_list
from .moves import Move, backs, legal_moves, resolve_copies
from .play import uncaptured
from .state import State, _lowest_all, renumber


def exposed_seats(state: State) -> tuple[int, ...]:
    """Seats whose hands everyone can see (Nagy: the last round is played with hands shown)."""
    if state.rules.nagy and not state.stock_ids:
        return tuple(range(state.rules.players))
    return ()


def cut_card(state: State, seat: int) -> int | None:
    """V-hun-cut: the id of the stock's bottom card if ``seat`` may see it (the non-dealer,
    while the card is still in the stock; the dealer receives it in the last deal), else
    None."""
    if state.rules.cut and seat != state.dealer and state.stock_ids:
        return state.stock_ids[-1]
    return None


def shown_cut(state: State, viewer: int | None) -> tuple[int, int] | None:
    """V-hun-cut as a picture of the table shows it: (the stock's bottom card, the non-dealer
    who has seen it) when ``viewer`` has (None: a picture of everything), else None."""
    if not state.rules.cut:
        return None
    non_dealer = (state.dealer + 1) % state.rules.players
    cut = cut_card(state, non_dealer if viewer is None else viewer)
    return None if cut is None else (cut, non_dealer)


class PlayerView:
    """The information of ``seat`` in ``state``: ``state`` here is redacted (other hands and
    the stock are empty), with their sizes in ``hand_sizes`` and ``stock_size``. ``cut`` is
    the stock's bottom card the seat has seen (V-hun-cut), or None; ``unseen`` is every card
    whose place the seat does not know (so never the cut card); ``uncaptured``, with claims
    on, the (cards, spades) no pile holds yet, which a claim is judged on, else None."""

    __slots__ = ("seat", "state", "hand_sizes", "stock_size", "unseen", "exposed", "cut",
                 "uncaptured")

    def __init__(self, state: State, seat: int, exposed: tuple | None = None) -> None:
        n = state.rules.players
        if exposed is None:
            exposed = exposed_seats(state)
        self.seat = seat
        # (cards, spades) not captured yet this hand, which a claim is judged on (V-hun-end:
        # public, but the redacted state cannot count them); None where claims are off
        self.uncaptured = uncaptured(state) if state.rules.claims else None
        self.hand_sizes = tuple(h.bit_count() for h in state.hand_masks)
        self.stock_size = len(state.stock_ids)
        # Hands this seat can see besides its own (e.g. hands played face up), by seat.
        self.exposed = tuple(s for s in exposed if s != seat)
        red = state._copy()
        red.hand_masks = tuple(state.hand_masks[s] if s == seat or s in self.exposed else 0
                          for s in range(n))
        red.stock_ids = ()
        red.seed = None  # the next hands' shuffle is hidden too
        # Legality depends only on the seat's hand and public facts, so the true list is known.
        red._moves = legal_moves(state) if state.current == seat and not state.game_over else None
        if state.rules.deck.copies > 1:
            # Two decks: the state numbers the copies with the stock's first, so which copy of
            # a card this seat holds tells where the other lies; the view numbers the copies
            # it sees among themselves (hands, table, piles: no builds with two decks).
            n_h = len(red.hand_masks)
            places = _lowest_all(red.hand_masks + (red.loose_mask,) + red.pile_masks, 0,
                                 state.rules.deck.low)
            red.hand_masks, red.loose_mask, red.pile_masks = (places[:n_h], places[n_h],
                                                              places[n_h + 1:])
            if red._moves is not None:
                red._moves = [resolve_copies(red, m) for m in red._moves]
        self.state = red
        self.cut = cut_card(state, seat)
        seen = red.loose_mask | sum(red.hand_masks) | sum(red.pile_masks)
        for b in red.builds:
            seen |= b.cards
        if self.cut is not None:
            seen |= 1 << self.cut
        self.unseen = state.rules.deck.full & ~seen

    @property
    def rules(self):
        return self.state.rules

    def legal_moves(self) -> list[Move]:
        """The seat's legal moves (they depend only on its hand and the table)."""
        if self.state.current != self.seat:
            raise ValueError(f"seat {self.seat} is not to move")
        return legal_moves(self.state)

    def determinize(self, rng: random.Random, tries: int = 50) -> State:
        """A full state with the hidden cards dealt at random, consistent with the view."""
        return determinize(self, rng, tries)


def _requirements(view: PlayerView) -> dict[int, list[int]]:
    """Build values each hidden seat provably holds (owned builds, V-partner-build proofs)."""
    st = view.state
    need: dict[int, list[int]] = {}
    for b in st.builds:
        if b.owner != view.seat and b.owner not in view.exposed:
            need.setdefault(b.owner, []).append(b.value)
    if st.rules.partner_build:
        for s, proof in enumerate(st.proven):
            if s != view.seat and s not in view.exposed:
                for v in range(1, 15):
                    if proof >> v & 1 and v not in need.get(s, []):
                        need.setdefault(s, []).append(v)
    return need


# Uniform deals tried before the construction, where a hidden seat must back builds.
UNIFORM_TRIES = 64


def determinize(view: PlayerView, rng: random.Random, tries: int = 50) -> State:
    """The hidden cards dealt at random among the deals consistent with ``view``: a uniform
    deal, kept if every seat backs the builds it must (``UNIFORM_TRIES`` at most; with no such
    seat the first is kept), else one built by giving each such seat a card of each value it
    needs first (which favours it holding fewer of them) and dealing the rest."""
    st = view.state
    r = st.rules
    hidden = [s for s in range(r.players) if s != view.seat and s not in view.exposed]
    need = _requirements(view)
    pool = bit_list(view.unseen)
    for _ in range(UNIFORM_TRIES if need else 1):
        cards = pool[:]
        rng.shuffle(cards)
        hands = list(st.hand_masks)
        pos = _deal_rest(view, hidden, hands, cards)
        if all(backs(r, hands[s], vals) for s, vals in need.items()):
            return _dealt(view, hands, cards, cards, pos)
    rank_mask = r.deck.rank_mask
    for _ in range(tries):
        cards = pool[:]
        rng.shuffle(cards)
        hands = list(st.hand_masks)
        taken = 0
        ok = True
        # First give each constrained seat one card per required value, then fill at random.
        for s, values in need.items():
            for v in values:
                k = 1 if v == 14 else v
                choice = [c for c in cards if rank_mask[k] >> c & 1 and not taken >> c & 1]
                if not choice or hands[s].bit_count() >= view.hand_sizes[s]:
                    ok = False
                    break
                c = rng.choice(choice)
                hands[s] |= 1 << c
                taken |= 1 << c
            if not ok:
                break
        if not ok:
            continue
        rest = [c for c in cards if not taken >> c & 1]
        pos = _deal_rest(view, hidden, hands, rest)
        if all(backs(r, hands[s], vals) for s, vals in need.items()):
            return _dealt(view, hands, cards, rest, pos)
    raise RuntimeError("could not deal the hidden cards consistently with the view")


def _deal_rest(view: PlayerView, hidden: list[int], hands: list[int], cards: list[int]) -> int:
    """Fill each hidden seat's hand (in place) from ``cards`` in order; the cards used."""
    pos = 0
    for s in hidden:
        k = view.hand_sizes[s] - hands[s].bit_count()
        for c in cards[pos:pos + k]:
            hands[s] |= 1 << c
        pos += k
    return pos


def _dealt(view: PlayerView, hands: list[int], cards: list[int], rest: list[int],
           pos: int) -> State:
    """The full state: ``hands``, the stock from ``rest[pos:]``, a later-hands seed from the
    shuffled ``cards``."""
    out = view.state._copy()
    out.hand_masks = tuple(hands)
    if view.cut is None:
        out.stock_ids = tuple(rest[pos:pos + view.stock_size])
    else:  # V-hun-cut: the card seen stays at the bottom (the dealer's last card)
        out.stock_ids = tuple(rest[pos:pos + view.stock_size - 1]) + (view.cut,)
    # the later hands' shuffles: a seed drawn with the cards (not the true one, which the
    # view does not hold), so the same rng gives the same state
    out.seed = crc32(bytes(cards))
    if out.rules.deck.copies > 1:
        renumber(out)  # the engine's canonical copies (docs/rules.md)
    return out
