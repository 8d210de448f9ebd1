"""One writer for a run's learning curve, shared by the training scripts: a CSV table of
rows and a PNG drawn from the same rows (a failed plot is reported, never fatal), and one
plot of curves over both of a run's clocks (environment steps and wall-clock minutes), used
by ``experiments.train`` for a run and by ``experiments.aggregate`` for runs over seeds."""

from __future__ import annotations

import csv
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# One colour per evaluation opponent, the same in every plot of a run or an aggregate.
COLORS = {"random": "#55a868", "greedy": "#4c72b0", "heuristic": "#c44e52", "search": "#8172b2"}


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


@dataclass
class Metric:
    """One row of panels of ``plot_steps_and_minutes``: the estimate ``y`` with its interval
    ``lo``..``hi`` (keys of the rows), a y label and horizontal reference lines."""

    y: str
    lo: str
    hi: str
    label: str
    refs: Sequence[tuple[float, str]] = field(default_factory=tuple)  # (y, line style)
    ylim: tuple[float, float] | None = None


def plot_steps_and_minutes(rows: list[dict], path: Path, metrics: Sequence[Metric],
                           group: str = "opponent", title: str = "",
                           minutes_label: str = "wall-clock minutes",
                           steps_label: str = "environment steps") -> None:
    """One row of two panels per metric: the metric against environment steps
    (``timesteps``) on the left and against wall-clock ``minutes`` on the right, one line
    per value of ``group`` (the opponent) with its interval shaded. A group with a single
    point (e.g. a cloning-only run) is drawn as a point with its error bar."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from experiments.stats import error_bars

    fig, axes = plt.subplots(len(metrics), 2, figsize=(11, 0.4 + 3.8 * len(metrics)),
                             squeeze=False)
    groups = list(dict.fromkeys(r[group] for r in rows))
    for m, row_axes in zip(metrics, axes):
        for col, xkey in enumerate(("timesteps", "minutes")):
            ax = row_axes[col]
            for g in groups:
                rs = sorted((r for r in rows if r[group] == g), key=lambda r: r[xkey])
                x = [r[xkey] for r in rs]
                ys = [r[m.y] for r in rs]
                c = COLORS.get(str(g))
                if len(rs) == 1:
                    ax.errorbar(x, ys, yerr=error_bars(ys, [rs[0][m.lo]], [rs[0][m.hi]]),
                                fmt="o", color=c, label=str(g), ms=4, capsize=4)
                else:
                    ax.plot(x, ys, "o-", color=c, label=str(g), ms=3)
                    ax.fill_between(x, [r[m.lo] for r in rs], [r[m.hi] for r in rs], color=c,
                                    alpha=0.15)
            for y0, style in m.refs:
                ax.axhline(y0, color="grey", lw=1, ls=style)
            if m.ylim:
                ax.set_ylim(*m.ylim)
            xs = [r[xkey] for r in rows]
            if xs and max(xs) == min(xs):  # a single evaluation: give it some room
                span = max(1.0, abs(xs[0]) * 0.1)
                ax.set_xlim(xs[0] - span, xs[0] + span)
            ax.set_xlabel(steps_label if xkey == "timesteps" else minutes_label)
            ax.set_ylabel(m.label)
            ax.ticklabel_format(axis="x", style="plain", useOffset=False)
            ax.grid(alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.97) if title else None)
    fig.savefig(path, dpi=110)
    plt.close(fig)
