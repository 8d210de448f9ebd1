"""Every preset as an OpenSpiel game: ``import casino_env.openspiel`` registers ``python_casino``.

    game = pyspiel.load_game("python_casino", {"variant": "royal", "players": 2})

A thin adapter on the engine (no second rules implementation):

- Dealing is explicit chance: at the start of every hand, chance picks the stock order one card
  at a time, uniformly over the cards left (so ``chance_outcomes()`` sums to 1 and the game's
  chance is exact); the engine then deals from that stock as it would from its own shuffle.
  With two decks (krypkasino) chance picks a card *kind*, with odds by the copies left of it.
- Player actions are the compose-mode action ids of the PettingZoo env (a move is one or more
  sub-actions by the same player; ``legal_actions()`` is the compose mask).
- Returns arrive at the end and are zero-sum: ``reward="points"`` (side points minus the mean
  of the others') or ``"win"``, over one hand or a whole game (``episode``), as in the env.
- Observation tensors are the PettingZoo observation (same encoding, including the move being
  composed for the player composing it); strings describe the same information. The
  information-state string adds the public history of moves (perfect recall); the
  information-state tensor is the observation tensor.

Parameters: ``variant`` (str), ``players`` (int), ``partnerships`` and every rule switch of
the engine: boolean switches as strings ``"default"`` (the preset's), ``"on"`` or ``"off"``
(not "true"/"false", which OpenSpiel's game strings turn into booleans); ``target`` as an int
(0: the preset's); ``episode`` (``"hand"``/``"game"``), ``reward`` (``"points"``/``"win"``),
``max_hands`` (a game still going after that many hands ends with the scores so far).
The points table of V-points (a dict) is not a parameter: OpenSpiel's game strings have no
dict values, so ``python_casino`` plays each preset's own scoring.
See docs/openspiel.md.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pyspiel

from .encoding import N_COMPOSE_ACTIONS, Composer, Layout, describe_compose_action
from .engine import State, parse_move
from .engine.play import play
from .engine.rules import PRESETS, SWITCH_TYPES, make_rules
from .engine.view import PlayerView
from .returns import side_returns

GAME_NAME = "python_casino"
EPISODES = ("hand", "game")
REWARDS = ("points", "win")
DEFAULT = "default"

PARAMS: dict[str, object] = {"variant": "casino", "players": 2, "partnerships": DEFAULT,
                             "episode": "hand", "reward": "points", "max_hands": 50}
for _name, _type in SWITCH_TYPES.items():
    if _type is not dict:  # (V-points' table is not an OpenSpiel parameter: see above)
        PARAMS[_name] = 0 if _type is int else DEFAULT

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Casino family (casino-env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=max(max(p.players) for p in PRESETS.values()),
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMS,
)


def _flag(name: str, value: object) -> bool | None:
    """A tri-state string parameter: None for the preset's default."""
    text = str(value).strip().lower()
    if text == DEFAULT:
        return None
    if text == "on":
        return True
    if text == "off":
        return False
    # ("true"/"false" would not survive OpenSpiel's game strings: it reads them as booleans)
    raise ValueError(f"{GAME_NAME} parameter {name}: must be 'default', 'on' or 'off', "
                     f"got {value!r}")


def rules_from_params(params: dict) -> tuple:
    """(Rules, episode, reward, max_hands) from OpenSpiel parameters (a ValueError names the
    parameter at fault)."""
    p = {**PARAMS, **params}
    unknown = sorted(set(params) - set(PARAMS))
    if unknown:
        raise ValueError(f"{GAME_NAME}: unknown parameter(s) {', '.join(unknown)} "
                         f"(known: {', '.join(PARAMS)})")
    switches: dict[str, object] = {}
    for name, typ in SWITCH_TYPES.items():
        if name not in PARAMS:
            continue
        if typ is int:
            if p[name]:
                switches[name] = int(p[name])
        else:
            flag = _flag(name, p[name])
            if flag is not None:
                switches[name] = flag
    for name, allowed in (("episode", EPISODES), ("reward", REWARDS)):
        if p[name] not in allowed:
            raise ValueError(f"{GAME_NAME} parameter {name}: must be one of "
                             f"{', '.join(allowed)}, got {p[name]!r}")
    if int(p["max_hands"]) < 1:
        raise ValueError(f"{GAME_NAME} parameter max_hands: must be >= 1, got {p['max_hands']}")
    rules = make_rules(p["variant"], int(p["players"]), _flag("partnerships", p["partnerships"]),
                       switches)
    return rules, p["episode"], p["reward"], int(p["max_hands"])


def _utility_bound(rules, episode: str, reward: str, max_hands: int) -> float:
    """A bound on any player's return (points: every card and sweep of a hand, 10 a piece)."""
    if reward == "win":
        return 2.0
    per_hand = 10.0 * rules.deck.size + 100.0
    return per_hand * (1 if episode == "hand" else max_hands)


