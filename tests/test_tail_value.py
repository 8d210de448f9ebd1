"""agents.tail_value (a learned value of deal boundaries), fastsim's ``tail`` hook, the search
agent's ``tail`` option and experiments.tail_value (collect, fit, regret)."""

from __future__ import annotations

import csv
import json
import random

import numpy as np
import pytest

from agents import SearchAgent, make_agent
from agents.fastsim import simulate
from agents.tail_value import (
    CARD_ROWS,
    EXTRAS,
    MINE,
    TABLE,
    THEIRS,
    UNSEEN,
    TailValue,
    boundary_inputs,
    save_tail,
    tail_supported,
)
from casino_env.engine import State, new_game
from casino_env.engine.cards import bit_list
from casino_env.engine.view import PlayerView
from experiments import tail_value as tv_exp

DECK = new_game("casino", 2, seed=0).rules.deck


def card(text: str) -> int:
    return DECK.parse(text)


def linear_tail(path, variant: str = "casino", mine: float = 1.0, theirs: float = -1.0,
                bias: float = 0.0, sweep: float = 0.0):
    """A one-layer network: ``mine`` a card in my pile, ``theirs`` a card in theirs, ``sweep``
    per my sweep (its input is sweeps / 4), plus ``bias``."""
    w = np.zeros((1, CARD_ROWS + EXTRAS), np.float32)
    w[0, MINE * 52:(MINE + 1) * 52] = mine
    w[0, THEIRS * 52:(THEIRS + 1) * 52] = theirs
    w[0, CARD_ROWS] = 4 * sweep
    save_tail(path, [(w, np.array([bias], np.float32))], {"variant": variant, "scale": 1.0})
    return TailValue(path)


def test_boundary_inputs_place_every_card_and_flip_with_the_side():
    loose = DECK.mask(["5H", "KC"])
    p0 = DECK.mask(["AS", "10D", "2S"])
    p1 = DECK.mask(["3H"])
    masks = np.array([[loose, p0, p1]] * 2, np.uint64)
    other = np.array([[2, 1, 1, 0]] * 2, np.float32)  # sweeps 2 / 1, side 1 last, 0 leads
    x = boundary_inputs(masks, other, np.array([0, 1]))
    assert x.shape == (2, CARD_ROWS + EXTRAS)
    planes = x[:, :CARD_ROWS].reshape(2, 4, 52)
    assert (planes.sum(axis=1) == 1).all()  # each card in exactly one place
    assert sorted(np.flatnonzero(planes[0, TABLE])) == sorted([card("5H"), card("KC")])
    assert sorted(np.flatnonzero(planes[0, MINE])) == sorted(bit_list(p0))
    assert np.flatnonzero(planes[0, THEIRS]).tolist() == [card("3H")]
    assert planes[0, UNSEEN].sum() == 52 - 6
    # side 1's view swaps the piles and every side-relative extra
    assert (planes[1, MINE] == planes[0, THEIRS]).all()
    assert (planes[1, THEIRS] == planes[0, MINE]).all()
    assert x[0, CARD_ROWS:].tolist() == [0.5, 0.25, 0.0, 1.0, 1.0]
    assert x[1, CARD_ROWS:].tolist() == [0.25, 0.5, 1.0, 0.0, 0.0]


def test_a_saved_network_gives_its_exact_values(tmp_path):
    tv = linear_tail(tmp_path / "t.npz", bias=0.5, sweep=2.0)
    piles = (DECK.mask(["AS", "10D", "2S"]), DECK.mask(["3H"]))
    # side 0: 3 cards mine, 1 theirs, one sweep: 3 - 1 + 2 + 0.5
    assert tv.value(0, piles, (1, 0), None, 0, 0) == pytest.approx(4.5)
    assert tv.value(0, piles, (1, 0), None, 0, 1) == pytest.approx(1 - 3 + 0.5)
    recs = [(0, piles[0], piles[1], 1, 0, -1, 0)] * 3
    assert tv.batch(recs, 0).tolist() == pytest.approx([4.5] * 3)
    assert tv.meta["variant"] == "casino" and tv.meta["layers"] == 1


