"""The PettingZoo AEC environment: API conformance, exact masks, hidden information, rewards."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import casino_env
from casino_env.encoding import (
    BUILD,
    CAPTURE,
    FINISH,
    N_COMPOSE_ACTIONS,
    PLAY,
    SELECT,
    TRAIL,
    VALUE,
    Composer,
    move_tokens,
    overflow_order,
)
from casino_env.engine import State, apply_move, legal_moves, list_variants, new_game
from casino_env.engine.cards import STANDARD
from casino_env.engine.rules import PRESETS


def configs():
    """Every preset with every player count it allows (4, and krypkasino's 6, with and without
    partners)."""
    out = []
    for v in list_variants():
        teams = PRESETS[v].teams
        for n in PRESETS[v].players:
            out.append((v, n, False if n in teams else None))
            if n in teams:
                out.append((v, n, True))
    return out


CONFIGS = configs()
IDS = [f"{v}-{n}{'p' if p else ''}" for v, n, p in CONFIGS]


def make(variant, players, partnerships, **kw):
    return casino_env.env(variant=variant, players=players, partnerships=partnerships, **kw)


@pytest.mark.parametrize("mode", ["compose", "enumerate"])
@pytest.mark.parametrize("variant,players,partnerships", CONFIGS, ids=IDS)
def test_api_and_seed(variant, players, partnerships, mode):
    """pettingzoo's api_test and seed_test pass for every preset, player count and mode."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(make(variant, players, partnerships, action_mode=mode), num_cycles=200)
        seed_test(lambda: make(variant, players, partnerships, action_mode=mode), num_cycles=100)


def test_metadata_and_spaces():
    e = casino_env.raw_env()
    assert e.metadata["name"] == "casino_v0"
    assert {"human", "ansi"} <= set(e.metadata["render_modes"])
    assert e.metadata["is_parallelizable"] is False
    e.reset(seed=1)
    obs = e.observe("player_0")
    assert obs["observation"].shape == e.observation_space("player_0")["observation"].shape
    assert obs["observation"].dtype == np.float32
    assert obs["action_mask"].dtype == np.int8
    assert e.action_space("player_0").n == N_COMPOSE_ACTIONS
    en = casino_env.raw_env(action_mode="enumerate", max_moves=64)
    en.reset(seed=1)
    o = en.observe("player_0")
    assert o["action_features"].shape == (64, en.observation_space("player_0")[
        "action_features"].shape[1])
    assert en.action_space("player_0").n == 64


def test_bad_arguments_are_named():
    for kw, word in ((dict(action_mode="x"), "action_mode"), (dict(episode="x"), "episode"),
                     (dict(reward="x"), "reward"), (dict(render_mode="rgb"), "render_mode"),
                     (dict(variant="nope"), "variant"), (dict(foo=True), "foo"),
                     (dict(max_moves=0), "max_moves")):
        with pytest.raises(ValueError, match=word):
            casino_env.raw_env(**kw)


# -- exact masks --------------------------------------------------------------------------------

def composer_moves(st, moves):
    """Every move reachable through the compose masks (exhaustive DFS over the options)."""
    found = []

    def dfs(comp):
        for tok in sorted(comp.options()):
            c2 = comp.copy()
            done = c2.push(tok)
            if done is not None:
                found.append(done)
            else:
                dfs(c2)

    dfs(Composer(st, moves))
    return found


def random_states(variant, players, partnerships, count, seed):
    rng = random.Random(seed)
    st = new_game(variant, players, seed=seed, partnerships=partnerships)
    out = []
    while len(out) < count:
        if st.game_over:
            st = new_game(variant, players, seed=rng.randrange(10**9), partnerships=partnerships)
        out.append(st)
        st = apply_move(st, rng.choice(legal_moves(st)))
    return out


