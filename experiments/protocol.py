"""The benchmark protocol: a versioned, fixed evaluation that any agent can be put through, so
that numbers measured on different machines, commits and papers compare.

A protocol (``experiments/protocols/<version>.json``) fixes, for every preset it covers, the
evaluation opponents, and for each opponent two sets of duplicate deals with their base seeds:
single hands (hands won, points per hand) and whole games to the target (games won). Every deal
is played once with the agent in each seat (``agents.play_match``), on the cards
``derive_seed("deal", seed, d)`` deals, with every agent re-seeded from the base seed, so a run
is reproducible bit for bit. The statistics are ``experiments.stats.summarize_pair``'s: draws
count half, intervals are over duplicate deals at the protocol's ``confidence`` (95% in v1;
t interval for hands and games won, bootstrap for points per hand).

A protocol's content is hashed (sha256 of its canonical JSON): every result states the version
and the hash it was measured on. A version never changes once published; a change makes a new
version. Each opponent also carries a *fingerprint* (a hash of the moves of its first hand
against the random agent): when the engine or an opponent plays differently from when the
protocol was fixed, the run says so and its numbers are marked as not comparable.

``python -m experiments.evaluate --protocol v1 --agent SPEC`` runs it (docs/protocol.md).
"""

from __future__ import annotations

import csv
import datetime
import hashlib
import json
import math
import os
import platform
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agents.base import Agent
from agents.registry import make_agent
from agents.tournament import MatchResult, play_match
from casino_env.engine import Move, State
from casino_env.engine.rules import make_rules
from casino_env.engine.view import PlayerView
from experiments.stats import PairSummary, summarize_pair

PROTOCOL_DIR = Path(__file__).resolve().parent / "protocols"
DEFAULT_OUT = Path("runs/protocol")
MODES = ("hands", "games")  # protocol key -> play_match mode "hand" / "game"
QUICK_FRACTION = 10  # --quick plays ceil(deals / 10) of every set (at least one deal)


# -- the definition -----------------------------------------------------------------------------

def canonical_json(content: dict) -> str:
    """The protocol's content as canonical JSON (sorted keys, no whitespace): what is hashed,
    so that re-indenting the file changes nothing and any change of content changes the hash."""
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def content_sha256(content: dict) -> str:
    """sha256 (hex) of the canonical JSON of ``content``."""
    return hashlib.sha256(canonical_json(content).encode("ascii")).hexdigest()


@dataclass(frozen=True)
class Cell:
    """One set of duplicate deals of a protocol: ``deals`` deals of ``preset`` against
    ``opponent`` in ``mode`` ("hands" or "games") from base seed ``seed``."""

    preset: str
    opponent: str
    mode: str
    deals: int
    seed: int

    @property
    def match_mode(self) -> str:
        """``play_match``'s name for the mode: "hand" or "game"."""
        return "hand" if self.mode == "hands" else "game"


@dataclass(frozen=True)
class Protocol:
    """A loaded, validated protocol definition (``content`` is the file's JSON)."""

    content: dict
    path: Path | None = None

    @property
    def version(self) -> str:
        return self.content["version"]

    @property
    def sha256(self) -> str:
        """The full content hash (hex)."""
        return content_sha256(self.content)

    @property
    def hash(self) -> str:
        """The content hash as cited: ``sha256:`` and its first 16 hex digits."""
        return f"sha256:{self.sha256[:16]}"

    @property
    def players(self) -> int:
        return self.content["players"]

    @property
    def max_hands(self) -> int:
        return self.content["max_hands"]

    @property
    def confidence(self) -> float:
        return self.content["confidence"]

    @property
    def presets(self) -> list[str]:
        return list(self.content["presets"])

    @property
    def opponents(self) -> list[str]:
        return list(self.content["opponents"])

    def entry(self, preset: str, opponent: str) -> dict:
        """The protocol's entry for ``opponent`` on ``preset`` (hands, games, fingerprint)."""
        return self.content["presets"][preset][opponent]

    def cells(self, presets: Sequence[str] | None = None,
              opponents: Sequence[str] | None = None, quick: bool = False) -> list[Cell]:
        """The sets of deals to play, in the protocol's order (presets, then opponents, hands
        before games), restricted to ``presets`` and ``opponents`` when given; ``quick`` keeps
        the first tenth of each set's deals (the same deals: deal d has the same cards)."""
        out = []
        for preset in self.presets:
            if presets is not None and preset not in presets:
                continue
            for opp in self.content["presets"][preset]:
                if opponents is not None and opp not in opponents:
                    continue
                for mode in MODES:
                    spec = self.entry(preset, opp)[mode]
                    deals = spec["deals"]
                    if quick and deals:
                        deals = max(1, math.ceil(deals / QUICK_FRACTION))
                    if deals:
                        out.append(Cell(preset, opp, mode, deals, spec["seed"]))
        return out