def test_bad_files_and_other_rules_are_refused(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        TailValue(tmp_path / "missing.npz")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a network")
    with pytest.raises(ValueError, match="not a boundary value network"):
        TailValue(bad)
    tv = linear_tail(tmp_path / "royal.npz", variant="royal")
    with pytest.raises(ValueError, match="fitted on royal"):
        tv.check(new_game("casino", 2, seed=0).rules)
    assert tail_supported(new_game("casino", 2, seed=0).rules)
    assert not tail_supported(new_game("casino", 3, seed=0).rules)
    assert not tail_supported(new_game("krypkasino", 2, seed=0).rules)
    # wins earned during a hand, pile order, and points scored as events during play
    # (tuxedo's oranges and sized sweeps, which the inputs do not hold) are not
    for variant in ("hungarian", "finnish", "swazi", "tuxedo"):
        assert not tail_supported(new_game(variant, 2, seed=0).rules)


def _mid_round(seed: int) -> State:
    """A casino position in the hand's first round, after one move (cards left to deal)."""
    st = new_game("casino", 2, seed=seed)
    from casino_env.engine.moves import generate
    from casino_env.engine.play import play

    return play(st, generate(st)[0])


@pytest.mark.parametrize("seed", range(6))
def test_fastsim_tail_stops_at_the_first_boundary(seed):
    st = _mid_round(seed)
    seen = []

    def tail(loose, piles, sweeps, last_side, leader_side):
        seen.append((loose, tuple(piles), tuple(sweeps), last_side, leader_side))
        return 7.25

    assert simulate(st, 0, 0.0, None, "builder", tail) == 7.25
    assert len(seen) == 1
    loose, piles, sweeps, last_side, leader_side = seen[0]
    # stopped before the deal: the unseen cards are exactly this state's stock
    stock = sum(1 << c for c in st.stock_ids)
    assert ((1 << 52) - 1) & ~(loose | piles[0] | piles[1]) == stock
    assert piles[0] & st.pile_masks[0] == st.pile_masks[0]
    assert leader_side == (st.dealer + 1) % 2
    # no boundary left on the last deal: the tail is never called, the result is the rollout's
    last = st._copy()
    last.stock_ids = ()
    assert simulate(last, 0, 0.0, None, "builder", tail) == simulate(last, 0, 0.0, None,
                                                                         "builder")
    assert len(seen) == 1


def test_search_tail_option_is_checked(tmp_path):
    path = str(tmp_path / "t.npz")
    linear_tail(path)
    with pytest.raises(ValueError, match="tail must be the path"):
        SearchAgent(tail="")
    with pytest.raises(ValueError, match="hand_bonus"):
        SearchAgent(tail=path, hand_bonus=1.0)
    with pytest.raises(ValueError, match="fast=True and epsilon=0"):
        SearchAgent(tail=path, fast=False)
    with pytest.raises(ValueError, match="fast=True and epsilon=0"):
        make_agent(f"search:tail={path},epsilon=0.1")
    with pytest.raises(ValueError, match="no such file"):
        make_agent("search:tail=/nonexistent.npz")
    royal = str(tmp_path / "royal.npz")
    linear_tail(royal, variant="royal")
    st = _mid_round(0)
    with pytest.raises(ValueError, match="fitted on royal"):
        SearchAgent(seed=0, tail=royal).choose(PlayerView(st, st.current))


def test_search_follows_the_tail_value(tmp_path):
    """A capture of two cards, or a trail, before a boundary (C-capture, C-trail): the search
    plays the capture with a value that counts pile cards and the trail with one that counts
    them against itself -- the tail decides, from the searching side's view."""
    spec = {"variant": "casino", "players": 2, "dealer": 1, "current": 0,
            "hands": [["5H", "KC"], ["9D", "JS"]], "table": ["5D", "8C"],
            "stock": ["2H", "3H", "4H", "6H", "7H", "9H", "10H", "JH"],
            "piles": [[], []]}
    st = State.from_spec(spec)
    view = PlayerView(st, 0)
    good = linear_tail(tmp_path / "good.npz", mine=1.0, theirs=-1.0)
    bad = linear_tail(tmp_path / "bad.npz", mine=-1.0, theirs=1.0)
    for path, kind in ((good.path, "capture"), (bad.path, "trail")):
        a = SearchAgent(seed=0, tail=path, prior=0.0, simulations=40)
        assert a.choose(view).kind == kind
        # the same seed, the same choice and scores (determinism)
        b = SearchAgent(seed=0, tail=path, prior=0.0, simulations=40)
        b.choose(view)
        assert a.last_scores == b.last_scores


def test_label_is_the_mean_over_fresh_deals_of_the_unseen_cards():
    rng = random.Random(3)
    st = next(tv_exp.boundaries("casino", 4, rng))
    assert len(st.stock_ids) == 52 - 4 - 16  # the second round just dealt
    m1, s1 = tv_exp.label(st, 8, random.Random(5))
    m2, s2 = tv_exp.label(st, 8, random.Random(5))
    assert (m1, s1) == (m2, s2)
    # a label of one rollout is that rollout's result on the shuffled deal
    m, s = tv_exp.label(st, 1, random.Random(9))
    assert s == 0.0 and m == int(m)


def test_tuxedo_labels_are_the_fast_simulators_rollouts_with_its_events(monkeypatch):
    """The fast simulator scores tuxedo (oranges, sweeps of 10 or 5, as the engine's events;
    thirty-ninth session: before it every tuxedo rollout went to the engine): a tuxedo label
    is its rollout's hand result, never the engine's fallback, as a casino label is."""
    from agents import fastsim, search

    seen = []

    def spy(det, st, side, w, seed, *a, **kw):
        seen.append((det, seed))
        return search.determinization_value(det, st, side, w, seed, *a, **kw)

    monkeypatch.setattr(tv_exp, "determinization_value", spy)
    refuse = lambda s: pytest.fail("a rollout left the fast simulator")  # noqa: E731
    st = next(tv_exp.boundaries("tuxedo", 4, random.Random(3)))
    assert len(st.stock_ids) == 40 - 4 - 16  # the second round just dealt
    m, s = tv_exp.label(st, 1, random.Random(9))
    (det, seed), = seen
    assert s == 0.0
    assert m == fastsim.simulate(det, 0, 0.0, refuse, "builder") and m % 5 == 0  # by fives
    casino = next(tv_exp.boundaries("casino", 4, random.Random(3)))
    m, _ = tv_exp.label(casino, 1, random.Random(9))
    det, seed = seen[-1]
    assert m == fastsim.simulate(det, 0, 0.0, refuse, "builder")


def test_heuristic_labels_are_the_heuristics_own_play_out_of_fresh_deals(tmp_path):
    from agents.scripted import HeuristicAgent
    from casino_env.engine import apply_move

    st = next(tv_exp.boundaries("casino", 4, random.Random(3)))
    # one play-out: the heuristic in both seats, each seeing only its view, to the hand's end
    s, agents = st, [HeuristicAgent(7), HeuristicAgent(8)]
    while s.hand_points is st.hand_points:
        s = apply_move(s, agents[s.current].choose(PlayerView(s, s.current)))
    gained = [b - a for a, b in zip(st.scores, s.scores)]
    assert tv_exp.heuristic_result(st, 7) == gained[0] - gained[1]
    m1 = tv_exp.label(st, 4, random.Random(5), "heuristic")
    assert m1 == tv_exp.label(st, 4, random.Random(5), "heuristic")
    assert m1 != tv_exp.label(st, 4, random.Random(5))  # not the fast rollouts' label
    m, sd = tv_exp.label(st, 1, random.Random(9), "heuristic")
    assert sd == 0.0 and m == int(m)
    with pytest.raises(ValueError, match="label policy must be one of"):
        tv_exp.label(st, 1, random.Random(9), "search")
    run = tmp_path / "run"
    tv_exp.collect("casino", 3, 2, 0, 2, run, policy="heuristic")
    assert json.loads((run / "collect.json").read_text())["policy"] == "heuristic"
    tv_exp.fit(run, tmp_path / "h.npz", tmp_path, 8, 1, 0, log=False)
    assert TailValue(tmp_path / "h.npz").meta["policy"] == "heuristic"
    with pytest.raises(SystemExit, match="other settings"):  # labels of two kinds never mix
        tv_exp.collect("casino", 3, 3, 0, 2, run)


def test_collect_fit_and_regret_end_to_end(tmp_path):
    run = tmp_path / "run"
    tv_exp.collect("casino", 6, 2, 0, 4, run)
    (run / "shard_2.tmp.npz").write_bytes(b"cut short")  # an interrupted shard is skipped
    masks, rest, k = tv_exp.load(run)
    assert k == 4 and len(masks) == 2
    assert masks[0].shape[1] == 3 and rest[0].shape[1] == len(tv_exp.COLUMNS) - 3
    assert all(len(m) == 6 * 5 for m in masks)  # five boundaries a casino hand
    x, y = tv_exp.features(masks[0], rest[0])
    n = len(masks[0])
    assert (y[n:] == -y[:n]).all()
    row = tv_exp.fit(run, tmp_path / "t.npz", tmp_path / "out", 16, 2, 0)
    assert row["saved_file_max_diff"] < 1e-4
    assert row["train_boundaries"] == 30 and row["held_out_boundaries"] == 30
    with open(tmp_path / "out" / "fits.csv") as f:
        assert len(list(csv.DictReader(f))) == 1
    out = tmp_path / "regret"
    summary = tv_exp.regret("casino", 3, 1, ["search:simulations=16",
                                              f"search:tail={tmp_path / 't.npz'},simulations=16"],
                            20, out)
    assert [s["decisions"] for s in summary] == [3, 3]
    with open(out / "regret.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 6 and all(float(r["regret"]) >= 0 for r in rows)
    assert json.loads((out / "regret.json").read_text())["deals"] == 20
    # the second agent against the first, decision by decision
    by = [[float(r["regret"]) for r in rows if r["agent"] == s["agent"]] for s in summary]
    assert summary[1]["vs_first"] == pytest.approx(sum(b - a for a, b in zip(*by)) / 3)
    assert summary[0]["vs_first"] == 0.0 and "regrets" not in summary[0]
    assert "| – |" in (out / "regret.md").read_text().splitlines()[6]


def test_oracle_is_cached_and_the_learning_curve_resumes(tmp_path, monkeypatch):
    run = tmp_path / "run"
    tv_exp.collect("casino", 6, 4, 0, 4, run)  # 3 training shards, 1 held out
    with np.load(run / "shard_0.npz") as z:
        assert z["seconds"] > 0 and int(z["hands"]) == 6
    with pytest.raises(SystemExit, match="shards must be 1..3"):
        tv_exp.fit(run, tmp_path / "t.npz", tmp_path, 8, 1, 0, shards=4, log=False)
    row = tv_exp.fit(run, tmp_path / "t.npz", tmp_path / "no_log", 8, 1, 0, shards=1, log=False)
    assert row["train_shards"] == 1 and row["train_boundaries"] == 30
    assert not (tmp_path / "no_log").exists()
    # the command line's --shards is the same fit, weight for weight
    tv_exp.main(["fit", "--run", str(run), "--save", str(tmp_path / "cli.npz"), "--out",
                 str(tmp_path / "cli"), "--hidden", "8", "--epochs", "1", "--shards", "1"])
    with np.load(tmp_path / "t.npz") as a, np.load(tmp_path / "cli.npz") as b:
        assert all((a[k] == b[k]).all() for k in a.files if k != "meta")
    with open(tmp_path / "cli" / "fits.csv") as f:
        assert [r["train_shards"] for r in csv.DictReader(f)] == ["1"]
    cache = tmp_path / "oracle.json"
    table = tv_exp.oracle_decisions("casino", 3, 1, 10, cache)
    assert len(table) == 3 and all(len(c) == len(v) for _, c, v in table)

    def no_oracle(*a):
        raise AssertionError("the oracle ran again")

    monkeypatch.setattr(tv_exp, "oracle", no_oracle)
    again = tv_exp.oracle_decisions("casino", 3, 1, 10, cache)
    assert [v for _, _, v in again] == [v for _, _, v in table]
    with pytest.raises(AssertionError, match="ran again"):  # other settings: not the cache's
        tv_exp.oracle_decisions("casino", 3, 1, 11, cache)
    monkeypatch.undo()
    out = tmp_path / "curve"
    rows = tv_exp.learning(run, [3, 1], 3, 1, 10, 16, 8, 1, ["search:simulations=16"], out)
    assert [r["train_shards"] for r in rows] == [1, 3]
    assert [r["train_boundaries"] for r in rows] == [30, 90]
    assert rows[0]["collect_minutes"] < rows[1]["collect_minutes"]
    assert all(r["points_lost"] >= 0 and r["seconds"] > 0 for r in rows)
    assert rows[1]["vs_most"] == 0.0  # the last network against itself
    paired = [a - b for a, b in zip(rows[0]["regrets"], rows[1]["regrets"])]
    assert rows[0]["vs_most"] == pytest.approx(sum(paired) / len(paired))
    with open(out / "learning.csv") as f:
        assert [int(r["train_shards"]) for r in csv.DictReader(f)] == [1, 3]
    assert (out / "learning.png").exists()
    monkeypatch.setattr(tv_exp, "fit", no_oracle)  # resumed: nothing is fitted again
    monkeypatch.setattr(tv_exp, "oracle", no_oracle)
    assert tv_exp.learning(run, [1, 3], 3, 1, 10, 16, 8, 1, [], out) == rows
    with pytest.raises(SystemExit, match="other settings"):
        tv_exp.learning(run, [1], 3, 1, 10, 32, 8, 1, [], out)
    tv_exp.collect("casino", 6, 5, 0, 4, run)  # a shard more: another held-out split
    with pytest.raises(SystemExit, match="'run_shards': 4"):
        tv_exp.learning(run, [1, 3], 3, 1, 10, 16, 8, 1, [], out)


def test_search_uses_full_rollouts_under_dominican_restrictions(tmp_path, monkeypatch):
    """V-dom-end: with a side 3 or fewer points short of the target the hand's points depend
    on the scores, which the boundary value does not see, so the search rolls out fully."""
    path = str(tmp_path / "dom.npz")
    tv = linear_tail(path, variant="dominican")
    calls = []
    monkeypatch.setattr(TailValue, "batch", lambda self, recs, side: calls.append(len(recs))
                        or np.zeros(len(recs)))
    spec = {"variant": "dominican", "players": 2, "dealer": 1, "current": 0,
            "hands": [["5H", "KC"], ["9D", "JS"]], "table": ["5D", "8C"],
            "stock": ["2H", "3H", "4H", "6H", "7H", "9H", "10H", "JH"],
            "piles": [[], []], "scores": [0, 0]}
    SearchAgent(seed=0, tail=path, simulations=20).choose(PlayerView(State.from_spec(spec), 0))
    assert calls  # unrestricted: the tail values the boundaries
    calls.clear()
    target = tv.rules.target
    spec["scores"] = [target - 2, 0]
    SearchAgent(seed=0, tail=path, simulations=20).choose(PlayerView(State.from_spec(spec), 0))
    assert calls == []


def test_build_collects_then_fits_into_the_preset_folders(monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(tv_exp, "collect", lambda *a: calls.append(("collect",) + a))
    monkeypatch.setattr(tv_exp, "fit", lambda *a: calls.append(("fit",) + a) or {"ok": 1})
    tv_exp.main(["build", "--variant", "royal"])
    from pathlib import Path

    run = Path("runs/tail_value/royal")
    out = Path("experiments/results/exit/tail_value_royal")
    assert calls == [("collect", "royal", 1000, 20, 0, 16, run),
                     ("fit", run, out / "tail.npz", out, 256, 20, 0)]
    assert '"ok": 1' in capsys.readouterr().out


def test_a_move_that_ends_the_round_is_valued_at_the_boundary_it_passes(tmp_path, monkeypatch):
    """The dealer's last card of a round (C-capture or C-trail): the engine deals on at once,
    so the search values the boundary the move passed, from the mover's side."""
    spec = {"variant": "casino", "players": 2, "dealer": 1, "current": 1,
            "hands": [[], ["5H"]], "table": ["5D", "8C"],
            "stock": ["2H", "3H", "4H", "6H", "7H", "9H", "10H", "JH"], "piles": [[], []]}
    view = PlayerView(State.from_spec(spec), 1)
    good = linear_tail(tmp_path / "good.npz")
    bad = linear_tail(tmp_path / "bad.npz", mine=-1.0, theirs=1.0)
    seen = []
    batch = TailValue.batch
    monkeypatch.setattr(TailValue, "batch", lambda self, recs, side: seen.append(
        (list(recs), side)) or batch(self, recs, side))
    assert SearchAgent(seed=0, tail=good.path, prior=0.0, simulations=8).choose(view).kind \
        == "capture"
    # every determinization of the capture reaches the same boundary: 5H and 5D in side 1's
    # pile, 8C loose, side 1 captured last, side 0 leads the next round
    capture = [r for recs, side in seen for r in recs if r[2]]
    assert capture and all(r == (DECK.mask(["8C"]), 0, DECK.mask(["5H", "5D"]), 0, 0, 1, 0)
                           for r in capture)
    assert {side for _, side in seen} == {1}
    assert SearchAgent(seed=0, tail=bad.path, prior=0.0, simulations=8).choose(view).kind \
        == "trail"


def test_determinization_value_samples_a_move_by_where_it_leaves_the_hand():
    """``determinization_value`` (the search's, the oracle's and the labels' one step): a move
    that ends the hand gives the hand's result, one that ends a round gives the tail's value of
    the boundary it passed, any other a rollout to the hand's end."""
    from agents.search import determinization_value, hand_result
    from agents.valuation import static_weights
    from casino_env.engine.moves import generate
    from casino_env.engine.play import play

    base = {"variant": "casino", "players": 2, "dealer": 1, "current": 1,
            "hands": [[], ["5H"]], "table": ["5D", "8C"], "piles": [[], []]}
    seen = []

    def tail(loose, piles, sweeps, last_side, leader_side):
        seen.append((loose, tuple(piles), tuple(sweeps), last_side, leader_side))
        return -3.5

    round_end = State.from_spec({**base, "stock": ["2H", "3H", "4H", "6H", "7H", "9H",
                                                     "10H", "JH"]})
    w = static_weights(round_end.rules)
    capture = next(m for m in generate(round_end) if m.kind == "capture")
    after = play(round_end, capture)
    assert determinization_value(round_end, after, 1, w, 0, tail=tail) == -3.5
    assert seen == [(DECK.mask(["8C"]), (0, DECK.mask(["5H", "5D"])), (0, 0), 1, 0)]
    # without a tail the same move is one rollout to the hand's end, as fastsim plays it
    assert determinization_value(round_end, after, 1, w, 7) == simulate(
        after, 1, 0.0, None, "builder")
    # the hand's last card: the hand's result, no tail (C-residue: the last capturer takes
    # the 8C too, not a sweep; C-score: 3 cards to none, the 3 points for most cards)
    hand_end = State.from_spec({**base, "stock": []})
    after = play(hand_end, next(m for m in generate(hand_end) if m.kind == "capture"))
    v = determinization_value(hand_end, after, 1, w, 0, tail=tail)
    assert v == 3.0 == hand_result(hand_end, after, 1, 0.0) and len(seen) == 1
    assert after.hand_points is not hand_end.hand_points


def test_the_docs_table_shows_each_curve_point_against_the_last_network(tmp_path, monkeypatch):
    """gen_docs' tail_learning block: a row per network of each preset's curve, the last one
    marked as the reference of the paired column; presets without a curve are left out."""
    import experiments.gen_docs as gd

    rel = tmp_path / "exit" / "tail_value_royal" / "learning1600"
    rows = [{"train_shards": n, "train_boundaries": 5000 * n, "minutes": 0.7 * n,
             "held_out_mse": mse, "points_lost": p, "lo": p - 0.01, "hi": p + 0.01,
             "vs_most": d, "vs_most_lo": d - 0.005, "vs_most_hi": d + 0.005,
             "agent": "search on the value, 1600 rollouts"}
            for n, mse, p, d in ((1, 1.9, 0.04, 0.015), (18, 1.4, 0.025, 0.0))]
    from experiments.curves import write_table

    write_table(rel, "learning", tv_exp.LEARNING_FIELDS, rows, lambda rs, path: None)
    monkeypatch.setattr(gd, "RESULTS", tmp_path)
    lines = gd.tail_learning_table().splitlines()
    link = "[png](../experiments/results/exit/tail_value_royal/learning1600/learning.png)"
    assert lines[2:] == [
        f"| royal | 1600 | 5,000 (0.7) | 1.90 | 0.040 [0.030, 0.050] | +0.015 [+0.010, +0.020]"
        f" | {link} |",
        f"| royal | 1600 | 90,000 (12.6) | 1.40 | 0.025 [0.015, 0.035] | – (the last network) "
        f"| {link} |"]
    monkeypatch.setattr(gd, "RESULTS", tmp_path / "none")
    assert gd.tail_learning_table() == "_No curve yet._"
