"""Statistics for agent tournaments: confidence intervals, duplicate-pair summaries, ratings.

The unit of a duplicate tournament is the *deal* (one game seed played once per seat
rotation): games on the same cards are not independent, so intervals that claim to account
for the pairing are computed over per-deal scores. The Wilson interval over single games is
reported beside them for reference.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from scipy import stats as sps

from agents.tournament import MatchResult
from casino_env.engine.rules import PRESETS


def error_bars(estimates: Sequence[float], lows: Sequence[float],
               highs: Sequence[float]) -> list[list[float]]:
    """matplotlib's ``yerr`` (distances below and above each estimate) for intervals; a bound
    that sits a rounding error past its estimate (60 of 60 hands won) gives 0, not a negative
    distance matplotlib refuses."""
    return [[max(0.0, e - lo) for e, lo in zip(estimates, lows)],
            [max(0.0, hi - e) for e, hi in zip(estimates, highs)]]


def wilson_interval(successes: float, n: int, conf: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (draws may count as half successes)."""
    if n <= 0:
        return (math.nan, math.nan)
    z = sps.norm.ppf(0.5 + conf / 2)
    p = successes / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (center - half, center + half)


def t_interval(values: Sequence[float], conf: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high): Student-t interval of the mean. Constant data gives a zero-width
    interval; a single value an infinite one."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = math.fsum(values) / n
    if n == 1:
        return (mean, -math.inf, math.inf)
    var = math.fsum((x - mean) ** 2 for x in values) / (n - 1)
    half = sps.t.ppf(0.5 + conf / 2, n - 1) * math.sqrt(var / n)
    return (mean, mean - half, mean + half)


def bootstrap_ratio_interval(num: Sequence[float], den: Sequence[float], conf: float = 0.95,
                             n_boot: int = 4000, seed: int = 0) -> tuple[float, float, float]:
    """(ratio, low, high) of sum(num)/sum(den) with a percentile bootstrap over units (pairs):
    e.g. point difference per hand when deals have different numbers of hands."""
    n = len(num)
    if n == 0 or sum(den) == 0:
        return (math.nan, math.nan, math.nan)
    ratio = math.fsum(num) / math.fsum(den)
    rng = random.Random(seed)
    reps = []
    for _ in range(n_boot):
        idx = [rng.randrange(n) for _ in range(n)]
        d = math.fsum(den[i] for i in idx)
        if d:
            reps.append(math.fsum(num[i] for i in idx) / d)
    reps.sort()
    lo = reps[int(math.floor((1 - conf) / 2 * (len(reps) - 1)))]
    hi = reps[int(math.ceil((1 + conf) / 2 * (len(reps) - 1)))]
    return (ratio, min(lo, ratio), max(hi, ratio))


@dataclass
class PairSummary:
    """Agent ``a`` against agent ``b`` over a duplicate tournament."""

    variant: str
    mode: str
    a: str
    b: str
    deals: int
    games: int
    hands: int
    wins: int
    losses: int
    draws: int
    win_rate: float  # games won (draws half) / games
    win_lo: float  # 95% interval over deals (duplicate pairs as the unit), clipped to [0, 1]
    win_hi: float
    wilson_lo: float  # Wilson interval over single games (ignores the pairing)
    wilson_hi: float
    diff_per_hand: float  # mean point difference a - b per hand (krypkasino: b - a)
    diff_lo: float  # 95% interval, bootstrap over deals
    diff_hi: float
    diff_pair_mean: float  # mean over deals of each deal's per-hand difference
    diff_pair_lo: float  # its t interval
    diff_pair_hi: float
    seconds: float
    think_a: float  # thinking seconds per hand, agent a
    think_b: float
    think_ratio: float  # a's thinking seconds over b's (nan when b never thought)
    think_ratio_lo: float  # 95% interval, bootstrap over deals
    think_ratio_hi: float

    def row(self) -> dict:
        return asdict(self)


def points_sign(variant: str) -> int:
    """1, or -1 in a penalty game (krypkasino, V-kryp-score), where the points over the
    opponent are theirs minus mine."""
    return -1 if PRESETS[variant].scoring == "kryp" else 1


