"""Environments for training: ``TrainEnv`` (the single-agent ``CasinoEnv`` with reward scaling,
a teacher hook for behaviour cloning, hints, privileged inputs, a baseline) and vectorised
copies of it, either in this process or in a few worker processes that each step several
environments (``GroupedSubprocVecEnv``: one process per core, not one per environment).
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium  # noqa: F401  (import before casino_env.single: see the closing note of train.py)
import numpy as np
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv
from stable_baselines3.common.vec_env.base_vec_env import CloudpickleWrapper

from agents import Agent
from agents.ppo import HINT_DIM, move_hints
from casino_env.encoding import N_CARDS, card_bits, kind_planes
from casino_env.engine import State
from casino_env.engine.moves import resolve_copies
from casino_env.engine.play import play
from casino_env.engine.view import PlayerView
from casino_env.returns import points_returns, points_so_far
from casino_env.single import CasinoEnv


class TrainEnv(CasinoEnv):
    """``CasinoEnv`` for training. Differences:

    - rewards are multiplied by ``reward_scale`` (hand points differences of up to ~11 are
      large for PPO's value loss), and a non-zero reward (a hand's result with
      ``reward="points"``) gets ``win_bonus`` times its sign added: +bonus for a hand won,
      -bonus for a hand lost, so that the learner values winning the hand, not only points;
    - ``expert_action(agent)`` gives the action a teacher agent would take now (for behaviour
      cloning), in the current action numbering;
    - ``hints="heuristic"`` (enumerate mode, ``dict_obs``) adds the observation key
      ``move_hints``: the heuristic's evaluation of each move slot (``agents.ppo.move_hints``,
      which ``PPOAgent`` computes the same way from its view);
    - ``privileged=True`` (``dict_obs``) adds the observation key ``privileged``: what the
      learner's seat cannot see — each other seat's hand and the stock's order
      (``privileged_features``) — for a critic that learns the hand's value from the whole
      deal (``MoveScoringPolicy`` feeds it to the value network only; the actor never reads
      it, and an agent playing the policy leaves it out);
    - ``reward_shaping="score"`` (``episode="hand"``, ``reward="points"``) adds, at every
      step, the change of the learner side's points so far (``points_so_far``: the items
      already won, majorities by share), scaled: a capture's points arrive with the capture,
      and the hand's last reward is its result minus the points so far, so the rewards of a
      hand still add up to its result (less the points so far at the learner's first
      decision, which its actions cannot change). Potential-based shaping (Ng et al. 1999,
      gamma = 1, which ``experiments.train`` requires with it): every policy's return changes
      by that constant only; the critic no longer has to count the points already banked. A
      hand cut short (truncation, or an illegal action without a mask) keeps its last
      potential in the return;
    - ``baseline="heuristic"`` (``episode="hand"``) scores each hand *in duplicate*: the same
      deal is also played with the baseline agent in the learner's seat against the same
      opponents, and the learner's reward is its result minus the baseline's (both scaled,
      with their win bonuses). The baseline does not depend on the learner's actions, so the
      policy gradient keeps its expectation, but the luck of the deal (most of a hand's
      variance, which the critic cannot see) cancels: against a deterministic opponent,
      playing like the baseline scores exactly 0 and every deviation is measured by its
      effect on that very deal. ``info["baseline_reward"]`` and ``info["raw_reward"]`` keep
      the two terms.
    """

    def __init__(self, reward_scale: float = 1.0, win_bonus: float = 0.0,
                 hints: str | None = None, baseline: str | None = None,
                 privileged: bool = False, reward_shaping: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if reward_shaping not in SHAPINGS:
            raise ValueError(f"unknown reward_shaping {reward_shaping!r} (known: "
                             f"{', '.join(repr(x) for x in SHAPINGS)})")
        if reward_shaping and (self.raw.episode != "hand" or self.raw.reward_mode != "points"):
            raise ValueError("reward_shaping needs episode='hand' and reward='points'")
        self.reward_shaping = reward_shaping
        self._potential = 0.0
        self.reward_scale = float(reward_scale)
        self.win_bonus = float(win_bonus)
        self.baseline = None
        self._hand_start = None
        if baseline:
            if reward_shaping:
                raise ValueError("reward_shaping and baseline do not combine")
            if self.raw.episode != "hand" or self.raw.reward_mode != "points":
                raise ValueError("baseline needs episode='hand' and reward='points'")
            from agents import HeuristicAgent, make_agent

            self.baseline = make_agent(baseline, seed=0)
            self._heuristic_baseline = type(self.baseline) is HeuristicAgent and \
                self.baseline.params == HeuristicAgent().params
        self._deviation = None
        self._fixed_opponents = False
        self._base_state = self._base_move = None
        self._expert_state = None
        self._expert_moves: dict[int, object] = {}  # id(agent) -> its move in _expert_state
        self.hints = hints
        if hints:
            if hints != "heuristic":
                raise ValueError(f"unknown hints {hints!r} (known: heuristic)")
            if self.raw.compose or not self.dict_obs:
                raise ValueError("hints need action_mode='enumerate' and dict_obs=True")
            from agents import HeuristicAgent

            self._heuristic = HeuristicAgent(0)
            k = self.raw.max_moves
            self.observation_space = gymnasium.spaces.Dict({
                **self.observation_space.spaces,
                "move_hints": gymnasium.spaces.Box(-3.0, 3.0, (k, HINT_DIM), np.float32)})

        self.privileged = bool(privileged)
        if self.privileged:
            if not self.dict_obs:
                raise ValueError("privileged needs dict_obs=True (an observation dict)")
            self.observation_space = gymnasium.spaces.Dict({
                **self.observation_space.spaces,
                "privileged": gymnasium.spaces.Box(
                    0.0, 1.0, (privileged_size(self.raw.rules),), np.float32)})

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self._deviation = None
        out = super().reset(seed=seed, options=options)
        if self.reward_shaping:
            self._potential = self._score_potential()
        self._fixed_opponents = all(_deterministic(a) for a in self.opponents.values())
        return out

    def step(self, action):
        if self.baseline is not None and self._deviation is None and not self._done() \
                and not self._follows_baseline(int(action)):
            self._deviation = self.raw.state  # the learner leaves the baseline's path here
        obs, reward, terminated, truncated, info = super().step(action)
        if self._ended_by_illegal:
            return obs, reward, terminated, truncated, info
        shaped = self._shape(reward)
        if self.reward_shaping:  # + the change of the points so far (0 after the hand)
            before = self._potential
            self._potential = 0.0 if terminated else self._score_potential()
            shaped += (self._potential - before) * self.reward_scale
        if self.baseline is not None and terminated:
            if self._fixed_opponents and self._deviation is None:
                base = shaped  # same deal, same moves, deterministic opponents: same result
            else:
                base = self._shape(self._baseline_points())
            info["raw_reward"] = shaped
            info["baseline_reward"] = base
            shaped -= base
        return obs, shaped, terminated, truncated, info

    def _score_potential(self) -> float:
        return points_so_far(self.raw.state)[self.raw.rules.side(self.seat)]

    def _shape(self, reward: float) -> float:
        shaped = reward * self.reward_scale
        if self.win_bonus and reward:
            shaped += self.win_bonus * float(np.sign(reward))
        return shaped

    def _follows_baseline(self, action: int) -> bool:
        """Whether ``action`` is the baseline agent's (next sub-)action in this state."""
        raw = self.raw
        if self.hints and self._heuristic_baseline and len(raw._all_moves) <= raw.max_moves:
            return bool(self._last["move_hints"][action, 2])  # the heuristic's own choice
        if self._base_state is not raw.state:
            self._base_state = raw.state
            self._base_move = self.baseline.act(raw.state, self.seat)
        try:
            seq = raw.action_for(self._base_move)
        except ValueError:  # beyond the first K moves: the learner cannot follow
            return False
        return action == (seq[len(raw._composer.prefix)] if raw.compose else seq)

    def _baseline_points(self) -> float:
        """The learner side's points reward had the baseline agent played its seat. Against
        deterministic opponents the play up to the learner's first deviation is the
        baseline's own, so the simulation starts there."""
        st = self._deviation if self._fixed_opponents else self._hand_start
        rules = st.rules
        hp = st.hand_points
        while st.hand_points is hp and not st.game_over:
            seat = st.current
            agent = self.baseline if seat == self.seat else self.opponents[seat]
            st = play(st, agent.act(st, seat))
        return float(points_returns(st.hand_points, rules.penalties)[rules.side(self.seat)])

    def expert_action(self, agent: Agent) -> int:
        """The learner seat's action if ``agent`` played it; -1 when its move is beyond K."""
        raw = self.raw
        if self._expert_state is not raw.state:  # one move per state (compose: many steps)
            self._expert_state = raw.state
            self._expert_moves.clear()
        move = self._expert_moves.get(id(agent))
        if move is None:  # each agent asked once per state (teacher and student in DAgger)
            move = self._expert_moves[id(agent)] = agent.act(raw.state, self.seat)
        if raw.compose:
            return raw.action_for(move)[len(raw._composer.prefix)]
        try:
            return int(raw.action_for(move))
        except ValueError:
            return -1

    def _observe(self):
        obs = super()._observe()
        if self.privileged:
            obs["privileged"] = privileged_features(self.raw.state, self.seat)
        if self.hints:
            raw = self.raw
            view = PlayerView(raw.state, self.seat)
            moves = [] if self._done() else raw._moves
            if moves and raw.rules.deck.copies > 1:  # the view numbers the copies it sees
                moves = [resolve_copies(view.state, m) for m in moves]
            obs["move_hints"] = move_hints(view, moves, self._heuristic, raw.max_moves)
        return obs

    def _reset_once(self, options: dict | None) -> None:
        self._hand_start = None  # each deal tried (reset deals again if it ends too soon)
        super()._reset_once(options)

    def _advance(self) -> None:
        raw = self.raw
        if self._hand_start is None:
            self._hand_start = raw.state  # the deal, before anyone moved (for the baseline)
        super()._advance()


