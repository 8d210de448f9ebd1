"""Cross-check of the engine's fast move generator against the brute-force reference oracle.

``tests/reference.py`` derives legal moves straight from RULES.md (C-capture, C-face, C-build,
C-build-raise, C-build-extend, C-build-keep, C-owner-trail, C-one-per-value, C-trail, C-move,
V-dom-trail, V-dom-build) by enumerating every subset of table items and every build value.
Here the engine must agree with it on seeded random games, on random crowded tables and on
handcrafted crowded specs, list each move once (C-move), and reject the moves the reference
calls illegal with an ``IllegalMoveError`` naming a rule id.
"""

from __future__ import annotations

import random

import pytest
from reference import RANKS, reference_moves

from casino_env.engine import (
    IllegalMoveError,
    Move,
    State,
    apply_move,
    legal_moves,
    new_game,
)

SUITS = "SHDC"
DECK = [r + s for r in RANKS for s in SUITS]
MAX_ITEMS = 9  # table items (loose cards + builds) above which random-game states are skipped
NEAR_MISS_SHARE = 0.3  # share of sampled states also checked for one-rule-off near misses

# (variant, players, partnerships, switches): every preset and player count, plus switch mixes.
GAME_CONFIGS = [
    ("casino", 2, False, {}),
    ("casino", 3, False, {}),
    ("casino", 4, False, {}),
    ("casino", 4, True, {}),
    ("casino", 2, False, {"sweeps": True}),
    ("casino", 3, False, {"dom_trail": True, "dom_build": True}),
    ("royal", 2, False, {}),
    ("royal", 3, False, {}),
    ("royal", 4, False, {}),
    ("royal", 4, True, {}),
    ("royal", 2, False, {"dom_trail": True}),
    ("royal", 3, False, {"dom_build": True, "sweeps": True}),
    ("dominican", 2, False, {}),
    ("dominican", 3, False, {}),
    ("dominican", 4, True, {}),
    ("dominican", 4, False, {}),
    ("dominican", 2, False, {"dom_trail": False}),
]


def _cfg_id(cfg: tuple) -> str:
    variant, players, partners, switches = cfg
    extra = ",".join(f"{k}={v}" for k, v in switches.items())
    return f"{variant}-{players}{'p' if partners else ''}" + (f"-{extra}" if extra else "")


def engine_tuples(state: State) -> list[tuple]:
    """The engine's legal moves in the reference's tuple form (a capture's value dropped)."""
    out = []
    for m in legal_moves(state):
        assert not m.for_partner
        assert len(m.played) == 1  # C-turn: exactly one card
        out.append((m.kind, m.played[0], m.taken,
                    None if m.kind == "capture" else m.value))
    return out


def _fmt(moves: set[tuple]) -> list[str]:
    return sorted(f"{k} {c} {'+'.join(sorted(t))} {v}" for k, c, t, v in moves)


def check_state(state: State, rng: random.Random | None = None, samples: int = 0,
                near: float = NEAR_MISS_SHARE) -> int:
    """Compare engine and reference on one state (C-move: no duplicates); then try ``samples``
    random candidates, and with probability ``near`` near misses. Returns the number of legal
    moves."""
    spec = state.to_spec()
    ref = reference_moves(spec)
    eng_list = engine_tuples(state)
    eng = set(eng_list)
    assert len(eng_list) == len(eng), f"engine lists a move twice (C-move) in {spec}"
    if ref != eng:
        pytest.fail(f"legal moves differ for {spec}\n engine only: {_fmt(eng - ref)}\n"
                    f" reference only: {_fmt(ref - eng)}")
    if rng is not None and samples:
        check_illegal_samples(state, spec, ref, rng, samples, near)
    return len(ref)


