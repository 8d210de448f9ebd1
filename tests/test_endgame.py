"""agents.endgame: exact play once nothing is hidden (a two-player hand's last deal), checked
against plain minimax over every line of play; the search agent's ``endgame`` option."""

from __future__ import annotations

import random

import pytest

from agents import make_agent
from agents.endgame import lead, move_values, perfect_information, solve, solve_view
from agents.search import SearchAgent
from casino_env.engine import apply_move, legal_moves, new_game
from casino_env.engine.view import PlayerView


def minimax(st, side: int) -> float:
    """Plain minimax, no pruning, no ordering: the reference."""
    vals = []
    for m in legal_moves(st):
        nxt = apply_move(st, m, deal_next=False)
        vals.append(lead(nxt, side) if nxt.hand_points is not st.hand_points or nxt.game_over
                    else minimax(nxt, side))
    mover = st.rules.side(st.current) == side
    return max(vals) if mover else min(vals)


def last_deal_positions(variant: str, n: int, seed: int, max_cards: int = 3):
    """Positions of random two-player games at the last deal (stock empty) with at most
    ``max_cards`` cards in the mover's hand and a choice of moves."""
    rng = random.Random(seed)
    out, game = [], 0
    while len(out) < n:
        st = new_game(variant, 2, seed=seed * 1000 + game)
        game += 1
        hand = st.hand_points
        while not st.game_over and st.hand_points is hand:
            moves = legal_moves(st)
            if not st.stock_ids and len(moves) > 1 and \
                    st.hand_masks[st.current].bit_count() <= max_cards:
                out.append(st)
                break
            st = apply_move(st, rng.choice(moves))
    return out


@pytest.mark.parametrize("variant", ["casino", "royal", "tuxedo", "swedish"])
def test_solver_values_are_exact_minimax(variant):
    for st in last_deal_positions(variant, 6, seed=3):
        side = st.rules.side(st.current)
        best, value = solve(st)
        assert value == minimax(st, side)
        values = move_values(st)
        assert set(values) == set(legal_moves(st)) and max(values.values()) == value
        assert values[best] == value
        for m, v in values.items():
            nxt = apply_move(st, m, deal_next=False)
            ends = nxt.hand_points is not st.hand_points or nxt.game_over
            assert v == (lead(nxt, side) if ends else minimax(nxt, side))


def test_perfect_information_only_at_a_two_player_last_deal():
    st = new_game("casino", 2, seed=1)
    assert not perfect_information(PlayerView(st, st.current))  # the stock is not empty
    last = last_deal_positions("casino", 1, seed=5)[0]
    view = PlayerView(last, last.current)
    assert perfect_information(view)
    move, value = solve_view(view)
    assert (move, value) == solve(last)  # the view's one world is the state itself
    three = new_game("casino", 3, seed=2)
    assert not perfect_information(PlayerView(three, three.current))


def test_a_node_limit_gives_up():
    st = last_deal_positions("casino", 1, seed=7, max_cards=4)[0]
    assert solve(st, node_limit=1) is None or len(legal_moves(st)) == 1
    assert move_values(st, node_limit=1) is None


def test_search_with_endgame_plays_the_exact_move_at_the_last_deal_only():
    for st in last_deal_positions("casino", 4, seed=9):
        view = PlayerView(st, st.current)
        agent = SearchAgent(seed=1, simulations=40, endgame=100_000)
        move = agent.choose(view)
        best, value = solve(st, 100_000)
        assert move == best and agent.last_scores == [(best, value)]
    st = new_game("casino", 2, seed=4)  # the stock is full: the usual search, same choice
    view = PlayerView(st, st.current)
    a = SearchAgent(seed=2, simulations=40, endgame=100_000).choose(view)
    b = SearchAgent(seed=2, simulations=40).choose(view)
    assert a == b
    assert make_agent("search:endgame=500", seed=0).endgame == 500
    with pytest.raises(ValueError, match="endgame must be an int >= 0"):
        SearchAgent(endgame=-1)


