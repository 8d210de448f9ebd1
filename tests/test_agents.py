"""Agents: only legal moves on every preset and player count, no use of hidden cards (same
view, same choice), reproducible seeded tournaments, the fast rollout simulator agrees with
the engine, and a small strength sanity check (greedy beats random, heuristic beats greedy).
"""

from __future__ import annotations

import random

import pytest
from rules_helpers import random_states

from agents import (
    AGENTS,
    GreedyAgent,
    HeuristicAgent,
    RandomAgent,
    SearchAgent,
    make_agent,
    play_match,
)
from agents.fastsim import greedy_step, sim_rules, simulate, supported
from agents.search import hand_result, rollout
from agents.valuation import majority_share, rules_values, static_weights
from casino_env.engine import State, describe_variant, legal_moves, list_variants, new_game
from casino_env.engine.view import PlayerView
from experiments.stats import summarize_pair

AGENT_NAMES = ["random", "greedy", "heuristic", "search:simulations=12"]

CONFIGS = [(v, n) for v in list_variants() for n in describe_variant(v)["players"] if n <= 4]


@pytest.mark.parametrize("variant,players", CONFIGS)
def test_agents_choose_legal_moves(variant: str, players: int) -> None:
    agents = [make_agent(name, seed=3) for name in AGENT_NAMES]
    for st in random_states(variant, players, 20, seed=players):
        legal = legal_moves(st)
        for agent in agents:
            assert agent.act(st) in legal, (variant, players, agent, str(st))


@pytest.mark.parametrize("variant,players", [("casino", 2), ("royal", 3), ("dominican", 4),
                                             ("spade", 2), ("wippen", 2), ("swedish", 3),
                                             ("finnish", 2)])
def test_same_view_same_choice(variant: str, players: int) -> None:
    """Agents read only the view: shuffling the hidden cards never changes a seeded choice."""
    for i, st in enumerate(random_states(variant, players, 12, seed=11)):
        view = PlayerView(st, st.current)
        a = view.determinize(random.Random(2 * i))
        b = view.determinize(random.Random(2 * i + 1))
        for name in AGENT_NAMES:
            ma = make_agent(name, seed=5).act(a)
            mb = make_agent(name, seed=5).act(b)
            assert ma == mb, (name, str(st))


def _fingerprint(res) -> list:
    return [(g.deal, g.rotation, g.seed, g.seats, g.winner, g.points, g.moves)
            for g in res.records]


def test_seeded_tournaments_are_reproducible() -> None:
    kw = dict(variant="royal", deals=2, seed=9, mode="hand")
    a = play_match(["search:simulations=12", "heuristic"], **kw)
    b = play_match(["search:simulations=12", "heuristic"], **kw)
    assert _fingerprint(a) == _fingerprint(b)
    c = play_match(["random", "greedy"], variant="casino", deals=3, seed=1)
    d = play_match(["random", "greedy"], variant="casino", deals=3, seed=1)
    e = play_match(["random", "greedy"], variant="casino", deals=3, seed=2)
    assert _fingerprint(c) == _fingerprint(d)
    assert _fingerprint(c) != _fingerprint(e)


def test_duplicate_deals_swap_seats() -> None:
    res = play_match(["greedy", "random"], variant="casino", deals=2, seed=0, mode="hand")
    assert [(g.deal, g.seats) for g in res.records] == [
        (0, (0, 1)), (0, (1, 0)), (1, (0, 1)), (1, (1, 0))]
    assert res.records[0].seed == res.records[1].seed != res.records[2].seed
    # Four players, two agents: each holds a partnership (Dominican plays partners).
    res = play_match(["greedy", "random"], variant="dominican", players=4, deals=1, mode="hand")
    assert [g.seats for g in res.records] == [(0, 1, 0, 1), (1, 0, 1, 0)]


