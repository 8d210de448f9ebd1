"""Play in the terminal: a person against agents, or agents watched as they play (rich).

``play_terminal(...)`` is the ``casino-env play`` command as a function taking input and output
streams, so it can be driven by a script. The person sees the table as their seat does: the
board is drawn from a ``PlayerView`` (their own hand; other hands as card backs, except hands
everyone can see). In ``watch`` mode every seat is an agent and every hand is shown.

Moves are typed in the engine's notation (``7H captures 2C+5S``) or picked by number from the
list of legal moves; a card alone lists the moves that play it. A wrong entry gets a message
(an illegal move: the engine's message, which says why and names the rule it breaks) and
another try; ``quit`` or end of input stops.

Agents are named through the one agent registry or given as objects with ``act`` and
``reset`` (``casino_env.players``): this module imports nothing above the env layer.
"""

from __future__ import annotations

import errno
import math
import random
import sys
import time
from collections.abc import Iterator, Sequence
from typing import IO, Any

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .cli import WATCH_DELAY, OptionError
from .engine import IllegalMoveError, Move, State, apply_move, legal_moves, new_game, parse_move
from .engine.view import PlayerView, shown_cut
from .players import resolve

QUIT = ("q", "quit", "exit")
HELP = ("h", "help", "?")
LIST = ("m", "moves", "list", "l")
BOARD = ("b", "board", "table")

HELP_TEXT = """\
Enter your move as
  a number from the list of legal moves       3
  the move in notation                        7H captures 2C+5S   3H builds 8 on 5S   KD trails
  a card alone                                7H   (lists the moves that play it)
Cards are rank then suit (A 2..10 J Q K; S H D C), Rook cards 1..10 with R Y G B.
Commands: moves (m) lists the legal moves, board (b) draws the table again,
help (h, ?) shows this, quit (q) ends the game."""

STANDARD_STYLES = ("bold", "bold red", "bold red", "bold")
ROOK_STYLES = ("bold red", "bold yellow", "bold green", "bold")


