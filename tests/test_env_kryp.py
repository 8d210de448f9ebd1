"""The environment on `krypkasino` (issue 20; docs/rules.md "Two decks", docs/environment.md):
52-slot card planes counting copies (0, 0.5, 1), compose actions on card kinds (a card taken
twice is selected twice), rewards negated for penalty points (V-kryp-end), the Gymnasium id,
OpenSpiel's chance over kinds, and the heuristic agent avoiding penalties (V-kryp-score).
The api tests and exact masks at 2-6 players run in tests/test_env.py (every preset)."""

from __future__ import annotations

import gymnasium
import numpy as np
from rules_helpers import mk_for

import casino_env
from agents.registry import make_agent
from agents.tournament import play_match
from casino_env.encoding import CAPTURE, FINISH, PLAY, SELECT, Composer, Layout, move_tokens
from casino_env.engine import apply_move, legal_moves, new_game
from casino_env.engine.cards import STANDARD
from casino_env.engine.view import PlayerView
from experiments.stats import summarize_pair

mk = mk_for("krypkasino")
K = STANDARD.index  # a card's kind is its one-deck id


def test_observation_planes_count_copies():
    """Card planes stay 52 wide; a slot holds the copies there / 2 (V-kryp-values)."""
    st = mk([["5S", "5S", "2H"], ["9D"]], ["KD", "KD", "3C"], piles=[["9C"], ["9C", "AS"]])
    layout = Layout(st.rules, True)
    out = np.zeros(layout.size, np.float32)
    layout.encode(st, 0, out)
    o = layout.offset
    hand = out[o["hand"]:o["hand"] + 52]
    assert hand[K["5S"]] == 1.0 and hand[K["2H"]] == 0.5 and hand.sum() == 1.5
    loose = out[o["loose"]:o["loose"] + 52]
    assert loose[K["KD"]] == 1.0 and loose[K["3C"]] == 0.5 and loose.sum() == 1.5
    piles = out[o["piles"]:o["piles"] + 104].reshape(2, 52)
    assert piles[0, K["9C"]] == 0.5 and piles[1, K["9C"]] == 0.5 and piles[1, K["AS"]] == 0.5
    assert out[o["stock"]] == 0.0 and layout.size == Layout(st.rules, True).size
    assert out[o["family"] + 3] == 1  # the family one-hot: krypkasino


def test_compact_piles_keep_every_split_of_the_two_copies_apart():
    """Compact layout, two decks: my copy 0.5, another side's -0.25, so one copy each (0.25)
    is not read as none (0), and each of the six splits of two copies has its own value."""
    st = mk([["2H"], ["9D"]], ["3C"], piles=[["9C", "5S", "5S", "KH"], ["9C", "AS", "AS"]])
    layout = Layout(st.rules, True, "compact")
    out = np.zeros(layout.size, np.float32)
    layout.encode(st, 0, out)
    piles = out[layout.offset["piles"]:layout.offset["piles"] + 52]
    assert piles[K["9C"]] == 0.25  # one each
    assert piles[K["5S"]] == 1.0 and piles[K["AS"]] == -0.5 and piles[K["KH"]] == 0.5
    assert piles[K["2H"]] == 0.0
    layout.encode(st, 1, out)
    piles = out[layout.offset["piles"]:layout.offset["piles"] + 52]
    assert piles[K["9C"]] == 0.25 and piles[K["5S"]] == -0.5 and piles[K["AS"]] == 1.0
    assert piles[K["KH"]] == -0.25
    splits = {(m, o): m / 2 - o / 4 for m in range(3) for o in range(3) if m + o <= 2}
    assert len(set(splits.values())) == len(splits)  # the encoding's values are distinct


def test_compose_selects_a_card_twice_for_both_copies():
    """Compose mode: card actions are kinds; taking both copies of 5S selects 5S twice, and
    the mask is exact at each step."""
    st = mk([["10C", "10C"], ["5D"]], ["5S", "5S", "10H"])
    (m,) = legal_moves(st)
    seq = (PLAY + K["10C"], CAPTURE, SELECT + K["5S"], SELECT + K["5S"], SELECT + K["10H"],
           FINISH)
    assert move_tokens(st, m) == seq
    comp = Composer.for_state(st)
    for i, tok in enumerate(seq):
        assert comp.options() == {tok}
        done = comp.push(tok)
        assert (done is None) == (i < len(seq) - 1)
    assert done == m


