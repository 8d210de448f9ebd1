"""The soak script: a short run of every preset has no errors, and its invariant check does
catch a broken state (C-deck: every card in exactly one place; C-one-per-value)."""

from __future__ import annotations

import io

import pytest

from casino_env.engine import Build, list_variants, new_game
from experiments.soak import REPORT_EVERY, check, run, soak
from experiments.soak import main as soak_main


@pytest.mark.parametrize("variant", list_variants())
def test_short_soak_has_no_errors(variant):
    row = soak(variant, 2, hands=4, seed=1, keep=3)
    assert row["errors"] == 0, row["first_error"]
    assert row["hands"] == 4 and row["moves"] > 0
    assert 0 < row["slowest_generate_ms"] < 1000 and row["slowest_legal_moves"] >= 1


def test_check_catches_a_lost_or_doubled_card():
    st = new_game("casino", 2, seed=0)
    check(st)
    broken = st._copy()
    # a hand card also on the table
    broken.loose_mask = st.loose_mask | (st.hand_masks[0] & -st.hand_masks[0])
    with pytest.raises(AssertionError, match="two places"):
        check(broken)
    broken = st._copy()
    broken.loose_mask = st.loose_mask & (st.loose_mask - 1)  # a table card vanishes
    with pytest.raises(AssertionError, match="cards lost"):
        check(broken)


def test_check_catches_two_builds_of_one_value():
    st = new_game("casino", 2, seed=0)
    broken = st._copy()
    a, b, c, d = st.stock_ids[:4]  # four cards moved from the stock into two builds of 5
    broken.stock_ids = st.stock_ids[4:]
    broken.builds = (Build(5, 1 << a | 1 << b, 0, False), Build(5, 1 << c | 1 << d, 1, False))
    with pytest.raises(AssertionError, match="share a value"):
        check(broken)


def test_retime_rewrites_the_recorded_slowest_state(tmp_path):
    """--retime re-times the stored slowest state of each preset without replaying hands."""
    import json

    from experiments import soak as soak_mod

    row = soak("royal", 2, hands=2, seed=3, keep=2)
    row["slowest_generate_ms"] = 999.0  # as if the machine had paused
    soak_mod.write([row], "t", tmp_path)
    assert soak_mod.main(["--retime", "--name", "t", "--out", str(tmp_path)]) == 0
    again = json.loads((tmp_path / "t.json").read_text())[0]
    assert again["slowest_generate_ms"] < 999.0 and again["retimed"]
    assert again["slowest_state"] == row["slowest_state"] and again["moves"] == row["moves"]
    assert "retimed" in (tmp_path / "t.csv").read_text().splitlines()[0]


def test_retime_without_a_recorded_run_names_the_file(tmp_path):
    with pytest.raises(SystemExit, match=r"t\.json not found: run the soak first \(or give "
                                         r"the --out it used\)"):
        soak_main(["--retime", "--name", "t", "--out", str(tmp_path)])


def test_soak_reports_its_progress_in_hands():
    """Issue 16 item 10: progress is counted in hands (every REPORT_EVERY hands and the rest
    at the end), not in presets."""
    told: list[int] = []
    row = soak("casino", 2, hands=REPORT_EVERY * 2 + 7, seed=2, keep=2, progress=told.append)
    assert told == [REPORT_EVERY, REPORT_EVERY, 7] and sum(told) == row["hands"]


def test_the_progress_bar_counts_every_presets_hands():
    """The bar's total is hands x presets and it reaches it (was: one step per preset)."""
    bar = io.StringIO()
    seen: list[int] = []
    rows = run([("casino", 2), ("royal", 2)], hands=60, seed=1, workers=1,
               on_row=lambda rows: seen.append(len(rows)), bar_out=bar)
    assert [(r["variant"], r["hands"]) for r in rows] == [("casino", 60), ("royal", 60)]
    assert seen == [1, 2]  # the results were written after each preset
    final = bar.getvalue().split("\r")[-1]
    assert "120/120" in final and "hand" in final and "2/2 presets done" in final
