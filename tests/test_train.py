"""Training pipeline: a tiny run (behaviour cloning + a few thousand PPO steps) completes, saves
a model that loads into ``PPOAgent`` and plays legal moves; the agent sees from a
``PlayerView`` exactly what the environment shows (same observation, same move numbering,
overflow included); the training environment survives opponents' moves beyond K. The
from-scratch configs (issue 17): one per 2-player preset, each refused if it gave the learner
a scripted agent's knowledge, labelled "RL from scratch" in its results. (Resuming runs:
tests/test_resume.py.)
"""

from __future__ import annotations

import json
import random
import re
import shutil
import time
from pathlib import Path

import gymnasium  # noqa: F401  (before casino_env.single)
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("torch")

import casino_env  # noqa: E402
from agents import make_agent, play_match  # noqa: E402
from agents.ppo import PPOAgent, encode_view, snapshot_policy  # noqa: E402
from casino_env.engine import list_variants  # noqa: E402
from casino_env.engine.view import PlayerView  # noqa: E402
from experiments.train import (  # noqa: E402
    build_model,
    env_config,
    env_kwargs,
    final_evaluation,
    load_config,
    train,
    weighted_pool,
)
from experiments.train import main as train_main  # noqa: E402
from experiments.train_env import TrainEnv, make_train_vec_env  # noqa: E402


def tiny_config(mode: str, variant: str = "casino") -> dict:
    return load_config(None, {
        "env": {"variant": variant, "action_mode": mode, "max_moves": 32},
        "policy": {"hidden": 64, "pair_hidden": 32, "net_arch": [64, 64]},
        "bc": {"decisions": 600, "epochs": 1, "batch_size": 128, "workers": 1},
        "ppo": {"timesteps": 2048, "n_envs": 4, "vec": "dummy", "n_steps": 256,
                "batch_size": 256, "n_epochs": 2},
        "opponents": {"pool": {"random": 1, "greedy": 1, "self": 1}, "snapshot_every": 1024},
        "eval": {"every": 1024, "hands": {"random": 4}, "final_hands": {"random": 6}},
        "run": {"time_limit_minutes": 5, "checkpoint_every": 1024, "progress": False,
                "verbose": False},
    })


def test_behaviour_cloning_only_run(tmp_path):
    """ppo.timesteps = 0 (the baselines' configs): the cloned policy is saved, evaluated and
    described as such, with no PPO step taken."""
    cfg = tiny_config("enumerate")
    cfg["ppo"]["timesteps"] = 0
    cfg["bc"].update(teacher="greedy", decisions=300)
    out = tmp_path / "out"
    log = train(cfg, out, tmp_path / "runs")
    assert log["ppo"]["timesteps"] == 0 and log["bc"]["decisions"] == 300
    assert 0 < log["bc"]["holdout_accuracy"] <= 1
    text = (out / "eval_final.md").read_text()
    assert "cloning 300 greedy decisions (behaviour cloning only, no PPO)" in text
    phases = {line.split(",")[2] for line in (out / "learning_curve.csv").read_text()
              .splitlines()[1:]}
    assert phases == {"bc"}
    bc_rows = (out / "bc_curve.csv").read_text().splitlines()
    assert bc_rows[0].startswith("epoch,train_ce,holdout_ce,holdout_accuracy")
    assert len(bc_rows) == 1 + cfg["bc"]["epochs"]
    res = play_match([make_agent(f"ppo:{out / 'model.zip'}", seed=0), "random"], "casino", 2,
                     deals=1, seed=3, mode="hand")
    assert len(res.records) == 2
    # --evaluate-only: the saved model re-evaluated with other final_hands, model untouched
    model = (out / "model.zip").read_bytes()
    first = json.loads((out / "eval_final.json").read_text())
    cfg["eval"]["final_hands"] = {"random": 10, "greedy": 4}
    final_evaluation(cfg, out, log, progress=False)
    rows = json.loads((out / "eval_final.json").read_text())
    assert [(r["opponent"], r["hands"]) for r in rows] == [("random", 10), ("greedy", 4)]
    assert json.loads((out / "train_log.json").read_text())["final_eval"] == rows
    assert (out / "model.zip").read_bytes() == model
    # the same seed and deals: the first 6 hands against random are those of the first run
    assert first[0]["hands"] == 6 and rows[0]["wins"] >= first[0]["wins"]


