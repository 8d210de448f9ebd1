"""Expert iteration (issue 18): the network's move logits, search guided by them, and the
resumable collect / fit / evaluate loop of ``experiments.exit``, on tiny settings."""

from __future__ import annotations

import json
import random

import gymnasium  # noqa: F401  (before casino_env.single)
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("torch")

from agents import make_agent  # noqa: E402
from agents.ppo import PPOAgent  # noqa: E402
from agents.search import SearchAgent  # noqa: E402
from casino_env.engine import apply_move, legal_moves, new_game  # noqa: E402
from casino_env.engine.view import PlayerView  # noqa: E402
from experiments import bc  # noqa: E402
from experiments import exit as ex  # noqa: E402

TINY = {"env": {"max_moves": 24},
        "policy": {"hidden": 32, "pair_hidden": 16},
        "expert": {"spec": "search:simulations=12"},
        "data": {"decisions": 30, "shard": 15, "workers": 1,
                 "opponents": {"greedy": 1, "self": 1}},
        "fit": {"epochs": 2, "batch_size": 16},
        "eval": {"hands": {"greedy": 4}, "guided_hands": 2,
                 "guided_against": "search:simulations=12", "workers": 1}}


@pytest.fixture(scope="module")
def run2(tmp_path_factory):
    """Two iterations of the loop on tiny settings: (config, run folder, progress)."""
    out = tmp_path_factory.mktemp("exit")
    cfg = ex.load_config(None, TINY)
    prog = ex.run(cfg, out, 2, progress=False, log=lambda _: None)
    return cfg, out, prog


def views(n: int, seed: int = 3, variant: str = "casino"):
    """``n`` views of the player to move along a random game (decisions with a choice)."""
    rng = random.Random(seed)
    st = new_game(variant, seed=seed)
    out = []
    while len(out) < n and not st.game_over:
        moves = legal_moves(st)
        if len(moves) > 1:
            out.append(PlayerView(st, st.current))
        st = apply_move(st, rng.choice(moves))
    return out


def test_move_logits_rank_the_moves_as_the_agent_chooses(run2):
    _, out, _ = run2
    agent = PPOAgent.load(out / "it0" / "model.zip")
    for view in views(12):
        moves = view.legal_moves()
        z = agent.move_logits(view, moves)
        assert z.shape == (len(moves),)
        assert moves[int(np.argmax(z))] == agent.choose(view)


def test_the_lean_logits_are_the_masked_distributions_bit_for_bit(run2):
    """Search reads the move scorer's logits without SB3's three distributions (a third of
    the guide's cost): they must be the very floats ``get_distribution`` gives."""
    import torch

    _, out, _ = run2
    agent = PPOAgent.load(out / "it0" / "model.zip")
    assert agent._lean
    for view in views(30, seed=8):
        moves = view.legal_moves()[:agent.max_moves]
        obs, mask = agent._enumerate_obs(view, moves)
        lean = agent.logits(obs, mask)
        with torch.no_grad():
            obs_t = {k: torch.as_tensor(obs[k]).unsqueeze(0) for k in agent.obs_keys if k in obs}
            dist = agent.policy.get_distribution(obs_t, action_masks=mask[None].astype(bool))
            full = dist.distribution.logits[0].numpy()
        assert lean.dtype == full.dtype and np.array_equal(lean, full)
        assert (lean[len(moves):] < -1e7).all()  # the empty slots are masked


def test_move_logits_beyond_k_are_minus_infinity(run2):
    _, out, _ = run2
    agent = PPOAgent.load(out / "it0" / "model.zip")  # K = 24
    # random play piles the table up: this game reaches decisions with up to 298 moves
    view = next(v for v in views(200, seed=54) if len(v.legal_moves()) > 40)
    moves = view.legal_moves()
    z = agent.move_logits(view, moves)
    assert int(np.isfinite(z).sum()) == 24
    from casino_env.encoding import overflow_order

    kept = overflow_order(moves)[:24]
    ids = {id(m) for m in kept}
    assert all(np.isfinite(z[i]) == (id(m) in ids) for i, m in enumerate(moves))
    best = moves[int(np.argmax(z))]
    assert best == agent.choose(view)  # the agent picks among the same K moves
    # guided search never considers a move the network does not see, whatever its budget
    wide = SearchAgent(seed=0, simulations=48, max_candidates=100, prior=0.0,
                       guide=str(out / "it0" / "model.zip"))
    assert wide.choose(view) in kept and len(wide.last_scores) == 24


