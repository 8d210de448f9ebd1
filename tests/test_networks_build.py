"""experiments.networks_build: one command for a preset's networks (issue 18), its steps in
order with the shipped settings, each given the one before's output."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiments import distill_net, endgame_net, midgame_net, networks_build, tail_value


def fake_steps(monkeypatch, calls: list) -> None:
    """Each step records its call and leaves its file, as the real one does."""

    def tail(variant):
        calls.append(("tail", variant))
        tail_value.tail_path(variant).parent.mkdir(parents=True)
        tail_value.tail_path(variant).write_bytes(b"")

    # every step keeps a committed report of other agents (``keep_other``): checked, then
    # left out of the recorded settings
    def end(variant, out, runs, keep_other=False, **kw):
        assert keep_other
        calls.append(("last_deal", variant, out, runs, kw))
        return {}

    def mid(variant, out, runs, keep_other=False, **kw):
        assert keep_other
        calls.append(("before_last", variant, out, runs, kw))
        return {"agent": "networks", "win_rate": 0.5, "lo": 0.4, "hi": 0.6, "hands": 2}

    def student(variant, scope, out, runs, keep_other=False, **kw):
        assert keep_other
        calls.append(("student", variant, scope, out, runs, kw))
        return {}

    def match(variant, agent, out, hands, workers, keep_other=False):
        assert keep_other
        calls.append(("match", variant, agent, out, hands, workers))
        return {}

    monkeypatch.setattr(tail_value, "build", tail)
    monkeypatch.setattr(endgame_net, "pipeline", end)
    monkeypatch.setattr(midgame_net, "pipeline", mid)
    monkeypatch.setattr(distill_net, "pipeline", student)
    monkeypatch.setattr(endgame_net, "closing_match", match)


def assert_last_deal_refit(refit, match, variant: str, shards: int, workers: int,
                           epochs: int = 8) -> None:
    """Step 5's two calls: the last deal refitted on ``shards`` play-out shards with step 2's
    settings (but ``epochs``), in a work folder of its own (``_work_VN``), into
    ``endgame_net_V_N`` (``_eE`` after it for epochs other than 8), then that agent's
    5,000-hand match."""
    exit_ = Path("experiments/results/exit")
    folder = f"endgame_net_{variant}_{shards}" + (f"_e{epochs}" if epochs != 8 else "")
    assert refit == ("last_deal", variant, exit_ / folder, exit_ / f"_work_{variant}{shards}",
                     dict(workers=workers, lr_schedule="constant", epochs=epochs, hands=0,
                          walk_shards=shards, from_cards=0, above_shards=0))
    assert match == ("match", variant, f"networks:{variant},endgame_net=experiments/results/"
                     f"exit/{folder}/set_net.pt", exit_ / folder / "networks_v_heuristic",
                     5000, workers)


def test_the_steps_run_in_order_with_the_shipped_settings(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    calls: list = []
    fake_steps(monkeypatch, calls)
    networks_build.build("wippen", workers=2)
    exit_ = Path("experiments/results/exit")
    work = exit_ / "_work_wippen"
    tail, last, before, student, refit, match = calls
    assert tail == ("tail", "wippen")
    # no cloned policy in this folder: the last deal's step plays no closing match
    assert last == ("last_deal", "wippen", exit_ / "endgame_net_wippen_const", work,
                    dict(workers=2, lr_schedule="constant", epochs=8, hands=0,
                         tree_shards=4, walk_shards=24, from_cards=0, above_shards=0))
    assert before == ("before_last", "wippen", exit_ / "midgame_net_wippen_pipeline", work,
                      dict(shards=30, hands=5000, workers=2,
                           tail=exit_ / "tail_value_wippen/tail.npz",
                           endgame=exit_ / "endgame_net_wippen_const/set_net.pt", hidden=64))
    assert student == ("student", "wippen", "before_last", exit_ / "distill_net_wippen", work,
                       dict(shards=24, hands=500, workers=2, hidden=256, epochs=8,
                            match_hands=5000,
                            networks=(str(exit_ / "midgame_net_wippen_pipeline/tail_net.pt"),
                                      str(exit_ / "endgame_net_wippen_const/set_net.pt"))))
    # then its last deal refitted on 96 play-out shards (fortieth session: what
    # networks:wippen plays)
    assert_last_deal_refit(refit, match, "wippen", 96, 2)


def test_a_made_boundary_value_and_a_cloned_policy_are_used(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    calls: list = []
    fake_steps(monkeypatch, calls)
    tail_value.tail_path("royal").parent.mkdir(parents=True)
    tail_value.tail_path("royal").write_bytes(b"")
    Path("experiments/results/train/royal").mkdir(parents=True)
    Path("experiments/results/train/royal/model.zip").write_bytes(b"")
    networks_build.build("royal", workers=1, work=tmp_path / "w")
    # then royal's last deal refitted on 96 play-out shards, in a work folder of its own
    assert [c[0] for c in calls] == ["last_deal", "before_last", "student", "last_deal", "match"]
    assert calls[0][3] == tmp_path / "w" and calls[0][4]["hands"] == 2000
    assert calls[1][4]["tail"] == tail_value.tail_path("royal")


def test_rules_without_a_boundary_value_roll_out_to_the_hands_end(tmp_path, monkeypatch
                                                                  ) -> None:
    """Tuxedo scores oranges and sweeps as events, which a boundary value cannot see: no
    boundary value is made, and the network before the last deal gets none; it is fitted on
    120 shards (BEFORE_LAST_SHARDS), 128 wide (BEFORE_LAST_HIDDEN), into a folder of its own,
    and plays itself with no student (UNDISTILLED; forty-seventh session)."""
    monkeypatch.chdir(tmp_path)
    calls: list = []
    fake_steps(monkeypatch, calls)
    networks_build.build("tuxedo", workers=1)
    # then its last deal refitted on 960 play-out shards (LAST_DEAL_SHARDS, fiftieth session)
    # for 16 epochs (LAST_DEAL_EPOCHS, fifty-first session)
    assert [c[0] for c in calls] == ["last_deal", "before_last", "last_deal", "match"]
    assert_last_deal_refit(*calls[2:], "tuxedo", 960, 1, epochs=16)
    assert calls[1][4]["tail"] is None
    exit_ = Path("experiments/results/exit")
    assert calls[1][2:4] == (exit_ / "midgame_net_tuxedo_120_h128", exit_ / "_work_tuxedo")
    assert calls[1][4]["shards"] == 120 and calls[1][4]["hidden"] == 128
    assert calls[0][4]["walk_shards"] == 240  # its last deal: 2 cards each
    assert not tail_value.tail_path("tuxedo").exists()
    assert "student" not in networks_build.outputs("tuxedo")
    # a refit on other shards keeps the preset's width, in a folder named by both
    calls.clear()
    networks_build.build("tuxedo", workers=1, before_last=60)
    assert calls[1][2] == exit_ / "midgame_net_tuxedo_60_h128" and calls[1][4]["shards"] == 60


def test_a_deal_too_large_to_solve_is_solved_from_fewer_cards(tmp_path, monkeypatch) -> None:
    """Swazi deals 12 cards each: its last deal is solved from 5 cards in the mover's hand
    (``FROM_CARDS``; thirty-fifth session), the decisions above valued by play-outs
    (``ABOVE_SHARDS``), and before the last deal it rolls out to the hand's end (its steals
    leave no boundary value)."""
    monkeypatch.chdir(tmp_path)
    calls: list = []
    fake_steps(monkeypatch, calls)
    networks_build.build("swazi", workers=1)
    assert [c[0] for c in calls] == ["last_deal", "before_last", "student", "student"]
    assert calls[0][4]["from_cards"] == 5 and calls[0][4]["walk_shards"] == 24
    assert calls[0][4]["above_shards"] == 12
    assert calls[1][4]["tail"] is None


def test_a_last_deal_too_slow_on_its_set_network_gets_a_student(tmp_path, monkeypatch) -> None:
    """Swazi's last-deal set network attends over 12-card hands, too slow for 1,000 decisions
    a second (``LAST_DEAL_STUDENTS``, thirty-ninth session): a fifth step fits an MLP student
    of it, taught by both set networks, its shards beside the before-last student's, and
    plays it beside that student; other presets stop at four steps."""
    monkeypatch.chdir(tmp_path)
    calls: list = []
    fake_steps(monkeypatch, calls)
    networks_build.build("swazi", workers=2)
    exit_ = Path("experiments/results/exit")
    *_, student, last_student = calls
    assert student[2:5] == ("before_last", exit_ / "distill_net_swazi_10", exit_ / "_work_swazi10")
    assert last_student == (
        "student", "swazi", "last_deal", exit_ / "distill_net_swazi_10_last_deal",
        exit_ / "_work_swazi10",
        dict(shards=24, hands=500, workers=2, hidden=256, epochs=8, match_hands=5000,
             networks=(str(exit_ / "midgame_net_swazi_10/tail_net.pt"),
                       str(exit_ / "endgame_net_swazi_const/set_net.pt")),
             beside=str(exit_ / "distill_net_swazi_10/student_256.pt")))
    calls.clear()
    networks_build.build("finnish", workers=2)
    assert [c[2] for c in calls if c[0] == "student"] == ["before_last"]


def test_more_shards_before_the_last_deal_go_to_their_own_folders(tmp_path, monkeypatch
                                                                   ) -> None:
    """Hungarian's network before the last deal is fitted on 60 shards (BEFORE_LAST_SHARDS):
    its collect adds to the same work folder, but the network, its student and the student's
    shards (valued by the new teacher) go to folders of their own, as does its last deal's
    refit on more play-out shards (LAST_DEAL_SHARDS)."""
    monkeypatch.chdir(tmp_path)
    calls: list = []
    fake_steps(monkeypatch, calls)
    networks_build.build("hungarian", workers=2)
    exit_ = Path("experiments/results/exit")
    work = exit_ / "_work_hungarian"
    last, before, student, refit, match = calls
    assert last[4]["walk_shards"] == 160
    assert before[2:4] == (exit_ / "midgame_net_hungarian_60", work)
    assert before[4]["shards"] == 60 and before[4]["tail"] is None
    assert student[3:5] == (exit_ / "distill_net_hungarian_60", exit_ / "_work_hungarian60")
    assert student[5]["networks"] == (str(exit_ / "midgame_net_hungarian_60/tail_net.pt"),
                                      str(exit_ / "endgame_net_hungarian_const/set_net.pt"))
    # and its last deal refitted on 640 play-out shards (LAST_DEAL_SHARDS, forty-second
    # session) for 24 epochs (LAST_DEAL_EPOCHS, forty-third)
    assert_last_deal_refit(refit, match, "hungarian", 640, 2, epochs=24)
    assert networks_build.before_last_shards("wippen") == 30
    assert networks_build.student_work("wippen", work) == work
    # a refit of another preset on 60 shards, asked for by --before-last-shards: the same
    # folders of its own, the shipped ones untouched
    calls.clear()
    networks_build.main(["--variant", "swedish", "--before-last-shards", "60"])
    before, student = calls[-2:]
    assert before[2] == exit_ / "midgame_net_swedish_60" and before[4]["shards"] == 60
    assert student[3:5] == (exit_ / "distill_net_swedish_60", exit_ / "_work_swedish60")
    assert networks_build.before_last_shards("spade") == 60
    with pytest.raises(SystemExit, match="--before-last-shards must be >= 1, got 0"):
        networks_build.build("spade", before_last=0)


def test_royal_and_dominican_are_remade_as_they_were_made(tmp_path, monkeypatch) -> None:
    """Royal's and dominican's networks came before the command, from ``midgame_net
    pipeline`` on 60 shards into its own folder (and dominican's last deal from 40 play-out
    shards): the command makes them so, into the same folders, and 30 is a refit for them;
    then both last deals are refitted on more play-out shards (120 and 96)."""
    monkeypatch.chdir(tmp_path)
    calls: list = []
    fake_steps(monkeypatch, calls)
    exit_ = Path("experiments/results/exit")
    networks_build.build("dominican", workers=1)
    last, before, student, refit, match = calls[-5:]
    assert last[4]["walk_shards"] == 40
    assert before[2] == exit_ / "midgame_net_dominican_pipeline" and before[4]["shards"] == 60
    assert before[4]["endgame"] == exit_ / "endgame_net_dominican_const/set_net.pt"
    assert student[3:5] == (exit_ / "distill_net_dominican", exit_ / "_work_dominican")
    assert student[5]["networks"][1] == str(exit_ / "endgame_net_dominican_const/set_net.pt")
    # then its last deal refitted on 120 play-out shards (thirty-ninth session: what
    # networks:dominican plays)
    assert_last_deal_refit(refit, match, "dominican", 120, 1)
    calls.clear()
    networks_build.build("royal", workers=1, before_last=30)
    last, before, student, refit, match = calls[-5:]
    assert last[4]["walk_shards"] == 24
    assert before[2] == exit_ / "midgame_net_royal_30" and before[4]["shards"] == 30
    assert student[3:5] == (exit_ / "distill_net_royal_30", exit_ / "_work_royal30")
    # then its last deal refitted on 96 play-out shards (forty-first session) for 16 epochs
    # (LAST_DEAL_EPOCHS, forty-fourth session: what networks:royal plays)
    assert_last_deal_refit(refit, match, "royal", 96, 1, epochs=16)


def test_the_command_settings_are_the_shipped_networks_records() -> None:
    """The shards each shipped network was fitted on (its fits.csv) are those the command
    collects for its preset: before the last deal and on it (casino's network before it shares
    its fits.csv with fits on fewer shards: its row is the last), the width of the network
    before it, and the epochs of the last deal's; casino's last deal's tree shards too."""
    import csv

    from agents.networks import (
        BEFORE_LAST_HIDDEN,
        LAST_DEAL_EPOCHS,
        LAST_DEAL_SHARDS,
        SET_NETWORKS,
    )

    for v, (mid, end) in SET_NETWORKS.items():
        for path, shards in ((mid, networks_build.before_last_shards(v)),
                             (end, LAST_DEAL_SHARDS.get(v, networks_build.WALK_SHARDS.get(v, 24)))):
            with open(Path(path).parent / "fits.csv") as f:
                rows = list(csv.DictReader(f))
            if path == mid and v == "casino":
                rows = rows[-1:]
            assert [int(r["shards"]) for r in rows] == [shards], (v, path)
            if path == mid:  # and its width (tuxedo's 128, BEFORE_LAST_HIDDEN)
                assert int(rows[0]["hidden"]) == BEFORE_LAST_HIDDEN.get(v, 64), (v, path)
        # and the epochs of the last deal's (hungarian's refit 24, LAST_DEAL_EPOCHS)
        assert int(rows[0]["epochs"]) == LAST_DEAL_EPOCHS.get(v, 8), (v, end)

    # a width other than 64 is a refit into a folder named by it: its shards are named too
    assert set(BEFORE_LAST_HIDDEN) <= set(networks_build.BEFORE_LAST_SHARDS)


