"""``make_agent("networks:casino")``: the shipped afterstate value networks of a preset, no search
(agents.networks; issue 18's network-alone agent)."""

from __future__ import annotations

import pytest

from agents import known_agents, make_agent
from agents.afterstate import BEFORE_LAST, LAST_DEAL, top_candidates
from agents.endgame import perfect_information
from agents.networks import BEFORE_LAST_SHARDS, LAST_DEAL_EPOCHS, LAST_DEAL_SHARDS, SHIPPED
from agents.scripted import HeuristicAgent
from casino_env.engine import apply_move, new_game
from casino_env.engine.view import PlayerView

pytest.importorskip("torch")
MID, END = SHIPPED["casino"]


def _decisions(hands: int, seed: int) -> list[PlayerView]:
    """Views of every decision with a choice in ``hands`` casino hands of the heuristic."""
    player, views = HeuristicAgent(0), []
    for k in range(hands):
        st = new_game("casino", 2, seed=seed + k)
        start = st.hand_points
        while st.hand_points is start:
            view = PlayerView(st, st.current)
            if len(view.legal_moves()) > 1:
                views.append(view)
            st = apply_move(st, player.choose(view))
    return views


def test_it_plays_the_shipped_files_as_the_explicit_spec_does() -> None:
    views = _decisions(3, 40)
    named = make_agent("networks:casino", seed=1)
    spelled = make_agent(f"heuristic:midgame_net={MID},endgame_net={END}", seed=1)
    assert [named.choose(v) for v in views] == [spelled.choose(v) for v in views]
    assert any(perfect_information(v) for v in views)  # the last deal's network played too
    assert any(not perfect_information(v) for v in views)


def test_before_the_last_deal_it_picks_among_the_heuristics_eight_best() -> None:
    heuristic, named = HeuristicAgent(0), make_agent("networks:casino")
    views = [v for v in _decisions(3, 50) if not perfect_information(v)]
    departures = 0
    for v in views:
        moves = v.legal_moves()
        scores = heuristic.scores(v, moves)
        chosen = named.choose(v)
        assert chosen in [moves[i] for i in top_candidates(scores, 8)]
        departures += chosen != heuristic.choose(v)
    assert 0 < departures < len(views)  # it is not the heuristic, nor always against it


def test_presets_and_rules_without_shipped_networks_are_named(monkeypatch) -> None:
    import agents.networks

    assert list(SHIPPED) == ["casino", "royal", "dominican", "spade", "wippen", "swedish",
                             "tuxedo", "hungarian", "finnish", "krypkasino", "swazi"]
    # every preset ships its networks: a preset without them (as swazi was before the
    # thirty-ninth session) is named, with what does ship
    monkeypatch.setattr(agents.networks, "SHIPPED",
                        {v: f for v, f in SHIPPED.items() if v != "swazi"})
    with pytest.raises(ValueError, match=r"no networks ship for 'swazi' "
                                         r"\(shipped: casino, royal, dominican, spade, wippen, "
                                         r"swedish, tuxedo, hungarian, finnish, krypkasino\); "
                                         "give midgame_net=PATH and endgame_net=PATH"):
        make_agent("networks:swazi")
    monkeypatch.undo()
    with pytest.raises(ValueError, match="unknown preset"):
        make_agent("networks:poker")
    with pytest.raises(ValueError, match="give networks:PRESET, e.g. networks:casino"):
        make_agent("networks")
    with pytest.raises(ValueError, match="midgame_net .* was fitted on casino 2p"):
        make_agent(f"networks:royal,midgame_net={MID},endgame_net={END}")
    for preset in SHIPPED:  # each shipped preset its own two networks
        other = make_agent(f"networks:{preset}")
        assert other.midgame_net.rules == other.endgame_net.rules == other.rules
        assert other.rules == new_game(preset, 2, seed=0).rules
    agent = make_agent("networks:casino")
    agent.check_rules(new_game("casino", 2, seed=0).rules)  # its own game passes
    with pytest.raises(ValueError, match="fitted on casino 2p, this game is casino 3p"):
        agent.check_rules(new_game("casino", 3, seed=0).rules)
    with pytest.raises(ValueError, match="this game is casino 2p with sweeps"):  # house rules
        agent.check_rules(new_game("casino", 2, seed=0, sweeps=True).rules)
    st = new_game("dominican", 2, seed=0)
    with pytest.raises(ValueError, match="this game is dominican 2p"):
        agent.choose(PlayerView(st, st.current))


def test_it_is_a_known_name_with_its_own_options() -> None:
    assert "networks:PRESET" in known_agents()
    with pytest.raises(ValueError, match="unknown option 'simulations' for agent "
                                         "'networks:PRESET'"):
        make_agent("networks:casino,simulations=10")
    with pytest.raises(ValueError, match="midgame_net: no such file"):
        make_agent("networks:casino,midgame_net=nowhere.pt")
    with pytest.raises(ValueError, match="plays the last deal"):
        make_agent(f"networks:casino,midgame_net={END}")
    # a given file replaces the shipped one of its scope only
    mixed = make_agent("networks:casino,midgame_net="
                       "experiments/results/exit/midgame_net_casino/tail44_net.pt")
    assert mixed.midgame_net.path.endswith("tail44_net.pt")
    assert mixed.endgame_net.path.endswith("endgame_net_casino_const/set_net.pt")