def test_registry() -> None:
    assert set(AGENTS) >= {"random", "greedy", "heuristic", "search"}
    assert isinstance(make_agent("random"), RandomAgent)
    assert isinstance(make_agent("greedy"), GreedyAgent)
    assert isinstance(make_agent("heuristic"), HeuristicAgent)
    s = make_agent("search:simulations=64,max_candidates=4", seed=1)
    assert isinstance(s, SearchAgent) and s.simulations == 64 and s.max_candidates == 4
    assert make_agent("search", simulations=10).simulations == 10
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("nope")


def test_card_values_follow_the_scoring() -> None:
    """Card points come from the variant's scoring, not from a hard-coded table."""
    deck = new_game("casino").rules.deck
    casino = rules_values(new_game("casino").rules)
    assert casino.direct[deck.index["10D"]] == 2 and casino.direct[deck.index["2S"]] == 1
    assert casino.direct[deck.index["AH"]] == 1 and casino.direct[deck.index["5C"]] == 0
    assert sorted(p for _, p in casino.majorities) == [1.0, 3.0]  # most spades, most cards
    spade = rules_values(new_game("spade").rules)
    assert spade.direct[deck.index["JS"]] == 2 and spade.direct[deck.index["5S"]] == 1
    # In points to its taker (half the swing, as 10D is worth 2): a card that decides the
    # majority (27-25 instead of 26-26) is worth 1.5; an early card a fraction of that.
    assert majority_share(3.0, 26, 25, 1) == pytest.approx(1.5)
    assert majority_share(3.0, 26, 26, 0) == 0
    assert 0 < majority_share(3.0, 0, 0, 52) < 0.5


@pytest.mark.parametrize("variant,players", [(v, n) for v, n in CONFIGS
                                             if supported(new_game(v, n).rules)])
def test_fast_rollouts_match_the_engine(variant: str, players: int) -> None:
    """The lean greedy simulator makes only legal moves and reaches the engine's results."""
    same = total = 0
    for st in random_states(variant, players, 40, seed=4):
        sr = sim_rules(st.rules)
        builds = [(b.value, b.cards, b.owner, 0.0) for b in st.builds]
        mv = greedy_step(sr, st.hand_masks[st.current], st.loose_mask, builds, st.current)
        if mv is not None:
            kind, card, taken = mv
            played = card if kind == 3 else 1 << card  # 3: several cards (V-hun-play)
            assert any(m.kind == ("capture" if kind else "trail") and m.played_mask == played
                       and m.taken_mask == taken for m in legal_moves(st)), str(st)
        side = st.rules.side(st.current)
        engine = hand_result(st, rollout(st, static_weights(st.rules), random.Random(0)), side,
                             5.0)
        fast = simulate(st, side, 5.0, lambda s, e=engine: e)
        same += engine == fast
        total += 1
    assert same >= 0.9 * total


@pytest.mark.parametrize("rules,scores,sweeps,hands,table,piles,side,want", [
    # V-dom-end: side 1 meets its criterion (10D) before side 0 (its spades): side 1 wins,
    # though the lower side index would; -6 for side 0 with a game bonus of 5
    ({}, [20, 19], [0, 0], [["8D"], ["10C"]], ["10D", "8S"],
     [["AS", "2S", "3S"], ["4S", "6S"]], 0, -6.0),
    # restricted_no_sweeps: side 0 (restricted) records no sweep, so side 1's stands
    ({"restricted_no_sweeps": True}, [19, 10], [0, 1], [["5H"], ["3D"]], ["5C"], [[], []], 1,
     1.0),
])
def test_fast_rollouts_leave_dominican_endgames_to_the_engine(rules, scores, sweeps, hands,
                                                              table, piles, side, want):
    """V-dom-end: with a side under endgame restrictions the lean simulator hands the rollout
    to the engine (its fallback), which tracks who meets a criterion first and
    restricted_no_sweeps; it gave the game to the wrong side and a phantom sweep. Away from
    the restrictions it plays on its own."""
    spec = {"variant": "dominican", "players": 2, "rules": rules, "scores": scores,
            "sweeps": sweeps, "current": 1 if side == 0 else 0, "hands": hands,
            "table": table, "piles": piles}
    st = State.from_spec(spec)
    assert supported(st.rules)

    def engine(s):
        return hand_result(s, rollout(s, static_weights(s.rules), random.Random(0)), side, 5.0)

    assert engine(st) == want
    assert simulate(st, side, 5.0, engine) == want
    early = State.from_spec({**spec, "scores": [0, 0], "sweeps": [0, 0]})

    def refuse(s):
        raise AssertionError("the fast path plays a position with no restricted side")

    simulate(early, side, 5.0, refuse)