@pytest.mark.parametrize("variant,players,partnerships", CONFIGS, ids=IDS)
def test_compose_masks_reach_exactly_the_legal_moves(variant, players, partnerships):
    """Compose mode: the moves completed through the masks are exactly legal_moves, each by
    exactly one sequence (thousands of random states per preset)."""
    for st in random_states(variant, players, partnerships, 1500, seed=7):
        moves = legal_moves(st)
        seqs = [move_tokens(st, m) for m in moves]
        assert len(set(seqs)) == len(seqs)
        reached = composer_moves(st, moves)
        assert len(reached) == len(moves)
        assert set(map(str, reached)) == set(map(str, moves))


def _fresh(st):
    """The same position with no legal-move list cached (as the environment meets it)."""
    st = st._copy()
    st._moves = None
    return st


def _reach(comp) -> list:
    """Every move completed through ``comp``'s options (exhaustive DFS)."""
    found = []
    for tok in sorted(comp.options()):
        c2 = comp.copy()
        done = c2.push(tok)
        found.extend([done] if done is not None else _reach(c2))
    return found


@pytest.mark.parametrize("variant,players,partnerships", CONFIGS, ids=IDS)
def test_lazy_compose_reaches_exactly_the_legal_moves(variant, players, partnerships):
    """The environment's lazy composer (only the chosen card's moves are generated; the first
    mask says which cards can be played) reaches exactly legal_moves, like the full one."""
    for st in random_states(variant, players, partnerships, 400, seed=11):
        moves = legal_moves(st)
        comp = Composer.for_state(_fresh(st))
        if st.rules.multi_play:
            assert comp.moves is not None  # several cards at once: the full list is used
        else:
            assert comp.moves is None
        assert sorted(map(str, _reach(comp))) == sorted(map(str, moves))


@pytest.mark.parametrize("variant,players,partnerships", CONFIGS, ids=IDS)
def test_playable_cards_and_moves_per_card(variant, players, partnerships):
    """Engine: ``playable_cards`` is exactly the set of cards some legal move plays, and
    ``generate(st, card)`` is exactly the legal moves playing that card (same order)."""
    from casino_env.engine.moves import generate, playable_cards

    if PRESETS[variant].values == "hungarian":
        st = new_game(variant, players, seed=0, partnerships=partnerships)
        with pytest.raises(ValueError, match="several cards"):
            playable_cards(st)
        return
    unplayable = 0
    for st in random_states(variant, players, partnerships, 600, seed=5):
        moves = legal_moves(st)
        hand = st.hand_masks[st.current]
        played = {m.played_mask.bit_length() - 1 for m in moves if m.played_mask}
        assert playable_cards(_fresh(st)) == sorted(played)
        unplayable += hand.bit_count() - len(played)
        for c in range(st.rules.deck.size):
            if hand >> c & 1:
                assert generate(_fresh(st), c) == [m for m in moves if m.played_mask == 1 << c]
            elif c < st.rules.deck.size:
                with pytest.raises(ValueError, match="not in the mover's hand"):
                    generate(_fresh(st), c)
    if variant == "dominican":  # V-dom-trail makes some cards unplayable: the check is real
        assert unplayable > 0


@pytest.mark.parametrize("variant,players,partnerships", CONFIGS, ids=IDS)
def test_moves_features_match_one_move_at_a_time(variant, players, partnerships):
    """Enumerate mode's batched ``moves_features`` writes exactly what ``move_features``
    writes for each move (card masks, kind, value, partner and orange flags)."""
    from casino_env.encoding import N_FEATURES, move_features, moves_features

    for st in random_states(variant, players, partnerships, 150, seed=2):
        moves = legal_moves(st)[:128]
        batch = np.zeros((128, N_FEATURES), np.float32)
        moves_features(moves, batch)
        one = np.zeros((128, N_FEATURES), np.float32)
        for i, m in enumerate(moves):
            move_features(m, one[i])
        assert np.array_equal(batch, one)


