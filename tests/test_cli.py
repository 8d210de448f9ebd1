"""The ``casino-env demo`` command (``python -m casino_env demo``) and ``casino_env.cli.demo``.

Every printed move is replayed through the public engine API (parse_move + apply_move), so the
demo's output is checked against the rules: moves are legal for the seat shown (C-turn), hand
results and final scores match the engine's (C-score, C-game), and the same seed prints the
same game (determinism).
"""

from __future__ import annotations

import io
import re
import subprocess
import sys

import pytest
from cli_helpers import run_into_closed_pipe

from casino_env import cli
from casino_env.engine import apply_move, new_game, parse_move

MOVE_LINE = re.compile(r"^\s*(\d+)\. seat (\d+): (.+)$")
HAND_LINE = re.compile(r"^hand (\d+) points \[([\d, ]*)\] -> scores \[([\d, ]*)\]$")
FINAL_LINE = re.compile(r"^final scores \[([\d, ]*)\]; side (\d+) wins after (\d+) hands, "
                        r"(\d+) moves$")

CASES = [
    ("casino", 2, False, 0),
    ("casino", 3, False, 11),
    ("casino", 4, False, 5),
    ("casino", 4, True, 6),
    ("royal", 2, False, 3),
    ("royal", 3, False, 8),
    ("royal", 4, True, 9),
    ("dominican", 2, False, 1),
    ("dominican", 3, False, 2),
    ("dominican", 4, True, 4),
    ("swedish", 3, False, 7),
    ("finnish", 2, False, 3),  # (V-earned: the game may end during a hand)
]
CASE_IDS = [f"{v}-{p}p{'-partners' if part else ''}-seed{s}" for v, p, part, s in CASES]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "casino_env", *args], capture_output=True,
                          text=True, timeout=120)


def demo_args(variant: str, players: int, partnerships: bool, seed: int) -> list[str]:
    args = ["demo", "--variant", variant, "--seed", str(seed), "--players", str(players)]
    if partnerships:
        args.append("--partnerships")
    return args


def ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def replay(output: str, variant: str, players: int, partnerships: bool, seed: int) -> None:
    """Replay the printed moves with the engine and compare every printed result."""
    lines = output.splitlines()
    assert lines[0] == f"== {variant}, {players} players, seed {seed} =="
    st = new_game(variant, players, seed=seed, partnerships=True if partnerships else None)
    moves = 0
    results = []  # (hand points, scores) of every hand the engine played
    printed = []  # the same, as printed
    final = None
    for line in lines[1:]:
        if m := MOVE_LINE.match(line):
            moves += 1
            assert int(m[1]) == moves
            assert int(m[2]) == st.current  # C-turn: the seat shown is the seat to move
            last_card = sum(len(st.hand(s)) for s in range(players)) == 1 and not st.stock_ids
            st = apply_move(st, parse_move(m[3], st))
            if last_card or st.game_over:  # the hand ends (C-residue, C-score; V-earned)
                results.append((list(st.hand_points), list(st.scores)))
        elif m := HAND_LINE.match(line):
            assert int(m[1]) == len(printed) + 1
            printed.append((ints(m[2]), ints(m[3])))
        elif m := FINAL_LINE.match(line):
            final = m
    assert moves > 0, "no move lines"
    assert final is not None, "no 'final scores' line"
    assert st.game_over  # C-game
    assert ints(final[1]) == list(st.scores)
    assert int(final[2]) == st.winner
    assert int(final[4]) == moves
    assert printed == results, "hand results differ from the engine's"
    assert int(final[3]) == len(results), "hand count differs from the hands played"


@pytest.mark.parametrize(("variant", "players", "partnerships", "seed"), CASES, ids=CASE_IDS)
def test_demo_subprocess(variant, players, partnerships, seed):
    """``python -m casino_env demo`` prints every move, each hand's points, the final scores
    and the winner; the output replays exactly through the engine and is deterministic."""
    args = demo_args(variant, players, partnerships, seed)
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    assert "final scores" in first.stdout and " wins after " in first.stdout
    replay(first.stdout, variant, players, partnerships, seed)
    second = run_cli(*args)
    assert second.returncode == 0 and second.stdout == first.stdout


