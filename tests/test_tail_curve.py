"""experiments.tail_curve: the boundary value's learning curve in play (issue 18)."""

from __future__ import annotations

import csv
import json

import pytest

from experiments import tail_curve
from experiments import tail_value as tv_exp
from experiments.long_match import load_chunks, run
from experiments.paired import per_deal


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """A tiny collection (2 training shards, 1 held out) and a reference match of the search
    on the 2-shard network against greedy (4 hands, 2 chunks)."""
    tmp = tmp_path_factory.mktemp("curve")
    data = tmp / "run"
    tv_exp.collect("casino", 4, 3, 0, 2, data)
    ref_net = tmp / "ref.npz"
    tv_exp.fit(data, ref_net, tmp, 8, 1, 0, shards=2, log=False)
    ref = tmp / "ref_match"
    run({"variant": "casino", "players": 2, "agents": [f"search:tail={ref_net},simulations=8",
                                                        "greedy"],
         "hands": 4, "chunk": 2, "seed": 3}, ref, progress=False)
    out = tmp / "out"
    code = tail_curve.main(["--run", str(data), "--shards", "1", "2", "--reference", str(ref),
                            "--hands", "4", "--hidden", "8", "--epochs", "1", "--out", str(out),
                            "--quiet"])
    assert code == 0
    return data, ref, out


def test_each_network_plays_the_reference_opponent_on_its_deals(setup):
    data, ref, out = setup
    one = json.loads((out / "shards_1" / "match.json").read_text())
    reference = json.loads((ref / "match.json").read_text())
    assert one["agents"] == [f"search:tail={data / 'curve_nets' / 'tail_1.npz'},simulations=8",
                             "greedy"]
    assert {k: one[k] for k in ("variant", "seed", "chunk", "hands")} == \
        {k: reference[k] for k in ("variant", "seed", "chunk", "hands")}
    # the 2-shard network is the reference's own, weight for weight: not played again
    assert tail_curve.same_weights(data / "curve_nets" / "tail_2.npz",
                                   reference["agents"][0].split("=")[1].split(",")[0])
    assert not (out / "shards_2").exists()
    assert set(json.loads((out / "nets.json").read_text())) == {"1", "2"}


def test_the_table_pairs_each_network_with_the_most_data_deal_by_deal(setup):
    data, ref, out = setup
    with open(out / "play_curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["train_shards"]) for r in rows] == [1, 2]
    assert [int(r["train_boundaries"]) for r in rows] == [20, 40]  # five boundaries a hand
    assert rows[1]["match"] == str(ref) and float(rows[1]["vs_most"]) == 0.0
    assert all(int(r["hands"]) == 4 for r in rows)
    assert float(rows[0]["collect_minutes"]) < float(rows[1]["collect_minutes"])
    won = [{d: v[0] for g in load_chunks(p / "chunks.jsonl").values()
            for d, v in per_deal(g).items()} for p in (out / "shards_1", ref)]
    diff = sum(won[0][d] - won[1][d] for d in won[1]) / len(won[1])
    assert float(rows[0]["vs_most"]) == pytest.approx(diff, abs=1e-4)
    assert (out / "play_curve.png").exists()


def test_resumed_or_table_only_nothing_is_fitted_or_played_again(setup, monkeypatch):
    data, ref, out = setup
    before = (out / "play_curve.csv").read_text()

    def refuse(*a, **k):
        raise AssertionError("fitted or played again")

    monkeypatch.setattr(tail_curve, "fit", refuse)
    monkeypatch.setattr("experiments.long_match._play_chunk", refuse)
    for extra in ([], ["--table-only"]):
        tail_curve.main(["--run", str(data), "--shards", "1", "2", "--reference", str(ref),
                         "--hands", "4", "--out", str(out), "--quiet", *extra])
        assert (out / "play_curve.csv").read_text() == before


def test_a_reference_that_is_not_a_search_on_a_value_is_refused(setup, tmp_path):
    data, _, _ = setup
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "match.json").write_text(json.dumps(
        {"variant": "casino", "players": 2, "agents": ["search:simulations=8", "greedy"],
         "hands": 4, "chunk": 2, "seed": 3}))
    with pytest.raises(SystemExit, match="not a search on a boundary value"):
        tail_curve.main(["--run", str(data), "--shards", "1", "--reference", str(plain),
                         "--hands", "4", "--hidden", "8", "--epochs", "1",
                         "--out", str(tmp_path / "o"), "--quiet"])
    with pytest.raises(SystemExit, match="not a long_match folder"):
        tail_curve.main(["--run", str(data), "--shards", "1", "--reference",
                         str(tmp_path / "none"), "--out", str(tmp_path / "o")])


def test_the_docs_table_shows_each_network_against_the_last(setup, tmp_path, monkeypatch):
    from experiments import gen_docs

    _, _, out = setup
    folder = tmp_path / "exit" / "tail_value_casino" / "play_curve"
    folder.mkdir(parents=True)
    (folder / "play_curve.csv").write_text((out / "play_curve.csv").read_text())
    monkeypatch.setattr(gen_docs, "RESULTS", tmp_path)
    lines = gen_docs.tail_play_curve_table().splitlines()
    with open(out / "play_curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(lines) == 2 + len(rows)
    first = lines[2].split(" | ")
    assert first[0] == "| casino" and first[1].startswith("20 (")
    assert first[3] == "`greedy`" and first[4] == "4"
    assert first[7] == (f"{100 * float(rows[0]['vs_most']):+.1f} "
                        f"[{100 * float(rows[0]['vs_most_lo']):+.1f}, "
                        f"{100 * float(rows[0]['vs_most_hi']):+.1f}]")
    assert "– (the last network)" in lines[3]