def test_play_move_makes_whole_moves():
    """raw_env.play_move: a legal move in one call (the state the engine gives, the turn
    passes); an illegal move or one not continuing the sub-actions taken is refused."""
    from casino_env.engine.play import play

    e = casino_env.raw_env(variant="casino")
    e.reset(seed=3)
    st = e.state
    moves = e.legal_moves()
    m = moves[-1]
    e.play_move(m)
    assert e.state.to_spec() == play(st, m).to_spec()
    assert e.agent_selection == e.possible_agents[e.state.current]
    other = next(mv for mv in legal_moves(st) if mv != m)
    with pytest.raises(ValueError, match="not a legal move here"):
        e.play_move(other)
    # Half composed: only a move continuing the prefix is accepted.
    moves = e.legal_moves()
    first = moves[0]
    e.step(move_tokens(e.state, first)[0])
    stranger = next((mv for mv in moves if mv.played_mask != first.played_mask), None)
    if stranger is not None:
        with pytest.raises(ValueError, match="does not continue"):
            e.play_move(stranger)
    before = e.state
    e.play_move(first)
    assert e.state.to_spec() == play(before, first).to_spec()


def clone(e):
    """A raw_env at the same position and compose prefix as ``e``."""
    c = casino_env.raw_env(variant=e.variant, action_mode=e.action_mode, episode=e.episode)
    c.reset(options={"state": e.state})
    for t in (e._composer.prefix if e.compose else []):
        c.step(t)
    return c


