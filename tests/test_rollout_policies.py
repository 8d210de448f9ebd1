"""experiments.rollout_policies: agents.fastsim's rollout policies played as whole players
(fifty-third session), so a policy meant for rollouts is measured as play."""

from __future__ import annotations

import pytest

from agents.fastsim import greedy_step, guard_step, sim_rules
from agents.scripted import HeuristicAgent
from casino_env.engine import apply_move, legal_moves, new_game
from casino_env.engine.cards import bit_list
from casino_env.engine.view import PlayerView
from experiments import rollout_policies
from experiments.rollout_policies import PolicyPlayer


@pytest.mark.parametrize("policy", ["builder", "events", "guard"])
def test_a_policy_player_plays_its_policys_move(policy: str) -> None:
    """Every move is legal and is the policy's own (greedy_step's, or guard_step's with the
    other hand seen) wherever the policy has one."""
    player, heuristic = PolicyPlayer(policy, 0), HeuristicAgent(0)
    own = 0
    for k in range(6):
        st = new_game("tuxedo", 2, seed=k)
        start = st.hand_points
        while st.hand_points is start:
            move = player.act(st)
            assert move in legal_moves(st)
            sr = sim_rules(st.rules, policy)
            builds = [(b.value, b.cards, b.owner, sum(sr.cw[i] for i in bit_list(b.cards)))
                      for b in st.builds]
            seat = st.current
            args = (sr, st.hand_masks[seat], st.loose_mask, builds, seat)
            mv = guard_step(*args, st.hand_masks[1 - seat]) if sr.guard else greedy_step(*args)
            if mv is not None and mv[0] != 2:
                assert move.played_mask == 1 << mv[1] and move.taken_mask == mv[2]
                own += 1
            # every other hand the heuristic's moves, so the hands go where no policy would
            st = apply_move(st, move if k % 2 else heuristic.act(st))
    assert own > 30 and player.fallbacks <= 2
    with pytest.raises(ValueError, match="policy must be one of cards, points, builder, "
                                         "events, guard, got 'best'"):
        PolicyPlayer("best")
    with pytest.raises(ValueError, match="through act"):
        PolicyPlayer(policy).choose(PlayerView(st, st.current))


def test_looking_one_reply_ahead_plays_better_in_tuxedo(tmp_path) -> None:
    """On the same 150 duplicate deals, "guard" (one reply ahead) wins more hands and points
    against "builder" than it loses; the results are written as CSV, JSON and a table."""
    rows = rollout_policies.measure("tuxedo", ["builder", "guard"], 150, 21)
    assert [(r["player"], r["opponent"]) for r in rows] == [
        ("builder", "heuristic"), ("guard", "heuristic"), ("builder", "guard")]
    assert rows[2]["won"] < 0.5 and rows[2]["points_per_hand"] < 0 and rows[2]["hands"] == 300
    assert rows[1]["won"] > rows[0]["won"]
    rollout_policies.write(rows, tmp_path)
    assert (tmp_path / "results.csv").read_text().startswith("variant,player,opponent")
    assert "| guard | heuristic | 300 |" in (tmp_path / "results.md").read_text()
