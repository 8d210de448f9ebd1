"""Gymnasium ids ``casino_env/<Preset>-v0`` (entry points are strings, so nothing heavy is
imported here: this runs while gymnasium itself is being imported)."""

from __future__ import annotations

PRESET_IDS = {"casino": "Casino", "royal": "Royal", "dominican": "Dominican",
              "hungarian": "Hungarian", "tuxedo": "Tuxedo", "spade": "Spade", "wippen": "Wippen",
              "swedish": "Swedish", "finnish": "Finnish", "swazi": "Swazi",
              "krypkasino": "Krypkasino"}


def register_envs() -> None:
    """Register ``casino_env/<Preset>-v0`` with Gymnasium (idempotent)."""
    from gymnasium.envs.registration import register, registry

    for variant, name in PRESET_IDS.items():
        env_id = f"casino_env/{name}-v0"
        if env_id not in registry:
            register(id=env_id, entry_point="casino_env.single:preset_env",
                     kwargs={"preset": variant})
