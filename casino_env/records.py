"""Game records: a game as JSON lines, written while it is played and replayed exactly.

A record is a text file with one JSON object per line:

1. ``{"type": "start", ...}``: the format and version, the game's metadata (variant, players,
   partnerships, rule switches, game seed, agent names and seeds per seat, free ``meta``) and
   ``spec``, the state at the start (``State.to_spec()``);
2. one ``{"type": "move", "n": 1, "hand": 1, "seat": 0, "move": "7H captures 2C+5S"}`` per
   move, in the engine's notation;
3. ``{"type": "result", ...}``: ``game_over``, ``winner``, ``scores``, ``hand_points`` (one
   list per hand played), ``moves``, ``hands`` and ``final``, the final state's spec.

``replay(path)`` rebuilds the game from the start spec and the moves alone and checks the
start line (its seed deals the start spec; its variant, players and switches are the spec's),
every move (numbered in order, in the recorded hand, legal, by the recorded seat) and the
recorded results; a mismatch raises ``RecordError`` naming the line and what differs. See
docs/records.md.

Agents are named through the one agent registry or given as objects with ``act`` and
``reset`` (``casino_env.players``): this module imports nothing above the env layer.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .engine import IllegalMoveError, Move, State, apply_move, legal_moves, new_game, parse_move
from .players import resolve

FORMAT = "casino-env-record"
VERSION = 1


class RecordError(ValueError):
    """A record that cannot be read, or that does not replay to what it records."""


@dataclass
class Record:
    """A game record in memory: the start line, the move lines and the result line (or None
    for a game that was not finished and closed)."""

    start: dict
    moves: list[dict] = field(default_factory=list)
    result: dict | None = None
    path: str | None = None
    # line numbers in the file read (for messages): of the start line, each move, the result
    line_numbers: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def spec(self) -> dict:
        """The state at the start of the game, as a spec."""
        return self.start["spec"]

    def initial_state(self) -> State:
        return State.from_spec(self.spec)

    def lines(self) -> list[str]:
        """The record as JSON lines (without newlines)."""
        out = [_dumps(self.start)] + [_dumps(m) for m in self.moves]
        if self.result is not None:
            out.append(_dumps(self.result))
        return out

    def write(self, path: str | Path) -> None:
        Path(path).write_text("\n".join(self.lines()) + "\n", encoding="utf-8")

    def state_before(self, n: int) -> State:
        """The state before move ``n`` (1-based; ``len(moves) + 1`` gives the final state)."""
        if not 1 <= n <= len(self.moves) + 1:
            raise ValueError(f"move number must be 1..{len(self.moves) + 1}, got {n}")
        st = self.initial_state()
        for step in iter_replay(self):
            if step.n == n:
                return step.before
            st = step.after
        return st


def _dumps(obj: dict) -> str:
    return json.dumps(obj, separators=(", ", ": "), ensure_ascii=False)


class HandTracker:
    """Points per hand as a game goes on (a hand ends when ``hand_points`` changes; a game
    ended during play without them counts what the scores gained since the hand began)."""

    def __init__(self, state: State) -> None:
        self.hp = state.hand_points
        self.start_scores = tuple(state.scores)
        self.hands: list[list[int]] = []

    def update(self, state: State) -> bool:
        """Note ``state`` (after a move); True when a hand was completed by the move."""
        if state.hand_points is not self.hp:
            self.hp = state.hand_points
            self.hands.append(list(state.hand_points))
            self.start_scores = tuple(state.scores)
            return True
        if state.game_over:
            self.hands.append([b - a for a, b in zip(self.start_scores, state.scores)])
            return True
        return False


def results(state: State, hands: list[list[int]], moves: int) -> dict:
    """The result line for a game that reached ``state``."""
    return {"type": "result", "game_over": state.game_over, "winner": state.winner,
            "scores": list(state.scores), "hand_points": [list(h) for h in hands],
            "moves": moves, "hands": len(hands), "final": state.to_spec()}


class GameRecorder:
    """Writes a record while a game is played.

    ``GameRecorder(file, state, agents=[...], seed=...)`` writes the start line;
    ``add(move, after)`` writes a move (made by the seat to move in the last state it saw)
    and ``close()`` the result line. ``file`` is a path, an open text stream or None (keep
    the record in memory only: ``recorder.record``). Also a context manager.

    ``seed`` is the game seed that dealt ``state`` (``new_game(..., seed=seed)``), which a
    replay checks; give None for a state that was not dealt by a seed (a spec, a game
    recorded from the middle). A seed that does not deal ``state`` raises ValueError.
    """

    def __init__(self, file: str | Path | IO[str] | None, state: State,
                 agents: Sequence[str] | None = None,
                 agent_seeds: Sequence[int | None] | None = None, seed: int | None = None,
                 meta: dict | None = None) -> None:
        r = state.rules
        if seed is not None:
            problem = _seed_problem(state, seed)
            if problem:
                raise ValueError(f"seed {seed!r} {problem}: pass the seed new_game dealt this "
                                 "state with, or seed=None")
        start = {"type": "start", "format": FORMAT, "version": VERSION,
                 "variant": r.variant, "players": r.players, "partnerships": r.partnerships,
                 "rules": r.switches(), "seed": seed,
                 "agents": list(agents) if agents is not None else None,
                 "agent_seeds": list(agent_seeds) if agent_seeds is not None else None,
                 "meta": dict(meta or {}), "spec": state.to_spec()}
        self.record = Record(start, path=str(file) if isinstance(file, (str, Path)) else None)
        self.state = state
        self.tracker = HandTracker(state)
        self._own = isinstance(file, (str, Path))
        self._out: IO[str] | None = (open(file, "w", encoding="utf-8") if self._own
                                     else file)
        self._write(start)
        self.closed = False

    def _write(self, obj: dict) -> None:
        if self._out is not None:
            self._out.write(_dumps(obj) + "\n")
            self._out.flush()

    def add(self, move: Move | str, after: State) -> None:
        """Record ``move``, played by the seat to move, which led to ``after``."""
        if self.closed:
            raise RecordError("the recorder is closed")
        if isinstance(move, str):
            move = parse_move(move, self.state)
        line = {"type": "move", "n": len(self.record.moves) + 1,
                "hand": self.state.hand_no + 1, "seat": self.state.current, "move": str(move)}
        self.record.moves.append(line)
        self._write(line)
        self.tracker.update(after)
        self.state = after

    def close(self) -> dict:
        """Write the result line (for the last state seen) and close the file; the result."""
        if self.closed:
            return self.record.result or {}
        res = results(self.state, self.tracker.hands, len(self.record.moves))
        self.record.result = res
        self._write(res)
        if self._own and self._out is not None:
            self._out.close()
        self.closed = True
        return res

    def __enter__(self) -> GameRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def record_game(agents: Sequence[Any], variant: str = "casino", seed: int = 0,
                path: str | Path | IO[str] | None = None, partnerships: bool | None = None,
                agent_seed: int | None = None, max_hands: int = 100,
                meta: dict | None = None, **switches: Any) -> tuple[State, Record]:
    """Play one game between ``agents`` (one per seat: names resolved through the agent
    registry, ``casino_env.players.resolve``, or objects with ``act`` and ``reset``), writing
    its record to ``path`` (or keeping it in memory only).

    Agents named by string are seeded from ``agent_seed`` (default: the game seed) and the
    seat. Returns the final state and the record. A game still going after ``max_hands``
    hands is stopped and recorded as it stands (``game_over`` false)."""
    players = len(agents)
    state = new_game(variant, players, seed=seed, partnerships=partnerships, **switches)
    base = seed if agent_seed is None else agent_seed
    seats, names, seeds = [], [], []
    for s, a in enumerate(agents):
        if isinstance(a, str):
            aseed = agent_seed_for(base, s)
            seats.append(resolve(a, seed=aseed, rules=state.rules))
            names.append(a)
            seeds.append(aseed)
        else:
            seats.append(resolve(a, rules=state.rules))
            names.append(getattr(a, "name", type(a).__name__))
            seeds.append(getattr(a, "seed", None))
    with GameRecorder(path, state, names, seeds, seed, meta) as rec:
        while not state.game_over and len(rec.tracker.hands) < max_hands:
            seat = state.current
            move = seats[seat].act(state, seat)
            state = apply_move(state, move)
            rec.add(move, state)
    return state, rec.record


def agent_seed_for(seed: int, seat: int) -> int:
    """The seed of the agent in ``seat`` for a game seeded ``seed`` (stable across runs)."""
    return random.Random(f"agent/{seed}/{seat}").getrandbits(63)


# -- reading and replaying ---------------------------------------------------------------------

def load_record(path: str | Path | IO[str]) -> Record:
    """Read a record file (or an open stream); malformed lines raise RecordError naming them."""
    name = str(path) if isinstance(path, (str, Path)) else getattr(path, "name", "<stream>")
    if isinstance(path, (str, Path)):
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as e:
            raise RecordError(f"{name}: cannot read: {e.strerror or e}") from None
    else:
        text = path.read()
    rows: list[tuple[int, dict]] = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise RecordError(f"{name} line {no}: not JSON ({e.msg})") from None
        if not isinstance(obj, dict) or obj.get("type") not in ("start", "move", "result"):
            raise RecordError(f"{name} line {no}: expected an object with type start, move or "
                              "result")
        rows.append((no, obj))
    if not rows or rows[0][1]["type"] != "start":
        raise RecordError(f"{name}: the first line must be the start line (type 'start')")
    start = rows[0][1]
    if start.get("format", FORMAT) != FORMAT or start.get("version", VERSION) > VERSION:
        raise RecordError(f"{name}: not a {FORMAT} version <= {VERSION} file")
    if not isinstance(start.get("spec"), dict):
        raise RecordError(f"{name} line {rows[0][0]}: the start line has no 'spec'")
    rec = Record(start, path=name)
    rec.line_numbers["start"] = rows[0][0]
    for no, obj in rows[1:]:
        if rec.result is not None:
            raise RecordError(f"{name} line {no}: nothing may follow the result line")
        if obj["type"] == "start":
            raise RecordError(f"{name} line {no}: a second start line")
        if obj["type"] == "move":
            if not (_is_int(obj.get("n")) and _is_int(obj.get("seat"))
                    and isinstance(obj.get("move"), str)):
                raise RecordError(f"{name} line {no}: a move line needs 'n' (int), 'seat' "
                                  "(int) and 'move' (notation)")
            if obj["n"] != len(rec.moves) + 1:
                raise RecordError(f"{name} line {no}: move number {obj['n']}, expected "
                                  f"{len(rec.moves) + 1} (moves are numbered 1, 2, 3, ... "
                                  "in order)")
            rec.moves.append(obj)
            rec.line_numbers[len(rec.moves)] = no
        else:
            rec.result = obj
            rec.line_numbers["result"] = no
    return rec


def _illegal_detail(err: IllegalMoveError) -> str:
    """The engine's message for an illegal move, without a leading 'illegal move' (the caller
    already says it is illegal), with the rule id if the message lacks it."""
    text = str(err)
    if text.lower().startswith("illegal move "):
        text = text[len("illegal move "):]
    rule = getattr(err, "rule", None)
    if rule and rule not in text:
        text += f" ({rule})"
    return text


@dataclass
class Step:
    """One replayed move: its number, seat, line in the file, the move, the states before and
    after it and, when the move completed a hand, that hand's points per side."""

    n: int
    seat: int
    line: int | None
    move: Move
    before: State
    after: State
    hand_points: list[int] | None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _diff_keys(a: dict, b: dict) -> list[str]:
    """The keys of two specs whose values differ ('seed' called what it is)."""
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return ["next shuffle seed" if k == "seed" else k for k in keys]


