"""``casino-env play``: a person against agents in the terminal (or watching them), driven here
by scripted input. Moves by number or notation, helpful messages and a second chance for wrong
entries, clean exits on ``quit`` and end of input, only the person's own hand on screen, and
``--record`` writing a record that replays."""

from __future__ import annotations

import io
import random
import re
import subprocess
import sys

import pytest

from casino_env import cli
from casino_env.engine import State, apply_move, legal_moves, new_game, parse_move
from casino_env.records import load_record, replay
from casino_env.terminal import board, make_session, parse_agents, play_terminal

MOVE_LINE = re.compile(r"^\s*(\d+)\. seat (\d+) \(([^)]*)\): (.+)$")
FINAL_LINE = re.compile(r"^final scores \[([\d, ]*)\]; side (\d+) wins after (\d+) hands, "
                        r"(\d+) moves$")


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "casino_env", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def play(script: str, **kw) -> tuple[State, str]:
    out = io.StringIO()
    kw.setdefault("variant", "royal")
    kw.setdefault("opponent", "greedy")
    kw.setdefault("seed", 3)
    st = play_terminal(input=io.StringIO(script), output=out, **kw)
    return st, out.getvalue()


def token(card: str) -> re.Pattern:
    return re.compile(rf"(?<![\w+]){re.escape(card)}(?![\w])")


def replay_transcript(text: str, variant: str, players: int, seed: int,
                      partnerships: bool | None = None) -> State:
    """Replay the printed move lines through the engine."""
    st = new_game(variant, players, seed=seed, partnerships=partnerships)
    for line in text.splitlines():
        if m := MOVE_LINE.match(line):
            assert int(m[2]) == st.current
            st = apply_move(st, parse_move(m[4], st))
    return st


def test_full_game_by_numbers():
    """Always typing 1 plays a whole game; the transcript's moves replay to its result."""
    st, text = play("1\n" * 400)
    assert st.game_over
    lines = text.splitlines()
    final = next(FINAL_LINE.match(x) for x in lines if FINAL_LINE.match(x))
    assert [int(x) for x in final[1].split(",")] == list(st.scores)
    assert int(final[2]) == st.winner
    assert ("You win!" if st.winner == 0 else "You lose.") in text
    assert replay_transcript(text, "royal", 2, 3) == st
    assert "seat 0 (you)" in text and "seat 1 (greedy)" in text
    assert re.search(r"hand 1 points \[\d+, \d+\] -> scores", text)


def test_moves_in_notation_any_case():
    st0 = new_game("royal", 2, seed=3)
    first = legal_moves(st0)[-1]
    st, text = play(f"{str(first).lower()}\nquit\n")
    assert f"   1. seat 0 (you): {first}" in text
    assert not st.game_over and "Quit after 2 moves" in text


def test_wrong_entries_get_messages_and_another_try():
    st0 = new_game("royal", 2, seed=3)
    hand = st0.hand(0)
    loose = st0.rules.deck.strs(st0.loose_mask)
    # a capture with a card of the hand whose value matches no table card
    values = st0.rules.values
    deck = st0.rules.deck
    bad = next(f"{c} captures {t}" for c in hand for t in loose
               if values[deck.parse(c)] != values[deck.parse(t)])
    missing = next(c for c in st0.rules.deck.names if c not in hand and c not in loose
                   and c not in st0.hand(1))
    script = "\n".join(["", "foo", "99", "0", bad, f"{missing} trails", hand[0], "help",
                        "moves", "board", "1", "quit"]) + "\n"
    st, text = play(script)
    assert "cannot read move 'foo'" in text
    assert "There is no move number 99: choose 1.." in text
    assert "There is no move number 0" in text
    assert re.search(rf"Not allowed: illegal move {re.escape(bad.split()[0])} captures .*"
                     r"\((C|V)-[a-z-]+\)", text)
    assert f"{missing} trails: {missing} not in seat 0's hand (C-turn)" in text
    assert f"{hand[0]} can make: 1. {hand[0]} trails" in text or f"{hand[0]} can make:" in text
    assert "Commands: moves (m)" in text
    assert text.count("Try again") == 6
    assert text.count("Your legal moves") >= 2  # the list again after the opponent moved
    assert "   1. seat 0 (you): " in text and "Quit after 2 moves" in text
    assert not st.game_over


@pytest.mark.parametrize("script", ["", "1\n", "quit\n", "q\n", "exit\n"])
def test_quit_and_end_of_input_exit_cleanly(script):
    st, text = play(script)
    assert not st.game_over
    assert "Quit after" in text and "Traceback" not in text


def test_only_own_hand_is_shown():
    """The board drawn for a seat never names another seat's hidden cards."""
    rng = random.Random(0)
    for variant, players, seed in [("royal", 2, 1), ("casino", 3, 2), ("tuxedo", 4, 3)]:
        st = new_game(variant, players, seed=seed)
        for _ in range(30):
            seat = st.current
            out = io.StringIO()
            from rich.console import Console

            Console(file=out, width=120).print(board(st, seat))
            text = out.getvalue()
            for other in range(players):
                if other == seat:
                    continue
                for card in st.hand(other):
                    assert not token(card).search(text), (variant, card, text)
            for card in st.hand(seat):
                assert token(card).search(text)
            st = apply_move(st, rng.choice(legal_moves(st)))
            if st.game_over:
                break
    # the opening screen of a real game shows the opponent's cards only as backs
    st0 = new_game("royal", 2, seed=3)
    _, text = play("quit\n")
    assert "▒▒ ▒▒ ▒▒ ▒▒  (4 cards)" in text
    for card in st0.hand(1):
        assert not token(card).search(text)


