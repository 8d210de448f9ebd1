"""casino-env: PettingZoo environments and a rules engine for the Casino family of games.

``casino_env.env(...)`` / ``casino_env.raw_env(...)`` make the AEC environment;
``gymnasium.make("casino_env/Royal-v0", opponent="heuristic")`` the single-agent one. Both are
imported lazily, so ``import casino_env.engine`` never imports gymnasium or pettingzoo.

The engine knows nothing above it: Jupyter's picture of a ``State`` (``_repr_html_``) is
attached here, by the layer that owns the pictures, and ``casino_env.picture`` is imported
only when a state is first shown.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys

__version__ = "0.1.0"
__all__ = ["CasinoEnv", "env", "raw_env", "register_envs"]


def __getattr__(name: str):
    if name in ("env", "raw_env"):
        from . import aec

        return getattr(aec, name)
    if name == "CasinoEnv":
        from .single import CasinoEnv

        return CasinoEnv
    if name == "register_envs":
        from .registration import register_envs

        return register_envs
    raise AttributeError(f"module 'casino_env' has no attribute {name!r}")


def _state_repr_html(state) -> str:
    """An SVG picture of the whole state (every hand face up), for Jupyter."""
    from .picture import state_svg

    return state_svg(state)


def _attach_state_repr() -> None:
    """Give the engine's State its Jupyter picture (the engine does not import pictures)."""
    from .engine.state import State

    State._repr_html_ = _state_repr_html


def _register() -> None:
    from .registration import register_envs

    register_envs()


class _RegisterAfterGymnasium(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Registers the Gymnasium ids right after gymnasium is first imported, so that
    ``gymnasium.make("casino_env/...")`` works whichever of the two is imported first."""

    def find_spec(self, name, path, target=None):
        if name != "gymnasium":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        self._loader = spec.loader
        spec.loader = self
        return spec

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _register()


_attach_state_repr()

if "gymnasium" in sys.modules:
    _register()
else:
    sys.meta_path.insert(0, _RegisterAfterGymnasium())
