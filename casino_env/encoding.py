"""What an agent sees and how its actions are numbered: observation layout and action ids.

Only public information and the observer's own hand are encoded (captured cards were seen by
all). Every card set is a 52-slot multi-hot over card ids (Rook decks use the first 40); with
two decks (krypkasino) a slot is a card's kind and holds its copies there / 2 (0, 0.5, 1), and
compose-mode card actions name kinds (docs/rules.md "Two decks").
Seats and sides are relative to the observer: slot 0 is the observer (or their side).
"""

from __future__ import annotations

import numpy as np

from .checks import check_flag
from .engine.cards import bit_list
from .engine.moves import generate, legal_moves, playable_cards
from .engine.rules import POINT_ITEMS, PRESETS, SWITCH_TYPES
from .engine.state import State, stealable
from .engine.view import cut_card, exposed_seats

N_CARDS = 52
MAX_VALUE = 14

# -- compose-mode action ids (fixed: an id always means the same thing) --------------------
PLAY = 0  # PLAY + c: play hand card c
SELECT = PLAY + N_CARDS  # SELECT + c: select table card c (a build by its lowest card)
TRAIL = SELECT + N_CARDS
CAPTURE = TRAIL + 1
BUILD = CAPTURE + 1
VALUE = BUILD + 1  # VALUE + v - 1: declare build value v (1..14)
FINISH = VALUE + MAX_VALUE
FINISH_PARTNER = FINISH + 1  # finish a build made for partner (V-partner-build)
FINISH_ORANGE = FINISH_PARTNER + 1  # finish a capture calling orange (Tuxedo orange_calls)
CLAIM = FINISH_ORANGE + 1  # claim the game (Hungarian claims)
CALL_ORANGE = CLAIM + 1  # call the previous player's missed orange (Tuxedo orange_calls)
N_COMPOSE_ACTIONS = CALL_ORANGE + 1
KIND_TOKEN = {"trail": TRAIL, "capture": CAPTURE, "build": BUILD}
KINDS = ("trail", "capture", "build", "claim", "call")

# The boolean switches of the full layout's ``switches`` segment. Fixed, so that the layout
# (and every policy trained on it) keeps its size: switches added later (issue 20's house
# switches) are encoded in the ``house`` segment, present only when one of them is in force.
BOOL_SWITCHES = ("sweeps", "cancel", "countout", "dom_trail", "dom_build", "dom_end", "soto",
                 "partner_build", "twenty_by_two_spades", "restricted_no_sweeps", "build_loose",
                 "owner_may_trail", "raise_with_table", "build_as_card", "difference",
                 "last_capture", "earned", "ace_14", "ulmann", "kovacs", "nagy", "claims",
                 "orange_calls")
HOUSE_FLAGS = ("bicycle", "cut")  # V-spade-bicycle, V-hun-cut
_UNPLACED = {k for k, t in SWITCH_TYPES.items() if t is bool} - set(BOOL_SWITCHES + HOUSE_FLAGS)
if _UNPLACED:  # a new boolean switch must be given a place in the observation
    raise RuntimeError(f"boolean rule switches missing from the observation: {sorted(_UNPLACED)}")
# The full layout's preset one-hot is fixed to the first seven presets, so that adding a preset
# never changes the layout (or a trained policy's input) of the others; the presets added by
# issue 20 are one-hot in a ``family`` segment present only in their own layouts.
VARIANTS = ("casino", "royal", "dominican", "hungarian", "tuxedo", "spade", "wippen")
FAMILY = ("swedish", "finnish", "swazi", "krypkasino")
_UNCODED = set(PRESETS) - set(VARIANTS + FAMILY)
if _UNCODED:  # a new preset must be given a place in the observation
    raise RuntimeError(f"presets missing from the observation: {sorted(_UNCODED)}")

_BYTES = (N_CARDS + 7) // 8


def card_bits(mask: int) -> np.ndarray:
    """52 uint8 0/1 flags of a card mask."""
    return np.unpackbits(np.frombuffer(mask.to_bytes(_BYTES, "little"), np.uint8),
                         bitorder="little")[:N_CARDS]


