"""docs/rules.md travels with the project (issue 16 item 6): every rule id the engine
implements or names has a heading there, which is the anchor an illegal move's error links to
(``docs/rules.md#c-build``), and the page points at nothing outside the repository.

The rules reference (RULES.md) lives beside the project, not in a clone; where it is present
the list below is checked against its sections 1-3 (the ones the engine implements) and the
section-4 ids implemented so far.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from casino_env.engine import IllegalMoveError, State, apply_move
from casino_env.engine.play import rule_link

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "rules.md"
RULE_ID = re.compile(r"\b[CV]-[a-z][a-z0-9-]*[a-z0-9]\b")

# RULES.md sections 1 (common core), 2 (the presets' rules) and 3 (the variations' switches).
IMPLEMENTED = (
    "C-deck", "C-deal", "C-turn", "C-capture", "C-face", "C-build", "C-build-raise",
    "C-build-extend", "C-build-keep", "C-owner-trail", "C-one-per-value", "C-move", "C-trail",
    "C-residue", "C-sweep", "C-score", "C-game",
    "V-dom-trail", "V-dom-build", "V-cancel", "V-dom-end", "V-soto", "V-partner-build",
    "V-hun-play", "V-hun-end", "V-tux-deal", "V-tux-score", "V-spade",
    "V-build-loose", "V-owner-may-trail", "V-raise-with-table", "V-build-as-card", "V-target",
    "V-last-capture", "V-countout", "V-earned",
) + (
    # RULES.md section 4: the ids implemented so far (the house switches, the Nordic presets,
    # swazi, krypkasino).
    "V-spade-bicycle", "V-hun-cut", "V-points",
    "V-nordic-play", "V-swe-score", "V-swe-end", "V-fin-values", "V-fin-score",
    "V-swazi-steal", "V-swazi-deal", "V-swazi-score",
    "V-kryp-values", "V-kryp-seats", "V-kryp-play", "V-kryp-score", "V-kryp-end",
)
SECTION_4 = ("V-spade-bicycle", "V-hun-cut", "V-points", "V-nordic-play", "V-swe-score",
             "V-swe-end", "V-fin-values", "V-fin-score", "V-swazi-steal", "V-swazi-deal",
             "V-swazi-score", "V-kryp-values", "V-kryp-seats", "V-kryp-play", "V-kryp-score",
             "V-kryp-end")


def github_anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of a markdown page (``### C-build`` ->
    ``c-build``)."""
    out = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        out.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return out


def rules_reference() -> Path | None:
    """RULES.md beside the project, if this checkout has it."""
    for path in (ROOT.parent / "shared" / "RULES.md", Path("/work/shared/RULES.md")):
        if path.is_file():
            return path
    return None


def engine_rule_ids() -> set[str]:
    """Every rule id the engine's code names (raised in errors, checked, or commented)."""
    ids: set[str] = set()
    for path in (ROOT / "casino_env" / "engine").glob("*.py"):
        ids |= set(RULE_ID.findall(path.read_text(encoding="utf-8")))
    # why_illegal also raises C-{move.kind}: C-trail, C-capture, C-build.
    return ids | {"C-trail", "C-capture", "C-build"}


def test_every_implemented_rule_has_a_heading():
    """Each rule of RULES.md sections 1-3 is stated in docs/rules.md under a heading named by
    its id."""
    text = DOC.read_text(encoding="utf-8")
    headings = set(re.findall(r"^#{2,6} ([CV]-[a-z0-9-]+)$", text, re.M))
    assert sorted(set(IMPLEMENTED) - headings) == []
    assert sorted(headings - set(IMPLEMENTED)) == []  # (no heading for a rule not implemented)


def test_every_rule_the_engine_names_is_implemented_and_documented():
    """No rule id in the engine is misspelt or missing from the page (C-turn, V-tux-score,
    ...)."""
    ids = engine_rule_ids()
    assert "C-turn" in ids and "V-tux-score" in ids
    assert sorted(ids - set(IMPLEMENTED)) == []
    anchors = github_anchors(DOC.read_text(encoding="utf-8"))
    assert sorted(r for r in ids if r.lower() not in anchors) == []


@pytest.mark.parametrize("rule", IMPLEMENTED)
def test_error_links_reach_their_heading(rule):
    """``rule_link`` (the link an IllegalMoveError ends with) names a heading of the page."""
    page, _, anchor = rule_link(rule).partition("#")
    assert (ROOT / page) == DOC
    assert anchor == rule.lower() and anchor in github_anchors(DOC.read_text(encoding="utf-8"))


def test_an_error_message_links_to_the_page():
    with pytest.raises(IllegalMoveError) as info:
        apply_move(State.from_spec({"variant": "casino", "players": 2,
                                    "hands": [["5H"], ["KS"]], "table": ["KD"]}),
                   "KS captures KD")
    link = str(info.value).rpartition("see ")[2].rstrip(")")
    assert link == "docs/rules.md#c-turn"
    assert "c-turn" in github_anchors(DOC.read_text(encoding="utf-8"))


def test_the_page_points_at_nothing_outside_the_repository():
    """A clone has no ../shared/: the page states the rules itself."""
    text = DOC.read_text(encoding="utf-8")
    assert "../shared" not in text and "shared/" not in text
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if not re.match(r"[a-z]+:", target):
            rel = target.partition("#")[0]
            assert not rel or (DOC.parent / rel).resolve().is_relative_to(ROOT), target


def test_the_rules_are_written_in_the_projects_own_words():
    """No rule's text is copied from RULES.md: no sentence of 12 or more words of the
    reference stands in the page (checked where the reference is present)."""
    ref = rules_reference()
    if ref is None:
        pytest.skip("RULES.md is not beside this checkout")
    words = re.findall(r"[a-z0-9]+", DOC.read_text(encoding="utf-8").lower())
    page = " ".join(words)
    ref_words = re.findall(r"[a-z0-9]+", ref.read_text(encoding="utf-8").lower())
    copied = {" ".join(ref_words[i:i + 12]) for i in range(len(ref_words) - 11)
              if " ".join(ref_words[i:i + 12]) in page}
    assert not copied, sorted(copied)[:5]


def test_the_list_matches_the_reference_sections_the_engine_implements():
    """IMPLEMENTED is exactly the ids RULES.md defines in sections 1-3 (where present), plus
    the section-4 ids implemented so far (SECTION_4), each defined there."""
    ref = rules_reference()
    if ref is None:
        pytest.skip("RULES.md is not beside this checkout")
    text = ref.read_text(encoding="utf-8")
    cut = text.index("\n## 4.")
    pattern = re.compile(r"^\s*- \*\*([CV]-[a-z0-9-]+)\*\*", re.M)
    assert set(pattern.findall(text[:cut])) == set(IMPLEMENTED) - set(SECTION_4)
    assert set(SECTION_4) <= set(pattern.findall(text[cut:]))
