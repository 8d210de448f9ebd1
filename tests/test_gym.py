"""The single-agent Gymnasium view: env checker, masks, opponents, registration."""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import casino_env
from agents import Agent, GreedyAgent
from casino_env.engine import list_variants
from casino_env.single import PRESET_IDS, CasinoEnv


@pytest.mark.parametrize("variant", list_variants())
@pytest.mark.parametrize("mode", ["compose", "enumerate"])
def test_registered_envs_pass_the_env_checker(variant, mode):
    env = gym.make(f"casino_env/{PRESET_IDS[variant]}-v0", opponent="greedy", action_mode=mode)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)


def play(env, seed, episodes=5):
    rng = np.random.default_rng(seed)
    total, steps = 0.0, 0
    for ep in range(episodes):
        env.reset(seed=seed + ep)
        done = False
        while not done:
            mask = env.action_masks()
            assert mask.dtype == bool and mask.any()
            _, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            total += r
            steps += 1
            done = term or trunc
    return total, steps


def test_learner_reward_matches_hand_points():
    env = CasinoEnv(variant="casino", opponent="greedy", seat=1)
    env.reset(seed=3)
    total = 0.0
    rng = np.random.default_rng(0)
    done = False
    while not done:
        _, r, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        total += r
    pts = env.raw.state.hand_points
    assert info["seat"] == 1
    assert total == pytest.approx(pts[1] - pts[0])


def test_seeded_episodes_are_reproducible():
    a = play(CasinoEnv(variant="royal", opponent=["random", "greedy"]), 5)
    b = play(CasinoEnv(variant="royal", opponent=["random", "greedy"]), 5)
    assert a == b


def test_opponent_can_be_an_agent_a_pool_or_a_factory():
    made = []

    def factory():
        made.append(1)
        return GreedyAgent()

    for opp in (GreedyAgent(seed=1), ["random", "greedy"], factory, "heuristic"):
        env = CasinoEnv(variant="dominican", opponent=opp)
        play(env, 1, episodes=2)
    assert made
    with pytest.raises(TypeError, match=r"^opponent must be an agent name .*, got 42$"):
        CasinoEnv(opponent=42)  # (refused when the environment is made, not at reset)
    assert isinstance(GreedyAgent(), Agent)


def test_three_players_and_partners():
    play(CasinoEnv(variant="casino", players=3, opponent="greedy"), 2, episodes=2)
    play(CasinoEnv(variant="dominican", players=4, opponent="greedy"), 2, episodes=2)


def test_masked_out_action_ends_the_episode():
    env = CasinoEnv(opponent="random")
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    _, r, term, _, info = env.step(bad)
    assert term and r == -1.0 and info["illegal_action"] == bad
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    strict = CasinoEnv(opponent="random", illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="masked out"):
        strict.step(int(np.flatnonzero(~strict.action_masks())[0]))


@pytest.mark.parametrize("order", ["import casino_env\nimport gymnasium",
                                   "import gymnasium\nimport casino_env"])
def test_registration_works_in_either_import_order(order):
    code = order + "\nenv = gymnasium.make('casino_env/Royal-v0', opponent='heuristic')\n" \
        "env.reset(seed=0)\nprint('ok')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