@pytest.mark.parametrize("preset", [v for v in SHIPPED if v != "casino"])
def test_a_preset_plays_its_own_shipped_networks(preset: str) -> None:
    """``networks:royal`` (twenty-ninth session; its last deal refitted in the forty-first),
    ``networks:dominican`` (its last deal refitted in the thirty-ninth session),
    ``networks:spade`` (twenty-eighth session; refitted before the last deal on 60 shards in
    the thirty-eighth), ``networks:wippen`` (thirty-first; its last deal refitted in the
    fortieth),
    ``networks:swedish`` and ``networks:tuxedo`` (thirty-third; tuxedo refitted before the
    last deal on 60 shards in the forty-fifth, on 120 and 128 wide in the forty-seventh, its
    set network playing itself), ``networks:hungarian``
    (thirty-fourth; refitted before the last deal on 60 shards in the thirty-sixth),
    ``networks:finnish`` (thirty-fifth), ``networks:krypkasino`` (thirty-seventh),
    ``networks:swazi`` (thirty-ninth, before the last deal on 10 shards, a student on the
    last deal too; the last seven by ``experiments.networks_build``): the preset's two
    networks, each of its scope, each choosing some of a hand's legal moves; a casino game is
    refused by name."""
    agent = make_agent(f"networks:{preset}", seed=0)
    mid, end = agent.midgame_net, agent.endgame_net
    assert (mid.scope, end.scope) == (BEFORE_LAST, LAST_DEAL)
    assert mid.meta["variant"] == end.meta["variant"] == preset
    refit = f"_{BEFORE_LAST_SHARDS[preset]}" if preset in BEFORE_LAST_SHARDS else ""
    if preset == "tuxedo":  # its 128-wide set network on 120 shards plays itself (UNDISTILLED)
        assert mid.path.endswith("midgame_net_tuxedo_120_h128/tail_net.pt")
        assert mid.meta["kind"] == "set"
    else:
        assert mid.path.endswith(f"distill_net_{preset}{refit}/student_256.pt")
        assert mid.meta["kind"] == "mlp"
    # swazi's last deal by an MLP student of its set network too (its 12-card hands);
    # dominican's by its set network refitted on 120 play-out shards (thirty-ninth session),
    # wippen's on 96 (fortieth), royal's on 96 (forty-first), hungarian's on 640 (forty-second)
    # for 24 epochs (forty-third)
    last = f"_{LAST_DEAL_SHARDS[preset]}" if preset in LAST_DEAL_SHARDS else "_const"
    last += f"_e{LAST_DEAL_EPOCHS[preset]}" if preset in LAST_DEAL_EPOCHS else ""
    assert end.path.endswith(f"distill_net_{preset}{refit}_last_deal/student_256.pt"
                             if preset == "swazi" else f"endgame_net_{preset}{last}/set_net.pt")
    assert end.meta["kind"] == ("mlp" if preset == "swazi" else "set")
    chose = {BEFORE_LAST: 0, LAST_DEAL: 0}
    st = new_game(preset, 2, seed=4)
    start = st.hand_points
    while st.hand_points is start and not st.game_over:
        view = PlayerView(st, st.current)
        moves = view.legal_moves()
        for net in (mid, end):
            chose[net.scope] += net.choose(view, moves) is not None
        move = agent.choose(view)
        assert move in moves
        st = apply_move(st, move)
    assert chose[BEFORE_LAST] > 5 and chose[LAST_DEAL] > 0
    with pytest.raises(ValueError, match=f"these networks were fitted on {preset}"):
        agent.choose(PlayerView(new_game("casino", 2, seed=0), 0))


def test_midgame_prior_adds_the_heuristics_scores_to_the_values() -> None:
    """``midgame_prior=W`` (fifty-third session): before the last deal each candidate is worth
    its network value plus W times the heuristic's score of it, the rule of the search whose
    rollouts label the network. W 0 is the default agent; a huge W leaves the heuristic's
    best-scored candidate; on the last deal nothing changes. Bad values are named."""
    import random

    import numpy as np

    heuristic = HeuristicAgent(0)
    plain = make_agent("networks:casino", seed=0)
    zero = make_agent("networks:casino,midgame_prior=0", seed=0)
    half = make_agent("networks:casino,midgame_prior=0.5", seed=0)
    huge = make_agent("networks:casino,midgame_prior=1000", seed=0)
    assert half.midgame_net.prior == 0.5 and plain.midgame_net.prior == 0.0
    assert half.midgame_net is not plain.midgame_net  # a loaded network per prior
    views = _decisions(4, 60)
    moved = 0
    for v in views:
        moves = v.legal_moves()
        assert zero.choose(v) == plain.choose(v)
        if perfect_information(v):  # the last deal's network: no prior there
            assert huge.choose(v) == plain.choose(v)
            continue
        scores = heuristic.scores(v, moves)
        order = top_candidates(scores, 8)
        cands = [moves[i] for i in order]
        pri = np.array([scores[i] for i in order])
        values = plain.midgame_net.values(v.determinize(random.Random(0)), cands, list(pri))
        assert half.choose(v) == cands[int(np.argmax(values + 0.5 * pri))]
        if (pri == pri.max()).sum() == 1:  # one best-scored move: the huge prior plays it
            assert huge.choose(v) == moves[order[0]]
        moved += half.choose(v) != plain.choose(v)
    assert moved > 0  # the prior changes some choices


