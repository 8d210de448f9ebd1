"""Fine-tuning after cloning (issue 17 item 2): ``ppo.init_model`` loads a trained model's exact
weights (and refuses a model of another environment or network, or cloning on top of it);
the value warm-up moves only the critic; the KL anchor's gradient is zero at the start policy,
is exactly that of adding beta * KL to PPO's loss, and holds a run near its start policy;
the defaults give bit-for-bit the run plain MaskablePPO gives, and checkpoints written before
these settings existed still resume; the study script runs end to end and skips what it has.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import gymnasium  # noqa: F401  (before casino_env.single)
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402

import experiments.train as train_mod  # noqa: E402
from experiments import finetune_study  # noqa: E402
from experiments.finetune import (  # noqa: E402
    FineTunePPO,
    log_probs,
    masked_kl,
    policy_parameters,
    value_parameter_names,
)
from experiments.train import (  # noqa: E402
    Checkpoint,
    build_model,
    check_fine_tuning,
    check_from_scratch,
    config_changes,
    env_kwargs,
    latest_checkpoint,
    load_config,
    load_init_model,
    train,
)
from experiments.train_env import make_train_vec_env  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "experiments/results/train/casino/model.zip"
CASINO = ROOT / "experiments/configs/casino.toml"
IT = 1024  # steps of one PPO iteration below: 4 environments x 256 steps


def tiny(**over) -> dict:
    """A small enumerate-mode config: no cloning, no evaluation, 1,024 steps an iteration."""
    cfg = load_config(None, {
        "env": {"variant": "casino", "action_mode": "enumerate", "max_moves": 32},
        "policy": {"hidden": 32, "pair_hidden": 16, "layers": 1},
        "ppo": {"timesteps": 2 * IT, "n_envs": 4, "vec": "dummy", "n_steps": 256,
                "batch_size": 256, "n_epochs": 2},
        "opponents": {"pool": {"random": 1, "greedy": 1}},
        "eval": {"every": 0, "final_hands": {}},
        "run": {"checkpoint_every": IT, "checkpoint_minutes": 0, "progress": False,
                "verbose": False},
    })
    for section, values in over.items():
        cfg[section].update(values)
    return cfg


def policy_state(path: Path) -> dict:
    return MaskablePPO.load(path, device="cpu").policy.state_dict()


def split(state: dict, policy) -> tuple[dict, dict]:
    """(critic's tensors, the policy's) of a policy state dict."""
    value = set(value_parameter_names(policy))
    return ({k: v for k, v in state.items() if k in value},
            {k: v for k, v in state.items() if k not in value and "." in k})


def same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture
def model_and_batch():
    """A tiny FineTunePPO with its start policy set, and a batch of its environments' states
    (observations as tensors, action masks)."""
    cfg = tiny()
    venv = make_train_vec_env(env_kwargs(cfg), 8, 0)
    try:
        model = build_model(cfg, venv, None, seed=0)
        model.set_start_policy()
        obs_np = venv.reset()
        obs, masks = [], []
        for _ in range(6):  # a few steps in, so that the states have choices
            m = get_action_masks(venv)
            obs.append(obs_np)
            masks.append(m)
            acts = np.array([np.flatnonzero(row)[0] for row in m])
            obs_np, *_ = venv.step(acts)
    finally:
        venv.close()
    batch = {k: torch.as_tensor(np.concatenate([o[k] for o in obs])) for k in obs[0]}
    return model, batch, torch.as_tensor(np.concatenate(masks))


# -- value warm-up ---------------------------------------------------------------------------

def test_value_warmup_moves_only_the_critic_then_ppo_moves_the_policy(tmp_path):
    cfg = tiny(ppo={"value_warmup_steps": IT, "value_warmup_learning_rate": 1e-3},
               run={"save_every": IT})
    out = tmp_path / "out"
    train(cfg, out, out)
    start_sd = torch.load(latest_checkpoint(out / "checkpoints") / "start_policy.pt",
                          weights_only=True)
    policy = MaskablePPO.load(out / "model.zip", device="cpu").policy
    value0, pol0 = split(start_sd, policy)
    value1, pol1 = split(policy_state(out / "models" / f"step_{IT}" / "model.zip"), policy)
    value2, pol2 = split(policy.state_dict(), policy)
    assert value0 and pol0
    assert same(pol1, pol0)  # the warm-up iteration: the policy's weights untouched ...
    assert not same(value1, value0)  # ... the critic's moved
    assert not same(pol2, pol1)  # then PPO proper moves the policy
    with (out / "ppo_diagnostics.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [r["phase"] for r in rows] == ["warmup", "ppo"]
    assert float(rows[0]["learning_rate"]) == 1e-3 and float(rows[1]["learning_rate"]) == 3e-4
    assert float(rows[0]["kl_to_start"]) == 0 and float(rows[0]["argmax_changed"]) == 0
    assert float(rows[1]["kl_to_start"]) > 0
    assert (out / "ppo_diagnostics.png").exists()


def test_the_critic_is_the_value_net_only():
    cfg = tiny()
    venv = make_train_vec_env(env_kwargs(cfg), 1, 0)
    try:
        policy = build_model(cfg, venv, None, seed=0).policy
    finally:
        venv.close()
    names = value_parameter_names(policy)
    assert names and all("value_net" in n for n in names)
    assert len(names) + len(policy_parameters(policy)) == len(list(policy.parameters()))
    assert any(n.startswith("mlp_extractor.logit") for n, _ in policy.named_parameters()
               if n not in names)


# -- KL anchor -------------------------------------------------------------------------------

def test_anchor_gradient_is_zero_at_the_start_policy(model_and_batch):
    model, obs, masks = model_and_batch
    model.kl_anchor = 1.0
    model.policy.optimizer.zero_grad()
    loss = model.anchor_loss(obs, masks)
    assert float(loss.detach()) == pytest.approx(0.0, abs=1e-7)
    loss.backward()
    grads = [p.grad for p in model.policy.parameters() if p.grad is not None]
    assert grads and all(float(g.abs().max()) < 1e-6 for g in grads)


def _perturb(model, scale: float = 0.3) -> None:
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in policy_parameters(model.policy):
            p.add_(torch.randn(p.shape, generator=gen) * scale)


def test_anchor_pulls_a_perturbed_policy_back(model_and_batch):
    model, obs, masks = model_and_batch
    model.kl_anchor = 1.0
    _perturb(model)
    with torch.no_grad():
        kl0 = float(masked_kl(log_probs(model.start_policy, obs, masks),
                              log_probs(model.policy, obs, masks), masks).mean())
    assert kl0 > 0.01
    opt = torch.optim.Adam(model.policy.parameters(), lr=3e-3)
    for _ in range(40):
        opt.zero_grad()
        model.anchor_loss(obs, masks).backward()
        opt.step()
    with torch.no_grad():
        kl1 = float(masked_kl(log_probs(model.start_policy, obs, masks),
                              log_probs(model.policy, obs, masks), masks).mean())
    assert kl1 < 0.3 * kl0


def test_anchor_gradient_is_that_of_adding_the_kl_to_the_loss(model_and_batch):
    """Inside ``_anchored``, sb3's sequence (evaluate_actions, zero_grad, backward) leaves
    the gradient of loss + beta * KL(start || policy) on the minibatch, to float precision."""
    model, obs, masks = model_and_batch
    model.kl_anchor = 2.5
    _perturb(model)
    policy = model.policy
    actions = torch.as_tensor([int(np.flatnonzero(m)[-1]) for m in masks.numpy()])

    def ppo_like_loss():
        values, logp, entropy = policy.evaluate_actions(obs, actions, action_masks=masks)
        return -logp.mean() + 0.5 * values.pow(2).mean() - 0.01 * entropy.mean()

    with model._anchored():
        loss = ppo_like_loss()
        policy.optimizer.zero_grad()  # (the wrapper: zero, then the anchor's backward)
        loss.backward()
        got = [p.grad.clone() for p in policy.parameters()]
    assert policy.evaluate_actions.__func__ is type(policy).evaluate_actions  # unwrapped
    assert isinstance(policy.optimizer, torch.optim.Adam)  # the wrapper removed
    policy.optimizer.zero_grad()
    (ppo_like_loss() + model.anchor_loss(obs, masks)).backward()
    want = [p.grad.clone() for p in policy.parameters()]
    for g, w in zip(got, want):
        assert torch.allclose(g, w, atol=1e-6, rtol=1e-5)
    assert any(float(g.abs().max()) > 0 for g in got)


def _drift(beta: float) -> FineTunePPO:
    cfg = tiny(ppo={"learning_rate": 3e-3, "kl_anchor": beta, "n_epochs": 4})
    venv = make_train_vec_env(env_kwargs(cfg), 4, 0)
    try:
        model = build_model(cfg, venv, None, seed=0)
        model.set_start_policy()
        model.learn(2 * IT)
    finally:
        venv.close()
    return model


def test_a_large_anchor_keeps_the_run_near_its_start_policy():
    free, anchored = _drift(0.0), _drift(50.0)
    kl_free = free.diagnostics[-1]["kl_to_start"]
    kl_anchored = anchored.diagnostics[-1]["kl_to_start"]
    assert kl_free > 1e-3  # a learning rate of 3e-3 moves it
    assert kl_anchored < 0.2 * kl_free
    assert np.isnan(free.diagnostics[-1]["anchor_kl"])
    assert anchored.diagnostics[-1]["anchor_kl"] >= 0


# -- ppo.init_model --------------------------------------------------------------------------

def fine_tune_config(**ppo) -> dict:
    cfg = load_config(CASINO, {
        "bc": {"decisions": 0},
        "ppo": {"timesteps": 0, "n_envs": 2, "vec": "dummy", "init_model": str(SHIPPED),
                **ppo},
        "eval": {"every": 0, "final_hands": {}},
        "run": {"progress": False, "verbose": False}})
    return cfg


def test_init_model_loads_the_exact_weights(tmp_path):
    out = tmp_path / "out"
    log = train(fine_tune_config(), out, out)
    want, got = policy_state(SHIPPED), policy_state(out / "model.zip")
    assert same(want, got)
    assert log["init_model"]["sha256"] and log["init_model"]["path"] == str(SHIPPED)
    assert "bc" not in log or not log["bc"]  # no cloning
    start = torch.load(latest_checkpoint(out / "checkpoints") / "start_policy.pt",
                       weights_only=True)
    assert same(start, want)  # the anchor's pi_start is the loaded model


def _load_into(cfg: dict) -> None:
    venv = make_train_vec_env(env_kwargs(cfg), 1, 0)
    try:
        load_init_model(build_model(cfg, venv, None, seed=0), cfg)
    finally:
        venv.close()


def test_init_model_refuses_another_network_or_environment(tmp_path):
    cfg = fine_tune_config()
    cfg["policy"]["hidden"] = 64
    with pytest.raises(ValueError, match=r"another network: policy\.hidden \(128 in the model, "
                                         r"64 in the config\)"):
        _load_into(cfg)
    cfg = fine_tune_config()
    cfg["env"]["max_moves"] = 32
    with pytest.raises(ValueError, match=r"another environment: env\.max_moves \(64 in the "
                                         r"model, 32 in the config\)"):
        _load_into(cfg)
    cfg = fine_tune_config(init_model=str(tmp_path / "none.zip"))
    with pytest.raises(ValueError, match="no model file"):
        _load_into(cfg)


def test_init_model_refuses_cloning_and_from_scratch():
    cfg = fine_tune_config()
    cfg["bc"]["decisions"] = 16_000
    with pytest.raises(ValueError, match=r"bc\.decisions = 16000 would clone a teacher first; "
                                         r"set bc\.decisions = 0"):
        check_fine_tuning(cfg)
    cfg = load_config(ROOT / "experiments/configs/scratch/casino.toml",
                      {"ppo": {"init_model": str(SHIPPED)}})
    with pytest.raises(ValueError, match="ppo.init_model .* starts from a trained model"):
        check_from_scratch(cfg)
    for setting, value, named in (("value_warmup_steps", -1, "value_warmup_steps"),
                                  ("kl_anchor", -0.5, "kl_anchor"),
                                  ("value_warmup_learning_rate", 0, "value_warmup_learning")):
        cfg = fine_tune_config(**{setting: value})
        with pytest.raises(ValueError, match=named):
            check_fine_tuning(cfg)


def test_init_model_from_the_command_line(tmp_path, capsys):
    out = tmp_path / "cli"
    train_mod.main(["--config", str(CASINO), "--bc-decisions", "0", "--steps", "0", "--quiet",
                    "--set", f"ppo.init_model={SHIPPED}", "--set", "ppo.n_envs=2",
                    "--set", "ppo.vec=dummy", "--set", "eval.every=0",
                    "--set", "eval.final_hands={}", "--out", str(out), "--runs", str(out)])
    assert same(policy_state(SHIPPED), policy_state(out / "model.zip"))
    with pytest.raises(SystemExit, match="set bc.decisions = 0"):
        train_mod.main(["--config", str(CASINO), "--set", f"ppo.init_model={SHIPPED}",
                        "--out", str(tmp_path / "refused"), "--runs", str(tmp_path)])


# -- the defaults change nothing --------------------------------------------------------------

def test_every_shipped_config_keeps_the_defaults():
    configs = sorted((ROOT / "experiments/configs").rglob("*.toml"))
    assert len(configs) >= 14
    for path in configs:
        cfg = load_config(path)
        p = cfg["ppo"]
        assert (p["init_model"], p["value_warmup_steps"], p["kl_anchor"],
                p["value_warmup_learning_rate"], cfg["run"]["save_every"]) == \
            ("", 0, 0.0, None, 0), path


def test_defaults_give_plain_maskableppo_bit_for_bit(monkeypatch):
    """Same seed: FineTunePPO with the defaults (diagnostics on, start policy set) and sb3's
    MaskablePPO end two iterations with identical weights and random generator states."""
    def run(plain: bool):
        cfg = tiny()
        if plain:
            monkeypatch.setattr(train_mod, "FineTunePPO", lambda *a, value_warmup_steps,
                                value_warmup_learning_rate, kl_anchor, **kw:
                                MaskablePPO(*a, **kw))
        venv = make_train_vec_env(env_kwargs(cfg), 4, 0)
        try:
            model = build_model(cfg, venv, None, seed=0)
            assert isinstance(model, FineTunePPO) != plain
            if not plain:
                model.set_start_policy()
            model.learn(2 * IT)
        finally:
            venv.close()
        monkeypatch.undo()
        return (model.policy.state_dict(), torch.get_rng_state(), np.random.get_state()[1],
                getattr(model, "diagnostics", None))

    sd_new, torch_new, np_new, diag = run(plain=False)
    sd_old, torch_old, np_old, _ = run(plain=True)
    assert same(sd_new, sd_old)
    assert torch.equal(torch_new, torch_old) and np.array_equal(np_new, np_old)
    assert len(diag) == 2 and all(r["kl_to_start"] > 0 for r in diag)  # after each update


def test_a_checkpoint_written_before_these_settings_still_resumes():
    """The committed from-scratch resume point's config has none of the new settings: they
    read as their defaults, so --resume accepts it; a new setting that differs is named."""
    ckpt = Checkpoint.read(ROOT / "experiments/checkpoints/scratch_casino_s0/checkpoints/"
                                  "step_8003584")
    assert "kl_anchor" not in ckpt.config["ppo"] and ckpt.diagnostics == []
    cfg = load_config(ROOT / "experiments/configs/scratch/casino.toml")
    assert config_changes(ckpt.config, cfg) == []
    cfg["ppo"]["kl_anchor"] = 1.0
    assert config_changes(ckpt.config, cfg) == [
        "ppo.kl_anchor (0.0 in the checkpoint, 1.0 now)"]


def test_an_anchored_run_resumes_with_its_start_policy_and_diagnostics(tmp_path, monkeypatch):
    cfg = tiny(ppo={"kl_anchor": 1.0, "learning_rate": 1e-3})
    out = tmp_path / "run"
    real = train_mod.write_checkpoint

    class Stop(Exception):
        pass

    def stop_after(root, model, cfg, snapshots, state, *args, **kwargs):
        path = real(root, model, cfg, snapshots, state, *args, **kwargs)
        if state.timesteps >= IT:
            raise Stop
        return path

    monkeypatch.setattr(train_mod, "write_checkpoint", stop_after)
    with pytest.raises(Stop):
        train(cfg, out, out)
    monkeypatch.undo()
    start = torch.load(out / "checkpoints" / f"step_{IT}" / "start_policy.pt",
                       weights_only=True)
    train(cfg, out, out, resume=True)
    last = latest_checkpoint(out / "checkpoints")
    assert last.name == f"step_{2 * IT}"
    assert same(torch.load(last / "start_policy.pt", weights_only=True), start)
    rows = Checkpoint.read(last).diagnostics
    assert [r["iteration"] for r in rows] == [1, 2] and rows[1]["kl_to_start"] > 0


# -- the study -------------------------------------------------------------------------------

def test_plan_rounds_to_whole_iterations_and_points():
    cfg = load_config(CASINO)
    plan = finetune_study.plan_steps(cfg, 500_000, 3, 0.1)
    # 500,000 / 3 / 2,048 = 81.4 iterations a point, rounded up to 82; warm-up 24.6 -> 25
    assert plan == {"steps": 503_808, "every": 167_936, "warmup": 51_200, "iteration": 2048}
    assert finetune_study.plan_steps(cfg, 1, 1, 0.0)["steps"] == 2048
    with pytest.raises(ValueError, match="warm-up"):
        finetune_study.plan_steps(cfg, 4096, 1, 1.0)


def test_arms_follow_from_the_config():
    cfg = load_config(CASINO)
    arms = finetune_study.make_arms(cfg, 8192, 2.0, 10.0)
    assert arms["A"].overrides == {}
    assert arms["C"].overrides == {"ppo": {"learning_rate": 3e-5}}
    assert arms["E"].overrides == {"ppo": {"value_warmup_steps": 8192, "learning_rate": 3e-5,
                                           "kl_anchor": 2.0,
                                           "value_warmup_learning_rate": 3e-4}}
    assert arms["F"].overrides == {"env": {"baseline": ""}}
    assert [a.letter for a in finetune_study.parse_arms("e, A,recipe", arms)] == ["E", "A"]
    with pytest.raises(SystemExit, match="unknown arm 'Z'"):
        finetune_study.parse_arms("A,Z", arms)


def test_paired_change_is_over_the_same_deals():
    before = {"deal_scores": [0.5, 1.0, 0.0, 0.5], "deal_diffs": [0, 4, -4, 2],
              "deal_hands": [2, 2, 2, 2]}
    after = {"deal_scores": [1.0, 1.0, 0.0, 0.5], "deal_diffs": [2, 4, -2, 2],
             "deal_hands": [2, 2, 2, 2]}
    ch = finetune_study.paired_change(after, before)
    assert ch["delta"] == pytest.approx(0.125) and ch["points_delta"] == pytest.approx(0.5)
    assert ch["delta_lo"] < 0.125 < ch["delta_hi"]
    with pytest.raises(ValueError, match="different deals"):
        finetune_study.paired_change({**after, "deal_scores": [1.0]}, before)


def test_the_study_runs_end_to_end_and_skips_what_it_has(tmp_path, capsys):
    out = tmp_path / "study"
    args = ["--out", str(out), "--arms", "E", "--steps", "1024", "--points", "2",
            "--warmup", "0.5", "--hands", "2", "--unseen-hands", "2", "--workers", "1",
            "--quiet", "--set", "ppo.n_envs=2", "--set", "ppo.vec=dummy",
            "--set", "ppo.n_steps=256", "--set", "ppo.batch_size=256"]
    assert finetune_study.main(args) == 0
    for name in ("results.csv", "results.md", "win_rate.png", "diagnostics.csv",
                 "diagnostics.png", "study.json", "E_recipe/model.zip",
                 "E_recipe/models/step_512/model.zip", "E_recipe/ppo_diagnostics.csv"):
        assert (out / name).exists(), name
    with (out / "results.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["arm"], r["steps"], r["opponent"]) for r in rows] == [
        ("start", "0", "heuristic"), ("start", "0", "heuristic:threat=0.3,residue=0.5"),
        ("E", "512", "heuristic"), ("E", "512", "heuristic:threat=0.3,residue=0.5"),
        ("E", "1024", "heuristic"), ("E", "1024", "heuristic:threat=0.3,residue=0.5")]
    assert all(r["hands"] == "2" for r in rows)
    with (out / "diagnostics.csv").open() as f:
        diag = list(csv.DictReader(f))
    assert [(r["arm"], r["phase"]) for r in diag] == [("E", "warmup"), ("E", "ppo")]
    md = (out / "results.md").read_text()
    assert "| E recipe | B + C + D" in md and "heuristic:threat=0.3,residue=0.5" in md
    study = json.loads((out / "study.json").read_text())
    assert study["plan"]["steps"] == 1024 and study["arms"]["E"]["ppo"]["kl_anchor"] == 1.0
    # Run again: the arm is finished and every evaluation is kept, so nothing is redone.
    model = (out / "E_recipe/model.zip").stat().st_mtime_ns
    evals = {p: p.stat().st_mtime_ns for p in (out / "evals").iterdir()}
    capsys.readouterr()
    assert finetune_study.main(args) == 0
    assert "the run is finished" in capsys.readouterr().out
    assert (out / "E_recipe/model.zip").stat().st_mtime_ns == model
    assert {p: p.stat().st_mtime_ns for p in (out / "evals").iterdir()} == evals
