"""Rule switches and the presets (variants) of RULES.md section 2, as one frozen ``Rules`` value.

A switch's API name is its rule id without the prefix, lower-case, with underscores
(``V-soto`` -> ``soto``). Presets are named sets of switches; every switch can be set alone
on the presets where it makes sense, and is refused with a clear error elsewhere.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, fields
from typing import NamedTuple

from .cards import DECKS, Deck

# Switches a user may set (by name), their types and what they do.
SWITCHES: dict[str, tuple[type, str]] = {
    "sweeps": (bool, "a capture that empties the table scores 1 (C-sweep)"),
    "cancel": (bool, "when every side has an uncancelled sweep, each side cancels one "
               "(V-cancel)"),
    "countout": (bool, "if several sides reach the target in one hand, count points in the "
                 "order cards, spades, 10D, 2S, aces SCHD, sweeps; first to the target wins "
                 "(V-countout)"),
    "dom_trail": (bool, "a card equal in value to a loose card may not trail; its captures "
                  "take every loose card of that value (V-dom-trail)"),
    "dom_build": (bool, "no raising your own single build (V-dom-build)"),
    "dom_end": (bool, "endgame restrictions at 18/19/20 (V-dom-end)"),
    "soto": (bool, "endgame restrictions start at 16 (V-soto; needs dom_end)"),
    "partner_build": (bool, "build for partner when public play proves partner holds the "
                      "value (V-partner-build)"),
    "twenty_by_two_spades": (bool, "under V-dom-end a side at 20 wins only by the 2S"),
    "restricted_no_sweeps": (bool, "under V-dom-end restricted sides record no sweeps"),
    "build_loose": (bool, "trail a card and build other table cards in the same turn "
                    "(V-build-loose)"),
    "owner_may_trail": (bool, "the owner of a build may trail (V-owner-may-trail)"),
    "raise_with_table": (bool, "table cards may help raise a single build with the played "
                         "card (V-raise-with-table)"),
    "build_as_card": (bool, "a single build counts as a card of its value for capturing and "
                      "building (V-build-as-card)"),
    "target": (int, "points needed to win the game (C-game, V-target)"),
    "difference": (bool, "two sides: only the side with more points in a hand scores, the "
                   "difference (V-target; on by default with target 11 outside hungarian)"),
    "last_capture": (bool, "most cards 2 points and the hand's last capture 1 point "
                     "(V-last-capture)"),
    "earned": (bool, "points count as earned during play; the game ends when a side reaches "
               "the target (V-earned, V-hun-end)"),
    "ace_14": (bool, "an Ace may count 1 or 14 (Hungarian switch)"),
    "ulmann": (bool, "hand cards may be split into sets each matching the capture; each hand "
               "is played to its end (V-hun-play, V-hun-end)"),
    "kovacs": (bool, "no played or captured combination above 13 (V-hun-play)"),
    "nagy": (bool, "after a sweep the opponent plays twice; the last capturer leads each "
             "round; the last round is played with hands exposed; sweeping the four initial "
             "cards scores 2; reaching 11 in the first hand wins a double game (V-hun-play, "
             "V-hun-end)"),
    "claims": (bool, "a player must claim the win on their turn: a correct claim wins, a false "
               "one loses (V-hun-end)"),
    "orange_calls": (bool, "an orange scores only if the capturer calls it; a false call costs "
                     "10; the next player may call a missed orange for 10 (V-tux-score)"),
    "bicycle": (bool, "AS, JS and 2S count 2 as spades, every other spade 1 (26 a hand); to "
                "61; a winner whose opponents all have under 31 wins double (V-spade-bicycle)"),
    "cut": (bool, "the non-dealer sees the bottom card of the stock, which the dealer gets in "
            "the last deal (V-hun-cut; needs ulmann)"),
    "points": (dict, "house scoring: points per item, e.g. {'cards': 2, 'spades': 2}, "
               "overriding the preset's (items: cards, spades, big_casino, little_casino, "
               "aces, sweep, last_capture; V-points)"),
}
# Switches added after specs and records were first written (issue 20): ``Rules.switches``
# lists them only when they are in force, so specs and records made before them compare equal.
HOUSE_SWITCHES = ("bicycle", "cut", "points")
SWITCH_TYPES: dict[str, type] = {k: t for k, (t, _) in SWITCHES.items()}
SWITCH_DOCS: dict[str, str] = {k: d for k, (_, d) in SWITCHES.items()}


# V-points: the scoring items a points table may set, in the order of ``ItemPoints``.
POINT_ITEMS = ("cards", "spades", "big_casino", "little_casino", "aces", "sweep",
               "last_capture")
BICYCLE_TARGET = 61  # V-spade-bicycle plays to 61 ...
BICYCLE_DOUBLE = 31  # ... and a winner whose opponents all have under 31 wins double


class ItemPoints(NamedTuple):
    """Points of each scoring item in force (the preset's, V-last-capture's and V-points'):
    ``cards`` most cards, ``spades`` most spades (in ``spade`` scoring: each spade),
    ``big_casino`` the 10D, ``little_casino`` the 2S, ``aces`` each Ace, ``sweep`` each sweep
    and ``last_capture`` the hand's last capture; 0 where the game does not score the item."""

    cards: int
    spades: int
    big_casino: int
    little_casino: int
    aces: int
    sweep: int
    last_capture: int


@dataclass(frozen=True)
class Preset:
    """A named variant: fixed traits, default switches, the player counts it allows."""

    name: str
    title: str
    players: tuple[int, ...]
    deck: str
    values: str  # "classic" (C-face), "royal" (J 11, Q 12, K 13, A 1/14), "hungarian", "rook",
    # "finnish" (V-fin-values), "kryp" (V-kryp-values): other values from hand than on the table
    building: bool
    scoring: str  # "casino" (C-score), "spade", "wippen", "tuxedo", "swedish", "finnish", "swazi",
    # "kryp" (penalties, V-kryp-score)
    hand_size: int | dict  # cards a deal gives each player, or {players: cards} (V-swazi-deal)
    defaults: dict = field(default_factory=dict)
    switches: tuple[str, ...] = ()  # switches that make sense for this preset
    description: str = ""
    special: str = ""  # one line for the README's variant table
    play: str = ""  # the preset's own rule of play, named by illegal builds (V-nordic-play)
    tiebreak: str = ""  # "spades": equal totals at the target go to more spades (V-swe-end)
    steal: bool = False  # V-swazi-steal: the top card of another side's pile is an item
    teams: tuple[int, ...] = (4,)  # player counts that may play as partnerships


# Presets whose four players play as partners unless told otherwise (C-deal's seats 0+2 v 1+3).
PARTNER_PRESETS = ("dominican", "swazi")

_BUILDING = ("dom_trail", "dom_build", "partner_build", "build_loose", "owner_may_trail",
             "raise_with_table", "build_as_card")
_DOM_END = ("dom_end", "soto", "twenty_by_two_spades", "restricted_no_sweeps")
_GAME = ("target", "difference", "earned")
_POINTS = ("points",)  # V-points: every preset

PRESETS: dict[str, Preset] = {
    "casino": Preset(
        "casino", "Casino (classic, Anglo-American)", (2, 3, 4), "standard", "classic", True,
        "casino", 4, dict(sweeps=False, target=21),
        ("sweeps", "cancel", "countout", "last_capture") + _BUILDING + _DOM_END + _GAME
        + _POINTS,
        "Ace 1, numerals face value, J Q K take only one card of their rank (C-face); "
        "sweeps not scored by default.",
        "J Q K only pair up; 11 points a hand"),
    "royal": Preset(
        "royal", "Royal Casino (North America)", (2, 3, 4), "standard", "royal", True, "casino",
        4, dict(sweeps=False, countout=True, target=21),
        ("sweeps", "cancel", "countout", "last_capture") + _BUILDING + _DOM_END + _GAME
        + _POINTS,
        "J 11, Q 12, K 13, Ace 1 or 14; sweeps off by default (never cancelled when on); "
        "count-out when several reach 21 in one hand (V-countout).",
        "face cards count 11-13, Ace 1 or 14"),
    "dominican": Preset(
        "dominican", "Casino in the Dominican Republic", (2, 3, 4), "standard", "royal", True,
        "casino", 4,
        dict(sweeps=True, cancel=True, dom_trail=True, dom_build=True, dom_end=True, target=21),
        ("sweeps", "cancel", "countout", "last_capture") + _BUILDING + _DOM_END + _GAME
        + _POINTS,
        "Royal values; no trailing a card that matches a loose card (V-dom-trail); no raising "
        "your own build (V-dom-build); sweeps 1 each, cancelled (V-cancel); endgame "
        "restrictions at 18-20 (V-dom-end). Four players play as partners.",
        "no trailing a matching card; sweeps cancel; endgame restrictions"),
    "hungarian": Preset(
        "hungarian", "Hungarian Casino (Kaszino, Casino en deux)", (2,), "standard", "hungarian",
        False, "casino", 3, dict(sweeps=True, earned=True, target=11),
        ("sweeps", "target", "earned", "ace_14", "ulmann", "kovacs", "nagy", "claims", "cut")
        + _POINTS,
        "3 cards a deal, no building; several hand cards may capture together (V-hun-play); "
        "sweeps 1 each; no points for cards at 26-26; first to 11, counted as earned "
        "(V-hun-end).",
        "3-card deals, no building, multi-card captures, to 11"),
    "tuxedo": Preset(
        "tuxedo", "Tuxedo (Rook deck)", (2, 3, 4, 5, 6), "rook", "rook", True, "tuxedo", 4,
        dict(sweeps=True, target=100),
        _BUILDING + ("orange_calls",) + _GAME + _POINTS,
        "40 Rook cards 1-10 in four colours; uneven last deal, remainder to the table "
        "(V-tux-deal); most cards 15, oranges 10, sweeps 10 or 5, fives 5; to 100 "
        "(V-tux-score).",
        "Rook deck; oranges, sweeps 10/5, fives; to 100"),
    "spade": Preset(
        "spade", "Spade Casino", (2, 3, 4), "standard", "classic", True, "spade", 4,
        dict(sweeps=False, target=61),
        ("sweeps", "countout", "last_capture") + _BUILDING + _GAME + ("bicycle",) + _POINTS,
        "As casino, but each spade scores 1 and the JS 1 more (with aces, 2S and 10D: 24 "
        "points a hand; V-spade); to 61.",
        "every spade scores; 24 points a hand; to 61"),
    "wippen": Preset(
        "wippen", "Wippen (Belgian)", (2, 3, 4), "standard", "classic", True, "wippen", 4,
        dict(sweeps=True, target=21),
        ("sweeps", "countout") + _BUILDING + _GAME + _POINTS,
        "As casino; most cards 2, most spades 2, 10D 2, 2S 1, aces 1; each sweep (wip) 1.",
        "most cards 2, most spades 2, wips 1"),
    "swedish": Preset(
        "swedish", "Swedish Casino (Kasino)", (2, 3, 4), "standard", "royal", False, "swedish",
        4, dict(sweeps=True, last_capture=True, target=16),
        ("sweeps",) + _GAME + _POINTS,
        "Royal values (Ace 1 or 14); no building, capturing never compulsory "
        "(V-nordic-play); most spades 2, most cards 1, 10D 2, 2S 1, aces 1, last capture 1, "
        "each sweep (tabbe) 1, never cancelled (V-swe-score); first to 16, equal totals go to "
        "the most spades of the hand (V-swe-end).",
        "no building; most spades 2, tabbe 1, last capture 1; to 16",
        play="V-nordic-play", tiebreak="spades"),
    "finnish": Preset(
        "finnish", "Finnish Casino (Kasino)", (2, 3, 4), "standard", "finnish", False,
        "finnish", 4, dict(sweeps=True, cancel=True, earned=True, target=16),
        ("sweeps", "cancel") + _GAME + _POINTS,
        "From hand A 14, 2S 15, 10D 16, on the table A 1, 2S 2, 10D 10 (V-fin-values); no "
        "building (V-nordic-play); most spades 2, most cards 1, 10D 2, 2S 1, aces 1, each "
        "sweep (mokki) 1, cancelled, none in the last deal or once a side has 10 "
        "(V-fin-score); first to 16, counted as earned (V-earned).",
        "A 14, 2S 15, 10D 16 from hand; no building; to 16 as earned",
        play="V-nordic-play"),
    "swazi": Preset(
        "swazi", "African Casino (Eswatini)", (2, 3, 4), "standard", "royal", True, "swazi",
        {2: 12, 3: 16, 4: 12}, dict(dom_build=True, target=21),
        ("dom_build", "countout", "target") + _POINTS,
        "Royal values; capture piles are face-up stacks and the top card of another side's "
        "pile may be captured or built with like a loose card (V-swazi-steal); 4 cards to the "
        "table, then 12 cards each twice (2 players) or 16 / 12 each at once (V-swazi-deal); "
        "no raising your own build (V-dom-build); most cards 2, most spades 2 (a tie: 1 "
        "each), 10D 2, 2S 1, aces 1, no sweeps (V-swazi-score). Four players play as "
        "partners.",
        "take the top card of an opponent's pile; big deals; 11 points a hand",
        steal=True),
    "krypkasino": Preset(
        "krypkasino", "Krypkasino (Swedish reverse Casino)", (2, 3, 4, 5, 6), "double", "kryp",
        False, "kryp", 4, dict(sweeps=True, target=50),
        ("target",) + _POINTS,
        "Two decks (104 cards); J 11, Q 12, K 13, Ace 14 from hand and 1 on the table "
        "(V-kryp-values); no building; a card that can capture must, maximally, and only a "
        "card that captures nothing trails (V-kryp-play); penalty points: 10D 3, 2S 2, aces "
        "and spades 1, sweeps (tabbe) 5 with 5 back to the player before (V-kryp-score); "
        "after a side reaches 50 the lowest total wins (V-kryp-end). Partners with 4 (0+2 v "
        "1+3) or 6 players (0+3, 1+4, 2+5; V-kryp-seats).",
        "reverse: avoid points and sweeps; two decks; to 50, lowest wins",
        play="V-kryp-play", teams=(4, 6)),
}

# V-fin-values: the cards that capture with another value from hand than they count on the
# table (there: A 1, 2S 2, 10D 10, as their rank).
FINNISH_HAND_VALUES = {"AS": 14, "AH": 14, "AD": 14, "AC": 14, "2S": 15, "10D": 16}


@dataclass(frozen=True)
class Rules:
    """Everything that decides legality and scoring of one game, fixed for the game."""

    variant: str = "casino"
    players: int = 2
    partnerships: bool = False
    sweeps: bool = False
    cancel: bool = False
    countout: bool = False
    dom_trail: bool = False
    dom_build: bool = False
    dom_end: bool = False
    soto: bool = False
    partner_build: bool = False
    twenty_by_two_spades: bool = False
    restricted_no_sweeps: bool = False
    build_loose: bool = False
    owner_may_trail: bool = False
    raise_with_table: bool = False
    build_as_card: bool = False
    target: int = 21
    difference: bool = False
    last_capture: bool = False
    earned: bool = False
    ace_14: bool = False
    ulmann: bool = False
    kovacs: bool = False
    nagy: bool = False
    claims: bool = False
    orange_calls: bool = False
    bicycle: bool = False
    cut: bool = False
    points: tuple = ()  # V-points: sorted ((item, points), ...); a dict is sorted into one

    # Derived in __post_init__ (not compared: they follow from the fields above).
    preset: Preset = field(init=False, repr=False, compare=False)
    deck: Deck = field(init=False, repr=False, compare=False)
    values: tuple = field(init=False, repr=False, compare=False)
    hand_values: tuple = field(init=False, repr=False, compare=False)
    ace14: bool = field(init=False, repr=False, compare=False)
    building: bool = field(init=False, repr=False, compare=False)
    scoring: str = field(init=False, repr=False, compare=False)
    sides: int = field(init=False, repr=False, compare=False)
    max_value: int = field(init=False, repr=False, compare=False)
    hand_size: int = field(init=False, repr=False, compare=False)
    multi_play: bool = field(init=False, repr=False, compare=False)
    earned_wins: bool = field(init=False, repr=False, compare=False)
    item_points: ItemPoints = field(init=False, repr=False, compare=False)
    steal: bool = field(init=False, repr=False, compare=False)
    must_capture: bool = field(init=False, repr=False, compare=False)  # V-kryp-play
    penalties: bool = field(init=False, repr=False, compare=False)  # V-kryp-score: lower wins
    # Per card id, for move generation: rank << 8 | hand value (cards with one key have the
    # same moves), and the bit mask of the build values the card backs (a Royal Ace: 1, 14).
    play_keys: tuple = field(init=False, repr=False, compare=False)
    backing: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        p = PRESETS[self.variant]
        deck = DECKS[p.deck]
        s = object.__setattr__
        if isinstance(self.points, dict):  # (hashable: the table as sorted pairs)
            s(self, "points", tuple(sorted(self.points.items())))
        s(self, "preset", p)
        s(self, "deck", deck)
        s(self, "values", tuple(r if (p.values != "classic" or r <= 10) else None
                                for r in deck.rank))
        # What a card captures with when played from hand; the table's values (the same
        # tuple) in every preset but Finnish (V-fin-values) and krypkasino (V-kryp-values:
        # an Ace 14 from hand, 1 on the table).
        if p.values == "finnish":
            hand = tuple(FINNISH_HAND_VALUES.get(name, v)
                         for name, v in zip(deck.names, self.values))
        elif p.values == "kryp":
            hand = tuple(14 if r == 1 else r for r in deck.rank)
        else:
            hand = self.values
        s(self, "hand_values", hand)
        s(self, "ace14", p.values == "royal" or (p.values == "hungarian" and self.ace_14))
        s(self, "building", p.building)
        s(self, "scoring", p.scoring)
        s(self, "sides", self.players // 2 if self.partnerships else self.players)
        s(self, "max_value", 14 if p.values in ("royal", "kryp") else 16 if p.values == "finnish"
          else 10 if p.building else 13 * 4)
        s(self, "hand_size", p.hand_size if isinstance(p.hand_size, int)
          else p.hand_size[self.players])
        s(self, "multi_play", p.values == "hungarian")
        # The game ends during play when a side's earned points reach the target (V-earned,
        # V-hun-end), unless the win must be claimed or each hand is played out (Ulmann).
        s(self, "earned_wins", self.earned and not self.claims and not self.ulmann)
        s(self, "item_points", _item_points(self))
        s(self, "steal", p.steal)
        s(self, "must_capture", p.values == "kryp")
        s(self, "penalties", p.scoring == "kryp")
        s(self, "play_keys", tuple(rank << 8 | (v or 0) for rank, v in zip(deck.rank, hand)))
        s(self, "backing", tuple(0 if v is None else 1 << v | (16384 if v == 1 and self.ace14
                                                                   else 0)
                                 for v in self.values))

    def side(self, seat: int) -> int:
        """The side a seat plays for: partners sit opposite, so with ``sides`` teams of two
        seat ``s`` plays with ``s + sides`` (0+2 v 1+3; six players 0+3, 1+4, 2+5)."""
        return seat % self.sides if self.partnerships else seat

    def teams(self) -> str:
        """The partnerships in words, e.g. ``partners 0+2 v 1+3`` ("" without partners)."""
        if not self.partnerships:
            return ""
        n, k = self.players, self.sides
        return "partners " + " v ".join(f"{s}+{s + k}" for s in range(k) if s + k < n)

    def switches(self) -> dict:
        """The user-settable switches and their values (the spec's ``rules`` dict, JSON-ready:
        ``points`` as a dict). The house switches (``bicycle``, ``cut``, ``points``) are listed
        only when in force, so that specs and records written before they existed read and
        compare the same."""
        out = {}
        for k in SWITCHES:
            if k in HOUSE_SWITCHES and not getattr(self, k):
                continue
            out[k] = switch_value(self, k)
        return out


def switch_value(rules: Rules, name: str):
    """A switch's value as the API takes it (``points`` as a dict, the others as stored)."""
    value = getattr(rules, name)
    return dict(value) if name == "points" else value


def _item_points(r: Rules) -> ItemPoints:
    """The points of each scoring item: the preset's (C-score, V-spade, Wippen, V-tux-score,
    V-swe-score, V-fin-score, V-swazi-score, V-kryp-score), with V-last-capture and the sweeps
    switch, then the V-points table over them."""
    if r.scoring == "tuxedo":  # most cards 15; oranges, sweeps and fives are scored apart
        table = dict(cards=15, spades=0, big_casino=0, little_casino=0, aces=0, sweep=0,
                     last_capture=0)
    elif r.scoring == "kryp":  # V-kryp-score, penalties: ``spades`` each spade but the 2S,
        # ``sweep`` a tabbe (a dubbeltabbe twice that)
        table = dict(cards=0, spades=1, big_casino=3, little_casino=2, aces=1, sweep=5,
                     last_capture=0)
    elif r.scoring in ("swedish", "finnish"):  # V-swe-score, V-fin-score: most spades 2
        table = dict(cards=1, spades=2, big_casino=2, little_casino=1, aces=1,
                     sweep=1 if r.sweeps else 0, last_capture=1 if r.last_capture else 0)
    elif r.scoring == "swazi":  # V-swazi-score: 11 a hand, no sweeps, no last capture
        table = dict(cards=2, spades=2, big_casino=2, little_casino=1, aces=1, sweep=0,
                     last_capture=0)
    else:
        wippen = r.scoring == "wippen"
        table = dict(cards=2 if wippen or r.last_capture else 3, spades=2 if wippen else 1,
                     big_casino=2, little_casino=1, aces=1, sweep=1 if r.sweeps else 0,
                     last_capture=1 if r.last_capture else 0)
    table.update(r.points)
    return ItemPoints(**table)


_INIT_FIELDS = {f.name for f in fields(Rules) if f.init}


def make_rules(variant: str = "casino", players: int = 2, partnerships: bool | None = None,
               switches: dict | None = None, *, where: str = "") -> Rules:
    """Validated Rules for a preset plus switches; a bad value raises ValueError naming it."""
    pre = f"{where}: " if where else ""
    if not isinstance(variant, str) or variant not in PRESETS:
        raise ValueError(f"{pre}unknown variant {variant!r} (known: {', '.join(PRESETS)})")
    preset = PRESETS[variant]
    if isinstance(players, bool) or not isinstance(players, numbers.Integral):
        raise ValueError(f"{pre}players must be an int, got {players!r}")
    players = int(players)  # (a numpy integer too, as seeds are)
    if players not in preset.players:
        raise ValueError(f"{pre}players={players} is not allowed for {variant!r} "
                         f"(allowed: {', '.join(map(str, preset.players))})")
    if partnerships is None:
        partnerships = variant in PARTNER_PRESETS and players == 4
    if not isinstance(partnerships, bool):
        raise ValueError(f"{pre}partnerships must be true or false, got {partnerships!r}")
    if partnerships and players not in preset.teams:
        if preset.teams == (4,):
            raise ValueError(f"{pre}partnerships need 4 players (C-deal), got players={players}")
        raise ValueError(f"{pre}partnerships need {' or '.join(map(str, preset.teams))} players "
                         f"(V-kryp-seats), got players={players}")
    values = dict(preset.defaults)
    given = dict(switches or {})
    for name, value in given.items():
        if name not in SWITCHES:
            raise ValueError(f"{pre}unknown rule switch {name!r} "
                             f"(known: {', '.join(sorted(SWITCHES))})")
        typ = SWITCH_TYPES[name]
        if isinstance(value, bool) != (typ is bool) or not isinstance(value, typ):
            raise ValueError(f"{pre}rule switch {name!r} must be {typ.__name__}, got {value!r}")
        if name == "points":
            value = _points_table(value, pre)
        if name not in preset.switches and value != values.get(name, _default(name)):
            raise ValueError(f"{pre}rule switch {name!r} does not apply to {variant!r} "
                             f"(its switches: {', '.join(preset.switches)})")
        values[name] = value
    if "countout" not in given and (given.get("earned") or given.get("dom_end")):
        values["countout"] = False  # another end-of-game rule replaces the preset's count-out
    sides = players // 2 if partnerships else players
    if "difference" not in given and "difference" in preset.switches:
        # V-target: "some play to 11 points. In a two player game (or a 4-player game with
        # partners) ... the player with more points scores the difference"; Hungarian's own
        # target of 11 is not difference scoring.
        values["difference"] = (values.get("target", 21) == 11 and sides == 2
                                and not values.get("earned", False))
        if values["difference"] and values.get("dom_end"):  # say which switch came with 11
            whose = "" if "dom_end" in given else f", on in the {variant!r} preset"
            raise ValueError(f"{pre}target=11 with two sides turns on difference scoring "
                             f"(V-target), which does not combine with 'dom_end' (V-dom-end"
                             f"{whose}); set difference=False to play to 11 under V-dom-end, "
                             "or dom_end=False for difference scoring")
    rules = Rules(variant=variant, players=players, partnerships=partnerships,
                  **{k: v for k, v in values.items() if k in _INIT_FIELDS})
    _check_consistency(rules, pre)
    return rules


def _default(name: str):
    return Rules.__dataclass_fields__[name].default


def _points_table(table: dict, pre: str) -> tuple:
    """V-points: a dict of item -> points, checked item by item, as sorted pairs."""
    for item, pts in table.items():
        if item not in POINT_ITEMS:
            raise ValueError(f"{pre}rule switch 'points': unknown item {item!r} "
                             f"(items: {', '.join(POINT_ITEMS)})")
        if isinstance(pts, bool) or not isinstance(pts, int) or pts < 0:
            raise ValueError(f"{pre}rule switch 'points': item {item!r} must be an int >= 0, "
                             f"got {pts!r}")
    return tuple(sorted(table.items()))


def _check_points(r: Rules, pre: str) -> None:
    """V-points: every item of the table is one the game scores, and V-dom-end's criteria keep
    the points that take a restricted side exactly to the target."""
    table = dict(r.points)
    if r.scoring == "kryp":
        for item in ("cards", "last_capture"):
            if item in table:
                raise ValueError(f"{pre}rule switch 'points': item {item!r} does not apply to "
                                 f"'krypkasino' (its penalties are for scoring cards and "
                                 f"sweeps, V-kryp-score)")
    if r.scoring == "tuxedo":
        for item in table:
            if item != "cards":
                why = ("its sweeps score 10 or 5 by their size" if item == "sweep" else
                       f"it does not score {item!r}")
                raise ValueError(f"{pre}rule switch 'points': item {item!r} does not apply to "
                                 f"'tuxedo' ({why}, V-tux-score; only 'cards' may be set)")
    for item in ("sweep", "last_capture"):
        switch = "sweeps" if item == "sweep" else item
        if item in table and not getattr(r, switch) and switch not in r.preset.switches:
            raise ValueError(f"{pre}rule switch 'points': item {item!r} does not apply to "
                             f"{r.variant!r} (it does not score {item!r})")
        if item in table and not getattr(r, switch):
            raise ValueError(f"{pre}rule switch 'points': item {item!r} needs rule switch "
                             f"{switch!r} (without it the game does not score {item!r})")
    if r.dom_end:
        # V-dom-end: 3 short wins by most cards, 2 short by the 10D, 1 short by most spades
        # (or the 2S): each criterion must be worth exactly what the side is short.
        need = {"cards": 3, "big_casino": 2}
        if not r.twenty_by_two_spades or r.soto:  # (V-soto: 4 short wins by cards + spades)
            need["spades"] = 1
        if r.twenty_by_two_spades:
            need["little_casino"] = 1
        for item, pts in need.items():
            if table.get(item, pts) != pts:
                raise ValueError(f"{pre}rule switches 'points' and 'dom_end': item {item!r} "
                                 f"must stay {pts} (V-dom-end lets a side {pts} short of the "
                                 f"target win by it alone), got {table[item]}")


def _check_consistency(r: Rules, pre: str) -> None:
    if r.target < 1:
        raise ValueError(f"{pre}rule switch 'target' must be positive, got {r.target}")
    if r.bicycle and r.target != BICYCLE_TARGET:
        raise ValueError(f"{pre}rule switch 'bicycle' plays to {BICYCLE_TARGET} "
                         f"(V-spade-bicycle: a game is double when the loser has under "
                         f"{BICYCLE_DOUBLE}), got target={r.target}")
    if r.cut and not r.ulmann:
        raise ValueError(f"{pre}rule switch 'cut' needs 'ulmann' (V-hun-cut is a rule of "
                         "Ulmann's game)")
    if r.points:
        _check_points(r, pre)
    if r.soto and not r.dom_end:
        raise ValueError(f"{pre}rule switch 'soto' needs 'dom_end' (V-soto modifies V-dom-end)")
    for name in ("twenty_by_two_spades", "restricted_no_sweeps"):
        if getattr(r, name) and not r.dom_end:
            raise ValueError(f"{pre}rule switch {name!r} needs 'dom_end'")
    if r.partner_build and not r.partnerships:
        raise ValueError(f"{pre}rule switch 'partner_build' needs partnerships (V-partner-build)")
    if r.cancel and not r.sweeps:
        why = f"; the {r.variant!r} preset turns 'cancel' on, so set cancel=False too" \
            if PRESETS[r.variant].defaults.get("cancel") else ""
        raise ValueError(f"{pre}rule switch 'cancel' needs 'sweeps' (V-cancel){why}")
    if r.difference and r.sides != 2:
        raise ValueError(f"{pre}rule switch 'difference' needs two sides (V-target), "
                         f"this game has {r.sides}")
    if r.dom_end and (r.earned or r.difference or r.countout):
        raise ValueError(f"{pre}rule switch 'dom_end' does not combine with 'earned', "
                         "'difference' or 'countout' (each decides the end of the game)")
    if r.dom_end and r.last_capture:
        raise ValueError(f"{pre}rule switches 'dom_end' and 'last_capture' do not combine "
                         "(V-dom-end lets a side at 18 win by most cards, worth 3 points; "
                         "under V-last-capture it is worth 2 and would win below the target)")
    if r.countout and r.earned:
        raise ValueError(f"{pre}rule switches 'countout' and 'earned' both decide who reaches "
                         "the target first; choose one")
    if r.difference and r.earned:
        raise ValueError(f"{pre}rule switches 'difference' and 'earned' do not combine (earned "
                         "points are counted before the hand's difference is known)")
    if r.claims and r.ulmann:
        raise ValueError(f"{pre}rule switches 'claims' and 'ulmann' do not combine (Ulmann plays "
                         "each hand to its end; a claim ends it during play)")
    if r.claims and not r.earned:
        raise ValueError(f"{pre}rule switch 'claims' needs 'earned' (a claim counts earned "
                         "points)")


def list_variants() -> list[str]:
    """Names of every preset the engine plays."""
    return list(PRESETS)


def describe_variant(name: str) -> dict:
    """A preset's description: players allowed, deck, switches with their defaults."""
    if not isinstance(name, str) or name not in PRESETS:
        raise ValueError(f"unknown variant {name!r} (known: {', '.join(PRESETS)})")
    p = PRESETS[name]
    rules = make_rules(name, p.players[0])
    return {
        "name": p.name,
        "title": p.title,
        "players": list(p.players),
        "partnerships": 4 in p.players and name != "hungarian",
        "deck": p.deck,
        "description": p.description,
        "special": p.special,
        "switches": {k: {"default": switch_value(rules, k), "doc": SWITCH_DOCS[k]}
                     for k in p.switches},
    }