def test_fast_rollouts_play_several_hungarian_cards_at_once() -> None:
    """V-hun-play in the lean simulator: 5H+4C (total 9) take both nines, four cards, where no
    single card takes anything; all three cards when they total 18; the rollout then scores
    as the engine's."""
    deck = new_game("hungarian").rules.deck

    def mask(*cards: str) -> int:
        return sum(1 << deck.index[c] for c in cards)

    st = State.from_spec({"variant": "hungarian", "players": 2, "table": ["9S", "9D"],
                          "hands": [["5H", "4C", "KD"], ["2C", "3C", "6H"]]})
    sr = sim_rules(st.rules)
    assert sr.supported
    assert greedy_step(sr, st.hand_masks[0], st.loose_mask, [], 0) == (
        3, mask("5H", "4C"), mask("9S", "9D"))
    # 9H alone takes 9S+9D (three cards), 5H+4C with four, all three (total 18) take them as
    # one set of 18 with five: the most cards
    assert greedy_step(sr, mask("5H", "4C", "9H"), st.loose_mask, [], 0) == (
        3, mask("5H", "4C", "9H"), mask("9S", "9D"))
    # one nine on the table: 9H+9S is two cards, 5H+4C+9S three
    assert greedy_step(sr, mask("9H", "5H", "4C"), mask("9S"), [], 0) == (
        3, mask("5H", "4C"), mask("9S"))
    # a single card is played alone (kind 1) when no pair adds up to anything on the table
    assert greedy_step(sr, mask("9H", "KD", "QC"), mask("9S"), [], 0) == (
        1, deck.index["9H"], mask("9S"))
    # nothing adds up: the least valuable card trails
    assert greedy_step(sr, mask("KD", "QC"), mask("2S"), [], 0)[0] == 0
    side = st.rules.side(0)
    engine = hand_result(st, rollout(st, static_weights(st.rules), random.Random(0)), side, 0.0)
    assert simulate(st, side, 0.0, lambda s: 1e9) == engine


@pytest.mark.parametrize("table,hands,points", [
    (["3R", "4Y"], [["7G"], ["2B"]], 30),  # most cards 15, an orange 10, a sweep of 2 cards 5
    (["1R", "2G", "3B", "1Y"], [["7G"], ["2B"]], 35),  # the sweep takes 4 table cards: 10
    (["3R", "4G"], [["7G"], ["2B"]], 20),  # red and green: no orange
    (["3R", "4Y"], [["7G", "9B"], ["5B", "6G"]], 35),  # and the 5B, trailed, in the residue
])
def test_fast_rollouts_score_tuxedos_oranges_and_sized_sweeps(table, hands, points) -> None:
    """V-tux-score in the lean simulator (thirty-ninth session; before it every tuxedo
    rollout went to the engine): the Rook deck, an orange (a capture of a red and a yellow
    card) 10, a sweep of 4 or more table cards 10 and of fewer 5, each Five 5, most cards 15,
    scored as the engine's events; the result is the engine rollout's, point for point."""
    st = State.from_spec({"variant": "tuxedo", "players": 2, "table": table, "hands": hands})
    assert supported(st.rules)
    assert not supported(State.from_spec({**st.to_spec(), "rules": {"orange_calls": True}}
                                         ).rules)  # called oranges stay with the engine
    engine = hand_result(st, rollout(st, static_weights(st.rules), random.Random(0)), 0, 0.0)
    assert simulate(st, 0, 0.0, lambda s: 1e9) == engine == points


