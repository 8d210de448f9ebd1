"""Single-agent Gymnasium view: one seat learns, the other seats are played by agents.

``CasinoEnv`` wraps the AEC environment so that stable-baselines3 (and any Gymnasium user)
sees an ordinary ``gymnasium.Env`` with ``action_masks()`` for sb3-contrib's MaskablePPO.
Opponents are any objects with the Agent interface (``act(state, seat)`` and ``reset(seed)``)
or names resolved by the one agent registry (``casino_env.players``), a pool (list) of those, or
a callable returning one (a factory, for self-play snapshots). Registered as
``casino_env/<Preset>-v0`` (e.g. ``casino_env/Royal-v0``); docs/environment.md describes it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from numbers import Integral, Real

import gymnasium
import numpy as np

from .aec import DEFAULT_MAX_MOVES, DEFAULT_MAX_TABLE, raw_env
from .checks import action_index, check_keywords, check_seed
from .players import is_player, resolve
from .registration import PRESET_IDS, register_envs  # noqa: F401 (re-exported)

RESET_TRIES = 100  # deals reset() tries when each ends before the learner's first move

OpponentSpec = object  # a name, an Agent, a list of them (a pool), or a callable -> Agent

_OPPONENT_KINDS = ("an agent name (e.g. 'heuristic'), an object with act(state, seat) and "
                   "reset(seed), a list of them (a pool) or a callable returning one")


def _is_pool(spec: object) -> bool:
    return isinstance(spec, Sequence) and not isinstance(spec, str) and not is_player(spec)


def check_opponent(spec: OpponentSpec, rules) -> None:
    """Check an opponent spec when the environment is made: each name is resolved once (seed
    0) with the game's rules, so a bad name or option, a missing model file or a model trained
    on another game fails now with the registry's message; an agent object is checked against
    the rules; a callable is left for reset (it may be a snapshot factory)."""
    specs = list(spec) if _is_pool(spec) else [spec]
    if _is_pool(spec) and not specs:
        raise ValueError(f"opponent: the pool is empty; expected {_OPPONENT_KINDS}")
    for one in specs:
        if isinstance(one, str) or is_player(one):
            resolve(one, seed=0, rules=rules)
        elif not callable(one):
            raise TypeError(f"opponent must be {_OPPONENT_KINDS}, got {one!r}")


def _make_opponent(spec: OpponentSpec, seed: int, rules):
    """The agent for one seat: a name resolved with ``seed``, an agent object as is, or what
    a callable returns (checked to be a name or an agent)."""
    if callable(spec) and not isinstance(spec, str) and not is_player(spec):
        made = spec()
        if not (isinstance(made, str) or is_player(made)):
            raise TypeError(f"opponent: the callable {spec!r} returned {made!r}, which is not "
                            "an agent (an object with act(state, seat) and reset(seed)) or an "
                            "agent name")
        spec = made
    return resolve(spec, seed=seed, rules=rules)


class CasinoEnv(gymnasium.Env):
    """One learning seat against opponents; observation is the flat vector of the AEC
    environment (or the whole dict with ``dict_obs=True``; ``observation="compact"`` for the
    smaller layout, faster to train an MLP on; ``last_capturer=True`` adds who captured last),
    reward is the learner's. A
    masked-out action ends the episode with ``illegal_reward`` (or raises, with
    ``illegal="raise"``); an action that is no action id always raises ValueError.
    ``render_mode="rgb_array"`` draws the table as the learner sees it (for gymnasium's
    ``RecordVideo``). docs/environment.md lists every argument."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(self, variant: str = "casino", players: int = 2,
                 partnerships: bool | None = None, opponent: OpponentSpec = "random",
                 seat: int | str = "random", action_mode: str = "compose",
                 episode: str = "hand", reward: str = "points", auto_forced: bool = True,
                 dict_obs: bool = False, render_mode: str | None = None,
                 max_moves: int = DEFAULT_MAX_MOVES, illegal: str = "terminate",
                 illegal_reward: float = -1.0, observation: str = "full",
                 max_table: int | None = DEFAULT_MAX_TABLE, last_capturer: bool = False,
                 **switches) -> None:
        super().__init__()
        check_keywords(switches, variant, CASINO_ENV_ARGS, "CasinoEnv")
        self.raw = raw_env(variant=variant, players=players, partnerships=partnerships,
                           action_mode=action_mode, episode=episode, reward=reward,
                           auto_forced=auto_forced, max_moves=max_moves,
                           observation=observation, max_table=max_table,
                           last_capturer=last_capturer, **switches)
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, Integral)
                                 or not 0 <= seat < players):
            raise ValueError(f"seat must be 'random' or a seat 0..{players - 1}, got {seat!r}")
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, Real):
            raise ValueError(f"illegal_reward must be a number, got {illegal_reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if illegal not in ("terminate", "raise"):
            raise ValueError(f"illegal must be 'terminate' or 'raise', got {illegal!r}")
        check_opponent(opponent, self.raw.rules)
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self._ended_by_illegal = False
        self._pending = 0.0
        self.seat_choice = seat if seat == "random" else int(seat)
        self.opponent = opponent
        self.dict_obs = dict_obs
        self.render_mode = render_mode
        agent0 = self.raw.possible_agents[0]
        space = self.raw.observation_space(agent0)
        self.observation_space = space if dict_obs else space["observation"]
        self.action_space = self.raw.action_space(agent0)
        self.seat = 0
        self.opponents: dict[int, object] = {}
        self._last = None

    @property
    def agent(self) -> str:
        return self.raw.possible_agents[self.seat]

    def set_opponent(self, opponent: OpponentSpec) -> None:
        """Change the opponent (pool) for the following episodes (e.g. a new snapshot);
        checked as when the environment is made."""
        check_opponent(opponent, self.raw.rules)
        self.opponent = opponent

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A new episode, advanced to the learner's first decision. With a small
        ``max_table`` the opponents' moves before it may already end the episode: then the
        episode is dealt again from the same generator (still determined by ``seed``)."""
        super().reset(seed=check_seed(seed))  # (the engine's rule and message for seeds)
        for _ in range(RESET_TRIES):
            self._reset_once(options)
            if not self._done():
                return self._observe(), self._info()
            if options and "state" in options:  # the same state again would end alike
                raise ValueError(f"options['state']: the opponents' moves from this state end "
                                 f"the episode before seat {self.seat} moves; give a state "
                                 "where the learner has a decision")
        raise RuntimeError(f"{RESET_TRIES} deals in a row ended (max_table="
                           f"{self.raw.max_table}) before seat {self.seat} could move: raise "
                           "max_table")

    def _reset_once(self, options: dict | None) -> None:
        rng = self.np_random
        raw_seed = int(rng.integers(2**62))
        n = self.raw.rules.players
        self.seat = int(rng.integers(n)) if self.seat_choice == "random" else self.seat_choice
        self.raw._scripted = frozenset(s for s in range(n) if s != self.seat)
        self.raw.reset(seed=raw_seed, options=options)
        self.opponents = {}
        pool = self.opponent
        for s in range(n):
            if s == self.seat:
                continue
            spec = pool
            if _is_pool(pool):
                spec = pool[int(rng.integers(len(pool)))]
            agent = _make_opponent(spec, int(rng.integers(2**31)), self.raw.rules)
            agent.reset(int(rng.integers(2**31)))
            self.opponents[s] = agent
        self._ended_by_illegal = False
        self._advance()
        # what the opponents' moves already brought the learner (a hand they ended, from a
        # given state): the first step's reward, as raw.step clears it
        self._pending = float(self.raw._cumulative_rewards[self.agent])

    def step(self, action):
        raw = self.raw
        if self._last is None:
            raise RuntimeError("call reset() before step()")
        if self._done() or self._ended_by_illegal:
            raise RuntimeError("the episode is over: call reset()")
        a = action if type(action) is int and 0 <= action < raw.n_actions else \
            action_index(action, raw.n_actions)
        if not self._last["action_mask"][a]:
            if self.illegal == "raise":
                raise ValueError(f"action {a} ({raw.describe_action(a)}) is masked out")
            # Like PettingZoo's TerminateIllegalWrapper: the episode ends, the learner loses.
            self._ended_by_illegal = True
            info = self._info()
            info["illegal_action"] = a
            obs = {k: v.copy() for k, v in self._last.items()}
            return obs if self.dict_obs else obs["observation"], \
                float(self.illegal_reward), True, False, info
        raw.step(a)  # (clears the learner's reward since its last action)
        self._advance()
        reward = raw._cumulative_rewards[self.agent]  # what came since: its move, the others'
        if self._pending:
            reward, self._pending = reward + self._pending, 0.0
        terminated = all(raw.terminations.values())
        truncated = not terminated and all(raw.truncations.values())
        return self._observe(), float(reward), terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the legal actions now (sb3-contrib's MaskablePPO reads this)."""
        if self._last is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._last["action_mask"].astype(bool)

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        if self.render_mode == "rgb_array":
            # The learner's view: its hand face up, the others as card backs (all at the end).
            from .picture import state_array

            st = self.raw.state
            return state_array(st, None if st.game_over else self.seat,
                               list(self.raw.possible_agents))
        text = str(self.raw.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # -- internals ----------------------------------------------------------------------------
    def _done(self) -> bool:
        raw = self.raw
        return all(raw.terminations.values()) or all(raw.truncations.values())

    def _advance(self) -> None:
        """Let the opponents move until it is the learner's turn or the episode ends."""
        raw = self.raw
        while not self._done() and raw.state.current != self.seat:
            seat = raw.state.current
            raw.play_move(self.opponents[seat].act(raw.state, seat))

    def _observe(self):
        obs = self.raw.observe(self.agent)
        self._last = obs
        return obs if self.dict_obs else obs["observation"]

    def _info(self) -> dict:
        info = dict(self.raw.infos.get(self.agent, {}))
        info["seat"] = self.seat
        return info


# CasinoEnv's own arguments (any other keyword is a rule switch).
CASINO_ENV_ARGS: tuple[str, ...] = tuple(
    name for name in inspect.signature(CasinoEnv.__init__).parameters
    if name not in ("self", "switches"))


def preset_env(preset: str, **kwargs) -> CasinoEnv:
    """Gymnasium's entry point for ``casino_env/<Preset>-v0``: a CasinoEnv of the id's preset.
    A ``variant`` keyword naming another preset is refused (it would train on a game other
    than the id says); naming the same one is allowed."""
    variant = kwargs.pop("variant", preset)
    if variant != preset:
        name = PRESET_IDS.get(variant)
        hint = f"make casino_env/{name}-v0" if name else "drop it"
        raise ValueError(f"variant={variant!r} conflicts with the id's preset {preset!r} "
                         f"(casino_env/{PRESET_IDS[preset]}-v0): {hint}")
    return CasinoEnv(variant=preset, **kwargs)

def make_vec_env(n_envs: int = 8, seed: int = 0, vec: str = "dummy",
                 env_factory: Callable | None = None, **kwargs):
    """A stable-baselines3 VecEnv of ``n_envs`` CasinoEnv copies (``vec``: dummy or subproc)."""
    from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if vec not in ("dummy", "subproc"):
        raise ValueError(f"vec must be 'dummy' or 'subproc', got {vec!r}")
    cls = SubprocVecEnv if vec == "subproc" else DummyVecEnv
    factory = env_factory or (lambda: CasinoEnv(**kwargs))
    return sb3_make_vec_env(factory, n_envs=n_envs, seed=seed, vec_env_cls=cls)