class CasinoGame(pyspiel.Game):
    """One preset with its players, partnerships and switches."""

    def __init__(self, params: dict | None = None) -> None:
        params = dict(params or {})
        rules, episode, reward, max_hands = rules_from_params(params)
        self.rules, self.episode, self.reward, self.max_hands = rules, episode, reward, max_hands
        self.layout = Layout(rules, True, "full")
        deck = rules.deck.size
        bound = _utility_bound(rules, episode, reward, max_hands)
        hands = 1 if episode == "hand" else max_hands
        info = pyspiel.GameInfo(
            num_distinct_actions=N_COMPOSE_ACTIONS,
            max_chance_outcomes=deck,
            num_players=rules.players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            # per hand: the stock order, then at most one move per card of up to 3 + deck
            # sub-actions (card, kind, every item taken, value, finish), plus calls
            max_game_length=hands * (deck + deck * (deck + 4) + deck),
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> CasinoState:
        return CasinoState(self)

    def state_from_engine(self, st: State) -> CasinoState:
        """A state at the engine state ``st`` (a deal already made; its history in OpenSpiel
        is empty): where bots start searching from a position of the engine's."""
        if st.rules != self.rules:
            raise ValueError(f"the state's rules {st.rules} differ from this game's")
        if st.game_over:
            raise ValueError("the game in this state is over")
        out = CasinoState(self)
        out._st = st
        out._hands_started = 1
        out._comp = Composer.for_state(st)
        return out

    def state_from_json(self, text: str) -> CasinoState:
        """The state ``CasinoState.to_json`` wrote (through the engine's spec). OpenSpiel's own
        ``serialize``/``deserialize_state`` replay the action history instead; this form is
        readable and independent of the history (its OpenSpiel history is empty)."""
        try:
            data = json.loads(text)
            out = CasinoState(self)
            out._st = None if data["spec"] is None else State.from_spec(data["spec"])
            out._template = (None if data["template"] is None
                             else State.from_spec(data["template"]))
            out._order = [int(c) for c in data["order"]]
            out._moves_log = [str(m) for m in data["moves"]]
            out._over = bool(data["over"])
            out._hands_started = int(data["hands"])
            prefix = [int(a) for a in data["prefix"]]
            end = data.get("end")
            if end is not None:
                before = State.from_spec(end["before"])
                out._hand_ended(before, parse_move(end["move"], before))
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"state_from_json: not a state written by to_json: {e}") from e
        for state in (out._st, out._template):
            if state is not None and state.rules != self.rules:
                raise ValueError("state_from_json: the state's rules differ from this game's")
        if out._st is not None and out._template is None and not out._over:
            out._comp = Composer.for_state(out._st)
            for a in prefix:
                out._comp.push(a)
        return out

    def make_py_observer(self, iig_obs_type=None, params=None) -> CasinoObserver:
        if params:
            raise ValueError(f"{GAME_NAME} observers take no parameters, got {params}")
        perfect_recall = bool(iig_obs_type and iig_obs_type.perfect_recall)
        return CasinoObserver(self, perfect_recall)