def test_human_in_another_seat_and_partners():
    st, text = play("1\n" * 300, variant="casino", players=4, seat=2, opponent="random",
                    partnerships=True, seed=5)
    assert st.game_over and st.rules.partnerships
    assert "you are seat 2 (side 0)" in text
    assert "side 0 (random + you)" in text
    assert replay_transcript(text, "casino", 4, 5, True).to_spec() == st.to_spec()


def test_watch_mode_shows_every_hand():
    st, text = play("", watch=True, opponent="greedy,heuristic", seed=4,
                    switches={"target": 7})  # a short game
    assert st.game_over
    st0 = new_game("royal", 2, seed=4)
    first_board = text.split("   1. seat 0")[0]
    for seat in range(2):
        for card in st0.hand(seat):
            assert token(card).search(first_board)
    assert "watching seat 0 (greedy), seat 1 (heuristic)" in text
    assert "Your legal moves" not in text and "You win" not in text


def test_record_from_play_replays(tmp_path):
    path = tmp_path / "game.jsonl"
    # "2", or "1" after the message when there is only one legal move
    st, _ = play("2\n1\n" * 300, record=str(path), seed=8, switches={"target": 7})
    assert st.game_over
    assert replay(path) == st
    rec = load_record(path)
    assert rec.start["agents"] == ["human", "greedy"] and rec.start["seed"] == 8
    assert rec.start["meta"]["command"] == "play"
    # a game left early is recorded as it stands, and still replays
    part = tmp_path / "part.jsonl"
    st2, _ = play("1\n1\nquit\n", record=str(part), seed=8)
    assert not st2.game_over and replay(part) == st2
    assert load_record(part).result["game_over"] is False


def test_bad_settings_raise_before_play():
    with pytest.raises(ValueError, match="unknown agent"):
        make_session(opponent="nobody", input=io.StringIO(), output=io.StringIO())
    with pytest.raises(ValueError, match="seat must be 0..1"):
        make_session(seat=2, input=io.StringIO(), output=io.StringIO())
    with pytest.raises(ValueError, match="give one agent name or 2"):
        make_session(players=3, opponent="greedy,random,random", input=io.StringIO(),
                     output=io.StringIO())
    assert parse_agents("search:simulations=5,max_candidates=2,greedy", 3, 0) == \
        ["search:simulations=5,max_candidates=2", "greedy"]
    assert parse_agents("greedy", 4, None) == ["greedy"] * 4


def test_cli_play_subprocess(tmp_path):
    """The console command with scripted stdin: a whole game, a quit, a recorded game."""
    out = run_cli("play", "--variant", "royal", "--players", "2", "--opponent", "heuristic",
                  "--seed", "6", stdin="1\n" * 300)
    assert out.returncode == 0, out.stderr
    assert any(FINAL_LINE.match(x) for x in out.stdout.splitlines())
    assert "you are seat 0 (side 0) against seat 1 (heuristic)" in out.stdout
    path = tmp_path / "r.jsonl"
    out = run_cli("play", "--variant", "casino", "--seat", "1", "--seed", "2", "--record",
                  str(path), "--rule", "sweeps=true", stdin="foo\n1\nquit\n")
    assert out.returncode == 0, out.stderr
    assert "cannot read move 'foo'" in out.stdout and "Quit after" in out.stdout
    rec = load_record(path)
    assert rec.start["rules"]["sweeps"] is True and rec.start["agents"][1] == "human"
    check = run_cli("replay", str(path))
    assert check.returncode == 0, check.stderr


def test_cli_watch_subprocess():
    out = run_cli("play", "--opponent", "greedy", "--watch", "--seed", "1", "--rule", "target=7")
    assert out.returncode == 0, out.stderr
    assert "watching seat 0 (greedy), seat 1 (greedy)" in out.stdout
    assert any(FINAL_LINE.match(x) for x in out.stdout.splitlines())


@pytest.mark.parametrize(("args", "message"), [
    (["play", "--opponent", "nobody"], r"unknown agent 'nobody'"),
    (["play", "--seat", "3"], r"seat must be 0..1"),
    (["play", "--players", "9"], r"players=9 is not allowed"),
    (["play", "--rule", "bogus=1"], r"bogus"),
    (["play", "--rule", "novalue"], r"expected key=value"),
    (["play", "--record", "/nonexistent/dir/x.jsonl"], r"--record"),
])
def test_cli_play_bad_arguments(args, message, capsys):
    """A bad setting exits with status 2 and a message, before the game starts."""
    with pytest.raises(SystemExit) as info:
        cli.main(args)
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert re.search(message, captured.err), captured.err
    assert "== " not in captured.out
