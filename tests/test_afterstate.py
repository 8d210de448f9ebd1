"""agents.afterstate: a learned afterstate value network playing the two-player last deal
(``heuristic:endgame_net=PATH``, ``ppo:MODEL,endgame_net=PATH``)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.afterstate import AfterstateNet, afterstate_row, save_net, value_net
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


def _set_net(path, seed: int = 0, variant: str = "casino"):
    """A small random set network over the cards in play, saved."""
    from agents.afterstate import layout_of, set_value_net

    rules = new_game(variant, 2, seed=0).rules
    width = layout_of(rules).size + 52 + 1
    torch.manual_seed(seed)
    net = set_value_net(rules, width, 16, 1)
    save_net(path, net, {"variant": variant, "kind": "set", "layers": 1, "width": width,
                         "hidden": 16, "residual": True, "ranks": False})
    return path, net


def test_a_set_network_reads_the_cards_in_play_as_a_set(tmp_path) -> None:
    """The set network has one token per card in play, so its value of an afterstate does not
    depend on which rows share its batch (padding is masked), and it sees where a card lies:
    moving a card from the opponent's hand to mine changes its value."""
    from agents.afterstate import afterstate_row, layout_of, net_inputs

    path, net = _set_net(tmp_path / "set.pt")
    st = _last_deal(3)
    rules, layout = st.rules, layout_of(st.rules)
    rows = np.stack([afterstate_row(layout, play(st, m, deal_next=False), st.current)
                     for m in legal_moves(st)])
    x, _ = net_inputs(rules, rows, True, False)
    with torch.no_grad():
        together = net(torch.from_numpy(x)).squeeze(-1)
        alone = torch.cat([net(torch.from_numpy(x[i:i + 1])).squeeze(-1)
                           for i in range(len(x))])
        assert torch.allclose(together, alone, atol=1e-5)
        moved = x[:1].copy()
        card = int(np.flatnonzero(moved[0, layout.size:layout.size + 52])[0])
        moved[0, layout.size + card], moved[0, card] = 0, 1  # the opponent's card now mine
        assert abs(float(net(torch.from_numpy(moved))) - float(together[0])) > 1e-6
    # saved and loaded, it values the moves as the module does and plays the best valued
    played = AfterstateNet(path)
    moves = legal_moves(st)
    values = played.values(st, moves)
    assert values == pytest.approx(together.numpy() + x[:, -1] * 10, abs=1e-2)  # float16
    assert played.choose(PlayerView(st, st.current), moves) == moves[int(np.argmax(values))]


def test_the_policy_with_the_exact_last_deal_plays_the_solvers_move() -> None:
    """``ppo:MODEL,endgame=N``: the exact minimax move where the view determines the state (a
    search, the reference a learned last deal aims at); elsewhere the policy's own move."""
    from agents.endgame import move_values, solve_view

    agent = make_agent(f"ppo:{MODEL},endgame=20000", seed=0)
    policy = make_agent(f"ppo:{MODEL}", seed=0)
    differs = 0
    for seed in range(8):
        st = _last_deal(seed)
        view = PlayerView(st, st.current)
        chosen = agent.choose(view)
        values = move_values(st)
        assert chosen == solve_view(view, 20000)[0]
        assert values[chosen] == max(values.values())
        differs += values[policy.choose(view)] < max(values.values())
    assert differs  # the policy alone misplays some of these last deals
    first = new_game("casino", 2, seed=5)
    fv = PlayerView(first, first.current)
    assert agent.choose(fv) == policy.choose(fv)
    with pytest.raises(ValueError, match="endgame and endgame_net both play the last deal"):
        make_agent(f"ppo:{MODEL},endgame=100,endgame_net=x.pt")
    with pytest.raises(ValueError, match="endgame"):
        make_agent(f"ppo:{MODEL},endgame=-1")


