"""Train OpenSpiel's DQN on a Casino preset for a few minutes, then evaluate it with this
project's evaluate command (an example of OpenSpiel's algorithms on ``python_casino``).

    python -m experiments.openspiel_dqn --variant casino --minutes 3

Self-play through OpenSpiel's ``rl_environment`` (chance dealt by the environment): one DQN
per seat (OpenSpiel's PyTorch DQN, an MLP over the information-state tensor, which is the
PettingZoo observation), one hand per episode, the hand's point difference as the return.
Writes the seat-0 network (``q_network.pt`` + ``openspiel_dqn.json``), a learning curve of
its evaluation against random play (CSV + PNG) to ``--out`` (default
``runs/openspiel_dqn/<variant>``), then runs
``python -m experiments.evaluate --agents openspiel-dqn:OUT random`` on duplicate deals.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import time
from pathlib import Path


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--variant", default="casino")
    ap.add_argument("--minutes", type=float, default=3.0, help="training time")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hidden", type=int, nargs="+", default=[256, 256], help="layer sizes")
    ap.add_argument("--eval-every", type=float, default=30.0,
                    help="seconds between evaluations against random (learning curve)")
    ap.add_argument("--eval-hands", type=int, default=40,
                    help="hands per learning-curve evaluation")
    ap.add_argument("--games", type=int, default=200,
                    help="hands of the final evaluation (the evaluate command)")
    ap.add_argument("--out", default=None, help="output folder (default runs/openspiel_dqn/"
                    "<variant>)")
    args = ap.parse_args(argv)
    if args.minutes <= 0:
        ap.error("--minutes must be > 0")
    if args.seed < 0:
        ap.error("--seed must be >= 0")
    if args.eval_hands < 1:  # (0 divided by zero mid-training)
        ap.error(f"--eval-hands must be >= 1, got {args.eval_hands}")
    if args.games < 1:
        ap.error(f"--games must be >= 1, got {args.games}")
    return args


def evaluate_vs_random(game, agent, hands: int, seed: int) -> float:
    """Share of hands the greedy network (seat alternating) wins against the random agent:
    uniform over legal *moves* (as ``make_agent("random")``; uniform over sub-actions would
    be a much weaker opponent, trailing most of the time)."""
    import random

    from casino_env.encoding import move_tokens
    from casino_env.engine import legal_moves

    rng = random.Random(seed)
    won = 0
    for h in range(hands):
        me = h % 2
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                continue
            p = state.current_player()
            if p == me:  # greedy, from either seat (the observation is the player's own)
                legal = state.legal_actions()
                obs = state.information_state_tensor(p)
                state.apply_action(int(agent.act_epsilon_greedy(obs, legal, 0.0)[0]))
            else:
                st = state.engine_state
                for token in move_tokens(st, rng.choice(legal_moves(st))):
                    state.apply_action(token)
        won += state.returns()[me] > 0
    return won / hands


def train(args: argparse.Namespace) -> Path:
    import torch
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import dqn
    from tqdm import tqdm

    import casino_env.openspiel as cos

    torch.set_num_threads(1)
    out = Path(args.out or f"runs/openspiel_dqn/{args.variant}")
    out.mkdir(parents=True, exist_ok=True)
    params = {"variant": args.variant, "players": 2, "episode": "hand", "reward": "points"}
    game = cos.pyspiel.load_game(cos.GAME_NAME, params)
    env = rl_environment.Environment(game, seed=args.seed)
    size = env.observation_spec()["info_state"][0]
    n_actions = env.action_spec()["num_actions"]
    agents = [dqn.DQN(player_id=p, state_representation_size=size, num_actions=n_actions,
                      hidden_layers_sizes=args.hidden, replay_buffer_capacity=50_000,
                      batch_size=64, learning_rate=1e-3, optimizer_str="adam",
                      update_target_network_every=500, learn_every=8,
                      min_buffer_size_to_learn=1_000, epsilon_decay_duration=100_000,
                      epsilon_end=0.05, discount_factor=1.0, seed=args.seed + p)
              for p in range(2)]
    curve = []
    budget = args.minutes * 60
    start = last_eval = time.perf_counter()
    episodes = steps = 0
    bar = tqdm(total=int(budget), unit="s", desc=f"DQN self-play {args.variant}")
    while (now := time.perf_counter()) - start < budget:
        ts = env.reset()
        while not ts.last():
            p = ts.observations["current_player"]
            ts = env.step([agents[p].step(ts).action])
            steps += 1
        for a in agents:
            a.step(ts)
        episodes += 1
        bar.update(int(now - start) - bar.n)
        if now - last_eval >= args.eval_every:
            rate = evaluate_vs_random(game, agents[0], args.eval_hands, args.seed + episodes)
            curve.append({"seconds": round(now - start, 1), "episodes": episodes,
                          "steps": steps, "won_vs_random": rate})
            bar.set_postfix(hands=episodes, vs_random=f"{rate:.0%}")
            last_eval = time.perf_counter()
    bar.close()
    torch.save(agents[0]._q_network.state_dict(), out / "q_network.pt")
    (out / "openspiel_dqn.json").write_text(json.dumps(
        {"game": params, "hidden": args.hidden, "episodes": episodes, "steps": steps,
         "seconds": round(time.perf_counter() - start, 1), "seed": args.seed,
         "trained": "DQN self-play from scratch (OpenSpiel's PyTorch DQN, one net per seat)"},
        indent=2))
    write_curve(curve, out)
    print(f"trained {episodes} hands ({steps} sub-actions) in {args.minutes:g} min; "
          f"wrote {out}/q_network.pt, openspiel_dqn.json, learning_curve.csv/.png")
    return out


def write_curve(curve: list[dict], out: Path) -> None:
    """learning_curve.csv and .png: hands won against random over training time."""
    with open(out / "learning_curve.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["seconds", "episodes", "steps", "won_vs_random"])
        w.writeheader()
        w.writerows(curve)
    if not curve:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([c["seconds"] / 60 for c in curve], [c["won_vs_random"] for c in curve], "o-")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set(xlabel="training minutes", ylabel="hands won vs random", ylim=(0, 1),
           title="OpenSpiel DQN self-play (seat-0 network)")
    fig.tight_layout()
    fig.savefig(out / "learning_curve.png", dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out = train(args)
    cmd = [sys.executable, "-m", "experiments.evaluate", "--variant", args.variant,
           "--agents", f"openspiel-dqn:{out}", "random", "--games", str(args.games),
           "--mode", "hand", "--out", str(out / "evaluation")]
    print("evaluating:", " ".join(cmd[1:]))
    return subprocess.call(cmd)


if __name__ == "__main__":
    raise SystemExit(main())
