"""Issue 16 item 7: no command of experiments/ writes into tracked files by default. Every
default output is under runs/ (git-ignored); the committed results are written only with an
explicit --out; every command says where it wrote."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from experiments import bench, evaluate, soak

ROOT = Path(__file__).resolve().parents[1]
CONFIG = str(ROOT / "experiments" / "configs" / "casino.toml")


def git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


def ignored(path: Path) -> bool:
    """Whether git ignores ``path`` (relative to the repository; it need not exist)."""
    return git("check-ignore", "-q", str(path)).returncode == 0


def tracked_results() -> dict[str, str]:
    """The committed files under experiments/results with a hash of their content now."""
    files = git("ls-files", "experiments/results").stdout.split()
    return {f: hashlib.sha256((ROOT / f).read_bytes()).hexdigest() for f in files}


def test_default_outputs_are_git_ignored_folders_under_runs():
    pytest.importorskip("sb3_contrib")
    from experiments import bench_train, rllib_train, train

    defaults = {
        "bench": bench.parse_args([]).out,
        "bench --quick engine": bench.parse_args(["--quick", "engine"]).out,
        "bench_train": bench_train.parse_args([]).out,
        "evaluate": evaluate.out_dir(evaluate.parse_args(
            ["--variant", "royal", "--agents", "heuristic", "greedy"])),
        "evaluate --ladder": evaluate.out_dir(evaluate.parse_args(["--ladder"])),
        "rllib_train": rllib_train.default_out(rllib_train.parse_args([]).variant),
        "soak": soak.parse_args([]).out,
        "train": train.default_out("casino"),
    }
    assert defaults == {
        "bench": Path("runs/bench"), "bench --quick engine": Path("runs/bench"),
        "bench_train": Path("runs/bench_train/bench_fps"),
        "evaluate": Path("runs/evaluate/royal_heuristic_greedy"),
        "evaluate --ladder": Path("runs/evaluate/ladder"),
        "rllib_train": Path("runs/rllib/casino"), "soak": Path("runs/soak"),
        "train": Path("runs/train/casino")}
    for name, out in defaults.items():
        assert ignored(out / "results.csv"), f"{name} writes to {out}, which git does not ignore"
    # without --out: the defaults above; the committed results need an explicit --out
    assert rllib_train.parse_args([]).out is None
    assert train.parse_args(["--config", CONFIG]).out is None
    assert evaluate.out_dir(evaluate.parse_args(
        ["--ladder", "--out", "experiments/results/ladder"])) == Path("experiments/results/ladder")
    assert soak.parse_args(["--out", "experiments/results"]).out == Path("experiments/results")


def test_committed_results_are_not_ignored():
    """The other side: the shipped results stay visible to git (ignoring them would hide a
    stray write instead of preventing it)."""
    assert not ignored(Path("experiments/results/bench_engine.csv"))
    assert not ignored(Path("experiments/results/train/casino/model.zip"))


def test_bench_quick_engine_leaves_the_committed_results_alone(tmp_path, monkeypatch, capsys):
    """`python -m experiments.bench --quick engine` used to overwrite the committed
    bench_engine.csv/.md and bench_meta.json: it now writes runs/bench under the working
    directory and says so."""
    before = tracked_results()
    status = git("status", "--porcelain", "--untracked-files=all", "--", "experiments").stdout
    monkeypatch.chdir(tmp_path)
    assert bench.main(["--quick", "engine"]) == 0
    out = capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "runs" / "bench").iterdir()) == \
        ["bench_engine.csv", "bench_engine.md", "bench_meta.json"]
    assert "wrote runs/bench/bench_engine.csv and runs/bench/bench_engine.md" in out
    assert out.rstrip().endswith("results in runs/bench")
    assert tracked_results() == before
    assert git("status", "--porcelain", "--untracked-files=all", "--",
               "experiments").stdout == status


def test_evaluate_writes_under_runs_and_says_where(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert evaluate.main(["--agents", "greedy", "random", "--games", "2", "--mode", "hand",
                          "--quiet"]) == 0
    folder = tmp_path / "runs" / "evaluate" / "casino_greedy_random"
    assert sorted(p.name for p in folder.iterdir()) == \
        ["games.csv", "meta.json", "summary.csv", "summary.md", "summary.png"]
    assert "results in runs/evaluate/casino_greedy_random (games.csv" in capsys.readouterr().out


def test_soak_writes_under_runs_and_says_where(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert soak.main(["--hands", "2", "--variants", "casino", "--workers", "1"]) == 0
    assert sorted(p.name for p in (tmp_path / "runs" / "soak").iterdir()) == \
        ["soak.csv", "soak.json"]
    assert "results in runs/soak/soak.json and runs/soak/soak.csv" in capsys.readouterr().out


def test_bench_and_bench_train_import_one_way():
    """Issue 16 item 14: experiments.bench may use bench_train, never the other way round; the
    shared pieces live in experiments.bench_common."""
    import ast

    def imports(name: str) -> set[str]:
        tree = ast.parse((ROOT / "experiments" / f"{name}.py").read_text())
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
        return found

    assert "experiments.bench" not in imports("bench_train")
    assert "experiments.bench_common" in imports("bench_train")
    assert not {"experiments.bench", "experiments.bench_train"} & imports("bench_common")
    from experiments import bench_common

    assert bench.require_references is bench_common.require_references


def test_train_without_out_looks_under_runs_not_at_the_shipped_model(tmp_path, monkeypatch):
    """The shipped casino model is experiments/results/train/casino/model.zip; without --out,
    train (here its --evaluate-only path) reads and writes runs/train/casino instead."""
    pytest.importorskip("sb3_contrib")
    from experiments.train import main as train_main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit, match=r"no trained model \(model\.zip, train_log\.json\) "
                                         r"in runs/train/casino$"):
        train_main(["--config", CONFIG, "--evaluate-only"])