def kind_planes(masks: list[int]) -> np.ndarray:
    """Two decks: per mask, 52 float32 slots holding the copies of each card kind / 2."""
    big = 0
    for k, mask in enumerate(masks):
        big |= mask << (128 * k)
    bits = np.unpackbits(np.frombuffer(big.to_bytes(16 * len(masks), "little"), np.uint8),
                         bitorder="little").reshape(len(masks), 128)[:, :2 * N_CARDS]
    return bits.reshape(len(masks), N_CARDS, 2).sum(axis=2, dtype=np.float32) * 0.5


def stock_feature(rules, size: int) -> float:
    """The ``stock`` slot: cards left / 52 (two decks: / 104, so that it stays within 1)."""
    return size / (52 * rules.deck.copies)


def hand_copy(st: State, kind: int) -> int:
    """Two decks: the id of the mover's lowest copy of a card kind (the one moves play)."""
    deck = st.rules.deck
    hand = st.hand_masks[st.current]
    c = kind * deck.copies
    return c if hand >> c & 1 else c + 1


def describe_compose_action(a: int, deck=None) -> str:
    """Readable meaning of a compose-mode action id (two decks: card actions name kinds)."""
    names = deck.names[::deck.copies] if deck is not None else None

    def card(c: int) -> str:
        return names[c] if names is not None and c < len(names) else f"card#{c}"

    if not 0 <= a < N_COMPOSE_ACTIONS:
        raise ValueError(f"action {a} is outside 0..{N_COMPOSE_ACTIONS - 1}")
    if a < SELECT:
        return f"play {card(a - PLAY)}"
    if a < TRAIL:
        return f"select {card(a - SELECT)}"
    if a in (TRAIL, CAPTURE, BUILD):
        return KINDS[a - TRAIL]
    if a < FINISH:
        return f"value {a - VALUE + 1}"
    return {FINISH: "finish", FINISH_PARTNER: "finish for partner",
            FINISH_ORANGE: "finish calling orange", CLAIM: "claim the game",
            CALL_ORANGE: "call orange"}[a]


def item_mask(st: State) -> int:
    """The card ids that stand for table items in compose mode: each loose card, each build
    by its lowest card, and the pile tops the mover may take (V-swazi-steal; a card id is in
    one place only), so that the items a move takes are ``taken_mask & item_mask``."""
    rep = st.loose_mask
    if st.pile_ids:
        rep |= stealable(st, st.current)
    for b in st.builds:
        rep |= b.cards & -b.cards
    return rep


