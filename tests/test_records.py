"""casino_env.records: games written as JSON lines and replayed exactly; ``casino-env replay``
and ``demo --record``."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from casino_env import cli
from casino_env.engine import State, apply_move, legal_moves, list_variants, new_game
from casino_env.records import (
    GameRecorder,
    Record,
    RecordError,
    iter_replay,
    load_record,
    record_game,
    replay,
)

PLAYERS = {"hungarian": 2, "tuxedo": 3, "dominican": 4}


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "casino_env", *args], capture_output=True,
                          text=True, timeout=120)


def lines_of(path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def write_lines(path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    """A seeded random royal game, recorded: (final state, record path)."""
    path = tmp_path_factory.mktemp("rec") / "royal.jsonl"
    st, _ = record_game(["random", "random"], "royal", seed=3, path=path)
    return st, path


@pytest.mark.parametrize("variant", list_variants())
def test_round_trip_every_variant(variant, tmp_path):
    """Record a seeded random game; replaying the file gives the identical final state."""
    players = PLAYERS.get(variant, 2)
    path = tmp_path / "game.jsonl"
    st, rec = record_game(["random"] * players, variant, seed=7, path=path)
    assert st.game_over
    final = replay(path)
    assert final == st and final.to_spec() == st.to_spec()
    rows = lines_of(path)
    assert rows[0]["type"] == "start" and rows[-1]["type"] == "result"
    assert rows[0]["spec"] == new_game(variant, players, seed=7).to_spec()
    assert rows[0]["variant"] == variant and rows[0]["players"] == players
    assert rows[0]["seed"] == 7 and rows[0]["agents"] == ["random"] * players
    assert [r["n"] for r in rows[1:-1]] == list(range(1, len(rows) - 1))
    res = rows[-1]
    assert res["scores"] == list(st.scores) and res["winner"] == st.winner
    assert res["moves"] == len(rows) - 2 and res["hands"] == len(res["hand_points"])
    assert res["final"] == st.to_spec()
    assert rec.lines() == path.read_text().splitlines()


def test_round_trip_with_scripted_agents_and_switches(tmp_path):
    path = tmp_path / "g.jsonl"
    st, rec = record_game(["greedy", "heuristic"], "casino", seed=2, path=path, sweeps=True,
                          target=11)
    assert replay(path).to_spec() == st.to_spec()
    assert rec.start["rules"]["sweeps"] is True and rec.start["rules"]["target"] == 11
    assert rec.start["agents"] == ["greedy", "heuristic"]
    # the same game again: agents are seeded from the game seed and the seat
    st2, rec2 = record_game(["greedy", "heuristic"], "casino", seed=2, sweeps=True, target=11)
    assert st2 == st and rec2.lines() == rec.lines()


def test_hand_points_are_recorded_per_hand(game):
    st, path = game
    rec = load_record(path)
    per_hand = rec.result["hand_points"]
    assert len(per_hand) >= 2
    assert [sum(col) for col in zip(*per_hand)] == list(st.scores)
    assert per_hand[-1] == list(st.hand_points)


def test_load_and_write_back(game, tmp_path):
    _, path = game
    rec = load_record(path)
    assert isinstance(rec, Record) and len(rec.moves) == rec.result["moves"]
    copy = tmp_path / "copy.jsonl"
    rec.write(copy)
    assert copy.read_text() == path.read_text()
    assert replay(rec) == replay(copy)


def test_state_before_a_move_makes_a_test(game):
    """The way to turn a surprising move into a test: the spec before it, and the move."""
    _, path = game
    rec = load_record(path)
    n = 10
    before = rec.state_before(n)
    spec = json.loads(json.dumps(before.to_spec()))
    st = State.from_spec(spec)
    assert st == before and st.current == rec.moves[n - 1]["seat"]
    after = apply_move(st, rec.moves[n - 1]["move"])
    assert after == rec.state_before(n + 1)
    assert rec.state_before(1) == rec.initial_state()
    with pytest.raises(ValueError, match="move number"):
        rec.state_before(0)


def test_iter_replay_steps(game):
    st, path = game
    steps = list(iter_replay(path))
    assert steps[-1].after == st
    assert all(a.after == b.before for a, b in zip(steps, steps[1:]))
    assert [s.hand_points for s in steps if s.hand_points] == \
        load_record(path).result["hand_points"]
    assert steps[0].line == 2  # line 1 is the start line


def test_recorder_on_a_stream_with_notation(tmp_path):
    """GameRecorder on an open stream; moves given as (lower-case) notation are written in
    the engine's canonical notation."""
    buf = io.StringIO()
    st = new_game("casino", 2, seed=11)
    canonical = []
    with GameRecorder(buf, st, ["me", "you"], seed=11, meta={"note": "hand-made"}) as rec:
        for _ in range(6):
            move = legal_moves(st)[0]
            canonical.append(str(move))
            after = apply_move(st, str(move).lower())
            rec.add(str(move).lower(), after)
            st = after
    lines = buf.getvalue().splitlines()
    assert len(lines) == 8
    assert [json.loads(x)["move"] for x in lines[1:-1]] == canonical
    assert json.loads(lines[0])["meta"] == {"note": "hand-made"}
    result = json.loads(lines[-1])
    assert result["game_over"] is False and result["moves"] == 6
    path = tmp_path / "partial.jsonl"
    path.write_text(buf.getvalue())
    assert replay(path) == st  # an unfinished game replays and verifies too
    assert rec.close() == result  # closing twice is harmless
    with pytest.raises(RecordError, match="closed"):
        rec.add(canonical[0], st)