def test_env_rewards_are_negated_penalties():
    """reward='points' (V-kryp-end): a side's reward is the others' penalties minus its own:
    side 0 takes both 10D (6 penalty points) in the hand's last trick."""
    st = mk([[], ["3H"]], [], piles=[["10D", "10D"], []], stock=[], last_capturer=0,
            current=1, seed=1)
    env = casino_env.env(variant="krypkasino", players=2)
    env.reset(options={"state": st})
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(50):
        obs, rew, term, trunc, _ = env.last()
        totals[agent] += rew
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert totals == {"player_0": -6.0, "player_1": 6.0}


def test_gymnasium_id_plays_a_hand():
    """casino_env/Krypkasino-v0: a one-hand episode with masked random play ends, and its
    return is the negated penalty difference."""
    env = gymnasium.make("casino_env/Krypkasino-v0", max_table=None)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    total, done = 0.0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
        obs, rew, term, trunc, info = env.step(action)
        total += rew
        done = term or trunc
    hp = env.unwrapped.raw.state.hand_points
    learner = env.unwrapped.seat
    assert total == -(hp[learner] - hp[1 - learner])


def test_openspiel_chance_picks_kinds():
    """OpenSpiel: chance deals kinds, with odds by the copies left (each card twice)."""
    import pyspiel

    import casino_env.openspiel  # noqa: F401  (registers python_casino)

    game = pyspiel.load_game("python_casino", {"variant": "krypkasino", "players": 2})
    state = game.new_initial_state()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 52 and all(p == 2 / 104 for _, p in outcomes)
    state.apply_action(K["5S"])
    odds = dict(state.chance_outcomes())
    assert odds[K["5S"]] == 1 / 103 and odds[K["AS"]] == 2 / 103
    state.apply_action(K["5S"])
    assert K["5S"] not in dict(state.chance_outcomes())


def test_heuristic_avoids_penalties():
    """V-kryp-score: the heuristic takes far fewer penalty points than random play, and a
    tournament counts the hand for the side with fewer points."""
    res = play_match(["heuristic", "random"], "krypkasino", deals=8, mode="hand", seed=5)
    pair = summarize_pair(res)
    assert pair.wins > pair.losses
    assert pair.diff_per_hand > 5  # fewer penalties per hand for the heuristic (its advantage)
    per_agent = [0.0, 0.0]
    for g in res.records:
        for hp in g.points:
            per_agent[0] += hp[0]
            per_agent[1] += hp[1]
    assert per_agent[0] < per_agent[1] / 2


def test_heuristic_avoids_a_sweep():
    """V-kryp-score: of two cards, the heuristic trails the one that cannot capture rather
    than sweep the table with the other."""
    st = mk([["7D", "KC"], ["2H", "4H"]], ["3H", "4D"], stock=["9C"] * 2 + ["9D"] * 2)
    agent = make_agent("heuristic")
    assert str(agent.choose(PlayerView(st, 0))) == "KC trails"


def test_search_agent_plays_krypkasino():
    """The search agent plays krypkasino through the engine's rollouts (no fast simulator)."""
    st = new_game("krypkasino", 2, seed=2)
    agent = make_agent("search", seed=1, simulations=8)
    move = agent.choose(PlayerView(st, st.current))
    assert move in legal_moves(st)
    apply_move(st, move)


def test_greedy_takes_the_fewest_penalty_points_now():
    """V-kryp-score, V-kryp-play: in a penalty game the greedy agent plays the move that takes
    the fewest penalty points now. 9H must capture 9S (a spade: 1 penalty) if played; 3C can
    capture nothing, so it may trail: greedy trails 3C. With 9H or QD, each able to capture,
    it takes QH (no penalty) with QD rather than 9S with 9H."""
    from agents.scripted import GreedyAgent

    greedy = GreedyAgent()
    st = mk([["9H", "3C"], ["5D"]], ["9S", "5C"])
    assert {str(m) for m in legal_moves(st)} == {"9H captures 9S", "3C trails"}
    assert str(greedy.choose(PlayerView(st, 0))) == "3C trails"
    st = mk([["9H", "QD"], ["5D"]], ["9S", "QH"])
    assert {str(m) for m in legal_moves(st)} == {"9H captures 9S", "QD captures QH"}
    assert str(greedy.choose(PlayerView(st, 0))) == "QD captures QH"
