"""Regenerate the generated blocks of README.md and docs (environment, rl_baselines,
expert_iteration).

Blocks sit between ``<!-- name -->`` and ``<!-- /name -->`` markers; tests/test_docs.py fails
when a block is stale. Run: ``python -m experiments.gen_docs``. Unlike the other commands of
experiments/, this one writes tracked files by design: it rewrites those blocks of README.md
and docs/environment.md in place (from the committed results under experiments/results and
the engine's presets) and prints which files it changed.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from agents.networks import (
    LAST_DEAL_EPOCHS,
    LAST_DEAL_SHARDS,
    UNDISTILLED,
    before_last_folder,
    before_last_hidden,
    last_deal_refit,
)
from casino_env.encoding import N_COMPOSE_ACTIONS, N_FEATURES, Layout
from casino_env.engine import describe_variant, list_variants
from casino_env.engine.rules import make_rules

ROOT = Path(__file__).resolve().parent.parent


def variant_table() -> str:
    rows = ["| variant | players | deck | what is special | target |", "|---|---|---|---|---|"]
    for name in list_variants():
        d = describe_variant(name)
        players = f"{d['players'][0]}–{d['players'][-1]}" if len(d["players"]) > 1 \
            else str(d["players"][0])
        deck = {"rook": "40 Rook cards", "double": "104 cards (two decks)"}.get(d["deck"],
                                                                              "52 cards")
        target = d["switches"]["target"]["default"]
        rows.append(f"| `{name}` | {players} | {deck} | {d['special']} | {target} |")
    return "\n".join(rows)


def layout_table() -> str:
    return Layout(make_rules("casino", 2), True).markdown()


def compact_layout_table() -> str:
    return Layout(make_rules("casino", 2), True, "compact").markdown()


def last_capturer_table() -> str:
    """Where ``last_capturer=True`` puts its segment, 2-player casino, both action modes."""
    rows = ["| layout | mode | `last_capturer` offset | size | layout size (without) |",
            "|---|---|---|---|---|"]
    r = make_rules("casino", 2)
    for kind in ("full", "compact"):
        for compose in (True, False):
            on, off = Layout(r, compose, kind, last_capturer=True), Layout(r, compose, kind)
            rows.append(f"| {kind} | {'compose' if compose else 'enumerate'} | "
                        f"{on.offset['last_capturer']} | {r.players} | {on.size:,} "
                        f"({off.size:,}) |")
    return "\n".join(rows)


def sizes() -> str:
    return (f"compose: Discrete({N_COMPOSE_ACTIONS}); enumerate: Discrete(K), K = `max_moves` "
            f"(default 128), action_features K × {N_FEATURES}")


RESULTS = ROOT / "experiments" / "results"


def _rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open() as f:
        return list(csv.DictReader(f))


def _pct(x: str) -> str:
    return f"{100 * float(x):.1f}%"


# The ladder's runs, in table order: the first presets', then the rest of the family's
# (issue 20), each one `experiments.evaluate` run with its own --out; a later run's rung
# replaces an earlier one's for the same preset (swazi's 400 games at seed 1 after the family's
# 200 at seed 0).
LADDERS = ("ladder", "ladder_family", "ladder_swazi", "ladder_kryp", "ladder_swazi_search",
           "ladder_kryp_search")


RUNGS = (("greedy", "random"), ("heuristic", "greedy"), ("search", "heuristic"))


def _rung_agent(label: str, variant: str) -> str:
    """``search:prior=W`` counts as ``search`` on a preset whose default prior weight is W
    (``agents.search.PRIOR_DEFAULTS``): the same agent, so the same rung."""
    from agents.search import PRIOR_DEFAULT, PRIOR_DEFAULTS

    base, _, opts = label.partition(":")
    if base == "search" and opts.startswith("prior=") and "," not in opts:
        if float(opts[len("prior="):]) == PRIOR_DEFAULTS.get(variant, PRIOR_DEFAULT):
            return "search"
    return label


def ladder_table() -> str:
    """The scripted ladder (summary.csv of each folder of ``LADDERS`` under
    experiments/results): one row per preset, one column per rung, games won by the stronger
    agent with its 95% interval (the points per hand are in each folder's summary.md)."""
    rows = [r for name in LADDERS for r in _rows(RESULTS / name / "summary.csv")]
    for r in rows:
        r["a"] = _rung_agent(r["a"], r["variant"])
    if not rows:
        return ("_No ladder results yet: run `python -m experiments.evaluate --ladder "
                "--out experiments/results/ladder`._")
    cells: dict[str, dict[tuple[str, str], str]] = {}
    for r in rows:
        cells.setdefault(r["variant"], {})[(r["a"], r["b"])] = (
            f"{_pct(r['win_rate'])} [{_pct(r['win_lo'])}, {_pct(r['win_hi'])}] "
            f"of {r['games']}")
    out = ["| variant | " + " | ".join(f"{a} v {b}" for a, b in RUNGS) + " |",
           "|---|" + "---|" * len(RUNGS)]
    for variant, got in cells.items():
        out.append(f"| {variant} | " + " | ".join(got.get(rung, "not run") for rung in RUNGS)
                   + " |")
    return "\n".join(out)


def _refit_slug(preset: str, shards: int | None = None, epochs: int | None = None) -> str:
    """``V_N[_eE]``: the refit's folder name (``agents.networks.last_deal_refit``; the shipped
    refit's without ``shards``/``epochs``) without its ``endgame_net_``, which the match
    folders of that agent carry."""
    return last_deal_refit(preset, shards, epochs).removeprefix("endgame_net_")


def _before_last_noun(preset: str) -> str:
    """What plays before the last deal in ``networks:PRESET``: its set network itself
    (``UNDISTILLED``) or an MLP student of it."""
    return "set network" if preset in UNDISTILLED else "student"


def _refitted_on(shards: int, epochs: int) -> str:
    """How such a refit is named in a row: its play-out shards, and its epochs where not 8."""
    return f"refitted on {shards} play-out shards" + (
        f" for {epochs} epochs" if epochs != 8 else "")


# The shipped ``networks:PRESET`` put through the protocol again where its last deal was
# refitted on N play-out shards since its first run there (``networks_V_N``; the earlier runs
# stay in networks_student_V: dominican's before the thirty-ninth session, wippen's before
# the fortieth, royal's before the forty-first, hungarian's before the forty-second; its
# forty-second in networks_hungarian_640; ``_eE`` for a refit fitted for E epochs)
PROTOCOL_FOLDERS = {v: "networks_" + _refit_slug(v) for v in LAST_DEAL_SHARDS}
# ... and where its network before the last deal was replaced: tuxedo's 128-wide set network
# on 120 shards, with no student (forty-seventh session; before it networks_student_tuxedo),
# then its last deal too (fiftieth session; before it networks_tuxedo_120_h128; in it
# networks_tuxedo_120_h128_960, before its refit went on to 16 epochs)
PROTOCOL_FOLDERS |= {v: "networks_" + before_last_folder(v).removeprefix("midgame_net_")
                     + (_refit_slug(v).removeprefix(v) if v in LAST_DEAL_SHARDS else "")
                     for v in UNDISTILLED}


def _before_last_how(v: str, fit: float | None, rows: str | None, mid: str) -> str:
    """How ``networks:V``'s network before the last deal was made, for its protocol row: an
    MLP student fitted in ``fit`` minutes to ``rows`` afterstates valued by the set network
    fitted in ``mid``, or (``UNDISTILLED``) that set network itself."""
    if v in UNDISTILLED:
        return (f"before the last deal: a set network ({before_last_hidden(v)} wide, "
                f"no student) fitted in {mid}")
    return (f"before the last deal: an MLP student (256 wide) fitted in {fit} min to {rows} "
            f"afterstates valued by a set network, itself fitted in {mid}")

# The agents put through the benchmark protocol for the README (issue 17 item 3), in table
# order: (folder under experiments/results/protocol, training folder under experiments/results
# whose train_log.json says how the model was made (None: the agent has no trained policy), the
# model's name in the table[, what was added to it, appended to how it was made]).
PROTOCOL_RUNS = tuple((f"cloned_{v}", f"train/{v}", f"{v}, cloned") for v in (
    "casino", "royal", "dominican", "hungarian", "tuxedo", "spade", "wippen")) + (
    ("cloned_set_tree_casino", "train/casino",
     "casino, cloned + learned last deal (networks only)",
     "; last deal: a set network fitted in 30 min to 257k exact decisions"),
    # the shipped ``networks:PRESET`` since the thirtieth session (earlier pairs: protocol/
    # networks_tail44_casino, networks_casino, networks_royal, networks_dominican)
) + tuple((PROTOCOL_FOLDERS.get(v, f"networks_student_{v}"), None,
                f"{v}, `networks:{v}` (two value networks, no policy)",
           f"{_before_last_how(v, fit, rows, mid)}; last deal: a set "
           f"network fitted in {end} exact decisions (a constant rate, "
           f"{LAST_DEAL_EPOCHS.get(v, 8)} epochs)")
          for v, fit, rows, mid, end in (
    ("casino", 3.6, "1.5M", "31 min to 324k decisions valued by 32 rollouts to a learned "
     "deal-boundary value", "66 min to 646k"),
    ("royal", 3.4, "1.5M", "39 min to 312k decisions valued the same way",
     "118 min (8 epochs on two torch threads, 8 on one) to 650k"),
    ("dominican", 4.0, "1.3M", "29 min to 298k decisions valued the same way",
     "55 min to 575k"),
    ("spade", 2.4, "1.5M", "23 min to 324k decisions valued the same way",
     "37 min to 217k"),
    ("wippen", 3.1, "1.5M", "14 min to 162k decisions valued the same way",
     "66 min to 650k"),
    ("tuxedo", None, None, "85 min to 511k decisions valued by 32 rollouts to the hand's "
     "end (no boundary value: tuxedo scores oranges and sweeps as events)",
     "147 min (8 epochs, then 8 more from its checkpoint) to 923k"),
    ("hungarian", 1.5, "1.1M", "11 min to 252k decisions valued by 32 rollouts to the "
     "hand's end (no boundary value: the game ends on points earned during a hand)",
     "173 min (16 epochs on two torch threads, 8 on one) to 1.02M"))) + (
    ("scratch_casino_s0", "scratch/casino_s0", "casino, RL from scratch (MLP, seed 0)"),
    ("sums_casino_s0", "scratch/sums_casino_s0",
     "casino, RL from scratch (move scorer, table sums, seed 0)"),
    ("rllib_casino_s0", "rllib/casino_s0", "casino, RLlib PPO from scratch (self-play, seed 0)"))


def _trained(folder: Path) -> str:
    """How a model was made, from its train_log.json (and config.json's teacher), or an
    RLlib run's metrics.json."""
    if not (folder / "train_log.json").exists():
        m = json.loads((folder / "metrics.json").read_text())
        return (f"{m['elapsed_seconds'] / 60:.0f} min: {m['env_steps'] / 1e6:.1f}M env steps "
                "from scratch")
    log = json.loads((folder / "train_log.json").read_text())
    parts = []
    if log.get("bc"):
        config = folder / "config.json"
        teacher = json.loads(config.read_text())["bc"]["teacher"] if config.exists() else "?"
        parts.append(f"cloned {log['bc']['decisions'] / 1e3:.0f}k {teacher} decisions")
    steps = log["ppo"]["timesteps"]
    if steps or not parts:
        parts.append(f"{steps / 1e6:.1f}M PPO steps from scratch" if not parts
                     else f"{steps / 1e3:.0f}k PPO steps")
    return f"{log['train_minutes']:.0f} min: " + " + ".join(parts)


def _interval(r: dict, key: str) -> str:
    return (f"{100 * float(r[key]):.1f}% [{100 * float(r[key + '_lo']):.1f}, "
            f"{100 * float(r[key + '_hi']):.1f}]")


def baselines_table() -> str:
    """The shipped models through benchmark protocol v1 (results.csv of each folder of
    ``PROTOCOL_RUNS``): hands won against each of v1's opponents with 95% intervals over
    duplicate deals, one row per model."""
    out, opponents, labels, drifted = [], None, set(), False
    for name, train, label, *more in PROTOCOL_RUNS:
        rows = _rows(RESULTS / "protocol" / name / "results.csv")
        if not rows:
            continue
        drift = _drifted(RESULTS / "protocol" / name / "results.json")
        drifted |= bool(drift)
        labels.add(f"{rows[0]['protocol']} (`{rows[0]['protocol_hash']}`)")
        if opponents is None:
            opponents = [r["opponent"] for r in rows]
            out += ["| model | trained | " + " | ".join(f"v {o}" for o in opponents) + " |",
                    "|---|---|" + "---|" * len(opponents)]
        by_opp = {r["opponent"]: r for r in rows}
        cells = [(_interval(by_opp[o], "hands_won")
                  + (" †" if (by_opp[o]["preset"], o) in drift else ""))
                 if o in by_opp else "–" for o in opponents]
        made = _trained(RESULTS / train) if train else ""  # None: no trained policy in it
        out.append(f"| {label} | {made}{''.join(more)} | " + " | ".join(cells) + " |")
    if not out:
        return ("_No protocol results yet: run `python -m experiments.evaluate --protocol v1 "
                "--agent ppo:PATH --out experiments/results/protocol/<name>`._")
    out.append(f"\nHands won [95% CI], benchmark protocol {', '.join(sorted(labels))}.")
    if drifted:
        out[-1] += (" †: not comparable with v1, the opponent played differently from when v1 "
                    "was fixed (its fingerprint; the run's results.md says how).")
    return "\n".join(out)


def _drifted(results: Path) -> set[tuple[str, str]]:
    """The (preset, opponent) pairs a protocol run found playing differently from when the
    protocol was fixed (``experiments.protocol.drifted`` of its results.json), so not
    comparable."""
    from experiments.protocol import drifted

    return drifted(json.loads(results.read_text()).get("drift", [])) if results.exists() \
        else set()


SCRATCH = RESULTS / "scratch"
PRESET_ORDER = ("casino", "royal", "dominican", "hungarian", "tuxedo", "spade", "wippen",
                "swedish", "finnish", "swazi", "krypkasino")
TARGETS = (("random", 0.9), ("greedy", 0.5), ("heuristic", 0.5))


def _sums_runs() -> list[tuple[str, int, Path]]:
    """The finished table-sums runs (``scratch/sums_<preset>_s<seed>`` with a final
    evaluation), in preset then seed order."""
    runs = []
    for d in SCRATCH.glob("sums_*_s*"):
        m = re.fullmatch(r"sums_(\w+?)_s(\d+)", d.name)
        if m and m.group(1) in PRESET_ORDER and (d / "eval_final.json").exists():
            runs.append((m.group(1), int(m.group(2)), d))
    return sorted(runs, key=lambda r: (PRESET_ORDER.index(r[0]), r[1]))


def _first_reached(curve: list[dict], opponent: str, target: float) -> str:
    """Steps and minutes at the first evaluation point at or above ``target``, else the
    best rate seen."""
    rows = [r for r in curve if r["opponent"] == opponent]
    for r in rows:
        if float(r["win_rate"]) >= target:
            return f"{int(r['timesteps']) / 1e3:,.0f}k / {float(r['minutes']):.1f} min"
    best = max((float(r["win_rate"]) for r in rows), default=float("nan"))
    return f"not reached (best {100 * best:.1f}%)"


def scratch_sums_table() -> str:
    """One row per finished table-sums run (RL from scratch): steps, minutes, frames/s, the
    final evaluation's hands won with 95% intervals over duplicate deals, and the first
    periodic evaluation point reaching each of issue 17's thresholds."""
    out = ["| run | PPO steps | minutes | frames/s | v random | v greedy | v heuristic "
           "| points/hand v heuristic | to 90% v random | to 50% v greedy "
           "| to 50% v heuristic |", "|---" * 11 + "|"]
    for preset, seed, d in _sums_runs():
        log = json.loads((d / "train_log.json").read_text())
        final = {r["opponent"]: r for r in json.loads((d / "eval_final.json").read_text())}
        cells = []
        for opp, _ in TARGETS:
            r = final[opp]
            cells.append(f"{100 * r['win_rate']:.1f}% [{100 * r['paired_lo']:.1f}, "
                         f"{100 * r['paired_hi']:.1f}]")
        curve = _rows(d / "learning_curve.csv")
        link = f"[{preset} s{seed}](../experiments/results/scratch/{d.name})"
        out.append(f"| {link} | {log['ppo']['timesteps']:,} | {log['train_minutes']:.0f} | "
                   f"{log['ppo']['frames_per_second']:.0f} | " + " | ".join(cells) +
                   f" | {final['heuristic']['diff_per_hand']:+.2f} | ".replace("-", "\u2212") +
                   " | ".join(_first_reached(curve, o, t) for o, t in TARGETS) + " |")
    if len(out) == 2:
        return "_No table-sums run finished yet._"
    out.append("\nFinal evaluations on fresh duplicate deals (hands: random and greedy 2,000, "
               "the heuristic 5,000; the 10-minute runs 1,000, 1,000 and 2,000), 95% "
               "intervals over deals; thresholds from the periodic "
               "evaluations (1,000 hands against the heuristic, 600 for the 10-minute runs; "
               "the first is at about 250k steps for the 20-minute runs and 150k for the "
               "10-minute ones, so a threshold met there may have been met earlier).")
    return "\n".join(out)


def _threshold_cell(t: dict) -> str:
    if t.get("timesteps") is None:
        return f"not reached (best IQM {100 * t['best_iqm']:.1f}%)"
    return f"{t['timesteps'] / 1e3:,.0f}k / {t['minutes']:.1f} min (IQM)"


def scratch_summary_table() -> str:
    """One row per preset with finished table-sums runs: seeds, minutes, the final
    evaluations' hands won (mean over seeds, with the seeds' range), and steps/minutes to
    each threshold: the IQM over seeds (``sums_<preset>_aggregate``) where the seeds were
    aggregated, else the single run's first evaluation point."""
    by_preset: dict[str, list[Path]] = {}
    for preset, _, d in _sums_runs():
        by_preset.setdefault(preset, []).append(d)
    if not by_preset:
        return "_No table-sums run finished yet._"
    out = ["| preset | seeds | minutes each | v random | v greedy | v heuristic "
           "| short of 50% v heuristic | to 90% v random | to 50% v greedy "
           "| to 50% v heuristic |", "|---" * 10 + "|"]
    for preset, dirs in by_preset.items():
        finals = [{r["opponent"]: r for r in json.loads((d / "eval_final.json").read_text())}
                  for d in dirs]
        minutes = sorted({round(json.loads((d / "train_log.json").read_text())
                                ["train_minutes"]) for d in dirs})
        cells = []
        for opp, _ in TARGETS:
            rates = [100 * f[opp]["win_rate"] for f in finals]
            mean = sum(rates) / len(rates)
            cells.append(f"{mean:.1f}%" if len(rates) == 1 else
                         f"{mean:.1f}% ({min(rates):.1f}–{max(rates):.1f})")
        short = 50 - max(100 * f["heuristic"]["paired_hi"] for f in finals)
        agg = SCRATCH / f"sums_{preset}_aggregate" / "aggregate.json"
        if len(dirs) > 1 and agg.exists():
            ts = {t["opponent"]: t for t in json.loads(agg.read_text())["thresholds"]}
            reach = [_threshold_cell(ts[o]) for o, _ in TARGETS]
        else:
            curve = _rows(dirs[0] / "learning_curve.csv")
            note = f" ({dirs[0].name[-2:]})" if len(dirs) > 1 else ""
            reach = [_first_reached(curve, o, t) + note for o, t in TARGETS]
        out.append(f"| {preset} | {len(dirs)} | {'/'.join(map(str, minutes))} | "
                   + " | ".join(cells) + f" | {short:.1f} points | " + " | ".join(reach) + " |")
    out.append("\nHands won: the final evaluations' (mean over seeds, the seeds' range in "
               "brackets); *short of 50%*: 50% minus the best upper end of a seed's 95% "
               "interval against the heuristic; thresholds: the IQM over seeds "
               "(`experiments.aggregate`) where the seeds were aggregated, else the run's "
               "first evaluation point reaching it.")
    return "\n".join(out)


# (preset, guide, folder): the agent is search:endgame=20000, guided by the named network
# (None: no guide).
ENDGAME_MATCHES = (
    ("casino", None, "exit/endgame_v_search_casino"),
    ("casino", "guide: refit network (expert iteration 1, refit)",
     "exit/guided_endgame_v_search_casino"),
    ("royal", None, "exit/endgame_v_search_royal"),
    ("royal", "guide: shipped cloned model (temperature 0.3)",
     "exit/guided_endgame_v_search_royal"),
    ("dominican", "guide: shipped cloned model (temperature 0.3)",
     "exit/guided_endgame_v_search_dominican"),
    # The same guided agents with 380 rollouts a decision (the search's 400 less 5%), so that
    # they think no longer than the search (issue 18's time condition).
    ("casino", "guide: refit network, 380 rollouts", "exit/guided380_endgame_v_search_casino"),
    ("royal", "guide: shipped cloned model (temperature 0.3), 380 rollouts",
     "exit/guided380_endgame_v_search_royal"),
    ("dominican", "guide: shipped cloned model (temperature 0.3), 380 rollouts",
     "exit/guided380_endgame_v_search_dominican"),
    # A learned value of deal boundaries in place of the rollouts' tails (search:tail=PATH).
    ("casino", "value: boundary network (`tail`), 1,600 rollouts",
     "exit/tail1600_endgame_v_search_casino"),
    ("royal", "value: boundary network (`tail`), 1,600 rollouts",
     "exit/tail1600_endgame_v_search_royal"),
    ("dominican", "value: boundary network (`tail`), 1,600 rollouts",
     "exit/tail1600_endgame_v_search_dominican"),
)
# The README's rows: the solver alone and the searches on a learned boundary value (the
# guided rows, whose guide adds nothing to the solver, are in docs/expert_iteration.md).
README_ENDGAME_MATCHES = tuple(m for m in ENDGAME_MATCHES
                               if m[1] is None or m[2].startswith("exit/tail"))


HEURISTIC_ENDGAME_MATCHES = tuple(
    (preset, "exact solver (endgame=20000)", f"exit/heuristic_endgame_v_heuristic_{preset}")
    for preset in ("casino", "royal", "dominican")) + (
    ("casino", "learned network (endgame_net=tree_net.pt)",
     "exit/heuristic_endgame_net_v_heuristic_casino"),
    ("casino", "learned correction of the heuristic's scores, uniform tree positions "
     "(scores_net.pt)", "exit/heuristic_endgame_scores_net_v_heuristic_casino"),
    ("casino", "learned correction of the heuristic's scores, play-out and tree positions "
     "(walks_tree_net.pt)", "exit/heuristic_endgame_walks_net_v_heuristic_casino"),
    ("casino", "the same network, departing from the heuristic's move only for 1 point or more "
     "(endgame_margin=1.0)", "exit/heuristic_endgame_walks_net_m1_v_heuristic_casino"),
    ("casino", "learned correction, 3.7x the play-out positions (walks3_tree_net.pt)",
     "exit/heuristic_endgame_walks3_net_v_heuristic_casino"),
    ("casino", "the same network with endgame_margin=1.0",
     "exit/heuristic_endgame_walks3_net_m1_v_heuristic_casino"),
    ("casino", "a network over the cards as a set, play-out positions only (set_net.pt)",
     "exit/heuristic_endgame_set_net_v_heuristic_casino"),
    ("casino", "the set network with the tree decisions too (set_tree_net.pt)",
     "exit/heuristic_endgame_set_tree_net_v_heuristic_casino"),)


# Issue 18's network-alone target: the shipped cloned policy on its own and with a learned
# last deal (both networks, no search), 2,000 hands on the same deals against the heuristic and
# against a tuning of it no network was trained with or against.
UNSEEN = "`heuristic:threat=0.3,residue=0.5` (another tuning)"
COMPLETE = "`heuristic:complete=1` (the rules-complete evaluation)"
SHIPPED_SEARCH = "search (shipped, 400 rollouts)"
# The last deals refitted on more play-out shards (``agents.networks.LAST_DEAL_SHARDS``), each
# (preset, shards, epochs, when `networks:V` played it): the thirty-ninth session's dominican,
# the fortieth's wippen, the forty-first's royal, the forty-second's hungarian; the
# forty-third's hungarian fitted for 16, then 24 epochs (``LAST_DEAL_EPOCHS``), the
# forty-fourth's royal for 16, the fiftieth's tuxedo (for 16 epochs in the fifty-first), the
# fifty-second's krypkasino
REFITS = (
    ("dominican", 120, 8, "since the thirty-ninth session"),
    ("wippen", 96, 8, "since the fortieth session"),
    ("royal", 96, 8, "from the forty-first to the forty-fourth session"),
    ("royal", 96, 16, "since the forty-fourth session"),
    ("hungarian", 640, 8, "in the forty-second session"),
    ("hungarian", 640, 16, "for part of the forty-third session"),
    ("hungarian", 640, 24, "since the forty-third session"),
    ("tuxedo", 960, 8, "in the fiftieth session"),
    ("tuxedo", 960, 16, "since the fifty-first session"),
    ("krypkasino", 960, 8, "since the fifty-second session"))
# those whose match against the shipped search is finished and committed (named, so that an
# unfinished match folder on disk never changes the docs)
SEARCHED_REFITS = {("dominican", 120, 8), ("royal", 96, 8), ("royal", 96, 16)}

# tuxedo networks before the last deal, each with the 16-epoch last deal, played against the
# heuristic and another tuning and not shipped: (folder under exit/, what it is)
TUXEDO_CANDIDATES = (
    # the fifty-fourth session's: 128 wide on the 64-rollout shards, the fourth-deal ones and
    # the first 21 of the shipped network's shards made again
    ("midgame_net_tuxedo_r64_r32_deal4_h128", "a 128-wide set network on the 64-rollout "
     "shards, the fourth-deal decisions and 21 of the shipped network's shards"),
    # the fifty-fifth session's: the shipped network's fit again, with the fourth-deal ones
    ("midgame_net_tuxedo_120_deal4_h128", "the shipped set network's fit (128 wide, its 120 "
     "shards made again) with the fourth-deal decisions added"),
    # the fifty-sixth session's: the same with the third-deal ones too, and the shipped network
    # fine-tuned on a label tilted towards hands won
    ("midgame_net_tuxedo_120_deal34_h128", "the shipped set network's fit (128 wide, its 120 "
     "shards made again) with the fourth- and third-deal decisions added"),
    ("midgame_net_tuxedo_120_h128_ft_w15", "the shipped set network fine-tuned for an epoch "
     "on its shards with the points + 15 x the hand result"),
    ("midgame_net_tuxedo_120_h128_ft_w30", "the shipped set network fine-tuned for two epochs "
     "on its shards with the points + 30 x the hand result"),
    # the fifty-seventh session's: the shipped network fine-tuned on 40 shards of the fourth
    # deal, labelled by rollouts that play the last deal exactly, and (the control) on the
    # same decisions labelled by the builder rollouts
    ("midgame_net_tuxedo_120_h128_ft_exact4", "the shipped set network fine-tuned for three "
     "epochs on fourth-deal decisions whose rollouts play the last deal exactly"),
    ("midgame_net_tuxedo_120_h128_ft_builder4", "the shipped set network fine-tuned for three "
     "epochs on the same fourth-deal decisions with the builder rollouts' labels"),
    # the fifty-eighth session's: tuxedo's alike colours (red and yellow, green and blue)
    # swapped at random in the fit (``fit --augment``), from scratch and as a fine-tune
    ("midgame_net_tuxedo_120_h128_aug", "the shipped set network's fit (128 wide, its 120 "
     "shards made again) with the alike colours swapped at random"),
    ("midgame_net_tuxedo_120_h128_ft_aug", "the shipped set network fine-tuned for two epochs "
     "on its shards with the alike colours swapped at random"),
)

NETWORK_ALONE_MATCHES = (
    ("casino", "cloned policy alone (train/casino/model.zip)", "heuristic",
     "exit/cloned_v_heuristic_casino_s21"),
    ("casino", "the same, last deal by the set network (set_net.pt)", "heuristic",
     "exit/cloned_set_net_v_heuristic_casino"),
    ("casino", "the same, last deal by the set network with tree decisions (set_tree_net.pt)",
     "heuristic", "exit/cloned_set_tree_net_v_heuristic_casino"),
    ("casino", "the same, last deal by the set network on 2.6M afterstates, cosine "
     "(set_big_net.pt)", "heuristic", "exit/cloned_set_big_net_v_heuristic_casino"),
    ("casino", "cloned policy alone (train/casino/model.zip)", UNSEEN,
     "exit/general/cloned_v_unseen_heuristic_casino"),
    ("casino", "the same, last deal by the set network with tree decisions (set_tree_net.pt)",
     UNSEEN, "exit/general/cloned_set_tree_v_unseen_heuristic_casino"),
    ("casino", "the same, last deal by the set network on 2.6M afterstates, cosine "
     "(set_big_net.pt)", UNSEEN, "exit/general/cloned_set_big_v_unseen_heuristic_casino"),
    ("casino", "two value networks, no policy: before the last deal tail25_net.pt (150k "
     "rollout-valued decisions), the last deal set_big_net.pt", "heuristic",
     "exit/networks_tail25_set_big_v_heuristic_casino"),
    ("casino", "two value networks, no policy: before the last deal tail44_net.pt (264k "
     "rollout-valued decisions), the last deal set_big_net.pt", "heuristic",
     "exit/networks_tail44_set_big_v_heuristic_casino"),
    ("casino", "two value networks, no policy: before the last deal tail60_net.pt (360k "
     "rollout-valued decisions; played from runs/midgame_net/, the same file), the last deal "
     "set_big_net.pt",
     "heuristic", "exit/networks_tail60_set_big_v_heuristic_casino"),
    ("casino", "two value networks, no policy: before the last deal tail44_net.pt (264k "
     "rollout-valued decisions), the last deal set_big_net.pt", UNSEEN,
     "exit/general/networks_tail44_set_big_v_unseen_heuristic_casino"),
    ("casino", "two value networks, no policy: before the last deal tail44_net.pt (264k "
     "rollout-valued decisions), the last deal set_big_net.pt", SHIPPED_SEARCH,
     "exit/general/networks_tail44_set_big_v_search_casino"),
) + tuple(("casino", "`networks:casino` until the twenty-seventh session: before the last deal "
           "tail60_net.pt, the last deal set_big_net.pt (5,000 hands)", opponent, folder)
          for opponent, folder in (
    ("heuristic", "exit/networks_casino_v_heuristic"),
    (UNSEEN, "exit/general/networks_casino_v_unseen_heuristic"),
    (SHIPPED_SEARCH, "exit/general/networks_tail60_set_big_v_search_casino"),
)) + tuple(("casino", f"`networks:casino` with another last deal: {what} (257k decisions, "
           "8 epochs; played from runs/endgame_net/set/)", "heuristic",
            f"exit/networks_{name}_v_heuristic_casino") for name, what in (
    ("cos64", "64 wide, cosine (cos64_net.pt)"),
    ("const64", "64 wide, constant rate (const64_net.pt)"),
    ("wide128", "128 wide, cosine (wide128_net.pt)"),
)) + tuple(row for preset in ("royal", "dominican") for row in (
    (preset, f"cloned policy alone (train/{preset}/model.zip)", "heuristic",
     f"exit/endgame_net_{preset}_pipeline/cloned_alone_v_heuristic"),
    (preset, "the same, last deal by the set network of `pipeline` (set_net.pt)", "heuristic",
     f"exit/endgame_net_{preset}_pipeline/network_alone_v_heuristic"),
    (preset, "two value networks, no policy, of `midgame_net pipeline`: before the last deal "
     "tail_net.pt, the last deal the set network above", "heuristic",
     f"exit/midgame_net_{preset}_pipeline/networks_v_heuristic"),
    (preset, f"the two networks above (`networks:{preset}` until the twenty-sixth session)",
     UNSEEN,
     f"exit/general/networks_{preset}_v_unseen_heuristic"),
    # the twenty-sixth session's refit of the last deal: a constant rate, 8 epochs
    (preset, "cloned policy, last deal by the set network refitted at a constant rate, 8 "
     f"epochs (endgame_net_{preset}_const/set_net.pt)", "heuristic",
     f"exit/endgame_net_{preset}_const/network_alone_v_heuristic"),
    (preset, "two value networks: tail_net.pt before the last deal, the refitted set network "
     "above on it", "heuristic", f"exit/networks_{preset}_const_v_heuristic"),
    (preset, f"the same two networks (`networks:{preset}` since then)", UNSEEN,
     f"exit/general/networks_{preset}_const_v_unseen_heuristic"),
    (preset, f"the same two networks (`networks:{preset}`)", SHIPPED_SEARCH,
     f"exit/general/networks_{preset}_v_search"))) + (
    # the twenty-seventh session's refit of casino's last deal: the large data, a constant rate
    ("casino", "cloned policy, last deal by a set network fitted again to 679k exact decisions "
     "(16 tree, 52 play-out shards) at a constant rate, 8 epochs "
     "(endgame_net_casino_const/set_net.pt)", "heuristic",
     "exit/endgame_net_casino_const/network_alone_v_heuristic"),
    ("casino", "two value networks: tail60_net.pt before the last deal, that set network on it "
     "(`networks:casino` since the twenty-seventh session)", "heuristic",
     "exit/networks_casino_const_v_heuristic")) + tuple(
    ("casino", "the same two networks (`networks:casino`)", opponent,
     f"exit/general/networks_casino_const_v_{slug}")
    for opponent, slug in ((UNSEEN, "unseen_heuristic"), (SHIPPED_SEARCH, "search"))) + (
    # the twenty-eighth session's spade: the last deal at a constant rate, 8 epochs, then the
    # network before it on 30 shards (``midgame_net pipeline --shards 30``)
    ("spade", "cloned policy, last deal by the set network of `pipeline` at a constant rate, "
     "8 epochs (endgame_net_spade_const/set_net.pt)", "heuristic",
     "exit/endgame_net_spade_const/network_alone_v_heuristic"),
    ("spade", "two value networks (`networks:spade`): before the last deal tail_net.pt (30 "
     "shards), the set network above on it", "heuristic",
     "exit/midgame_net_spade_pipeline/networks_v_heuristic"),
    ("spade", "the same two networks (`networks:spade`)", UNSEEN,
     "exit/general/networks_spade_v_unseen_heuristic"),
    # the thirty-first session's wippen, by ``python -m experiments.networks_build``
    ("wippen", "cloned policy, last deal by the set network of `endgame_net pipeline` at a "
     "constant rate, 8 epochs (endgame_net_wippen_const/set_net.pt)", "heuristic",
     "exit/endgame_net_wippen_const/network_alone_v_heuristic"),
    ("wippen", "two value networks: before the last deal tail_net.pt (30 shards), the set "
     "network above on it", "heuristic", "exit/midgame_net_wippen_pipeline/networks_v_heuristic"),
    ("wippen", "`networks:wippen` (its student before the last deal, the set network on it)",
     UNSEEN, "exit/general/networks_wippen_v_unseen_heuristic"),
    # the thirty-third session's swedish, by the same command (no cloned policy)
    ("swedish", "two value networks: before the last deal tail_net.pt (30 shards), the set "
     "network above on it", "heuristic",
     "exit/midgame_net_swedish_pipeline/networks_v_heuristic"),
    ("swedish", "`networks:swedish` (its student before the last deal, the set network on it)",
     UNSEEN, "exit/general/networks_swedish_v_unseen_heuristic"),
    # the thirty-third session's tuxedo: no boundary value (rollouts to the hand's end); its
    # last deal refitted on 240 play-out shards after this first one on 24
    ("tuxedo", "cloned policy, last deal by a set network on 24 play-out shards "
     "(endgame_net_tuxedo_walks24/set_net.pt; it lost more than the heuristic a decision)",
     "heuristic", "exit/endgame_net_tuxedo_walks24/network_alone_v_heuristic"),
    ("tuxedo", "cloned policy, last deal by the set network on 240 play-out shards "
     "(endgame_net_tuxedo_const/set_net.pt)", "heuristic",
     "exit/endgame_net_tuxedo_const/network_alone_v_heuristic"),
    ("tuxedo", "two value networks: before the last deal tail_net.pt (30 shards valued by "
     "rollouts to the hand's end), on it the set network on 240 play-out shards", "heuristic",
     "exit/midgame_net_tuxedo_pipeline/networks_v_heuristic"),
    ("tuxedo", "`networks:tuxedo` from the thirty-third to the forty-fifth session (its "
     "30-shard student before the last deal, the set network on it)",
     UNSEEN, "exit/general/networks_tuxedo_v_unseen_heuristic"),
    # the thirty-fourth session's hungarian: rollouts to the hand's end, the fast simulator's
    # several-card plays
    ("hungarian", "cloned policy, last deal by the set network on 160 play-out shards "
     "(endgame_net_hungarian_const/set_net.pt)", "heuristic",
     "exit/endgame_net_hungarian_const/network_alone_v_heuristic"),
    ("hungarian", "two value networks: before the last deal tail_net.pt (30 shards valued by "
     "rollouts to the hand's end), on it the set network on 160 play-out shards", "heuristic",
     "exit/midgame_net_hungarian_pipeline/networks_v_heuristic"),
    ("hungarian", "`networks:hungarian` of the thirty-fourth and thirty-fifth sessions (its "
     "30-shard student before the last deal, the set network on it)", UNSEEN,
     "exit/general/networks_hungarian_v_unseen_heuristic"),
    # the thirty-fourth and thirty-fifth sessions' finnish, by the same command (no cloned
    # policy; rollouts to the hand's end)
    ("finnish", "two value networks: before the last deal tail_net.pt (30 shards valued by "
     "rollouts to the hand's end), on it the set network on 24 play-out shards", "heuristic",
     "exit/midgame_net_finnish_pipeline/networks_v_heuristic"),
    ("finnish", "`networks:finnish` (its student before the last deal, the set network on it)",
     UNSEEN, "exit/general/networks_finnish_v_unseen_heuristic"),
    # the thirty-fifth session's hungarian refit: twice the decisions before the last deal
    ("hungarian", "two value networks: before the last deal a set network on 60 shards "
     "(midgame_net_hungarian_60/tail_net.pt), the shipped last deal's on it", "heuristic",
     "exit/midgame_net_hungarian_60/networks_v_heuristic"),
    ("hungarian", "before the last deal an MLP student (256 wide) of the 60-shard set network "
     "(distill_net_hungarian_60/student_256.pt; `networks:hungarian` since the thirty-sixth "
     "session), the last deal's set network on it", "heuristic",
     "exit/distill_net_hungarian_60/student_256_v_heuristic"),
    # the thirty-sixth session's: the shipped hungarian refit against another tuning
    ("hungarian", "`networks:hungarian` since the thirty-sixth session (the 60-shard student, "
     "the set network on the last deal)", UNSEEN,
     "exit/general/networks_hungarian_60_v_unseen_heuristic"),
    # the thirty-sixth and thirty-seventh sessions' krypkasino, by the same command (two decks,
    # penalties; rollouts to the hand's end, no cloned policy)
    ("krypkasino", "two value networks: before the last deal tail_net.pt (30 shards valued by "
     "rollouts to the hand's end), on it the set network on 240 play-out shards", "heuristic",
     "exit/midgame_net_krypkasino_pipeline/networks_v_heuristic"),
    ("krypkasino", "`networks:krypkasino` (its student before the last deal, the set network "
     "on it)", UNSEEN, "exit/general/networks_krypkasino_v_unseen_heuristic"),
    # the thirty-eighth session's spade refit: twice the decisions before the last deal
    ("spade", "two value networks: before the last deal a set network on 60 shards "
     "(midgame_net_spade_60/tail_net.pt), the shipped last deal's on it", "heuristic",
     "exit/midgame_net_spade_60/networks_v_heuristic"),
    ("spade", "before the last deal an MLP student (256 wide) of the 60-shard set network "
     "(distill_net_spade_60/student_256.pt; `networks:spade` since the thirty-eighth "
     "session), the last deal's set network on it", "heuristic",
     "exit/distill_net_spade_60/student_256_v_heuristic"),
    ("spade", "`networks:spade` since the thirty-eighth session (the 60-shard student, the set "
     "network on the last deal)", UNSEEN, "exit/general/networks_spade_60_v_unseen_heuristic"),
    # the thirty-eighth session's wippen refit the same way, not shipped (it lost 0.6 points of
    # hands, paired, within noise)
    ("wippen", "two value networks: before the last deal a set network on 60 shards "
     "(midgame_net_wippen_60/tail_net.pt, not shipped), the shipped last deal's on it",
     "heuristic", "exit/midgame_net_wippen_60/networks_v_heuristic"),
    ("wippen", "before the last deal an MLP student (256 wide) of the 60-shard set network "
     "(distill_net_wippen_60/student_256.pt, not shipped), the last deal's set network on it",
     "heuristic", "exit/distill_net_wippen_60/student_256_v_heuristic"),
    ("wippen", "the same (the 60-shard student, not shipped)", UNSEEN,
     "exit/general/networks_wippen_60_v_unseen_heuristic"),
    # the thirty-eighth and thirty-ninth sessions' swazi, by the same command: before the last
    # deal on 10 shards (rollouts to the hand's end), its last deal solved from 5 cards
    ("swazi", "two value networks: before the last deal a set network on 10 shards valued by "
     "rollouts to the hand's end (midgame_net_swazi_10/tail_net.pt), on it the set network "
     "solved from 5 cards", "heuristic", "exit/midgame_net_swazi_10/networks_v_heuristic"),
    ("swazi", "before the last deal an MLP student (256 wide) of the 10-shard set network "
     "(distill_net_swazi_10/student_256.pt, `networks:swazi`'s), the last deal's set network "
     "on it (`networks:swazi` in the thirty-ninth session's first commit)", "heuristic",
     "exit/distill_net_swazi_10/student_256_v_heuristic"),
    ("swazi", "its student before the last deal, the set network on it (`networks:swazi` "
     "in the thirty-ninth session's first commit)", UNSEEN,
     "exit/general/networks_swazi_v_unseen_heuristic"),
    # the thirty-ninth session's: a student on swazi's last deal too, for speed
    ("swazi", "MLP students (256 wide) on both sides of the last deal, the last deal's "
     "(distill_net_swazi_10_last_deal/student_256.pt) fitted to its set network's values "
     "(`networks:swazi` since the thirty-ninth session)", "heuristic",
     "exit/distill_net_swazi_10_last_deal/student_256_v_heuristic"),
    ("swazi", "`networks:swazi` (the two students)", UNSEEN,
     "exit/general/networks_swazi_last_deal_v_unseen_heuristic"),
    # the forty-fifth session's tuxedo refit: twice the decisions before the last deal (all
    # 60 shards valued by the fast simulator's rollouts)
    ("tuxedo", "two value networks: before the last deal a set network on 60 shards "
     "(midgame_net_tuxedo_60/tail_net.pt), the shipped last deal's on it", "heuristic",
     "exit/midgame_net_tuxedo_60/networks_v_heuristic"),
    ("tuxedo", "before the last deal an MLP student (256 wide) of the 60-shard set network "
     "(distill_net_tuxedo_60/student_256.pt; `networks:tuxedo` in the forty-fifth and "
     "forty-sixth sessions), the last deal's set network on it", "heuristic",
     "exit/distill_net_tuxedo_60/student_256_v_heuristic"),
    ("tuxedo", "`networks:tuxedo` in the forty-fifth and forty-sixth sessions (the 60-shard "
     "student, the set network on the last deal)", UNSEEN,
     "exit/general/networks_tuxedo_60_v_unseen_heuristic"),
    # the forty-sixth session's: four times the decisions (120 shards), not shipped (more
    # points a hand, no more hands won)
    ("tuxedo", "two value networks: before the last deal a set network on 120 shards "
     "(midgame_net_tuxedo_120/tail_net.pt; not shipped), the shipped last deal's on it",
     "heuristic", "exit/midgame_net_tuxedo_120/networks_v_heuristic"),
    ("tuxedo", "before the last deal an MLP student (256 wide) of the 120-shard set network "
     "(distill_net_tuxedo_120/student_256.pt; not shipped), the last deal's set network on it",
     "heuristic", "exit/distill_net_tuxedo_120/student_256_v_heuristic"),
    # and on the first 30 of those shards, what the network before the last deal regresses on:
    # the points as shipped, the points without the static lead, the hand results
    ("tuxedo", "two value networks: before the last deal a set network on 30 fast-simulator "
     "shards (midgame_net_tuxedo_30fs; points, residual, as shipped), the last deal's on it",
     "heuristic", "exit/midgame_net_tuxedo_30fs/networks_v_heuristic"),
    ("tuxedo", "the same, the set network fitted to the points without the static lead "
     "(midgame_net_tuxedo_30_points)", "heuristic",
     "exit/midgame_net_tuxedo_30_points/networks_v_heuristic"),
    ("tuxedo", "the same, the set network fitted to the moves' mean hand results, +1 won, 0 "
     "drawn, -1 lost (midgame_net_tuxedo_30_won)", "heuristic",
     "exit/midgame_net_tuxedo_30_won/networks_v_heuristic"),
    # the forty-seventh session's: twice the width on the 120 shards, its set network playing
    # itself before the last deal (no student; shipped)
    ("tuxedo", "two value networks: before the last deal a set network 128 wide on 120 shards "
     "(midgame_net_tuxedo_120_h128/tail_net.pt, no student; `networks:tuxedo` since the "
     "forty-seventh session), the last deal's set network on it (on 240 play-out shards; "
     "`networks:tuxedo` until the fiftieth session)", "heuristic",
     "exit/midgame_net_tuxedo_120_h128/networks_v_heuristic"),
    ("tuxedo", "`networks:tuxedo` from the forty-seventh to the fiftieth session (the "
     "128-wide set network on 120 shards, the set network on 240 play-out shards on the last "
     "deal)", UNSEEN,
     "exit/general/networks_tuxedo_120_h128_v_unseen_heuristic"),
    ("tuxedo", "the same, before the last deal the mean of the 128-wide and the 64-wide set "
     "networks on the 120 shards (not shipped)", "heuristic",
     "exit/midgame_net_tuxedo_120_h128/ensemble_v_heuristic"),
    # and krypkasino's refit on twice the decisions before the last deal (not shipped yet)
    ("krypkasino", "two value networks: before the last deal a set network on 60 shards "
     "(midgame_net_krypkasino_60/tail_net.pt, not shipped), the shipped last deal's on it",
     "heuristic", "exit/midgame_net_krypkasino_60/networks_v_heuristic"),
    ("krypkasino", "before the last deal an MLP student (256 wide) of the 60-shard set network "
     "(distill_net_krypkasino_60/student_256.pt, not shipped), the last deal's set network on "
     "it", "heuristic", "exit/distill_net_krypkasino_60/student_256_v_heuristic"),
    # the forty-eighth session's: tuxedo's 128-wide set network fine-tuned on the positions
    # it meets against the heuristic (not shipped: each lost hands to it)
    ("tuxedo", "before the last deal the shipped 128-wide set network fine-tuned 3 epochs "
     "(cosine from 1e-4) on 64 shards of the positions it meets against the heuristic "
     "(midgame_net_tuxedo_onpolicy/ft1e4; not shipped), the last deal's set network on it",
     "heuristic", "exit/midgame_net_tuxedo_onpolicy/ft1e4/networks_v_heuristic"),
    ("tuxedo", "the same fine-tune from a rate of 3e-4 (midgame_net_tuxedo_onpolicy/ft3e4; not "
     "shipped)", "heuristic", "exit/midgame_net_tuxedo_onpolicy/ft3e4/networks_v_heuristic"),
    ("tuxedo", "before the last deal a set network (128 wide) fitted from scratch on those 64 "
     "shards alone (midgame_net_tuxedo_onpolicy/scratch; not shipped), the last deal's set "
     "network on it", "heuristic", "exit/midgame_net_tuxedo_onpolicy/scratch/networks_v_heuristic"),
    ("tuxedo", "the same fit with the banked base, only the points already certain "
     "(midgame_net_tuxedo_onpolicy/scratch_banked; not shipped)", "heuristic",
     "exit/midgame_net_tuxedo_onpolicy/scratch_banked/networks_v_heuristic"),
    ("tuxedo", "before the last deal a set network (64 wide) on 60 shards valued by 64 rollouts "
     "a move instead of 32 (midgame_net_tuxedo_r64; not shipped), the last deal's set network "
     "on it", "heuristic", "exit/midgame_net_tuxedo_r64/networks_v_heuristic"),
    ("tuxedo", "the same shards, the set network 128 wide (midgame_net_tuxedo_r64_h128; not "
     "shipped)", "heuristic", "exit/midgame_net_tuxedo_r64_h128/networks_v_heuristic"),
    ("tuxedo", "the 64-wide fit on them again with another seed (midgame_net_tuxedo_r64_s1; not "
     "shipped)", "heuristic", "exit/midgame_net_tuxedo_r64_s1/networks_v_heuristic"),
    ("tuxedo", "the 64-wide fit on them to each move's points plus 15 times its mean hand "
     "result (midgame_net_tuxedo_r64_w15; not shipped)", "heuristic",
     "exit/midgame_net_tuxedo_r64_w15/networks_v_heuristic"),
    # the fifty-second session's: those 60 shards and the 64 on-policy ones together
    ("tuxedo", "the set network 128 wide on those 60 shards and the 64 on-policy shards "
     "together (midgame_net_tuxedo_mix; not shipped), the last deal's set network for 16 "
     "epochs on it", "heuristic", "exit/midgame_net_tuxedo_mix/networks_v_heuristic"),
    # the fifty-third session's: the search's prior at play time, an ensemble of networks on
    # other positions, the 64-rollout network with the 16-epoch last deal
    ("tuxedo", "`networks:tuxedo,midgame_prior=0.5`: the shipped networks, half the "
     "heuristic's score added to each value before the last deal (not shipped)", "heuristic",
     "exit/midgame_prior_tuxedo/prior05"),
    ("tuxedo", "before the last deal the shipped set network averaged with "
     "midgame_net_tuxedo_mix's (not shipped), the last deal's set network for 16 epochs",
     "heuristic", "exit/midgame_net_tuxedo_mix/ensemble_v_heuristic"),
    ("tuxedo", "before the last deal the 64-wide set network on the 64-rollout shards "
     "(midgame_net_tuxedo_r64; not shipped), the last deal's set network for 16 epochs on it",
     "heuristic", "exit/midgame_net_tuxedo_r64/networks_e16_v_heuristic"),
    ("tuxedo", "the same fit with 142,021 more decisions of the deal before the last "
     "(`collect --stock 4`; midgame_net_tuxedo_r64_deal4; not shipped), the last deal's set "
     "network for 16 epochs on it", "heuristic",
     "exit/midgame_net_tuxedo_r64_deal4/networks_v_heuristic"),
    ("tuxedo", "the same (midgame_net_tuxedo_r64_deal4; not shipped)", UNSEEN,
     "exit/midgame_net_tuxedo_r64_deal4/networks_v_unseen_heuristic"),
    # the tuxedo networks before the last deal tried since the fifty-fourth session
    # (``TUXEDO_CANDIDATES``), against the heuristic and another tuning
) + tuple(
    row for slug, what in TUXEDO_CANDIDATES
    for row in (
        ("tuxedo", f"before the last deal {what} ({slug}; not shipped), the last deal's set "
         "network for 16 epochs", "heuristic", f"exit/{slug}/networks_v_heuristic"),
        ("tuxedo", f"the same ({slug}; not shipped)", UNSEEN,
         f"exit/{slug}/networks_v_unseen_heuristic"))
) + (
    # and the shipped agent on another set of hands (seed 22), played once
    ("tuxedo", "`networks:tuxedo` as shipped, on another 5,000 hands (seed 22, not "
     "seed 21; played once)", "heuristic",
     "exit/general/networks_tuxedo_960_e16_v_heuristic_seed22"),
    # the fifty-ninth session's: the shipped networks choosing before the last deal among every
    # legal move, and among the heuristic's 4 best-scored, instead of its 8
    ("tuxedo", "`networks:tuxedo,midgame_candidates=0`: the shipped networks, choosing before "
     "the last deal among every legal move instead of the heuristic's 8 best-scored (not "
     "shipped)", "heuristic", "exit/midgame_net_tuxedo_candidates/top0_v_heuristic"),
    ("tuxedo", "`networks:tuxedo,midgame_candidates=4`: the same among the heuristic's 4 "
     "best-scored (not shipped)", "heuristic",
     "exit/midgame_net_tuxedo_candidates/top4_v_heuristic"),
    # the sixtieth session's: a round's last move valued over 8 deals of the next round
    ("tuxedo", "`networks:tuxedo,midgame_samples=8`: the shipped networks, a move that ends a "
     "round before the last deal valued by the mean over 8 deals of the next round instead of "
     "one (not shipped)", "heuristic",
     "exit/midgame_net_tuxedo_samples/samples8_v_heuristic"),
) + tuple(
    # the refitted last deals (``REFITS``) against the heuristic and another tuning
    row for v, n, epochs, shipped in REFITS
    for slug in [_refit_slug(v, n, epochs)]
    for row in (
        (v, f"its {_before_last_noun(v)} before the last deal, on it the set network "
         f"{_refitted_on(n, epochs)} (endgame_net_{slug}/set_net.pt; `networks:{v}` "
         f"{shipped})", "heuristic",
         f"exit/endgame_net_{slug}/networks_v_heuristic"),
        (v, f"`networks:{v}` {shipped} (the same)", UNSEEN,
         f"exit/general/networks_{slug}_v_unseen_heuristic"))
) + tuple(
    (v, f"`networks:{v}` {shipped} (its {_before_last_noun(v)} before the last deal, on it "
     f"the set network {_refitted_on(n, epochs)})", SHIPPED_SEARCH,
     f"exit/general/networks_{_refit_slug(v, n, epochs)}_v_search")
    # the refitted last deals against the shipped search (forty-second to forty-fifth sessions)
    for v, n, epochs, shipped in REFITS if (v, n, epochs) in SEARCHED_REFITS
) + tuple(
    # the twenty-ninth session's students (``experiments.distill_net``): an MLP fitted to the
    # before-last network's values, in its place; the last deal's set network unchanged
    (preset, f"before the last deal an MLP student ({width} wide) of the set network, "
     f"fitted to its values (distill_net_{preset}/student_{width}.pt){note}", opponent,
     f"exit/distill_net_{preset}/{folder}")
    for preset, width, note, opponent, folder in (
        ("casino", 512, "", "heuristic", "student_v_heuristic"),
        ("casino", 256, " (`networks:casino` since the twenty-ninth session)", "heuristic",
         "student_256_v_heuristic"),
        ("casino", 256, "", UNSEEN, "student_256_v_unseen_heuristic"),
        ("royal", 256, " (`networks:royal` since the twenty-ninth session)", "heuristic",
         "student_256_v_heuristic"),
        ("dominican", 256, " (`networks:dominican` since the twenty-ninth session)",
         "heuristic", "student_256_v_heuristic"),
        # the thirtieth session's: spade's student, royal's against another tuning
        ("spade", 256, " (`networks:spade` from the thirtieth to the thirty-seventh "
         "session)", "heuristic",
         "student_256_v_heuristic"),
        ("royal", 256, "", UNSEEN, "student_256_v_unseen_heuristic"),
        # the thirty-first session's: casino's student against the shipped search, wippen's
        ("casino", 256, "", SHIPPED_SEARCH, "student_256_v_search"),
        ("wippen", 256, " (`networks:wippen` since the thirty-first session)", "heuristic",
         "student_256_v_heuristic"),
        # the thirty-second session's: royal's student against the shipped search
        ("royal", 256, "", SHIPPED_SEARCH, "student_256_v_search"),
        # the thirty-third session's: swedish's and tuxedo's
        ("swedish", 256, " (`networks:swedish` since the thirty-third session)", "heuristic",
         "student_256_v_heuristic"),
        ("tuxedo", 256, " (`networks:tuxedo` from the thirty-third to the forty-fifth "
         "session)", "heuristic",
         "student_256_v_heuristic"),
        # the thirty-fourth session's: hungarian's
        ("hungarian", 256, " (`networks:hungarian` in the thirty-fourth and thirty-fifth "
         "sessions)",
         "heuristic", "student_256_v_heuristic"),
        # the thirty-fifth session's: finnish's
        ("finnish", 256, " (`networks:finnish` since the thirty-fifth session)",
         "heuristic", "student_256_v_heuristic"),
        # the thirty-seventh session's: krypkasino's
        ("krypkasino", 256, " (`networks:krypkasino` from the thirty-seventh to the "
         "fifty-second session)",
         "heuristic", "student_256_v_heuristic")))


# Issue 18's generality check: the guided agent, the search on a boundary value (and the shipped
# search, for reference, on the same deals) against opponents no network was trained with or
# against.
GENERALITY_MATCHES = tuple(
    (preset, agent, opponent, f"exit/general/{who}_v_{slug}_{preset}")
    for preset in ("casino", "royal", "dominican")
    for opponent, slug in ((UNSEEN, "unseen_heuristic"),
                           ("`search:simulations=200`", "search200"),
                           ("`search:simulations=800`", "search800"))
    for agent, who in (("guided search + exact endgame (refit network)", "guided"),
                       ("search on a boundary value + exact endgame, 1,600 rollouts",
                        "tail1600"),
                       ("search (shipped)", "search"))) + (
    # the sixty-first session's: the shipped networks against the rules-complete heuristic
    # (``heuristic:complete=1``), where its play differs from the default's in single hands
    ("tuxedo", "`networks:tuxedo` (shipped)", COMPLETE,
     "exit/general/networks_tuxedo_v_complete_heuristic"),
    ("finnish", "`networks:finnish` (shipped)", COMPLETE,
     "exit/general/networks_finnish_v_complete_heuristic"),
    ("tuxedo", COMPLETE, "heuristic", "exit/general/complete_heuristic_v_heuristic_tuxedo"),
)


# What the guide network adds, head to head: the guided agent against the same search and solver
# without a guide, at the same rollout budget, on the same deals.
GUIDE_VALUE_MATCHES = (
    ("casino", "guided search + exact endgame (refit network), 100 rollouts",
     "`search:endgame=20000,simulations=100` (no guide)",
     "exit/guide_value/guided100_v_endgame100_casino"),
)

# What the boundary value adds in play: the search on it against the same search and solver
# without it, given the same time (240 full rollouts a decision), on the same deals.
TAIL_EQUAL_TIME_MATCHES = tuple(
    (preset, "search on a boundary value + exact endgame, 1,600 rollouts",
     "`search:endgame=20000,simulations=240` (no value, about the same time)",
     f"exit/tail1600_endgame_v_endgame240_{preset}")
    for preset in ("casino", "royal", "dominican"))


def match_table(matches: tuple, opponent: str | None, root: str = "../",
                label: str = "guide", ratio: bool = False) -> str:
    """One row per ``experiments.long_match`` summary in ``experiments/results/<folder>``
    (``matches``: (preset, label or None, folder) against ``opponent``, or with ``opponent``
    None (preset, label, opponent, folder)): hands won and points a hand with 95% intervals,
    each side's thinking seconds a hand (``ratio``: and the agent's thinking time over the
    opponent's, with its interval over deals); a ``label`` column when a match names one;
    links relative to ``root`` (the page's way up to the repository)."""
    from experiments.long_match import think_ratio_text

    per_row = opponent is None
    guides = any(m[1] is not None for m in matches)
    against = "opponent" if per_row else opponent
    cols = ["preset"] + ([label] if guides else []) + (["opponent"] if per_row else []) + [
        "hands", f"won v {against} [95% CI]", "points/hand [95% CI]",
        f"thinking s/hand (agent, {against})"] + (
        [f"agent's time / {against}'s [95% CI]"] if ratio else []) + ["results"]
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for m in matches:
        preset, guide, folder = m[0], m[1], m[-1]
        path = RESULTS / folder / "summary.json"
        if not path.exists():
            continue
        r = json.loads(path.read_text())
        t = r["think_seconds_per_hand"]
        cells = [preset] + ([guide or "–"] if guides else []) + ([m[2]] if per_row else []) + [
            f"{r['hands']:,}",
            f"{100 * r['win_rate']:.1f}% [{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]",
            f"{r['diff_per_hand']:+.2f} [{r['diff_lo']:+.2f}, {r['diff_hi']:+.2f}]",
            f"{t[0]:.2f}, {t[1]:.2f}"] + ([think_ratio_text(r)] if ratio else []) + [
            f"[summary]({root}experiments/results/{folder}/summary.md)"]
        out.append("| " + " | ".join(cells) + " |")
    if len(out) == 2:
        return "_No match yet._"
    return "\n".join(out)


# The boundary-value matches compared deal by deal with the other agents on the same deals
# (experiments.paired): (preset, the other match's folder, its label).
PAIRED_TAIL = tuple(
    (preset, f"exit/tail1600_endgame_v_search_{preset}", other, "search", label)
    for preset, other, label in (
        ("casino", "exit/guided_endgame_v_search_casino", "guide + solver, 400 rollouts"),
        ("casino", "exit/guided380_endgame_v_search_casino", "guide + solver, 380 rollouts"),
        ("royal", "exit/endgame_v_search_royal", "solver alone, 400 rollouts"),
        ("royal", "exit/guided380_endgame_v_search_royal", "guide + solver, 380 rollouts"),
        ("dominican", "exit/guided_endgame_v_search_dominican",
         "guide + solver, 400 rollouts"))) + tuple(
    ("casino", f"exit/general/tail1600_v_{slug}_casino", f"exit/general/{who}_v_{slug}_casino",
     opponent, label)
    for slug, opponent in (("unseen_heuristic", "`heuristic:threat=0.3,residue=0.5`"),
                           ("search200", "`search:simulations=200`"),
                           ("search800", "`search:simulations=800`"))
    for who, label in (("search", "search (shipped)"),
                       ("guided", "guide + solver, 400 rollouts")))


def paired_tail_table() -> str:
    """Each boundary-value match against another agent's match on the deals both played."""
    from experiments.paired import compare

    out = ["| preset | opponent | compared with | deals | won v opponent: value, other | "
           "hands won difference, % points [95% CI] | points/hand difference [95% CI] |",
           "|---|---|---|---|---|---|---|"]
    for preset, mine, other, opponent, label in PAIRED_TAIL:
        a = RESULTS / mine
        b = RESULTS / other
        if not (a / "chunks.jsonl").exists() or not (b / "chunks.jsonl").exists():
            continue
        try:
            r = compare(a, b)
        except ValueError:  # no deal in common yet
            continue
        out.append(f"| {preset} | {opponent} | {label} | {r['deals']:,} | {100 * r['a_won']:.1f}%, "
                   f"{100 * r['b_won']:.1f}% | {100 * r['diff_won']:+.1f} "
                   f"[{100 * r['diff_won_lo']:+.1f}, {100 * r['diff_won_hi']:+.1f}] | "
                   f"{r['diff_points']:+.2f} [{r['diff_points_lo']:+.2f}, "
                   f"{r['diff_points_hi']:+.2f}] |")
    return "\n".join(out) if len(out) > 2 else "_No match yet._"


def tail_learning_table() -> str:
    """The boundary value's learning curves (``experiments.tail_value curve``): per preset and
    rollout budget, each network's held-out error and the points its search loses."""
    out = ["| preset | rollouts | training boundaries (CPU min) | held-out squared error | "
           "points lost a decision [95% CI] | minus the last network's, paired [95% CI] | "
           "curve |", "|---|---|---|---|---|---|---|"]
    for preset in ("casino", "royal", "dominican"):
        for folder in ("learning", "learning1600"):
            rel = f"exit/tail_value_{preset}/{folder}"
            rows = _rows(RESULTS / rel / "learning.csv")
            for i, r in enumerate(rows):
                link = f"[png](../experiments/results/{rel}/learning.png)"
                vs = "– (the last network)" if i == len(rows) - 1 else (
                    f"{float(r['vs_most']):+.3f} [{float(r['vs_most_lo']):+.3f}, "
                    f"{float(r['vs_most_hi']):+.3f}]")
                out.append(
                    f"| {preset} | {r['agent'].rsplit(', ', 1)[-1].split()[0]} | "
                    f"{int(r['train_boundaries']):,} ({float(r['minutes']):.1f}) | "
                    f"{float(r['held_out_mse']):.2f} | {float(r['points_lost']):.3f} "
                    f"[{float(r['lo']):.3f}, {float(r['hi']):.3f}] | {vs} | {link} |")
    return "\n".join(out) if len(out) > 2 else "_No curve yet._"


def tail_play_curve_table() -> str:
    """The boundary value's learning curve in play (``experiments.tail_curve``): per preset,
    each network's hands won against the fixed opponent, paired with the most-data network."""
    out = ["| preset | training boundaries (CPU min) | held-out squared error | opponent | "
           "hands | won [95% CI] | points/hand [95% CI] | minus the last network's hands won, "
           "paired [95% CI] | curve |", "|---|---|---|---|---|---|---|---|---|"]
    for preset in ("casino", "royal", "dominican"):
        rel = f"exit/tail_value_{preset}/play_curve"
        rows = _rows(RESULTS / rel / "play_curve.csv")
        for i, r in enumerate(rows):
            vs = "– (the last network)" if i == len(rows) - 1 else (
                f"{100 * float(r['vs_most']):+.1f} [{100 * float(r['vs_most_lo']):+.1f}, "
                f"{100 * float(r['vs_most_hi']):+.1f}]")
            out.append(
                f"| {preset} | {int(r['train_boundaries']):,} ({float(r['minutes']):.1f}) | "
                f"{float(r['held_out_mse']):.2f} | `{r['agent'].split(' v ', 1)[1]}` | "
                f"{int(r['hands']):,} | {_pct(r['win_rate'])} [{_pct(r['lo'])[:-1]}, "
                f"{_pct(r['hi'])[:-1]}] | {float(r['diff_per_hand']):+.2f} "
                f"[{float(r['diff_lo']):+.2f}, {float(r['diff_hi']):+.2f}] | {vs} | "
                f"[png](../experiments/results/{rel}/play_curve.png) |")
    return "\n".join(out) if len(out) > 2 else "_No curve yet._"


def endgame_match_table(root: str = "../", matches: tuple = ENDGAME_MATCHES) -> str:
    """``search:endgame`` (alone, guided by a network's prior, or on a learned boundary
    value) against the search agent."""
    return match_table(matches, "search", root, label="network", ratio=True)


# Issue 18's network-alone target, preset by preset: the shipped ``networks:PRESET`` against the
# heuristic (5,000 hands, seed 21), against another tuning of it, and against the shipped
# search where that was played: (preset, v heuristic, v the other tuning, v search or None),
# folders under exit/; a refitted last deal's from its slug (``REFITS``)
NETWORK_TARGETS = tuple(
    (v, h if h else f"endgame_net_{_refit_slug(v)}/networks_v_heuristic",
     u if u else f"general/networks_{_refit_slug(v)}_v_unseen_heuristic", s)
    for v, h, u, s in (
        ("casino", "distill_net_casino/student_256_v_heuristic",
         "distill_net_casino/student_256_v_unseen_heuristic",
         "distill_net_casino/student_256_v_search"),
        ("royal", None, None, f"general/networks_{_refit_slug('royal')}_v_search"),
        ("dominican", None, None, f"general/networks_{_refit_slug('dominican')}_v_search"),
        ("spade", "distill_net_spade_60/student_256_v_heuristic",
         "general/networks_spade_60_v_unseen_heuristic", None),
        ("wippen", None, None, None),
        ("swedish", "distill_net_swedish/student_256_v_heuristic",
         "general/networks_swedish_v_unseen_heuristic", None),
        ("tuxedo", None, None, None),
        ("hungarian", None, None, None),
        ("finnish", "distill_net_finnish/student_256_v_heuristic",
         "general/networks_finnish_v_unseen_heuristic", None),
        ("krypkasino", None, None, None),
        ("swazi", "distill_net_swazi_10_last_deal/student_256_v_heuristic",
         "general/networks_swazi_last_deal_v_unseen_heuristic", None)))


def network_targets_table(root: str = "") -> str:
    """Issue 18's network-alone target, one row per 2-player preset: ``networks:PRESET``'s hands
    won against the heuristic, how far from 55% (by the point estimate), against another
    tuning and against the search; links relative to ``root``."""
    def won(folder: str | None) -> str:
        if folder is None:
            return "–"
        r = json.loads((RESULTS / "exit" / folder / "summary.json").read_text())
        return (f"[{100 * r['win_rate']:.1f}% [{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]]"
                f"({root}experiments/results/exit/{folder}/summary.md)")

    out = ["| preset | v heuristic (5,000 hands) [95% CI] | 55% (point estimate) | "
           "v another tuning (unseen) | v search (400 rollouts) |", "|---|---|---|---|---|"]
    met, above, short = [], [], []
    for preset, heuristic, unseen, search in NETWORK_TARGETS:
        r = json.loads((RESULTS / "exit" / heuristic / "summary.json").read_text())
        if r["win_rate"] >= 0.55:
            met.append(preset)
            above += [preset] if r["lo"] > 0.55 else []
        else:
            short.append(f"{preset} by {100 * (0.55 - r['win_rate']):.1f}")
        gap = "met" if preset in met else f"{100 * (0.55 - r['win_rate']):.1f} short"
        out.append(f"| `networks:{preset}` | {won(heuristic)} | {gap} | {won(unseen)} | "
                   f"{won(search)} |")
    out.append(f"\n{len(met)} of {len(NETWORK_TARGETS)} presets reach 55% by the point "
               f"estimate, {len(above)} of them with the whole interval above it "
               f"({', '.join(above) or 'none'})" + (f"; short: {', '.join(short)}." if short
                                                      else "."))
    return "\n".join(out)


def heuristic_endgame_table() -> str:
    """``heuristic:endgame=20000`` against the heuristic (docs/expert_iteration.md)."""
    return match_table(HEURISTIC_ENDGAME_MATCHES, "heuristic", label="last deal played by")


def network_alone_table() -> str:
    """The cloned policy, alone and with a learned last deal, against the heuristic."""
    return match_table(NETWORK_ALONE_MATCHES, None, label="agent (networks only)")


def generality_table() -> str:
    """The guided agent and the shipped search against opponents nobody trained with."""
    return match_table(GENERALITY_MATCHES, None, label="agent")


def guide_value_table() -> str:
    """The guided agent against the unguided one at one budget (docs/expert_iteration.md)."""
    return match_table(GUIDE_VALUE_MATCHES, None, label="agent", ratio=True)


def tail_equal_time_table() -> str:
    """The search on a boundary value against the search and solver without it, at equal time."""
    return match_table(TAIL_EQUAL_TIME_MATCHES, None, label="agent", ratio=True)


def endgame_net_table() -> str:
    """experiments.endgame_net fits (experiments/results/exit/endgame_net_casino/fits.csv)."""
    rows = _rows(RESULTS / "exit" / "endgame_net_casino" / "fits.csv")
    if not rows:
        return "_No fit yet._"
    out = ["| decisions (afterstates) | tree decisions | loss | other settings | heuristic lost "
           "| network lost (held out) | network lost (training decisions) | fit min |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        other = ", ".join(
            [f"dropout {r['dropout']}"] * (float(r.get("dropout") or 0) > 0)
            + [f"weight decay {r['weight_decay']}"] * (float(r.get("weight_decay") or 0) > 0)
            + ["rank counts"] * (r.get("ranks") == "True") + [f"{r['epochs']} epochs"])
        out.append(f"| {int(r['decisions']):,} ({int(r['afterstates']):,}) "
                   f"| {int(r.get('extra_decisions') or 0):,} | {r['loss']} | {other} "
                   f"| {float(r['heuristic_lost']):.3f} | {float(r['net_lost']):.3f} "
                   f"| {float(r['net_train_lost']):.3f} | {r['fit_minutes']} |")
    return "\n".join(out)


def speed_table() -> str:
    """Environment speed against PettingZoo references (experiments/results/bench_env.csv):
    the references one row each, then one row per preset with both action modes."""
    rows = _rows(RESULTS / "bench_env.csv")
    if not rows:
        return "_No benchmark yet: run `python -m experiments.bench --out experiments/results`._"
    out = ["| env (wrapped `env()`, random masked play) | agent-steps/s | × connect_four_v3 |",
           "|---|---|---|"]
    modes: dict[str, dict[str, dict]] = {}
    for r in rows:
        name, _, mode = r["env"].rpartition(" ")
        if mode in ("compose", "enumerate"):
            modes.setdefault(name, {})[mode] = r
        else:
            out.append(f"| {r['env']} | {int(float(r['steps_per_s'])):,} | "
                       f"{r['vs_connect_four']} |")
    for name, got in modes.items():
        parts = [(m, got[m]) for m in ("compose", "enumerate") if m in got]
        out.append(f"| {name} " + " / ".join(m for m, _ in parts) + " | "
                   + " / ".join(f"{int(float(r['steps_per_s'])):,}" for _, r in parts) + " | "
                   + " / ".join(r["vs_connect_four"] for _, r in parts) + " |")
    return "\n".join(out)


BLOCKS = {
    "README.md": {"variants": variant_table, "ladder": ladder_table,
                  "baselines": baselines_table, "speed": speed_table,
                  "beyond_search": lambda: endgame_match_table("", README_ENDGAME_MATCHES),
                  "network_targets": network_targets_table},
    "docs/environment.md": {"layout": layout_table, "compact_layout": compact_layout_table,
                            "last_capturer": last_capturer_table, "sizes": sizes},
    "docs/rl_baselines.md": {"scratch_sums": scratch_sums_table,
                             "scratch_summary": scratch_summary_table},
    "docs/expert_iteration.md": {"endgame_match": endgame_match_table,
                                 "heuristic_endgame": heuristic_endgame_table,
                                 "network_alone": network_alone_table,
                                 "endgame_net": endgame_net_table,
                                 "generality": generality_table,
                                 "guide_value": guide_value_table,
                                 "paired_tail": paired_tail_table,
                                 "tail_learning": tail_learning_table,
                                 "tail_equal_time": tail_equal_time_table,
                                 "tail_play_curve": tail_play_curve_table},
}


def render(text: str, blocks: dict) -> str:
    for name, make in blocks.items():
        pattern = re.compile(rf"(<!-- {name} -->\n).*?(<!-- /{name} -->)", re.S)
        if not pattern.search(text):
            raise ValueError(f"block {name!r} not found")
        text = pattern.sub(lambda m, make=make: m.group(1) + make() + "\n" + m.group(2), text)
    return text


def main() -> int:
    """Rewrite the stale generated blocks in place; print each file changed or up to date."""
    for rel, blocks in BLOCKS.items():
        path = ROOT / rel
        text = path.read_text()
        new = render(text, blocks)
        if new != text:
            path.write_text(new)
            print(f"updated {path}")
        else:
            print(f"{path} is up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
