"""Subset-sum partitions: which groups of table cards can be taken as sets of a value.

Everything here works on a sorted tuple of capture values (position i is the i-th card) and
returns position bitmasks, so results depend only on the values and are cached across states.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1 << 16)
def groups(values: tuple[int, ...], target: int, lone_ace: bool) -> tuple[int, ...]:
    """Position masks of the sets whose values sum to ``target`` (ascending ``values``).

    With ``lone_ace`` (Royal, target 14) a single Ace (value 1) is also a set of 14.
    """
    n = len(values)
    out: list[int] = []

    def dfs(start: int, total: int, mask: int) -> None:
        for j in range(start, n):
            v = values[j]
            t = total + v
            if t > target:
                break
            m = mask | (1 << j)
            if t == target:
                out.append(m)
            else:
                dfs(j + 1, t, m)

    dfs(0, 0, 0)
    if lone_ace and target == 14:
        out.extend(1 << j for j in range(n) if values[j] == 1)
    return tuple(out)


@lru_cache(maxsize=1 << 16)
def partitions(values: tuple[int, ...], target: int, lone_ace: bool) -> tuple[int, ...]:
    """Position masks (0 included) of every sub-collection that splits into disjoint sets of
    ``target``: the loose cards one capture or one multiple build of that value can take."""
    found = {0}
    for g in groups(values, target, lone_ace):
        found.update([m | g for m in found if not m & g])
    return tuple(sorted(found))


@lru_cache(maxsize=1 << 16)
def with_card(values: tuple[int, ...], card: int, target: int,
              lone_ace: bool) -> tuple[int, ...]:
    """For a card of value ``card`` added to the items ``values``: position masks of the item
    collections that, with the card, split into sets of ``target`` with the card in one set,
    each shifted left one bit with 1 in the low bit when the whole is a single set (a single
    build) — the loose part of every build of ``target`` the card can make. The empty
    collection is included when the card alone is a set of ``target`` (it then needs further
    sets or an existing build). (One int per entry keeps the cache small.)"""
    alone = card == target or (lone_ace and card == 1 and target == 14)
    cgroups = ([0] if alone else []) + (list(groups(values, target - card, False))
                                        if target > card else [])
    if not cgroups:
        return ()
    extra = partitions(values, target, lone_ace)
    found: dict[int, bool] = {}
    for g in cgroups:
        for sm in extra:
            if not g & sm:
                u = g | sm
                if u not in found:
                    found[u] = not sm and bool(g)
    return tuple(sorted(u << 1 | single for u, single in found.items()))
