"""A Q-network trained with OpenSpiel's DQN as an agent: ``make_agent("openspiel-dqn:PATH")``.

``PATH`` is the folder (or its ``q_network.pt`` or ``openspiel_dqn.json``) that
``experiments/openspiel_dqn.py`` writes: the network's weights and ``openspiel_dqn.json`` (the
game's parameters and layer sizes), which must have been written together. The agent plays
greedily: at each compose sub-action it reads the ``python_casino`` information state tensor
of its seat (the PettingZoo observation) and takes the legal action of highest Q. It reads
only its view (the tensor is the same for every way of dealing the hidden cards).
Needs the ``openspiel`` and ``train`` extras (OpenSpiel and torch).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from casino_env.engine import Move
from casino_env.engine.rules import Rules
from casino_env.engine.view import PlayerView

from .base import Agent, describe_rules
from .openspiel_ismcts import _game
from .registry import register_loader

META = "openspiel_dqn.json"
WEIGHTS = "q_network.pt"


class ModelFileNotFoundError(FileNotFoundError, ValueError):
    """A model file that is not there (a ValueError too, like every bad agent spec)."""


def _files(path: str) -> tuple[Path, Path]:
    """(weights, settings) of a model given as its folder, its weights file (``.pt``) or its
    settings file; a ValueError naming ``path`` for any other file."""
    p = Path(path)
    if p.name == META:  # the settings file names its folder
        p = p.parent
    if p.is_dir() or not p.suffix:
        folder, weights = p, p / WEIGHTS
    elif p.suffix == ".pt":
        folder, weights = p.parent, p
    else:
        raise ValueError(f"openspiel-dqn:PATH takes the folder experiments/openspiel_dqn.py "
                         f"writes (or its {WEIGHTS} or {META}), got the file {path}")
    meta = folder / META
    if not weights.exists():
        raise ModelFileNotFoundError(f"openspiel-dqn model not found: {weights}")
    if not meta.exists():
        raise ModelFileNotFoundError(f"openspiel-dqn model settings not found: {meta} (written "
                                     "beside the weights by experiments/openspiel_dqn.py)")
    return weights, meta


class OpenSpielDQNAgent(Agent):
    """Greedy play of a DQN Q-network over compose sub-actions."""

    name = "openspiel-dqn"

    def __init__(self, path: str, seed: int | None = None) -> None:
        super().__init__(seed)
        import torch
        from open_spiel.python.pytorch.dqn import MLP

        weights, meta_path = _files(path)
        try:
            meta = json.loads(meta_path.read_text())
            params = meta["game"]
            hidden = [int(h) for h in meta["hidden"]]
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"openspiel-dqn model settings {meta_path} do not read: {e}") from e
        from casino_env.openspiel import rules_from_params

        self.rules: Rules = rules_from_params(params)[0]
        game = _game(self.rules)
        self.size = int(np.prod(game.information_state_tensor_shape()))
        self.net = MLP(self.size, hidden, game.num_distinct_actions())
        try:
            state_dict = torch.load(weights, map_location="cpu")
        except Exception as e:  # not a torch file, or a foreign pickle: torch raises many kinds
            raise ValueError(f"openspiel-dqn weights {weights} do not load as a saved "
                             f"Q-network state dict: {type(e).__name__}: "
                             f"{str(e).splitlines()[0] if str(e) else ''}") from e
        try:
            self.net.load_state_dict(state_dict)
        except (RuntimeError, TypeError, AttributeError) as e:
            raise ValueError(f"openspiel-dqn weights {weights} do not fit the network of "
                             f"{meta_path} ({self.size} inputs, hidden {hidden}, "
                             f"{game.num_distinct_actions()} actions): the settings must be "
                             "the ones written with these weights") from e
        self.net.eval()
        self._torch = torch
        self.path = str(path)

    def check_rules(self, rules: Rules) -> None:
        if rules != self.rules:
            raise ValueError(f"this network was trained on {describe_rules(self.rules)}, "
                             f"this game is {describe_rules(rules)}")

    def choose(self, view: PlayerView) -> Move:
        self.check_rules(view.rules)
        moves = view.legal_moves()
        if len(moves) == 1:
            return moves[0]
        torch = self._torch
        state = _game(view.rules).state_from_engine(view.determinize(self.rng))
        seat = view.seat
        while True:
            legal = state.legal_actions()
            if len(legal) == 1:
                action = legal[0]
            else:
                obs = torch.as_tensor(np.asarray(state.information_state_tensor(seat),
                                                 np.float32))
                with torch.no_grad():
                    q = self.net(obs).numpy()
                action = max(legal, key=lambda a: q[a])
            move = state.push_sub_action(action)
            if move is not None:
                break
        for m in moves:
            if m == move:
                return m
        raise RuntimeError(f"the network chose {move}, which is not among the legal moves")


def load_dqn(path: str, seed: int | None = None) -> OpenSpielDQNAgent:
    """The loader behind ``openspiel-dqn:PATH``."""
    return OpenSpielDQNAgent(path, seed=seed)


register_loader("openspiel-dqn", load_dqn)
