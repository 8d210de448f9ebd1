"""``SearchAgent``: determinized (perfect-information) Monte Carlo search over the hand.

For each decision it deals the cards it cannot see at random, consistently with its view
(``PlayerView.determinize``: build owners hold their capturing card), plays each candidate
move on every such deal, rolls the hand out to its end with a fast policy for every seat, and
picks the move with the best mean result: the hand's point difference for its side (plus a
bonus for winning or losing the game when the hand ends it). All candidates share the same
deals and rollout seeds (common random numbers), so their comparison has low variance.

A rollout may instead stop a few deals ahead (``horizon``; krypkasino's default) and count
the hand's points so far.

Budget: about ``simulations`` rollouts per decision over the candidates (the heuristic's
``max_candidates`` best moves), by successive halving: each round shares its part of the
budget among the live candidates on fresh deals, then drops the worse half, so the close
calls at the end get the most deals. A forced move costs nothing.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from casino_env.engine import Move, State
from casino_env.engine.moves import generate
from casino_env.engine.play import play
from casino_env.engine.scoring import restricted
from casino_env.engine.view import PlayerView
from casino_env.returns import running_points

from .base import Agent, check_bool, check_choice, check_int, check_number
from .endgame import last_deal_value, solve_view, solved_value
from .fastsim import POLICIES, simulate, supported
from .scripted import HeuristicAgent, greedy_choice
from .tail_value import TailValue, deferred, tail_supported
from .valuation import Weights, static_weights


def _lead(st: State, points, side: int) -> float:
    """``side``'s points minus the best other side's; in a penalty game (krypkasino) points
    count against their side."""
    sign = -1 if getattr(st.rules, "penalties", False) else 1
    return float(sign * points[side] - max(sign * p for s, p in enumerate(points) if s != side))


def hand_result(start: State, st: State, side: int, game_bonus: float) -> float:
    """Points ``side`` gained from ``start`` to ``st`` minus the best other side's gain
    (+/- ``game_bonus`` if the game ended). In a penalty game (krypkasino) points gained count
    against their side."""
    v = _lead(st, [b - a for a, b in zip(start.scores, st.scores)], side)
    if st.game_over and game_bonus:
        v += game_bonus if st.winner == side else -game_bonus
    return v


def midhand_result(st: State, side: int) -> float:
    """``hand_result`` of a rollout stopped before the hand's end: the points ``side`` has
    so far this hand minus the best other side's (``casino_env.returns.running_points``:
    items already sure, majorities by share)."""
    return _lead(st, running_points(st), side)


def rollout(st: State, w: Weights, rng: random.Random, epsilon: float = 0.0,
            deals: int | None = None, until_last: bool = False) -> State:
    """Play to the end of the current hand with the greedy policy for every seat (with
    probability ``epsilon`` a random move instead); the state after the hand's last move.
    With ``deals`` (>= 1; None or 0: to the hand's end), stop sooner: once that many new
    rounds of cards have been dealt from the stock (the state just after the deal); with
    ``until_last``, once the stock is empty (the last deal dealt, or being played)."""
    deals = deals or None
    hp = st.hand_points
    penalties = getattr(st.rules, "penalties", False)  # krypkasino: fewest penalties now
    stock = len(st.stock_ids)
    while st.hand_points is hp and not st.game_over:
        if until_last and not st.stock_ids:
            break
        if deals is not None and len(st.stock_ids) < stock:
            deals -= 1
            stock = len(st.stock_ids)
            if deals <= 0:
                break
        moves = generate(st)
        if len(moves) == 1:
            m = moves[0]
        elif epsilon and rng.random() < epsilon:
            m = moves[rng.randrange(len(moves))]
        else:
            m = greedy_choice(moves, w, penalties)
        st = play(st, m)
    return st


def determinization_value(det: State, st: State, side: int, w: Weights, seed: int,
                          bonus: float = 0.0, policy: str = "builder", fast: bool = True,
                          epsilon: float = 0.0, horizon: int | None = None,
                          tail: Callable[..., float] | None = None,
                          exact_last: bool = False) -> float:
    """One sample of a move's worth to ``side``: ``st`` is ``det`` (a determinization) after
    the move. The hand's result if the move ended the hand; with ``tail``, the value of the
    deal boundary the move passed if it ended a round; else one rollout to the hand's end
    (``fastsim.simulate`` when ``fast``, the engine's rollout with ``seed`` where it cannot).
    ``exact_last`` (two sides, no ``horizon``, ``bonus`` or ``tail``): the rollout plays the
    hand's last deal exactly (``agents.endgame``'s solver on the rollout's deal) instead of by
    its policy, or by its policy where that deal is past 200,000 positions."""
    if st.hand_points is not det.hand_points or st.game_over:
        return hand_result(det, st, side, bonus)
    if exact_last and (horizon is not None or bonus or tail is not None or
                       st.rules.sides != 2):
        raise ValueError("exact_last: the last deal is solved for two sides, in points, with "
                         "rollouts to the hand's end (no horizon, game bonus or tail)")
    if tail is not None and len(st.stock_ids) < len(det.stock_ids) and not st.builds:
        rules = st.rules
        last = st.last_capturer
        return tail(st.loose_mask, st.pile_masks, st.sweeps,
                    None if last is None else rules.side(last),
                    rules.side((st.dealer + 1) % rules.players))

    def engine(s: State) -> float:
        if exact_last:
            s = rollout(s, w, random.Random(seed), epsilon, until_last=True)
            if s.hand_points is det.hand_points and not s.game_over:
                v = solved_value(s, side)
                if v is not None:
                    return v
        end = rollout(s, w, random.Random(seed), epsilon, horizon)
        if horizon is not None and end.hand_points is det.hand_points and \
                not end.game_over:  # stopped after ``horizon`` deals
            return midhand_result(end, side)
        return hand_result(det, end, side, bonus)

    if not fast or (exact_last and not st.stock_ids):  # the engine solves a last deal begun
        return engine(st)
    if not exact_last:
        return simulate(st, side, bonus, engine, policy, tail)

    def last_deal(loose, piles, sweeps, last, events, stock):  # noqa: ANN001, ANN202
        return last_deal_value(st, side, loose, piles, sweeps, last, events, stock)

    return simulate(st, side, bonus, engine, policy, tail, last_deal=last_deal)


# The prior's weight (``prior``) when not given: 0.5, and per preset where a match on fresh
# deals showed a larger weight plays better (docs/baselines.md, "Search in swazi and
# krypkasino").
PRIOR_DEFAULT = 0.5
PRIOR_DEFAULTS: dict[str, float] = {"swazi": 1.5}
# The rollout horizon (``horizon``) when not given: to the hand's end, but in krypkasino two
# deals (its 104-card hand is long; docs/baselines.md, "Search in swazi and krypkasino").
HORIZON_DEFAULTS: dict[str, int] = {"krypkasino": 2}


class Guide:
    """A model's move logits as a prior in points: ``temperature * (logit - best logit)``."""

    UNSEEN = -1e9  # the prior of a move beyond the K moves the network sees

    def __init__(self, agent, temperature: float) -> None:
        self.agent = agent
        self.temperature = temperature

    def prior(self, view: PlayerView, moves: list[Move]) -> list[float]:
        z = self.agent.move_logits(view, moves)
        z = self.temperature * (z - z.max())
        return [float(x) if x > -1e30 else self.UNSEEN for x in z]


def _load_guide(path: object, temperature: float | None) -> Guide:
    """The ``guide`` option: an enumerate-mode model file (ValueError naming the problem)."""
    import json

    from .ppo import PPOAgent, env_config_path

    if not isinstance(path, str) or not path:
        raise ValueError(f"guide must be the path of an enumerate-mode model, got {path!r}")
    agent = PPOAgent.load(path)
    if agent.compose:
        raise ValueError(f"guide {path}: the model composes moves (action_mode compose); "
                         "search needs one logit per legal move (an enumerate-mode model)")
    if temperature is None:
        side = env_config_path(agent.path or path)
        temperature = json.loads(side.read_text()).get("score_temperature") or 1.0
    return Guide(agent, check_number("guide_temperature", temperature, 0.0))


def _load_tail(path: object, agent: SearchAgent) -> TailValue:
    """The ``tail`` option: a boundary value network, with the options it excludes refused
    (ValueError naming them)."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"tail must be the path of a boundary value network, got {path!r}")
    for name in ("game_bonus", "hand_bonus", "horizon"):
        if getattr(agent, name):
            raise ValueError(f"tail: a boundary value is the hand's point difference alone, "
                             f"so it cannot be combined with {name}")
    if not agent.fast or agent.epsilon:
        raise ValueError("tail: cuts the fast rollouts short, so it needs fast=True and "
                         "epsilon=0")
    tv = TailValue(path)
    if not tail_supported(tv.rules):
        raise ValueError(f"tail {path}: boundary values need two sides of one seat each "
                         f"({tv.meta['variant']} is not such a preset)")
    return tv


class SearchAgent(Agent):
    """Information-set Monte Carlo search (determinization + fast rollouts to hand end).

    ``simulations``: rollouts per decision; ``max_candidates``: moves searched (the heuristic's
    best ones); ``policy``: rollout policy, ``"builder"`` (greedy captures, and secure builds
    instead of trails; the default: +1 point a hand over ``"cards"`` in Royal), ``"cards"``
    (the greedy agent), ``"points"``, ``"events"`` (captures weighed by the points they score,
    tuxedo's oranges and sweeps included) or ``"guard"`` (``"events"`` less the best reply
    of the other hand, two players; ``agents.fastsim.POLICIES``); ``prior``: weight of the
    heuristic's score added to the rollout mean (search refines the heuristic rather than
    replacing it; default 0.5, and 1.5 in swazi, ``PRIOR_DEFAULTS``); ``margin``:
    skip candidates the heuristic rates this far below its best (None: keep all);
    ``epsilon``: random moves in rollouts (engine rollouts only); ``game_bonus``: points for
    winning the game when a rollout's hand ends it (default 0: on 80 Royal games from the same
    40 deals a bonus of 5 won 39, none 46 -- rollouts too noisy to judge the game's end well);
    ``horizon``: stop each rollout once that many new rounds have been dealt from the stock
    and score it by the hand's points so far (``midhand_result``; engine rollouts), instead
    of playing to the hand's end (0): less of the hand's later luck in each rollout's
    result, for long hands (default: 2 in krypkasino, whose hands have 104 cards, else 0,
    ``HORIZON_DEFAULTS``); ``hand_bonus``: points added
    to a rollout's result when it wins the hand for the searching
    side and taken off when it loses it (default 0: the point difference alone; above 0 values
    winning the hand itself, what a hand-by-hand match counts); ``fast``: play rollouts in
    ``agents.fastsim`` where the variant allows (the engine otherwise). ``guide``: the path
    of an enumerate-mode model (``PPOAgent``) whose move logits, times ``guide_temperature``
    points (default: the model's ``score_temperature`` in its side-car, else 1), replace the
    heuristic's scores as the prior and the choice of candidates (expert iteration,
    ``experiments.exit``). ``endgame``: where the view determines the whole state (two
    sides, an empty stock, at most one other hand unseen: the last deal of a two-player
    hand), play the exact minimax move (``agents.endgame``) if it takes at most this many
    positions, else search as usual (default 0: never). ``tail``: the path of a boundary
    value network (``agents.tail_value``, fitted on this preset): each rollout stops at the
    first deal boundary and takes its value there, so a rollout costs a round instead of the
    rest of the hand and the later rounds' luck is averaged out (fast rollouts of two-sided
    presets only; not with ``game_bonus``, ``hand_bonus`` or ``horizon``; full rollouts
    where V-dom-end restricts a side's scoring). Each option is checked here (ValueError
    naming it): ints >= 1 (``horizon`` >= 0), numbers >= 0, ``epsilon`` in [0, 1]."""

    name = "search"

    def __init__(self, seed: int | None = None, simulations: int = 400,
                 max_candidates: int = 8, epsilon: float = 0.0,
                 game_bonus: float = 0.0, fast: bool = True, policy: str = "builder",
                 prior: float | None = None, margin: float | None = None,
                 hand_bonus: float = 0.0, guide: str | None = None,
                 guide_temperature: float | None = None, horizon: int | None = None,
                 endgame: int = 0, tail: str | None = None) -> None:
        super().__init__(seed)
        # Checked here, not at the first decision: a bad option is refused where it is given.
        self.hand_bonus = check_number("hand_bonus", hand_bonus, 0.0)
        # None: the preset's default (PRIOR_DEFAULTS), known only when the game is.
        self.prior = None if prior is None else check_number("prior", prior, 0.0)
        self.margin = None if margin is None else check_number("margin", margin, 0.0)
        self.policy = check_choice("policy", policy, POLICIES)
        self.fast = check_bool("fast", fast)
        self.simulations = check_int("simulations", simulations, 1)
        self.max_candidates = check_int("max_candidates", max_candidates, 1)
        self.epsilon = check_number("epsilon", epsilon, 0.0, 1.0)
        # None: the preset's default (HORIZON_DEFAULTS); 0: to the hand's end.
        self.horizon = None if horizon is None else check_int("horizon", horizon, 0)
        self.game_bonus = check_number("game_bonus", game_bonus, 0.0)
        self.endgame = check_int("endgame", endgame, 0)
        self.heuristic = HeuristicAgent(seed)
        if guide_temperature is not None:
            guide_temperature = check_number("guide_temperature", guide_temperature, 0.0)
            if guide is None:
                raise ValueError("guide_temperature: scales a guide's logits, so it needs "
                                 "guide (the path of an enumerate-mode model)")
        self.guide = None if guide is None else _load_guide(guide, guide_temperature)
        self.tail = None if tail is None else _load_tail(tail, self)
        # The last decision's searched moves with their final scores (rollout mean plus the
        # prior term; a forced move or a lone candidate scores 0): what behaviour cloning
        # can distil as soft targets (``experiments.bc``).
        self.last_scores: list[tuple[Move, float]] = []

    def choose(self, view: PlayerView) -> Move:
        moves = view.legal_moves()
        if len(moves) == 1:
            self.last_scores = [(moves[0], 0.0)]
            return moves[0]
        if self.endgame:
            solved = solve_view(view, self.endgame)
            if solved is not None:
                self.last_scores = [solved]
                return solved[0]
        prior = self.heuristic.scores(view, moves) if self.guide is None else \
            self.guide.prior(view, moves)
        order = sorted(range(len(moves)), key=lambda i: -prior[i])
        if self.guide is not None:  # moves beyond the network's K are never candidates
            order = [i for i in order if prior[i] > Guide.UNSEEN]
        order = order[: self.max_candidates]
        # Moves the heuristic rates far below its best would need a rollout edge of
        # prior * margin points to be chosen: not worth their share of the budget.
        if self.margin is not None:
            order = [i for i in order if prior[i] >= prior[order[0]] - self.margin]
        cands = [moves[i] for i in order]
        pri = [prior[i] for i in order]
        weight = self.prior if self.prior is not None else \
            PRIOR_DEFAULTS.get(view.rules.variant, PRIOR_DEFAULT)
        if len(cands) == 1:
            self.last_scores = [(cands[0], 0.0)]
            return cands[0]
        rules = view.rules
        side = rules.side(view.seat)
        w = static_weights(rules)
        horizon = self.horizon if self.horizon is not None else \
            HORIZON_DEFAULTS.get(rules.variant, 0)
        horizon = horizon or None  # 0: to the hand's end
        fast = self.fast and supported(rules) and not self.epsilon and horizon is None
        tail = None
        # V-dom-end: a side near the target scores only its criteria, so the hand's points
        # then depend on the scores, which a boundary value does not see: full rollouts.
        if self.tail is not None and not restricted(rules, view.state.scores):
            self.tail.check(rules)
            if not fast:
                raise ValueError(f"tail: needs the fast rollouts, which {rules.variant} with "
                                 "these options cannot use")
            pending: list[tuple] = []  # boundaries reached, valued in one batch per round
            tail = deferred(pending)
        bonus = self.game_bonus
        hand_bonus = self.hand_bonus
        dets: list[tuple[State, int]] = []
        totals = [0.0] * len(cands)
        done = [0] * len(cands)  # determinizations each candidate has been played on

        def value(j: int, det: State, seed: int) -> float:
            v = determinization_value(det, play(det, cands[j]), side, w, seed, bonus,
                                      self.policy, fast, self.epsilon, horizon, tail)
            return v + hand_bonus * ((v > 0) - (v < 0)) if hand_bonus else v

        # Successive halving: every round spends an equal share of the budget on the live
        # candidates (new deals, shared by all of them), then keeps the better half.
        alive = list(range(len(cands)))
        dropped: list[list[int]] = []  # the moves each halving dropped, in its order
        rounds = max(1, math.ceil(math.log2(len(cands))))
        for rnd in range(rounds):
            share = self.simulations // rounds if rnd < rounds - 1 else \
                self.simulations - (self.simulations // rounds) * (rounds - 1)
            for _ in range(max(1, share // len(alive))):
                dets.append((view.determinize(self.rng), self.rng.getrandbits(32)))
            for j in alive:
                for det, seed in dets[done[j]:]:
                    totals[j] += value(j, det, seed)
                done[j] = len(dets)
                if tail is not None and pending:
                    totals[j] += float(self.tail.batch(pending, side).sum())
                    pending.clear()
            alive.sort(key=lambda j: (-(totals[j] / done[j] + weight * pri[j]), j))
            if rnd < rounds - 1:
                keep = max(2, (len(alive) + 1) // 2)
                dropped.append(alive[keep:])
                alive = alive[:keep]
        # The search's ranking: the last round's order, then each earlier round's dropped
        # moves. A move dropped early has a mean over fewer deals that may exceed a survivor's
        # final mean; its reported score is capped at the score of every move ranked above it,
        # so that the chosen move scores highest (what distillation fits, experiments.bc).
        scores = [0.0] * len(cands)
        cap = math.inf
        for j in alive + [j for out in reversed(dropped) for j in out]:
            cap = scores[j] = min(cap, totals[j] / done[j] + weight * pri[j])
        self.last_scores = [(c, scores[j]) for j, c in enumerate(cands)]
        return cands[alive[0]]
