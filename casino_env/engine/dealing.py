"""Shuffling and dealing (C-deal): reproducible from an int seed, bit for bit.

Each hand's shuffle is ``random.Random(seed).shuffle`` of the deck in id order; the same
generator then draws the seed of the next hand, so a game is fixed by its first seed.
Cards are dealt from the top of the stock in blocks: the player after the dealer first,
round to the dealer, then (first deal only) four cards face up to the table.
"""

from __future__ import annotations

import random

from .cards import Deck

HAND_SIZE = 4
TABLE_SIZE = 4


def shuffle(deck: Deck, seed: int) -> tuple[tuple[int, ...], int]:
    """The shuffled stock (top first) and the seed for the next hand's shuffle."""
    rng = random.Random(seed)
    order = list(range(deck.size))
    rng.shuffle(order)
    return tuple(order), rng.getrandbits(63)


def deal(hands: tuple, stock: tuple, players: int, dealer: int, first: bool,
         hand_size: int = HAND_SIZE, leftover_to_table: bool = False) -> tuple[tuple, tuple, int]:
    """Deal a round: (new hands, rest of the stock, mask of cards put on the table).

    ``hand_size`` cards each (4; Hungarian 3) while the stock allows; otherwise an equal share
    each and the remainder to the table (V-tux-deal; never happens with 52 cards and 2-4
    players). With ``leftover_to_table`` (krypkasino) a leftover too small to give every
    player a card joins the table in this deal instead of making a deal of its own.
    """
    hands = list(hands)
    n = len(stock)
    per = hand_size if n >= hand_size * players + (TABLE_SIZE if first else 0) else \
        max(0, n - (TABLE_SIZE if first else 0)) // players
    pos = 0
    for k in range(1, players + 1):
        seat = (dealer + k) % players
        for cid in stock[pos:pos + per]:
            hands[seat] |= 1 << cid
        pos += per
    to_table = min(TABLE_SIZE, n - pos) if first else (n - pos if per < hand_size else 0)
    left = n - pos - to_table
    if leftover_to_table and 0 < left < players:
        # Too few for another round of a card each (6 players: 4 cards after four deals):
        # they go face up with this deal (V-kryp-play).
        to_table += left
    table = 0
    for cid in stock[pos:pos + to_table]:
        table |= 1 << cid
    pos += to_table
    return tuple(hands), stock[pos:], table
