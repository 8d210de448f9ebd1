"""The OpenSpiel games (casino_env.openspiel, issue 19): OpenSpiel's own random simulation test
with serialization for every preset and player count, information states that hidden cards
do not change, and the same actions giving the same states, observations and returns through
the OpenSpiel game and the PettingZoo env."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import casino_env  # noqa: E402
import casino_env.openspiel as cos  # noqa: E402
from casino_env.encoding import N_COMPOSE_ACTIONS  # noqa: E402
from casino_env.engine import new_game  # noqa: E402
from casino_env.engine.dealing import shuffle  # noqa: E402
from casino_env.engine.rules import PRESETS  # noqa: E402

TABLES = [(v, n) for v, p in PRESETS.items() for n in p.players]


def load(variant: str, players: int = 2, **params) -> pyspiel.Game:
    return pyspiel.load_game(cos.GAME_NAME, {"variant": variant, "players": players, **params})


def deal(state, order) -> None:
    """Apply chance outcomes: the stock order, top first."""
    for c in order:
        assert state.is_chance_node()
        state.apply_action(int(c))


def random_decision_state(game, seed: int, moves: int):
    """A state after a random deal and ``moves`` random sub-actions (at a decision node)."""
    rng = random.Random(seed)
    s = game.new_initial_state()
    while s.is_chance_node():
        s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
    for _ in range(moves):
        s.apply_action(rng.choice(s.legal_actions()))
        while s.is_chance_node():
            s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
        if s.is_terminal():
            break
    return s


@pytest.mark.parametrize("variant,players", TABLES, ids=[f"{v}-{n}p" for v, n in TABLES])
def test_random_sim_test_with_serialization(variant, players):
    """OpenSpiel's own checks: legal actions, chance outcomes summing to 1, returns within
    the utility bounds and zero-sum, clone, serialize/deserialize, observation tensors."""
    pyspiel.random_sim_test(load(variant, players), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("params", [{"episode": "game"}, {"reward": "win"},
                                    {"episode": "game", "reward": "win", "variant": "dominican",
                                     "players": 4},
                                    {"variant": "casino", "players": 4, "partnerships": "on"},
                                    {"variant": "tuxedo", "orange_calls": "on"},
                                    {"variant": "hungarian", "claims": "on", "nagy": "on"},
                                    {"variant": "casino", "sweeps": "on", "target": 11}])
def test_random_sim_test_other_parameters(params):
    params = {"variant": "casino", "players": 2, **params}
    pyspiel.random_sim_test(load(**params), num_sims=1, serialize=True, verbose=False)


def test_parameters_reach_the_engine():
    g = load("casino", 4, partnerships="on", sweeps="on", target=11)
    assert g.rules.partnerships and g.rules.sweeps and g.rules.target == 11
    assert g.num_players() == 4 and g.num_distinct_actions() == N_COMPOSE_ACTIONS == 126
    royal = load("royal")
    assert royal.rules.countout  # the preset's default when the parameter says "default"
    assert not load("royal", countout="off").rules.countout
    assert g.max_chance_outcomes() == 52 and load("tuxedo").max_chance_outcomes() == 40


@pytest.mark.parametrize("params,match", [
    ({"variant": "nope"}, "unknown variant 'nope'"),
    ({"sweeps": "maybe"}, "parameter sweeps: must be 'default', 'on' or 'off'"),
    ({"sweeps": "true"}, "parameter sweeps: must be 'default', 'on' or 'off'"),
    ({"sweeps": True}, "Wrong type for parameter sweeps"),
    ({"episode": "round"}, "parameter episode: must be one of hand, game"),
    ({"variant": "hungarian", "players": 3}, "players"),
])
def test_bad_parameters_name_the_parameter(params, match):
    with pytest.raises(Exception, match=match):
        pyspiel.load_game(cos.GAME_NAME, params)


def test_chance_deals_the_stock_order_and_sums_to_one():
    g = load("casino")
    s = g.new_initial_state()
    outcomes = s.chance_outcomes()
    assert len(outcomes) == 52 and sum(p for _, p in outcomes) == pytest.approx(1.0)
    s.apply_action(7)
    outcomes = s.chance_outcomes()
    assert len(outcomes) == 51 and 7 not in dict(outcomes)
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    with pytest.raises(Exception, match=r"chance outcome 7 \(2C\) is dealt already"):
        s.apply_action(7)
    with pytest.raises(Exception, match=r"chance outcome 52 is not a card \(0\.\.51\)"):
        s.apply_action(52)


def test_a_deal_by_chance_is_the_engines_deal_of_that_stock():
    """Chance picking the engine's own shuffle order gives new_game's state (C-deal)."""
    g = load("royal")
    s = g.new_initial_state()
    order, _ = shuffle(g.rules.deck, 123)
    deal(s, order)
    want = new_game("royal", 2, seed=123).to_spec()
    got = s.engine_state.to_spec()
    want.pop("seed"), got.pop("seed")
    assert got == want


@pytest.mark.parametrize("variant,players", [("casino", 2), ("royal", 3), ("dominican", 4),
                                             ("tuxedo", 2), ("hungarian", 2), ("spade", 2),
                                             ("wippen", 2), ("swedish", 3), ("finnish", 2)])
def test_information_state_does_not_change_when_hidden_cards_are_shuffled(variant, players):
    game = load(variant, players)
    observer_checked = 0
    for seed in range(4):
        s = random_decision_state(game, seed, moves=5 + 3 * seed)
        if s.is_terminal():
            continue
        for p in range(players):
            changed = False
            for _ in range(4):
                other = s.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0., 1.))
                assert other.information_state_string(p) == s.information_state_string(p)
                assert other.observation_string(p) == s.observation_string(p)
                assert np.array_equal(other.information_state_tensor(p),
                                      s.information_state_tensor(p))
                assert np.array_equal(other.observation_tensor(p), s.observation_tensor(p))
                assert other.legal_actions() == s.legal_actions() or s.current_player() != p
                changed |= other.engine_state.hand_masks != s.engine_state.hand_masks
                observer_checked += 1
            # the resampling really moves the hidden cards (so the test can fail)
            hidden = sum(h for i, h in enumerate(s.engine_state.hand_masks) if i != p)
            assert changed or not hidden or s.engine_state.stock_size == 0 and players == 1
    assert observer_checked > 0


def test_observation_tensor_is_the_pettingzoo_observation_and_hides_hands():
    game = load("casino")
    s = random_decision_state(game, 3, moves=4)
    env = casino_env.raw_env(variant="casino", players=2)
    env.reset(options={"state": s.engine_state})
    for t in s._comp.prefix:  # the move being composed, if any
        env.step(t)
    for p in range(2):
        assert np.array_equal(np.asarray(s.observation_tensor(p), np.float32),
                              env.observe(f"player_{p}")["observation"])
    # the other player's hand is not in p's strings
    p = s.current_player()
    other = s.engine_state.hands[1 - p]
    text = s.information_state_string(p)
    assert all(c not in text.split("hand ")[1].split(" |")[0] for c in other)


@pytest.mark.parametrize("variant,players,episode,reward", [
    ("casino", 2, "hand", "points"), ("royal", 2, "game", "points"),
    ("dominican", 4, "game", "win"), ("tuxedo", 3, "hand", "win"),
    ("hungarian", 2, "game", "points"), ("spade", 2, "hand", "points"),
    ("wippen", 4, "hand", "points"), ("swedish", 3, "game", "win"),
    ("finnish", 2, "game", "points")])
def test_same_actions_same_states_and_returns_as_the_pettingzoo_env(variant, players, episode,
                                                                    reward):
    game = load(variant, players, episode=episode, reward=reward)
    env = casino_env.raw_env(variant=variant, players=players, episode=episode, reward=reward,
                             max_table=None)
    seed = 11
    start = new_game(variant, players, seed=seed)
    env.reset(options={"state": start})
    s = game.new_initial_state()
    deal(s, shuffle(game.rules.deck, seed)[0])
    rng = random.Random(5)
    sums = dict.fromkeys(env.possible_agents, 0.0)

    def same_state():
        a, b = s.engine_state.to_spec(), env.state.to_spec()
        a.pop("seed"), b.pop("seed")
        assert a == b

    same_state()
    for agent in env.agent_iter(100_000):
        obs, rew, term, trunc, _ = env.last()
        sums[agent] += rew
        if term or trunc:
            env.step(None)
            continue
        assert s.current_player() == env.state.current == int(agent.split("_")[1])
        assert s.legal_actions() == list(np.flatnonzero(obs["action_mask"]))
        assert np.array_equal(np.asarray(s.observation_tensor(s.current_player()), np.float32),
                              obs["observation"])
        a = rng.choice(s.legal_actions())
        seed_before = env.state.seed
        s.apply_action(a)
        env.step(a)
        if s.is_chance_node():  # a new hand: chance deals what the env's engine shuffled
            deal(s, shuffle(game.rules.deck, seed_before)[0])
        if not s.is_terminal():
            same_state()
    assert s.is_terminal()
    assert s.returns() == pytest.approx([sums[a] for a in env.possible_agents])
    assert sum(s.returns()) == pytest.approx(0.0, abs=1e-9)


def test_action_strings_use_the_engines_notation():
    game = load("casino")
    s = game.new_initial_state()
    # (the same string before and after the deal: it names the card, not a stock position)
    assert s.action_to_string(pyspiel.PlayerId.CHANCE, 0) == "deal AS"
    s.apply_action(0)
    assert s.action_to_string(pyspiel.PlayerId.CHANCE, 0) == "deal AS"
    s = game.new_initial_state()
    deal(s, shuffle(game.rules.deck, 1)[0])
    strings = [s.action_to_string(s.current_player(), a) for a in s.legal_actions()]
    hand = s.engine_state.hands[s.current_player()]
    assert sorted(strings) == sorted(f"play {c}" for c in hand) or all(
        any(c in t for c in hand) for t in strings)


def test_clone_and_serialize_round_trip():
    game = load("royal", episode="game")
    s = random_decision_state(game, 9, moves=30)
    c = s.clone()
    assert c.history() == s.history() and str(c) == str(s)
    d = game.deserialize_state(s.serialize())
    assert d.history() == s.history()
    assert d.engine_state == s.engine_state or d.engine_state.to_spec() == \
        s.engine_state.to_spec()


@pytest.mark.parametrize("moves", [0, 7, 30, 200])
def test_json_through_the_spec_round_trips(moves):
    """to_json/state_from_json (the engine spec, chance picks, the move composed) give a state
    with the same engine state, legal actions, observations and returns."""
    game = load("royal", episode="game")
    s = random_decision_state(game, 3, moves=moves)
    t = game.state_from_json(s.to_json())
    assert t.to_json() == s.to_json()
    assert t.current_player() == s.current_player() and t.is_terminal() == s.is_terminal()
    if not s.is_terminal():
        p = s.current_player()
        assert t.legal_actions() == s.legal_actions()
        assert t.information_state_string(p) == s.information_state_string(p)
        assert np.array_equal(t.observation_tensor(p), s.observation_tensor(p))
    else:
        assert t.returns() == s.returns()
    with pytest.raises(ValueError, match="not a state written by to_json"):
        game.state_from_json("{}")
    with pytest.raises(ValueError, match="rules differ"):
        load("casino").state_from_json(s.to_json())


@pytest.mark.parametrize("variant,seed", [("krypkasino", 2), ("swedish", 4)])
def test_win_of_a_game_stopped_by_max_hands_follows_the_scores(variant, seed):
    """docs/openspiel.md: a game still going after ``max_hands`` ends with the scores so far,
    so ``reward="win"`` goes to the strict leader of those scores (krypkasino: the fewest
    penalty points, V-kryp-end), not to the last hand's leader (as it once did)."""
    game = pyspiel.load_game("python_casino", {"variant": variant, "episode": "game",
                                               "reward": "win", "max_hands": 2})
    s, rng = game.new_initial_state(), random.Random(seed)
    while not s.is_terminal():
        s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()] if s.is_chance_node()
                                  else s.legal_actions()))
    st = s._st
    assert not st.game_over and st.hand_no == 2
    sign = -1 if st.rules.penalties else 1
    scores = [sign * p for p in st.scores]
    hand = [sign * p for p in st.hand_points]
    leader = scores.index(max(scores))
    assert scores.count(max(scores)) == 1 and hand.index(max(hand)) != leader  # the case
    assert s.returns() == [1.0 if leader == 0 else -1.0, 1.0 if leader == 1 else -1.0]


