"""Behaviour cloning from a search teacher's scores: the search agent reports the scores it
chose by, collection lays them out by action slot, the soft targets are softmax(score / T)
exactly, demonstrations survive a save/load round trip, and a run fitted to the scores
completes and plays."""

from __future__ import annotations

import math

import gymnasium  # noqa: F401  (before casino_env.single)
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("torch")

from bc_helpers import bc_config  # noqa: E402

from agents import make_agent, play_match  # noqa: E402
from agents.search import SearchAgent  # noqa: E402
from casino_env.engine import apply_move, new_game  # noqa: E402
from casino_env.engine.view import PlayerView  # noqa: E402
from experiments import bc  # noqa: E402
from experiments.train import env_kwargs, train  # noqa: E402


def _config(**bc_over) -> dict:
    return bc_config(**{"teacher": "search:simulations=16", "decisions": 120, "epochs": 2,
                        **bc_over})


def test_search_reports_the_scores_it_chose_by():
    """``last_scores``: every searched move is legal, at most ``max_candidates`` of them, and
    the chosen move among them with the highest score; a forced move scores 0 alone."""
    agent = SearchAgent(seed=3, simulations=40, max_candidates=5)
    st = new_game("casino", 2, seed=11)
    checked = 0
    while not st.game_over and checked < 30:
        view = PlayerView(st, st.current)
        legal = view.legal_moves()
        move = agent.choose(view)
        moves = [m for m, _ in agent.last_scores]
        assert move in moves and all(m in legal for m in moves)
        assert len(moves) <= 5 and len(set(moves)) == len(moves)
        if len(legal) == 1:
            assert agent.last_scores == [(move, 0.0)]
        else:
            assert all(math.isfinite(s) for _, s in agent.last_scores)
            # the chosen move scores highest, even against a move dropped early on a mean of
            # fewer deals (scores are capped down the search's ranking)
            chosen = next(s for m, s in agent.last_scores if m == move)
            assert chosen == max(s for _, s in agent.last_scores)
        st = apply_move(st, move)
        checked += 1


def test_score_targets_are_the_softmax_of_the_scores():
    """Known answer: scores (1, 0, unscored) at T = 1 give (e/(e+1), 1/(e+1), 0); at T = 0.5
    the first move's share grows to e^2/(e^2+1)."""
    demos = bc.Demos(obs=np.zeros((2, 1), np.float16), action=np.array([0, 1]),
                     ret=np.zeros(2, np.float32), n=np.array([3, 2]),
                     start=np.array([0, 3]), rows=np.zeros((5, 1), np.uint8),
                     scores=np.array([1.0, 0.0, -np.inf, 2.0, 2.0], np.float32))
    t = bc._score_targets(demos, np.array([0, 1]), 4, 1.0).numpy()
    e = math.e
    np.testing.assert_allclose(t[0], [e / (e + 1), 1 / (e + 1), 0, 0], rtol=1e-6)
    np.testing.assert_allclose(t[1], [0.5, 0.5, 0, 0], rtol=1e-6)
    t = bc._score_targets(demos, np.array([0]), 3, 0.5).numpy()
    np.testing.assert_allclose(t[0, 0], e ** 2 / (e ** 2 + 1), rtol=1e-6)


def test_collected_scores_follow_the_action_slots(tmp_path):
    """Each decision's scores: finite at the teacher's own action, -inf for moves it did not
    search; a save/load round trip keeps every array."""
    cfg = _config()
    demos = bc.collect(env_kwargs(cfg, ["greedy"]), "search:simulations=16", 60, explore=0.0,
                       seed=5, workers=1, progress=False)
    assert demos.scores is not None and demos.scores.shape == (int(demos.n.sum()),)
    for i in range(len(demos)):
        s = demos.scores[demos.start[i]:demos.start[i] + demos.n[i]]
        assert math.isfinite(s[demos.action[i]])
        assert np.isfinite(s).sum() <= 8  # the search's max_candidates
    path = tmp_path / "demos.npz"
    bc.save_demos(demos, str(path))
    back = bc.load_demos(str(path))
    for k, v in vars(demos).items():
        if v is None:
            assert getattr(back, k) is None
        else:
            np.testing.assert_array_equal(getattr(back, k), v)


def test_score_temperature_needs_scores_and_excludes_the_heuristic_temperature():
    demos = bc.Demos(obs=np.zeros((1, 1), np.float16), action=np.array([0]),
                     ret=np.zeros(1, np.float32), n=np.array([1]), start=np.array([0]),
                     rows=np.zeros((1, 1), np.uint8))
    with pytest.raises(ValueError, match="score_temperature needs demonstrations"):
        bc.pretrain(None, demos, score_temperature=1.0, progress=False)
    with pytest.raises(ValueError, match="not both"):
        bc.pretrain(None, demos, temperature=0.3, score_temperature=1.0, progress=False)


def test_run_fitted_to_search_scores_saves_reuses_and_plays(tmp_path):
    """A run with ``score_temperature`` saves its demonstrations; a second run loads them
    (no collection) and fits the same data to the same held-out accuracy; the model plays."""
    demos_path = tmp_path / "d.npz"
    cfg = _config(score_temperature=1.0, save_demos=str(demos_path))
    log = train(cfg, tmp_path / "a", tmp_path / "runs_a")
    assert demos_path.exists() and log["bc"]["decisions"] == 120
    cfg2 = _config(score_temperature=1.0, load_demos=str(demos_path))
    log2 = train(cfg2, tmp_path / "b", tmp_path / "runs_b")
    assert log2["bc"]["decisions"] == 120
    assert log2["bc"]["holdout_accuracy"] == log["bc"]["holdout_accuracy"]
    res = play_match([make_agent(f"ppo:{tmp_path / 'b' / 'model.zip'}", seed=0), "random"],
                     "casino", 2, deals=2, seed=0, mode="hand")
    assert len(res.records) == 4
