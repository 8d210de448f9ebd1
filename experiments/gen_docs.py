"""Regenerate the generated blocks of README.md and docs/environment.md.

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


def sizes() -> str:
    return (f"compose: Discrete({N_COMPOSE_ACTIONS}); enumerate: Discrete(K), K = `max_moves` "
            f"(default 128), action_features K × {N_FEATURES}")


RESULTS = ROOT / "experiments" / "results"
BASELINE_OPPONENTS = ("random", "greedy", "heuristic", "search")


def _rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open() as f:
        return list(csv.DictReader(f))


def _pct(x: str) -> str:
    return f"{100 * float(x):.1f}%"


# The ladder's runs, in table order: the first presets', then the rest of the family's
# (issue 20), each one `experiments.evaluate --ladder` run with its own --out.
LADDERS = ("ladder", "ladder_family", "ladder_kryp")


RUNGS = (("greedy", "random"), ("heuristic", "greedy"), ("search", "heuristic"))


def ladder_table() -> str:
    """The scripted ladder (summary.csv of each folder of ``LADDERS`` under
    experiments/results): one row per preset, one column per rung, games won by the stronger
    agent with its 95% interval (the points per hand are in each folder's summary.md)."""
    rows = [r for name in LADDERS for r in _rows(RESULTS / name / "summary.csv")]
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


def baselines_table() -> str:
    """The shipped baselines (MaskablePPO policies cloned from search, plus PPO steps if any):
    hands won against each opponent (eval_final.csv of experiments/results/train/<variant>),
    rows variants, columns opponents."""
    out = ["| variant | trained | " + " | ".join(f"vs {o}" for o in BASELINE_OPPONENTS) + " |",
           "|---|---|" + "---|" * len(BASELINE_OPPONENTS)]
    found = False
    for variant in list_variants():
        folder = RESULTS / "train" / variant
        rows = {r["opponent"]: r for r in _rows(folder / "eval_final.csv")}
        if not rows:
            continue
        found = True
        log = json.loads((folder / "train_log.json").read_text())
        parts = []
        if log.get("bc"):
            teacher = json.loads((folder / "config.json").read_text())["bc"]["teacher"]
            parts.append(f"cloned {log['bc']['decisions'] / 1e3:.0f}k {teacher} decisions")
        if log["ppo"]["timesteps"] or not parts:
            parts.append(f"{log['ppo']['timesteps'] / 1e3:.0f}k PPO steps")
        trained = f"{log['train_minutes']:.0f} min: " + " + ".join(parts)
        cells = []
        for o in BASELINE_OPPONENTS:
            r = rows.get(o)
            cells.append("–" if r is None else f"{_pct(r['win_rate'])} ± "
                         f"{50 * (float(r['paired_hi']) - float(r['paired_lo'])):.1f} "
                         f"({r['hands']})")
        out.append(f"| {variant} | {trained} | " + " | ".join(cells) + " |")
    if not found:
        return ("_No baselines yet: run `python -m experiments.train --config ... "
                "--out experiments/results/train/<variant>`._")
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
                  "baselines": baselines_table, "speed": speed_table},
    "docs/environment.md": {"layout": layout_table, "compact_layout": compact_layout_table,
                            "sizes": sizes},
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