SHAPINGS = (None, "score")


def privileged_size(rules) -> int:
    """Length of ``privileged_features``: a card plane per other seat, one for the stock."""
    return N_CARDS * rules.players


def privileged_features(st: State, seat: int) -> np.ndarray:
    """What ``seat`` cannot see, for a training-time critic: the hand of each other seat in
    seat order after it (a card plane each; two decks: copies / 2), then the stock's order
    (a card's plane holds 1 - its position / the stock's size: the next card dealt is 1, the
    last a little above 0). Pure function of the state."""
    rules = st.rules
    copies = rules.deck.copies
    n = rules.players
    out = np.zeros(N_CARDS * n, np.float32)
    others = [st.hand_masks[(seat + i) % n] for i in range(1, n)]
    if others:
        planes = kind_planes(others) if copies > 1 else np.stack([card_bits(m) for m in others])
        out[:N_CARDS * (n - 1)] = planes.reshape(-1)
    stock = np.asarray(st.stock_ids, np.int64)
    if len(stock):
        # reversed, so that with two decks the first copy to come is the one kept
        order = np.arange(len(stock))[::-1]
        out[N_CARDS * (n - 1) + stock[order] // copies] = 1.0 - order / len(stock)
    return out


def _deterministic(agent: Agent) -> bool:
    """Agents whose move is a function of the view (no random choices)."""
    from agents import GreedyAgent, HeuristicAgent
    from agents.ppo import PPOAgent

    if isinstance(agent, PPOAgent):
        return agent.deterministic
    return type(agent) in (GreedyAgent, HeuristicAgent)


def _worker(remote, parent_remote, fns_wrapper: CloudpickleWrapper) -> None:
    """Runs several environments; answers SB3's SubprocVecEnv commands for all of them."""
    import torch

    torch.set_num_threads(1)
    parent_remote.close()
    envs = [fn() for fn in fns_wrapper.var]
    while True:
        try:
            cmd, data = remote.recv()
        except (EOFError, KeyboardInterrupt):
            break
        if cmd == "step":
            out = []
            for env, action in zip(envs, data):
                obs, reward, terminated, truncated, info = env.step(action)
                done = terminated or truncated
                info["TimeLimit.truncated"] = truncated and not terminated
                reset_info: dict = {}
                if done:
                    info["terminal_observation"] = obs
                    obs, reset_info = env.reset()
                out.append((obs, reward, done, info, reset_info))
            remote.send(out)
        elif cmd == "reset":
            res = []
            for env, (seed, options) in zip(envs, data):
                kw = {"options": options} if options else {}
                res.append(env.reset(seed=seed, **kw))
            remote.send(res)
        elif cmd == "env_method":
            idx, name, args, kwargs = data
            remote.send([envs[i].get_wrapper_attr(name)(*args, **kwargs) for i in idx])
        elif cmd == "get_attr":
            idx, name = data
            remote.send([envs[i].get_wrapper_attr(name) for i in idx])
        elif cmd == "set_attr":
            idx, name, value = data
            for i in idx:
                envs[i].set_wrapper_attr(name, value)
            remote.send(None)
        elif cmd == "is_wrapped":
            from stable_baselines3.common.env_util import is_wrapped

            idx, wrapper = data
            remote.send([is_wrapped(envs[i], wrapper) for i in idx])
        elif cmd == "get_spaces":
            remote.send((envs[0].observation_space, envs[0].action_space))
        elif cmd == "close":
            for env in envs:
                env.close()
            remote.close()
            break
        else:
            raise NotImplementedError(cmd)


def _stack(obs_list: Sequence, dict_obs: bool):
    if dict_obs:
        return {k: np.stack([o[k] for o in obs_list]) for k in obs_list[0]}
    return np.stack(obs_list)


class GroupedSubprocVecEnv(VecEnv):
    """SB3 VecEnv over ``workers`` processes, each stepping a contiguous group of the
    environments in turn (SB3's SubprocVecEnv runs one process per environment, which on a
    2-core machine means many processes fighting for two cores and a pipe round-trip each)."""

    def __init__(self, env_fns: list[Callable[[], gymnasium.Env]], workers: int = 2,
                 start_method: str = "forkserver") -> None:
        n = len(env_fns)
        workers = max(1, min(workers, n))
        bounds = np.linspace(0, n, workers + 1).astype(int)
        self.groups = [list(range(bounds[w], bounds[w + 1])) for w in range(workers)]
        ctx = mp.get_context(start_method if start_method in mp.get_all_start_methods()
                             else "spawn")
        self.remotes, self.processes = [], []
        for g in self.groups:
            remote, work_remote = ctx.Pipe()
            p = ctx.Process(target=_worker, daemon=True,
                            args=(work_remote, remote, CloudpickleWrapper([env_fns[i]
                                                                          for i in g])))
            p.start()
            work_remote.close()
            self.remotes.append(remote)
            self.processes.append(p)
        self.owner = {i: (w, j) for w, g in enumerate(self.groups) for j, i in enumerate(g)}
        self.remotes[0].send(("get_spaces", None))
        obs_space, act_space = self.remotes[0].recv()
        self.dict_obs = isinstance(obs_space, gymnasium.spaces.Dict)
        self.waiting = False
        self.closed = False
        super().__init__(n, obs_space, act_space)

    def step_async(self, actions: np.ndarray) -> None:
        for remote, g in zip(self.remotes, self.groups):
            remote.send(("step", [actions[i] for i in g]))
        self.waiting = True

    def step_wait(self):
        results = [r for remote in self.remotes for r in remote.recv()]
        self.waiting = False
        obs, rews, dones, infos, self.reset_infos = zip(*results)
        return _stack(obs, self.dict_obs), np.array(rews, np.float32), np.array(dones), infos

    def reset(self):
        for remote, g in zip(self.remotes, self.groups):
            remote.send(("reset", [(self._seeds[i], self._options[i]) for i in g]))
        results = [r for remote in self.remotes for r in remote.recv()]
        obs, self.reset_infos = zip(*results)
        self._reset_seeds()
        self._reset_options()
        return _stack(obs, self.dict_obs)

    def close(self) -> None:
        if self.closed:
            return
        if self.waiting:
            for remote in self.remotes:
                remote.recv()
        for remote in self.remotes:
            remote.send(("close", None))
        for p in self.processes:
            p.join()
        for remote in self.remotes:
            remote.close()
        self.closed = True

    def _by_worker(self, indices) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for i in self._get_indices(indices):
            w, j = self.owner[i]
            out.setdefault(w, []).append(j)
        return out

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        parts = self._by_worker(indices)
        for w, idx in parts.items():
            self.remotes[w].send(("get_attr", (idx, attr_name)))
        return [v for w in parts for v in self.remotes[w].recv()]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        parts = self._by_worker(indices)
        for w, idx in parts.items():
            self.remotes[w].send(("set_attr", (idx, attr_name, value)))
        for w in parts:
            self.remotes[w].recv()

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        parts = self._by_worker(indices)
        for w, idx in parts.items():
            self.remotes[w].send(("env_method", (idx, method_name, method_args, method_kwargs)))
        return [v for w in parts for v in self.remotes[w].recv()]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        parts = self._by_worker(indices)
        for w, idx in parts.items():
            self.remotes[w].send(("is_wrapped", (idx, wrapper_class)))
        return [v for w in parts for v in self.remotes[w].recv()]

    def has_attr(self, attr_name: str) -> bool:
        try:
            self.get_attr(attr_name, indices=[0])
            return True
        except AttributeError:
            return False


def make_train_vec_env(env_kwargs: dict, n_envs: int, seed: int, vec: str = "dummy",
                       workers: int = 2) -> VecEnv:
    """``n_envs`` seeded ``TrainEnv`` copies (in SB3's ``Monitor``): ``vec="dummy"`` (this
    process) or ``"subproc"`` (``GroupedSubprocVecEnv`` with ``workers`` processes)."""
    def factory(i: int) -> Callable[[], gymnasium.Env]:
        def make() -> gymnasium.Env:
            return Monitor(TrainEnv(**env_kwargs))  # episode stats for SB3's rollout/ logs
        return make

    fns = [factory(i) for i in range(n_envs)]
    venv = GroupedSubprocVecEnv(fns, workers) if vec == "subproc" else DummyVecEnv(fns)
    venv.seed(seed)
    return venv