def known_protocols() -> list[str]:
    """The versions shipped in ``experiments/protocols`` (file names without ``.json``)."""
    return sorted(p.stem for p in PROTOCOL_DIR.glob("*.json"))


def load_protocol(name: str | Path) -> Protocol:
    """The protocol ``name``: a shipped version (``"v1"``) or the path of a ``.json`` file.
    ValueError naming the problem for an unknown version or a malformed definition."""
    text = str(name)
    path = Path(text)
    if not (text.endswith(".json") or os.sep in text or "/" in text):
        path = PROTOCOL_DIR / f"{text}.json"
        if not path.exists():
            raise ValueError(f"unknown protocol {text!r} (known: "
                             f"{', '.join(known_protocols()) or 'none'}; or give the path of a "
                             "protocol .json file)")
    if not path.exists():
        raise ValueError(f"protocol file {text!r} does not exist")
    try:
        content = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise ValueError(f"protocol file {text!r} is not valid JSON: {e}") from e
    validate(content, where=str(path))
    return Protocol(content, path)


def _need(cond: bool, where: str, message: str) -> None:
    if not cond:
        raise ValueError(f"protocol {where}: {message}")


def _is_int(value: object, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def validate(content: object, where: str = "") -> None:
    """Check a protocol's structure (ValueError naming the field): a version, players,
    max_hands, confidence, the opponent list and, per preset and opponent, ``hands`` and
    ``games`` as ``{"deals": int >= 0, "seed": int >= 0}`` (an optional ``fingerprint``)."""
    _need(isinstance(content, dict), where, "the definition must be a JSON object")
    assert isinstance(content, dict)
    for key in ("version", "players", "max_hands", "confidence", "opponents", "presets"):
        _need(key in content, where, f"missing field {key!r}")
    _need(isinstance(content["version"], str) and bool(content["version"]), where,
          "version must be a non-empty string")
    _need(_is_int(content["players"], 2), where, "players must be an int >= 2")
    _need(_is_int(content["max_hands"], 1), where, "max_hands must be an int >= 1")
    conf = content["confidence"]
    _need(isinstance(conf, float) and 0 < conf < 1, where, "confidence must be in (0, 1)")
    opps = content["opponents"]
    _need(isinstance(opps, list) and bool(opps) and all(isinstance(o, str) for o in opps),
          where, "opponents must be a non-empty list of agent names")
    presets = content["presets"]
    _need(isinstance(presets, dict) and bool(presets), where,
          "presets must map each preset to its opponents")
    for preset, table in presets.items():
        try:
            make_rules(preset, content["players"])
        except ValueError as e:
            raise ValueError(f"protocol {where}: preset {preset!r}: {e}") from e
        _need(isinstance(table, dict) and list(table) == opps, where,
              f"preset {preset!r} must list the opponents {opps} in that order")
        for opp, entry in table.items():
            at = f"{preset} / {opp}"
            _need(isinstance(entry, dict), where, f"{at} must be an object")
            for mode in MODES:
                spec = entry.get(mode)
                _need(isinstance(spec, dict) and _is_int(spec.get("deals"), 0)
                      and _is_int(spec.get("seed"), 0), where,
                      f"{at} / {mode} must be {{\"deals\": int >= 0, \"seed\": int >= 0}}")
            fp = entry.get("fingerprint")
            _need(fp is None or isinstance(fp, str), where, f"{at} / fingerprint must be text")


# -- fingerprints -------------------------------------------------------------------------------

class _Recorder(Agent):
    """Plays like ``inner`` and writes every move it makes, with its seat, into ``log``."""

    def __init__(self, inner: Agent, log: list[str]) -> None:
        super().__init__(None)
        self.inner = inner
        self.log = log
        self.name = inner.name

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def check_rules(self, rules: object) -> None:
        self.inner.check_rules(rules)  # type: ignore[arg-type]

    def choose(self, view: PlayerView) -> Move:  # pragma: no cover - act is used
        return self.inner.choose(view)

    def act(self, state: State, seat: int | None = None) -> Move:
        move = self.inner.act(state, seat)
        self.log.append(f"{state.current if seat is None else seat}:{move}")
        return move


def fingerprint(preset: str, opponent: str, seed: int, players: int = 2) -> str:
    """What ``opponent`` plays on ``preset``: the first 16 hex digits of the sha256 of every
    move of the first deal of base seed ``seed``, played as single hands against the random
    agent from both seats. It changes when the engine deals or scores differently or when the
    opponent (or the random agent) chooses differently."""
    log: list[str] = []

    def factory(name: str) -> Callable[[int | None], Agent]:
        return lambda s: _Recorder(make_agent(name, seed=s), log)

    play_match([factory("random"), factory(opponent)], preset, players, deals=1, seed=seed,
               mode="hand", labels=["random", opponent])
    return hashlib.sha256("\n".join(log).encode()).hexdigest()[:16]


def check_fingerprints(protocol: Protocol, presets: Sequence[str],
                       opponents: Sequence[str]) -> list[str]:
    """One message per (preset, opponent) whose fingerprint differs from the protocol's: the
    engine or that opponent no longer plays as when the protocol was fixed."""
    drift = []
    for preset in presets:
        for opp in opponents:
            entry = protocol.entry(preset, opp)
            want = entry.get("fingerprint")
            if want is None:
                continue
            got = fingerprint(preset, opp, entry["hands"]["seed"], protocol.players)
            if got != want:
                drift.append(f"{preset}{_DRIFT_SEP}{opp}: plays differently from when "
                             f"{protocol.version} was fixed (fingerprint {got}, protocol "
                             f"{want}): the engine or the opponent changed")
    return drift


_DRIFT_SEP = " / "  # "preset / opponent: ..." in ``check_fingerprints``' messages


def drifted(drift: Sequence[str]) -> set[tuple[str, str]]:
    """The (preset, opponent) pairs of ``check_fingerprints``' messages (a run's results.json
    ``drift``): the cells of that run not comparable with its protocol."""
    return {tuple(d.split(": ", 1)[0].split(_DRIFT_SEP, 1)) for d in drift}


# -- running ------------------------------------------------------------------------------------

def run_cell(cell: Cell, agent: str, players: int, max_hands: int,
             progress: bool = False) -> MatchResult:
    """Play one set of deals: the agent (index 0) against the cell's opponent."""
    return play_match([agent, cell.opponent], cell.preset, players, deals=cell.deals,
                      seed=cell.seed, mode=cell.match_mode, max_hands=max_hands,
                      progress=progress, labels=[agent, cell.opponent])


def _worker_init() -> None:
    """One thread per worker process (set before torch is imported): the workers share the
    cores, a policy's inference must not spread over all of them in each."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = "1"


def playable_presets(agent: str, presets: Sequence[str], players: int,
                     make: Callable[..., Agent] = make_agent) -> tuple[list[str], dict[str, str]]:
    """The presets the agent can play and, for the others, why not: the agent's
    ``check_rules`` (a policy trained on one preset refuses the others with a ValueError).
    A bad agent spec raises its ValueError here, before anything is played."""
    instance = make(agent, seed=0)
    ok, skipped = [], {}
    for preset in presets:
        try:
            instance.check_rules(make_rules(preset, players))
        except ValueError as e:
            skipped[preset] = str(e)
        else:
            ok.append(preset)
    return ok, skipped


@dataclass
class ProtocolRun:
    """The result of putting one agent through a protocol."""

    protocol: Protocol
    agent: str
    quick: bool
    presets: list[str]  # played
    opponents: list[str]
    skipped: dict[str, str]  # preset -> why the agent cannot play it
    drift: list[str]  # fingerprint mismatches (numbers not comparable)
    results: list[MatchResult] = field(default_factory=list)  # one per cell, protocol order
    cells: list[Cell] = field(default_factory=list)
    summaries: list[PairSummary] = field(default_factory=list)
    rows: list[dict] = field(default_factory=list)
    meta: dict = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The version as the results show it: ``v1``, or ``v1-quick`` for a quick run."""
        return self.protocol.version + ("-quick" if self.quick else "")

    @property
    def comparable(self) -> bool:
        """Whether these are numbers of the protocol version (not quick, no drift)."""
        return not self.quick and not self.drift


def run_protocol(protocol: Protocol, agent: str, presets: Sequence[str] | None = None,
                 opponents: Sequence[str] | None = None, quick: bool = False,
                 workers: int = 1, progress: bool = True, check: bool = True,
                 say: Callable[[str], None] = print) -> ProtocolRun:
    """Put ``agent`` (any ``make_agent`` spec) through ``protocol``: every preset (or those of
    ``presets``) the agent can play, against every opponent (or those of ``opponents``).
    ``quick`` plays a tenth of the deals; ``workers`` > 1 plays sets of deals in parallel
    processes (the numbers are the same); ``check`` compares the opponents' fingerprints.
    ValueError for a preset or opponent the protocol does not have or a bad agent spec."""
    chosen = list(protocol.presets if presets is None else presets)
    for p in chosen:
        if p not in protocol.presets:
            raise ValueError(f"preset {p!r} is not in protocol {protocol.version} (its presets: "
                             f"{', '.join(protocol.presets)})")
    opps = list(protocol.opponents if opponents is None else opponents)
    for o in opps:
        if o not in protocol.opponents:
            raise ValueError(f"opponent {o!r} is not in protocol {protocol.version} (its "
                             f"opponents: {', '.join(protocol.opponents)})")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an int >= 1, got {workers!r}")
    playable, skipped = playable_presets(agent, chosen, protocol.players)
    for preset, why in skipped.items():
        say(f"skipping {preset}: agent {agent!r} cannot play it ({why})")
    if not playable:
        raise ValueError(f"agent {agent!r} can play none of the presets asked for "
                         f"({', '.join(chosen)})")
    drift = check_fingerprints(protocol, playable, opps) if check else []
    for d in drift:
        say(f"WARNING {d}")
    run = ProtocolRun(protocol, agent, quick, playable, opps, skipped, drift)
    run.cells = protocol.cells(playable, opps, quick)
    t0 = datetime.datetime.now(datetime.timezone.utc)
    start = time.perf_counter()
    run.results = _play_cells(run.cells, agent, protocol, workers, progress, say)
    run.summaries = [summarize_pair(r, conf=protocol.confidence) for r in run.results]
    run.rows = table_rows(run)
    run.meta = {
        "protocol": protocol.version, "label": run.label, "protocol_hash": protocol.hash,
        "protocol_sha256": protocol.sha256,
        "protocol_file": str(protocol.path) if protocol.path else None,
        "quick": quick, "comparable": run.comparable, "drift": drift, "agent": agent,
        "presets": playable, "opponents": opps, "skipped": skipped,
        "date": t0.isoformat(timespec="seconds"), "seconds": round(time.perf_counter() - start, 3),
        "workers": workers, "commit": _git_version(), "machine": machine(),
    }
    return run


def _play_cells(cells: list[Cell], agent: str, protocol: Protocol, workers: int,
                progress: bool, say: Callable[[str], None]) -> list[MatchResult]:
    """Every cell's MatchResult in the order of ``cells`` (serial or in ``workers``
    processes), with a progress bar over the cells and one line per finished cell."""
    from tqdm.auto import tqdm

    bar = tqdm(total=len(cells), desc=f"protocol {protocol.version} {agent}", unit="set",
               disable=not progress)
    out: list[MatchResult | None] = [None] * len(cells)

    def done(i: int, res: MatchResult) -> None:
        out[i] = res
        s = summarize_pair(res, conf=protocol.confidence)
        c = cells[i]
        line = (f"{c.preset:10s} v {c.opponent:24s} {c.mode:5s}: won {s.win_rate:6.1%} "
                f"[{s.win_lo:.1%}, {s.win_hi:.1%}] of {s.games}, points/hand "
                f"{s.diff_per_hand:+.2f} [{s.diff_lo:+.2f}, {s.diff_hi:+.2f}]  "
                f"{res.seconds:.0f}s")
        if progress:
            bar.write(line)
        bar.update(1)

    if workers == 1:
        for i, c in enumerate(cells):
            done(i, run_cell(c, agent, protocol.players, protocol.max_hands, progress))
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        ctx = multiprocessing.get_context("spawn")  # no fork of a process that holds torch
        with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_worker_init) as pool:
            futures = {pool.submit(run_cell, c, agent, protocol.players, protocol.max_hands):
                       i for i, c in enumerate(cells)}
            for fut in as_completed(futures):
                done(futures[fut], fut.result())
    bar.close()
    return [r for r in out if r is not None]


