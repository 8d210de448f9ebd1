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
