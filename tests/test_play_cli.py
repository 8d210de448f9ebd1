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
from cli_helpers import run_into_closed_pipe

from casino_env import cli
from casino_env.engine import (
    IllegalMoveError,
    State,
    apply_move,
    legal_moves,
    new_game,
    parse_move,
)
from casino_env.records import load_record, replay
from casino_env.terminal import (
    board,
    illegal_text,
    make_session,
    moves_list,
    parse_agents,
    play_terminal,
)

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
    # an illegal move gets the engine's message (what is wrong, why, the rule), said once
    flat = " ".join(text.split())
    for entry in (bad, f"{missing} trails"):
        with pytest.raises(IllegalMoveError) as info:
            apply_move(st0, entry)
        message = " ".join(str(info.value).split())
        assert flat.count(message) == 1, message
        assert info.value.rule and info.value.rule in message
    assert "C-turn" in flat and "Not allowed" not in text
    assert not re.search(r"(?i)illegal move.*illegal move", flat)
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
    out = run_cli("play", "--opponent", "greedy", "--watch", "--seed", "1", "--rule", "target=7",
                  "--delay", "0")
    assert out.returncode == 0, out.stderr
    assert "watching seat 0 (greedy), seat 1 (greedy)" in out.stdout
    assert any(FINAL_LINE.match(x) for x in out.stdout.splitlines())


@pytest.mark.parametrize(("args", "message"), [
    (["play", "--opponent", "nobody"], r"error: --opponent: unknown agent 'nobody'"),
    (["play", "--seat", "3"], r"seat must be 0..1"),
    (["play", "--players", "9"], r"players=9 is not allowed"),
    (["play", "--rule", "bogus=1"], r"bogus"),
    (["play", "--rule", "novalue"], r"expected key=value"),
    (["play", "--record", "/nonexistent/dir/x.jsonl"],
     r"error: --record: cannot write /nonexistent/dir/x.jsonl: No such file or directory"),
    (["play", "--opponent", "greedy,greedy"],
     r"error: --opponent: give one agent name or 1 comma-separated names"),
])
def test_cli_play_bad_arguments(args, message, capsys):
    """A bad setting exits with status 2 and a message, before the game starts."""
    with pytest.raises(SystemExit) as info:
        cli.main(args)
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert re.search(message, captured.err), captured.err
    assert "== " not in captured.out


# -- issue 16 item 5: the rough edges of play and watch ------------------------------------------

@pytest.mark.parametrize(("spec", "message"), [
    ("nobody", r"unknown agent 'nobody' \(known: .*ppo:PATH"),
    ("search:bogus=1", r"'search:bogus=1': .*bogus"),
    ("search:simulations=abc", r"'search:simulations=abc': .*simulations.*'abc'"),
    ("ppo:nope.zip", r"'ppo:nope.zip': .*nope\.zip"),
    ("greedy,search:bogus=1", r"'search:bogus=1': .*bogus"),
])
def test_bad_agent_specs_are_one_clean_line(spec, message, tmp_path):
    """Every bad --opponent is refused before the game starts with one line labelled
    --opponent (search:bogus=1 gave a traceback, ppo:nope.zip was labelled --record), and no
    record file is started."""
    path = tmp_path / "g.jsonl"
    players = str(spec.count(",") + 2)
    out = run_cli("play", "--opponent", spec, "--players", players, "--record", str(path))
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and out.stdout == ""
    last = out.stderr.splitlines()[-1]
    assert last.startswith("casino-env play: error: --opponent: "), out.stderr
    assert re.search(message, last), last
    assert not path.exists()