# -- tampered records --------------------------------------------------------------------------

def tampered(path, tmp_path, change) -> str:
    rows = lines_of(path)
    change(rows)
    out = tmp_path / "bad.jsonl"
    write_lines(out, rows)
    return str(out)


def test_illegal_move_names_the_line_and_rule(game, tmp_path):
    _, path = game

    def change(rows):
        st = State.from_spec(rows[0]["spec"])
        other = st.hand(1)[0]  # seat 0 moves first; this card is seat 1's
        rows[1]["move"] = f"{other} trails"

    bad = tampered(path, tmp_path, change)
    with pytest.raises(RecordError, match=r"bad\.jsonl line 2: move 1 by seat 0 is illegal: "
                                          r".*not in seat 0's hand \(C-turn\)"):
        replay(bad)


@pytest.mark.parametrize(("change", "message"), [
    (lambda rows: rows[-1]["scores"].__setitem__(0, rows[-1]["scores"][0] + 1),
     r"results differ: recorded scores"),
    (lambda rows: rows[-1].__setitem__("winner", 1 - rows[-1]["winner"]),
     r"results differ: recorded winner"),
    (lambda rows: rows[-1]["hand_points"][0].__setitem__(0, 99),
     r"results differ: recorded hand_points"),
    (lambda rows: rows[-1]["final"].__setitem__("seed", 1),
     r"final state differs in seed"),
    (lambda rows: rows[3].__setitem__("seat", 1 - rows[3]["seat"]),
     r"line 4: move 3 .* is recorded for seat \d but seat \d is to move"),
    (lambda rows: rows.insert(-1, dict(rows[-2], n=len(rows) - 1)),
     r"comes after the game ended"),
    (lambda rows: rows.pop(),
     r"no result line"),
    (lambda rows: rows[5].__setitem__("move", "7H jumps"),
     r"line 6: move 5 by seat \d: cannot read move '7H jumps'"),
    (lambda rows: rows[0]["spec"].__setitem__("players", 9),
     r"bad start spec"),
])
def test_tampered_record_fails_clearly(game, tmp_path, change, message):
    _, path = game
    with pytest.raises(RecordError, match=message):
        replay(tampered(path, tmp_path, change))


