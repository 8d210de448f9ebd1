"""experiments.endgame_fit: the teacher (exact play on the last deal, the network elsewhere),
its labels in the collected decisions, and a resumable collect / fit / evaluate run."""

from __future__ import annotations

import argparse
import csv
import json
import random

import gymnasium  # noqa: F401  (before casino_env.single)
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.endgame import move_values, perfect_information  # noqa: E402
from casino_env.engine import apply_move, legal_moves, new_game  # noqa: E402
from casino_env.engine.view import PlayerView  # noqa: E402
from experiments import endgame_fit as ef  # noqa: E402
from experiments import exit as ex  # noqa: E402

TINY = {"env": {"max_moves": 24}, "policy": {"hidden": 32, "pair_hidden": 16},
        "expert": {"spec": "search:simulations=8"},
        "data": {"decisions": 20, "shard": 20, "workers": 1,
                 "opponents": {"greedy": 1, "self": 1}},
        "fit": {"epochs": 1, "batch_size": 16},
        "eval": {"hands": {"greedy": 2}, "guided_hands": 0, "workers": 1}}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A tiny expert-iteration network and its config file."""
    root = tmp_path_factory.mktemp("egf")
    cfg = ex.load_config(None, TINY)
    ex.run(cfg, root / "exit", 1, progress=False, log=lambda _: None)
    (root / "config.json").write_text(json.dumps(cfg))
    return root, str(root / "exit" / "it0" / "model.zip")


def _last_deal(seed: int):
    """A casino state on the last deal with a choice for the seat to move, that the solver
    values within its default node limit."""
    rng = random.Random(seed)
    st = new_game("casino", 2, seed=seed)
    while True:
        view = PlayerView(st, st.current)
        if perfect_information(view) and len(view.legal_moves()) > 1 and move_values(st):
            return st
        st = apply_move(st, rng.choice(legal_moves(st)))


def test_teacher_plays_and_scores_the_last_deal_exactly(tiny):
    _, model = tiny
    teacher = ef.EndgameTeacher(model, seed=0)
    for seed in range(4):
        st = _last_deal(seed)
        values = move_values(st)
        move = teacher.act(st)
        assert teacher.last_exact is True
        assert values[move] == max(values.values())
        assert dict(teacher.last_scores) == values


def test_teacher_falls_back_to_the_network_past_the_node_limit(tiny):
    _, model = tiny
    teacher = ef.EndgameTeacher(model, node_limit=3, seed=0)
    st = _last_deal(0)
    view = PlayerView(st, st.current)
    moves = view.legal_moves()
    assert teacher.act(st) == moves[int(np.argmax(teacher.net.move_logits(view, moves)))]
    assert teacher.last_exact is False


def test_teacher_follows_the_network_before_the_last_deal(tiny):
    _, model = tiny
    teacher = ef.EndgameTeacher(model, seed=0)
    st = new_game("casino", 2, seed=3)
    view = PlayerView(st, st.current)
    moves = view.legal_moves()
    logits = teacher.net.move_logits(view, moves)
    assert teacher.act(st) == moves[int(np.argmax(logits))]
    assert teacher.last_exact is False and teacher.temperature == 0.5
    assert [s for _, s in teacher.last_scores] == pytest.approx(list(logits * 0.5))


def test_a_run_labels_fits_evaluates_and_resumes(tiny, tmp_path):
    root, model = tiny
    a = argparse.Namespace(base=model, config=str(root / "config.json"), run=str(tmp_path / "r"),
                           out=str(tmp_path / "o"), decisions=80, exact_weight=3.0, epochs=1,
                           learning_rate=3e-4, hands=4, loss_hands=2, seed=1, eval_seed=5,
                           workers=1, quiet=True)
    rows = ef.run(a)
    assert [r["arm"] for r in rows] == ["base", "d0k_w3_e1_lr0.0003"]
    from experiments import bc

    demos = bc.load_demos(str(tmp_path / "r" / "demos.npz"))
    assert len(demos) == 80 and demos.exact.any() and not demos.exact.all()
    for i in np.flatnonzero(demos.exact):  # exact labels: every move valued, the best chosen
        s = demos.scores[demos.start[i]:demos.start[i] + demos.n[i]]
        assert np.isfinite(s).all() and s[demos.action[i]] == s.max()
    for r in rows:
        assert int(r["hands"]) == 4 and 0 <= float(r["win_rate"]) <= 1
        assert float(r["endgame_lost_per_hand"]) >= 0 and int(r["endgame_hands"]) == 2
    meta = json.loads((tmp_path / "r" / "d0k_w3_e1_lr0.0003" / "model.json").read_text())
    assert "exact play on the last deal" in meta["trained_by"]
    ef.run(a)  # a rerun finds every stage done
    with (tmp_path / "o" / "arms.csv").open() as f:
        assert [r["arm"] for r in csv.DictReader(f)] == ["base", "d0k_w3_e1_lr0.0003"]
    assert "d0k_w3_e1_lr0.0003" in (tmp_path / "o" / "summary.md").read_text()


def test_decisions_of_another_base_or_seed_are_not_reused(tmp_path, monkeypatch):
    """RUN/demos.npz is of one --base, --config, --decisions and --seed (RUN/collect.json):
    a run with others is refused, naming them, instead of fitting on those decisions; demos
    made before the record are taken as of the settings given."""
    from experiments import bc

    class Loaded(Exception):
        pass

    def load(path):
        raise Loaded(path)

    monkeypatch.setattr(bc, "load_demos", load)
    (tmp_path / "config.json").write_text("{}")
    run = tmp_path / "r"
    run.mkdir()
    (run / "demos.npz").write_bytes(b"")
    a = argparse.Namespace(base="a.zip", config=str(tmp_path / "config.json"), run=str(run),
                           out=str(tmp_path / "o"), decisions=80, seed=1)
    with pytest.raises(Loaded):
        ef.run(a)
    assert json.loads((run / "collect.json").read_text())["seed"] == 1
    with pytest.raises(SystemExit, match="base: 'a.zip' there, 'b.zip' now; seed: 1 there, 2"):
        ef.run(argparse.Namespace(**{**vars(a), "base": "b.zip", "seed": 2}))
