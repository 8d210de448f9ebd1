"""experiments/rllib_train.py on a fake algorithm (no Ray training here: tests/test_rllib.py
and tests/test_rllib_agent.py train for real): the console line and training curve (issue 16
item 10); the run loop of issue 17 with a fake clock and a fake evaluation: the wall-clock
budget over resumptions, evaluations and the learning curve, checkpoints (kept, refused,
resumed, fresh), the exported model; the --config file and its errors."""

from __future__ import annotations

import csv
import json
import math
import re
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("torch")
pytest.importorskip("ray")

from casino_env.rllib import MODULES, SETTINGS, STATE, list_checkpoints  # noqa: E402
from experiments import rllib_train  # noqa: E402
from experiments.rllib_train import (  # noqa: E402
    RunOptions,
    RunStateError,
    metrics_row,
    parse_args,
    progress_line,
)

AGENTS = ["player_0", "player_1"]


def fake_result(iteration: int, episodes: int, trained: bool = True) -> dict:
    """What ``Algorithm.train()`` returns, reduced to the keys rllib_train reads."""
    runners: dict = {"num_env_steps_sampled": 512, "num_episodes": episodes}
    if episodes:
        runners.update(episode_len_mean=120.5,
                       agent_episode_returns_mean={"player_0": 1.25, "player_1": -1.25})
    learners = {"shared": {"num_module_steps_trained": 512, "policy_loss": -0.01234,
                           "vf_loss": 0.56789, "entropy": 1.2345,
                           "mean_kl_loss": 0.002}} if trained else {}
    return {"training_iteration": iteration, "num_env_steps_sampled_lifetime": 512 * iteration,
            "env_runners": runners, "learners": learners}


def test_an_iteration_without_a_finished_episode_says_so():
    """Was: `return player_0=+nan player_1=+nan`; the losses were missing."""
    row = metrics_row(fake_result(1, 0), AGENTS, ["shared"], 2.04, 2.04)
    assert math.isnan(row["return_mean_player_0"])
    assert progress_line(row, AGENTS, ["shared"]) == (
        "iter   1  steps      512  episodes    0  no finished episodes  "
        "loss shared: policy -0.0123 value 0.5679 entropy 1.234  illegal 0  2.0s")


def test_the_line_shows_returns_and_every_policys_losses():
    row = metrics_row(fake_result(2, 4), AGENTS, ["shared"], 1.5, 3.5)
    assert progress_line(row, AGENTS, ["shared"]) == (
        "iter   2  steps     1024  episodes    4  len  120.5  return player_0=+1.25 "
        "player_1=-1.25  loss shared: policy -0.0123 value 0.5679 entropy 1.234  "
        "illegal 0  1.5s")
    # a policy the learners did not update in this iteration
    row = metrics_row(fake_result(2, 4, trained=False), AGENTS, AGENTS, 1.5, 3.5)
    assert progress_line(row, AGENTS, AGENTS).endswith(
        "loss player_0: no update; player_1: no update  illegal 0  1.5s")


def test_help_promises_what_the_line_prints():
    help_text = rllib_train.__doc__
    assert "per-policy losses (policy, value, entropy)" in help_text
    assert "no finished episodes" in help_text and "learning_curve.png" in help_text


class FakeAlgo:
    """Stands in for the built PPO algorithm: ``train()`` gives the fake results in turn."""

    def __init__(self, results: list[dict]) -> None:
        self.results = iter(results)
        self.env_runner_group = SimpleNamespace(
            foreach_env_runner=lambda fn, local_env_runner: [0])
        self.stopped = False

    def train(self) -> dict:
        return next(self.results)

    def stop(self) -> None:
        self.stopped = True


