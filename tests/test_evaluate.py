"""Evaluation statistics on cases with known answers, and the evaluation outputs."""

from __future__ import annotations

import csv
import math

import pytest

from agents.tournament import GameRecord, MatchResult
from experiments.evaluate import evaluate, main, markdown
from experiments.stats import (
    bootstrap_ratio_interval,
    ratings,
    summarize_pair,
    t_interval,
    wilson_interval,
)


def test_wilson_known_values() -> None:
    # 60 successes in 100 trials: the textbook 95% Wilson interval is [0.5020, 0.6906].
    lo, hi = wilson_interval(60, 100)
    assert lo == pytest.approx(0.50200, abs=1e-4)
    assert hi == pytest.approx(0.69061, abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == pytest.approx(0.0, abs=1e-12) and hi == pytest.approx(0.27753, abs=1e-4)
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


def test_t_interval_known_values() -> None:
    mean, lo, hi = t_interval([1, 2, 3, 4, 5])
    # mean 3, s = sqrt(2.5), t(0.975, 4) = 2.776445
    half = 2.776445 * math.sqrt(2.5 / 5)
    assert mean == 3 and lo == pytest.approx(3 - half, abs=1e-5)
    assert hi == pytest.approx(3 + half, abs=1e-5)
    assert t_interval([2.5] * 7) == (2.5, 2.5, 2.5)  # constant data: zero width


def test_bootstrap_ratio_constant_and_reproducible() -> None:
    num, den = [6.0, 9.0, 3.0], [2, 3, 1]  # 3 points per hand in every unit
    assert bootstrap_ratio_interval(num, den) == (3.0, 3.0, 3.0)
    a = bootstrap_ratio_interval([1, -2, 5, 0], [1, 2, 3, 1], seed=4)
    assert a == bootstrap_ratio_interval([1, -2, 5, 0], [1, 2, 3, 1], seed=4)
    assert a[1] <= a[0] <= a[2]


def _record(deal: int, rotation: int, winner: int | None, hands: list) -> GameRecord:
    seats = (0, 1) if rotation == 0 else (1, 0)
    return GameRecord(deal, rotation, deal, seats, winner, len(hands), hands,
                      (sum(h[0] for h in hands), sum(h[1] for h in hands)), 10, 0.01,
                      (0.005, 0.005))


def _match(records: list) -> MatchResult:
    return MatchResult(["a", "b"], "casino", 2, "game", 0, {}, records, 1.0)


def test_duplicate_pairs_are_the_unit() -> None:
    """Each deal won once by each side: 50% with a zero-width pair interval (the deal is
    perfectly balanced), while the Wilson interval over single games stays wide."""
    recs = []
    for d in range(20):
        recs.append(_record(d, 0, 0, [(7, 4), (6, 5)]))
        recs.append(_record(d, 1, 1, [(4, 7), (5, 6)]))
    s = summarize_pair(_match(recs))
    assert (s.games, s.deals, s.wins, s.losses, s.draws) == (40, 20, 20, 20, 0)
    assert s.win_rate == 0.5 and s.win_lo == 0.5 and s.win_hi == 0.5
    assert s.wilson_lo < 0.4 and s.wilson_hi > 0.6
    assert s.diff_per_hand == 0 and s.diff_lo == 0 and s.diff_hi == 0


def test_constant_point_difference() -> None:
    """A constant difference per hand gives that mean and a zero-width interval, whatever the
    number of hands per game; a sweep of wins gives a win rate of 1."""
    recs = []
    for d in range(10):
        recs.append(_record(d, 0, 0, [(7, 5)] * (1 + d % 3)))
        recs.append(_record(d, 1, 0, [(6, 4)] * 2))
    s = summarize_pair(_match(recs))
    assert s.diff_per_hand == 2 and (s.diff_lo, s.diff_hi) == (2, 2)
    assert (s.diff_pair_mean, s.diff_pair_lo, s.diff_pair_hi) == (2, 2, 2)
    assert s.win_rate == 1 and s.win_lo == 1 and s.win_hi == 1
    assert s.hands == sum(1 + d % 3 for d in range(10)) + 20


def test_draws_count_half() -> None:
    recs = [_record(0, 0, None, [(5, 5)]), _record(0, 1, 0, [(6, 5)])]
    s = summarize_pair(_match(recs))
    assert s.draws == 1 and s.win_rate == 0.75


def test_ratings_order() -> None:
    recs = [_record(d, r, 0 if d % 10 else 1, [(6, 5)]) for d in range(30) for r in (0, 1)]
    rows = ratings([_match(recs)])
    assert [r["agent"] for r in rows] == ["a", "b"]
    assert rows[0]["ordinal"] > rows[1]["ordinal"]


def test_evaluate_writes_outputs(tmp_path) -> None:
    out = tmp_path / "eval"
    summaries = evaluate([["greedy", "random"]], ["casino"], games=6, out=out, seed=1,
                         mode="hand", progress=False)
    assert len(summaries) == 1 and summaries[0].games == 6 and summaries[0].deals == 3
    for name in ("games.csv", "summary.csv", "summary.md", "summary.png", "meta.json"):
        assert (out / name).stat().st_size > 0
    with (out / "games.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 6 and {r["matchup"] for r in rows} == {"greedy v random"}
    md = (out / "summary.md").read_text()
    assert "greedy v random" in md and "Ratings" in md
    assert (out / "summary.png").read_bytes()[:4] == b"\x89PNG"


def test_cli(tmp_path, capsys) -> None:
    out = tmp_path / "cli"
    assert main(["--variant", "royal", "--agents", "greedy", "random", "--games", "4",
                 "--mode", "hand", "--seed", "2", "--out", str(out), "--quiet"]) == 0
    assert "greedy v random" in capsys.readouterr().out
    assert (out / "summary.csv").exists()


def test_markdown_without_ratings() -> None:
    s = summarize_pair(_match([_record(0, 0, 0, [(6, 5)]), _record(0, 1, 0, [(6, 5)])]))
    text = markdown([s], [], {"seed": 0, "mode": "game", "seconds": 1.0, "machine": "x"})
    assert "| casino | a v b | 2 | 2 |" in text
    # equal thinking on both sides: time A/B 1 with a zero-width interval
    assert "| 0.005 | 0.005 | 1.000 [1.000, 1.000] |\n" in text


def test_error_bars_are_distances_and_never_negative():
    """yerr for matplotlib: estimate minus low, high minus estimate; a bound a rounding error
    past its estimate gives 0."""
    from experiments.stats import error_bars

    assert error_bars([0.5, 1.0], [0.4, 0.94], [0.7, 1.0 - 1e-12]) == \
        [[pytest.approx(0.1), pytest.approx(0.06)], [pytest.approx(0.2), 0.0]]


def test_tournament_defaults() -> None:
    """Without --protocol the tournament options keep their defaults (the protocol's options
    leave them unset only to tell a given option from a default)."""
    from pathlib import Path

    from experiments.evaluate import out_dir, parse_args

    a = parse_args(["--agents", "heuristic", "greedy"])
    assert (a.variants, a.games, a.seed, a.players, a.mode, a.max_hands) == \
        (["casino"], 200, 0, 2, "game", 60)
    assert out_dir(a) == Path("runs/evaluate/casino_heuristic_greedy")
    assert out_dir(parse_args(["--ladder"])) == Path("runs/evaluate/ladder")
    a = parse_args(["--variant", "royal", "--agents", "a", "b", "--games", "4", "--mode", "hand",
                    "--seed", "2", "--players", "4", "--max-hands", "9"])
    assert (a.variants, a.games, a.seed, a.players, a.mode, a.max_hands) == \
        (["royal"], 4, 2, 4, "hand", 9)


def test_protocol_options_need_protocol(capsys) -> None:
    from experiments.evaluate import parse_args

    for argv, flag in ((["--agents", "a", "b", "--opponents", "greedy"], "--opponents"),
                       (["--ladder", "--workers", "2"], "--workers")):
        with pytest.raises(SystemExit):
            parse_args(argv)
        assert f"{flag} goes with --protocol" in capsys.readouterr().err


def test_agents_that_cannot_share_the_seats_are_a_usage_error(capsys) -> None:
    """Three agents for two seats: a one-line usage error before any game, no traceback."""
    with pytest.raises(SystemExit) as exc:
        main(["--variant", "casino", "--agents", "heuristic", "greedy", "random", "--games", "2"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "3 agents cannot share 2 seats evenly" in err and "Traceback" not in err


def test_think_ratio_over_deals() -> None:
    """Issue 18's time condition in every pair summary: a's thinking seconds over b's, the
    sums' ratio with a bootstrap interval over deals (constant per-deal ratio: zero width)."""
    from dataclasses import replace

    recs = []
    for d in range(10):
        for rot in (0, 1):
            recs.append(replace(_record(d, rot, rot, [(6, 5)]),
                                decision_seconds=(0.2 * (1 + d), 0.1 * (1 + d))))
    s = summarize_pair(_match(recs))
    assert (s.think_ratio, s.think_ratio_lo, s.think_ratio_hi) == pytest.approx((2, 2, 2))
    # b thinks 1 s more on deal 0 only: the ratio of the sums, an interval around it
    recs[0] = replace(recs[0], decision_seconds=(0.2, 1.1))
    s = summarize_pair(_match(recs))
    total_a = sum(r.decision_seconds[0] for r in recs)
    total_b = sum(r.decision_seconds[1] for r in recs)
    assert s.think_ratio == pytest.approx(total_a / total_b)
    assert s.think_ratio_lo < s.think_ratio < s.think_ratio_hi <= 2
    assert s.think_a == pytest.approx(total_a / s.hands)


@pytest.mark.parametrize("argv,message", [
    (["--agents", "heuristic", "nosuch"], "unknown agent 'nosuch'"),
    (["--variant", "nosuch", "--agents", "heuristic", "greedy"], "unknown variant 'nosuch'"),
    (["--variant", "hungarian", "--players", "4", "--agents", "heuristic", "greedy"],
     "players=4 is not allowed for 'hungarian'"),
    (["--switch", "nosuch=1", "--agents", "heuristic", "greedy"], "unknown rule switch 'nosuch'"),
    (["--agents", "heuristic", "search:bogus=1"], "unknown option 'bogus' for agent 'search'"),
    (["--variant", "casino", "--agents", "networks:royal", "heuristic"],
     "these networks were fitted on royal"),
])
def test_a_tournament_it_cannot_play_is_named_before_any_game(tmp_path, capsys, argv, message):
    """An unknown agent, variant, switch or option, a player count the rules refuse, or an
    agent that refuses the game: one line naming it, status 2, no traceback, nothing
    written (it was a traceback with status 1)."""
    out = tmp_path / "run"
    assert main(argv + ["--games", "2", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m experiments.evaluate: error: ") and message in err
    assert "Traceback" not in err and not out.exists()


@pytest.mark.parametrize("argv,message", [
    (["--games", "0"], "--games must be at least 1, got 0"),
    (["--games", "-3"], "--games must be at least 1, got -3"),
    (["--max-hands", "0"], "--max-hands must be at least 1, got 0"),
    (["--games-for", "heuristic v greedy=x"], "--games-for 'heuristic v greedy=x': expected"),
])
def test_counts_below_one_are_usage_errors(capsys, argv, message) -> None:
    """--games 0 (or below) played 2 games while meta.json said 0; it and a bad --max-hands or
    --games-for are usage errors now."""
    with pytest.raises(SystemExit) as exc:
        main(["--agents", "heuristic", "greedy", *argv])
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_partners_holding_different_agents_are_refused(tmp_path, capsys) -> None:
    """A side's points and wins are credited to its agent: four agents at dominican's four
    seats (two partnerships) put two agents on each side, and the partner's wins went to the
    other (heuristic's side won 15 of 16 games, reported 8). Refused with status 2 before any
    game; two agents (one a side) still play."""
    argv = ["--variant", "dominican", "--players", "4", "--games", "2", "--quiet"]
    assert main([*argv, "--agents", "heuristic", "greedy", "random", "random",
                 "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    assert "seats 0 and 2 are partners in dominican with 4 players" in err
    assert "give one agent per side (2 agents" in err
    assert not (tmp_path / "a" / "games.csv").exists()
    assert main([*argv, "--agents", "heuristic", "greedy", "--out", str(tmp_path / "b")]) == 0