def test_events_rollout_policy_weighs_tuxedos_oranges_and_sweeps() -> None:
    """The "events" rollout policy (fifty-third session) weighs a capture by the points it
    scores under V-tux-score, a plain card 1 (1.88 points: most cards' 15 shared): with 10G
    and 8Y against 1R 4B 3R 7Y the builder takes the most cards (8Y: 1R 4B 3R), the events
    policy the orange (10G: 3R 7Y, a red and a yellow, 10 points). A sweep adds 10 points
    with 4 or more table cards taken, else 5; other variants get no event bonus."""
    from agents.fastsim import _event_bonus

    st = State.from_spec({"variant": "tuxedo", "players": 2, "table": ["1R", "4B", "3R", "7Y"],
                          "hands": [["10G", "8Y"], ["2B"]]})
    deck = st.rules.deck
    mask = lambda *names: sum(1 << deck.index[n] for n in names)  # noqa: E731
    hand, loose = st.hand_masks[0], st.loose_mask
    builder, events = sim_rules(st.rules, "builder"), sim_rules(st.rules, "events")
    assert greedy_step(builder, hand, loose, [], 0) == (1, deck.index["8Y"],
                                                        mask("1R", "4B", "3R"))
    assert greedy_step(events, hand, loose, [], 0) == (1, deck.index["10G"], mask("3R", "7Y"))
    assert events.cw[deck.index["1R"]] == 1.0
    assert events.cw[deck.index["5G"]] == pytest.approx(1 + 5 / 1.8806, abs=1e-3)  # a Five
    assert _event_bonus(events, mask("3R", "7Y"), loose, []) == pytest.approx(10 / 1.8806,
                                                                              abs=1e-3)
    every = mask("1R", "4B", "3R", "7Y")  # a sweep of four, with an orange
    assert _event_bonus(events, every, loose, []) == pytest.approx(20 / 1.8806, abs=1e-3)
    small = mask("1R", "4B")  # a sweep of two, no orange
    assert _event_bonus(events, small, small, []) == pytest.approx(5 / 1.8806, abs=1e-3)
    # a build left on the table: no sweep
    assert _event_bonus(events, small, small, [(9, mask("2B", "7Y"), 1, 0.0)]) == 0.0
    assert sim_rules(new_game("casino", 2).rules, "events").ew is None
    # "guard" reads the one other hand; not with three players, nor in krypkasino's penalties
    assert sim_rules(st.rules, "guard").guard and not events.guard
    assert not sim_rules(new_game("tuxedo", 3).rules, "guard").guard
    assert not sim_rules(new_game("krypkasino", 2).rules, "guard").guard


@pytest.mark.parametrize("variant,players", [("hungarian", 2), ("finnish", 2), ("finnish", 3)])
def test_fast_earned_wins_match_the_engines_count(variant: str, players: int) -> None:
    """V-earned, V-hun-end: the simulator's check for a win during play (an upper bound of
    every side's total first, then the engine's count) ends exactly where the engine's
    ``earned``/``earned_winner`` would, on states of whole games (scores near the target too)."""
    from agents.fastsim import _earned_end, _result
    from casino_env.engine.scoring import earned, earned_winner

    wins = 0
    rng = random.Random(3)
    for st in random_states(variant, players, 300, seed=9):
        spec = st.to_spec()  # scores a few points short of the target: wins become possible
        spec["scores"] = [st.rules.target - rng.randint(1, 8) for _ in spec["scores"]]
        if variant == "finnish" and max(spec["scores"]) >= 10:  # V-fin-score: no sweeps then
            spec["sweeps"] = [0] * len(spec["sweeps"])
        st = State.from_spec(spec)
        r = st.rules
        sr = sim_rules(r)
        taken = 0
        for p in st.pile_masks:
            taken |= p
        left = (r.deck.size - taken.bit_count(), (sr.spade & ~taken).bit_count())
        points = earned(r, st.pile_masks, st.sweeps, (), left)
        winner = earned_winner([a + b for a, b in zip(st.scores, points)], r.target)
        want = None if winner is None else _result(points, winner, 0, 5.0)
        assert _earned_end(st, sr, list(st.pile_masks), list(st.sweeps), 0, 5.0) == want
        wins += want is not None
    assert wins > 0