def _seed_problem(state: State, seed: object) -> str | None:
    """None if ``new_game`` with ``seed`` (and ``state``'s rules) deals ``state``; else what
    is wrong, e.g. 'does not deal this start (it deals different hands, stock)'."""
    if not _is_int(seed) or seed < 0:
        return "is not a seed (seeds are integers >= 0)"
    r = state.rules
    try:
        dealt = new_game(r.variant, r.players, seed=seed, partnerships=r.partnerships,
                         **r.switches())
    except ValueError as e:
        return f"cannot deal this game ({e})"
    if dealt == state:
        return None
    keys = _diff_keys(dealt.to_spec(), state.to_spec())
    return f"does not deal this start (it deals different {', '.join(keys)})"


def _check_start(rec: Record, state: State) -> None:
    """Raise RecordError unless the start line agrees with its spec: the variant, players,
    partnerships and switches it names are the spec's, and its seed deals the spec."""
    where = _where(rec, "start")
    start, r = rec.start, state.rules
    for key, got in (("variant", r.variant), ("players", r.players),
                     ("partnerships", r.partnerships), ("rules", r.switches())):
        if key in start and start[key] != got:
            if key == "rules" and isinstance(start[key], dict):
                keys = sorted(k for k in set(start[key]) | set(got)
                              if start[key].get(k) != got.get(k))
                raise RecordError(f"{where}: the start line's rules differ from its spec's "
                                  f"in {', '.join(keys)}")
            raise RecordError(f"{where}: the start line says {key} {start[key]!r} but its "
                              f"spec is {key} {got!r}")
    seed = start.get("seed")
    if seed is not None:
        problem = _seed_problem(state, seed)
        if problem:
            raise RecordError(f"{where}: the start line's seed {seed!r} {problem}; the game "
                              "recorded was not dealt by that seed")