def _torch_values(net: AfterstateNet, st, moves) -> np.ndarray:
    """``net``'s values of ``moves`` computed by the torch module its file describes (the
    reference for the numpy forward pass ``AfterstateNet`` plays with)."""
    from agents.afterstate import build_net, net_inputs

    module = build_net(net.meta, net.rules)
    saved = torch.load(net.path, weights_only=True)["state_dict"]
    module.load_state_dict({k: v.float() for k, v in saved.items()})
    module.eval()
    hidden = net.scope != "last_deal"
    x = np.stack([afterstate_row(net.layout, play(st, m, deal_next=False), st.current, hidden)
                  for m in moves])
    if net.meta.get("heuristic_scores"):
        from agents.afterstate import heuristic_columns

        x = np.hstack([x, heuristic_columns(st, moves)])
    inputs, base = net_inputs(net.rules, x, net.meta["residual"], net.meta["ranks"])
    with torch.no_grad():
        return module(torch.from_numpy(inputs)).squeeze(-1).numpy() + base


@pytest.mark.parametrize("kind", ["set", "mlp"])
def test_the_numpy_forward_pass_gives_the_torch_modules_values(tmp_path, kind) -> None:
    """``AfterstateNet`` plays with a numpy forward pass (``agents.numpy_nets``) of the saved
    torch module: the same values to float32 rounding, whatever the rows in the batch."""
    if kind == "set":
        path, _ = _set_net(tmp_path / "set.pt", seed=3)
    else:
        rules = new_game("casino", 2, seed=0).rules
        from agents.afterstate import layout_of

        width = layout_of(rules).size + 52 + 1
        torch.manual_seed(3)
        path = tmp_path / "mlp.pt"
        save_net(path, value_net(width, 32), {"variant": "casino", "width": width,
                                              "hidden": 32, "residual": True, "ranks": False})
    net = AfterstateNet(path)
    for seed in range(4):
        st = _last_deal(seed)
        moves = legal_moves(st)
        want = _torch_values(net, st, moves)
        got = net.values(st, moves)
        assert got.dtype == np.float32 and got.shape == (len(moves),)
        assert np.abs(got - want).max() < 1e-4
        assert np.argmax(got) == np.argmax(want)


@pytest.mark.parametrize("variant", ["casino", "spade"])
def test_a_shipped_networks_numpy_values_are_the_torch_modules(variant) -> None:
    """The shipped networks (a transformer each side of the last deal) valued in numpy and
    by torch on real decisions of both scopes: equal to a thousandth of a point, and the
    same move preferred."""
    from agents.afterstate import top_candidates
    from agents.networks import NetworksAgent

    agent = NetworksAgent(variant)
    h = HeuristicAgent(0)
    checked = {"last_deal": 0, "before_last": 0}
    for seed in range(2):
        st = new_game(variant, 2, seed=seed)
        start = st.hand_points
        while st.hand_points is start and not st.game_over:
            view = PlayerView(st, st.current)
            moves = legal_moves(st)
            if len(moves) > 1:
                net = agent.endgame_net if perfect_information(view) else agent.midgame_net
                if net.scope == "before_last":
                    scores = h.scores(view, moves)
                    moves = [moves[i] for i in top_candidates(scores, net.candidates)]
                full = view.determinize(random.Random(0))
                got, want = net.values(full, moves), _torch_values(net, full, moves)
                assert np.abs(got - want).max() < 1e-3
                assert np.argmax(got) == np.argmax(want)
                checked[net.scope] += 1
            st = apply_move(st, h.choose(view))
    assert min(checked.values()) >= 5


@pytest.mark.parametrize("variant", ["casino", "dominican", "krypkasino"])
def test_static_leads_read_from_the_states_are_those_read_from_the_rows(variant) -> None:
    """``static_leads_of`` (the afterstates) gives ``static_leads`` (their encoded rows),
    sweeps included where they score, over every move of four games' decisions (krypkasino:
    two decks' copies and penalties)."""
    from agents.afterstate import static_leads, static_leads_of

    swept = 0
    for st, afters, rows in _every_decisions_afterstates(variant, 4):
        assert list(static_leads_of(st.rules, afters, st.current)) == \
            list(static_leads(st.rules, rows))
        swept += any(any(a.sweeps) for a in afters)
    assert swept or not st.rules.sweeps  # casino scores no sweeps; dominican does


