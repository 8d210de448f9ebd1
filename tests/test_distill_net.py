"""experiments.distill_net: a fast student fitted to a shipped afterstate network's values
(issue 18: the network alone at 1,000+ decisions a second)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")


def test_collected_labels_are_the_teachers_values_of_the_rows(tmp_path) -> None:
    """Each row of a shard is an afterstate as the teacher's network reads it, labelled with
    the teacher's value of it; a decision's rows are its candidates, the heuristic's pick
    among them."""
    from agents.afterstate import net_inputs
    from experiments.distill_net import collect_shard, teacher
    from experiments.endgame_net import load

    collect_shard(("casino", "before_last", 2, 5, tmp_path / "shard_000.npz"))
    d = load(tmp_path)
    _, net = teacher("casino", "before_last")
    assert net.meta["kind"] == "set"  # the set network casino's shipped student came from
    assert (d["scope"], d["candidates"]) == ("before_last", 8)
    sizes = np.bincount(d["group"])
    assert d["decisions"] > 20 and sizes.min() >= 2 and sizes.max() <= 8
    assert np.array_equal(np.bincount(d["group"], weights=d["heuristic"]), np.ones(len(sizes)))
    # the stored rows are float16: the teacher's pass over them gives its labels to rounding
    inputs, base = net_inputs(net.rules, d["x"], True, False)
    forward = net.members[0][0]
    assert np.abs(forward(inputs) + base - d["y"]).max() < 0.05
    assert np.abs(d["x"][:, net.layout.size:net.layout.size + 52]).sum() == 0  # hidden


def test_a_student_fits_and_plays_in_the_network_alone_agent(tmp_path) -> None:
    """A student fitted on collected rows is an MLP of the teacher's scope and candidates,
    and the network-alone agent plays it in the teacher's place."""
    from agents.networks import NetworksAgent
    from casino_env.engine import apply_move, legal_moves, new_game
    from casino_env.engine.view import PlayerView
    from experiments.distill_net import collect_shard
    from experiments.endgame_net import fit

    run = tmp_path / "run"
    run.mkdir()
    collect_shard(("casino", "before_last", 3, 6, run / "shard_000.npz"))
    save = tmp_path / "student.pt"
    fit(run, tmp_path / "out", "casino", 32, 1, False, 0, True, "centered", save=save)
    agent = NetworksAgent("casino", midgame_net=str(save))
    assert agent.midgame_net.meta["kind"] == "mlp" and agent.midgame_net.candidates == 8
    st = new_game("casino", 2, seed=3)
    for _ in range(12):
        move = agent.choose(PlayerView(st, st.current))
        assert move in legal_moves(st)
        st = apply_move(st, move)


def test_bad_settings_are_named(tmp_path, monkeypatch) -> None:
    import agents.networks
    from experiments.distill_net import collect

    with pytest.raises(SystemExit, match="--scope must be one of"):
        collect("casino", "middle", 1, 1, 1, 1, tmp_path)
    # every preset ships networks now; one that did not (swazi before the thirty-ninth
    # session) is named
    for name in ("SET_NETWORKS", "SHIPPED", "TEACHERS"):
        monkeypatch.setattr(agents.networks, name,
                            {v: f for v, f in getattr(agents.networks, name).items()
                             if v != "swazi"})
    with pytest.raises(SystemExit, match="no networks ship for 'swazi'"):
        collect("swazi", "before_last", 1, 1, 1, 1, tmp_path)
    monkeypatch.undo()
    with pytest.raises(SystemExit, match="must be >= 1"):
        collect("casino", "before_last", 0, 1, 1, 1, tmp_path)


