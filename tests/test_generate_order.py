"""The fast move generator lists exactly the moves of the generator it replaced, in the same
order (C-move: each outcome once; the order is the contract random agents and committed
results rely on: they pick by index).

``tests/legacy_moves.py`` is the generator as it was before the speed-up of issue 20's
presets, frozen. Here both run on many seeded random states of every preset and player count
and of switch mixes — swazi states with other sides' pile tops to steal (V-swazi-steal),
krypkasino double-deck states (V-kryp-play), crowded tables from trail-heavy play and states
where the mover owns builds (C-build-keep, C-owner-trail, V-dom-build) — and must agree move
for move: kind, cards, value, flags, ``multiple``, ``stolen`` and the deck; ``generate(st, c)``
for every hand card and ``playable_cards`` too.
"""

from __future__ import annotations

import random

import legacy_moves
import pytest

from casino_env.engine import apply_move, legal_moves, list_variants, new_game
from casino_env.engine.moves import generate, playable_cards
from casino_env.engine.rules import PRESETS

# Switch mixes on top of every preset and player count (the cross-check's mixes, and swazi's).
SWITCH_CONFIGS = [
    ("casino", 2, False, {"build_loose": True, "owner_may_trail": True}),
    ("casino", 3, False, {"dom_trail": True, "dom_build": True}),
    ("royal", 2, False, {"raise_with_table": True, "build_as_card": True}),
    ("royal", 3, False, {"build_loose": True, "build_as_card": True, "owner_may_trail": True}),
    ("royal", 2, False, {"dom_trail": True}),
    ("casino", 3, False, {"build_loose": True, "owner_may_trail": True,
                          "raise_with_table": True, "build_as_card": True}),
    ("dominican", 4, True, {"partner_build": True, "build_as_card": True,
                            "raise_with_table": True}),
    ("casino", 4, True, {"partner_build": True, "owner_may_trail": True, "build_loose": True}),
    ("tuxedo", 2, False, {"orange_calls": True}),
    ("tuxedo", 4, True, {"orange_calls": True, "partner_build": True,
                         "raise_with_table": True}),
    ("tuxedo", 3, False, {"build_loose": True, "build_as_card": True}),
    ("hungarian", 2, False, {"ulmann": True, "ace_14": True, "kovacs": True}),
    ("hungarian", 2, False, {"claims": True, "ace_14": True}),
    ("spade", 3, False, {"build_loose": True, "raise_with_table": True}),
    ("wippen", 2, False, {"build_as_card": True, "owner_may_trail": True, "dom_trail": True}),
    ("swazi", 2, False, {"dom_build": False}),
    ("swazi", 3, False, {"dom_build": False}),
]
PRESET_CONFIGS = [(v, n, n == 4 and v == "dominican", {}) for v in list_variants()
                  for n in PRESETS[v].players]
CONFIGS = PRESET_CONFIGS + SWITCH_CONFIGS
STATES = 160  # states per config and play style


def _id(cfg: tuple) -> str:
    v, n, p, sw = cfg
    extra = ",".join(k if val is True else f"{k}={val}" for k, val in sw.items())
    return f"{v}-{n}{'p' if p else ''}" + (f"-{extra}" if extra else "")


def _states(variant: str, players: int, partners: bool, switches: dict, count: int,
            seed: int, style: str) -> list:
    """States met in seeded play: ``random`` picks uniformly; ``crowd`` mostly trails and
    builds while fewer than 12 cards lie loose (crowded tables, many builds, owned builds;
    beyond that, some tables of the no-build presets grow too rich to enumerate quickly)."""
    rng = random.Random(seed)
    part = True if partners else None

    def fresh():
        return new_game(variant, players, seed=rng.randrange(2**62), partnerships=part,
                        **switches)

    st = fresh()
    out = []
    while len(out) < count:
        if st.game_over:
            st = fresh()
            continue
        out.append(st)
        moves = legal_moves(st)
        if style == "crowd":
            quiet = [m for m in moves if m.kind in ("trail", "build")]
            if quiet and rng.random() < 0.8 and st.loose_mask.bit_count() < 12:
                moves = quiet
        st = apply_move(st, rng.choice(moves))
    return out


def _key(m) -> tuple:
    return (m.kind, m.played_mask, m.taken_mask, m.value, m.for_partner, m.orange, m.multiple,
            getattr(m, "stolen", ()), id(m.deck))


