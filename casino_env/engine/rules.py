"""Rule switches and the presets (variants) of RULES.md section 2, as one frozen ``Rules`` value.

A switch's API name is its rule id without the prefix, lower-case, with underscores
(``V-soto`` -> ``soto``). Presets are named sets of switches; every switch can be set alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from .cards import DECKS, Deck

# Switches a user may set (by name) and their types; everything else in Rules is preset-fixed.
SWITCH_TYPES: dict[str, type] = {
    "sweeps": bool,
    "cancel": bool,
    "countout": bool,
    "dom_trail": bool,
    "dom_build": bool,
    "dom_end": bool,
    "soto": bool,
    "partner_build": bool,
    "twenty_by_two_spades": bool,
    "restricted_no_sweeps": bool,
    "target": int,
}

SWITCH_DOCS: dict[str, str] = {
    "sweeps": "a capture that empties the table scores 1 (C-sweep)",
    "cancel": "when every side has an uncancelled sweep, each side cancels one (V-cancel)",
    "countout": "if several sides reach the target in one hand, count points in order "
    "cards, spades, 10D, 2S, aces SCHD, sweeps; first to the target wins (V-countout)",
    "dom_trail": "a card equal to a loose card may not trail; its captures take every "
    "loose card of that value (V-dom-trail)",
    "dom_build": "no raising your own single build (V-dom-build)",
    "dom_end": "endgame restrictions at 18/19/20 (V-dom-end)",
    "soto": "endgame restrictions start at 16 (V-soto; needs dom_end)",
    "partner_build": "build for partner when provable from public play (V-partner-build)",
    "twenty_by_two_spades": "under V-dom-end a side at 20 wins only by the 2S (seed 001)",
    "restricted_no_sweeps": "under V-dom-end restricted sides record no sweeps at all",
    "target": "points needed to win the game (C-game)",
}


@dataclass(frozen=True)
class Preset:
    """A named variant: its fixed traits, its default switches and the player counts it allows."""

    name: str
    title: str
    players: tuple[int, ...]
    deck: str
    royal: bool  # J Q K count 11 12 13 and an Ace 1 or 14 (else C-face: faces match by rank)
    building: bool
    scoring: str
    defaults: dict = field(default_factory=dict)
    switches: tuple[str, ...] = ()  # switches that make sense for this preset
    description: str = ""


_COMMON = ("sweeps", "countout", "cancel", "dom_trail", "dom_build", "dom_end", "soto",
           "partner_build", "twenty_by_two_spades", "restricted_no_sweeps", "target")

PRESETS: dict[str, Preset] = {
    "casino": Preset(
        "casino", "Casino (classic, Anglo-American)", (2, 3, 4), "standard", False, True, "casino",
        dict(sweeps=False, target=21), _COMMON,
        "Ace 1, numerals face value, J Q K capture only one card of their rank (C-face); "
        "sweeps not scored by default."),
    "royal": Preset(
        "royal", "Royal Casino (North America)", (2, 3, 4), "standard", True, True, "casino",
        dict(sweeps=False, countout=True, target=21), _COMMON,
        "J 11, Q 12, K 13, Ace 1 or 14; sweeps off by default (never cancelled when on); "
        "count-out when several reach 21 in one hand (V-countout)."),
    "dominican": Preset(
        "dominican", "Casino in the Dominican Republic", (2, 3, 4), "standard", True, True,
        "casino",
        dict(sweeps=True, cancel=True, dom_trail=True, dom_build=True, dom_end=True, target=21),
        _COMMON,
        "Royal values; no trailing a card that matches a loose card (V-dom-trail); no raising "
        "your own build (V-dom-build); sweeps 1 each, cancelled (V-cancel); endgame "
        "restrictions at 18-20 (V-dom-end). Four players play as partners."),
}


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
    target: int = 21

    def __post_init__(self) -> None:
        preset = PRESETS[self.variant]
        deck = DECKS[preset.deck]
        s = object.__setattr__
        s(self, "preset", preset)
        s(self, "deck", deck)
        s(self, "royal", preset.royal)
        s(self, "building", preset.building)
        s(self, "scoring", preset.scoring)
        s(self, "sides", 2 if self.partnerships else self.players)
        s(self, "max_value", 14 if preset.royal else 10)
        s(self, "values", _card_values(deck, preset.royal))

    # Attributes set in __post_init__ (declared for type checkers).
    preset: Preset = field(init=False, repr=False, compare=False)
    deck: Deck = field(init=False, repr=False, compare=False)
    royal: bool = field(init=False, repr=False, compare=False)
    building: bool = field(init=False, repr=False, compare=False)
    scoring: str = field(init=False, repr=False, compare=False)
    sides: int = field(init=False, repr=False, compare=False)
    max_value: int = field(init=False, repr=False, compare=False)
    values: tuple = field(init=False, repr=False, compare=False)

    def side(self, seat: int) -> int:
        return seat % 2 if self.partnerships else seat

    def switches(self) -> dict:
        """The user-settable switches and their values (the spec's ``rules`` dict)."""
        return {k: getattr(self, k) for k in SWITCH_TYPES}

    def value_class(self, value: int) -> int:
        """Rank of the cards that capture a build of ``value`` (a Royal 14 is an Ace)."""
        return 1 if value == 14 else value


def _card_values(deck: Deck, royal: bool) -> tuple:
    """Capture value of each card id in a set of several cards (Ace 1); None for C-face cards."""
    return tuple(r if (royal or r <= 10) else None for r in deck.rank)


_INIT_FIELDS = {f.name for f in fields(Rules) if f.init}


def make_rules(variant: str = "casino", players: int = 2, partnerships: bool | None = None,
               switches: dict | None = None, *, where: str = "") -> Rules:
    """Validated Rules for a preset plus switches; a bad value raises ValueError naming it."""
    pre = f"{where}: " if where else ""
    if not isinstance(variant, str) or variant not in PRESETS:
        raise ValueError(f"{pre}unknown variant {variant!r} (known: {', '.join(PRESETS)})")
    preset = PRESETS[variant]
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError(f"{pre}players must be an int, got {players!r}")
    if players not in preset.players:
        raise ValueError(f"{pre}players={players} is not allowed for {variant!r} "
                         f"(allowed: {', '.join(map(str, preset.players))})")
    if partnerships is None:
        partnerships = variant == "dominican" and players == 4
    if not isinstance(partnerships, bool):
        raise ValueError(f"{pre}partnerships must be true or false, got {partnerships!r}")
    if partnerships and players != 4:
        raise ValueError(f"{pre}partnerships need 4 players (C-deal), got players={players}")
    values = dict(preset.defaults)
    for name, value in (switches or {}).items():
        if name not in SWITCH_TYPES:
            raise ValueError(f"{pre}unknown rule switch {name!r} "
                             f"(known: {', '.join(sorted(SWITCH_TYPES))})")
        if name not in preset.switches:
            raise ValueError(f"{pre}rule switch {name!r} does not apply to {variant!r}")
        typ = SWITCH_TYPES[name]
        if isinstance(value, bool) != (typ is bool) or not isinstance(value, typ):
            raise ValueError(f"{pre}rule switch {name!r} must be {typ.__name__}, got {value!r}")
        values[name] = value
    rules = Rules(variant=variant, players=players, partnerships=partnerships,
                  **{k: v for k, v in values.items() if k in _INIT_FIELDS})
    _check_consistency(rules, pre)
    return rules


def _check_consistency(r: Rules, pre: str) -> None:
    if r.target < 1:
        raise ValueError(f"{pre}rule switch 'target' must be positive, got {r.target}")
    if r.soto and not r.dom_end:
        raise ValueError(f"{pre}rule switch 'soto' needs 'dom_end' (V-soto modifies V-dom-end)")
    for name in ("twenty_by_two_spades", "restricted_no_sweeps"):
        if getattr(r, name) and not r.dom_end:
            raise ValueError(f"{pre}rule switch {name!r} needs 'dom_end'")
    if r.partner_build and not r.partnerships:
        raise ValueError(f"{pre}rule switch 'partner_build' needs partnerships (V-partner-build)")
    if r.cancel and not r.sweeps:
        raise ValueError(f"{pre}rule switch 'cancel' needs 'sweeps' (V-cancel)")


def list_variants() -> list[str]:
    """Names of every preset the engine plays."""
    return list(PRESETS)


def describe_variant(name: str) -> dict:
    """A preset's description: players allowed, deck, switches with their defaults."""
    if name not in PRESETS:
        raise ValueError(f"unknown variant {name!r} (known: {', '.join(PRESETS)})")
    p = PRESETS[name]
    base = Rules(variant=name, players=p.players[0],
                 **{k: v for k, v in p.defaults.items() if k in _INIT_FIELDS})
    sw = base.switches()
    return {
        "name": p.name,
        "title": p.title,
        "players": list(p.players),
        "partnerships": 4 in p.players,
        "deck": p.deck,
        "description": p.description,
        "switches": {k: {"default": sw[k], "doc": SWITCH_DOCS[k]} for k in p.switches},
    }
