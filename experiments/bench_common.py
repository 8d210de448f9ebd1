"""What experiments.bench and experiments.bench_train share, so that neither imports the other
(bench.py runs bench_train's measurements; bench_train needs only these)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

# Where the benchmarks write unless told otherwise (git-ignored): the committed results under
# experiments/results are written only with an explicit --out.
DEFAULT_OUT = Path("runs/bench")


def require_references() -> None:
    """PettingZoo's classic references import pygame and rlcard, which PettingZoo itself does
    not install: fail at the start with the fix rather than deep inside an import."""
    missing = [m for m in ("pygame", "rlcard") if importlib.util.find_spec(m) is None]
    if missing:
        raise SystemExit(f"the PettingZoo reference environments need {' and '.join(missing)}: "
                         'pip install -e ".[bench]"')