@pytest.mark.parametrize("variant,players", [("casino", 2), ("royal", 3), ("dominican", 4)])
def test_rollouts_memoise_only_what_greedy_step_returns(variant: str, players: int) -> None:
    """simulate memoises greedy_step by (hand, table) when no build is out, else also by the
    seat and the builds: every remembered move is the one greedy_step gives afresh, for any
    seat where no build is out (the seat matters only through the builds it owns)."""
    sr = sim_rules(new_game(variant, players).rules, "builder")
    sr.steps.clear()
    for st in random_states(variant, players, 60, seed=12):
        side = st.rules.side(st.current)
        simulate(st, side, 0.0, lambda s: 0.0, "builder")
    assert len(sr.steps) > 100
    with_builds = 0
    for key, got in sr.steps.items():
        if len(key) == 2:
            for seat in range(players):
                assert greedy_step(sr, key[0], key[1], [], seat) == got
        else:
            hand, items, seat, builds = key
            with_builds += 1
            assert greedy_step(sr, hand, items, list(builds), seat) == got
    assert with_builds > 0


@pytest.mark.parametrize("variant,players,policy", [
    ("casino", 2, "builder"), ("royal", 3, "builder"), ("dominican", 2, "builder"),
    ("dominican", 4, "builder"), ("spade", 4, "builder"), ("tuxedo", 2, "events"),
    ("tuxedo", 3, "events")])
def test_builder_rollout_moves_are_legal(variant: str, players: int, policy: str) -> None:
    """The "builder" rollout policy also makes new builds: each one is a legal move (and so
    does "events", which builds as it does)."""
    builds = 0
    for st in random_states(variant, players, 150, seed=8):
        sr = sim_rules(st.rules, policy)
        mv = greedy_step(sr, st.hand_masks[st.current], st.loose_mask,
                         [(b.value, b.cards, b.owner, 0.0) for b in st.builds], st.current)
        if mv is None:
            continue
        kind, card, taken = mv
        legal = legal_moves(st)
        if kind == 2:
            builds += 1
            value, taken = taken >> 64, taken & ((1 << 64) - 1)
            assert any(m.kind == "build" and m.played_mask == 1 << card and m.value == value
                       and m.taken_mask == taken for m in legal), str(st)
        else:
            assert any(m.kind == ("capture" if kind else "trail") and m.played_mask == 1 << card
                       and m.taken_mask == taken for m in legal), str(st)
    assert builds > 0


def test_greedy_beats_random_and_heuristic_beats_greedy() -> None:
    s = summarize_pair(play_match(["greedy", "random"], "casino", deals=40, seed=3, mode="hand"))
    assert s.win_rate > 0.75 and s.diff_lo > 0
    s = summarize_pair(play_match(["heuristic", "greedy"], "royal", deals=30, seed=3,
                                  mode="hand"))
    assert s.diff_per_hand > 0.5 and s.win_rate > 0.55


@pytest.mark.parametrize("variant", list_variants())
def test_hand_points_add_up_to_the_score(variant: str) -> None:
    """Every hand is recorded, also one cut short by a win during play (V-earned, claims)."""
    res = play_match(["greedy", "random"], variant, deals=2, seed=7)
    for g in res.records:
        assert g.winner is not None and g.hands == len(g.points) >= 1
        for a in (0, 1):
            assert sum(p[a] for p in g.points) == g.scores[a]


