"""The move scorer's table sums (``policy.table_sums``): for each move, which sums 1..16 the
loose cards it leaves can make, computed from the card planes with each preset's table values
(C-capture's sums; V-royal-values' court values; V-kryp-values' two copies)."""

from __future__ import annotations

import itertools
import random

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from agents.ppo import REACH, CardSummaries, table_values  # noqa: E402
from casino_env.engine.rules import make_rules  # noqa: E402

SEGMENTS = {"hand": [0, 52], "loose": [52, 52], "builds": [104, 0], "piles": [104, 0],
            "known_hands": [104, 0]}


def summaries(variant: str) -> CardSummaries:
    rules = make_rules(variant, 2)
    return CardSummaries(SEGMENTS, rules.deck.size // rules.deck.copies,
                         **table_values(rules))


def kind(rank: int, suit: int = 0) -> int:
    """Card plane of a rank (1 = ace .. 13 = king) and suit."""
    return (rank - 1) * 4 + suit


def sums_of(s: CardSummaries, planes: dict[int, float]) -> set[int]:
    x = torch.zeros(1, 52)
    for k, v in planes.items():
        x[0, k] = v
    reach = s.sums(x)[0]
    assert reach[0] == 1
    return {t for t in range(1, REACH + 1) if reach[t] > 0}


def test_known_tables():
    casino = summaries("casino")
    assert sums_of(casino, {kind(3): 1, kind(5, 1): 1}) == {3, 5, 8}
    assert sums_of(casino, {kind(5): 1, kind(5, 2): 1}) == {5, 10}
    assert sums_of(casino, {kind(13): 1, kind(12, 3): 1}) == set()  # C-face: courts only pair
    assert sums_of(casino, {kind(1): 1, kind(13): 1, kind(9): 1}) == {1, 9, 10}
    royal = summaries("royal")  # V-royal-values: J 11, Q 12, K 13, an ace 1 on the table
    assert sums_of(royal, {kind(13): 1, kind(1, 2): 1}) == {1, 13, 14}
    kryp = summaries("krypkasino")  # a plane holds copies / 2 (V-kryp-values)
    assert sums_of(kryp, {kind(7): 1.0}) == {7, 14}
    assert sums_of(kryp, {kind(7): 0.5, kind(2, 3): 0.5}) == {2, 7, 9}
    assert sums_of(summaries("tuxedo"), {kind(10): 1, kind(6, 1): 1}) == {6, 10, 16}


@pytest.mark.parametrize("variant", ["casino", "royal", "krypkasino", "finnish"])
def test_sums_equal_brute_force_on_random_tables(variant):
    rules = make_rules(variant, 2)
    s = summaries(variant)
    copies = rules.deck.copies
    values = table_values(rules)["values"]
    rng = random.Random(7)
    for _ in range(150):
        cards = rng.sample(range(rules.deck.size), rng.randint(0, 9))
        planes: dict[int, float] = {}
        for c in cards:
            planes[c // copies] = planes.get(c // copies, 0.0) + 1.0 / copies
        vals = [values[c // copies] for c in cards if values[c // copies]]
        expect = {sum(sub) for n in range(1, len(vals) + 1)
                  for sub in itertools.combinations(vals, n) if sum(sub) <= REACH}
        assert sums_of(s, planes) == expect, (variant, sorted(cards))


def test_a_scorer_with_table_sums_saves_loads_and_plays(tmp_path):
    from agents import play_match
    from agents.ppo import PPOAgent, save_env_config
    from experiments import exit as ex
    from experiments.train import env_config

    cfg = ex.load_config(None, {"env": {"max_moves": 24}, "policy": {
        "hidden": 16, "pair_hidden": 8, "table_sums": True}})
    model = ex.new_model(cfg, 0)
    assert model.policy.mlp_extractor.summaries.move_dim == 52 + 3 * 13 + 2 + REACH
    model.save(tmp_path / "model.zip")
    save_env_config(tmp_path / "model.zip", env_config(ex.train_cfg(cfg)))
    agent = PPOAgent.load(tmp_path / "model.zip")
    assert agent.policy.mlp_extractor.summaries.values == list(range(1, 11))
    res = play_match([agent, "greedy"], "casino", 2, deals=1, seed=0, mode="hand")
    assert len(res.records) == 2


def test_table_sums_is_a_setting_of_the_training_config():
    from experiments.train import check_from_scratch, load_config

    cfg = load_config("experiments/configs/scratch_scorer/casino.toml",
                      {"policy": {"table_sums": True}})
    check_from_scratch(cfg)  # a rules fact, not a scripted agent's knowledge: allowed
    assert cfg["policy"]["table_sums"] is True


def test_the_table_sums_config_is_the_move_scorer_config_plus_the_sums():
    """experiments/configs/scratch_sums/casino.toml changes nothing but policy.table_sums (and
    its run's name), so its curve compares with the move scorer's."""
    from experiments.train import check_from_scratch, load_config, run_dir

    sums = load_config("experiments/configs/scratch_sums/casino.toml")
    scorer = load_config("experiments/configs/scratch_scorer/casino.toml")
    check_from_scratch(sums)
    assert sums["policy"]["table_sums"] is True and scorer["policy"]["table_sums"] is False
    for section in scorer:
        diff = {k for k in scorer[section] if scorer[section][k] != sums[section].get(k)}
        assert diff == {"policy": {"table_sums"}, "run": {"name"}}.get(section, set()), section
    assert run_dir(sums).name == "sums_casino_s0"


@pytest.mark.parametrize("variant", ["royal", "dominican", "hungarian", "tuxedo", "spade",
                                     "wippen", "swedish", "finnish", "swazi", "krypkasino"])
def test_every_presets_table_sums_config_is_casinos_with_its_variant(variant):
    """experiments/configs/scratch_sums/<preset>.toml: casino's config with only the variant
    and the reward's scale changed (the scale of the preset's MLP config), from scratch; so
    the presets' runs differ in the game alone."""
    from experiments.train import check_from_scratch, load_config, run_dir

    casino = load_config("experiments/configs/scratch_sums/casino.toml")
    cfg = load_config(f"experiments/configs/scratch_sums/{variant}.toml")
    mlp = load_config(f"experiments/configs/scratch/{variant}.toml")
    check_from_scratch(cfg)
    assert cfg["env"]["variant"] == variant
    assert cfg["env"]["reward_scale"] == mlp["env"]["reward_scale"]
    for section in casino:
        diff = {k for k in casino[section] if casino[section][k] != cfg[section].get(k)}
        assert diff <= ({"variant", "reward_scale"} if section == "env" else set()), section
    assert run_dir(cfg).name == f"sums_{variant}_s0"
