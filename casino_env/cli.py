"""The ``casino-env`` command: ``demo`` plays a seeded game between random players, ``play``
plays against agents in the terminal (or watches them), ``replay`` checks a game record.

This module imports only the env layer: agents are named on the command line and resolved
through the one agent registry (``casino_env.players``), so the command needs nothing above it.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import random
import sys
from typing import IO

from .engine import apply_move, legal_moves, list_variants, new_game
from .players import known_agents

DESCRIPTION = """\
Play, watch and replay Casino games in the terminal.

Commands: demo plays a seeded game between random players and prints every move; play plays
against agents (or --watch them play each other); replay prints a game record and verifies it.
With no command, casino-env runs the demo with its defaults (casino, 2 players, seed 0).
'casino-env COMMAND --help' lists a command's options and their defaults."""

# Exit status when stdout is closed early (`casino-env demo | head`): 128 + SIGPIPE, as a shell
# reports for a standard tool stopped by the closed pipe.
BROKEN_PIPE_EXIT = 141
# Default pause after each move with --watch on a terminal: a pace a person can follow.
WATCH_DELAY = 0.5


class OptionError(ValueError):
    """A bad setting found while a command sets up; ``option`` names the command-line option
    that caused it (``--record``, ``--opponent``), so the message can be labelled by it."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """argparse's help with each option's default shown, except defaults that say nothing
    (None, False, an empty list) or that the help text already explains."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        quiet = action.default is None or action.default is False or action.default == [] \
            or action.default == argparse.SUPPRESS  # (0 is a default to show, not False)
        if quiet or "default" in text:
            return action.help
        return super()._get_help_string(action)


def one_line(message: object) -> str:
    """A message on one line (an error text that spans lines, collapsed)."""
    return " ".join(str(message).split())


def demo(variant: str = "casino", players: int = 2, seed: int = 0,
         partnerships: bool | None = None,
         quiet: bool = False, out: IO[str] | None = None, record: str | None = None) -> int:
    """Play one full game between seeded random players, printing each move; returns winner.
    ``record``: also write the game's record to that file (``casino_env.records``); a file
    that cannot be written raises OptionError (option ``--record``) before anything is
    printed."""
    out = out or sys.stdout
    state = new_game(variant, players, seed=seed, partnerships=partnerships)
    recorder = None
    if record:
        from .records import GameRecorder

        try:
            recorder = GameRecorder(record, state, ["demo"] * players, [seed] * players, seed,
                                    {"command": "demo", "note": "all seats draw from one "
                                     "random.Random(seed)"})
        except OSError as e:
            raise OptionError("--record", f"cannot write {record}: {e.strerror or e}") \
                from None
    rng = random.Random(seed)
    hand_no, move_no = 1, 0
    try:
        print(f"== {variant}, {players} players, seed {seed} ==", file=out)
        if not quiet:
            print(f"-- hand {hand_no} --\n{state}", file=out)
        while not state.game_over:
            moves = legal_moves(state)
            move = rng.choice(moves)
            seat = state.current
            before = state.hand_points
            state = apply_move(state, move)
            if recorder is not None:
                recorder.add(move, state)
            move_no += 1
            if not quiet:
                print(f"{move_no:4d}. seat {seat}: {move}", file=out)
            if state.hand_points is not before:  # a hand was completed (or the game ended)
                print(f"hand {hand_no} points {list(state.hand_points)} -> scores "
                      f"{list(state.scores)}", file=out)
                hand_no += 1
                if not state.game_over and not quiet:
                    print(f"-- hand {hand_no} --\n{state}", file=out)
        print(f"final scores {list(state.scores)}; side {state.winner} wins after "
              f"{hand_no - 1} hands, {move_no} moves", file=out)
    finally:  # the record ends with the last state reached (a closed pipe stops the game)
        if recorder is not None:
            recorder.close()
    return state.winner