def test_demo_default_arguments():
    """``demo`` alone plays classic casino, 2 players, seed 0; no command means ``demo``."""
    plain = run_cli("demo")
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout == run_cli("demo", "--variant", "casino", "--seed", "0").stdout
    replay(plain.stdout, "casino", 2, False, 0)
    bare = run_cli()
    assert bare.returncode == 0 and bare.stdout == plain.stdout


def test_demo_quiet():
    """``--quiet`` prints only hand results and the final line."""
    out = run_cli("demo", "--variant", "royal", "--seed", "3", "--quiet")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert not any(MOVE_LINE.match(x) for x in lines)
    assert HAND_LINE.match(lines[1]) and FINAL_LINE.match(lines[-1])
    full = run_cli("demo", "--variant", "royal", "--seed", "3")
    assert lines[-1] == full.stdout.splitlines()[-1]


def test_different_seeds_print_different_games():
    a = run_cli("demo", "--seed", "1").stdout
    b = run_cli("demo", "--seed", "2").stdout
    assert a != b


@pytest.mark.parametrize(("args", "message"), [
    (["demo", "--variant", "poker"], r"invalid choice: 'poker'"),
    (["demo", "--players", "7"], r"players=7 is not allowed"),
    (["demo", "--players", "1"], r"players=1 is not allowed"),
    (["demo", "--players", "2", "--partnerships"], r"partnerships need 4 players"),
    (["demo", "--seed", "abc"], r"argument --seed: invalid seed 'abc': expected an integer >= 0"),
    # seeds are integers >= 0 everywhere (issue 16 item 8): -5 was the same game as 5
    (["demo", "--seed", "-5"], r"argument --seed: invalid seed -5: expected an integer >= 0"),
    (["play", "--seed", "-1"], r"argument --seed: invalid seed -1: expected an integer >= 0"),
    (["play", "--delay", "-1"], r"argument --delay: invalid delay '-1': expected seconds >= 0"),
    (["play", "--delay", "nan"], r"argument --delay: invalid delay 'nan'"),
    (["deal"], r"invalid choice: 'deal'"),
])
def test_bad_arguments(args, message):
    """A bad variant or setting exits non-zero with an error message (and no traceback)."""
    out = run_cli(*args)
    assert out.returncode != 0
    assert re.search(message, out.stderr), out.stderr
    assert "Traceback" not in out.stderr
    assert "final scores" not in out.stdout
    assert "--record" not in out.stderr.splitlines()[-1]  # errors are labelled by their cause


@pytest.mark.parametrize(("variant", "players", "partnerships", "seed"),
                         [CASES[0], CASES[3], CASES[5], CASES[9]],
                         ids=[CASE_IDS[0], CASE_IDS[3], CASE_IDS[5], CASE_IDS[9]])
def test_demo_in_process(variant, players, partnerships, seed):
    """cli.demo(..., out=StringIO()) writes the same text as the command and returns the
    winning side."""
    buf = io.StringIO()
    winner = cli.demo(variant, players, seed, partnerships, out=buf)
    text = buf.getvalue()
    final = FINAL_LINE.match(text.splitlines()[-1])
    assert final and int(final[2]) == winner
    replay(text, variant, players, partnerships, seed)
    assert text == run_cli(*demo_args(variant, players, partnerships, seed)).stdout
    again = io.StringIO()
    assert cli.demo(variant, players, seed, partnerships, out=again) == winner
    assert again.getvalue() == text


def test_demo_in_process_quiet_and_errors():
    buf = io.StringIO()
    cli.demo("dominican", 2, 1, quiet=True, out=buf)
    assert not any(MOVE_LINE.match(x) for x in buf.getvalue().splitlines())
    with pytest.raises(ValueError, match="unknown variant"):
        cli.demo("poker", 2, 0, out=io.StringIO())
    with pytest.raises(ValueError, match="partnerships need 4 players"):
        cli.demo("casino", 3, 0, True, out=io.StringIO())


