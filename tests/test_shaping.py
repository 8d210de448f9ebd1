"""Reward shaping by the points so far (``env.reward_shaping = "score"``, issue 17): the
potential is the game's own scoring of the cards captured so far, the rewards of a hand still
add up to its result, and the game played is the same one."""

from __future__ import annotations

import gymnasium  # noqa: F401  (before casino_env.single)
import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from casino_env.engine import State  # noqa: E402
from casino_env.returns import points_returns  # noqa: E402
from casino_env.returns import points_so_far as score_potential  # noqa: E402
from experiments.train import env_kwargs, load_config  # noqa: E402
from experiments.train_env import TrainEnv  # noqa: E402


def spec(variant: str, piles: list, **extra) -> State:
    return State.from_spec({"variant": variant, "players": 2,
                            "hands": [["5H", "8D"], ["6H", "9D"]], "table": ["KC"],
                            "stock": ["4C", "4D"], "piles": piles, **extra})


def test_potential_counts_items_won_and_majorities_by_share():
    # C-score: AS 1 + 10D 2 against 2S 1; cards 3 v 2 of the 12 in play (undecided: 3 * 3/12
    # against 3 * 2/12); spades 1 v 1 with none left (a tie, 1/2 each).
    st = spec("casino", [["AS", "10D", "5C"], ["2S", "3H"]])
    assert score_potential(st) == pytest.approx([2.25, -2.25])
    # the other side's view is the mirror image
    assert sum(score_potential(st)) == pytest.approx(0.0)


def test_potential_counts_a_decided_majority_in_full():
    # 8 of the 15 cards in play: most cards is certain (V-earned counts it): 3 in full.
    st = spec("casino", [["5C", "6C", "7C", "8C", "9C", "JC", "QC", "3C"], []])
    # spades: none captured, none in play -> no share; cards: 3 for side 0
    assert score_potential(st) == pytest.approx([3.0, -3.0])
    # 7 of 14: the other side could still tie at 7, so it is a share: 3 * 7/14
    st = spec("casino", [["5C", "6C", "7C", "8C", "9C", "JC", "QC"], []])
    assert score_potential(st) == pytest.approx([1.5, -1.5])


def test_potential_in_krypkasino_is_negated_penalties():
    # V-kryp-score: 10D 3 each copy, AS 2 (ace and spade) against 2S 2: side 0 has 8 - 2 = 6
    # penalties more, worth -6 to it (lower is better).
    st = spec("krypkasino", [["10D", "10D", "AS"], ["2S", "3H"]])
    assert score_potential(st) == pytest.approx([-6.0, 6.0])


def test_potential_is_zero_before_any_capture():
    st = spec("casino", [[], []])
    assert score_potential(st) == [0.0, 0.0]


def env(variant: str, shaping: str | None, seed: int = 0, **kw) -> TrainEnv:
    e = TrainEnv(variant=variant, players=2, action_mode="enumerate", episode="hand",
                 reward="points", dict_obs=True, reward_scale=0.1, max_moves=64,
                 opponent="random", reward_shaping=shaping, **kw)
    e.reset(seed=seed)
    return e


def play_hand(e: TrainEnv, rng: np.random.Generator, first: dict):
    """One hand of random legal actions; the rewards, the final state, the observations."""
    rewards, observations = [], [first]
    while True:
        legal = np.flatnonzero(observations[-1]["action_mask"])
        obs, r, terminated, truncated, _ = e.step(int(rng.choice(legal)))
        rewards.append(r)
        observations.append(obs)
        if terminated or truncated:
            return rewards, e.raw.state, observations


@pytest.mark.parametrize("variant", ["casino", "royal", "dominican", "tuxedo", "spade",
                                     "swazi", "krypkasino"])
def test_shaped_rewards_of_a_hand_add_up_to_its_result(variant):
    """Potential-based shaping with gamma = 1: the hand's rewards add up to its points result
    (scaled) minus the points so far at the learner's first decision."""
    rng = np.random.default_rng(1)
    for seed in range(6):
        e = env(variant, "score", seed)
        first = e._last
        phi0 = score_potential(e.raw.state)[e.raw.rules.side(e.seat)]
        rewards, final, _ = play_hand(e, rng, first)
        side = final.rules.side(e.seat)
        result = points_returns(final.hand_points, final.rules.penalties)[side]
        assert sum(rewards) == pytest.approx(0.1 * (result - phi0), abs=1e-9)