@pytest.mark.parametrize("mode", ["compose", "enumerate"])
@pytest.mark.parametrize("variant", list_variants())
def test_env_accepts_masked_in_and_rejects_masked_out(variant, mode):
    """Every masked-in id is accepted; masked-out ids raise in raw_env and end the game with
    -1 for the offender in env()."""
    rng = random.Random(3)
    e = casino_env.raw_env(variant=variant, action_mode=mode, episode="game")
    e.reset(seed=5)
    checked = 0
    while checked < 60 and not all(e.terminations.values()):
        mask = e.observe(e.agent_selection)["action_mask"]
        ok = np.flatnonzero(mask)
        for a in ok:
            c = clone(e)
            c.step(int(a))  # accepted
        bad = np.flatnonzero(mask == 0)
        for a in rng.sample(list(bad), min(5, len(bad))):
            c = clone(e)
            with pytest.raises(ValueError, match="masked out"):
                c.step(int(a))
        e.step(int(rng.choice(list(ok))))
        checked += 1
    w = casino_env.env(variant=variant, action_mode=mode)
    w.reset(seed=5)
    agent = w.agent_selection
    mask = w.observe(agent)["action_mask"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(w.terminations.values())
    assert w._cumulative_rewards[agent] == -1
    assert all(w._cumulative_rewards[a] == 0 for a in w.agents if a != agent)


def test_compose_sequence_of_a_capture_and_a_build():
    """Compose ids: play card, kind, (value), select table items by id (a build by its lowest
    card), finish; a trail needs no finish."""
    spec = {"variant": "casino", "players": 2, "hands": [["3H", "8C", "KD"], ["2S", "4S"]],
            "table": ["5S", {"cards": ["AD", "3S"], "value": 4, "owner": 1}]}
    e = casino_env.raw_env()
    e.reset(options={"state": spec})
    ix = STANDARD.index
    assert e.action_for("3H builds 8 on 5S") == [PLAY + ix["3H"], BUILD, VALUE + 7,
                                                 SELECT + ix["5S"], FINISH]
    assert e.action_for("KD trails") == [PLAY + ix["KD"], TRAIL]
    for a in e.action_for("3H builds 8 on 5S"):
        assert e.observe("player_0")["action_mask"][a] == 1
        e.step(a)
    st = e.state
    assert st.current == 1 and [b.value for b in st.builds] == [4, 8]
    e2 = casino_env.raw_env()
    e2.reset(options={"state": {**spec, "current": 1, "hands": [["3H", "8C"], ["4S", "2S"]]}})
    seq = e2.action_for("4S captures AD+3S")
    ix = STANDARD.index  # the build AD+3S is selected by its lowest card, AD
    assert seq == [PLAY + ix["4S"], CAPTURE, SELECT + ix["AD"], FINISH]
    assert e2.describe_action(SELECT + ix["AD"]) == "select AD"


def test_auto_forced_takes_single_option_sub_steps():
    spec = {"variant": "casino", "players": 2, "hands": [["KD"], ["2S"]], "table": ["5S"],
            "stock": ["3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C"]}
    e = casino_env.raw_env(auto_forced=True)
    e.reset(options={"state": spec})
    # KD can only trail, then 2S can only trail: both moves are taken automatically, the
    # next round is dealt and seat 0 (with choices again) is to move.
    assert e.agent_selection == "player_0"
    assert sorted(e.state.deck.strs(e.state.loose_mask)) == ["2S", "5S", "KD"]
    assert e.state.hand(0) == ["3C", "4C", "5C", "6C"]
    assert len(e.observe("player_0")["action_mask"].nonzero()[0]) > 1


# -- hidden information -----------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["compose", "enumerate"])
@pytest.mark.parametrize("variant,players,partnerships", CONFIGS, ids=IDS)
def test_observation_ignores_hidden_cards(variant, players, partnerships, mode):
    """An agent's observation is unchanged when the others' hands and the stock order are
    shuffled among themselves."""
    rng = random.Random(11)
    e = casino_env.raw_env(variant=variant, players=players, partnerships=partnerships,
                           action_mode=mode)
    for st in random_states(variant, players, partnerships, 40, seed=2):
        me = st.current
        hidden = [c for s in range(players) if s != me for c in _ids(st.hand_masks[s])]
        hidden += list(st.stock_ids)
        rng.shuffle(hidden)
        other = st._copy()
        hands = list(st.hand_masks)
        pos = 0
        for s in range(players):
            if s != me:
                k = st.hand_masks[s].bit_count()
                hands[s] = sum(1 << c for c in hidden[pos:pos + k])
                pos += k
        other.hand_masks = tuple(hands)
        other.stock_ids = tuple(hidden[pos:])
        e.reset(options={"state": st})
        a = e.observe(f"player_{me}")
        e.reset(options={"state": other})
        b = e.observe(f"player_{me}")
        for key in a:
            np.testing.assert_array_equal(a[key], b[key])


def _ids(mask):
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def test_observation_shows_own_hand_and_not_others():
    e = casino_env.raw_env()
    e.reset(seed=3)
    st = e.state
    lay = e.layout
    o = e.observe("player_0")["observation"]
    hand = o[lay.offset["hand"]:lay.offset["hand"] + 52]
    assert set(np.flatnonzero(hand)) == set(_ids(st.hand_masks[0]))
    o1 = e.observe("player_1")["observation"]
    hand1 = o1[lay.offset["hand"]:lay.offset["hand"] + 52]
    assert set(np.flatnonzero(hand1)) == set(_ids(st.hand_masks[1]))
    assert not set(np.flatnonzero(hand1)) & set(_ids(st.hand_masks[0]))


# -- rewards ------------------------------------------------------------------------------------

def play_random(e, seed):
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, r, term, trunc, info = e.last()
        totals[agent] += r
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


@pytest.mark.parametrize("variant,players,partnerships", CONFIGS, ids=IDS)
def test_points_rewards_are_zero_sum_and_match_hand_points(variant, players, partnerships):
    """reward='points': each side gets its hand points minus the mean of the others'
    (krypkasino, V-kryp-end: negated, its points are penalties); every agent receives it;
    partners share it."""
    e = casino_env.env(variant=variant, players=players, partnerships=partnerships)
    e.reset(seed=4)
    raw = e.unwrapped
    totals = play_random(e, 4)
    pts = list(raw.state.hand_points)
    s = len(pts)
    rules = raw.rules
    for agent, total in totals.items():
        side = rules.side(int(agent.split("_")[1]))
        expected = pts[side] - (sum(pts) - pts[side]) / (s - 1)
        assert total == pytest.approx(-expected if rules.penalties else expected)
    assert sum(totals[f"player_{i}"] for i in range(s)) == pytest.approx(0)


def test_win_rewards_for_a_game():
    e = casino_env.env(episode="game", reward="win")
    e.reset(seed=9)
    totals = play_random(e, 9)
    w = e.unwrapped.state.winner
    assert totals[f"player_{w}"] == 1 and totals[f"player_{1 - w}"] == -1


def test_win_rewards_three_players_zero_sum():
    e = casino_env.env(players=3, episode="game", reward="win")
    e.reset(seed=2)
    totals = play_random(e, 2)
    w = e.unwrapped.state.winner
    assert totals[f"player_{w}"] == 1
    assert sum(totals.values()) == pytest.approx(0)


def test_game_episode_rewards_every_hand():
    e = casino_env.env(episode="game")
    e.reset(seed=12)
    raw = e.unwrapped
    seen = []
    rng = np.random.default_rng(0)
    for _agent in e.agent_iter():
        obs, r, term, trunc, info = e.last()
        if r:
            seen.append(r)
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert raw.state.game_over
    assert len(seen) >= 2  # more than one hand was rewarded


def test_hand_episode_ends_after_one_hand():
    e = casino_env.raw_env()
    e.reset(seed=1)
    rng = np.random.default_rng(1)
    while not all(e.terminations.values()):
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    assert e.state.hand_points is not None


# -- helpers ------------------------------------------------------------------------------------

def test_helpers_and_render():
    e = casino_env.raw_env(variant="royal", render_mode="ansi")
    e.reset(seed=0)
    assert e.legal_moves() == legal_moves(e.state)
    text = e.render()
    assert "table" in text and "seat 0" in text and "scores" in text
    m = e.legal_moves()[0]
    seq = e.action_for(m)
    assert seq[0] == PLAY + m.played_mask.bit_length() - 1
    assert e.describe_action(seq[0]).startswith("play ")
    en = casino_env.raw_env(variant="royal", action_mode="enumerate")
    en.reset(seed=0)
    for i, mv in enumerate(en.legal_moves()):
        assert en.action_for(mv) == i
        assert en.describe_action(i) == str(mv)


def test_reset_from_state_checks_rules():
    with pytest.raises(ValueError, match="options"):
        e = casino_env.raw_env(variant="royal")
        e.reset(options={"state": new_game("casino", 2, seed=1)})


def test_engine_import_stays_light():
    import subprocess
    import sys

    code = ("import sys, casino_env.engine; "
            "assert 'pettingzoo' not in sys.modules and 'gymnasium' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_crowded_table_truncates_the_episode():
    """Degenerate play (always trailing) piles the table up; at max_table cards the episode
    is truncated instead of facing decisions with hundreds of thousands of legal moves."""
    e = casino_env.raw_env(variant="royal", max_table=12)
    e.reset(seed=1)
    steps = 0
    while not (all(e.terminations.values()) or all(e.truncations.values())):
        seq = e.action_for(next(m for m in e.legal_moves() if m.kind == "trail")) \
            if any(m.kind == "trail" for m in e.legal_moves()) else e.action_for(e.legal_moves()[0])
        for a in seq:
            e.step(a)
        steps += 1
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert e.state.table_mask().bit_count() >= 12
    assert "table" in e.infos["player_0"]["truncated"]
    with pytest.raises(ValueError, match="max_table"):
        casino_env.raw_env(max_table=2)


def test_reset_from_a_hand_that_is_over_is_refused_naming_the_way_on():
    """``reset(options={"state": S})`` from a one-hand episode's final position (the hand
    scored, the next not dealt: its spec says ``hand_over``) is refused, as a finished game
    is, naming how to deal on; the single-agent view refuses it the same way (it raised an
    IndexError), and the spec with ``hand_over`` off starts the next hand."""
    import gymnasium

    from casino_env.engine import State

    e = casino_env.env(variant="casino", action_mode="enumerate")
    e.reset(seed=1)
    rng = np.random.default_rng(1)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    final = e.unwrapped.state
    assert not final.game_over and final.to_spec()["hand_over"] is True
    message = r"^options\['state'\]: the hand in this state is over and the next one is not"
    for start in (final, final.to_spec()):
        with pytest.raises(ValueError, match=message):
            casino_env.env(variant="casino").reset(options={"state": start})
    for seat in (0, 1):
        single = gymnasium.make("casino_env/Casino-v0", opponent="heuristic", seat=seat)
        with pytest.raises(ValueError, match=message):
            single.reset(seed=0, options={"state": final})
    on = State.from_spec({**final.to_spec(), "hand_over": False})
    assert on.hand_no == 1 and on.scores == final.scores
    fresh = casino_env.env(variant="casino")
    fresh.reset(options={"state": on})
    assert fresh.last()[0]["action_mask"].any()


def test_bonus_is_each_sides_total_this_hand_clipped_once():
    """V-tux-score (oranges and false calls scored as events during play): the observation's
    bonus segment is each side's total of the hand's events / target, clipped to -1..1 once,
    so the same totals observe alike whatever order the events came in (it was clipped event
    by event: +10, +10, +10, -10 to 20 gave 0.5, not 1)."""
    base = new_game("tuxedo", 2, seed=0, orange_calls=True, target=20).to_spec()
    env = casino_env.raw_env(variant="tuxedo", players=2, orange_calls=True, target=20)
    off = env.layout.offset["bonus"]
    seen = []
    for events in ([[0, "orange", 10]] * 3 + [[0, "false call", -10], [1, "orange", 10]],
                   [[0, "false call", -10], [1, "orange", 10]] + [[0, "orange", 10]] * 3,
                   [[0, "orange", 10], [1, "orange", 10]]):
        env.reset(options={"state": State.from_spec({**base, "events": events})})
        obs = env.observe("player_0")["observation"]
        seen.append(obs[off:off + 2].tolist())
    assert seen == [[1.0, 0.5], [1.0, 0.5], [0.5, 0.5]]


def test_overflow_keeps_the_documented_order_with_build_loose():
    """docs/environment.md (enumerate mode, more than K legal moves): trails, then builds, then
    captures; within each group the moves taking the most cards first, so with `build_loose` a
    trail that also builds comes before the plain trails; ties in the canonical order."""
    spec = new_game("casino", 2, seed=0, build_loose=True).to_spec()
    hands = [["AC", "2C", "7D", "10C"], ["3H", "5S", "5C", "JH"]]
    table = ["AD", "9C", "QD", "KC"]
    dealt = set(table).union(*hands)
    stock = [c for c in spec["hands"][0] + spec["hands"][1] + spec["table"] + spec["stock"]
             if c not in dealt]
    st = State.from_spec({**spec, "hands": hands, "table": table, "stock": stock})
    assert [str(m) for m in overflow_order(legal_moves(st))] == [
        "AC trails and builds 10 on AD+9C", "2C trails and builds 10 on AD+9C",
        "7D trails and builds 10 on AD+9C", "AC trails", "2C trails", "7D trails", "10C trails",
        "AC builds 2 on AD", "AC builds 10 on 9C", "10C captures AD+9C", "AC captures AD"]
    env = casino_env.raw_env(variant="casino", build_loose=True, action_mode="enumerate",
                             max_moves=4)
    env.reset(options={"state": st})
    assert env.infos[env.agent_selection]["overflow"] == 11
    assert int(env.observe(env.agent_selection)["action_mask"].sum()) == 4