def test_a_teacher_given_by_paths_is_distilled_and_played_beside_its_last_deal(tmp_path) -> None:
    """For a preset that ships no networks yet (``experiments.networks_build``), the teacher
    is named by its two paths; the closing match plays the student with the teacher's
    last-deal network."""
    from agents.networks import ROOT, SET_NETWORKS
    from experiments.distill_net import pipeline, teacher

    mid, end = (str(ROOT / p) for p in SET_NETWORKS["casino"])
    agent, net = teacher("casino", "before_last", (mid, end))
    assert net is agent.midgame_net and net.meta["kind"] == "set"
    s = pipeline("casino", "before_last", tmp_path / "out", tmp_path / "runs", 1, 8, 1, 16, 1,
                 2, networks=(mid, end))
    student = tmp_path / "out" / "student_16.pt"
    assert student.is_file() and s["hands"] == 2
    assert s["agent"] == f"networks:casino,midgame_net={student},endgame_net={end}"
    # the command line names them the same way (--networks BEFORE_LAST LAST_DEAL); the made
    # student goes straight to its closing match
    from experiments.distill_net import main

    main(["pipeline", "--variant", "casino", "--out", str(tmp_path / "out"), "--runs",
          str(tmp_path / "runs"), "--shards", "1", "--hands", "8", "--workers", "1",
          "--hidden", "16", "--epochs", "1", "--match-hands", "2", "--networks", mid, end])
    kept = (tmp_path / "out" / "student_16_v_heuristic" / "summary.md").read_text()
    assert f"endgame_net={end}" in kept


def test_a_last_deal_student_learns_from_the_set_network_and_plays_beside_a_given_one(
        tmp_path) -> None:
    """On the last deal the teacher is the set network even where a student plays there
    (swazi, ``LAST_DEAL_STUDENTS``); ``beside`` names the before-last network the closing
    match plays with the last deal's student (``networks_build``: the before-last student)."""
    from agents import make_agent
    from agents.afterstate import LAST_DEAL
    from agents.networks import LAST_DEAL_STUDENTS, ROOT, SET_NETWORKS, SHIPPED
    from experiments.distill_net import pipeline, teacher

    assert SHIPPED["swazi"][1] == LAST_DEAL_STUDENTS["swazi"] != SET_NETWORKS["swazi"][1]
    agent, net = teacher("swazi", LAST_DEAL)
    assert net is agent.endgame_net and net.meta["kind"] == "set"
    assert net.path == str(ROOT / SET_NETWORKS["swazi"][1])
    mid, end = (str(ROOT / p) for p in SET_NETWORKS["casino"])
    beside = str(ROOT / SHIPPED["casino"][0])
    s = pipeline("casino", LAST_DEAL, tmp_path / "out", tmp_path / "runs", 1, 6, 1, 16, 1,
                 2, networks=(mid, end), beside=beside)
    student = tmp_path / "out" / "student_16.pt"
    assert s["agent"] == f"networks:casino,endgame_net={student},midgame_net={beside}"
    played = make_agent(s["agent"])
    assert played.endgame_net.scope == LAST_DEAL and played.endgame_net.meta["kind"] == "mlp"


def test_shards_of_another_teacher_are_not_added_to_a_run(tmp_path) -> None:
    """A run's shards are of one teacher: a collect with other networks (or settings) is
    refused, naming them; the shipped teacher is recorded by its files."""
    import json

    from agents.networks import SET_NETWORKS, TEACHERS
    from experiments.distill_net import collect
    from experiments.endgame_net import shard_path

    run = tmp_path / "run"
    run.mkdir()
    shard_path(run, 0).write_bytes(b"")  # made before the record: accepted
    collect("casino", "before_last", 5, 1, 1, 1, run)
    assert json.loads((run / "collect.json").read_text())["teacher"] == [
        TEACHERS["casino"], SET_NETWORKS["casino"][1]]
    other = (SET_NETWORKS["casino"][0].replace("tail60", "tail44"), SET_NETWORKS["casino"][1])
    with pytest.raises(SystemExit, match="teacher: .*tail60_net.pt.* there, .*tail44_net.pt"):
        collect("casino", "before_last", 5, 1, 1, 1, run, networks=other)
