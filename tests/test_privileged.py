"""The privileged critic (``env.privileged``): during training the move-scoring policy's value
network also reads what the learner cannot see (the other hands, the stock's order), to learn
a hand's value from the whole deal; the actor never reads it, and a trained policy plays
without it (issue 17: a training device, no scripted agent's knowledge)."""

from __future__ import annotations

import gymnasium  # noqa: F401  (before casino_env.single)
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from agents import play_match  # noqa: E402
from agents.ppo import PPOAgent  # noqa: E402
from casino_env.engine import State, new_game  # noqa: E402
from experiments.train import (  # noqa: E402
    build_model,
    check_privileged,
    env_kwargs,
    load_config,
    train,
)
from experiments.train_env import (  # noqa: E402
    TrainEnv,
    make_train_vec_env,
    privileged_features,
    privileged_size,
)


def config(**env) -> dict:
    return load_config(None, {
        "env": {"variant": "casino", "action_mode": "enumerate", "max_moves": 32,
                "privileged": True, **env},
        "policy": {"hidden": 32, "pair_hidden": 16},
        "ppo": {"timesteps": 1024, "n_envs": 2, "vec": "dummy", "n_steps": 256,
                "batch_size": 256, "n_epochs": 1},
        "opponents": {"pool": {"random": 1, "self": 1}, "snapshot_every": 512},
        "eval": {"every": 0, "final_hands": {"random": 4}},
        "run": {"time_limit_minutes": 5, "checkpoint_every": 0, "progress": False,
                "verbose": False},
    })


def test_features_are_the_other_hands_and_the_stock_order():
    st = new_game("casino", 2, seed=4)
    f = privileged_features(st, 0)
    assert f.shape == (privileged_size(st.rules),) == (104,)
    other = {c for c in range(52) if st.hand_masks[1] >> c & 1}
    assert set(np.flatnonzero(f[:52])) == other and set(f[:52][list(other)]) == {1.0}
    stock = st.stock_ids
    assert len(stock) == 40
    assert f[52 + stock[0]] == 1.0 and f[52 + stock[-1]] == pytest.approx(1 - 39 / 40)
    assert np.count_nonzero(f[52:]) == 40  # the 4 table cards and our own hand: 0
    assert (f[:52] * f[52:]).sum() == 0  # no card in two places
    # seat 1's view: seat 0's hand
    g = privileged_features(st, 1)
    assert set(np.flatnonzero(g[:52])) == {c for c in range(52) if st.hand_masks[0] >> c & 1}


def test_two_decks_and_three_players():
    st = new_game("krypkasino", 3, seed=2)
    f = privileged_features(st, 1)
    assert f.shape == (156,)
    for i, seat in enumerate((2, 0)):  # the other seats, in seat order after 1
        plane = f[52 * i:52 * (i + 1)]
        counts = np.zeros(52)
        for c in range(104):
            if st.hand_masks[seat] >> c & 1:
                counts[c // 2] += 0.5
        assert np.array_equal(plane, counts)
    assert f[104 + st.stock_ids[0] // 2] == 1.0


def test_the_actor_never_reads_it_and_the_critic_does():
    cfg = config()
    venv = make_train_vec_env(env_kwargs(cfg), 1, 0)
    try:
        model = build_model(cfg, venv, None, seed=0)
        obs = venv.reset()
        assert "privileged" in obs
        policy = model.policy
        t = {k: torch.as_tensor(v) for k, v in obs.items()}
        noise = dict(t, privileged=torch.rand_like(t["privileged"]))
        with torch.no_grad():
            a = policy.get_distribution(t).distribution.logits
            b = policy.get_distribution(noise).distribution.logits
            assert torch.equal(a, b)
            assert not torch.equal(policy.predict_values(t), policy.predict_values(noise))
    finally:
        venv.close()


def test_a_privileged_run_trains_and_its_policy_plays_without_hidden_cards(tmp_path):
    cfg = config()
    log = train(cfg, tmp_path / "out", tmp_path / "runs")
    assert log["ppo"]["timesteps"] >= 1024
    agent = PPOAgent.load(tmp_path / "out" / "model.zip")
    assert "privileged" in agent.obs_keys
    res = play_match([agent, "greedy"], "casino", 2, deals=1, seed=0, mode="hand")
    assert len(res.records) == 2


def test_privileged_is_refused_where_it_cannot_work():
    with pytest.raises(ValueError, match="enumerate"):
        check_privileged(config(action_mode="compose"))
    cfg = config()
    cfg["bc"]["decisions"] = 100
    with pytest.raises(ValueError, match="bc.decisions = 0"):
        check_privileged(cfg)
    with pytest.raises(ValueError, match="dict_obs"):
        TrainEnv(variant="casino", action_mode="enumerate", privileged=True)


def test_the_from_scratch_critic_config_adds_only_the_privileged_critic():
    from experiments.train import check_from_scratch

    critic = load_config("experiments/configs/scratch_critic/casino.toml")
    sums = load_config("experiments/configs/scratch_sums/casino.toml")
    check_from_scratch(critic)
    check_privileged(critic)
    for section in sums:
        diff = {k for k in sums[section] if sums[section][k] != critic[section].get(k)}
        assert diff == {"env": {"privileged"}, "run": {"name"}}.get(section, set()), section


def test_state_is_unchanged_by_computing_features():
    st = new_game("casino", 2, seed=9)
    spec = st.to_spec()
    privileged_features(st, 0)
    assert State.from_spec(spec) == st
