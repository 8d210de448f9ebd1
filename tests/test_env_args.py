"""Arguments of the environments, checked when they are made: misspelt keywords (issue 16
item 4), seeds (item 8: ints >= 0 or None everywhere) and the single-agent view's opponents
(items 3 and 14: names resolved through casino_env.players at construction, any object with
act/reset, no import of the agents package)."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import casino_env
from casino_env import players
from casino_env.engine import legal_moves
from casino_env.single import CASINO_ENV_ARGS, CasinoEnv

# -- misspelt keywords --------------------------------------------------------------------------


@pytest.mark.parametrize("make,where", [(casino_env.raw_env, "raw_env"), (casino_env.env, "env"),
                                        (CasinoEnv, "CasinoEnv")])
def test_a_misspelt_argument_is_named_with_its_close_match(make, where):
    with pytest.raises(ValueError, match=rf"^action_mdoe is neither an argument of {where} nor a "
                       r"rule switch of casino \(did you mean action_mode\?\)$"):
        make(action_mdoe="enumerate")
    with pytest.raises(ValueError, match=rf"^swepes is neither an argument of {where} nor a rule "
                       r"switch of royal \(did you mean sweeps\?\)$"):
        make(variant="royal", swepes=True)
    with pytest.raises(ValueError, match=r"^ace14 is neither .* of hungarian \(did you mean "
                       r"ace_14\?\)$"):
        make(variant="hungarian", ace14=True)


def test_the_gymnasium_arguments_are_matched_too():
    with pytest.raises(ValueError, match=r"^oponent is neither an argument of CasinoEnv nor a "
                       r"rule switch of royal \(did you mean opponent\?\)$"):
        gym.make("casino_env/Royal-v0", oponent="random")
    with pytest.raises(ValueError, match=r"^ilegal_reward is neither .* \(did you mean "
                       r"illegal_reward\?\)$"):
        CasinoEnv(ilegal_reward=-2.0)


def test_a_keyword_like_nothing_lists_the_arguments_and_switches():
    with pytest.raises(ValueError, match=r"^zzqx is neither an argument of raw_env nor a rule "
                       r"switch of spade \(arguments: variant, players, partnerships, "
                       r"action_mode, .*, observation, last_capturer; switches of spade: "
                       r".*target.*\)$"):
        casino_env.raw_env(variant="spade", zzqx=1)


def test_switches_and_other_checks_are_unchanged():
    # a real switch of another preset is still make_rules' business
    with pytest.raises(ValueError, match=r"^rule switch 'ace_14' does not apply to 'casino'"):
        casino_env.raw_env(ace_14=True)
    with pytest.raises(ValueError, match=r"unknown variant 'nope'"):
        casino_env.raw_env(variant="nope", action_mdoe="x")
    assert casino_env.raw_env(variant="royal", sweeps=True).rules.sweeps is True
    assert CasinoEnv(variant="royal", sweeps=True).raw.rules.sweeps is True


def test_casino_env_takes_max_table_as_its_own_argument():
    assert "max_table" in CASINO_ENV_ARGS
    assert CasinoEnv(max_table=10).raw.max_table == 10
    assert CasinoEnv().raw.max_table == 24 and CasinoEnv(max_table=None).raw.max_table is None


# -- seeds ----------------------------------------------------------------------------------------

BAD_SEEDS = [(-1, r"-1"), (-5, r"-5"), (1.5, r"1\.5"), (True, r"True"), ("3", r"'3'"),
             (np.int64(-2), r"np\.int64\(-2\)")]


@pytest.mark.parametrize("seed,shown", BAD_SEEDS)
def test_a_seed_is_a_non_negative_int_or_none_everywhere(seed, shown):
    message = rf"^seed: must be a non-negative int or None, got {shown}$"
    for env in (casino_env.raw_env(), casino_env.env(), CasinoEnv(),
                gym.make("casino_env/Royal-v0")):
        with pytest.raises(ValueError, match=message):
            env.reset(seed=seed)


def test_numpy_seeds_are_the_same_seed():
    a, b = casino_env.raw_env(), casino_env.raw_env()
    a.reset(seed=7)
    b.reset(seed=np.int64(7))
    assert a.state == b.state
    g, h = CasinoEnv(seat=0), CasinoEnv(seat=0)  # (gymnasium alone refuses numpy seeds)
    np.testing.assert_array_equal(g.reset(seed=7)[0], h.reset(seed=np.uint32(7))[0])
    assert g.raw.state == h.raw.state
    c = casino_env.raw_env()
    c.reset(seed=2**200)  # any size
    c.reset(seed=None)


# -- opponents ------------------------------------------------------------------------------------


class FirstMove:
    """An agent that is not from the agents package: the first legal move."""

    def __init__(self):
        self.seeds = []
        self.moves = 0

    def act(self, state, seat=None):
        self.moves += 1
        return legal_moves(state)[-1]

    def reset(self, seed=None):
        self.seeds.append(seed)


def test_an_object_with_act_and_reset_is_an_opponent():
    agent = FirstMove()
    env = CasinoEnv(opponent=agent, seat=0)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = term or trunc
    assert len(agent.seeds) == 1 and env.opponents == {1: agent}
    # the hand was played out; the agent chose every move of its 24 but the forced ones
    assert term and env.raw.state.hand_points is not None and 12 < agent.moves <= 24


def test_an_unknown_opponent_name_fails_when_the_env_is_made():
    with pytest.raises(ValueError, match=r"unknown agent 'nobody' \(known: random, greedy, "
                       r"heuristic, search"):
        gym.make("casino_env/Royal-v0", opponent="nobody")
    with pytest.raises(ValueError, match=r"unknown agent 'nobody'"):
        CasinoEnv(opponent=["random", "nobody"])  # every name of a pool


@pytest.mark.parametrize("opponent", [42, 1.5, object(), ["random", 42]])
def test_a_non_agent_opponent_is_a_type_error(opponent):
    with pytest.raises(TypeError, match=r"^opponent must be an agent name \(e\.g\. 'heuristic'\), "
                       r"an object with act\(state, seat\) and reset\(seed\), a list of them "
                       r"\(a pool\) or a callable returning one, got "):
        CasinoEnv(opponent=opponent)
    env = CasinoEnv()
    with pytest.raises(TypeError, match=r"^opponent must be"):
        env.set_opponent(opponent)
    assert env.opponent == "random"


def test_an_empty_pool_is_refused():
    with pytest.raises(ValueError, match=r"^opponent: the pool is empty"):
        CasinoEnv(opponent=[])


def test_names_are_resolved_once_at_construction_with_the_games_rules():
    """Through casino_env.players' registry (seed 0, the env's rules), so an agent that cannot
    play this game (a model trained on another preset) fails at make time."""
    made = []

    class Picky(FirstMove):
        def check_rules(self, rules):
            if rules.variant != "casino":
                raise ValueError(f"trained on casino 2p, this game is {rules.variant} 2p")

    def registry(name, seed=None):
        made.append((name, seed))
        return Picky()

    players.set_registry(registry)
    try:
        CasinoEnv(variant="casino", opponent=["model:a", "model:b"])
        assert made == [("model:a", 0), ("model:b", 0)]
        with pytest.raises(ValueError, match=r"^trained on casino 2p, this game is royal 2p$"):
            gym.make("casino_env/Royal-v0", opponent="model:a")
        with pytest.raises(ValueError, match=r"this game is royal 2p$"):
            CasinoEnv(variant="royal", opponent=Picky())  # objects are checked too
    finally:
        players.set_registry(None)


def test_callables_are_checked_when_called():
    calls = []

    def factory():
        calls.append(1)
        return FirstMove()

    env = CasinoEnv(opponent=factory)
    assert not calls  # (a snapshot factory may not be ready before the first reset)
    env.reset(seed=0)
    assert calls == [1] and isinstance(env.opponents[1 - env.seat], FirstMove)

    bad = CasinoEnv(opponent=lambda: 5)
    with pytest.raises(TypeError, match=r"^opponent: the callable .* returned 5, which is not an "
                       r"agent"):
        bad.reset(seed=0)


def test_the_single_agent_view_does_not_import_the_agents_package():
    code = ("import sys\nfrom casino_env.engine import legal_moves\n"
            "from casino_env.single import CasinoEnv\n"
            "class A:\n    def act(self, state, seat=None): return legal_moves(state)[0]\n"
            "    def reset(self, seed=None): pass\n"
            "env = CasinoEnv(opponent=A(), seat=1)\nenv.reset(seed=0)\nenv.step(int("
            "env.action_masks().nonzero()[0][0]))\n"
            "assert 'agents' not in sys.modules, 'agents imported'\nprint('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


# -- the documented signatures --------------------------------------------------------------------


def _documented_call(prefix: str) -> dict:
    """Keyword defaults of the signature block of docs/environment.md starting with prefix."""
    import ast
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "environment.md").read_text()
    block = next(b for b in text.split("```text\n")[1:] if prefix in b).split("```")[0]
    call = block[block.index(prefix):]
    node = ast.parse(call.strip()).body[0].value
    assert any(k.arg is None for k in node.keywords)  # **switches
    return {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg is not None}


@pytest.mark.parametrize("prefix,cls", [("casino_env.env(", casino_env.raw_env),
                                        ("casino_env.single.CasinoEnv(", CasinoEnv)])
def test_documented_signatures_match_the_code(prefix, cls):
    """Every argument of env()/raw_env and CasinoEnv is in docs/environment.md with its
    default (issue 16 item 4: observation= and max_table= were missing)."""
    import inspect

    code = {name: p.default for name, p in inspect.signature(cls.__init__).parameters.items()
            if name not in ("self", "switches")}
    assert _documented_call(prefix) == code