def summarize_pair(res: MatchResult, a: int = 0, b: int = 1, conf: float = 0.95,
                   n_boot: int = 4000) -> PairSummary:
    """Win rate and mean point difference per hand of agent ``a`` over agent ``b``, with
    intervals that use the deal (all its seat rotations) as the statistical unit. In a
    penalty game (krypkasino) the difference is ``b``'s points minus ``a``'s: positive is
    still ``a``'s advantage."""
    sign = points_sign(res.variant)
    by_deal: dict[int, list] = {}
    for g in res.records:
        by_deal.setdefault(g.deal, []).append(g)
    deal_scores, deal_diff, deal_hands, deal_means = [], [], [], []
    deal_think_a, deal_think_b = [], []
    wins = losses = draws = hands = 0
    for games in by_deal.values():
        s = 0.0
        d = 0.0
        h = 0
        ta = tb = 0.0
        for g in games:
            if g.winner == a:
                wins += 1
                s += 1.0
            elif g.winner is None:
                draws += 1
                s += 0.5
            elif g.winner == b:
                losses += 1
            d += sign * sum(p[a] - p[b] for p in g.points)
            h += g.hands
            ta += g.decision_seconds[a]
            tb += g.decision_seconds[b]
        deal_think_a.append(ta)
        deal_think_b.append(tb)
        deal_scores.append(s / len(games))
        deal_diff.append(d)
        deal_hands.append(h)
        if h:
            deal_means.append(d / h)
        hands += h
    games_n = len(res.records)
    _, lo, hi = t_interval(deal_scores, conf)
    wl, wh = wilson_interval(wins + 0.5 * draws, games_n, conf)
    ratio, dlo, dhi = bootstrap_ratio_interval(deal_diff, deal_hands, conf, n_boot)
    pm, plo, phi = t_interval(deal_means, conf)
    think_a, think_b = sum(deal_think_a), sum(deal_think_b)
    # (does a think longer than b? issue 18's time condition; the deal is the unit again)
    tr, trlo, trhi = bootstrap_ratio_interval(deal_think_a, deal_think_b, conf, n_boot)
    return PairSummary(
        res.variant, res.mode, res.labels[a], res.labels[b], len(by_deal), games_n, hands,
        wins, losses, draws, (wins + 0.5 * draws) / games_n if games_n else math.nan,
        max(0.0, lo), min(1.0, hi), wl, wh, ratio, dlo, dhi, pm, plo, phi, res.seconds,
        think_a / hands if hands else math.nan, think_b / hands if hands else math.nan,
        tr, trlo, trhi)


# -- ratings ------------------------------------------------------------------------------

def ratings(results: Sequence[MatchResult]) -> list[dict]:
    """Ratings of every agent over all games, in play order: OpenSkill (Plackett-Luce) when
    the ``openskill`` package is installed, else Elo (K=16). Sorted best first."""
    games = []
    for res in results:
        for g in res.records:
            present = sorted(set(g.seats))
            if len(present) < 2:
                continue
            games.append(([res.labels[i] for i in present],
                          [0 if g.winner == i else 1 for i in present]
                          if g.winner is not None else [0] * len(present)))
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return _elo(games)
    model = PlackettLuce()
    table: dict[str, object] = {}
    counts: dict[str, int] = {}
    for names, ranks in games:
        teams = [[table.setdefault(n, model.rating(name=n))] for n in names]
        new = model.rate(teams, ranks=ranks)
        for n, team in zip(names, new):
            table[n] = team[0]
            counts[n] = counts.get(n, 0) + 1
    out = [{"agent": n, "system": "openskill-PL", "mu": r.mu, "sigma": r.sigma,
            "ordinal": r.ordinal(), "games": counts.get(n, 0)} for n, r in table.items()]
    return sorted(out, key=lambda d: -d["ordinal"])


def _elo(games: list) -> list[dict]:
    rating: dict[str, float] = {}
    counts: dict[str, int] = {}
    for names, ranks in games:
        for i in range(len(names)):
            for j in range(i + 1, len(names)):
                a, b = names[i], names[j]
                ra, rb = rating.setdefault(a, 1500.0), rating.setdefault(b, 1500.0)
                exp = 1 / (1 + 10 ** ((rb - ra) / 400))
                score = 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
                rating[a] = ra + 16 * (score - exp)
                rating[b] = rb - 16 * (score - exp)
        for n in names:
            counts[n] = counts.get(n, 0) + 1
    out = [{"agent": n, "system": "elo", "mu": r, "sigma": math.nan, "ordinal": r,
            "games": counts.get(n, 0)} for n, r in rating.items()]
    return sorted(out, key=lambda d: -d["ordinal"])