def test_a_capture_is_rewarded_when_it_is_made():
    """In a shaped hand some reward arrives before the hand's end (the unshaped env gives 0
    until the last step), and the two envs play the very same game on the same actions."""
    shaped, plain = env("casino", "score", 3), env("casino", None, 3)
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    ra, _, obs_a = play_hand(shaped, rng_a, shaped._last)
    rb, _, obs_b = play_hand(plain, rng_b, plain._last)
    assert len(ra) == len(rb)
    for a, b in zip(obs_a, obs_b):
        assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    assert all(r == 0 for r in rb[:-1]) and any(r != 0 for r in ra[:-1])


def test_bad_shaping_settings_are_refused():
    with pytest.raises(ValueError, match="unknown reward_shaping 'cards'"):
        env("casino", "cards")
    with pytest.raises(ValueError, match="reward_shaping needs episode='hand'"):
        TrainEnv(variant="casino", episode="game", reward="points", reward_shaping="score")
    with pytest.raises(ValueError, match="reward_shaping and baseline do not combine"):
        TrainEnv(variant="casino", episode="hand", reward="points", reward_shaping="score",
                 baseline="heuristic")


def test_config_key_reaches_the_environment():
    cfg = load_config(None, {"env": {"reward_shaping": "score"}})
    assert env_kwargs(cfg)["reward_shaping"] == "score"
    assert "reward_shaping" not in env_kwargs(load_config(None, {}))


def config_diff(a: dict, b: dict) -> dict:
    return {s: {k for k in set(a[s]) | set(b[s]) if a[s].get(k) != b[s].get(k)}
            for s in a if any(a[s].get(k) != b[s].get(k) for k in set(a[s]) | set(b[s]))}


def test_the_shaped_and_annealed_configs_change_only_what_they_say():
    """experiments/configs/scratch_shaped and scratch_anneal are scratch_sums/casino.toml with
    their stated changes (and their runs' names), from scratch, so the curves compare."""
    from experiments.train import check_from_scratch, run_dir

    sums = load_config("experiments/configs/scratch_sums/casino.toml")
    shaped = load_config("experiments/configs/scratch_shaped/casino.toml")
    anneal = load_config("experiments/configs/scratch_anneal/casino.toml")
    for cfg in (shaped, anneal):
        check_from_scratch(cfg)  # the game's own scoring and a step size: allowed
    assert config_diff(sums, shaped) == {"env": {"reward_shaping"}, "ppo": {"gae_lambda"},
                                         "run": {"name"}}
    assert shaped["env"]["reward_shaping"] == "score" and shaped["ppo"]["gae_lambda"] == 0.8
    assert config_diff(sums, anneal) == {"ppo": {"timesteps", "learning_rate_final"},
                                         "run": {"name"}}
    assert anneal["ppo"]["learning_rate_final"] == 1e-5
    assert anneal["ppo"]["learning_rate"] == sums["ppo"]["learning_rate"] == 3e-4
    assert run_dir(shaped).name == "shaped_casino_s0" and run_dir(anneal).name == \
        "anneal_casino_s0"


def test_a_shaped_run_trains_and_its_model_plays(tmp_path):
    """A few PPO iterations with the shaped reward (dummy vec env): the run ends and the model
    plays a match (the shaping is a training device: the played game has no rewards)."""
    from agents import play_match
    from agents.ppo import PPOAgent
    from experiments.train import train

    cfg = load_config(None, {
        "env": {"variant": "casino", "action_mode": "enumerate", "max_moves": 32,
                "reward_shaping": "score"},
        "policy": {"hidden": 32, "pair_hidden": 16},
        "ppo": {"timesteps": 1024, "n_envs": 2, "vec": "dummy", "n_steps": 256,
                "batch_size": 256, "n_epochs": 1},
        "opponents": {"pool": {"random": 1}},
        "eval": {"every": 0, "final_hands": {"random": 4}},
        "run": {"time_limit_minutes": 5, "checkpoint_every": 0, "progress": False,
                "verbose": False},
    })
    log = train(cfg, tmp_path / "out", tmp_path / "runs")
    assert log["ppo"]["timesteps"] >= 1024
    agent = PPOAgent.load(tmp_path / "out" / "model.zip")
    res = play_match([agent, "greedy"], "casino", 2, deals=1, seed=0, mode="hand")
    assert len(res.records) == 2


