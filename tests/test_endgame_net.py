"""experiments.endgame_net: exact last-deal afterstates and the points-lost measure."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from experiments.endgame_net import (
    alike_suits,
    card_planes,
    collect_shard,
    points_lost,
    suit_swaps,
)


def test_points_lost_takes_each_decisions_top_scored_move() -> None:
    groups = np.array([0, 0, 1, 1, 1])
    values = np.array([1.0, 3.0, 0.0, 2.0, -1.0])
    scores = np.array([5.0, 1.0, 0.0, 0.0, 9.0])  # picks 1 (loses 2), then -1 (loses 3)
    assert points_lost(values, scores, groups) == pytest.approx(2.5)
    assert points_lost(values, values, groups) == 0.0


def test_a_shard_holds_every_moves_exact_afterstate(tmp_path) -> None:
    from casino_env.encoding import Layout
    from casino_env.engine import new_game

    dest = tmp_path / "shard_000.npz"
    collect_shard(("casino", 3, 7, dest))
    d = np.load(dest)
    width = Layout(new_game("casino", 2).rules, compose=False, kind="compact").size + 52
    assert d["x"].shape == (len(d["y"]), width) and len(d["y"]) > 10
    decisions, rows = np.unique(d["group"], return_counts=True)
    assert (rows >= 2).all()  # decisions with a choice only
    # the heuristic's own move is exactly one of each decision's moves
    assert (np.bincount(d["group"], weights=d["heuristic"]) == 1).all()
    # on the last deal the opponent's hand is known: its plane holds 1-4 cards
    opp = d["x"][:, -52:].sum(axis=1)
    assert ((opp >= 0) & (opp <= 4)).all() and opp.max() >= 1
    assert np.isfinite(d["y"]).all()


def test_the_suit_swap_exchanges_hearts_and_clubs_in_card_planes() -> None:
    [perm] = suit_swaps("casino", 60, [0])
    assert (perm[perm] == np.arange(60)).all()
    assert perm[1] == 3 and perm[3] == 1 and perm[0] == 0 and perm[2] == 2
    assert perm[53] == 53  # beyond the planes: untouched
    # krypkasino's two decks (V-kryp-values): its planes hold the 52 kinds, hearts and clubs
    # score alike there too (V-kryp-score), so the same swap applies
    [kryp] = suit_swaps("krypkasino", 60, [0])
    assert (kryp == perm).all()
    # spade casino (V-spade): every spade scores, so spades never swap; hearts and clubs do
    assert alike_suits("spade") == [(1, 3)]


def test_tuxedo_swaps_red_with_yellow_and_green_with_blue() -> None:
    """V-tux-score: an orange takes a red and a yellow card, and no colour scores otherwise,
    so red-yellow and green-blue are the two swaps (red-green would break oranges)."""
    ry, gb = suit_swaps("tuxedo", 120, [0, 52])
    for base in (0, 52):  # in every plane named, card id 4 * (number - 1) + colour (R Y G B)
        assert ry[base + 4 * 4 + 0] == base + 4 * 4 + 1 and ry[base + 4 * 4 + 1] == base + 16
        assert ry[base + 2] == base + 2 and ry[base + 3] == base + 3
        assert gb[base + 4 * 9 + 2] == base + 4 * 9 + 3 and gb[base + 0] == base + 0
    assert (ry[ry] == np.arange(120)).all() and (gb[gb] == np.arange(120)).all()
    assert ry[110] == 110  # beyond the planes: untouched


def test_the_suit_swap_is_refused_where_no_suits_score_alike(monkeypatch) -> None:
    import experiments.endgame_net as en

    monkeypatch.setattr(en, "alike_suits", lambda variant: [])
    with pytest.raises(SystemExit, match="no two suits"):
        en.suit_swaps("casino", 60, [0])


def test_cards_in_hand_count_two_decks_copies() -> None:
    """The hand plane holds a copy of a card as 1/2 with two decks: a hand of KH, KH and 5H
    (after playing a card) held four cards."""
    from agents.afterstate import afterstate_row, layout_of
    from casino_env.engine import State
    from experiments.endgame_net import cards_in_hand

    st = State.from_spec({"variant": "krypkasino", "players": 2, "hands":
                          [["KH", "KH", "5H"], ["3C"]], "table": ["4D"]})
    x = afterstate_row(layout_of(st.rules), st, 0)[None]
    assert list(cards_in_hand(x, 2)) == [4]


def test_the_static_lead_scores_the_piles_read_back_from_the_encoding() -> None:
    from agents.afterstate import static_leads
    from casino_env.encoding import Layout
    from casino_env.engine import new_game

    def rows(variant: str) -> np.ndarray:
        rules = new_game(variant, 2).rules
        layout = Layout(rules, compose=False, kind="compact")
        x = np.zeros((2, layout.size + 52), np.float32)
        piles = layout.offset["piles"]
        for card in ("10D", "AS", "2S"):  # mine: 2 + 1 + 1, most cards 3, most spades 1
            x[0, piles + rules.deck.index[card]] = 1
        x[0, piles + rules.deck.index["3H"]] = -1
        x[1] = x[0]
        x[1, piles + rules.deck.index["10D"]] = -1  # 10D to the other side: 2 cards each
        x[1, layout.offset["sweeps"] + 1] = 0.2  # and two sweeps to the other side
        return x

    # casino: 8 points to none; then spades, AS and 2S (3) against 10D (2); no sweep points
    assert list(static_leads(new_game("casino", 2).rules, rows("casino"))) == [8.0, 1.0]
    # dominican scores sweeps: the other side's two count
    assert list(static_leads(new_game("dominican", 2).rules, rows("dominican"))) == [8.0, -1.0]


def test_a_fit_is_reproducible_and_writes_its_row(tmp_path) -> None:
    from experiments.endgame_net import fit

    run = tmp_path / "run"
    run.mkdir()
    collect_shard(("casino", 6, 3, run / "shard_000.npz"))
    rows = [fit(run, tmp_path / f"out{i}", "casino", 16, 1, True, 0, True, "centered")
            for i in range(2)]
    assert rows[0] == {**rows[1], "fit_minutes": rows[0]["fit_minutes"]}
    assert 0 <= rows[0]["heuristic_lost"] and 0 <= rows[0]["net_lost"]
    assert (tmp_path / "out0" / "summary.md").read_text().count("| casino |") == 1
    # a regularised fit adds its row beside the first, its settings recorded
    third = fit(run, tmp_path / "out0", "casino", 16, 1, True, 0, True, "value", dropout=0.5,
                weight_decay=0.01, ranks=True)
    assert third["dropout"] == 0.5 and third["ranks"] and third["net_lost"] >= 0
    import csv
    with (tmp_path / "out0" / "fits.csv").open() as f:
        kept = list(csv.DictReader(f))
    assert [r["loss"] for r in kept] == ["centered", "value"]
    assert [r["weight_decay"] for r in kept] == ["0.0", "0.01"]
    # with the regret term: its weight and temperature are recorded in the row
    fourth = fit(run, tmp_path / "out0", "casino", 16, 1, True, 0, True, "centered",
                 regret=5.0, regret_temp=0.25)
    assert fourth["regret"] == 5.0 and fourth["regret_temp"] == 0.25
    with (tmp_path / "out0" / "fits.csv").open() as f:
        assert [r["regret"] for r in csv.DictReader(f)] == ["0.0", "0.0", "5.0"]
    # the set network (--net set): reproducible, its kind recorded, playable once saved
    sets = [fit(run, tmp_path / f"set{i}", "casino", 16, 1, True, 0, True, "centered",
                kind="set", layers=1, save=tmp_path / f"set{i}.pt") for i in range(2)]
    assert sets[0] == {**sets[1], "fit_minutes": sets[0]["fit_minutes"]}
    assert sets[0]["net"] == "set, 1 layers" and sets[0]["net_lost"] >= 0
    assert "| casino | set, 1 layers |" in (tmp_path / "set0" / "summary.md").read_text()
    from agents.afterstate import AfterstateNet
    assert AfterstateNet(tmp_path / "set0.pt").meta["kind"] == "set"


def test_a_fit_stopped_and_resumed_from_its_checkpoint_is_the_same_fit(tmp_path) -> None:
    import csv

    import torch

    from experiments.endgame_net import fit

    run = tmp_path / "run"
    run.mkdir()
    collect_shard(("casino", 6, 3, run / "shard_000.npz"))
    args = (run, tmp_path / "out", "casino", 16, 3, True, 0, True, "centered")
    whole = fit(*args, save=tmp_path / "whole.pt", lr_schedule="cosine")
    ck = tmp_path / "fit.ckpt"
    # stopped after one epoch: no row, no network, a checkpoint of one epoch
    assert fit(*args, save=tmp_path / "resumed.pt", lr_schedule="cosine", checkpoint=ck,
               stop_after=1) is None
    assert not (tmp_path / "resumed.pt").exists()
    assert torch.load(ck, weights_only=False)["epochs_done"] == 1
    resumed = fit(*args, save=tmp_path / "resumed.pt", lr_schedule="cosine", checkpoint=ck)
    assert resumed == {**whole, "fit_minutes": resumed["fit_minutes"]}
    a, b = (torch.load(tmp_path / f"{n}.pt")["state_dict"] for n in ("whole", "resumed"))
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert torch.load(ck, weights_only=False)["epochs_done"] == 3
    # the schedule is recorded and changes the fit: cosine ends at a rate of 0
    constant = fit(*args)
    assert constant["lr_schedule"] == "constant" and whole["lr_schedule"] == "cosine"
    assert constant["net_train_lost"] != whole["net_train_lost"] or \
        constant["held_mse"] != whole["held_mse"]
    with (tmp_path / "out" / "fits.csv").open() as f:
        assert [r["lr_schedule"] for r in csv.DictReader(f)] == ["cosine", "cosine",
                                                                 "constant"]
    assert "| 3 (cosine) |" in (tmp_path / "out" / "summary.md").read_text()
    # a checkpoint of other settings is refused by name, not silently resumed
    with pytest.raises(SystemExit, match="epochs"):
        fit(run, tmp_path / "out", "casino", 16, 4, True, 0, True, "centered",
            lr_schedule="cosine", checkpoint=ck)
    with pytest.raises(SystemExit, match="--stop-after"):
        fit(*args, stop_after=1)
    with pytest.raises(SystemExit, match="--lr-schedule"):
        fit(*args, lr_schedule="linear")


def test_a_constant_rate_fit_is_extended_from_a_checkpoint_of_fewer_epochs(tmp_path) -> None:
    """At a constant rate the epochs count changes nothing before the last one, so a finished
    2-epoch fit's checkpoint goes on to 3 epochs and gives the 3-epoch fit from scratch, bit
    for bit (how hungarian's last deal was fitted for 16 and 24 epochs after 8); a cosine fit, or a
    checkpoint past the epochs asked for, is refused by name."""
    import torch

    from experiments.endgame_net import fit

    run = tmp_path / "run"
    run.mkdir()
    collect_shard(("casino", 6, 3, run / "shard_000.npz"))

    def args(epochs: int) -> tuple:
        return (run, tmp_path / "out", "casino", 16, epochs, True, 0, True, "centered")

    whole = fit(*args(3), save=tmp_path / "whole.pt")
    ck = tmp_path / "fit.ckpt"
    two = fit(*args(2), save=tmp_path / "two.pt", checkpoint=ck)
    assert two["epochs"] == 2 and torch.load(ck, weights_only=False)["epochs_done"] == 2
    longer = fit(*args(3), save=tmp_path / "longer.pt", checkpoint=ck)
    assert longer == {**whole, "fit_minutes": longer["fit_minutes"]}
    a, b = (torch.load(tmp_path / f"{n}.pt")["state_dict"] for n in ("whole", "longer"))
    assert all(torch.equal(a[k], b[k]) for k in a)
    saved = torch.load(ck, weights_only=False)
    assert saved["epochs_done"] == 3 and saved["settings"]["epochs"] == 3
    with pytest.raises(SystemExit, match="differs in epochs"):  # 3 done, 2 asked for
        fit(*args(2), checkpoint=ck)
    with pytest.raises(SystemExit, match="differs in epochs, lr_schedule"):
        fit(*args(4), lr_schedule="cosine", checkpoint=ck)


def test_the_pipelines_set_network_takes_its_width_and_schedule(tmp_path) -> None:
    import csv

    import torch

    from experiments.endgame_net import fit_set_net, main

    run = tmp_path / "run"
    run.mkdir()
    collect_shard(("casino", 6, 3, run / "shard_000.npz"))
    row = fit_set_net(run, tmp_path / "out", "casino", 1, tmp_path / "net.pt",
                      tmp_path / "fit.ckpt", 1, hidden=16, lr_schedule="constant")
    assert row["hidden"] == 16 and row["lr_schedule"] == "constant" and row["epochs"] == 1
    meta = torch.load(tmp_path / "net.pt")["meta"]
    assert meta["kind"] == "set" and meta["hidden"] == 16 and meta["layers"] == 2
    fit_set_net(run, tmp_path / "out", "casino", 1, tmp_path / "net2.pt", tmp_path / "f2.ckpt",
                1)  # the defaults: 64 wide, cosine
    with (tmp_path / "out" / "fits.csv").open() as f:
        assert [(r["hidden"], r["lr_schedule"]) for r in csv.DictReader(f)] == \
            [("16", "constant"), ("64", "cosine")]
    with pytest.raises(SystemExit):  # argparse names the bad choice
        main(["pipeline", "--lr-schedule", "linear"])


def test_the_pipeline_collects_fits_and_plays_then_resumes_without_redoing(tmp_path) -> None:
    import json

    from experiments.endgame_net import pipeline

    out, runs = tmp_path / "out", tmp_path / "runs"
    first = pipeline("casino", out, runs, tree_shards=1, walk_shards=2, epochs=1, hands=2,
                     shard_hands=3)
    assert len(list((runs / "casino_tree_h").glob("shard_*.npz"))) == 1
    assert len(list((runs / "casino_walks").glob("shard_*.npz"))) == 2
    assert (out / "set_net.pt").is_file() and (runs / "casino_set.ckpt").is_file()
    row = (out / "fits.csv").read_text().splitlines()[1]
    assert "set, 2 layers" in row and "cosine" in row
    assert first["hands"] == 2 and "endgame_net=" in first["agent"]
    assert first["agent"].startswith("ppo:experiments/results/train/casino/model.zip")
    # a second run finds every step done: the network is not fitted again, no hand replayed
    mtime = (out / "set_net.pt").stat().st_mtime_ns
    again = pipeline("casino", out, runs, tree_shards=1, walk_shards=2, epochs=1, hands=2,
                     shard_hands=3)
    assert (out / "set_net.pt").stat().st_mtime_ns == mtime
    assert again == first
    assert json.loads((out / "network_alone_v_heuristic" / "summary.json").read_text()) \
        ["hands"] == 2
    with pytest.raises(SystemExit, match="no policy"):
        pipeline("casino", out, runs, policy=str(tmp_path / "none.zip"))
    # without a closing match (a preset with no cloned policy) no policy is needed
    assert pipeline("casino", out, runs, tree_shards=1, walk_shards=2, hands=0,
                    policy=str(tmp_path / "none.zip")) == {}


def test_a_fit_cut_after_its_network_is_saved_is_finished_on_rerun(tmp_path,
                                                                   monkeypatch) -> None:
    """A kill between ``save_net`` and the fits.csv row (the forward pass over every row sits
    between them) left a network the pipeline took as done, its record lost for good: the
    step now needs both, and a rerun finishes the fit from its checkpoint, no shard remade."""
    import csv

    from experiments import endgame_net

    out, runs = tmp_path / "out", tmp_path / "runs"
    kw = dict(tree_shards=1, walk_shards=2, epochs=1, hands=0, shard_hands=3)

    def killed(*a, **k):
        raise KeyboardInterrupt("killed after save_net")

    with monkeypatch.context() as m:
        m.setattr(endgame_net, "points_lost", killed)
        with pytest.raises(KeyboardInterrupt):
            endgame_net.pipeline("casino", out, runs, **kw)
    assert (out / "set_net.pt").is_file() and not (out / "fits.csv").exists()
    shards = {p: p.stat().st_mtime_ns for p in runs.rglob("shard_*.npz")}
    assert endgame_net.pipeline("casino", out, runs, **kw) == {}
    with (out / "fits.csv").open() as f:
        assert [(r["shards"], r["hidden"]) for r in csv.DictReader(f)] == [("2", "64")]
    assert {p: p.stat().st_mtime_ns for p in runs.rglob("shard_*.npz")} == shards
    assert endgame_net.fitted(out / "set_net.pt", 2, 64)
    assert not endgame_net.fitted(out / "set_net.pt", 3, 64)


def test_a_network_cut_short_while_saved_leaves_the_earlier_one(tmp_path, monkeypatch) -> None:
    """``save_net`` writes through a temporary file: a kill mid-write leaves the file that
    was there (or none), never a truncated network."""
    import torch

    from agents.afterstate import save_net, value_net

    path = tmp_path / "net.pt"
    save_net(path, value_net(4, 8), {"variant": "casino"})
    before = path.read_bytes()

    def cut(obj, f, *a, **k):
        Path(f).write_bytes(b"PK\x03\x04 half a file")
        raise KeyboardInterrupt("killed mid-write")

    monkeypatch.setattr(torch, "save", cut)
    with pytest.raises(KeyboardInterrupt):
        save_net(path, value_net(4, 8), {"variant": "casino"})
    assert path.read_bytes() == before
    with pytest.raises(KeyboardInterrupt):
        save_net(tmp_path / "new.pt", value_net(4, 8), {"variant": "casino"})
    assert not (tmp_path / "new.pt").exists()


def test_a_run_holds_shards_of_one_collect_setting(tmp_path) -> None:
    """``collect`` records its settings in the run (collect.json) and refuses to add shards of
    other settings to it, naming what differs; a run of shards made before the record (no
    file) is taken as of the settings given, and recorded; an empty run takes any."""
    import json

    from experiments.endgame_net import collect, record_collect, shard_path

    run = tmp_path / "run"
    run.mkdir()
    shard_path(run, 0).write_bytes(b"")  # a shard of before the record
    collect("casino", 3, 1, 9, 1, run, walks=20, scores=True)
    assert json.loads((run / "collect.json").read_text()) == {
        "variant": "casino", "hands": 3, "seed": 9, "tree": 0.0, "node_limit": 2_000_000,
        "bias": 1.0, "scores": True, "walks": 20, "from_cards": 0, "above": 0}
    collect("casino", 3, 1, 9, 1, run, walks=20, scores=True)  # the same: accepted
    with pytest.raises(SystemExit, match=r"holds data collected with other settings "
                       r"\(hands: 3 there, 4 now; walks: 20 there, 10 now\); give its"):
        collect("casino", 4, 1, 9, 1, run, walks=10, scores=True)
    empty = tmp_path / "empty"
    record_collect(empty, {"seed": 1})
    record_collect(empty, {"seed": 2})  # no data: nothing to mix
    assert json.loads((empty / "collect.json").read_text()) == {"seed": 2}


def test_expected_regret_is_the_points_a_softmax_choice_loses() -> None:
    import torch

    from experiments.endgame_net import expected_regret

    seg = torch.tensor([0, 0, 1, 1, 1])
    values = torch.tensor([1.0, 3.0, 0.0, 2.0, -1.0])  # best: 3 and 2
    flat = expected_regret(torch.zeros(5), values, seg, 2, 1.0)
    assert flat.item() == pytest.approx((2 / 2 + 5 / 3) / 2)  # uniform over each decision
    sure = expected_regret(10 * values, values, seg, 2, 0.1)  # the best, all but surely
    assert sure.item() == pytest.approx(0.0, abs=1e-6)
    wrong = expected_regret(-10 * values, values, seg, 2, 0.1)  # the worst: loses 2 and 3
    assert wrong.item() == pytest.approx(2.5, abs=1e-6)
    pred = torch.zeros(5, requires_grad=True)
    expected_regret(pred, values, seg, 2, 1.0).backward()
    assert pred.grad[1] < 0 < pred.grad[0]  # raising the best move lowers the regret


def test_rank_counts_sum_each_plane_over_suits() -> None:
    from agents.afterstate import rank_counts
    from casino_env.encoding import Layout
    from casino_env.engine import new_game

    rules = new_game("casino", 2).rules
    layout = Layout(rules, compose=False, kind="compact")
    o, ix = layout.offset, rules.deck.index
    x = np.zeros((1, layout.size + 52), np.float32)
    for card in ("5H", "5S", "KD"):
        x[0, o["hand"] + ix[card]] = 1
    x[0, o["table"] + ix["5C"]] = 1  # loose
    x[0, o["table"] + ix["3C"]] = -3 / 14  # in a build of 3: not loose
    x[0, layout.size + ix["AS"]] = 1  # the opponent's
    r = rank_counts(rules, x)[0]
    ace, three, five, king = 0, 2, 4, 12
    assert r.shape == (39,)
    assert r[five] == 2 and r[king] == 1 and r[:13].sum() == 3
    assert r[13 + five] == 1 and r[13 + three] == 0 and r[13:26].sum() == 1
    assert r[26 + ace] == 1 and r[26:].sum() == 1


def _last_deal(variant: str, seed: int):
    """A two-player hand played by the heuristic up to its last deal's first decision."""
    from agents.endgame import perfect_information
    from agents.scripted import HeuristicAgent
    from casino_env.engine import apply_move, new_game
    from casino_env.engine.view import PlayerView

    st, agent = new_game(variant, 2, seed=seed), HeuristicAgent(0)
    while not perfect_information(PlayerView(st, st.current)):
        st = apply_move(st, agent.choose(PlayerView(st, st.current)))
    return st


@pytest.mark.parametrize("variant", ["casino", "dominican"])
def test_the_whole_tree_values_the_roots_moves_as_the_solver_does(variant) -> None:
    import random

    from agents.endgame import move_values
    from casino_env.engine.play import play
    from experiments.endgame_net import tree_records

    st = _last_deal(variant, 4)
    afters = {}
    recs = tree_records(st, 1.0, random.Random(0), 10**6,
                        lambda after, seat: afters.setdefault(id(after), (after, seat)) and
                        id(after))
    exact = move_values(st)
    assert recs and exact and len(exact) >= 2
    # the root is the last position valued, so its moves are the last decision recorded
    root = [r for r in recs if r[0] == recs[-1][0]]
    got = sorted(v for _, _, v in root)
    assert got == sorted(exact.values())
    # every record is from the mover's side: the root's afterstates are the root mover's
    assert all(afters[k][1] == st.current for _, k, _ in root)
    assert {play(st, m, deal_next=False) for m in exact} == {afters[k][0] for _, k, _ in root}
    # a budget too small gives up rather than returning partial values
    assert tree_records(st, 1.0, random.Random(0), 3, lambda a, s: 0) is None


def test_a_tree_shard_holds_many_decisions_per_hand(tmp_path) -> None:
    from experiments.endgame_net import collect_tree_shard, load

    collect_tree_shard(("casino", 2, 5, tmp_path / "shard_000.npz", 0.5, 10**6, 1.0, False, 0))
    d = load(tmp_path)
    assert d["decisions"] > 20 and np.isfinite(d["y"]).all()
    assert (np.bincount(d["group"]) >= 2).all() and not d["heuristic"].any()


def test_extra_decisions_train_but_leave_the_held_out_ones_alone(tmp_path) -> None:
    from experiments.endgame_net import collect_tree_shard, fit

    run, tree = tmp_path / "run", tmp_path / "tree"
    run.mkdir()
    tree.mkdir()
    collect_shard(("casino", 6, 3, run / "shard_000.npz"))
    collect_tree_shard(("casino", 1, 5, tree / "shard_000.npz", 0.3, 10**6, 1.0, False, 0))
    plain = fit(run, tmp_path / "out", "casino", 16, 1, False, 0)
    more = fit(run, tmp_path / "out", "casino", 16, 1, False, 0, extra=tree)
    assert more["extra_decisions"] > 0 and plain["extra_decisions"] == 0
    assert more["held_decisions"] == plain["held_decisions"]
    assert more["heuristic_lost"] == plain["heuristic_lost"]
    assert more["train_decisions"] == plain["train_decisions"] + more["extra_decisions"]
    both = fit(run, tmp_path / "out", "casino", 16, 1, False, 0, extra=[tree, tree])
    assert both["extra_decisions"] == 2 * more["extra_decisions"]
    assert both["held_decisions"] == plain["held_decisions"]


def test_the_tree_bias_records_positions_with_more_cards_in_hand() -> None:
    import random

    from experiments.endgame_net import tree_records

    st = _last_deal("casino", 4)

    def left(share: float, bias: float) -> list[int]:
        recs = tree_records(st, share, random.Random(0), 10**6,
                            lambda after, seat: after.hand_masks[seat].bit_count(), bias)
        return [cards for _, cards, _ in recs]

    every = left(1.0, 1.0)
    assert 0 in every and max(every) >= 2  # last cards played and early decisions alike
    # a vanishing share, times 1e9 per card beyond one: only movers holding 2+ cards record
    biased = left(1e-9, 1e9)
    assert biased and min(biased) >= 1
    assert len(biased) == sum(1 for c in every if c >= 1)


def test_annotations_end_the_records_of_their_moves() -> None:
    """tree_records' annotate: called at each recorded position, its i-th note ends move i's
    record (the root's notes are its moves themselves here)."""
    import random

    from casino_env.engine import legal_moves
    from casino_env.engine.play import play
    from experiments.endgame_net import tree_records

    st = _last_deal("casino", 4)
    recs = tree_records(st, 1.0, random.Random(0), 10**6, lambda after, seat: after,
                        annotate=lambda s, moves: list(moves))
    assert recs and all(len(r) == 4 for r in recs)
    root = [r for r in recs if r[0] == recs[-1][0]]
    assert [r[3] for r in root] == legal_moves(st)
    assert all(r[1] == play(st, r[3], deal_next=False) for r in root)


def test_heuristic_score_columns_and_choices_in_a_tree_shard(tmp_path) -> None:
    """collect --tree --heuristic-scores: each row ends with the heuristic's score of its move
    and the gap to the decision's best (/10); its choice is the top-scored move, one per
    decision; a fit learns on them and records it, or leaves them out on request."""
    from agents.afterstate import heuristic_columns, layout_of
    from agents.scripted import HeuristicAgent
    from casino_env.engine import legal_moves, new_game
    from casino_env.engine.view import PlayerView
    from experiments.endgame_net import collect_tree_shard, fit, load

    st = _last_deal("casino", 4)
    moves = legal_moves(st)
    cols = heuristic_columns(st, moves)
    want = np.array(HeuristicAgent(0).scores(PlayerView(st, st.current), moves), np.float32)
    assert np.allclose(cols[:, 0], want / 10) and np.allclose(cols[:, 1], (want - want.max()) / 10)

    run = tmp_path / "run"
    run.mkdir()
    collect_tree_shard(("casino", 4, 5, run / "shard_000.npz", 0.3, 10**6, 1.0, True, 0))
    d = load(run)
    rules = new_game("casino", 2).rules
    # each decision knows its hand, so held-out decisions are whole deals
    assert d["deal_of"].max() + 1 <= 4 < d["decisions"]
    assert set(d["deal_of"][d["group"]]) == set(range(d["deal_of"].max() + 1))
    assert d["x"].shape[1] == layout_of(rules).size + 54
    assert (np.bincount(d["group"], weights=d["heuristic"]) == 1).all()
    gap = d["x"][:, -1]
    assert (gap <= 0).all() and (gap[d["heuristic"]] == 0).all()
    with_scores = fit(run, tmp_path / "out", "casino", 16, 1, False, 0,
                      save=tmp_path / "net.pt")
    without = fit(run, tmp_path / "out", "casino", 16, 1, False, 0, use_scores=False)
    assert with_scores["heuristic_scores"] and not without["heuristic_scores"]
    assert with_scores["held_decisions"] == without["held_decisions"]
    assert with_scores["heuristic_lost"] == without["heuristic_lost"] >= 0
    # rows without the columns cannot train beside rows with them
    plain = tmp_path / "plain"
    plain.mkdir()
    collect_tree_shard(("casino", 1, 5, plain / "shard_000.npz", 0.3, 10**6, 1.0, False, 0))
    with pytest.raises(SystemExit, match="collect both with or without --heuristic-scores"):
        fit(run, tmp_path / "out", "casino", 16, 1, False, 0, extra=plain)
    # the saved network computes the columns itself when it plays
    from agents import make_agent

    agent = make_agent(f"heuristic:endgame_net={tmp_path / 'net.pt'}")
    assert agent.endgame_net.meta["heuristic_scores"]
    assert agent.endgame_net.values(st, moves).shape == (len(moves),)
    assert agent.choose(PlayerView(st, st.current)) in moves


def test_held_out_decisions_are_whole_deals_where_shards_know_them(tmp_path) -> None:
    """A run whose shards record deals is split by deal; one too small to hold any out is
    refused by name (not measured on nothing)."""
    from experiments.endgame_net import collect_tree_shard, fit

    run = tmp_path / "run"
    run.mkdir()
    collect_tree_shard(("casino", 2, 5, run / "shard_000.npz", 0.2, 10**6, 1.0, True, 0))
    with pytest.raises(SystemExit, match="deals fell in the held-out share"):
        fit(run, tmp_path / "out", "casino", 16, 1, False, 0)


def test_walks_record_the_decisions_play_meets_once_each(tmp_path) -> None:
    """tree_records' walks: the deal played out from its root, every position with a choice
    met recorded once, each with the solver's values of its moves; a shard of walks alone
    (share 0) keeps its deals and the heuristic's choices."""
    import random

    from agents.endgame import move_values
    from experiments.endgame_net import _value_key, collect_tree_shard, load, tree_records

    st = _last_deal("casino", 4)
    recs = tree_records(st, 0.0, random.Random(0), 10**6, lambda after, seat: 0,
                        annotate=lambda s, moves: [s] * len(moves), walks=6,
                        choose=lambda s, moves: moves[-1])
    met: dict = {}
    for d, _, _, s in recs:
        met.setdefault(d, s)
    keys = [_value_key(s) for s in met.values()]
    assert len(set(keys)) == len(keys) >= 3
    assert met[0] == st  # the root first
    for d, s in met.items():
        got = sorted(v for dd, _, v, _ in recs if dd == d)
        assert got == sorted(move_values(s).values())

    collect_tree_shard(("casino", 2, 5, tmp_path / "shard_000.npz", 0.0, 10**6, 1.0, True, 3))
    d = load(tmp_path)
    assert d["decisions"] >= 4 and d["deal_of"].max() + 1 <= 2
    assert (np.bincount(d["group"], weights=d["heuristic"]) == 1).all()


def test_online_scores_the_heuristic_and_each_network_on_the_same_decisions(tmp_path) -> None:
    """endgame_net online: every player is scored on the same last-deal decisions of the
    heuristic's own line, overall and by cards in hand (the overall figure is the
    decision-weighted mean of those), written as CSV and Markdown."""
    import csv

    from experiments.endgame_net import online

    net = "experiments/results/exit/endgame_net_casino/tree_net.pt"
    rows = online("casino", [net], 3, 9, tmp_path)
    assert [r["player"] for r in rows] == ["heuristic", net]
    assert rows[0]["decisions"] == rows[1]["decisions"] > 0
    with (tmp_path / "online.csv").open() as f:
        kept = list(csv.DictReader(f))
    assert [r["player"] for r in kept] == ["heuristic", net]
    assert (tmp_path / "online.md").read_text().count("| heuristic |") == 1
    for r in rows:
        lost = {int(k.split("_")[1]): v for k, v in r.items() if k.startswith("lost_")}
        count = {int(k.split("_")[1]): v for k, v in r.items() if k.startswith("decisions_")}
        assert set(lost) == set(count) and sum(count.values()) == r["decisions"]
        assert all(v >= 0 for v in lost.values())
        mean = sum(lost[c] * count[c] for c in lost) / r["decisions"]
        assert abs(mean - r["points_lost"]) < 1e-3
    # with margins: each network at each; a margin beyond any gap plays the heuristic's moves
    rows = online("casino", [net], 3, 9, tmp_path, margins=[0, 1000])
    assert [r["player"] for r in rows] == ["heuristic", net, f"{net} (margin 1000)"]
    assert rows[2]["points_lost"] == rows[0]["points_lost"]
    # with depths: minimax over D plies; 8 plies reach the end of a casino last deal (at most
    # 4 cards a hand), so it loses nothing
    rows = online("casino", [], 3, 9, tmp_path, depths=[1, 8], residue=True)
    assert [r["player"] for r in rows] == [
        "heuristic", "lookahead 1 plies", "lookahead 8 plies",
        "lookahead 1 plies, table to last capturer", "lookahead 8 plies, table to last capturer"]
    assert rows[2]["points_lost"] == rows[4]["points_lost"] == 0
    assert len({r["decisions"] for r in rows}) == 1


def test_a_deal_too_large_to_solve_is_solved_from_a_number_of_cards(tmp_path) -> None:
    """collect --from-cards N (thirty-fifth session, for swazi's 12 cards a deal): the solve
    starts at the first last-deal decision where the mover holds at most N cards, so every
    recorded decision holds at most N and some hold exactly N; the shards, the fit and the
    saved network carry N, and the network plays only there (the heuristic above it). With
    extra training runs it plays where any of them had decisions: up to the largest N, or
    at any number of cards beside a ``--above-cards`` run (play-out labels above N)."""
    from agents.afterstate import AfterstateNet
    from agents.endgame import perfect_information
    from agents.scripted import HeuristicAgent
    from casino_env.engine import apply_move, legal_moves, new_game
    from casino_env.engine.view import PlayerView
    from experiments.endgame_net import (
        cards_in_hand,
        collect_playout_shard,
        collect_tree_shard,
        fit,
        load,
    )

    run, other = tmp_path / "run", tmp_path / "other"
    for folder, n, hands in ((run, 3, 16), (other, 4, 1)):
        folder.mkdir()
        collect_tree_shard(("swazi", hands, 5, folder / "shard_000.npz", 0.0, 10**6, 1.0,
                            True, 4, n))
    d = load(run)
    cards = cards_in_hand(d["x"])
    assert d["max_cards"] == 3 and cards.max() == 3 and (cards == 3).any()
    assert load(other)["max_cards"] == 4
    fit(run, tmp_path / "out", "swazi", 16, 1, False, 0, True, "centered", kind="set",
        layers=1, save=tmp_path / "net.pt")
    net = AfterstateNet(tmp_path / "net.pt")
    assert net.max_cards == 3
    played, heuristic = {}, HeuristicAgent(0)
    st = new_game("swazi", 2, seed=11)
    start = st.hand_points
    while st.hand_points is start:  # a heuristic line (trailing alone piles the table up)
        view, moves = PlayerView(st, st.current), legal_moves(st)
        if perfect_information(view) and len(moves) > 1:
            played[view.hand_sizes[view.seat]] = net.choose(view, moves)
        st = apply_move(st, heuristic.choose(view))
    assert played[12] is None and played[4] is None
    assert played[3] is not None and played[2] is not None
    fit(run, tmp_path / "out", "swazi", 16, 1, False, 0, True, "centered", kind="set",
        layers=1, extra=other, save=tmp_path / "net4.pt")
    assert AfterstateNet(tmp_path / "net4.pt").max_cards == 4
    above = tmp_path / "above"
    above.mkdir()
    collect_playout_shard(("swazi", 1, 5, above / "shard_000.npz", 10))
    d = load(above)
    assert d["max_cards"] == 0 and cards_in_hand(d["x"]).min() == 11
    assert (np.bincount(d["group"], weights=d["heuristic"]) == 1).all()
    fit(run, tmp_path / "out", "swazi", 16, 1, False, 0, True, "centered", kind="set",
        layers=1, extra=above, save=tmp_path / "net_all.pt")
    assert AfterstateNet(tmp_path / "net_all.pt").max_cards == 0


def test_cheap_labels_are_scored_beside_the_heuristic(tmp_path) -> None:
    """endgame_net online --labels (thirty-fifth session, for swazi's 12-card last deal): the
    move each cheap labelling values highest, scored against exact play on the same decisions.
    A casino last deal holds at most 4 cards a hand, so ``heuristic+exact4`` values every
    afterstate exactly and loses nothing; ``--max-cards 2`` keeps only decisions with 2 cards
    or fewer; an unknown labelling is refused by name."""
    from experiments.endgame_net import online

    rows = online("casino", [], 4, 9, tmp_path, labels=["builder", "heuristic",
                                                        "heuristic+exact4"])
    assert [r["player"] for r in rows] == ["heuristic", "builder label", "heuristic label",
                                           "heuristic+exact4 label"]
    assert len({r["decisions"] for r in rows}) == 1 and rows[0]["decisions"] > 10
    assert rows[3]["points_lost"] == 0
    small = online("casino", [], 4, 9, tmp_path, max_cards=2)
    sizes = {int(k.split("_")[1]) for k in small[0] if k.startswith("decisions_")}
    assert sizes and max(sizes) <= 2
    assert small[0]["decisions"] == sum(rows[0][f"decisions_{c}_cards"] for c in sizes)
    with pytest.raises(SystemExit, match="unknown labelling 'oracle'"):
        online("casino", [], 1, 9, tmp_path, labels=["oracle"])


def test_a_playout_value_is_the_hands_lead_or_the_solvers_value() -> None:
    """``playout_value``: the heuristic plays the last deal out on both seats and the label is
    the side's lead at the hand's end; with ``exact_cards`` at least the cards left, it is the
    solver's exact value (a casino last deal of 4 cards a hand where the heuristic's line is
    worth 0 and best play 5 to the mover)."""
    from agents.endgame import lead, solve
    from agents.scripted import HeuristicAgent
    from casino_env.engine import State
    from casino_env.engine.play import play
    from casino_env.engine.view import PlayerView
    from experiments.endgame_net import playout_value

    piles = [["AH", "AC", "2S", "2D", "3H", "4S", "5H", "5D", "6S", "6H", "6C", "8S", "9C",
              "10S", "10C", "JH", "JD", "QD", "QC"],
             ["AS", "2H", "2C", "3D", "3C", "4H", "4D", "4C", "6D", "8H", "8D", "9H", "10H",
              "10D", "JS", "JC", "QS", "QH", "KH", "KC"]]
    st = State.from_spec({"variant": "casino", "players": 2, "dealer": 1, "current": 0,
                          "hands": [["5S", "7H", "8C", "9S"], ["AD", "7S", "7D", "KS"]],
                          "table": ["3S", "5C", "7C", "9D", "KD"], "stock": [],
                          "piles": piles, "sweeps": [0, 0], "scores": [0, 0],
                          "last_capturer": 1})
    assert solve(st, 10**6)[1] == 5.0
    assert playout_value(st, st.hand_points, 0, HeuristicAgent(0), 4) == 5.0
    assert playout_value(st, st.hand_points, 1, HeuristicAgent(0), 4) == -5.0
    agent, line, hand = HeuristicAgent(0), st, st.hand_points
    while line.hand_points is hand:
        line = play(line, agent.choose(PlayerView(line, line.current)), deal_next=False)
    assert lead(line, 0) == 0.0
    assert playout_value(st, hand, 0, HeuristicAgent(0)) == 0.0


def test_card_weights_go_by_the_cards_in_hand_at_each_decision(tmp_path) -> None:
    from experiments.endgame_net import by_cards, cards_in_hand, fit

    assert by_cards(np.array([1, 2, 3, 4, 5]), [1, 1, 2, 3]).tolist() == [1, 1, 2, 3, 3]
    run = tmp_path / "run"
    run.mkdir()
    collect_shard(("casino", 6, 3, run / "shard_000.npz"))
    d = np.load(run / "shard_000.npz")
    held = cards_in_hand(d["x"])
    assert set(held) <= {1, 2, 3, 4} and len(set(held)) > 1  # the last deal: 4 cards at most
    for g in np.unique(d["group"]):  # a decision's moves leave the same number in hand
        assert len(set(held[d["group"] == g])) == 1
    row = fit(run, tmp_path / "out", "casino", 16, 1, True, 0, True, "centered",
              card_weights=[1, 1, 2, 4])
    assert row["card_weights"] == "1 1 2 4" and row["net_lost"] >= 0
    with pytest.raises(SystemExit, match="card-weights"):
        fit(run, tmp_path / "out", "casino", 16, 1, True, 0, True, "centered",
            card_weights=[1, -1])
    with pytest.raises(SystemExit, match="--regret-temp > 0"):
        fit(run, tmp_path / "out", "casino", 16, 1, True, 0, True, "centered", regret=1,
            regret_temp=0)


def _swap_colours(spec: object, swap: dict[str, str]) -> object:
    """A state spec with the Rook cards' colours exchanged by ``swap`` (e.g. R for Y)."""
    if isinstance(spec, str):
        return re.sub(r"\b(\d+)([RYGB])\b", lambda m: m.group(1) + swap.get(m.group(2),
                                                                            m.group(2)), spec)
    if isinstance(spec, list):
        return [_swap_colours(s, swap) for s in spec]
    if isinstance(spec, dict):
        return {k: _swap_colours(v, swap) for k, v in spec.items()}
    return spec


@pytest.mark.parametrize("k, a, b", [(0, "R", "Y"), (1, "G", "B")])
def test_a_tuxedo_colour_swap_is_a_symmetry_of_the_rows_fitted(k: int, a: str, b: str) -> None:
    """V-tux-score: the column swap ``fit --augment`` applies to a tuxedo row is the row of the
    state with the two colours exchanged (its afterstate and the heuristic's columns), and the
    swapped state has the swapped moves, the same heuristic scores and the same hand points."""
    import random

    from agents.afterstate import afterstate_row, heuristic_columns, layout_of
    from casino_env.engine import State, legal_moves, new_game, parse_move
    from casino_env.engine.play import play

    swap = {a: b, b: a}
    layout = layout_of(new_game("tuxedo", 2, seed=0).rules)
    perm = suit_swaps("tuxedo", layout.size + 52 + 2, card_planes(layout))[k]
    rng, checked = random.Random(5), 0
    for seed in range(6):
        st = new_game("tuxedo", 2, seed=seed)
        while not st.game_over:
            moves = legal_moves(st)
            twin = State.from_spec(_swap_colours(st.to_spec(), swap))
            legal = legal_moves(twin)  # each swapped move is one of the twin's legal moves
            twin_moves = [legal[legal.index(parse_move(_swap_colours(str(m), swap), twin))]
                          for m in moves]
            assert len(set(twin_moves)) == len(legal)
            h = heuristic_columns(st, moves)
            h2 = heuristic_columns(twin, twin_moves)
            np.testing.assert_allclose(h, h2, atol=1e-5)
            for i, m in enumerate(moves):
                after, after2 = play(st, m), play(twin, twin_moves[i])
                if after.hand_points is not st.hand_points:  # the next hand's deal is not
                    assert after.hand_points == after2.hand_points  # swapped: points only
                    continue
                row = np.r_[afterstate_row(layout, after, st.current, hidden=True), h[i]]
                row2 = np.r_[afterstate_row(layout, after2, st.current, hidden=True), h2[i]]
                np.testing.assert_array_equal(row[perm], row2)
                checked += 1
            st = play(st, rng.choice(moves))
    assert checked > 300