def test_main_in_process(capsys):
    assert cli.main(["demo", "--variant", "dominican", "--seed", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert FINAL_LINE.match(out.splitlines()[-1])
    with pytest.raises(SystemExit) as info:
        cli.main(["demo", "--variant", "poker"])
    assert info.value.code != 0
    assert "invalid choice" in capsys.readouterr().err


def test_demo_reports_a_hand_without_points():
    """Dominican seed 117: hand 5 starts at [20, 19]; side 0 (needs most spades) and side 1
    (needs 10D) both miss, so the hand scores [0, 0] (V-dom-end). The demo must still print
    that hand and count it: 6 hands were played."""
    buf = io.StringIO()
    cli.demo("dominican", 2, 117, quiet=False, out=buf)
    replay(buf.getvalue(), "dominican", 2, False, 117)


# -- console behaviour (issue 16 item 5) ---------------------------------------------------------

@pytest.mark.parametrize("args", [["demo"], ["demo", "--record", "RECORD"], []],
                         ids=["demo", "demo-record", "no-command"])
def test_closed_pipe_ends_quietly(args, tmp_path):
    """``casino-env demo | head -2``: the reader closes the pipe after two lines; the command
    stops without a message or traceback (it printed "--record: [Errno 32] Broken pipe"), exit
    status 141 like a standard tool stopped by SIGPIPE; a record being written is closed with
    the game as far as it went, and replays."""
    from casino_env.records import load_record, replay

    path = tmp_path / "game.jsonl"
    args = [str(path) if a == "RECORD" else a for a in args]
    out, err, status = run_into_closed_pipe(*args, lines=2)
    assert out == "== casino, 2 players, seed 0 ==\n-- hand 1 --\n"
    assert err == ""
    assert status == cli.BROKEN_PIPE_EXIT == 141
    if "--record" in args:
        rec = load_record(path)
        assert rec.result is not None and rec.result["game_over"] is False
        assert replay(path).game_over is False


def test_broken_pipe_in_process_returns_141(monkeypatch):
    """main() turns a BrokenPipeError from writing the output into exit status 141."""
    class Closed(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", Closed())
    assert cli.main(["demo", "--quiet"]) == 141


def test_record_errors_are_labelled_record(tmp_path, capsys):
    """Only a record file that cannot be written is reported as ``--record``."""
    missing = tmp_path / "no" / "dir" / "g.jsonl"
    with pytest.raises(SystemExit) as info:
        cli.main(["demo", "--record", str(missing)])
    assert info.value.code == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == (f"casino-env demo: error: --record: cannot write {missing}: No such file or "
                   "directory")
    with pytest.raises(SystemExit):
        cli.main(["demo", "--players", "9", "--record", str(tmp_path / "g.jsonl")])
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith("casino-env demo: error: players=9 is not allowed")
    assert not (tmp_path / "g.jsonl").exists()  # checked before the record is started


def test_help_shows_defaults_and_the_default_command():
    """``--help`` shows each option's default, and the top-level help says that no command
    runs the demo."""
    top = run_cli("--help")
    assert top.returncode == 0
    text = " ".join(top.stdout.split())
    assert "With no command, casino-env runs the demo with its defaults (casino, 2 players, " \
           "seed 0)" in text
    assert "commands (default: demo)" in text
    demo = " ".join(run_cli("demo", "--help").stdout.split())
    for option, default in [("--variant", "casino"), ("--players", "2"), ("--seed", "0")]:
        assert re.search(rf"{option} \S+ .*?\(default: {default}\)", demo), (option, demo)
    assert "(default: None)" not in demo and "(default: False)" not in demo
    play = " ".join(run_cli("play", "--help").stdout.split())
    assert "(default: heuristic)" in play and "--seat SEAT your seat (default: 0)" in play
    assert "--delay SECONDS pause after each agent move; 0 for no pauses (default: 0.5 with " \
           "--watch on a terminal, else 0)" in play
    assert "ppo:PATH" in play
    replay = " ".join(run_cli("replay", "--help").stdout.split())
    assert "the start line's seed must deal the recorded start" in replay


def test_help_formatter_shows_zero_but_not_none():
    parser = cli.argparse.ArgumentParser(formatter_class=cli.HelpFormatter)
    parser.add_argument("--a", type=int, default=0, help="zero")
    parser.add_argument("--b", default=None, help="none")
    parser.add_argument("--c", action="store_true", help="flag")
    parser.add_argument("--d", default=3, help="explained (default: three)")
    text = " ".join(parser.format_help().split())
    assert "--a A zero (default: 0)" in text
    assert "--b B none --c flag --d D explained (default: three) " in text + " "
