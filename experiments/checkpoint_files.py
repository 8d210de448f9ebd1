"""Publishing checkpoint folders atomically, shared by experiments.train and rllib_train.

A checkpoint is written into a temporary folder, flushed, then renamed to ``step_<n>``: a
folder with that name is always complete, so a run killed at any moment resumes from a whole
checkpoint. Old ones are moved out of sight before they are deleted.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path


def fsync_path(path: Path) -> None:
    """Flush a file or a folder's entries to disk (so a rename after it publishes whole files)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish(tmp: Path, root: Path, step: int, keep: int,
            listed: Callable[[Path], list[Path]]) -> Path:
    """Flush the written folder ``tmp``, rename it to ``root/step_<step>`` (replacing a
    checkpoint of the same step) and prune all but the last ``keep`` of ``listed(root)``."""
    for path in sorted(tmp.rglob("*"), reverse=True):  # files, then their folders
        fsync_path(path)
    fsync_path(tmp)
    final = root / f"step_{step}"
    if final.exists():  # the same step again (e.g. the last checkpoint, now marked finished)
        old = root / f".tmp_old_step_{step}_{os.getpid()}"
        final.rename(old)
        tmp.rename(final)
        shutil.rmtree(old, ignore_errors=True)
    else:
        tmp.rename(final)
    fsync_path(root)
    for old in listed(root)[:-max(1, keep)]:
        gone = root / f".tmp_pruned_{old.name}_{os.getpid()}"
        old.rename(gone)  # out of sight first: a half-deleted checkpoint must not count
        shutil.rmtree(gone, ignore_errors=True)
    return final