def _where(rec: Record, key: int | str) -> str:
    """'file line N' for the start line ("start"), move k (k) or the result ("result")."""
    line = rec.line_numbers.get(key)
    return f"{rec.path or 'record'}" + (f" line {line}" if line else "")


def iter_replay(record: Record | str | Path) -> Iterator[Step]:
    """Replay a record move by move. The start line is checked first (its seed deals its
    spec), then each move (its number, hand and seat are the replay's; the move is legal).
    Raises RecordError naming the line of the first problem and what differs."""
    rec = record if isinstance(record, Record) else load_record(record)
    try:
        state = rec.initial_state()
    except ValueError as e:
        raise RecordError(f"{_where(rec, 'start')}: bad start spec: {e}") from None
    _check_start(rec, state)
    tracker = HandTracker(state)
    for k, obj in enumerate(rec.moves, 1):
        where = _where(rec, k)
        text = obj["move"]
        if state.game_over:
            raise RecordError(f"{where}: move {k} ({text!r}) comes after the game ended")
        if obj.get("n", k) != k:  # load_record checks this too; a Record may be built by hand
            raise RecordError(f"{where}: move number {obj['n']}, expected {k} (moves are "
                              "numbered 1, 2, 3, ... in order)")
        if "hand" in obj and obj["hand"] != state.hand_no + 1:
            raise RecordError(f"{where}: move {k} ({text!r}) is recorded in hand "
                              f"{obj['hand']!r} but the replay is in hand {state.hand_no + 1}")
        if obj["seat"] != state.current:
            raise RecordError(f"{where}: move {k} ({text!r}) is recorded for seat {obj['seat']}"
                              f" but seat {state.current} is to move")
        try:
            move = parse_move(text, state)
            after = apply_move(state, move)
        except IllegalMoveError as e:
            raise RecordError(f"{where}: move {k} by seat {state.current} is illegal: "
                              f"{_illegal_detail(e)}") from None
        except ValueError as e:
            raise RecordError(f"{where}: move {k} by seat {state.current}: {e}") from None
        legal = legal_moves(state)
        if move in legal:
            move = legal[legal.index(move)]
        hand = tracker.hands[-1] if tracker.update(after) else None
        yield Step(k, state.current, rec.line_numbers.get(k), move, state, after, hand)
        state = after