class _Console(Console):
    """rich's Console, except that a closed pipe (``casino-env play --watch | head``) raises
    BrokenPipeError for the command to end quietly, as it does for the other commands."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")


def card_text(deck: Any, cid: int) -> Text:
    """A card in notation, coloured by suit (red hearts and diamonds; Rook colours)."""
    styles = ROOK_STYLES if deck.name == "rook" else STANDARD_STYLES
    return Text(deck.names[cid], style=styles[deck.suit[cid]])


def _cards(deck: Any, mask: int, sep: str = " ") -> Text:
    ids = [i for i in range(mask.bit_length()) if mask >> i & 1]
    return Text(sep).join(card_text(deck, c) for c in ids)


def side_names(state: State, labels: Sequence[str]) -> list[str]:
    """'side k (names of its seats)' for each side."""
    r = state.rules
    out = []
    for side in range(r.sides):
        who = " + ".join(labels[s] for s in range(r.players) if r.side(s) == side)
        out.append(f"side {side} ({who})")
    return out


def board(state: State, viewer: int | None = None, labels: Sequence[str] | None = None,
          history: Sequence[str] = (), recent: int = 6) -> Panel:
    """The table as a rich Panel: scores, table (builds with value and owner), hands, piles,
    stock, points scored in play and the last moves. With ``viewer`` the picture is drawn
    from that seat's ``PlayerView``: other hands show only as card backs."""
    r = state.rules
    n = r.players
    labels = list(labels) if labels else [f"seat {i}" for i in range(n)]
    if viewer is None:
        st, sizes, stock = state, [h.bit_count() for h in state.hand_masks], len(state.stock_ids)
        shown = set(range(n))
    else:
        view = PlayerView(state, viewer)
        st, sizes, stock = view.state, list(view.hand_sizes), view.stock_size
        shown = {viewer, *view.exposed}
    deck = r.deck
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold cyan", no_wrap=True)
    grid.add_column()

    sides = side_names(st, labels)
    scores = Text("   ").join(Text(f"{name}: {score}") for name, score in zip(sides, st.scores))
    scores.append(f"   · to {r.target}" + (", lowest wins" if r.penalties else ""), style="dim")
    if st.hand_points is not None:
        scores.append(f"   (last hand {list(st.hand_points)})", style="dim")
    grid.add_row("scores", scores)

    table = Text()
    parts: list[Text] = [card_text(deck, c) for c in range(st.loose_mask.bit_length())
                         if st.loose_mask >> c & 1]
    for b in st.builds:
        t = Text("[")
        t.append_text(_cards(deck, b.cards, "+"))
        t.append(f" = {b.value}{' multiple' if b.multiple else ''}, seat {b.owner}"
                 f" ({labels[b.owner]})", style="yellow")
        t.append("]")
        parts.append(t)
    table = Text("  ").join(parts) if parts else Text("(empty)", style="dim")
    grid.add_row("table", table)

    for seat in range(n):
        mark = "▶ " if seat == st.current and not st.game_over else "  "
        label = Text(f"{mark}seat {seat} ({labels[seat]})",
                     style="bold yellow" if mark.strip() else "bold")
        if seat in shown:
            mask = st.hand_masks[seat]
            cards = _cards(deck, mask) if mask else Text("-", style="dim")
        else:
            cards = Text(" ".join(["▒▒"] * sizes[seat]), style="blue")
            cards.append(f"  ({sizes[seat]} card{'s' if sizes[seat] != 1 else ''})",
                         style="dim")
        grid.add_row(label, cards)

    piles = Text("   ").join(
        Text(f"side {i}: {p.bit_count()} cards" + (f", {st.sweeps[i]} sweeps" if r.sweeps else ""))
        + (Text(", top ") + card_text(deck, st.pile_ids[i][-1]) if st.pile_ids and p else Text())
        for i, p in enumerate(st.pile_masks))  # V-swazi-steal: the face-up tops
    grid.add_row("piles", piles)
    grid.add_row("stock", Text(f"{stock} cards" + (" (last deal)" if not stock else "")))
    cut = shown_cut(state, viewer)  # V-hun-cut: the stock's bottom card, where it was seen
    if cut is not None:
        line = card_text(deck, cut[0])
        line.append(f" (bottom of the stock, seen by seat {cut[1]}; the dealer gets it in the "
                    "last deal)", style="dim")
        grid.add_row("cut", line)
    if st.events:
        grid.add_row("in play", Text(", ".join(f"side {side} {item} {pts:+d}"
                                               for side, item, pts in st.events)))
    if st.pending_orange is not None:
        grid.add_row("orange", Text(f"seat {st.pending_orange} may call the missed orange"))
    if st.extra_turn and not st.game_over:
        grid.add_row("note", Text(f"seat {st.current} plays again after this move (Nagy)"))
    if history:
        grid.add_row("recent", Text("\n".join(history[-recent:])))
    if st.game_over:
        winner = "nobody" if st.winner is None else sides[st.winner]
        grid.add_row("result", Text(f"game over: {winner} wins", style="bold green"))
    title = (f"{r.variant} · {n} players" + (f" · {r.teams()}" if r.partnerships else "")
             + f" · hand {st.hand_no + 1} · dealer seat {st.dealer}")
    return Panel(grid, title=escape(title), title_align="left", expand=False)