class CasinoState(pyspiel.State):
    """An engine State, the stock order chance has picked so far (while dealing), and the
    move being composed."""

    def __init__(self, game: CasinoGame) -> None:
        super().__init__(game)
        # (copied, not read from the game: OpenSpiel clones states by pickling them)
        self._rules = game.rules
        self._episode, self._reward, self._max_hands = game.episode, game.reward, game.max_hands
        # The hand to deal: the engine state whose hand is about to start (its dealer, scores
        # and hand number), and the stock order picked by chance so far.
        self._template: State | None = None
        self._order: list[int] = []
        self._st: State | None = None
        self._comp: Composer | None = None
        self._moves_log: list[str] = []  # public: "seat: move" for every move made
        self._last_move = None  # the engine Move the last sub-action completed
        self._over = False
        self._hands_started = 0
        # After a hand that ends without ending the game: the hand's final position (scored,
        # before the next deal) and the (state, move) it came from (serialized, replayed).
        self._end: State | None = None
        self._end_from: tuple[State, object] | None = None

    # -- the engine state -----------------------------------------------------------------
    @property
    def engine_state(self) -> State | None:
        """The engine's State (None while the first hand is being dealt). Between hands and
        after an episode's last hand, the finished hand's final position (scored, the piles
        as captured, no card dealt): the engine's own next deal is never shown, since chance
        deals the next hand."""
        return self._end if self._end is not None else self._st

    def _hand_ended(self, before: State, move) -> None:
        self._end_from = (before, move)
        self._end = play(before, move, deal_next=False)

    def _deal(self) -> None:
        """Chance has picked the whole stock order: let the engine deal the hand from it."""
        r = self._rules
        names = r.deck.names
        if self._template is None:  # the first hand: seat 0 leads (dealer is the last seat)
            spec = {"variant": r.variant, "rules": r.switches(), "players": r.players,
                    "partnerships": r.partnerships, "dealer": r.players - 1, "current": 0}
        else:
            spec = self._template.to_spec()
            for key in ("events", "pending_orange", "extra_turn", "met", "proven", "winner"):
                spec.pop(key, None)
        spec.update({"hands": [[] for _ in range(r.players)], "table": [],
                     "stock": [names[c] for c in self._order],
                     "piles": [[] for _ in range(r.sides)], "sweeps": [0] * r.sides,
                     "last_capturer": None, "seed": 0})  # (the engine's own next deal is not used)
        self._st = State.from_spec(spec)
        self._order = []
        self._template = None
        self._end = self._end_from = None
        self._hands_started += 1
        self._comp = Composer.for_state(self._st)

    # -- OpenSpiel API --------------------------------------------------------------------
    def current_player(self) -> int:
        if self._over:
            return pyspiel.PlayerId.TERMINAL
        if self._st is None or self._template is not None:
            return pyspiel.PlayerId.CHANCE
        return self._st.current

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self._comp.options())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.is_chance_node():
            raise ValueError("chance_outcomes: not a chance node (the game is over)"
                             if self._over else "chance_outcomes: not a chance node (player "
                             f"{self.current_player()} is to move)")
        taken = set(self._order)
        deck = self._rules.deck
        left = [c for c in range(deck.size) if c not in taken]
        p = 1.0 / len(left)
        if deck.copies == 1:
            return [(c, p) for c in left]
        counts: dict[int, int] = {}  # two decks: outcomes are kinds, by the copies left
        for c in left:
            counts[deck.kind[c]] = counts.get(deck.kind[c], 0) + 1
        return [(k, n * p) for k, n in counts.items()]

    def _apply_action(self, action: int) -> None:
        if self._over:
            raise ValueError(f"action {action}: the game is over (is_terminal() is true)")
        if self.is_chance_node():
            deck = self._rules.deck
            if deck.copies > 1:  # two decks: the outcome is a kind; its lowest copy left
                if not 0 <= action < deck.kinds:
                    raise ValueError(f"chance outcome {action} is not a card kind "
                                     f"(0..{deck.kinds - 1})")
                free = [c for c in range(action * deck.copies, (action + 1) * deck.copies)
                        if c not in self._order]
                if not free:
                    raise ValueError(f"chance outcome {action} ({deck.names[action * deck.copies]}"
                                     f"): all {deck.copies} copies are dealt already")
                action = free[0]
            if not 0 <= action < deck.size:
                raise ValueError(f"chance outcome {action} is not a card (0..{deck.size - 1})")
            if action in self._order:
                raise ValueError(f"chance outcome {action} ({deck.names[action]}) is dealt "
                                 "already")
            self._order.append(action)
            if len(self._order) == self._rules.deck.size:
                self._deal()
            return
        comp = self._comp
        move = comp.push(action)
        if move is None:
            return
        before = self._st
        self._moves_log.append(f"{before.current}: {move}")
        self._last_move = move
        st = play(before, move)
        self._st = st
        hand_over = st.hand_points is not before.hand_points
        if hand_over and not st.game_over:
            self._hand_ended(before, move)
        if st.game_over or (hand_over and (self._episode == "hand"
                                           or self._hands_started >= self._max_hands)):
            self._over = True
            self._comp = None
            return
        if hand_over:  # a new hand: chance deals it (the engine's own shuffle is not used)
            self._template = st
            self._comp = None
            return
        self._comp = Composer.for_state(st)

    def push_sub_action(self, action: int):
        """Apply a player's sub-action; returns the engine Move it completes, else None."""
        if self.is_chance_node() or self._over:
            raise ValueError("push_sub_action: not a player's decision")
        n = len(self._moves_log)
        self.apply_action(action)
        return self._last_move if len(self._moves_log) > n else None

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            deck = self._rules.deck
            return f"deal {deck.names[action * deck.copies]}"
        return describe_compose_action(action, self._rules.deck)

    def is_terminal(self) -> bool:
        return self._over

    def returns(self) -> list[float]:
        n = self._rules.players
        if not self._over:
            return [0.0] * n
        per_side = side_returns(self._st, self._episode, self._reward)
        return [per_side[self._rules.side(s)] for s in range(n)]

    def resample_from_infostate(self, player_id: int, probability_sampler=None) -> CasinoState:
        """A state the player cannot tell from this one: the hidden hands and stock dealt
        again at random, consistent with what the player has seen (as the search agent
        samples them), from ``probability_sampler`` (a callable giving floats in [0, 1), as
        OpenSpiel passes one; required, so that a seeded sampler makes the sample repeat)."""
        if not callable(probability_sampler):
            raise TypeError("resample_from_infostate needs a probability_sampler, a callable "
                            "giving floats in [0, 1) (e.g. random.Random(seed).random or "
                            f"pyspiel.UniformProbabilitySampler(0., 1.)), got "
                            f"{probability_sampler!r}")
        out = self.clone()
        if self._st is None or self._template is not None or self._over:
            return out
        seed = int(probability_sampler() * 2**53)
        view = PlayerView(self._st, player_id)
        out._st = view.determinize(random.Random(seed))
        if self._comp is not None:
            # The move being composed is the mover's secret until it is made: kept when the
            # mover resamples, started afresh in another player's sample (whose mover may not
            # even hold the cards played so far).
            comp = Composer.for_state(out._st)
            if player_id == self._st.current:
                for t in self._comp.prefix:
                    comp.push(t)
            out._comp = comp
        return out

    def __str__(self) -> str:
        if self._st is None:
            return f"dealing the first hand: {len(self._order)} stock cards picked"
        text = str(self.engine_state)
        if self._template is not None:
            text += f"\ndealing the next hand: {len(self._order)} stock cards picked"
        if self._comp is not None and self._comp.prefix:
            text += "\ncomposing: " + ", ".join(describe_compose_action(t, self._rules.deck)
                                                for t in self._comp.prefix)
        return text

    # -- serialization through the spec ---------------------------------------------------
    def to_json(self) -> str:
        """The state as JSON: the engine spec, the chance picks so far, the move composed."""
        data = {"spec": None if self._st is None else self._st.to_spec(),
                "template": None if self._template is None else self._template.to_spec(),
                "order": list(self._order), "prefix": [] if self._comp is None else
                list(self._comp.prefix), "moves": self._moves_log, "over": self._over,
                "hands": self._hands_started,
                "end": None if self._end_from is None else
                {"before": self._end_from[0].to_spec(), "move": str(self._end_from[1])}}
        return json.dumps(data, sort_keys=True)