def test_heuristic_with_endgame_plays_the_exact_move_at_the_last_deal_only():
    """heuristic:endgame=N: the exact move where the view determines the state (it differs
    from the heuristic's own on some of these), the heuristic's move everywhere else."""
    from agents.scripted import HeuristicAgent

    differs = 0
    for st in last_deal_positions("casino", 30, seed=11):
        view = PlayerView(st, st.current)
        values = move_values(st, 100_000)
        move = HeuristicAgent(seed=1, endgame=100_000).choose(view)
        assert values[move] == max(values.values())
        own = HeuristicAgent(seed=1).choose(view)
        differs += values[own] < max(values.values())
    assert differs > 0
    st = new_game("casino", 2, seed=4)  # the stock is full: the heuristic's move
    view = PlayerView(st, st.current)
    exact = HeuristicAgent(seed=2, endgame=100_000)
    assert exact.choose(view) == HeuristicAgent(seed=2).choose(view)
    assert make_agent("heuristic:endgame=500,threat=0.5", seed=0).endgame == 500
    with pytest.raises(ValueError, match="endgame must be an int >= 0"):
        make_agent("heuristic:endgame=-1")


# -- depth-limited look-ahead (issue 18: how much look-ahead the last deal needs) ------------

def _last_deal(piles, sweeps=None, table=(), last_capturer=None):
    """A casino last deal (stock empty) with the given piles (``sweeps``: scored, C-sweep)."""
    from casino_env.engine import State

    return State.from_spec({
        "variant": "casino", "players": 2, "dealer": 1, "current": 0,
        **({"rules": {"sweeps": True}, "sweeps": list(sweeps)} if sweeps else {}),
        "hands": [["3H", "9C"], ["5D", "QC"]], "table": list(table), "stock": [],
        "piles": piles, "last_capturer": last_capturer})


def test_static_lead_scores_the_piles_as_they_stand():
    """C-score on the piles taken so far: side 0 holds 10D (2), 2S (1), AS and AH (2) and a
    sweep (1) = 6; side 1 holds AC (1), most spades (1) and most cards (3) = 5."""
    from agents.endgame import static_lead

    st = _last_deal([["10D", "2S", "AS", "AH"], ["AC", "3S", "4S", "5S", "6S", "7S"]],
                    sweeps=(1, 0))
    assert static_lead(st, 0) == 1.0 and static_lead(st, 1) == -1.0


def test_static_lead_with_residue_gives_the_table_to_the_last_capturer():
    """C-score: side 0 holds 10D, 2S, AS, AH (5 points, 4 cards, 2 spades), side 1 AC, 3S, 4S,
    5S (1 for AC, 1 for most spades; cards tied 4-4): 5 - 2 = 3 with the table (8S, 9S)
    unassigned. residue=True counts the table to the last capturer: to side 0 it makes most
    cards (3) and most spades (1) side 0's, 9 - 1 = 8; to side 1, 5 - 5 = 0."""
    from agents.endgame import static_lead

    piles = [["10D", "2S", "AS", "AH"], ["AC", "3S", "4S", "5S"]]
    st = _last_deal(piles, table=["8S", "9S"], last_capturer=0)
    assert static_lead(st, 0) == 3.0
    assert static_lead(st, 0, residue=True) == 8.0
    assert static_lead(st, 1, residue=True) == -8.0
    st = _last_deal(piles, table=["8S", "9S"], last_capturer=1)
    assert static_lead(st, 0, residue=True) == 0.0


def _reference_look(st, side, plies, residue=False):
    """Depth-limited minimax with no pruning: the reference for ``lookahead``."""
    from agents.endgame import static_lead

    vals = []
    for m in legal_moves(st):
        nxt = apply_move(st, m, deal_next=False)
        if nxt.hand_points is not st.hand_points or nxt.game_over:
            vals.append(lead(nxt, side))
        elif plies == 1:
            vals.append(static_lead(nxt, side, residue))
        else:
            vals.append(_reference_look(nxt, side, plies - 1, residue))
    return max(vals) if st.rules.side(st.current) == side else min(vals)