def _candidate(spec: dict, rng: random.Random) -> tuple:
    """A random (kind, card, taken, value) candidate, mostly close to plausible moves."""
    seat = spec["current"]
    hand = spec["hands"][seat]
    royal = spec["variant"] != "casino"
    loose = [x for x in spec["table"] if isinstance(x, str)]
    builds = [x for x in spec["table"] if isinstance(x, dict)]
    others = [c for i, h in enumerate(spec["hands"]) if i != seat for c in h]
    card = rng.choice(others) if others and rng.random() < 0.03 else rng.choice(hand)
    kind = rng.choice(("trail", "capture", "build", "build"))
    taken: set[str] = set()
    if kind != "trail" or rng.random() < 0.1:
        if rng.random() < 0.8:  # whole items
            for c in loose:
                if rng.random() < 0.35:
                    taken.add(c)
            for b in builds:
                if rng.random() < 0.4:
                    taken.update(b["cards"])
        else:  # arbitrary table cards, possibly splitting a build
            cards = loose + [c for b in builds for c in b["cards"]]
            taken = {c for c in cards if rng.random() < 0.4}
        if others and rng.random() < 0.03:
            taken.add(rng.choice(others))  # not on the table
    value = None
    if kind == "build":
        value = rng.randint(1, 14 if royal else 10)
        if rng.random() < 0.05:
            value = rng.choice((0, 15, None))
    return kind, card, frozenset(taken), value


def _relaxed(spec: dict, cache: dict, what: str) -> set[tuple]:
    """Reference moves with one rule dropped: ``build_keep`` or a switch name."""
    if what not in cache:
        if what == "build_keep":
            cache[what] = reference_moves(spec, build_keep=False)
        else:
            cache[what] = reference_moves(dict(spec, rules=dict(spec["rules"], **{what: False})))
    return cache[what]


def expected_rule(spec: dict, cand: tuple, cache: dict) -> str | None:
    """The rule id an illegal candidate must be refused with, when only one rule breaks it:
    C-turn (card not in hand), C-owner-trail, V-dom-trail, V-dom-build, C-build-keep."""
    kind, card, taken, _ = cand
    seat = spec["current"]
    if card not in spec["hands"][seat]:
        return "C-turn"
    if kind == "trail" and not taken:
        if any(isinstance(x, dict) and x["owner"] == seat for x in spec["table"]):
            return "C-owner-trail"
        loose_ranks = {x[:-1] for x in spec["table"] if isinstance(x, str)}
        if spec["rules"]["dom_trail"] and card[:-1] in loose_ranks:
            return "V-dom-trail"
        return None
    for switch, rule in (("dom_trail", "V-dom-trail"), ("dom_build", "V-dom-build")):
        if spec["rules"][switch] and cand in _relaxed(spec, cache, switch):
            return rule
    if cand in _relaxed(spec, cache, "build_keep"):
        return "C-build-keep"
    return None


def check_illegal_samples(state: State, spec: dict, ref: set[tuple], rng: random.Random,
                          samples: int, near: float) -> None:
    """Candidates outside the reference's set must raise IllegalMoveError with a C-/V- rule id,
    the precise one (C-turn, C-owner-trail, V-dom-trail, V-dom-build, C-build-keep) when only
    that rule breaks them; candidates inside it must apply."""
    cache: dict = {}
    for _ in range(samples):
        cand = _candidate(spec, rng)
        kind, card, taken, value = cand
        move = Move(kind, (card,), tuple(sorted(taken)), value)
        if cand in ref:
            apply_move(state, move)
            continue
        with pytest.raises(IllegalMoveError) as info:
            apply_move(state, move)
        rule = info.value.rule
        assert isinstance(rule, str) and rule[:2] in ("C-", "V-"), (cand, rule, spec)
        want = expected_rule(spec, cand, cache)
        assert want is None or rule == want, (cand, rule, want, spec)
    if rng.random() < near:
        check_near_misses(state, spec, ref, cache, rng, samples)