def replay_record(path: str, quiet: bool = False, table: bool = False,
                  spec_at: int | None = None, out: IO[str] | None = None,
                  err: IO[str] | None = None) -> int:
    """Print a recorded game move by move and check it reproduces the recorded results.

    Returns 0 when the start line's seed deals the recorded start, the moves are numbered in
    order, every move is legal and the results match; 1 otherwise (with a message on ``err``
    naming the line and what differs). ``spec_at=N`` prints the state before move N as a
    JSON spec instead."""
    from .engine.text import describe_state
    from .records import RecordError, check_results, iter_replay, load_record

    out = out or sys.stdout
    err = err or sys.stderr
    try:
        rec = load_record(path)
        if spec_at is not None:
            print(json.dumps(rec.state_before(spec_at).to_spec(), indent=1), file=out)
            return 0
        start = rec.start
        seats = start.get("agents") or []
        who = ", ".join(f"seat {i} {a}" for i, a in enumerate(seats))
        print(f"== replay {path}: {start.get('variant')}, {start.get('players')} players, "
              f"seed {start.get('seed')}" + (f" ({who})" if who else "") + " ==", file=out)
        state = rec.initial_state()
        if not quiet:
            print(f"-- hand {state.hand_no + 1} --\n{state}", file=out)
        hands: list[list[int]] = []
        moves = 0
        for step in iter_replay(rec):
            if table and not quiet and step.n > 1:
                print(describe_state(step.before), file=out)
            if not quiet:
                print(f"{step.n:4d}. seat {step.seat}: {step.move}", file=out)
            state, moves = step.after, step.n
            if step.hand_points is not None:
                hands.append(step.hand_points)
                print(f"hand {len(hands)} points {step.hand_points} -> scores "
                      f"{list(state.scores)}", file=out)
                if not state.game_over and not quiet:
                    print(f"-- hand {len(hands) + 1} --\n{state}", file=out)
        if state.game_over:
            print(f"final scores {list(state.scores)}; side {state.winner} wins after "
                  f"{len(hands)} hands, {moves} moves", file=out)
        else:
            print(f"the game is not over after {moves} moves: scores {list(state.scores)}",
                  file=out)
        check_results(rec, state, hands, moves)
    except (RecordError, ValueError) as e:
        out.flush()  # the moves printed so far come before the message
        print(f"casino-env replay: error: {one_line(e)}", file=err)
        return 1
    print(f"verified: {moves} moves replay to the recorded results", file=out)
    return 0


def _switch(text: str) -> tuple[str, object]:
    """``--rule key=value``: ints, true/false, else the text."""
    key, eq, value = text.partition("=")
    if not eq or not key.strip():
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    v = value.strip()
    if v.lower() in ("true", "yes", "on"):
        return key.strip(), True
    if v.lower() in ("false", "no", "off"):
        return key.strip(), False
    try:
        return key.strip(), int(v)
    except ValueError:
        return key.strip(), v