# -- the table ----------------------------------------------------------------------------------

ROW_FIELDS = (
    "protocol", "protocol_hash", "agent", "preset", "opponent",
    "hand_deals", "hands", "hands_won", "hands_won_lo", "hands_won_hi", "hand_wins",
    "hand_draws", "hand_losses", "points_per_hand", "points_lo", "points_hi",
    "game_deals", "games", "games_won", "games_won_lo", "games_won_hi", "game_wins",
    "game_draws", "game_losses", "game_hands", "game_points_per_hand",
    "seconds", "agent_seconds_per_hand")
STAT_FIELDS = ROW_FIELDS[:-2]  # all but the timings: what a rerun reproduces exactly


def table_rows(run: ProtocolRun) -> list[dict]:
    """One row per preset and opponent (``ROW_FIELDS``): hands won and points per hand from
    the single hands, games won from the whole games, each with its interval over duplicate
    deals at the protocol's confidence; None where the protocol plays no deals of that kind."""
    by_key: dict[tuple[str, str], dict[str, tuple[Cell, PairSummary]]] = {}
    for cell, s in zip(run.cells, run.summaries):
        by_key.setdefault((cell.preset, cell.opponent), {})[cell.mode] = (cell, s)
    rows = []
    for (preset, opp), modes in by_key.items():
        row: dict = dict.fromkeys(ROW_FIELDS)
        row.update(protocol=run.label, protocol_hash=run.protocol.hash, agent=run.agent,
                   preset=preset, opponent=opp)
        seconds, think, hands_total = 0.0, 0.0, 0
        if "hands" in modes:
            cell, s = modes["hands"]
            row.update(hand_deals=cell.deals, hands=s.games, hands_won=s.win_rate,
                       hands_won_lo=s.win_lo, hands_won_hi=s.win_hi, hand_wins=s.wins,
                       hand_draws=s.draws, hand_losses=s.losses,
                       points_per_hand=s.diff_per_hand, points_lo=s.diff_lo,
                       points_hi=s.diff_hi)
        if "games" in modes:
            cell, s = modes["games"]
            row.update(game_deals=cell.deals, games=s.games, games_won=s.win_rate,
                       games_won_lo=s.win_lo, games_won_hi=s.win_hi, game_wins=s.wins,
                       game_draws=s.draws, game_losses=s.losses, game_hands=s.hands,
                       game_points_per_hand=s.diff_per_hand)
        for _, s in modes.values():
            seconds += s.seconds
            think += s.think_a * s.hands
            hands_total += s.hands
        row["seconds"] = seconds
        row["agent_seconds_per_hand"] = think / hands_total if hands_total else None
        rows.append(row)
    return rows


