"""One rule for actions at every entry point (issue 16 item 2): raw_env().step, env().step
(through PettingZoo's wrappers), the Gymnasium view's step and the RLlib wrapper's step accept
a Python int, a numpy integer scalar and an integer array of shape () or (1,); anything else
raises ValueError naming the value received and the range expected."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import casino_env
from casino_env.checks import action_index
from casino_env.rllib import RLlibObservations
from casino_env.single import CasinoEnv


def _raw(mode):
    e = casino_env.raw_env(action_mode=mode, max_moves=32)
    e.reset(seed=3)
    return e, e


def _wrapped(mode):
    e = casino_env.env(action_mode=mode, max_moves=32)
    e.reset(seed=3)
    return e, e.unwrapped


def _rllib(mode):
    e = RLlibObservations(casino_env.env(action_mode=mode, max_moves=32))
    e.reset(seed=3)
    return e, e.unwrapped


def _gym(mode):
    e = CasinoEnv(action_mode=mode, max_moves=32, seat=0, opponent="random")
    e.reset(seed=3)
    return e, e.raw


ENTRY_POINTS = {"raw_env": _raw, "env": _wrapped, "rllib": _rllib, "gymnasium": _gym}


def _legal(raw) -> int:
    return int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"])[0])


def _bad_values(n: int, legal: int):
    """(value, message) for every kind of bad action; n is the number of action ids."""
    top = n - 1
    expected = rf"^action must be an int in 0\.\.{top}"
    return [
        (n, rf"{expected}, got {n}$"),
        (-1, rf"{expected}, got -1$"),
        (np.int64(n + 5), rf"{expected}, got np\.int64\({n + 5}\) \(int64\)$"),
        (15.0, rf"{expected}, got 15\.0 \(float\)$"),
        (1.7, rf"{expected}, got 1\.7 \(float\)$"),
        (np.float32(2.0), rf"{expected}, got np\.float32\(2\.0\) \(float32\)$"),
        ("3", rf"{expected}, got '3' \(str\)$"),
        (True, rf"{expected}, got True \(bool\)$"),
        (np.bool_(False), rf"{expected}, got np\.False_ \(bool\)$"),
        (None, rf"{expected}, got None \(None is only for agents that are done\)$"),
        (np.array([legal, legal]),
         rf"{expected} \(or an integer array of shape \(1,\)\), got array\(\[{legal}, {legal}\]\) "
         r"\(ndarray of int64, shape \(2,\)\)$"),
        (np.array([[legal]]), r"shape \(1, 1\)\)$"),
        (np.array([float(legal)]), rf"{expected}, got array\(\[{legal}\.\]\) "
         r"\(ndarray of float64, shape \(1,\)\)$"),
        ([legal], rf"{expected}, got \[{legal}\] \(list\)$"),
    ]


@pytest.mark.parametrize("mode", ["compose", "enumerate"])
@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_bad_actions_raise_naming_the_value_and_change_nothing(entry, mode):
    env, raw = ENTRY_POINTS[entry](mode)
    n = raw.n_actions
    legal = _legal(raw)
    before = (raw.state, raw.agent_selection, raw.observe(raw.agent_selection)["observation"])
    for value, message in _bad_values(n, legal):
        with pytest.raises(ValueError, match=message):
            env.step(value)
        # Nothing moved, nothing ended: the same agent still acts in the same state.
        assert raw.state is before[0] and raw.agent_selection == before[1]
        assert not any(raw.terminations.values())
        np.testing.assert_array_equal(raw.observe(raw.agent_selection)["observation"], before[2])
    env.step(legal)  # and the environment plays on


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_ints_numpy_integers_and_shape_one_arrays_are_the_same_action(entry):
    """Action Shape (1,): an int, a numpy integer of any width, an integer array of shape ()
    or (1,) all make the same move."""
    results = []
    for convert in (int, np.int64, np.int32, np.uint8, np.array, lambda a: np.array([a])):
        env, raw = ENTRY_POINTS[entry]("enumerate")
        for _ in range(6):
            env.step(convert(_legal(raw)))
            if entry != "gymnasium":  # (let the other seat move too)
                env.step(convert(_legal(raw)))
        results.append(raw.state.to_spec())
    assert all(r == results[0] for r in results)


def test_masked_out_actions_keep_their_handling():
    """An in-range but masked-out id: env() ends the episode with -1, raw_env raises naming
    it, the Gymnasium view ends with illegal_reward or raises with illegal="raise"."""
    raw = casino_env.raw_env()
    raw.reset(seed=3)
    bad = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=rf"^action {bad} \(.*\) is masked out"):
        raw.step(bad)
    for value in (bad, np.int64(bad), np.array([bad])):
        w = casino_env.env()
        w.reset(seed=3)
        agent = w.agent_selection
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            w.step(value)
        assert w.terminations[agent] and w.rewards[agent] == -1
    g = CasinoEnv(opponent="random", seat=0)
    g.reset(seed=3)
    bad = int(np.flatnonzero(~g.action_masks())[0])
    _, r, term, trunc, info = g.step(np.int64(bad))
    assert (r, term, trunc, info["illegal_action"]) == (-1.0, True, False, bad)
    assert type(info["illegal_action"]) is int
    strict = CasinoEnv(opponent="random", seat=0, illegal="raise")
    strict.reset(seed=3)
    desc = re.escape(strict.raw.describe_action(bad))
    with pytest.raises(ValueError, match=rf"^action {bad} \({desc}\) is masked out$"):
        strict.step(bad)


def test_out_of_range_in_the_gymnasium_view_raises_instead_of_scoring_an_illegal_move():
    g = CasinoEnv(opponent="random", seat=0)
    g.reset(seed=3)
    with pytest.raises(ValueError, match=r"^action must be an int in 0\.\.125, got 126$"):
        g.step(126)
    with pytest.raises(ValueError, match=r"got 1\.7 \(float\)$"):
        g.step(1.7)  # (was played as 1)
    _, r, term, _, _ = g.step(_legal(g.raw))
    assert not term and r == 0.0


def test_none_is_the_action_of_a_done_agent_everywhere():
    for make in (casino_env.raw_env, casino_env.env):
        e = make(action_mode="enumerate")
        e.reset(seed=1)
        rng = np.random.default_rng(0)
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert not e.agents


def test_steps_before_reset_say_so():
    g = CasinoEnv()
    with pytest.raises(RuntimeError, match=r"^call reset\(\) before step\(\)$"):
        g.step(0)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        casino_env.raw_env().step(0)


def test_action_index_fast_path_returns_the_int_itself():
    assert action_index(5, 10) == 5 and type(action_index(np.int16(5), 10)) is int
    assert action_index(np.array(7, np.uint16), 10) == 7