def test_the_shipped_networks_are_those_the_command_makes() -> None:
    """``networks:V`` plays the files ``networks_build`` writes (and, finding them, makes no
    more) for every preset, casino's included (made before the command, named by
    ``BEFORE_LAST_FILE``), and the students' teachers are the set networks it makes."""
    from agents.networks import (
        LAST_DEAL_STUDENTS,
        SET_NETWORKS,
        SHIPPED,
        STUDENTS,
        TEACHERS,
        UNDISTILLED,
    )

    for v, (mid, end) in SHIPPED.items():
        assert networks_build.played(v) == (Path(mid), Path(end)), v
        files = networks_build.networks(v)
        assert files["before_last"] == Path(SET_NETWORKS[v][0]), v
        assert files.get("last_deal_refit", files["last_deal"]) == Path(SET_NETWORKS[v][1]), v
        if v in TEACHERS:
            assert files["before_last"] == Path(TEACHERS[v]), v
    for v, (mid, end) in SET_NETWORKS.items():
        out = networks_build.outputs(v)
        assert Path(mid).parent == out["before_last"], v
        assert Path(end) == out.get("last_deal_refit", out["last_deal"]) / "set_net.pt", v
        if v in UNDISTILLED:  # its set network plays itself: the command makes no student
            assert v not in STUDENTS and "student" not in out, v
            continue
        assert Path(STUDENTS[v]) == out["student"] / "student_256.pt", v
        if v in LAST_DEAL_STUDENTS:
            assert Path(LAST_DEAL_STUDENTS[v]) == out["last_deal_student"] / "student_256.pt"
    assert list(LAST_DEAL_STUDENTS) == ["swazi"]


