"""experiments.midgame_net and the ``before_last`` networks it makes: afterstates before the
last deal valued by rollouts, seen as the mover sees them, played by ``midgame_net=PATH``."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import numpy as np
import pytest
from test_afterstate import _last_deal  # a casino last deal with a choice

from agents.afterstate import (
    BEFORE_LAST,
    AfterstateNet,
    afterstate_row,
    layout_of,
    top_candidates,
)
from agents.endgame import perfect_information
from agents.registry import make_agent
from agents.scripted import HeuristicAgent
from casino_env.engine import apply_move, legal_moves, new_game
from casino_env.engine.play import play
from casino_env.engine.view import PlayerView
from experiments import endgame_net, midgame_net

torch = pytest.importorskip("torch")
MODEL = "experiments/results/train/casino/model.zip"
SET_NET = "experiments/results/exit/endgame_net_casino_set/set_tree_net.pt"


def _midhand(seed: int, decisions: int = 9):
    """A casino state some decisions into a hand (before the last deal), with a choice."""
    st, agent = new_game("casino", 2, seed=seed), HeuristicAgent(0)
    for _ in range(decisions):
        st = apply_move(st, agent.choose(PlayerView(st, st.current)))
    while len(legal_moves(st)) < 2:
        st = apply_move(st, agent.choose(PlayerView(st, st.current)))
    assert not perfect_information(PlayerView(st, st.current))
    return st


def test_rollout_values_play_every_move_on_the_same_deals() -> None:
    st = _midhand(3)
    view, moves = PlayerView(st, st.current), legal_moves(st)
    a = midgame_net.rollout_values(view, moves + [moves[0]], 8, random.Random(5))
    assert a[0] == a[-1]  # the same move on the same deals and seeds: the same value
    assert a[:-1] == midgame_net.rollout_values(view, moves, 8, random.Random(5))
    assert all(-30 < v < 30 for v in a) and len(set(a)) > 1


def test_with_a_boundary_value_each_rollout_stops_at_the_next_deal() -> None:
    """``tail``: a rollout takes the boundary value where the deal ends (the points of the
    deal itself are the boundary value's to count), so a constant boundary value is every
    move's value before the last deal."""

    class Constant:
        def check(self, rules) -> None:
            pass

        def batch(self, records: list, side: int) -> np.ndarray:
            return np.full(len(records), 7.0)

    st = _midhand(3)
    view, moves = PlayerView(st, st.current), legal_moves(st)
    assert midgame_net.rollout_values(view, moves, 4, random.Random(0), Constant()) == \
        [7.0] * len(moves)


def test_rollouts_to_the_hands_end_also_give_each_moves_mean_hand_result() -> None:
    """``won``: on the same rollouts as the points, each move's mean hand result (+1 won, 0
    drawn, -1 lost: the sign of the hand's point difference), which hands won count."""
    st = _midhand(3)
    view, moves = PlayerView(st, st.current), legal_moves(st)
    won: list = []
    points = midgame_net.rollout_values(view, moves, 1, random.Random(5), won=won)
    assert points == midgame_net.rollout_values(view, moves, 1, random.Random(5))
    assert won == [float(np.sign(v)) for v in points]  # one rollout: its sign
    assert len(set(won)) > 1
    won8: list = []
    midgame_net.rollout_values(view, moves, 8, random.Random(5), won=won8)
    assert all(-1 <= w <= 1 and (w * 8).is_integer() for w in won8)
    with pytest.raises(ValueError, match="hand's end"):  # a boundary value ends no hand
        midgame_net.rollout_values(view, moves, 1, random.Random(5), tail=object(), won=[])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two small shards (rollouts of 1 deal each) and a set network fitted on them."""
    root = tmp_path_factory.mktemp("midgame")
    midgame_net.collect("casino", 8, 2, 1, 1, root / "run", rollouts=1)
    endgame_net.fit(root / "run", root / "out", "casino", 16, 1, True, 0,
                    loss_kind="centered", kind="set", layers=1, save=root / "net.pt")
    return root


def test_shards_hold_the_heuristics_best_moves_seen_without_the_opponents_hand(runs) -> None:
    d = np.load(runs / "run" / "shard_000.npz")
    assert str(d["scope"]) == BEFORE_LAST and int(d["candidates"]) == 8
    layout = layout_of(new_game("casino", 2, seed=0).rules)
    x, g = d["x"].astype(np.float32), d["group"]
    assert not x[:, layout.size:layout.size + 52].any()  # no opponent plane
    assert x.shape[1] == layout.size + 54  # the heuristic's two columns end each row
    for decision in np.unique(g):
        rows = np.flatnonzero(g == decision)
        assert 2 <= len(rows) <= 8
        assert d["heuristic"][rows].sum() == 1 and d["heuristic"][rows[0]]  # best first
        assert x[rows[0], -1] == 0 and (x[rows, -1] <= 0).all()  # gaps to the best score
        assert (np.diff(x[rows, -2]) <= 1e-3).all()  # scores in descending order
    again = midgame_net.collect_shard(("casino", 2, 7, runs / "again.npz", 1, 8, None))
    twice = midgame_net.collect_shard(("casino", 2, 7, runs / "twice.npz", 1, 8, None))
    a, b = np.load(again), np.load(twice)
    assert all(np.array_equal(a[k], b[k]) for k in a)  # the same seed, the same shard


def _without_hand_results(runs, tmp_path):
    """A run of the first shard with its hand results (``y_won``) taken out, as shards
    collected before they were stored are."""
    no_results = tmp_path / "old"
    no_results.mkdir()
    old = dict(np.load(runs / "run" / "shard_000.npz"))
    del old["y_won"]
    np.savez(no_results / "shard_000.npz", **old)
    return no_results


def test_shards_hold_the_hand_results_and_a_fit_regresses_on_them(runs, tmp_path) -> None:
    """Rollouts to the hand's end store each row's mean hand result (``y_won``) beside its
    points; ``fit --label won`` regresses on them (not residual: the static lead is in
    points), and shards without them are named."""
    import csv

    d = np.load(runs / "run" / "shard_000.npz")
    assert np.array_equal(d["y_won"], np.sign(d["y"]))  # one rollout a move
    assert np.array_equal(endgame_net.load(runs / "run", "won")["y"],
                          np.concatenate([np.load(runs / "run" / f"shard_00{k}.npz")["y_won"]
                                          for k in range(2)]))
    with pytest.raises(SystemExit, match="needs --no-residual"):
        endgame_net.fit(runs / "run", tmp_path, "casino", 8, 1, False, 0, True, "centered",
                        kind="set", layers=1, label="won")
    with pytest.raises(SystemExit, match="--label must be one of points, won"):
        endgame_net.fit(runs / "run", tmp_path, "casino", 8, 1, False, 0, False, "centered",
                        kind="set", layers=1, label="sign")
    row = endgame_net.fit(runs / "run", tmp_path, "casino", 8, 1, False, 0, False, "centered",
                          kind="set", layers=1, label="won", save=tmp_path / "won.pt")
    assert row["label"] == "won" and row["residual"] is False
    assert row["heuristic_lost"] <= 2  # hand results lost a decision: at most -1 to +1
    with (tmp_path / "fits.csv").open() as f:
        assert [r["label"] for r in csv.DictReader(f)] == ["won"]
    assert "| centered (hand results) |" in (tmp_path / "summary.md").read_text()
    assert AfterstateNet(tmp_path / "won.pt").scope == BEFORE_LAST
    with pytest.raises(SystemExit, match="holds no hand results"):
        endgame_net.load(_without_hand_results(runs, tmp_path), "won")



def test_a_fit_on_points_tilted_towards_hands_won(runs, tmp_path) -> None:
    """``fit --won-weight W`` regresses on each move's points plus W times its hand result
    (residual, as the points are); it names a negative weight, one beside ``--label won``,
    and shards without hand results."""
    import csv

    files = [np.load(runs / "run" / f"shard_00{k}.npz") for k in range(2)]
    tilted = endgame_net.load(runs / "run", won_weight=15)["y"]
    assert np.array_equal(tilted, np.concatenate([f["y"] + 15 * f["y_won"] for f in files]))
    assert np.array_equal(endgame_net.load(runs / "run", won_weight=0)["y"],
                          np.concatenate([f["y"] for f in files]))
    for label, weight in (("points", -1.0), ("won", 15.0)):
        with pytest.raises(SystemExit, match="--won-weight must be >= 0"):
            endgame_net.fit(runs / "run", tmp_path, "casino", 8, 1, False, 0, False,
                            "centered", kind="set", layers=1, label=label, won_weight=weight)
    row = endgame_net.fit(runs / "run", tmp_path, "casino", 8, 1, False, 0, True, "centered",
                          kind="set", layers=1, won_weight=15, save=tmp_path / "w.pt")
    assert row["label"] == "points+15won" and row["residual"] is True
    # the measure is in the label's units: a one-rollout move's points and 15 times its sign
    points = endgame_net.fit(runs / "run", tmp_path / "p", "casino", 8, 1, False, 0, True,
                             "centered", kind="set", layers=1)
    assert row["heuristic_lost"] > points["heuristic_lost"]
    with (tmp_path / "fits.csv").open() as f:
        assert [r["label"] for r in csv.DictReader(f)] == ["points+15won"]
    assert "| centered (points + 15 x hand results) |" in (tmp_path / "summary.md").read_text()
    assert AfterstateNet(tmp_path / "w.pt").scope == BEFORE_LAST
    with pytest.raises(SystemExit, match="holds no hand results"):
        endgame_net.load(_without_hand_results(runs, tmp_path), won_weight=2)

def test_a_rows_value_ignores_what_the_mover_cannot_see(runs) -> None:
    """Every deal of the unseen cards consistent with the view gives the same rows."""
    net = AfterstateNet(runs / "net.pt", option="midgame_net")
    st = _midhand(4)
    view = PlayerView(st, st.current)
    rng = random.Random(1)
    worlds = [st] + [view.determinize(rng) for _ in range(4)]  # the true state among them
    assert len({w.hand_masks[1 - st.current] for w in worlds}) > 1
    layout = layout_of(st.rules)
    moves = legal_moves(st)
    for m in moves:
        rows = [afterstate_row(layout, play(w, m, deal_next=False), st.current, hidden=True)
                for w in worlds]
        assert all(np.array_equal(rows[0], r) for r in rows)
    values = [net.values(w, moves) for w in worlds]
    assert all(np.array_equal(values[0], v) for v in values)


def test_the_fitted_network_plays_before_the_last_deal_among_the_best_moves(runs) -> None:
    path = runs / "net.pt"
    net = AfterstateNet(path, option="midgame_net")
    assert net.scope == BEFORE_LAST and net.candidates == 8
    assert net.meta["scope"] == BEFORE_LAST and net.meta["kind"] == "set"
    heuristic = HeuristicAgent(0)
    h = make_agent(f"heuristic:midgame_net={path}", seed=0)
    p = make_agent(f"ppo:{MODEL},midgame_net={path}", seed=0)
    for seed in range(6):
        st = _midhand(seed)
        view, moves = PlayerView(st, st.current), legal_moves(st)
        scores = heuristic.scores(view, moves)
        cands = [moves[i] for i in top_candidates(scores, 8)]
        best = cands[int(np.argmax(net.values(st, cands)))]
        assert net.choose(view, moves) == best == h.choose(view) == p.choose(view)
    # on the last deal it does not play: the agents play as they do without it
    last = _last_deal(2)
    lv = PlayerView(last, last.current)
    assert net.choose(lv, legal_moves(last)) is None
    assert h.choose(lv) == heuristic.choose(lv)
    assert p.choose(lv) == make_agent(f"ppo:{MODEL}", seed=0).choose(lv)
    # both networks in one agent: each plays where it belongs
    both = make_agent(f"heuristic:endgame_net={SET_NET},midgame_net={path}", seed=0)
    assert both.choose(lv) == AfterstateNet(SET_NET).choose(lv, legal_moves(last))
    st = _midhand(0)
    assert both.choose(PlayerView(st, st.current)) == net.choose(PlayerView(st, st.current),
                                                                 legal_moves(st))


def test_a_network_given_for_the_wrong_part_of_the_hand_is_named(runs) -> None:
    path = runs / "net.pt"
    with pytest.raises(ValueError, match=f"endgame_net {path} plays before the last deal "
                                         r"\(give it as midgame_net\)"):
        make_agent(f"heuristic:endgame_net={path}")
    with pytest.raises(ValueError, match=f"midgame_net {SET_NET} plays the last deal "
                                         r"\(give it as endgame_net\)"):
        make_agent(f"ppo:{MODEL},midgame_net={SET_NET}")
    with pytest.raises(ValueError, match="midgame_net: no such file 'nope.pt'"):
        make_agent("heuristic:midgame_net=nope.pt")
    with pytest.raises(ValueError, match="endgame_margin: .* applies to a last-deal network"):
        AfterstateNet(path, 1.0, "midgame_net")


def test_runs_of_different_scopes_do_not_mix(runs, tmp_path) -> None:
    last = tmp_path / "last"
    last.mkdir()
    endgame_net.collect_shard(("casino", 2, 3, last / "shard_000.npz"))
    with pytest.raises(SystemExit, match="scope last_deal, .* of before_last"):
        endgame_net.fit(runs / "run", tmp_path / "out", "casino", 16, 1, False, 0,
                        extra=last, kind="set", layers=1)
    mixed = tmp_path / "mixed"
    shutil.copytree(runs / "run", mixed)
    shutil.copy(last / "shard_000.npz", mixed / "shard_002.npz")
    with pytest.raises(SystemExit, match="shard_002.npz holds decisions of another scope"):
        endgame_net.load(mixed)


def test_label_noise_falls_with_more_rollouts(tmp_path) -> None:
    rows = midgame_net.label_noise("casino", 2, 3, [(1, None), (16, None)], tmp_path)
    assert [r["rollouts"] for r in rows] == [1, 16]
    assert rows[0]["decisions"] == rows[1]["decisions"] > 20
    assert rows[1]["noise_var"] < rows[0]["noise_var"] / 4  # about 16 times less expected
    assert (tmp_path / "noise.csv").is_file()
    assert "| 16 | none (to the hand end) |" in (tmp_path / "noise.md").read_text()


def test_the_pipeline_collects_fits_and_plays_the_two_networks_then_resumes(tmp_path) -> None:
    import json

    tail = "experiments/results/exit/tail_value_casino/tail.npz"
    out, runs = tmp_path / "out", tmp_path / "runs"
    kw = dict(shards=2, rollouts=1, epochs=1, hands=2, shard_hands=3, tail=Path(tail),
              endgame=Path(SET_NET))
    first = midgame_net.pipeline("casino", out, runs, **kw)
    assert len(list((runs / "casino_tail").glob("shard_*.npz"))) == 2
    assert (out / "tail_net.pt").is_file() and (runs / "casino_tail_2.ckpt").is_file()
    assert AfterstateNet(out / "tail_net.pt").scope == BEFORE_LAST
    assert first["hands"] == 2
    net = out / "tail_net.pt"
    assert first["agent"] == f"networks:casino,midgame_net={net},endgame_net={SET_NET}"
    mtime = (out / "tail_net.pt").stat().st_mtime_ns
    again = midgame_net.pipeline("casino", out, runs, **kw)  # every step found done
    assert (out / "tail_net.pt").stat().st_mtime_ns == mtime and again == first
    assert json.loads((out / "networks_v_heuristic" / "summary.json").read_text())["hands"] == 2
    # a refit on more shards in the same work folder fits afresh beside the first fit's
    # checkpoint instead of stopping at it (it is another fit)
    more = midgame_net.pipeline("casino", tmp_path / "out3", runs, **{**kw, "shards": 3})
    assert len(list((runs / "casino_tail").glob("shard_*.npz"))) == 3
    assert (runs / "casino_tail_3.ckpt").is_file() and (runs / "casino_tail_2.ckpt").is_file()
    assert more["hands"] == 2 and (tmp_path / "out3" / "tail_net.pt").is_file()
    # so does a wider fit on the same shards (its checkpoint named by its width too)
    midgame_net.pipeline("casino", tmp_path / "out3w", runs, **{**kw, "shards": 3, "hidden": 8})
    assert (runs / "casino_tail_3_h8.ckpt").is_file()
    assert AfterstateNet(tmp_path / "out3w" / "tail_net.pt").meta["hidden"] == 8
    with pytest.raises(SystemExit, match="no boundary value"):
        midgame_net.pipeline("casino", out, runs, **{**kw, "tail": tmp_path / "none.npz"})
    with pytest.raises(SystemExit, match="no last-deal network"):
        midgame_net.pipeline("casino", out, runs, **{**kw, "endgame": tmp_path / "none.pt"})


def test_the_learning_curve_reads_each_fit_and_its_match(tmp_path) -> None:
    import csv
    import json

    fits = tmp_path / "fits.csv"
    fits.write_text("shards,train_decisions,heuristic_lost,net_lost,fit_minutes\n"
                    "10,1000,0.1,0.08,4.0\n25,2500,0.1,0.07,10.0\n25,2500,0.1,0.06,12.0\n")
    match = tmp_path / "m"
    match.mkdir()
    (match / "summary.json").write_text(json.dumps(
        {"opponent": "heuristic", "hands": 200, "win_rate": 0.55, "lo": 0.5, "hi": 0.6,
         "diff_per_hand": 0.4}))
    rows = midgame_net.curve(fits, [(25, match), (10, None)], 0.5, tmp_path / "out")
    assert [r["shards"] for r in rows] == [10, 25]
    assert rows[0]["cpu_minutes"] == 9.0 and rows[0]["hands"] == ""  # 10 x 0.5 + 4.0
    assert rows[1]["cpu_minutes"] == 24.5 and rows[1]["net_lost"] == 0.06  # the last fit on 25
    assert rows[1]["won"] == 0.55 and rows[1]["hands"] == 200
    written = list(csv.DictReader((tmp_path / "out" / "curve.csv").open()))
    assert [w["shards"] for w in written] == ["10", "25"] and written[1]["won"] == "0.55"
    assert (tmp_path / "out" / "curve.png").stat().st_size > 0
    with pytest.raises(SystemExit, match="no fit on 44 shards"):
        midgame_net.curve(fits, [(44, None)], 0.5, tmp_path / "out")
    (match / "summary.json").write_text(json.dumps({"opponent": "search"}))
    with pytest.raises(SystemExit, match="against search, not the heuristic"):
        midgame_net.curve(fits, [(25, match)], 0.5, tmp_path / "out")


def test_a_player_takes_one_seat_of_the_line_and_only_its_decisions_are_recorded(runs) -> None:
    """``heuristic_line(..., player)``: the player moves on seat ``k % 2`` of hand ``k`` (the
    heuristic's scores and move are still what is yielded there); ``collect --play``
    records only its decisions, the same shard for the same seed."""

    class Recorder:  # plays each position's last legal move, noting where it was asked
        def __init__(self) -> None:
            self.asked: list[tuple[int, int]] = []

        def choose(self, view):
            self.asked.append((view.seat, len(legal_moves(view.state))))
            return legal_moves(view.state)[-1]

    player, rng = Recorder(), random.Random(4)
    line = list(endgame_net.heuristic_line("casino", 3, 4, rng, player))
    seats = [(k, st.current) for k, st, *_ in line]
    assert {k for k, _ in seats} == {0, 1, 2}
    mine = [(st.current, len(moves)) for k, st, view, moves, *_ in line
            if st.current == k % 2 and len(moves) > 1]
    assert player.asked == mine and mine  # asked at its seat with a choice, nowhere else
    # its moves were played: the line left the heuristic's from its first differing choice
    plain = list(endgame_net.heuristic_line("casino", 3, 4, random.Random(4)))
    first = next(i for i, (k, st, view, moves, scores, own) in enumerate(plain)
                 if st.current == k % 2 and len(moves) > 1 and moves[-1] != own)
    assert [st for _, st, *_ in line[:first + 1]] == [st for _, st, *_ in plain[:first + 1]]
    assert line[first + 1][1] != plain[first + 1][1]
    again = midgame_net.collect_shard(("casino", 4, 7, runs / "p1.npz", 1, 8, None, "greedy"))
    twice = midgame_net.collect_shard(("casino", 4, 7, runs / "p2.npz", 1, 8, None, "greedy"))
    both = midgame_net.collect_shard(("casino", 4, 7, runs / "p3.npz", 1, 8, None))
    a, b, c = np.load(again), np.load(twice), np.load(both)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert 0 < len(np.unique(a["group"])) < len(np.unique(c["group"]))  # one seat of two
    with pytest.raises(SystemExit, match="--play 'no-such-agent'"):
        midgame_net.collect("casino", 2, 1, 1, 1, runs / "bad", play="no-such-agent")


def test_collect_values_one_deal_only_with_stock(tmp_path) -> None:
    """``collect --stock N`` (fifty-third session): only the decisions made with N cards left
    in the stock are valued and recorded (casino's deal before the last: 8), fewer than a
    whole hand's; 0 (the last deal, whose decisions these shards never hold) is refused."""
    from agents.afterstate import layout_of
    from casino_env.engine import new_game

    at = layout_of(new_game("casino", 2, seed=0).rules).offset["stock"]
    one = np.load(midgame_net.collect_shard(("casino", 3, 7, tmp_path / "s8.npz", 1, 8, None,
                                             None, 8)))
    # (6 hands: so that some round before the last ends on a choice whatever the rollouts'
    # draws, which the line of play shares)
    every = np.load(midgame_net.collect_shard(("casino", 6, 7, tmp_path / "all.npz", 1, 8,
                                               None)))
    # an afterstate holds the next deal where the move ended one (the last: stock 0)
    assert set(np.round(one["x"][:, at].astype(np.float32) * 52)) == {8.0, 0.0}
    assert 0 < len(np.unique(one["group"])) < len(np.unique(every["group"])) / 3
    assert set(np.round(every["x"][:, at].astype(np.float32) * 52)) == {40, 32, 24, 16, 8, 0}
    with pytest.raises(SystemExit, match="--stock must be >= 1"):
        midgame_net.collect("casino", 2, 1, 1, 1, tmp_path / "bad", stock=0)


def test_a_fit_starts_from_a_saved_network_and_names_a_mismatch(runs, tmp_path) -> None:
    """``fit --init PATH``: 0 epochs measures the saved network as it is (its held-out loss
    that of the fit that saved it, up to its float16 weights); a network of another width
    is named, not loaded."""
    import csv

    with (runs / "out" / "fits.csv").open() as f:
        saved = next(csv.DictReader(f))
    row = endgame_net.fit(runs / "run", tmp_path, "casino", 16, 0, True, 0, True, "centered",
                          kind="set", layers=1, init=runs / "net.pt")
    assert row["init"] == str(runs / "net.pt") and row["epochs"] == 0
    assert row["net_lost"] == pytest.approx(float(saved["net_lost"]), abs=0.05)
    more = endgame_net.fit(runs / "run", tmp_path, "casino", 16, 1, True, 0, True, "centered",
                           kind="set", layers=1, init=runs / "net.pt", lr=1e-4)
    assert more["lr"] == 1e-4 and "rate 0.0001, from" in (tmp_path / "summary.md").read_text()
    with pytest.raises(SystemExit, match="differs in hidden 16, here 32"):
        endgame_net.fit(runs / "run", tmp_path, "casino", 32, 0, True, 0, True, "centered",
                        kind="set", layers=1, init=runs / "net.pt")
    with pytest.raises(SystemExit, match="no such file"):
        endgame_net.fit(runs / "run", tmp_path, "casino", 16, 0, True, 0, True, "centered",
                        kind="set", layers=1, init=tmp_path / "none.pt")
    with pytest.raises(SystemExit, match="--lr must be > 0, got 0"):
        endgame_net.fit(runs / "run", tmp_path, "casino", 16, 1, True, 0, True, "centered",
                        kind="set", layers=1, lr=0)


def test_a_fit_on_the_banked_base_plays_on_it_and_says_so(runs, tmp_path) -> None:
    """``fit --base banked``: the network's output is added to the points already certain
    (``agents.afterstate.BASES``), and so it plays: its values are its output plus the banked
    lead, which differs from the static lead at some decisions; the base is in fits.csv and
    the saved file, a 0-epoch ``--init`` of it reproduces its held-out loss, and a static fit
    may not start from it; a banked base without a residual network is named."""
    import csv

    from agents.afterstate import heuristic_columns, net_inputs, static_leads_of

    row = endgame_net.fit(runs / "run", tmp_path, "casino", 16, 1, True, 0, True, "centered",
                          kind="set", layers=1, base="banked", save=tmp_path / "banked.pt")
    assert row["base"] == "banked"
    with (tmp_path / "fits.csv").open() as f:
        assert [r["base"] for r in csv.DictReader(f)] == ["banked"]
    net = AfterstateNet(tmp_path / "banked.pt", option="midgame_net")
    assert net.meta["base"] == "banked" and "base" not in AfterstateNet(runs / "net.pt").meta
    differs = 0
    for seed in range(8):
        st = _midhand(seed, decisions=13)
        moves, me = legal_moves(st), st.current
        afters = [play(st, m, deal_next=False) for m in moves]
        x = np.hstack([np.stack([afterstate_row(net.layout, a, me, True) for a in afters]),
                       heuristic_columns(st, moves)])
        lead = static_leads_of(st.rules, afters, me, "banked")
        inputs, _ = net_inputs(st.rules, x, True, False, lead, "banked")
        assert net.values(st, moves) == pytest.approx(net.net(inputs) + lead, abs=1e-5)
        differs += bool((lead != static_leads_of(st.rules, afters, me)).any())
    assert differs
    again = endgame_net.fit(runs / "run", tmp_path, "casino", 16, 0, True, 0, True,
                            "centered", kind="set", layers=1, base="banked",
                            init=tmp_path / "banked.pt")
    assert again["net_lost"] == pytest.approx(row["net_lost"], abs=0.05)
    for match, residual, more in (
            ("differs in base 'banked', here 'static'", True, {"init": tmp_path / "banked.pt"}),
            ("--base banked is what a residual network", False, {"base": "banked"}),
            ("--base must be one of static, banked", True, {"base": "sure"})):
        with pytest.raises(SystemExit, match=match):
            endgame_net.fit(runs / "run", tmp_path, "casino", 16, 0, True, 0, residual,
                            "centered", kind="set", layers=1, **more)


def test_collect_exact_last_relabels_the_same_decisions(tmp_path) -> None:
    """``collect --exact-last`` (fifty-seventh session): the rollouts play the hand's last
    deal exactly, so the same seed records the same decisions and afterstates (the line and
    the deals of the unseen cards draw from one stream either way) with other labels; with a
    boundary value (``--tail``), which stops a rollout before the last deal, it is refused."""
    job = ("tuxedo", 3, 5, tmp_path / "b.npz", 4, 8, None, None, 4)
    builder = np.load(midgame_net.collect_shard(job))
    exact = np.load(midgame_net.collect_shard((*job[:3], tmp_path / "x.npz", *job[4:],
                                               True)))
    assert len(np.unique(exact["group"])) >= 3
    assert np.array_equal(builder["x"], exact["x"])
    assert np.array_equal(builder["group"], exact["group"])
    assert not np.allclose(builder["y"], exact["y"])
    with pytest.raises(SystemExit, match="--exact-last"):
        midgame_net.collect("tuxedo", 2, 1, 1, 1, tmp_path / "bad", tail=tmp_path / "t.npz",
                            exact_last=True)


def test_a_run_of_other_rollouts_or_boundary_value_is_refused(tmp_path) -> None:
    """Shards of other collect settings (rollouts, boundary value, player, stock, ...) are
    not added to a run: its collect.json names them; a run made before the record is
    accepted and recorded."""
    import json

    run = tmp_path / "run"
    run.mkdir()
    endgame_net.shard_path(run, 0).write_bytes(b"")
    midgame_net.collect("casino", 200, 1, 2, 1, run, 32, 8, tmp_path / "tail.npz")
    assert json.loads((run / "collect.json").read_text()) == {
        "variant": "casino", "hands": 200, "seed": 2, "rollouts": 32, "candidates": 8,
        "tail": str(tmp_path / "tail.npz"), "play": None, "stock": None, "exact_last": False}
    with pytest.raises(SystemExit, match=r"rollouts: 32 there, 16 now; tail: .* there, None now"):
        midgame_net.collect("casino", 200, 1, 2, 1, run, 16, 8, None)


def test_shards_of_complete_hints_make_a_network_that_reads_them(runs, tmp_path,
                                                                  monkeypatch) -> None:
    """A run whose shards hold ``heuristic:complete=1``'s columns (``hints``) fits a network
    that says so and reads that heuristic's scores in play; runs of other hints do not mix,
    and an unknown kind is named."""
    import agents.afterstate as afterstate

    run = tmp_path / "run"
    run.mkdir()
    for f in sorted((runs / "run").glob("shard_*.npz")):
        d = np.load(f)
        np.savez_compressed(run / f.name, hints=np.array("complete"),
                            **{k: d[k] for k in d.files})
    assert endgame_net.load(run)["hints"] == "complete"
    assert endgame_net.load(runs / "run")["hints"] == "default"
    path = tmp_path / "net.pt"
    endgame_net.fit(run, tmp_path / "out", "casino", 16, 1, True, 0, loss_kind="centered",
                    kind="set", layers=1, save=path)
    net = AfterstateNet(path, option="midgame_net")
    assert net.meta["hints"] == "complete" and net.complete
    assert not AfterstateNet(runs / "net.pt", option="midgame_net").complete
    asked = []
    real = afterstate._scorer

    def spy(complete=False):
        asked.append(complete)
        return real(complete)

    monkeypatch.setattr(afterstate, "_scorer", spy)
    st = _midhand(3)
    net.choose(PlayerView(st, st.current), legal_moves(st))
    assert asked and all(asked)
    # not mixed: one run's shards, or a run and its extra
    mixed = tmp_path / "mixed"
    shutil.copytree(run, mixed)
    shutil.copy(runs / "run" / "shard_000.npz", mixed / "shard_002.npz")
    with pytest.raises(SystemExit, match="shard_002.npz holds decisions of another scope or "
                                         "hints"):
        endgame_net.load(mixed)
    with pytest.raises(SystemExit, match="heuristic columns are the default heuristic's, "
                                         ".* the complete's"):
        endgame_net.fit(run, tmp_path / "out2", "casino", 16, 1, True, 0,
                        extra=runs / "run", kind="set", layers=1)
    bad = tmp_path / "bad.pt"
    saved = torch.load(path, weights_only=False)
    saved["meta"]["hints"] = "fancy"
    torch.save(saved, bad)
    with pytest.raises(ValueError, match="unknown hints 'fancy' \\(known: default, complete\\)"):
        AfterstateNet(bad, option="midgame_net")