def test_search_hand_bonus_values_winning_the_hand(monkeypatch) -> None:
    """``hand_bonus`` adds to a rollout's result when the hand is won and takes off when it
    is lost: a sure one-point win (capture) beats a gamble worth +4 points on average that
    wins half the time (trail: +10 or -2) once the bonus is 5, and loses to it without."""
    import agents.search as search_mod
    from agents import SearchAgent
    from casino_env.engine import State
    from casino_env.engine.view import PlayerView

    spec = {"variant": "casino", "players": 2, "dealer": 1, "current": 0,
            "hands": [["5H"], ["2D"]], "table": ["5C"], "stock": ["3S", "4S", "6S", "7S"]}
    st = State.from_spec(spec)

    calls: list[int] = []

    def fake_simulate(after, side, bonus, engine, policy, tail=None):  # scripted results
        calls.append(1)
        if not after.loose_mask:  # the capture took 5C
            return 1.0
        return 10.0 if len(calls) % 2 else -2.0

    monkeypatch.setattr(search_mod, "simulate", fake_simulate)
    chosen = {}
    for hb in (0.0, 5.0):
        agent = SearchAgent(seed=0, simulations=400, prior=0.0, hand_bonus=hb)
        chosen[hb] = str(agent.choose(PlayerView(st, 0)))
    assert chosen == {0.0: "5H trails", 5.0: "5H captures 5C"}


@pytest.mark.parametrize(("variant", "weight"), [("casino", 0.5), ("swazi", 1.5),
                                                 ("royal", 0.5)])
def test_search_prior_defaults_per_preset(variant: str, weight: float) -> None:
    """The search agent's prior weight defaults to 0.5, and to 1.5 in swazi (PRIOR_DEFAULTS:
    a 400-game match on fresh deals, docs/baselines.md): with the same seed the default agent
    chooses exactly as one given that weight, and (on some decision) unlike one given the
    other weight."""
    from agents import SearchAgent

    other = 1.5 if weight == 0.5 else 0.5
    differs = False
    for st in random_states(variant, 2, 40, seed=5):
        view = PlayerView(st, st.current)
        if len(view.legal_moves()) < 3:
            continue
        base = SearchAgent(seed=1, simulations=24).choose(view)
        assert base == SearchAgent(seed=1, simulations=24, prior=weight).choose(view)
        differs |= base != SearchAgent(seed=1, simulations=24, prior=other).choose(view)
    assert differs


def test_rollout_with_a_horizon_stops_after_the_deals() -> None:
    """``rollout(..., deals=k)`` stops just after the k-th new round dealt from the stock (the
    hand not over), and without ``deals`` it plays to the hand's end."""
    st = new_game("krypkasino", 2, seed=3)
    w = static_weights(st.rules)
    assert len(st.stock_ids) == 104 - 12 and [h.bit_count() for h in st.hand_masks] == [4, 4]
    one = rollout(st, w, random.Random(0), deals=1)
    assert len(one.stock_ids) == 104 - 12 - 8 and one.hand_points is st.hand_points
    assert [h.bit_count() for h in one.hand_masks] == [4, 4]  # just dealt
    two = rollout(st, w, random.Random(0), deals=2)
    assert len(two.stock_ids) == 104 - 12 - 16
    full = rollout(st, w, random.Random(0))
    assert full.hand_points is not st.hand_points  # the hand was scored
    assert sum(full.hand_points) == 42  # V-kryp-score: 42 penalties (a tabbe's +5/-5 cancel)


