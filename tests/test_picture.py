"""casino_env.picture: SVG and RGB pictures of states; the env's rgb_array mode and
_repr_html_; State._repr_html_."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import casino_env
from casino_env.engine import State, apply_move, legal_moves, new_game
from casino_env.picture import (
    RED,
    ROOK_DISCS,
    picture_size,
    scene,
    state_array,
    state_image,
    state_svg,
)

SVG = "{http://www.w3.org/2000/svg}"


def played(variant: str, players: int, seed: int, moves: int, prefer: str = "build") -> State:
    """A state after ``moves`` seeded random moves, preferring moves of kind ``prefer``."""
    st = new_game(variant, players, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if st.game_over:
            break
        ms = legal_moves(st)
        pick = [m for m in ms if m.kind == prefer] or ms
        st = apply_move(st, rng.choice(pick))
    return st


def with_build() -> State:
    for seed in range(50):
        st = played("royal", 2, seed, 3)
        if st.builds:
            return st
    raise AssertionError("no build found")


def cards_in_svg(svg: str, place: str | None = None) -> list[str]:
    root = ET.fromstring(svg)
    return [g.get("data-card") for g in root.iter(f"{SVG}g")
            if g.get("class") == "card" and (place is None or g.get("data-place") == place)]


def test_array_shape_dtype_and_size():
    st = new_game("royal", 2, seed=1)
    a = state_array(st)
    w, h = picture_size(2)
    assert a.shape == (h, w, 3) and a.dtype == np.uint8
    assert state_image(st).size == (w, h)
    assert a.std() > 10  # not a blank canvas
    assert picture_size(4)[1] > picture_size(2)[1]


def test_different_states_give_different_images():
    st = new_game("casino", 2, seed=4)
    after = apply_move(st, legal_moves(st)[0])
    a, b = state_array(st), state_array(after)
    assert a.shape == b.shape and not np.array_equal(a, b)
    assert state_svg(st) != state_svg(after)
    # the same state draws the same picture
    assert np.array_equal(a, state_array(State.from_spec(st.to_spec())))


def test_svg_is_well_formed_and_shows_table_cards_and_builds():
    st = with_build()
    svg = state_svg(st)
    root = ET.fromstring(svg)  # well-formed XML
    w, h = picture_size(2)
    assert root.get("width") == str(w) and root.get("height") == str(h)
    loose = st.rules.deck.strs(st.loose_mask)
    assert sorted(cards_in_svg(svg, "table")) == sorted(loose)
    built = sorted(c for b in st.builds for c in st.rules.deck.strs(b.cards))
    assert sorted(cards_in_svg(svg, "build")) == built
    for b in st.builds:
        assert f'data-build-value="{b.value}"' in svg
        assert f'data-owner="{b.owner}"' in svg
        assert re.search(rf">{b.value}( multiple)? · seat {b.owner}<", svg)
    # every hand face up without a viewer
    assert sorted(cards_in_svg(svg, "hand")) == sorted(st.hand(0) + st.hand(1))
    assert "scores" in svg and "piles" in svg


def test_viewer_hides_other_hands():
    st = new_game("royal", 3, seed=2)
    svg = state_svg(st, viewer=1)
    assert sorted(cards_in_svg(svg, "hand")) == sorted(st.hand(1))
    for seat in (0, 2):
        for card in st.hand(seat):
            assert f'data-card="{card}"' not in svg
    assert svg.count('class="back"') == len(st.hand(0)) + len(st.hand(2))


def test_suit_colours():
    st = State.from_spec({"variant": "casino", "players": 2, "hands": [["7H"], ["7S"]],
                          "table": ["2D", "3C"], "stock": []})
    svg = state_svg(st)
    groups = {g.get("data-card"): ET.tostring(g, encoding="unicode")
              for g in ET.fromstring(svg).iter(f"{SVG}g") if g.get("class") == "card"}
    assert RED in groups["7H"] and RED in groups["2D"]
    assert RED not in groups["7S"] and RED not in groups["3C"]
    tux = State.from_spec({"variant": "tuxedo", "players": 2, "hands": [["7R", "7Y"], ["7G"]],
                           "table": ["7B"], "stock": []})
    tsvg = state_svg(tux)
    for disc in ROOK_DISCS:
        assert disc in tsvg
    assert sorted(cards_in_svg(tsvg)) == ["7B", "7G", "7R", "7Y"]


def test_crowded_table_fits_the_fixed_canvas():
    deck = [f"{r}{s}" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J")
            for s in "SHDC"]
    st = State.from_spec({"variant": "casino", "players": 2, "hands": [["QS", "QH"], ["KS"]],
                          "table": deck, "stock": []})
    sc = scene(st)
    assert (sc.width, sc.height) == picture_size(2)
    for shape in sc.shapes:
        if shape.kind == "rect":
            a = shape.a
            assert 0 <= a["x"] and a["x"] + a["w"] <= sc.width + 0.5
            assert 0 <= a["y"] and a["y"] + a["h"] <= sc.height + 0.5
    assert sorted(cards_in_svg(state_svg(st), "table")) == sorted(deck)
    assert state_array(st).shape == (sc.height, sc.width, 3)


@pytest.mark.parametrize(("variant", "players", "mode"),
                         [("royal", 2, "enumerate"), ("tuxedo", 4, "enumerate"),
                          ("casino", 3, "compose"), ("finnish", 2, "compose")])
def test_env_rgb_array_frames_have_constant_shape(variant, players, mode):
    """Frames for a video: one shape for the whole episode, uint8, changing as play goes."""
    env = casino_env.raw_env(variant=variant, players=players, action_mode=mode,
                             render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    frames = [env.render()]
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if len(frames) < 40 or term or trunc:
            frames.append(env.render())
    h, w = picture_size(players)[::-1]
    assert all(f.shape == (h, w, 3) and f.dtype == np.uint8 for f in frames)
    assert len({f.tobytes() for f in frames}) > len(frames) // 3
    video = np.stack(frames)  # what a video writer takes
    assert video.shape == (len(frames), h, w, 3)


def test_env_picture_shows_the_agent_to_move():
    env = casino_env.raw_env(variant="royal", render_mode="rgb_array")
    assert "call reset" in env._repr_html_()
    env.reset(seed=5)
    st = env.unwrapped.state
    svg = env._repr_html_()
    assert sorted(cards_in_svg(svg, "hand")) == sorted(st.hand(st.current))
    other = 1 - st.current
    assert not any(f'data-card="{c}"' in svg for c in st.hand(other))
    assert "player_0" in svg and "player_1" in svg


def test_wrapped_env_renders_rgb_array():
    env = casino_env.env(variant="casino", render_mode="rgb_array")
    env.reset(seed=1)
    frame = env.render()
    assert frame.shape == (*picture_size(2)[::-1], 3)


def test_state_repr_html_shows_everything():
    st = with_build()
    html = st._repr_html_()
    assert html.startswith("<svg")
    assert sorted(cards_in_svg(html, "hand")) == sorted(st.hand(0) + st.hand(1))


def test_engine_svg_needs_no_heavy_imports():
    """State._repr_html_ draws with pure Python: no numpy, Pillow or gymnasium."""
    code = ("import sys; from casino_env.engine import new_game; "
            "s = new_game('royal', 2, seed=1)._repr_html_(); assert '<svg' in s; "
            "bad = [m for m in ('numpy', 'PIL', 'gymnasium', 'pettingzoo') if m in sys.modules]; "
            "assert not bad, bad")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr


def test_swazi_pile_tops_are_drawn_as_cards():
    """V-swazi-steal: the face-up top of each non-empty pile is drawn in the side panel as a
    card (data-place pile-top-<side>), in the SVG and the image; an empty pile has none."""
    st = State.from_spec({"variant": "swazi", "players": 2, "hands": [["7H"], ["2C"]],
                          "table": ["3S"], "piles": [["4D", "9S"], []], "current": 0})
    svg = state_svg(st)
    assert cards_in_svg(svg, "pile-top-0") == ["9S"]
    assert cards_in_svg(svg, "pile-top-1") == []
    assert ">side 0: 2 cards, top 9S" in svg
    both = State.from_spec({"variant": "swazi", "players": 2, "hands": [["7H"], ["2C"]],
                            "table": ["3S"], "piles": [["4D", "9S"], ["KH"]], "current": 0})
    svg2 = state_svg(both)
    assert cards_in_svg(svg2, "pile-top-0") == ["9S"]
    assert cards_in_svg(svg2, "pile-top-1") == ["KH"]
    # the top changes the image too (its size does not)
    other = State.from_spec({"variant": "swazi", "players": 2, "hands": [["7H"], ["2C"]],
                             "table": ["3S"], "piles": [["9S", "4D"], []], "current": 0})
    a, b = state_array(st), state_array(other)
    assert a.shape == b.shape and not np.array_equal(a, b)
    # other presets keep piles as counts only
    assert "pile-top" not in state_svg(new_game("casino", 2, seed=1))
