"""casino_env.records: games written as JSON lines and replayed exactly; ``casino-env replay``
and ``demo --record``."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys

import pytest
from cli_helpers import run_into_closed_pipe

from casino_env import cli, players
from casino_env.engine import (
    IllegalMoveError,
    State,
    apply_move,
    legal_moves,
    list_variants,
    new_game,
)
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
    st = State.from_spec(lines_of(path)[0]["spec"])
    with pytest.raises(IllegalMoveError) as engine:
        apply_move(st, f"{st.hand(1)[0]} trails")
    # the engine's message once (it says why and names C-turn), not "illegal: illegal move"
    detail = str(engine.value).removeprefix("illegal move ")
    assert "C-turn" in detail
    with pytest.raises(RecordError) as info:
        replay(bad)
    assert str(info.value).endswith(f"bad.jsonl line 2: move 1 by seat 0 is illegal: {detail}")
    assert str(info.value).split("line 2:")[1].lower().count("illegal") == 1


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
    # a result line cut down to its type (or missing a key) verified nothing: refused
    (lambda rows: rows.__setitem__(-1, {"type": "result"}),
     r"the result line lacks game_over, winner, scores, hand_points, moves, hands, final, so "
     r"it cannot be checked against the replay"),
    (lambda rows: rows[-1].pop("final"),
     r"the result line lacks final,"),
    (lambda rows: rows[5].__setitem__("move", "7H jumps"),
     r"line 6: move 5 by seat \d: cannot read move '7H jumps'"),
    (lambda rows: rows[0]["spec"].__setitem__("players", 9),
     r"bad start spec"),
    (lambda rows: rows[-1].__setitem__("hands", rows[-1]["hands"] + 1),
     r"results differ: recorded hands \d+, the replay gives \d+"),
    # the start line must agree with its spec, and its seed must deal it
    (lambda rows: rows[0].__setitem__("seed", 4),
     r"bad\.jsonl line 1: the start line's seed 4 does not deal this start \(it deals "
     r"different .*hands.*\); the game recorded was not dealt by that seed"),
    (lambda rows: rows[0].__setitem__("seed", -3),
     r"line 1: the start line's seed -3 is not a seed \(seeds are integers >= 0\)"),
    (lambda rows: rows[0].__setitem__("variant", "casino"),
     r"line 1: the start line says variant 'casino' but its spec is variant 'royal'"),
    (lambda rows: rows[0].__setitem__("players", 3),
     r"line 1: the start line says players 3 but its spec is players 2"),
    (lambda rows: rows[0]["rules"].__setitem__("sweeps", True),
     r"line 1: the start line's rules differ from its spec's in sweeps"),
    # move numbers must be 1, 2, 3, ... and each move in the hand the replay is in
    (lambda rows: rows[3].__setitem__("n", 7),
     r"bad\.jsonl line 4: move number 7, expected 3 \(moves are numbered 1, 2, 3, \.\.\. "
     r"in order\)"),
    (lambda rows: (rows[2].__setitem__("n", 3), rows[3].__setitem__("n", 2)),
     r"line 3: move number 3, expected 2"),
    (lambda rows: rows[5].pop("n"),
     r"line 6: a move line needs 'n' \(int\)"),
    (lambda rows: rows[5].__setitem__("hand", 2),
     r"line 6: move 5 \('[^']+'\) is recorded in hand 2 but the replay is in hand 1"),
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
    ('{"type": "start", "spec": {}}\n{"type": "move", "n": 2, "seat": 0, "move": "KD trails"}\n',
     r"line 2: move number 2, expected 1"),
    ('{"type": "start", "spec": {}}\n{"type": "move", "n": true, "seat": 0, "move": "KD"}\n',
     r"line 2: a move line needs 'n' \(int\)"),
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


def test_recorder_refuses_a_seed_that_did_not_deal_the_state():
    """The start line's seed is the seed new_game dealt the start with; a replay checks it,
    so the recorder refuses a seed that does not deal the state (seed=None is for others)."""
    st = new_game("casino", 2, seed=11)
    with pytest.raises(ValueError, match=r"seed 12 does not deal this start \(it deals "
                                         r"different .*hands.*\): pass the seed new_game"):
        GameRecorder(None, st, seed=12)
    with pytest.raises(ValueError, match=r"seed -11 is not a seed \(seeds are integers >= 0\)"):
        GameRecorder(None, st, seed=-11)
    later = apply_move(st, legal_moves(st)[0])
    with pytest.raises(ValueError, match="seed 11 does not deal this start"):
        GameRecorder(None, later, seed=11)
    rec = GameRecorder(None, later, seed=None)  # a game recorded from its middle
    rec.close()
    assert replay(rec.record) == later


def test_cli_replay_refuses_an_edited_seed_and_move_numbers(tmp_path):
    """Issue 16 item 8: a record whose start line's seed was edited from 5 to 6, or whose move
    numbers were edited, is refused with the line and what differs (it said "verified")."""
    path = tmp_path / "game.jsonl"
    assert run_cli("demo", "--seed", "5", "--quiet", "--record", str(path)).returncode == 0
    assert run_cli("replay", str(path), "--quiet").returncode == 0
    text = path.read_text()
    assert '"seed": 5,' in text.splitlines()[0]
    seed6 = tmp_path / "seed6.jsonl"
    seed6.write_text(text.replace('"seed": 5,', '"seed": 6,', 1))
    out = run_cli("replay", str(seed6), "--quiet")
    assert out.returncode == 1
    assert "verified" not in out.stdout and "Traceback" not in out.stderr
    assert out.stderr.startswith(f"casino-env replay: error: {seed6} line 1: the start line's "
                                 "seed 6 does not deal this start (it deals different ")
    renumbered = tmp_path / "renumbered.jsonl"
    renumbered.write_text(text.replace('"n": 4,', '"n": 40,', 1))
    out = run_cli("replay", str(renumbered), "--quiet")
    assert out.returncode == 1 and "verified" not in out.stdout
    assert out.stderr == (f"casino-env replay: error: {renumbered} line 5: move number 40, "
                          "expected 4 (moves are numbered 1, 2, 3, ... in order)\n")


def test_cli_replay_into_a_closed_pipe_is_quiet(game):
    """``casino-env replay game.jsonl | head -2``: the reader stops after two lines; the
    command ends quietly (it gave a BrokenPipeError traceback), exit status 141."""
    _, path = game
    out, err, status = run_into_closed_pipe("replay", str(path), lines=2)
    assert out.startswith(f"== replay {path}: royal, 2 players, seed 3")
    assert out.endswith("-- hand 1 --\n")
    assert (err, status) == ("", 141)


# -- layers: records take any Agent-like object or a name from the one registry -----------------

class Picker:
    """A minimal player: the Agent interface (act, reset) and nothing else; a seeded random
    legal move."""

    name = "picker"

    def __init__(self, seed=None):
        self.reset(seed)

    def reset(self, seed=None):
        self.seed = seed
        self.rng = random.Random(seed)

    def act(self, state, seat=None):
        return self.rng.choice(legal_moves(state))


def test_record_game_names_go_through_the_registry(monkeypatch):
    """Names are resolved by the one registry (casino_env.players); objects with act/reset
    are taken as they are; an agent's check_rules runs against the game's rules."""
    calls = []

    def fake_registry(name, seed=None):
        calls.append((name, seed))
        return Picker(seed)

    monkeypatch.setattr(players, "_registry", fake_registry)
    st, rec = record_game(["anything", Picker(7)], "casino", seed=4, max_hands=1)
    assert calls == [("anything", rec.start["agent_seeds"][0])]
    assert rec.start["agents"] == ["anything", "picker"] and rec.start["agent_seeds"][1] == 7
    again, _ = record_game([Picker(rec.start["agent_seeds"][0]), Picker(7)], "casino", seed=4,
                           max_hands=1)
    assert again == st  # the named seat played the registry's Picker, seeded as recorded
    assert replay(rec) == st

    class Fussy(Picker):
        def check_rules(self, rules):
            if rules.variant != "royal":
                raise ValueError(f"trained on royal 2p, this game is {rules.variant} 2p")

    with pytest.raises(ValueError, match="trained on royal 2p, this game is casino 2p"):
        record_game([Fussy(), Picker()], "casino", seed=4)
    with pytest.raises(TypeError, match="an agent must be a name"):
        record_game([object(), Picker()], "casino", seed=4)