def test_midhand_result_is_the_points_so_far_difference() -> None:
    """A rollout stopped mid-hand scores the points so far (casino_env.returns.running_points):
    in krypkasino, penalties count against their side (V-kryp-score: 10D 3 a copy, AS 2)."""
    from agents.search import midhand_result
    from casino_env.engine import State
    from casino_env.returns import points_so_far, running_points

    st = State.from_spec({"variant": "krypkasino", "players": 2,
                          "hands": [["5H", "8D"], ["6H", "9D"]], "table": ["KC"],
                          "stock": ["4C", "4D"], "piles": [["10D", "10D", "AS"], ["2S", "3H"]]})
    assert running_points(st) == [8.0, 2.0]
    assert midhand_result(st, 0) == -6.0 and midhand_result(st, 1) == 6.0
    assert points_so_far(st) == [-6.0, 6.0]
    st = State.from_spec({"variant": "casino", "players": 2,
                          "hands": [["5H", "8D"], ["6H", "9D"]], "table": ["KC"],
                          "stock": ["4C", "4D"], "piles": [["AS", "10D", "5C"], ["2S", "3H"]]})
    # C-score: AS 1 + 10D 2 + cards 3 * 3/12 + spades 1 * 1/2; 2S 1 + 3 * 2/12 + 1/2
    assert running_points(st) == pytest.approx([4.25, 2.0])
    assert midhand_result(st, 0) == pytest.approx(2.25)


def test_search_horizon_option() -> None:
    """``horizon`` is checked where it is given; a search with a horizon is deterministic for
    its seed, and in krypkasino it avoids a sweep that costs its capturer 5 (V-kryp-score)
    when the other card can be trailed."""
    from agents import SearchAgent, make_agent
    from casino_env.engine import State

    with pytest.raises(ValueError, match="horizon"):
        SearchAgent(horizon=-1)
    assert make_agent("search:horizon=2", seed=0).horizon == 2
    # 5H would have to take the lone 5D (compulsory, V-kryp-play): a tabbe, +5 penalties.
    st = State.from_spec({"variant": "krypkasino", "players": 2, "dealer": 1, "current": 0,
                          "hands": [["5H", "9C", "QD", "JD"], ["3S", "7C", "8C", "6D"]],
                          "table": ["5D"],
                          "stock": ["2H", "3H", "4H", "6H", "7H", "8H", "9H", "KH"]})
    view = PlayerView(st, 0)
    assert any(str(m) == "5H captures 5D" for m in view.legal_moves())
    picks = {str(SearchAgent(seed=s, simulations=60, horizon=1, prior=0.0).choose(view))
             for s in (0, 1)}
    assert "5H captures 5D" not in picks
    assert SearchAgent(seed=4, simulations=60, horizon=1).choose(view) == \
        SearchAgent(seed=4, simulations=60, horizon=1).choose(view)


def test_search_horizon_defaults_per_preset(monkeypatch) -> None:
    """The rollout horizon defaults to two deals in krypkasino (HORIZON_DEFAULTS: a match on
    fresh deals, docs/baselines.md) and to the hand's end elsewhere; horizon=0 asks for the
    hand's end explicitly. Checked on the rollouts the search asks of the engine."""
    import agents.search as search_mod
    from agents import SearchAgent

    asked: list = []
    real = search_mod.rollout

    def spy(st, w, rng, epsilon=0.0, deals=None):
        asked.append(deals)
        return real(st, w, rng, epsilon, deals)

    monkeypatch.setattr(search_mod, "rollout", spy)
    # krypkasino's whole-hand rollouts (horizon=0) go to the fast simulator since it plays
    # krypkasino (thirty-sixth session), as royal's do
    for variant, horizon, expect in [("krypkasino", None, {2}), ("krypkasino", 0, set()),
                                     ("krypkasino", 3, {3}), ("royal", None, set())]:
        asked.clear()
        for st in random_states(variant, 2, 12, seed=2):
            view = PlayerView(st, st.current)
            if len(view.legal_moves()) > 1:
                SearchAgent(seed=0, simulations=8, horizon=horizon).choose(view)
        # royal: fast rollouts (agents.fastsim), never the engine's with a horizon
        assert set(asked) == expect, (variant, horizon)