def test_midgame_candidates_sets_how_many_of_the_heuristics_moves_it_chooses_among() -> None:
    """``midgame_candidates=K`` (fifty-ninth session): before the last deal the network chooses
    among the heuristic's K best-scored moves instead of the 8 it was fitted on; 0 means every
    legal move. K 8 is the default agent, K 1 is the heuristic's best-scored move, and with every
    move it plays the best-valued of all of them. On the last deal nothing changes."""
    import random

    import numpy as np

    heuristic = HeuristicAgent(0)
    plain = make_agent("networks:casino", seed=0)
    eight = make_agent("networks:casino,midgame_candidates=8", seed=0)
    one = make_agent("networks:casino,midgame_candidates=1", seed=0)
    every = make_agent("networks:casino,midgame_candidates=0", seed=0)
    assert (plain.midgame_net.candidates, every.midgame_net.candidates) == (8, 0)
    views = _decisions(4, 70)
    wide = 0
    for v in views:
        moves = v.legal_moves()
        assert eight.choose(v) == plain.choose(v)
        if perfect_information(v):  # the last deal's network chooses among every move anyway
            assert one.choose(v) == every.choose(v) == plain.choose(v)
            continue
        scores = heuristic.scores(v, moves)
        assert one.choose(v) == moves[top_candidates(scores, 1)[0]]
        values = plain.midgame_net.values(v.determinize(random.Random(0)), moves, scores)
        assert every.choose(v) == moves[int(np.argmax(values))]
        wide += len(moves) > 8
    assert wide > 0  # some decisions had more moves than the 8 candidates


def test_midgame_samples_averages_a_rounds_last_move_over_deals_of_the_next() -> None:
    """A move that ends a round before the last deal leads to an afterstate holding the next
    round's cards (as the networks were fitted); one deal of it is a guess, so
    ``midgame_samples=N`` values such a decision by the mean over N deals (determinizations
    0..N-1). Decisions that end no round are unchanged, as is the default (1)."""
    import random

    import numpy as np

    from agents.afterstate import ends_round

    plain = make_agent("networks:casino", seed=0)
    four = make_agent("networks:casino,midgame_samples=4", seed=0)
    assert (plain.midgame_net.samples, four.midgame_net.samples) == (1, 4)
    heuristic, net = HeuristicAgent(0), four.midgame_net
    ending = 0
    for v in _decisions(12, 80):
        moves = v.legal_moves()
        if perfect_information(v):
            continue
        if not ends_round(v, moves):
            assert four.choose(v) == plain.choose(v)
            continue
        ending += 1
        scores = heuristic.scores(v, moves)
        cands = [moves[i] for i in top_candidates(scores, net.candidates)]
        pri = [scores[moves.index(m)] for m in cands]
        mean = sum(net.values(v.determinize(random.Random(i)), cands, pri) for i in range(4)) / 4
        assert four.choose(v) == cands[int(np.argmax(mean))]
    assert ending > 0


@pytest.mark.parametrize("option,bad,message,value,arg", [
    ("midgame_prior", "-1", "must be a number >= 0, got -1", "0.5", "prior"),
    ("midgame_candidates", "-1", "must be an int >= 0, got -1", "3", "candidates"),
    ("midgame_samples", "0", "must be an int >= 1, got 0", "3", "samples"),
])
def test_a_midgame_option_is_checked_where_it_is_given(option, bad, message, value, arg):
    """Each option of a network before the last deal: a bad value is named, it needs a
    midgame_net (the heuristic alone has none), and a last-deal network refuses it."""
    from agents.afterstate import AfterstateNet

    with pytest.raises(ValueError, match=f"{option} {message}"):
        make_agent(f"networks:casino,{option}={bad}")
    with pytest.raises(ValueError, match=f"{option}: .* needs midgame_net"):
        make_agent(f"heuristic:{option}={value}")
    with pytest.raises(ValueError, match=f"{option}: .* plays on the last deal"):
        AfterstateNet(END, option="endgame_net", **{arg: float(value) if arg == "prior"
                                                    else int(value)})
