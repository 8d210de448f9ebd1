"""Cards and decks: notation strings outside, small ints and bitmasks inside.

A card id is ``(rank - 1) * 4 + suit`` so that sorting ids sorts by rank; a set of cards is an
int bitmask over ids. The standard deck has suits S H D C, the 40-card Rook deck (Tuxedo)
colours R Y G B and numbers 1-10.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


class Deck:
    """A deck: card names, ranks, suits and per-rank masks, indexed by card id."""

    __slots__ = ("name", "suits", "ranks", "size", "names", "index", "rank", "suit", "full",
                 "rank_mask", "suit_mask")

    def __init__(self, name: str, suits: str, rank_names: tuple[str, ...]) -> None:
        self.name = name
        self.suits = suits
        self.ranks = len(rank_names)
        self.size = len(suits) * len(rank_names)
        self.names = tuple(rank_names[i // 4] + suits[i % 4] for i in range(self.size))
        self.index = {n: i for i, n in enumerate(self.names)}
        self.rank = tuple(i // 4 + 1 for i in range(self.size))
        self.suit = tuple(i % 4 for i in range(self.size))
        self.full = (1 << self.size) - 1
        # rank_mask[r]: every card of rank r (1-based); suit_mask[s]: every card of suit s.
        self.rank_mask = (0,) + tuple(0b1111 << (4 * (r - 1)) for r in range(1, self.ranks + 1))
        self.suit_mask = tuple(sum(1 << i for i in range(s, self.size, 4)) for s in range(4))

    def parse(self, text: str) -> int:
        """Card id of a notation string such as ``10D``, ``qh``, ``10♦`` or ``5R``."""
        if not isinstance(text, str):
            raise ValueError(f"card must be a string like 'AS' or '10D', got {text!r}")
        t = text.strip().upper()
        if t and t[-1] in SUIT_SYMBOLS:
            t = t[:-1] + SUIT_SYMBOLS[t[-1]]
        if t.startswith("T") and self.name == "standard":
            t = "10" + t[1:]
        if self.name == "standard" and len(t) == 2 and t[0] == "1":
            raise ValueError(f"bad card text {text!r}: write the ace as 'A{t[1]}'")
        try:
            return self.index[t]
        except KeyError:
            raise ValueError(
                f"bad card text {text!r}: not a card of the {self.name} deck "
                f"(expected e.g. {self.names[0]!r}, {self.names[-1]!r})"
            ) from None

    def mask(self, texts: Iterable[str]) -> int:
        m = 0
        for t in texts:
            m |= 1 << self.parse(t)
        return m

    def strs(self, mask: int) -> list[str]:
        """Card names of a mask, in id order."""
        names = self.names
        return [names[i] for i in bits(mask)]


STANDARD = Deck("standard", "SHDC",
                ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"))
ROOK = Deck("rook", "RYGB", tuple(str(n) for n in range(1, 11)))
DECKS = {"standard": STANDARD, "rook": ROOK}

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
