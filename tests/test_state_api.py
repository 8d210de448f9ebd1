"""The engine's State reads in card strings (issue 16 item 9): ``hands``, ``table``, ``piles``,
``loose``, ``stock``, ``stock_size``; the bitmasks live under names that say so."""

from __future__ import annotations

import pytest

from casino_env.engine import State, apply_move, new_game

SPEC = {
    "variant": "casino", "players": 2, "dealer": 1, "current": 0,
    "hands": [["7H", "3C"], ["8D", "2S"]],
    "table": ["5S", "2C", {"cards": ["4D", "4H"], "value": 8, "owner": 1, "multiple": False}],
    "stock": ["AS", "10D"],
    "piles": [["QS"], []],
}


def test_card_string_properties() -> None:
    st = State.from_spec(SPEC)
    assert sorted(st.hands[0]) == ["3C", "7H"] and sorted(st.hands[1]) == ["2S", "8D"]
    assert sorted(st.loose) == ["2C", "5S"]
    table = st.table
    assert sorted(x for x in table if isinstance(x, str)) == ["2C", "5S"]
    builds = [x for x in table if isinstance(x, dict)]
    assert [(sorted(b["cards"]), b["value"], b["owner"], b["multiple"]) for b in builds] == [
        (["4D", "4H"], 8, 1, False)]
    assert st.piles == [["QS"], []]
    assert st.stock == ["AS", "10D"] and st.stock_size == 2
    # the masks are still there, under names that say so
    assert isinstance(st.hand_masks[0], int) and isinstance(st.loose_mask, int)
    assert isinstance(st.pile_masks[0], int) and len(st.stock_ids) == 2


def test_table_is_a_property_after_apply_move() -> None:
    """``apply_move(...).table`` is the table, not a bound method."""
    st = State.from_spec(SPEC)
    after = apply_move(st, "7H captures 5S+2C")
    assert not callable(after.table)
    assert [x for x in after.table if isinstance(x, str)] == []
    assert sorted(after.piles[0]) == ["2C", "5S", "7H", "QS"]


def test_properties_are_read_only() -> None:
    st = new_game("royal", seed=3)
    for name in ("hands", "table", "piles", "loose", "stock", "stock_size"):
        with pytest.raises(AttributeError):
            setattr(st, name, None)


def test_missing_table_stock_piles_mean_empty() -> None:
    """The spec contract: missing ``table``/``stock``/``piles`` mean empty (documented)."""
    st = State.from_spec({"variant": "casino", "players": 2, "dealer": 1, "current": 0,
                          "hands": [["7H"], ["KD"]]})
    assert st.table == [] and st.stock == [] and st.stock_size == 0 and st.piles == [[], []]
