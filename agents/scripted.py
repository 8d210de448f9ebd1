"""Scripted agents: ``GreedyAgent`` (most cards now) and ``HeuristicAgent`` (one-ply evaluation
with card values read from the variant's scoring, opponent threat and secured builds).

Both read only the ``PlayerView`` and are deterministic (ties go to the engine's canonical move
order), so a tournament between them is reproducible.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from math import comb

from casino_env.engine import Move
from casino_env.engine.cards import bit_list
from casino_env.engine.moves import Items, distinct
from casino_env.engine.play import claim_wins
from casino_env.engine.scoring import (
    TUX_ORANGE,
    TUX_SWEEP_BIG,
    TUX_SWEEP_SMALL,
    is_orange,
    restricted,
    sweep_scores,
)
from casino_env.engine.view import PlayerView

from .afterstate import afterstate_nets, exact_or_learned, heuristic_pick
from .base import Agent, check_bool, check_int, check_number
from .valuation import (
    Extras,
    Table,
    Weights,
    best_capture,
    capture_values,
    criterion_weights,
    hold_probability,
    rules_values,
    static_weights,
    table_after,
    threat,
    value_rank,
    weights,
)


def greedy_key(move: Move, w: Weights, penalties: bool = False) -> tuple:
    """Sort key of the greedy choice: captures by cards taken then their points; otherwise the
    least valuable card, trails before builds (greedy does not plan builds). In a penalty game
    (krypkasino, V-kryp-score: ``w`` values penalty cards below 0) the move that takes the
    fewest penalty points now, a trail counting 0 and shedding its most penalized card."""
    if penalties:
        if move.kind == "capture":
            m = move.played_mask | move.taken_mask
            return (w.value(m), 0, -m.bit_count())
        return (0.0, 1, -w.value(move.played_mask))
    if move.kind == "capture":
        m = move.played_mask | move.taken_mask
        return (2, m.bit_count(), w.value(m))
    return (1 if move.kind == "trail" else 0, 0, -w.value(move.played_mask))


def greedy_choice(moves: list[Move], w: Weights, penalties: bool = False) -> Move:
    """The greedy move among ``moves`` (first in canonical order on ties)."""
    best = moves[0]
    bk = greedy_key(best, w, penalties)
    for m in moves[1:]:
        k = greedy_key(m, w, penalties)
        if k > bk:
            best, bk = m, k
    return best


class GreedyAgent(Agent):
    """Takes the most cards now (ties: the most points); otherwise trails its least valuable
    card. The classic baseline: strong against random play, blind to what it leaves behind."""

    name = "greedy"

    def choose(self, view: PlayerView) -> Move:
        moves = view.legal_moves()
        r = view.rules
        return greedy_choice(moves, static_weights(r), getattr(r, "penalties", False))


@dataclass
class HeuristicParams:
    """Tunable weights of ``HeuristicAgent`` (points are the variant's scoring points)."""

    threat: float = 1.0  # how much the opponent's expected best reply counts against a move
    build_keep: float = 0.9  # discount on a secured build's cards (taken next turn if it holds)
    potential: float = 0.2  # share of what our remaining cards could take from the table left
    residue: float = 1.0  # the table at the end of the hand goes to the last capturer
    per_card: float = 0.01  # a small tie-break for taking more cards

    def __post_init__(self) -> None:
        # Weights are points or shares of them: negative ones would invert the play.
        for f in fields(self):
            high = 1.0 if f.name == "build_keep" else None  # a discount
            check_number(f.name, getattr(self, f.name), 0.0, high)


WEIGHTS = tuple(f.name for f in fields(HeuristicParams))


DECISIVE = 1e6  # a move that wins (or loses) the game, or a free call, over any evaluation


def _cardless(view: PlayerView, m: Move) -> float:
    """V-hun-end claims: a claim wins if the side's earned points reach the target, and
    loses the game otherwise. V-tux-score: calling a missed orange is 10 for nothing (it is
    legal only while there is one), and the turn's card is played after it."""
    if m.kind == "claim":
        return DECISIVE if claim_wins(view.state, view.uncaptured) else -DECISIVE
    return DECISIVE


def _orange_call(rules, m: Move) -> float:
    """V-tux-score with ``orange_calls``: calling a capture's orange scores 10 if it is one and
    costs 10 if not; an orange left uncalled the next player may call for 10."""
    orange = is_orange(rules, m.taken_mask)
    if m.orange:
        return TUX_ORANGE if orange else -TUX_ORANGE
    return -TUX_ORANGE if orange else 0.0


def first_play(view: PlayerView) -> bool:
    """Whether this is the hand's first move: the engine's ``play._first_play`` (Nagy's double
    sweep, krypkasino's uncredited tabbe) read from a view, whose redacted state holds no
    other hand and no stock (their sizes stand in)."""
    st = view.state
    r = st.rules
    return (not any(st.pile_masks) and st.loose_mask.bit_count() == 4 and not st.builds
            and all(k == r.hand_size for k in view.hand_sizes)
            and view.stock_size == r.deck.size - 4 - r.hand_size * r.players)


class _Complete:
    """``HeuristicAgent(complete=True)``: the scoring facts the default evaluation leaves out,
    read from the engine's scoring (``casino_env.engine.scoring``) for one decision.

    - V-tux-score: our capture's orange (10, unless ``orange_calls``, which ``_orange_call``
      values) and a sweep's size (10 for 4 or more table cards, else 5); the opponent's reply
      scores its orange and sweep too (``valuation.threat`` with ``extras``), and a build of
      ours whose capture will be an orange counts it.
    - V-dom-end / V-soto: a restricted side's cards are worth only its criterion's items
      (``criterion_weights``; the game's worth, the target's points, when meeting it wins),
      and its sweeps and last capture nothing. Short by 3 or less, the criterion's cards
      count for the other side too: taking them denies a win (``w_me``), losing them to the
      opponent loses ours (``w_threat``).
    - V-fin-score: a reply made in the hand's last deal (our move ends the deal before it)
      scores no sweep.
    - C-sweep: the hand's last card sweeps when its own capture clears the table.
    - V-hun-play (Nagy): sweeping the four initial table cards with the first move counts 2.
    - C-residue: the residue of a hand nobody captured in goes to the dealer's side (and no
      one scores the last capture)."""

    __slots__ = ("view", "side", "w_me", "w_opp", "w_threat", "orange", "later_orange",
                 "sweep", "ex_now", "ex_next", "last_me", "last_opp")

    def __init__(self, view: PlayerView, side: int, opp_side: int, w_me: Weights,
                 w_opp: Weights, sweeps_count: bool, last_pts: float) -> None:
        st = view.state
        r = st.rules
        self.view, self.side = view, side
        limits = restricted(r, st.scores)  # V-dom-end: {} unless it applies
        mine, theirs = limits.get(side), limits.get(opp_side)
        game = float(r.target)
        self.w_me = w_me if mine is None else criterion_weights(r, st.pile_masks, side, mine,
                                                                 game)
        self.w_opp = w_opp if theirs is None else criterion_weights(r, st.pile_masks, opp_side,
                                                                    theirs, game)
        self.w_threat = self.w_opp
        if theirs is not None and theirs <= 3:  # their winning cards: ours to deny
            self.w_me = Weights(self.w_me.terms + self.w_opp.terms)
        if mine is not None and mine <= 3:  # our winning cards: theirs to deny
            self.w_threat = Weights(self.w_opp.terms + criterion_weights(
                r, st.pile_masks, side, mine, game).terms)
        tux = r.scoring == "tuxedo"
        self.orange = TUX_ORANGE if tux and not r.orange_calls else 0.0
        sweep = rules_values(r).sweep_points if r.sweeps else 0.0
        small, big = (TUX_SWEEP_SMALL, TUX_SWEEP_BIG) if tux and r.sweeps else (sweep, sweep)
        double = 2 if r.nagy and first_play(view) else 1  # V-hun-play: Nagy's first sweep
        ok = sweeps_count and mine is None  # a restricted side's sweeps score nothing
        self.sweep = (small * double, big * double) if ok else (0.0, 0.0)
        # The opponent's reply: in this deal, or in the next one when our move ends this one
        # (the last deal if the stock holds no more than one round: V-fin-score).
        theirs_ok = theirs is None
        hs = getattr(r, "hand_size", 4)
        next_last = 0 < view.stock_size <= hs * r.players
        # a later capture's orange, theirs or of a build of ours (with orange_calls, called)
        self.later_orange = later = TUX_ORANGE if tux else 0.0
        self.ex_now = Extras(r, later, *((small, big) if sweeps_count and theirs_ok
                                          else (0.0, 0.0)))
        nxt = sweep_scores(r, st.scores, next_last) and theirs_ok
        self.ex_next = Extras(r, later, *((small, big) if nxt else (0.0, 0.0)))
        self.last_me = 0.0 if mine is not None else last_pts
        self.last_opp = 0.0 if theirs is not None else last_pts

    def gain(self, m: Move, left: int) -> float:
        """Points our capture ``m`` scores in play (an orange, a sweep), ``left``: the table
        it leaves."""
        x = 0.0
        if self.orange and is_orange(self.view.rules, m.taken_mask):
            x += self.orange
        if not left:
            x += self.sweep[1] if m.taken_mask.bit_count() >= 4 else self.sweep[0]
        return x

    def reply_extras(self, ends_deal: bool) -> Extras:
        """What the opponent's reply scores in play: ``ends_deal``, our move ends the deal (not
        the last: that ends the hand) and they reply in the next one."""
        return self.ex_next if ends_deal else self.ex_now

    def hand_end(self, m: Move, left: int, residue: float) -> float:
        """Our move ends the hand: the residue ``left`` goes to the last capturer's side, or
        the dealer's if nobody captured in the hand (C-residue), weighted ``residue``; the
        last capture's points, if scored, to the last capturer."""
        st = self.view.state
        r = st.rules
        capturer = self.view.seat if m.kind == "capture" else st.last_capturer
        taker = r.side(st.dealer if capturer is None else capturer)
        mine = taker == self.side
        x = residue * (self.w_me.value(left) if mine else -self.w_opp.value(left))
        if capturer is not None:
            x += self.last_me if mine else -self.last_opp
        return x


class HeuristicAgent(Agent):
    """One-ply evaluation of each legal move, in points:

    gain now (cards taken, valued by the variant's scoring, plus a sweep where it scores)
    - the opponent's expected best capture from the table the move leaves (over the cards we
    cannot see, with exact hypergeometric odds of their holding each rank)
    + builds we own that the opponent is unlikely to take (we hold the capturing card)
    + a little for what our remaining cards can take next turn
    + the residue at the end of the hand when we will be the last capturer.

    Under V-swazi-steal a pile top taken from another side also counts what that side loses,
    the opponent's reply may take our pile's top (and the other sides' tops) like a loose
    card, and a valuable card left on top of our pile counts against the move by the odds
    that the opponent holds its rank.

    Krypkasino (a penalty game with compulsory maximal captures) has its own evaluation,
    ``kryp_scores``: the points and sweep taken now, penalty cards kept in hand, the next
    player's forced reply and, with 2 players, our own forced reply after it.

    What the default evaluation leaves out (an audit, sixtieth session; kept as it is, since it
    is the benchmark's opponent and the networks read its scores as inputs): tuxedo's points
    scored in play (an orange's 10 unless ``orange_calls``; a sweep counts 1, not 10 or 5, in
    our move and in the opponent's reply), dominican's endgame restrictions (V-dom-end: a side
    at 18-20 is valued as if unrestricted), that a reply in the last deal scores no Finnish
    sweep when our move ends the deal before it, that krypkasino's first move credits no
    tabbe, the hand's last card sweeping, Nagy's double first sweep, and the residue of a hand
    nobody captured in (the dealer's).

    ``complete`` (default False: the evaluation above, bit for bit): count every one of those
    (``_Complete``): V-tux-score's orange (10, automatic unless ``orange_calls``) and a sweep
    by its size (10 for 4 or more table cards, else 5) in our move, in the opponent's reply
    (``valuation.threat`` with ``extras``: their best capture counts its orange and sweep) and in a
    build of ours whose capture will be an orange; V-dom-end (and V-soto): a restricted side's
    cards are worth only its criterion (``valuation.criterion_weights``: the target's points,
    a game, when meeting it wins), its sweeps and last capture nothing, and the criterion's
    cards count against the other side (ours to deny, theirs to lose); V-fin-score: no sweep
    for a reply in the hand's last deal; V-kryp-score: a first move's tabbe credits no one;
    C-sweep: the hand's last card sweeps; V-hun-play: Nagy's first sweep counts 2; C-residue:
    an uncaptured hand's residue is the dealer's side's. The last card's sweep and the
    dealer's residue cannot change the move chosen (the default's per-card tie-break already
    prefers the sweeping capture, and a capture to a trail, there), and the first-move tabbe
    changed none in 13,000 random krypkasino first moves with a sweep (it costs more than the
    cheap alternatives even uncredited); they make the scores, which other agents read, match
    the engine's. Still left out with it: that a restricted side's sweeps cancel others'
    (V-cancel), that a Nagy sweep gives the opponent two moves, and a partner's or a third
    side's reply.

    ``endgame``: where the view determines the whole state (the last deal of a two-player
    hand), play the exact minimax move (``agents.endgame``) if it takes at most this many
    positions (default 0: never) -- a reference for what exact last-deal play is worth.
    ``endgame_net``: the path of an afterstate value network (``agents.afterstate``) to play
    there instead, learned rather than searched; ``endgame_margin``: the network departs from
    the default heuristic's move only for a move it values at least this many points higher
    (default 0: it plays its best-valued move). ``midgame_net``: the path of a network of
    scope ``before_last`` (``experiments.midgame_net``) to choose among the heuristic's best
    moves at every two-player decision before the last deal; ``midgame_prior``: it adds this
    many times the heuristic's score of each to its value (default 0), as the search adds its
    prior to the rollouts' mean; ``midgame_candidates``: how many of the heuristic's
    best-scored moves it chooses among (default: the count it was fitted on; 0: every move);
    ``midgame_samples``: over how many deals of the next round it averages a move that ends a
    round (its afterstate holds the next round's cards; default 1).
    ``scores`` (the evaluation other agents read as hints and priors) is unchanged by any of
    them (``complete`` aside).
    """

    name = "heuristic"
    # the weights one by one, or all of them as ``params``; and the exact last deal
    options = WEIGHTS + ("params", "endgame", "endgame_net", "endgame_margin", "midgame_net",
                         "midgame_prior", "midgame_candidates", "midgame_samples", "complete")

    def __init__(self, seed: int | None = None, params: HeuristicParams | None = None,
                 endgame: int = 0, endgame_net: str | None = None,
                 endgame_margin: float | None = None, midgame_net: str | None = None,
                 midgame_prior: float | None = None, midgame_candidates: int | None = None,
                 midgame_samples: int | None = None, complete: bool = False,
                 **kw: float) -> None:
        super().__init__(seed)
        if type(complete) is int and complete in (0, 1):  # a spec's complete=1 / complete=0
            complete = bool(complete)
        try:
            self.complete = check_bool("complete", complete)
        except ValueError:
            raise ValueError(f"complete must be true or false (or 1 or 0), got {complete!r}"
                             ) from None
        self.endgame = check_int("endgame", endgame, 0)
        self.endgame_net, self.midgame_net = afterstate_nets(
            endgame_net, endgame_margin, midgame_net, midgame_prior, midgame_candidates,
            midgame_samples)
        unknown = [k for k in kw if k not in WEIGHTS]
        if unknown:
            raise TypeError(f"HeuristicAgent() got an unexpected keyword argument {unknown[0]!r}")
        if params is not None and not isinstance(params, HeuristicParams):
            raise ValueError(f"params must be a HeuristicParams, got {params!r}")
        if params is not None and kw:
            raise ValueError(f"give the heuristic's weights as params or one by one "
                             f"({', '.join(kw)}), not both")
        self.params = params or HeuristicParams(**kw)

    def choose(self, view: PlayerView) -> Move:
        moves = view.legal_moves()
        if len(moves) == 1:
            return moves[0]
        chosen = exact_or_learned(view, moves, self.endgame,
                                  (self.endgame_net, self.midgame_net))
        return chosen if chosen is not None else \
            moves[heuristic_pick(self.scores(view, moves))]

    def scores(self, view: PlayerView, moves: list[Move]) -> list[float]:
        """The evaluation of each move (higher is better)."""
        p = self.params
        st = view.state
        r = st.rules
        seat = view.seat
        side = r.side(seat)
        n = r.players
        w_me = weights(r, st.pile_masks, side)
        if getattr(r, "must_capture", False):
            return self._kryp_scores(view, moves, w_me)
        # The next opponent to move and what it may hold.
        opp = next(((seat + k) % n for k in range(1, n) if r.side((seat + k) % n) != side),
                   (seat + 1) % n)
        opp_side = r.side(opp)
        w_opp = weights(r, st.pile_masks, opp_side)
        hand = st.hand_masks[seat]
        unseen = view.unseen
        n_unseen = unseen.bit_count()
        opp_cards = view.hand_sizes[opp]
        last_deal = view.stock_size == 0
        others_empty = all(view.hand_sizes[s] == 0 for s in range(n) if s != seat)
        # V-fin-score: a sweep made now may count nothing (last deal, a side on 10).
        sweeps_count = sweep_scores(r, st.scores, last_deal)
        sweep_pts = rules_values(r).sweep_points if sweeps_count else 0.0
        last_pts = rules_values(r).last_capture_points
        steal = _Steal(view, side, opp_side) if st.pile_ids else None
        cx = None
        if self.complete:
            cx = _Complete(view, side, opp_side, w_me, w_opp, sweeps_count, last_pts)
            w_me, w_opp = cx.w_me, cx.w_opp
        out = []
        for m in moves:
            if m.kind in ("claim", "call"):  # no card played: decided on the rules alone
                out.append(_cardless(view, m))
                continue
            rest = hand & ~m.played_mask
            loose, builds = table_after(st.loose_mask, st.builds, m, seat)
            left = loose
            for b in builds:
                left |= b.cards
            score = 0.0
            exposed = 0  # V-swazi-steal: the pile tops the opponent may take after the move
            if steal is not None:
                gain, exposed, guard = steal.effect(m, w_me, n_unseen, opp_cards)
                score += gain - p.threat * guard
            if m.kind == "capture":
                got = m.played_mask | m.taken_mask
                score += w_me.value(got) + p.per_card * got.bit_count()
                if r.orange_calls:
                    score += _orange_call(r, m)
                if cx is not None:
                    score += cx.gain(m, left)
                elif not left and sweep_pts and not (last_deal and others_empty and not rest):
                    score += sweep_pts
            # Who moves next, and with how many cards.
            if rest and others_empty:
                h = 0  # we play on alone; the table is ours to handle
            elif opp_cards:
                h = opp_cards
            elif not last_deal:
                h = min(getattr(r, "hand_size", 4), view.stock_size // n)
            else:
                h = 0
            if last_deal and not rest and others_empty:
                # The hand ends now: the residue goes to the last capturer (C-residue).
                if cx is not None:  # nobody captured in the hand: the dealer's side's
                    score += cx.hand_end(m, left, p.residue)
                    out.append(score)
                    continue
                mine = m.kind == "capture" or (
                    st.last_capturer is not None and r.side(st.last_capturer) == side)
                score += p.residue * (w_me.value(left) if mine else -w_opp.value(left))
                if m.kind == "capture" or st.last_capturer is not None:
                    score += last_pts if mine else -last_pts  # V-last-capture, if scored
                out.append(score)
                continue
            certain = tuple(b.value for b in builds if b.owner == opp)
            if h and (left or exposed):
                if cx is None:
                    score -= p.threat * threat(r, loose | exposed, builds, unseen, h, certain,
                                               w_opp, sweeps_count)
                else:
                    score -= p.threat * threat(
                        r, loose | exposed, builds, unseen, h, certain, cx.w_threat,
                        extras=cx.reply_extras(not rest and others_empty))
            # Builds we own: taken next turn unless the opponent holds the value.
            for b in builds:
                if b.owner != seat:
                    continue
                k = value_rank(b.value)
                grp = (unseen & r.deck.rank_mask[k]).bit_count()
                risk = hold_probability(n_unseen, h, grp) if h else 0.0
                mine = rest & r.deck.rank_mask[k]
                card = w_me.value(mine) / max(1, mine.bit_count())
                if cx is not None and cx.later_orange and is_orange(r, b.cards):
                    card += cx.later_orange  # V-tux-score: taking it will be an orange
                score += p.build_keep * (1.0 - risk) * (w_me.value(b.cards) + card)
            if p.potential and rest and left:
                table = Table(r, loose)
                best = 0.0
                for c in bit_list(rest):
                    if capture_values(r, c) and any(b.owner == seat for b in builds):
                        continue  # the owned build already counts for it
                    v, _ = best_capture(r, loose, builds, c, w_me, table)
                    best = max(best, v)
                score += p.potential * best
            if last_deal and p.residue and left:
                score += p.residue * self._residue(view, m, rest, left, w_me, w_opp)
            out.append(score)
        return out

    def _kryp_scores(self, view: PlayerView, moves: list[Move], w_me: Weights) -> list[float]:
        """Krypkasino (penalties, V-kryp-play): see ``kryp_scores``."""
        return kryp_scores(view, moves, w_me, self.params, KRYP, self.complete)

    def _residue(self, view: PlayerView, m: Move, rest: int, left: int, w_me: Weights,
                 w_opp: Weights) -> float:
        """Last deal: half the table left, when the move keeps a build of ours on it (we hold its
        capturing card, so we are likely to make the hand's last capture and take the rest,
        C-residue); otherwise 0."""
        if not rest:
            return 0.0
        for b in view.state.builds:
            if b.owner == view.seat and not b.cards & m.taken_mask:
                return 0.5 * w_me.value(left)
        return 0.0


def _twin(r, m: Move) -> bool:
    """V-kryp-score: a capture of the played card's own twin, alone (a dubbeltabbe if it
    sweeps)."""
    kind = r.deck.kind
    tm = m.taken_mask
    return tm.bit_count() == 1 and kind[tm.bit_length() - 1] == kind[m.played_mask.bit_length() - 1]


@dataclass(frozen=True)
class KrypParams:
    """Weights of the heuristic's krypkasino evaluation (``kryp_scores``), in penalty points."""

    hand: float = 0.5  # share of a penalty card's points counted against us while we hold it
    follow: float = 1.0  # weight of our own forced reply after the next player's


KRYP = KrypParams()
FOLLOW_MIN_ODDS = 0.01  # our follow-up is not worked out for replies less likely than this


def kryp_scores(view: PlayerView, moves: list[Move], w_me: Weights, p: HeuristicParams,
                k: KrypParams = KRYP, complete: bool = False) -> list[float]:
    """Krypkasino (penalties, V-kryp-play, V-kryp-score), each move's value to the mover's
    side relative to the others (higher is better):

    - the penalty points the move takes now (card weights are negative there) and a sweep's
      swing (V-kryp-score: the capturer pays it and the player before is credited as much; a
      dubbeltabbe twice);
    - ``k.hand`` of the penalties still in our hand: a card we hold must be played some day
      and captures with itself unless the table lets it trail, so shedding a penalty card by
      a trail is worth something;
    - ``p.threat`` times the expected outcome of the next player's forced reply on the table
      left (``_Replies``: their least bad card among those they may hold, its penalties and
      a sweep of theirs counting for us), plus (2 players) ``k.follow`` times our own least
      bad forced reply with the cards we keep on the table their reply leaves: a table that
      forces them to sweep or take points is good, one whose every reply leaves us a costly
      forced capture or sweep is bad;
    - at the hand's end, the residue for the last capturer (C-residue).
    ``w_me``: the card weights of the mover's side. ``complete`` (``HeuristicAgent``'s
    option): a sweep on the hand's first move credits no one (V-kryp-score's decision), so it
    costs its capturer only its own points."""
    st = view.state
    r = st.rules
    seat, n = view.seat, r.players
    side, nxt = r.side(seat), (seat + 1) % n
    w_opp = weights(r, st.pile_masks, r.side(nxt))
    hand = st.hand_masks[seat]
    others_empty = all(view.hand_sizes[s] == 0 for s in range(n) if s != seat)
    last_deal = view.stock_size == 0
    if view.hand_sizes[nxt]:
        h = view.hand_sizes[nxt]
    elif not last_deal:
        h = min(r.hand_size, view.stock_size // n)
    else:
        h = 0
    # A sweep's swing between the capturer and the player before (another side's seat), in
    # the relative scale: it costs its capturer ``sweep`` and credits them as much.
    sweep = rules_values(r).sweep_points  # negative: a tabbe costs its capturer
    prev_other = r.side((seat - 1) % n) != side
    nxt_prev_other = r.side(nxt) != side  # we are the player before the next player
    swing_me = sweep * (2 if prev_other and not (complete and first_play(view)) else 1)
    swing_opp = -sweep * (2 if nxt_prev_other else 1)  # their sweep, for us
    replies = _Replies(r, view.unseen, h, w_opp, w_me, swing_opp, k)
    we_follow = k.follow and (nxt + 1) % n == seat  # 2 players: we move after their reply
    out = []
    for m in moves:
        rest = hand & ~m.played_mask
        loose = st.loose_mask | m.played_mask if m.kind == "trail" else \
            st.loose_mask & ~m.taken_mask
        score = k.hand * w_me.value(rest)
        if m.kind == "capture":
            got = m.played_mask | m.taken_mask
            score += w_me.value(got) - p.per_card * got.bit_count()
            if not loose:
                score += swing_me * (2 if _twin(r, m) else 1)
        if last_deal and not rest and others_empty:
            mine = m.kind == "capture" or (
                st.last_capturer is not None and r.side(st.last_capturer) == side)
            if mine:  # the residue goes to the last capturer (C-residue)
                score += p.residue * w_me.value(loose)
        elif h and loose:
            score += p.threat * replies.value(loose, rest if we_follow else 0)
        out.append(score)
    return out


class _Replies:
    """Krypkasino (V-kryp-play): what the next player's forced reply on a table is worth to
    us, when they hold ``h`` of the ``unseen`` cards. A card of theirs that can capture must,
    maximally (they pick the least bad such capture for them); one that cannot trails. They
    play their least bad card (exact hypergeometric odds over the unseen cards, grouped by
    rank and penalty); what they take counts for us (the game is relative), a sweep of theirs
    also credits us, and then we must play one of the cards we keep on the table left (the
    least bad for us, weighted ``k.follow``)."""

    __slots__ = ("r", "h", "w_opp", "w_me", "swing", "k", "groups", "n", "denom", "mine")

    def __init__(self, r, unseen: int, h: int, w_opp: Weights, w_me: Weights, swing: float,
                 k: KrypParams) -> None:
        self.r, self.h, self.w_opp, self.w_me, self.k = r, h, w_opp, w_me, k
        self.swing = swing  # a sweep's swing between its capturer and the player before
        deck = r.deck
        groups = []  # (a probe card, how many unseen cards are like it)
        for rank in range(1, deck.ranks + 1):
            cards = unseen & deck.rank_mask[rank]
            by: dict[float, list[int]] = {}
            for c in bit_list(cards):
                by.setdefault(w_opp.value(1 << c), []).append(c)
            groups += [(cs[0], len(cs)) for cs in by.values()]
        self.groups = groups
        self.n = unseen.bit_count()
        self.denom = comb(self.n, h) if 0 < h <= self.n else 0
        self.mine: dict[tuple[int, int], float] = {}

    def value(self, loose: int, rest: int) -> float:
        """The expected worth to us of their reply on the table ``loose`` (and of ours after
        it with ``rest``, our cards kept; 0: none)."""
        if not self.denom:
            return 0.0
        r, w_opp = self.r, self.w_opp
        kind = r.deck.kind
        items = Items(loose, r.values, False)  # on the table (an Ace 1)
        follow = self.k.follow if rest else 0.0
        # (their value, our gain, unseen cards, the table their reply leaves)
        options: list[tuple[float, float, int, int]] = []
        caps: dict[int, list[tuple[int, float]]] = {}  # value -> (taken, its points)
        swing = self.swing
        for probe, cnt in self.groups:
            v = r.hand_values[probe]  # from hand (V-kryp-values: an Ace 14)
            pb = 1 << probe
            wp = w_opp.value(pb)
            shed = self.k.hand * wp  # the card leaves their hand
            got = caps.get(v)
            if got is None:
                got = caps[v] = _maximal(items, v, w_opp)
            if not got:
                options.append((-shed, 0.0, cnt, loose | pb))
                continue
            best = None
            for tm, wt in got:
                cards = wt + wp
                theirs, ours = cards - shed, -cards
                if tm == loose:  # their sweep costs them and credits us
                    twin = 2 if tm.bit_count() == 1 and kind[tm.bit_length() - 1] == \
                        kind[probe] else 1
                    theirs -= swing * twin
                    ours += swing * twin
                if best is None or theirs > best[0]:
                    best = (theirs, ours, cnt, loose & ~tm)
            options.append(best)
        options.sort(key=lambda o: -o[0])
        n, h, denom = self.n, self.h, self.denom
        total, seen, none_before = 0.0, 0, 1.0
        for _, ours, cnt, left in options:
            seen += cnt
            none_now = comb(n - seen, h) / denom if n - seen >= h else 0.0
            odds = none_before - none_now  # P(this is their least bad card)
            if follow and odds > FOLLOW_MIN_ODDS:
                ours += follow * self._mine(left, rest)
            total += ours * odds
            none_before = none_now
            if not none_now:
                break
        return total

    def _mine(self, loose: int, rest: int) -> float:
        """Our least bad forced play of one of ``rest`` on the table ``loose``."""
        key = (loose, rest)
        got = self.mine.get(key)
        if got is not None:
            return got
        r, w = self.r, self.w_me
        kind = r.deck.kind
        values = r.values
        reach = 1  # the sums some set of the table's cards makes (bit t: sum t)
        for c in bit_list(loose):
            reach |= reach << values[c]
        items = None
        best = None
        for c in bit_list(distinct(r, rest)):
            cb = 1 << c
            v = r.hand_values[c]
            wc = w.value(cb)
            val = -self.k.hand * wc  # a trail sheds the card
            if reach >> v & 1:
                if items is None:
                    items = Items(loose, values, False)
                shed, val = val, None
                for tm, wt in _maximal(items, v, w):
                    x = wt + wc + shed
                    if tm == loose:  # our sweep: we pay, the player before is credited
                        twin = 2 if tm.bit_count() == 1 and kind[tm.bit_length() - 1] == \
                            kind[c] else 1
                        x -= self.swing * twin
                    if val is None or x > val:
                        val = x
                if val is None:  # (a reachable value always has a maximal capture)
                    val = shed
            if best is None or val > best:
                best = val
        self.mine[key] = best = best or 0.0
        return best


def _maximal(items: Items, v: int, w: Weights) -> list[tuple[int, float]]:
    """V-kryp-play: the captures a card of value ``v`` may make on ``items`` (every maximal
    collection of sets of ``v``), each with the points of the cards it takes ([]: it trails)."""
    sets = items.groups(v)
    if not sets:
        return []
    return [(tm, w.value(tm)) for tm in items.parts(v) if tm and all(g & tm for g in sets)]


class _Steal:
    """V-swazi-steal for the heuristic: what a move's pile tops are worth. ``effect`` gives
    (what the sides robbed lose, the pile tops the next opponent may take after the move, and
    the expected loss of our own top to that opponent)."""

    __slots__ = ("view", "side", "opp_side", "tops", "weights")

    def __init__(self, view: PlayerView, side: int, opp_side: int) -> None:
        st = view.state
        self.view, self.side, self.opp_side = view, side, opp_side
        self.tops = {s: ids[-1] for s, ids in enumerate(st.pile_ids) if ids}
        self.weights = {s: weights(st.rules, st.pile_masks, s) for s in self.tops}

    def effect(self, m: Move, w_me: Weights, n_unseen: int, opp_cards: int
               ) -> tuple[float, int, float]:
        gain = 0.0
        exposed = 0
        for s, c in self.tops.items():
            if m.taken_mask >> c & 1:
                gain += self.weights[s].value(1 << c)  # the robbed side loses the card
            elif s not in (self.side, self.opp_side):
                exposed |= 1 << c  # a third side's top stays takeable
        if m.kind == "capture":  # the played card is our new top
            top = m.played_mask & -m.played_mask
        else:
            c = self.tops.get(self.side)
            top = 0 if c is None else 1 << c
        guard = 0.0
        if top:
            exposed |= top
            r = self.view.rules
            rank = r.deck.rank_mask[r.deck.rank[top.bit_length() - 1]]
            grp = (self.view.unseen & rank).bit_count()
            guard = hold_probability(n_unseen, opp_cards, grp) * w_me.value(top)
        return gain, exposed, guard
