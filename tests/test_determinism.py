"""Determinism (C-deal, docs/rules.md "Shuffle"): the same seed gives the same game bit for bit,
also in a fresh interpreter (no dependence on hash randomisation, import order or global
random state); different seeds give different deals.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from casino_env.engine import State, apply_move, legal_moves, new_game

CONFIGS = [
    ("casino", 2, False),
    ("casino", 3, False),
    ("royal", 4, False),
    ("royal", 2, False),
    ("dominican", 4, True),
    ("dominican", 3, False),
]

# Plays ``steps`` random moves (choices from random.Random(seed + 1)) and prints the spec
# and the list of moves as JSON. Used in-process and in a fresh interpreter.
SCRIPT = """
import json, random, sys
from casino_env.engine import new_game, legal_moves, apply_move
variant, players, partnerships, seed, steps = json.loads(sys.argv[1])
st = new_game(variant, players, seed=seed, partnerships=partnerships)
rng = random.Random(seed + 1)
history = []
for _ in range(steps):
    if st.game_over:
        break
    move = rng.choice(legal_moves(st))
    history.append(str(move))
    st = apply_move(st, move)
print(json.dumps({"spec": st.to_spec(), "moves": history,
                  "scores": list(st.scores), "game_over": st.game_over,
                  "winner": st.winner}, sort_keys=True))
"""


def run_here(variant: str, players: int, partnerships: bool, seed: int, steps: int) -> str:
    st = new_game(variant, players, seed=seed, partnerships=partnerships)
    rng = random.Random(seed + 1)
    history = []
    for _ in range(steps):
        if st.game_over:
            break
        move = rng.choice(legal_moves(st))
        history.append(str(move))
        st = apply_move(st, move)
    return json.dumps({"spec": st.to_spec(), "moves": history, "scores": list(st.scores),
                       "game_over": st.game_over, "winner": st.winner}, sort_keys=True)


def run_fresh(args_list: list[tuple], hash_seed: str) -> list[str]:
    """The script's output for each argument tuple, each in a fresh interpreter."""
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    outs = []
    for args in args_list:
        proc = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(list(args))],
                              capture_output=True, text=True, timeout=120, env=env)
        assert proc.returncode == 0, proc.stderr
        outs.append(proc.stdout.strip())
    return outs


def test_same_seed_same_game_in_a_fresh_interpreter():
    """C-deal / Shuffle: a seed fixes the whole game, in any interpreter, whatever the hash
    seed (short games to 21 for a few configurations, and a prefix of a longer one)."""
    cases = [(v, p, part, seed, 10_000) for (v, p, part), seed in zip(CONFIGS, (0, 7, 123,
                                                                                2**40, 99, 5))]
    cases.append(("dominican", 2, False, 2**63 - 1, 60))
    here = [run_here(*c) for c in cases]
    for hash_seed in ("0", "12345"):
        assert run_fresh(cases, hash_seed) == here
    for out in here[:-1]:
        assert json.loads(out)["game_over"]  # the whole game was compared


@pytest.mark.parametrize(("variant", "players", "partnerships"), CONFIGS)
def test_same_seed_same_game_in_process(variant, players, partnerships):
    """Two runs from the same seed give the same moves and the same final spec, and the states
    compare equal at every step."""
    a = new_game(variant, players, seed=31337, partnerships=partnerships)
    b = new_game(variant, players, seed=31337, partnerships=partnerships)
    rng_a, rng_b = random.Random(4), random.Random(4)
    while not a.game_over:
        assert a == b and a.to_spec() == b.to_spec()
        ma, mb = legal_moves(a), legal_moves(b)
        assert [str(m) for m in ma] == [str(m) for m in mb]
        a = apply_move(a, rng_a.choice(ma))
        b = apply_move(b, rng_b.choice(mb))
    assert b.game_over and a == b and a.to_spec() == b.to_spec()


def test_global_random_state_does_not_matter():
    """A seeded game never reads the global random module."""
    random.seed(1)
    a = run_here("royal", 3, False, 2024, 10_000)
    random.seed(2)
    random.random()
    b = run_here("royal", 3, False, 2024, 10_000)
    assert a == b


def test_replay_from_spec_is_identical():
    """docs/rules.md: every game can be replayed from its spec (the spec keeps the next seed),
    so later hands are dealt the same way from a mid-game spec."""
    st = new_game("casino", 2, seed=8)
    rng = random.Random(0)
    for _ in range(30):
        st = apply_move(st, rng.choice(legal_moves(st)))
    copy = State.from_spec(json.loads(json.dumps(st.to_spec())))
    rng_a, rng_b = random.Random(9), random.Random(9)
    a, b = st, copy
    while not a.game_over:
        a = apply_move(a, rng_a.choice(legal_moves(a)))
        b = apply_move(b, rng_b.choice(legal_moves(b)))
        assert a == b
    assert b.game_over and a.to_spec() == b.to_spec()


def test_shuffle_is_random_random_of_the_deck_in_id_order():
    """docs/rules.md Shuffle and Deal order: random.Random(seed).shuffle of the deck in id
    order; blocks of four from the top to the player after the dealer first, round to the
    dealer, then four to the table."""
    for players in (2, 3, 4):
        st = new_game("casino", players, seed=2718)
        order = list(range(52))
        random.Random(2718).shuffle(order)
        names = st.rules.deck.names
        for k in range(players):  # dealer is the last seat: seat 0 first
            assert st.hand(k) == sorted((names[i] for i in order[4 * k:4 * k + 4]),
                                        key=names.index)
        table = order[4 * players:4 * players + 4]
        assert st.table == sorted((names[i] for i in table), key=names.index)
        assert list(st.stock_ids) == order[4 * players + 4:]


@pytest.mark.parametrize(("variant", "players", "partnerships"), CONFIGS)
def test_different_seeds_give_different_deals(variant, players, partnerships):
    """C-deal: different seeds shuffle differently (no two of 200 seeds share a deal)."""
    deals = set()
    for seed in range(200):
        st = new_game(variant, players, seed=seed, partnerships=partnerships)
        deals.add((st.hand_masks, tuple(st.table), st.stock_ids))
    assert len(deals) == 200


def test_different_seeds_give_different_next_hands():
    """The seed of the next hand comes from the same generator: two games with different seeds
    do not share their second deal either."""
    seconds = set()
    for seed in range(30):
        st = new_game("casino", 2, seed=seed)
        rng = random.Random(0)
        while st.hand_points is None:
            st = apply_move(st, rng.choice(legal_moves(st)))
        seconds.add((st.hand_masks, st.stock_ids))
    assert len(seconds) == 30


def test_seed_none_draws_a_seed_the_state_keeps():
    """docs/rules.md: new_game(seed=None) draws a random seed, which the state keeps, so the
    game can be replayed from its spec."""
    a = new_game("casino", 2)
    b = new_game("casino", 2)
    assert a.to_spec()["seed"] is not None
    assert (a.hand_masks, a.stock_ids) != (b.hand_masks, b.stock_ids)
    replay = State.from_spec(a.to_spec())
    assert replay == a