def _every_decisions_afterstates(variant: str, games: int):
    """Each decision of ``games`` heuristic games (seeds 0, 1, ...): its state, the
    afterstates of its moves and their rows as the mover sees them."""
    from agents.afterstate import layout_of

    h = HeuristicAgent(0)
    for seed in range(games):
        st = new_game(variant, 2, seed=seed)
        layout = layout_of(st.rules)
        while not st.game_over:
            afters = [play(st, m, deal_next=False) for m in legal_moves(st)]
            yield st, afters, np.stack([afterstate_row(layout, a, st.current) for a in afters])
            st = apply_move(st, h.choose(PlayerView(st, st.current)))


def test_an_ensemble_values_each_afterstate_by_its_members_mean(tmp_path) -> None:
    """``a.pt+b.pt``: one network of the members, valuing by the mean of theirs (the agents
    take it wherever they take a path); members of other presets or scopes are refused."""
    a, _ = _set_net(tmp_path / "a.pt", seed=1)
    b, _ = _set_net(tmp_path / "b.pt", seed=2)
    one, two, both = AfterstateNet(a), AfterstateNet(b), AfterstateNet(f"{a}+{b}")
    assert len(both.members) == 2 and both.scope == one.scope
    for seed in range(3):
        st = _last_deal(seed)
        moves = legal_moves(st)
        va, vb, mean = one.values(st, moves), two.values(st, moves), both.values(st, moves)
        assert not np.allclose(va, vb)  # the members differ, so the mean is not either one
        assert mean == pytest.approx((va + vb) / 2, abs=1e-6)
        chosen = both.choose(PlayerView(st, st.current), moves)
        assert mean[moves.index(chosen)] == max(mean)
    agent = make_agent(f"heuristic:endgame_net={a}+{b}", seed=0)
    assert len(agent.endgame_net.members) == 2
    royal = _zero_net(tmp_path / "royal.pt", "royal")
    with pytest.raises(ValueError, match="an ensemble's networks must share their variant"):
        AfterstateNet(f"{a}+{royal}")
    with pytest.raises(ValueError, match="endgame_net: no such file 'nope.pt'"):
        AfterstateNet(f"{a}+nope.pt")