def test_engine_import_does_not_import_gymnasium():
    code = ("import sys, casino_env.engine, casino_env\n"
            "assert 'gymnasium' not in sys.modules and 'pettingzoo' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
    assert casino_env.register_envs is not None


def test_rgb_array_draws_the_learners_view():
    """render_mode="rgb_array" (for gymnasium's RecordVideo): the learner's hand face up, the
    opponent's hidden; the picture follows the game."""
    from casino_env.picture import state_array

    env = gym.make("casino_env/Casino-v0", opponent="greedy", render_mode="rgb_array",
                         seat=1)
    env.reset(seed=4)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    st = env.unwrapped.raw.state
    np.testing.assert_array_equal(img, state_array(st, 1, ["player_0", "player_1"]))
    assert not np.array_equal(img, state_array(st, 0, ["player_0", "player_1"]))
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert not np.array_equal(env.render(), img)
    env.close()


class _EveryTurnSetUp(casino_env.aec.raw_env):
    """The AEC env with every seat's turn prepared in full (no scripted-seat shortcut)."""

    @property
    def _scripted(self):
        return frozenset()

    @_scripted.setter
    def _scripted(self, seats):
        pass


@pytest.mark.parametrize("variant,action_mode", [("casino", "compose"), ("hungarian", "compose"),
                                                 ("tuxedo", "enumerate")])
def test_opponent_turns_skip_the_set_up_without_changing_the_game(variant, action_mode):
    """CasinoEnv's opponents move through play_move, so their turns skip the mask and compose
    set-up; observations, masks, rewards and moves are those of the env preparing every turn
    (forced opponent moves are still made automatically: auto_forced)."""
    def run(env):
        rng = np.random.default_rng(7)
        out = []
        for ep in range(6):
            obs, _ = env.reset(seed=ep)
            done = False
            while not done:
                mask = env.action_masks()
                a = int(rng.choice(np.flatnonzero(mask)))
                obs, r, term, trunc, _ = env.step(a)
                out.append((obs.tobytes(), mask.tobytes(), r, str(env.raw.state)))
                done = term or trunc
        return out

    fast = CasinoEnv(variant, opponent=["random", "greedy"], action_mode=action_mode)
    full = CasinoEnv(variant, opponent=["random", "greedy"], action_mode=action_mode)
    full.raw = _EveryTurnSetUp(variant=variant, action_mode=action_mode, auto_forced=True,
                               max_moves=128)
    a, b = run(fast), run(full)
    assert len(a) > 100 and a == b


def test_stepping_an_opponent_seat_of_the_single_agent_view_is_refused():
    env = CasinoEnv("casino", opponent="random", seat=0)
    env.reset(seed=1)
    raw = env.raw
    raw.step(int(np.flatnonzero(env.action_masks())[0]))  # the learner's sub-action
    while raw.state.current == 0:
        raw.step(int(np.flatnonzero(raw.observe("player_0")["action_mask"])[0]))
    assert raw.agent_selection == "player_1"
    assert not raw.observe("player_1")["action_mask"].any()
    with pytest.raises(RuntimeError, match="player_1 is played by its agent through play_move"):
        raw.step(0)


def test_gym_id_refuses_a_variant_keyword_naming_another_preset():
    """casino_env/<Preset>-v0 fixes the preset: variant= naming another one is refused with
    the id to use instead (it used to override the id silently); the same preset is fine."""
    assert gym.make("casino_env/Royal-v0", variant="royal").unwrapped.raw.variant == "royal"
    assert gym.make("casino_env/Royal-v0").unwrapped.raw.variant == "royal"
    with pytest.raises(ValueError, match=r"variant='casino' conflicts with the id's preset "
                                         r"'royal'.*casino_env/Casino-v0"):
        gym.make("casino_env/Royal-v0", variant="casino")


def test_a_one_hand_episode_ends_on_the_finished_hand_not_the_next_deal():
    """episode="hand": the last observation and env state are the hand's final position
    (C-residue: all 52 cards in the piles, no hand, table or stock), not the next hand the
    engine has already dealt; the reward is unchanged (the hand's point difference)."""
    env = CasinoEnv(variant="casino", opponent="greedy")
    obs, _ = env.reset(seed=4)
    total, done = 0.0, False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        obs, r, term, trunc, _ = env.step(int(legal[0]))
        total += r
        done = term or trunc
    st = env.raw.state
    assert term and not any(st.hand_masks) and st.loose_mask == 0 and not st.stock_ids
    assert sum(p.bit_count() for p in st.pile_masks) == 52
    side = env.raw.rules.side(env.seat)
    assert total == st.hand_points[side] - st.hand_points[1 - side]
    layout = env.raw.layout
    again = np.zeros(layout.size, np.float32)
    layout.encode(st, env.seat, again)
    assert np.array_equal(obs, again)


def test_reset_never_returns_an_episode_already_over():
    """A small max_table can end a deal during the opponents' first moves; reset() deals
    again (from the same seed's generator), so the learner always has a legal action."""
    env = CasinoEnv(variant="casino", opponent="greedy", max_table=5, seat="random")
    for seed in range(40):
        env.reset(seed=seed)
        assert env.action_masks().any()
    first = env.reset(seed=3)[0]
    assert np.array_equal(env.reset(seed=3)[0], first)


def test_masks_before_reset_and_a_bad_vec_are_named():
    from casino_env.single import make_vec_env

    with pytest.raises(RuntimeError, match="call reset\\(\\) before action_masks\\(\\)"):
        CasinoEnv().action_masks()
    with pytest.raises(ValueError, match="vec must be 'dummy' or 'subproc', got 'subporc'"):
        make_vec_env(2, vec="subporc")


def _last_card_position():
    """A casino hand where seat 1 plays the hand's last card (seed 3, random play)."""
    import random

    from casino_env.engine import apply_move, legal_moves, new_game

    st, rng = new_game("casino", players=2, seed=3), random.Random(0)
    while not (sum(h.bit_count() for h in st.hand_masks) == 1 and not st.stock_ids):
        st = apply_move(st, rng.choice(legal_moves(st)))
    assert st.current == 1
    return st


def test_a_given_state_whose_hand_the_opponents_end_keeps_the_learners_reward():
    """reset(options={"state": S}) where the opponent's move ends the hand before the learner
    moves: in a game episode the hand's points reach the learner in its first step's reward
    (raw.step cleared them: the rewards did not sum to the score difference); in a one-hand
    episode there is no decision for the learner, and the state is refused by name (it was
    dealt again 100 times and blamed max_table)."""
    from casino_env.returns import points_returns

    st = _last_card_position()
    hand = CasinoEnv(variant="casino", seat=0, opponent="random")
    with pytest.raises(ValueError, match=r"options\['state'\]: the opponents' moves from this "
                                         "state end the episode before seat 0 moves"):
        hand.reset(seed=0, options={"state": st})
    env = CasinoEnv(variant="casino", seat=0, opponent="random", episode="game")
    env.reset(seed=0, options={"state": st})
    ended = env.raw.state.scores
    rng, total, first, done = np.random.default_rng(0), 0.0, None, False
    while not done:
        _, r, t, tr, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        first = r if first is None else first
        total, done = total + r, t or tr
    assert ended == (9, 2)  # the hand the opponent ended: -7 for seat 0
    assert total == points_returns(env.raw.state.scores, False)[0]


def test_an_agent_class_is_an_opponent_factory_and_bad_arguments_are_named():
    """An agent class is a callable returning an agent (docs/environment.md), alone or in a
    pool (it was taken for an agent, and failed on an unbound check_rules); a seat may be any
    integer type; illegal_reward must be a number (a string failed at the first illegal
    action)."""
    from agents import HeuristicAgent, RandomAgent

    for opp in (HeuristicAgent, [RandomAgent, "greedy"]):
        env = CasinoEnv(opponent=opp, seat=np.int64(1))
        env.reset(seed=0)
        assert env.seat == 1 and type(env.seat) is int
        assert all(type(a) in (HeuristicAgent, RandomAgent, GreedyAgent)
                   for a in env.opponents.values())
    with pytest.raises(ValueError, match="illegal_reward must be a number, got 'a'"):
        CasinoEnv(illegal_reward="a")
    with pytest.raises(TypeError, match=r"got the class HeuristicAgent: pass an instance"):
        casino_env.players.resolve(HeuristicAgent)