def _to_next_hand_or_end(game, seed: int):
    """Random play from a random deal to the first moment a hand is over: (state, returns
    of the hand's points per side as the engine scored them)."""
    rng = random.Random(seed)
    s = game.new_initial_state()
    while True:
        if s.is_chance_node():
            s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
            continue
        before = s.engine_state
        s.apply_action(rng.choice(s.legal_actions()))
        if s.is_terminal() or s.is_chance_node():
            assert s.engine_state.hand_points is not before.hand_points
            return s


@pytest.mark.parametrize("episode", ["hand", "game"])
def test_a_finished_hand_shows_its_final_position_not_the_engines_next_deal(episode):
    """Between hands (chance deals the next) and after an episode's last hand, the state,
    its observations and strings show the finished hand: no card in a hand, on the table or
    in the stock, all 52 in the piles (C-residue), the hand scored; never the next hand the
    engine dealt itself, which chance replaces. to_json keeps that position."""
    game = load("casino", episode=episode)
    s = _to_next_hand_or_end(game, 5)
    assert s.is_terminal() == (episode == "hand") and s.is_chance_node() == (episode == "game")
    st = s.engine_state
    assert not any(st.hand_masks) and st.loose_mask == 0 and not st.builds
    assert len(st.stock_ids) == 0
    assert sum(p.bit_count() for p in st.pile_masks) == 52
    assert st.hand_points is not None and not st.game_over
    for p in range(2):
        text = s.observation_string(p)
        assert f"p{p} | hand - |" in text and "table - |" in text and "to move" not in text
        obs = np.asarray(s.observation_tensor(p))
        assert obs.sum() > 0  # the piles and scores are still seen
    if episode == "hand":
        assert s.returns()[0] == pytest.approx(-s.returns()[1])
        points = st.hand_points
        assert s.returns()[0] == pytest.approx(points[0] - points[1])  # (minus the others' mean)
    t = game.state_from_json(s.to_json())
    assert t.engine_state.to_spec() == st.to_spec() and t.to_json() == s.to_json()
    assert t.observation_string(0) == s.observation_string(0)
    if episode == "game":  # the next deal replaces it
        deal(s, shuffle(game.rules.deck, 8)[0])
        assert s.engine_state.hand_masks[0].bit_count() == 4
        assert s.engine_state.pile_masks == (0, 0)