class CasinoObserver:
    """OpenSpiel observer: the PettingZoo observation tensor, and strings with the same
    information (plus the public move history for perfect recall)."""

    def __init__(self, game: CasinoGame, perfect_recall: bool) -> None:
        self.layout = game.layout
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(game.layout.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CasinoState, player: int) -> None:
        self.tensor.fill(0)
        st = state.engine_state
        if st is None:
            return
        self.layout.encode(st, player, self.tensor)
        comp = state._comp
        if comp is not None and comp.prefix and st.current == player and not state._over:
            self.layout.add_tokens(st, comp.prefix, self.tensor)

    def string_from(self, state: CasinoState, player: int) -> str:
        st = state.engine_state
        if st is None:
            return f"p{player} waiting for the first deal"
        text = view_string(st, player, state._comp, state._over or state._end is not None)
        if state._template is not None:
            text += " | dealing the next hand"
        if self.perfect_recall:
            text += " | moves: " + "; ".join(state._moves_log)
        return text


def view_string(st: State, player: int, comp: Composer | None, over: bool) -> str:
    """What ``player`` sees, as one line of text (own hand, table, piles, scores, sizes)."""
    view = PlayerView(st, player)
    red, d = view.state, st.rules.deck
    parts = [f"p{player}", f"hand {' '.join(red.hand(player)) or '-'}"]
    for s in view.exposed:
        parts.append(f"p{s} shows {' '.join(red.hand(s)) or '-'}")
    table = " ".join(d.strs(red.loose_mask)) or "-"
    builds = " ".join(f"[{'+'.join(d.strs(b.cards))}={b.value}{'m' if b.multiple else ''}"
                      f" p{b.owner}]" for b in red.builds)
    parts.append(f"table {table}{' ' + builds if builds else ''}")
    parts.append("piles " + " / ".join(" ".join(p) or "-" for p in red.piles))
    parts.append(f"scores {list(st.scores)} sweeps {list(st.sweeps)}")
    parts.append(f"hand sizes {list(view.hand_sizes)} stock {view.stock_size}")
    parts.append(f"dealer p{st.dealer}")
    if view.cut is not None:
        parts.append(f"cut {d.names[view.cut]}")
    if st.events:
        parts.append(f"events {[list(e) for e in st.events]}")
    if st.pending_orange is not None:
        parts.append(f"orange callable by p{st.pending_orange}")
    if not over:
        parts.append(f"to move p{st.current}")
        if comp is not None and comp.prefix and st.current == player:
            parts.append("composing " + ", ".join(describe_compose_action(t, d)
                                                  for t in comp.prefix))
    return " | ".join(parts)


pyspiel.register_game(_GAME_TYPE, CasinoGame)