def test_the_results_say_the_reward_was_shaped():
    """eval_final.md's from-scratch line names the shaping (train.scratch_text)."""
    from experiments.train import scratch_text

    log = {"ppo": {"timesteps": 10, "frames_per_second": 1.0}, "train_minutes": 1.0}
    shaped = load_config("experiments/configs/scratch_shaped/casino.toml")
    plain = load_config("experiments/configs/scratch_sums/casino.toml")
    assert "reward: hand points x 0.1 shaped by the points so far" in scratch_text(shaped, log)
    assert "reward: hand points x 0.1, observation" in scratch_text(plain, log)


def test_shaping_with_discounting_is_refused():
    """Potential-based shaping keeps every policy's ranking only with gamma = 1."""
    from experiments.train import check_shaping

    check_shaping(load_config("experiments/configs/scratch_shaped/casino.toml"))
    with pytest.raises(ValueError, match="env.reward_shaping needs ppo.gamma = 1"):
        check_shaping(load_config(None, {"env": {"reward_shaping": "score"},
                                         "ppo": {"gamma": 0.99}}))
    check_shaping(load_config(None, {"ppo": {"gamma": 0.99}}))  # no shaping: any gamma


def test_rollout_deals_zero_plays_to_the_hand_end():
    """``rollout(deals=0)`` is a rollout to the hand's end, as ``horizon=0`` is."""
    import random

    from agents.search import rollout
    from agents.valuation import static_weights
    from casino_env.engine import new_game

    st = new_game("casino", 2, seed=3)
    w = static_weights(st.rules)
    assert rollout(st, w, random.Random(0), deals=0) == rollout(st, w, random.Random(0))
    assert rollout(st, w, random.Random(0), deals=0).hand_points is not st.hand_points


def test_the_baseline_plays_the_deal_the_learner_plays_after_a_deal_again():
    """With a small max_table, reset deals again when the opponents' moves end the episode
    before the learner's first move; the baseline's reward must be simulated from the deal
    actually played (it kept the first, abandoned deal: seed 0 tries 9 deals)."""
    env = TrainEnv(variant="casino", opponent="random", baseline="heuristic", max_table=5,
                   seat=1)
    starts = []
    reset = env.raw.reset

    def recording(*a, **k):
        reset(*a, **k)
        starts.append(env.raw.state)

    env.raw.reset = recording
    env.reset(seed=0)
    assert len(starts) == 9 and env._hand_start is starts[-1]


def test_krypkasino_hints_in_training_are_the_agents_hints():
    """Two decks: a view numbers the copies it sees itself, so the environment's moves must be
    put in the view's numbering before the heuristic scores them; the hints the model trains
    on are then exactly those a ppo agent computes from its view (115 of 200 differed)."""
    from agents import HeuristicAgent
    from agents.ppo import move_hints
    from casino_env.encoding import overflow_order
    from casino_env.engine.view import PlayerView

    k, rng, checked = 24, np.random.default_rng(5), 0
    env = TrainEnv(variant="krypkasino", players=2, action_mode="enumerate", dict_obs=True,
                   max_moves=k, hints="heuristic", opponent="greedy", episode="game",
                   max_table=None)
    obs, _ = env.reset(seed=11)
    for _ in range(60):
        view = PlayerView(env.raw.state, env.seat)
        moves = view.legal_moves()
        moves = overflow_order(moves)[:k] if len(moves) > k else moves
        assert np.array_equal(move_hints(view, moves, HeuristicAgent(0), k), obs["move_hints"])
        checked += len(moves) > 1
        obs, _, t, tr, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if t or tr:
            obs, _ = env.reset(seed=int(rng.integers(1000)))
    assert checked > 30
