"""README and docs stay true: set-up commands, CI wiring, runnable examples, generated tables."""

from __future__ import annotations

import re
from pathlib import Path

from experiments.gen_docs import BLOCKS, render

ROOT = Path(__file__).resolve().parent.parent


def code_blocks(path: Path, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", path.read_text(), re.S)


def test_readme_starts_with_the_two_setup_commands():
    text = (ROOT / "README.md").read_text()
    first = text.split("```")[1]
    assert first.startswith("bash\n")
    commands = [line for line in first.splitlines()[1:] if line.strip()]
    assert len(commands) == 2
    assert "casino-env demo" in commands[0] and "pip install" in commands[0]
    assert "pytest" in commands[1]
    # nothing but the title comes before the commands
    assert text.index("```bash") < text.index("\n## ")


def test_ci_runs_the_readme_test_command():
    test_command = code_blocks(ROOT / "README.md", "bash")[0].strip().splitlines()[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_command in ci.splitlines()
    assert "torch==2.13.0" in ci  # the CPU build from local disk, installed first
    assert ci.index("torch==2.13.0") < ci.index('-e ".[train,dev,rllib,openspiel,stats]"')


def test_generated_blocks_are_up_to_date():
    """Run `python -m experiments.gen_docs` when this fails."""
    for rel, blocks in BLOCKS.items():
        text = (ROOT / rel).read_text()
        assert render(text, blocks) == text, f"{rel} is stale"


def test_python_examples_run():
    for rel in ("README.md", "docs/environment.md"):
        for code in code_blocks(ROOT / rel, "python"):
            exec(compile(code, rel, "exec"), {})


def test_readme_random_loop_is_ten_lines():
    loop = code_blocks(ROOT / "README.md", "python")[0]
    assert len([line for line in loop.splitlines() if line.strip()]) <= 10


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def local_links(path: Path) -> list[str]:
    """The relative links of a markdown file (not web addresses)."""
    return [t for t in LINK.findall(path.read_text()) if not re.match(r"[a-z]+:", t)]


def anchors(path: Path) -> set[str]:
    """GitHub's anchors of the headings of a markdown file."""
    out = set()
    for heading in re.findall(r"^#+ (.+)$", path.read_text(), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        out.add(slug)
    return out


def test_links_of_the_readme_and_the_docs_resolve():
    """Every relative link of README.md and docs/*.md names a file or folder of the repository
    (relative to the page: docs/ pages link ../experiments/...), and a #anchor a heading."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in local_links(page):
            rel, _, anchor = target.partition("#")
            dest = (page.parent / rel).resolve() if rel else page
            if not dest.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, broken


def test_readme_is_for_users_and_links_the_experiment_record():
    """Issue 16 item 13: the history of the baselines lives in docs/baselines.md; the README
    keeps the tables and names the shipped models for what they are (cloned, no PPO)."""
    readme = (ROOT / "README.md").read_text()
    headings = re.findall(r"^## (.+)$", readme, re.M)
    assert headings == ["Variants", "Quickstart", "Play, watch, record",
                        "Gymnasium and Stable-Baselines3", "Ray RLlib", "OpenSpiel", "Agents",
                        "Cloned baselines", "Speed", "Reproducing the results",
                        "Documentation"]
    assert "Trained baselines" not in readme
    for generated in ("variants", "ladder", "baselines", "speed", "beyond_search",
                      "network_targets"):
        assert f"<!-- {generated} -->" in readme
    for history in ("What was tried", "DAgger", "score_temperature", "41.4%",
                    "hand_bonus", "texas_holdem reference moves a lot"):
        assert history not in readme, history
    record = (ROOT / "docs" / "baselines.md").read_text()
    for history in ("DAgger", "score_temperature", "41.4%", "hand_bonus", "Tuxedo"):
        assert history in record, history
    assert "(docs/baselines.md)" in readme and "(docs/benchmarks.md)" in readme
    assert len(readme.splitlines()) < 325  # 300 until the network-alone table (issue 18)


def test_readme_says_how_the_committed_results_were_written():
    """Issue 16 item 7: commands write to runs/ unless given --out; the README gives the --out
    of each committed result."""
    readme = (ROOT / "README.md").read_text()
    for command in ("experiments.evaluate --ladder", "experiments.train --config",
                    "experiments.bench", "experiments.soak"):
        line = next(x for x in readme.splitlines() if x.startswith(f"python -m {command}"))
        assert "--out experiments/results" in line, line
    assert "runs/<command>/" in readme


def test_threshold_cells_name_the_first_point_at_or_above_the_target():
    """gen_docs' table-sums thresholds: the first evaluation point at or above the target,
    the other opponent's rows ignored; else the best rate seen."""
    from experiments.gen_docs import _first_reached

    curve = [{"opponent": "greedy", "timesteps": "150000", "minutes": "4.0", "win_rate": "0.9"},
             {"opponent": "heuristic", "timesteps": "150000", "minutes": "4.0",
              "win_rate": "0.41"},
             {"opponent": "heuristic", "timesteps": "300000", "minutes": "8.25",
              "win_rate": "0.5"},
             {"opponent": "heuristic", "timesteps": "450000", "minutes": "12.0",
              "win_rate": "0.6"}]
    assert _first_reached(curve, "heuristic", 0.5) == "300k / 8.2 min"
    assert _first_reached(curve, "heuristic", 0.7) == "not reached (best 60.0%)"
    assert _first_reached(curve, "greedy", 0.95) == "not reached (best 90.0%)"


def test_aggregate_threshold_cells():
    from experiments.gen_docs import _threshold_cell

    assert _threshold_cell({"timesteps": 253952, "minutes": 6.47, "best_iqm": 0.95}) == \
        "254k / 6.5 min (IQM)"
    assert _threshold_cell({"timesteps": None, "minutes": None, "best_iqm": 0.4123}) == \
        "not reached (best IQM 41.2%)"


def test_match_table_rows_name_their_own_opponent(tmp_path, monkeypatch):
    """gen_docs' match table: with no shared opponent each row names its own, rows whose
    match has not run yet are left out, and no row at all says so."""
    import json

    import experiments.gen_docs as gd

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "summary.json").write_text(json.dumps({
        "hands": 1200, "win_rate": 0.5625, "lo": 0.54, "hi": 0.585, "diff_per_hand": 0.5,
        "diff_lo": 0.25, "diff_hi": 0.75, "think_seconds_per_hand": [3.0, 0.05]}))
    monkeypatch.setattr(gd, "RESULTS", tmp_path)
    rows = (("casino", "guided", "`heuristic`", "a"), ("casino", "search", "`greedy`", "b"))
    lines = gd.match_table(rows, None, label="agent").splitlines()
    assert lines[0] == ("| preset | agent | opponent | hands | won v opponent [95% CI] | "
                        "points/hand [95% CI] | thinking s/hand (agent, opponent) | results |")
    assert lines[2] == ("| casino | guided | `heuristic` | 1,200 | 56.2% [54.0, 58.5] | "
                        "+0.50 [+0.25, +0.75] | 3.00, 0.05 | "
                        "[summary](../experiments/results/a/summary.md) |")
    assert len(lines) == 3
    assert gd.match_table(rows[1:], None) == "_No match yet._"
    # with the thinking-time ratio: "–" where the summary predates it
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "summary.json").write_text(json.dumps({
        "hands": 1200, "win_rate": 0.5625, "lo": 0.54, "hi": 0.585, "diff_per_hand": 0.5,
        "diff_lo": 0.25, "diff_hi": 0.75, "think_seconds_per_hand": [3.0, 2.9],
        "think_ratio": [1.0345, 1.01, 1.06]}))
    lines = gd.match_table((("casino", None, "a"), ("casino", None, "b")), "search",
                           ratio=True).splitlines()
    assert lines[0].endswith("| thinking s/hand (agent, search) | agent's time / search's "
                             "[95% CI] | results |")
    assert "| 3.00, 0.05 | – |" in lines[2] and "| 3.00, 2.90 | 1.034 [1.010, 1.060] |" in lines[3]


def test_protocol_cells_against_a_drifted_opponent_are_marked(tmp_path, monkeypatch):
    """The README's protocol table marks with † a cell whose opponent played differently
    from when the protocol was fixed (the run's results.json ``drift``), and says so under
    the table; a run without drift is left unmarked (forty-fifth session: tuxedo's search
    rolls out with the fast simulator since v1 was fixed)."""
    import json

    import experiments.gen_docs as gd

    head = "protocol,protocol_hash,preset,opponent,hands_won,hands_won_lo,hands_won_hi\n"
    for name, drift in (("new", ["tuxedo / search:simulations=200: plays differently"]),
                        ("old", [])):
        folder = tmp_path / "protocol" / name
        folder.mkdir(parents=True)
        (folder / "results.csv").write_text(
            head + "v1,sha256:x,tuxedo,heuristic,0.535,0.517,0.553\n"
            "v1,sha256:x,tuxedo,search:simulations=200,0.43,0.369,0.491\n")
        (folder / "results.json").write_text(json.dumps({"drift": drift}))
    monkeypatch.setattr(gd, "RESULTS", tmp_path)
    monkeypatch.setattr(gd, "PROTOCOL_RUNS", (("new", None, "A"), ("old", None, "B")))
    lines = gd.baselines_table().splitlines()
    assert lines[2] == "| A |  | 53.5% [51.7, 55.3] | 43.0% [36.9, 49.1] † |"
    assert lines[3] == "| B |  | 53.5% [51.7, 55.3] | 43.0% [36.9, 49.1] |"
    assert "†: not comparable with v1" in lines[-1]
    assert gd._drifted(tmp_path / "protocol" / "missing.json") == set()
    monkeypatch.setattr(gd, "PROTOCOL_RUNS", (("old", None, "B"),))
    assert "†" not in gd.baselines_table()


def test_network_targets_rows_are_the_shipped_agents_on_the_targets_hands():
    """The README's network-alone table (issue 18) reads, for each 2-player preset, matches of
    the agent ``networks:PRESET`` ships today (its spec's files are ``SHIPPED``'s), on 5,000
    hands of seed 21, against the opponent its column names; a re-shipped preset whose folders
    were not updated fails here."""
    import json

    from agents.networks import ROOT as NETWORKS_ROOT
    from agents.networks import SHIPPED
    from experiments.gen_docs import NETWORK_TARGETS, RESULTS

    assert [row[0] for row in NETWORK_TARGETS] == list(SHIPPED)
    for preset, *folders in NETWORK_TARGETS:
        for folder, opponent in zip(folders, ("heuristic", "heuristic:threat=0.3,residue=0.5",
                                              "search")):
            if folder is None:
                continue
            match = json.loads((RESULTS / "exit" / folder / "match.json").read_text())
            summary = json.loads((RESULTS / "exit" / folder / "summary.json").read_text())
            spec, other = match["agents"]
            assert (match["variant"], match["seed"], other) == (preset, 21, opponent), folder
            assert summary["hands"] == 5000, folder
            name, _, options = spec.partition(",")
            assert name == f"networks:{preset}", folder
            given = dict(o.split("=", 1) for o in options.split(",") if o)
            assert set(given) <= {"midgame_net", "endgame_net"}, folder
            files = (given.get("midgame_net", SHIPPED[preset][0]),
                     given.get("endgame_net", SHIPPED[preset][1]))
            assert files == SHIPPED[preset], (folder, files)
            assert all((NETWORKS_ROOT / f).is_file() for f in files)
