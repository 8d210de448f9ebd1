"""Resumable training (issue 17 item 4): a run interrupted after a checkpoint (by an exception
or by SIGKILL) resumes with ``--resume`` to the same total steps, keeping its learning-curve
rows, self-play snapshots, optimizer state, clocks and TensorBoard log; checkpoints are whole
or absent (written to a temporary folder, then renamed) and only the last two are kept;
resuming a finished run, or a run with no checkpoint, says so.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import gymnasium  # noqa: F401  (before casino_env.single)
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from sb3_contrib import MaskablePPO  # noqa: E402

import experiments.train as train_mod  # noqa: E402
from experiments.train import (  # noqa: E402
    Checkpoint,
    RunStateError,
    latest_checkpoint,
    list_checkpoints,
    load_config,
    train,
)
from experiments.train import main as train_main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
STEPS = 4096  # 4 PPO iterations of 4 envs x 256 steps
TINY = {
    "env": {"variant": "casino", "action_mode": "compose", "observation": "compact"},
    "policy": {"net_arch": [32, 32]},
    "ppo": {"timesteps": STEPS, "n_envs": 4, "vec": "dummy", "n_steps": 256,
            "batch_size": 256, "n_epochs": 2},
    "opponents": {"pool": {"random": 1, "greedy": 1, "self": 1}, "snapshot_every": 1024,
                  "snapshots": 4},
    "eval": {"every": 1024, "hands": {"random": 4}, "final_hands": {"random": 4}},
    "run": {"time_limit_minutes": 10, "checkpoint_every": 1024, "checkpoint_minutes": 0,
            "progress": False, "verbose": False, "from_scratch": True},
}


def tiny_config(**over) -> dict:
    cfg = load_config(None, TINY)
    for section, values in over.items():
        cfg[section].update(values)
    return cfg


class Interrupted(Exception):
    """Stands for the process being stopped right after a checkpoint."""


def run_interrupted(cfg: dict, out: Path, at: int) -> None:
    """Train ``cfg`` until the checkpoint of step ``at`` is written, then stop."""
    real = train_mod.write_checkpoint

    def stop_after(root, model, cfg, snapshots, state, *args, **kwargs):
        path = real(root, model, cfg, snapshots, state, *args, **kwargs)
        if state.timesteps >= at:
            raise Interrupted(path)
        return path

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(train_mod, "write_checkpoint", stop_after)
        with pytest.raises(Interrupted):
            train(cfg, out, out)


def params(path: Path) -> dict:
    return MaskablePPO.load(path, device="cpu").policy.state_dict()


@pytest.fixture(scope="module")
def resumed(tmp_path_factory):
    """One run stopped after its step-2048 checkpoint (a copy of it kept), then resumed."""
    base = tmp_path_factory.mktemp("resume")
    out = base / "run"
    cfg = tiny_config()
    run_interrupted(cfg, out, at=2048)
    stopped = base / "stopped"
    shutil.copytree(out, stopped)
    ckpt = Checkpoint.read(latest_checkpoint(stopped / "checkpoints"))
    log = train(cfg, out, out, resume=True)
    return {"cfg": cfg, "out": out, "stopped": stopped, "ckpt": ckpt, "log": log}


def curve_rows(out: Path) -> list[list[str]]:
    return [line.split(",") for line in (out / "learning_curve.csv").read_text().splitlines()]


def test_interrupted_run_resumes_to_the_same_total(resumed):
    ckpt, log, out = resumed["ckpt"], resumed["log"], resumed["out"]
    assert ckpt.state.timesteps == 2048 and not ckpt.state.finished
    assert log["ppo"]["timesteps"] == STEPS == MaskablePPO.load(out / "model.zip").num_timesteps
    assert log["ppo"]["resumptions"] == 1 and log["ppo"]["resumed_at_steps"] == [2048]
    assert log["finished"] and log["run_id"] == ckpt.state.run_id
    # the budget counts the whole run: the minutes before the interruption are in it
    assert log["train_minutes"] * 60 > ckpt.state.elapsed_seconds
    assert log["ppo"]["seconds"] > ckpt.state.ppo_seconds
    final = Checkpoint.read(latest_checkpoint(out / "checkpoints"))
    assert final.state.finished and final.state.timesteps == STEPS
    assert [r["step"] for r in final.state.resumes] == [2048]


def test_resumed_curve_has_the_earlier_rows_and_new_ones(resumed):
    ckpt, out = resumed["ckpt"], resumed["out"]
    steps = [int(r["timesteps"]) for r in ckpt.curve]
    assert steps == [0, 1024, 2048]  # evaluated before PPO, then every 1,024 steps
    rows = curve_rows(out)
    header, body = rows[0], rows[1:]
    i = header.index("timesteps")
    assert [int(r[i]) for r in body] == [0, 1024, 2048, 3072, 4096]
    before = curve_rows(resumed["stopped"])
    assert body[:3] == before[1:4]  # the rows of before the interruption, unchanged
    minutes = [float(r[header.index("minutes")]) for r in body]
    assert minutes == sorted(minutes)  # wall-clock goes on across the resumption


def test_snapshots_and_optimizer_are_restored(resumed):
    ckpt, out = resumed["ckpt"], resumed["out"]
    saved = torch.load(ckpt.path / "snapshots.pt", weights_only=True)
    assert len(saved) == 3  # at steps 0, 1024 and 2048
    final = torch.load(latest_checkpoint(out / "checkpoints") / "snapshots.pt",
                       weights_only=True)
    assert len(final) == 4  # ... and 3072 after resuming (the last 4 kept)
    for a, b in zip(saved, final[:3]):
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    model = MaskablePPO.load(ckpt.path / "model.zip", device="cpu")
    assert model.num_timesteps == 2048
    assert model.policy.optimizer.state_dict()["state"]  # Adam's moments, not a fresh one


def test_tensorboard_log_continues_in_the_same_folder(resumed):
    tb = resumed["out"] / "tb"
    assert [p.name for p in tb.iterdir()] == ["ppo_1"]
    assert len(list((tb / "ppo_1").glob("events.out.tfevents.*"))) >= 2
    assert resumed["ckpt"].state.tensorboard_dir == str(tb / "ppo_1")


def test_only_the_last_two_checkpoints_are_kept(resumed):
    names = [p.name for p in list_checkpoints(resumed["stopped"] / "checkpoints")]
    assert names == ["step_1024", "step_2048"]
    names = [p.name for p in list_checkpoints(resumed["out"] / "checkpoints")]
    assert names == ["step_3072", "step_4096"]
    assert not list((resumed["out"] / "checkpoints").glob(".tmp_*"))


def test_resuming_a_finished_run_says_it_is_finished(resumed, capsys, tmp_path):
    out = tmp_path / "done"
    shutil.copytree(resumed["out"], out)
    log = train(resumed["cfg"], out, out, resume=True)
    assert log["already_finished"]
    assert "the run is finished (4,096 PPO steps" in capsys.readouterr().out
    # killed after training but before its final evaluation: resuming writes those
    (out / "train_log.json").unlink()
    (out / "model.zip").unlink()
    log = train(resumed["cfg"], out, out, resume=True)
    assert log["finished"] and (out / "model.zip").exists()
    assert json.loads((out / "train_log.json").read_text())["final_eval"][0]["hands"] == 4


def test_resuming_the_same_checkpoint_twice_gives_the_same_run(resumed, tmp_path):
    """Deterministic resumption: the random generators are saved, the environments reseeded
    from the run's seed and the checkpoint's step."""
    again = tmp_path / "again"
    shutil.copytree(resumed["stopped"], again)
    train(resumed["cfg"], again, again, resume=True)
    a, b = params(resumed["out"] / "model.zip"), params(again / "model.zip")
    assert all(torch.equal(a[k], b[k]) for k in a)

    def results(out: Path) -> list[tuple]:
        header, *body = curve_rows(out)
        keep = [header.index(k) for k in ("timesteps", "opponent", "wins", "draws", "losses",
                                          "diff_per_hand")]
        return [tuple(r[i] for i in keep) for r in body]

    assert results(again) == results(resumed["out"])


def test_the_time_budget_counts_the_time_before_the_interruption(resumed, tmp_path):
    """With a budget the run had already used up, the resumed run trains no further."""
    out = tmp_path / "budget"
    shutil.copytree(resumed["stopped"], out)
    cfg = tiny_config()
    cfg["run"]["time_limit_minutes"] = resumed["ckpt"].state.elapsed_seconds / 60
    log = train(cfg, out, out, resume=True)
    assert log["ppo"]["timesteps"] == 2048 and log["ppo"]["stopped_by_time_limit"]


def test_resume_refuses_another_config(resumed, tmp_path):
    out = tmp_path / "other"
    shutil.copytree(resumed["stopped"], out)
    cfg = tiny_config(ppo={"learning_rate": 1e-4})
    with pytest.raises(RunStateError, match=r"differs .* in ppo\.learning_rate \(0\.0003 in "
                                            r"the checkpoint, 0\.0001 now\)"):
        train(cfg, out, out, resume=True)
    cfg = tiny_config(ppo={"timesteps": 5120})  # a larger budget is allowed
    assert train(cfg, out, out, resume=True)["ppo"]["timesteps"] == 5120


def test_resume_with_no_checkpoint_says_so(tmp_path):
    with pytest.raises(SystemExit, match=r"--resume: no checkpoint in .*checkpoints, so "
                                         r"nothing to resume"):
        train_main(["--config", str(ROOT / "experiments/configs/scratch/casino.toml"),
                    "--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "out"),
                    "--resume"])


def test_a_new_run_does_not_start_over_earlier_checkpoints(resumed, tmp_path):
    out = tmp_path / "again"
    shutil.copytree(resumed["stopped"], out)
    with pytest.raises(RunStateError, match="holds the checkpoints of an earlier run "
                                            r"\(latest step_2048\): add --resume"):
        train(resumed["cfg"], out, out)
    cfg = tiny_config(ppo={"timesteps": 1024})
    log = train(cfg, out, out, fresh=True)  # --fresh: deleted, started again
    assert log["ppo"]["timesteps"] == 1024 and log["ppo"]["resumptions"] == 0


def test_partial_checkpoints_never_count(tmp_path):
    """A run killed while writing leaves a .tmp_ folder: never read, deleted by the next
    write; a checkpoint folder without its state.json is not one."""
    root = tmp_path / "checkpoints"
    (root / ".tmp_step_9999_1").mkdir(parents=True)
    (root / "step_8888").mkdir()  # no state.json
    assert latest_checkpoint(root) is None
    cfg = tiny_config(ppo={"timesteps": 1024})
    train(cfg, tmp_path, tmp_path)
    assert [p.name for p in list_checkpoints(root)] == ["step_0", "step_1024"]
    assert not list(root.glob(".tmp_*"))


def test_checkpoints_by_wall_clock(tmp_path):
    """run.checkpoint_minutes alone (checkpoint_every = 0) checkpoints between iterations."""
    cfg = tiny_config(run={"checkpoint_every": 0, "checkpoint_minutes": 1e-6},
                      ppo={"timesteps": 3072})
    written = []
    real = train_mod.write_checkpoint

    def spy(root, model, cfg, snapshots, state, *args, **kwargs):
        written.append(state.timesteps)
        return real(root, model, cfg, snapshots, state, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(train_mod, "write_checkpoint", spy)
        train(cfg, tmp_path, tmp_path)
    assert written == [0, 1024, 2048, 3072]  # start, between iterations, finished


def test_a_run_killed_by_sigkill_resumes(tmp_path):
    """The real thing: ``python -m experiments.train`` killed with SIGKILL once it has
    written a checkpoint after step 0, then ``--resume``d to its total steps."""
    config = tmp_path / "tiny.toml"
    config.write_text(
        '[env]\nvariant = "casino"\naction_mode = "compose"\nobservation = "compact"\n'
        '[policy]\nnet_arch = [32, 32]\n'
        '[ppo]\ntimesteps = 8192\nn_envs = 4\nvec = "dummy"\nn_steps = 256\nbatch_size = 256\n'
        'n_epochs = 2\n'
        '[opponents]\npool = { random = 1, self = 1 }\nsnapshot_every = 1024\n'
        '[eval]\nevery = 2048\nhands = { random = 4 }\nfinal_hands = { random = 4 }\n'
        '[run]\ntime_limit_minutes = 10\ncheckpoint_every = 1024\nfrom_scratch = true\n')
    runs = tmp_path / "run"
    args = ["--config", str(config), "--runs", str(runs), "--out", str(runs), "--quiet"]
    proc = subprocess.Popen([sys.executable, "-m", "experiments.train", *args], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            latest = latest_checkpoint(runs / "checkpoints")
            if latest is not None and latest.name != "step_0":
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    killed_at = Checkpoint.read(latest_checkpoint(runs / "checkpoints")).state.timesteps
    assert 0 < killed_at < 8192
    assert not (runs / "model.zip").exists()
    assert train_main([*args, "--resume"]) == 0
    log = json.loads((runs / "train_log.json").read_text())
    assert log["ppo"]["timesteps"] == 8192 and log["ppo"]["resumed_at_steps"] == [killed_at]
