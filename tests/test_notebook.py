"""The quickstart notebook runs from top to bottom (nbclient) and shows what it promises: the
table picture, legal moves, the committed learned agents (issue 18: the cloned network and the
search on a learned boundary value) choosing legal moves and playing, a tiny MaskablePPO agent
that beats random play, measured against an untrained reference that is the random player
itself (uniform over moves), and a plot whose x labels stand apart (issue 16 item 11)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from casino_env.engine import legal_moves, new_game

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "experiments" / "notebooks" / "quickstart.ipynb"
OPEN = 'pip install -e ".[train,notebook]" && jupyter lab experiments/notebooks/quickstart.ipynb'

# Appended to the run (not to the notebook): the smallest gap between neighbouring x labels
# of the plot, in ems of their font (labels that touch or overlap read as one).
LABEL_GAP = """
fig.canvas.draw()
_labels = ax.get_xticklabels()
_boxes = [t.get_window_extent() for t in _labels]
_em = _labels[0].get_fontsize() * fig.dpi / 72
print("x label gap: %.2f em" % min((b.x0 - a.x1) / _em for a, b in zip(_boxes, _boxes[1:])))
"""


def _text(nb) -> str:
    out = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            out.append(o.get("text", ""))
            out.append(str(o.get("data", {}).get("text/plain", "")))
    return "\n".join(out)


def test_quickstart_notebook_runs(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:  # run from a clean slate, not from the committed outputs
        if cell.cell_type == "code":
            cell.outputs = []
    nb.cells.append(nbformat.v4.new_code_cell(LABEL_GAP))
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    text = _text(nb)
    html = [o["data"]["text/html"] for c in nb.cells for o in c.get("outputs", [])
            if "text/html" in o.get("data", {})]
    assert html and "<svg" in html[0]  # the environment drew its table
    assert "legal moves: [" in text and "trails" in text
    # The committed networks load by spec, pick a legal move and play 4 duplicate deals.
    state = new_game("casino", players=2, seed=3)
    legal = {str(m) for m in legal_moves(state)}
    for name in ("cloned network", "search on a learned value"):
        (move,) = re.findall(rf"^{name} plays: (.+)$", text, re.M)
        assert move in legal
        (hands,) = re.findall(rf"^{name} v heuristic: (\d+) hands, won [\d.]+%", text, re.M)
        assert hands == "8"
    rates = dict(re.findall(r"(random moves|MaskablePPO): ([\d.]+)%", text))
    assert set(rates) == {"random moves", "MaskablePPO"}
    # The reference is the opponent's own policy: about half the hands (150, not drawn).
    assert 38 <= float(rates["random moves"]) <= 62
    assert float(rates["MaskablePPO"]) > float(rates["random moves"]) + 20
    assert any("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))
    (gap,) = re.findall(r"x label gap: (-?[\d.]+) em", text)
    assert float(gap) >= 1.0, f"the plot's x labels nearly touch ({gap} em apart)"


def test_the_notebook_says_how_to_open_it_and_the_extra_installs_jupyter():
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover (python 3.10)
        import tomli as tomllib

    first = nbformat.read(NOTEBOOK, as_version=4).cells[0].source
    assert OPEN in first
    assert OPEN in (ROOT / "README.md").read_text()
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert any(req.startswith("jupyterlab") for req in extras["notebook"])