def _pct(x: float | None, lo: float | None, hi: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:.1%} [{lo:.1%}, {hi:.1%}]"


def _pts(x: float | None, lo: float | None, hi: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:+.2f} [{lo:+.2f}, {hi:+.2f}]"


def banner(run: ProtocolRun) -> list[str]:
    """The lines that say what the numbers are (and, for a quick or drifted run, are not)."""
    p = run.protocol
    lines = [f"Protocol {p.version} ({p.hash}), agent `{run.agent}`, "
             f"{run.meta.get('date', '')}, commit {run.meta.get('commit') or 'unknown'}, "
             f"{run.meta.get('machine', '')}."]
    if run.quick:
        lines.append(f"QUICK RUN ({run.label}): a tenth of the deals, for smoke tests only. "
                     f"These are not {p.version} numbers; never report them as such.")
    if run.drift:
        lines.append(f"NOT COMPARABLE with {p.version}: the engine or opponents changed since "
                     "the protocol was fixed:")
        lines += [f"- {d}" for d in run.drift]
    for preset, why in run.skipped.items():
        lines.append(f"Skipped {preset}: the agent cannot play it ({why}).")
    return lines


def percent(conf: float) -> str:
    """A confidence as the percentage it is (0.9 "90%", 0.975 "97.5%"), not rounded."""
    return f"{100 * conf:.10g}%"