def test_evaluate_only_needs_a_trained_model(tmp_path):
    with pytest.raises(SystemExit, match="--evaluate-only: no trained model"):
        train_main(["--config", "experiments/configs/casino.toml", "--out", str(tmp_path),
                    "--evaluate-only"])


@pytest.mark.parametrize("mode", ["enumerate", "compose"])
def test_tiny_training_run_saves_a_model_that_plays(tmp_path, mode):
    cfg = tiny_config(mode)
    out, runs = tmp_path / "out", tmp_path / "runs"
    t0 = time.perf_counter()
    log = train(cfg, out, runs)
    assert time.perf_counter() - t0 < 60
    assert log["ppo"]["timesteps"] >= 2048 and log["bc"]["decisions"] == 600
    for name in ("model.zip", "model.json", "config.json", "learning_curve.csv",
                 "learning_curve.png", "eval_final.md", "eval_final.csv", "train_log.json",
                 "bc_curve.csv", "bc_curve.png"):
        assert (out / name).exists(), name
    assert json.loads((out / "model.json").read_text())["action_mode"] == mode
    # checkpoints: folders the agent loads from (model.zip with its model.json), the last two
    ckpts = sorted((runs / "checkpoints").glob("step_*"), key=lambda p: int(p.name[5:]))
    assert [p.name for p in ckpts][-1] == f"step_{log['ppo']['timesteps']}" and len(ckpts) == 2
    assert isinstance(make_agent(f"ppo:{ckpts[-1]}", seed=0), PPOAgent)
    assert list((runs / "tb").rglob("events.out.tfevents.*"))
    curve = (out / "learning_curve.csv").read_text().splitlines()
    assert curve[0].startswith("timesteps,minutes,phase,opponent") and len(curve) >= 3
    # The saved model plays legal moves through whole hands (play_game checks legality).
    agent = make_agent(f"ppo:{out / 'model.zip'}", seed=0)
    assert isinstance(agent, PPOAgent)
    res = play_match([agent, "heuristic"], "casino", 2, deals=2, seed=1, mode="hand")
    assert len(res.records) == 4
    sampler = PPOAgent.load(out / "model.zip", seed=3, deterministic=False)
    res = play_match([sampler, "random"], "casino", 2, deals=1, seed=2, mode="game")
    assert res.records[0].moves > 0


def _random_policy(cfg: dict):
    venv = make_train_vec_env(env_kwargs(cfg), 1, 0)
    try:
        return snapshot_policy(build_model(cfg, venv, None, seed=0).policy)
    finally:
        venv.close()


@pytest.mark.parametrize("mode", ["enumerate", "compose"])
@pytest.mark.parametrize("variant", list_variants())
def test_agent_sees_and_numbers_like_the_environment(mode, variant):
    """For an untrained policy, the agent's move from a PlayerView is the move the environment
    numbers as the policy's argmax on the environment's own observation (K = 3 forces the
    overflow order often in enumerate mode)."""
    cfg = tiny_config(mode, variant)
    cfg["env"]["max_moves"] = 3
    cfg["env"]["auto_forced"] = False
    policy = _random_policy(cfg)
    agent = PPOAgent(policy, env_config(cfg))
    env = casino_env.raw_env(variant=variant, players=2, action_mode=mode, max_moves=3)
    env.reset(seed=7)
    rng = random.Random(0)
    checked = 0
    for _ in range(150):
        if all(env.terminations.values()) or all(env.truncations.values()):
            env.reset()
        seat = env.state.current
        obs = env.observe(env.agent_selection)
        view = PlayerView(env.state, seat)
        mine = encode_view(agent.layout, view, np.zeros(agent.layout.size, np.float32))
        if mode == "compose":
            agent.layout.encode_compose(view.state, env._composer.prefix, mine)
        np.testing.assert_array_equal(obs["observation"], mine)
        if mode == "enumerate" or not env._composer.prefix:
            move = agent.choose(view)
            if mode == "enumerate":
                expected = env._moves[int(np.argmax(np.where(
                    obs["action_mask"] > 0, agent.logits(obs, obs["action_mask"]), -np.inf)))]
                assert move == expected if len(env._moves) > 1 else move == env._moves[0]
            else:
                assert move in env.legal_moves()
            checked += 1
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
    assert checked > 20