def replay(record: Record | str | Path, verify: bool = True,
           on_step: Callable[[Step], None] | None = None) -> State:
    """Replay a record (a path or a Record) and return the final state.

    Every move is checked; with ``verify`` the result line must be present and match the
    replay (scores, winner, hand points per hand, number of moves, final spec). Any mismatch
    raises RecordError with a message naming the line or the differing result."""
    rec = record if isinstance(record, Record) else load_record(record)
    state = None
    hands: list[list[int]] = []
    moves = 0
    for step in iter_replay(rec):
        if on_step is not None:
            on_step(step)
        state = step.after
        moves = step.n
        if step.hand_points is not None:
            hands.append(step.hand_points)
    if state is None:
        state = rec.initial_state()
    if verify:
        check_results(rec, state, hands, moves)
    return state


def check_results(rec: Record, state: State, hands: list[list[int]], moves: int) -> None:
    """Raise RecordError unless the record's result line matches a replay's outcome."""
    res = rec.result
    if res is None:
        raise RecordError(f"{rec.path or 'record'}: no result line (the game was not closed); "
                          f"{moves} moves replayed, nothing to verify")
    where = _where(rec, "result")
    got = results(state, hands, moves)
    missing = [k for k in got if k not in res]
    if missing:  # a result line cut down would otherwise verify nothing
        raise RecordError(f"{where}: the result line lacks {', '.join(missing)}, so it cannot "
                          "be checked against the replay")
    for key in ("moves", "hands", "game_over", "winner", "scores", "hand_points"):
        if res[key] != got[key]:
            raise RecordError(f"{where}: results differ: recorded {key} {res[key]!r}, the "
                              f"replay gives {got[key]!r}")
    if res["final"] != got["final"]:
        keys = sorted(k for k in set(res["final"]) | set(got["final"])
                      if res["final"].get(k) != got["final"].get(k))
        raise RecordError(f"{where}: results differ: the final state differs in "
                          f"{', '.join(keys)}")
