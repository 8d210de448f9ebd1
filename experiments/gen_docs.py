"""Regenerate the generated blocks of README.md and docs/environment.md.

Blocks sit between ``<!-- name -->`` and ``<!-- /name -->`` markers; tests/test_docs.py fails
when a block is stale. Run: ``python -m experiments.gen_docs``.
"""

from __future__ import annotations

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
        deck = "40 Rook cards" if d["deck"] == "rook" else "52 cards"
        target = d["switches"]["target"]["default"]
        rows.append(f"| `{name}` | {players} | {deck} | {d['special']} | {target} |")
    return "\n".join(rows)


def layout_table() -> str:
    return Layout(make_rules("casino", 2), True).markdown()


def sizes() -> str:
    return (f"compose: Discrete({N_COMPOSE_ACTIONS}); enumerate: Discrete(K), K = `max_moves` "
            f"(default 128), action_features K × {N_FEATURES}")


BLOCKS = {
    "README.md": {"variants": variant_table},
    "docs/environment.md": {"layout": layout_table, "sizes": sizes},
}


def render(text: str, blocks: dict) -> str:
    for name, make in blocks.items():
        pattern = re.compile(rf"(<!-- {name} -->\n).*?(<!-- /{name} -->)", re.S)
        if not pattern.search(text):
            raise ValueError(f"block {name!r} not found")
        text = pattern.sub(lambda m, make=make: m.group(1) + make() + "\n" + m.group(2), text)
    return text


def main() -> int:
    for rel, blocks in BLOCKS.items():
        path = ROOT / rel
        text = path.read_text()
        new = render(text, blocks)
        if new != text:
            path.write_text(new)
            print(f"updated {rel}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
