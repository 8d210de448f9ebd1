"""The ``casino-env`` command: ``demo`` plays a seeded game between random players."""

from __future__ import annotations

import argparse
import random
import sys

from .engine import apply_move, legal_moves, list_variants, new_game


def demo(variant: str = "casino", players: int = 2, seed: int = 0,
         partnerships: bool | None = None,
         quiet: bool = False, out=None) -> int:
    """Play one full game between seeded random players, printing each move; returns winner."""
    out = out or sys.stdout
    state = new_game(variant, players, seed=seed, partnerships=partnerships)
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
    return state.winner


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
    args = parser.parse_args(argv)
    if args.command in (None, "demo"):
        if args.command is None:
            args = parser.parse_args(["demo", *(argv or [])])
        try:
            demo(args.variant, args.players, args.seed, args.partnerships, args.quiet)
        except ValueError as e:
            parser.error(str(e))
        return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