def test_a_one_hand_match_gives_a_false_claim_to_the_other_side():
    """V-hun-end (`claims`) in ``play_match(mode="hand")``: a hand ended by a false claim is
    lost by the claimer whatever the hand's points, as the environment's one-hand reward
    gives it (it went to the hand's points leader). The claimer captures greedily and claims
    as soon as it leads on points it has earned, always below 11 here."""
    from agents import play_match
    from agents.base import Agent
    from agents.scripted import GreedyAgent
    from casino_env.engine.scoring import earned

    claims: list[bool] = []  # per game, in the match's order: did the claimer claim?

    class Claimer(Agent):
        name = "claimer"

        def __init__(self, seed=None):
            super().__init__(seed)
            self.greedy = GreedyAgent(seed)

        def reset(self, seed=None):
            super().reset(seed)
            claims.append(False)

        def choose(self, view):
            st = view.state
            moves = view.legal_moves()
            points = earned(st.rules, st.pile_masks, st.sweeps, st.events, None)
            if moves[0].kind == "claim" and points[view.seat] > points[1 - view.seat]:
                claims[-1] = True
                return moves[0]
            return self.greedy.choose(view)

    result = play_match([Claimer, "greedy"], "hungarian", 2, deals=30, seed=1, mode="hand",
                        claims=True)
    assert len(claims) == len(result.records)
    led = 0
    for g, claimed in zip(result.records, claims):
        if claimed:
            assert g.scores[0] < 11 and g.winner == 1, g  # a false claim: the other side wins
            led += g.points[0][0] > g.points[0][1]
    assert led > 0  # in some of them the claimer led on the hand's points


def test_a_match_never_puts_two_agents_on_one_side() -> None:
    """Points and wins are credited per side: partners holding different agents (two agents
    alternating round krypkasino's six seats, whose partners sit three apart) are refused by
    name; with partners of one agent each side's wins go to it."""
    with pytest.raises(ValueError, match="seats 0 and 3 are partners in krypkasino with 6 "
                                         r"players.*give one agent per side \(3 agents"):
        play_match(["heuristic", "random"], "krypkasino", 6, deals=1, partnerships=True)
    res = play_match(["heuristic", "random"], "dominican", 4, deals=2, seed=3)
    for g in res.records:
        assert g.seats in ((0, 1, 0, 1), (1, 0, 1, 0))
        assert sum(g.scores) == sum(sum(p) for p in g.points)


@pytest.mark.parametrize("name", ["heuristic", "search:simulations=12"])
def test_scripted_agents_claim_and_call_by_the_rules(name) -> None:
    """V-hun-end claims and V-tux-score orange calls: the heuristic (and the search, which
    ranks its candidates with it) crashed wherever a claim or a call was legal (it took them
    for builds of no value). Now it claims exactly when the claim wins, calls every missed
    orange it may call, and calls its own captures' oranges and no others."""
    from casino_env.engine.play import claim_wins, play
    from casino_env.engine.scoring import is_orange

    rng = random.Random(0)
    agent = make_agent(name, seed=1)
    seen = {"claim": 0, "call": 0, "orange": 0}
    for variant, sw in (("hungarian", {"claims": True}), ("tuxedo", {"orange_calls": True})):
        for seed in range(2 if "search" in name else 6):
            st = new_game(variant, 2, seed=seed, **sw)
            while not st.game_over:
                moves = legal_moves(st)
                if st.current == 0:
                    m = agent.act(st)
                    if variant == "hungarian":
                        assert (m.kind == "claim") == claim_wins(st)
                        seen["claim"] += m.kind == "claim"
                    else:
                        if st.pending_orange == 0:
                            assert m.kind == "call"
                            seen["call"] += 1
                        elif m.kind == "capture":
                            assert m.orange == is_orange(st.rules, m.taken_mask)
                            seen["orange"] += m.orange
                else:  # the other seat plays at random, but never claims or calls
                    m = rng.choice([x for x in moves if x.kind not in ("claim", "call")
                                    and not x.orange])
                st = play(st, m)
    assert all(seen.values()), seen
