"""Rewards over whole episodes (issue 16 item 1; the rewards table of docs/environment.md).

PettingZoo's convention: ``last()`` gives an agent the reward since it last acted, so the sum of
what each agent reads from ``last()`` over an episode is its episode return. For every preset,
2-4 players, partnerships, both action modes, both episode kinds and both reward kinds, through
``env()``, ``raw_env()``, RLlib's PettingZoo wrapper and the Gymnasium view, random masked
play checks that the returns are zero-sum and equal:

- ``reward="points"``: the side's points minus the mean of the other sides' points, over the
  hand (``episode="hand"``) or the whole game (``episode="game"``: the final scores);
- ``reward="win"``: the stake to the winning side and ``-stake/(sides-1)`` to each other, 0 to
  all on a draw (a one-hand episode is won by the side with strictly the most hand points and
  is worth 1, also when that hand ends the game).

In krypkasino points are penalties: the points return is negated and a one-hand episode is won
by the side with strictly the fewest hand points (V-kryp-end).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import casino_env
from casino_env.engine.rules import PRESETS

# (variant, players, partnerships): every preset at every player count it has, 4 with and
# without partners (tuxedo: 2-4 and 6, the widest table; partners are for 4 players only).
TABLES = [(v, n, None) for v, p in PRESETS.items() for n in p.players if n <= 4 or n == 6]
TABLES += [(v, 4, not PRESETS[v].defaults.get("partnerships", v == "dominican"))
           for v, p in PRESETS.items() if 4 in p.players]
TABLES += [(v, 6, True) for v, p in PRESETS.items() if 6 in p.teams]  # krypkasino's 3 teams
MODES = list(itertools.product(("compose", "enumerate"), ("hand", "game"), ("points", "win")))


def expected_returns(env, episode: str, reward: str) -> list[float]:
    """Each seat's episode return from the final state, by the documented reward rules."""
    raw = env.unwrapped
    st, r = raw.state, raw.rules
    points = list(st.hand_points if episode == "hand" else st.scores)
    s = len(points)
    sign = -1 if r.penalties else 1  # krypkasino: points are penalties (V-kryp-end)
    if reward == "points":
        total = sum(points)
        per_side = [sign * (p - (total - p) / (s - 1)) for p in points]
    else:
        # A one-hand episode: the hand's strict leader, worth 1, also when the hand ends the
        # game, but the game's winner where it was decided with cards still to play (a claim,
        # an earned win); a game: its winner and stake.
        winner, stake = st.winner, float(st.stake)
        in_play = st.game_over and (any(st.hand_masks) or st.stock_ids or st.table_mask())
        if episode == "hand" and in_play:
            stake = 1.0
        elif episode == "hand":
            hand = [sign * p for p in st.hand_points]
            best = max(hand)
            winner = hand.index(best) if hand.count(best) == 1 else None
            stake = 1.0
        per_side = ([0.0] * s if winner is None else
                    [stake if i == winner else -stake / (s - 1) for i in range(s)])
    return [per_side[r.side(seat)] for seat in range(r.players)]