def check_near_misses(state: State, spec: dict, ref: set[tuple], cache: dict,
                      rng: random.Random, samples: int) -> None:
    """Moves legal but for one rule (C-build-keep, V-dom-trail, V-dom-build) are refused with
    that rule's id."""
    checks = [("build_keep", "C-build-keep")]
    checks += [(sw, rule) for sw, rule in (("dom_trail", "V-dom-trail"),
                                           ("dom_build", "V-dom-build")) if spec["rules"][sw]]
    for what, rule in checks:
        misses = sorted(_relaxed(spec, cache, what) - ref, key=repr)
        for kind, card, taken, value in rng.sample(misses, min(samples, len(misses))):
            with pytest.raises(IllegalMoveError) as info:
                apply_move(state, Move(kind, (card,), tuple(sorted(taken)), value))
            assert info.value.rule == rule, (kind, card, taken, value, info.value.rule, spec)


def play_and_check(cfg: tuple, seed: int, max_steps: int, samples: int) -> int:
    """Play a seeded random game, cross-checking every state with at most MAX_ITEMS items."""
    variant, players, partners, switches = cfg
    rng = random.Random(seed)
    state = new_game(variant, players, seed=seed, partnerships=partners, **switches)
    checked = 0
    for _ in range(max_steps):
        if state.game_over:
            break
        if len(state.to_spec()["table"]) <= MAX_ITEMS:
            check_state(state, rng, samples)
            checked += 1
        moves = legal_moves(state)
        # Prefer builds and trails now and then, so tables get crowded with builds.
        builds = [m for m in moves if m.kind != "capture"]
        state = apply_move(state, rng.choice(builds if builds and rng.random() < 0.6 else moves))
    return checked


@pytest.mark.parametrize("cfg", GAME_CONFIGS, ids=_cfg_id)
def test_random_games_match_reference(cfg: tuple) -> None:
    """C-capture, C-face, C-build*, C-owner-trail, C-one-per-value, C-trail, C-move,
    V-dom-trail, V-dom-build: engine == brute-force reference along seeded random games."""
    checked = sum(play_and_check(cfg, seed, 160, 3) for seed in (11, 12))
    assert checked > 50


# -- random crowded tables -----------------------------------------------------------------

def _compose(rng: random.Random, value: int, royal: bool, parts: int) -> list[int] | None:
    """Ranks of ``parts`` cards summing to ``value`` (in-set values; Ace 1)."""
    top = 13 if royal else 10
    out = []
    left = value
    for i in range(parts - 1):
        hi = min(top, left - (parts - 1 - i))
        if hi < 1:
            return None
        r = rng.randint(1, hi)
        out.append(r)
        left -= r
    if not 1 <= left <= top:
        return None
    return out + [left]


def random_crowded_spec(rng: random.Random, variant: str, players: int, partners: bool,
                        switches: dict) -> dict | None:
    """A random legal-looking spec with many small loose cards and up to three builds."""
    royal = variant != "casino"
    pool = DECK[:]
    rng.shuffle(pool)

    def take(r: int) -> str | None:
        for c in pool:
            if RANKS[c[:-1]] == r:
                pool.remove(c)
                return c
        return None

    def take_value(v: int) -> str | None:
        return take(1 if v == 14 else v)

    hands: list[list[str]] = [[] for _ in range(players)]
    current = rng.randrange(players)
    table: list = []
    values = rng.sample(range(1, 15 if royal else 11), rng.randint(0, 3))
    for v in values:
        owner = rng.randrange(players)
        if rng.random() < 0.5:  # single build
            ranks = _compose(rng, v, royal, rng.choice((2, 2, 3)))
            multiple = False
        else:  # multiple build: sets of v
            ranks = []
            for _ in range(rng.choice((2, 2, 3))):
                k = rng.choice((1, 2, 2))
                part = [1 if v == 14 else v] if k == 1 else _compose(rng, v, royal, 2)
                if part is None:
                    return None
                ranks += part
            multiple = True
        if ranks is None:
            return None
        cards = [take(r) for r in ranks]
        backer = take_value(v)
        if None in cards or backer is None:
            return None
        hands[owner].append(backer)
        table.append({"cards": cards, "value": v, "owner": owner, "multiple": multiple})
    for _ in range(rng.randint(2, MAX_ITEMS + 1 - len(table))):
        c = take(rng.choice((1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)))
        if c is not None:
            table.insert(0, c)
    while len(hands[current]) < rng.randint(1, 4):
        c = take(rng.choice((1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)))
        if c is None:
            return None
        hands[current].append(c)
    for seat in range(players):
        while len(hands[seat]) < 2:
            hands[seat].append(pool.pop())
    return {"variant": variant, "rules": switches, "players": players,
            "partnerships": partners, "current": current, "hands": hands, "table": table,
            "stock": [], "piles": [[] for _ in range(2 if partners else players)]}