@pytest.mark.parametrize("variant", ["casino", "royal"])
def test_lookahead_is_depth_limited_minimax_and_exact_past_the_deals_end(variant):
    from agents.endgame import lookahead

    for st in last_deal_positions(variant, 5, seed=5):
        side = st.rules.side(st.current)
        for plies in (1, 2, 3):
            for residue in (False, True):
                move, value = lookahead(st, plies, residue)
                assert value == _reference_look(st, side, plies, residue)
                nxt = apply_move(st, move, deal_next=False)
                ends = nxt.hand_points is not st.hand_points or nxt.game_over
                got = lead(nxt, side) if ends else (
                    _reference_look(nxt, side, plies - 1, residue) if plies > 1 else None)
                if got is not None:  # the move it names is worth the value it gives
                    assert got == value
        # at most 3 cards in each hand: 6 plies reach the hand's end, as the solver does
        assert lookahead(st, 6)[1] == solve(st)[1]


def test_lookahead_needs_a_ply():
    from agents.endgame import lookahead

    with pytest.raises(ValueError, match="plies"):
        lookahead(last_deal_positions("casino", 1, seed=5)[0], 0)


def _deal_before_last(variant: str, seed: int, cards: int = 2, last_card: bool = False):
    """A two-player state in the deal before the last (cards left in the stock, the hands to
    be dealt from it the last ones) with at most ``cards`` cards in each hand; ``last_card``:
    the deal's last card to play, no build on the table."""
    rng = random.Random(seed)
    for game in range(200):
        st = new_game(variant, 2, seed=seed * 1000 + game)
        hand = st.hand_points
        while st.hand_points is hand and not st.game_over:
            moves = legal_moves(st)
            n = len(st.stock_ids)
            sizes = sorted(h.bit_count() for h in st.hand_masks)
            if n and n <= st.rules.hand_size * 2 and sizes[-1] <= cards and (
                    not last_card or (sizes == [0, 1] and not st.builds)):
                return st
            st = apply_move(st, moves[rng.randrange(len(moves))])
    raise AssertionError("no such state")


def _exact_after_forced(st, side: int) -> float | None:
    """The reference: play the rest of the deal while every move is forced, deal the last one
    and solve it (None where a move before the last deal has a choice): plain minimax where
    the last deal is small (tuxedo's two cards each), else ``solve`` (checked against it
    above)."""
    hand = st.hand_points
    while st.stock_ids and st.hand_points is hand:
        moves = legal_moves(st)
        if len(moves) > 1:
            return None
        st = apply_move(st, moves[0])
    if st.hand_points is not hand:
        return lead(st, side)
    if st.rules.hand_size * 2 >= 8:
        v = solve(st, 10**7)[1]
        return v if st.rules.side(st.current) == side else -v
    return minimax(st, side)


@pytest.mark.parametrize("variant, seeds, least", [("tuxedo", 60, 30), ("casino", 10, 4)])
def test_a_rollout_may_play_the_last_deal_exactly(variant: str, seeds: int, least: int) -> None:
    """``determinization_value(..., exact_last=True)`` (``collect --exact-last``, fifty-seventh
    session): the rollout plays the rest of the deal before the last by its policy, then the
    last deal as exact minimax, in the fast simulator (its ``last_deal`` hook) and in the
    engine's rollouts alike. Checked where every move before the last deal is forced, against
    plain minimax of the last deal once dealt; the builder rollout's own last deal differs."""
    from agents.search import determinization_value
    from agents.valuation import static_weights

    checked = differ = 0
    for seed in range(seeds):
        st = _deal_before_last(variant, seed, cards=1)
        side = st.rules.side(st.current)
        w = static_weights(st.rules)
        for m in legal_moves(st):
            after = apply_move(st, m)
            want = _exact_after_forced(after, side)
            if want is None:
                continue
            for fast in (True, False):
                got = determinization_value(st, after, side, w, seed, fast=fast,
                                            exact_last=True)
                assert got == pytest.approx(want), (variant, seed, m, fast)
            checked += 1
            differ += determinization_value(st, after, side, w, seed, policy="builder") != \
                pytest.approx(want)
    assert checked >= least and differ >= 1, (checked, differ)


