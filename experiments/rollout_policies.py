"""How well ``agents.fastsim``'s rollout policies play, as players (issue 18, fifty-third session).

The search agent and the labels of the networks before the last deal value a move by rollouts
played by one of these policies on every seat. This plays each policy as a whole player, on
duplicate deals, against the heuristic and against each other, so that a policy meant to make
rollouts more like real play can be measured in seconds before a search or a collection spends
hours on it. A policy player reads the whole state, as a rollout on a determinized deal does
(``guard`` looks at the other hand): it measures rollout play, it is not an agent of the
environment (``make_agent`` does not know it).

    python -m experiments.rollout_policies --variant tuxedo --policies builder events guard \\
        --deals 1000 --seed 21 --out experiments/results/exit/rollout_policy_tuxedo/players
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from agents.base import Agent
from agents.fastsim import POLICIES, greedy_step, guard_step, sim_builds, sim_rules
from agents.scripted import HeuristicAgent
from agents.tournament import play_match
from casino_env.engine import Move, State
from casino_env.engine.view import PlayerView
from experiments.stats import summarize_pair

FIELDS = ("variant", "player", "opponent", "deals", "hands", "won", "won_lo", "won_hi",
          "points_per_hand", "points_lo", "points_hi")


class PolicyPlayer(Agent):
    """A rollout policy of ``agents.fastsim`` playing a whole game; where it has no move of its
    own (an owner that must build), the heuristic's."""

    name = "rollout-policy"

    def __init__(self, policy: str, seed: int | None = None) -> None:
        super().__init__(seed)
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
        self.policy = policy
        self.heuristic = HeuristicAgent(seed)
        self.state: State | None = None
        self.fallbacks = 0  # decisions left to the heuristic

    def act(self, state: State, seat: int | None = None) -> Move:
        self.state = state  # the whole state, as a rollout's deal has it
        return super().act(state, seat)

    def choose(self, view: PlayerView) -> Move:
        st = self.state
        moves = view.legal_moves()
        if st is None or st.current != view.seat:
            raise ValueError("a policy player moves through act(state), which it reads whole")
        sr = sim_rules(st.rules, self.policy)
        builds = sim_builds(sr, st.builds)
        seat = st.current
        hand = st.hand_masks[seat]
        mv = (guard_step(sr, hand, st.loose_mask, builds, seat, st.hand_masks[1 - seat])
              if sr.guard else greedy_step(sr, hand, st.loose_mask, builds, seat))
        for m in moves if mv is not None else ():
            kind, card, taken = mv
            if kind == 2:  # a build: the value rides above the taken mask
                if m.kind == "build" and m.played_mask == 1 << card and \
                        m.value == taken >> 64 and m.taken_mask == taken & ((1 << 64) - 1):
                    return m
            elif m.kind == ("capture" if kind else "trail") and \
                    m.played_mask == 1 << card and m.taken_mask == taken:
                return m
        self.fallbacks += 1
        return self.heuristic.choose(view)


def _player(name: str):
    """A factory ``seed -> Agent``: the heuristic, or a rollout policy by its name."""
    return (lambda seed: HeuristicAgent(seed)) if name == "heuristic" else \
        (lambda seed: PolicyPlayer(name, seed))


def measure(variant: str, policies: list[str], deals: int, seed: int) -> list[dict]:
    """Each policy against the heuristic, then each pair, on the same ``deals`` duplicate
    deals (hands, two players)."""
    pairs = [(p, "heuristic") for p in policies] + \
        [(a, b) for i, a in enumerate(policies) for b in policies[i + 1:]]
    rows = []
    for a, b in pairs:
        res = play_match([_player(a), _player(b)], variant, deals=deals, seed=seed,
                         mode="hand", labels=[a, b])
        s = summarize_pair(res)
        rows.append({"variant": variant, "player": a, "opponent": b, "deals": deals,
                     "hands": s.hands, "won": round(s.win_rate, 4),
                     "won_lo": round(float(s.win_lo), 4), "won_hi": round(float(s.win_hi), 4),
                     "points_per_hand": round(s.diff_per_hand, 3),
                     "points_lo": round(float(s.diff_lo), 3),
                     "points_hi": round(float(s.diff_hi), 3)})
        print(f"{a} v {b}: {s.win_rate:.1%} [{s.win_lo:.1%}, {s.win_hi:.1%}] of {s.hands} "
              f"hands, {s.diff_per_hand:+.2f} points a hand", flush=True)
    return rows


def write(rows: list[dict], out: Path) -> None:
    """results.csv, results.json and results.md into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        w.writerows(rows)
    (out / "results.json").write_text(json.dumps(rows, indent=1) + "\n")
    lines = [f"# Rollout policies as players ({rows[0]['variant']}, duplicate deals)", "",
             "| player | opponent | hands | won [95% CI] | points a hand [95% CI] |",
             "|---|---|---|---|---|"]
    lines += [f"| {r['player']} | {r['opponent']} | {r['hands']:,} | {r['won']:.1%} "
              f"[{r['won_lo']:.1%}, {r['won_hi']:.1%}] | {r['points_per_hand']:+.2f} "
              f"[{r['points_lo']:+.2f}, {r['points_hi']:+.2f}] |" for r in rows]
    (out / "results.md").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="tuxedo")
    ap.add_argument("--policies", nargs="+", default=["builder", "events", "guard"],
                    choices=list(POLICIES))
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    if a.deals < 1:
        raise SystemExit(f"error: --deals must be >= 1, got {a.deals}")
    rows = measure(a.variant, a.policies, a.deals, a.seed)
    write(rows, a.out)
    print(f"wrote {a.out / 'results.md'}")


if __name__ == "__main__":
    main()
