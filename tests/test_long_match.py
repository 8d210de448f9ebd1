"""experiments.long_match: a duplicate-deal match saved chunk by chunk, resumable, the same
games however often it is interrupted (issue 18's 5,000-hand evaluations)."""

from __future__ import annotations

import json

import pytest

from experiments import long_match as lm

SETTINGS = {"variant": "casino", "players": 2, "agents": ["greedy", "random"], "hands": 12,
            "chunk": 4, "seed": 3}


def _outcomes(path):
    """Each chunk's games without their timings (the part that must repeat exactly)."""
    out = {}
    for i, games in lm.load_chunks(path).items():
        out[i] = [{k: v for k, v in g.items() if k not in ("seconds", "decision_seconds")}
                  for g in games]
    return out


def test_a_match_in_chunks_is_summarized_and_repeats(tmp_path):
    s = lm.run(dict(SETTINGS), tmp_path / "a", progress=False)
    assert (s["hands"], s["deals"], s["chunks_done"], s["chunks"]) == (12, 6, 3, 3)
    games = [g for gs in lm.load_chunks(tmp_path / "a" / "chunks.jsonl").values() for g in gs]
    assert sorted({g["deal"] for g in games}) == list(range(6))  # chunks' deals kept apart
    assert len(games) == 12 and all(g["hands"] == 1 for g in games)
    won = sum(1.0 if g["winner"] == 0 else 0.5 if g["winner"] is None else 0.0 for g in games)
    assert s["win_rate"] == pytest.approx(won / 12)
    assert json.loads((tmp_path / "a" / "summary.json").read_text())["hands"] == 12
    assert "| 12 |" in (tmp_path / "a" / "summary.md").read_text()
    # the first agent's thinking time over the second's: the ratio of their sums, its
    # interval around it
    think = [sum(g["decision_seconds"][i] for g in games) for i in (0, 1)]
    r, lo, hi = s["think_ratio"]
    assert r == pytest.approx(think[0] / think[1]) and lo <= r <= hi
    assert f"{r:.3f} [{lo:.3f}, {hi:.3f}]" in (tmp_path / "a" / "summary.md").read_text()
    assert lm.think_ratio_text({}) == "–"  # a summary from before the ratio was kept
    lm.run(dict(SETTINGS), tmp_path / "b", workers=2, progress=False)
    assert _outcomes(tmp_path / "a" / "chunks.jsonl") == _outcomes(tmp_path / "b" / "chunks.jsonl")
    # two workers write the chunks in order, as one does (they were appended as they finished)
    lines = (tmp_path / "b" / "chunks.jsonl").read_text().splitlines()
    assert [json.loads(line)["chunk"] for line in lines] == [0, 1, 2]


def test_an_interrupted_match_resumes_with_the_same_games(tmp_path):
    full = lm.run(dict(SETTINGS), tmp_path / "full", progress=False)
    part = tmp_path / "part"
    lm.run(dict(SETTINGS, hands=4), part, progress=False)  # one chunk, then "stopped"
    with (part / "chunks.jsonl").open("a") as f:
        f.write('{"chunk": 1, "games": [')  # a line cut short by the interruption
    assert set(lm.load_chunks(part / "chunks.jsonl")) == {0}
    again = lm.run(dict(SETTINGS), part, progress=False)  # a longer match: chunk 0 is kept
    assert _outcomes(part / "chunks.jsonl") == _outcomes(tmp_path / "full" / "chunks.jsonl")
    assert (again["win_rate"], again["diff_per_hand"]) == (full["win_rate"],
                                                          full["diff_per_hand"])


def test_another_match_in_the_same_folder_is_refused(tmp_path):
    lm.run(dict(SETTINGS), tmp_path, progress=False)
    with pytest.raises(ValueError, match=r"holds another match \(agents differ"):
        lm.run(dict(SETTINGS, agents=["random", "greedy"]), tmp_path, progress=False)
    with pytest.raises(ValueError, match=r"holds another match \(hands differ"):
        lm.run(dict(SETTINGS, hands=8), tmp_path, progress=False)  # shorter: not the same


def test_cli_checks_the_chunking(tmp_path, capsys):
    assert lm.main(["--agents", "greedy", "random", "--hands", "10", "--chunk", "4",
                    "--out", str(tmp_path)]) == 2
    assert "whole number of chunks of 4" in capsys.readouterr().err
    assert lm.main(["--agents", "greedy", "random", "--hands", "4", "--chunk", "3",
                    "--out", str(tmp_path)]) == 2
    assert lm.main(["--agents", "greedy", "random", "--hands", "4", "--chunk", "2", "--quiet",
                    "--out", str(tmp_path)]) == 0
    assert "greedy v random:" in capsys.readouterr().out


def test_every_committed_match_summary_covers_all_its_chunks():
    """The docs' tables read summary.json; a stop between a chunk's line and its summary left
    one committed summary a chunk behind its chunks.jsonl (royal, 380 rollouts: 1,000 hands
    reported of 1,100 played). Every committed match folder's summary counts what its chunks
    hold (counting only: recomputing 200 summaries would take minutes)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "experiments" / "results"
    folders = sorted(p.parent for p in root.rglob("chunks.jsonl")
                     if (p.parent / "match.json").exists())
    assert len(folders) > 100
    behind = []
    for folder in folders:
        chunks = lm.load_chunks(folder / "chunks.jsonl")
        s = json.loads((folder / "summary.json").read_text())
        hands = sum(len(games) for games in chunks.values())
        if (s["chunks_done"], s["hands"]) != (len(chunks), hands):
            behind.append(f"{folder.relative_to(root)}: summary {s['chunks_done']} chunks, "
                          f"{s['hands']} hands; chunks.jsonl {len(chunks)}, {hands}")
    assert not behind, behind
