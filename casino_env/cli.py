"""The ``casino-env`` command: ``demo`` plays a seeded game between random players, ``play``
plays against agents in the terminal (or watches them), ``replay`` checks a game record."""

from __future__ import annotations

import argparse
import json
import random
import sys

from .engine import apply_move, legal_moves, list_variants, new_game


def demo(variant: str = "casino", players: int = 2, seed: int = 0,
         partnerships: bool | None = None,
         quiet: bool = False, out=None, record: str | None = None) -> int:
    """Play one full game between seeded random players, printing each move; returns winner.
    ``record``: also write the game's record to that file (``casino_env.records``)."""
    out = out or sys.stdout
    state = new_game(variant, players, seed=seed, partnerships=partnerships)
    recorder = None
    if record:
        from .records import GameRecorder

        recorder = GameRecorder(record, state, ["demo"] * players, [seed] * players, seed,
                                {"command": "demo", "note": "all seats draw from one "
                                 "random.Random(seed)"})
    rng = random.Random(seed)
    hand_no, move_no = 1, 0
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
        if state.hand_points is not before:  # a hand was completed (or the game ended in play)
            print(f"hand {hand_no} points {list(state.hand_points)} -> scores "
                  f"{list(state.scores)}", file=out)
            hand_no += 1
            if not state.game_over and not quiet:
                print(f"-- hand {hand_no} --\n{state}", file=out)
    print(f"final scores {list(state.scores)}; side {state.winner} wins after "
          f"{hand_no - 1} hands, {move_no} moves", file=out)
    if recorder is not None:
        recorder.close()
    return state.winner


def replay_record(path: str, quiet: bool = False, table: bool = False,
                  spec_at: int | None = None, out=None, err=None) -> int:
    """Print a recorded game move by move and check it reproduces the recorded results.

    Returns 0 when every move is legal and the results match, 1 otherwise (with a message on
    ``err``). ``spec_at=N`` prints the state before move N as a JSON spec instead."""
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
        print(f"casino-env replay: error: {e}", file=err)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="casino-env", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("demo", help="play a seeded game between random players, move by move")
    p.add_argument("--variant", default="casino", choices=list_variants())
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--partnerships", action=argparse.BooleanOptionalAction, default=None,
                   help="4 players as two teams (default: the preset's choice)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quiet", action="store_true", help="print only hand results")
    p.add_argument("--record", metavar="FILE", help="write the game's record (JSON lines)")

    p = sub.add_parser("play", help="play against agents in the terminal, or --watch them",
                       description="Play a game against agents (or watch agents play). Type "
                       "a move's number or the move in notation; 'help' lists commands.")
    p.add_argument("--variant", default="casino", choices=list_variants())
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--partnerships", action=argparse.BooleanOptionalAction, default=None,
                   help="4 players as two teams (default: the preset's choice)")
    p.add_argument("--opponent", default="heuristic",
                   help="agent name (random, greedy, heuristic, search; options as "
                   "'search:simulations=200'), or one name per agent seat separated by commas")
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument("--seed", type=int, default=None, help="game seed (default: random, shown)")
    p.add_argument("--watch", action="store_true", help="agents in every seat; you watch")
    p.add_argument("--record", metavar="FILE", help="write the game's record (JSON lines)")
    p.add_argument("--rule", type=_switch, action="append", default=[], metavar="KEY=VALUE",
                   help="a rule switch, e.g. --rule sweeps=true (repeatable)")
    p.add_argument("--delay", type=float, default=0.0,
                   help="seconds to pause after each agent move")
    p.add_argument("--color", action=argparse.BooleanOptionalAction, default=None,
                   help="force colours on or off (default: on in a terminal)")

    p = sub.add_parser("replay", help="print a recorded game and verify its results",
                       description="Replay a game record move by move; exit 1 with a message "
                       "if a move is illegal or the results differ from the record's.")
    p.add_argument("file", help="a record written by play/demo --record or record_game")
    p.add_argument("--quiet", action="store_true", help="print only hand results")
    p.add_argument("--table", action="store_true", help="print the table before every move")
    p.add_argument("--spec-at", type=int, metavar="N",
                   help="print the state before move N as a JSON spec (for a test) and stop")
    args = parser.parse_args(argv)
    if args.command in (None, "demo"):
        if args.command is None:
            args = parser.parse_args(["demo", *(argv or [])])
        try:
            demo(args.variant, args.players, args.seed, args.partnerships, args.quiet,
                 record=args.record)
        except ValueError as e:
            parser.error(str(e))
        except OSError as e:
            parser.error(f"--record: {e}")
        return 0
    if args.command == "play":
        try:
            from .terminal import make_session
        except ImportError as e:  # pragma: no cover
            parser.error(f"play needs the 'rich' package (pip install rich): {e}")

        try:
            session = make_session(args.variant, args.players, args.opponent, args.seat,
                                   args.seed, args.watch, args.partnerships, args.record,
                                   dict(args.rule), color=args.color, delay=args.delay)
        except ValueError as e:
            parser.error(str(e))
        except OSError as e:
            parser.error(f"--record: {e}")
        session.run()
        return 0
    if args.command == "replay":
        return replay_record(args.file, args.quiet, args.table, args.spec_at)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