def test_train_writes_the_training_curve_csv_and_png(tmp_path: Path):
    """Each run leaves training_curve.csv and .png (returns per seat and each policy's losses
    over env steps) beside metrics.csv/json; without evaluations, no learning curve."""
    algo = FakeAlgo([fake_result(1, 0), fake_result(2, 3), fake_result(3, 5)])
    config = SimpleNamespace(
        env_config={"variant": "casino", "players": 2}, policies={"shared"},
        policy_mapping_fn=lambda agent, episode: "shared", train_batch_size_per_learner=512,
        minibatch_size=128, num_epochs=1, lr=3e-4, num_env_runners=0,
        build_algo=lambda: algo)
    lines: list[str] = []
    summary = rllib_train.train(config, 3, tmp_path, log=lines.append)
    assert algo.stopped and summary["illegal_actions_total"] == 0
    assert ["no finished episodes" in line for line in lines] == [True, False, False]
    assert all("return player_0=+1.25 player_1=-1.25" in line for line in lines[1:])
    with (tmp_path / "training_curve.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == rllib_train.training_fields(AGENTS, ["shared"])
    assert [r["env_steps_total"] for r in rows] == ["512", "1024", "1536"]
    assert [r["return_mean_player_0"] for r in rows] == ["nan", "1.25", "1.25"]
    assert rows[2]["shared_vf_loss"] == "0.56789"
    png = (tmp_path / "training_curve.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5000
    assert (tmp_path / "metrics.csv").exists() and (tmp_path / "metrics.json").exists()
    assert not (tmp_path / "learning_curve.csv").exists()
    assert not (tmp_path / "checkpoints").exists()


# -- the run loop: budget, evaluations, checkpoints, resumption --------------------------------

class Clock:
    """A fake ``time.perf_counter``: only a fake training iteration moves it (60 s each)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class CheckpointingAlgo:
    """A fake PPO algorithm: 512 env steps and 60 clock seconds an iteration, and checkpoints
    that hold its counters and a policy module folder (``save_to_path``/``restore_from_path``)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.iteration = 0
        self.env_runner_group = SimpleNamespace(
            foreach_env_runner=lambda fn, local_env_runner: [0])
        self.restored: str | None = None

    def train(self) -> dict:
        self.iteration += 1
        self.clock.now += 60
        result = fake_result(self.iteration, 2)
        return result

    def save_to_path(self, path: str) -> str:
        module = Path(path) / MODULES / "shared"
        module.mkdir(parents=True)
        (module / "weights.txt").write_text(f"iteration {self.iteration}")
        (Path(path) / "algo.json").write_text(json.dumps({"iteration": self.iteration}))
        return path

    def restore_from_path(self, path: str) -> None:
        self.iteration = json.loads((Path(path) / "algo.json").read_text())["iteration"]
        self.restored = Path(path).name

    def stop(self) -> None:
        pass


class FakeConfig(SimpleNamespace):
    """The parts of a PPOConfig that ``train`` reads; ``build_algo`` makes a
    ``CheckpointingAlgo`` on the shared clock and remembers it."""

    def copy(self, copy_frozen: bool | None = None) -> FakeConfig:
        return self

    def debugging(self, seed: int) -> FakeConfig:
        self.resumed_seed = seed
        return self

    def build_algo(self) -> CheckpointingAlgo:
        self.algos.append(CheckpointingAlgo(self.clock))
        return self.algos[-1]


def fake_config(clock: Clock, lr: float = 3e-4) -> FakeConfig:
    return FakeConfig(
        env_config={"variant": "casino", "players": 2}, policies={"shared"},
        policy_mapping_fn=lambda agent, episode: "shared", train_batch_size_per_learner=512,
        minibatch_size=128, num_epochs=1, lr=lr, num_env_runners=0, seed=0, clock=clock,
        algos=[])


@pytest.fixture
def fake_run(monkeypatch):
    """A fake clock in rllib_train and a fake evaluation recording the checkpoints it was
    given (each must hold casino_env.json when evaluated): hands won = env steps / 10,000."""
    clock = Clock()
    monkeypatch.setattr(rllib_train, "time",
                        SimpleNamespace(perf_counter=clock, strftime=time.strftime))
    evaluated: list[str] = []

    def evaluate(path, env_config, hands, seed, progress=False):
        assert (path / SETTINGS).is_file() and env_config == {"variant": "casino",
                                                              "players": 2}
        evaluated.append(path.name)
        steps = int(path.name.removeprefix("step_"))
        return [{"opponent": opp, "hands": n, "wins": 0, "draws": 0, "losses": n,
                 "win_rate": steps / 10_000, "paired_lo": 0.0, "paired_hi": 1.0,
                 "wilson_lo": 0.0, "wilson_hi": 1.0, "diff_per_hand": 0.0, "diff_lo": -1.0,
                 "diff_hi": 1.0, "seconds": 0.0} for opp, n in hands.items()]

    monkeypatch.setattr(rllib_train, "evaluate_checkpoint", evaluate)
    return clock, evaluated


def curve_points(out: Path) -> list[tuple[int, float, str]]:
    with (out / "learning_curve.csv").open() as f:
        return [(int(r["timesteps"]), float(r["minutes"]), r["phase"])
                for r in csv.DictReader(f)]


def test_budget_evaluations_checkpoints_and_resumption(fake_run, tmp_path):
    clock, evaluated = fake_run
    run = RunOptions(minutes=3, eval_every=1000, eval_hands={"random": 2})
    config = fake_config(clock)
    lines: list[str] = []
    summary = rllib_train.train(config, 100, tmp_path, log=lines.append, run=run)
    # 3 iterations of 60 s fill the 3 minutes; evaluations at 0, at the first 1,000 steps
    # passed and of the final policy (outside the budget), each from its own checkpoint.
    assert [r["iteration"] for r in summary["iterations"]] == [1, 2, 3]
    assert evaluated == ["step_0", "step_1024", "step_1536"]
    assert curve_points(tmp_path) == [(0, 0.0, "init"), (1024, 2.0, "ppo"), (1536, 3.0, "ppo")]
    assert [p.name for p in list_checkpoints(tmp_path / "checkpoints")] == [
        "step_1024", "step_1536"]  # the last two kept
    state = json.loads((tmp_path / "checkpoints" / "step_1536" / STATE).read_text())
    assert (state["finished"], state["stopped_by_time"], state["env_steps"],
            state["elapsed_seconds"], state["next_eval"]) == (True, True, 1536, 180.0, 2000)
    assert [r["timesteps"] for r in state["curve"]] == [0, 1024, 1536]
    model = tmp_path / "model"
    assert sorted(p.name for p in model.iterdir()) == [SETTINGS, "shared"]
    assert (model / "shared" / "weights.txt").read_text() == "iteration 3"
    assert json.loads((model / SETTINGS).read_text())["policy_mapping"] == {
        "player_0": "shared", "player_1": "shared"}
    assert (summary["env_steps"], summary["train_seconds"]) == (1536, 180.0)
    assert summary["frames_per_second"] == pytest.approx(1536 / 180)
    assert sum("evaluation at" in line for line in lines) == 3

    # Resumed with a budget of 5 minutes: the 3 used count, 2 more iterations.
    run = RunOptions(minutes=5, eval_every=1000, eval_hands={"random": 2}, resume=True)
    summary = rllib_train.train(config, 100, tmp_path, log=lines.append, run=run)
    assert config.algos[-1].restored == "step_1536"
    assert config.resumed_seed == rllib_train.resume_seed(0, 1536)
    assert [r["iteration"] for r in summary["iterations"]] == [1, 2, 3, 4, 5]
    assert evaluated[3:] == ["step_2048", "step_2560"]
    assert curve_points(tmp_path)[3:] == [(2048, 4.0, "ppo"), (2560, 5.0, "ppo")]
    assert [r["env_steps"] for r in summary["resumes"]] == [1536]
    assert [line for line in lines if line.startswith("resuming")] == [
        f"resuming {tmp_path / 'checkpoints'} from step_1536: 1,536 env steps, iteration 3, "
        "3.0 min used of 5, 3 learning-curve rows"]
    saved = json.loads((tmp_path / "metrics.json").read_text())
    assert [r["iteration"] for r in saved["iterations"]] == [1, 2, 3, 4, 5]
    assert saved["env_steps"] == 2560 and saved["elapsed_seconds"] == 300.0

    # Nothing left of the budget: the run says it is finished and builds nothing.
    builds = len(config.algos)
    summary = rllib_train.train(config, 100, tmp_path, log=lines.append, run=run)
    assert summary["already_finished"] and len(config.algos) == builds
    assert lines[-1] == (f"{tmp_path / 'checkpoints'}: the run is finished (2,560 env steps, "
                         "5.0 min); nothing to resume")


def test_checkpoints_every_n_minutes(fake_run, tmp_path):
    clock, evaluated = fake_run
    run = RunOptions(checkpoint_minutes=2)
    rllib_train.train(fake_config(clock), 4, tmp_path, log=None, run=run)
    assert evaluated == [] and not (tmp_path / "learning_curve.csv").exists()
    assert [p.name for p in list_checkpoints(tmp_path / "checkpoints")] == [
        "step_1024", "step_2048"]  # at 2 and 4 minutes; the end is the 4-minute one
    state = json.loads((tmp_path / "checkpoints" / "step_2048" / STATE).read_text())
    assert state["finished"] and not state["stopped_by_time"] and state["iteration"] == 4


def test_runs_that_cannot_start_or_resume_say_what_to_do(fake_run, tmp_path):
    clock, _ = fake_run
    root = tmp_path / "checkpoints"
    with pytest.raises(RunStateError, match=f"^--resume: no checkpoint in {re.escape(str(root))}"
                                            ", so nothing to resume; run without --resume to "
                                            "start the run$"):
        rllib_train.train(fake_config(clock), 2, tmp_path, log=None,
                          run=RunOptions(checkpoint=True, resume=True))
    rllib_train.train(fake_config(clock), 2, tmp_path, log=None, run=RunOptions(checkpoint=True))
    with pytest.raises(RunStateError, match=f"^{re.escape(str(root))} holds the checkpoints of an"
                                            " earlier run \\(latest step_1024\\): add --resume"):
        rllib_train.train(fake_config(clock), 2, tmp_path, log=None,
                          run=RunOptions(checkpoint=True))
    with pytest.raises(RunStateError, match="in lr \\(0.0003 in the checkpoint, 0.001 now\\); "
                                            "resume with the same settings"):
        rllib_train.train(fake_config(clock, lr=1e-3), 3, tmp_path, log=None,
                          run=RunOptions(checkpoint=True, resume=True))
    summary = rllib_train.train(fake_config(clock), 1, tmp_path, log=None,
                                run=RunOptions(checkpoint=True, fresh=True))
    assert [r["iteration"] for r in summary["iterations"]] == [1]
    assert [p.name for p in list_checkpoints(root)] == ["step_512"]


def test_an_extended_finished_run_no_longer_offers_its_old_model(fake_run, tmp_path):
    """Was: a finished run resumed with more iterations and then interrupted kept the old
    model/, so rllib:<out> played it instead of the newer checkpoints; now the resumed run
    removes it when it trains again, and exports the new one when it ends."""
    from agents.rllib_agent import resolve_checkpoint

    clock, _ = fake_run
    rllib_train.train(fake_config(clock), 2, tmp_path, log=None, run=RunOptions(checkpoint=True))
    weights = tmp_path / "model" / "shared" / "weights.txt"
    assert weights.read_text() == "iteration 2"
    config = fake_config(clock)
    build = config.build_algo

    def interrupted() -> CheckpointingAlgo:
        algo = build()
        train = algo.train

        def stop_at_four() -> dict:
            if algo.iteration == 4:
                raise KeyboardInterrupt
            return train()

        algo.train = stop_at_four
        return algo

    config.build_algo = interrupted
    with pytest.raises(KeyboardInterrupt):
        rllib_train.train(config, 6, tmp_path, log=None,
                          run=RunOptions(resume=True, checkpoint_minutes=1))
    assert not (tmp_path / "model").exists()
    assert not list(tmp_path.glob(".old_model_*"))
    latest = list_checkpoints(tmp_path / "checkpoints")[-1]
    assert latest.name == "step_2048" and resolve_checkpoint(tmp_path) == latest
    rllib_train.train(fake_config(clock), 6, tmp_path, log=None,
                      run=RunOptions(resume=True))
    assert weights.read_text() == "iteration 6"


@pytest.mark.parametrize("value,recorded", [("0", "0"), (None, "random")])
def test_the_runs_hash_seed_is_recorded(fake_run, tmp_path, monkeypatch, value, recorded):
    """RLlib's seat order goes through string hashing, so a seed fixes a run only with the
    same PYTHONHASHSEED: metrics.json records it (and each resumption's)."""
    if value is None:
        monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    else:
        monkeypatch.setenv("PYTHONHASHSEED", value)
    clock, _ = fake_run
    rllib_train.train(fake_config(clock), 1, tmp_path, log=None, run=RunOptions(checkpoint=True))
    assert json.loads((tmp_path / "metrics.json").read_text())["python_hash_seed"] == recorded
    rllib_train.train(fake_config(clock), 2, tmp_path, log=None, run=RunOptions(resume=True))
    meta = json.loads((tmp_path / "metrics.json").read_text())
    assert meta["python_hash_seed"] == recorded
    assert [r["python_hash_seed"] for r in meta["resumes"]] == [recorded]


# -- evaluation with any player count --------------------------------------------------------

def _record(winner, points, deal=0):
    from agents.tournament import GameRecord

    return GameRecord(deal=deal, rotation=0, seed=0, seats=(0, 1, 2), winner=winner, hands=1,
                      points=[points], scores=points, moves=30, seconds=0.1,
                      decision_seconds=(0.3, 0.1, 0.2))


def test_three_sides_reduce_to_the_agent_against_the_opponents():
    """Won: the agent won the hand; drawn: nobody did and the agent shares the lead; lost
    otherwise (a hand the second opponent won, or two opponents tied above the agent).
    Points: the agent's against the opponents' mean, as the env's reward."""
    from agents.tournament import MatchResult

    res = MatchResult(["rllib", "random#1", "random#2"], "casino", 3, "hand", 0, records=[
        _record(0, (7, 3, 1)), _record(None, (5, 5, 1)), _record(None, (1, 5, 5)),
        _record(2, (1, 2, 8)), _record(1, (2, 9, 0))])
    out = rllib_train.field_result(res)
    assert out.labels == ["rllib", "opponents"]
    assert [g.winner for g in out.records] == [0, None, 1, 1, 1]
    assert [g.points for g in out.records] == [[(7, 2.0)], [(5, 3.0)], [(1, 5.0)],
                                               [(1, 5.0)], [(2, 4.5)]]
    assert out.records[0].decision_seconds == (0.3, pytest.approx(0.3))
    kryp = MatchResult(["rllib", "a", "b"], "krypkasino", 3, "hand", 0,
                       records=[_record(None, (2, 2, 9)), _record(None, (9, 2, 2))])
    assert [g.winner for g in rllib_train.field_result(kryp).records] == [None, 1]


@pytest.mark.parametrize("env_config,hands", [
    ({"variant": "casino", "players": 3}, 6),
    ({"variant": "casino", "players": 4, "partnerships": True}, 4),
])
def test_evaluation_plays_any_player_count(monkeypatch, env_config, hands):
    """Was: with 3 players play_match([agent, opp]) refused ('2 agents cannot share 3 seats
    evenly') after Ray had started; now the agent sits on one side and the opponent on all
    the others, each deal rotated so the agent plays it from every side."""
    import agents.rllib_agent
    from agents import make_agent, play_match

    monkeypatch.setattr(agents.rllib_agent, "RLlibAgent",
                        lambda path: make_agent("greedy", seed=0))
    row, = rllib_train.evaluate_checkpoint(Path("x"), env_config, {"random": hands}, seed=0)
    assert row["hands"] == hands and row["wins"] + row["draws"] + row["losses"] == hands
    sides = 3 if env_config["players"] == 3 else 2
    res = play_match(["greedy"] + ["random"] * (sides - 1), env_config["variant"],
                     env_config["players"], deals=hands // sides, seed=0, mode="hand",
                     partnerships=env_config.get("partnerships"))
    assert row["wins"] == sum(g.winner == 0 for g in res.records)
    diffs = [p[0] - sum(p[1:]) / (sides - 1) for g in res.records for p in g.points]
    assert row["diff_per_hand"] == pytest.approx(sum(diffs) / len(diffs))


# -- the command line and --config -----------------------------------------------------------

def test_a_config_file_sets_options_and_flags_win(tmp_path):
    cfg = tmp_path / "run.toml"
    cfg.write_text('[env]\nvariant = "royal"\nreward_scale = 0.1\n[ppo]\nbatch = 4096\n'
                   'hidden = [256, 256]\n[eval]\neval_every = 2_000_000\n'
                   'eval_hands = { random = 400, heuristic = 1000 }\n[run]\nminutes = 180\n'
                   'tensorboard = true\nname = "rllib_{variant}_s{seed}"\n')
    a = parse_args(["--config", str(cfg), "--batch", "1024", "--seed", "2"])
    assert (a.variant, a.reward_scale, a.batch, a.hidden, a.eval_every, a.minutes) == (
        "royal", 0.1, 1024, [256, 256], 2_000_000, 180.0)
    assert a.eval_hands == {"random": 400, "heuristic": 1000} and a.tensorboard
    assert (a.seed, a.name, a.iterations, a.lr) == (2, "rllib_{variant}_s{seed}", 10, 3e-4)
    a = parse_args(["--hidden", "64,32", "--eval-hands", "greedy=10"])
    assert (a.hidden, a.eval_hands, a.minutes, a.eval_every) == ([64, 32], {"greedy": 10},
                                                                None, 0)


def test_every_shipped_config_reads(tmp_path):
    root = Path(rllib_train.__file__).parent / "configs" / "rllib"
    names = sorted(p.stem for p in root.glob("*.toml"))
    assert names == ["casino", "dominican", "hungarian", "royal", "spade", "tuxedo", "wippen"]
    for name in names:
        a = parse_args(["--config", str(root / f"{name}.toml")])
        assert (a.variant, a.players, a.policies, a.action_mode, a.observation) == (
            name, 2, "shared", "compose", "compact")
        assert (a.minutes, a.eval_hands) == (180.0, {"random": 400, "greedy": 1000,
                                                     "heuristic": 1000})


@pytest.mark.parametrize("argv,message", [
    (["--eval-every", "-5"], "--eval-every must be 0 or more, got -5"),
    (["--batch", "0"], "--batch must be positive, got 0"),
    (["--minibatch", "0"], "--minibatch must be positive, got 0"),
    (["--epochs", "0"], "--epochs must be positive, got 0"),
    (["--minutes", "-1"], "--minutes must be positive (leave it out for no budget), got -1.0"),
    (["--minutes", "0"], "--minutes must be positive (leave it out for no budget), got 0.0"),
    (["--checkpoint-minutes", "-2"], "--checkpoint-minutes must be 0 or more, got -2.0"),
])
def test_flags_that_would_hang_or_never_train_are_refused(argv, message, capsys):
    """Was: --eval-every -5 was taken and train() then looped forever; --batch 0,
    --minibatch 0 and --minutes -1 were taken too."""
    with pytest.raises(SystemExit) as e:
        parse_args(argv)
    assert e.value.code == 2 and f"error: {message}\n" in capsys.readouterr().err


@pytest.mark.parametrize("kwargs,message", [
    ({"eval_every": -5}, "RunOptions.eval_every must be 0 (no evaluations) or more env steps, "
                         "got -5"),
    ({"minutes": -1}, "RunOptions.minutes must be positive (or None: no budget), got -1"),
    ({"minutes": 0}, "RunOptions.minutes must be positive (or None: no budget), got 0"),
    ({"checkpoint_minutes": -0.5}, "RunOptions.checkpoint_minutes must be 0 or more, got -0.5"),
    ({"keep": 0}, "RunOptions.keep must be 1 or more, got 0"),
])
def test_run_options_that_would_hang_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        RunOptions(**kwargs)


@pytest.mark.parametrize("arg", ["batch", "minibatch", "epochs"])
def test_build_config_refuses_an_empty_batch(arg):
    with pytest.raises(ValueError, match=f"^build_config: {arg} must be a positive int, "
                                         "got 0$"):
        rllib_train.build_config({"variant": "casino", "players": 2}, **{arg: 0})


@pytest.mark.parametrize("text,message", [
    ('batchh = 3', "unknown option 'batchh' in the top level (known: "),
    ('[ppo]\nbatch = "big"', "batch must be an int, got 'big'"),
    ('[ppo]\nhidden = [0]', "hidden: expected layer sizes like 256,256, got [0]"),
    ('[env]\npolicies = "league"', "policies must be one of 'shared', 'per-seat', got 'league'"),
    ('[run]\nout = "x"', "out is set on the command line only"),
    ('[eval]\neval_hands = { randm = 4 }', "unknown agent 'randm'"),
    ('[eval]\neval_hands = { random = -1 }', "eval_hands: random: hands must be an int >= 0, "
                                             "got -1"),
    ('[run]\ntensorboard = 1', "tensorboard must be true or false, got 1"),
    ('variant = ', "not valid TOML"),
])
def test_config_file_errors_name_the_file_and_the_problem(tmp_path, text, message):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(text + "\n")
    with pytest.raises(SystemExit) as e:
        parse_args(["--config", str(cfg)])
    assert str(e.value).startswith(f"{cfg}: " if "TOML" not in message else f"--config {cfg}")
    assert message in str(e.value)


def test_frames_per_second_beside_a_reference_measured_the_same_day(tmp_path, monkeypatch):
    """A run's frames/s ratio to the connect-four reference measured right after it (the
    machine's speed varies between days; the committed 830 frames/s is from another day), with
    the committed ratio beside; metrics.json gains both; without the measurement the line says
    the committed figure is from another day."""
    from experiments import train

    assert train.measured_connect_four_reference(0) is None
    sp = {"env_steps": 12_345, "train_seconds": 120.0, "frames_per_second": 1_200.0,
          "connect_four_reference": {"frames_per_second": 800.0},
          "vs_connect_four": 1.5}
    assert rllib_train.speed_text(sp).endswith(
        "1,200 frames/s (1.50x the connect_four_v3 reference of experiments.bench_train, "
        "800 frames/s on one env, measured on another day)")
    (tmp_path / "metrics.json").write_text(json.dumps({"env_steps": 12_345}))
    seen = []

    def fake(frames):
        seen.append(frames)
        return {"setting": "connect_four_v3 (reference)", "frames_per_second": 300.0,
                "source": "measured right after the run (64 frames)"}

    monkeypatch.setattr(train, "measured_connect_four_reference", fake)
    rllib_train.add_measured_reference(tmp_path, sp, 64)
    assert seen == [64]
    assert sp["vs_connect_four_measured"] == pytest.approx(4.0)
    assert rllib_train.speed_text(sp).endswith(
        "1,200 frames/s (4.00x the connect_four_v3 reference measured right after the run, "
        "300 frames/s on one env; 1.50x the committed 800 of experiments.bench_train)")
    meta = json.loads((tmp_path / "metrics.json").read_text())
    assert meta["env_steps"] == 12_345 and meta["vs_connect_four_measured"] == pytest.approx(4.0)
    assert meta["connect_four_measured"]["frames_per_second"] == 300.0
    assert parse_args([]).reference_frames == 8192
    assert parse_args(["--reference-frames", "0"]).reference_frames == 0