@pytest.mark.parametrize(("text", "message"), [
    ("", r"first line must be the start line"),
    ('{"type": "move", "seat": 0, "move": "KD trails"}\n', r"first line must be the start"),
    ("not json\n", r"line 1: not JSON"),
    ('{"type": "start", "spec": {}}\n{"type": "start", "spec": {}}\n', r"line 2: a second"),
    ('{"type": "start"}\n', r"has no 'spec'"),
    ('{"type": "start", "spec": {}}\n{"type": "move"}\n', r"line 2: a move line needs"),
    ('{"type": "start", "format": "chess", "spec": {}}\n', r"not a casino-env-record"),
])
def test_malformed_files(tmp_path, text, message):
    path = tmp_path / "x.jsonl"
    path.write_text(text)
    with pytest.raises(RecordError, match=message):
        load_record(path)


def test_missing_file():
    with pytest.raises(RecordError, match="cannot read"):
        load_record("/nonexistent/game.jsonl")


# -- the command line --------------------------------------------------------------------------

def test_cli_replay_verifies(game, tmp_path):
    st, path = game
    out = run_cli("replay", str(path))
    assert out.returncode == 0, out.stderr
    text = out.stdout.splitlines()
    assert text[0].startswith(f"== replay {path}: royal, 2 players, seed 3")
    assert text[-1].startswith("verified: ")
    assert text[-2] == (f"final scores {list(st.scores)}; side {st.winner} wins after "
                        f"{load_record(path).result['hands']} hands, "
                        f"{load_record(path).result['moves']} moves")
    assert any(line.startswith("   1. seat 0: ") for line in text)
    bad = tampered(path, tmp_path, lambda rows: rows[-1]["scores"].reverse())
    out = run_cli("replay", bad, "--quiet")
    assert out.returncode == 1
    assert "results differ" in out.stderr and "Traceback" not in out.stderr


def test_cli_replay_in_process_options(game, tmp_path):
    _, path = game
    buf, err = io.StringIO(), io.StringIO()
    assert cli.replay_record(str(path), quiet=True, out=buf, err=err) == 0
    assert not any(" seat 0: " in x for x in buf.getvalue().splitlines())
    buf = io.StringIO()
    assert cli.replay_record(str(path), spec_at=4, out=buf) == 0
    assert State.from_spec(json.loads(buf.getvalue())) == load_record(path).state_before(4)
    buf = io.StringIO()
    assert cli.replay_record(str(path), table=True, out=buf) == 0
    assert buf.getvalue().count("scores side 0") > load_record(path).result["moves"]
    err = io.StringIO()
    assert cli.replay_record(str(tmp_path / "missing.jsonl"), out=io.StringIO(), err=err) == 1
    assert "cannot read" in err.getvalue()


def test_demo_record_keeps_the_output_and_replays(tmp_path):
    path = tmp_path / "demo.jsonl"
    plain, recorded = io.StringIO(), io.StringIO()
    winner = cli.demo("dominican", 2, 5, out=plain)
    assert cli.demo("dominican", 2, 5, out=recorded, record=str(path)) == winner
    assert recorded.getvalue() == plain.getvalue()
    final = replay(path)
    assert final.game_over and final.winner == winner
    rec = load_record(path)
    assert rec.start["meta"]["command"] == "demo"
    # the replay command prints the same moves and hand results as the demo
    out = io.StringIO()
    assert cli.replay_record(str(path), out=out) == 0
    assert out.getvalue().splitlines()[1:-1] == plain.getvalue().splitlines()[1:]


def test_demo_record_subprocess(tmp_path):
    path = tmp_path / "d.jsonl"
    out = run_cli("demo", "--variant", "casino", "--seed", "2", "--record", str(path))
    assert out.returncode == 0, out.stderr
    assert out.stdout == run_cli("demo", "--variant", "casino", "--seed", "2").stdout
    assert replay(path).game_over
    bad = run_cli("demo", "--record", str(tmp_path / "no" / "such" / "dir.jsonl"))
    assert bad.returncode == 2 and "--record" in bad.stderr and "Traceback" not in bad.stderr
