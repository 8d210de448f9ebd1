"""Bad input never hangs or corrupts: clear errors for wrong actions, dtypes, seeds, moves."""

from __future__ import annotations

import random

import numpy as np
import pytest

import casino_env
from casino_env.engine import IllegalMoveError, Move, apply_move, legal_moves, new_game, parse_move


@pytest.mark.parametrize("bad", [None, "3", 2.0, 1.5, True, np.array([1, 2]), [1], -1, 10**9])
@pytest.mark.parametrize("mode", ["compose", "enumerate"])
def test_raw_env_rejects_bad_actions_clearly(bad, mode):
    e = casino_env.raw_env(action_mode=mode)
    e.reset(seed=0)
    before = e.state
    with pytest.raises(ValueError, match="action"):
        e.step(bad)
    assert e.state is before  # nothing changed
    legal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0])
    e.step(np.int64(legal))  # numpy integers are fine


def test_masked_out_ids_leave_the_env_usable():
    e = casino_env.raw_env()
    e.reset(seed=3)
    rng = random.Random(0)
    for _ in range(200):
        if all(e.terminations.values()):
            e.reset(seed=rng.randrange(100))
        mask = e.observe(e.agent_selection)["action_mask"]
        bad = np.flatnonzero(mask == 0)
        with pytest.raises(ValueError, match="masked out"):
            e.step(int(rng.choice(list(bad))))
        e.step(int(rng.choice(list(np.flatnonzero(mask)))))


def test_stepping_after_the_end_and_before_reset(caplog):
    e = casino_env.raw_env()
    with pytest.raises(RuntimeError, match="reset"):
        e.step(0)
    e.reset(seed=1)
    rng = np.random.default_rng(0)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    with pytest.raises(RuntimeError, match="reset"):
        e.step(0)
    w = casino_env.env()
    w.reset(seed=1)
    for _agent in w.agent_iter():
        obs, _, term, trunc, _ = w.last()
        w.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    w.step(0)  # PettingZoo's OrderEnforcingWrapper logs a warning and does nothing
    assert "Should reset() first" in caplog.text


@pytest.mark.parametrize("seed", [0, 2**70, np.int64(5), np.uint32(7)])
def test_reset_accepts_odd_integer_seeds_deterministically(seed):
    a, b = casino_env.raw_env(), casino_env.raw_env()
    a.reset(seed=seed)
    b.reset(seed=seed)
    assert a.state == b.state


@pytest.mark.parametrize("seed", ["1", 1.0, True, [1], -1])
def test_reset_rejects_non_integer_and_negative_seeds(seed):
    with pytest.raises(ValueError, match="seed"):
        casino_env.raw_env().reset(seed=seed)


@pytest.mark.parametrize("bad", [5, None, object(), ("7H",)])
def test_apply_move_rejects_non_moves(bad):
    st = new_game("casino", 2, seed=0)
    with pytest.raises((TypeError, ValueError)):
        apply_move(st, bad)


@pytest.mark.parametrize("text", ["", "7H", "7H eats 5S", "ZZ trails", "7H captures", "7H builds",
                                  "7H builds x on 5S", "trails", "7H+7H captures 5S",
                                  "1S trails", "5R trails"])
def test_parse_move_rejects_garbage_with_a_message(text):
    st = new_game("casino", 2, seed=0)
    with pytest.raises(ValueError, match="move|card"):
        parse_move(text, st)


def test_random_garbage_moves_never_corrupt_a_state():
    """Thousands of random (mostly illegal) Move objects: each either applies or raises
    IllegalMoveError naming a rule; the input state never changes."""
    rng = random.Random(7)
    for variant in ("casino", "royal", "dominican", "tuxedo", "hungarian"):
        st = new_game(variant, 2, seed=rng.randrange(1000))
        names = st.rules.deck.names
        for _ in range(600):
            if st.game_over:
                st = new_game(variant, 2, seed=rng.randrange(1000))
            spec = st.to_spec()
            kind = rng.choice(["trail", "capture", "build", "claim", "call"])
            played = tuple(rng.sample(names, rng.choice([0, 1, 1, 2])))
            taken = tuple(rng.sample(names, rng.randrange(4)))
            value = rng.choice([None, rng.randrange(-2, 40)])
            try:
                mv = Move(kind, played, taken, value, rng.random() < 0.1, rng.random() < 0.1)
            except ValueError:
                continue
            try:
                apply_move(st, mv)
            except IllegalMoveError as e:
                assert e.rule and e.rule[:2] in ("C-", "V-"), e
            assert st.to_spec() == spec
            st = apply_move(st, rng.choice(legal_moves(st)))
