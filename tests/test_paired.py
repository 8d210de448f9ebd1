"""experiments.paired: two long matches on the same deals, compared deal by deal."""

from __future__ import annotations

import json

import pytest

from experiments import paired


def _match(folder, first: str, games_by_chunk: dict, seed: int = 11, opponent: str = "search",
           variant: str = "casino"):
    folder.mkdir()
    (folder / "match.json").write_text(json.dumps(
        {"variant": variant, "players": 2, "agents": [first, opponent], "hands": 400,
         "chunk": 4, "seed": seed}))
    with open(folder / "chunks.jsonl", "w") as f:
        for i, games in games_by_chunk.items():
            f.write(json.dumps({"chunk": i, "games": games}) + "\n")
    return folder


def _game(deal: int, rotation: int, winner, points):
    """``winner`` and ``points`` are per agent (agent 0 is the match's first agent)."""
    return {"deal": deal, "rotation": rotation, "seed": 0, "seats": [rotation, 1 - rotation],
            "winner": winner, "hands": 1, "points": [points], "scores": points, "moves": 48,
            "seconds": 1.0, "decision_seconds": [0.5, 0.5]}


def test_deals_are_paired_and_averaged_over_their_seatings(tmp_path):
    a = _match(tmp_path / "a", "x", {0: [_game(0, 0, 0, [7, 4]), _game(0, 1, 1, [5, 6]),
                                         _game(1, 0, 0, [6, 5]), _game(1, 1, None, [5, 5])],
                                     1: [_game(2, 0, 0, [9, 2]), _game(2, 1, 0, [8, 3])]})
    b = _match(tmp_path / "b", "y", {0: [_game(0, 0, 1, [4, 7]), _game(0, 1, 1, [5, 6]),
                                         _game(1, 0, 0, [6, 5]), _game(1, 1, 0, [6, 5])]})
    assert paired.per_deal(json.loads((a / "chunks.jsonl").read_text().splitlines()[0])
                           ["games"]) == {0: (0.5, 1.0), 1: (0.75, 0.5)}
    r = paired.compare(a, b)
    assert r["deals"] == 2  # deal 2 only in a
    assert r["a_won"] == pytest.approx(0.625) and r["b_won"] == pytest.approx(0.5)
    assert r["a_points"] == pytest.approx(0.75) and r["b_points"] == pytest.approx(-0.5)
    # per deal differences of points: 1 - (-2) = 3 and 0.5 - 1 = -0.5
    assert r["diff_points"] == pytest.approx(1.25)
    assert r["diff_points_lo"] < 1.25 < r["diff_points_hi"]
    assert r["diff_won"] == pytest.approx(0.125)


def test_other_deals_or_opponents_are_refused(tmp_path, capsys):
    g = {0: [_game(0, 0, 0, [7, 4]), _game(0, 1, 1, [5, 6])]}
    a = _match(tmp_path / "a", "x", g)
    with pytest.raises(ValueError, match="differ in seed"):
        paired.compare(a, _match(tmp_path / "b", "y", g, seed=12))
    with pytest.raises(ValueError, match="different opponents"):
        paired.compare(a, _match(tmp_path / "c", "y", g, opponent="heuristic"))
    d = _match(tmp_path / "d", "y", {})
    assert paired.main([str(a), str(d)]) == 2
    assert "no finished deal in common" in capsys.readouterr().err
    out = tmp_path / "cmp.json"
    assert paired.main([str(a), str(a), "--out", str(out)]) == 0
    assert json.loads(out.read_text())["diff_points"] == 0.0


def test_the_docs_table_names_each_pair_and_its_opponent(tmp_path, monkeypatch):
    """gen_docs' paired_tail block: a row per pair whose two matches share deals, with the
    opponent they both played; pairs not yet played, or with no deal in common, are left out."""
    import experiments.gen_docs as gd

    _match(tmp_path / "a", "x", {0: [_game(0, 0, 0, [7, 4]), _game(0, 1, 1, [5, 6]),
                                     _game(1, 0, 0, [6, 5]), _game(1, 1, 0, [6, 5])]},
           opponent="heuristic")
    _match(tmp_path / "b", "y", {0: [_game(0, 0, 1, [4, 7]), _game(0, 1, 1, [5, 6]),
                                     _game(1, 0, 1, [5, 6]), _game(1, 1, 0, [6, 5])]},
           opponent="heuristic")
    _match(tmp_path / "c", "z", {3: [_game(6, 0, 1, [4, 7])]}, opponent="heuristic")
    monkeypatch.setattr(gd, "RESULTS", tmp_path)
    monkeypatch.setattr(gd, "PAIRED_TAIL", (
        ("casino", "a", "b", "`heuristic`", "other"), ("casino", "a", "missing", "`h`", "m"),
        ("casino", "a", "c", "`heuristic`", "no common deal")))
    lines = gd.paired_tail_table().splitlines()
    assert len(lines) == 3
    # deal 0: a wins half its hands, +1.0 a hand; b none, -2.0. Deal 1: a 1 and +1.0; b half
    # and 0.0. Differences (0.5, +3.0) and (0.5, +1.0): +2.0 +/- 12.706 (t, 1 df) * 1.0
    assert lines[2] == ("| casino | `heuristic` | other | 2 | 75.0%, 25.0% | +50.0 [+50.0, "
                        "+50.0] | +2.00 [-10.71, +14.71] |")
    monkeypatch.setattr(gd, "PAIRED_TAIL", gd.PAIRED_TAIL[1:])
    assert gd.paired_tail_table() == "_No match yet._"


def test_in_krypkasino_fewer_penalty_points_are_the_advantage(tmp_path):
    """V-kryp-score: penalties, so points over the opponent are theirs minus ours, as the
    match summaries (``stats.summarize_pair``) count them: a positive difference is still
    the first agent's advantage."""
    a = _match(tmp_path / "a", "x", {0: [_game(0, 0, 0, [3, 9]), _game(0, 1, 0, [4, 6])]},
               variant="krypkasino")
    b = _match(tmp_path / "b", "y", {0: [_game(0, 0, 1, [8, 5]), _game(0, 1, 0, [5, 6])]},
               variant="krypkasino")
    r = paired.compare(a, b)
    assert r["a_points"] == pytest.approx(4.0) and r["b_points"] == pytest.approx(-1.0)
    assert r["diff_points"] == pytest.approx(5.0)
    assert r["a_won"] == 1.0 and r["b_won"] == 0.5 and r["diff_won"] == 0.5
