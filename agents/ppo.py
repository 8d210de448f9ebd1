"""``PPOAgent``: a MaskablePPO policy (sb3-contrib) trained by ``experiments.train``, playing
from a ``PlayerView`` like every other agent.

A model is a MaskablePPO ``.zip`` plus a JSON side-car with the environment it was trained on
(``model.zip`` -> ``model.json``: variant, players, action mode, K, ...), because the agent has
to rebuild exactly the observation and action numbering the policy learnt on:

- the observation is ``casino_env.encoding.Layout.encode`` of the view's (redacted) state, with
  the hidden-information counts the redaction drops written back from the view (other hands'
  sizes, stock size, last deal), so it equals what the environment shows that seat;
- ``enumerate`` mode scores the legal moves in the engine's canonical order (above K moves, the
  environment's overflow order, ``casino_env.encoding.overflow_order``) with their
  ``action_features`` rows; ``compose`` mode builds the move token by token with
  ``casino_env.encoding.Composer``, taking forced sub-actions itself when the model was trained
  with ``auto_forced`` (as the environment does).

Moves are the argmax of the masked logits by default (``deterministic=False`` samples from the
policy with the agent's seeded random stream).

This module also holds ``MoveScoringPolicy``, the enumerate-mode network: it embeds the
observation once and scores every candidate move from [embedding, the move's features, the
table and hand the move leaves], so the same weights judge every move (a strong inductive bias
for a game whose legal moves vary from 1 to hundreds). The policy class must be importable for
``MaskablePPO.load``, which is why it lives beside the agent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import (
    MaskableActorCriticPolicy,
    MaskableMultiInputActorCriticPolicy,
)
from stable_baselines3.common.preprocessing import is_image_space
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from casino_env.checks import check_flag
from casino_env.encoding import (
    FEATURES,
    N_CARDS,
    N_FEATURES,
    Composer,
    Layout,
    moves_features,
    overflow_order,
    stock_feature,
)
from casino_env.engine import Move
from casino_env.engine.rules import Rules, make_rules
from casino_env.engine.view import PlayerView

from .afterstate import AfterstateNet, afterstate_nets, exact_or_learned
from .base import Agent, check_bool, check_int, describe_rules
from .registry import register_loader

# Offsets of the parts of an action_features row.
_FEAT_OFFSET = {}
_o = 0
for _name, _size in FEATURES:
    _FEAT_OFFSET[_name] = (_o, _size)
    _o += _size
KIND_SLICE = slice(_FEAT_OFFSET["kind"][0], _FEAT_OFFSET["kind"][0] + _FEAT_OFFSET["kind"][1])
N_RANKS = 13
REACH = 16  # the largest capture value of any preset (Finnish 10D from hand)
LOGIT_PAD = -1e8  # logits of the empty move slots (masked anyway)
_HUGE_NEG = torch.tensor(-1e8)  # what MaskableCategorical puts at a masked action

# Environment settings a model needs to rebuild its observations (saved beside the model).
ENV_KEYS = ("variant", "players", "partnerships", "action_mode", "max_moves", "auto_forced",
            "switches", "hints", "observation", "last_capturer")

# Optional per-move inputs ("hints"): the heuristic's one-ply evaluation of each move.
HINT_DIM = 3
HINT_SCALE = 0.2  # points -> about unit scale


def move_hints(view: PlayerView, moves: list[Move], heuristic, max_moves: int) -> np.ndarray:
    """``(max_moves, HINT_DIM)`` rows for ``moves`` (the environment's slot order): the
    ``HeuristicAgent`` evaluation of the move, its gap to the best move (both in points x
    ``HINT_SCALE``, clipped to [-3, 3]) and whether it is the heuristic's choice. Computed from
    the view only, so the agent and the training environment produce the same rows."""
    out = np.zeros((max_moves, HINT_DIM), np.float32)
    if not moves:
        return out
    scores = heuristic.scores(view, moves) if len(moves) > 1 else [0.0]
    choice = 0  # exactly HeuristicAgent.choose's rule (the first of near-ties)
    for i, v in enumerate(scores):
        if v > scores[choice] + 1e-9:
            choice = i
    arr = np.asarray(scores, np.float64)
    k = len(moves)
    out[:k, 0] = np.clip(arr * HINT_SCALE, -3, 3)
    out[:k, 1] = np.clip((arr - arr.max()) * HINT_SCALE, -3, 3)
    out[choice, 2] = 1.0
    return out


# -- the enumerate-mode network -----------------------------------------------------------------

class DictPassThrough(BaseFeaturesExtractor):
    """Hands the observation dict through unchanged: the move scorer reads its parts."""

    def __init__(self, observation_space: spaces.Dict) -> None:
        super().__init__(observation_space, features_dim=observation_space["observation"].shape[0])

    def forward(self, observations: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        return observations


def _mlp(sizes: list[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers)


class CardSummaries(nn.Module):
    """Fixed (not learnt) card summaries computed from the observation: the table as one card
    set, the cards nobody has seen, and counts per rank (captures and builds go by value), for
    the context; and for each candidate move the table it leaves, the hand it leaves and the
    cards it captures, as card sets and per-rank counts; with ``values`` (``table_values``),
    also which sums 1..16 the cards of the table it leaves can make, loose or in builds (a
    fact of the rules, like the legal moves, not an evaluation; it overstates what a card
    could take where builds stand, since a build is taken whole at its value)."""

    def __init__(self, segments: dict[str, list[int]], deck_size: int = N_CARDS,
                 values: list[int] | None = None, copies: int = 1) -> None:
        super().__init__()
        self.seg = {k: (int(v[0]), int(v[1])) for k, v in segments.items()}
        ranks = torch.zeros(N_CARDS, N_RANKS)
        for c in range(N_CARDS):
            ranks[c, c // 4] = 0.25
        self.register_buffer("ranks", ranks, persistent=False)
        full = torch.zeros(N_CARDS)
        full[:deck_size] = 1
        self.register_buffer("full", full, persistent=False)
        self.context_dim = N_CARDS + 3 * N_RANKS
        self.move_dim = N_CARDS + 3 * N_RANKS + 2
        # With ``values`` (each card kind's value on the table, 0 for none): which sums
        # 1..REACH the cards a move leaves on the table can make (a rules fact).
        self.values = None
        if values is not None:
            if len(values) != N_CARDS:
                raise ValueError(f"values: expected {N_CARDS} card values, got {len(values)}")
            onehot = torch.zeros(N_CARDS, REACH + 1)
            for c, v in enumerate(values):
                if 0 < v <= REACH:
                    onehot[c, v] = float(copies)  # a plane holds copies / copies
            self.register_buffer("value_onehot", onehot, persistent=False)
            self.values = sorted({v for v in values if 0 < v <= REACH})
            self.move_dim += REACH

    def _part(self, obs: torch.Tensor, name: str) -> torch.Tensor:
        start, size = self.seg[name]
        return obs[:, start:start + size]

    def _sum_rows(self, obs: torch.Tensor, name: str) -> torch.Tensor:
        part = self._part(obs, name)
        if part.shape[1] == 0:
            return torch.zeros(obs.shape[0], N_CARDS, dtype=obs.dtype, device=obs.device)
        return part.reshape(obs.shape[0], -1, N_CARDS).sum(1)

    def context(self, obs: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        hand = self._part(obs, "hand")
        table = (self._part(obs, "loose") + self._sum_rows(obs, "builds")).clamp(0, 1)
        seen = hand + table + self._sum_rows(obs, "piles") + self._sum_rows(obs, "known_hands")
        unseen = (self.full - seen).clamp(0, 1)
        r = self.ranks
        extra = torch.cat([unseen, hand @ r, table @ r, unseen @ r], 1)
        return extra, {"hand": hand, "table": table}

    def moves(self, hand: torch.Tensor, table: torch.Tensor, feats: torch.Tensor) -> torch.Tensor:
        """Summaries of moves (rows of ``feats``) given the hand and table of each row."""
        played = feats[:, 0:N_CARDS]
        taken = feats[:, N_CARDS:2 * N_CARDS]
        capture = feats[:, KIND_SLICE][:, 1:2]
        # (x - taken, not x * (1 - taken): with two decks a plane holds copies / 2)
        left = ((table - taken).clamp(0, 1) + played * (1 - capture)).clamp(0, 1)
        hand_left = (hand - played).clamp(0, 1)
        got = (played + taken) * capture
        r = self.ranks
        n_left = left.sum(-1, keepdim=True)
        out = [left, left @ r, hand_left @ r, got @ r, (n_left == 0).to(feats.dtype),
               n_left / 16]
        if self.values is not None:
            out.append(self.sums(left)[:, 1:])
        return torch.cat(out, -1)

    def sums(self, cards: torch.Tensor) -> torch.Tensor:
        """(B, REACH + 1): 1 where some set of the ``cards`` (B x 52 planes) adds up to that
        sum (0 always can): subset-sum reachability by value, with each value's count."""
        count = cards @ self.value_onehot  # cards of each value
        reach = torch.zeros(cards.shape[0], REACH + 1, dtype=cards.dtype, device=cards.device)
        reach[:, 0] = 1
        for v in self.values:
            new = reach
            for j in range(1, REACH // v + 1):
                has = (count[:, v:v + 1] > j - 0.5).to(cards.dtype)
                shifted = torch.nn.functional.pad(reach[:, :REACH + 1 - j * v], (j * v, 0))
                new = torch.maximum(new, shifted * has)
            reach = new
        return reach


class MoveScorer(nn.Module):
    """SB3 "mlp_extractor" of ``MoveScoringPolicy``: the actor latent is one logit per move slot
    (a shared MLP scores [observation embedding, move features, move summaries] for every
    slot), the critic latent is an MLP embedding of the observation."""

    def __init__(self, obs_dim: int, n_features: int, max_moves: int,
                 segments: dict[str, list[int]], deck_size: int = N_CARDS, hidden: int = 256,
                 pair_hidden: int = 128, layers: int = 2, hint_dim: int = 0,
                 prior_temperature: float = 0.0, values: list[int] | None = None,
                 copies: int = 1, privileged_dim: int = 0) -> None:
        super().__init__()
        self.hint_dim = hint_dim
        self.privileged_dim = privileged_dim  # hidden-card inputs of the critic (training)
        # With hints, logits = heuristic score / temperature + learnt residual (zero at first).
        self.prior_scale = 1.0 / (HINT_SCALE * prior_temperature) if (
            hint_dim and prior_temperature > 0) else 0.0
        self.summaries = CardSummaries(segments, deck_size, values, copies)
        in_dim = obs_dim + self.summaries.context_dim
        self.max_moves = max_moves
        self.latent_dim_pi = max_moves
        self.latent_dim_vf = hidden
        self.policy_net = _mlp([in_dim] + [hidden] * layers)
        self.value_net = _mlp([in_dim + privileged_dim] + [hidden] * layers)
        self.context = nn.Linear(hidden, pair_hidden)
        self.move = nn.Linear(n_features + self.summaries.move_dim + hint_dim, pair_hidden,
                              bias=False)
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(pair_hidden, pair_hidden), nn.ReLU())
        self.logit = nn.Linear(pair_hidden, 1)

    def _inputs(self, features: dict[str, torch.Tensor]):
        obs = features["observation"]
        extra, parts = self.summaries.context(obs)
        return torch.cat([obs, extra], 1), parts

    def _actor(self, x: torch.Tensor, parts: dict, features: dict) -> torch.Tensor:
        # Score only the filled slots (a mean of ~5 of K): gather them, score, scatter back.
        feats = features["action_features"]
        used = feats[..., KIND_SLICE].sum(-1) > 0
        rows, slots = used.nonzero(as_tuple=True)
        f = feats[rows, slots]
        per_move = [f, self.summaries.moves(parts["hand"][rows], parts["table"][rows], f)]
        if self.hint_dim:
            per_move.append(features["move_hints"][rows, slots])
        h = self.policy_net(x)
        z = self.context(h)[rows] + self.move(torch.cat(per_move, -1))
        scores = self.logit(self.head(z)).squeeze(-1)
        if self.prior_scale:
            scores = scores + self.prior_scale * features["move_hints"][rows, slots, 0]
        logits = torch.full((x.shape[0], self.max_moves), LOGIT_PAD, dtype=x.dtype,
                            device=x.device)
        return logits.index_put((rows, slots), scores)

    def _critic(self, x: torch.Tensor, features: dict[str, torch.Tensor]) -> torch.Tensor:
        if self.privileged_dim:
            x = torch.cat([x, features["privileged"]], 1)
        return self.value_net(x)

    def forward(self, features: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        x, parts = self._inputs(features)
        return self._actor(x, parts, features), self._critic(x, features)

    def forward_actor(self, features: dict[str, torch.Tensor]) -> torch.Tensor:
        x, parts = self._inputs(features)
        return self._actor(x, parts, features)

    def forward_critic(self, features: dict[str, torch.Tensor]) -> torch.Tensor:
        x, _ = self._inputs(features)
        return self._critic(x, features)


class MoveScoringPolicy(MaskableMultiInputActorCriticPolicy):
    """MaskablePPO policy for ``action_mode="enumerate"`` with ``dict_obs=True``: logits come
    from ``MoveScorer`` (one shared scorer per candidate move), not from a linear layer over a
    fixed set of action ids. ``scorer_kwargs``: ``segments`` (observation layout offsets,
    required), ``deck_size``, ``hidden``, ``pair_hidden``, ``layers``, and ``values`` /
    ``copies`` (``table_values``: the table-sum features of each move). An observation key
    ``privileged`` (``experiments.train_env.privileged_features``: the hidden cards) goes to
    the critic only, for training; the actor never reads it, so a trained policy plays
    without it. An observation key
    ``move_hints`` (K x h, see ``move_hints``) adds per-move inputs; with it,
    ``prior_temperature`` > 0 (points) makes the logits the heuristic's scores divided by that
    temperature plus a learnt residual that starts at zero (a residual policy: the argmax
    starts as the heuristic's move, sampling tries the moves it rates nearly as good)."""

    def __init__(self, observation_space: spaces.Dict, action_space: spaces.Discrete,
                 lr_schedule, scorer_kwargs: dict | None = None, **kwargs: Any) -> None:
        self.scorer_kwargs = dict(scorer_kwargs or {})
        kwargs["features_extractor_class"] = DictPassThrough
        kwargs.pop("features_extractor_kwargs", None)
        kwargs.pop("net_arch", None)
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        space = self.observation_space
        hints = space.spaces.get("move_hints")
        priv = space.spaces.get("privileged")
        self.mlp_extractor = MoveScorer(
            space["observation"].shape[0], space["action_features"].shape[1],
            space["action_features"].shape[0], hint_dim=hints.shape[1] if hints else 0,
            privileged_dim=priv.shape[0] if priv else 0, **self.scorer_kwargs)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # the scorer's latent already is the logits
        if self.mlp_extractor.prior_scale:  # start exactly at the prior (the heuristic)
            nn.init.zeros_(self.mlp_extractor.logit.weight)
            nn.init.zeros_(self.mlp_extractor.logit.bias)
        elif self.ortho_init:
            self.init_weights(self.mlp_extractor.logit, gain=0.01)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1),
                                              **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["scorer_kwargs"] = self.scorer_kwargs
        data.pop("features_extractor_class", None)
        data.pop("features_extractor_kwargs", None)
        data.pop("net_arch", None)
        return data


def table_values(rules: Rules) -> dict:
    """``scorer_kwargs`` for the move scorer's table sums: each card kind's value on the table
    (0: none, e.g. Casino's court cards, which only pair) and the deck's copies of a card."""
    copies = rules.deck.copies
    kinds = rules.deck.size // copies
    values = [(rules.values[k * copies] or 0) if k < kinds else 0 for k in range(N_CARDS)]
    return {"values": values, "copies": copies}


def scorer_segments(layout: Layout) -> dict[str, list[int]]:
    """The observation segments ``CardSummaries`` reads, as JSON-friendly [start, size]."""
    return {name: [start, size] for name, start, size, _ in layout.segments
            if name in ("hand", "loose", "builds", "piles", "known_hands")}


def _zero_schedule(_progress: float) -> float:
    return 0.0


def snapshot_policy(policy: MaskableActorCriticPolicy) -> MaskableActorCriticPolicy:
    """A frozen CPU copy of ``policy`` without optimizer state (for self-play and evaluation)."""
    params = policy._get_constructor_parameters()
    params["lr_schedule"] = _zero_schedule
    copy = type(policy)(**params)
    copy.load_state_dict(policy.state_dict())
    copy.optimizer = None  # nothing to train; keeps pickles small
    copy.set_training_mode(False)
    return copy.to("cpu")


# -- the agent -----------------------------------------------------------------------------------

def env_config_path(model_path: str | Path) -> Path:
    """The side-car JSON of a model: ``x/model.zip`` -> ``x/model.json``."""
    p = Path(model_path)
    return p.with_suffix(".json") if p.suffix == ".zip" else Path(str(p) + ".json")


class ModelNotFoundError(FileNotFoundError, ValueError):
    """A model file or its settings file is missing (a ValueError too: a bad ``ppo:PATH``
    is bad input, reported like any other bad agent name)."""


# The settings a model cannot be rebuilt without (the others have defaults).
REQUIRED_KEYS = ("variant", "players", "action_mode")
ACTION_MODES = ("enumerate", "compose")


def check_env_config(config: object, where: str = "env_config") -> dict:
    """``config`` if it holds the settings a model needs (``REQUIRED_KEYS``, a known action
    mode, rules the engine accepts); else ValueError naming ``where`` and the problem."""
    if not isinstance(config, dict):
        raise ValueError(f"{where}: expected a JSON object of environment settings "
                         f"({', '.join(ENV_KEYS)}), got {type(config).__name__}")
    missing = [k for k in REQUIRED_KEYS if config.get(k) is None]
    if missing:
        raise ValueError(f"{where}: missing {', '.join(map(repr, missing))} "
                         f"(the environment the policy was trained on)")
    if config["action_mode"] not in ACTION_MODES:
        raise ValueError(f"{where}: action_mode must be one of {', '.join(ACTION_MODES)}, "
                         f"got {config['action_mode']!r}")
    if config.get("last_capturer") is not None:  # (absent or null: False)
        try:
            check_flag("last_capturer", config["last_capturer"])
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
    switches = config.get("switches") or {}
    if not isinstance(switches, dict):
        raise ValueError(f"{where}: switches must be an object, got {switches!r}")
    make_rules(config["variant"], config["players"], config.get("partnerships"),
               dict(switches), where=where)
    return config


def save_env_config(model_path: str | Path, config: dict) -> Path:
    """Write the environment settings a model needs beside it (see ``ENV_KEYS``)."""
    path = env_config_path(model_path)
    path.write_text(json.dumps({k: config.get(k) for k in ENV_KEYS}, indent=2, sort_keys=True)
                    + "\n")
    return path


def encode_view(layout: Layout, view: PlayerView, out: np.ndarray) -> np.ndarray:
    """The environment's observation of ``view.seat`` from the view alone: ``Layout.encode``
    of the redacted state, with what the redaction drops (other hands' sizes, stock size, last
    deal, the cut card of V-hun-cut) taken from the view."""
    layout.encode(view.state, view.seat, out)
    o = layout.offset
    n = view.rules.players
    for other in range(n):
        out[o["hand_sizes"] + (other - view.seat) % n] = view.hand_sizes[other] / \
            layout.hand_scale
    out[o["stock"]] = stock_feature(view.rules, view.stock_size)
    out[o["last_deal"]] = float(view.stock_size == 0)
    if view.cut is not None:  # V-hun-cut: the stock's bottom card the seat has seen
        out[o["cut"] + view.cut] = 1
    return out


class PPOAgent(Agent):
    """Plays a trained MaskablePPO policy. Build it from a file with ``PPOAgent.load(path)``
    (or ``make_agent("ppo:path.zip")``), or from a live policy and its environment settings
    (``PPOAgent(policy, env_config)``, e.g. a self-play snapshot)."""

    name = "ppo"

    def __init__(self, policy: MaskableActorCriticPolicy, env_config: dict,
                 seed: int | None = None, deterministic: bool = True) -> None:
        super().__init__(seed)
        torch.set_num_threads(1)  # more threads are much slower on small batches here
        self.policy = policy
        self.policy.set_training_mode(False)
        check_env_config(env_config)
        self.env_config = {k: env_config.get(k) for k in ENV_KEYS}
        self.deterministic = check_bool("deterministic", deterministic)
        self.path: str | None = None  # the model file, when loaded from one
        # an afterstate value network for the two-player last deal (load's endgame_net)
        self.endgame_net: AfterstateNet | None = None
        # the exact last-deal move within this many positions (load's endgame; 0: never)
        self.endgame = 0
        # an afterstate value network for the two-player decisions before the last deal
        self.midgame_net: AfterstateNet | None = None
        cfg = self.env_config
        self.rules = make_rules(cfg["variant"], cfg["players"], cfg.get("partnerships"),
                                dict(cfg.get("switches") or {}))
        self.compose = cfg["action_mode"] == "compose"
        self.auto_forced = bool(cfg.get("auto_forced", True))
        self.max_moves = int(cfg.get("max_moves") or 128)
        # (models saved before the option have no last_capturer: they were trained without)
        self.layout = Layout(self.rules, self.compose, cfg.get("observation") or "full",
                             bool(cfg.get("last_capturer") or False))
        self.hints = cfg.get("hints")
        self._heuristic = None
        if self.hints:
            from .scripted import HeuristicAgent

            if self.hints != "heuristic":
                raise ValueError(f"unknown hints {self.hints!r} (known: heuristic)")
            self._heuristic = HeuristicAgent(seed)
        space = policy.observation_space
        self.dict_obs = isinstance(space, spaces.Dict)
        self.obs_keys = tuple(space.spaces) if self.dict_obs else ()
        size = (space["observation"] if self.dict_obs else space).shape[0]
        if size != self.layout.size:
            raise ValueError(f"the policy expects observations of size {size}, the environment "
                             f"{cfg['variant']}/{cfg['players']} ({cfg['action_mode']}) makes "
                             f"{self.layout.size}")
        self._obs = np.zeros(self.layout.size, np.float32)
        # The move scorer's logits can be read without building three distributions (the
        # same float ops as MaskableCategorical, ``logits``); only for plain Box inputs.
        self._lean = isinstance(policy, MoveScoringPolicy) and \
            isinstance(policy.action_net, nn.Identity) and self.dict_obs and \
            all(isinstance(b, spaces.Box) and not is_image_space(b)
                for b in space.spaces.values())

    @classmethod
    def load(cls, path: str | Path, seed: int | None = None, deterministic: bool = True,
             env_config: dict | None = None) -> PPOAgent:
        """Load ``path`` (a MaskablePPO .zip, the same path without ``.zip``, its ``.json``,
        or a folder holding ``model.zip``) and its side-car JSON (or ``env_config``). A missing file
        raises ``ModelNotFoundError`` naming it as given; a file that does not read, a
        ValueError naming it."""
        from sb3_contrib import MaskablePPO

        torch.set_num_threads(1)
        zip_path, shown = Path(path), str(path)  # messages name the path as given
        if zip_path.is_dir():
            zip_path = zip_path / "model.zip"
            shown = str(zip_path)
        elif zip_path.suffix == ".json":  # the settings file named instead of the model
            zip_path = zip_path.with_suffix(".zip")
            shown = str(zip_path)
        elif not zip_path.exists() and zip_path.suffix != ".zip" \
                and Path(f"{path}.zip").is_file():
            zip_path = Path(f"{path}.zip")  # MaskablePPO.load's own convention
            shown = f"{path}.zip"
        cfg_path = env_config_path(zip_path)
        if not zip_path.is_file():
            extra = f" (its settings {cfg_path} are there, the model .zip is not)" \
                if env_config is None and cfg_path.is_file() else ""
            raise ModelNotFoundError(f"ppo model not found: {shown}{extra}")
        if env_config is None:
            if not cfg_path.is_file():
                raise ModelNotFoundError(
                    f"ppo model settings not found: {cfg_path} (the game {shown} was "
                    "trained on: variant, players, action_mode, ...; experiments.train writes "
                    "it beside the model)")
            try:
                env_config = json.loads(cfg_path.read_text())
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
                raise ValueError(f"ppo model settings {cfg_path} do not read: {e}") from e
            check_env_config(env_config, f"ppo model settings {cfg_path}")
        else:
            check_env_config(env_config)
        try:
            model = MaskablePPO.load(zip_path, device="cpu")
        except Exception as e:  # a corrupt or foreign file: sb3 raises many kinds
            raise ValueError(f"ppo model {shown} does not load as a MaskablePPO model: "
                             f"{type(e).__name__}: {e}") from e
        agent = cls(model.policy, env_config, seed=seed, deterministic=deterministic)
        agent.path = shown
        return agent

    def check_rules(self, rules: Rules) -> None:
        """ValueError unless ``rules`` are the rules the policy was trained on (its
        observations and action numbering are those of that game only)."""
        if rules != self.rules:
            raise ValueError(self._mismatch(rules))

    def _mismatch(self, rules: Rules) -> str:
        return (f"this policy was trained on {describe_rules(self.rules)}, "
                f"this game is {describe_rules(rules)}")

    # -- choosing -----------------------------------------------------------------------------
    def choose(self, view: PlayerView) -> Move:
        if view.rules != self.rules:
            raise ValueError(self._mismatch(view.rules))
        moves = view.legal_moves()
        if self.compose:
            return self._compose(view, moves)
        if len(moves) == 1:
            return moves[0]
        chosen = exact_or_learned(view, moves, self.endgame,
                                  (self.endgame_net, self.midgame_net))
        if chosen is not None:
            return chosen
        if len(moves) > self.max_moves:  # the environment's overflow policy
            moves = overflow_order(moves)[:self.max_moves]
        obs, mask = self._enumerate_obs(view, moves)
        return moves[self._pick(obs, mask)]

    def _enumerate_obs(self, view: PlayerView, moves: list[Move]) -> tuple[dict, np.ndarray]:
        """The enumerate-mode observation of ``view`` with ``moves`` (at most K) in the slots."""
        k = self.max_moves
        feats = np.zeros((k, N_FEATURES), np.float32)
        moves_features(moves, feats)
        mask = np.zeros(k, np.int8)
        mask[:len(moves)] = 1
        obs = {"observation": encode_view(self.layout, view, self._obs).copy(),
               "action_mask": mask, "action_features": feats}
        if self.hints:
            obs["move_hints"] = move_hints(view, moves, self._heuristic, k)
        return obs, mask

    def move_logits(self, view: PlayerView, moves: list[Move]) -> np.ndarray:
        """The policy's logit of each of ``moves`` (legal moves of ``view``, enumerate-mode
        models only), in their order; -inf for a move beyond the K the policy sees (the
        environment's overflow order decides which). Search uses these as its prior."""
        if self.compose:
            raise ValueError("move_logits needs an enumerate-mode model (this one composes "
                             "moves sub-action by sub-action)")
        if view.rules != self.rules:
            raise ValueError(self._mismatch(view.rules))
        seen = overflow_order(moves)[:self.max_moves] if len(moves) > self.max_moves \
            else moves
        obs, mask = self._enumerate_obs(view, seen)
        logits = self.logits(obs, mask)[:len(seen)].astype(np.float64)
        if seen is moves:
            return logits
        slot = {id(m): i for i, m in enumerate(seen)}
        return np.array([logits[slot[id(m)]] if id(m) in slot else -np.inf for m in moves])

    def _compose(self, view: PlayerView, moves: list[Move]) -> Move:
        comp = Composer(view.state, moves)
        base = encode_view(self.layout, view, self._obs)
        while True:
            opts = comp.options()
            if len(opts) == 1 and self.auto_forced:
                token = next(iter(opts))
            else:
                obs = base.copy()
                self.layout.encode_compose(view.state, comp.prefix, obs)
                mask = np.zeros(self.policy.action_space.n, np.int8)
                mask[list(opts)] = 1
                token = self._pick({"observation": obs, "action_mask": mask}, mask)
            move = comp.push(token)
            if move is not None:
                return move

    def logits(self, obs: dict[str, np.ndarray], mask: np.ndarray) -> np.ndarray:
        """Masked logits of the policy for one observation (masked-out actions ~ -1e8)."""
        with torch.inference_mode():  # no autograd records at all (no_grad keeps some)
            if self._lean:
                return self._lean_logits(obs, mask)
            if self.dict_obs:
                # (a key only the critic reads, such as "privileged", is not needed here)
                obs_t = {k: torch.as_tensor(obs[k]).unsqueeze(0) for k in self.obs_keys
                         if k in obs}
            else:
                obs_t = torch.as_tensor(obs["observation"]).unsqueeze(0)
            dist = self.policy.get_distribution(obs_t, action_masks=mask[None].astype(bool))
            return dist.distribution.logits[0].numpy()

    def _lean_logits(self, obs: dict[str, np.ndarray], mask: np.ndarray) -> np.ndarray:
        """``get_distribution(...).distribution.logits`` of a move-scoring policy, bit for bit
        (tests/test_ppo_agent.py), in a third of its overhead: a Box input is only cast to
        float; the logits are normalised, masked with -1e8 and normalised again, as
        ``MaskableCategorical`` does (its intermediate renormalisation is never read)."""
        feats = {k: torch.as_tensor(obs[k]).unsqueeze(0).float() for k in self.obs_keys
                 if k in obs}
        raw = self.policy.mlp_extractor.forward_actor(feats)
        first = raw - raw.logsumexp(dim=-1, keepdim=True)
        masked = torch.where(torch.as_tensor(mask[None].astype(bool)), first, _HUGE_NEG)
        return (masked - masked.logsumexp(dim=-1, keepdim=True))[0].numpy()

    def _pick(self, obs: dict[str, np.ndarray], mask: np.ndarray) -> int:
        logits = self.logits(obs, mask)
        legal = np.flatnonzero(mask)
        if self.deterministic:
            return int(legal[np.argmax(logits[legal])])
        z = logits[legal] - logits[legal].max()
        p = np.exp(z)
        u = self.rng.random() * float(p.sum())
        acc = 0.0
        for a, w in zip(legal, p):
            acc += float(w)
            if u < acc:
                return int(a)
        return int(legal[-1])

    def __repr__(self) -> str:
        cfg = self.env_config
        return (f"PPOAgent({cfg['variant']}/{cfg['players']} {cfg['action_mode']}, "
                f"seed={self.seed}, deterministic={self.deterministic})")


def load_ppo(path: str, seed: int | None = None, deterministic: bool = True,
             endgame_net: str | None = None, endgame_margin: float | None = None,
             endgame: int = 0, midgame_net: str | None = None) -> PPOAgent:
    """Loader for ``make_agent("ppo:<path>")`` (``deterministic=False`` samples;
    ``endgame_net=PATH``: an afterstate value network plays the two-player last deal;
    ``endgame_margin``: it departs from the default heuristic's move only for a move it values
    at least this many points higher; ``endgame=N``: the exact minimax move there instead, if
    it takes at most N positions -- a search, so a reference for what a perfect learned last
    deal would give the policy, not a network-alone agent); ``midgame_net=PATH``: a network
    of scope ``before_last`` chooses among the heuristic's best moves before the last deal)."""
    endgame = check_int("endgame", endgame, 0)
    if endgame and endgame_net is not None:
        raise ValueError("endgame and endgame_net both play the last deal: give one")
    nets = afterstate_nets(endgame_net, endgame_margin, midgame_net)
    agent = PPOAgent.load(path, seed=seed, deterministic=deterministic)
    agent.endgame = endgame
    for net in nets:
        if net is not None and net.rules != agent.rules:
            raise ValueError(f"this policy was trained on {describe_rules(agent.rules)}, "
                             f"{net.option} {net.path} was fitted on "
                             f"{describe_rules(net.rules)}")
    agent.endgame_net, agent.midgame_net = nets
    return agent


register_loader("ppo", load_ppo)

__all__ = ["ModelNotFoundError", "MoveScoringPolicy", "PPOAgent", "check_env_config",
           "describe_rules", "encode_view", "load_ppo", "move_hints", "save_env_config",
           "scorer_segments", "snapshot_policy", "table_values"]