def test_exact_last_deal_rollouts_refuse_a_horizon_a_tail_and_a_game_bonus() -> None:
    """The last deal is solved in points at the end of a rollout to the hand's end, so a
    ``horizon`` or a boundary value ``tail`` (a rollout stopped sooner) and a game bonus are
    refused by name."""
    from agents.search import determinization_value
    from agents.valuation import static_weights

    st = _deal_before_last("casino", 1)
    after = apply_move(st, legal_moves(st)[0])
    args = (st, after, st.rules.side(st.current), static_weights(st.rules), 0)
    with pytest.raises(ValueError, match="exact_last.*no horizon"):
        determinization_value(*args, horizon=1, exact_last=True)
    with pytest.raises(ValueError, match="exact_last.*game bonus"):
        determinization_value(*args, 5.0, exact_last=True)
    with pytest.raises(ValueError, match="exact_last.*tail"):
        determinization_value(*args, tail=lambda *a: 0.0, exact_last=True)


def test_last_deal_value_deals_the_stock_and_solves_it() -> None:
    """``last_deal_value``: a position at the boundary before the last deal, given as a
    rollout holds it (table, piles, sweeps, last capturer, events, stock), is dealt by the
    engine and solved: the same value as dealing that state and minimaxing it, for either
    side."""
    from agents.endgame import last_deal_value
    from casino_env.engine.play import settle

    for seed in range(8):
        st = _deal_before_last("tuxedo", seed, cards=1, last_card=True)
        # the deal's last card trailed: the boundary, every hand empty, the stock to deal
        card = st.hand_masks[st.current]
        boundary = st._copy()
        boundary.hand_masks, boundary.loose_mask = (0, 0), st.loose_mask | card
        for side in (0, 1):
            got = last_deal_value(boundary, side, boundary.loose_mask, boundary.pile_masks,
                                  boundary.sweeps, boundary.last_capturer, boundary.events,
                                  boundary.stock_ids)
            assert got == pytest.approx(minimax(settle(boundary), side))


def test_the_solver_never_makes_a_false_claim_that_leads_on_points():
    """V-hun-end with claims: a false claim loses the game, though the claimer may lead on
    the points it has earned (here 5 to 2); the solver valued it by those points (+3) and
    played it in 58 of 400 last deals. Now a claim's game is worth CLAIMED more than any
    hand's points: the claim is -997, the best move a trail worth +3."""
    from casino_env.engine import State
    from casino_env.engine.play import claim_wins

    base = new_game("hungarian", 2, seed=0, claims=True).to_spec()
    st = State.from_spec({
        **base, "dealer": 1, "current": 0, "stock": [], "sweeps": [0, 0], "scores": [0, 0],
        "last_capturer": 1, "hands": [["AD", "5S", "9S"], ["7S", "7D", "KS"]], "table": ["8D"],
        "piles": [["AS", "AH", "AC", "2S", "2D", "3S", "3D", "4S", "5H", "6D", "6C", "8S", "8H",
                   "9D", "10S", "10H", "JS", "JH", "QS", "QH", "KH", "KD", "KC"],
                  ["2H", "2C", "3H", "3C", "4H", "4D", "4C", "5D", "5C", "6S", "6H", "7H", "7C",
                   "8C", "9H", "9C", "10D", "10C", "JD", "JC", "QD", "QC"]]})
    claim = next(m for m in legal_moves(st) if m.kind == "claim")
    after = apply_move(st, claim)
    assert not claim_wins(st) and after.winner == 1 and list(after.hand_points) == [5, 2]
    values = move_values(st)
    assert values[claim] == -997.0
    move, value = solve(st)
    assert (str(move), value) == ("AD trails", 3.0)
    assert str(make_agent("heuristic:endgame=200000").act(st)) == "AD trails"
    won = State.from_spec({**st.to_spec(), "scores": [10, 0]})  # 10 + 5 earned: a true claim
    assert claim_wins(won) and solve(won) == (claim, 1003.0)  # (claims tried first)
    assert make_agent("heuristic").act(won) == claim and make_agent("heuristic").act(st) != claim