def crowded_states(seed: int, count: int) -> list[State]:
    """``count`` valid random crowded states (specs the engine rejects are redrawn)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        cfg = rng.choice(GAME_CONFIGS)
        spec = random_crowded_spec(rng, *cfg)
        if spec is None:
            continue
        try:
            out.append(State.from_spec(spec))
        except ValueError:
            continue
    return out


def test_random_crowded_tables_match_reference() -> None:
    """C-capture, C-build-raise, C-build-extend, C-build-keep, C-one-per-value, V-dom-trail,
    V-dom-build on random crowded tables (many small cards, several builds)."""
    rng = random.Random(7)
    total = sum(check_state(st, rng, 4) for st in crowded_states(2024, 250))
    assert total > 1000


# -- handcrafted crowded specs -------------------------------------------------------------

def _b(cards: str, value: int, owner: int) -> dict:
    return {"cards": cards.split(), "value": value, "owner": owner}


HANDCRAFTED = {
    # Eight small loose cards and a single 10-build: many partitions (C-capture, C-build).
    "casino-small-cards": {
        "variant": "casino", "players": 2, "current": 0,
        "hands": [["5C", "6C", "7C", "9C"], ["10D", "KD"]],
        "table": ["AS", "AH", "2S", "2H", "3S", "3H", "4S", "4H", _b("5D AD 4D", 10, 1)]},
    # Ten loose cards of ranks A-3 (C-capture, C-build, C-one-per-value).
    "casino-ten-loose": {
        "variant": "casino", "players": 2, "current": 0, "rules": {"sweeps": True},
        "hands": [["4S", "5S", "6S", "8S"], ["9D", "KD"]],
        "table": ["AS", "AH", "AD", "AC", "2S", "2H", "2D", "2C", "3S", "3H"]},
    # Classic faces with V-dom-trail (C-face), an owned multiple build (C-owner-trail).
    "casino-faces": {
        "variant": "casino", "players": 3, "current": 1,
        "rules": {"dom_trail": True},
        "hands": [["9H"], ["JD", "QD", "6H", "10C"], ["2D"]],
        "table": ["JS", "JH", "QS", "KS", "5H", "5D", "AC", "AD", _b("6S 4S", 10, 1)]},
    # Royal Aces: lone Ace 14 vs Ace 1 inside a set; two-Aces rule (C-deck, C-build-keep).
    "royal-aces": {
        "variant": "royal", "players": 2, "current": 0,
        "hands": [["AC", "AS", "2C", "3C"], ["KD", "QD"]],
        "table": ["AH", "AD", "KS", "QH", "2H", "4H", "6H", _b("9S 5S", 14, 0)]},
    # Royal: own multiple build, another's single to raise, merging (C-build-raise,
    # C-one-per-value, C-build-extend).
    "royal-merge": {
        "variant": "royal", "players": 3, "current": 0,
        "hands": [["7S", "AC", "9H", "2H"], ["9C", "3D"], ["QC"]],
        "table": ["AS", "AH", "2C", "3C", "6C", "KD",
                  _b("7H 7D", 7, 0), _b("5S 4S", 9, 1), _b("8S 4D", 12, 2)]},
    # Dominican partners: raise partner's build, not own (V-dom-build), V-dom-trail.
    "dominican-partners": {
        "variant": "dominican", "players": 4, "current": 0,
        "hands": [["AH", "9C", "10H", "KS"], ["KC", "9D"], ["QC", "5C"], ["3H", "4D"]],
        "table": ["AS", "2S", "3S", "4S", "5S", "6S",
                  _b("7H 5H", 12, 2), _b("KH 8D 5D", 13, 1), _b("AD 8H", 9, 0)]},
    # Eleven items: partition stress on Royal values (C-capture, C-build).
    "royal-eleven-items": {
        "variant": "royal", "players": 2, "current": 1,
        "rules": {"dom_trail": True},
        "hands": [["10S", "9S"], ["AC", "5C", "7C", "QC"]],
        "table": ["AS", "AH", "2S", "2H", "3S", "3H", "4S", "5H", "6D", "7D",
                  _b("8S 4H", 12, 1)]},
}


def _fix_handcrafted(spec: dict) -> dict:
    spec = dict(spec)
    if spec["variant"] == "dominican" and spec["players"] == 4:
        spec.setdefault("partnerships", True)
    return spec


@pytest.mark.parametrize("name", sorted(HANDCRAFTED))
def test_handcrafted_crowded_specs(name: str) -> None:
    """C-capture, C-face, C-build-raise, C-build-extend, C-build-keep, C-owner-trail,
    C-one-per-value, V-dom-trail, V-dom-build on handcrafted crowded tables."""
    state = State.from_spec(_fix_handcrafted(HANDCRAFTED[name]))
    n = check_state(state, random.Random(name), 60, near=1.0)
    assert n > 1


def test_reference_sanity() -> None:
    """C-deck, C-capture, C-build-keep, V-dom-trail: the reference itself on seed examples."""
    # RULES C-deck: an Ace captures K + A counting 14 and 1.
    spec = {"variant": "royal", "rules": {}, "current": 0,
            "hands": [["AC"], ["2D"]], "table": ["KS", "AS"]}
    moves = reference_moves(spec)
    assert ("capture", "AC", frozenset({"KS", "AS"}), None) in moves
    assert ("capture", "AC", frozenset({"AS"}), None) in moves
    assert ("capture", "AC", frozenset({"KS"}), None) not in moves
    # Seed example 3 of restriction 3 (V-dom-trail): both tens must be captured.
    spec = {"variant": "dominican", "rules": {}, "current": 0,
            "hands": [["10S", "3C"], ["2D"]], "table": ["10D", "10C", "8H", "6H"]}
    tens = {m for m in reference_moves(spec) if m[1] == "10S"}
    assert tens == {("capture", "10S", frozenset({"10D", "10C"}), None)}
    # Two-Aces decision (C-build-keep): owning a 14-build, A on A making a 1-build needs
    # a second spare Ace.
    spec = {"variant": "royal", "rules": {}, "current": 0,
            "hands": [["AS", "AC", "KD"], ["2D"]],
            "table": ["AH", {"cards": ["9S", "5S"], "value": 14, "owner": 0}]}
    moves = reference_moves(spec)
    assert ("build", "AS", frozenset({"AH"}), 1) not in moves
    assert ("build", "AS", frozenset({"AH", "9S", "5S"}), 14) in moves


@pytest.mark.slow
def test_random_games_match_reference_long() -> None:
    """Slow (``-m slow`` or CASINO_SLOW=1, see conftest): the same cross-check (C-capture,
    C-build*, C-owner-trail, C-one-per-value, V-dom-trail, V-dom-build) at a larger scale."""
    for cfg in GAME_CONFIGS:
        for seed in range(100, 110):
            play_and_check(cfg, seed, 400, 2)
    rng = random.Random(99)
    for st in crowded_states(99, 3000):
        check_state(st, rng, 3)
