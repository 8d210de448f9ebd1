"""casino-env: PettingZoo environments and a rules engine for the Casino family of games.

``casino_env.env(...)`` / ``casino_env.raw_env(...)`` make the AEC environment (imported
lazily, so ``casino_env.engine`` alone never imports gymnasium or pettingzoo).
"""

__version__ = "0.1.0"
__all__ = ["env", "raw_env"]


def __getattr__(name: str):
    if name in ("env", "raw_env"):
        from . import aec

        return getattr(aec, name)
    raise AttributeError(f"module 'casino_env' has no attribute {name!r}")