def test_guided_search_takes_its_candidates_from_the_network(run2):
    _, out, _ = run2
    path = out / "it0" / "model.zip"
    net = PPOAgent.load(path)
    one = make_agent(f"search:guide={path},max_candidates=1,simulations=8", seed=0)
    assert one.guide.temperature == 0.5  # the model's score_temperature (side-car)
    for view in views(10, seed=5):
        assert one.choose(view) == net.choose(view)  # the network's best is the only candidate
    guided = SearchAgent(seed=1, simulations=16, guide=str(path), guide_temperature=2.0)
    assert guided.guide.temperature == 2.0
    for view in views(6, seed=7):
        move = guided.choose(view)
        assert move in view.legal_moves()
        prior = guided.guide.prior(view, view.legal_moves())
        assert max(prior) == 0.0 and all(p <= 0.0 for p in prior)


def test_guide_options_are_checked(run2, tmp_path):
    _, out, _ = run2
    with pytest.raises(ValueError, match="nowhere.zip"):
        SearchAgent(guide=str(tmp_path / "nowhere.zip"))
    with pytest.raises(ValueError, match="guide_temperature"):
        SearchAgent(guide=str(out / "it0" / "model.zip"), guide_temperature=-1.0)
    with pytest.raises(ValueError, match="guide must be the path"):
        SearchAgent(guide=3)
    guided = SearchAgent(guide=str(out / "it0" / "model.zip"))
    royal = views(1, variant="royal")[0]
    with pytest.raises(ValueError, match="trained on"):
        guided.choose(royal)  # a casino network cannot guide royal


def test_iterations_record_the_expert_scores_and_chain_the_guide(run2):
    cfg, out, prog = run2
    assert [it["done"] for it in prog["iterations"]] == [list(ex.STAGES)] * 2
    assert sorted(p.name for p in (out / "data").iterdir()) == \
        ["it0_s0.npz", "it0_s1.npz", "it1_s0.npz", "it1_s1.npz"]
    assert ex.expert_spec(cfg, out, 0) == "search:simulations=12"
    assert ex.expert_spec(cfg, out, 1) == \
        f"search:simulations=12,guide={out / 'it0' / 'model.zip'}"
    demos = bc.load_demos(str(out / "data" / "it1_s0.npz"))
    assert len(demos) == 15 and demos.scores is not None
    # the expert's choice is the best-scored move of every decision with scored choices
    for i in range(len(demos)):
        s = demos.scores[demos.start[i]:demos.start[i] + demos.n[i]]
        if np.isfinite(s).sum() > 1 and len(set(s[np.isfinite(s)])) > 1:
            assert s[demos.action[i]] == s[np.isfinite(s)].max()
    side = json.loads((out / "it1" / "model.json").read_text())
    assert side["score_temperature"] == 0.5 and "iterations 0..1" in side["trained_by"]
    assert prog["iterations"][1]["fit"]["decisions"] == 60  # window 2: both iterations
    rows = ex.curve_rows(prog)
    assert [(r["iteration"], r["group"]) for r in rows] == [
        (0, "network v greedy"), (0, "guided search v search:simulations=12"),
        (1, "network v greedy"), (1, "guided search v search:simulations=12")]
    assert [r["timesteps"] for r in rows] == [30, 30, 60, 60]
    assert (out / "curve.csv").exists() and (out / "model.zip").exists()


def test_rerun_resumes_and_an_interrupted_collect_fills_only_missing_shards(run2, tmp_path):
    cfg, out, _ = run2
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(out, copy)
    before = (copy / "data" / "it1_s0.npz").read_bytes()
    prog = ex.run(cfg, copy, 2, progress=False, log=lambda _: None)  # all done: nothing new
    assert prog["iterations"][1]["collected"] == 30
    # interrupted in iteration 1's collect stage with one shard written: progress.json is
    # saved when a stage ends, so it knows iteration 0 only
    (copy / "data" / "it1_s1.npz").unlink()
    p = json.loads((copy / "progress.json").read_text())
    p["iterations"] = p["iterations"][:1]
    (copy / "progress.json").write_text(json.dumps(p))
    prog = ex.run(cfg, copy, 2, progress=False, log=lambda _: None)
    assert prog["iterations"][1]["collected"] == 30  # the shard on disk + the missing one
    assert (copy / "data" / "it1_s0.npz").read_bytes() == before  # kept, not redone
    again = bc.load_demos(str(copy / "data" / "it1_s1.npz"))
    first = bc.load_demos(str(out / "data" / "it1_s1.npz"))
    assert np.array_equal(again.obs, first.obs) and np.array_equal(again.scores, first.scores)