def _keys(moves) -> list[tuple]:
    return [_key(m) for m in moves]


def _fresh(st):
    st._moves = None
    st._index = None
    return st


@pytest.mark.parametrize("cfg", CONFIGS, ids=[_id(c) for c in CONFIGS])
def test_generate_lists_the_same_moves_in_the_same_order(cfg):
    """C-move (order): ``generate`` equals the frozen pre-speed-up generator move for move on
    random and crowded states; so do ``generate(st, card)`` and ``playable_cards``."""
    variant, players, partners, switches = cfg
    multi = PRESETS[variant].values == "hungarian"
    checked = stolen = owned = crowded = 0  # (crowded: the most loose cards met)
    for style, seed in (("random", 11), ("crowd", 12)):
        for st in _states(variant, players, partners, switches, STATES, seed, style):
            want = legacy_moves.generate(st)
            got = generate(_fresh(st))
            assert _keys(got) == _keys(want), st.to_spec()
            checked += 1
            stolen += any(getattr(m, "stolen", ()) for m in want)
            owned += any(b.owner == st.current for b in st.builds)
            crowded = max(crowded, st.loose_mask.bit_count())
            if multi:
                continue
            made, made_ref = {}, {}
            assert playable_cards(_fresh(st), made) == legacy_moves.playable_cards(st, made_ref)
            for c, moves in made.items():
                assert _keys(moves) == [_key(m) for m in want if m.played_mask == 1 << c]
            hand = st.hand_masks[st.current]
            for c in range(st.rules.deck.size):
                if hand >> c & 1:
                    assert _keys(generate(_fresh(st), c)) == _keys(legacy_moves.generate(st, c))
    assert checked == 2 * STATES
    if variant == "swazi":  # V-swazi-steal: the check covers moves taking pile tops
        assert stolen > 20
    if PRESETS[variant].building and not multi:
        assert owned > 10 and crowded >= 7


def _crowded_swazi_spec(rng: random.Random) -> dict:
    """A 3-player swazi position: 8 cards in the mover's hand, 12 loose cards, a pile for
    every side and up to two single builds of the other seats."""
    cards = [r + s for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
             for s in "SHDC"]
    rng.shuffle(cards)
    spec = new_game("swazi", 3, seed=0).to_spec()
    hands = [cards[:8], cards[30:41], cards[41:52]]
    loose = cards[8:20]
    value = {"A": 1, "J": 11, "Q": 12, "K": 13}
    table: list = []
    for owner in (1, 2):
        held = {value.get(c[:-1]) or int(c[:-1]) for c in hands[owner]}
        pairs = [(a, b) for i, a in enumerate(loose) for b in loose[i + 1:]
                 if (value.get(a[:-1]) or int(a[:-1])) + (value.get(b[:-1]) or int(b[:-1]))
                 in held and all((value.get(a[:-1]) or int(a[:-1])) + (value.get(b[:-1]) or
                                 int(b[:-1])) != t["value"] for t in table)]
        if pairs and rng.random() < 0.7:
            a, b = rng.choice(pairs)
            v = (value.get(a[:-1]) or int(a[:-1])) + (value.get(b[:-1]) or int(b[:-1]))
            table.append({"cards": [a, b], "value": v, "owner": owner, "multiple": False})
            loose = [c for c in loose if c not in (a, b)]
    spec.update(hands=hands, table=loose + table,
                piles=[cards[20:23], cards[23:27], cards[27:30]], current=0)
    return spec


def test_generate_order_on_crowded_swazi_specs():
    """V-swazi-steal on crowded constructed tables (up to 12 loose cards, the tops of two
    other sides' piles, single builds of others to raise): the same moves in the same order,
    per card too."""
    from casino_env.engine import State

    rng = random.Random(3)
    done = stolen = 0
    while done < 80:
        try:
            st = State.from_spec(_crowded_swazi_spec(rng))
        except ValueError:
            continue
        want = legacy_moves.generate(st)
        assert _keys(generate(st)) == _keys(want), st.to_spec()
        for c in range(52):
            if st.hand_masks[0] >> c & 1:
                assert _keys(generate(_fresh(st), c)) == _keys(legacy_moves.generate(st, c))
        stolen += any(getattr(m, "stolen", ()) for m in want)
        done += 1
    assert stolen > 40
