"""One writer for a run's learning curve, shared by the training scripts: a CSV table of
rows and a PNG drawn from the same rows (a failed plot is reported, never fatal)."""

from __future__ import annotations

import csv
import sys
from collections.abc import Callable, Sequence
from pathlib import Path


def write_table(out: Path, name: str, fields: Sequence[str], rows: list[dict],
                plot: Callable[[list[dict], Path], None]) -> None:
    """``<name>.csv`` (floats to 5 significant digits) and ``<name>.png`` drawn by ``plot``."""
    out.mkdir(parents=True, exist_ok=True)
    with (out / f"{name}.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.5g}" if isinstance(v, float) else v) for k, v in r.items()})
    try:
        plot(rows, out / f"{name}.png")
    except Exception as exc:  # a plot (or a missing matplotlib) must never stop a run
        print(f"{name} plot failed: {exc}", file=sys.stderr)