def test_agent_errors_are_one_line_and_the_rules_are_checked(monkeypatch, capsys):
    """The CLI resolves agents through casino_env.players with the game's rules: an agent's
    check_rules refusing the game, or a registry error over several lines, is one line."""
    from casino_env import players

    class Picky:
        def act(self, state, seat=None):
            return legal_moves(state)[0]

        def reset(self, seed=None):
            pass

        def check_rules(self, rules):
            raise ValueError(f"trained on casino 2p,\nthis game is {rules.variant} 2p")

    def registry(name, seed=None):
        if name == "picky":
            return Picky()
        raise ValueError(f"unknown agent {name!r}\n  (known: picky)")

    monkeypatch.setattr(players, "_registry", registry)
    for spec, message in [("picky", "'picky': trained on casino 2p, this game is royal 2p"),
                          ("other", "unknown agent 'other' (known: picky)")]:
        with pytest.raises(SystemExit) as info:
            cli.main(["play", "--variant", "royal", "--opponent", spec])
        assert info.value.code == 2
        assert capsys.readouterr().err.splitlines()[-1] == \
            f"casino-env play: error: --opponent: {message}"


def test_agent_errors_keep_their_message_in_python():
    """make_session raises OptionError (a ValueError) naming --opponent, with the registry's
    message."""
    with pytest.raises(cli.OptionError, match=r"unknown agent 'nobody'") as info:
        make_session(opponent="nobody", input=io.StringIO(), output=io.StringIO())
    assert info.value.option == "--opponent"
    with pytest.raises(ValueError, match=r"'search:bogus=1': .*bogus"):
        make_session(opponent="search:bogus=1", input=io.StringIO(), output=io.StringIO())


def test_illegal_text_says_the_engine_message_once():
    """The message the person sees is the engine's, without a prefix of our own; a rule id the
    message lacks is added (for an IllegalMoveError made without it in its text)."""
    st = new_game("royal", 2, seed=3)
    other = st.hand(1)[0]
    with pytest.raises(IllegalMoveError) as info:
        apply_move(st, f"{other} trails")
    assert illegal_text(info.value) == str(info.value)
    assert illegal_text(IllegalMoveError("KS is not yours", "C-turn")) == "KS is not yours (C-turn)"
    assert illegal_text(IllegalMoveError("no rule here")) == "no rule here"


def _rows(moves: list, width: int) -> list[str]:
    from rich.console import Console

    out = io.StringIO()
    Console(file=out, width=width).print(moves_list(moves))
    return [line.rstrip() for line in out.getvalue().splitlines()]


def test_move_list_reads_row_by_row_in_even_columns():
    """The numbered moves read across (1 2 3, then 4 5 6), every column as wide as the
    widest entry (it read down, in columns of different widths)."""
    st = new_game("royal", 2, seed=3)
    moves = legal_moves(st)
    assert len(moves) >= 7
    rows = _rows(moves, 80)
    numbers = [[int(n) for n in re.findall(r"(?:^|\s)(\d+)\. ", row)] for row in rows]
    per_row = len(numbers[0])
    assert per_row >= 2 and len(rows) > 1
    assert sum(numbers, []) == list(range(1, len(moves) + 1))  # row-major order
    assert all(len(r) == per_row for r in numbers[:-1])
    # where each entry's number ends (numbers are right-aligned within their entry)
    ends = [[m.end(1) for m in re.finditer(r"(?:^|\s)\s*(\d+)\. ", row)] for row in rows]
    width = len(str(len(moves)))
    labels = [f"{i:>{width}}. {m}" for i, m in enumerate(moves, 1)]
    cell = max(len(x) for x in labels)
    assert all(row == ends[0][:len(row)] for row in ends)  # the columns line up
    for row in ends:  # every column as wide as the widest entry, plus the gap
        assert [b - a for a, b in zip(row, row[1:])] == [cell + 3] * (len(row) - 1)
    assert len(_rows(moves, 40)) > len(rows)  # a narrower console takes fewer columns