def test_two_decks_rows_hold_copies_and_read_back_every_pile_split() -> None:
    """Krypkasino (V-kryp-values, V-kryp-score): the opponent's hand plane holds each copy of
    a card as 1/2, as the observation's planes do; every split of a card's two copies between
    the piles reads back from the row; the static lead is the other side's penalties minus
    mine (10D 3, 2S 2, an ace 1, another spade 1, AS 2)."""
    from agents.afterstate import layout_of, rank_counts, static_leads, static_leads_of
    from casino_env.engine import State

    st = State.from_spec({
        "variant": "krypkasino", "players": 2, "current": 0,
        "hands": [["5H"], ["KH", "KH", "3C"]], "table": ["4D", "9C"],
        # 10D: one copy each; AS: both mine; 2S: both theirs; 7S: one mine; AH: one theirs
        "piles": [["10D", "AS", "AS", "7S"], ["10D", "2S", "2S", "AH"]]})
    rules, layout = st.rules, layout_of(st.rules)
    row = afterstate_row(layout, st, 0)
    opp = row[layout.size:]
    deck = rules.deck
    kind = {c: deck.index[c] // 2 for c in ("KH", "3C", "5H")}
    assert opp[kind["KH"]] == 1.0 and opp[kind["3C"]] == 0.5 and opp[kind["5H"]] == 0
    assert opp.sum() == 1.5
    # mine 3 + 2 + 2 + 1 = 8, theirs 3 + 4 + 1 = 8: lead 0; from seat 1 the same
    assert list(static_leads(rules, row[None])) == [0.0]
    assert list(static_leads_of(rules, [st], 0)) == [0.0]
    # both 10D mine instead: mine 6 + 4 + 1, theirs 4 + 1
    took = State.from_spec({
        "variant": "krypkasino", "players": 2, "current": 1,
        "hands": [["5H"], ["KH", "KH", "3C"]], "table": ["9C"],
        "piles": [["10D", "10D", "AS", "AS", "7S"], ["2S", "2S", "AH"]]})
    both = np.stack([afterstate_row(layout, took, 0), afterstate_row(layout, took, 1)])
    assert list(static_leads(rules, both)) == [-6.0, 6.0]
    assert list(static_leads_of(rules, [took], 0)) == [-6.0]
    # per rank: my hand's one 5, the table's one 9 (1/2 each, two decks), their KH twice
    counts = rank_counts(rules, both[:1])[0]
    assert counts[4] == 0.5 and counts[13 + 8] == 0.5 and counts[26 + 12] == 1.0


def test_a_two_deck_set_network_sees_how_many_copies_lie_where(tmp_path) -> None:
    """Krypkasino (V-kryp-values): a card's token carries the copies of it in each hand and
    loose (1/2 each), so one copy and two differ; the numpy forward pass the agents play
    with gives the torch module's values on krypkasino decisions."""
    from agents.afterstate import layout_of, net_inputs
    from casino_env.engine import State

    path, module = _set_net(tmp_path / "kryp.pt", variant="krypkasino")
    module.eval()
    net = AfterstateNet(path)

    def spec(hand: list[str]) -> State:
        return State.from_spec({"variant": "krypkasino", "players": 2, "hands":
                                [hand, ["3C", "9D"]], "table": ["4D", "JC"]})

    one, two = spec(["KH"]), spec(["KH", "KH"])
    layout = layout_of(one.rules)
    rows = np.stack([afterstate_row(layout, st, 0) for st in (one, two)])
    x, _ = net_inputs(one.rules, rows, True, False)
    with torch.no_grad():
        module.summary.weight.zero_()  # the whole row's summary token sees no difference
        values = module(torch.from_numpy(x)).numpy().ravel()
    assert abs(values[0] - values[1]) > 1e-4  # the KH token's copies alone tell them apart
    h, checked = HeuristicAgent(0), 0
    st = new_game("krypkasino", 2, seed=5)
    while checked < 6:
        moves = legal_moves(st)
        if len(moves) > 1:
            got, want = net.values(st, moves), _torch_values(net, st, moves)
            assert np.abs(got - want).max() < 1e-3
            checked += 1
        st = apply_move(st, h.choose(PlayerView(st, st.current)))


def _tuxedo(mine: list[str], theirs: list[str], events: list | None = None):
    """A two-player tuxedo state with these piles and events (the rest in the stock)."""
    from casino_env.engine import State

    spec = {"variant": "tuxedo", "players": 2, "current": 0, "dealer": 1,
            "hands": [["1R"], ["1Y"]], "table": ["2R"], "piles": [mine, theirs]}
    if events:
        spec["events"] = events
    return State.from_spec(spec)


def test_a_banked_base_holds_only_the_points_play_cannot_undo() -> None:
    """V-tux-score: the ``banked`` base counts each Five (5) and the events scored in play
    (an orange 10, a sweep of 3 or fewer 5, of 4 or more 10), and most cards (15) only once
    the other side cannot catch up (``scoring.earned``); the ``static`` base gives most cards
    to whoever leads now and leaves the events out. Read from the rows and from the states
    alike, from either seat."""
    from agents.afterstate import layout_of, static_leads, static_leads_of

    deck = [f"{v}{c}" for v in range(3, 11) for c in "RYGB"]  # none of the hands' or table's
    fives = [c for c in deck if c.startswith("5")]
    plain = [c for c in deck if not c.startswith("5")]
    # mine: two Fives and 10 more cards; theirs: one Five and 9 more; I made an orange, they
    # a small sweep: 12 v 10 cards, 18 uncaptured, so most cards is not yet certain
    mine, theirs = fives[:2] + plain[:10], fives[2:3] + plain[10:19]
    events = [[0, "orange", 10], [1, "sweep", 5]]
    st = _tuxedo(mine, theirs, events)
    rules, layout = st.rules, layout_of(st.rules)
    rows = np.stack([afterstate_row(layout, st, 0), afterstate_row(layout, st, 1)])
    assert list(static_leads(rules, rows, "banked")) == [10.0, -10.0]  # (10 + 10) - (5 + 5)
    assert list(static_leads(rules, rows)) == [20.0, -20.0]  # 15 + 10 - 5, no events
    assert list(static_leads_of(rules, [st], 0, "banked")) == [10.0]
    assert list(static_leads_of(rules, [st], 1, "banked")) == [-10.0]
    assert list(static_leads_of(rules, [st], 0)) == [20.0]
    # 21 of the 40 cards mine: most cards is certain, so banked too; a big sweep for them
    big = _tuxedo(fives[:2] + plain[:19], fives[2:3] + plain[19:21],
                  [[0, "orange", 10], [1, "sweep", 10], [1, "sweep", 5]])
    row = afterstate_row(layout, big, 0)[None]
    assert list(static_leads(rules, row, "banked")) == [15.0 + 10 + 10 - 5 - 15]
    assert list(static_leads_of(rules, [big], 0, "banked")) == [15.0]
    with pytest.raises(ValueError, match="unknown base 'sure'"):
        static_leads(rules, row, "sure")


@pytest.mark.parametrize("variant", ["tuxedo", "casino", "krypkasino"])
def test_banked_leads_read_from_the_states_are_those_read_from_the_rows(variant) -> None:
    """``static_leads_of(..., "banked")`` gives ``static_leads(..., "banked")`` over every move
    of two games' decisions: tuxedo's oranges and sized sweeps, casino's sweeps and
    majorities, krypkasino's tabbes (events in a penalty game) and two decks."""
    from agents.afterstate import static_leads, static_leads_of

    evented, differs = 0, 0
    for st, afters, rows in _every_decisions_afterstates(variant, 2):
        banked = static_leads(st.rules, rows, "banked")
        assert list(static_leads_of(st.rules, afters, st.current, "banked")) == list(banked)
        evented += any(a.events for a in afters)
        differs += bool((banked != static_leads(st.rules, rows)).any())
    assert differs  # the bases part ways somewhere in every preset
    assert evented or variant == "casino"  # casino records no events


def test_a_network_values_each_afterstate_on_the_base_it_was_fitted_on(tmp_path) -> None:
    """A network whose output is 0 values a tuxedo afterstate at its lead: the static one
    when its file names no base (every network saved before bases existed), the banked one
    when it names ``banked``; an unknown base is named when the file loads."""
    from agents.afterstate import static_leads_of

    static = AfterstateNet(_zero_net(tmp_path / "static.pt", "tuxedo"))
    zero = torch.load(tmp_path / "static.pt", weights_only=True)
    for name, base in (("banked.pt", "banked"), ("sure.pt", "sure")):
        torch.save({"meta": zero["meta"] | {"base": base},
                    "state_dict": zero["state_dict"]}, tmp_path / name)
    banked = AfterstateNet(tmp_path / "banked.pt")
    h, differs = HeuristicAgent(0), 0
    for seed in range(6):
        st = new_game("tuxedo", 2, seed=seed)
        while not st.game_over and st.hand_no == 0:
            moves = legal_moves(st)
            if perfect_information(PlayerView(st, st.current)) and len(moves) > 1:
                afters = [play(st, m, deal_next=False) for m in moves]
                want = static_leads_of(st.rules, afters, st.current, "banked")
                assert list(banked.values(st, moves)) == list(want)
                assert list(static.values(st, moves)) == \
                    list(static_leads_of(st.rules, afters, st.current))
                differs += bool((want != static.values(st, moves)).any())
            st = apply_move(st, h.choose(PlayerView(st, st.current)))
    assert differs
    with pytest.raises(ValueError, match="unknown base 'sure'"):
        AfterstateNet(tmp_path / "sure.pt")
