"""Shared pytest configuration.

``slow`` tests (thousands of random games) are skipped unless ``CASINO_SLOW=1`` is set or
the run selects them with ``-m slow``.
"""

from __future__ import annotations

import os

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: long-running tests; run with CASINO_SLOW=1 or -m slow")


def _slow_enabled(config: pytest.Config) -> bool:
    if os.environ.get("CASINO_SLOW", "").strip() not in ("", "0"):
        return True
    expr = config.getoption("markexpr", default="") or ""
    return "slow" in expr and "not slow" not in expr


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _slow_enabled(config):
        return
    skip = pytest.mark.skip(reason="slow test: set CASINO_SLOW=1 or run with -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