def test_train_env_survives_opponent_moves_beyond_k():
    env = TrainEnv(variant="casino", action_mode="enumerate", dict_obs=True, max_moves=1,
                   opponent="greedy", reward_scale=0.1)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(300):
        _, reward, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(
            env.action_masks()))))
        assert abs(reward) <= 1.2
        if terminated:
            env.reset()


def test_expert_action_is_the_teachers_move():
    for mode in ("enumerate", "compose"):
        env = TrainEnv(variant="royal", action_mode=mode, dict_obs=mode == "enumerate",
                       opponent="random", auto_forced=False)
        env.reset(seed=1)
        teacher = make_agent("greedy")
        for _ in range(60):
            move = teacher.act(env.raw.state, env.seat)
            a = env.expert_action(teacher)
            assert env.action_masks()[a]
            if mode == "enumerate":
                assert env.raw._moves[a] == move
            _, _, terminated, _, _ = env.step(a)
            if terminated:
                env.reset()


def test_weighted_pool_has_the_weights():
    pool = weighted_pool({"heuristic": 3, "greedy": 1, "self": 2}, ["s1", "s2", "s3"])
    n = len(pool)
    assert pool.count("heuristic") / n == pytest.approx(0.5)
    assert pool.count("greedy") / n == pytest.approx(1 / 6)
    for s in ("s1", "s2", "s3"):
        assert pool.count(s) / n == pytest.approx(1 / 9)
    assert weighted_pool({"random": 1, "self": 1}) == ["random"]
    with pytest.raises(ValueError):
        weighted_pool({"self": 1})


def test_duplicate_baseline_scores_the_baseline_play_zero():
    env = TrainEnv(variant="casino", action_mode="enumerate", dict_obs=True, max_moves=32,
                   opponent="greedy", reward_scale=0.1, win_bonus=0.3, baseline="heuristic")
    teacher = make_agent("heuristic")
    env.reset(seed=2)
    raw = []
    while len(raw) < 8:
        _, reward, terminated, _, info = env.step(env.expert_action(teacher))
        if terminated:
            assert reward == pytest.approx(0.0)
            assert info["raw_reward"] == pytest.approx(info["baseline_reward"])
            raw.append(info["raw_reward"])
            env.reset()
    assert len(set(raw)) > 1  # the hands themselves differ


def test_heuristic_prior_policy_starts_as_the_heuristic():
    cfg = tiny_config("enumerate")
    cfg["env"].update(hints="heuristic", max_moves=64)
    cfg["policy"]["prior_temperature"] = 0.3
    agent = PPOAgent(_random_policy(cfg), env_config(cfg))
    res = play_match([agent, "heuristic"], "casino", 2, deals=4, seed=5, mode="hand")
    for deal in range(4):  # same deal from both seats: identical play, mirrored results
        a, b = (g for g in res.records if g.deal == deal)
        assert a.points[0][0] == b.points[0][1] and a.points[0][1] == b.points[0][0]


@pytest.mark.parametrize("mode", ["enumerate", "compose"])
def test_duplicate_baseline_from_the_first_deviation_equals_the_full_replay(mode):
    env = TrainEnv(variant="casino", action_mode=mode, dict_obs=mode == "enumerate",
                   opponent="heuristic", baseline="heuristic",
                   hints="heuristic" if mode == "enumerate" else None)
    teacher = make_agent("heuristic")
    rng = np.random.default_rng(1)
    env.reset(seed=4)
    hands = 0
    while hands < 6:
        a = env.expert_action(teacher)
        if rng.random() < 0.1:
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, _, terminated, _, _ = env.step(a)
        if terminated:
            assert env._fixed_opponents
            if env._deviation is not None:
                short = env._baseline_points()
                env._fixed_opponents = False
                assert env._baseline_points() == short
            hands += 1
            env.reset()