def move_tokens(st: State, m, items: int | None = None) -> tuple[int, ...]:
    """The canonical compose sequence of a legal move: play card(s) in id order, the kind, a
    build's value, the table items taken in id order (a build by its lowest card), finish.
    A plain trail ends at its kind (with V-build-loose it needs a finish too, since a trail
    may then also build); a claim or an orange call is one action. ``items``: ``item_mask(st)``
    if already known."""
    kind = m.kind
    if kind == "claim":
        return (CLAIM,)
    if kind == "call":
        return (CALL_ORANGE,)
    pm = m.played_mask
    toks = [PLAY + c for c in bit_list(pm)] if pm & (pm - 1) else \
        [PLAY + pm.bit_length() - 1]
    kinds = st.rules.deck.copies > 1
    if kinds:  # two decks: card tokens are kinds
        toks = [PLAY + (t - PLAY) // 2 for t in toks]
    toks.append(KIND_TOKEN[kind])
    tm = m.taken_mask
    if kind == "trail" and not tm:
        if st.rules.build_loose:
            toks.append(FINISH)
        return tuple(toks)
    if kind != "capture":
        toks.append(VALUE + m.value - 1)
    if items is None:
        items = item_mask(st)
    if kinds:
        toks.extend(SELECT + i // 2 for i in bit_list(tm & items))
    else:
        toks.extend(SELECT + i for i in bit_list(tm & items))
    toks.append(FINISH_PARTNER if m.for_partner else FINISH_ORANGE if m.orange else FINISH)
    return tuple(toks)


class _CardMoves:
    """token -> the legal moves that start with it (a class, not a closure, so that a
    Composer can be pickled: OpenSpiel clones states that way)."""

    __slots__ = ("state", "made")

    def __init__(self, state: State) -> None:
        self.state = state
        self.made: dict[int, list] = {}  # moves generated while finding the playable cards

    def __call__(self, token: int) -> list:
        st = self.state
        if token == CALL_ORANGE:
            return [m for m in legal_moves(st) if m.kind == "call"]
        c = token - PLAY
        if st.rules.deck.copies > 1:
            c = hand_copy(st, c)
        moves = self.made.get(c)
        return moves if moves is not None else generate(st, c)


class Composer:
    """Narrows the legal moves one sub-action at a time (compose mode).

    ``moves``: the legal moves; or None with ``first`` (the first sub-actions that start a
    legal move) and ``card_moves`` (token -> the legal moves starting with it), so that only
    the chosen card's moves are ever generated. Token sequences are made when the first
    sub-action is taken, for the moves that start with it only."""

    __slots__ = ("state", "moves", "seqs", "cands", "prefix", "first", "card_moves")

    def __init__(self, state: State, moves: list | None, first=None, card_moves=None) -> None:
        self.state = state
        self.moves = moves
        self.first = first
        self.card_moves = card_moves
        self.seqs: list[tuple[int, ...]] | None = None  # token sequences of the candidates
        self.cands = list(range(len(moves))) if moves is not None else []
        self.prefix: list[int] = []

    @classmethod
    def for_state(cls, st: State) -> Composer:
        """The composer for the seat to move: lazy (moves generated per chosen card) unless
        the moves are already listed or several cards may be played at once."""
        if st._moves is not None or st.rules.multi_play:
            return cls(st, legal_moves(st))
        card_moves = _CardMoves(st)
        first = [PLAY + c for c in playable_cards(st, card_moves.made)]
        if st.rules.deck.copies > 1:
            first = [PLAY + (t - PLAY) // 2 for t in first]
        if st.pending_orange == st.current:
            first.append(CALL_ORANGE)
        return cls(st, None, first, card_moves)

    def copy(self) -> Composer:
        c = Composer(self.state, self.moves, self.first, self.card_moves)
        c.seqs, c.cands, c.prefix = self.seqs, list(self.cands), list(self.prefix)
        return c

    def __deepcopy__(self, memo: dict) -> Composer:
        """A copy sharing the (never changed) state and move lists: OpenSpiel clones states
        with deepcopy, thousands of times a search."""
        return self.copy()

    def options(self) -> set[int]:
        """The sub-actions that can still complete a legal move."""
        d = len(self.prefix)
        if d == 0:
            if self.moves is None:
                return set(self.first)
            out = set()
            per = self.state.rules.deck.copies
            for m in self.moves:
                pm = m.played_mask
                out.add(PLAY + ((pm & -pm).bit_length() - 1) // per if pm else
                        move_tokens(self.state, m)[0])
            return out
        if self.seqs is None:  # d == 1 after one card: the kinds
            moves = self.moves
            return {KIND_TOKEN[moves[i].kind] for i in self.cands}
        return {seq[d] for seq in self.seqs}

    def push(self, token: int):
        """Take a sub-action; returns the completed Move, or None while still composing.
        A token no legal move continues with raises ValueError."""
        d = len(self.prefix)
        moves = self.moves
        if d == 0:
            if moves is None:
                if token not in self.first:
                    raise ValueError(f"sub-action {token} "
                                     f"({describe_compose_action(token, self.state.rules.deck)}) "
                                     "cannot continue any legal move")
                moves = self.moves = self.card_moves(token)
            if PLAY <= token < SELECT:
                per = self.state.rules.deck.copies
                bit = 1 << (token - PLAY) * per
                if per > 1:  # two decks: the token is a kind; its moves play one copy
                    bit = 1 << hand_copy(self.state, token - PLAY)
                cands = [i for i, m in enumerate(moves) if m.played_mask & -m.played_mask == bit]
                # One card played: the next sub-action is the kind, so token sequences wait
                # until the kind is known (most moves of the card are never needed).
                seqs = None if all(moves[i].played_mask == bit for i in cands) else \
                    self._seqs(cands)
            else:
                every = self._seqs(range(len(moves)))
                cands = [i for i, seq in enumerate(every) if seq[0] == token]
                seqs = [every[i] for i in cands]
        elif self.seqs is None:  # d == 1: the kind of a one-card move
            cands = [i for i in self.cands if KIND_TOKEN.get(moves[i].kind) == token]
            seqs = self._seqs(cands)
        else:
            cands = [i for i, seq in zip(self.cands, self.seqs) if seq[d] == token]
            seqs = [seq for seq in self.seqs if seq[d] == token]
        if not cands:
            raise ValueError(f"sub-action {token} "
                             f"({describe_compose_action(token, self.state.rules.deck)}) cannot "
                             "continue any legal move")
        self.cands, self.seqs = cands, seqs
        self.prefix.append(token)
        if seqs is not None and len(seqs[0]) == d + 1:
            return moves[cands[0]]
        return None

    def _seqs(self, cands) -> list[tuple[int, ...]]:
        """Token sequences of the moves ``cands``."""
        st, moves = self.state, self.moves
        items = item_mask(st)
        return [move_tokens(st, moves[i], items) for i in cands]


# -- observation layout -------------------------------------------------------------------------

OBSERVATIONS = ("full", "compact")


class Layout:
    """Named segments of the flat observation vector for one (rules, action mode, kind).

    ``kind="full"`` (the default) gives every card set its own 52-slot plane (one per build
    value, pile and seat) plus the rules in force; ``kind="compact"`` folds them into signed
    per-card planes (table: loose 1, in a build of value v -v/14; piles: mine 1, others' -1;
    hand: 0.5 once played in the move being composed) and leaves out the static rules and the
    segments the rules cannot use: about a fifth of the size (257 features for 2-player
    casino in compose mode against 1,227), for MLP policies whose first layer is the cost.

    ``last_capturer=True`` adds the ``last_capturer`` segment after ``flags``: who captured
    last this hand (relative seat one-hot, zeros before the hand's first capture), which
    decides who takes the cards left on the table. Off by default, so that every layout (and
    every policy trained on one) keeps its size."""

    def __init__(self, rules, compose: bool, kind: str = "full",
                 last_capturer: bool = False) -> None:
        if kind not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {', '.join(OBSERVATIONS)}, "
                             f"got {kind!r}")
        self.last_capturer = check_flag("last_capturer", last_capturer)
        n, s = rules.players, rules.sides
        self.rules = rules
        self.kind = kind
        self.compact = kind == "compact"
        self.segments: list[tuple[str, int, int, str]] = []
        add = self._add
        if self.compact:
            add("hand", N_CARDS, "own hand (card ids); compose: 0.5 for a card played in "
                "the move being composed")
            add("table", N_CARDS, "loose table card 1; card in a build of value v: -v/14")
        else:
            add("hand", N_CARDS, "own hand (card ids)")
            add("loose", N_CARDS, "loose table cards")
            add("builds", MAX_VALUE * N_CARDS, "row v-1: cards of the build of value v")
        add("build_multiple", MAX_VALUE, "build of value v is multiple")
        if self.compact:
            add("build_owner", MAX_VALUE, "build of value v: 1 mine, 0.5 my partner's, "
                "-1 an opponent's")
        else:
            add("build_owner", MAX_VALUE * n, "row v-1: owner of the build of value v, "
                "relative seat one-hot (0 = me)")
        if self.compact:
            add("piles", N_CARDS, "captured cards: 1 by my side, -1 by another side")
        else:
            add("piles", s * N_CARDS, "row k: cards captured by side (my side + k)")
        if rules.steal:  # V-swazi-steal: the piles are face-up stacks
            if self.compact:
                add("pile_tops", N_CARDS, "the order of the piles (V-swazi-steal): a card d "
                    "deep in its pile 1/(d+1) (the top 1, the card beneath 1/2, ...), "
                    "positive in my side's pile, negative in another side's")
            else:
                add("pile_tops", s * N_CARDS, "row k: the order of side (my side + k)'s pile "
                    "(V-swazi-steal): a card d deep 1/(d+1) (the top 1, the card beneath "
                    "1/2, ...)")
        if not self.compact or rules.nagy:
            add("known_hands", (n - 1) * N_CARDS, "row k: cards of seat (me + k + 1) I can "
                "see (exposed hands; zero otherwise)")
        if rules.cut:
            add("cut", N_CARDS, "the stock's bottom card, shown to the non-dealer while it is "
                "in the stock (V-hun-cut; zero for the dealer)")
        # (8 holds every preset's deal but swazi's 12 and 16 cards, V-swazi-deal)
        self.hand_scale = max(8, rules.hand_size)
        add("hand_sizes", n, f"cards in hand per relative seat / {self.hand_scale}")
        add("stock", 1, "cards left in the stock / 52 (two decks: / 104)")
        add("last_deal", 1, "1 when the stock is empty (the last deal is in hand)")
        add("dealer", n, "dealer, relative seat one-hot")
        add("to_move", n, "seat to move, relative seat one-hot")
        add("sweeps", s, "uncancelled sweeps per relative side / 10 (clipped)")
        add("scores", s, "scores per relative side / target (clipped to 0..1)")
        add("bonus", s, "points scored during play this hand per relative side (Tuxedo oranges, "
            "sweeps, calls) / target (clipped to -1..1)")
        add("flags", 3, "I may call a missed orange; I play again after this move (Nagy); "
            "this is the game's first hand")
        if last_capturer:
            add("last_capturer", n, "seat that captured last this hand, relative seat one-hot "
                "(zeros before the hand's first capture); only with last_capturer=True")
        if not self.compact or rules.partner_build:
            add("proven", n * MAX_VALUE, "row k: values seat (me + k) provably holds "
                "(V-partner-build)")
        if not self.compact:
            add("variant", len(VARIANTS), "preset one-hot: " + ", ".join(VARIANTS))
            if rules.variant in FAMILY:
                add("family", len(FAMILY), "preset one-hot of the presets added later: "
                    + ", ".join(FAMILY))
            add("switches", len(BOOL_SWITCHES), "rule switches in force: "
                + ", ".join(BOOL_SWITCHES))
            add("target", 1, "target / 100 (clipped)")
            if self.house_rules(rules):
                add("house", len(HOUSE_FLAGS) + len(POINT_ITEMS), "house switches in force: "
                    + ", ".join(HOUSE_FLAGS) + "; then the points of each scoring item / 10 "
                    "(clipped): " + ", ".join(POINT_ITEMS) + " (V-points)")
        self.compose = compose
        if compose:
            if not self.compact:
                add("c_played", N_CARDS, "compose: hand cards played so far this move")
            add("c_kind", 3, "compose: kind chosen (trail, capture, build)")
            if self.compact:
                add("c_value", 1, "compose: build value declared / 14")
            else:
                add("c_value", MAX_VALUE, "compose: build value declared")
            add("c_selected", N_CARDS, "compose: table cards selected so far")
        self.size = sum(seg[2] for seg in self.segments)
        self.offset = {name: start for name, start, _, _ in self.segments}
        family = len(FAMILY) if rules.variant in FAMILY else 0
        static = np.zeros(len(VARIANTS) + family + len(BOOL_SWITCHES) + 1, np.float32)
        if family:
            static[len(VARIANTS) + FAMILY.index(rules.variant)] = 1
        else:
            static[VARIANTS.index(rules.variant)] = 1
        for i, k in enumerate(BOOL_SWITCHES):
            static[len(VARIANTS) + family + i] = float(getattr(rules, k, False))
        static[-1] = min(rules.target / 100, 1.0)
        if "house" in self.offset:
            house = [float(getattr(rules, k)) for k in HOUSE_FLAGS]
            house += [min(p / 10, 1.0) for p in rules.item_points]
            static = np.concatenate([static, np.array(house, np.float32)])
        self.static = static
        # compose segments: one contiguous run from the first to the end
        self._compose_start = (self.offset["c_kind" if self.compact else "c_played"]
                               if compose else self.size)

    @staticmethod
    def house_rules(rules) -> bool:
        """True if a house switch (V-spade-bicycle, V-hun-cut, V-points) is in force: the full
        layout then has its ``house`` segment."""
        return any(getattr(rules, k) for k in HOUSE_FLAGS) or bool(rules.points)

    def markdown(self) -> str:
        """The layout as a markdown table (docs/environment.md is checked against it)."""
        rows = ["| segment | offset | size | meaning |", "|---|---|---|---|"]
        rows += [f"| `{name}` | {start} | {size} | {doc} |"
                 for name, start, size, doc in self.segments]
        return "\n".join(rows)

    def _add(self, name: str, size: int, doc: str) -> None:
        start = self.segments[-1][1] + self.segments[-1][2] if self.segments else 0
        self.segments.append((name, start, size, doc))

    def encode(self, st: State, seat: int, out: np.ndarray) -> None:
        """Write everything ``seat`` may know of ``st`` into ``out`` (compose part zeroed)."""
        r = st.rules
        n, s = r.players, r.sides
        o = self.offset
        out.fill(0)
        my_side = r.side(seat)
        # Every 52-card plane (offset, card mask) is unpacked in one numpy call.
        segs = [(o["hand"], st.hand_masks[seat])]
        om, oo = o["build_multiple"], o["build_owner"]
        if self.compact:
            segs.append((o["table"], st.loose_mask))
            mine = others = 0
            for side in range(s):
                if side == my_side:
                    mine = st.pile_masks[side]
                else:
                    others |= st.pile_masks[side]
            segs.append((o["piles"], mine))
        else:
            segs.append((o["loose"], st.loose_mask))
            ob = o["builds"]
        for b in st.builds:
            row = b.value - 1
            if not self.compact:
                segs.append((ob + row * N_CARDS, b.cards))
            out[om + row] = b.multiple
            if self.compact:
                out[oo + row] = (1.0 if b.owner == seat else
                                 0.5 if r.side(b.owner) == my_side else -1.0)
            else:
                out[oo + row * n + (b.owner - seat) % n] = 1
        if not self.compact:
            op = o["piles"]
            for side in range(s):
                segs.append((op + ((side - my_side) % s) * N_CARDS, st.pile_masks[side]))
        if r.cut:
            cut = cut_card(st, seat)
            if cut is not None:
                out[o["cut"] + cut] = 1
        exposed = exposed_seats(st)
        if exposed:
            ok_ = o["known_hands"]
            for other in exposed:
                if other != seat:
                    segs.append((ok_ + ((other - seat) % n - 1) * N_CARDS, st.hand_masks[other]))
        double = r.deck.copies > 1
        if double:  # two decks: copies of each kind / 2
            planes = kind_planes([mask for _, mask in segs])
            for k, (start, _) in enumerate(segs):
                out[start:start + N_CARDS] = planes[k]
        else:
            # the compact piles plane: mine 1, another side's -1 (unpacked with the rest)
            unpack = segs + [(o["piles"], others)] if self.compact else segs
            big = 0
            for k, (_, mask) in enumerate(unpack):
                big |= mask << (64 * k)
            bits = np.unpackbits(np.frombuffer(big.to_bytes(8 * len(unpack), "little"),
                                               np.uint8),
                                 bitorder="little").reshape(len(unpack), 64)
            for k, (start, _) in enumerate(segs):
                out[start:start + N_CARDS] = bits[k, :N_CARDS]
            if self.compact:
                out[o["piles"]:o["piles"] + N_CARDS] -= bits[-1, :N_CARDS]
        if self.compact:
            ot, op = o["table"], o["piles"]
            for b in st.builds:
                v = -b.value / MAX_VALUE
                for c in bit_list(b.cards):
                    out[ot + c] = v
            if double:  # my copy 0.5, another side's -0.25: all six splits of two copies
                out[op:op + N_CARDS] -= kind_planes([others])[0] / 2  # stay distinct
        if st.pile_ids:
            self._pile_order(st, my_side, out)
        oh = o["hand_sizes"]
        for other in range(n):
            out[oh + (other - seat) % n] = st.hand_masks[other].bit_count() / self.hand_scale
        if st.events:  # each side's total this hand, clipped once (not event by event)
            totals = [0] * s
            for side, _, pts in st.events:
                totals[(side - my_side) % s] += pts
            ob_ = o["bonus"]
            for k, total in enumerate(totals):
                out[ob_ + k] = min(max(total / r.target, -1.0), 1.0)
        of = o["flags"]
        out[of] = st.pending_orange == seat
        out[of + 1] = st.extra_turn and st.current == seat
        out[of + 2] = st.hand_no == 0
        if self.last_capturer and st.last_capturer is not None:
            out[o["last_capturer"] + (st.last_capturer - seat) % n] = 1
        out[o["stock"]] = stock_feature(r, len(st.stock_ids))
        out[o["last_deal"]] = not st.stock_ids
        out[o["dealer"] + (st.dealer - seat) % n] = 1
        out[o["to_move"] + (st.current - seat) % n] = 1
        osw, osc = o["sweeps"], o["scores"]
        for side in range(s):
            k = (side - my_side) % s
            out[osw + k] = min(st.sweeps[side], 10) / 10
            out[osc + k] = min(max(st.scores[side] / r.target, 0.0), 1.0)
        if r.partner_build:
            opv = o["proven"]
            for other in range(n):
                p = st.proven[other]
                for v in range(1, MAX_VALUE + 1):
                    if p >> v & 1:
                        out[opv + ((other - seat) % n) * MAX_VALUE + v - 1] = 1
        if not self.compact:
            ov = o["variant"]
            out[ov:ov + len(self.static)] = self.static

    def _pile_order(self, st: State, my_side: int, out: np.ndarray) -> None:
        """V-swazi-steal: the ``pile_tops`` segment, each pile's cards by depth."""
        start, s = self.offset["pile_tops"], st.rules.sides
        for side, ids in enumerate(st.pile_ids):
            k = (side - my_side) % s
            base = start if self.compact else start + k * N_CARDS
            sign = -1.0 if self.compact and k else 1.0
            for depth, c in enumerate(reversed(ids)):
                out[base + c] = sign / (depth + 1)

    def encode_compose(self, st: State, prefix: list[int], out: np.ndarray) -> None:
        """Write the move composed so far into ``out``, a fresh copy of ``encode``'s output
        (compact: the played cards' hand slots are changed too)."""
        out[self._compose_start:self.offset["c_selected"] + N_CARDS] = 0
        self.add_tokens(st, prefix, out)

    def add_tokens(self, st: State, tokens: list[int], out: np.ndarray) -> None:
        """Mark ``tokens``, taken after those already in ``out``, in its compose segments."""
        o = self.offset
        ok, ovl, osl = o["c_kind"], o["c_value"], o["c_selected"]
        played = o["hand"] if self.compact else o["c_played"]
        mark = 0.5 if self.compact else 1.0
        if st.rules.deck.copies > 1:  # two decks: card tokens are kinds, a copy counts 0.5
            for t in tokens:
                if t < SELECT:  # compact: the hand slot (copies / 2) drops by a quarter
                    if self.compact:
                        out[played + t - PLAY] -= 0.25
                    else:
                        out[played + t - PLAY] = 1.0
                elif t < TRAIL:
                    out[osl + t - SELECT] += 0.5
                elif t <= BUILD:
                    out[ok + t - TRAIL] = 1
            return
        for t in tokens:
            if t < SELECT:
                out[played + t - PLAY] = mark
            elif t < TRAIL:
                c = t - SELECT
                cards = 1 << c
                for b in st.builds:
                    if b.cards >> c & 1:
                        cards = b.cards
                for i in bit_list(cards):
                    out[osl + i] = 1
            elif t <= BUILD:
                out[ok + t - TRAIL] = 1
            elif t < FINISH:
                if self.compact:
                    out[ovl] = (t - VALUE + 1) / MAX_VALUE
                else:
                    out[ovl + t - VALUE] = 1


# -- enumerate-mode action features ---------------------------------------------------------

FEATURES = (("played", N_CARDS), ("taken", N_CARDS), ("kind", len(KINDS)),
            ("value", MAX_VALUE + 1), ("for_partner", 1), ("orange", 1))
N_FEATURES = sum(size for _, size in FEATURES)


def move_features(m, out: np.ndarray) -> None:
    """One row of ``action_features``: played and taken cards, kind, value (0 = none), partner
    (two decks: copies of each card kind / 2)."""
    if m.deck.copies > 1:
        out[0:2 * N_CARDS] = kind_planes([m.played_mask, m.taken_mask]).reshape(-1)
    else:
        out[0:N_CARDS] = card_bits(m.played_mask)
        out[N_CARDS:2 * N_CARDS] = card_bits(m.taken_mask)
    k = 2 * N_CARDS
    out[k + KINDS.index(m.kind)] = 1
    k += len(KINDS)
    out[k + min(m.value or 0, MAX_VALUE)] = 1  # Hungarian sums above 14 share the last slot
    out[-2] = m.for_partner
    out[-1] = m.orange


_KIND_INDEX = {k: i for i, k in enumerate(KINDS)}


def moves_features(moves: list, out: np.ndarray) -> None:
    """``move_features`` of every move into the rows of ``out`` (zeroed), with one numpy
    unpack for all the card masks."""
    n = len(moves)
    if not n:
        return
    if moves[0].deck.copies > 1:  # two decks: copies of each card kind / 2
        planes = kind_planes([mask for m in moves for mask in (m.played_mask, m.taken_mask)])
        out[:n, 0:2 * N_CARDS] = planes.reshape(n, 2 * N_CARDS)
        _move_rest(moves, out)
        return
    big = 0
    for i, m in enumerate(moves):
        big |= (m.played_mask | m.taken_mask << 64) << (128 * i)
    bits = np.unpackbits(np.frombuffer(big.to_bytes(16 * n, "little"), np.uint8),
                         bitorder="little").reshape(n, 2, 64)
    out[:n, 0:N_CARDS] = bits[:, 0, :N_CARDS]
    out[:n, N_CARDS:2 * N_CARDS] = bits[:, 1, :N_CARDS]
    _move_rest(moves, out)


def _move_rest(moves: list, out: np.ndarray) -> None:
    """The kind, value, partner and orange columns of ``moves_features``."""
    n = len(moves)
    rows = np.arange(n)
    k = 2 * N_CARDS
    out[rows, [k + _KIND_INDEX[m.kind] for m in moves]] = 1
    k += len(KINDS)
    out[rows, [k + min(m.value or 0, MAX_VALUE) for m in moves]] = 1
    out[:n, -2] = [m.for_partner for m in moves]
    out[:n, -1] = [m.orange for m in moves]


def overflow_order(moves: list) -> list:
    """Deterministic priority when a state has more legal moves than K: trails (claims and
    calls with them), then builds, then captures; within each, the moves taking the most cards
    first; ties keep the canonical order."""
    rank = {"claim": 0, "call": 0, "trail": 0, "build": 1, "capture": 2}
    return sorted(moves, key=lambda m: (rank[m.kind], -m.taken_mask.bit_count()))