def test_krypkasino_gets_more_play_out_shards_and_no_boundary_value(tmp_path, monkeypatch
                                                                     ) -> None:
    """Krypkasino's last deal is 2 cards each (V-kryp-play: the two decks' last 4 cards), so
    its last deal's network takes 240 play-out shards, as tuxedo's; penalties on two decks
    have no boundary value, so its rollouts before the last deal go to the hand's end."""
    monkeypatch.chdir(tmp_path)
    calls: list = []
    fake_steps(monkeypatch, calls)
    networks_build.build("krypkasino", workers=2)
    assert [c[0] for c in calls] == ["last_deal", "before_last", "student", "last_deal",
                                     "match"]
    assert calls[0][4]["walk_shards"] == 240 and calls[0][4]["hands"] == 0
    assert calls[1][4]["tail"] is None and calls[1][4]["shards"] == 30
    # then its last deal refitted on 960 play-out shards (LAST_DEAL_SHARDS, fifty-second
    # session), what networks:krypkasino plays
    assert_last_deal_refit(*calls[3:], "krypkasino", 960, 2)


def test_bad_settings_are_named(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    fake_steps(monkeypatch, [])
    with pytest.raises(SystemExit, match="unknown preset 'whist'"):
        networks_build.build("whist")
    with pytest.raises(SystemExit, match="--workers must be >= 1"):
        networks_build.build("wippen", workers=0)


def test_a_made_network_needs_no_shards(tmp_path, monkeypatch) -> None:
    """A fresh checkout holds the committed networks but not the shards they were fitted on:
    each pipeline goes straight to its closing match instead of collecting them again."""
    def refuse(*a, **kw):
        raise AssertionError("collected or fitted although the network is on disk")

    matches: list = []
    for module in (endgame_net, midgame_net, distill_net):
        monkeypatch.setattr(module, "collect", refuse)
    monkeypatch.setattr(endgame_net, "fit_set_net", refuse)
    monkeypatch.setattr(endgame_net, "fit", refuse)
    monkeypatch.setattr(endgame_net, "closing_match",
                        lambda variant, agent, out, hands, workers, *_: matches.append(agent)
                        or {})
    for name in ("end/set_net.pt", "mid/tail_net.pt", "student/student_256.pt", "tail.npz"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    # each network with its fit's row, written after it (a network without one is a fit cut
    # short: test_a_network_without_its_fits_row_is_fitted_again)
    for folder, shards, hidden in (("end", 24, 64), ("mid", 60, 64), ("student", 24, 256)):
        (tmp_path / folder / "fits.csv").write_text(f"shards,hidden\n{shards},{hidden}\n")
    assert endgame_net.pipeline("swedish", tmp_path / "end", tmp_path / "w", hands=0) == {}
    midgame_net.pipeline("swedish", tmp_path / "mid", tmp_path / "w", hands=10,
                         tail=tmp_path / "tail.npz", endgame=tmp_path / "end/set_net.pt")
    distill_net.pipeline("swedish", "before_last", tmp_path / "student", tmp_path / "w", 24,
                         500, 2, 256, 8, 10, networks=("m.pt", "e.pt"))
    assert not (tmp_path / "w").exists()
    assert matches[-1] == (f"networks:swedish,midgame_net={tmp_path / 'student/student_256.pt'}"
                           ",endgame_net=e.pt")
    assert matches[0].startswith("networks:swedish") and "tail_net.pt" in matches[0]


def test_the_midgame_pipeline_rolls_tuxedo_out_to_the_hands_end(tmp_path, monkeypatch
                                                               ) -> None:
    def refuse(*a, **kw):
        raise AssertionError("made a boundary value for rules that define none")

    seen: list = []
    monkeypatch.setattr(tail_value, "build", refuse)
    monkeypatch.setattr(midgame_net, "collect", lambda *a: seen.append(("collect", a[-1])))
    monkeypatch.setattr(endgame_net, "fit_set_net", lambda *a, **kw: seen.append(("fit",)))
    monkeypatch.setattr(endgame_net, "closing_match",
                        lambda variant, agent, out, hands, workers, *_: seen.append(agent) or {})
    (tmp_path / "set_net.pt").write_bytes(b"")
    midgame_net.pipeline("tuxedo", tmp_path / "mid", tmp_path / "w", hands=10,
                         endgame=tmp_path / "set_net.pt")
    assert seen[0] == ("collect", None) and seen[1] == ("fit",)
    assert seen[2].startswith("networks:tuxedo,midgame_net=")


def test_the_last_deals_pipeline_adds_play_out_labels_above_the_solved_cards(tmp_path,
                                                                            monkeypatch) -> None:
    """``endgame_net.pipeline(from_cards=5, above_shards=12)`` (swazi): tree and play-out
    shards solved from 5 cards, then 12 shards of the decisions above valued by play-outs,
    all three fitted together (the play-out labels as training data only)."""
    collects, fits = [], []
    monkeypatch.setattr(endgame_net, "collect",
                        lambda variant, hands, shards, seed, workers, run, *a, **kw:
                        collects.append((run.name, shards, kw)))
    monkeypatch.setattr(endgame_net, "fit_set_net",
                        lambda run, out, variant, epochs, save, ckpt, threads, **kw:
                        fits.append((run.name, [e.name for e in kw["extra"]])))
    assert endgame_net.pipeline("swazi", tmp_path / "end", tmp_path / "w", hands=0,
                                from_cards=5, above_shards=12) == {}
    assert [(c[0], c[1]) for c in collects] == [("swazi_tree_h", 4), ("swazi_walks", 24),
                                                ("swazi_above5", 12)]
    assert collects[0][2]["from_cards"] == collects[1][2]["from_cards"] == 5
    assert collects[2][2] == {"above": 5}
    assert fits == [("swazi_walks", ["swazi_tree_h", "swazi_above5"])]
    collects.clear()
    endgame_net.pipeline("wippen", tmp_path / "end2", tmp_path / "w", hands=0)
    assert [c[0] for c in collects] == ["wippen_tree_h", "wippen_walks"]


def committed_copy(tmp_path: Path, variant: str) -> None:
    """The committed folders of ``variant``'s steps, copied into ``tmp_path`` (the cwd) with
    a stand-in for its cloned policy: the checkout the command meets."""
    import shutil

    repo = Path(__file__).resolve().parents[1]
    folders = [p.parent if p.suffix else p  # the boundary value is a file
               for p in networks_build.outputs(variant).values()]
    if variant in networks_build.BEFORE_LAST_FILE:  # and the folder of its closing match
        folders.append(Path("experiments/results/exit")
                       / networks_build.BEFORE_LAST_FILE[variant][2])
    for folder in folders:
        if (repo / folder).is_dir():
            shutil.copytree(repo / folder, tmp_path / folder)
    policy = tmp_path / f"experiments/results/train/{variant}/model.zip"
    policy.parent.mkdir(parents=True)
    policy.write_bytes(b"")


@pytest.mark.parametrize("variant", ["royal", "dominican", "casino"])
def test_the_committed_checkout_runs_through(tmp_path, monkeypatch, capsys, variant) -> None:
    """On the committed files every step is skipped: nothing is collected or fitted, a
    closing match on disk is only read back, and one whose folder holds a match of other
    agents (royal's and dominican's reports before the last deal and of their students,
    played beside earlier last deals; casino's, played as ``networks:casino`` with the last
    deal named) is left as it is, with a note naming them."""
    import json

    from experiments import long_match

    def refuse(*a, **kw):
        raise AssertionError("collected or fitted although the network is on disk")

    played: list = []

    def run(settings, out, workers, progress=True):
        # only a match already played in full, with these settings, is read back
        assert json.loads((out / "match.json").read_text()) == settings, out
        played.append(out)
        return {"agent": settings["agents"][0], "win_rate": 0.5, "lo": 0.4, "hi": 0.6,
                "hands": settings["hands"], "diff_per_hand": 0.0}

    for module in (endgame_net, midgame_net, distill_net):
        monkeypatch.setattr(module, "collect", refuse)
    monkeypatch.setattr(endgame_net, "fit", refuse)
    monkeypatch.setattr(endgame_net, "fit_set_net", refuse)
    monkeypatch.setattr(tail_value, "build", refuse)
    monkeypatch.setattr(long_match, "run", run)
    monkeypatch.chdir(tmp_path)
    committed_copy(tmp_path, variant)
    reports = {p: p.read_bytes() for p in Path("experiments").rglob("match.json")}
    summaries = networks_build.build(variant, workers=1)
    exit_ = Path("experiments/results/exit")
    out = networks_build.outputs(variant)
    assert played == [exit_ / f"endgame_net_{variant}_const/network_alone_v_heuristic"] + \
        [out[k] / "networks_v_heuristic" for k in ("last_deal_refit",) if k in out]
    assert summaries["before_last"] == summaries["student"] == {}
    printed = capsys.readouterr().out
    before = (exit_ / "networks_casino_const_v_heuristic" if variant == "casino"
              else out["before_last"] / "networks_v_heuristic")
    for folder in (before, out["student"] / "student_256_v_heuristic"):
        assert f"closing match skipped: {folder} holds a match of networks:{variant}" in printed
    if variant != "casino":
        assert f"endgame_net_{variant}_pipeline/set_net.pt v heuristic" in printed
    # the committed reports are untouched
    assert {p: p.read_bytes() for p in Path("experiments").rglob("match.json")} == reports


def test_a_closing_match_of_other_agents_is_kept_only_when_asked(tmp_path, capsys) -> None:
    """``closing_match`` refuses a folder holding another match (long_match's error) unless
    ``keep_other``, which leaves it and says whose it is."""
    import json

    out = tmp_path / "m"
    out.mkdir()
    held = {"variant": "wippen", "players": 2, "agents": ["networks:wippen", "heuristic"],
            "hands": 10, "chunk": 10, "seed": 21}
    (out / "match.json").write_text(json.dumps(held))
    with pytest.raises(ValueError, match="holds another match"):
        endgame_net.closing_match("wippen", "networks:wippen,endgame_net=x.pt", out, 10, 1)
    assert endgame_net.closing_match("wippen", "networks:wippen,endgame_net=x.pt", out, 10, 1,
                                     keep_other=True) == {}
    assert f"{out} holds a match of networks:wippen v heuristic" in capsys.readouterr().out
    assert json.loads((out / "match.json").read_text()) == held


def test_casino_is_made_as_its_shipped_networks_were(tmp_path, monkeypatch) -> None:
    """Casino (the command's default) plays networks made before the command: its last deal
    on 16 tree and 52 play-out shards (twenty-seventh session), the network before it on 60
    shards as midgame_net_casino/tail60_net.pt, whose match with that last deal is
    networks_casino_const_v_heuristic; the command makes those, and its student of them."""
    monkeypatch.chdir(tmp_path)
    calls: list = []
    fake_steps(monkeypatch, calls)
    exit_ = Path("experiments/results/exit")
    networks_build.build("casino", workers=2)
    last, before, student = calls[-3:]
    assert (last[2], last[4]["tree_shards"], last[4]["walk_shards"]) == (
        exit_ / "endgame_net_casino_const", 16, 52)
    assert before[2] == exit_ / "midgame_net_casino" and before[4]["shards"] == 60
    assert (before[4]["net_name"], before[4]["match_out"]) == (
        "tail60_net.pt", exit_ / "networks_casino_const_v_heuristic")
    assert student[3:5] == (exit_ / "distill_net_casino", exit_ / "_work_casino")
    assert student[5]["networks"] == (str(exit_ / "midgame_net_casino/tail60_net.pt"),
                                      str(exit_ / "endgame_net_casino_const/set_net.pt"))
    # a refit on other shards goes to folders of its own, named as any preset's
    calls.clear()
    networks_build.build("casino", workers=2, before_last=30)
    assert calls[1][2] == exit_ / "midgame_net_casino_30" and "net_name" not in calls[1][4]


def test_a_network_without_its_fits_row_is_fitted_again(tmp_path, monkeypatch) -> None:
    """A network on disk whose fits.csv holds no row of its fit (a kill after ``save_net``)
    is not taken as done: each pipeline collects (keeping the shards there) and fits again,
    which a checkpoint makes only the fit's tail."""
    steps: list = []
    for module in (endgame_net, midgame_net, distill_net):
        monkeypatch.setattr(module, "collect", lambda *a, **kw: steps.append("collect"))
    monkeypatch.setattr(endgame_net, "fit_set_net", lambda *a, **kw: steps.append("fit"))
    monkeypatch.setattr(endgame_net, "fit", lambda *a, **kw: steps.append("fit"))
    monkeypatch.setattr(endgame_net, "closing_match", lambda *a, **kw: {})
    for name in ("end/set_net.pt", "mid/tail_net.pt", "student/student_256.pt", "tail.npz"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    # a row of another fit (other shards) is not this one's
    (tmp_path / "mid" / "fits.csv").write_text("shards,hidden\n30,64\n")
    endgame_net.pipeline("swedish", tmp_path / "end", tmp_path / "w", hands=0)
    midgame_net.pipeline("swedish", tmp_path / "mid", tmp_path / "w", hands=10,
                         tail=tmp_path / "tail.npz", endgame=tmp_path / "end/set_net.pt")
    distill_net.pipeline("swedish", "before_last", tmp_path / "student", tmp_path / "w", 24,
                         500, 2, 256, 8, 10, networks=("m.pt", "e.pt"))
    assert steps == ["collect", "collect", "fit", "collect", "fit", "collect", "fit"]
