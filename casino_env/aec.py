"""PettingZoo AEC environment for every preset of the rules engine.

The layer only encodes and decodes: the engine (``casino_env.engine``) decides legality and
outcomes. See docs/environment.md for the action ids, observation layout and rewards.
"""

from __future__ import annotations

import inspect

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from .checks import action_index, check_keywords, check_seed
from .encoding import (
    N_COMPOSE_ACTIONS,
    N_FEATURES,
    Composer,
    Layout,
    describe_compose_action,
    move_tokens,
    moves_features,
    overflow_order,
)
from .engine import Move, State, legal_moves, new_game
from .engine.play import play
from .engine.rules import make_rules
from .engine.text import describe_state
from .returns import points_returns, win_returns
from .wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper, TerminateIllegalWrapper

ACTION_MODES = ("compose", "enumerate")
EPISODES = ("hand", "game")
REWARDS = ("points", "win")
DEFAULT_MAX_MOVES = 128
# A table of this many cards or more ends the episode as truncated: only degenerate play (both
# players trailing for ever) gets there, and past ~26 small cards a decision has hundreds of
# thousands of legal moves (the engine still lists them all, but it takes seconds).
DEFAULT_MAX_TABLE = 24


def env(**kwargs) -> AECEnv:
    """The environment with PettingZoo classic's wrappers: an illegal (masked-out) action ends
    the episode with reward -1 for the agent that took it and 0 for the others. Takes the
    arguments of ``raw_env``; an action that is no action id raises ValueError."""
    check_keywords(kwargs, kwargs.get("variant", "casino"), RAW_ENV_ARGS, "env")
    e = raw_env(**kwargs)
    e = TerminateIllegalWrapper(e, illegal_reward=-1)
    e = AssertOutOfBoundsWrapper(e)
    e = OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):  # noqa: N801 (PettingZoo naming)
    """Casino-family game as an AEC environment; ``raw_env`` raises ValueError on a
    masked-out action instead of ending the episode."""

    metadata = {
        "name": "casino_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, variant: str = "casino", players: int = 2,
                 partnerships: bool | None = None, action_mode: str = "compose",
                 episode: str = "hand", reward: str = "points", render_mode: str | None = None,
                 auto_forced: bool = False, max_moves: int = DEFAULT_MAX_MOVES,
                 max_table: int | None = DEFAULT_MAX_TABLE, observation: str = "full",
                 last_capturer: bool = False, **switches) -> None:
        EzPickle.__init__(self, variant, players, partnerships, action_mode, episode, reward,
                          render_mode, auto_forced, max_moves, max_table, observation,
                          last_capturer, **switches)
        super().__init__()
        check_keywords(switches, variant, RAW_ENV_ARGS, "raw_env")
        for name, value, allowed in (("action_mode", action_mode, ACTION_MODES),
                                     ("episode", episode, EPISODES),
                                     ("reward", reward, REWARDS)):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or "
                             f"None, got {render_mode!r}")
        if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1:
            raise ValueError(f"max_moves must be a positive int, got {max_moves!r}")
        if max_table is not None and (isinstance(max_table, bool) or not isinstance(
                max_table, int) or max_table < 4):
            raise ValueError(f"max_table must be None or an int >= 4, got {max_table!r}")
        self.max_table = max_table
        self.rules = make_rules(variant, players, partnerships, switches)
        self.variant = variant
        self.switches = dict(switches)
        self.action_mode = action_mode
        self.episode = episode
        self.reward_mode = reward
        self.render_mode = render_mode
        self.auto_forced = auto_forced
        self.max_moves = max_moves
        self.compose = action_mode == "compose"
        self.layout = Layout(self.rules, self.compose, observation, last_capturer)
        self.observation = observation
        self.last_capturer = self.layout.last_capturer
        self._obs = np.zeros(self.layout.size, np.float32)  # encoded view, reused
        self._obs_state = self._obs_seat = None
        # the mover's view with the sub-actions taken so far (extended one token at a time)
        self._cobs = np.zeros(self.layout.size, np.float32)
        self._cobs_of, self._cobs_n = None, 0
        n = self.rules.players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.n_actions = N_COMPOSE_ACTIONS if self.compose else max_moves
        obs_space = {
            "observation": spaces.Box(-1.0, 1.0, (self.layout.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.n_actions,), np.int8),
        }
        if not self.compose:
            obs_space["action_features"] = spaces.Box(0.0, 1.0, (max_moves, N_FEATURES),
                                                      np.float32)
        self.observation_spaces = {a: spaces.Dict(obs_space) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.n_actions) for a in self.possible_agents}
        self._seed_rng = np.random.default_rng()
        self.state: State | None = None
        # Seats whose moves come only through play_move (the single-agent view's opponents):
        # their turns skip the mask, compose and feature set-up nobody reads.
        self._scripted: frozenset[int] = frozenset()

    # -- PettingZoo API ---------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game. A seed fixes the deal and every later reset that passes none.
        ``options={"state": State or spec dict}`` starts from that position instead."""
        seed = check_seed(seed)  # (an int >= 0 or None, as for the engine's new_game)
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
        game_seed = int(self._seed_rng.integers(2**63))
        r = self.rules
        start = (options or {}).get("state")
        if start is not None:
            start = start if isinstance(start, State) else State.from_spec(start)
            if start.rules != r:
                raise ValueError(f"options['state']: its rules {start.rules} differ from this "
                                 f"environment's {r}")
            if start.game_over:
                raise ValueError("options['state']: the game in this state is over")
            if start.hand_over:
                raise ValueError("options['state']: the hand in this state is over and the "
                                 "next one is not dealt (its spec says hand_over); "
                                 "State.from_spec({**spec, 'hand_over': False}) scores it and "
                                 "deals the next hand")
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.state = start if start is not None else new_game(
            r.variant, r.players, seed=game_seed, partnerships=r.partnerships, **self.switches)
        self._start_turn()
        if self.render_mode == "human":
            self.render()

    def step(self, action) -> None:
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise RuntimeError("every agent is done: call reset() to play again")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if self._seat[agent] in self._scripted:
            raise RuntimeError(f"{agent} is played by its agent through play_move() here "
                               "(an opponent seat of the single-agent view)")
        a = action if type(action) is int and 0 <= action < self.n_actions else \
            action_index(action, self.n_actions)
        # PettingZoo's convention: last() gives the reward since the agent last acted.
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self.compose:
            if not self._mask[a]:
                raise ValueError(f"action {a} ({self.describe_action(a)}) is masked out: it "
                                 "cannot continue any legal move")
            move = self._composer.push(a)
            if move is None and self.auto_forced:
                move = self._auto()
            if move is None:
                self._refresh_mask()
                return
        else:
            if not 0 <= a < len(self._moves):
                raise ValueError(f"action {a} is masked out: there are {len(self._moves)} "
                                 "legal moves")
            move = self._moves[a]
        self._apply(move)

    def observe(self, agent: str) -> dict:
        seat = self._seat[agent]
        st = self.state
        if self._obs_state is not st or self._obs_seat != seat:
            self.layout.encode(st, seat, self._obs)
            self._obs_state, self._obs_seat = st, seat
        mine = seat == st.current and seat not in self._scripted and not (
            self.terminations.get(agent, True) or self.truncations.get(agent, True))
        if self.compose and mine and self._composer.prefix:  # (empty: the base view)
            comp, c = self._composer, self._cobs
            prefix = comp.prefix
            if self._cobs_of is not comp or self._cobs_n > len(prefix):
                c[:] = self._obs  # (the base view of this state and seat)
                self._cobs_of, self._cobs_n = comp, 0
            if self._cobs_n < len(prefix):
                self.layout.add_tokens(st, prefix[self._cobs_n:], c)
                self._cobs_n = len(prefix)
            obs = c.copy()
        else:
            obs = self._obs.copy()
        out = {"observation": obs,
               "action_mask": self._mask.copy() if mine else np.zeros(self.n_actions, np.int8)}
        if not self.compose:
            out["action_features"] = (self._features.copy() if mine else
                                      np.zeros((self.max_moves, N_FEATURES), np.float32))
        return out

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any "
                                  "render mode.")
            return None
        if self.render_mode == "rgb_array":
            from .picture import state_array

            return state_array(*self._picture_args())
        text = describe_state(self.state)
        if self.compose and not self.state.game_over and self._composer and self._composer.prefix:
            text += "\ncomposing: " + ", ".join(self.describe_action(t)
                                                  for t in self._composer.prefix)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def _picture_args(self) -> tuple:
        """(state, viewer, labels, note) for casino_env.picture: the agent to move's hand face
        up and card backs for the others (every hand once the game is over)."""
        st = self.state
        note = None
        if self.compose and not st.game_over and self._composer and self._composer.prefix:
            note = "composing: " + ", ".join(self.describe_action(t)
                                             for t in self._composer.prefix)
        viewer = None if st.game_over else st.current
        return st, viewer, list(self.possible_agents), note

    def _repr_html_(self) -> str:
        """An SVG picture for Jupyter (the same view as ``render_mode="rgb_array"``)."""
        if self.state is None:
            return f"<pre>{type(self).__name__}({self.variant!r}): call reset() first</pre>"
        from .picture import state_svg

        return state_svg(*self._picture_args())

    def play_move(self, move: Move) -> None:
        """Make a whole legal move for the agent to move in one call, skipping the compose
        sub-steps or the enumerate index (how scripted opponents play inside the single-agent
        view; also past K in enumerate mode). Rewards and turn handling are those of ``step``;
        with a move half composed, ``move`` must continue it."""
        if self.state is None or not self.agents:
            raise RuntimeError("call reset() before play_move()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            raise RuntimeError("the episode is over: call reset()")
        # A half-composed move (auto_forced may have taken sub-actions) must be continued.
        comp = self._composer if self.compose else None
        moves = [comp.moves[i] for i in comp.cands] if comp and comp.prefix else self._all_moves
        for legal in moves:
            if legal == move:
                break
        else:
            raise ValueError(f"{move} is not a legal move here"
                             + (" (it does not continue the sub-actions taken)" if comp and
                                comp.prefix else ""))
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._apply(legal)

    # -- helpers for notebooks and debugging ----------------------------------------------
    def legal_moves(self) -> list[Move]:
        """The engine's legal moves for the agent to move."""
        return legal_moves(self.state)

    def describe_action(self, a: int) -> str:
        """What action id ``a`` means now (compose ids are fixed; enumerate ids index moves)."""
        if self.compose:
            return describe_compose_action(int(a), self.rules.deck)
        if 0 <= a < len(self._moves):
            return str(self._moves[a])
        if 0 <= a < self.n_actions:
            return f"move #{a} (none: only {len(self._moves)} legal moves)"
        raise ValueError(f"action {a} is outside 0..{self.n_actions - 1}")

    def action_for(self, move: Move | str) -> list[int] | int:
        """The action(s) that make ``move``: its compose sequence from the start of the turn,
        or its enumerate index."""
        if isinstance(move, str):
            from .engine import parse_move

            move = parse_move(move, self.state)
        for m in self._all_moves:
            if m == move or (m.kind == move.kind == "capture" and m.orange == move.orange
                             and m.played_mask == move.played_mask
                             and m.taken_mask == move.taken_mask):
                if self.compose:
                    return list(move_tokens(self.state, m))
                if m in self._moves:
                    return self._moves.index(m)
                raise ValueError(f"{m} is beyond the first {self.max_moves} moves (overflow)")
        raise ValueError(f"{move} is not a legal move here")

    # -- internals ----------------------------------------------------------------------------
    def _start_turn(self) -> None:
        """Prepare masks (and compose state) for the seat to move in ``self.state``."""
        st = self.state
        self.agent_selection = self.possible_agents[st.current]
        self._obs_state = self._obs_seat = None  # (the buffer is rewritten by observe)
        if st.current in self._scripted:
            # Its agent picks a whole move for play_move (which reads the legal moves), so
            # no mask is needed; a forced move is made here, as auto_forced would.
            if self.compose and self.auto_forced:
                moves = legal_moves(st)
                if len(moves) == 1:
                    self._apply(moves[0])
                    return
            self._composer = None
            self._mask = np.zeros(self.n_actions, np.int8)
            return
        if self.compose:
            # Only the chosen card's moves are generated: the mask of first sub-actions
            # needs only which cards can be played.
            self._composer = Composer.for_state(st)
            if self.auto_forced:
                move = self._auto()
                if move is not None:
                    self._apply(move)
                    return
            self._refresh_mask()
        else:
            moves = legal_moves(st)
            if len(moves) > self.max_moves:
                self.infos[self.agent_selection]["overflow"] = len(moves)
                moves = overflow_order(moves)[:self.max_moves]
            self._moves = moves
            mask = np.zeros(self.n_actions, np.int8)
            mask[:len(moves)] = 1
            self._mask = mask
            feats = np.zeros((self.max_moves, N_FEATURES), np.float32)
            moves_features(moves, feats)
            self._features = feats

    @property
    def _all_moves(self) -> list[Move]:
        """The engine's legal moves for the seat to move (generated on first use)."""
        return legal_moves(self.state)

    def _refresh_mask(self) -> None:
        mask = np.zeros(self.n_actions, np.int8)
        for t in self._composer.options():
            mask[t] = 1
        self._mask = mask

    def _auto(self) -> Move | None:
        """auto_forced: take sub-actions while exactly one is possible."""
        comp = self._composer
        while True:
            opts = comp.options()
            if len(opts) != 1:
                return None
            move = comp.push(next(iter(opts)))
            if move is not None:
                return move

    def _apply(self, move: Move) -> None:
        before = self.state
        # A one-hand episode ends on the hand's final position (scored, piles as captured),
        # not on the next hand the engine would deal.
        st = play(before, move, deal_next=self.episode != "hand")
        self.state = st
        hand_over = st.hand_points is not before.hand_points
        done = st.game_over or (hand_over and self.episode == "hand")
        if hand_over and self.reward_mode == "points":
            self._reward_sides(points_returns(st.hand_points, st.rules.penalties))
        crowded = (self.max_table is not None and not done
                   and st.table_mask().bit_count() >= self.max_table)
        if crowded:
            self.truncations = dict.fromkeys(self.agents, True)
            for a in self.agents:
                self.infos[a] = {"truncated": f"{st.table_mask().bit_count()} cards on the "
                                 f"table (max_table={self.max_table})"}
        if done or crowded:
            if done and self.reward_mode == "win":
                self._reward_sides(win_returns(st, self.episode))
            if done:
                self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
            self.agent_selection = self.possible_agents[before.current]
            self._mask = np.zeros(self.n_actions, np.int8)
            self._obs_state = None
            if self.render_mode == "human":
                self.render()
            return
        self._accumulate_rewards()
        self.infos = {a: {} for a in self.agents}
        self._start_turn()
        if self.render_mode == "human":
            self.render()

    def _reward_sides(self, per_side: list[float]) -> None:
        r = self.rules
        for a in self.agents:
            self.rewards[a] += per_side[r.side(self._seat[a])]


# raw_env's own arguments (any other keyword is a rule switch).
RAW_ENV_ARGS: tuple[str, ...] = tuple(
    name for name in inspect.signature(raw_env.__init__).parameters
    if name not in ("self", "switches"))