def test_bad_configs_are_refused(run2, tmp_path):
    cfg, out, _ = run2
    with pytest.raises(ValueError, match="unknown setting 'data.decision'"):
        ex.load_config(None, {"data": {"decision": 5}})
    with pytest.raises(ValueError, match="data.shard"):
        ex.load_config(None, {"data": {"shard": 0}})
    with pytest.raises(ValueError, match="score_temperature"):
        ex.load_config(None, {"fit": {"score_temperature": 0}})
    other = ex.load_config(None, {**TINY, "fit": {"epochs": 3, "batch_size": 16}})
    with pytest.raises(ValueError, match="other settings"):
        ex.run(other, out, 2, progress=False)
    reseeded = ex.load_config(None, {**TINY, "run": {"seed": 1}})
    with pytest.raises(ValueError, match="other settings"):  # another seed's data and models
        ex.run(reseeded, out, 2, progress=False)
    assert ex.main(["--config", str(tmp_path / "missing.toml")]) == 2


def test_shipped_exit_configs_load():
    from pathlib import Path

    for path in sorted(Path("experiments/configs/exit").glob("*.toml")):
        cfg = ex.load_config(path)
        assert cfg["env"]["variant"] == path.stem
        assert cfg["fit"]["score_temperature"] > 0


def test_evaluation_split_over_processes_keeps_every_deal_a_unit():
    """8 hands on 2 processes: 4 deals (2 per process, renumbered apart), each played from
    both seats; greedy beats random on most of them."""
    cfg = ex.load_config(None)
    r = ex.duplicate_match("greedy", "random", cfg, 8, 0, 2)
    assert r["hands"] == 8
    assert 0.0 <= r["lo"] <= r["win_rate"] <= r["hi"] <= 1.0
    assert r["lo"] < r["hi"]  # four deal units: a real interval, not a single one


def test_two_deck_action_features_survive_collection():
    """Krypkasino's card planes hold copies / 2 (0.5 for one copy): the recorded rows keep
    them (an integer type would round every single copy to 0)."""
    kw = {"variant": "krypkasino", "players": 2, "action_mode": "enumerate", "max_moves": 32,
          "dict_obs": True, "opponent": "greedy"}
    demos = bc.collect(kw, "greedy", 20, explore=0.0, seed=0, progress=False)
    played = demos.rows[:, :52].astype(np.float32)
    assert played.sum(1).min() > 0  # every move plays a card
    assert set(np.unique(played)) <= {0.0, 0.5, 1.0} and 0.5 in played


def test_fit_weights_decide_between_conflicting_labels(run2):
    """``bc.pretrain(weights=...)``: one decision copied 40 times, half labelled with one
    move and half with another; the weighted half's move wins the fit, whichever it is.
    Weights of the wrong length or below zero are refused."""
    import torch

    cfg, out, _ = run2
    demos = bc.load_demos(str(ex.shards(out, 0)[0]))
    i = int(np.flatnonzero(demos.n >= 2)[0])
    a, n = int(demos.start[i]), int(demos.n[i])
    copies = 40
    label = np.array([0, 1] * (copies // 2))
    one = bc.Demos(obs=np.repeat(demos.obs[i:i + 1], copies, 0), action=label,
                   ret=np.zeros(copies, np.float32), n=np.full(copies, n),
                   start=np.arange(copies) * n, rows=np.tile(demos.rows[a:a + n], (copies, 1)),
                   hints=np.tile(demos.hints[a:a + n], (copies, 1)))
    for favoured in (0, 1):
        model = ex.new_model(cfg, seed=3)
        w = np.where(label == favoured, 1.0, 0.0)
        bc.pretrain(model.policy, one, epochs=30, batch_size=16, learning_rate=3e-3,
                    seed=0, progress=False, weights=w)
        obs, act, mask, _ = bc._batch(one, np.array([0]), model.policy.action_space.n, True)
        with torch.no_grad():
            logits = model.policy.get_distribution(obs, action_masks=mask).distribution.logits
        assert int(logits.argmax()) == favoured
    for bad in (np.ones(copies - 1), -np.ones(copies)):
        with pytest.raises(ValueError, match="weights must be 40 non-negative"):
            bc.pretrain(ex.new_model(cfg, seed=3).policy, one, progress=False, weights=bad)
