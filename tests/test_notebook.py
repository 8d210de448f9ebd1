"""The quickstart notebook runs from top to bottom (nbclient) and shows what it promises: the
table picture, legal moves, and a tiny MaskablePPO agent that beats random play."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("sb3_contrib")

NOTEBOOK = Path(__file__).resolve().parents[1] / "experiments" / "notebooks" / "quickstart.ipynb"


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
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    text = _text(nb)
    html = [o["data"]["text/html"] for c in nb.cells for o in c.get("outputs", [])
            if "text/html" in o.get("data", {})]
    assert html and "<svg" in html[0]  # the environment drew its table
    assert "legal moves: [" in text and "trails" in text
    rates = dict(re.findall(r"(untrained|MaskablePPO): ([\d.]+)%", text))
    assert set(rates) == {"untrained", "MaskablePPO"}
    assert float(rates["MaskablePPO"]) > float(rates["untrained"]) + 20
    assert any("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))