def test_partnership_header_names_the_partner():
    """A 4-player partnership game: the header names the partner as partner, and only the
    other side as opponents (it called the partner an opponent)."""
    session = make_session("casino", 4, opponent="random", seat=2, seed=5, partnerships=True,
                           input=io.StringIO(), output=io.StringIO())
    assert session.intro[0] == ("== casino, 4 players, seed 5: you are seat 2 (side 0) with "
                                "partner seat 0 (random), against seat 1 (random), "
                                "seat 3 (random) ==")
    alone = make_session("casino", 3, opponent="greedy,random", seat=1, seed=5,
                         input=io.StringIO(), output=io.StringIO())
    assert alone.intro[0] == ("== casino, 3 players, seed 5: you are seat 1 (side 1) against "
                              "seat 0 (greedy), seat 2 (random) ==")
    watch = make_session("dominican", 4, opponent="greedy,random,heuristic,random", watch=True,
                         seed=5, input=io.StringIO(), output=io.StringIO())
    assert watch.intro[0] == ("== dominican, 4 players, seed 5: watching side 0: seat 0 "
                              "(greedy) + seat 2 (heuristic) v side 1: seat 1 (random) + "
                              "seat 3 (random) ==")


class _TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_watch_has_a_default_pace_and_no_pauses_with_delay_0(monkeypatch):
    """--watch paces the game on a terminal (0.5 s a move; it scrolled a whole game in 0.7 s);
    delay 0 has no pauses; output to a file or pipe is not paced. No real sleeping here: the
    pauses are counted."""
    pauses: list[float] = []
    monkeypatch.setattr("casino_env.terminal.time.sleep", pauses.append)
    paced = make_session(opponent="greedy", watch=True, seed=4, switches={"target": 7},
                         input=io.StringIO(), output=_TTY())
    assert paced.delay == cli.WATCH_DELAY == 0.5
    st = paced.run()
    assert st.game_over and pauses == [0.5] * paced.moves
    pauses.clear()
    assert make_session(opponent="greedy", watch=True, seed=4, delay=0, input=io.StringIO(),
                        output=_TTY()).run().game_over
    assert pauses == []
    assert make_session(opponent="greedy", watch=True, input=io.StringIO(),
                        output=io.StringIO()).delay == 0  # a transcript
    assert make_session(opponent="greedy", input=io.StringIO(), output=_TTY()).delay == 0
    # a person playing: pauses only after the agents' moves, when asked for
    session = make_session(opponent="greedy", seed=4, delay=0.25, input=io.StringIO("1\n" * 3),
                           output=io.StringIO())
    session.run()
    assert pauses == [0.25] * (session.moves - 3) and session.moves >= 5
    with pytest.raises(ValueError, match=r"delay must be seconds >= 0 \(0 for no pauses\), "
                                         r"got -1"):
        make_session(delay=-1, input=io.StringIO(), output=io.StringIO())


def test_watch_into_a_closed_pipe_is_quiet():
    """``casino-env play --watch | head -3``: no traceback, exit status 141."""
    out, err, status = run_into_closed_pipe("play", "--watch", "--opponent", "greedy",
                                            "--seed", "1", "--delay", "0", lines=3)
    assert out.startswith("== casino, 2 players, seed 1: watching seat 0 (greedy)")
    assert (err, status) == ("", 141)


def test_the_cut_card_is_shown_to_the_non_dealer_only():
    """V-hun-cut: the non-dealer has seen the stock's bottom card, so the board drawn for that
    seat names it (as the engine's text and the observation do); the dealer's board does not,
    and the board with every hand shown names who saw it."""
    from rich.console import Console

    st = new_game("hungarian", 2, seed=3, ulmann=True, cut=True)
    bottom = st.stock[-1]
    non_dealer = (st.dealer + 1) % 2

    def text(viewer):
        out = io.StringIO()
        Console(file=out, width=140).print(board(st, viewer))
        return out.getvalue()

    assert re.search(rf"cut\s+{re.escape(bottom)} \(bottom of the stock, seen by seat "
                     rf"{non_dealer}", text(non_dealer))
    assert "cut " not in text(st.dealer) and not token(bottom).search(text(st.dealer))
    assert re.search(rf"cut\s+{re.escape(bottom)}", text(None))