def markdown(run: ProtocolRun) -> str:
    """The standard table in markdown, headed by what it was measured on; the intervals'
    level in the text and the header is the protocol's confidence."""
    c = percent(run.protocol.confidence)
    lines = [f"# {run.agent} on benchmark protocol {run.label}", "", *banner(run), "",
             "Duplicate deals (each played with the agent in each seat); draws count half; "
             f"intervals are {c} over deals (t interval for hands "
             "and games won, bootstrap for points per hand, agent minus opponent).", "",
             f"| preset | opponent | hands | hands won [{c} CI] | points/hand [{c} CI] | "
             f"games | games won [{c} CI] |",
             "|---|---|---|---|---|---|---|"]
    for r in run.rows:
        lines.append(
            f"| {r['preset']} | {r['opponent']} | {r['hands'] or '–'} | "
            f"{_pct(r['hands_won'], r['hands_won_lo'], r['hands_won_hi'])} | "
            f"{_pts(r['points_per_hand'], r['points_lo'], r['points_hi'])} | "
            f"{r['games'] or '–'} | "
            f"{_pct(r['games_won'], r['games_won_lo'], r['games_won_hi'])} |")
    lines += ["", f"Total time {run.meta.get('seconds', 0):.0f} s "
                  f"({run.meta.get('workers', 1)} worker(s)).", ""]
    return "\n".join(lines)