class MovesList:
    """The legal moves, numbered from 1, read row by row (1 2 3 on the first row, 4 5 6 on
    the next) in columns of one width, that of the widest entry: as many columns as the
    console's width takes (a rich renderable)."""

    gap = 3

    def __init__(self, moves: Sequence[Move]) -> None:
        width = len(str(len(moves)))
        self.labels = [f"{i:>{width}}. {m}" for i, m in enumerate(moves, 1)]

    def __rich_console__(self, console: Console, options: Any) -> Iterator[Text]:
        cell = max((len(x) for x in self.labels), default=0)
        columns = max(1, (options.max_width + self.gap) // (cell + self.gap))
        for first in range(0, len(self.labels), columns):
            row = self.labels[first:first + columns]
            yield Text((" " * self.gap).join(x.ljust(cell) for x in row).rstrip())


def moves_list(moves: Sequence[Move]) -> MovesList:
    """The legal moves, numbered from 1, row by row in columns of one width."""
    return MovesList(moves)


def illegal_text(err: IllegalMoveError) -> str:
    """What to tell a person whose move the engine refused: the engine's own message (it
    says what is wrong and why), once, with the rule id it breaks if the message lacks it."""
    text = str(err)
    rule = getattr(err, "rule", None)
    if rule and rule not in text:
        text += f" ({rule})"
    return text


class _Quit(Exception):
    pass


class Session:
    """One terminal game; ``run()`` plays it. See ``play_terminal``."""

    def __init__(self, state: State, agents: dict[int, Any], labels: list[str],
                 human: int | None, console: Console, in_stream: IO[str] | None,
                 recorder: Any = None, delay: float = 0.0, echo: bool = True) -> None:
        self.state = state
        self.agents = agents
        self.labels = labels
        self.human = human
        self.console = console
        self.in_stream = in_stream
        self.recorder = recorder
        self.delay = delay
        self.echo = echo
        self.history: list[str] = []
        self.moves = 0
        self.hands = 0
        self.quit = False
        self.intro: list[str] = []

    # -- input ----------------------------------------------------------------------------
    def _read(self, prompt: str) -> str:
        con = self.console
        if self.in_stream is None:  # an interactive terminal: line editing through input()
            try:
                return con.input(prompt)
            except EOFError:
                con.print()
                raise _Quit from None
        con.print(prompt, end="")
        line = self.in_stream.readline()
        if not line:
            con.print()
            raise _Quit
        line = line.rstrip("\r\n")
        if self.echo:
            con.print(Text(line), highlight=False)
        return line

    def ask(self) -> tuple[Move, State]:
        """Read entries until one is a legal move; returns it and the state after it."""
        st = self.state
        con = self.console
        moves = legal_moves(st)
        con.print(board(st, self.human, self.labels, self.history))
        con.print(f"Your legal moves ({len(moves)}):")
        con.print(moves_list(moves))
        while True:
            try:
                entry = self._read(f"seat {self.human}, your move (number, notation, 'help' "
                                   f"or 'quit'): ").strip()
            except KeyboardInterrupt:
                con.print()
                raise _Quit from None
            word = entry.lower()
            if not entry:
                con.print("Type the number of a move, a move in notation, or 'help'.",
                          style="dim")
                continue
            if word in QUIT:
                raise _Quit
            if word in HELP:
                con.print(HELP_TEXT, highlight=False, markup=False)
                continue
            if word in LIST:
                con.print(moves_list(moves))
                continue
            if word in BOARD:
                con.print(board(st, self.human, self.labels, self.history))
                continue
            result = self._interpret(entry, st, moves)
            if isinstance(result, str):
                con.print(Text(result, style="red"))
                con.print("Try again ('moves' lists the legal moves, 'help' explains).",
                          style="dim")
                continue
            return result

    def _interpret(self, entry: str, st: State, moves: list[Move]) -> tuple[Move, State] | str:
        """A legal (move, state after), or a message saying what is wrong with the entry."""
        if entry.isdigit():
            k = int(entry)
            if not 1 <= k <= len(moves):
                return f"There is no move number {k}: choose 1..{len(moves)}."
            return moves[k - 1], apply_move(st, moves[k - 1])
        deck = st.rules.deck
        try:
            cid = deck.parse(entry)
        except ValueError:
            cid = None
        if cid is not None:
            mine = [(i, m) for i, m in enumerate(moves, 1) if m.played_mask >> cid & 1]
            if not mine:
                held = st.hand_masks[st.current] >> cid & 1
                return (f"{deck.names[cid]} " + ("has no legal move here."
                                                 if held else "is not in your hand."))
            return (f"{deck.names[cid]} can make: "
                    + ";  ".join(f"{i}. {m}" for i, m in mine)
                    + ". Type the number or the whole move.")
        try:
            move = parse_move(entry, st)
            return move, apply_move(st, move)
        except IllegalMoveError as e:
            return illegal_text(e)
        except ValueError as e:
            return f"{e}."

    # -- the game loop -------------------------------------------------------------------
    def run(self) -> State:
        from .records import HandTracker

        con = self.console
        for i, line in enumerate(self.intro):
            con.print(Text(line, style="dim" if i else "bold"))
        con.print(Text("-- hand 1 --", style="bold"))
        tracker = HandTracker(self.state)
        try:
            while not self.state.game_over:
                st = self.state
                seat = st.current
                if seat == self.human:
                    move, after = self.ask()
                else:
                    if self.human is None:
                        con.print(board(st, None, self.labels, self.history))
                    move = self.agents[seat].act(st, seat)
                    after = apply_move(st, move)
                self.moves += 1
                line = f"{self.moves:4d}. seat {seat} ({self.labels[seat]}): {move}"
                self.history.append(line.strip())
                con.print(Text(line, style="bold" if seat == self.human else ""))
                if self.recorder is not None:
                    self.recorder.add(move, after)
                self.state = after
                if tracker.update(after):
                    self.hands += 1
                    con.print(Text(f"hand {self.hands} points {tracker.hands[-1]} -> scores "
                                   f"{list(after.scores)}", style="bold green"))
                    if not after.game_over:
                        con.print(Text(f"-- hand {self.hands + 1} --", style="bold"))
                if seat != self.human and self.delay:
                    time.sleep(self.delay)
        except (_Quit, KeyboardInterrupt):
            self.quit = True
            con.print(f"Quit after {self.moves} moves; the game was not finished.")
        finally:  # the record ends with the last state reached, even if an agent failed
            if self.recorder is not None:
                self.recorder.close()
        st = self.state
        if st.game_over:
            con.print(board(st, None, self.labels, self.history))
            con.print(Text(f"final scores {list(st.scores)}; side {st.winner} wins after "
                           f"{self.hands} hands, {self.moves} moves"))
            if self.human is not None:
                won = st.winner == st.rules.side(self.human)
                con.print("You win!" if won else "You lose.",
                          style="bold green" if won else "bold red")
        return st


def parse_agents(opponent: str, players: int, human: int | None) -> list[str]:
    """Agent names per agent seat from ``--opponent``: one name for every agent seat, or a
    comma-separated name per agent seat (in seat order)."""
    names: list[str] = []
    for part in opponent.split(","):
        part = part.strip()
        if names and "=" in part and ":" not in part:  # "search:a=1,b=2": one agent's options
            names[-1] += "," + part
        elif part:
            names.append(part)
    seats = [s for s in range(players) if s != human]
    if len(names) == 1:
        names = names * len(seats)
    if len(names) != len(seats):
        raise OptionError("--opponent", f"give one agent name or {len(seats)} "
                          f"comma-separated names (one per agent seat), got {len(names)}")
    return names


def _is_tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _who(state: State, labels: Sequence[str], human: int | None) -> str:
    """Who plays, for the opening line: partners and opponents seen from the person's seat,
    or every seat (grouped by side in a partnership game) when watching."""
    r = state.rules
    seat = [f"seat {s} ({labels[s]})" for s in range(r.players)]
    if human is None:
        if not r.partnerships:
            return "watching " + ", ".join(seat)
        sides = [" + ".join(seat[s] for s in range(r.players) if r.side(s) == side)
                 for side in range(r.sides)]
        return "watching " + " v ".join(f"side {i}: {w}" for i, w in enumerate(sides))
    mine = r.side(human)
    partners = [seat[s] for s in range(r.players) if s != human and r.side(s) == mine]
    others = [seat[s] for s in range(r.players) if r.side(s) != mine]
    text = f"you are seat {human} (side {mine})"
    if partners:
        text += " with partner" + ("s " if len(partners) > 1 else " ") + ", ".join(partners) + ","
    return text + " against " + ", ".join(others)


def make_session(variant: str = "casino", players: int = 2, opponent: str = "heuristic",
                 seat: int = 0, seed: int | None = None, watch: bool = False,
                 partnerships: bool | None = None, record: str | None = None,
                 switches: dict | None = None, input: IO[str] | None = None,  # noqa: A002
                 output: IO[str] | None = None, width: int | None = None,
                 color: bool | None = None, delay: float | None = None) -> Session:
    """Set up a terminal game (see ``play_terminal``); a bad setting raises ValueError before
    anything is printed: OptionError (naming ``--opponent`` or ``--record``) for an agent
    that cannot be made or a record file that cannot be written."""
    from .records import GameRecorder, agent_seed_for

    if delay is not None and (isinstance(delay, bool) or not isinstance(delay, (int, float))
                              or not math.isfinite(delay) or delay < 0):
        raise ValueError(f"delay must be seconds >= 0 (0 for no pauses), got {delay!r}")
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    human = None if watch else seat
    state = new_game(variant, players, seed=seed, partnerships=partnerships,
                     **(switches or {}))
    if human is not None and not (isinstance(seat, int) and 0 <= seat < players):
        raise ValueError(f"seat must be 0..{players - 1}, got {seat}")
    names = parse_agents(opponent, players, human)
    agents: dict[int, Any] = {}
    labels: list[str] = []
    seeds: list[int | None] = []
    agent_names: list[str] = []
    it = iter(names)
    for s in range(players):
        if s == human:
            labels.append("you")
            seeds.append(None)
            agent_names.append("human")
            continue
        name = next(it)
        aseed = agent_seed_for(seed, s)
        try:  # the registry names the problem (unknown name or option, a missing model)
            agents[s] = resolve(name, seed=aseed, rules=state.rules)
        except (ValueError, TypeError, OSError) as e:
            message = str(e) if name in str(e) else f"{name!r}: {e}"
            raise OptionError("--opponent", message) from None
        labels.append(name)
        seeds.append(aseed)
        agent_names.append(name)
    interactive = input is None and sys.stdin.isatty()
    in_stream = None if interactive else (input if input is not None else sys.stdin)
    console = _Console(file=output if output is not None else sys.stdout, width=width,
                      force_terminal=color if color else None, no_color=color is False,
                      highlight=False, emoji=False)
    if width is None and not console.is_terminal:
        console.width = 100  # a transcript (a file, a pipe): wide enough for the help
    if delay is None:  # a pace a person can follow when watching on a terminal
        delay = WATCH_DELAY if watch and _is_tty(console.file) else 0.0
    recorder = None
    if record:
        try:
            recorder = GameRecorder(record, state, agent_names, seeds, seed,
                                    {"command": "watch" if watch else "play"})
        except OSError as e:
            raise OptionError("--record", f"cannot write {record}: {e.strerror or e}") \
                from None
    intro = [f"== {variant}, {players} players, seed {seed}: {_who(state, labels, human)} =="]
    if not watch:
        intro.append("Type a move's number or the move itself; 'help' explains, 'quit' ends.")
    session = Session(state, agents, labels, human, console, in_stream, recorder, delay,
                      echo=not interactive)
    session.intro = intro
    return session


def play_terminal(variant: str = "casino", players: int = 2, opponent: str = "heuristic",
                  seat: int = 0, seed: int | None = None, watch: bool = False,
                  partnerships: bool | None = None, record: str | None = None,
                  switches: dict | None = None, input: IO[str] | None = None,  # noqa: A002
                  output: IO[str] | None = None, width: int | None = None,
                  color: bool | None = None, delay: float | None = None) -> State:
    """Play one game in the terminal and return its last state.

    A person in ``seat`` plays against agents (``opponent``: an agent name, or names per
    agent seat separated by commas), or with ``watch`` every seat is an agent. ``input`` and
    ``output`` default to the terminal; with a given ``input`` stream the entries are echoed
    so that the output reads as a transcript. ``record``: write the game's record there
    (``casino_env.records``). ``seed=None`` draws a seed and prints it. ``delay``: seconds
    to pause after each agent move (None: ``WATCH_DELAY`` when watching on a terminal, else
    no pause; 0: no pause)."""
    return make_session(variant, players, opponent, seat, seed, watch, partnerships, record,
                        switches, input, output, width, color, delay).run()
