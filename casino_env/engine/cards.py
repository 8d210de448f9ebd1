"""Cards and decks: notation strings outside, small ints and bitmasks inside.

A card id is ``(rank - 1) * 4 + suit`` so that sorting ids sorts by rank; a set of cards is an
int bitmask over ids. The standard deck has suits S H D C, the 40-card Rook deck (Tuxedo)
colours R Y G B and numbers 1-10. The ``double`` deck (krypkasino) holds two copies of every
standard card: its id is ``2 * kind + copy``, ``kind`` being the card's one-deck id.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


class Deck:
    """A deck: card names, ranks, suits and per-rank masks, indexed by card id. With
    ``copies=2`` every card is there twice: id ``2 * kind + copy`` (``kind`` the one-deck id),
    both copies named alike; ``low`` is the mask of the copy-0 ids."""

    __slots__ = ("name", "suits", "ranks", "size", "names", "index", "rank", "suit", "full",
                 "rank_mask", "suit_mask", "copies", "kind", "kinds", "low")

    def __init__(self, name: str, suits: str, rank_names: tuple[str, ...],
                 copies: int = 1) -> None:
        self.name = name
        self.suits = suits
        self.ranks = len(rank_names)
        self.copies = copies
        self.kinds = len(suits) * len(rank_names)
        self.size = self.kinds * copies
        self.kind = tuple(i // copies for i in range(self.size))
        self.names = tuple(rank_names[k // 4] + suits[k % 4] for k in self.kind)
        self.index = {}  # name -> its (first) id
        for i, n in enumerate(self.names):
            self.index.setdefault(n, i)
        self.rank = tuple(k // 4 + 1 for k in self.kind)
        self.suit = tuple(k % 4 for k in self.kind)
        self.full = (1 << self.size) - 1
        # rank_mask[r]: every card of rank r (1-based); suit_mask[s]: every card of suit s.
        per_rank = (1 << (4 * copies)) - 1
        self.rank_mask = (0,) + tuple(per_rank << (4 * copies * (r - 1))
                                      for r in range(1, self.ranks + 1))
        self.suit_mask = tuple(sum(1 << i for i in range(self.size) if self.suit[i] == s)
                               for s in range(4))
        self.low = sum(1 << i for i in range(0, self.size, copies))

    def parse(self, text: str) -> int:
        """Card id of a notation string such as ``10D``, ``qh``, ``10♦`` or ``5R`` (in the
        double deck: the id of its first copy)."""
        if not isinstance(text, str):
            raise ValueError(f"card must be a string like 'AS' or '10D', got {text!r}")
        t = text.strip().upper()
        if t and t[-1] in SUIT_SYMBOLS:
            t = t[:-1] + SUIT_SYMBOLS[t[-1]]
        standard = self.suits == "SHDC"
        if t.startswith("T") and standard:
            t = "10" + t[1:]
        if standard and len(t) == 2 and t[0] == "1" and t[1] in self.suits:
            raise ValueError(f"bad card text {text!r}: write the ace as 'A{t[1]}'")
        try:
            return self.index[t]
        except KeyError:
            raise ValueError(
                f"bad card text {text!r}: not a card of the {self.name} deck "
                f"(expected e.g. {self.names[0]!r}, {self.names[-1]!r})"
            ) from None

    def add(self, mask: int, text: str) -> int:
        """The id a card named ``text`` takes beside the cards of ``mask``: its lowest copy
        not in ``mask``; a card named more often than the deck holds it raises ValueError."""
        cid = self.parse(text)
        for _ in range(self.copies):
            if not mask >> cid & 1:
                return cid
            cid += 1
        held = "once" if self.copies == 1 else f"{self.copies} times"
        raise ValueError(f"card {self.names[cid - 1]} is named more often than the {self.name} "
                         f"deck holds it ({held})")

    def mask(self, texts: Iterable[str]) -> int:
        """The mask of the cards named (in the double deck a name given twice is both
        copies)."""
        m = 0
        if self.copies == 1:
            for t in texts:
                m |= 1 << self.parse(t)
            return m
        for t in texts:
            m |= 1 << self.add(m, t)
        return m

    def strs(self, mask: int) -> list[str]:
        """Card names of a mask, in id order."""
        names = self.names
        return [names[i] for i in bits(mask)]


STANDARD_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
STANDARD = Deck("standard", "SHDC", STANDARD_RANKS)
ROOK = Deck("rook", "RYGB", tuple(str(n) for n in range(1, 11)))
DOUBLE = Deck("double", "SHDC", STANDARD_RANKS, copies=2)  # krypkasino (V-kryp-values)
DECKS = {"standard": STANDARD, "rook": ROOK, "double": DOUBLE}

# Named cards of the standard deck used by scoring.
TEN_OF_DIAMONDS = STANDARD.index["10D"]
TWO_OF_SPADES = STANDARD.index["2S"]
JACK_OF_SPADES = STANDARD.index["JS"]
SPADE, HEART, DIAMOND, CLUB = 0, 1, 2, 3


def bits(mask: int) -> Iterator[int]:
    """Ids of the set bits of a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def bit_list(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def deck_of_card_text(text: str) -> Deck:
    """The deck a notation string belongs to (suit letters S H D C vs colours R Y G B)."""
    t = text.strip().upper() if isinstance(text, str) else ""
    if t and t[-1] in "RYGB":
        return ROOK
    return STANDARD
