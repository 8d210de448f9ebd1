"""Pictures of a game state: an SVG string (Jupyter) and an RGB image (videos, ``rgb_array``).

Both come from one list of shapes, ``scene(state, viewer)``, drawn by code (no fonts for the
suits, no external files): cards with rank and suit (red hearts and diamonds; Rook colours red,
yellow, green, black), builds grouped in a gold frame with their value and owner, each seat's
hand (face up, or card backs for hands the viewer cannot see), and a side panel with scores,
piles (as counts; Swazi's face-up pile tops as cards), sweeps, the stock and points scored
during play.

``viewer=None`` shows every hand face up (the whole state, like ``print(state)``); with
``viewer=seat`` only that seat's hand and the hands everyone can see (Nagy's last round) are
face up. The picture's size depends only on the number of players (``picture_size``), so an
episode's frames all have one shape.

Only ``state_image``/``state_array`` need Pillow and numpy, imported when called; the SVG side
is pure Python, so Jupyter's picture of a state (``State._repr_html_``, which ``casino_env``
attaches to the engine's State and which imports this module on first use) needs neither.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from PIL import Image

    from .engine import State

WIDTH = 960
MAIN_W = 730  # the table and seat rows; the side panel is to the right
PAD = 10
HEADER = 40
CW, CH = 46, 64  # card size at scale 1
ROW_H = CH + 34
TABLE_H = 2 * (CH + 32) + 28
TOP_S = 0.55  # scale of the pile tops in the side panel (Swazi)

BG = "#0e3b26"
FELT = "#1d6b41"
FELT_EDGE = "#0b2a1b"
PANEL = "#0a2c1c"
TEXT = "#f4f1e8"
DIM = "#a9c2b3"
HIGHLIGHT = "#ffd54a"
GOLD = "#f2c94c"
FACE = "#fdfcf7"
EDGE = "#4a4a4a"
BACK = "#2b4c9b"
BACK_LINE = "#a8bbea"
RED = "#c8102e"
BLACK = "#1a1a1a"
# Suits S H D C; Rook colours R Y G B (yellow is darkened for the number, a disc shows it).
SUIT_COLOURS = {"standard": (BLACK, RED, RED, BLACK),
                "rook": ("#d62828", "#c99700", "#2a9d3a", BLACK)}
ROOK_DISCS = ("#e63946", "#ffd60a", "#38b000", "#222222")


class Shape(NamedTuple):
    """One drawing primitive. ``kind``: rect, circle, poly, line, text, begin (a group with
    SVG attributes ``a``), end. Coordinates in pixels; ``a`` holds the rest."""

    kind: str
    a: dict


class Scene(NamedTuple):
    width: int
    height: int
    shapes: list[Shape]


def picture_size(players: int) -> tuple[int, int]:
    """(width, height) of every picture of a game with ``players`` seats."""
    return WIDTH, HEADER + 6 + players * ROW_H + TABLE_H + 8 + PAD


# -- shapes -----------------------------------------------------------------------------------

def _rect(out: list, x: float, y: float, w: float, h: float, fill: str | None,
          stroke: str | None = None, width: float = 1, radius: float = 0) -> None:
    out.append(Shape("rect", dict(x=x, y=y, w=w, h=h, fill=fill, stroke=stroke, width=width,
                                  radius=radius)))


def _text(out: list, x: float, y: float, text: str, size: float, fill: str = TEXT,
          anchor: str = "start", bold: bool = False) -> None:
    out.append(Shape("text", dict(x=x, y=y, text=text, size=size, fill=fill, anchor=anchor,
                                  bold=bold)))


def _circle(out: list, cx: float, cy: float, r: float, fill: str,
            stroke: str | None = None) -> None:
    out.append(Shape("circle", dict(cx=cx, cy=cy, r=r, fill=fill, stroke=stroke)))


def _poly(out: list, points: list[tuple[float, float]], fill: str) -> None:
    out.append(Shape("poly", dict(points=points, fill=fill)))


def _line(out: list, x1: float, y1: float, x2: float, y2: float, stroke: str,
          width: float = 1) -> None:
    out.append(Shape("line", dict(x1=x1, y1=y1, x2=x2, y2=y2, stroke=stroke, width=width)))


def _suit(out: list, suit: int, cx: float, cy: float, r: float, colour: str) -> None:
    """A suit drawn from circles and polygons: 0 spade, 1 heart, 2 diamond, 3 club."""
    if suit == 2:
        _poly(out, [(cx, cy - r), (cx + 0.72 * r, cy), (cx, cy + r), (cx - 0.72 * r, cy)],
              colour)
    elif suit == 1:
        _circle(out, cx - 0.5 * r, cy - 0.35 * r, 0.53 * r, colour)
        _circle(out, cx + 0.5 * r, cy - 0.35 * r, 0.53 * r, colour)
        _poly(out, [(cx - 1.0 * r, cy - 0.22 * r), (cx + 1.0 * r, cy - 0.22 * r),
                    (cx, cy + r)], colour)
    elif suit == 0:
        _circle(out, cx - 0.48 * r, cy + 0.18 * r, 0.5 * r, colour)
        _circle(out, cx + 0.48 * r, cy + 0.18 * r, 0.5 * r, colour)
        _poly(out, [(cx - 0.97 * r, cy + 0.12 * r), (cx + 0.97 * r, cy + 0.12 * r),
                    (cx, cy - r)], colour)
        _poly(out, [(cx, cy + 0.2 * r), (cx - 0.35 * r, cy + r), (cx + 0.35 * r, cy + r)],
              colour)
    else:
        for dx, dy in ((0, -0.45), (-0.47, 0.12), (0.47, 0.12)):
            _circle(out, cx + dx * r, cy + dy * r, 0.42 * r, colour)
        _poly(out, [(cx, cy - 0.1 * r), (cx - 0.3 * r, cy + r), (cx + 0.3 * r, cy + r)],
              colour)


def _card(out: list, deck, cid: int, x: float, y: float, s: float, place: str,
          seat: int | None = None) -> None:
    """A face-up card; its SVG group carries ``data-card`` and ``data-place``."""
    name = deck.names[cid]
    attrs = {"class": "card", "data-card": name, "data-place": place}
    if seat is not None:
        attrs["data-seat"] = str(seat)
    out.append(Shape("begin", dict(attrs=attrs, title=name)))
    w, h = CW * s, CH * s
    _rect(out, x, y, w, h, FACE, EDGE, max(1.0, s), 5 * s)
    suit = deck.suit[cid]
    rook = deck.name == "rook"
    colour = SUIT_COLOURS["rook" if rook else "standard"][suit]
    rank = name[:-1]
    _text(out, x + 4 * s, y + 16 * s, rank, 15 * s, colour, bold=True)
    if rook:
        _circle(out, x + w / 2, y + h * 0.62, 11 * s, ROOK_DISCS[suit], EDGE)
        _text(out, x + w - 4 * s, y + h - 5 * s, rank, 10 * s, colour, "end")
    else:
        _suit(out, suit, x + w / 2, y + h * 0.62, 11 * s, colour)
        _suit(out, suit, x + 9 * s, y + 26 * s, 4.5 * s, colour)
    out.append(Shape("end", {}))


def _back(out: list, x: float, y: float, s: float) -> None:
    w, h = CW * s, CH * s
    out.append(Shape("begin", dict(attrs={"class": "back"}, title="hidden card")))
    _rect(out, x, y, w, h, BACK, "#dfe6f7", max(1.0, s), 5 * s)
    _rect(out, x + 4 * s, y + 4 * s, w - 8 * s, h - 8 * s, None, BACK_LINE, 1, 3 * s)
    _line(out, x + 4 * s, y + 4 * s, x + w - 4 * s, y + h - 4 * s, BACK_LINE)
    _line(out, x + w - 4 * s, y + 4 * s, x + 4 * s, y + h - 4 * s, BACK_LINE)
    out.append(Shape("end", {}))


# -- the scene --------------------------------------------------------------------------------

def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def visible_seats(state: State, viewer: int | None) -> set[int]:
    """Seats whose hands the picture shows face up for ``viewer`` (None: every seat)."""
    n = state.rules.players
    if viewer is None or state.game_over:
        return set(range(n))
    from .engine.view import exposed_seats

    return {viewer, *exposed_seats(state)}


def scene(state: State, viewer: int | None = None, labels: list[str] | None = None,
          note: str | None = None) -> Scene:
    """The picture of ``state`` as shapes (see the module docstring for ``viewer``)."""
    r = state.rules
    n = r.players
    width, height = picture_size(n)
    out: list[Shape] = []
    _rect(out, 0, 0, width, height, BG)
    title = (f"{r.variant} · {n} players" + (f" · {r.teams()}" if r.partnerships else "")
             + f" · hand {state.hand_no + 1} · dealer seat {state.dealer}")
    _text(out, PAD + 4, 27, title, 18, TEXT, bold=True)
    shown = visible_seats(state, viewer)
    labels = labels or [f"seat {i}" for i in range(n)]
    top = list(range(n // 2, n))
    bottom = list(range(0, n // 2))
    y = HEADER + 6
    for seat in top:
        _seat_row(out, state, seat, y, seat in shown, labels[seat], viewer)
        y += ROW_H
    _table(out, state, y)
    y += TABLE_H + 8
    for seat in bottom:
        _seat_row(out, state, seat, y, seat in shown, labels[seat], viewer)
        y += ROW_H
    _panel(out, state, height, note)
    return Scene(width, height, out)


def _seat_row(out: list, st: State, seat: int, y: float, face_up: bool, label: str,
              viewer: int | None) -> None:
    r = st.rules
    to_move = seat == st.current and not st.game_over
    colour = HIGHLIGHT if to_move else TEXT
    if to_move:
        _poly(out, [(PAD, y + 8), (PAD + 10, y + 14), (PAD, y + 20)], HIGHLIGHT)
    _text(out, PAD + 14, y + 20, label, 15, colour, bold=True)
    info = []
    if r.partnerships or r.sides != r.players:
        info.append(f"side {r.side(seat)}")
    if seat == st.dealer:
        info.append("dealer")
    if viewer is not None and seat == viewer:
        info.append("viewer")
    mask = st.hand_masks[seat]
    count = mask.bit_count()
    _text(out, PAD + 14, y + 40, f"{count} card{'s' if count != 1 else ''}", 12, DIM)
    if info:
        _text(out, PAD + 14, y + 58, " · ".join(info), 12, DIM)
    if to_move:
        _text(out, PAD + 14, y + 76, "to move", 12, HIGHLIGHT)
    x0, x1 = PAD + 140, MAIN_W - PAD
    cy = y + (ROW_H - CH) / 2
    if not count:
        _text(out, x0, cy + CH / 2 + 5, "no cards", 13, DIM)
        return
    step = min(CW + 8, (x1 - x0 - CW) / max(1, count - 1))
    ids = _bits(mask)
    for k in range(count):
        x = x0 + k * step
        if face_up:
            _card(out, r.deck, ids[k], x, cy, 1.0, "hand", seat)
        else:
            _back(out, x, cy, 1.0)


def _table(out: list, st: State, y: float) -> None:
    r = st.rules
    deck = r.deck
    x0, w = PAD, MAIN_W - PAD
    _rect(out, x0, y, w, TABLE_H, FELT, FELT_EDGE, 3, 18)
    out.append(Shape("begin", dict(attrs={"class": "table"}, title="table")))
    items: list[tuple[str, object]] = [("card", c) for c in _bits(st.loose_mask)]
    items += [("build", b) for b in st.builds]
    if not items:
        _text(out, x0 + w / 2, y + TABLE_H / 2 + 6, "(empty table)", 16, DIM, "middle")
        out.append(Shape("end", {}))
        return
    inner_w = w - 32
    for s in (1.0, 0.85, 0.72, 0.6, 0.5, 0.42, 0.35):
        rows = _flow(items, s, inner_w, r.players)
        row_h = (CH + 26) * s + 6
        if len(rows) * row_h <= TABLE_H - 12 or s == 0.35:
            break
    total = len(rows) * row_h
    ty = y + max(6, (TABLE_H - total) / 2)
    for row in rows:
        tx = x0 + 16
        for (kind, item), iw in row:
            top = ty + 22 * s
            if kind == "card":
                _card(out, deck, item, tx, top, s, "table")
            else:
                _build(out, st, item, tx, top, s, iw)
            tx += iw + 12 * s
        ty += row_h
    out.append(Shape("end", {}))


def _build_label(b, players: int) -> str:
    return f"{b.value}{' multiple' if b.multiple else ''} · seat {b.owner}"


def _item_width(kind: str, item, s: float, players: int) -> float:
    if kind == "card":
        return CW * s
    k = item.cards.bit_count()
    cards_w = CW * s + (k - 1) * CW * 0.42 * s
    label_w = len(_build_label(item, players)) * 12 * s * 0.58 + 8 * s
    return max(cards_w, label_w)


def _flow(items: list, s: float, width: float, players: int) -> list[list]:
    rows: list[list] = [[]]
    used = 0.0
    for kind, item in items:
        iw = _item_width(kind, item, s, players)
        if rows[-1] and used + iw > width:
            rows.append([])
            used = 0.0
        rows[-1].append(((kind, item), iw))
        used += iw + 12 * s
    return rows


def _build(out: list, st: State, b, x: float, y: float, s: float, iw: float) -> None:
    deck = st.rules.deck
    attrs = {"class": "build", "data-build-value": str(b.value), "data-owner": str(b.owner),
             "data-multiple": "true" if b.multiple else "false"}
    label = _build_label(b, st.rules.players)
    out.append(Shape("begin", dict(attrs=attrs, title=f"build of {b.value}, seat {b.owner}")))
    _rect(out, x - 4 * s, y - 20 * s, iw + 8 * s, CH * s + 24 * s, "#17563a", GOLD,
          max(1.0, 2 * s), 7 * s)
    _text(out, x, y - 6 * s, label, 12 * s, GOLD, bold=True)
    for k, cid in enumerate(_bits(b.cards)):
        _card(out, deck, cid, x + k * CW * 0.42 * s, y, s, "build")
    out.append(Shape("end", {}))


def _panel(out: list, st: State, height: int, note: str | None) -> None:
    r = st.rules
    x = MAIN_W + 6
    w = WIDTH - PAD - x
    _rect(out, x, HEADER + 6, w, height - HEADER - 6 - PAD, PANEL, FELT_EDGE, 1, 10)
    tx = x + 12
    y = HEADER + 30
    # text, size (the line's height less 7), colour, bold, pile tops drawn as cards
    lines: list[tuple[str, float, str, bool, tuple]] = []

    def add(text: str, size: float = 13, colour: str = TEXT, bold: bool = False) -> None:
        lines.append((text, size, colour, bold, ()))

    add(f"scores (to {r.target})", 15, TEXT, True)
    for side, score in enumerate(st.scores):
        seats = "+".join(str(s) for s in range(r.players) if r.side(s) == side)
        who = f"side {side}" + (f" (seats {seats})" if r.sides != r.players else "")
        won = st.game_over and st.winner == side
        add(f"{who}: {score}" + ("  wins" if won else ""), 14, HIGHLIGHT if won else TEXT, won)
    if st.hand_points is not None:
        add(f"last hand: {list(st.hand_points)}", 12, DIM)
    add("", 6)
    add("piles", 15, TEXT, True)
    for side, pile in enumerate(st.pile_masks):
        text = f"side {side}: {pile.bit_count()} cards"
        if st.pile_ids and pile:  # V-swazi-steal: the face-up top another side may take
            text += f", top {st.pile_top(side)}"
        if r.sweeps:
            text += f", {st.sweeps[side]} sweep{'s' if st.sweeps[side] != 1 else ''}"
        add(text)
    tops = tuple((side, st.pile_ids[side][-1]) for side, pile in enumerate(st.pile_masks)
                 if st.pile_ids and pile)
    if tops:  # V-swazi-steal: the face-up tops, drawn as cards under their side's number
        lines.append(("", TOP_S * CH + 12, TEXT, False, tops))
    add("", 6)
    add(f"stock: {len(st.stock_ids)} cards" + (" (last deal)" if not st.stock_ids else ""), 13)
    if st.events:
        add("", 6)
        add("scored in play", 15, TEXT, True)
        for side, item, pts in st.events[-6:]:
            add(f"side {side} {item} {pts:+d}", 12)
    if st.pending_orange is not None:
        add(f"seat {st.pending_orange} may call orange", 12, HIGHLIGHT)
    if st.extra_turn and not st.game_over:
        add(f"seat {st.current} plays again (Nagy)", 12, HIGHLIGHT)
    if st.game_over:
        add("", 6)
        add("game over" if st.winner is None else f"game over: side {st.winner} wins", 15,
            HIGHLIGHT, True)
    if note:
        add("", 6)
        for part in _wrap(note, 30):
            add(part, 12, DIM)
    for text, size, colour, bold, cards in lines:
        if y > height - PAD - 6:
            break
        if text:
            _text(out, tx, y, text, size, colour, bold=bold)
        for k, (side, cid) in enumerate(cards):
            cx = tx + k * (CW * TOP_S + 8)
            _card(out, r.deck, cid, cx, y - 8, TOP_S, f"pile-top-{side}")
            _text(out, cx, y + CH * TOP_S + 3, f"side {side}", 9, DIM)
        y += size + 7


def _wrap(text: str, width: int) -> list[str]:
    words, lines, line = text.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


# -- SVG --------------------------------------------------------------------------------------

def _n(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def to_svg(sc: Scene) -> str:
    """The scene as a standalone SVG document (a string)."""
    w, h = sc.width, sc.height
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
             f'viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" '
             'class="casino-env">']
    for shape in sc.shapes:
        a = shape.a
        k = shape.kind
        if k == "rect":
            attrs = (f'x="{_n(a["x"])}" y="{_n(a["y"])}" width="{_n(a["w"])}" '
                     f'height="{_n(a["h"])}" fill="{a["fill"] or "none"}"')
            if a["radius"]:
                attrs += f' rx="{_n(a["radius"])}"'
            if a["stroke"]:
                attrs += f' stroke="{a["stroke"]}" stroke-width="{_n(a["width"])}"'
            parts.append(f"<rect {attrs}/>")
        elif k == "circle":
            stroke = f' stroke="{a["stroke"]}"' if a["stroke"] else ""
            parts.append(f'<circle cx="{_n(a["cx"])}" cy="{_n(a["cy"])}" r="{_n(a["r"])}" '
                         f'fill="{a["fill"]}"{stroke}/>')
        elif k == "poly":
            pts = " ".join(f"{_n(px)},{_n(py)}" for px, py in a["points"])
            parts.append(f'<polygon points="{pts}" fill="{a["fill"]}"/>')
        elif k == "line":
            parts.append(f'<line x1="{_n(a["x1"])}" y1="{_n(a["y1"])}" x2="{_n(a["x2"])}" '
                         f'y2="{_n(a["y2"])}" stroke="{a["stroke"]}" '
                         f'stroke-width="{_n(a["width"])}"/>')
        elif k == "text":
            weight = ' font-weight="bold"' if a["bold"] else ""
            parts.append(f'<text x="{_n(a["x"])}" y="{_n(a["y"])}" font-size="{_n(a["size"])}" '
                         f'fill="{a["fill"]}" text-anchor="{a["anchor"]}"{weight}>'
                         f'{escape(a["text"])}</text>')
        elif k == "begin":
            attrs = " ".join(f'{key}="{escape(val)}"' for key, val in a["attrs"].items())
            parts.append(f"<g {attrs}><title>{escape(a['title'])}</title>")
        elif k == "end":
            parts.append("</g>")
    parts.append("</svg>")
    return "\n".join(parts)


def state_svg(state: State, viewer: int | None = None, labels: list[str] | None = None,
              note: str | None = None) -> str:
    """An SVG picture of ``state`` (every hand face up unless ``viewer`` is a seat)."""
    return to_svg(scene(state, viewer, labels, note))


# -- raster -----------------------------------------------------------------------------------

_FONTS: dict = {}


def _font(size: float):
    from PIL import ImageFont

    key = max(6, round(size))
    font = _FONTS.get(key)
    if font is None:
        try:
            font = ImageFont.load_default(size=key)
        except (TypeError, OSError, ImportError):  # Pillow < 10.1 or without FreeType
            font = ImageFont.load_default()
        _FONTS[key] = font
    return font


_ANCHORS = {"start": "ls", "middle": "ms", "end": "rs"}


def to_image(sc: Scene) -> Image.Image:
    """The scene drawn with Pillow (an RGB image of ``sc.width`` x ``sc.height``)."""
    try:
        from PIL import Image, ImageDraw
    except ImportError as e:  # pragma: no cover
        raise ImportError("pictures as images need Pillow: pip install Pillow") from e

    img = Image.new("RGB", (sc.width, sc.height), BG)
    draw = ImageDraw.Draw(img)
    for shape in sc.shapes:
        a = shape.a
        k = shape.kind
        if k == "rect":
            box = [round(a["x"]), round(a["y"]), round(a["x"] + a["w"]) - 1,
                   round(a["y"] + a["h"]) - 1]
            width = max(1, round(a["width"])) if a["stroke"] else 0
            draw.rounded_rectangle(box, radius=round(a["radius"]), fill=a["fill"],
                                   outline=a["stroke"], width=width)
        elif k == "circle":
            cx, cy, rr = a["cx"], a["cy"], a["r"]
            draw.ellipse([cx - rr, cy - rr, cx + rr, cy + rr], fill=a["fill"],
                         outline=a["stroke"])
        elif k == "poly":
            draw.polygon(a["points"], fill=a["fill"])
        elif k == "line":
            draw.line([(a["x1"], a["y1"]), (a["x2"], a["y2"])], fill=a["stroke"],
                      width=max(1, round(a["width"])))
        elif k == "text":
            font = _font(a["size"])
            try:
                draw.text((a["x"], a["y"]), a["text"], fill=a["fill"], font=font,
                          anchor=_ANCHORS[a["anchor"]],
                          stroke_width=0)
            except ValueError:  # a bitmap font without anchor support
                draw.text((a["x"], a["y"] - a["size"]), a["text"], fill=a["fill"], font=font)
    return img


def state_image(state: State, viewer: int | None = None, labels: list[str] | None = None,
                note: str | None = None) -> Image.Image:
    """A Pillow RGB image of ``state`` (size ``picture_size(players)``)."""
    return to_image(scene(state, viewer, labels, note))


def state_array(state: State, viewer: int | None = None, labels: list[str] | None = None,
                note: str | None = None) -> np.ndarray:
    """An H x W x 3 uint8 array of ``state`` (H, W fixed by the number of players)."""
    import numpy as np

    return np.asarray(state_image(state, viewer, labels, note), dtype=np.uint8)