def test_strings_carry_the_cut_card_and_the_dealer():
    """V-hun-cut: the non-dealer sees the stock's bottom card; the strings say so (two
    information sets differing only in it would otherwise share one string), and the
    dealer."""
    from casino_env.engine.view import cut_card

    game = load("hungarian", ulmann="on", cut="on")
    s = random_decision_state(game, 2, moves=0)
    st = s.engine_state
    seen = [cut_card(st, p) for p in range(2)]
    assert sum(c is not None for c in seen) == 1
    for p in range(2):
        text = s.information_state_string(p)
        assert f"dealer p{st.dealer}" in text
        if seen[p] is None:
            assert " cut " not in text
        else:
            assert f"cut {game.rules.deck.names[seen[p]]}" in text


def test_errors_at_the_wrong_node_say_so():
    game = load("casino")
    s = game.new_initial_state()
    deal(s, shuffle(game.rules.deck, 1)[0])
    with pytest.raises(ValueError, match="not a chance node \\(player 0 is to move\\)"):
        s.chance_outcomes()
    s = _to_next_hand_or_end(game, 1)
    assert s.is_terminal()
    with pytest.raises(Exception, match="the game is over"):
        s.apply_action(0)
    with pytest.raises(ValueError, match="not a chance node \\(the game is over\\)"):
        s.chance_outcomes()


