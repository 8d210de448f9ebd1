"""Layers point one way (issue 16 item 14): casino_env.engine <- casino_env <- agents <-
experiments, with the CLI on top.

Imports are read from the source with ``ast`` (every import statement, inside functions and
``TYPE_CHECKING`` blocks too), relative ones resolved against their package:
- no module under casino_env/engine imports anything from casino_env outside the engine;
- no module under casino_env imports the ``agents`` or ``experiments`` packages;
- no module under agents imports ``experiments``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_name(path: Path) -> str:
    """``casino_env/engine/play.py`` -> ``casino_env.engine.play`` (packages: their name)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, name: str | None = None) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path`` (module ``name``, by default
    from its place in the repository); ``from X import a`` also lists ``X.a`` (``a`` may be a
    submodule)."""
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.append((node.lineno, mod))
            out.extend((node.lineno, f"{mod}.{a.name}") for a in node.names if a.name != "*")
    return out


def outside_engine(mod: str) -> bool:
    """A casino_env module that is not part of the engine."""
    return top(mod) == "casino_env" and not (mod == "casino_env.engine"
                                             or mod.startswith("casino_env.engine."))


def offenders(folder: str, bad) -> list[str]:
    """``file:line imports module`` for every import under ``folder`` for which ``bad``."""
    found = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for line, mod in imports(path):
            if bad(mod):
                found.append(f"{path.relative_to(ROOT)}:{line} imports {mod}")
    return sorted(set(found))


def top(mod: str) -> str:
    return mod.split(".")[0]


def test_import_parser_resolves_relative_imports(tmp_path):
    """The checker itself: the engine's old ``State._repr_html_`` import (``from ..picture``,
    inside a method) is found and resolved to casino_env.picture."""
    path = tmp_path / "state.py"
    path.write_text("import os\nfrom . import cards\nfrom .rules import Rules\n"
                    "class State:\n    def _repr_html_(self):\n"
                    "        from ..picture import state_svg\n        return state_svg(self)\n")
    found = imports(path, "casino_env.engine.state")
    assert found == [(1, "os"), (2, "casino_env.engine"), (2, "casino_env.engine.cards"),
                     (3, "casino_env.engine.rules"), (3, "casino_env.engine.rules.Rules"),
                     (6, "casino_env.picture"), (6, "casino_env.picture.state_svg")]
    assert [m for _, m in found if outside_engine(m)] == ["casino_env.picture",
                                                          "casino_env.picture.state_svg"]


def test_engine_imports_nothing_from_casino_env_outside_the_engine():
    """The engine knows nothing above it (State._repr_html_ no longer reaches up into
    casino_env/picture.py; casino_env attaches it)."""
    bad = offenders("casino_env/engine", outside_engine)
    assert not bad, "\n".join(bad)


def test_engine_imports_no_third_party_package():
    """The engine is pure Python: the standard library and itself only."""
    std = set(sys.stdlib_module_names) | {"__future__"}
    bad = offenders("casino_env/engine", lambda m: top(m) not in std | {"casino_env"})
    assert not bad, "\n".join(bad)


def test_env_layer_imports_neither_agents_nor_experiments():
    """The env layer takes any object with the Agent interface and resolves names through
    the registry (casino_env.players), never importing the agents package."""
    bad = offenders("casino_env", lambda m: top(m) in ("agents", "experiments"))
    assert not bad, "\n".join(bad)


def test_agents_do_not_import_experiments():
    bad = offenders("agents", lambda m: top(m) == "experiments")
    assert not bad, "\n".join(bad)


def test_state_shows_its_picture_in_jupyter_without_the_engine_importing_it():
    """Jupyter's picture of a State is attached by casino_env (which every import of the
    engine runs first); casino_env.picture is imported only when a state is shown."""
    code = ("import sys; from casino_env.engine import new_game; "
            "st = new_game('royal', 2, seed=1); "
            "assert 'casino_env.picture' not in sys.modules; "
            "assert st._repr_html_().startswith('<svg'); "
            "assert 'casino_env.picture' in sys.modules")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stderr
