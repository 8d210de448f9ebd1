"""agents.afterstate: a learned afterstate value network playing the two-player last deal
(``heuristic:endgame_net=PATH``, ``ppo:MODEL,endgame_net=PATH``)."""

from __future__ import annotations

import pytest

from agents.afterstate import AfterstateNet, save_net, value_net
from agents.endgame import perfect_information
from agents.registry import make_agent
from agents.scripted import HeuristicAgent
from casino_env.engine import apply_move, legal_moves, new_game
from casino_env.engine.play import play
from casino_env.engine.scoring import awards
from casino_env.engine.view import PlayerView

torch = pytest.importorskip("torch")
MODEL = "experiments/results/train/casino/model.zip"


def _zero_net(path, variant: str = "casino"):
    """A network whose output is 0: it values an afterstate at its static lead."""
    rules = new_game(variant, 2, seed=0).rules
    from agents.afterstate import layout_of

    width = layout_of(rules).size + 52 + 1
    net = value_net(width, 8)
    for p in net.parameters():
        torch.nn.init.zeros_(p)
    save_net(path, net, {"variant": variant, "width": width, "hidden": 8, "residual": True,
                         "ranks": False})
    return path


def _last_deal(seed: int):
    st, agent = new_game("casino", 2, seed=seed), HeuristicAgent(0)
    while not perfect_information(PlayerView(st, st.current)) or len(legal_moves(st)) < 2:
        st = apply_move(st, agent.choose(PlayerView(st, st.current)))
    return st


def test_a_zero_network_values_each_afterstate_at_its_static_lead(tmp_path) -> None:
    net = AfterstateNet(_zero_net(tmp_path / "zero.pt"))
    st = _last_deal(3)
    moves = legal_moves(st)
    me = st.current
    side = st.rules.side(me)

    def lead(after) -> float:  # the piles scored as they stand, straight from the state
        return float(sum(p if s == side else -p for _, s, p in
                         awards(st.rules, after.pile_masks, after.sweeps)))

    want = [lead(play(st, m, deal_next=False)) for m in moves]
    assert list(net.values(st, moves)) == pytest.approx(want)
    chosen = net.choose(PlayerView(st, me), moves)
    assert want[moves.index(chosen)] == max(want)


def test_it_plays_only_where_the_view_determines_the_state(tmp_path) -> None:
    net = AfterstateNet(_zero_net(tmp_path / "zero.pt"))
    st = new_game("casino", 2, seed=1)
    assert net.choose(PlayerView(st, st.current), legal_moves(st)) is None
    royal = new_game("royal", 2, seed=1)
    with pytest.raises(ValueError, match="fitted on casino; this game's rules differ"):
        net.choose(PlayerView(royal, royal.current), legal_moves(royal))


def test_agents_take_it_as_an_option(tmp_path) -> None:
    path = _zero_net(tmp_path / "zero.pt")
    st = _last_deal(3)
    view = PlayerView(st, st.current)
    net_move = AfterstateNet(path).choose(view, legal_moves(st))
    h = make_agent(f"heuristic:endgame_net={path}", seed=0)
    assert h.choose(view) == net_move
    p = make_agent(f"ppo:{MODEL},endgame_net={path}", seed=0)
    assert p.choose(view) == net_move
    # before the last deal both play as they do without it
    first = new_game("casino", 2, seed=5)
    fv = PlayerView(first, first.current)
    assert h.choose(fv) == make_agent("heuristic", seed=0).choose(fv)
    assert p.choose(fv) == make_agent(f"ppo:{MODEL}", seed=0).choose(fv)


def test_bad_files_and_games_are_named(tmp_path) -> None:
    with pytest.raises(ValueError, match="endgame_net: no such file 'nope.pt'"):
        make_agent("heuristic:endgame_net=nope.pt")
    bad = tmp_path / "bad.pt"
    bad.write_text("not a network")
    with pytest.raises(ValueError, match=f"endgame_net {bad}: not an afterstate value network"):
        AfterstateNet(bad)
    royal = _zero_net(tmp_path / "royal.pt", "royal")
    with pytest.raises(ValueError, match=f"endgame_net {royal} was fitted on royal"):
        make_agent(f"ppo:{MODEL},endgame_net={royal}")


def test_the_committed_tree_network_plays_legal_last_deal_moves() -> None:
    path = "experiments/results/exit/endgame_net_casino/tree_net.pt"
    agent = make_agent(f"heuristic:endgame_net={path}", seed=0)
    assert agent.endgame_net.meta == {"variant": "casino", "width": 254, "hidden": 512,
                                      "residual": True, "ranks": False}
    for seed in range(3):
        st = _last_deal(seed)
        moves = legal_moves(st)
        v = agent.endgame_net.values(st, moves)
        assert len(v) == len(moves) and all(abs(x) < 30 for x in v)
        assert agent.choose(PlayerView(st, st.current)) == moves[int(v.argmax())]


def test_a_margin_keeps_the_heuristics_move_unless_the_network_rates_its_own_higher() -> None:
    """``endgame_margin``: the network departs from the heuristic's move only for a move it
    values at least that many points above it."""
    path = "experiments/results/exit/endgame_net_casino_walks/walks_tree_net.pt"
    heuristic = make_agent("heuristic", seed=0)
    departures = 0
    for seed in range(12):
        st = _last_deal(seed)
        view, moves = PlayerView(st, st.current), legal_moves(st)
        if len(moves) < 2:
            continue
        v = AfterstateNet(path).values(st, moves)
        best, own = moves[int(v.argmax())], heuristic.choose(view)
        gap = float(v.max() - v[moves.index(own)])
        departures += best != own
        for margin in (0.5, 1.0, 50.0):
            agent = make_agent(f"heuristic:endgame_net={path},endgame_margin={margin}", seed=0)
            assert agent.choose(view) == (best if gap >= margin else own)
        assert make_agent(f"heuristic:endgame_net={path}", seed=0).choose(view) == best
    assert departures  # the states include decisions where the network departs
    with pytest.raises(ValueError, match="endgame_margin: .* needs endgame_net"):
        make_agent("heuristic:endgame_margin=1")
    with pytest.raises(ValueError, match="endgame_margin"):
        make_agent(f"heuristic:endgame_net={path},endgame_margin=-1")
    with pytest.raises(ValueError, match="endgame_margin: .* needs endgame_net"):
        make_agent(f"ppo:{MODEL},endgame_margin=1")