def test_two_deck_chance_outcomes_are_kinds_with_copies_left():
    """krypkasino: chance picks one of 52 kinds; a kind outside 0..51 or one whose two copies
    are both dealt is refused by name."""
    game = load("krypkasino")
    s = game.new_initial_state()
    with pytest.raises(Exception, match=r"chance outcome 100 is not a card kind \(0\.\.51\)"):
        s.apply_action(100)
    s.apply_action(5)
    s.apply_action(5)
    assert 5 not in dict(s.chance_outcomes())
    name = game.rules.deck.names[10]
    with pytest.raises(Exception, match=rf"chance outcome 5 \({name}\): all 2 copies are "
                       "dealt already"):
        s.apply_action(5)


def test_an_illegal_sub_action_names_the_card():
    game = load("casino")
    s = game.new_initial_state()
    deal(s, shuffle(game.rules.deck, 1)[0])
    hand = set(s.engine_state.hands[s.current_player()])
    card = next(c for c in game.rules.deck.names if c not in hand)
    a = game.rules.deck.names.index(card)  # PLAY + card id
    with pytest.raises(Exception, match=rf"sub-action {a} \(play {card}\) cannot continue"):
        s.apply_action(a)


def test_resampling_needs_a_sampler_and_a_seeded_one_repeats():
    """resample_from_infostate drew from the global random module when given no sampler (the
    sample then depended on process-wide state); the sampler is required, as in OpenSpiel's own
    signature, and a seeded one gives the same sample again."""
    import random

    s = random_decision_state(load("casino", 2), 1, moves=6)
    with pytest.raises(TypeError, match="needs a probability_sampler"):
        s.resample_from_infostate(0)
    a = s.resample_from_infostate(0, random.Random(5).random)
    b = s.resample_from_infostate(0, random.Random(5).random)
    assert a.engine_state == b.engine_state