def write_outputs(run: ProtocolRun, out: Path) -> list[Path]:
    """``results.csv`` (one row per preset and opponent), ``results.md`` (the table),
    ``results.json`` (the rows, every summary and the run's metadata: protocol version and
    hash, agent, date, commit, machine) and ``games.csv`` (every game) in ``out``."""
    from experiments.evaluate import write_games_csv

    out.mkdir(parents=True, exist_ok=True)
    with (out / "results.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(ROW_FIELDS))
        w.writeheader()
        for r in run.rows:
            w.writerow({k: ("" if v is None else f"{v:.6g}" if isinstance(v, float) else v)
                        for k, v in r.items()})
    (out / "results.md").write_text(markdown(run))
    doc = {**run.meta, "rows": run.rows,
           "summaries": [{"mode": c.mode, "deals": c.deals, "seed": c.seed, **s.row()}
                         for c, s in zip(run.cells, run.summaries)],
           "definition": run.protocol.content}
    (out / "results.json").write_text(json.dumps(_finite(doc), indent=2, allow_nan=False)
                                      + "\n")
    write_games_csv(run.results, out / "games.csv")
    return [out / n for n in ("results.csv", "results.md", "results.json", "games.csv")]


def _finite(x: object) -> object:
    """``x`` with every infinite or NaN float (the interval of a single deal) as None, so that
    results.json is strict JSON."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def default_out(agent: str, label: str) -> Path:
    """``runs/protocol/<agent>_<label>`` (git-ignored), the agent spec made a folder name."""
    return DEFAULT_OUT / f"{re.sub(r'[^A-Za-z0-9._=-]+', '_', agent).strip('_')}_{label}"


def machine() -> str:
    """The machine a run was measured on: CPU model, cores, OS and Python."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def _git_version() -> str:
    from experiments.evaluate import _git_version as version

    return version()