def _seed(text: str) -> int:
    """``--seed``: an integer >= 0 (the one rule for seeds everywhere)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid seed {text!r}: expected an integer >= 0") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"invalid seed {value}: expected an integer >= 0")
    return value


def _delay(text: str) -> float:
    """``--delay``: seconds, a finite number >= 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(
            f"invalid delay {text!r}: expected seconds >= 0 (0 for no pauses)")
    return value


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The command's parser and its subcommands' parsers (by name)."""
    parser = argparse.ArgumentParser(prog="casino-env", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="{demo,play,replay}",
                                title="commands (default: demo)")
    subs: dict[str, argparse.ArgumentParser] = {}

    def add(name: str, summary: str, description: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=summary, description=description,
                           formatter_class=HelpFormatter)
        subs[name] = p
        return p

    p = add("demo", "play a seeded game between random players, move by move (the default)",
            "Play one seeded game between random players and print every move, each hand's "
            "points and the final scores. This is what casino-env runs with no command.")
    p.add_argument("--variant", default="casino", choices=list_variants(), help="the preset")
    p.add_argument("--players", type=int, default=2, help="number of players")
    p.add_argument("--partnerships", action=argparse.BooleanOptionalAction, default=None,
                   help="4 players as two teams (krypkasino: 6 as three teams too; default: "
                   "the preset's choice)")
    p.add_argument("--seed", type=_seed, default=0, help="game seed (an integer >= 0)")
    p.add_argument("--quiet", action="store_true", help="print only hand results")
    p.add_argument("--record", metavar="FILE", help="write the game's record (JSON lines)")

    p = add("play", "play against agents in the terminal, or --watch them",
            "Play a game against agents (or watch agents play). Type a move's number or the "
            "move in notation; 'help' lists commands.")
    p.add_argument("--variant", default="casino", choices=list_variants(), help="the preset")
    p.add_argument("--players", type=int, default=2, help="number of players")
    p.add_argument("--partnerships", action=argparse.BooleanOptionalAction, default=None,
                   help="4 players as two teams (krypkasino: 6 as three teams too; default: "
                   "the preset's choice)")
    p.add_argument("--opponent", default="heuristic", metavar="AGENT",
                   help=f"agent name ({', '.join(known_agents()) or 'random, heuristic, ...'};"
                   " options as 'search:simulations=200'), or one name per agent seat "
                   "separated by commas")
    p.add_argument("--seat", type=int, default=0, help="your seat")
    p.add_argument("--seed", type=_seed, default=None,
                   help="game seed, an integer >= 0 (default: drawn at random and shown)")
    p.add_argument("--watch", action="store_true", help="agents in every seat; you watch")
    p.add_argument("--delay", type=_delay, default=None, metavar="SECONDS",
                   help=f"pause after each agent move; 0 for no pauses (default: {WATCH_DELAY} "
                   "with --watch on a terminal, else 0)")
    p.add_argument("--record", metavar="FILE", help="write the game's record (JSON lines)")
    p.add_argument("--rule", type=_switch, action="append", default=[], metavar="KEY=VALUE",
                   help="a rule switch, e.g. --rule sweeps=true (repeatable)")
    p.add_argument("--color", action=argparse.BooleanOptionalAction, default=None,
                   help="force colours on or off (default: on in a terminal)")

    p = add("replay", "print a recorded game and verify it",
            "Replay a game record move by move and verify it: the start line's seed must "
            "deal the recorded start, moves must be numbered 1, 2, ... and legal, and the "
            "results must match the record's. Exit 1 with a message naming the line "
            "otherwise.")
    p.add_argument("file", help="a record written by play/demo --record or record_game")
    p.add_argument("--quiet", action="store_true", help="print only hand results")
    p.add_argument("--table", action="store_true", help="print the table before every move")
    p.add_argument("--spec-at", type=int, metavar="N",
                   help="print the state before move N as a JSON spec (for a test) and stop")
    return parser, subs


def _run(argv: list[str] | None) -> int:
    parser, subs = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # no command (and so no options): the demo with its defaults
        args = parser.parse_args(["demo"])
    command = args.command
    p = subs[command]
    if command == "demo":
        try:  # a bad setting is a usage error; checked before anything is printed
            new_game(args.variant, args.players, seed=args.seed, partnerships=args.partnerships)
        except ValueError as e:
            p.error(one_line(e))
        try:
            demo(args.variant, args.players, args.seed, args.partnerships, args.quiet,
                 record=args.record)
        except OptionError as e:
            p.error(f"{e.option}: {one_line(e)}")
        return 0
    if command == "play":
        from .terminal import make_session

        try:
            session = make_session(args.variant, args.players, args.opponent, args.seat,
                                   args.seed, args.watch, args.partnerships, args.record,
                                   dict(args.rule), color=args.color, delay=args.delay)
        except OptionError as e:
            p.error(f"{e.option}: {one_line(e)}")
        except ValueError as e:
            p.error(one_line(e))
        session.run()
        return 0
    return replay_record(args.file, args.quiet, args.table, args.spec_at)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush of whatever is still
    buffered does not fail again on the closed pipe (the Python docs' recipe)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, io.UnsupportedOperation):
        return  # not a real file (a test's capture): nothing to flush at exit
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns its exit status. A reader that stops early (``| head``) ends
    it quietly, as it does a standard Unix tool: no message, exit status 141."""
    try:
        status = _run(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return BROKEN_PIPE_EXIT
    return status


if __name__ == "__main__":
    raise SystemExit(main())