def play_aec(env, seed: int, options: dict | None = None) -> tuple[dict[str, float], bool]:
    """Random masked play (from ``options``' state if given); sums what ``last()`` gives each
    agent. Returns (sums, truncated)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed, options=options)
    sums = dict.fromkeys(env.possible_agents, 0.0)
    truncated = False
    for agent in env.agent_iter(100_000):
        obs, rew, term, trunc, _ = env.last()
        sums[agent] += rew
        truncated |= trunc
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return sums, truncated


def check(sums: dict[str, float], want: list[float], agents: list[str]) -> None:
    got = [sums[a] for a in agents]
    assert sum(got) == pytest.approx(0.0, abs=1e-9), f"not zero-sum: {got}"
    assert got == pytest.approx(want), f"returns {got}, expected {want}"


@pytest.mark.parametrize("variant,players,partners", TABLES,
                         ids=[f"{v}-{n}p{'-partners' if p else ''}" for v, n, p in TABLES])
@pytest.mark.parametrize("mode,episode,reward", MODES, ids=["-".join(m) for m in MODES])
@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
def test_aec_returns_are_zero_sum_and_equal_the_outcome(variant, players, partners, mode,
                                                        episode, reward, wrapped):
    make = casino_env.env if wrapped else casino_env.raw_env
    env = make(variant=variant, players=players, partnerships=partners, action_mode=mode,
               episode=episode, reward=reward)
    seed = hash((variant, players, partners, mode, episode, reward)) % 1000
    sums, truncated = play_aec(env, seed)
    if truncated:  # (a crowded table: no outcome to compare; still zero-sum)
        assert sum(sums.values()) == pytest.approx(0.0, abs=1e-9)
        return
    check(sums, expected_returns(env, episode, reward), env.possible_agents)


def test_game_returns_are_not_running_totals():
    """The regression the issue found: a 2-player casino game summed to +486/-486 for final
    scores 25-19 because ``last()`` repeated the running total at every turn."""
    env = casino_env.env(variant="casino", players=2, episode="game", reward="points")
    sums, truncated = play_aec(env, 0)
    st = env.unwrapped.state
    assert not truncated and st.game_over
    a, b = st.scores
    assert [sums["player_0"], sums["player_1"]] == [a - b, b - a]


@pytest.mark.parametrize("variant", list(PRESETS))
@pytest.mark.parametrize("mode,episode,reward", MODES, ids=["-".join(m) for m in MODES])
def test_gymnasium_view_return_equals_the_learners_outcome(variant, mode, episode, reward):
    from casino_env.single import CasinoEnv

    env = CasinoEnv(variant=variant, players=2, opponent="random", action_mode=mode,
                    episode=episode, reward=reward)
    rng = np.random.default_rng(1)
    for seed in range(2):
        env.reset(seed=seed)
        total, done, trunc = 0.0, False, False
        while not (done or trunc):
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, rew, done, trunc, _ = env.step(a)
            total += rew
        if trunc:
            continue
        want = expected_returns(env.raw, episode, reward)[env.seat]
        assert total == pytest.approx(want), (seed, total, want)


RLLIB_TABLES = [("casino", 2, None), ("royal", 3, None), ("dominican", 4, None),
                ("tuxedo", 4, False), ("wippen", 2, None), ("finnish", 2, None)]


@pytest.mark.parametrize("variant,players,partners", RLLIB_TABLES)
@pytest.mark.parametrize("mode,episode,reward", MODES, ids=["-".join(m) for m in MODES])
def test_rllib_returns_are_zero_sum_and_equal_the_outcome(variant, players, partners, mode,
                                                          episode, reward):
    pytest.importorskip("ray.rllib")
    from casino_env.rllib import rllib_env

    env = rllib_env({"variant": variant, "players": players, "partnerships": partners,
                     "action_mode": mode, "episode": episode, "reward": reward})
    rng = np.random.default_rng(2)
    obs, _ = env.reset(seed=7)
    agents = [f"player_{i}" for i in range(players)]
    sums = dict.fromkeys(agents, 0.0)
    while True:
        (agent, o), = obs.items()
        a = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rew, terms, truncs, _ = env.step({agent: a})
        for k, v in rew.items():
            sums[k] += v
        if terms["__all__"] or truncs["__all__"]:
            break
    if truncs["__all__"] and not terms["__all__"]:
        return
    check(sums, expected_returns(env.env, episode, reward), agents)


def _play_from(variant: str, scores: list[int], reward: str, seed: int) -> tuple[dict, object]:
    """A one-hand episode of ``variant`` from a new deal whose scores are ``scores``, random
    masked play; (the sums of ``last()`` rewards per agent, the final state)."""
    spec = casino_env.engine.new_game(variant, 2, seed=seed).to_spec()
    spec["scores"] = scores
    spec.pop("seed")
    env = casino_env.env(variant=variant, episode="hand", reward=reward,
                         action_mode="enumerate")
    sums, _ = play_aec(env, seed, {"state": spec})
    return sums, env.unwrapped.state


@pytest.mark.parametrize("variant,scores,seed", [("swedish", [15, 0], 0),
                                                  ("krypkasino", [45, 30], 9)])
def test_win_of_a_one_hand_episode_that_ends_the_game_goes_to_the_hand(variant, scores, seed):
    """The rewards table: with ``episode="hand"`` the win goes to the hand's strict leader
    (krypkasino: the fewest penalty points, V-kryp-end), also when that hand ends the game
    and the game's winner is the other side (it once went to the game's winner)."""
    sums, st = _play_from(variant, scores, "win", seed)
    assert st.game_over
    hand = list(st.hand_points)
    leader = hand.index(min(hand) if st.rules.penalties else max(hand))
    assert hand.count(hand[leader]) == 1 and st.winner != leader  # the case that matters
    assert [sums["player_0"], sums["player_1"]] == [1.0 if leader == 0 else -1.0,
                                                    1.0 if leader == 1 else -1.0]


def test_a_false_claim_loses_a_one_hand_episode_whatever_the_points():
    """V-hun-end (`claims`): a wrong claim loses. In a one-hand episode it ends the game with
    cards still to play, so ``reward="win"`` gives the game's winner the win (the claimer led
    on the hand's points: it once won the episode); a right claim wins it; ``reward="points"``
    gives the points as they stand (documented in the rewards table)."""
    from casino_env.encoding import CLAIM
    from casino_env.engine.cards import STANDARD

    used = {"3C", "4C", "5C", "3D", "4D", "5D", "6C", "7C", "8C", "9C", "10D", "AS", "AH", "2S"}
    spec = {"variant": "hungarian", "players": 2, "rules": {"claims": True}, "dealer": 1,
            "current": 0, "hands": [["3C", "4C", "5C"], ["3D", "4D", "5D"]],
            "table": ["6C", "7C", "8C", "9C"], "piles": [["10D", "AS", "AH", "2S"], []],
            "stock": [c for c in STANDARD.names if c not in used]}
    for scores, winner in (([0, 0], 1), ([6, 0], 0)):  # 5 earned points: wrong, then right
        for reward, want in (("win", [1.0, -1.0] if winner == 0 else [-1.0, 1.0]),
                             ("points", [5.0, -5.0])):
            env = casino_env.env(variant="hungarian", claims=True, reward=reward,
                                 episode="hand")
            env.reset(options={"state": {**spec, "scores": scores}})
            env.step(CLAIM)
            st = env.unwrapped.state
            assert st.game_over and st.winner == winner and st.hand_points == (5, 0)
            got = [env.unwrapped._cumulative_rewards[a] for a in ("player_0", "player_1")]
            assert got == want, (scores, reward, got)