@pytest.mark.parametrize("variant", list_variants())
def test_committed_baselines_load_and_play(variant):
    """Each committed baseline (experiments/results/train/<variant>/model.zip) loads by name
    and plays legal moves through a duplicate deal (play_game checks every move)."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "experiments/results/train" / variant
    if not (path / "model.zip").exists():
        pytest.skip(f"no committed baseline for {variant}")
    agent = make_agent(f"ppo:{path / 'model.zip'}", seed=0)
    assert agent.env_config["variant"] == variant
    res = play_match([agent, "greedy"], variant, 2, deals=1, seed=5, mode="hand")
    assert len(res.records) == 2 and all(r.moves > 0 for r in res.records)


def test_ppo_spec_loads_in_a_fresh_interpreter():
    """make_agent("ppo:<path>") imports the PPO loader itself (the CLI's --opponent path)."""
    import subprocess
    import sys
    from pathlib import Path

    model = Path(__file__).resolve().parents[1] / "experiments/results/train/casino/model.zip"
    if not model.exists():
        pytest.skip("no committed casino baseline")
    code = ("import sys; from agents import make_agent; "
            "a = make_agent('ppo:' + sys.argv[1], seed=0); "
            "assert 'agents.ppo' in sys.modules; print(type(a).__name__)")
    out = subprocess.run([sys.executable, "-c", code, str(model)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "PPOAgent"


def test_set_overrides_one_setting_and_names_unknown_ones():
    """``--set SECTION.KEY=VALUE``: TOML values (numbers, tables), bare words as strings; an
    unknown key is refused with the known ones listed."""
    from experiments.train import parse_setting

    assert parse_setting("bc.score_temperature=1.5") == ("bc", "score_temperature", 1.5)
    assert parse_setting("bc.teacher=search:simulations=1000") == \
        ("bc", "teacher", "search:simulations=1000")
    assert parse_setting("eval.final_hands = {heuristic = 10}") == \
        ("eval", "final_hands", {"heuristic": 10})
    with pytest.raises(SystemExit, match="unknown setting 'bc.nope'.*bc.teacher"):
        parse_setting("bc.nope=1")
    with pytest.raises(SystemExit, match="expected SECTION.KEY=VALUE"):
        parse_setting("epochs=3")


def test_learning_curve_plot_survives_a_bound_a_rounding_error_past_the_estimate(tmp_path):
    """60 of 60 hands won: the Wilson upper bound can come out a hair below 1.0; the single
    evaluation point of a cloning-only run is still drawn (it once failed on 'negative yerr')."""
    from experiments.train import plot_curve

    row = {"timesteps": 0, "minutes": 14.8, "phase": "bc", "opponent": "random",
           "win_rate": 1.0, "wilson_lo": 0.94, "wilson_hi": 1.0 - 1e-12,
           "diff_per_hand": 13.2, "diff_lo": 13.2 + 1e-12, "diff_hi": 14.5}
    plot_curve([row], tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 1000


def test_evaluate_only_with_the_results_own_config(tmp_path):
    """Re-evaluating a saved model with ``--config <out>/config.toml`` (the file the run kept)
    rewrites its evaluation and leaves the config file as it was."""
    out = tmp_path / "casino"
    shutil.copytree("experiments/results/train/casino", out)
    before = (out / "config.toml").read_text()
    assert train_main(["--config", str(out / "config.toml"), "--out", str(out),
                       "--evaluate-only", "--quiet", "--set", "eval.final_hands={random=4}",
                       "--set", "eval.final_seed=7"]) == 0
    assert (out / "config.toml").read_text() == before
    rows = json.loads((out / "eval_final.json").read_text())
    assert [(r["opponent"], r["hands"]) for r in rows] == [("random", 4)]


SCRATCH = Path(__file__).resolve().parents[1] / "experiments" / "configs" / "scratch"


@pytest.mark.parametrize("variant", list_variants())
def test_every_two_player_preset_has_a_from_scratch_config(variant):
    """experiments/configs/scratch/<variant>.toml: compose mode, compact observation, sb3's
    MlpPolicy, no cloning, hints, baseline or prior, hand points as reward, a pool of the
    scripted agents and self-play, evaluation against random, greedy and the heuristic,
    3 hours with checkpoints every 10 minutes, a run folder per seed."""
    from experiments.train import check_from_scratch, load_config, run_dir

    cfg = load_config(SCRATCH / f"{variant}.toml")
    check_from_scratch(cfg)
    e, p, r = cfg["env"], cfg["ppo"], cfg["run"]
    assert r["from_scratch"] is True and e["variant"] == variant and e["players"] == 2
    assert (e["action_mode"], e["observation"], e["reward"]) == ("compose", "compact", "points")
    assert not e["hints"] and not e["baseline"] and cfg["bc"]["decisions"] == 0
    assert cfg["policy"]["prior_temperature"] == 0 and cfg["policy"]["net_arch"] == [256, 256]
    assert set(cfg["opponents"]["pool"]) == {"random", "greedy", "heuristic", "self"}
    assert set(cfg["eval"]["hands"]) == {"random", "greedy", "heuristic"}
    assert min(cfg["eval"]["hands"].values()) >= 400 and cfg["eval"]["every"] > 0
    assert p["vec"] == "subproc" and p["workers"] == 2 and 8 <= p["n_envs"] <= 16
    assert r["time_limit_minutes"] == 180 and r["checkpoint_minutes"] == 10
    assert run_dir(cfg) == Path(f"runs/train/scratch_{variant}_s0")
    cfg["run"]["seed"] = 3
    assert run_dir(cfg) == Path(f"runs/train/scratch_{variant}_s3")
    assert {f.stem for f in SCRATCH.glob("*.toml")} == set(list_variants())


def test_the_move_scorer_from_scratch_config_differs_only_in_policy_and_action_mode():
    """experiments/configs/scratch_scorer/casino.toml, the second from-scratch baseline:
    enumerate mode and the full observation (the move-scoring policy reads the card planes
    and each move's action_features), randomly initialised (no prior), and otherwise the
    compose baseline's reward, pool, PPO settings and budget, so the two compare."""
    from experiments.train import check_from_scratch, load_config, run_dir

    cfg = load_config(SCRATCH.parent / "scratch_scorer" / "casino.toml")
    base = load_config(SCRATCH / "casino.toml")
    check_from_scratch(cfg)
    assert (cfg["env"]["action_mode"], cfg["env"]["observation"]) == ("enumerate", "full")
    assert cfg["policy"]["prior_temperature"] == 0 and cfg["bc"]["decisions"] == 0
    for section in ("opponents", "ppo"):
        assert cfg[section] == base[section], section
    differ = {k for k in base["env"] if cfg["env"][k] != base["env"][k]}
    assert differ == {"action_mode", "observation"}
    assert cfg["run"]["time_limit_minutes"] == 180 and cfg["run"]["from_scratch"] is True
    assert run_dir(cfg) == Path("runs/train/scorer_casino_s0")


@pytest.mark.parametrize(("setting", "value", "named"), [
    ("env.hints", "heuristic", "env.hints = 'heuristic' puts the heuristic's move scores"),
    ("env.baseline", "heuristic", "env.baseline = 'heuristic' puts the heuristic's hand"),
    ("bc.decisions", 100, "bc.decisions = 100 clones the heuristic's moves"),
    ("bc.load_demos", "demos.npz", "bc.load_demos = 'demos.npz'"),
    ("bc.dagger_rounds", 1, "bc.dagger_rounds = 1"),
    ("policy.prior_temperature", 0.3, "policy.prior_temperature = 0.3 starts the policy"),
])
def test_a_from_scratch_config_refuses_scripted_knowledge(tmp_path, setting, value, named):
    """run.from_scratch = true: train refuses (before any work) each setting that gives the
    learner a scripted agent's moves, scores or outcomes, and names it."""
    from experiments.train import check_from_scratch, load_config

    section, key = setting.split(".")
    cfg = load_config(SCRATCH / "casino.toml", {section: {key: value}})
    with pytest.raises(ValueError, match=re.escape(named)):
        check_from_scratch(cfg)
    with pytest.raises(ValueError, match="run.from_scratch = true, but"):
        train(cfg, tmp_path, tmp_path)
    assert not list(tmp_path.iterdir())
    text = value if isinstance(value, (int, float)) else f'"{value}"'
    with pytest.raises(SystemExit, match=re.escape(named)):
        train_main(["--config", str(SCRATCH / "casino.toml"), "--set", f"{setting}={text}",
                    "--out", str(tmp_path)])
    cfg["run"]["from_scratch"] = False  # the same settings are fine in a run not so labelled
    check_from_scratch(cfg)


def test_a_from_scratch_run_says_so_in_its_results(tmp_path):
    """eval_final.md of a from-scratch run: "RL from scratch: MaskablePPO MlpPolicy ...",
    its steps, frames/s, opponents and what from scratch excludes; train_log.json has the
    frames/s beside the connect-four reference of experiments.bench_train."""
    from experiments.train import connect_four_reference, load_config

    cfg = load_config(SCRATCH / "casino.toml", {
        "policy": {"net_arch": [32, 32]},
        "ppo": {"timesteps": 1024, "n_envs": 4, "vec": "dummy", "n_steps": 256,
                "batch_size": 256, "n_epochs": 1},
        "eval": {"every": 512, "hands": {"random": 2, "greedy": 2, "heuristic": 2},
                 "final_hands": {"random": 2}},
        "run": {"progress": False, "verbose": False}})
    log = train(cfg, tmp_path, tmp_path)
    text = (tmp_path / "eval_final.md").read_text()
    assert text.startswith("# RL from scratch: MaskablePPO MlpPolicy [32, 32], casino 2 "
                           "players (compose mode)\n")
    assert "RL from scratch: MaskablePPO MlpPolicy [32, 32], 1,024 steps in " in text
    assert ("opponents weighted random 1, greedy 1, heuristic 2 and self-play snapshots 2 "
            "(the last 5, one every 200,000 steps)") in text
    assert "No scripted agent's moves, move scores or hand outcomes" in text
    assert log["from_scratch"] and log["run"] == "scratch_casino_s0"
    ref = connect_four_reference()
    if ref is not None:  # the committed experiments/results/bench_train.csv
        assert log["ppo"]["connect_four_reference"] == ref
        assert log["ppo"]["vs_connect_four"] == pytest.approx(
            log["ppo"]["frames_per_second"] / ref["frames_per_second"])
    header = (tmp_path / "learning_curve.csv").read_text().splitlines()[0].split(",")
    assert header[:2] == ["timesteps", "minutes"]


def test_learning_curve_plot_has_steps_and_minutes_axes(tmp_path, monkeypatch):
    """The learning curve PNG: hands won and points per hand, each against environment steps
    and against wall-clock minutes."""
    import matplotlib.pyplot as plt

    from experiments.train import plot_curve

    labels = []
    real_savefig = plt.Figure.savefig

    def spy(fig, *args, **kwargs):
        labels.extend(ax.get_xlabel() for ax in fig.axes)
        return real_savefig(fig, *args, **kwargs)

    monkeypatch.setattr(plt.Figure, "savefig", spy)
    rows = [{"timesteps": t, "minutes": t / 1000, "phase": "ppo", "opponent": o,
             "win_rate": 0.5, "wilson_lo": 0.4, "wilson_hi": 0.6, "diff_per_hand": 0.0,
             "diff_lo": -1.0, "diff_hi": 1.0} for t in (0, 1000, 2000)
            for o in ("random", "heuristic")]
    plot_curve(rows, tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 1000
    assert labels == ["environment steps", "wall-clock minutes of the run (over resumptions)"] * 2


TINY_RUN = """
[env]
variant = "casino"
action_mode = "compose"
observation = "compact"
[policy]
net_arch = [32, 32]
[ppo]
timesteps = 128
n_envs = 2
n_steps = 32
batch_size = 64
n_epochs = 1
[opponents]
pool = {random = 1, self = 1}
snapshot_every = 64
snapshots = 2
[eval]
every = 64
hands = {random = 4}
final_hands = {random = 2}
[run]
time_limit_minutes = %s
checkpoint_every = 64
checkpoint_minutes = 0.0
progress = false
verbose = false
"""


def _tiny_run(tmp_path: Path, minutes: float = 5.0) -> tuple[list[str], Path]:
    """The command line of a 128-step run (2 envs, evaluated every 64 steps) and its --out."""
    config = tmp_path / "tiny.toml"
    config.write_text(TINY_RUN % minutes)
    out = tmp_path / "out"
    return ["--config", str(config), "--out", str(out), "--runs", str(tmp_path / "runs"),
            "--quiet"], out


@pytest.fixture
def no_plots(monkeypatch):
    """The learning-curve and diagnostics PNGs not drawn (most of a tiny run's time)."""
    for name in ("plot_curve", "plot_diagnostics"):
        monkeypatch.setattr(f"experiments.train.{name}", lambda rows, path: None)


def _curve_steps(out: Path) -> list[int]:
    return [int(line.split(",")[0]) for line in
            (out / "learning_curve.csv").read_text().splitlines()[1:]]


def test_a_finished_run_resumes_with_more_steps(tmp_path, capsys, no_plots):
    """--resume with a larger --steps trains a finished run on from its last checkpoint to the
    new total (each step counted once, each curve row once); with no larger budget it says
    there is nothing to resume and what to raise."""
    args, out = _tiny_run(tmp_path)
    assert train_main(args) == 0
    first = json.loads((out / "train_log.json").read_text())
    assert first["ppo"]["timesteps"] == 128 and not first["ppo"]["stopped_by_time_limit"]
    capsys.readouterr()
    assert train_main(args + ["--resume"]) == 0
    said = capsys.readouterr().out
    assert "the run is finished (128 PPO steps" in said and "nothing to resume" in said
    assert "resume with --steps above 128" in said
    assert json.loads((out / "train_log.json").read_text()) == first
    before = (out / "learning_curve.csv").read_text().splitlines()
    assert train_main(args + ["--steps", "256", "--resume"]) == 0
    log = json.loads((out / "train_log.json").read_text())
    assert log["finished"] and log["run_id"] == first["run_id"]
    assert log["ppo"]["timesteps"] == 256 and log["ppo"]["resumed_at_steps"] == [128]
    assert _curve_steps(out) == [0, 64, 128, 192, 256]
    assert (out / "learning_curve.csv").read_text().splitlines()[:4] == before
    capsys.readouterr()
    assert train_main(args + ["--steps", "256", "--resume"]) == 0
    assert "the run is finished (256 PPO steps" in capsys.readouterr().out


def test_a_run_stopped_by_its_time_limit_resumes_with_more_minutes(tmp_path, capsys,
                                                                   no_plots):
    """A run out of time (the limit counts all sessions) trains on when --minutes raises it."""
    args, out = _tiny_run(tmp_path, minutes=0.001)
    assert train_main(args) == 0
    first = json.loads((out / "train_log.json").read_text())["ppo"]
    assert first["stopped_by_time_limit"] and first["timesteps"] < 128
    capsys.readouterr()
    assert train_main(args + ["--resume"]) == 0
    assert "resume with --minutes above" in capsys.readouterr().out
    assert train_main(args + ["--minutes", "5", "--resume"]) == 0
    ppo = json.loads((out / "train_log.json").read_text())["ppo"]
    assert ppo["timesteps"] == 128 and not ppo["stopped_by_time_limit"]
    assert ppo["resumed_at_steps"] == [first["timesteps"]]
    steps = _curve_steps(out)
    assert steps == sorted(set(steps)) and steps[-1] == 128
